"""Shared fixtures: the built site, the list of lessons, and which lessons'
downloads run this time.

The tests read the site that ``nox -s docs`` (or ``nox -s tests``, which
builds it first) wrote to ``build/html``.

Which lessons' downloads run (``--lessons``, or ``PBE_LESSONS``):

* ``new`` (the default): every lesson, except a download that already
  passed with the same ``uv.lock`` and the same file (the record
  ``build/lesson-runs.json``); on a fresh clone that is every lesson;
* ``all``: every lesson, the record ignored (main, nightly, publishing);
* ``changed``: the lessons changed against ``--base`` (``PBE_BASE``,
  default ``origin/main``; committed, uncommitted and untracked changes),
  as scikit-learn selects examples for a pull request; every lesson when
  shared code changed (``SHARED``) or the base cannot be found.

Pytest's closing summary prints the seconds spent in each test file.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
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
    return tmp
