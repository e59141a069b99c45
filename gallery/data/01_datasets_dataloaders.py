"""
Datasets and DataLoaders
========================

A model learns from mini-batches, not from the whole dataset at once. This
lesson wraps NumPy arrays in a ``TensorDataset`` without copying them, lets a
``DataLoader`` cut them into shuffled batches in a reproducible order, splits
off a validation set, measures what background worker processes buy, and
trains the two-layer network of :ref:`sphx_glr_lessons_nn_01_nn_package.py`
one batch at a time.

.. tags:: beginner, data, performance
"""

# %%
# Setup
# -----
# One seed for the whole lesson. Every random choice below (data, shuffling,
# splitting, weights) either uses this global seed or a generator of its own.
import torch

# sphinx_gallery_parallel = False
torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")

# %%
# Why not one giant tensor?
# -------------------------
# The two-layer network in :ref:`sphx_glr_lessons_nn_01_nn_package.py` pushed
# all 64 samples through the model in every step. Real training differs in
# four ways:
#
# * the data may not fit in memory, so samples must be read when needed;
# * each step should see a small, freshly shuffled **mini-batch**;
# * samples often need work first (decoding, resizing, random augmentation);
# * that work should run in parallel with the training step.
#
# PyTorch splits this into two pieces. A :class:`~torch.utils.data.Dataset`
# answers two questions, "how many samples?" (``__len__``) and "give me
# sample ``i``" (``__getitem__``). A :class:`~torch.utils.data.DataLoader`
# decides *which* indices form a batch, fetches them (optionally in worker
# processes) and stacks them into batch tensors.
#
# We start with data that is already in memory, as NumPy arrays, the way they
# come out of many file readers: 1,024 samples of 1,000 noisy features that
# are driven by 10 hidden factors, and 10 targets that are a fixed nonlinear
# function of those factors. So there is something to learn, and a model that
# learns it should also do well on samples it never saw. We ask NumPy for
# ``float32`` right away, because that is the dtype the model's weights use.
import numpy as np

N, D_in, H, D_out = 1024, 1000, 100, 10
rng = np.random.default_rng(0)
factors = rng.standard_normal((N, 10), dtype=np.float32)
mixing = rng.standard_normal((10, D_in), dtype=np.float32) / 10**0.5
x_np = factors @ mixing + rng.standard_normal((N, D_in), dtype=np.float32)
teacher = rng.standard_normal((10, D_out), dtype=np.float32) / 10**0.5
y_np = np.tanh(2 * factors @ teacher)
assert x_np.dtype == y_np.dtype == np.float32
print(f"x_np: {x_np.shape} {x_np.dtype}, y_np: {y_np.shape} {y_np.dtype}")

# %%
# From NumPy to tensors without a copy
# ------------------------------------
# :func:`torch.from_numpy` wraps the array's memory in a tensor: no bytes are
# copied, and a change to one is visible in the other. :func:`torch.tensor`
# always copies. :func:`torch.as_tensor` shares when it can and copies when it
# must, for instance to change the dtype.
x = torch.from_numpy(x_np)
y = torch.from_numpy(y_np)
assert np.shares_memory(x.numpy(), x_np) and np.shares_memory(y.numpy(), y_np)
assert not np.shares_memory(torch.tensor(x_np).numpy(), x_np)
assert np.shares_memory(torch.as_tensor(x_np).numpy(), x_np)
assert not np.shares_memory(
    torch.as_tensor(x_np, dtype=torch.float64).numpy(), x_np
)

x_np[0, 0] += 1.0  # change the array in place ...
assert x[0, 0].item() == x_np[0, 0]  # ... and the tensor sees it
x_np[0, 0] -= 1.0
print(f"x: {tuple(x.shape)} {x.dtype}, shares memory with x_np: True")

# %%
# A ``float64`` array (NumPy's default) would give a ``float64`` tensor, and a
# ``float32`` model would then refuse it. Converting with ``.float()`` works
# but copies; choosing the dtype when the array is made avoids that copy.
#
# ``TensorDataset``
# -----------------
# :class:`~torch.utils.data.TensorDataset` takes tensors that share their
# first dimension and returns, for index ``i``, the tuple of their ``i``-th
# rows. Those rows are views, so the dataset adds no copy either.
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(x, y)
xi, yi = dataset[3]
assert len(dataset) == N
assert xi.data_ptr() == x[3].data_ptr()  # a view into x, not a copy
print(
    f"len(dataset) = {len(dataset)}; dataset[3] -> x {tuple(xi.shape)}, y {tuple(yi.shape)}"
)

# %%
# Batching and ``drop_last``
# --------------------------
# The loader asks the dataset for ``batch_size`` samples and stacks them.
# 1,024 is not a multiple of 100, so the last batch is short; ``drop_last=True``
# drops it, which helps when a layer such as batch norm dislikes tiny batches.
loader = DataLoader(dataset, batch_size=100)
sizes = [xb.shape[0] for xb, yb in loader]
print(f"{len(loader)} batches, sizes {sizes[:2]} ... {sizes[-2:]}")
assert len(loader) == 11 and sizes[-1] == 24 and sum(sizes) == N

sizes_dropped = [
    xb.shape[0]
    for xb, yb in DataLoader(dataset, batch_size=100, drop_last=True)
]
print(
    f"drop_last=True: {len(sizes_dropped)} batches, all of size {set(sizes_dropped)}"
)
assert sizes_dropped == [100] * 10

# %%
# Shuffling, reproducibly
# -----------------------
# ``shuffle=True`` draws a new permutation of the indices at the start of each
# epoch. The draws come from ``generator`` when you pass one, so two loaders
# with equally seeded generators visit the samples in the same order. We
# record the order with a dataset whose only tensor is ``arange(N)``.
index_set = TensorDataset(torch.arange(N))


def epoch_order(loader):
    return torch.cat([idx for (idx,) in loader])


loader_a = DataLoader(
    index_set,
    batch_size=100,
    shuffle=True,
    generator=torch.Generator().manual_seed(7),
)
loader_b = DataLoader(
    index_set,
    batch_size=100,
    shuffle=True,
    generator=torch.Generator().manual_seed(7),
)
a1, a2 = epoch_order(loader_a), epoch_order(loader_a)
b1, b2 = epoch_order(loader_b), epoch_order(loader_b)

assert torch.equal(a1, b1) and torch.equal(
    a2, b2
)  # same seed, same order, epoch after epoch
assert not torch.equal(a1, a2)  # each epoch is a fresh permutation
assert torch.equal(
    a1.sort().values, torch.arange(N)
)  # every sample exactly once
print(f"epoch 1 starts {a1[:6].tolist()}, epoch 2 starts {a2[:6].tolist()}")

# %%
# Without ``generator`` the loader draws from the global RNG, so its order
# depends on everything else that consumed random numbers before it. A
# generator of its own keeps the data order stable when you add, say, dropout
# to the model.
#
# A seeded ``random_split``
# -------------------------
# :func:`~torch.utils.data.random_split` cuts a dataset into disjoint
# :class:`~torch.utils.data.Subset` objects. Each subset only stores indices
# and reads from the original dataset, so nothing is copied. Fractions are
# allowed; the leftover sample goes to the first part. Seed it, or the
# validation set changes from run to run.
from torch.utils.data import random_split

train_set, val_set = random_split(
    dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(0)
)
again, _ = random_split(
    dataset, [0.8, 0.2], generator=torch.Generator().manual_seed(0)
)
print(f"train: {len(train_set)} samples, validation: {len(val_set)} samples")
assert (len(train_set), len(val_set)) == (820, 204)
assert set(train_set.indices).isdisjoint(val_set.indices)
assert sorted(train_set.indices + val_set.indices) == list(range(N))
assert train_set.indices == again.indices  # same seed, same split

# %%
# Worker processes: ``num_workers``
# ---------------------------------
# Indexing a tensor costs almost nothing, so a ``TensorDataset`` gains nothing
# from workers. They pay off when ``__getitem__`` does real work. Here is a
# dataset that makes each sample the way an image pipeline might: it
# generates a 96 x 96 noise image from the sample's index (standing in for
# reading a file), blurs it with an FFT, and normalises it. All of that is
# single-threaded NumPy code.
from torch.utils.data import Dataset


class BlurredNoise(Dataset):
    """Sample i: a blurred 96 x 96 noise image, made from seed i every time."""

    def __init__(self, n, size=96):
        self.n = n
        freqs = np.fft.fftfreq(size)
        radius2 = freqs[:, None] ** 2 + np.fft.rfftfreq(size)[None, :] ** 2
        self.kernel = np.exp(
            -radius2 * 400.0
        )  # Gaussian low-pass, in frequency space
        self.size = size

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        image = np.random.default_rng(i).random((self.size, self.size))
        for _ in range(6):  # several passes to make a sample cost a few ms
            image = np.fft.irfft2(
                np.fft.rfft2(image) * self.kernel, s=image.shape
            )
        image = (image - image.mean()) / image.std()
        return torch.from_numpy(image.astype(np.float32)).unsqueeze(0), i


work_set = BlurredNoise(384)
print(f"one sample: {tuple(work_set[0][0].shape)}")

# %%
# With ``num_workers=0`` the training process makes every sample itself. With
# ``num_workers=2`` two worker processes make whole batches and send them
# back through shared memory (the machinery of ``torch.multiprocessing``, see
# :ref:`sphx_glr_lessons_advanced_04_multiprocessing_hogwild.py`), while the
# main process is free to train. Each worker gets a copy
# of the dataset, and each starts with a different seed for ``torch``,
# ``random`` and NumPy's global generator, so random augmentations differ
# between workers.
#
# How the workers start matters. On Linux they are made by ``fork``: the
# child process is a copy of this one and already holds the dataset. On macOS
# and Windows (and by default on Linux from Python 3.14) they are started
# fresh (``spawn`` or ``forkserver``) and receive the dataset by pickling, so
# its class must be importable from a module, and the code that iterates the
# loader must sit under ``if __name__ == "__main__":``. A class defined in a
# notebook or in this page cannot be found that way, so we ask for ``fork``
# explicitly and only where it exists as a safe choice (Linux); elsewhere the
# page times the single-process loader only.
import os
import sys
import time

use_workers = sys.platform.startswith("linux")
n_cpus = (
    len(os.sched_getaffinity(0))
    if hasattr(os, "sched_getaffinity")
    else os.cpu_count()
)
print(f"CPU cores available to this process: {n_cpus}")


def time_one_epoch(loader):
    start = time.perf_counter()
    batches = [xb for xb, _ in loader]
    return time.perf_counter() - start, torch.cat(batches)


seconds = {}
seconds[0], data_0 = time_one_epoch(DataLoader(work_set, batch_size=32))
if use_workers:
    loader_2 = DataLoader(
        work_set, batch_size=32, num_workers=2, multiprocessing_context="fork"
    )
    seconds[2], data_2 = time_one_epoch(loader_2)
    assert torch.equal(
        data_0, data_2
    )  # workers change the speed, never the data
for workers, s in seconds.items():
    print(
        f"num_workers={workers}: one epoch of {len(work_set)} samples took {s:.2f} s"
    )
if use_workers:
    ratio = seconds[0] / seconds[2]
    verdict = (
        "faster"
        if ratio > 1.1
        else "slower"
        if ratio < 0.9
        else "about as fast"
    )
    print(
        f"ratio (0 workers / 2 workers): {ratio:.2f}, so two workers were {verdict} on this run"
    )

# %%
# The assert shows that both loaders produced exactly the same batches in the
# same order; only the time differs. Read the ratio printed above: the build
# machine is small and shared, so its value varies from build to build. Two
# workers can at best halve the epoch time, and only when two cores are free;
# starting the workers also costs time at the beginning of every epoch
# (``persistent_workers=True`` keeps them alive between epochs). A common
# starting point is one worker per spare core, then measure.
#
# ``pin_memory``: only with a GPU
# -------------------------------
# Copying a batch from CPU to GPU is faster, and can overlap with compute
# (``non_blocking=True``), when the CPU tensor sits in page-locked ("pinned")
# memory. ``pin_memory=True`` makes the loader put batches there. Without CUDA
# there is nothing to copy to, so we switch it on only when a GPU is present.
pin = device.type == "cuda"
pinned_loader = DataLoader(train_set, batch_size=64, pin_memory=pin)
xb, yb = next(iter(pinned_loader))
print(f"pin_memory={pin}: batch is pinned: {xb.is_pinned()}")
assert xb.is_pinned() == pin
xb = xb.to(device, non_blocking=pin)

# %%
# Training the two-layer network over a loader
# --------------------------------------------
# Now the familiar network, trained with mini-batches: an outer loop over
# epochs, an inner loop over the loader, and after each epoch one pass over
# the validation set under :func:`torch.no_grad`, which needs no shuffling.
from torch import nn

model = nn.Sequential(nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out)).to(
    device
)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(
    model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-2
)
train_loader = DataLoader(
    train_set,
    batch_size=64,
    shuffle=True,
    generator=torch.Generator().manual_seed(1),
    pin_memory=pin,
)
val_loader = DataLoader(val_set, batch_size=256, pin_memory=pin)


def mean_loss(loader):
    model.eval()
    total = 0.0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = (
                xb.to(device, non_blocking=pin),
                yb.to(device, non_blocking=pin),
            )
            total += loss_fn(model(xb), yb).item() * len(xb)
    return total / len(loader.dataset)


history = {
    "train": [mean_loss(DataLoader(train_set, batch_size=256))],
    "validation": [mean_loss(val_loader)],
}
for epoch in range(10):
    model.train()
    for xb, yb in train_loader:
        xb, yb = (
            xb.to(device, non_blocking=pin),
            yb.to(device, non_blocking=pin),
        )
        loss = loss_fn(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    history["train"].append(mean_loss(DataLoader(train_set, batch_size=256)))
    history["validation"].append(mean_loss(val_loader))
    if epoch in (0, 4, 9):
        print(
            f"epoch {epoch + 1:2d}: train {history['train'][-1]:.4f}, validation {history['validation'][-1]:.4f}"
        )

assert history["train"][-1] < 0.1 * history["train"][0]
assert history["validation"][-1] < 0.4 * history["validation"][0]

# %%
# .. note:: Old code you may meet: ``inputs, labels = Variable(inputs),
#    Variable(labels)`` inside the loader loop. Since PyTorch 0.4 tensors
#    track gradients themselves and ``Variable(t)`` just returns ``t``, so a
#    batch goes straight into the model; ``.to(device)`` replaced the
#    ``.cuda()`` calls that came with it.
#
# Both losses fell (the asserts above demand a tenfold drop in training loss
# and a drop to below 40% in validation loss): the network learned the hidden
# function from the training batches, and what it learned carries over to the
# 204 samples it never trained on. The gap between the curves is overfitting,
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
# Next, :ref:`sphx_glr_lessons_data_02_custom_dataset_faces.py` writes a
# ``Dataset`` of its own, over real photos that are read from disk only when
# a sample is requested.
