"""The built pages: each lesson's output, frame, downloads and links.

These read the site that ``nox -s docs`` (or ``nox -s tests``) built in
``build/html``.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import nbformat
import pytest
from conftest import (
    LESSONS,
    ROOT,
    SECTIONS,
    VERSION,
    captured_output,
    downloads,
    lesson_id,
    page,
    soup,
)

sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from pbe.download import learner_script  # noqa: E402
from pbe.lesson_source import Lesson  # noqa: E402
from pbe.stamp import count_checks  # noqa: E402

URLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
TORCH = metadata.version("torch").split("+")[0]
# "Verified on <date> with torch X.Y.Z on <device>: N checks ran and
# passed", or, where some checks sit in branches a run may skip, "every
# check that ran passed (N checks, K of them in branches ...)" (pbe.stamp).
STAMP = re.compile(
    r"Verified on \d{4}-\d\d-\d\d with torch (?P<torch>[\d.]+) on "
    r"(?P<device>.+?): (?:(?P<checks>\d+) checks? ran and passed|every "
    r"check that ran passed \((?P<all>\d+) checks, \d+ of them in branches "
    r"not every run takes\))\."
)


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_page_shows_captured_output(site, lesson):
    """Warnings fail the build (pbe.torch_state), so output is clean."""
    html = page(site, lesson)
    assert html.is_file(), f"no page for {lesson}"
    assert captured_output(html).strip(), f"{html.name} shows no output"


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_page_offers_the_lesson_as_py_and_ipynb(site, lesson):
    """The .py is the learner's script (tests/test_received.py reads it)."""
    files = downloads(site, lesson)
    assert files[".py"].read_text() == learner_script(lesson.read_text())
    nb = nbformat.read(files[".ipynb"], as_version=4)
    nbformat.validate(nb)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert code[0].startswith("%matplotlib inline\n")
    assert f'"torch": "{TORCH}"' in code[0]
    assert f"{VERSION}/setup.html" in code[0]
    assert "pip install" not in code[0]
    # hidden checks and build configuration stay out of the notebook
    assert "sphinx_gallery_" not in files[".ipynb"].read_text()


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_page_hides_the_hidden_blocks(site, lesson):
    html = page(site, lesson).read_text(encoding="utf-8")
    assert "sphinx_gallery_" not in html


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_frame_under_the_title(site, lesson):
    """Computed reading time and the verified stamp, right under the title;
    no "Go to the end" note."""
    html = soup(page(site, lesson))
    time = html.select_one("h1 ~ p.pbe-time")
    assert time is not None, f"{lesson.stem}: no reading time"
    minutes = Lesson.read(lesson).core_minutes()
    assert time.get_text().startswith(f"About {minutes} minutes")
    stamp = html.select_one("h1 ~ p.pbe-verified")
    match = STAMP.fullmatch(stamp.get_text().strip())
    assert match, stamp.get_text()
    assert match["torch"] == TORCH
    checks = int(match["checks"] or match["all"])
    assert checks == count_checks(lesson.read_text()) > 0
    assert not html.select(".sphx-glr-download-link-note")


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_lesson_actions_colab_and_report_a_problem(site, lesson):
    html = soup(page(site, lesson))
    colab = html.select_one(".pbe-colab a")["href"]
    assert colab == (
        "https://colab.research.google.com/github/"
        f"{URLS['Repository'].removeprefix('https://github.com/')}"
        f"/blob/gh-pages/{VERSION}/notebooks/{lesson_id(lesson)}.ipynb"
    )
    report = urlsplit(html.select_one(".pbe-report a")["href"])
    assert f"{report.scheme}://{report.netloc}{report.path}" == (
        f"{URLS['Repository']}/issues/new"
    )
    body = parse_qs(report.query)["body"][0]
    assert f"Lesson: {lesson_id(lesson)}" in body
    assert f"Site version: {VERSION}" in body
    assert f"with torch {TORCH}" in body


def test_index_pages_have_no_lesson_actions(site):
    for index in [
        site / "index.html",
        *(site / "lessons").rglob("index.html"),
    ]:
        assert "colab.research.google.com" not in index.read_text()


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_tags_link_the_filtered_index(site, lesson):
    tags = json.loads(
        re.search(
            r"^# sphinx_gallery_tags = (\[.*\])$", lesson.read_text(), re.M
        )[1]
    )
    html = soup(page(site, lesson))
    hrefs = [a["href"] for a in html.select(".sphx-glr-example-tags a")]
    assert hrefs == [f"../index.html?sg-tags={quote(t)}" for t in tags]
    index = soup(site / "lessons" / "index.html")
    card = index.select_one(
        f".sphx-glr-thumbcontainer:has(a[href='{lesson_id(lesson)}.html'])"
    )
    assert json.loads(card["data-sgtags"]) == tags


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_page_shows_no_paths_of_the_build_machine(site, lesson):
    text = captured_output(page(site, lesson))
    folders = {str(Path.home()), str(ROOT)}
    if os.environ.get("PBE_DATA_DIR"):
        folders.add(str(Path(os.environ["PBE_DATA_DIR"]).resolve()))
    assert not [f for f in folders if f in text]


def test_lessons_by_api_page(site):
    html = soup(site / "lessons_by_api.html")
    for name in ("torch.nn.Linear", "torch.optim.SGD"):
        section = html.find(id=name.replace(".", "-").lower())
        assert section is not None, f"no section for {name}"
        assert section.select(".sphx-glr-thumbcontainer a[href]")


def test_thumbnails_tell_lessons_apart(site):
    """No two cards alike, unless both show their section's picture."""
    index = site / "lessons" / "index.html"
    pictures: dict[bytes, list[str]] = {}
    for card in soup(index).select(".sphx-glr-thumbcontainer"):
        href = card.select_one("a[href]")["href"]
        img = (index.parent / card.select_one("img")["src"]).resolve()
        pictures.setdefault(img.read_bytes(), []).append(href)

    def section_picture(href: str) -> bool:
        source = (ROOT / "gallery" / href.removesuffix(".html")).with_suffix(
            ".py"
        )
        section = source.parent.name
        return f'thumbnail_path = "_static/thumbs/{section}.png"' in (
            source.read_text()
        )

    alike = [
        hrefs
        for hrefs in pictures.values()
        if len(hrefs) > 1 and not all(map(section_picture, hrefs))
    ]
    assert not alike, f"cards with the same picture: {alike}"


def test_zip_archives_hold_every_lesson(site):
    archives = {p.name: p for p in (site / "_downloads").glob("*/*.zip")}
    for name, suffix in (
        ("lessons_python.zip", ".py"),
        ("lessons_jupyter.zip", ".ipynb"),
    ):
        members = {
            m.rsplit("/", 1)[-1]
            for m in zipfile.ZipFile(archives[name]).namelist()
        }
        expected = {lesson.stem + suffix for lesson in LESSONS}
        assert expected <= members, f"{name} lacks {expected - members}"


def test_lesson_index_in_learning_order(site):
    """Sections in learning-path order, lessons by their two-digit prefix."""
    index = soup(site / "lessons" / "index.html")
    hrefs = [
        a["href"] for a in index.select(".sphx-glr-thumbcontainer a[href]")
    ]
    order = [f"{lesson_id(lesson)}.html" for lesson in LESSONS]
    assert [h for h in hrefs if h in order] == order


def test_home_page_path_lists_lessons_with_times(site):
    home = soup(site / "index.html")
    path = home.select_one(".pbe-path")
    items = path.select("li")
    assert len(items) >= 8
    for item in items:
        href = item.select_one("a[href]")["href"]
        lesson = ROOT / "gallery" / href.removeprefix("lessons/")
        minutes = Lesson.read(lesson.with_suffix(".py")).core_minutes()
        assert f"about {minutes} min" in item.get_text()
    links = {a["href"].split("#")[0] for a in home.select("a[href]")}
    assert {f"lessons/{s}/index.html" for s in SECTIONS} <= links
    assert "setup.html" in links


def test_section_texts_have_one_source(site):
    """The home page's cards show each section's GALLERY_HEADER text."""
    home = soup(site / "index.html").get_text(" ", strip=True)
    for section in SECTIONS:
        header = (
            ROOT / "gallery" / section / "GALLERY_HEADER.rst"
        ).read_text()
        first_words = " ".join(header.split("\n\n", 1)[1].split()[:6])
        first_words = first_words.replace("``", "")
        assert first_words in home, section


def test_build_tables_stay_out_of_the_top_navigation(site):
    nav = soup(site / "index.html").select_one(".bd-header")
    assert "Computation times" not in nav.get_text()
    about = soup(site / "about.html")
    assert about.select_one("a[href='sg_execution_times.html']")


def test_header_names_the_torch_release_and_the_site_version(site):
    header = soup(site / "index.html").select_one(".bd-header")
    assert f"PyTorch {TORCH}" in header.get_text(" ", strip=True)
    entries = json.loads((site / "_static" / "switcher.json").read_text())
    assert all(e["name"].startswith("Site ") for e in entries)
    assert VERSION in {e["version"] for e in entries}
    assert sum(bool(e.get("preferred")) for e in entries) == 1


def test_maths_is_served_by_the_site(site):
    html = (site / "lessons" / "basics" / "02_numpy_warmup.html").read_text()
    scripts = re.findall(r'<script[^>]+src="([^"]*mathjax[^"]*)"', html)
    assert scripts and not any("://" in s for s in scripts), scripts
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file()
