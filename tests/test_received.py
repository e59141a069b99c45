"""What the learner receives, tested as received.

A learner reads the page, opens the notebook in Jupyter or Colab, or runs
the downloaded ``.py``. These read each of the three as it ships: every
word of a lesson on its page, every notebook's Markdown rendered by
nbconvert (Jupyter's own converter) with no rST left, practice that does
not spoil itself, and a script that runs the learner's attempts only.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import (
    LESSONS,
    ROOT,
    captured_output,
    downloads,
    lesson_id,
    make_project,
    page,
    soup,
)

sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from pbe.download import learner_script  # noqa: E402
from pbe.notebook import practice_that_waits  # noqa: E402
from pbe.text_check import (  # noqa: E402
    headings,
    plain,
    source_headings,
    source_problems,  # noqa: E402
)

# What Jupyter would show raw: a Sphinx role, an rST directive, a label.
RST_LEFT = re.compile(
    r":(?:ref|class|func|meth|mod|data|attr|exc|obj|doc|math):`"
    r"|^\s*\.\. [\w-]+::|sphx_glr_",
    re.M,
)
CHECK_DEF = re.compile(r"^def check_exercise_(\d+)\(", re.M)
SOLUTION = re.compile(r"^# Solution (\d+)\b", re.M)


# -- The page ---------------------------------------------------------------


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_every_text_block_reaches_the_page(lesson):
    """No text on a ``# %%`` line, no ``%%`` in a text block, no heading in
    a code cell's comments: read with sphinx-gallery's own parser."""
    problems = [f"line {n}: {p}" for n, p in source_problems(lesson)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_every_heading_is_in_the_page_contents(site, lesson):
    html = soup(page(site, lesson))
    title = html.select_one("h1").get_text().strip().rstrip("#")
    toc = [plain(a.get_text()) for a in html.select(".page-toc a")]
    shown = {plain(title), *toc}
    literal = [p for p in html.select("article p") if "%%" in p.get_text()]
    missing = [h for h in source_headings(lesson) if h not in shown]
    assert not missing, f"headings not in 'On this page': {missing}"
    assert not literal, f"a literal %% on the page: {literal[0].get_text()}"


def test_the_text_check_finds_each_slip(tmp_path):
    """Each slip found at its line; a clean lesson passes."""
    lesson = tmp_path / "lesson.py"
    lesson.write_text(
        '"""\nTitle\n=====\n\nIntro.\n"""\n\n'
        "# %%\n# Clean\n# -----\n# Prose.\nx = 1\n\n"
        "# %% Text on the marker line.\n# More.\ny = 2\n\n"
        "# %%\n# Prose.\n#\n# %%\n# Heading after\n# ~~~~~~~~~~~~~\nz = 3\n"
        "# Lost heading\n# ------------\n# in a code cell.\nw = 4\n"
    )
    found = {line: problem for line, problem in source_problems(lesson)}
    assert sorted(found) == [14, 21, 25], found
    assert "dropped" in found[14] and "literal" in found[21]
    assert "Lost heading" in found[25]
    assert headings("A\n-\n\nTitle\n-----\ntext") == ["Title"]


# -- The notebook -----------------------------------------------------------


def _notebook(site, lesson):
    return nbformat.read(downloads(site, lesson)[".ipynb"], as_version=4)


def _rendered_markdown(nb) -> list[str]:
    """Each Markdown cell as nbconvert's HTML export (JupyterLab's look)
    renders it: its HTML, in cell order."""
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    cells = soup_text(html).select(".jp-MarkdownCell .jp-RenderedMarkdown")
    return [str(c) for c in cells]


def soup_text(html: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser")


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_notebook_markdown_renders_with_no_rst_left(site, lesson):
    nb = _notebook(site, lesson)
    nbformat.validate(nb)
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    raw = [m.group(0) for text in markdown for m in RST_LEFT.finditer(text)]
    assert not raw, f"rST in the notebook's Markdown: {raw[:5]}"
    rendered = _rendered_markdown(nb)
    assert len(rendered) == len(markdown)
    text = "\n".join(soup_text(c).get_text() for c in rendered)
    left = [m.group(0) for m in RST_LEFT.finditer(text)]
    assert not left, f"rST in the rendered notebook: {left[:5]}"
    source = lesson.read_text(encoding="utf-8")
    html = "\n".join(rendered)
    # each dropdown a <details>, each list-table a table, headings kept
    assert html.count("<details") == source.count(".. dropdown::")
    assert html.count("<table") >= source.count(".. list-table::")
    shown = [
        plain(h.get_text().strip().rstrip("¶"))
        for h in soup_text(html).select("h1, h2, h3, h4")
    ]
    assert [h for h in source_headings(lesson) if h not in shown] == []
    # pages are linked by their published address
    for a in soup_text(html).select("a[href]"):
        assert a["href"].startswith(("https://", "http://", "#")), a


def _exercises(lesson) -> tuple[list[str], list[str]]:
    source = lesson.read_text(encoding="utf-8")
    return CHECK_DEF.findall(source), SOLUTION.findall(source)


EXERCISE_LESSONS = [p for p in LESSONS if _exercises(p)[0]]


def _hidden(cell) -> bool:
    return (
        cell.metadata.get("jupyter", {}).get("source_hidden") is True
        and cell.metadata.get("cellView") == "form"
        and cell.source.startswith("#@title ")
    )


@pytest.mark.parametrize("lesson", EXERCISE_LESSONS, ids=lesson_id)
def test_notebook_practice_does_not_spoil_itself(site, lesson):
    """Checks and solutions collapsed in Jupyter (``source_hidden``) and
    Colab (form view); after each task the attempt comes first."""
    checks, solutions = _exercises(lesson)
    cells = _notebook(site, lesson).cells
    check_cells = [c for c in cells if CHECK_DEF.search(c.source)]
    solution_cells = [
        c for c in cells if re.match(r"#@title Solution \d+", c.source)
    ]
    assert len(check_cells) == len(checks)
    assert len(solution_cells) == len(solutions)
    assert all(map(_hidden, check_cells + solution_cells))
    assert not [
        c for c in cells if c.cell_type == "code" and SOLUTION.search(c.source)
    ], "a solution cell that is not collapsed"
    for n in checks:
        task = next(
            i
            for i, c in enumerate(cells)
            if c.cell_type == "markdown"
            and re.match(rf"\*\*Exercise {n}\b", c.source)
        )
        attempt = next(c for c in cells[task + 1 :] if c.cell_type == "code")
        assert not _hidden(attempt), f"exercise {n}: a hidden cell first"
        assert f"check_exercise_{n}(" in attempt.source
        check = next(
            i
            for i, c in enumerate(cells)
            if c in check_cells and f"check_exercise_{n}(" in c.source
        )
        assert check < task, f"exercise {n}: its check comes after the task"


def test_practice_that_waits_moves_and_collapses():
    def cell(kind, source):
        return {"cell_type": kind, "metadata": {}, "source": [source]}

    cells = [
        cell("markdown", "## Exercises\n\nIntro.\n\n**Exercise 1: x.** Do."),
        cell("code", "import math\n\n\ndef check_exercise_1(fn):\n    pass"),
        cell("markdown", "Your attempt:"),
        cell("code", "def f():\n    return ...\n\n\ncheck_exercise_1(f)"),
        cell("code", "# Solution 1: x\ndef f():\n    return 1"),
    ]
    out = practice_that_waits(cells)
    kinds = [(c["cell_type"], "".join(c["source"])[:12]) for c in out]
    assert kinds == [
        ("markdown", "## Exercises"),
        ("code", "#@title Exer"),
        ("markdown", "**Exercise 1"),
        ("markdown", "Your attempt"),
        ("code", "def f():\n   "),
        ("code", "#@title Solu"),
    ]
    assert out[1]["metadata"]["jupyter"] == {"source_hidden": True}
    assert out[-1]["metadata"]["cellView"] == "form"
    assert "".join(out[-1]["source"]).startswith("#@title Solution 1: x\n")


# -- The .py download -------------------------------------------------------


def _guarded(tree: ast.Module, line: int) -> bool:
    """Whether ``line`` is in a top-level ``if RUN_SOLUTIONS:`` body."""
    return any(
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "RUN_SOLUTIONS"
        and node.lineno < line <= node.end_lineno
        for node in tree.body
    )


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_downloaded_script_is_the_learners(site, lesson):
    """No hidden blocks or build comments; valid Python; each solution only
    under ``if RUN_SOLUTIONS:`` with ``RUN_SOLUTIONS = False`` before it."""
    script = downloads(site, lesson)[".py"].read_text(encoding="utf-8")
    assert script == learner_script(lesson.read_text(encoding="utf-8"))
    assert "sphinx_gallery_" not in script
    tree = ast.parse(script)
    lines = script.splitlines()
    solutions = [
        i + 1 for i, x in enumerate(lines) if SOLUTION.match(x.strip())
    ]
    assert len(solutions) == len(_exercises(lesson)[1])
    unguarded = [n for n in solutions if not _guarded(tree, n)]
    assert not unguarded, f"solutions run by default at lines {unguarded}"
    if solutions:
        flag = [
            node
            for node in tree.body
            if isinstance(node, ast.Assign)
            and getattr(node.targets[0], "id", None) == "RUN_SOLUTIONS"
        ]
        assert len(flag) == 1 and flag[0].value.value is False
        assert flag[0].lineno < solutions[0]
    # the only top-level calls of a check are the learner's attempts
    calls = [
        node.value.func.id
        for node in tree.body
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and getattr(node.value.func, "id", "").startswith("check_exercise_")
    ]
    assert sorted(calls) == sorted(
        f"check_exercise_{n}" for n in _exercises(lesson)[0]
    )


def test_learner_script_guards_solutions_and_keeps_strings():
    source = (
        '"""\nT\n=\n"""\n\nx = 1\n# sphinx_gallery_start_ignore\n'
        "assert x == 1\n# sphinx_gallery_end_ignore\n\n"
        "# %%\n# Solutions\n# ---------\n\n# %%\n\n\n"
        '# Solution 1: s\ndef f():\n    """Two\nlines."""\n    return 1\n\n\n'
        "check_exercise_1(f)\n"
    )
    script = learner_script(source)
    namespace = {"check_exercise_1": lambda fn: print("correct")}
    exec(compile(script, "lesson.py", "exec"), namespace)
    assert namespace["RUN_SOLUTIONS"] is False and "f" not in namespace
    assert "assert" not in script and "sphinx_gallery" not in script
    namespace = {"check_exercise_1": lambda fn: None}
    exec(
        script.replace("RUN_SOLUTIONS = False", "RUN_SOLUTIONS = True"),
        namespace,
    )
    assert namespace["f"].__doc__ == "Two\nlines."


def test_zips_hold_the_learners_files(site):
    archives = {p.name: p for p in (site / "_downloads").glob("*/*.zip")}
    with zipfile.ZipFile(archives["lessons_python.zip"]) as python:
        for lesson in LESSONS:
            name = f"{lesson.parent.name}/{lesson.name}"
            text = python.read(name).decode("utf-8")
            assert text == learner_script(lesson.read_text(encoding="utf-8"))
    with zipfile.ZipFile(archives["lessons_jupyter.zip"]) as jupyter:
        for lesson in LESSONS:
            name = f"{lesson.parent.name}/{lesson.stem}.ipynb"
            nb = nbformat.read(io.BytesIO(jupyter.read(name)), as_version=4)
            assert not _hidden(nb.cells[0])
            assert not RST_LEFT.search(
                "".join(
                    c.source for c in nb.cells if c.cell_type == "markdown"
                )
            )


# -- No machine path, from a cold cache ------------------------------------

DATA_LESSON = '''"""
Data from a cold cache
======================

Fetches and unpacks a small zip, as the data lessons do.
"""

# %%
# Fetch
# -----
import pooch

tiny = pooch.create(
    path=pooch.os_cache("pbe-cold-cache-test"),
    base_url="",
    env="PBE_DATA_DIR",
    registry={{"tiny.zip": "sha256:{sha}"}},
    allow_updates=False,
)
files = tiny.fetch("tiny.zip", processor=pooch.Unzip())
print(f"{{len(files)}} file unpacked")
'''


LINK_LESSONS = {
    "basics/01_first.py": '"""\nFirst lesson\n============\n\nOne.\n"""\n'
    "\n# %%\n# Part\n# ----\n# See :ref:`sphx_glr_lessons_nn_01_second.py`"
    " and :func:`torch.load`.\n#\n# .. dropdown:: Older code\n#\n"
    "#    - ``Variable``: gone.\nprint(1)\n",
    "nn/01_second.py": '"""\nSecond lesson\n=============\n\nTwo.\n"""\n'
    "\nprint(2)\n",
}


@pytest.fixture(scope="module")
def small_site(tmp_path_factory):
    """A small project built from an empty data cache: a lesson that
    unzips data with pooch, and two that link each other."""
    import hashlib

    tmp = tmp_path_factory.mktemp("received")
    data = tmp / "data"
    data.mkdir()
    with zipfile.ZipFile(data / "tiny.zip", "w") as archive:
        archive.writestr("tiny/hello.txt", "hello\n")
    sha = hashlib.sha256((data / "tiny.zip").read_bytes()).hexdigest()
    lessons = {"data/01_cold.py": DATA_LESSON.format(sha=sha), **LINK_LESSONS}
    project = make_project(tmp / "project", lessons)
    cache = tmp / "cache"
    cache.mkdir()
    env = {
        **os.environ,
        "PBE_DATA_DIR": str(data),
        "XDG_CACHE_HOME": str(cache),
    }
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-b",
            "html",
            "-q",
            "-W",
            "--keep-going",
            str(project / "docs"),
            str(project / "html"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return tmp, project


def test_no_machine_path_on_a_page_from_a_cold_cache(small_site):
    """pooch unzips while the lesson runs, with an empty cache: its
    "Unzipping contents of ..." line names the build machine's folders,
    and must not reach the page."""
    tmp, project = small_site
    html = project / "html" / "lessons" / "data" / "01_cold.html"
    assert "1 file unpacked" in captured_output(html)
    assert (tmp / "data" / "tiny.zip.unzip").is_dir(), "nothing unzipped"
    text = html.read_text(encoding="utf-8")
    for leak in ("Unzipping", str(tmp), str(Path.home())):
        assert leak not in text, leak


def test_notebook_links_in_a_small_project(small_site):
    """A :ref: to another lesson becomes a link to its published page, a
    dropdown a <details>; an API role becomes code."""
    import tomllib

    _, project = small_site
    nb = json.loads(
        (project / "docs/lessons/basics/01_first.ipynb").read_text()
    )
    text = "\n".join("".join(c["source"]) for c in nb["cells"])
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    published = meta["urls"]["Documentation"].rstrip("/")
    page_url = f"{published}/{meta['version']}/lessons/nn/01_second.html"
    assert f"[Second lesson]({page_url})" in text
    assert "`torch.load`" in text
    assert "<details>\n<summary>Older code</summary>" in text
    assert not RST_LEFT.search(text)


def test_api_roles_link_where_intersphinx_knows_them():
    """Online builds link API names as the page does (intersphinx);
    offline, or for names no inventory holds, they are plain code."""
    from types import SimpleNamespace

    from pbe.notebook import api_links, to_markdown

    item = ("PyTorch", "2", "https://docs.example/torch.load.html", "-")
    roles = {"func": ["function"], "class": ["class", "exception"]}
    app = SimpleNamespace(
        env=SimpleNamespace(
            intersphinx_inventory={"py:function": {"torch.load": item}},
            domains=SimpleNamespace(
                python_domain=SimpleNamespace(
                    objtypes_for_role=lambda role: roles.get(role, [])
                )
            ),
        )
    )
    links = {"refs": {}, "api": api_links(app)}
    assert links["api"] == {"func:torch.load": item[2]}
    text = ":func:`torch.load` and :class:`~torch.utils.data.Dataset`"
    (markdown,) = to_markdown([text], links)
    assert markdown == f"[`torch.load`]({item[2]}) and `Dataset`"
