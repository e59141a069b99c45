"""The built site: every lesson has a page with its output and downloads."""

from __future__ import annotations

import json
import os
import re
import zipfile
from pathlib import Path

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

# What must never appear in a lesson's captured output: a traceback, any
# warning category, or an uncaught exception line ("ValueError: ...").
BAD_OUTPUT = re.compile(r"Traceback|Warning|^\w*Error\b", re.MULTILINE)


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
    nb = nbformat.read(downloads(site, lesson)[".ipynb"], as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].source.strip() == "%matplotlib inline"
    assert len(code) > 2


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
    """A missing image or a malformed CSV row fails with the file and row named."""
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
        r"Malformed row error: \S+\.csv, row \d+ .*fields where the header has",
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


# Code (not prose) that starts processes: DataLoader workers, torch.multiprocessing,
# torch.distributed. Such lessons cannot run inside a joblib worker of a parallel
# build (`sphinx-build -j N`), so they must opt out and run alone.
STARTS_PROCESSES = re.compile(
    r"""num_workers["']?\s*[=:]\s*(?!0\b)|^\s*import torch\.(multiprocessing|distributed)\b""",
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
        f"{lesson.name}: a lesson that starts processes needs '# sphinx_gallery_parallel = False', "
        "and only such a lesson"
    )
    # the marker is build configuration: it appears neither on the page nor in the notebook
    assert "sphinx_gallery_" not in page(site, lesson).read_text(
        encoding="utf-8"
    )
    assert "sphinx_gallery_" not in downloads(site, lesson)[
        ".ipynb"
    ].read_text(encoding="utf-8")


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_page_shows_no_paths_of_the_build_machine(site, lesson):
    """The page is read on other machines: no home, cache, checkout or data folder in its output."""
    text = captured_output(page(site, lesson))
    folders = {str(Path.home()), str(ROOT)}
    if os.environ.get("PBE_DATA_DIR"):
        folders.add(str(Path(os.environ["PBE_DATA_DIR"]).resolve()))
    assert not [f for f in folders if f in text]
