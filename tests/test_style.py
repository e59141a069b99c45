"""House style of the sources: formatting, page width, figures, practice.

These read the source tree only; they need no built site.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import LESSONS, ROOT, lesson_id

MAX_WIDTH = 79  # the lesson column shows about 72 characters of code
MAX_LINES = 350  # a lesson is read in one sitting
MAX_CELL = 25  # code lines per `# %%` cell (aim for 5-20)
# The one study allowed to be longer: each speed and accuracy idea of the
# fast CIFAR-10 recipe comes with its own measured before/after line.
LONGER = {"advanced/09_cifar10_fast_cpu": 399}


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def test_ruff_format_leaves_everything_unchanged():
    proc = _ruff("format", "--check", "--diff", ".")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


def test_ruff_check_finds_nothing():
    proc = _ruff("check", "--output-format", "concise", ".")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_lesson_fits_the_page(lesson):
    lines = lesson.read_text(encoding="utf-8").splitlines()
    wide = [
        f"line {n}: {len(line)} characters"
        for n, line in enumerate(lines, 1)
        if len(line) > MAX_WIDTH
    ]
    assert not wide, f"{lesson.name}: " + "; ".join(wide)
    limit = LONGER.get(lesson_id(lesson), MAX_LINES)
    assert len(lines) <= limit, f"{lesson.name}: {len(lines)} lines"


# A call that makes or fills a figure.
DRAWS = re.compile(
    r"\bplt\.(subplots|figure|plot|imshow|bar|barh|hist|scatter|subplot)\("
)


def _cells(source: str) -> list[list[str]]:
    """The code lines of each ``# %%`` cell (comments and blanks dropped)."""
    cells: list[list[str]] = [[]]
    for line in source.splitlines():
        if line.startswith("# %%"):
            cells.append([])
        elif line.strip() and not line.lstrip().startswith("#"):
            cells[-1].append(line)
    return cells


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_cells_are_short(lesson):
    """A reader takes in a cell at a glance: never over 25 code lines."""
    sizes = [len(cell) for cell in _cells(lesson.read_text(encoding="utf-8"))]
    long = [n for n in sizes if n > MAX_CELL]
    assert not long, f"{lesson.name}: cells of {long} code lines"


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_figure_cells_end_with_plt_show(lesson):
    """The downloaded script shows each figure only if the cell shows it."""
    source = lesson.read_text(encoding="utf-8")
    for cell in _cells(source):
        if any(DRAWS.search(line) for line in cell):
            assert cell[-1].strip() == "plt.show()", (
                f"{lesson.name}: a cell that draws ends with {cell[-1]!r}, "
                "not plt.show()"
            )


# Practice readers must not copy, and notes about our machines.
FORBIDDEN = {
    "a private torch API": re.compile(r"\btorch\._[a-z]"),
    "file-descriptor redirection": re.compile(r"\bdup2\b"),
    "a note about when the lesson was written": re.compile(
        r"when this lesson was written", re.IGNORECASE
    ),
    "a forced fork start method": re.compile(
        r"multiprocessing_context\s*=\s*['\"]fork"
    ),
    "a launch hack": re.compile(r"__main__\.__file__"),
}


@pytest.mark.parametrize("lesson", LESSONS, ids=lesson_id)
def test_lesson_uses_only_practice_readers_should_copy(lesson):
    source = lesson.read_text(encoding="utf-8")
    found = [name for name, rx in FORBIDDEN.items() if rx.search(source)]
    assert not found, f"{lesson.name} contains {', '.join(found)}"
