"""The rules' own reader: what a page shows of a lesson's source."""

from __future__ import annotations

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from pbe import lesson_source  # noqa: E402
from pbe.lesson_source import Lesson, count_checks  # noqa: E402

SOURCE = '''"""
Title
=====

One two three four five.
"""

# %%
# Words in a cell
# ---------------
x = 1
try:
    x / 0
except ZeroDivisionError as err:
    print(f"raised ZeroDivisionError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("no error")
assert x == 1
# sphinx_gallery_end_ignore

# %%
# Going deeper
# ------------
# Later words.
y = 2
'''


def _lesson(tmp_path, source: str) -> Lesson:
    path = tmp_path / "01_lesson.py"
    path.write_text(source)
    return Lesson.read(path)


def test_hidden_checks_are_not_shown_and_count(tmp_path):
    lesson = _lesson(tmp_path, SOURCE)
    assert lesson.hidden_non_checks() == []
    assert lesson.visible_check_lines() == 0
    assert count_checks(SOURCE) == 1
    # a check call inside an assert counts once; one outside counts too
    both = SOURCE.replace(
        "assert x == 1",
        "assert torch.testing.assert_close(x, 1) is None\n"
        "torch.testing.assert_close(x, 1)",
    )
    assert count_checks(both) == 2


def test_checks_in_an_if_branch_are_told_apart(tmp_path):
    branched = SOURCE.replace(
        "assert x == 1", "if x:\n    assert x == 1\nelse:\n    assert x == 0"
    )
    lesson = _lesson(tmp_path, branched)
    assert len(lesson.checks()) == 2 and lesson.checks_in_branches() == 2
    # a shown error's except always runs: not a branch a run may skip
    assert _lesson(tmp_path, SOURCE).checks_in_branches() == 0


def test_cells_hold_the_visible_code_lines(tmp_path):
    lesson = _lesson(tmp_path, SOURCE)
    lines = [[lesson.line(n) for n in cell] for cell in lesson.cells]
    # nothing before the first cell; the hidden block is not shown
    assert lines[0] == []
    assert lines[1][0] == "x = 1" and lines[1][-1].startswith("    print(")
    assert lines[2] == ["y = 2"]
    assert sum(map(len, lesson.cells)) == len(lesson.code)


def test_hidden_code_that_is_not_a_check_is_named(tmp_path):
    source = SOURCE.replace("assert x == 1", "x = 2")
    bad = _lesson(tmp_path, source).hidden_non_checks()
    assert len(bad) == 1 and "x = 2" in bad[0]


def test_core_ends_at_going_deeper(tmp_path):
    lesson = _lesson(tmp_path, SOURCE)
    # 12 prose words (docstring and the first heading with its rule) and
    # 5 visible code lines come before "Going deeper".
    assert lesson.core_end == SOURCE.splitlines().index("# Going deeper") + 1
    assert lesson.core_minutes() == 2  # ceil(12 / 120 + 5 / 5)
    longer = SOURCE.replace("y = 2\n", "y = 2\n" * 30)
    assert _lesson(tmp_path, longer).core_minutes() == 2


def test_the_report_marks_a_core_over_the_budget(tmp_path):
    long = SOURCE.replace("One two three", "word " * 120 * 31)
    path = tmp_path / "02_long.py"
    path.write_text(long)
    report = lesson_source.report([str(path)])
    assert "over the 30-minute budget" in report
    assert "over the" not in lesson_source.report(
        [str(_lesson(tmp_path, SOURCE).path)]
    )
