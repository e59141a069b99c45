"""Exercises check themselves: no check is vacuous, none is missing.

A lesson's check (``def check_exercise_<N>(fn)`` or ``(answer)``) must
answer the untouched starter gently ("not attempted yet", no error) and
reject each plausible mistake listed here with a message. The build runs every
solution through its check, so a wrong solution fails the build; the page
collapses it (``test_solutions_are_collapsed_on_the_page``).
"""

from __future__ import annotations

import ast
import re

import pytest
from conftest import LESSONS, ROOT, lesson_id, page, soup
from exercise_mistakes import MISTAKES, VARIANTS

# The home page's route: each of its lessons ends with 2-3 exercises.
ROUTE = re.findall(
    r"^   (\w+/\w+)$",
    re.search(
        r"^\.\. pbe-path::\n\n((?:   .*\n)+)",
        (ROOT / "docs" / "index.rst").read_text(),
        re.M,
    )[1],
    re.M,
)
# Route lessons whose exercises are still to be written.
PENDING: set[str] = set()


def _checks(lesson):
    tree = ast.parse(lesson.read_text(encoding="utf-8"))
    imports = [
        n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))
    ]
    return imports, [
        n
        for n in tree.body
        if isinstance(n, ast.FunctionDef)
        and n.name.startswith("check_exercise_")
    ]


CHECKS = [
    pytest.param(lesson, check.name, id=f"{lesson_id(lesson)}:{check.name}")
    for lesson in LESSONS
    for check in _checks(lesson)[1]
]


@pytest.mark.parametrize(
    "lesson",
    [
        pytest.param(
            ROOT / "gallery" / f"{name}.py",
            id=name,
            marks=[pytest.mark.xfail(reason="exercises to write")]
            if name in PENDING
            else [],
        )
        for name in ROUTE
    ],
)
def test_route_lessons_end_with_exercises(lesson):
    checks = _checks(lesson)[1]
    assert 2 <= len(checks) <= 3, f"{lesson.name}: {len(checks)} exercises"


@pytest.mark.parametrize(("lesson", "name"), CHECKS)
def test_check_rejects_the_starter_and_plausible_mistakes(
    lesson, name, capsys
):
    imports, checks = _checks(lesson)
    check = next(c for c in checks if c.name == name)
    namespace: dict = {}
    module = ast.Module(body=[*imports, check], type_ignores=[])
    exec(compile(module, str(lesson), "exec"), namespace)
    run = namespace[name]
    takes = check.args.args[0].arg
    assert takes in {"fn", "answer"}, f"{name}'s argument is {takes!r}"

    run(_starter(lesson, name, namespace))
    assert "not attempted yet" in capsys.readouterr().out

    key = (lesson_id(lesson), name)
    mistakes = MISTAKES.get(key, [])
    assert mistakes, f"list plausible mistakes for {name} in MISTAKES"
    for source, words in mistakes:
        with pytest.raises(AssertionError) as caught:
            run(_answer(source, namespace))
        message = str(caught.value).strip()
        assert message, f"{source}: a bare AssertionError"
        if words is not None:
            assert words.lower() in message.lower(), (
                f"{source}: the message {message!r} should say {words!r}"
            )
    capsys.readouterr()
    for source in VARIANTS.get(key, []):
        run(_answer(source, namespace))  # a correct variant must pass
        out = capsys.readouterr().out
        assert "correct" in out and "not attempted" not in out, (
            f"{source}: a correct answer was not accepted ({out!r})"
        )


def _starter(lesson, name: str, namespace: dict):
    """What the lesson first passes to the check: the untouched starter.

    The first top-level ``check_exercise_N(x)`` call names it; its last
    definition before that call (a ``def``, ``class`` or assignment) is
    run where the lesson's imports are.
    """
    tree = ast.parse(lesson.read_text(encoding="utf-8"))
    for i, node in enumerate(tree.body):
        call = getattr(node, "value", None)
        if (
            isinstance(node, ast.Expr)
            and isinstance(call, ast.Call)
            and getattr(call.func, "id", None) == name
        ):
            break
    else:
        raise AssertionError(f"{lesson.name} never calls {name}")
    arg = call.args[0]
    if not isinstance(arg, ast.Name):  # a literal starter, such as ...
        return eval(compile(ast.Expression(arg), str(lesson), "eval"))
    for node in reversed(tree.body[:i]):
        targets = getattr(node, "targets", [])
        if getattr(node, "name", None) == arg.id or any(
            getattr(t, "id", None) == arg.id for t in targets
        ):
            scope = dict(namespace)
            module = ast.Module(body=[node], type_ignores=[])
            exec(compile(module, str(lesson), "exec"), scope)
            return scope[arg.id]
    raise AssertionError(f"{lesson.name}: no starter {arg.id} before {name}")


def _answer(source: str, namespace: dict):
    """An expression's value, or the ``answer`` that statements define."""
    try:
        return eval(source, dict(namespace))
    except SyntaxError:
        scope = dict(namespace)
        exec(source, scope)
        return scope["answer"]


@pytest.mark.parametrize(
    "lesson", sorted({p.values[0] for p in CHECKS}), ids=lesson_id
)
def test_solutions_are_collapsed_on_the_page(site, lesson):
    html = soup(page(site, lesson))
    solutions = html.select("details.pbe-solution")
    assert len(solutions) == len(_checks(lesson)[1])
    for details in solutions:
        assert not details.has_attr("open")
        assert "correct" in details.get_text()
    # each check collapsed too, between its task and the attempt
    checks = html.select("details.pbe-check")
    assert len(checks) == len(_checks(lesson)[1])
    for details in checks:
        assert not details.has_attr("open")
        assert "def check_exercise_" in details.get_text()
