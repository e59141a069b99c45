"""No stale pages: when the installed docs dependencies differ from the ones
recorded beside the generated lessons, every lesson runs again."""

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
assert {n} > 0
'''


def build(project):
    subprocess.run(
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
        check=True,
        timeout=600,
    )


def stamps(project):
    """Each lesson's verified stamp file -> when it was last written."""
    return {
        p.name: p.stat().st_mtime_ns
        for p in (project / "docs" / "lessons").glob("*/*.verified.json")
    }


def test_versions_stamp_mismatch_reruns_every_lesson(tmp_path):
    project = make_project(
        tmp_path,
        {
            "basics/01_one.py": LESSON.format(n=1),
            "nn/01_two.py": LESSON.format(n=2),
        },
    )
    build(project)
    versions = project / "docs" / "lessons" / "pbe-versions.json"
    recorded = json.loads(versions.read_text())
    assert recorded["torch"] and recorded["sphinx-gallery"] == "0.22.1"
    first = stamps(project)
    assert len(first) == 2

    build(project)  # nothing changed: nothing runs
    assert stamps(project) == first

    recorded["torch"] = "1.0.0"  # as if the pages came from another torch
    versions.write_text(json.dumps(recorded))
    build(project)
    again = stamps(project)
    assert all(again[name] > first[name] for name in first), "not re-run"
    assert json.loads(versions.read_text())["torch"] != "1.0.0"
