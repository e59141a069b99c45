"""The verified stamp: when, with which torch and where a lesson last ran.

sphinx-gallery calls ``stamp_lesson`` (a ``reset_modules`` hook) just before
each lesson runs; it writes ``<lesson>.verified.json`` beside the generated
page: date, torch version, device, number of checks, the source's md5 and
the installed versions. A lesson that raised loses its stamp once the
gallery is generated. ``frame`` shows the stamp under the lesson's title
while its md5 matches the source.
"""

from __future__ import annotations

import ast
import datetime
import hashlib
import json
from importlib import metadata
from pathlib import Path

from . import gallery, rerun
from .lesson_source import CHECK_CALLS

SUFFIX = ".verified.json"


def count_checks(source: str) -> int:
    """``assert`` statements plus ``assert_close``/``gradcheck`` calls.

    Hidden checks count too. A call inside an ``assert`` counts once.
    """
    tree = ast.parse(source)
    inside = set()
    n = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            n += 1
            inside.update(id(sub) for sub in ast.walk(node))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in inside:
            func = node.func
            name = getattr(func, "attr", None) or getattr(func, "id", None)
            n += name in CHECK_CALLS
    return n


def _uses(source: str, package: str) -> bool:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if any(n.split(".")[0] == package for n in names):
            return True
    return False


def _device(uses_torch: bool) -> str:
    """Where the lesson's tensors run: what it would pick itself."""
    if not uses_torch:
        return "CPU"
    import torch

    if not torch.accelerator.is_available():
        return "CPU"
    device = torch.accelerator.current_accelerator()
    if device.type == "cuda":
        return f"GPU ({torch.cuda.get_device_name(0)})"
    return device.type.upper()


def source_md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def stamp_text(stamp: dict) -> str:
    """'Verified on <date> with torch X.Y.Z on <device>: <N> checks passed'."""
    checks = stamp["checks"]
    return (
        f"Verified on {stamp['date']} with torch {stamp['torch']} on "
        f"{stamp['device']}: {checks} check{'s' * (checks != 1)} passed"
    )


def stamp_lesson(gallery_conf, fname, when) -> None:
    """Write the lesson's stamp just before it runs (a reset hook)."""
    if when != "before":
        return
    src, target_dir = gallery.find_lesson(gallery_conf, fname)
    source = src.read_text(encoding="utf-8")
    uses_torch = _uses(source, "torch") or _uses(source, "torchvision")
    stamp = {
        "lesson": f"{src.parent.name}/{src.stem}",
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "torch": metadata.version("torch").split("+")[0],
        "device": _device(uses_torch),
        "checks": count_checks(source),
        "md5": source_md5(src),
        "versions": rerun.installed_versions(gallery_conf),
    }
    target_dir.mkdir(parents=True, exist_ok=True)
    path = target_dir / f"{src.stem}{SUFFIX}"
    path.write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")


def read_stamp(srcdir: Path, docname: str) -> dict | None:
    """The stamp of lesson page ``docname``, if it matches the source."""
    generated = Path(srcdir, docname)
    path = generated.with_name(generated.name + SUFFIX)
    source = generated.with_suffix(".py")
    if not (path.is_file() and source.is_file()):
        return None
    stamp = json.loads(path.read_text(encoding="utf-8"))
    if stamp.get("md5") != source_md5(source):
        return None  # the source changed and was not run since
    return stamp


def _drop_failed_stamps(app) -> None:
    """A lesson that raised has verified nothing: remove its stamp."""
    gallery_conf = app.config.sphinx_gallery_conf
    for src in map(Path, gallery_conf.get("failing_examples", {})):
        for _, generated in gallery.dirs(gallery_conf):
            stamp = generated / src.parent.name / (src.stem + SUFFIX)
            stamp.unlink(missing_ok=True)


def setup(app):
    app.setup_extension("pbe.rerun")
    # After sphinx-gallery generated the lessons (its builder-inited, 500).
    app.connect("builder-inited", _drop_failed_stamps, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
