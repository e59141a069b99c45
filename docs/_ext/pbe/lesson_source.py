"""What a reader sees of a lesson's source, and the house rules over it.

One place for the rules every lesson follows (CONTRIBUTING.md states them):
the tests, the page frame and the command line read them from here.

    python docs/_ext/pbe/lesson_source.py gallery/basics/*.py

prints, per lesson, its visible code lines, visible check lines, core
reading minutes (marked when over the budget) and any hidden code that is
not a check. The build lists the lessons over the budget too (``frame``).
"""

from __future__ import annotations

import ast
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

# The house rules, each in one place.
MAX_WIDTH = 79  # characters a line; the lesson column fits 79 at 1280 px
MAX_CELL = 25  # code lines in one `# %%` cell (aim for 5-20)
# Reading time of a lesson's core: the budget is reported (the CLI, the
# build's log), not enforced to the minute, so a needed sentence never fails
# CI; only a core half as long again fails the tests (a second lesson hides
# in it: split it, or move expert material under "Going deeper").
CORE_MINUTES_BUDGET = 30
CORE_MINUTES_LIMIT = 45
MAX_ASSERT_SHARE = 0.10  # visible check lines / visible code lines, a lesson
MAX_SITE_ASSERT_SHARE = 0.05  # the same over the whole site
# Reading speeds, calibrated on a newcomer's measured times (CONTRIBUTING).
WORDS_PER_MINUTE = 120  # technical prose, studied rather than skimmed
CODE_LINES_PER_MINUTE = 5  # a line of code and its output: 12 seconds
DEEPER = "Going deeper"  # the heading that ends a lesson's core
EXERCISES = "Exercises"  # practice after the core (and after Going deeper)
# Calls that count as a check, besides ``assert`` statements.
CHECK_CALLS = frozenset({"assert_close", "gradcheck", "gradgradcheck"})

START, END = "# sphinx_gallery_start_ignore", "# sphinx_gallery_end_ignore"
_CONFIG = re.compile(r"^\s*# sphinx_gallery_\w+")


@dataclass
class Lesson:
    """A lesson's source, split the way its page shows it."""

    path: Path
    source: str
    hidden: set[int] = field(default_factory=set)  # 1-based line numbers
    prose: list[tuple[int, str]] = field(default_factory=list)
    code: list[int] = field(default_factory=list)  # visible code lines
    # the visible code lines of each `# %%` cell (the first: before any)
    cells: list[list[int]] = field(default_factory=lambda: [[]])

    @classmethod
    def read(cls, path: Path | str) -> Lesson:
        path = Path(path)
        lesson = cls(path, path.read_text(encoding="utf-8"))
        lesson._split()
        return lesson

    def _split(self) -> None:
        lines = self.source.splitlines()
        tree = ast.parse(self.source)
        doc = tree.body[0] if tree.body else None
        doc_end = 0
        if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant):
            doc_end = doc.end_lineno
            self.prose.append((1, ast.get_docstring(tree) or ""))
        inside = in_text = False
        for n, line in enumerate(lines, 1):
            if n <= doc_end:
                continue
            stripped = line.strip()
            if stripped == START:
                inside = True
            if inside:
                self.hidden.add(n)
                if stripped == END:
                    inside = False
                continue
            if line.startswith("# %%"):
                in_text = True
                self.cells.append([])
                continue
            if in_text and line.startswith("#"):
                self.prose.append((n, line[2:] if len(line) > 1 else ""))
                continue
            in_text = False
            if stripped and not _CONFIG.match(line):
                self.code.append(n)
                self.cells[-1].append(n)

    @property
    def core_end(self) -> int:
        """The line of the first "Going deeper" or "Exercises" heading."""
        for (n, title), (_, rule) in zip(self.prose, self.prose[1:]):
            heading = set(rule.strip()) == {"-"}
            if title.strip() in (DEEPER, EXERCISES) and heading:
                return n
        return len(self.source.splitlines()) + 1

    def core_minutes(self) -> int:
        """Minutes to read the core: prose words and visible code lines."""
        end = self.core_end
        words = sum(len(t.split()) for n, t in self.prose if n < end)
        code = sum(1 for n in self.code if n < end)
        return math.ceil(
            words / WORDS_PER_MINUTE + code / CODE_LINES_PER_MINUTE
        )

    def line(self, n: int) -> str:
        return self.source.splitlines()[n - 1]

    def over_budget(self) -> bool:
        return self.core_minutes() > CORE_MINUTES_BUDGET

    def imports(self) -> set[str]:
        """Every module an ``import`` statement names, dotted, anywhere."""
        names: set[str] = set()
        for node in ast.walk(ast.parse(self.source)):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                names.add(node.module or "")
        return names

    def checks(self) -> list[range]:
        """The line span of each check: an ``assert`` statement, or a check
        call (``assert_close``, ``gradcheck``...) not inside an ``assert``
        (the two count once). Hidden checks count too."""
        tree = ast.parse(self.source)
        asserts = [n for n in ast.walk(tree) if isinstance(n, ast.Assert)]
        inside = {id(sub) for a in asserts for sub in ast.walk(a)}
        calls = [
            n
            for n in ast.walk(tree)
            if _is_check_call(n) and id(n) not in inside
        ]
        return sorted(
            (range(n.lineno, n.end_lineno + 1) for n in asserts + calls),
            key=lambda r: r.start,
        )

    def check_lines(self) -> set[int]:
        """Lines of ``assert`` statements and check calls."""
        return {n for span in self.checks() for n in span}

    def checks_in_branches(self) -> int:
        """Checks inside an ``if`` or ``else`` branch: a run may skip them
        (a CUDA-only branch on a CPU). A shown error's ``except`` always
        runs (its ``else`` raises), so it is no such branch."""
        branches: set[int] = set()
        for node in ast.walk(ast.parse(self.source)):
            if isinstance(node, ast.If):
                for stmt in node.body + node.orelse:
                    branches.update(range(stmt.lineno, stmt.end_lineno + 1))
        return sum(1 for span in self.checks() if span.start in branches)

    def visible_check_lines(self) -> int:
        return len(self.check_lines() & set(self.code))

    def hidden_non_checks(self) -> list[str]:
        """Hidden statements that are not checks (the notebook lacks them)."""
        bad: list[str] = []
        _walk(ast.parse(self.source).body, self.hidden, bad)
        return bad


def _is_check_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = getattr(func, "attr", None) or getattr(func, "id", None)
    return name in CHECK_CALLS


def _only_checks(stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.Assert, ast.Raise, ast.Pass)):
        return True
    if isinstance(stmt, ast.Expr):
        return _is_check_call(stmt.value)
    if isinstance(stmt, (ast.If, ast.For, ast.With)):
        body = stmt.body + getattr(stmt, "orelse", [])
        return all(_only_checks(s) for s in body)
    return False


def _walk(body: list[ast.stmt], hidden: set[int], bad: list[str]) -> None:
    for stmt in body:
        lines = set(range(stmt.lineno, stmt.end_lineno + 1))
        if lines <= hidden:
            if not _only_checks(stmt):
                bad.append(f"line {stmt.lineno}: {ast.unparse(stmt)[:60]}")
            continue
        for name in ("body", "orelse", "finalbody", "handlers"):
            children = getattr(stmt, name, [])
            _walk(
                [c for c in children if isinstance(c, ast.stmt)]
                + [
                    s
                    for h in children
                    if isinstance(h, ast.ExceptHandler)
                    for s in h.body
                ],
                hidden,
                bad,
            )


def count_checks(source: str) -> int:
    """How many checks a lesson's source holds (``Lesson.checks``)."""
    return len(Lesson(Path("<source>"), source).checks())


def report(paths: list[str]) -> str:
    rows = ["lesson                                code  checks  share  min"]
    for path in paths:
        lesson = Lesson.read(path)
        code, checks = len(lesson.code), lesson.visible_check_lines()
        share = checks / code if code else 0
        name = f"{Path(path).parent.name}/{Path(path).stem}"
        rows.append(
            f"{name:<37} {code:>4}  {checks:>6}  {share:>5.1%}  "
            f"{lesson.core_minutes():>3}"
            + (
                f"  over the {CORE_MINUTES_BUDGET}-minute budget"
                if lesson.over_budget()
                else ""
            )
        )
        rows += [
            f"    hidden non-check {b}" for b in lesson.hidden_non_checks()
        ]
    return "\n".join(rows)


if __name__ == "__main__":
    print(report(sys.argv[1:]))
