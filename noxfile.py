"""Tasks for PyTorch by Example.

    nox -s docs        build the site, changed lessons executed -> build/html
    nox -s docs-fast   prose-only rebuild, no lesson executed
    nox -s tests       build the site, then run the test suite
    nox -s lint        ruff check, ruff format --check, zizmor (offline);
                       actionlint where installed (pre-commit runs the same)
    nox -s lock        re-pin uv.lock after a change to pyproject's groups
    nox -s publish     build a version into build/site/<version>/, every
                       lesson executed afresh (`-- dev` for dev)
    nox -s benchmark   time a clean and a no-change build, per-lesson seconds

All sessions share one virtualenv (``.nox/venv``): torch and TensorFlow make
it several GB, so the docs and tests sessions must not each build their
own. It is installed by uv from ``uv.lock``, which pins every package the
``docs`` and ``test`` groups of pyproject.toml pull in. Add ``-R`` (reuse,
skip installs) for the fastest turnaround once it exists.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox

nox.needs_version = ">=2025.2.9"  # requires= between sessions
nox.options.default_venv_backend = "uv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["docs"]

ROOT = Path(__file__).resolve().parent
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
GROUPS = ("docs", "test")  # what the shared virtualenv holds
VENV = ROOT / ".nox" / "venv"  # created by the `venv` session below
SITE = ROOT / "build" / "html"  # where the built site lands
AXE = ROOT / ".nox" / "axe"  # axe-core for tests/test_browser.py (npm)
AXE_CORE = "axe-core@4.14.1"  # accessibility rules the browser tests inject
SPHINX = ("-m", "sphinx", "-b", "html", "-W", "--keep-going", "docs")


def _run(session: nox.Session, *args: str, **kwargs) -> None:
    """Run ``python *args`` inside the shared virtualenv."""
    env = {
        "VIRTUAL_ENV": str(VENV),
        "PATH": f"{VENV / 'bin'}{os.pathsep}{os.environ['PATH']}",
    }
    session.run(
        str(VENV / "bin" / "python"),
        *args,
        env=env | kwargs.pop("env", {}),
        external=True,
        **kwargs,
    )


@nox.session(python="3.11", default=False)
def venv(session: nox.Session) -> None:
    """Create/refresh the shared virtualenv from uv.lock (docs, test)."""
    groups = [arg for g in GROUPS for arg in ("--group", g)]
    session.run_install(
        "uv",
        "sync",
        "--locked",  # fail if uv.lock no longer matches pyproject.toml
        "--no-default-groups",
        # Write .pyc files now: where PYTHONDONTWRITEBYTECODE is set (it is
        # on ours) every process would otherwise compile torch's sources
        # again on import (import torch, torchvision: 9.5 s -> 3.4 s).
        "--compile-bytecode",
        *groups,
        env={"UV_PROJECT_ENVIRONMENT": session.virtualenv.location},
        external=True,
    )
    if (
        shutil.which("npm")
        and not (AXE / "node_modules" / "axe-core").is_dir()
    ):
        session.run(
            "npm",
            "install",
            "--silent",
            "--no-save",
            "--prefix",
            str(AXE),
            AXE_CORE,
            external=True,
        )


@nox.session(venv_backend="uv", default=False)
def lock(session: nox.Session) -> None:
    """Re-pin uv.lock from pyproject.toml's dependency groups."""
    session.run("uv", "lock", *session.posargs, external=True)


@nox.session(venv_backend="none", requires=["venv"])
def docs(session: nox.Session) -> None:
    """Build the site, running changed lessons; posargs go to sphinx-build."""
    _run(session, *SPHINX, str(SITE), *session.posargs)
    session.log(f"Site built: {SITE / 'index.html'}")


@nox.session(name="docs-fast", venv_backend="none", requires=["venv"])
def docs_fast(session: nox.Session) -> None:
    """Rebuild the site without executing lessons (for prose-only edits)."""
    _run(session, *SPHINX, str(SITE), "-D", "plot_gallery=0", *session.posargs)


@nox.session(venv_backend="none", requires=["venv"])
def lint(session: nox.Session) -> None:
    """Lint and format checks, offline: what pre-commit runs in CI."""

    def tool(name: str, *args: str) -> None:
        session.run(str(VENV / "bin" / name), *args, external=True)

    tool("ruff", "check", "--output-format", "concise", ".")
    tool("ruff", "format", "--check", "--diff", ".")
    tool("zizmor", "--offline", "--no-progress", ".github")
    if (VENV / "bin" / "actionlint").is_file():
        tool("actionlint")
    else:
        session.log(
            "actionlint not installed (its installer needs GitHub; "
            "pre-commit runs it in CI)"
        )


@nox.session(venv_backend="none", requires=["venv"])
def tests(session: nox.Session) -> None:
    """Build the site (incrementally), then run pytest (posargs).

    Lessons' downloads run as tests/conftest.py says: by default those not
    passed before with this uv.lock and file; ``-- --lessons all`` runs
    every one, ``-- --lessons changed`` those changed against
    ``origin/main`` (``--base REF``). ``PBE_LESSONS`` and ``PBE_BASE`` set
    the same. ``-- --no-build`` skips the build (CI builds first, to time
    it apart). Tests run in two worker processes (``-- -n 0``: one).
    """
    args = list(session.posargs)
    if "--no-build" in args:
        args.remove("--no-build")
    else:
        _run(session, *SPHINX, str(SITE))
    axe_js = AXE / "node_modules" / "axe-core" / "axe.min.js"
    _run(
        session,
        "-m",
        "pytest",
        # Two workers (pytest-xdist), handed tests one at a time in
        # conftest.py's order (longest first), so both finish together.
        # A later ``-n`` in posargs wins (``-- -n 0`` for none).
        "--numprocesses=2",
        "--dist=load",
        "--maxschedchunk=1",
        *args,
        env={"PBE_AXE_JS": str(axe_js)},
    )


@nox.session(venv_backend="none", requires=["venv"])
def publish(session: nox.Session) -> None:
    """Publish into build/site/<version>/: pyproject's version, or `-- dev`.

    Every lesson runs afresh; notebooks land in <version>/notebooks/ for the
    Colab links; .github/workflows/docs.yml pushes build/site to gh-pages.
    """
    args = session.posargs or [PYPROJECT["project"]["version"]]
    _run(session, "tools/publish.py", *args)


@nox.session(venv_backend="none", requires=["venv"])
def benchmark(session: nox.Session) -> None:
    """Time a clean build (once), a no-change rebuild, per-lesson seconds.

    Writes build/benchmark.json; ``-- --edits`` adds a one-lesson prose and
    code edit.
    """
    _run(session, "tools/benchmark.py", *session.posargs)
