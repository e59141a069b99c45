"""The ``.py`` a learner downloads: the lesson the page shows, as a script.

sphinx-gallery offers the lesson's source as its ``.py``: with every hidden
proof block, and with the solutions, which run after the exercises and
print "correct" for exercises the learner never did. The proof stays in
``gallery/``, where the build runs it. At ``builder-inited``, after
sphinx-gallery, this writes the learner's copy beside the page
(``lessons/<section>/learner/<lesson>.py``, and the lesson's ``.zip`` with
it and the notebook) and points the page's download links at it
(``source-read``); the two zips of all lessons are written again with the
learner's files. The copy

* drops the ``sphinx_gallery_start_ignore`` blocks and the
  ``# sphinx_gallery_`` configuration comments (sphinx-gallery's own
  functions, as for the page and the notebook);
* keeps each solution cell (``# Solution N: ...``) but runs it only when
  the learner sets ``RUN_SOLUTIONS = True``, a line put before the first
  solution, so a script run as-is reports only the learner's attempts.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
import zipfile
from pathlib import Path

from . import gallery
from .notebook import learner_record, write_kept

FOLDER = "learner"
_CELL = re.compile(r"^# ?%%.*\n", re.M)
_SOLUTION = re.compile(r"\A\s*# Solution \d+\b")
FLAG = (
    "# The solutions below run only when this is True: try each exercise\n"
    "# first, then set it to True to run them (they replace your attempts).\n"
    "RUN_SOLUTIONS = False\n"
)


def _string_continuations(code: str) -> set[int]:
    """Line numbers (from 1) inside multi-line strings: indenting them would
    change the string."""
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.STRING or token.type == getattr(
            tokenize, "FSTRING_MIDDLE", -1
        ):
            lines.update(range(token.start[0] + 1, token.end[0] + 1))
    return lines


def guard(code: str) -> str:
    """``code`` under ``if RUN_SOLUTIONS:``."""
    body = code.strip("\n")
    keep = _string_continuations(body + "\n")
    indented = [
        line if (n in keep or not line.strip()) else "    " + line
        for n, line in enumerate(body.split("\n"), start=1)
    ]
    return "if RUN_SOLUTIONS:\n" + "\n".join(indented) + "\n"


def learner_script(source: str) -> str:
    """The learner's script of a lesson whose source is ``source``."""
    from sphinx_gallery.py_source_parser import (
        remove_config_comments,
        remove_ignore_blocks,
    )

    text = remove_config_comments(remove_ignore_blocks(source))
    starts = [m.start() for m in _CELL.finditer(text)]
    pieces = [text[: starts[0]] if starts else text]
    flagged = False
    for start, end in zip(starts, starts[1:] + [len(text)]):
        cell = text[start:end]
        marker = _CELL.match(cell)
        body = cell[marker.end() :]
        if _SOLUTION.match(body):
            if not flagged:
                pieces.append(f"{marker[0]}{FLAG}\n\n")
                flagged = True
            pieces.append(f"{marker[0]}\n\n{guard(body)}\n")
        else:
            pieces.append(cell)
    script = "".join(pieces)
    script = re.sub(r"\n{4,}", "\n\n\n", script)  # where hidden blocks were
    return script.rstrip("\n") + "\n"


def _zip(path: Path, files: dict[str, bytes], record: dict) -> None:
    """A zip of ``files`` (name: bytes) whose bytes depend on them only."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name)  # a fixed date: same bytes, same zip
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name])
    write_kept(path, buffer.getvalue(), record)


def _write_scripts(app) -> None:
    gallery_conf = app.config.sphinx_gallery_conf
    record_path, record = learner_record(app)
    for root, target in gallery.dirs(gallery_conf):
        scripts, notebooks = {}, {}
        for path in sorted(root.glob("*/*.py")):
            generated = target / path.parent.name
            script = learner_script(path.read_text(encoding="utf-8"))
            folder = generated / FOLDER
            folder.mkdir(parents=True, exist_ok=True)
            data = script.encode("utf-8")
            write_kept(folder / path.name, data, record)
            notebook = generated / f"{path.stem}.ipynb"
            files = {path.name: data}
            if notebook.is_file():
                files[notebook.name] = notebook.read_bytes()
                notebooks[f"{path.parent.name}/{notebook.name}"] = files[
                    notebook.name
                ]
            _zip(folder / f"{path.stem}.zip", files, record)
            scripts[f"{path.parent.name}/{path.name}"] = data
        _zip(target / f"{target.name}_python.zip", scripts, record)
        _zip(target / f"{target.name}_jupyter.zip", notebooks, record)
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True))


_DOWNLOAD = re.compile(
    r"(:download:`[^`<]*<)(?P<name>[\w.-]+\.(?:py|zip))>`", re.M
)


def _source_read(app, docname: str, source: list[str]) -> None:
    if gallery.is_lesson(app, docname):
        source[0] = _DOWNLOAD.sub(
            lambda m: f"{m[1]}{FOLDER}/{m['name']}>`", source[0]
        )


def setup(app):
    app.setup_extension("pbe.notebook")
    # After pbe.notebook (600) wrote the notebooks the zips hold.
    app.connect("builder-inited", _write_scripts, priority=700)
    app.connect("source-read", _source_read)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
