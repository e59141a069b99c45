"""The GitHub Actions workflows: linted offline by zizmor and actionlint,
pinned, least-privilege, and publishing what the README says."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
BIN = Path(sys.executable).parent


def _tool(name):
    found = BIN / name
    return str(found) if found.is_file() else shutil.which(name)


def test_zizmor_finds_nothing():
    zizmor = _tool("zizmor")
    assert zizmor, "zizmor is in the test group: run `nox -s venv`"
    proc = subprocess.run(
        [zizmor, "--offline", "--no-progress", str(WORKFLOWS)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_finds_nothing():
    actionlint = _tool("actionlint")
    if not actionlint:
        if os.environ.get("GITHUB_ACTIONS") == "true":
            pytest.fail("ci.yml installs actionlint; it is missing")
        pytest.skip(
            "actionlint not installed (`pip install --group workflows` "
            "needs GitHub to fetch its binary)"
        )
    proc = subprocess.run(
        [actionlint, "-no-color", *map(str, sorted(WORKFLOWS.glob("*.yml")))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actions_pinned_to_a_commit_with_its_version():
    for workflow in WORKFLOWS.glob("*.yml"):
        for line in re.findall(r"uses:\s*(.+)", workflow.read_text()):
            assert re.fullmatch(
                r"[\w.-]+/[\w.-]+@[0-9a-f]{40} # v[\d.]+", line
            ), f"{workflow.name}: {line}"


def test_least_privilege_permissions():
    for workflow in WORKFLOWS.glob("*.yml"):
        text = workflow.read_text()
        assert re.search(r"^permissions: \{\}$", text, re.MULTILINE), (
            f"{workflow.name}: no workflow-wide permissions: {{}}"
        )
        granted = re.findall(r"^\s+(\w[\w-]*): (read|write)\b", text, re.M)
        allowed = {"contents"}
        assert {name for name, _ in granted} <= allowed, granted
    docs = (WORKFLOWS / "docs.yml").read_text()
    assert "contents: write" in docs
    assert "contents: write" not in (WORKFLOWS / "ci.yml").read_text()


def test_docs_workflow_publishes_dev_and_tagged_versions():
    docs = (WORKFLOWS / "docs.yml").read_text()
    assert re.search(r"branches: \[main\]", docs)
    assert 'tags: ["v[0-9]+.[0-9]+.[0-9]+"]' in docs
    assert 'nox -s publish -- "$VERSION"' in docs
    assert "version=dev" in docs and "HEAD:gh-pages" in docs
    ci = (WORKFLOWS / "ci.yml").read_text()
    assert "pull_request" in ci and "bash .ci/run" in ci
