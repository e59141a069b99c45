"""Every lesson runs again when the installed versions change.

``lessons/pbe-versions.json`` records the installed versions of
pyproject's ``docs`` group (and the notebooks' first cell) that produced
every page's output. sphinx-gallery re-runs only lessons whose source
changed; when the installed versions differ from the record, or
``PBE_RUN_ALL_LESSONS=1`` (``tools/publish.py``), this turns on its
``run_stale_examples`` so every lesson runs again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from importlib import metadata
from pathlib import Path

from sphinx.util import logging

from . import gallery

logger = logging.getLogger(__name__)
RECORD = "pbe-versions.json"


def docs_group(pyproject: Path) -> list[str]:
    """Distribution names in pyproject's ``docs`` dependency group."""
    groups = tomllib.loads(pyproject.read_text())["dependency-groups"]
    return [re.split(r"[\s=<>!~;\[]", req, 1)[0] for req in groups["docs"]]


def _version(name: str) -> str:
    try:
        return metadata.version(name).split("+")[0]
    except metadata.PackageNotFoundError:
        return "not installed"


def installed_versions(gallery_conf) -> dict[str, str]:
    """Installed versions of the docs group, and the first cell's hash."""
    pyproject = Path(gallery_conf["src_dir"]).parent / "pyproject.toml"
    names = docs_group(pyproject) if pyproject.is_file() else []
    versions = {name: _version(name) for name in names}
    # sphinx-gallery writes a lesson's notebook only when it runs it, so a
    # new first cell re-runs every lesson too.
    cell = str(gallery_conf.get("first_notebook_cell"))
    versions["first notebook cell"] = hashlib.md5(cell.encode()).hexdigest()
    return versions


def _record(gallery_conf) -> Path:
    return gallery.dirs(gallery_conf)[0][1] / RECORD


def _check(app) -> None:
    gallery_conf = app.config.sphinx_gallery_conf
    path = _record(gallery_conf)
    current = installed_versions(gallery_conf)
    recorded = json.loads(path.read_text()) if path.is_file() else None
    if os.environ.get("PBE_RUN_ALL_LESSONS") == "1":
        reason = "PBE_RUN_ALL_LESSONS=1"
    elif recorded is None:
        reason = f"no {RECORD} yet"
    elif recorded != current:
        names = sorted(set(recorded) ^ set(current)) + sorted(
            n
            for n in set(recorded) & set(current)
            if recorded[n] != current[n]
        )
        reason = "installed versions changed: " + ", ".join(
            f"{n} {recorded.get(n)} -> {current.get(n)}" for n in names
        )
    else:
        return
    logger.info(f"pbe: every lesson runs again ({reason})")
    gallery_conf["run_stale_examples"] = True


def _write(app, exception) -> None:
    """Record the versions once every page's output comes from them."""
    from .stamp import read_stamp

    gallery_conf = app.config.sphinx_gallery_conf
    if exception is not None or gallery_conf.get("failing_examples"):
        return
    current = installed_versions(gallery_conf)
    for lesson in gallery.lesson_docnames(app):
        stamp = read_stamp(Path(app.srcdir), lesson)
        if stamp is None or stamp.get("versions") != current:
            return  # some page still shows output from other versions
    path = _record(gallery_conf)
    text = json.dumps(current, indent=1, sort_keys=True) + "\n"
    if not path.is_file() or path.read_text() != text:
        path.write_text(text)


def setup(app):
    # After sphinx-gallery filled in its configuration (builder-inited,
    # priority 10), before it generates the lessons (500).
    app.connect("builder-inited", _check, priority=400)
    app.connect("build-finished", _write)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
