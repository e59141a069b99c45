"""Publish one version of the site into a multi-version site folder.

    python tools/publish.py [--site build/site] [--base /path/] VERSION \
        [sphinx args...]

builds the docs for VERSION ("dev" or a release such as "0.1.0") into
``<site>/<VERSION>/``, keeps every version already there, rewrites the version
switcher list (``<site>/switcher.json`` and each version's
``_static/switcher.json``: dev, then releases newest first, the newest release
marked stable and preferred) and points ``<site>/index.html`` at the stable
version (dev while there is no release).  ``nox -s publish`` runs it.

Every lesson is executed afresh (``PBE_RUN_ALL_LESSONS=1``), and each
lesson's notebook is placed at ``<VERSION>/notebooks/<section>/<lesson>.ipynb``
(where its page's "Open in Colab" link points, on the gh-pages branch).
``--base`` defaults to the path of pyproject's ``Documentation`` URL.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GALLERY = ROOT / "gallery"

REDIRECT = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Redirecting to the stable version</title>
<meta http-equiv="refresh" content="0; url={target}/index.html">
<link rel="canonical" href="{target}/index.html">
</head><body><a href="{target}/index.html">Go to version {target}</a>
</body></html>
"""


def _release(name: str) -> Version | None:
    try:
        return Version(name)
    except InvalidVersion:
        return None


def switcher_entries(versions: list[str], base: str) -> list[dict]:
    """dev first, then releases newest first; the newest release is stable."""
    releases = sorted(
        (v for v in versions if _release(v)), key=Version, reverse=True
    )
    entries = (
        [{"name": "Site dev", "version": "dev", "url": f"{base}dev/"}]
        if "dev" in versions
        else []
    )
    for i, v in enumerate(releases):
        entry = {
            "name": f"Site {v} (stable)" if i == 0 else f"Site {v}",
            "version": v,
            "url": f"{base}{v}/",
        }
        if i == 0:
            entry["preferred"] = True
        entries.append(entry)
    return entries


def place_notebooks(out: Path) -> list[Path]:
    """Copy each lesson's notebook to ``<out>/notebooks/<section>/``."""
    target = out / "notebooks"
    shutil.rmtree(target, ignore_errors=True)
    placed = []
    for lesson in sorted(GALLERY.glob("*/*.py")):
        section = lesson.parent.name
        notebook = DOCS / "lessons" / section / f"{lesson.stem}.ipynb"
        if not notebook.is_file():
            raise SystemExit(f"publish: no notebook for {lesson}")
        (target / section).mkdir(parents=True, exist_ok=True)
        placed.append(shutil.copy2(notebook, target / section))
    return placed


def default_base() -> str:
    """The URL path of pyproject's Documentation URL ("/" for a domain)."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        url = tomllib.load(f)["project"]["urls"]["Documentation"]
    return urlsplit(url).path.rstrip("/") + "/"


def publish(
    site: Path, version: str, base: str, sphinx_args: list[str]
) -> list[dict]:
    if version != "dev" and _release(version) is None:
        raise SystemExit(
            f"publish: {version!r} is neither 'dev' nor a release number "
            "like 0.1.0"
        )
    site.mkdir(parents=True, exist_ok=True)
    out = site / version
    env = os.environ | {
        "PBE_DOCS_VERSION": version,
        "PBE_RUN_ALL_LESSONS": "1",
    }
    subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-W",
            "--keep-going",
            "-d",
            # outside the site: the site folder is what gets pushed
            str(site.parent / f"{site.name}-doctrees" / version),
            str(DOCS),
            str(out),
            *sphinx_args,
        ],
        env=env,
        check=True,
    )
    place_notebooks(out)
    (site / ".nojekyll").touch()  # GitHub Pages: serve _static/ as is
    versions = [p.name for p in site.iterdir() if (p / "index.html").is_file()]
    entries = switcher_entries(versions, base)
    text = json.dumps(entries, indent=2) + "\n"
    (site / "switcher.json").write_text(text)
    for v in versions:
        (site / v / "_static" / "switcher.json").write_text(text)
    stable = next((e["version"] for e in entries if e.get("preferred")), "dev")
    (site / "index.html").write_text(REDIRECT.format(target=stable))
    return entries


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "version", help='"dev" or a release number such as 0.1.0'
    )
    parser.add_argument(
        "--site", type=Path, default=DOCS.parent / "build" / "site"
    )
    parser.add_argument(
        "--base",
        default=default_base(),
        help="URL path the site is served under (default: the path of "
        "pyproject's Documentation URL)",
    )
    args, sphinx_args = parser.parse_known_args(argv)
    entries = publish(args.site, args.version, args.base, sphinx_args)
    print(
        f"published {args.version} to {args.site / args.version}; versions: "
        + ", ".join(e["name"] for e in entries)
    )


if __name__ == "__main__":
    main()
