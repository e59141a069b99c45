"""The frame under each lesson's title: core reading time and stamp.

A lesson's docstring says what you will learn and what you need first;
this adds, under its title, the core's reading time computed from the
source (``lesson_source``) and the verified stamp (``stamp``), and drops
sphinx-gallery's "Go to the end" note (the downloads are in the sidebar).
It edits the generated page's rST as Sphinx reads it (``source-read``).
At the end of the build it lists the lessons whose core is over the
reading-time budget (a report, not an error).
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.util import logging

from . import gallery
from .lesson_source import CORE_MINUTES_BUDGET, Lesson
from .stamp import SUFFIX, read_stamp, stamp_text

logger = logging.getLogger(__name__)
_TITLE = re.compile(r"^(?P<title>\S.*)\n(?P<rule>=+)\n", re.MULTILINE)
_GO_TO_END = re.compile(
    r"^\.\. only:: html\n\n    \.\. note::\n"
    r"        :class: sphx-glr-download-link-note\n(?:\n|        .*\n)*",
    re.MULTILINE,
)


def frame_rst(lesson: Lesson, stamp: dict | None) -> str:
    """The rST block shown under a lesson's title."""
    minutes = lesson.core_minutes()
    verified = (
        stamp_text(stamp)
        if stamp
        else "Not executed in this build: no output to verify"
    )
    return (
        ".. rst-class:: pbe-time\n\n"
        f"**About {minutes} minutes** to read the core of this lesson (its "
        "text and code before *Going deeper* and the exercises).\n\n"
        f".. rst-class:: pbe-verified\n\n{verified}.\n\n"
    )


def _source_read(app, docname: str, source: list[str]) -> None:
    if not gallery.is_lesson(app, docname):
        return
    generated = Path(app.srcdir, docname)
    app.env.note_dependency(str(generated.with_name(generated.name + SUFFIX)))
    lesson = Lesson.read(generated.with_suffix(".py"))
    block = frame_rst(lesson, read_stamp(Path(app.srcdir), docname))
    text = _GO_TO_END.sub("", source[0], count=1)
    title = _TITLE.search(text)
    if title and len(title["rule"]) >= len(title["title"]):
        text = text[: title.end()] + "\n" + block + text[title.end() :]
    source[0] = text


def _report_reading_times(app, exception) -> None:
    if exception is not None:
        return
    root = gallery.dirs(app.config.sphinx_gallery_conf)[0][0]
    over = [
        f"{p.parent.name}/{p.stem} ({lesson.core_minutes()} min)"
        for p in sorted(root.glob("*/*.py"))
        if (lesson := Lesson.read(p)).over_budget()
    ]
    logger.info(
        f"pbe: lessons over the {CORE_MINUTES_BUDGET}-minute core reading "
        f"budget: {', '.join(over) if over else 'none'}"
    )


def setup(app):
    app.setup_extension("pbe.stamp")
    app.connect("source-read", _source_read)
    app.connect("build-finished", _report_reading_times)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
