"""The HOGWILD and DDP lessons launch real scripts the way readers do.

The source checks need no built site; the page checks read the site that
``nox -s docs`` wrote, and look for what the child processes printed.
"""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, captured_output, page

ADVANCED = ROOT / "gallery" / "advanced"
HOGWILD = ADVANCED / "07_multiprocessing_hogwild.py"
DDP = ADVANCED / "08_distributed_data_parallel.py"


@pytest.mark.parametrize("lesson", [HOGWILD, DDP], ids=["hogwild", "ddp"])
def test_lesson_launches_a_real_script(lesson):
    source = lesson.read_text(encoding="utf-8")
    assert 'if __name__ == "__main__":' in source
    assert "sys.executable" in source
    assert re.search(r"subprocess\.(run|Popen)\((?s:.*?)timeout=\d+", source)
    assert "shutil.rmtree(folder)" in source  # the temporary folder goes
    for plumbing in ("for_children", "start_method=", "__main__.__file__"):
        assert plumbing not in source, plumbing


def test_ddp_script_runs_on_gpus_or_cpu_and_cleans_up_in_order():
    source = DDP.read_text(encoding="utf-8")
    for needle in (
        '"torch.distributed.run", "--standalone"',
        "torch.cuda.device_count() >= ranks_here",
        'dist.init_process_group("gloo")',
        'os.environ["LOCAL_RANK"]',
        "sampler.set_epoch(epoch)",
        "map_location=device",
        "dist.barrier()",
        "dist.all_gather(everyone, mine)",
    ):
        assert needle in source, needle
    # free DDP, collect, and only then leave the group
    assert re.search(
        r"del ddp_model\n\s*gc\.collect\(\)\n\s*dist\.destroy_process_group",
        source,
    )


def test_hogwild_page_shows_the_script_output(site):
    text = captured_output(page(site, HOGWILD))
    assert re.search(r"start method: (fork|spawn|forkserver)", text)
    assert "2 workers x 300 steps done" in text
    assert "accuracy above 80%: True" in text


def test_ddp_page_shows_every_rank(site):
    text = captured_output(page(site, DDP))
    for rank in (0, 1):
        assert re.search(
            rf"rank {rank}/2 on \w+, (gloo|nccl): 64 steps, .*"
            r"same weights as all ranks: True",
            text,
        ), rank
    assert "largest difference from one-process training" in text
