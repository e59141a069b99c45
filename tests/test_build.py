"""How the build treats lessons: errors, warnings and stale pages.

Each test builds a tiny copy of the docs with a lesson or two of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import make_project

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


def test_new_installed_versions_rerun_every_lesson(tmp_path):
    project = make_project(
        tmp_path,
        {
            "basics/01_one.py": LESSON.format(n=1),
            "nn/01_two.py": LESSON.format(n=2),
        },
    )
    build(project)
    record = project / "docs" / "lessons" / "pbe-versions.json"
    versions = json.loads(record.read_text())
    assert versions["torch"] and versions["sphinx-gallery"] == "0.22.1"

    def stamps():
        return {
            p.name: p.stat().st_mtime_ns
            for p in (project / "docs" / "lessons").glob("*/*.verified.json")
        }

    first = stamps()
    assert len(first) == 2
    build(project)  # nothing changed: nothing runs
    assert stamps() == first
    versions["torch"] = "1.0.0"  # as if the pages came from another torch
    record.write_text(json.dumps(versions))
    build(project)
    assert all(stamps()[name] > first[name] for name in first), "not re-run"
    assert json.loads(record.read_text())["torch"] != "1.0.0"


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
