"""What the pages show holds across lessons: the numbers that the prose of
several lessons relies on, read from the built pages."""

from __future__ import annotations

import re

from conftest import ROOT, captured_output, page

GALLERY = ROOT / "gallery"
STEP = re.compile(r"^step +(\d+): loss (\S+)$", re.M)
# basics/06 prints both frameworks side by side: TF2 first, TF1 as history
BOTH = re.compile(r"^step +(\d+): (TF[12]) (\S+) +PyTorch (\S+)$", re.M)


def _output(site, name: str) -> str:
    return captured_output(page(site, GALLERY / f"{name}.py"))


def test_the_main_thread_prints_the_same_losses(site):
    """NumPy, tensors, autograd, custom Functions and TensorFlow: one
    network, one set of losses, digit for digit."""
    lessons = [
        "basics/02_numpy_warmup",
        "basics/03_tensor_backprop",
        "basics/04_autograd",
        "basics/05_custom_functions",
    ]
    losses = {n: dict(STEP.findall(_output(site, n))) for n in lessons}
    both = BOTH.findall(_output(site, "basics/06_static_vs_dynamic_graphs"))
    for tf in ("TF2", "TF1"):
        rows = [(step, t, pt) for step, name, t, pt in both if name == tf]
        losses[f"basics/06 {tf}"] = {step: t for step, t, _ in rows}
        losses[f"basics/06 PyTorch ({tf} run)"] = {s: p for s, _, p in rows}
    reference = losses[lessons[0]]
    assert len(reference) >= 5
    for name, found in losses.items():
        assert found, f"{name} prints no 'step N: loss X' line"
        assert found == {s: reference[s] for s in found}, name


def test_every_ddp_rank_reports_and_agrees(site):
    text = _output(site, "advanced/08_distributed_data_parallel")
    ranks = re.findall(
        r"^rank (\d+)/(\d+) on .*same weights as all ranks: (\w+)$",
        text,
        re.M,
    )
    assert ranks, text[-2000:]
    world = int(ranks[0][1])
    assert sorted(int(r) for r, _, _ in ranks) == list(range(world))
    assert all(same == "True" for _, _, same in ranks)
