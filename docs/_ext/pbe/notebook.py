"""The notebook a learner downloads: Markdown cells, practice that waits.

sphinx-gallery writes a lesson's notebook only when it runs the lesson, and
turns its rST into Markdown with a converter that leaves Sphinx roles,
directives and ``sphx_glr_`` labels raw (Jupyter and Colab show them as
typed). So after sphinx-gallery, at ``builder-inited``, this writes every
lesson's notebook again from its source, with sphinx-gallery's own parser
and notebook cells:

* **Markdown by pandoc** (``pypandoc-binary``: pandoc from the package
  index), one call per lesson: the text blocks are joined, so pandoc sees
  the page's heading levels (sphinx-gallery's ``pypandoc`` option calls it
  once per block, which makes every block's first heading a level-1
  heading, and starts pandoc a thousand times a build). pandoc's rST reader
  does maths, lists, tables (``list-table`` too) and links; what it keeps of
  Sphinx, ``notebook.lua`` turns into Markdown: a ``:ref:`` becomes a link
  to the published page, an API role becomes code (linked to the API docs
  where the page links it: the intersphinx inventories), a dropdown becomes
  ``<details>``.
* **Practice that waits**: each check cell (``def check_exercise_N``) moves
  to just before its exercise's task, so the attempt cell is what follows
  the task, and each check and each solution cell (``# Solution N: ...``)
  is collapsed, in the metadata both clients honour: JupyterLab's and
  Notebook's ``jupyter.source_hidden``, and Colab's form view
  (``cellView: form`` with a ``#@title`` first line).

The first cell names the versions the pages ran with (``first_cell``).
"""

from __future__ import annotations

import ast
import json
import os
import re
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sphinx.util import logging

from . import gallery

logger = logging.getLogger(__name__)

FILTER = Path(__file__).with_name("notebook.lua")
# GitHub-flavoured Markdown (pipe tables, raw HTML) with $...$ maths, which
# Jupyter, Colab and nbconvert all render.
MARKDOWN = "gfm-tex_math_gfm+tex_math_dollars"
_BREAK = "PBENOTEBOOKCELLBREAK"
_CHECK = re.compile(r"^check_exercise_(\d+)$")
_SOLUTION = re.compile(r"\A# (?P<title>Solution (?P<n>\d+)\b.*)$", re.M)
HIDDEN = {"jupyter": {"source_hidden": True}, "cellView": "form"}


def _version(name: str) -> str:
    from importlib import metadata

    return metadata.version(name).split("+")[0]


def first_cell(setup_url: str) -> str:
    verified = {"torch": _version("torch")}
    lines = [
        "%matplotlib inline",
        f"# This lesson was run with torch {verified['torch']} (and "
        f"torchvision {_version('torchvision')} where it uses it).",
        f"# To install what it needs: {setup_url}",
        "# This cell compares versions only; it installs nothing.",
        "from importlib.metadata import PackageNotFoundError, version",
        "",
        f"VERIFIED = {verified!r}".replace("'", '"'),
        "for package, verified in VERIFIED.items():",
        "    try:",
        "        running = version(package)",
        "    except PackageNotFoundError:",
        '        running = "not installed"',
        '    if running.split(".")[:2] != verified.split(".")[:2]:',
        "        print(",
        '            f"Note: this lesson was run with {package} "',
        '            f"{verified}; you have {running}, so output "',
        '            "and APIs may differ."',
        "        )",
    ]
    return "\n".join(lines)


# -- Markdown ---------------------------------------------------------------


def to_markdown(texts: list[str], links: dict) -> list[str]:
    """Each rST text block as Markdown, converted in one pandoc call."""
    import pypandoc

    if not texts:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        links_file = Path(tmp, "links.json")
        links_file.write_text(json.dumps(links), encoding="utf-8")
        markdown = pypandoc.convert_text(
            f"\n\n{_BREAK}\n\n".join(texts),
            MARKDOWN,
            format="rst",
            extra_args=[
                "--wrap=none",
                f"--metadata=pbe_links:{links_file}",
            ],
            filters=[str(FILTER)],
        )
    parts = re.split(rf"^{_BREAK}\n", markdown, flags=re.M)
    if len(parts) != len(texts):
        raise ValueError("pandoc merged or split text blocks")
    return [part.strip() for part in parts]


def lesson_links(app) -> dict:
    """Labels to (title, published URL); API names to the docs' URLs."""
    from sphinx_gallery.gen_rst import extract_intro_and_title
    from sphinx_gallery.py_source_parser import split_code_and_text_blocks

    config = app.config
    base = f"{config.pbe_documentation.rstrip('/')}/{config.version}"
    refs = {}
    root, target = gallery.dirs(config.sphinx_gallery_conf)[0]
    for path in sorted(root.glob("*/*.py")):
        _, blocks = split_code_and_text_blocks(str(path))
        _, title = extract_intro_and_title(str(path), blocks[0].content)
        section = path.parent.name
        refs[f"sphx_glr_{target.name}_{section}_{path.stem}.py"] = [
            title,
            f"{base}/{target.name}/{section}/{path.stem}.html",
        ]
    for rst in Path(app.srcdir).glob("*.rst"):  # labels on the other pages
        for match in re.finditer(
            r"^\.\. _([\w-]+):\n\n(.+)\n[=\-~]{3,}\n",
            rst.read_text(encoding="utf-8"),
            re.M,
        ):
            refs[match[1]] = [match[2].strip(), f"{base}/{rst.stem}.html"]
    return {"refs": refs, "api": api_links(app)}


def api_links(app) -> dict[str, str]:
    """``"role:name"`` to the URL intersphinx would link, for Python roles."""
    inventory = getattr(app.env, "intersphinx_inventory", None) or {}
    domain = app.env.domains.python_domain
    links = {}
    for role in ("class", "func", "meth", "mod", "data", "attr", "exc", "obj"):
        for objtype in domain.objtypes_for_role(role) or []:
            for name, item in inventory.get(f"py:{objtype}", {}).items():
                uri = getattr(item, "uri", None) or item[2]
                links.setdefault(f"{role}:{name}", uri)
    return links


# -- Cells -------------------------------------------------------------------


def check_number(code: str) -> str | None:
    """N if the cell only imports and defines ``check_exercise_N``."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return None
    numbers = [
        match[1]
        for node in body
        if isinstance(node, ast.FunctionDef)
        and (match := _CHECK.match(node.name))
    ]
    others = [
        node
        for node in body
        if not isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef))
    ]
    return numbers[0] if len(numbers) == 1 and not others else None


def _hide(cell: dict, title: str) -> None:
    source = "".join(cell["source"])
    cell["source"] = [f"#@title {title}\n{source}"]
    cell["metadata"].update(json.loads(json.dumps(HIDDEN)))


def practice_that_waits(cells: list[dict]) -> list[dict]:
    """Checks before their tasks and collapsed; solutions collapsed."""
    out: list[dict] = []
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code":
            out.append(cell)
            continue
        solution = _SOLUTION.match(source)
        if solution:
            cell["source"] = [source[solution.end() :].lstrip("\n")]
            _hide(cell, solution["title"])
            out.append(cell)
            continue
        number = check_number(source)
        if number is None:
            out.append(cell)
            continue
        _hide(
            cell,
            f"Exercise {number}'s check: run this cell; read it after your "
            "attempt",
        )
        task = out[-1] if out and out[-1]["cell_type"] == "markdown" else None
        if task is None:
            out.append(cell)
            continue
        text = "".join(task["source"])
        start = re.search(rf"^\*\*Exercise {number}\b", text, re.M)
        if start and start.start() > 0:  # the task shares a cell: split it
            task["source"] = [text[: start.start()].rstrip() + "\n"]
            out.append(cell)
            out.append(
                {
                    "cell_type": "markdown",
                    "metadata": {},
                    "source": [text[start.start() :]],
                }
            )
        else:
            out.insert(len(out) - 1, cell)
    return out


def lesson_blocks(path: Path) -> list[tuple[str, str]]:
    """The lesson's text and code blocks, as its notebook shows them."""
    from sphinx_gallery.py_source_parser import (
        remove_config_comments,
        remove_ignore_blocks,
        split_code_and_text_blocks,
    )

    _, blocks = split_code_and_text_blocks(str(path))
    blocks = [
        (b.type, remove_config_comments(remove_ignore_blocks(b.content)))
        for b in blocks
    ]
    return [(kind, text) for kind, text in blocks if text.strip()]


def lesson_notebook(
    blocks: list[tuple[str, str]], markdown: list[str], gallery_conf
) -> dict:
    """The learner's notebook from the lesson's ``blocks`` (``lesson_blocks``)
    and its text blocks in Markdown (``to_markdown``)."""
    from sphinx_gallery.notebook import (
        add_code_cell,
        add_markdown_cell,
        jupyter_notebook_skeleton,
    )

    markdown = iter(markdown)
    notebook = jupyter_notebook_skeleton()
    if gallery_conf.get("first_notebook_cell"):
        add_code_cell(notebook, gallery_conf["first_notebook_cell"])
    for kind, text in blocks:
        if kind == "code":
            add_code_cell(notebook, text)
        else:
            add_markdown_cell(notebook, next(markdown))
    if gallery_conf.get("last_notebook_cell"):
        add_code_cell(notebook, gallery_conf["last_notebook_cell"])
    notebook["cells"] = practice_that_waits(notebook["cells"])
    return notebook


# -- Build -------------------------------------------------------------------


def write_kept(path: Path, data: bytes, record: dict) -> None:
    """Write ``data`` to ``path``; where these bytes were written before,
    keep that time, so Sphinx does not read the page again for nothing
    (sphinx-gallery writes its own copy first, on every build)."""
    import hashlib

    digest = hashlib.md5(data).hexdigest()
    key = str(path)
    if not (path.is_file() and path.read_bytes() == data):
        path.write_bytes(data)
    if record.get(key, [None])[0] == digest:
        mtime = record[key][1]
        os.utime(path, ns=(mtime, mtime))
    else:
        record[key] = [digest, path.stat().st_mtime_ns]


def learner_record(app) -> tuple[Path, dict]:
    target = gallery.dirs(app.config.sphinx_gallery_conf)[0][1]
    path = target / "pbe-learner.json"
    record = json.loads(path.read_text()) if path.is_file() else {}
    return path, record


def _write_notebooks(app) -> None:
    gallery_conf = app.config.sphinx_gallery_conf
    links = lesson_links(app)
    record_path, record = learner_record(app)
    lessons = [
        (path, target)
        for root, target in gallery.dirs(gallery_conf)
        for path in sorted(root.glob("*/*.py"))
    ]
    # pandoc runs in its own process: one per core at a time. Only pandoc
    # runs in threads: CPython 3.11's ast.parse (sphinx-gallery's parser,
    # the check finder) is not safe to call from several threads at once.
    blocks = [lesson_blocks(path) for path, _ in lessons]
    texts = [[t for k, t in b if k == "text"] for b in blocks]
    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        converted = list(pool.map(lambda t: to_markdown(t, links), texts))
    notebooks = [
        lesson_notebook(b, markdown, gallery_conf)
        for b, markdown in zip(blocks, converted)
    ]
    for (path, target), notebook in zip(lessons, notebooks):
        out = target / path.parent.name / f"{path.stem}.ipynb"
        out.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        for label in sorted(set(re.findall(r"sphx_glr_\w+\.py", data))):
            logger.warning(
                f"pbe: {path.name} links {label}, which is no lesson",
                location=str(path),
                type="pbe",
                subtype="notebook",
            )
        write_kept(out, data.encode("utf-8"), record)
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True))


def setup(app):
    app.setup_extension("sphinx_gallery.gen_gallery")
    app.setup_extension("pbe.lesson_links")  # pbe_documentation
    # After sphinx-gallery (500) wrote its pages and intersphinx loaded its
    # inventories.
    app.connect("builder-inited", _write_notebooks, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
