"""Every word of a lesson reaches its page, checked at build time.

sphinx-gallery cuts a lesson into text and code with
``sphinx_gallery.py_source_parser.split_code_and_text_blocks``, and three
slips lose prose without an error: text written on a ``# %%`` line is
dropped; a ``# %%`` inside a comment block prints a literal ``%%`` (and can
take the next heading with it); an rST heading in comments after code, with
no ``# %%`` before it, becomes comment lines in a code cell. This reads each
lesson with that same parser and warns (``-W`` fails the build) for each
slip, with the file and line; after reading, every heading of the source
must be in the page's table of contents (``env.tocs``, the "On this page"
list). ``tests/test_received.py`` runs the same checks on the sources and
the built pages.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.util import logging
from sphinx_gallery.py_source_parser import split_code_and_text_blocks

from . import gallery

logger = logging.getLogger(__name__)

_ADORNMENT = "=-~^\"'`#*+<>:._"
_CELL_LINE = re.compile(r"^# ?%%(?P<rest>.*)$")  # sphinx-gallery's marker
_ROLE = re.compile(r":[\w:+-]+:`(?P<text>[^`<]*?)\s*(?:<[^`>]*>)?`")


def _is_underline(line: str, title: str) -> bool:
    line, title = line.rstrip(), title.rstrip()
    return (
        len(line) >= 3
        and line[0] in _ADORNMENT
        and line == line[0] * len(line)
        and len(line) >= len(title)
        and bool(title.strip())
        and not set(title.strip()) <= set(_ADORNMENT)
    )


def headings(text: str) -> list[str]:
    """The rST section titles in ``text`` (underlined, or over- and
    underlined), in order, as written."""
    lines = text.splitlines()
    found = []
    for i in range(len(lines) - 1):
        title, under = lines[i], lines[i + 1]
        if title.startswith((" ", "\t")) or not title.strip():
            continue
        if (
            i > 0
            and lines[i - 1].strip()
            and not _is_underline(lines[i - 1], title)
        ):
            continue  # a paragraph's second line, not a title
        if _is_underline(under, title):
            found.append(title.strip())
    return found


_SMART = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "…": "..."})


def plain(title: str) -> str:
    """A heading as text, to compare source and page: inline markup gone,
    Sphinx's curly quotes and dashes straight, spaces single."""
    title = title.translate(_SMART).replace("—", "---").replace("–", "--")
    title = _ROLE.sub(lambda m: m["text"], title)
    title = title.replace("``", "").replace("`", "").replace("**", "")
    return " ".join(title.replace("*", "").split())


def source_problems(path: Path) -> list[tuple[int, str]]:
    """(line, problem) for each way text of ``path`` would not reach its
    page."""
    path = Path(path)
    problems = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        match = _CELL_LINE.match(line)
        if match and match["rest"].strip():
            problems.append(
                (
                    n + 1,
                    f"text on a '# %%' line is dropped from the page: "
                    f"{match['rest'].strip()!r} (move it to the next line)",
                )
            )
    _, blocks = split_code_and_text_blocks(str(path))
    for block in blocks:
        lines = block.content.splitlines()
        if block.type == "text":
            for i, line in enumerate(lines):
                if line.strip().startswith("%%"):
                    problems.append(
                        (
                            block.lineno + i,
                            "a '# %%' inside a comment block shows as a "
                            "literal '%%': leave a line of code or a blank "
                            "line before it",
                        )
                    )
            continue
        comments = [re.sub(r"^\s*# ?", "", x) for x in lines]
        for i, line in enumerate(lines[:-1]):
            if not (
                line.lstrip().startswith("#")
                and lines[i + 1].lstrip().startswith("#")
            ):
                continue
            if _is_underline(comments[i + 1], comments[i]) and not (
                comments[i].strip().startswith("#")
            ):
                problems.append(
                    (
                        block.lineno + i,
                        f"heading {comments[i].strip()!r} is in a code "
                        "cell's comments: start its text block with '# %%'",
                    )
                )
    return sorted(problems)


def source_headings(path: Path) -> list[str]:
    """Every heading of a lesson, as the page should show it: the
    docstring's, and each ``# Title`` comment line underlined by the next
    one, wherever the parser puts it."""
    path = Path(path)
    _, blocks = split_code_and_text_blocks(str(path))
    found = headings(blocks[0].content)
    comments = [
        re.sub(r"^# ?", "", line) if line.startswith("#") else None
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    for i, (title, under) in enumerate(zip(comments, comments[1:])):
        before = comments[i - 1] if i else None
        if (
            title
            and under
            and not title.startswith((" ", "\t", "%%"))
            and _is_underline(under, title)
            and (not before or not before.strip() or before.startswith("%%"))
        ):
            found.append(title.strip())
    return [plain(title) for title in found]


def missing_headings(path: Path, page_titles: list[str]) -> list[str]:
    """Source headings that are not among the page's section titles."""
    shown = {plain(t) for t in page_titles}
    return [h for h in source_headings(path) if h not in shown]


def _source(app, docname: str) -> Path:
    _, section, stem = docname.split("/")
    root = gallery.dirs(app.config.sphinx_gallery_conf)[0][0]
    return root / section / f"{stem}.py"


def _check_sources(app) -> None:
    root = gallery.dirs(app.config.sphinx_gallery_conf)[0][0]
    for path in sorted(root.glob("*/*.py")):
        for line, problem in source_problems(path):
            logger.warning(
                f"pbe: {problem}",
                location=f"{path}:{line}",
                type="pbe",
                subtype="text",
            )


def _toc_titles(node) -> list[str]:
    from docutils import nodes

    return [ref.astext() for ref in node.findall(nodes.reference)]


def _check_tocs(app, env) -> None:
    for docname in gallery.lesson_docnames(app):
        toc = env.tocs.get(docname)
        if toc is None:
            continue
        path = _source(app, docname)
        for title in missing_headings(path, _toc_titles(toc)):
            logger.warning(
                f"pbe: heading {title!r} of {path.name} is not in its "
                "page's table of contents",
                location=docname,
                type="pbe",
                subtype="text",
            )


def setup(app):
    app.connect("builder-inited", _check_sources)
    app.connect("env-check-consistency", _check_tocs)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
