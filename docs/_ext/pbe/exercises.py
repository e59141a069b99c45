"""Exercise solutions, collapsed on the page until a learner opens them.

A lesson ends with exercises: a starter that raises ``NotImplementedError``
and a visible check the learner runs on their attempt. Its solutions come
last, each a code cell whose first line is ``# Solution N: <title>``; the
build runs them through the same checks, so a wrong solution fails it. The
notebook keeps them as the last cells, after every exercise. On the page,
this wraps each solution cell, code and output, in a sphinx-design
dropdown (``source-read`` on the generated rST).
"""

from __future__ import annotations

import re

from . import gallery

_CHUNK = re.compile(r"^(?=\.\. GENERATED FROM PYTHON SOURCE LINES )", re.M)
_SOLUTION = re.compile(
    r"\A(?P<marker>\.\. GENERATED FROM PYTHON SOURCE LINES [\d-]+\n)\n*"
    r"\.\. code-block:: Python\n\n+    # (?P<title>Solution \d+.*)\n"
)


def collapse_solutions(rst: str) -> str:
    """Each solution cell (code and output) inside a closed dropdown."""
    chunks = _CHUNK.split(rst)
    for i, chunk in enumerate(chunks):
        match = _SOLUTION.match(chunk)
        if not match:
            continue
        body = chunk[match.end("marker") :].rstrip("\n")
        indented = "\n".join(
            "   " + line if line.strip() else "" for line in body.split("\n")
        )
        chunks[i] = (
            f"{match['marker']}\n.. dropdown:: {match['title']}\n"
            f"   :class-container: pbe-solution\n\n{indented}\n\n"
        )
    return "".join(chunks)


def _source_read(app, docname: str, source: list[str]) -> None:
    if gallery.is_lesson(app, docname):
        source[0] = collapse_solutions(source[0])


def setup(app):
    app.setup_extension("sphinx_design")
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
