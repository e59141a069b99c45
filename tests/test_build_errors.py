"""A lesson that raises must fail the build, naming the lesson."""

from __future__ import annotations

import shutil
import subprocess
import sys

from conftest import ROOT, SECTIONS

BROKEN = '''"""
A broken lesson
===============

This lesson raises on purpose.
"""

# %%
# Divide by zero
# --------------
print("about to fail")
1 / 0
'''


def test_raising_lesson_fails_the_build(tmp_path):
    shutil.copytree(
        ROOT / "docs",
        tmp_path / "docs",
        ignore=shutil.ignore_patterns("lessons", "sg_*"),
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    gallery = tmp_path / "gallery"
    gallery.mkdir()
    shutil.copy(ROOT / "gallery" / "GALLERY_HEADER.rst", gallery)
    for section in SECTIONS:
        (gallery / section).mkdir()
        shutil.copy(
            ROOT / "gallery" / section / "README.rst", gallery / section
        )
    (gallery / "basics" / "01_broken_lesson.py").write_text(BROKEN)

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-W",
            "--keep-going",
            str(tmp_path / "docs"),
            str(tmp_path / "html"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0, "the build passed although a lesson raised"
    assert "01_broken_lesson.py" in log
    assert "ZeroDivisionError" in log and "Traceback" in log
