"""The verified stamp: when, with which torch and where a lesson last ran,
and what that proves about its checks.

sphinx-gallery calls ``stamp_lesson`` (a ``reset_modules`` hook) just before
and just after each lesson runs; after, it writes ``<lesson>.verified.json``
beside the generated page: date, torch version, device, the lesson's
seconds (the tests' time limits), its checks (``Lesson.checks``) and how many
of them sit in branches a run may skip, and its key (the environment,
``rerun``, and the source's hash). A lesson that raised loses its stamp once
the gallery is generated, so a stamp proves that every check the run reached
passed: all of them when none sits in a branch. Which branches ran is not
recorded: line tracing (``sys.settrace``) slows the calls that timing
lessons measure (advanced/06's median torch.compile step went from
1.9 ms to 288 ms under a line tracer).
``frame`` shows the stamp under the lesson's title while the source's hash
matches.
"""

from __future__ import annotations

import datetime
import json
import time
from importlib import metadata
from pathlib import Path

from . import gallery, rerun
from .lesson_source import Lesson, count_checks  # noqa: F401 (the API)

SUFFIX = ".verified.json"
# What a stamp holds; one written by an older version of this module lacks
# some, and its lesson runs again (``rerun``).
FIELDS = frozenset(
    {
        "lesson",
        "date",
        "torch",
        "device",
        "checks",
        "checks_in_branches",
        "seconds",
        "environment",
        "source",
    }
)
_STARTED: dict[Path, float] = {}  # perf_counter() as each lesson started


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


def stamp_text(stamp: dict) -> str:
    """'Verified on <date> with torch X.Y.Z on <device>: <the checks>'."""
    total, branched = stamp["checks"], stamp["checks_in_branches"]
    if not branched:
        checks = f"{total} check{'s' * (total != 1)} ran and passed"
    else:
        checks = (
            f"every check that ran passed ({total} checks, {branched} of "
            "them in branches not every run takes)"
        )
    return (
        f"Verified on {stamp['date']} with torch {stamp['torch']} on "
        f"{stamp['device']}: {checks}"
    )


def stamp_lesson(gallery_conf, fname, when) -> None:
    """Note the time before a lesson runs; write its stamp after."""
    src, target_dir = gallery.find_lesson(gallery_conf, fname)
    if when == "before":
        _STARTED[src] = time.perf_counter()
        return
    if src not in _STARTED:
        return  # "after" without "before"
    seconds = time.perf_counter() - _STARTED.pop(src)
    lesson = Lesson.read(src)
    roots = {name.split(".")[0] for name in lesson.imports()}
    uses_torch = bool(roots & {"torch", "torchvision"})
    stamp = {
        "lesson": f"{src.parent.name}/{src.stem}",
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "torch": metadata.version("torch").split("+")[0],
        "device": _device(uses_torch),
        "checks": len(lesson.checks()),
        "checks_in_branches": lesson.checks_in_branches(),
        "seconds": round(seconds, 1),
        "environment": rerun.build_environment(gallery_conf),
        "source": rerun.file_hash(src),
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
    if stamp.keys() != FIELDS:
        return None  # written by another version of this module
    if stamp["source"] != rerun.file_hash(source):
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
