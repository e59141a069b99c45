"""advanced/01-04: the claims of issue 13 and code that is right on any device.

The source checks need no built site; the output checks read the built pages
(``nox -s docs`` first).
"""

from __future__ import annotations

import ast
import re

import pytest
from conftest import ROOT, captured_output, page

ADVANCED = ROOT / "gallery" / "advanced"
EDITED = [
    "01_lstm",
    "02_devices",
    "03_gpu_performance",
    "04_for_lua_torch_users",
]
REF = re.compile(r":ref:`sphx_glr_lessons_(\w+?)_(\d\d_\w+)\.py`")


def _source(stem: str) -> str:
    return (ADVANCED / f"{stem}.py").read_text(encoding="utf-8")


def _is_cuda_guard(test: ast.expr) -> bool:
    """True for a condition containing ``<x>.type == "cuda"``."""
    for node in ast.walk(test):
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Attribute)
            and node.left.attr == "type"
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.Eq)
            and isinstance(node.comparators[0], ast.Constant)
            and node.comparators[0].value == "cuda"
        ):
            return True
    return False


def _cuda_calls_outside_guards(tree: ast.AST) -> list[int]:
    """Lines of ``torch.cuda.*`` uses not inside an ``if ... == "cuda"``."""
    bad: list[int] = []

    def visit(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, ast.If) and _is_cuda_guard(node.test):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, guarded)
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


@pytest.mark.parametrize("stem", EDITED)
def test_lesson_exists_and_is_short(stem):
    lines = _source(stem).splitlines()
    assert len(lines) <= 350, f"{stem}: {len(lines)} lines"


@pytest.mark.parametrize("stem", EDITED)
def test_device_comes_from_torch_accelerator(stem):
    source = _source(stem)
    assert "torch.accelerator.current_accelerator()" in source
    assert "torch.cuda.is_available()" not in source
    assert ".cuda()" not in "\n".join(
        line for line in source.splitlines() if not line.startswith("#")
    )


@pytest.mark.parametrize("stem", EDITED)
def test_cuda_only_apis_are_guarded(stem):
    bad = _cuda_calls_outside_guards(ast.parse(_source(stem)))
    assert not bad, f"{stem}: torch.cuda used unguarded on lines {bad}"


@pytest.mark.parametrize("stem", EDITED)
def test_every_try_has_an_else_that_raises(stem):
    for node in ast.walk(ast.parse(_source(stem))):
        if isinstance(node, ast.Try) and node.handlers:
            raises = [n for n in node.orelse if isinstance(n, ast.Raise)]
            # try/finally (restoring global state) has no handlers
            assert raises, f"{stem}: try on line {node.lineno} lacks else"
            for handler in node.handlers:
                assert isinstance(handler.type, ast.Name), (
                    f"{stem}: line {handler.lineno} must catch one exact type"
                )


@pytest.mark.parametrize("stem", EDITED)
def test_no_hasattr_trivia(stem):
    assert "hasattr(" not in _source(stem)


def test_mixed_precision_dtype_follows_capability_not_emulation():
    source = _source("03_gpu_performance")
    code = "\n".join(
        line for line in source.splitlines() if not line.startswith("#")
    )
    assert "is_bf16_supported(" not in code
    assert "capability >= (8, 0)" in code
    assert "GradScaler(" in code and "avx512_bf16" in code
    assert "reset_peak_memory_stats()" in code
    assert ".query()" in code and "queued_ms < waited_ms" not in code


@pytest.mark.parametrize("stem", EDITED)
def test_links_use_final_names(stem):
    for section, target in REF.findall(_source(stem)):
        assert (ROOT / "gallery" / section / f"{target}.py").is_file(), (
            f"{stem} links to missing {section}/{target}"
        )


def _output(site, stem: str) -> str:
    return captured_output(page(site, ADVANCED / f"{stem}.py"))


def test_lstm_page_shows_the_unbatched_state_error(site):
    out = _output(site, "01_lstm")
    assert (
        "raised RuntimeError: For unbatched 2-D input, hx and cx should "
        "also be 2-D" in out
    )


def test_lua_page_shows_which_legacy_constructors_share(site):
    out = _output(site, "04_for_lua_torch_users")
    shares = re.findall(r"sees the write: (True|False)", out)
    assert shares == ["True", "True", "False"]
    assert "during the matmul True" in out
    assert "during the Python loop False" in out


def test_gpu_performance_page_names_its_path(site):
    out = _output(site, "03_gpu_performance")
    assert "path taken on" in out
    assert "Running on:" in out
