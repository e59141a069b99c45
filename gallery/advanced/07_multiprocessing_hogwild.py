"""
Multiprocessing and HOGWILD training
====================================

Several processes can train one model at the same time when its parameters
live in shared memory. This lesson shows what ``share_memory_()`` does and
how child processes start, then writes a HOGWILD training script, runs it
with ``python`` and checks that two worker processes trained one model.
Going deeper: the three ways a child process starts, and the decision
regions of the trained model.

**You will learn** to put a model's parameters in shared memory, to write
a training script whose workers start safely under every start method, and
to check that several processes trained one model.

**You need first** a training loop (:ref:`sphx_glr_lessons_nn_02_optim.py`)
and Python's ``if __name__ == "__main__":`` idiom.
"""

# %%
# One process already uses several cores
# --------------------------------------
# PyTorch's operators release Python's global interpreter lock (GIL) while
# they run, and large ones split their work over a pool of *intra-op*
# threads. What one process cannot do is run several Python training loops
# at once: in standard CPython only one thread at a time runs Python code.
# HOGWILD runs one loop per process, started by :mod:`torch.multiprocessing`:
# Python's :mod:`multiprocessing`, able to send tensors between processes.
import torch

# sphinx_gallery_parallel = False
torch.manual_seed(0)
print(f"Running on: cpu, {torch.get_num_threads()} intra-op threads")
# sphinx_gallery_tags = ["advanced", "multiprocessing"]

# %%
# ``share_memory_()`` copies once
# -------------------------------
# ``share_memory_()`` allocates a block of shared memory, copies the
# tensor's values there once and points the tensor at the new block, so its
# ``data_ptr()`` changes. Calling it again does nothing. Then a process that
# receives the tensor maps the same block instead of copying it, and an
# in-place write by any process is seen by all. ``model.share_memory()``
# does this for every parameter and buffer of a module.
t = torch.arange(4.0)
private_address = t.data_ptr()  # the address of the tensor's values
print(f"before: shared {t.is_shared()}")
t.share_memory_()
shared_address = t.data_ptr()
print(f"after:  shared {t.is_shared()}, values {t.tolist()}, ", end="")
print(f"new address {shared_address != private_address}")
t.share_memory_()  # already shared: no second copy
print(f"a second call moved it again: {t.data_ptr() != shared_address}")
# sphinx_gallery_start_ignore
assert t.is_shared() and shared_address != private_address
assert torch.equal(t, torch.arange(4.0))  # the values were copied over
assert t.data_ptr() == shared_address
# sphinx_gallery_end_ignore

# %%
# The values are the same, now at a new, shared address; the second call
# changed nothing.
#
# Where the workers' code must live
# ---------------------------------
# How a child process starts depends on the platform and Python version
# (details under "Going deeper"). On macOS and Windows, and on Linux from
# Python 3.14, the child does not get a copy of the parent: it starts from a
# fresh interpreter (or a clean server process) and *imports* the parent's
# script to find the function to run. Two rules make a script work everywhere:
# define the workers at the top level of a real file, and start them only under
# ``if __name__ == "__main__":``, so that importing the script starts nothing.
# Functions defined on this page or in a notebook cannot be imported by a
# child, so we write the training code to a file, in a temporary folder removed
# at the end.
#
# The script, part 1: data and model
# ----------------------------------
# Three spiral arms wound around each other, told apart only by curved
# boundaries; ``spirals`` draws the points from its own seeded generator.
SCRIPT = """\
import math
import sys

import torch
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn


def spirals(n_per_class, seed, classes=3, noise=0.3):
    gen = torch.Generator().manual_seed(seed)
    radius = torch.linspace(0.1, 1.0, n_per_class).repeat(classes)
    label = torch.arange(classes).repeat_interleave(n_per_class)
    angle = label * (2 * math.pi / classes) + 2 * math.pi * radius
    angle = angle + noise * torch.randn(angle.shape, generator=gen)
    points = torch.stack([radius * angle.cos(), radius * angle.sin()], 1)
    order = torch.randperm(len(label), generator=gen)  # mix the classes
    return points[order], label[order]


def make_model():
    return nn.Sequential(
        nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
        nn.Linear(64, 3),
    )
"""

# %%
# Part 2: one HOGWILD worker
# --------------------------
# HOGWILD (Niu et al., 2011) runs several SGD loops at once on one set of
# weights, without locks. Updates mostly add up; only when two workers
# update the same weight at the same instant can one overwrite the other's
# change. Each step changes the weights only a little, so a worker that read
# slightly stale weights still moves them in a useful direction. Each
# worker below trains on its own half of the data with its own optimizer
# (Adam's running averages stay private); ``opt.step()`` writes into the
# shared parameters.
# One intra-op thread per worker keeps two workers from competing for the
# same cores. Losses go into a shared tensor, which the parent saves, and
# so does whether every parameter its optimizer stepped was in shared memory.
SCRIPT += """

def train(rank, model, X, y, steps, losses, in_shared_memory):
    torch.set_num_threads(1)
    n_workers = losses.shape[0]
    X, y = X[rank::n_workers], y[rank::n_workers]  # this worker's half
    gen = torch.Generator().manual_seed(1000 + rank)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    model.train()
    for step in range(steps):
        idx = torch.randint(len(X), (32,), generator=gen)
        loss = F.cross_entropy(model(X[idx]), y[idx])
        opt.zero_grad()
        loss.backward()  # gradients: private to this process
        opt.step()  # update: written into the shared weights
        losses[rank, step] = loss.item()
    stepped = [p for group in opt.param_groups for p in group["params"]]
    in_shared_memory[rank] = all(p.is_shared() for p in stepped)
"""

# %%
# Part 3: the guarded main block
# ------------------------------
# Only the process that runs the script as ``__main__`` builds the data,
# moves the model's parameters to shared memory and starts the workers.
# ``mp.Process`` uses the platform's default start method; ``join`` waits
# for each worker, and a non-zero exit code means it failed. The parent
# saves the weights and the losses to the path given on the command line.
SCRIPT += """

if __name__ == "__main__":
    torch.manual_seed(0)
    X_train, y_train = spirals(200, seed=1)
    model = make_model()
    model.share_memory()  # parameters move to shared memory, once
    steps = 300
    losses = torch.zeros(2, steps).share_memory_()  # one row per worker
    in_shared_memory = torch.zeros(2, dtype=torch.bool).share_memory_()
    print(f"start method: {mp.get_start_method()}")
    args = (model, X_train, y_train, steps, losses, in_shared_memory)
    workers = [mp.Process(target=train, args=(r, *args)) for r in (0, 1)]
    for p in workers:
        p.start()
    for p in workers:
        p.join()
        assert p.exitcode == 0, f"a worker failed: exit code {p.exitcode}"
    print(f"2 workers x {steps} steps done")
    results = {"model": model.state_dict(), "losses": losses}
    results["in_shared_memory"] = in_shared_memory
    torch.save(results, sys.argv[1])
"""

# %%
# Running the script
# ------------------
# We start the script the way you would in a terminal,
# ``python hogwild.py results.pt``, with the interpreter that runs this page
# (``sys.executable``). ``subprocess.run`` collects what the script and its
# workers print. Its ``timeout`` kills the script if it hangs, but not the
# workers, which may outlive it.
import subprocess
import sys
import tempfile
from pathlib import Path

folder = Path(tempfile.mkdtemp())
script, results = folder / "hogwild.py", folder / "results.pt"
script.write_text(SCRIPT)
proc = subprocess.run(
    [sys.executable, str(script), str(results)],
    capture_output=True,
    text=True,
    timeout=300,
)
print(proc.stdout + proc.stderr)
# sphinx_gallery_start_ignore
assert proc.returncode == 0
# sphinx_gallery_end_ignore

# %%
# The script printed this machine's default start method, and both workers
# exited with code 0. To rebuild the model here we load the script's
# definitions with :func:`runpy.run_path` under the name ``__mp_main__``,
# exactly as a spawned child does: the functions are defined, but the guarded
# block does not run, so no ``model`` is trained and no workers start. Then the
# temporary folder can go.
import runpy
import shutil

defs = runpy.run_path(str(script), run_name="__mp_main__")
print(f"defined: train {'train' in defs}, model {'model' in defs}")
saved = torch.load(results, weights_only=True)
shutil.rmtree(folder)
losses = saved["losses"]
in_shared_memory = saved["in_shared_memory"]
X_test, y_test = defs["spirals"](200, seed=2)  # fresh points, same spirals
trained = defs["make_model"]()
trained.load_state_dict(saved["model"])
untrained = defs["make_model"]()
print(f"loaded {losses.shape[0]} workers x {losses.shape[1]} losses")
# sphinx_gallery_start_ignore
assert "train" in defs and "model" not in defs
# sphinx_gallery_end_ignore

# %%
# Did two processes train one model?
# ----------------------------------
# The workers' updates interleave differently on every run, so the final
# weights can differ from run to run. We check fixed bars instead, on 600 test
# points the workers never saw: the test loss of the saved weights is below
# half that of untrained weights, the accuracy is above 80% (a third is
# chance), and for each worker the median of its last 50 mini-batch losses
# is below half the median of its first 50. Losses that fall show that a
# worker learned; that it learned *into the shared model* is what its
# ``in_shared_memory`` flag records: every parameter it stepped was in
# shared memory, not a private copy.
import torch.nn.functional as F

trained.eval()
untrained.eval()
with torch.no_grad():
    logits = trained(X_test)
    loss_after = F.cross_entropy(logits, y_test).item()
    accuracy = (logits.argmax(dim=1) == y_test).float().mean().item()
    loss_before = F.cross_entropy(untrained(X_test), y_test).item()
early = losses[:, :50].median(dim=1).values
late = losses[:, -50:].median(dim=1).values
print(f"test loss: untrained {loss_before:.3f}, trained {loss_after:.3f}")
print(f"test accuracy: {accuracy:.1%}")
print("each worker's late losses below half its early ones: ", end="")
print(bool(torch.all(late < 0.5 * early)))
print(f"each worker trained shared parameters: {in_shared_memory.tolist()}")
# sphinx_gallery_start_ignore
assert in_shared_memory.all(), in_shared_memory
assert loss_after < 0.5 * loss_before, (loss_before, loss_after)
assert accuracy > 0.8, accuracy
assert torch.all(late < 0.5 * early), (early, late)
# sphinx_gallery_end_ignore

# %%
# The trained model beat the untrained one on fresh test points by a wide
# margin, both workers' losses fell, and both stepped parameters in shared
# memory: two processes trained one model.
#
# Going deeper
# ------------
# Optional on a first read: the workers' loss curves, the start methods in
# detail, and what the trained model learned.
#
# The workers' loss curves
# ~~~~~~~~~~~~~~~~~~~~~~~~
# Each worker's mini-batch loss, smoothed over 25 steps:
import matplotlib.pyplot as plt

window = 25
kernel = torch.ones(1, 1, window) / window
smooth = F.conv1d(losses.unsqueeze(1), kernel).squeeze(1)
steps = torch.arange(window - 1, losses.shape[1])
fig, ax = plt.subplots(figsize=(6, 3.5))
for rank in range(losses.shape[0]):
    ax.plot(steps.numpy(), smooth[rank].numpy(), label=f"worker {rank}")
ax.set_xlabel("step of this worker")
ax.set_ylabel(f"cross-entropy (mean of {window} steps)")
ax.set_title("HOGWILD: two processes training one shared model")
ax.legend()
fig.tight_layout()
plt.show()


# %%
# Both curves fall, although each worker saw only half of the points. (Two
# workers that each trained a private copy would draw falling curves too:
# the ``in_shared_memory`` flags above are what tell the cases apart.)
#
# How a child process starts
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Python has three *start methods*:
#
# * ``fork`` (Linux, macOS): the child is a *copy-on-write* clone of the
#   parent: it shares the parent's memory pages until either process writes to
#   one, which then gets copied. So it already holds every object the parent
#   had. It starts fast, but only the forking thread exists in the clone, and a
#   child cannot use CUDA once the parent has initialised it (PyTorch raises
#   "Cannot re-initialize CUDA in forked subprocess"). Forked workers are fine
#   if the parent has not initialised CUDA, or if they do not use it.
# * ``spawn``: the child is a fresh interpreter. It imports the parent's
#   main script under the name ``__mp_main__`` and receives the function to
#   run and its arguments by pickling, so the function must be importable.
# * ``forkserver`` (Linux, macOS): a clean server process forks each child;
#   the same importability rules as ``spawn``.
#
# The default is ``fork`` on Linux up to Python 3.13 and ``forkserver`` from
# Python 3.14; ``spawn`` on macOS and Windows. So the same code meets
# different rules on different machines. Code that runs under all three puts
# its workers at the top level of a script and starts them under
# ``if __name__ == "__main__":``. A spawned child imports the script; without
# the guard it would try to start workers of its own, and Python stops it
# with a ``RuntimeError`` ("An attempt has been made to start a new process
# before the current process has finished its bootstrapping phase").
#
# The script above printed the start method it ran under. From the list
# above, it is the default expected for this platform and Python version:
default = "fork" if sys.version_info < (3, 14) else "forkserver"
expected = "spawn" if sys.platform in ("darwin", "win32") else default
print(f"default expected on {sys.platform}, Python ", end="")
print(f"{sys.version_info.major}.{sys.version_info.minor}: {expected}")
# sphinx_gallery_start_ignore
assert f"start method: {expected}" in proc.stdout
# sphinx_gallery_end_ignore

# %%
# The start method also decides why ``model.share_memory()`` is needed.
# Under ``fork``, weights not in shared memory would be copied on the
# workers' first write, and the parent's model would not change. ``spawn``
# and ``forkserver`` move the tensors they pass to shared memory anyway;
# ``share_memory()`` makes the script behave the same under every method.
#
# The decision regions of the trained model
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The model's class at every point of a grid, with the test points on top:
grid = torch.linspace(-1.3, 1.3, 200)
gx, gy = torch.meshgrid(grid, grid, indexing="xy")
with torch.no_grad():
    points = torch.stack([gx.flatten(), gy.flatten()], dim=1)
    region = trained(points).argmax(dim=1).reshape(gx.shape)
fig, ax = plt.subplots(figsize=(4.5, 4.5))
bands = [-0.5, 0.5, 1.5, 2.5]  # one band per class
ax.contourf(gx, gy, region, levels=bands, cmap="Pastel1", alpha=0.8)
ax.scatter(X_test[:, 0], X_test[:, 1], c=y_test, cmap="Set1", s=8, vmax=8)
ax.set_xlabel("$x_1$")
ax.set_ylabel("$x_2$")
ax.set_title("Trained by HOGWILD, with test points")
ax.set_aspect("equal")
fig.tight_layout()
plt.show()
# sphinx_gallery_thumbnail_number = 2

# %%
# The boundaries follow the arms as they wind outwards.
#
# .. dropdown:: Coming from older PyTorch code?
#
#    - Sharing a model between threads (Lua Torch's ``threads`` package, or
#      Python's ``threading``): in standard CPython, threads cannot run
#      Python code in parallel, so PyTorch trains from processes.
#    - ``mp.set_start_method("spawn")`` at import time: it fixes the method
#      for the whole program and raises ``RuntimeError`` when called a second
#      time; ``mp.get_context("spawn")`` picks a method for one place
#      without changing the default.
#
# Takeaways
# ---------
# - ``share_memory_()`` copies a tensor into shared memory once; after that,
#   processes that receive it write into the same storage.
# - HOGWILD trains one shared model from several CPU processes without
#   locks; each worker keeps its own gradients and optimizer state.
# - Write workers as top-level functions of a real script and start them
#   under ``if __name__ == "__main__":``; that works under every start
#   method (this page ran the script under its machine's default only).
# - ``DataLoader(num_workers=...)`` starts its workers with the same
#   machinery: :ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`.
#
# Next, :ref:`sphx_glr_lessons_advanced_08_distributed_data_parallel.py`
# keeps every replica identical with synchronous data-parallel training,
# on several GPUs or machines.
