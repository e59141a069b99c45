"""Shared fixtures: the built site, the list of lessons, and which lessons'
downloads run this time.

The tests read the site that ``nox -s docs`` (or ``nox -s tests``, which
builds it first) wrote to ``build/html``.

Which lessons' downloads run (``--lessons``, or ``PBE_LESSONS``):

* ``new`` (the default): every lesson, except a download that already
  passed with the same ``uv.lock`` and the same file; on a fresh clone
  that is every lesson;
* ``all``: every lesson, no pass skipped (main, nightly, publishing);
* ``changed``: the lessons changed against ``--base`` (``PBE_BASE``,
  default ``origin/main``; committed, uncommitted and untracked changes),
  as scikit-learn selects examples for a pull request; every lesson when
  shared code changed (``SHARED``) or the base cannot be found.

The same key decides for the slow tests of the build machinery: a test
marked ``@pytest.mark.inputs(path, ...)`` that passed before with the same
``uv.lock`` and the same bytes under those paths is skipped under ``new``
(so a no-change ``nox -s tests`` re-runs no tiny build and no LinkChecker).
Passes are recorded in ``build/passed/``; delete it, or use ``--lessons
all``, to run everything.

Pytest's closing summary prints the seconds spent in each test file.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "build" / "html"
SECTIONS = ["basics", "nn", "data", "advanced"]
LESSONS = sorted(
    (p for s in SECTIONS for p in (ROOT / "gallery" / s).glob("*.py")),
    key=lambda p: (SECTIONS.index(p.parent.name), p.name),
)
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
    "version"
]


# A change to any of these can change how every lesson runs.
SHARED = (
    "docs/conf.py",
    "docs/_ext/",
    "uv.lock",
    "pyproject.toml",
    "noxfile.py",
    ".ci/run",
    "tests/conftest.py",
    "tests/test_downloads_run.py",
)


PASSED = ROOT / "build" / "passed"
# Generated beside the sources: never an input of a test of the machinery.
GENERATED = ("lessons", "gen_modules", "sg_*", "lessons_by_api.rst")


def inputs_key(*paths: Path) -> str:
    """The one key: uv.lock's hash, and the bytes of every file under
    ``paths`` (generated folders and caches left out)."""
    sys.path.insert(0, str(ROOT / "docs" / "_ext"))
    from pbe.rerun import environment_key

    digest = hashlib.sha256(environment_key(ROOT).encode())
    for path in map(Path, paths):
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for f in files:
            parts = f.relative_to(path).parts if path.is_dir() else ()
            if not f.is_file() or "__pycache__" in parts:
                continue
            if path == ROOT / "docs" and any(
                Path(*parts[:1]).match(g) for g in GENERATED
            ):
                continue
            digest.update(f"{f}\0".encode() + f.read_bytes())
    return digest.hexdigest()[:16]


def _record(nodeid: str) -> Path:
    return PASSED / re.sub(r"[^\w.-]+", "-", nodeid)


def passed_before(config, nodeid: str, key: str) -> bool:
    record = _record(nodeid)
    return (
        config.getoption("--lessons") == "new"
        and record.is_file()
        and record.read_text() == key
    )


def record_pass(nodeid: str, key: str) -> None:
    PASSED.mkdir(parents=True, exist_ok=True)
    _record(nodeid).write_text(key)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "inputs(*paths): skip if passed before with the same uv.lock and "
        "the same files under paths (conftest.py)",
    )


_KEY = pytest.StashKey[str]()


def _marked_key(item) -> str | None:
    marker = item.get_closest_marker("inputs")
    return inputs_key(*marker.args) if marker else None


def pytest_runtest_setup(item):
    """Before any fixture is set up: skip what passed on these inputs."""
    key = _marked_key(item)
    if key is not None:
        item.stash[_KEY] = key
        if passed_before(item.config, item.nodeid, key):
            pytest.skip("passed before with this uv.lock and these inputs")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    key = item.stash.get(_KEY, None)
    if key is not None and call.when == "call" and report.passed:
        record_pass(item.nodeid, key)
    return report


def pytest_addoption(parser):
    parser.addoption(
        "--lessons",
        choices=["new", "all", "changed"],
        default=os.environ.get("PBE_LESSONS") or "new",
        help="which lessons' downloads run: new (not passed before with "
        "this uv.lock and file), all, or changed (against --base)",
    )
    parser.addoption(
        "--base",
        default=os.environ.get("PBE_BASE") or "origin/main",
        help="git ref that --lessons=changed compares with",
    )


def _git(root: Path, *args: str) -> list[str] | None:
    proc = subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True
    )
    return proc.stdout.splitlines() if proc.returncode == 0 else None


def changed_files(base: str, root: Path = ROOT) -> list[str] | None:
    """Paths changed since ``base``'s merge base; None if it is unknown."""
    committed = _git(root, "diff", "--name-only", f"{base}...HEAD")
    if committed is None:
        return None
    uncommitted = _git(root, "diff", "--name-only", "HEAD") or []
    untracked = _git(root, "ls-files", "--others", "--exclude-standard")
    return committed + uncommitted + (untracked or [])


def lessons_to_run(base: str, root: Path = ROOT) -> set[str] | None:
    """Ids of the lessons changed against ``base``; None means all."""
    changed = changed_files(base, root)
    if changed is None or any(p.startswith(SHARED) for p in changed):
        return None
    return {
        lesson_id(root / p)
        for p in changed
        if p.startswith("gallery/") and p.endswith(".py")
    }


def lesson_seconds(lesson: Path) -> float | None:
    """The lesson's seconds in the last build (its stamp), if it ran."""
    stamp = ROOT / "docs" / "lessons" / lesson.parent.name
    stamp = stamp / f"{lesson.stem}.verified.json"
    if not stamp.is_file():
        return None
    return json.loads(stamp.read_text(encoding="utf-8"))["seconds"]


def pytest_collection_modifyitems(config, items):
    """Longest first, so that two workers finish together: the lesson runs
    by their build seconds, then the rest in file order (pytest-xdist hands
    tests out in this order, one at a time)."""

    def cost(item) -> float:
        callspec = getattr(item, "callspec", None)  # parametrized tests only
        if item.path.name != "test_downloads_run.py" or callspec is None:
            return 0.0
        return lesson_seconds(callspec.params["lesson"]) or 0.0

    items.sort(key=cost, reverse=True)  # stable: the rest keep their order


_SECONDS: collections.Counter = collections.Counter()


def pytest_runtest_logreport(report):
    _SECONDS[report.nodeid.split("::")[0]] += report.duration


def pytest_terminal_summary(terminalreporter):
    if not _SECONDS:
        return
    terminalreporter.section("seconds per test file")
    for name, seconds in _SECONDS.most_common():
        terminalreporter.write_line(f"{seconds:8.1f}  {name}")
    terminalreporter.write_line(f"{sum(_SECONDS.values()):8.1f}  in all")


def lesson_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.fixture(scope="session")
def site() -> Path:
    if not (SITE / "index.html").is_file():
        pytest.fail(
            f"No built site at {SITE}: run `nox -s docs` "
            "(or `nox -s tests`) first."
        )
    return SITE


def page(site: Path, lesson: Path) -> Path:
    return site / "lessons" / lesson.parent.name / f"{lesson.stem}.html"


def soup(path: Path) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def captured_output(html: Path) -> str:
    """All text a lesson printed, as captured on its page."""
    blocks = soup(html).select(
        "pre.sphx-glr-script-out, div.sphx-glr-script-out pre"
    )
    return "\n".join(b.get_text() for b in blocks)


def downloads(site: Path, lesson: Path) -> dict[str, Path]:
    """The files a lesson page offers for download, by suffix."""
    html = page(site, lesson)
    found = {}
    for a in soup(html).select("a[download][href*='_downloads/']"):
        target = (html.parent / a["href"]).resolve()
        found[target.suffix] = target
    return found


def make_project(tmp: Path, lessons: dict[str, str]) -> Path:
    """A copy of the docs with a tiny gallery, so building it is quick.

    ``lessons`` maps ``"<section>/<file>.py"`` to the lesson's source.
    """
    import shutil

    shutil.copytree(
        ROOT / "docs",
        tmp / "docs",
        ignore=shutil.ignore_patterns(
            "lessons", "sg_*", "gen_modules", "lessons_by_api.rst"
        ),
    )
    shutil.copytree(ROOT / "tools", tmp / "tools")
    shutil.copy(ROOT / "pyproject.toml", tmp)
    shutil.copy(ROOT / "uv.lock", tmp)  # the lessons' environment key
    gallery = tmp / "gallery"
    gallery.mkdir()
    shutil.copy(ROOT / "gallery" / "GALLERY_HEADER.rst", gallery)
    for section in SECTIONS:  # section texts that name no real lesson
        (gallery / section).mkdir()
        title = section.capitalize()
        (gallery / section / "GALLERY_HEADER.rst").write_text(
            f"{title}\n{'-' * len(title)}\n\nThe {section} lessons.\n"
        )
    for name, source in lessons.items():
        (gallery / name).write_text(source)
    # The home page's route names the real lessons: leave it out.
    index = tmp / "docs" / "index.rst"
    index.write_text(
        re.sub(
            r"^\.\. pbe-path::\n\n(   .*\n)+",
            "",
            index.read_text(),
            flags=re.M,
        )
    )
    _unlink_missing_lessons(tmp, lessons)
    return tmp


def _unlink_missing_lessons(project: Path, lessons: dict[str, str]) -> None:
    """Other pages' links to real lessons the project lacks become text."""
    labels = {
        f"sphx_glr_lessons_{name.removesuffix('.py').replace('/', '_')}.py"
        for name in lessons
    }

    def text(match: re.Match) -> str:
        if match["label"] in labels:
            return match[0]
        return match["title"] or match["label"]

    for rst in (project / "docs").glob("*.rst"):
        rst.write_text(
            re.sub(
                r":ref:`(?:(?P<title>[^`<]*?)\s*<)?"
                r"(?P<label>sphx_glr_[\w.]+)>?`",
                text,
                rst.read_text(),
            )
        )
