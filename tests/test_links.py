"""Every internal link of the built site resolves (LinkChecker): pages,
images, downloads, notebooks, static files. Its #anchors are Sphinx's
cross-references, which the build checks (tests/linkcheckerrc says why)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import SITE

HERE = Path(__file__).parent


# Skipped when it passed before on the same bytes (conftest.py).
@pytest.mark.inputs(SITE, HERE / "linkcheckerrc", __file__)
def test_internal_links_resolve(site):
    with tempfile.TemporaryDirectory() as tmp:
        # Run as root, LinkChecker drops to user "nobody": check a readable
        # copy.
        copy = shutil.copytree(site, Path(tmp) / "html")
        for p in [Path(tmp), *copy.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        _check(copy)


def _check(copy: Path) -> None:
    linkchecker = Path(sys.executable).with_name("linkchecker")
    proc = subprocess.run(
        [
            str(linkchecker),
            "-f",
            str(HERE / "linkcheckerrc"),
            "--no-status",
            str(copy / "index.html"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    summary = re.search(
        r"(\d+) links? in \d+ URLs checked\. (\d+) warnings? found\. "
        r"(\d+) errors? found",
        proc.stdout,
    )
    assert summary, proc.stdout[-3000:] + proc.stderr[-3000:]
    checked, warnings, errors = map(int, summary.groups())
    assert checked > 50, (
        f"only {checked} links checked: did LinkChecker read the site?"
    )
    assert (warnings, errors) == (0, 0), proc.stdout[-6000:]
    assert proc.returncode == 0
