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


def test_each_cifar_lesson_unpacks_into_its_own_folder():
    """A lesson unpacks the offline copy into a folder no other lesson
    names, so two lessons running at once never read a half-written one
    (pooch's ``Unzip`` skips a folder that already exists)."""
    sources = {
        lesson.relative_to(GALLERY): lesson.read_text(encoding="utf-8")
        for lesson in sorted(GALLERY.glob("*/*.py"))
    }
    folders = {
        lesson: set(re.findall(r'"(cifar10-jpeg-[\w-]+)"', source))
        for lesson, source in sources.items()
        if ZIP in source
    }
    assert len(folders) >= 2, folders
    assert all(len(names) == 1 for names in folders.values()), folders
    names = [name for names in folders.values() for name in names]
    assert len(set(names)) == len(names), folders
