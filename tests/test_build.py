"""How the build treats lessons: errors, warnings and stale pages.

Each test builds a tiny copy of the docs with a lesson or two of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT, make_project

# Skipped when it passed before with this uv.lock and these inputs (the
# machinery the tiny projects copy): conftest.py.
pytestmark = pytest.mark.inputs(
    ROOT / "docs",
    ROOT / "tools",
    ROOT / "pyproject.toml",
    ROOT / "gallery" / "GALLERY_HEADER.rst",
    ROOT / "tests" / "conftest.py",
    __file__,
)

LESSON = '''"""
Lesson {n}
========

Prints one line.
"""

# %%
# Hello
# -----
print("hello {n}")
# sphinx_gallery_start_ignore
assert {n} > 0
# sphinx_gallery_end_ignore
'''


def build(project, check=True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-q",
            "-W",
            "--keep-going",
            str(project / "docs"),
            str(project / "html"),
        ],
        check=check,
        capture_output=not check,
        text=True,
        timeout=600,
    )


def test_raising_lesson_fails_the_build_naming_it(tmp_path):
    broken = LESSON.format(n=1) + "1 / 0\n"
    project = make_project(tmp_path, {"basics/01_broken.py": broken})
    proc = build(project, check=False)
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0, "the build passed although a lesson raised"
    assert "01_broken.py" in log and "ZeroDivisionError" in log


def test_warning_fails_the_build_unless_the_lesson_catches_it(tmp_path):
    warns = LESSON.format(n=1) + (
        "import warnings\n\nwarnings.warn('careful', UserWarning)\n"
    )
    catches = LESSON.format(n=2) + (
        "import warnings\n\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    warnings.warn('careful', UserWarning)\n"
        "print(f'warned {seen[0].category.__name__}: {seen[0].message}')\n"
    )
    project = make_project(
        tmp_path, {"basics/01_warns.py": warns, "nn/01_catches.py": catches}
    )
    proc = build(project, check=False)
    log = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "01_warns.py" in log and "UserWarning: careful" in log
    assert "01_catches.py" not in log.split("UserWarning")[0]
    page = (
        project / "html" / "lessons" / "nn" / "01_catches.html"
    ).read_text()
    assert "warned UserWarning: careful" in page


def test_a_tensorflow_lesson_then_a_compiler_lesson_share_a_process(
    tmp_path,
):
    """TensorFlow, then triton (which torch's compiler loads), crash a
    process with a segmentation fault; lessons share one, in this order."""
    tf = LESSON.format(n=1) + "import tensorflow as tf\n"
    compiler = LESSON.format(n=2) + "import torch._dynamo\n"
    project = make_project(
        tmp_path, {"basics/01_tf.py": tf, "nn/01_compiler.py": compiler}
    )
    build(project)


BRANCHES = LESSON.replace(
    "assert {n} > 0\n",
    "assert {n} > 0\nif {n} > 1:  # lesson 2 takes it, lesson 1 does not\n"
    "    assert {n} > 1\n",
)


def test_stamp_counts_checks_in_branches_and_a_new_lock_reruns(tmp_path):
    """The stamp tells apart the checks in branches a run may skip; a new
    uv.lock runs every lesson again, and nothing else does."""
    project = make_project(
        tmp_path,
        {
            "basics/01_one.py": BRANCHES.format(n=1),
            "nn/01_two.py": BRANCHES.format(n=2),
        },
    )
    build(project)
    lessons = project / "docs" / "lessons"

    def stamps():
        return {
            p.name: json.loads(p.read_text())
            for p in lessons.glob("*/*.verified.json")
        }

    first = stamps()
    one = first["01_one.verified.json"]
    assert (one["checks"], one["checks_in_branches"]) == (2, 1)
    assert one["seconds"] >= 0
    page = (
        project / "html" / "lessons" / "basics" / "01_one.html"
    ).read_text()
    assert (
        "every check that ran passed (2 checks, 1 of them in branches not "
        "every run takes)" in page
    )
    build(project)  # nothing changed: nothing runs
    assert stamps() == first
    lock = project / "uv.lock"
    lock.write_text(lock.read_text() + "\n# another lock\n")
    build(project)
    again = stamps()
    assert all(
        again[name]["environment"] != first[name]["environment"]
        for name in first
    ), "not run again"


def test_path_naming_a_missing_lesson_fails_the_build(tmp_path):
    project = make_project(tmp_path, {"basics/01_one.py": LESSON.format(n=1)})
    index = project / "docs" / "index.rst"
    index.write_text(
        index.read_text() + "\n.. pbe-path::\n\n   basics/99_missing\n"
    )
    proc = build(project, check=False)
    assert proc.returncode != 0
    assert "pbe-path: no lesson 'basics/99_missing'" in proc.stdout + (
        proc.stderr
    )
