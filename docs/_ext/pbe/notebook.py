"""The first cell of every lesson's notebook.

Every lesson runs again when the installed versions change (``rerun``), so
the versions that made the pages are the site's, by construction: one
static cell names them, links the set-up page and, when the reader's
versions differ in major or minor version, says so. It installs nothing.
"""

from __future__ import annotations

from importlib import metadata


def _version(name: str) -> str:
    return metadata.version(name).split("+")[0]


def first_cell(setup_url: str) -> str:
    verified = {"torch": _version("torch")}
    lines = [
        "%matplotlib inline",
        f"# This lesson was run with torch {verified['torch']} (and "
        f"torchvision {_version('torchvision')} where it uses it).",
        f"# To install what it needs: {setup_url}",
        "# This cell compares versions only; it installs nothing.",
        "from importlib.metadata import PackageNotFoundError, version",
        "",
        f"VERIFIED = {verified!r}".replace("'", '"'),
        "for package, verified in VERIFIED.items():",
        "    try:",
        "        running = version(package)",
        "    except PackageNotFoundError:",
        '        running = "not installed"',
        '    if running.split(".")[:2] != verified.split(".")[:2]:',
        "        print(",
        '            f"Note: this lesson was run with {package} "',
        '            f"{verified}; you have {running}, so output "',
        '            "and APIs may differ."',
        "        )",
    ]
    return "\n".join(lines)
