"""What the build offers for download runs as a learner runs it.

* Every lesson's notebook (``.ipynb``), top to bottom in a fresh Jupyter
  kernel: the artifact learners run, and the one that lacks the hidden
  blocks, so it proves the page's code stands without them.
* The ``.py`` download as a process, only for the lessons that start
  processes (``# sphinx_gallery_parallel = False``: DataLoader workers,
  HOGWILD, DDP), where the real launcher and an ``if __name__ ==
  "__main__"`` guard matter; for the others the build already ran the same
  code in a clean module.

So each lesson executes at most twice per run (the build, the notebook).
Both run in an empty temporary folder with nothing of this project
importable. The script runs with the build's warning filters (warnings are
errors, as in ``pbe.torch_state``), so no test scans output for "Warning".

Time limits come from the lesson's own build time (its stamp): three times
its seconds plus a minute, per script and per notebook cell; never one flat
limit that a slow lesson or a loaded machine breaks.

Which lessons run: ``--lessons`` (conftest.py). A pass is recorded under
the one key (``uv.lock``'s hash and the hash of the file that ran), so a
no-change ``nox -s tests`` runs nothing again.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import (
    LESSONS,
    downloads,
    inputs_key,
    lesson_id,
    lesson_seconds,
    lessons_to_run,
    passed_before,
    record_pass,
)
from nbclient import NotebookClient

STARTS_PROCESSES = "# sphinx_gallery_parallel = False"
PROCESS_LESSONS = [p for p in LESSONS if STARTS_PROCESSES in p.read_text()]
# The build's filters (pbe.torch_state.warnings_are_errors) on a command
# line: every warning is an error, except the deprecations Python hides by
# default; a DeprecationWarning from the script itself is an error too.
WARNINGS_ARE_ERRORS = [
    "-W",
    "error",
    "-W",
    "ignore::DeprecationWarning",
    "-W",
    "ignore::PendingDeprecationWarning",
    "-W",
    "ignore::ImportWarning",
    "-W",
    "ignore::ResourceWarning",
    "-W",
    "error::DeprecationWarning:__main__",  # the last -W wins
]


def limit_seconds(lesson: Path) -> int:
    """Three times the lesson's build seconds, plus a minute."""
    seconds = lesson_seconds(lesson)
    if seconds is None:
        pytest.fail(f"{lesson_id(lesson)}: no stamp, the build did not run it")
    return math.ceil(3 * seconds + 60)


@pytest.fixture(scope="session")
def selection(request):
    mode = request.config.getoption("--lessons")
    if mode != "changed":
        return mode, None
    return mode, lessons_to_run(request.config.getoption("--base"))


@pytest.fixture
def run_once(request, selection, lesson):
    """Skip a lesson that is not selected, or whose file passed before."""
    mode, chosen = selection
    if chosen is not None and lesson_id(lesson) not in chosen:
        pytest.skip("unchanged against the base branch")

    def check(path: Path):
        key, node = inputs_key(path), request.node.nodeid
        if passed_before(request.config, node, key):
            pytest.skip("passed before with this uv.lock and this file")
        return lambda: record_pass(node, key)

    return check


def _clean_env() -> dict[str, str]:
    """The environment minus PYTHONPATH; under pytest-xdist, a fair share
    of the cores as each lesson's threads (torch reads OMP_NUM_THREADS).

    Two lessons each running a pool of two OpenMP threads on two cores
    stall each other at every parallel region: nn/07 trained more than
    twice as slowly beside one busy process as alone. One thread each,
    two lessons at a time, gets more done.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1 and "OMP_NUM_THREADS" not in env:
        share = max(1, (os.cpu_count() or 1) // workers)
        env["OMP_NUM_THREADS"] = str(share)
    return env


@pytest.mark.parametrize("lesson", PROCESS_LESSONS, ids=lesson_id)
def test_downloaded_script_runs(site, lesson, tmp_path, run_once):
    script = downloads(site, lesson)[".py"]
    passed = run_once(script)
    limit = limit_seconds(lesson)
    proc = subprocess.run(
        [
            sys.executable,
            *WARNINGS_ARE_ERRORS,
            shutil.copy(script, tmp_path),
        ],
        cwd=tmp_path,
        env=_clean_env() | {"MPLBACKEND": "agg"},
        capture_output=True,
        text=True,
        timeout=limit,
    )
    assert proc.returncode == 0, f"{lesson.name}:\n{proc.stderr[-3000:]}"
    assert proc.stdout.strip(), f"{lesson.name} printed nothing"
    passed()


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_downloaded_notebook_runs(site, lesson, tmp_path, run_once):
    notebook = downloads(site, lesson)[".ipynb"]
    passed = run_once(notebook)
    nb = nbformat.read(shutil.copy(notebook, tmp_path), as_version=4)
    client = NotebookClient(
        nb,
        timeout=limit_seconds(lesson),  # per cell
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    env = _clean_env() | {
        "MPLBACKEND": "module://matplotlib_inline.backend_inline"
    }
    client.execute(env=env)  # raises CellExecutionError, with the traceback
    passed()


def test_a_pull_request_runs_the_lessons_it_changed(tmp_path):
    """--lessons=changed: the lessons changed against the base; all of them
    when shared code changed or there is no base to compare with."""

    def git(*args):
        subprocess.run(
            ["git", *args], cwd=tmp_path, check=True, capture_output=True
        )

    git("init", "-q", "-b", "main")
    (tmp_path / "gallery" / "nn").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    for name in ("gallery/nn/01_a.py", "gallery/nn/02_b.py", "docs/conf.py"):
        (tmp_path / name).write_text("print(1)\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    git("checkout", "-qb", "change")
    assert lessons_to_run("main", tmp_path) == set()
    (tmp_path / "gallery/nn/02_b.py").write_text("print(2)\n")
    assert lessons_to_run("main", tmp_path) == {"nn/02_b"}
    (tmp_path / "docs/conf.py").write_text("x = 2\n")
    assert lessons_to_run("main", tmp_path) is None  # shared code: all
    assert lessons_to_run("no-such-base", tmp_path) is None
