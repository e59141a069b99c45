"""Each lesson's downloads run as-is: the ``.py`` as a script, the
``.ipynb`` top to bottom in a fresh Jupyter kernel.

Both run in an empty temporary folder with nothing of this project
importable, with warnings as errors where a reader would see them. A pass is
recorded in ``build/lesson-runs.json`` under a key made of the file, every
installed distribution's version and this test file; a later run with the
same key skips it, so a no-change ``nox -s tests`` re-runs nothing. Lessons
that start processes always run (their behaviour depends on the machine).
Delete the record, or pass ``--rerun-lessons``, to run everything.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import nbformat
import pytest
from conftest import LESSONS, ROOT, downloads, lesson_id
from nbclient import NotebookClient

RECORD = ROOT / "build" / "lesson-runs.json"
ALWAYS = "# sphinx_gallery_parallel = False"  # lessons that start processes


def _environment() -> str:
    dists = sorted(f"{d.name}=={d.version}" for d in metadata.distributions())
    text = "\n".join([sys.version, *dists, Path(__file__).read_text()])
    return hashlib.md5(text.encode()).hexdigest()


ENVIRONMENT = _environment()


@pytest.fixture
def record(request, lesson):
    """Skip a run that already passed; record this one if it passes."""
    rerun = request.config.getoption("--rerun-lessons")
    runs = json.loads(RECORD.read_text()) if RECORD.is_file() else {}

    def check(kind: str, path: Path):
        key = hashlib.md5(path.read_bytes()).hexdigest() + ENVIRONMENT
        name = f"{kind} {lesson_id(lesson)}"
        if (
            not rerun
            and runs.get(name) == key
            and ALWAYS not in lesson.read_text()
        ):
            pytest.skip("passed before with this file and these versions")
        return lambda: _write(name, key)

    return check


def _write(name: str, key: str) -> None:
    runs = json.loads(RECORD.read_text()) if RECORD.is_file() else {}
    runs[name] = key
    RECORD.parent.mkdir(exist_ok=True)
    RECORD.write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n")


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_downloaded_script_runs(site, lesson, tmp_path, record):
    script = downloads(site, lesson)[".py"]
    passed = record("script", script)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MPLBACKEND"] = "agg"
    proc = subprocess.run(
        [
            sys.executable,
            "-W",
            "error::DeprecationWarning:__main__",
            shutil.copy(script, tmp_path),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"{lesson.name}:\n{proc.stderr[-3000:]}"
    assert proc.stdout.strip(), f"{lesson.name} printed nothing"
    assert "Warning" not in proc.stderr, proc.stderr[-3000:]
    passed()


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_downloaded_notebook_runs(site, lesson, tmp_path, monkeypatch, record):
    notebook = downloads(site, lesson)[".ipynb"]
    passed = record("notebook", notebook)
    nb = nbformat.read(shutil.copy(notebook, tmp_path), as_version=4)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.setenv(
        "MPLBACKEND", "module://matplotlib_inline.backend_inline"
    )
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError, with the traceback
    stderr = "".join(
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "stream" and o.name == "stderr"
    )
    assert "Warning" not in stderr and "Traceback" not in stderr, stderr
    passed()
