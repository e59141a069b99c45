"""
Distributed data parallel training
==================================

Data parallel training runs one process per replica of the model; each
process works on its own slice of every batch, and the gradients are averaged
across processes before each step, so all replicas stay identical. This lesson
starts two processes on one machine with the ``gloo`` backend, sums tensors
with an explicit all-reduce, shows how ``DistributedSampler`` splits a
dataset, proves that one ``DistributedDataParallel`` step equals a
single-process step on the whole batch, and ends with ``torchrun``, NCCL and
multi-machine launches.

.. tags:: advanced, distributed, multiprocessing
"""

# %%
# One process per replica
# -----------------------
# :mod:`torch.distributed` connects a fixed set of processes, the *world*. Each
# has a *rank* from 0 to ``world_size - 1`` and talks to the others through a
# *backend*: ``gloo`` for CPU tensors (and the one used here), ``nccl`` for CUDA
# tensors. The processes find each other through a rendezvous address where
# rank 0 listens; here that is a free TCP port on 127.0.0.1.
#
# The demonstrations run on the CPU even on a machine with a GPU: NCCL needs a
# separate GPU for every rank, and gloo on the CPU gives the same results
# everywhere. The last sections show what changes on GPUs.
#
# .. note:: Old code you may meet: ``nn.DataParallel(model)``. It drives all
#    GPUs from one Python process with threads, copies the model to every GPU
#    on each forward pass and gathers outputs on one device; one process per
#    GPU with ``DistributedDataParallel`` is faster even on a single machine.
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

# sphinx_gallery_parallel = False
torch.manual_seed(0)
WORLD_SIZE = 2
print(
    f"Running on: cpu, {WORLD_SIZE} processes, backend gloo (CUDA available: {torch.cuda.is_available()})"
)
print(
    f"torch.distributed available: {dist.is_available()}, gloo: {dist.is_gloo_available()}"
)

# %%
# Starting processes from this page
# ---------------------------------
# The helpers below are the ones explained in
# :ref:`sphx_glr_lessons_advanced_04_multiprocessing_hogwild.py`: this page runs
# in a namespace that child processes cannot import, so on Linux we start
# workers with ``fork``; elsewhere we use ``spawn`` and copy each worker into a
# temporary module. Workers import what they use inside their bodies, set one
# intra-op thread each, and must finish before a deadline; every exit code is
# checked.
import contextlib
import importlib
import inspect
import shutil
import tempfile
import textwrap

START_METHOD = "fork" if sys.platform == "linux" else "spawn"
print(f"start method used on this page: {START_METHOD}")


@contextlib.contextmanager
def for_children(fn):
    """Yield ``fn`` in a form that child processes started with START_METHOD can run."""
    if START_METHOD == "fork":
        yield fn  # the child is a clone: it already has fn
        return
    main = sys.modules["__main__"]
    main_file = main.__dict__.pop(
        "__file__", None
    )  # else spawn re-runs that file in every child
    folder = tempfile.mkdtemp(
        prefix="pbe_"
    )  # gives a fresh, unique module name
    name = os.path.basename(folder)
    try:
        with open(os.path.join(folder, f"{name}.py"), "w") as f:
            f.write(textwrap.dedent(inspect.getsource(fn)))
        sys.path.insert(0, folder)  # children receive the parent's sys.path
        yield getattr(importlib.import_module(name), fn.__name__)
    finally:
        sys.modules.pop(name, None)
        if folder in sys.path:
            sys.path.remove(folder)
        shutil.rmtree(folder, ignore_errors=True)
        if main_file is not None:
            main.__file__ = main_file


# %%
# ``run_workers`` starts the processes with
# :func:`torch.multiprocessing.start_processes`, re-raises a failing worker's
# traceback here, stops every worker that outlives the deadline, and checks
# that all of them exited with status 0.


def run_workers(fn, nprocs, *args, timeout=60.0):
    """Run ``fn(rank, *args)`` in ``nprocs`` processes; all finished and exited with 0."""
    with for_children(fn) as target:
        ctx = mp.start_processes(
            target,
            args=args,
            nprocs=nprocs,
            join=False,
            start_method=START_METHOD,
        )
        deadline = time.monotonic() + timeout
        try:
            while not ctx.join(
                timeout=max(0.1, deadline - time.monotonic())
            ):  # raises if a worker failed
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"{fn.__name__} still running after {timeout} s"
                    )
        finally:
            for (
                p
            ) in ctx.processes:  # on any failure, stop the rest before leaving
                if p.is_alive():
                    p.terminate()
                p.join(5)
    assert [p.exitcode for p in ctx.processes] == [0] * nprocs


# %%
# Every run needs a rendezvous address that nothing else is using. Binding a
# socket to port 0 makes the operating system pick a free port; we read its
# number and close the socket at once, so rank 0 can listen on it a moment
# later.


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


assert 0 < free_port() < 65536


# %%
# ``run_ranks`` puts the two together: every run gets a fresh address.


def run_ranks(fn, *args):
    """Run ``fn(rank, WORLD_SIZE, url, *args)`` on every rank at a fresh local address."""
    url = f"tcp://127.0.0.1:{free_port()}"
    run_workers(fn, WORLD_SIZE, WORLD_SIZE, url, *args)


# %%
# All-reduce, by hand
# -------------------
# A *collective* is an operation every rank calls at the same point.
# ``dist.all_reduce(t)`` combines the tensor ``t`` of every rank (a sum by
# default) and leaves the result in ``t`` on all of them. Below, rank ``r``
# starts with ``(r + 1) * [1, 2, 3]``; after the all-reduce both ranks hold
# ``[1, 2, 3] + [2, 4, 6] = [3, 6, 9]``. Each rank writes what it holds into a
# row of a shared tensor, which is how the values come back to this page. The
# ``timeout`` bounds how long a rank waits for the others, and the ``finally``
# block leaves the group even if something fails.


def all_reduce_worker(rank, world_size, url, before, after):
    import datetime

    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo",
        init_method=url,
        rank=rank,
        world_size=world_size,
        timeout=datetime.timedelta(seconds=60),
    )
    try:
        t = (rank + 1) * torch.tensor([1.0, 2.0, 3.0])
        before[rank] = t
        dist.all_reduce(t, op=dist.ReduceOp.SUM)  # in place, on every rank
        after[rank] = t
    finally:
        dist.destroy_process_group()


before = torch.zeros(WORLD_SIZE, 3).share_memory_()
after = torch.zeros(WORLD_SIZE, 3).share_memory_()
run_ranks(all_reduce_worker, before, after)
for rank in range(WORLD_SIZE):
    print(
        f"rank {rank}: before {before[rank].tolist()} -> after {after[rank].tolist()}"
    )
torch.testing.assert_close(after, before.sum(dim=0).expand(WORLD_SIZE, 3))

# %%
# Who gets which sample: ``DistributedSampler``
# ---------------------------------------------
# Each rank must train on a different part of the data. A
# :class:`~torch.utils.data.distributed.DistributedSampler` gives rank ``r``
# every ``world_size``-th index starting at ``r``, after an optional shuffle
# that is the same on every rank (it is seeded by ``seed + epoch``). Inside a
# process group it reads the rank and world size from the group; here we pass
# them explicitly, which needs no processes at all.
from torch.utils.data import DistributedSampler

dataset_10 = list(range(10))
for shuffle in (False, True):
    for rank in range(WORLD_SIZE):
        sampler = DistributedSampler(
            dataset_10,
            num_replicas=WORLD_SIZE,
            rank=rank,
            shuffle=shuffle,
            seed=0,
        )
        print(f"shuffle={shuffle!s:5} rank {rank}: {list(sampler)}")
        if not shuffle:
            assert list(sampler) == dataset_10[rank::WORLD_SIZE]

# %%
# With ``shuffle=True`` the order depends on the epoch: call
# ``sampler.set_epoch(epoch)`` at the start of every epoch, or every epoch
# repeats the same order. When the dataset does not divide evenly, the sampler
# repeats a few indices so that every rank gets the same number of samples
# (all ranks must run the same number of steps, or the collectives would wait
# forever); ``drop_last=True`` drops the tail instead. The figure shows three
# epochs of an 11-sample dataset.
import matplotlib.pyplot as plt
from matplotlib.colors import ListedColormap

dataset_11 = list(range(11))
owner = torch.zeros(
    3, 11
)  # epoch x index -> 0: rank 0, 1: rank 1, 2: both ranks
for epoch in range(3):
    per_rank = []
    for rank in range(WORLD_SIZE):
        sampler = DistributedSampler(
            dataset_11,
            num_replicas=WORLD_SIZE,
            rank=rank,
            shuffle=True,
            seed=0,
        )
        sampler.set_epoch(epoch)
        per_rank.append(set(sampler))
        assert len(list(sampler)) == 6  # 11 samples -> 6 per rank
    assert per_rank[0] | per_rank[1] == set(dataset_11)
    for index in dataset_11:
        owner[epoch, index] = (
            2
            if index in per_rank[0] & per_rank[1]
            else int(index in per_rank[1])
        )
    assert (
        owner[epoch] == 2
    ).sum() == 1  # exactly one index repeated as padding
assert not torch.equal(owner[0], owner[1])  # set_epoch changed the split
assert (
    len(
        DistributedSampler(
            dataset_11, num_replicas=WORLD_SIZE, rank=0, drop_last=True
        )
    )
    == 5
)

fig, ax = plt.subplots(figsize=(7, 2.4))
colors = ListedColormap(["tab:blue", "tab:orange", "tab:grey"])
ax.imshow(owner.numpy(), cmap=colors, vmin=0, vmax=2, aspect="auto")
for epoch in range(3):
    for index in dataset_11:
        label = ["r0", "r1", "both"][int(owner[epoch, index])]
        ax.text(index, epoch, label, ha="center", va="center", color="white")
ax.set_xticks(dataset_11)
ax.set_yticks(range(3))
ax.set_xlabel("dataset index")
ax.set_ylabel("epoch (set_epoch)")
ax.set_title("Which rank gets each of 11 samples (shuffle=True)")
fig.tight_layout()

# %%
# What ``DistributedDataParallel`` adds
# -------------------------------------
# Wrapping a model in :class:`~torch.nn.parallel.DistributedDataParallel`
# (DDP) does two things:
#
# 1. At construction it broadcasts rank 0's parameters and buffers, so every
#    replica starts from the same weights.
# 2. During ``backward()`` it all-reduces each gradient as soon as it is ready
#    (grouped into buckets, overlapping communication with the rest of the
#    backward pass) and divides by the world size: every rank ends up with the
#    *average* gradient.
#
# If every rank computes the *mean* loss over its own ``B`` samples, the
# average of those gradients is exactly the gradient of the mean loss over all
# ``world_size * B`` samples. So one DDP step must match one ordinary step on
# the full batch. We check this on a small regression task, fitting
# :math:`y = \sin(2x)` from noisy samples.
from torch import nn

gen = torch.Generator().manual_seed(0)
X = torch.rand(256, 1, generator=gen) * 4 - 2
y = torch.sin(2 * X) + 0.1 * torch.randn(X.shape, generator=gen)
model = nn.Sequential(
    nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1)
)
n_params = sum(p.numel() for p in model.parameters())
print(f"{len(X)} samples, model with {n_params} parameters")

# %%
# The DDP worker
# --------------
# Every rank gets its own copy of the model. Rank 1 deliberately scrambles its
# copy before wrapping it, so that we can watch DDP's initial broadcast undo
# that. Then each rank trains through a ``DataLoader`` over its
# ``DistributedSampler``: a plain training loop, nothing DDP-specific except
# ``set_epoch``. After the first step each rank writes its parameters and
# gradients into shared tensors; at the end it writes its final parameters and
# its mini-batch losses.


def ddp_worker(
    rank, world_size, url, model, X, y, epochs, batch, report, losses
):
    import copy
    import datetime
    import gc

    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.nn.utils import parameters_to_vector
    from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo",
        init_method=url,
        rank=rank,
        world_size=world_size,
        timeout=datetime.timedelta(seconds=60),
    )
    try:
        model = copy.deepcopy(model)  # this rank's private replica
        if rank != 0:
            with torch.no_grad():
                for p in model.parameters():
                    p.normal_()  # a different start, to be overwritten by the broadcast
        ddp_model = DDP(model)
        report[rank, 0] = parameters_to_vector(model.parameters())

        dataset = TensorDataset(X, y)
        sampler = DistributedSampler(
            dataset, shuffle=True, seed=0
        )  # rank, world size: from the group
        loader = DataLoader(dataset, batch_size=batch, sampler=sampler)
        opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1, momentum=0.9)
        step = 0
        for epoch in range(epochs):
            sampler.set_epoch(epoch)
            for xb, yb in loader:
                loss = torch.nn.functional.mse_loss(
                    ddp_model(xb), yb
                )  # mean over this rank's batch
                opt.zero_grad()
                loss.backward()  # DDP all-reduces and averages the gradients here
                if step == 0:
                    report[rank, 1] = torch.cat(
                        [p.grad.flatten() for p in model.parameters()]
                    )
                opt.step()
                if step == 0:
                    report[rank, 2] = parameters_to_vector(model.parameters())
                losses[rank, step] = loss.item()
                step += 1
        report[rank, 3] = parameters_to_vector(model.parameters())
    finally:
        # Free the DDP wrapper (it sits in reference cycles, hence the
        # collect) while the group is still registered. If DDP held the last
        # reference to the gloo group instead, freeing it later could deadlock
        # (a known PyTorch issue, pytorch/pytorch#56297).
        ddp_model = opt = None
        gc.collect()
        dist.destroy_process_group()


# %%
# Two ranks, 8 epochs over 256 samples with 16 samples per rank per step:
# 8 steps per epoch, 64 in all.
epochs, batch = 8, 16
steps = epochs * len(X) // (WORLD_SIZE * batch)
report = torch.zeros(
    WORLD_SIZE, 4, n_params
).share_memory_()  # rank x [start, grad, step 1, end]
losses = torch.zeros(WORLD_SIZE, steps).share_memory_()

start = time.perf_counter()
run_ranks(ddp_worker, model, X, y, epochs, batch, report, losses)
print(
    f"{WORLD_SIZE} ranks x {steps} steps in {time.perf_counter() - start:.1f} s"
)

# %%
# Checking DDP against one process
# --------------------------------
# The single-process reference starts from rank 0's weights, takes the
# samples both ranks used in their first step (the samplers are
# deterministic, so we can rebuild them here), computes the **mean** loss over
# that full batch of 32 and takes one step with the same optimizer settings.
# DDP averages gradients, so the mean, not the sum, is the matching loss.
import copy

from torch.nn.utils import parameters_to_vector

first_batch = []
for rank in range(WORLD_SIZE):
    sampler = DistributedSampler(
        X, num_replicas=WORLD_SIZE, rank=rank, shuffle=True, seed=0
    )
    sampler.set_epoch(0)
    first_batch += list(sampler)[:batch]
print(
    f"first step uses {len(first_batch)} distinct samples: {len(set(first_batch)) == WORLD_SIZE * batch}"
)
assert len(set(first_batch)) == WORLD_SIZE * batch

reference = copy.deepcopy(model)
opt = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
loss = nn.functional.mse_loss(reference(X[first_batch]), y[first_batch])
opt.zero_grad()
loss.backward()
reference_grad = torch.cat([p.grad.flatten() for p in reference.parameters()])
opt.step()

start_params, grads, after_step, final = report.unbind(dim=1)
for rank in range(WORLD_SIZE):
    torch.testing.assert_close(
        start_params[rank], parameters_to_vector(model.parameters())
    )  # broadcast
    torch.testing.assert_close(
        grads[rank], reference_grad
    )  # averaged gradient
    torch.testing.assert_close(
        after_step[rank], parameters_to_vector(reference.parameters())
    )  # same step
print("after the broadcast, both ranks start from rank 0's weights")
print(
    "after one step, both ranks hold the single-process result on the full batch"
)

# %%
# The same reasoning, without processes: the gradient of the mean over 32
# samples is the average of the two gradients of the means over each rank's 16.
# Each rank's own gradient is far from that average; only the all-reduce makes
# the ranks agree.


def grad_of_mean_loss(indices):
    net = copy.deepcopy(model)
    nn.functional.mse_loss(net(X[indices]), y[indices]).backward()
    return torch.cat([p.grad.flatten() for p in net.parameters()])


g0, g1 = (
    grad_of_mean_loss(first_batch[:batch]),
    grad_of_mean_loss(first_batch[batch:]),
)
torch.testing.assert_close((g0 + g1) / 2, reference_grad)
gap = (
    g0 - reference_grad
).norm() / reference_grad.norm()  # the same for g1: they sit either side
print(
    f"each rank's own gradient is off the full-batch gradient by {gap:.0%} of its norm"
)

# %%
# Replicas never drift apart
# --------------------------
# After 64 steps the two ranks still hold bit-for-bit identical weights: every
# step applied the same averaged gradient to the same parameters. Their
# *losses*, however, differ at every step, because each rank measures its own
# mini-batch.
assert torch.equal(final[0], final[1])
assert (losses[0] != losses[1]).all()
first_epoch, last_epoch = (
    losses[:, : steps // epochs].mean(),
    losses[:, -steps // epochs :].mean(),
)
assert last_epoch < 0.5 * first_epoch
print(
    f"final weights identical on both ranks: {torch.equal(final[0], final[1])}"
)
print(
    f"mean loss, first epoch {first_epoch:.4f} -> last epoch {last_epoch:.4f}"
)

fig, ax = plt.subplots(figsize=(6, 3.5))
for rank in range(WORLD_SIZE):
    ax.plot(
        losses[rank].numpy(), label=f"rank {rank}", marker=".", linewidth=1
    )
ax.set_xlabel("step")
ax.set_ylabel("MSE on this rank's mini-batch")
ax.set_title("Different batches, different losses, identical weights")
ax.legend()
fig.tight_layout()

# %%
# Details that matter in real jobs
# --------------------------------
# * The effective batch is ``world_size`` times the per-rank batch; the
#   learning rate usually has to be tuned for that size, not the per-rank one.
# * ``ddp_model.module`` is the wrapped model: save its ``state_dict()`` (from
#   rank 0 only) so the checkpoint loads without DDP.
# * For gradient accumulation, run the intermediate backward passes inside
#   ``with ddp_model.no_sync():`` so only the last one communicates.
# * Parameters that get no gradient in some forward pass make DDP wait for
#   them; ``find_unused_parameters=True`` handles such models, at a cost.
# * Batch normalization computes statistics per rank;
#   ``nn.SyncBatchNorm.convert_sync_batchnorm(model)`` shares them.
#
# Real launches: ``torchrun``
# ---------------------------
# Outside a tutorial page you do not start the processes yourself. ``torchrun``
# starts ``--nproc-per-node`` copies of your script as fresh interpreters,
# sets ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``MASTER_ADDR`` and
# ``MASTER_PORT`` in each one's environment, and stops them all if one fails
# (or restarts them, with ``--max-restarts``). The script reads those
# variables: ``init_process_group`` with no address uses ``env://``, which
# means exactly these variables. A typical shape (not run here):
#
# .. code-block:: python
#
#    # train_ddp.py
#    import os
#
#    import torch
#    import torch.distributed as dist
#    from torch.nn.parallel import DistributedDataParallel as DDP
#    from torch.utils.data import DataLoader, DistributedSampler
#
#
#    def main():
#        local_rank = int(os.environ["LOCAL_RANK"])  # this process's GPU on this machine
#        if torch.cuda.is_available():
#            torch.cuda.set_device(local_rank)
#            device = torch.device("cuda", local_rank)
#            dist.init_process_group("nccl")
#        else:
#            device = torch.device("cpu")
#            dist.init_process_group("gloo")
#
#        model = build_model().to(device)  # build_model, train_set: your own code
#        ddp_model = DDP(model, device_ids=[local_rank] if device.type == "cuda" else None)
#        sampler = DistributedSampler(train_set)
#        loader = DataLoader(train_set, batch_size=64, sampler=sampler, num_workers=4)
#        opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
#
#        for epoch in range(10):
#            sampler.set_epoch(epoch)
#            for x, y in loader:
#                x, y = x.to(device), y.to(device)
#                loss = torch.nn.functional.cross_entropy(ddp_model(x), y)
#                opt.zero_grad()
#                loss.backward()
#                opt.step()
#            if dist.get_rank() == 0:  # one copy of the checkpoint, not one per rank
#                torch.save(model.state_dict(), "checkpoint.pt")
#
#        dist.destroy_process_group()
#
#
#    if __name__ == "__main__":
#        main()
#
# On one machine with two GPUs (or two CPU processes):
#
# .. code-block:: bash
#
#    torchrun --standalone --nproc-per-node=2 train_ddp.py
#
# .. note:: Old code you may meet: ``python -m torch.distributed.launch
#    --nproc_per_node=2 train.py`` with a ``--local_rank`` command-line
#    argument. That launcher is deprecated; ``torchrun`` replaced it and passes
#    the local rank in the ``LOCAL_RANK`` environment variable instead.
#
# GPUs and NCCL
# -------------
# With CUDA, three things change, all visible in the script above:
#
# * the backend is ``nccl``, which moves gradients directly between GPUs
#   (over NVLink or PCIe, and InfiniBand or Ethernet between machines);
# * each process owns exactly one GPU: ``torch.cuda.set_device(local_rank)``
#   before anything touches CUDA, and ``DDP(model, device_ids=[local_rank])``;
# * processes must be fresh interpreters. ``torchrun`` starts them that way;
#   if you start them yourself, use ``spawn``, because a forked child cannot use
#   CUDA once its parent has initialised it.
#
# The training loop itself does not change, and neither do the guarantees
# checked above: averaged gradients, identical replicas.
#
# Across machines
# ---------------
# Run the same command on every machine, with the machine's index and the
# address of machine 0, which every machine must be able to reach on that port:
#
# .. code-block:: bash
#
#    # on machine 0 (and the same with --node-rank=1 on machine 1)
#    torchrun --nnodes=2 --node-rank=0 --nproc-per-node=4 \
#        --master-addr=10.0.0.1 --master-port=29500 train_ddp.py
#
# ``RANK`` then runs over all 8 processes while ``LOCAL_RANK`` counts 0-3 on
# each machine; save checkpoints from global rank 0 only, and keep the code and
# data identical on every machine. For jobs whose machines may come and go,
# ``--rdzv-backend=c10d --rdzv-endpoint=HOST:PORT`` replaces the fixed master
# address with a rendezvous, and NCCL's ``NCCL_SOCKET_IFNAME`` picks the
# network interface when a machine has several.
