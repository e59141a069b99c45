"""The built site: every lesson has a page with its output and downloads."""

from __future__ import annotations

import io
import json
import os
import re
import sys
import tokenize
import tomllib
import zipfile
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
import pbe_sphinx  # noqa: E402

URLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]

# What must never appear in a lesson's captured output: a traceback, any
# warning category, or an uncaught exception line ("ValueError: ...").
# A warning a lesson catches on purpose is printed on a line of its own that
# starts with "warned " (as a shown error starts with "raised ").
BAD_OUTPUT = re.compile(
    r"Traceback|^(?!warned ).*Warning|^\w*Error\b", re.MULTILINE
)


def test_there_are_lessons():
    assert len(LESSONS) >= 3


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_page_shows_captured_output(site, lesson):
    html = page(site, lesson)
    assert html.is_file(), f"no page for {lesson}"
    text = captured_output(html)
    assert text.strip(), f"{html.name} shows no captured output"
    bad = BAD_OUTPUT.search(text)
    assert bad is None, f"{html.name} output contains {bad.group(0)!r}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_page_offers_py_and_ipynb(site, lesson):
    files = downloads(site, lesson)
    for suffix in (".py", ".ipynb"):
        assert suffix in files, f"no {suffix} download on {lesson.stem}"
        assert files[suffix].is_file(), (
            f"{files[suffix]} is linked but missing"
        )
    # The .py download is the lesson itself.
    assert files[".py"].read_text() == lesson.read_text()


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_notebook_is_valid(site, lesson):
    """The first cell: inline plots, the verified stamp, the versions it
    was verified with (a note if the reader's differ), the data source."""
    nb = nbformat.read(downloads(site, lesson)[".ipynb"], as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    first = code[0].source
    assert first.startswith("%matplotlib inline\n")
    assert re.search(STAMP, first), first
    assert f'"torch": "{TORCH}"' in first
    if "torchvision" in pbe_sphinx._imports(lesson.read_text()):
        assert '"torchvision": "' in first
    for name, url in pbe_sphinx.data_sources(lesson.read_text()):
        assert f"# Data: {name},\n#   {url}\n" in first
    assert "pip install" not in first and "!pip" not in first
    assert len(code) > 2


# "Verified on <date> with torch X.Y.Z on <device>: <N> checks passed"
STAMP = re.compile(
    r"Verified on \d{4}-\d\d-\d\d with torch (?P<torch>[\d.]+) on "
    r"(?P<device>.+?): (?P<checks>\d+) checks? passed"
)
TORCH = pbe_sphinx._version("torch")


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_page_shows_verified_stamp_under_title(site, lesson):
    html = soup(page(site, lesson))
    stamp = html.select_one("h1 ~ p.pbe-verified")
    assert stamp is not None, f"{lesson.stem}: no stamp under the title"
    match = STAMP.fullmatch(stamp.get_text().strip())
    assert match, stamp.get_text()
    assert match["torch"] == TORCH
    checks = int(match["checks"])
    assert checks > 0, f"{lesson.stem} verifies nothing"
    assert checks == pbe_sphinx.count_checks(lesson.read_text())


def test_check_count_reads_the_source():
    source = (
        "import torch\nassert 1\nassert torch.autograd.gradcheck(f, x)\n"
        "torch.testing.assert_close(a, b)\ngradcheck(f, x)\n"
        "# assert in a comment\nprint('assert_close(')\n"
    )
    assert pbe_sphinx.count_checks(source) == 4


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


def test_index_pages_have_no_colab_link(site):
    for index in [
        site / "index.html",
        *(site / "lessons").rglob("index.html"),
    ]:
        assert "colab.research.google.com" not in index.read_text()


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_tags_are_sphinx_gallery_tags_linking_the_filtered_index(site, lesson):
    tags = pbe_sphinx_tags(lesson)
    assert tags, f"{lesson.name}: no # sphinx_gallery_tags = [...] line"
    assert tags[0] in {"beginner", "intermediate", "advanced"}, tags
    html = soup(page(site, lesson))
    hrefs = [a["href"] for a in html.select(".sphx-glr-example-tags a")]
    assert hrefs == [f"../index.html?sg-tags={quote(t)}" for t in tags]
    index = soup(site / "lessons" / "index.html")
    card = index.select_one(
        f".sphx-glr-thumbcontainer:has(a[href='{lesson_id(lesson)}.html'])"
    )
    assert json.loads(card["data-sgtags"]) == tags


def pbe_sphinx_tags(lesson):
    match = re.search(
        r"^# sphinx_gallery_tags = (\[.*\])$", lesson.read_text(), re.M
    )
    return json.loads(match.group(1)) if match else []


def test_no_sphinx_tags_pages(site):
    assert not (site / "tags").exists()


def test_lessons_by_api_page(site):
    """torch.nn.Linear, torch.optim.SGD and DataLoader, each with the
    lessons whose code uses them (and only those)."""
    html = soup(site / "lessons_by_api.html")
    for name, used_as in [
        ("torch.nn.Linear", r"\bLinear\("),
        ("torch.optim.SGD", r"\bSGD\("),
        ("torch.utils.data.DataLoader", r"\bDataLoader\("),
    ]:
        section = html.find(id=name.replace(".", "-").lower())
        assert section is not None, f"no section for {name}"
        linked = {
            a["href"].removeprefix("lessons/").removesuffix(".html")
            for a in section.select(".sphx-glr-thumbcontainer a[href]")
        }
        users = {
            lesson_id(lesson)
            for lesson in LESSONS
            if re.search(used_as, code_of(lesson))
        }
        assert users, f"no lesson uses {name}"
        assert users <= linked, f"{name}: missing {sorted(users - linked)}"


def code_of(lesson):
    """A lesson's code as run in the build: no comments, and strings empty
    (a script that a lesson writes to a file and launches is a string)."""
    source = lesson.read_text()
    starts = [0]  # offset of each line in `source`
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    spans = [
        (starts[t.start[0] - 1] + t.start[1], starts[t.end[0] - 1] + t.end[1])
        for t in tokens
        if t.type in (tokenize.STRING, tokenize.COMMENT)
    ]
    for begin, end in reversed(spans):
        source = source[:begin] + "''" + source[end:]
    return source


def test_thumbnails_tell_lessons_apart(site):
    """Each card has its own picture: no two alike, unless both are their
    section's picture (docs/_static/thumbs/<section>.png, named by a lesson
    without figures); never sphinx-gallery's default."""
    index = site / "lessons" / "index.html"
    pictures = {}
    for card in soup(index).select(".sphx-glr-thumbcontainer"):
        href = card.select_one("a[href]")["href"]
        img = (index.parent / card.select_one("img")["src"]).resolve()
        pictures.setdefault(img.read_bytes(), []).append(href)
    section_picture = re.compile(
        r'^# sphinx_gallery_thumbnail_path = "_static/thumbs/'
        r'(?P<section>\w+)\.png"$',
        re.MULTILINE,
    )

    def names_its_section_picture(href):
        lesson = ROOT / "gallery" / href.removesuffix(".html")
        match = section_picture.search(lesson.with_suffix(".py").read_text())
        return match and match["section"] == lesson.parent.name

    alike = [
        hrefs
        for hrefs in pictures.values()
        if len(hrefs) > 1 and not all(map(names_its_section_picture, hrefs))
    ]
    assert not alike, f"cards with the same picture: {alike}"


def test_zip_archives_hold_every_lesson(site):
    archives = {p.name: p for p in (site / "_downloads").glob("*/*.zip")}
    for name, suffix in (
        ("lessons_python.zip", ".py"),
        ("lessons_jupyter.zip", ".ipynb"),
    ):
        assert name in archives, f"missing {name}"
        members = {
            m.rsplit("/", 1)[-1]
            for m in zipfile.ZipFile(archives[name]).namelist()
        }
        expected = {lesson.stem + suffix for lesson in LESSONS}
        assert expected <= members, (
            f"{name} lacks {sorted(expected - members)}"
        )


def test_lesson_index_links_every_lesson(site):
    index = site / "lessons" / "index.html"
    links = {a["href"].split("#")[0] for a in soup(index).select("a[href]")}
    for lesson in LESSONS:
        assert f"{lesson.parent.name}/{lesson.stem}.html" in links, (
            f"index lacks {lesson.stem}"
        )


def test_home_page_links_every_section(site):
    links = {
        a["href"].split("#")[0]
        for a in soup(site / "index.html").select("a[href]")
    }
    for section in SECTIONS:
        assert f"lessons/{section}/index.html" in links


def test_lessons_in_explicit_order(site):
    """Sections in learning-path order, lessons by their two-digit prefix."""
    index = soup(site / "lessons" / "index.html")
    hrefs = [
        a["href"] for a in index.select(".sphx-glr-thumbcontainer a[href]")
    ]
    order = [f"{lesson.parent.name}/{lesson.stem}.html" for lesson in LESSONS]
    assert [h for h in hrefs if h in order] == order


def test_execution_times_page_lists_every_lesson(site):
    text = soup(site / "sg_execution_times.html").get_text()
    for lesson in LESSONS:
        assert f"{lesson.stem}.py" in text
    stamps = STAMP.findall(text)
    assert len(stamps) == len(LESSONS), "a lesson's verified stamp is missing"


def test_version_switcher_names_current_version(site):
    entries = json.loads((site / "_static" / "switcher.json").read_text())
    assert all({"version", "url"} <= set(e) for e in entries)
    assert VERSION in {e["version"] for e in entries}
    assert sum(bool(e.get("preferred")) for e in entries) == 1
    # and the pages are built for that version
    assert (
        f"theme_switcher_version_match = '{VERSION}'"
        in (site / "index.html").read_text()
    )


def test_face_dataset_names_file_and_row_of_bad_input(site):
    """A missing image or a malformed CSV row fails naming file and row."""
    text = captured_output(
        page(site, ROOT / "gallery" / "data" / "02_custom_dataset_faces.py")
    )
    assert re.search(
        r"Missing image error: \S+\.csv, row \d+ .*\.jpg does not exist", text
    )
    assert re.search(
        r"Malformed row error: \S+\.csv, row \d+ .*is not a number", text
    )
    assert re.search(
        r"Malformed row error: \S+\.csv, row \d+ "
        r".*fields where the header has",
        text,
    )


def test_cifar_page_reports_accuracy_and_training_time(site):
    text = captured_output(
        page(site, ROOT / "gallery" / "nn" / "07_cifar10_classifier.py")
    )
    assert (
        "Using the JPEG copy of CIFAR-10" in text
        or "original CIFAR-10" in text
    )
    accuracy = float(
        re.search(r"Test accuracy: .* = ([\d.]+)%", text).group(1)
    )
    assert accuracy >= 65
    assert re.search(r"Training took [\d.]+ s", text)


# Code (not prose) that starts processes: DataLoader workers,
# torch.multiprocessing, torch.distributed. Such lessons cannot run inside a
# joblib worker of a parallel build (`sphinx-build -j N`), so they must opt
# out and run alone.
STARTS_PROCESSES = re.compile(
    r"""num_workers["']?\s*[=:]\s*(?!0\b)"""
    r"""|^\s*import torch\.(multiprocessing|distributed)\b"""
    r"""|\bsubprocess\.(run|Popen)\(""",
    re.MULTILINE,
)


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_lessons_that_start_processes_run_alone(site, lesson):
    source = lesson.read_text()
    code = "\n".join(
        line
        for line in source.splitlines()
        if not line.lstrip().startswith("#")
    )
    marked = re.search(
        r"^# sphinx_gallery_parallel = False$", source, re.MULTILINE
    )
    assert bool(STARTS_PROCESSES.search(code)) == bool(marked), (
        f"{lesson.name}: a lesson that starts processes needs "
        "'# sphinx_gallery_parallel = False', "
        "and only such a lesson"
    )
    # the marker is build configuration: it appears neither on the page nor
    # in the notebook
    assert "sphinx_gallery_" not in page(site, lesson).read_text(
        encoding="utf-8"
    )
    assert "sphinx_gallery_" not in downloads(site, lesson)[
        ".ipynb"
    ].read_text(encoding="utf-8")


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_page_shows_no_paths_of_the_build_machine(site, lesson):
    """The page is read on other machines: no home, cache, checkout or data
    folder in its output."""
    text = captured_output(page(site, lesson))
    folders = {str(Path.home()), str(ROOT)}
    if os.environ.get("PBE_DATA_DIR"):
        folders.add(str(Path(os.environ["PBE_DATA_DIR"]).resolve()))
    assert not [f for f in folders if f in text]


def test_first_cell_notes_other_torch_versions(capsys):
    """The notebook's first cell prints a note when the reader's torch
    differs in major or minor version from the verified one, not for a
    patch release."""
    stamp = {
        "date": "2026-01-01",
        "torch": "1.0.0",
        "torchvision": None,
        "device": "CPU",
        "checks": 1,
    }
    cell = pbe_sphinx.notebook_cell(stamp)
    code = cell.removeprefix("%matplotlib inline\n")
    exec(code, {})
    assert (
        "verified with torch 1.0.0; you are running" in capsys.readouterr().out
    )
    running = pbe_sphinx._version("torch").split(".")
    stamp["torch"] = ".".join([*running[:2], "99"])
    exec(pbe_sphinx.notebook_cell(stamp).split("\n", 1)[1], {})
    assert capsys.readouterr().out == ""
