"""
Datasets and DataLoaders
========================

A model learns from mini-batches, not from the whole dataset at once. This
lesson wraps NumPy arrays in a ``TensorDataset`` without copying them, lets a
``DataLoader`` cut them into shuffled batches in a reproducible order, splits
off a validation set, looks at worker processes and at fetching whole batches
at once, and trains the two-layer network of
:ref:`sphx_glr_lessons_nn_01_nn_package.py` one batch at a time.
"""

# %%
# Setup
# -----
# One seed; every random choice below uses it or a generator of its own.
import torch

# sphinx_gallery_parallel = False
torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["beginner", "data", "performance"]

# %%
# Data that is already in memory
# ------------------------------
# A :class:`~torch.utils.data.Dataset` answers "how many samples?"
# (``__len__``) and "give me sample ``i``" (``__getitem__``). A
# :class:`~torch.utils.data.DataLoader` decides which indices form a batch,
# fetches them (optionally in worker processes) and stacks them into batch
# tensors. Our data: 1,024 samples of 1,000 noisy features driven by 10
# hidden factors, and 10 targets that are a fixed nonlinear function of
# those factors, as ``float32`` NumPy arrays (the dtype of the weights).
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
# :func:`torch.from_numpy` wraps the array's memory in a tensor: no bytes are
# copied, and a change to one is visible in the other (:func:`torch.tensor`
# always copies). :class:`~torch.utils.data.TensorDataset` returns, for index
# ``i``, the tuple of the ``i``-th rows of its tensors; those rows are views,
# so the dataset adds no copy either. 1,024 is not a multiple of 100, so
# with ``batch_size=100`` the last batch is short; ``drop_last=True`` drops
# it.
from torch.utils.data import DataLoader, TensorDataset

x, y = torch.from_numpy(x_np), torch.from_numpy(y_np)
assert not np.shares_memory(torch.tensor(x_np).numpy(), x_np)
x_np[0, 0] += 1.0  # change the array in place ...
assert x[0, 0].item() == x_np[0, 0]  # ... and the tensor sees it
x_np[0, 0] -= 1.0
dataset = TensorDataset(x, y)
xi, yi = dataset[3]
assert len(dataset) == N
assert xi.data_ptr() == x[3].data_ptr()  # a view into x, not a copy
print(f"dataset[3] -> x {tuple(xi.shape)} {xi.dtype}, y {tuple(yi.shape)}")
sizes = [len(xb) for xb, yb in DataLoader(dataset, batch_size=100)]
print(f"batch_size=100: {len(sizes)} batches, the last of {sizes[-1]}")
assert sizes[-1] == 24 and sum(sizes) == N
assert len(DataLoader(dataset, batch_size=100, drop_last=True)) == 10

# %%
# Shuffling, reproducibly
# -----------------------
# ``shuffle=True`` draws a new permutation at the start of each epoch, from
# ``generator`` when you pass one. Two loaders with equally seeded generators
# visit the samples in the same order, whatever else drew random numbers in
# between. We record the order with a dataset that holds ``arange(N)``.
index_set = TensorDataset(torch.arange(N))


def epoch_order(loader):
    return torch.cat([idx for (idx,) in loader])


def shuffled(data, seed, batch_size=100, **options):
    gen = torch.Generator().manual_seed(seed)
    return DataLoader(data, batch_size, shuffle=True, generator=gen, **options)


loader_a, loader_b = shuffled(index_set, 7), shuffled(index_set, 7)
a1, a2 = epoch_order(loader_a), epoch_order(loader_a)
torch.randn(5)  # draws from the global generator change nothing below
b1, b2 = epoch_order(loader_b), epoch_order(loader_b)
assert torch.equal(a1, b1) and torch.equal(a2, b2)  # same seed, same order
assert not torch.equal(a1, a2)  # each epoch is a fresh permutation
assert torch.equal(a1.sort().values, torch.arange(N))  # each sample once
print(f"epoch 1 starts {a1[:6].tolist()}, epoch 2 starts {a2[:6].tolist()}")

# %%
# A seeded ``random_split``
# -------------------------
# :func:`~torch.utils.data.random_split` cuts a dataset into disjoint
# :class:`~torch.utils.data.Subset` objects, which store only indices.
# Without a generator of its own it draws from the global one, and the split
# then depends on every random draw made before it.
from torch.utils.data import random_split

gen = torch.Generator().manual_seed(0)
train_set, val_set = random_split(dataset, [0.8, 0.2], generator=gen)
print(f"train: {len(train_set)} samples, validation: {len(val_set)}")
assert (len(train_set), len(val_set)) == (820, 204)
assert set(train_set.indices).isdisjoint(val_set.indices)

# %%
# Whole batches from an in-memory dataset
# ---------------------------------------
# Unless the dataset defines ``__getitems__`` (``Subset`` does), the loader
# calls ``dataset[i]`` once per sample and then stacks the rows. When the
# samples are small, say a table of 16,384 rows of 10 numbers, that
# per-sample Python work can cost more than the data. A dataset that can be
# indexed with a list, such as a ``TensorDataset``, can instead receive one
# list of indices per batch: pass a
# :class:`~torch.utils.data.BatchSampler` as ``sampler`` and
# ``batch_size=None``. With the same seed, it yields the same batches.
import time

from torch.utils.data import BatchSampler, RandomSampler

table = TensorDataset(torch.randn(16384, 10), torch.randn(16384))


def batch_loader(data, seed, batch_size):
    gen = torch.Generator().manual_seed(seed)
    sampler = RandomSampler(data, generator=gen)
    sampler = BatchSampler(sampler, batch_size, drop_last=False)
    # the loader draws a seed from gen first, as it does when it shuffles
    return DataLoader(data, sampler=sampler, batch_size=None, generator=gen)


results = {}
for name in ["per item", "per batch"]:
    start = time.perf_counter()
    make = shuffled if name == "per item" else batch_loader
    results[name] = [xb for xb, yb in make(table, 3, 256)]
    ms = (time.perf_counter() - start) * 1000
    print(f"{name}: {len(results[name])} batches in {ms:.1f} ms")
pairs = zip(results["per item"], results["per batch"], strict=True)
assert all(torch.equal(a, b) for a, b in pairs)

# %%
# Both loaders give the same batches (asserted); the timings are from one
# run and vary from machine to machine. Batch-wise indexing suits small
# samples already in memory; a dataset that reads or decodes a file per
# sample usually gains little from it, and worker processes can help more.
#
# Worker processes, and how they start
# ------------------------------------
# With ``num_workers=2`` two worker processes build batches while the main
# process trains. How each gets the dataset depends on the *start method*
# of :mod:`multiprocessing`, whose default is ``fork`` on Linux up to
# Python 3.13, ``forkserver`` on Linux from Python 3.14, and ``spawn`` on
# macOS and Windows. A forked worker is a copy of this process and already
# holds the dataset. With ``spawn`` and ``forkserver`` the worker imports
# the script again and receives the dataset pickled, so the code that starts
# the loader must sit under ``if __name__ == "__main__":`` and the class
# must be defined at the top level of a file (the script, or a module it
# imports), not typed into a notebook. A script for every start method:
#
# .. code-block:: python
#
#    class BlurredNoise(Dataset):  # at the top level of the script
#        ...
#
#    if __name__ == "__main__":
#        loader = DataLoader(BlurredNoise(), batch_size=32, num_workers=2)
#        for images, pids in loader:
#            ...
#
# This page is one unguarded script, so the cells below use workers only
# where the default start method is ``fork``.
import multiprocessing
import os

f2 = np.fft.fftfreq(64)[:, None] ** 2 + np.fft.rfftfreq(64) ** 2
LOW_PASS = np.exp(-f2 * 400.0)


class BlurredNoise(torch.utils.data.Dataset):
    """Sample i: a 64 x 64 noise image from seed i, blurred 20 times."""

    def __len__(self):
        return 256

    def __getitem__(self, i):
        image = np.random.default_rng(i).random((64, 64))
        for _ in range(20):  # enough work to make a sample cost a little
            image = np.fft.irfft2(np.fft.rfft2(image) * LOW_PASS)
        return torch.from_numpy(image.astype(np.float32)), os.getpid()


use_workers = multiprocessing.get_start_method() == "fork"
print(f"start method: {multiprocessing.get_start_method()}")

# %%
# ``persistent_workers`` and ``prefetch_factor``
# ----------------------------------------------
# Each sample above also records the process that made it. By default the
# workers are started at the beginning of every epoch and stopped at its
# end; ``persistent_workers=True`` keeps the same workers for the next
# epoch. ``prefetch_factor`` (default 2) is how many batches each worker
# prepares ahead of time.
assert DataLoader(BlurredNoise(), num_workers=2).prefetch_factor == 2


def two_epochs(**options):
    loader = DataLoader(BlurredNoise(), batch_size=32, **options)
    run = {"ms": [], "pids": [], "data": []}
    for _ in range(2):
        start = time.perf_counter()
        batches = list(loader)
        run["ms"].append(round((time.perf_counter() - start) * 1000))
        run["pids"].append({p for _, pid in batches for p in pid.tolist()})
        run["data"].append(torch.cat([image for image, _ in batches]))
    return run


# %%
# Two epochs each without workers, with two workers, and with two
# persistent workers:
runs = {"no workers": two_epochs()}
first = runs["no workers"]["data"][0]
if use_workers:
    runs["2 workers"] = two_epochs(num_workers=2)
    runs["2 persistent"] = two_epochs(num_workers=2, persistent_workers=True)
for name, run in runs.items():
    n_procs = [len(pids) for pids in run["pids"]]
    print(f"{name:>12}: epochs took {run['ms']} ms, in {n_procs} processes")
    assert all(torch.equal(d, first) for d in run["data"])
if use_workers:
    fresh, kept = runs["2 workers"]["pids"], runs["2 persistent"]["pids"]
    assert fresh[0].isdisjoint(fresh[1]) and kept[0] == kept[1]
    assert all(len(p) == 2 and os.getpid() not in p for p in fresh + kept)

# %%
# Here the workers changed the speed, not the data: every epoch of every run
# gave the same images in order. That holds for a map-style dataset that
# draws no random numbers (random transforms draw from per-worker seeds;
# each worker gets its own copy of an ``IterableDataset``). Each epoch with
# workers was made by two processes: new ones without ``persistent_workers``,
# the same two with it. The timings vary from machine to machine; start with
# about one worker per spare core, then measure.
#
# Training the two-layer network over a loader
# --------------------------------------------
# The familiar network, trained with mini-batches: an outer loop over epochs,
# an inner loop over the loader. After each epoch, ``model.eval()`` and one
# pass over each split under :func:`torch.no_grad`. A copy from CPU to a
# CUDA GPU can overlap with compute (``non_blocking=True``) only when the
# CPU tensor sits in page-locked ("pinned") memory; ``pin_memory=True``
# makes the loader put batches there. We ask for it only on a CUDA GPU.
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
            xb, yb = xb.to(device, non_blocking=pin), yb.to(device)
            total += loss_fn(model(xb), yb).item() * len(xb)
    return total / len(loader.dataset)


# %%
# The loop; the loss on each split is measured before training and after
# each epoch.
model.eval()
history = {name: [mean_loss(ld)] for name, ld in eval_loaders.items()}
for epoch in range(10):
    model.train()
    for xb, yb in train_loader:
        assert xb.is_pinned() == pin
        xb, yb = xb.to(device, non_blocking=pin), yb.to(device)
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
assert history["train"][-1] < 0.1 * history["train"][0]
assert history["validation"][-1] < 0.4 * history["validation"][0]
assert history["validation"][-1] > history["train"][-1]

# %%
# The training loss fell more than tenfold and the validation loss to below
# 40% of its start (the asserts check both): what the network learned from
# the training batches carries over to the 204 samples it never trained on.
# The validation loss ends above the training loss (asserted): that gap is
# a first sign of overfitting, the subject of later lessons.
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
# .. note:: Old code you may meet: ``inputs, labels = Variable(inputs),
#    Variable(labels)`` in the loader loop. Tensors track gradients
#    themselves since PyTorch 0.4. Today ``Variable(t)`` returns a new
#    tensor that shares ``t``'s memory, with ``requires_grad=False`` and no
#    link to the graph, so old code that wraps a result in ``Variable``
#    silently stops gradients there:
from torch.autograd import Variable

w = torch.ones(3, requires_grad=True)
wrapped = Variable(w * 2)
print(f"requires_grad={wrapped.requires_grad}, grad_fn={wrapped.grad_fn}")
assert Variable(w) is not w
assert not wrapped.requires_grad and wrapped.grad_fn is None
assert Variable(w).data_ptr() == w.data_ptr()  # same memory, no copy

# %%
# Batches go straight into the model, with no wrapper. Next,
# :ref:`sphx_glr_lessons_data_02_custom_dataset_faces.py` writes a
# ``Dataset`` of its own, over photos read from disk only when asked for.
