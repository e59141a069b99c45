"""
Training an image classifier on CIFAR-10
========================================

We train a small convolutional network to sort 32x32 colour photos into ten
classes: data, transforms, a ``DataLoader``, the network, training judged on a
validation split, one test, a look at the mistakes, saving the weights.
"""

# %%
# One seed fixes weights, split and batches. The model and batches go to
# ``device``: the accelerator (CUDA, MPS, XPU) if there is one, else the CPU.
import time

import torch

torch.manual_seed(0)
if torch.accelerator.is_available():
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["intermediate", "vision", "real data"]

# %%
# Getting CIFAR-10
# ----------------
# 50,000 training and 10,000 test images in ten classes, fetched once into
# a cache by :class:`~torchvision.datasets.CIFAR10` (MD5 checked). Offline,
# ``PBE_DATA_DIR`` names a folder holding ``cifar10-jpeg.zip``, the same
# images as JPEG files (``train/<class>/N.jpg``), whose SHA-256 we check.
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
# The zip is unpacked into a new folder inside the cache, then renamed: the
# copy appears whole or not at all, even when two runs start at once.
if zip_path.is_file() and not jpeg_dir.is_dir():
    CACHE.mkdir(parents=True, exist_ok=True)
    staging = tempfile.mkdtemp(dir=CACHE)
    shutil.unpack_archive(zip_path, staging)
    try:
        os.rename(staging, jpeg_dir)
    except OSError:  # another run finished first: keep its copy
        shutil.rmtree(staging)

# %%
# Decode once, keep the pixels in memory
# --------------------------------------
# Decoding the same files in every epoch is wasted work, so every image is
# decoded once (the JPEG copy by a ``DataLoader``, 1,000 at a time) into
# ``uint8`` tensors (176 MiB) kept in memory; offline, ``ImageFolder``
# numbers the sorted class folders, as the original labels do.
from torch.utils.data import DataLoader
from torchvision.io import decode_image

CLASSES = "airplane automobile bird cat deer dog frog horse ship truck".split()


def load_split(train):
    """All images of one split as (N, 3, 32, 32) uint8, and their labels."""
    if not zip_path.is_file():
        split = datasets.CIFAR10(CACHE, train=train)
        pixels = torch.from_numpy(split.data).permute(0, 3, 1, 2)
        return pixels.contiguous(), torch.tensor(split.targets)
    folder = jpeg_dir / ("train" if train else "test")
    files = datasets.ImageFolder(folder, loader=decode_image)
    assert files.classes == CLASSES
    images, labels = zip(*DataLoader(files, batch_size=1000))
    return torch.cat(images), torch.cat(labels)


x_all, y_all = load_split(train=True)
x_test, y_test = load_split(train=False)
assert torch.equal(torch.bincount(y_test), torch.full((10,), 1000))
assert torch.equal(torch.bincount(y_all), torch.full((10,), 5000))
assert round((x_all.nbytes + x_test.nbytes) / 2**20) == 176  # MiB

# %%
# A validation split
# ------------------
# Every choice (when to stop, which learning rate, which network) is judged
# on 5,000 random training images held out for validation, never on the
# test set, or the test accuracy stops being an honest estimate. Inputs are
# normalized with the channel means and spreads of the other 45,000.
order = torch.randperm(len(y_all))
x_val, y_val = x_all[order[:5000]], y_all[order[:5000]]
x_train, y_train = x_all[order[5000:]], y_all[order[5000:]]
std, mean = torch.std_mean(x_train.float() / 255, dim=(0, 2, 3))
print(f"{len(y_train):,} training, {len(y_val):,} validation images")

# %%
# Transforms, a Dataset and DataLoaders
# -------------------------------------
# A :class:`~torch.utils.data.Dataset` says how many items it has and what
# item ``i`` is: a decoded image through a :mod:`torchvision.transforms.v2`
# transform (for training, a random left-right flip: a mirrored cat is still
# a cat). The ``DataLoader`` shuffles and stacks 128 items into a batch;
# ``normalize`` turns a whole ``uint8`` batch into normalized floats.
from torch.utils.data import Dataset
from torchvision.transforms import v2


class TensorImages(Dataset):
    def __init__(self, images, labels, transform=v2.Identity()):
        self.images, self.labels, self.transform = images, labels, transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.transform(self.images[i]), self.labels[i]


train_set = TensorImages(x_train, y_train, v2.RandomHorizontalFlip(p=0.5))
train_loader = DataLoader(train_set, batch_size=128, shuffle=True)
val_loader = DataLoader(TensorImages(x_val, y_val), batch_size=1000)
test_loader = DataLoader(TensorImages(x_test, y_test), batch_size=1000)
to_float = v2.ToDtype(torch.float32, scale=True)
normalize = v2.Compose([to_float, v2.Normalize(mean.tolist(), std.tolist())])
images, labels = next(iter(train_loader))
print(f"a batch: {tuple(images.shape)} {images.dtype}")

# %%
# The first 16 images of that batch, with their labels:
import matplotlib.pyplot as plt

fig, axes = plt.subplots(2, 8, figsize=(8, 2.6), layout="constrained")
for ax, image, label in zip(axes.flat, images, labels):
    ax.imshow(image.permute(1, 2, 0))
    ax.set_title(CLASSES[label], fontsize=8)
    ax.axis("off")
fig.suptitle("The first 16 images of a training batch")
plt.show()

# %%
# The network
# -----------
# Four 3x3 convolutions, each followed by batch normalization (each channel
# to zero mean and unit variance over batch and positions, then a learned
# scale and shift) and a ReLU; max pooling halves the image three times; a
# max over the last 4x4 positions and a linear layer give the scores.
from torch import nn


def conv_bn_relu(c_in, c_out):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, kernel_size=3, padding=1, bias=False),
        nn.BatchNorm2d(c_out),  # its shift does the bias's job
        nn.ReLU(inplace=True),
    )


def small_cnn():
    return nn.Sequential(
        conv_bn_relu(3, 16),
        nn.MaxPool2d(2),  # (N, 16, 16, 16)
        conv_bn_relu(16, 64),
        nn.MaxPool2d(2),  # (N, 64, 8, 8)
        conv_bn_relu(64, 128),
        nn.MaxPool2d(2),  # (N, 128, 4, 4)
        conv_bn_relu(128, 128),
        nn.AdaptiveMaxPool2d(1),  # (N, 128, 1, 1)
        nn.Flatten(),
        nn.Linear(128, 10),
    )


model = small_cnn().to(device, memory_format=torch.channels_last)
print(f"{sum(p.numel() for p in model.parameters()):,} parameters")

# %%
# Loss function, optimizer and schedule
# -------------------------------------
# Cross-entropy with ``label_smoothing=0.1`` aims at 91% confidence in the
# right class (1% for each other) rather than 100%: there its gradient is
# zero. SGD's weight decay (a pull towards zero) goes in its own parameter
# group with the convolution and linear weights; the few biases and
# batch-norm parameters are left out, a common choice.
# :class:`~torch.optim.lr_scheduler.OneCycleLR` raises the learning rate
# over the first quarter of the steps, then anneals it to almost zero; it
# cycles the momentum the opposite way (0.95 to 0.85 and back), overwriting
# the optimizer's ``momentum`` unless ``cycle_momentum=False`` (the 0.95
# printed below is not our 0.9).
EPOCHS, MAX_LR = 2, 0.2
loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)
z = torch.tensor([[0.91] + [0.01] * 9]).log().requires_grad_()
loss_fn(z, torch.tensor([0])).backward()  # class 0 right, at 91%
assert z.grad.abs().max() < 1e-5
weights = [p for p in model.parameters() if p.ndim > 1]
others = [p for p in model.parameters() if p.ndim <= 1]  # biases, BN
groups = [{"params": weights, "weight_decay": 5e-4}, {"params": others}]
optimizer = torch.optim.SGD(groups, MAX_LR, momentum=0.9, nesterov=True)
steps = EPOCHS * len(train_loader)
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, MAX_LR, total_steps=steps, pct_start=0.25
)
print(f"{steps} steps; momentum {optimizer.param_groups[0]['momentum']}")


# %%
# ``model.train()`` makes batch normalization use each batch's own
# statistics (and update running averages); ``model.eval()`` makes it use
# those averages, so a prediction does not depend on the rest of its batch
# (to rounding: other batch sizes may use other kernels). ``predict``
# leaves the mode to its caller and skips gradient bookkeeping.
def predict(model, loader):
    """Predicted classes for all images of `loader`, on the CPU."""
    assert not model.training, "call model.eval() first"
    with torch.inference_mode():
        return torch.cat(
            [model(normalize(x.to(device))).argmax(1).cpu() for x, _ in loader]
        )


model.eval()
with torch.inference_mode():
    eight, alone = [model(normalize(x_val[:n].to(device))) for n in (8, 1)]
assert eight.shape == (8, 10)  # eight images, ten scores each
torch.testing.assert_close(alone, eight[:1], rtol=1e-2, atol=1e-3)


# %%
# Training, with validation after each epoch
# ------------------------------------------
# Each step moves a batch to ``device``, normalizes it there, computes the
# loss, and steps the optimizer, then the scheduler, logging the learning
# rate and momentum it used. The validation accuracy after each epoch is
# what to watch when changing a setting above; it is not timed.
#
# .. note:: Old code you may meet: ``Variable(inputs)``, ``loss.data[0]``.
#    ``Variable`` merged into ``Tensor`` in PyTorch 0.4; use ``loss.item()``.
schedule, group = [], optimizer.param_groups[0]
seconds = 0.0  # training time; validation is not counted
for epoch in range(EPOCHS):
    start = time.perf_counter()
    model.train()
    for images, labels in train_loader:
        images, labels = images.to(device), labels.to(device)
        loss = loss_fn(model(normalize(images)), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.append((group["lr"], group["momentum"]))
        scheduler.step()
    last_loss = loss.item()  # waits for the device to finish
    seconds += time.perf_counter() - start
    model.eval()
    val_accuracy = (predict(model, val_loader) == y_val).float().mean()
    print(f"epoch {epoch + 1}: last-batch loss {last_loss:.3f}, ", end="")
    print(f"validation accuracy {val_accuracy:.1%}, {seconds:.0f} s")
print(f"Training took {seconds:.1f} s (validation not counted)")
lrs, momentums = zip(*schedule)
print(f"lr {lrs[0]:.3f} -> {max(lrs)} -> {lrs[-1]:.0e}")
print(f"momentum {momentums[0]} -> {min(momentums)} -> {momentums[-1]:.3f}")
assert lrs.index(max(lrs)) == steps // 4 - 1 and lrs[-1] < 1e-5
assert min(momentums) == 0.85 and momentums[0] == momentums[-1] == 0.95

# %%
# Testing, once
# -------------
# All choices are made; now, once, the network meets the 10,000 test
# images, our estimate of how it does on photos it has never seen.
model.eval()
predictions = predict(model, test_loader)
correct = (predictions == y_test).sum().item()
accuracy = correct / len(y_test)
print(f"Test accuracy: {correct} of {len(y_test)} images = {accuracy:.2%}")
assert accuracy >= 0.65

# %%
# Seeded, with a fixed number of steps, the run should repeat its accuracy
# on one CPU with the same thread count; on a GPU it may vary a little.
# The seconds depend on the machine and its load. Where they go (the
# ``channels_last`` layout included) and how to train faster:
# :ref:`sphx_glr_lessons_advanced_09_cifar10_fast_cpu.py`.
#
# Which classes are hard?
# -----------------------
# The confusion matrix counts, for each true class (row), how often each
# class was predicted (column); ``torch.bincount`` builds it from the pairs
# (truth, prediction), and the diagonal holds the correct answers.
import pandas as pd

pairs = 10 * y_test + predictions  # one number per (truth, prediction)
confusion = torch.bincount(pairs, minlength=100).view(10, 10)
table = pd.DataFrame({"correct": confusion.diag(), "of": confusion.sum(1)})
table.index = CLASSES
table["accuracy %"] = (100 * table["correct"] / table["of"]).round(1)
print(table.to_string())

# %%
# The figure shows the mistakes only (diagonal set to zero); the most
# frequent one is between two animals.
mistakes = confusion - torch.diag(confusion.diag())
truth, guess = divmod(mistakes.argmax().item(), 10)
print(f"most frequent: {CLASSES[truth]} taken for {CLASSES[guess]}")
assert {truth, guess} <= {2, 3, 4, 5, 6, 7}  # bird ... horse: animals
fig, ax = plt.subplots(figsize=(6, 5), layout="constrained")
fig.colorbar(ax.imshow(mistakes, cmap="Reds"), label="test images")
ax.set_xticks(range(10), CLASSES, rotation=45, ha="right")
ax.set_yticks(range(10), CLASSES)
ax.set(xlabel="predicted class", ylabel="true class", title="Mistakes")
plt.show()

# %%
# Saving and reloading the weights
# --------------------------------
# ``model.state_dict()`` holds the parameters and the batch-norm running
# statistics; save that, not the model object, and to reload, build the
# same network and load the dictionary into it. With ``weights_only=True``
# (the default) :func:`torch.load` unpickles only tensors, primitive types
# and plain containers; still, load files only from sources you trust.
with tempfile.TemporaryDirectory() as folder:
    path = Path(folder) / "cifar10_small_cnn.pt"
    torch.save(model.state_dict(), path)
    restored = small_cnn().to(device, memory_format=torch.channels_last)
    restored.load_state_dict(torch.load(path, weights_only=True))
restored.eval()
assert torch.equal(predict(restored, val_loader), predict(model, val_loader))
print("The reloaded network predicts the same classes for all 5,000.")

# %%
# On a GPU
# --------
# The model moved to ``device`` once, and each batch moves there as
# ``uint8`` (a quarter of the bytes of floats) to be normalized there, so
# with CUDA, MPS or XPU this same code trains on the GPU. GPU work runs
# asynchronously: the clock stops after ``loss.item()``, which waits for it.
#
# .. note:: Old code you may meet: ``net.cuda()``, ``inputs.cuda()``.
#    ``.to(device)`` does that and lets one script run on any device.
