"""Each lesson's downloaded ``.py`` runs on its own, as a reader would run it.

It runs in an empty temporary folder with a clean ``PYTHONPATH``: nothing of
this project is importable, only the installed packages.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import LESSONS, downloads, lesson_id

NOISE = re.compile(r"Traceback|Warning")


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_downloaded_script_runs_standalone(site, lesson, tmp_path):
    script = shutil.copy(downloads(site, lesson)[".py"], tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MPLBACKEND"] = "agg"
    proc = subprocess.run(
        [sys.executable, script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, (
        f"{lesson.name} failed:\n{proc.stderr[-3000:]}"
    )
    assert proc.stdout.strip(), f"{lesson.name} printed nothing"
    noise = NOISE.search(proc.stderr)
    assert noise is None, (
        f"{lesson.name} wrote to stderr:\n{proc.stderr[-3000:]}"
    )
