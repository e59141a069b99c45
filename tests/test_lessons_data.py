"""The data lessons: real data, pinned downloads, RGB reads, correct points.

The source checks need no built site; the page checks read ``build/html``.
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, captured_output, page

DATA = sorted((ROOT / "gallery" / "data").glob("*.py"))
FACES = ROOT / "gallery" / "data" / "02_custom_dataset_faces.py"
TRANSFORMS = ROOT / "gallery" / "data" / "03_transforms_landmarks.py"
TORCHVISION = ROOT / "gallery" / "data" / "04_torchvision_datasets.py"


def _code(path):
    """The lesson's code lines, comments dropped."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return "\n".join(x for x in lines if not x.lstrip().startswith("#"))


@pytest.mark.parametrize("lesson", DATA, ids=lambda p: p.stem)
def test_no_generated_stand_in_for_a_dataset(lesson):
    code = _code(lesson)
    for stand_in in ("FakeData", "write_jpeg", "make_small_tree", "mkdtemp"):
        assert stand_in not in code, f"{lesson.name} uses {stand_in}"


@pytest.mark.parametrize("lesson", DATA, ids=lambda p: p.stem)
def test_downloads_are_pinned_to_a_commit(lesson):
    code = _code(lesson)
    if "githubusercontent" not in code:
        return
    assert not re.search(r"/(master|main)/", code)
    assert re.search(r'"[0-9a-f]{40}"', code), "no commit hash"
    assert "known_hash" in code or "sha256:" in code


@pytest.mark.parametrize("lesson", DATA, ids=lambda p: p.stem)
def test_photos_are_read_as_rgb(lesson):
    code = _code(lesson)
    reads = re.findall(r"decode_image\(str\([^\n]*", code)
    assert all("ImageReadMode.RGB" in call for call in reads), reads


@pytest.mark.parametrize("lesson", DATA, ids=lambda p: p.stem)
def test_no_forced_start_method(lesson):
    assert "multiprocessing_context" not in _code(lesson)


def test_shipped_landmark_pipeline_is_checked(site):
    text = captured_output(page(site, TRANSFORMS))
    gaps = re.search(r"augmented faces: largest gap ([\d.]+) px", text)
    assert gaps and float(gaps.group(1)) < 0.1
    assert re.search(r"after ResizeFace: gap 0\.0\d+ px", text)


def test_face_page_errors_name_file_and_row(site):
    text = captured_output(page(site, FACES))
    for kind in ("Missing image", "Malformed row", "Malformed row"):
        assert re.search(rf"{kind} error: <tmp>/\S+\.csv, row \d+ ", text)


def test_cifar_page_says_which_copy_it_used(site):
    text = captured_output(page(site, TORCHVISION))
    assert (
        "Using the JPEG copy of CIFAR-10" in text
        or "Using the original CIFAR-10" in text
    )
