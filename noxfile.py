"""Tasks for PyTorch by Example.

    nox -s docs        build the site, changed lessons executed -> build/html
    nox -s docs-fast   prose-only rebuild, no lesson executed
    nox -s tests       build the site, then run the test suite
    nox -s publish     build a version into build/site/<version>/, every
                       lesson executed afresh (`-- dev` for dev)
    nox -s benchmark   time clean, no-change, one-lesson and parallel builds

All sessions share one virtualenv (``.nox/venv``): torch and TensorFlow make
it about 7 GB, so the docs and tests sessions must not each build their own.
Add ``-R`` (reuse, skip installs) for the fastest turnaround once it exists.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox

nox.needs_version = ">=2025.2.9"  # nox.project.dependency_groups, requires=
nox.options.default_venv_backend = "venv"
nox.options.reuse_venv = "yes"
nox.options.sessions = ["docs"]

ROOT = Path(__file__).resolve().parent
PYPROJECT = nox.project.load_toml(ROOT / "pyproject.toml")
VENV = ROOT / ".nox" / "venv"  # created by the `venv` session below
SITE = ROOT / "build" / "html"  # where the built site lands
AXE = (
    ROOT / ".nox" / "axe"
)  # axe-core, from the npm registry, for tests/test_browser.py
AXE_CORE = "axe-core@4.14.1"  # accessibility rules the browser tests inject
SPHINX = (
    "-m",
    "sphinx",
    "-b",
    "html",
    "-W",
    "--keep-going",
    "docs",
    str(SITE),
)


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
    """Create/refresh the shared virtualenv with the docs and test groups."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "docs", "test"))
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


@nox.session(venv_backend="none", requires=["venv"])
def docs(session: nox.Session) -> None:
    """Build the site, running changed lessons; posargs go to sphinx-build."""
    _run(session, *SPHINX, *session.posargs)
    session.log(f"Site built: {SITE / 'index.html'}")


@nox.session(name="docs-fast", venv_backend="none", requires=["venv"])
def docs_fast(session: nox.Session) -> None:
    """Rebuild the site without executing lessons (for prose-only edits)."""
    _run(session, *SPHINX, "-D", "plot_gallery=0", *session.posargs)


@nox.session(venv_backend="none", requires=["venv"])
def tests(session: nox.Session) -> None:
    """Build the site (incrementally), then run pytest (posargs)."""
    _run(session, *SPHINX)
    axe_js = AXE / "node_modules" / "axe-core" / "axe.min.js"
    _run(
        session,
        "-m",
        "pytest",
        *session.posargs,
        env={"PBE_AXE_JS": str(axe_js)},
    )


@nox.session(venv_backend="none", requires=["venv"])
def publish(session: nox.Session) -> None:
    """Publish into build/site/<version>/: pyproject's version, or `-- dev`.

    Every lesson runs afresh; notebooks land in <version>/notebooks/ for the
    Colab links; .github/workflows/docs.yml pushes build/site to gh-pages.
    """
    args = session.posargs or [PYPROJECT["project"]["version"]]
    _run(session, "docs/publish.py", *args)


@nox.session(venv_backend="none", requires=["venv"])
def benchmark(session: nox.Session) -> None:
    """Time clean, no-change, one-lesson and parallel builds.

    Writes build/benchmark.json.
    """
    _run(session, "docs/benchmark.py", *session.posargs)
