"""The house rules over every lesson's source (CONTRIBUTING.md).

Their limits live in one place, ``docs/_ext/pbe/lesson_source.py``, which
also computes what the page shows: visible code, hidden checks and the
core's reading time. These tests read sources only; no built site needed.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from conftest import LESSONS, ROOT, lesson_id

sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from pbe import lesson_source as rules  # noqa: E402
from pbe.lesson_source import Lesson  # noqa: E402

# Format and lint (ruff, with its banned-API rule TID251), and the workflow
# linters, run apart from the tests: `nox -s lint` and pre-commit.


# --------------------------------------------------------------------------
# The learner's shape


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_sphinx_gallery_reads_every_hidden_block(lesson):
    """A hidden block sits in one code cell (not in the prose before it)."""
    from sphinx_gallery import py_source_parser

    _, blocks = py_source_parser.split_code_and_text_blocks(str(lesson))
    for block in blocks:
        if block.type == "code":
            py_source_parser.remove_ignore_blocks(block.content)
        else:
            assert rules.START not in block.content, (
                f"{lesson.name}, line {block.lineno}: a hidden block right "
                "after prose is prose; put a blank line before it"
            )


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_hidden_blocks_hold_only_checks(lesson):
    """The notebook lacks hidden code: it may only check, never compute."""
    bad = Lesson.read(lesson).hidden_non_checks()
    assert not bad, f"{lesson.name}: hidden code that is not a check: {bad}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_lesson_is_in_the_learners_shape(lesson):
    """Proof out of the way, a core that is not far over its budget (the
    budget itself is reported by the build and lesson_source.py, not
    enforced here), a frame."""
    read = Lesson.read(lesson)
    problems = []
    share = read.visible_check_lines() / len(read.code)
    if share > rules.MAX_ASSERT_SHARE:
        problems.append(
            f"{share:.0%} of its visible code lines are checks (at most "
            f"{rules.MAX_ASSERT_SHARE:.0%}): hide those that only prove the "
            "page true"
        )
    minutes = read.core_minutes()
    if minutes > rules.CORE_MINUTES_LIMIT:
        problems.append(
            f"its core takes {minutes} minutes to read, far over the "
            f"{rules.CORE_MINUTES_BUDGET}-minute budget (the limit is "
            f"{rules.CORE_MINUTES_LIMIT}): move expert material under "
            f"'{rules.DEEPER}', or split the lesson"
        )
    source = read.source
    doc = ast.get_docstring(ast.parse(source)) or ""
    for part, found in [
        ("**You will learn**", "**You will learn**" in doc),
        ("**You need first**", "**You need first**" in doc),
        ("a Takeaways section", "# Takeaways\n# ---------" in source),
        ("a 'Next,' line", re.search(r"^# Next, .*", source, re.M)),
    ]:
        if not found:
            problems.append(f"it lacks {part}")
    assert not problems, f"{lesson.name}: " + "; ".join(problems)


def test_proof_stays_out_of_the_readers_way_site_wide():
    lessons = [Lesson.read(p) for p in LESSONS]
    checks = sum(lesson.visible_check_lines() for lesson in lessons)
    code = sum(len(lesson.code) for lesson in lessons) or 1
    assert checks / code <= rules.MAX_SITE_ASSERT_SHARE, (
        f"{checks / code:.1%} of the site's visible code lines are checks"
    )


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_old_code_gathers_in_one_box(lesson):
    source = lesson.read_text(encoding="utf-8")
    assert source.count(".. dropdown:: Coming from older PyTorch") <= 1, (
        f"{lesson.name}: old idioms belong in the one dropdown box"
    )


# --------------------------------------------------------------------------
# Form


def _cells(lesson: Path) -> list[list[str]]:
    """The visible code lines of each ``# %%`` cell, as the page shows
    them (``Lesson``: hidden blocks, blank and config lines dropped)."""
    read = Lesson.read(lesson)
    return [[read.line(n) for n in cell] for cell in read.cells]


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_cells_are_short(lesson):
    """A reader takes in a cell at a glance."""
    cells = _cells(lesson)
    # an exercise's check is a tool the learner runs, not reads line by line
    sizes = [
        len(c)
        for c in cells
        if not any(line.startswith("def check_exercise_") for line in c)
    ]
    long = [n for n in sizes if n > rules.MAX_CELL]
    assert not long, f"{lesson.name}: cells of {long} code lines"


# A call that makes or fills a figure.
DRAWS = re.compile(
    r"\bplt\.(subplots|figure|plot|imshow|bar|barh|hist|scatter|subplot)\("
)


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_figure_cells_end_with_plt_show(lesson):
    """The downloaded script shows each figure only if the cell shows it."""
    for cell in _cells(lesson):
        draws = [i for i, line in enumerate(cell) if DRAWS.search(line)]
        if draws:
            assert cell[-1].strip() == "plt.show()", (
                f"{lesson.name}: a cell that draws ends with {cell[-1]!r}"
            )
            # the page shows a cell's figures above its printed text
            printed = [i for i, ln in enumerate(cell) if "print(" in ln]
            assert not printed or printed[0] > draws[0], (
                f"{lesson.name}: a cell prints, then draws; the page would "
                "show the figure above that text (print in the cell before)"
            )


# --------------------------------------------------------------------------
# Practice readers may copy


FORBIDDEN = {
    "a private torch API": re.compile(r"\btorch\._[a-z]"),
    "a note about when the lesson was written": re.compile(
        r"when this lesson was written", re.IGNORECASE
    ),
    "a forced start method": re.compile(
        r"multiprocessing_context\s*=\s*['\"]"
    ),
    "a launch hack": re.compile(r"__main__\.__file__"),
    "a device and float64 cast in one call (MPS cannot)": re.compile(
        r"\.to\([^()]*(cpu|device)[^()]*,\s*(torch\.)?(float64|double)"
    ),
}


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_lesson_uses_only_practice_readers_should_copy(lesson):
    source = lesson.read_text(encoding="utf-8")
    found = [name for name, rx in FORBIDDEN.items() if rx.search(source)]
    assert not found, f"{lesson.name} contains {', '.join(found)}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_device_comes_from_torch_accelerator(lesson):
    source = lesson.read_text(encoding="utf-8")
    per_rank = "import torch.distributed" in source  # each rank its own GPU
    if re.search(r"\.to\(device\b|device=device\b", source) and not per_rank:
        assert "torch.accelerator" in source, (
            f"{lesson.name} picks a device without torch.accelerator"
        )


def _cuda_guard(test: ast.expr) -> bool:
    """``<x>.type == "cuda"`` or ``torch.cuda.is_available()`` in a test."""
    for node in ast.walk(test):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.comparators[0], ast.Constant)
            and node.comparators[0].value == "cuda"
        ):
            return True
        if isinstance(node, ast.Attribute) and node.attr in QUERIES:
            inner = node.value
            if isinstance(inner, ast.Attribute) and inner.attr == "cuda":
                return True
    return False


# Questions any build may ask: they answer False or 0 without CUDA.
QUERIES = {"is_available", "device_count"}


def _unguarded_cuda(tree: ast.AST) -> list[int]:
    """Lines using ``torch.cuda.*`` outside a CUDA-only branch."""
    bad: list[int] = []

    def visit(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, (ast.If, ast.IfExp)) and _cuda_guard(node.test):
            body = node.body if isinstance(node.body, list) else [node.body]
            for child in body:
                visit(child, True)
            orelse = (
                node.orelse if isinstance(node.orelse, list) else [node.orelse]
            )
            for child in orelse:
                visit(child, guarded)
            return
        if isinstance(node, ast.Attribute) and node.attr in QUERIES:
            return
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "cuda"
            and isinstance(node.value, ast.Name)
            and node.value.id == "torch"
            and not guarded
        ):
            bad.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, guarded)

    visit(tree, False)
    return bad


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_cuda_only_apis_are_guarded(lesson):
    """``torch.cuda.*`` runs only where the device is CUDA; the generic
    ``torch.accelerator`` API serves every other use."""
    tree = ast.parse(lesson.read_text(encoding="utf-8"))
    lines = _unguarded_cuda(tree)
    assert not lines, (
        f"{lesson.name}: torch.cuda outside a CUDA branch at {lines}"
    )


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_shown_errors_fail_when_nothing_is_raised(lesson):
    """A ``try`` that shows an error has an ``else`` that raises."""
    tree = ast.parse(lesson.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            "raised" in ast.unparse(h) for h in node.handlers
        ):
            assert node.orelse and isinstance(node.orelse[-1], ast.Raise), (
                f"{lesson.name}, line {node.lineno}: a shown error needs "
                "else: raise AssertionError(...)"
            )


# Code that starts processes: DataLoader workers, torch.multiprocessing,
# torch.distributed, a launched script. Such lessons cannot run inside a
# joblib worker of a parallel build, so they run alone.
STARTS_PROCESSES = re.compile(
    r"""num_workers["']?\s*[=:]\s*(?!0\b)"""
    r"""|^\s*import torch\.(multiprocessing|distributed)\b"""
    r"""|\bsubprocess\.(run|Popen)\(""",
    re.MULTILINE,
)


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_lessons_that_start_processes_run_alone(lesson):
    source = lesson.read_text(encoding="utf-8")
    code = "\n".join(
        ln for ln in source.splitlines() if not ln.lstrip().startswith("#")
    )
    marked = re.search(r"^# sphinx_gallery_parallel = False$", source, re.M)
    assert bool(STARTS_PROCESSES.search(code)) == bool(marked), (
        f"{lesson.name}: a lesson that starts processes needs "
        "'# sphinx_gallery_parallel = False', and only such a lesson"
    )


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_tags_name_a_level_first(lesson):
    match = re.search(
        r"^# sphinx_gallery_tags = \[\"(\w+)\"", lesson.read_text(), re.M
    )
    assert match, f"{lesson.name}: no # sphinx_gallery_tags = [...] line"
    assert match[1] in {"beginner", "intermediate", "advanced"}
