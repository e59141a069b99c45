"""The basics lessons 01-04: length, house rules, and the claims of issue 12.

The source checks need no built site; the output checks read the built pages
(``nox -s docs`` first).
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, captured_output, page

BASICS = ROOT / "gallery" / "basics"
EDITED = [
    "01_tensors",
    "02_numpy_warmup",
    "03_tensor_backprop",
    "04_autograd",
]
TORCH = ["01_tensors", "03_tensor_backprop", "04_autograd"]  # 02 is NumPy
REF = re.compile(r":ref:`(sphx_glr_lessons_(\w+?)_(\d\d_\w+)\.py)`")


def _source(stem: str) -> str:
    return (BASICS / f"{stem}.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("stem", EDITED)
def test_house_rules(stem):
    source = _source(stem)
    assert len(source.splitlines()) <= 350
    assert ".. tags::" not in source
    assert "# sphinx_gallery_tags = [" in source
    assert "plt.show()" in source
    assert "torch.cuda.is_available()" not in source
    assert "autograd.functional.jacobian" not in source


@pytest.mark.parametrize("stem", TORCH)
def test_seed_and_device(stem):
    source = _source(stem)
    assert source.count("torch.manual_seed(0)") == 1
    assert "torch.accelerator.is_available()" in source


def test_no_curvature_detour_in_the_first_network():
    source = _source("02_numpy_warmup")
    assert "eigenvalue" not in source and "lam_max" not in source


@pytest.mark.parametrize("stem", EDITED)
def test_cross_references_name_existing_lessons(stem):
    for label, section, target in REF.findall(_source(stem)):
        assert (ROOT / "gallery" / section / f"{target}.py").is_file(), label


def test_tensor_claims_shown(site):
    out = captured_output(page(site, BASICS / "01_tensors.py"))
    assert "sum: shape (), ndim 0" in out
    assert "raised IndexError: invalid index of a 0-dim tensor" in out
    assert "raised RuntimeError: view size is not compatible" in out
    assert "int32 + int64 -> torch.int64" in out
    assert "int32 + 0-dim int64 tensor -> torch.int32" in out
    assert "NumPy: int32 + 0-dim int64 array -> int64" in out


def test_inference_tensor_rules_shown(site):
    out = captured_output(page(site, BASICS / "04_autograd.py"))
    assert "Inference tensors cannot be saved for backward." in out
    assert "Inplace update to inference tensor outside InferenceMode" in out
