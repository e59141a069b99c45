"""Versioned publishing: versions accumulate, the switcher lists them all,
and every "Open in Colab" link opens a notebook of the published tree."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib

import nbformat
import pytest
from bs4 import BeautifulSoup
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
A tiny lesson
=============

Prints one line and checks two things.
"""

# %%
# Hello
# -----
print("hello")
assert 1 + 1 == 2
assert "hello".upper() == "HELLO"
# sphinx_gallery_tags = ["beginner", "tiny"]
'''
OTHER = LESSON.replace("A tiny lesson\n=============", "Another\n=======")

URLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
OWNER_REPO = URLS["Repository"].removeprefix("https://github.com/")
COLAB = re.compile(
    r"^https://colab\.research\.google\.com/github/"
    + re.escape(OWNER_REPO)
    + r"/blob/gh-pages/(?P<path>.+\.ipynb)$"
)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of the docs with two tiny lessons, so building is quick."""
    return make_project(
        tmp_path_factory.mktemp("project"),
        {"basics/01_tiny.py": LESSON, "nn/01_other.py": OTHER},
    )


def publish(project, site, version):
    subprocess.run(
        [
            sys.executable,
            str(project / "tools" / "publish.py"),
            "--site",
            str(site),
            version,
            "-q",
        ],
        check=True,
        timeout=600,
    )
    return json.loads((site / "switcher.json").read_text())


@pytest.fixture(scope="module")
def site(project, tmp_path_factory):
    """A published tree, as it would be pushed to gh-pages: 0.1.0 and dev."""
    site = tmp_path_factory.mktemp("gh-pages")
    publish(project, site, "0.1.0")
    publish(project, site, "dev")
    return site


def test_two_versions_side_by_side(project, site):
    entries = json.loads((site / "switcher.json").read_text())
    assert (site / "0.1.0" / "index.html").is_file() and (
        site / "dev" / "index.html"
    ).is_file()
    assert [e["version"] for e in entries] == ["dev", "0.1.0"]
    stable = [e for e in entries if e.get("preferred")]
    assert [e["version"] for e in stable] == ["0.1.0"]
    assert "stable" in stable[0]["name"]
    # switcher URLs live under the path of pyproject's Documentation URL
    base = "/" + URLS["Documentation"].split("://")[1].split("/", 1)[1]
    assert entries[0]["url"] == f"{base.rstrip('/')}/dev/"
    # every version's own copy of the list is the same list
    for v in ("dev", "0.1.0"):
        assert (
            json.loads((site / v / "_static" / "switcher.json").read_text())
            == entries
        )
        page = (site / v / "lessons" / "basics" / "01_tiny.html").read_text()
        assert f"theme_switcher_version_match = '{v}'" in page
    assert "url=0.1.0/index.html" in (site / "index.html").read_text()
    # GitHub Pages must serve _static/ as is; no build leftovers are pushed
    assert (site / ".nojekyll").is_file()
    assert not list(site.glob("**/.doctrees")) and not list(
        site.glob("*doctrees*")
    )


def test_newer_release_becomes_stable(project, tmp_path):
    site = tmp_path / "site"
    publish(project, site, "0.1.0")
    entries = publish(project, site, "0.2.0")
    assert [e["version"] for e in entries] == ["0.2.0", "0.1.0"]
    assert [e["version"] for e in entries if e.get("preferred")] == ["0.2.0"]
    assert (site / "0.1.0" / "index.html").is_file()
    assert "url=0.2.0/index.html" in (site / "index.html").read_text()


@pytest.mark.parametrize("version", ["0.1.0", "dev"])
def test_every_colab_link_opens_a_published_notebook(site, version):
    """Each lesson page links to Colab; the link's path (on gh-pages) is a
    valid notebook of that lesson in the tree that would be pushed; index
    pages have no Colab link."""
    lessons = {"basics/01_tiny", "nn/01_other"}
    linked = set()
    for html in (site / version).rglob("*.html"):
        soup = BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser")
        links = [
            a["href"]
            for a in soup.select("a[href]")
            if a["href"].startswith("https://colab.research.google.com")
        ]
        rel = html.relative_to(site / version).with_suffix("").as_posix()
        lesson = rel.removeprefix("lessons/")
        if lesson not in lessons:
            assert not links, f"{rel} is not a lesson but links to Colab"
            continue
        assert len(links) == 1, f"{rel}: {links}"
        match = COLAB.match(links[0])
        assert match, links[0]
        notebook = site / match["path"]
        assert match["path"] == f"{version}/notebooks/{lesson}.ipynb"
        assert notebook.is_file(), f"{links[0]} -> missing {notebook}"
        nb = nbformat.read(notebook, as_version=4)
        nbformat.validate(nb)
        assert "A tiny lesson" in nb.cells[1].source or "Another" in (
            nb.cells[1].source
        )
        linked.add(lesson)
    assert linked == lessons


def test_publish_runs_every_lesson_afresh(project, site):
    """Publishing does not reuse cached output: the stamps are rewritten."""
    stamp = project / "docs" / "lessons" / "basics" / "01_tiny.verified.json"
    before = stamp.stat().st_mtime_ns
    publish(project, site, "dev")
    assert stamp.stat().st_mtime_ns > before
    assert json.loads(stamp.read_text())["checks"] == 2


def test_bad_version_is_refused(project, tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(project / "tools" / "publish.py"),
            "--site",
            str(tmp_path),
            "latest",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0
    assert "neither 'dev' nor a release" in proc.stderr
