"""When a lesson runs again: one key, the lock file's hash and the lesson's.

sphinx-gallery re-runs a lesson whose source changed (its ``.md5`` file).
The other half of the key is the environment: ``uv.lock`` (every installed
version, transitive ones included) and the notebooks' first cell, which
sphinx-gallery writes into a notebook only when it runs the lesson. Each
lesson's stamp (``stamp``) records the environment it ran in; a lesson whose
stamp names another environment, or has no stamp, loses its ``.md5`` before
sphinx-gallery looks, so it runs again, alone: nothing else does.
``PBE_RUN_ALL_LESSONS=1`` (``tools/publish.py``) re-runs every lesson.

The tests key a passed download the same way (``environment_key`` of the
lock file, plus the hash of the file they ran); CI caches the build under
the lock file's hash and the lessons' hashes.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from sphinx.util import logging
from sphinx_gallery.gen_rst import executable_script

from . import gallery

logger = logging.getLogger(__name__)
LOCK = "uv.lock"


def file_hash(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def environment_key(root: Path, *extra: str) -> str:
    """Hash of ``<root>/uv.lock`` (and ``extra`` text); "no-lock" if none."""
    lock = Path(root, LOCK)
    digest = hashlib.sha256(lock.read_bytes() if lock.is_file() else b"")
    for text in extra:
        digest.update(text.encode())
    return digest.hexdigest()[:16] if lock.is_file() else "no-lock"


def build_environment(gallery_conf) -> str:
    """The environment part of a lesson's key in this build."""
    root = Path(gallery_conf["src_dir"]).parent
    cell = str(gallery_conf.get("first_notebook_cell"))
    return environment_key(root, cell)


def _stale(app) -> None:
    """Drop the ``.md5`` of each lesson that ran in another environment
    (or has no stamp of this format)."""
    gallery_conf = app.config.sphinx_gallery_conf
    if os.environ.get("PBE_RUN_ALL_LESSONS") == "1":
        logger.info("pbe: every lesson runs again (PBE_RUN_ALL_LESSONS=1)")
        gallery_conf["run_stale_examples"] = True
        return
    from .stamp import FIELDS, SUFFIX

    current = build_environment(gallery_conf)
    stale = []
    for src_root, target_root in gallery.dirs(gallery_conf):
        for src in sorted(src_root.glob("*/*.py")):
            target = target_root / src.parent.name / src.name
            md5 = target.with_name(target.name + ".md5")
            if not md5.is_file():
                continue  # sphinx-gallery runs it anyway
            # A lesson this build does not run (filename_pattern, or
            # plot_gallery=0) keeps the output its page has.
            if not executable_script(os.path.normpath(src), gallery_conf):
                continue
            stamp = target.with_name(target.stem + SUFFIX)
            recorded = {}
            if stamp.is_file():
                recorded = json.loads(stamp.read_text())
            if recorded.keys() != FIELDS:
                recorded = {}  # no stamp, or one of another format
            if recorded.get("environment") != current:
                md5.unlink()
                stale.append(f"{src.parent.name}/{src.stem}")
    if stale:
        logger.info(
            f"pbe: {len(stale)} lesson(s) run again, made with another "
            f"{LOCK} or first notebook cell, or without a stamp: "
            f"{', '.join(stale)}"
        )


def setup(app):
    # After sphinx-gallery filled in its configuration (builder-inited,
    # priority 10), before it generates the lessons (500).
    app.connect("builder-inited", _stale, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
