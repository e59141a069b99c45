"""
Training CIFAR-10 fast on a laptop CPU
======================================

How much accuracy can a minute of training on a CPU buy? We build a network
from fast CIFAR-10 recipes (Keller Jordan's airbench, David Page's "How to
train your ResNet"), measure where training time goes, and train it.
"""

# %%
# We train in bfloat16 (bf16) autocast only where an x86 CPU reports native
# bf16 (AMX-BF16 or AVX512-BF16, :func:`torch.cpu.get_capabilities`), else
# in float32. ``get_cpu_capability()`` names the vector instruction set.
import time

import torch

# sphinx_gallery_parallel = False
torch.manual_seed(0)
if torch.accelerator.is_available():
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
cpu = torch.cpu.get_capabilities()
native_bf16 = cpu.get("amx_bf16", False) or cpu.get("avx512_bf16", False)
use_bf16 = device.type == "cpu" and native_bf16
capability = torch.backends.cpu.get_cpu_capability()
precision = "bf16 autocast" if use_bf16 else "float32"
print(f"Running on: {device.type}, CPU capability {capability}")
print(f"native bf16: {native_bf16}; path taken: {precision}")
# sphinx_gallery_tags = ["advanced", "vision", "real data", "performance"]

# %%
# The data
# --------
# As in :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`: torchvision's
# CIFAR-10 online, or offline the JPEG copy in ``PBE_DATA_DIR``.
import os
import shutil
import tempfile
from pathlib import Path

import pooch
from torchvision import datasets

CACHE = Path(pooch.os_cache("pytorch-by-example"))
SHA256 = "ad20075fc5d761cb1545aa313752ecc67cdb288bc8d01abc2128e7de0ddfedb5"
zip_path = Path(os.environ.get("PBE_DATA_DIR", "-")) / "cifar10-jpeg.zip"
jpeg_dir = CACHE / "cifar10-jpeg"
if zip_path.is_file():
    if pooch.file_hash(str(zip_path)) != SHA256:
        raise RuntimeError(f"{zip_path} does not match its SHA-256 hash")
    print("Using the JPEG copy of CIFAR-10 (lossy: pixels differ slightly)")
else:
    for train in (True, False):
        datasets.CIFAR10(CACHE, train=train, download=True)
    print("Using the original CIFAR-10 from torchvision (MD5 checked)")

# %%
# Unpacked into a temporary folder, then renamed: whole or not at all.
if zip_path.is_file() and not jpeg_dir.is_dir():
    CACHE.mkdir(parents=True, exist_ok=True)
    staging = tempfile.mkdtemp(dir=CACHE)
    shutil.unpack_archive(zip_path, staging)
    try:
        os.rename(staging, jpeg_dir)
    except OSError:  # another run finished first: keep its copy
        shutil.rmtree(staging)

# %%
# All images are kept in memory as ``uint8`` tensors; the JPEG copy is
# decoded once, by two worker processes where the start method is ``fork``.
# Under ``spawn`` or ``forkserver`` they would import this unguarded script
# (:ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`), so none run.
import multiprocessing

from torch.utils.data import DataLoader
from torchvision.io import decode_image

workers = 2 if multiprocessing.get_start_method() == "fork" else 0


def load_split(train):
    if not zip_path.is_file():
        split = datasets.CIFAR10(CACHE, train=train)
        pixels = torch.from_numpy(split.data).permute(0, 3, 1, 2)
        return pixels.contiguous(), torch.tensor(split.targets)
    folder = jpeg_dir / ("train" if train else "test")
    files = datasets.ImageFolder(folder, loader=decode_image)
    images, labels = zip(*DataLoader(files, 1000, num_workers=workers))
    return torch.cat(images), torch.cat(labels)


x_all, y_all = load_split(train=True)
x_test, y_test = load_split(train=False)
assert torch.equal(torch.bincount(y_test), torch.full((10,), 1000))
order = torch.randperm(len(y_all))  # 5,000 held out for validation
x_val, y_val = x_all[order[:5000]], y_all[order[:5000]]
x_train, y_train = x_all[order[5000:]], y_all[order[5000:]]
std, mean = torch.std_mean(x_train.float() / 255, (0, 2, 3), keepdim=True)


def normalize(images):
    return (images.float() / 255 - mean) / std


# %%
# A frozen whitening layer
# ------------------------
# Neighbouring pixels are strongly correlated: the covariance of 2x2 patches
# has eigenvalues spanning orders of magnitude. Its eigenvectors, divided by
# ``sqrt(eigenvalue + eps)``, make each patch of a 32x32 image 12 nearly
# uncorrelated values, variances about 1 or less (checked below): a
# computed first layer, with both signs of each filter for the next ReLU.
from torch import nn


def whitening_filters(images, k=2, eps=5e-4):
    patches = normalize(images).unfold(2, k, 1).unfold(3, k, 1)
    patches = patches.permute(0, 2, 3, 1, 4, 5).reshape(-1, 3 * k * k)
    eigenvalues, eigenvectors = torch.linalg.eigh(torch.cov(patches.T))
    filters = eigenvectors.T / (eigenvalues + eps).sqrt().unsqueeze(1)
    return torch.cat([filters, -filters]).view(-1, 3, k, k), eigenvalues


filters, eigenvalues = whitening_filters(x_train[:10_000])
white = nn.functional.conv2d(normalize(x_val[:1000]), filters[:12])
cov = torch.cov(white.transpose(0, 1).flatten(1))  # 12 x 12, validation
print(f"eigenvalues: {eigenvalues.min():.4f} to {eigenvalues.max():.1f}; "
      f"whitened variances up to {cov.diag().max():.2f}")  # fmt: skip
assert eigenvalues.max() / eigenvalues.min() > 1e3 and cov.max() < 1.1
torch.testing.assert_close(cov, cov.diag().diag(), atol=0.1, rtol=0)

# %%
# The network
# -----------
# Three blocks of two 3x3 convolutions (32, 64, 128 channels) follow.
# **conv, pool, BN, ReLU**: pooling right after the first convolution
# leaves BN and ReLU four times fewer values (same convolution FLOPs).
# **Dirac initialization** (:func:`torch.nn.init.dirac_`): the first filters
# of each convolution start as identities (checked below).
# **Frozen batch-norm scales**: a ReLU is positively homogeneous, so a
# positive per-channel scale passes into the next layer's weights, which
# can absorb it; only the shifts train.


def bn(channels):
    norm = nn.BatchNorm2d(channels, momentum=0.2)
    norm.weight.requires_grad_(False)
    return norm


def conv(c_in, c_out):
    layer = nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
    nn.init.dirac_(layer.weight[:c_in])  # dirac_ runs without autograd
    return layer


def fast_net(pool_early=True):
    whiten = nn.Conv2d(3, 24, 2, bias=False)  # 32x32 -> 31x31
    whiten.weight.requires_grad_(False).copy_(filters)  # frozen, computed
    layers = [whiten, nn.ReLU()]
    for c_in, c in ((24, 32), (32, 64), (64, 128)):
        pool, act = [nn.MaxPool2d(2)], [bn(c), nn.ReLU()]
        first = pool + act if pool_early else act + pool  # usual: act first
        layers += [conv(c_in, c), *first, conv(c, c), bn(c), nn.ReLU()]
    pool = nn.AdaptiveMaxPool2d(1)
    return nn.Sequential(*layers, pool, nn.Flatten(), nn.Linear(128, 10))


torch.testing.assert_close(conv(12, 16)(white)[:, :12], white)  # identity

# %%
# Where the time goes
# -------------------
# Six set-ups, timed. The first is the classic recipe: a PIL image per
# item (``ImageFolder`` decodes a JPEG file, ``CIFAR10`` wraps an array),
# ``v2`` transforms per image, batches of four, LeNet. Row two replaces the
# loading; each later row changes one thing; the last three train our net.
# ``FlopCounterMode`` counts convolution and matrix-product FLOPs of a
# training step per image: ``MFLOP x images/s / 1000`` is GFLOP/s.
from torch.utils.flop_counter import FlopCounterMode


def lenet():
    return nn.Sequential(
        nn.Conv2d(3, 6, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 16, 5),
        nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(400, 120),
        nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10),
    )  # fmt: skip


def mflop(model):  # one training step, per image
    with FlopCounterMode(display=False) as counter:
        model(torch.zeros(1, 3, 32, 32, device=device)).sum().backward()
    return counter.get_total_flops() / 1e6


# %%
# Random batches from memory; all but the first five steps are timed.
def in_memory(batch_size, layout=torch.contiguous_format):
    while True:
        i = torch.randint(len(y_train), (batch_size,))
        x = normalize(x_train[i]).contiguous(memory_format=layout)
        yield x, y_train[i]


def images_per_second(model, batches, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for k, (x, y) in zip(range(5 + steps), batches):
        loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if k == 4:
            loss.item()  # waits for the warm-up to finish
            start = time.perf_counter()
    loss.item()  # waits for the device to finish
    return steps * len(y) / (time.perf_counter() - start)


# %%
# The set-ups, each with a fresh network:
from torchvision.transforms import v2

per_image = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])
if zip_path.is_file():
    classic = datasets.ImageFolder(jpeg_dir / "train", transform=per_image)
else:
    classic = datasets.CIFAR10(CACHE, transform=per_image)
loader = DataLoader(classic, batch_size=4, shuffle=True, num_workers=workers)
cl = torch.channels_last
setups = {
    f"classic: PIL, batch 4, {workers} workers": (lenet, iter(loader), 200),
    "decoded in memory, batch 4": (lenet, in_memory(4), 200),
    "decoded in memory, batch 128": (lenet, in_memory(128), 30),
    "our network, batch 128": (fast_net, in_memory(128), 20),
    "our network, channels_last": (fast_net, in_memory(128, cl), 20),
    "our network, conv-BN-ReLU-pool, channels_last": (
        lambda: fast_net(pool_early=False), in_memory(128, cl), 20),
}  # fmt: skip
rows = {}
for name, (make, batches, steps) in setups.items():
    layout = cl if name.endswith("channels_last") else torch.contiguous_format
    model = make().to(device, memory_format=layout)
    speed = images_per_second(model, batches, steps)
    rows[name] = {"MFLOP/image": mflop(model), "images/s": speed}
del loader, batches, setups  # ends any worker processes

# %%
# The table (all float32) and a reference rate: one large matrix product,
# the job processors do best, in float32 (and in bf16 where we train in it).
import matplotlib.pyplot as plt
import pandas as pd

table = pd.DataFrame(rows).T
table["GFLOP/s"] = table["MFLOP/image"] * table["images/s"] / 1000
print(table.round(1).to_string())

ceiling = {}
for dtype in (torch.float32, torch.bfloat16) if use_bf16 else (torch.float32,):
    a, b = torch.randn(2, 2048, 2048, device=device, dtype=dtype)
    (a @ b).sum().item()  # warm-up
    start = time.perf_counter()
    (a @ b).sum().item()
    ceiling[dtype] = 2 * 2048**3 / (time.perf_counter() - start) / 1e9
    print(f"2048x2048 matrix product, {dtype}: {ceiling[dtype]:.0f} GFLOP/s")
fig, ax = plt.subplots(figsize=(7, 3), layout="constrained")
ax.barh(table.index[::-1], table["GFLOP/s"][::-1])
ax.axvline(ceiling[torch.float32], color="k", ls="--", label="matmul")
ax.set(xscale="log", xlabel="GFLOP/s", title=f"Training on {device.type}")
ax.legend(loc="lower right")
plt.show()


# %%
# What each change does (short timings: trust large gaps, not digits):
#
# * **The classic loader starves the model.** Each image becomes a PIL
#   image (read from its JPEG file, offline) and is converted, one at a
#   time, in every epoch; workers, where they run, may compete with training
#   for the few cores. **Decoding once** makes a batch one indexing operation.
# * **Large batches** spread the fixed cost of a step (Python, launching
#   kernels, the optimizer update) over 128 images instead of 4, and give
#   each convolution more work to spread over the cores.
# * **channels_last** stores each pixel's channels together (N, H, W, C);
#   whether convolutions (oneDNN, cuDNN) gain from it depends on the device,
#   layer sizes and version (compare rows four and five); the recipe uses it.
# * **Pooling first**: the last row moves BN and ReLU before the pooling.
#
# ``predict`` below resizes images to ``size`` and can average the scores
# of ``views`` per image (test-time augmentation, inference only): 2 adds
# the mirror image; 6, both also moved a pixel diagonally, at half weight.
@torch.inference_mode()
def predict(net, images, size, views=1):
    assert not net.training, "call net.eval() first"
    assert views in (1, 2, 6), f"views must be 1, 2 or 6, not {views}"
    out = []
    with torch.autocast(device.type, torch.bfloat16, enabled=use_bf16):
        for batch in v2.functional.resize(images, [size, size]).split(500):
            x = normalize(batch).to(device)
            scores = net(x).float()
            if views > 1:
                scores += net(x.flip(-1)).float()
            if views == 6:  # moved up-left and down-right, and mirrored
                pad = nn.functional.pad(x, (1, 1, 1, 1), mode="reflect")
                for v in (pad[..., :-2, :-2], pad[..., 2:, 2:]):
                    scores += (net(v).float() + net(v.flip(-1)).float()) / 2
            out.append(scores.argmax(1).cpu())
    return torch.cat(out)


# %%
# Training set-up
# ---------------
# **Label smoothing 0.2**; SGD with Nesterov momentum, weight decay on
# convolution and linear weights only, four times the learning rate for
# shifts and biases; a linear rise over 20% of the steps, then a linear
# decay (``cycle_momentum=False``: else OneCycleLR would cycle momentum too,
# as :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py` shows).
# **Weight averaging**: :class:`~torch.optim.swa_utils.AveragedModel`
# keeps a moving average of the weights and batch-norm statistics. **Scores
# divided by 9** before the loss, as in airbench. Image sizes, batch size,
# learning rate, divisor and averaging rate were tuned on validation data.
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

SIZES, BATCH, LR = (20, 24, 28), 128, 0.4  # image side, epoch by epoch
model = fast_net().to(device, memory_format=torch.channels_last)
steps_per_epoch = len(y_train) // BATCH
trained = [p for p in model.parameters() if p.requires_grad]
decay = [p for p in trained if p.ndim > 1]
shifts = [p for p in trained if p.ndim == 1]
groups = [{"params": decay, "weight_decay": 5e-4}, {"params": shifts}]
optimizer = torch.optim.SGD(groups, lr=LR, momentum=0.9, nesterov=True)
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, [LR, 4 * LR], total_steps=len(SIZES) * steps_per_epoch,
    pct_start=0.2, anneal_strategy="linear", cycle_momentum=False,
)  # fmt: skip
loss_fn = nn.CrossEntropyLoss(label_smoothing=0.2)
average = get_ema_multi_avg_fn(0.9)
ema = AveragedModel(model, multi_avg_fn=average, use_buffers=True)
flip_even = torch.rand(len(y_train)) < 0.5  # the flips of even epochs
train_seconds = 0.0

# %%
# Training, for a fixed number of steps
# -------------------------------------
# **Alternating flips**: each image gets one random left-right flip in even
# epochs and the opposite in odd ones, so two epochs show nearly every
# image both ways (an epoch skips 72). **Progressive resizing** (fast.ai):
# 20x20, 24x24, then 28x28 images cost fewer FLOPs per step than 32x32 (the
# last pooling is global); ``predict`` shrinks images to the size trained.
for epoch, size in enumerate(SIZES):
    start = time.perf_counter()
    model.train()
    flip = flip_even if epoch % 2 == 0 else ~flip_even
    batches = torch.randperm(len(y_train)).split(BATCH)[:steps_per_epoch]
    for step, i in enumerate(batches):
        x = v2.functional.resize(x_train[i], [size, size])
        x = torch.where(flip[i, None, None, None], x.flip(-1), x)
        x, y = normalize(x).to(device), y_train[i].to(device)
        with torch.autocast(device.type, torch.bfloat16, enabled=use_bf16):
            loss = loss_fn(model(x) / 9, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        if step % 5 == 4:
            ema.update_parameters(model)
    loss.item()  # waits for the device
    seconds = time.perf_counter() - start
    train_seconds += seconds
    model.eval()  # validation: not timed
    val = (predict(model, x_val, size) == y_val).float().mean()
    print(f"epoch {epoch + 1}: {size}x{size} images, {seconds:.1f} s, "
          f"validation {val:.1%}")  # fmt: skip
print(f"Training took {train_seconds:.1f} s ({device.type}, {precision})")

# %%
# Choosing on validation, testing once
# ------------------------------------
# Six candidates: the last or the averaged weights, each in 1, 2 or 6
# views. Validation picks one; only it meets the test.
ema.module.eval()
scores = {}
for name, net in (("last", model), ("averaged", ema.module)):
    for views in (1, 2, 6):
        right = predict(net, x_val, SIZES[-1], views) == y_val
        scores[name, views] = acc = right.float().mean().item()
        print(f"{name} weights, views={views}: validation {acc:.2%}")
name, views = max(scores, key=scores.get)
net = model if name == "last" else ema.module
predictions = predict(net, x_test, SIZES[-1], views)
correct = (predictions == y_test).sum().item()
accuracy = correct / len(y_test)
print(f"chosen: {name} weights, views={views}")
print(f"Test accuracy: {correct} of {len(y_test)} images = {accuracy:.2%}")
assert accuracy >= 0.78
