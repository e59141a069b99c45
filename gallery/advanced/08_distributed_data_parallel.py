"""
Distributed data parallel training
==================================

Data parallel training runs one process per model replica, each on its own
share of every batch, and averages the gradients before each step, so the
replicas stay identical. This lesson writes a ``DistributedDataParallel``
script and launches it with ``torchrun``. Going deeper: which rank gets
which sample, a check against one process, and running across machines.

**You will learn** to write a ``DistributedDataParallel`` training script
(joining the process group, wrapping the model, saving one checkpoint,
tearing down), to launch it with ``torchrun``, and why every replica ends
with the same weights.

**You need first** a training loop (:ref:`sphx_glr_lessons_nn_02_optim.py`)
and scripts whose workers start under ``if __name__ == "__main__":``
(:ref:`sphx_glr_lessons_advanced_07_multiprocessing_hogwild.py`).
"""

# %%
# One process per replica
# -----------------------
# :mod:`torch.distributed` connects a fixed set of processes, the *world*.
# Each has a *rank* from 0 to ``world_size - 1`` and talks to the others
# through a *backend*: ``nccl`` moves CUDA tensors between GPUs, ``gloo``
# works mainly with CPU tensors. Data parallel training with
# ``DistributedDataParallel`` (DDP) runs one such process per GPU (or per
# share of the CPU), each with a full copy of the model.
import torch

# sphinx_gallery_parallel = False
torch.manual_seed(0)
print(f"CUDA devices here: {torch.cuda.device_count()}")
# sphinx_gallery_tags = ["advanced", "distributed", "multiprocessing"]

# %%
# The training script, part 1: data and model
# -------------------------------------------
# The script fits :math:`y = \sin(2x)` from 256 noisy samples with a small
# network. Every rank builds the same dataset; a ``DistributedSampler``
# (below, in part 3) then gives each rank its own share of the indices.
SCRIPT = """\
import gc
import os
import sys

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.nn.utils import parameters_to_vector
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


def make_data():
    gen = torch.Generator().manual_seed(0)
    X = torch.rand(256, 1, generator=gen) * 4 - 2
    y = torch.sin(2 * X) + 0.1 * torch.randn(X.shape, generator=gen)
    return TensorDataset(X, y)


def make_model():
    return nn.Sequential(
        nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(),
        nn.Linear(32, 1),
    )
"""

# %%
# Part 2: joining the group
# -------------------------
# ``torchrun`` sets ``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR`` and
# ``MASTER_PORT``, which ``init_process_group`` reads, and ``LOCAL_RANK``
# and ``LOCAL_WORLD_SIZE``, the rank and count on this machine. NCCL needs
# one GPU per rank and a PyTorch build with NCCL (Windows builds have
# none): the script uses it only when both hold, each rank on GPU
# ``LOCAL_RANK``. Anywhere else (no GPU, one GPU for two ranks, an Apple
# GPU, Windows) it uses the CPU and gloo. (Intel GPUs have a backend of
# their own, ``xccl``; this script leaves them aside and uses the CPU.)
SCRIPT += """

def setup():
    local_rank = int(os.environ["LOCAL_RANK"])
    ranks_here = int(os.environ["LOCAL_WORLD_SIZE"])
    if dist.is_nccl_available() and torch.cuda.device_count() >= ranks_here:
        device = torch.device("cuda", local_rank)
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", device_id=device)
    else:
        device = torch.device("cpu")
        dist.init_process_group("gloo")
    return device
"""

# %%
# Part 3: training
# ----------------
# Each rank starts from *different* random weights (seeded by its rank);
# wrapping the model in ``DDP`` broadcasts rank 0's weights to all ranks.
# In ``backward()`` DDP all-reduces each gradient and divides it by the
# world size, so every rank applies the same *average* gradient.
SCRIPT += """

def train(device, epochs=8, batch=16):
    dataset = make_data()
    sampler = DistributedSampler(dataset, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=batch, sampler=sampler)
    torch.manual_seed(dist.get_rank())  # a different start on each rank
    model = make_model().to(device)
    ids = [device.index] if device.type == "cuda" else None
    ddp_model = DDP(model, device_ids=ids)
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)  # a new shuffle every epoch
        for X, y in loader:
            loss = F.mse_loss(ddp_model(X.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()  # gradients averaged over all ranks here
            opt.step()
            losses.append(loss.detach())
    return ddp_model, torch.stack(losses)
"""

# %%
# Part 4: one checkpoint
# ----------------------
# Two *collective* operations, which every rank must call:
# ``dist.all_gather(outputs, t)`` fills the list ``outputs`` with every
# rank's ``t``, and ``dist.barrier()`` returns only when all ranks have
# reached it. Rank 0 alone writes the checkpoint, with every rank's losses
# gathered into it; ``ddp_model.module`` is the plain model, so the file
# loads without DDP. The ``barrier`` holds every rank until the file is
# complete.
SCRIPT += """

def save_checkpoint(ddp_model, losses, path):
    world_size = dist.get_world_size()
    all_losses = [torch.empty_like(losses) for _ in range(world_size)]
    dist.all_gather(all_losses, losses)
    if dist.get_rank() == 0:
        torch.save({"model": ddp_model.module.state_dict(),
                    "losses": torch.stack(all_losses).cpu()}, path)
    dist.barrier()
"""

# %%
# Part 5: the main block
# ----------------------
# The ranks compare their trained weights with an ``all_gather``, then each
# loads the checkpoint with ``map_location`` set to its own device, and they
# print in turn. The DDP model is freed (and garbage collected: it sits in
# reference cycles, which only the collector frees) *before* the group is
# destroyed, so that nothing uses the group after
# ``destroy_process_group``.
SCRIPT += """

if __name__ == "__main__":
    device = setup()
    rank, world_size = dist.get_rank(), dist.get_world_size()
    ddp_model, losses = train(device)
    mine = parameters_to_vector(ddp_model.parameters()).detach()
    everyone = [torch.empty_like(mine) for _ in range(world_size)]
    dist.all_gather(everyone, mine)
    same = all(torch.equal(mine, other) for other in everyone)
    save_checkpoint(ddp_model, losses, sys.argv[1])
    saved = torch.load(sys.argv[1], map_location=device, weights_only=True)
    ddp_model.module.load_state_dict(saved["model"])
    assert torch.equal(parameters_to_vector(ddp_model.parameters()), mine)
    for turn in range(world_size):
        if turn == rank:
            print(f"rank {rank}/{world_size} on {device.type}, "
                  f"{dist.get_backend()}: {len(losses)} steps, loss "
                  f"{losses[0]:.3f} -> {losses[-1]:.3f}, same weights "
                  f"as all ranks: {same}", flush=True)
        dist.barrier()
    assert same
    del ddp_model
    gc.collect()
    dist.destroy_process_group()
"""

# %%
# Launching with ``torchrun``
# ---------------------------
# In a terminal: ``torchrun --standalone --nproc-per-node=2 train_ddp.py
# checkpoint.pt``. ``torchrun`` is ``python -m torch.distributed.run``,
# which we start with this page's interpreter (``sys.executable``).
# ``--standalone`` picks a free local address for the ranks to meet. Where
# ``OMP_NUM_THREADS`` is unset, ``torchrun`` sets it to 1 and warns, so we
# set it. If one rank fails, ``torchrun`` stops the others. If the launch
# hangs, ``terminate()`` sends ``torchrun`` SIGTERM (on Linux and macOS),
# and it stops its ranks before it exits; ``subprocess.run``'s timeout
# would kill ``torchrun`` alone and leave the ranks running.
import os
import subprocess
import sys
import tempfile
from pathlib import Path

folder = Path(tempfile.mkdtemp())
script, checkpoint = folder / "train_ddp.py", folder / "checkpoint.pt"
script.write_text(SCRIPT)
launch = [sys.executable, "-m", "torch.distributed.run", "--standalone"]
command = [*launch, "--nproc-per-node=2", str(script), str(checkpoint)]
env = {**os.environ, "OMP_NUM_THREADS": "1"}
with subprocess.Popen(
    command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
) as proc:
    try:
        output, _ = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        proc.terminate()  # torchrun stops its ranks, then exits
        output, _ = proc.communicate()
print(output.decode())
# sphinx_gallery_start_ignore
assert proc.returncode == 0
assert output.decode().count("same weights as all ranks: True") == 2
# sphinx_gallery_end_ignore

# %%
# Both ranks ended with the same weights, as the ``all_gather`` checked,
# although each measured its loss on its own mini-batches.
#
# Going deeper
# ------------
# Optional on a first read: which rank gets which sample, a check that DDP
# computes what one process with the whole batch computes, and running
# across machines.

# %%
# Who gets which sample: ``DistributedSampler``
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A :class:`~torch.utils.data.distributed.DistributedSampler` shuffles the
# indices alike on every rank (seeded by ``seed + epoch``) and gives rank
# ``r`` every ``world_size``-th index from ``r`` on, repeating a few if the
# dataset does not divide evenly, so all ranks run the same number of steps.
# Without ``set_epoch(epoch)`` every epoch repeats the first one's order. We
# pass rank and world size; in a script they come from the process group.
from torch.utils.data import DistributedSampler

order = {}
for epoch in range(2):
    for rank in range(2):
        sampler = DistributedSampler(range(11), num_replicas=2, rank=rank)
        sampler.set_epoch(epoch)
        order[epoch, rank] = list(sampler)
        print(f"epoch {epoch}, rank {rank}: {order[epoch, rank]}")
unset = DistributedSampler(range(11), num_replicas=2, rank=0)
print(f"no set_epoch, two passes: {list(unset)}, {list(unset)}")
# sphinx_gallery_start_ignore
for epoch in range(2):
    assert len(order[epoch, 0]) == len(order[epoch, 1]) == 6  # 1 repeated
    assert set(order[epoch, 0]) | set(order[epoch, 1]) == set(range(11))
assert order[0, 0] != order[1, 0]  # set_epoch changed the order
assert list(unset) == list(unset) == order[0, 0]  # no set_epoch: no change
# sphinx_gallery_end_ignore

# %%
# Each rank got 6 indices, one of the 11 given to both, and the two lists
# together cover the dataset. ``set_epoch`` changed the shuffle from epoch
# 0 to epoch 1; without it, every pass repeats epoch 0's order.

# %%
# DDP on two ranks equals one process with twice the batch
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The gradient of the mean loss over 32 samples is the average of the
# gradients over two halves of 16. So 64 DDP steps with 16 samples per rank
# must match 64 one-process steps on both ranks' samples, from rank 0's
# weights. We load the script's functions with :func:`runpy.run_path` (the
# ``__main__`` block does not run) and replay the training on the CPU: each
# step takes the next 16 indices of rank 0 and of rank 1, one batch of 32.
import runpy

defs = runpy.run_path(str(script), run_name="train_ddp")
dataset = defs["make_data"]()
torch.manual_seed(0)  # rank 0's starting weights
model = defs["make_model"]()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
samplers = [DistributedSampler(dataset, 2, rank, seed=0) for rank in (0, 1)]
for epoch in range(8):
    for sampler in samplers:
        sampler.set_epoch(epoch)
    order0, order1 = (list(sampler) for sampler in samplers)
    for i in range(0, len(order0), 16):
        X, y = dataset[order0[i : i + 16] + order1[i : i + 16]]
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(X), y).backward()
        opt.step()

# %%
# We compare the replayed weights with the checkpoint, then remove the
# temporary folder.
import shutil

saved = torch.load(checkpoint, map_location="cpu", weights_only=True)
shutil.rmtree(folder)
from_ddp = torch.cat([t.flatten() for t in saved["model"].values()])
replayed = torch.cat([t.flatten() for t in model.state_dict().values()])
gap = (from_ddp - replayed).abs().max().item()
print(f"largest difference from one-process training: {gap:.0e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(from_ddp, replayed, rtol=1e-4, atol=1e-4)
# sphinx_gallery_end_ignore

# %%
# The replayed weights match the checkpoint up to float rounding (the two
# ways add the same numbers in a different order).
#
# The losses each rank saw, from the checkpoint: two different curves,
# because the ranks see different samples, for one model.
import matplotlib.pyplot as plt

losses = saved["losses"]
# sphinx_gallery_start_ignore
assert (losses[0] != losses[1]).all()
# sphinx_gallery_end_ignore
fig, ax = plt.subplots(figsize=(6, 3.5))
for rank in range(losses.shape[0]):
    ax.plot(losses[rank].numpy(), label=f"rank {rank}", marker=".")
ax.set_yscale("log")
ax.set_xlabel("step")
ax.set_ylabel("MSE on this rank's mini-batch")
ax.set_title("Different batches, different losses, identical weights")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# Details that matter in real jobs
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# * The effective batch is ``world_size`` times the per-rank batch, as the
#   replay showed; tune the learning rate for that size.
# * ``torchrun`` starts each rank as a fresh interpreter, so every rank can
#   use CUDA; a forked child cannot once its parent has initialised CUDA
#   (:ref:`sphx_glr_lessons_advanced_07_multiprocessing_hogwild.py`).
#
# Across machines, run the same command on each with its index and machine
# 0's address. Below, ``RANK`` counts 8 processes and ``LOCAL_RANK`` 0-3 per
# machine; rank 0 saves, so put the checkpoint on shared storage:
#
# .. code-block:: bash
#
#    torchrun --nnodes=2 --node-rank=0 --nproc-per-node=4 \
#        --master-addr=10.0.0.1 --master-port=29500 train_ddp.py ckpt.pt
#
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``nn.DataParallel(model)``: one process driving all GPUs with
#      threads, copying the model on every forward pass; its ``state_dict``
#      keys carry a ``module.`` prefix
#      (:ref:`sphx_glr_lessons_advanced_02_devices.py` shows it). The PyTorch
#      docs recommend ``DistributedDataParallel`` instead, even on one
#      machine.
#    - ``python -m torch.distributed.launch`` with a ``--local-rank``
#      argument: deprecated; ``torchrun`` sets ``LOCAL_RANK`` in the
#      environment.
#
# Takeaways
# ---------
# - One process per replica: ``torchrun`` starts them and sets ``RANK``,
#   ``WORLD_SIZE`` and ``LOCAL_RANK``; ``init_process_group`` joins them.
# - ``DDP(model)`` broadcasts rank 0's weights and averages gradients in
#   ``backward()``, so all replicas stay identical.
# - A ``DistributedSampler`` (with ``set_epoch`` every epoch) gives each
#   rank its share; the effective batch is ``world_size`` times the
#   per-rank batch.
# - Rank 0 saves ``ddp_model.module``; free the DDP model before
#   ``destroy_process_group``.
#
# Next, :ref:`sphx_glr_lessons_advanced_09_cifar10_fast_cpu.py` trains
# CIFAR-10 fast on a CPU.
