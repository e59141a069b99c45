"""
Datasets and DataLoaders
========================

A model learns from mini-batches, not from the whole dataset at once. This
lesson wraps NumPy arrays in a ``Dataset``, lets a ``DataLoader`` cut them
into shuffled batches in a reproducible order, splits off a validation set,
trains the two-layer network one batch at a time and, last, loads batches
in worker processes.

**You will learn** to build a ``TensorDataset`` and a ``DataLoader``, to
shuffle and split reproducibly with a seeded ``generator``, to write the
epoch loop with a validation pass and, in "Going deeper", to start worker
processes from a script that runs everywhere.

**You need first** :ref:`sphx_glr_lessons_nn_03_custom_module.py` (the
two-layer network, an optimizer, ``train()`` and ``eval()``).
"""

# %%
# Setup
# -----
# One seed for PyTorch's global random number generator; the shuffled
# loaders below get generators of their own.
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_parallel = False
# sphinx_gallery_tags = ["beginner", "data", "performance"]

# %%
# Data that is already in memory
# ------------------------------
# A :class:`~torch.utils.data.Dataset` answers two questions: "how many
# samples?" (``__len__``) and "give me sample ``i``" (``__getitem__``). A
# :class:`~torch.utils.data.DataLoader` decides which indices form a batch,
# fetches those samples and stacks them into batch tensors.
#
# Our data: 1,024 samples of 1,000 features and 10 targets, as ``float32``
# NumPy arrays (the dtype of the weights). Behind each sample sit 10 hidden
# random factors. Each feature is a random mix of them plus noise (the mix
# is divided by the square root of 10, so that its spread is about 1, like
# the noise's); each target is ``tanh`` of another mix (``teacher``), so it
# lies between -1 and 1.
# A network can only learn the targets by finding the factors in the noise.
import numpy as np

N, D_in, H, D_out = 1024, 1000, 100, 10
rng = np.random.default_rng(0)
factors = rng.standard_normal((N, 10), dtype=np.float32)
mixing = rng.standard_normal((10, D_in), dtype=np.float32) / 10**0.5
x_np = factors @ mixing + rng.standard_normal((N, D_in), dtype=np.float32)
teacher = rng.standard_normal((10, D_out), dtype=np.float32) / 10**0.5
y_np = np.tanh(2 * factors @ teacher)
print(f"x_np: {x_np.shape} {x_np.dtype}, y_np: {y_np.shape} {y_np.dtype}")

# %%
# :func:`torch.from_numpy` wraps the array's memory in a tensor: no bytes
# are copied, so a change to the array shows in the tensor (``torch.tensor``
# would copy). :class:`~torch.utils.data.TensorDataset` then returns, for
# index ``i``, the tuple of the ``i``-th rows of its tensors.
from torch.utils.data import DataLoader, TensorDataset

x, y = torch.from_numpy(x_np), torch.from_numpy(y_np)
x_np[0, 0] += 1.0  # change the array in place ...
print(f"array {x_np[0, 0]:.4f}, tensor {x[0, 0]:.4f}")  # ... same number
x_np[0, 0] -= 1.0
dataset = TensorDataset(x, y)
xi, yi = dataset[3]
print(f"len(dataset) = {len(dataset)}")
print(f"dataset[3]: x {tuple(xi.shape)}, y {tuple(yi.shape)}")
# sphinx_gallery_start_ignore
assert np.shares_memory(x.numpy(), x_np) and len(dataset) == N
assert xi.data_ptr() == x[3].data_ptr()  # a view into x, not a copy
# sphinx_gallery_end_ignore

# %%
# The rows of sample 3 are views into ``x`` and ``y``, so the dataset adds
# no copy either. Now the loader: it yields the samples in order, 100 at a
# time, each batch a pair of tensors with the batch as first dimension.
loader = DataLoader(dataset, batch_size=100)
xb, yb = next(iter(loader))
print(f"first batch: x {tuple(xb.shape)}, y {tuple(yb.shape)}")
sizes = [len(xb) for xb, yb in loader]
print(f"{len(loader)} batches, the last of {sizes[-1]} samples")
short = DataLoader(dataset, batch_size=100, drop_last=True)
print(f"drop_last=True: {len(short)} batches")
# sphinx_gallery_start_ignore
assert sizes[-1] == 24 and sum(sizes) == N and len(short) == 10
# sphinx_gallery_end_ignore

# %%
# 1,024 is not a multiple of 100, so the last batch is short;
# ``drop_last=True`` drops it, for code that needs equal batches.
#
# Shuffling, reproducibly
# -----------------------
# ``shuffle=True`` draws a new order at the start of each pass over the data
# (an *epoch*), from the ``generator`` you pass (a ``torch.Generator`` is a
# random stream of its own, seeded with ``manual_seed``). Two loaders with
# equally seeded generators visit the samples in the same order. We record the
# order with a dataset that holds the indices ``0, 1, ..., 1023``.
index_set = TensorDataset(torch.arange(N))


def epoch_order(loader):
    return torch.cat([idx for (idx,) in loader])  # like np.concatenate


def shuffled(data, seed, batch_size=100, **options):
    gen = torch.Generator().manual_seed(seed)
    return DataLoader(data, batch_size, shuffle=True, generator=gen, **options)


loader_a, loader_b = shuffled(index_set, 7), shuffled(index_set, 7)
a1, a2 = epoch_order(loader_a), epoch_order(loader_a)
noise = torch.randn(5)  # a draw from the global generator in between
b1, b2 = epoch_order(loader_b), epoch_order(loader_b)
print(f"loader a: epoch 1 {a1[:5].tolist()}, epoch 2 {a2[:5].tolist()}")
print(f"loader b: epoch 1 {b1[:5].tolist()}, epoch 2 {b2[:5].tolist()}")
# sphinx_gallery_start_ignore
assert torch.equal(a1, b1) and torch.equal(a2, b2)
assert not torch.equal(a1, a2)
assert torch.equal(a1.sort().values, torch.arange(N))
# sphinx_gallery_end_ignore

# %%
# Each epoch visits every sample once in a new order, and loader ``b``
# repeats loader ``a`` epoch by epoch: the draw from the global generator
# in between changed nothing, because the loaders draw only from their own.
#
# A seeded ``random_split``
# -------------------------
# :func:`~torch.utils.data.random_split` cuts a dataset into disjoint
# :class:`~torch.utils.data.Subset` objects, which store only indices. Give
# it a generator too: otherwise it draws from the global one, and the split
# then depends on every random draw made before it.
from torch.utils.data import random_split

gen = torch.Generator().manual_seed(0)
# fractions become sizes: rounded down, the leftover sample to the first
train_set, val_set = random_split(dataset, [0.8, 0.2], generator=gen)
print(f"train: {len(train_set)} samples, validation: {len(val_set)}")
print(f"the first validation indices: {val_set.indices[:5]}")
# sphinx_gallery_start_ignore
assert (len(train_set), len(val_set)) == (820, 204)
assert set(train_set.indices).isdisjoint(val_set.indices)
# sphinx_gallery_end_ignore

# %%
# Training the two-layer network over a loader
# --------------------------------------------
# The network of :ref:`sphx_glr_lessons_nn_01_nn_package.py`, trained with
# mini-batches: an outer loop over epochs, an inner loop over the shuffled
# training loader. After each epoch, ``model.eval()`` and one pass over
# each split under :func:`torch.no_grad` measure the mean loss.
# ``weight_decay`` pulls every weight slightly towards zero at each step, a
# common guard against overfitting.
#
# Two options help only when batches are copied to a GPU; this page asks for
# them on a CUDA GPU. ``pin_memory=True`` makes the loader put batches in
# page-locked ("pinned") memory, and from there a ``non_blocking=True`` copy
# returns at once, so the CPU can get the next batch ready while the copy runs
# (the copy still takes its turn on the GPU, as
# :ref:`sphx_glr_lessons_advanced_02_devices.py` explains).
from torch import nn

model = nn.Sequential(nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out))
model = model.to(device)
loss_fn = nn.MSELoss()
opt = torch.optim.SGD(
    model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-2
)
pin = device.type == "cuda"
train_loader = shuffled(train_set, 1, pin_memory=pin)
eval_loaders = {
    "train": DataLoader(train_set, batch_size=256, pin_memory=pin),
    "validation": DataLoader(val_set, batch_size=256, pin_memory=pin),
}


def mean_loss(loader):
    total = 0.0
    with torch.no_grad():
        for xb, yb in loader:
            xb = xb.to(device, non_blocking=pin)
            yb = yb.to(device, non_blocking=pin)
            total += loss_fn(model(xb), yb).item() * len(xb)
    return total / len(loader.dataset)


# %%
# The loop; the loss on each split is measured before training and after
# each epoch.
model.eval()
history = {name: [mean_loss(ld)] for name, ld in eval_loaders.items()}
t, v = history["train"][0], history["validation"][0]
print(f"before training: train {t:.4f}, validation {v:.4f}")
for epoch in range(10):
    model.train()
    for xb, yb in train_loader:
        # sphinx_gallery_start_ignore
        assert xb.is_pinned() == pin
        # sphinx_gallery_end_ignore
        xb = xb.to(device, non_blocking=pin)
        yb = yb.to(device, non_blocking=pin)
        loss = loss_fn(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    for name, ld in eval_loaders.items():
        history[name].append(mean_loss(ld))
    if epoch in (0, 4, 9):
        t, v = history["train"][-1], history["validation"][-1]
        print(f"epoch {epoch + 1:2d}: train {t:.4f}, validation {v:.4f}")
# sphinx_gallery_start_ignore
assert loss.grad_fn is not None  # the old-code box: Variable cuts the graph
assert torch.autograd.Variable(loss).grad_fn is None  # noqa: TID251
assert history["train"][-1] < 0.1 * history["train"][0]
assert history["validation"][-1] < 0.4 * history["validation"][0]
assert history["validation"][-1] > history["train"][-1]
# sphinx_gallery_end_ignore

# %%
# The training loss fell more than tenfold and the validation loss to below
# 40% of its start: what the network learned from the training batches
# carries over to the 204 samples it never trained on. The validation loss
# ends above the training loss; that gap is a first sign of overfitting,
# the subject of later lessons.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 4))
for name, values in history.items():
    ax.plot(range(len(values)), values, marker="o", label=name)
ax.set_xlabel("epochs completed")
ax.set_ylabel("mean squared error")
ax.set_title("Two-layer net trained from a DataLoader")
ax.legend()
plt.show()

# %%
# The loaders above read samples that sit in memory. A dataset that reads
# and decodes a file per sample can load batches in parallel worker
# processes, with ``num_workers``: the first topic below.
#
# Going deeper
# ------------
# Optional on a first read: loading in worker processes, random numbers in
# workers, what a pass over a loader draws from the global generator,
# keeping workers between epochs, fetching whole batches at once, and how
# workers start.
#
# Loading in worker processes
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# With ``num_workers=2`` the loader starts two worker processes that prepare
# batches while the main process trains. Each worker needs the dataset. On
# macOS and Windows (and on Linux from Python 3.14) a worker is a fresh
# Python process that imports your script to find the dataset's class, so
# two rules make the code run everywhere:
#
# - the ``Dataset`` class sits at the top level of a file (the script, or a
#   module it imports), not in a notebook cell;
# - the code that starts the loader sits under
#   ``if __name__ == "__main__":``, which is false in a worker that imports
#   the script; without it, each worker would try to start workers of its
#   own, and Python stops with an error.
#
# This page cannot be imported like a script, so we write a real one, as
# you would. Its dataset makes each sample from its index with a little
# work, and returns the id of the process that made it:
SCRIPT = """\
import os
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

FREQ2 = np.fft.fftfreq(64)[:, None] ** 2 + np.fft.rfftfreq(64) ** 2
LOW_PASS = np.exp(-400 * FREQ2)  # keeps the slow changes of an image


class BlurredNoise(Dataset):  # sample i: noise from seed i, blurred
    def __len__(self):
        return 256

    def __getitem__(self, i):
        image = np.random.default_rng(i).random((64, 64))
        for _ in range(20):  # some work, as decoding a photo would be
            image = np.fft.irfft2(np.fft.rfft2(image) * LOW_PASS)
        return torch.from_numpy(image.astype(np.float32)), os.getpid()
"""

# %%
# The guarded part loads every sample once without workers and once with
# two, and says which processes made the batches and whether the images
# came out the same:
SCRIPT += """

if __name__ == "__main__":
    for workers in [0, 2]:
        loader = DataLoader(BlurredNoise(), batch_size=32, num_workers=workers)
        start = time.perf_counter()
        batches = list(loader)
        ms = (time.perf_counter() - start) * 1000
        images = torch.cat([image for image, _ in batches])
        pids = {pid for _, pids in batches for pid in pids.tolist()}
        if workers == 0:
            first = images
        where = "the main process" if pids == {os.getpid()} else "workers"
        print(f"num_workers={workers}: {len(pids)} process(es), {where}, "
              f"same images: {torch.equal(images, first)}, {ms:.0f} ms")
"""

# %%
# We save the script in a temporary folder and start it with the Python
# that runs this page (:data:`sys.executable`), as ``python blur.py`` would
# in a terminal. ``subprocess.run`` waits for it, at most 120 seconds, and
# collects what it printed; ``check_returncode`` raises if it failed.
import subprocess
import sys
import tempfile
from pathlib import Path

folder = tempfile.TemporaryDirectory()


def run_script(name, source):
    path = Path(folder.name) / name
    path.write_text(source)
    command = [sys.executable, str(path)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    print(run.stdout + run.stderr)
    run.check_returncode()
    return run.stdout


out = run_script("blur.py", SCRIPT)
# sphinx_gallery_start_ignore
assert "num_workers=0: 1 process(es), the main process" in out
assert "num_workers=2: 2 process(es), workers, same images: True" in out
# sphinx_gallery_end_ignore

# %%
# With ``num_workers=2`` two worker processes, not the main one, made the
# batches, and the images are the same as without workers: for a dataset
# that draws no random numbers, workers change the speed, not the data.
# The times vary from run to run and machine to machine; workers pay off
# when a sample costs real work and cores are free. Start with about one
# worker per spare core, then measure.
#
# Random numbers in workers
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# Random augmentation draws random numbers inside ``__getitem__``, in the
# workers. At each pass the loader draws a base seed from its ``generator``
# (from the global generator if it has none), and worker ``k`` starts with
# PyTorch's global generator seeded ``base_seed + k``; PyTorch also seeds
# Python's ``random`` module and NumPy's global ``np.random`` functions in
# each worker. A generator *object* that the dataset holds, such as a NumPy
# ``default_rng``, is different: each worker gets its own copy, in the same
# state, and draws the same numbers as the other workers. A
# ``worker_init_fn``, which runs in each worker before its first sample,
# can reseed it from :func:`~torch.utils.data.get_worker_info`'s ``seed``.
# Like the dataset, it must sit at the top level of the script.
SEEDS = """\
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Jitter(Dataset):  # sample i: i, its worker, and three random draws
    def __init__(self):
        self.rng = np.random.default_rng(0)  # copied into every worker

    def __len__(self):
        return 4

    def __getitem__(self, i):
        worker = get_worker_info().id
        draws = torch.rand(()).item(), np.random.random(), self.rng.random()
        return i, worker, *draws


def reseed(worker_id):  # runs in each worker, before its first sample
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)
"""

# %%
# The guarded part runs two workers, one sample per batch, without and with
# ``reseed``; the loader's seeded generator makes every number repeat from
# run to run. Worker 0 makes samples 0 and 2, worker 1 samples 1 and 3.
SEEDS += """

if __name__ == "__main__":
    for init in [None, reseed]:
        gen = torch.Generator().manual_seed(0)
        loader = DataLoader(
            Jitter(), num_workers=2, generator=gen, worker_init_fn=init
        )
        print(f"worker_init_fn={init and init.__name__}:")
        for i, worker, t, g, n in loader:
            print(f"  sample {i.item()}, worker {worker.item()}: "
                  f"torch {t.item():.4f}, np.random {g.item():.4f}, "
                  f"self.rng {n.item():.4f}")
"""
out = run_script("seeds.py", SEEDS)
# sphinx_gallery_start_ignore
assert out.count("self.rng 0.6370") == 2  # the same draw, twice
assert out.count("self.rng 0.2698") == 2
assert out.count("torch 0.7821") == 2  # repeats with the seed
# sphinx_gallery_end_ignore

# %%
# Without ``reseed``, samples 0 and 1 (and 2 and 3) got the same
# ``self.rng`` number although different workers made them: the two copies
# of the dataset's generator started in the same state. The ``torch`` and
# ``np.random`` columns differ throughout, since PyTorch seeded both in each
# worker. With ``reseed``, the ``self.rng`` numbers differ too.
#
# What a pass over a loader draws
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A loader draws that base seed at every pass, even without workers and
# without shuffling. So a loader without a ``generator`` advances the
# global generator each time it runs:
gen = torch.Generator().manual_seed(0)
kept = {}
for name, options in [("without", {}), ("with", {"generator": gen})]:
    state = torch.get_rng_state()
    for batch in DataLoader(index_set, batch_size=512, **options):
        pass
    kept[name] = torch.equal(state, torch.get_rng_state())
    print(f"{name} a generator: global generator unchanged? {kept[name]}")
# sphinx_gallery_start_ignore
assert kept == {"without": False, "with": True}
# sphinx_gallery_end_ignore

# %%
# Code that runs one more pass on some machines than on others (say, a
# loader that is only iterated where some option is available) therefore
# changes every later draw from the global generator, the initial weights
# of the next model among them, and its printed numbers differ from
# machine to machine. Giving such loaders a ``generator``, or running them
# in a separate script as this page does with its workers, keeps the rest
# of the program's random numbers the same everywhere.
#
# Keeping workers between epochs
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# By default the workers start at the beginning of each epoch and stop at
# its end; ``persistent_workers=True`` keeps them for the next epoch, which
# saves their start-up time. With
# workers, ``prefetch_factor`` says how many batches each one prepares
# ahead; without workers there is nothing to prefetch and it is ``None``.
# This script imports ``BlurredNoise`` from ``blur.py`` in the same folder:
KEEP = """\
from torch.utils.data import DataLoader

from blur import BlurredNoise

if __name__ == "__main__":
    for keep in [False, True]:
        loader = DataLoader(BlurredNoise(), batch_size=32, num_workers=2,
                            persistent_workers=keep)
        epochs = [{p for _, ps in loader for p in ps.tolist()} for _ in "ab"]
        print(f"persistent_workers={keep}: same workers in epoch 2? "
              f"{epochs[0] == epochs[1]}")
    print(f"prefetch_factor: {loader.prefetch_factor} with workers, "
          f"{DataLoader(BlurredNoise()).prefetch_factor} without")
"""
out = run_script("keep.py", KEEP)
# sphinx_gallery_start_ignore
assert "persistent_workers=False: same workers in epoch 2? False" in out
assert "persistent_workers=True: same workers in epoch 2? True" in out
assert "prefetch_factor: 2 with workers, None without" in out
# sphinx_gallery_end_ignore
folder.cleanup()  # delete the three scripts

# %%
# Without ``persistent_workers`` the second epoch was made by new worker
# processes; with it, by the same two. ``prefetch_factor`` is 2 with
# workers and ``None`` without.
#
# Whole batches from an in-memory dataset
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The loader calls ``dataset[i]`` once per sample and then stacks the
# results, unless the dataset has a ``__getitems__`` method that takes a
# list of indices. (A ``Subset`` has one, but it only passes the list on
# when the dataset under it has one too; a ``TensorDataset`` has none, so
# ``train_set`` above was read one sample at a time.) When samples are
# small, say a table of 16,384 rows of 10 numbers, that per-sample Python
# work can cost more than the data. A dataset that can be indexed with a
# list, like a ``TensorDataset``, can instead get one list of indices per
# batch: pass a :class:`~torch.utils.data.BatchSampler` as ``sampler`` and
# ``batch_size=None``, which turns the loader's own batching off, so each
# list of indices goes to the dataset whole and its answer is the batch.
import time

from torch.utils.data import BatchSampler, RandomSampler

table = TensorDataset(torch.randn(16384, 10), torch.randn(16384))


def batch_loader(data, seed, batch_size):
    gen = torch.Generator().manual_seed(seed)
    sampler = RandomSampler(data, generator=gen)
    sampler = BatchSampler(sampler, batch_size, drop_last=False)
    # the loader draws a seed from gen first, as it does when it shuffles
    return DataLoader(data, sampler=sampler, batch_size=None, generator=gen)


# %%
# The same seed gives the same batches both ways; we time one epoch of each.
start = time.perf_counter()
per_item = [xb for xb, yb in shuffled(table, 3, 256)]
ms_item = (time.perf_counter() - start) * 1000
start = time.perf_counter()
per_batch = [xb for xb, yb in batch_loader(table, 3, 256)]
ms_batch = (time.perf_counter() - start) * 1000
same = all(torch.equal(a, b) for a, b in zip(per_item, per_batch))
print(f"per item: {len(per_item)} batches in {ms_item:.1f} ms")
print(f"per batch: {len(per_batch)} batches in {ms_batch:.1f} ms")
print(f"same batches: {same}")
# sphinx_gallery_start_ignore
assert same and len(per_item) == len(per_batch) == 64
assert not hasattr(TensorDataset, "__getitems__")
# sphinx_gallery_end_ignore

# %%
# The timings are from one run and vary from machine to machine.
# Batch-wise indexing suits small samples already in memory; a dataset that
# reads or decodes a file per sample gains little from it, and workers
# help more.
#
# How worker processes start
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# Python's :mod:`multiprocessing` has three *start methods*. ``fork`` (the
# default on Linux up to Python 3.13) copies the running process, which
# already holds the dataset. ``spawn`` (the default on macOS and Windows)
# and ``forkserver`` (the default on Linux from Python 3.14) start a fresh
# interpreter, which imports the main script under the name
# ``__mp_main__`` and receives the dataset, and ``worker_init_fn``, by
# pickling. That is why the two rules above matter, and why a forked
# worker forgives code that breaks them. The scripts above follow the
# rules, so they print the same numbers under every start method; the
# ``multiprocessing_context`` argument of ``DataLoader`` picks one method
# for a loader, if you ever need to test that.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``inputs, labels = Variable(inputs), Variable(labels)`` in the loader
#      loop: tensors track gradients themselves since PyTorch 0.4, so
#      batches go straight into the model. Today ``Variable(t)`` returns a
#      plain tensor with no link to the graph, so a ``Variable`` wrapped
#      around a result silently stops gradients there.
#    - ``worker_init_fn`` that calls ``np.random.seed(...)`` with the
#      worker id: before PyTorch 1.9, every forked worker started with the
#      same NumPy global state. PyTorch now seeds ``np.random`` and
#      ``random`` in each worker; only generator objects that a dataset
#      holds still need reseeding.

# %%
# Takeaways
# ---------
# - A ``Dataset`` says how many samples there are and returns sample ``i``;
#   ``TensorDataset`` over ``torch.from_numpy`` tensors copies nothing
#   (each batch is then a new tensor, stacked from the samples).
# - A ``DataLoader`` cuts a dataset into batches; ``shuffle=True`` with a
#   seeded ``generator`` gives a new, reproducible order every epoch, and
#   ``random_split`` with a generator gives a reproducible split.
# - Train over the shuffled training loader; after each epoch, measure the
#   loss on every split under ``model.eval()`` and ``torch.no_grad()``.
# - When a sample costs time to load, ``num_workers`` loads batches in
#   other processes (see "Going deeper"): keep the ``Dataset`` at the top
#   level of a script and start the loader under
#   ``if __name__ == "__main__":``.
#
# Next, :ref:`sphx_glr_lessons_nn_05_classic_cnn.py` builds a
# convolutional network for images, the kind of model that batches like
# these feed.


# %%
# Exercises
# ---------
# Three exercises on datasets, loaders and the evaluation pass. Each cell
# ends with a check: run it after your attempt and it says whether you are
# right. Solutions are at the end.
#
# **Exercise 1: count the batches.** A dataset holds 50 samples. Without
# running anything, work out how many batches
# ``DataLoader(dataset, batch_size=8)`` yields, how many samples its last
# batch holds, and how many batches it yields with ``drop_last=True``.
# Answer with three whole numbers, such as ``(5, 3, 4)``.
import math

from torch.utils.data import Dataset


def check_exercise_1(answer):
    """Exercise 1's check: run it on your answer."""
    if answer is ...:
        print("Exercise 1 not attempted yet: replace ... with three numbers")
        return
    if not isinstance(answer, (tuple, list)) or len(answer) != 3:
        raise AssertionError(
            f"answer with three whole numbers in a tuple, such as (5, 3, 4),"
            f" not {answer!r}"
        )
    numbers = []
    for guess in answer:
        try:
            if isinstance(guess, (str, bytes, bool)):
                raise TypeError
            numbers.append(float(guess))
        except (TypeError, ValueError, RuntimeError):
            raise AssertionError(
                f"answer with three whole numbers, not {guess!r}"
            ) from None
    dataset = torch.utils.data.TensorDataset(torch.arange(50))
    sizes = [len(b) for (b,) in torch.utils.data.DataLoader(dataset, 8)]
    short = torch.utils.data.DataLoader(dataset, 8, drop_last=True)
    batches, last, kept = answer
    if numbers[0] != len(sizes):
        raise AssertionError(
            f"the number of batches is not {batches}: the loader yields "
            "full batches of 8, then one more for the samples left over"
        )
    if numbers[1] != sizes[-1]:
        raise AssertionError(
            f"the last batch's size is not {last}: it holds the samples "
            "left after the full batches of 8"
        )
    if numbers[2] != len(short):
        raise AssertionError(
            f"the number of batches with drop_last=True is not {kept}: "
            "drop_last drops only the short last batch"
        )
    print("Exercise 1: correct")


# %%
# Your attempt at exercise 1, then its check:


answer_1 = ...  # (batches, size of the last, batches with drop_last)
check_exercise_1(answer_1)

# %%
# **Exercise 2: a dataset of your own.** Write a ``Dataset`` subclass
# ``Squares(n)`` with ``n`` samples, in which sample ``i`` is the pair
# ``(x, y)`` of ``float32`` tensors of shape ``(1,)``, ``x`` holding ``i``
# and ``y`` holding ``i ** 2``. A ``DataLoader`` should then stack them
# into batches of shape ``(batch_size, 1)``. For an index past the end,
# ``__getitem__`` raises ``IndexError``: a class without an ``__iter__``
# method, as a ``Dataset`` is, can still be looped over with
# ``for x, y in Squares(3)``, because Python then calls ``__getitem__``
# with 0, 1, 2, ... until it raises ``IndexError``; without that, the loop
# never ends. The skeleton below names the three methods: ``__init__``
# keeps ``n``, and the other two answer the two questions of the first
# section. Replace each ``...`` with your code.


def check_exercise_2(fn):
    """Exercise 2's check: run it on your class."""
    dataset = fn(10)
    if not hasattr(dataset, "__len__"):
        raise AssertionError(
            "Squares has no __len__ method: check its name, __len__ with "
            "two underscores on each side"
        )
    length = dataset.__len__()
    try:
        sample = dataset[3]
    except NotImplementedError as err:
        raise AssertionError(
            f"dataset[3] gave NotImplementedError ({err}): Dataset's own "
            "__getitem__ ran, so yours is missing; check its name, "
            "__getitem__ with two underscores on each side"
        ) from err
    if length is ... and sample is ...:
        print("Exercise 2 not attempted yet: write Squares' three methods")
        return
    for method, value in [("__len__", length), ("__getitem__", sample)]:
        if value is ...:
            raise AssertionError(
                f"{method} still returns ... (the starter's placeholder): "
                "write it, and keep n in __init__"
            )
    for n in [10, 7, 13]:
        dataset = fn(n)
        length = dataset.__len__()
        if isinstance(length, bool) or not isinstance(length, int):
            raise AssertionError(
                f"__len__ should return a whole number (an int), not "
                f"{type(length).__name__}"
            )
        if length != n:
            raise AssertionError(
                f"Squares({n}) says it has {length} samples, not {n}: "
                "__len__ should return the n given to __init__"
            )
    for i in [3, 0, 12, 5]:
        sample = dataset[i]
        if not isinstance(sample, (tuple, list)) or len(sample) != 2:
            raise AssertionError(
                f"sample {i} should be a pair (x, y), not {type(sample)}"
            )
        for name, t, value in [("x", sample[0], i), ("y", sample[1], i**2)]:
            if not isinstance(t, torch.Tensor):
                raise AssertionError(
                    f"sample {i}'s {name} should be a tensor, not "
                    f"{type(t).__name__}"
                )
            if t.dtype != torch.float32:
                raise AssertionError(
                    f"sample {i}'s {name} should be a float32 tensor, not "
                    f"{t.dtype}"
                )
            if t.shape != (1,):
                raise AssertionError(
                    f"sample {i}'s {name} should have shape (1,), not "
                    f"{tuple(t.shape)}"
                )
            if t.item() != value:
                raise AssertionError(
                    f"sample {i}'s {name} should hold {value}, not "
                    f"{t.item():g}"
                )
    try:
        dataset[13]
    except IndexError:
        pass
    except Exception as err:
        raise AssertionError(
            f"Squares(13)[13] raised {type(err).__name__}: raise IndexError, "
            "the error that ends a for loop over the dataset"
        ) from err
    else:
        raise AssertionError(
            "Squares(13)[13] should raise IndexError (an index past the "
            "end), or a for loop over the dataset never stops"
        )
    seen = []
    for x, y in fn(3):
        seen.append(x.item())
        if len(seen) > 5:
            break
    if seen != [0, 1, 2]:
        raise AssertionError(
            f"a for loop over Squares(3) gave x = {seen}, not [0, 1, 2]: "
            "raise IndexError when i >= n"
        )
    loader = torch.utils.data.DataLoader(fn(10), batch_size=4)
    xb, yb = list(loader)[-1]
    if xb.shape != (2, 1) or yb.tolist() != [[64.0], [81.0]]:
        raise AssertionError(
            "the last batch of 4 should hold samples 8 and 9: x of shape "
            f"(2, 1), y [[64.0], [81.0]]; got x {tuple(xb.shape)}, "
            f"y {yb.tolist()}"
        )
    print("Exercise 2: correct")


# %%
# Your attempt at exercise 2, then its check:


class Squares(Dataset):
    def __init__(self, n):
        self.n = ...  # replace ... with your code

    def __len__(self):
        return ...  # replace ... with your code

    def __getitem__(self, i):
        return ...  # replace ... with your code


check_exercise_2(Squares)

# %%
# **Exercise 3: the mean loss over a loader.** Write
# ``average_loss(model, loader, loss_fn)``, which returns, as a Python
# number, the mean of ``loss_fn`` over *every sample* the loader yields,
# where ``loss_fn`` averages over its batch (as ``nn.MSELoss()`` does). Put
# the model in evaluation mode and record no gradients while you measure,
# and leave the model in the mode you found it in (training or
# evaluation), as the loop of this lesson expects. The last batch may be
# smaller than the others.


def check_exercise_3(fn):
    """Exercise 3's check: run it on your attempt."""
    seen = []  # (grad mode, training mode) at each forward pass

    def record(module, args):
        seen.append((torch.is_grad_enabled(), module.training))

    for n, size, loss_fn, mode in [
        (10, 4, torch.nn.MSELoss(), True),
        (11, 3, torch.nn.L1Loss(), False),
    ]:
        with torch.random.fork_rng(devices=[]):  # the page's seed untouched
            torch.manual_seed(n)
            model = torch.nn.Sequential(
                torch.nn.Linear(3, 8),
                torch.nn.Dropout(0.5),
                torch.nn.Linear(8, 1),
            )
            x = torch.randn(n, 3)
        y = x.sum(dim=1, keepdim=True)
        data = torch.utils.data.TensorDataset(x, y)
        loader = torch.utils.data.DataLoader(data, batch_size=size)
        model.eval()
        with torch.no_grad():
            means = [loss_fn(model(xb), yb).item() for xb, yb in loader]
            expected = loss_fn(model(x), y).item()
        sizes = [len(xb) for xb, yb in loader]
        model.train(mode)
        seen.clear()
        hook = model.register_forward_pre_hook(record)
        try:
            result = fn(model, loader, loss_fn)
        finally:
            hook.remove()
        if result is ...:
            print(
                "Exercise 3 not attempted yet: write the body of average_loss"
            )
            return
        if any(grad for grad, _ in seen):
            raise AssertionError(
                "the model ran with gradients recorded: wrap the loop in "
                "torch.no_grad() (model.eval() alone does not stop that)"
            )
        if any(training for _, training in seen):
            raise AssertionError(
                "the model ran in training mode (dropout on): call "
                "model.eval() before the loop"
            )
        if not torch.is_grad_enabled():
            torch.set_grad_enabled(True)  # undo it, for the rest of the page
            raise AssertionError(
                "gradient recording was left off after the call: use "
                "with torch.no_grad(): so that it is switched back on"
            )
        if model.training != mode:
            was = "training" if mode else "evaluation"
            raise AssertionError(
                f"the model was in {was} mode before the call and is not "
                "after it: remember model.training and restore it with "
                "model.train(was_training)"
            )
        if not all(p.requires_grad for p in model.parameters()):
            raise AssertionError(
                "the model's parameters no longer require gradients: "
                "torch.no_grad() records none without changing the model"
            )
        if isinstance(result, torch.Tensor):
            raise AssertionError(
                "return a Python float, not a tensor: use .item()"
            )
        if not isinstance(result, (int, float)):
            raise AssertionError(
                f"return a Python float, not {type(result).__name__}"
            )
        weighted = sum(m * s for m, s in zip(means, sizes))
        wrong = {
            "that is the mean of the batch means: the last batch holds "
            f"{sizes[-1]} samples, not {size}, so weight each batch's "
            "mean by its size": sum(means) / len(means),
            "that is the sum of the batch means: weight each by its "
            "size and divide by the number of samples": sum(means),
            "that is the sum over samples: divide it by the number of "
            "samples": weighted,
            "that divides by the number of batches: divide by the number "
            "of samples": weighted / len(means),
            f"that weights every batch by {size}: the last batch holds "
            f"only {sizes[-1]}, use len(xb)": sum(means) * size / n,
            "that is the loss of the first batch only: loop over every "
            "batch": means[0],
            "that divides by len(loader) * batch_size, which counts the "
            "short last batch as full: divide by the number of samples, "
            "len(loader.dataset)": weighted / (len(means) * size),
        }
        if not math.isclose(result, expected, rel_tol=1e-5):
            for message, value in wrong.items():
                if math.isclose(result, value, rel_tol=1e-5):
                    raise AssertionError(message)
            raise AssertionError(
                f"expected {expected:.6f}, got {result:.6f}: the mean of "
                "loss_fn over every sample"
            )
    print("Exercise 3: correct")


# %%
# Your attempt at exercise 3, then its check:


def average_loss(model, loader, loss_fn):
    return ...  # replace ... with your code


check_exercise_3(average_loss)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.

# %%

# Solution 1: count the batches
# 50 = 6 * 8 + 2: six full batches and a seventh of 2, which drop_last
# drops.
answer_1 = (7, 2, 6)
check_exercise_1(answer_1)

# %%


# Solution 2: a dataset of your own
class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:  # ends a for loop over the dataset
            raise IndexError(f"index {i} out of range for {self.n} samples")
        x = torch.tensor([float(i)])  # float32, shape (1,)
        return x, x**2


check_exercise_2(Squares)

# %%


# Solution 3: the mean loss over a loader
def average_loss(model, loader, loss_fn):
    was_training = model.training
    model.eval()  # dropout off, batch norm on its running statistics
    total, count = 0.0, 0
    with torch.no_grad():
        for xb, yb in loader:
            total += loss_fn(model(xb), yb).item() * len(xb)
            count += len(xb)
    model.train(was_training)  # leave the mode as we found it
    return total / count


check_exercise_3(average_loss)
