"""Shared fixtures: the built site and the list of lessons.

The tests read the site that ``nox -s docs`` (or ``nox -s tests``, which
builds it first) wrote to ``build/html``.
"""

from __future__ import annotations

import re
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


def pytest_addoption(parser):
    parser.addoption(
        "--rerun-lessons",
        action="store_true",
        help="run every lesson's downloads, even those recorded as passed",
    )


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
