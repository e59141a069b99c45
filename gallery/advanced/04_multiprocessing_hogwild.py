"""
Multiprocessing and HOGWILD training
====================================

Python threads take turns holding the interpreter lock, so parallel work in
PyTorch on the CPU is done by separate processes. This lesson puts a model's
parameters in shared memory and proves that a child process can change them,
explains how child processes are started (fork, spawn, forkserver), trains one
spiral classifier with two processes that update the same weights at the same
time without any locking (HOGWILD), and finishes with the place you already
use this machinery every day: ``DataLoader`` workers.

.. tags:: advanced, multiprocessing
"""

# %%
# Processes, not threads
# ----------------------
# :mod:`torch.multiprocessing` is Python's :mod:`multiprocessing` with one
# addition: it teaches the pickler about tensors. When a tensor travels to
# another process, its storage is moved into shared memory and only a small
# handle (a file descriptor or a shared-memory name) crosses the process
# boundary. Both processes then read and write the very same bytes.
#
# Everything in this lesson runs on the CPU: HOGWILD is a CPU technique, and
# the processes below share host memory. CUDA tensors can be shared too, but
# only with the ``spawn`` or ``forkserver`` start methods explained next.
#
# .. note:: Old code you may meet: Lua Torch ran parallel data loading and
#    HOGWILD with its ``threads`` package. In PyTorch the same jobs use
#    ``torch.multiprocessing`` (and ``DataLoader(num_workers=...)``), because
#    Python threads cannot execute Python code in parallel.
import os
import sys
import time

import torch
import torch.multiprocessing as mp

# sphinx_gallery_parallel = False
torch.manual_seed(0)
print(
    f"Running on: cpu, in worker processes (CUDA available: {torch.cuda.is_available()}, not needed)"
)
print(f"intra-op threads in this process: {torch.get_num_threads()}")

# %%
# How a child process starts
# --------------------------
# Python offers three start methods, and the choice decides what the child
# knows:
#
# * ``fork`` (POSIX): the child is a copy-on-write clone of the parent at the
#   moment of the call. Every object and function defined so far is simply
#   there; nothing is pickled or imported, so it starts in milliseconds. The
#   clone has only the thread that called ``fork``, so locks held by other
#   threads stay locked forever; and the CUDA runtime cannot be used in a
#   forked child once the parent has initialised it (PyTorch stops with
#   "Cannot re-initialize CUDA in forked subprocess"). Not available on
#   Windows and considered unsafe on macOS.
# * ``spawn``: the child is a fresh interpreter. It imports ``torch`` again,
#   re-runs the parent's main script (under the name ``__mp_main__``), and
#   receives the target function and its arguments by pickling. Functions travel by name, so they must be
#   importable. Slow to start, but safe with threads and CUDA: the default on
#   macOS and Windows, and what every CUDA multi-process job should use.
# * ``forkserver``: a clean, single-threaded server process is started once
#   and forks each new child on request. Safer than ``fork``, with the same
#   "must be importable" rule as ``spawn``; the default on Linux from
#   Python 3.14.
#
# This page is unusual: its code runs inside sphinx-gallery or a Jupyter
# kernel, in a namespace called ``__main__`` that no child can import, so
# ``spawn`` could not find a function defined here. On Linux we therefore ask
# for ``fork`` explicitly. Elsewhere ``for_children`` below falls back to
# ``spawn``: it copies the worker's source into a small temporary module that
# the children can import, and while they run it hides the main file's name,
# so that a downloaded copy of this script is not re-run inside every child.
# (In your own project none of this is needed: put the workers in a module,
# the launching code under ``if __name__ == "__main__":``, and use ``spawn``.)
# The workers import what they use inside their bodies, so each one still
# works when copied into a file on its own.
#
# .. note:: Old code you may meet: ``mp.set_start_method("spawn")`` at the top
#    of a script. It sets a global that may be set only once per program and
#    fails in notebooks that already used multiprocessing; ``mp.get_context``
#    (or the ``start_method=`` and ``multiprocessing_context=`` arguments used
#    below) picks a method locally instead.
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
# Starting and joining workers safely
# -----------------------------------
# :func:`torch.multiprocessing.start_processes` calls ``fn(rank, *args)`` in
# ``nprocs`` new processes. If one of them raises, it stops the others and
# re-raises the child's traceback here. Our wrapper adds a deadline, so a stuck
# worker can never hang the page, and makes sure no process outlives the call.
# Each worker starts by calling ``torch.set_num_threads(1)``: two processes each
# running this process's intra-op thread pool would fight over the same cores.


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
# A change made in a child, seen by the parent
# --------------------------------------------
# The model we will train later is a small MLP for 2-D points. A child process
# adds 1 to the bias of its last layer, in place. Under ``fork`` the child
# starts with a copy-on-write view of the parent's memory: as long as the
# parameters live in ordinary memory, the child's write lands in its own
# private copy and the parent never sees it. ``model.share_memory()`` moves
# every parameter into shared memory; after that the same write is visible
# here. (Under ``spawn`` the parameters are moved to shared memory anyway when
# the model is pickled for the child, so only the second half applies.)
from torch import nn


def nudge_last_bias(rank, model):
    import torch

    torch.set_num_threads(1)
    with torch.no_grad():
        model[-1].bias.add_(
            1.0
        )  # in place: writes into the parameter's storage


model = nn.Sequential(
    nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3)
)
bias_at_start = model[-1].bias.detach().clone()

run_workers(nudge_last_bias, 1, model)
print(
    f"ordinary memory: parent sees a change of {(model[-1].bias - bias_at_start).abs().max():.1f}"
)
if START_METHOD == "fork":
    torch.testing.assert_close(model[-1].bias.detach(), bias_at_start)

model.share_memory()
assert all(p.is_shared() for p in model.parameters())
bias_shared = model[-1].bias.detach().clone()
run_workers(nudge_last_bias, 1, model)
print(
    f"shared memory:   parent sees a change of {(model[-1].bias - bias_shared).min():.1f}"
)
torch.testing.assert_close(model[-1].bias.detach(), bias_shared + 1.0)

with torch.no_grad():
    model[-1].bias.copy_(bias_at_start)  # undo both nudges before training

# %%
# ``share_memory()`` shares what exists at the time of the call: the parameters
# and buffers (and any gradients already allocated). Our model has no gradients
# yet, so each training process will allocate its own private ``.grad``
# tensors. That is exactly what HOGWILD wants: private gradients, shared weights.
#
# Data: three interleaved spirals
# -------------------------------
# Three spiral arms wound around each other: the classes can only be told
# apart by curved decision boundaries, a task that needs the hidden layers. We
# draw 600 training points and 600 fresh test points from the same
# distribution.
import math


def spirals(n_per_class, seed, classes=3, noise=0.3):
    gen = torch.Generator().manual_seed(seed)
    radius = torch.linspace(0.1, 1.0, n_per_class).repeat(classes)
    label = torch.arange(classes).repeat_interleave(n_per_class)
    angle = label * (2 * math.pi / classes) + 2 * math.pi * radius
    angle = angle + noise * torch.randn(angle.shape, generator=gen)
    points = torch.stack([radius * angle.cos(), radius * angle.sin()], dim=1)
    order = torch.randperm(len(label), generator=gen)  # mix the classes
    return points[order], label[order]


X_train, y_train = spirals(200, seed=1)
X_test, y_test = spirals(200, seed=2)
print(
    f"train {tuple(X_train.shape)}, test {tuple(X_test.shape)}, classes {y_train.unique().tolist()}"
)


@torch.no_grad()
def evaluate(model, X, y):
    logits = model(X)
    loss = nn.functional.cross_entropy(logits, y).item()
    accuracy = (logits.argmax(dim=1) == y).float().mean().item()
    return loss, accuracy


loss_before, acc_before = evaluate(model, X_test, y_test)
print(
    f"before training: test loss {loss_before:.4f}, test accuracy {acc_before:.1%}"
)

# %%
# HOGWILD: lock-free updates to shared weights
# --------------------------------------------
# HOGWILD (Niu et al., 2011) runs several SGD loops at once on one set of
# weights and lets them overwrite each other's updates without any lock. It
# works because each step changes the weights only a little, so a worker that
# read slightly stale weights still moves them in a useful direction.
#
# Each worker below sees only its own half of the training set, draws its own
# mini-batches, and keeps its own optimizer (Adam's running averages stay
# private). ``opt.step()`` writes straight into the shared parameters, where
# the other worker reads them on its next forward pass. Each worker also
# records its mini-batch losses in a shared tensor, which is how the results
# come back.


def hogwild_worker(rank, model, X, y, steps, losses):
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(1)
    n_workers = losses.shape[0]
    X, y = (
        X[rank::n_workers],
        y[rank::n_workers],
    )  # this worker's half of the data
    gen = torch.Generator().manual_seed(1000 + rank)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for step in range(steps):
        idx = torch.randint(len(X), (32,), generator=gen)
        loss = F.cross_entropy(model(X[idx]), y[idx])
        opt.zero_grad()
        loss.backward()  # gradients: private to this process
        opt.step()  # update: written into the shared weights
        losses[rank, step] = loss.item()


n_workers, steps = 2, 300
assert all(p.grad is None for p in model.parameters())
losses = torch.zeros(n_workers, steps).share_memory_()

start = time.perf_counter()
run_workers(hogwild_worker, n_workers, model, X_train, y_train, steps, losses)
print(
    f"{n_workers} workers x {steps} steps in {time.perf_counter() - start:.1f} s"
)

# %%
# The workers' updates interleave differently on every run, so the final
# weights are not bit-for-bit reproducible. Instead of printing numbers that
# would drift between builds, we check that the shared model, as seen by the
# parent, clears fixed bars on the held-out test set, and that each worker's
# own loss fell (comparing medians of its first and last 50 mini-batch
# losses, which a few noisy batches cannot sway). The bars sit far from both
# ends: in 420 runs of this lesson the test loss ended between 1% and 24% of
# its start and the accuracy between 93% and 100%, while weights that were
# not really shared would leave the parent's model untouched, with the loss
# and accuracy printed before training.
loss_after, acc_after = evaluate(model, X_test, y_test)
assert loss_after < 0.5 * loss_before, (loss_before, loss_after)
assert acc_after > 0.8, acc_after
assert torch.all(losses > 0), "every step of every worker was recorded"
early, late = (
    losses[:, :50].median(dim=1).values,
    losses[:, -50:].median(dim=1).values,
)
assert torch.all(late < 0.5 * early), (early, late)
print(
    f"test loss fell below half of its start ({loss_before:.2f}): {loss_after < 0.5 * loss_before}"
)
print(f"test accuracy above 80%: {acc_after > 0.8}")

# %%
# Each worker's own mini-batch loss, smoothed over 25 steps. Both curves fall
# together although each worker only ever saw half of the points: every
# worker trains on weights that the other one keeps improving.
import matplotlib.pyplot as plt

window = 25
kernel = torch.ones(1, 1, window) / window
smooth = nn.functional.conv1d(losses.unsqueeze(1), kernel).squeeze(1)

fig, ax = plt.subplots(figsize=(6, 3.5))
for rank in range(n_workers):
    ax.plot(
        torch.arange(window - 1, steps).numpy(),
        smooth[rank].numpy(),
        label=f"worker {rank}",
    )
ax.set_xlabel("step of this worker")
ax.set_ylabel(f"cross-entropy (mean of {window} steps)")
ax.set_title("HOGWILD: two processes training one shared model")
ax.legend()
fig.tight_layout()

# %%
# The decision regions of the shared model, with the test points on top: the
# boundaries follow the arms as they wind outwards.
grid = torch.linspace(-1.3, 1.3, 200)
gx, gy = torch.meshgrid(grid, grid, indexing="xy")
with torch.no_grad():
    region = model(torch.stack([gx.flatten(), gy.flatten()], dim=1)).argmax(
        dim=1
    )

fig, ax = plt.subplots(figsize=(4.5, 4.5))
levels = [-0.5, 0.5, 1.5, 2.5]  # one band per class
ax.contourf(
    gx.numpy(),
    gy.numpy(),
    region.reshape(gx.shape).numpy(),
    levels=levels,
    cmap="Pastel1",
    alpha=0.8,
)
ax.scatter(
    X_test[:, 0].numpy(),
    X_test[:, 1].numpy(),
    c=y_test.numpy(),
    cmap="Set1",
    vmin=0,
    vmax=8,
    s=8,
)
ax.set_xlabel("$x_1$")
ax.set_ylabel("$x_2$")
ax.set_title("Shared model after HOGWILD, test points")
ax.set_aspect("equal")
fig.tight_layout()

# %%
# The everyday use: DataLoader workers
# ------------------------------------
# ``DataLoader(num_workers=2)`` starts two processes from the same machinery.
# Each worker gets the dataset (inherited under ``fork``, pickled under
# ``spawn``), builds whole batches, and sends them back; tensors arrive through
# shared memory, not copied through a pipe. Batches are handed out to workers
# in turn and returned in order, and the loader itself limits each worker to
# one thread. The ``multiprocessing_context`` argument takes the same start
# methods as above (see :ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`
# for datasets and loaders in general). The custom ``collate_fn`` below labels
# each batch with the worker that built it.
from torch.utils.data import DataLoader, TensorDataset


def collate_and_tag(samples):
    import torch
    from torch.utils.data import default_collate, get_worker_info

    (numbers,) = default_collate(samples)
    return numbers, get_worker_info().id, torch.get_num_threads()


with for_children(collate_and_tag) as collate_fn:
    loader = DataLoader(
        TensorDataset(torch.arange(12)),
        batch_size=3,
        num_workers=2,
        collate_fn=collate_fn,
        multiprocessing_context=START_METHOD,
    )
    batches = list(
        loader
    )  # workers start here and shut down at the end of the pass

for numbers, worker, threads in batches:
    print(
        f"batch {numbers.tolist()} built by worker {worker} using {threads} thread"
    )
assert [worker for _, worker, _ in batches] == [0, 1, 0, 1]
assert torch.equal(
    torch.cat([numbers for numbers, _, _ in batches]), torch.arange(12)
)
assert all(threads == 1 for _, _, threads in batches)
assert all(
    numbers.is_shared() for numbers, _, _ in batches
)  # arrived via shared memory

# %%
# What to take away
# -----------------
# * ``model.share_memory()`` (or ``tensor.share_memory_()``) puts storage in
#   shared memory; in-place writes from any process are then seen by all.
# * HOGWILD trains one shared model from several CPU processes without locks.
#   It suits small models and CPU machines; for several GPUs or machines use
#   synchronous data parallel training instead, which keeps every replica
#   identical: :ref:`sphx_glr_lessons_advanced_05_distributed_data_parallel.py`.
# * ``fork`` is fast and needs nothing importable, but it does not mix with
#   threads or an initialised CUDA; ``spawn`` and ``forkserver`` need
#   importable code and a ``__main__`` guard, and are the safe choice for CUDA.
# * Give each worker process one intra-op thread, put a timeout on every wait,
#   and check every exit code.
