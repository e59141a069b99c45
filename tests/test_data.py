"""Real data reaches the lessons one way per dataset, safely.

Lessons that use a dataset fetch it with the same few lines (pooch or
torchvision); with neither network nor a copy named by ``PBE_DATA_DIR`` they
stop at once and say what to do.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT

GALLERY = ROOT / "gallery"
ZIP = "cifar10-jpeg.zip"
FACES = [
    GALLERY / "data" / "02_custom_dataset_faces.py",
    GALLERY / "data" / "03_transforms_landmarks.py",
]


def _fetch_cell(lesson) -> str:
    """The cell that creates the pooch fetcher, up to its fetch."""
    source = lesson.read_text(encoding="utf-8")
    start = source.index("pooch.create(")
    return source[start : source.index("\n# %%", start)]


def test_face_lessons_share_one_fetch():
    first, second = (_fetch_cell(p) for p in FACES)
    assert second.startswith(first.split("print(")[0])


def _offline_env(tmp_path) -> dict[str, str]:
    """No data copy, an empty cache, and every download refused at once."""
    env = {k: v for k, v in os.environ.items() if k != "PBE_DATA_DIR"}
    dead = "http://127.0.0.1:9"  # nothing listens: connections fail fast
    env |= {
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "HOME": str(tmp_path),
        "https_proxy": dead,
        "http_proxy": dead,
        "HTTPS_PROXY": dead,
        "HTTP_PROXY": dead,
        "MPLBACKEND": "agg",
    }
    return env


@pytest.mark.parametrize("lesson", FACES[:1], ids=lambda p: p.stem)
def test_without_network_or_copy_a_lesson_says_what_to_do(lesson, tmp_path):
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(lesson)],
        cwd=tmp_path,
        env=_offline_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode != 0
    assert "PBE_DATA_DIR" in proc.stderr.splitlines()[-1], proc.stderr[-2000:]
    assert time.monotonic() - started < 120, "it should stop at once"


CIFAR = [
    GALLERY / "nn" / "07_cifar10_classifier.py",
    GALLERY / "data" / "04_torchvision_datasets.py",
]


def _cifar_fetch(lesson) -> str:
    """The lesson's two data cells: from ``import pooch`` to the fetch."""
    source = lesson.read_text(encoding="utf-8")
    start = source.index("import pooch")
    end = source.index("\n# %%", source.index("jpeg_copy.fetch(", start))
    cells = source[start:end]
    return "\n".join(
        line for line in cells.splitlines() if not line.startswith("#")
    )


def test_cifar_lessons_share_one_fetch_each_into_its_own_folder():
    first, second = map(_cifar_fetch, CIFAR)
    folders = [re.search(r'cache / "([\w-]+)"', c)[1] for c in (first, second)]
    assert len(set(folders)) == 2, folders
    assert first.replace(folders[0], "") == second.replace(folders[1], "")


@pytest.mark.skipif(
    not os.environ.get("PBE_DATA_DIR"), reason="needs the offline copy"
)
def test_two_lessons_fetching_at_once_both_get_whole_data(tmp_path):
    """Both unpack into an empty cache at the same time; both see every
    image, whole (sizes as in the archive)."""
    import zipfile

    env = os.environ | {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    count = (
        "\nimport pathlib\n"
        "files = [p for p in pathlib.Path(jpeg_dir).rglob('*.jpg')]\n"
        "print(len(files), sum(p.stat().st_size for p in files))\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _cifar_fetch(lesson) + count],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for lesson in CIFAR
    ]
    results = [p.communicate(timeout=600) for p in procs]
    with zipfile.ZipFile(Path(os.environ["PBE_DATA_DIR"], ZIP)) as archive:
        jpegs = [i for i in archive.infolist() if i.filename.endswith(".jpg")]
        whole = f"{len(jpegs)} {sum(i.file_size for i in jpegs)}"
    for proc, (out, err) in zip(procs, results):
        assert proc.returncode == 0, err[-2000:]
        assert out.strip().splitlines()[-1] == whole
