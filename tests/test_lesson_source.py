"""The rules' own reader: what a page shows of a lesson's source."""

from __future__ import annotations

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "docs" / "_ext"))
from pbe.lesson_source import Lesson  # noqa: E402
from pbe.stamp import count_checks  # noqa: E402

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
