"""Versioned publishing: versions accumulate, the switcher lists them all."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, SECTIONS

LESSON = '''"""
A tiny lesson
=============

Prints one line.
"""

# %%
# Hello
# -----
print("hello")
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of the docs with one tiny lesson, so building is quick."""
    tmp = tmp_path_factory.mktemp("project")
    shutil.copytree(
        ROOT / "docs",
        tmp / "docs",
        ignore=shutil.ignore_patterns("lessons", "sg_*"),
    )
    shutil.copy(ROOT / "pyproject.toml", tmp)
    shutil.copy(
        ROOT / "gallery" / "GALLERY_HEADER.rst",
        (tmp / "gallery").mkdir() or tmp / "gallery",
    )
    for section in SECTIONS:
        (tmp / "gallery" / section).mkdir()
        shutil.copy(
            ROOT / "gallery" / section / "README.rst",
            tmp / "gallery" / section,
        )
    (tmp / "gallery" / "basics" / "01_tiny.py").write_text(LESSON)
    return tmp


def publish(project, site, version):
    subprocess.run(
        [
            sys.executable,
            str(project / "docs" / "publish.py"),
            "--site",
            str(site),
            version,
            "-q",
        ],
        check=True,
        timeout=600,
    )
    return json.loads((site / "switcher.json").read_text())


def test_two_versions_side_by_side(project, tmp_path):
    site = tmp_path / "site"
    publish(project, site, "0.1.0")
    entries = publish(project, site, "dev")

    assert (site / "0.1.0" / "index.html").is_file() and (
        site / "dev" / "index.html"
    ).is_file()
    assert [e["version"] for e in entries] == ["dev", "0.1.0"]
    stable = [e for e in entries if e.get("preferred")]
    assert [e["version"] for e in stable] == ["0.1.0"] and "stable" in stable[
        0
    ]["name"]
    # every version's own copy of the list is the same list
    for v in ("dev", "0.1.0"):
        assert (
            json.loads((site / v / "_static" / "switcher.json").read_text())
            == entries
        )
        page = (site / v / "lessons" / "basics" / "01_tiny.html").read_text()
        assert f"theme_switcher_version_match = '{v}'" in page
    assert "url=0.1.0/index.html" in (site / "index.html").read_text()

    # a newer release becomes stable; the older one stays published
    entries = publish(project, site, "0.2.0")
    assert [e["version"] for e in entries] == ["dev", "0.2.0", "0.1.0"]
    assert [e["version"] for e in entries if e.get("preferred")] == ["0.2.0"]
    assert (site / "0.1.0" / "index.html").is_file()
    assert "url=0.2.0/index.html" in (site / "index.html").read_text()


def test_bad_version_is_refused(project, tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(project / "docs" / "publish.py"),
            "--site",
            str(tmp_path),
            "latest",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    assert "neither 'dev' nor a release" in proc.stderr
