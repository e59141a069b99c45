"""Exercise checks and solutions, collapsed on the page until opened.

A lesson ends with exercises: a starter and a check the learner runs on
their attempt, a cell that defines ``check_exercise_N``. Its solutions come
last, each a code cell whose first line is ``# Solution N: <title>``; the
build runs them through the same checks, so a wrong solution fails it. On
the page, this wraps each solution cell, code and output, in a closed
sphinx-design dropdown, and each check cell in another, so the attempt
follows the task and no check shows its answer before the attempt
(``source-read`` on the generated rST). ``notebook`` does the same for the
notebook, ``download`` for the ``.py``.
"""

from __future__ import annotations

import re

from . import gallery
from .notebook import check_number

_CHUNK = re.compile(r"^(?=\.\. GENERATED FROM PYTHON SOURCE LINES )", re.M)
_SOLUTION = re.compile(
    r"\A(?P<marker>\.\. GENERATED FROM PYTHON SOURCE LINES [\d-]+\n)\n*"
    r"\.\. code-block:: Python\n\n+    # (?P<title>Solution \d+.*)\n"
)


_CODE = re.compile(
    r"\A(?P<marker>\.\. GENERATED FROM PYTHON SOURCE LINES [\d-]+\n)\n*"
    r"\.\. code-block:: Python\n\n(?P<code>(?:(?:    .*)?\n)+)\n*\Z"
)


def _check_title(chunk: str) -> str | None:
    """The dropdown title of a cell that only defines a check."""
    match = _CODE.match(chunk)
    if not match:
        return None
    code = "\n".join(line[4:] for line in match["code"].split("\n"))
    number = check_number(code)
    if number is None:
        return None
    return f"Exercise {number}'s check (open it after your attempt)"


def collapse_solutions(rst: str) -> str:
    """Each solution cell (code and output) and each check cell inside a
    closed dropdown."""
    chunks = _CHUNK.split(rst)
    for i, chunk in enumerate(chunks):
        match = _SOLUTION.match(chunk)
        title = match and match["title"]
        kind = "pbe-solution"
        if not match:
            title, kind = _check_title(chunk), "pbe-check"
            match = _CODE.match(chunk) if title else None
        if not match:
            continue
        body = chunk[match.end("marker") :].rstrip("\n")
        indented = "\n".join(
            "   " + line if line.strip() else "" for line in body.split("\n")
        )
        chunks[i] = (
            f"{match['marker']}\n.. dropdown:: {title}\n"
            f"   :class-container: {kind}\n\n{indented}\n\n"
        )
    return "".join(chunks)


def _source_read(app, docname: str, source: list[str]) -> None:
    if gallery.is_lesson(app, docname):
        source[0] = collapse_solutions(source[0])


def setup(app):
    app.setup_extension("sphinx_design")
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
