"""
torchvision datasets and ImageFolder
====================================

torchvision ships ready-made datasets, and ``ImageFolder`` turns any folder
of class subfolders into a labelled dataset. This lesson gets CIFAR-10
(downloaded by ``torchvision.datasets.CIFAR10``, or read from a folder of
JPEG files with ``ImageFolder``), builds training and test pipelines with
``transforms.v2``, normalising with statistics measured on the training
data, and shows a shuffled batch with its class names.
"""

# %%
# Setup
# -----
import torch

torch.manual_seed(0)
print("Running on: cpu (this lesson only reads and transforms data)")
# sphinx_gallery_tags = ["beginner", "data", "real data", "vision"]

# %%
# Getting CIFAR-10
# ----------------
# CIFAR-10 has 50,000 training and 10,000 test images of 32 x 32 pixels in
# ten classes. Offline, set ``PBE_DATA_DIR`` to a folder holding
# ``cifar10-jpeg.zip`` (the same images as JPEG files,
# ``train/<class>/N.jpg``): we check its SHA-256 and unpack it once into a
# cache folder.
import os
import zipfile
from pathlib import Path

import pooch
from torchvision import datasets

CACHE = Path(pooch.os_cache("pytorch-by-example"))
SHA256 = "ad20075fc5d761cb1545aa313752ecc67cdb288bc8d01abc2128e7de0ddfedb5"
zip_path = Path(os.environ.get("PBE_DATA_DIR", "-")) / "cifar10-jpeg.zip"
jpeg_dir = CACHE / "cifar10-jpeg"
use_jpeg = zip_path.is_file()
if use_jpeg:
    if pooch.file_hash(str(zip_path)) != SHA256:
        raise RuntimeError("cifar10-jpeg.zip does not match its SHA-256 hash")
    if not (jpeg_dir / "unpacked").is_file():  # written once all files are
        with zipfile.ZipFile(zip_path) as archive:
            archive.extractall(jpeg_dir)
        (jpeg_dir / "unpacked").touch()
    print("Using the JPEG copy of CIFAR-10 (lossy: pixels differ slightly)")

# %%
# Without that copy, the dataset class does the work. Classes such as
# :class:`~torchvision.datasets.CIFAR10` know where their data lives: with
# ``download=True`` they download the archive into the folder ``root``
# unless it is already there, check its MD5 sum and unpack it. Without
# network either, the lesson stops with a message.
if not use_jpeg:
    try:
        for train in (True, False):
            datasets.CIFAR10(CACHE, train=train, download=True)
    except OSError as err:  # no network, or the server refused
        raise RuntimeError(
            "Could not download CIFAR-10: connect to the internet, or set "
            "PBE_DATA_DIR to a folder with cifar10-jpeg.zip."
        ) from err
    print("Using the original CIFAR-10 from torchvision (MD5 checked)")

# %%
# ``ImageFolder``
# ---------------
# Much real data arrives as image files sorted into one folder per class.
# :class:`~torchvision.datasets.ImageFolder` lists the subfolders of its
# ``root``, sorts their names and numbers them in that order: that is the
# whole of its labelling. It records every image file with the number of
# its folder, opens an image only when it is indexed, and applies
# ``transform`` to it. CIFAR-10's class names happen to be in alphabetical
# order, so the sorted folders give CIFAR-10's own labels (airplane is 0,
# truck is 9). For other data, check this mapping before comparing labels
# with anything else.


def cifar10(train, transform=None):
    """One split of CIFAR-10: the JPEG folders if we have them, else the
    original; both give (image, label) pairs with a PIL image."""
    if use_jpeg:
        folder = jpeg_dir / ("train" if train else "test")
        return datasets.ImageFolder(folder, transform=transform)
    return datasets.CIFAR10(CACHE, train=train, transform=transform)


train_files, test_files = cifar10(train=True), cifar10(train=False)
print(f"{type(train_files).__name__}: {len(train_files)} training images")
print("class_to_idx:", train_files.class_to_idx)
assert (len(train_files), len(test_files)) == (50_000, 10_000)
CIFAR10_ORDER = ["airplane", "automobile", "bird", "cat", "deer", "dog"]
CIFAR10_ORDER += ["frog", "horse", "ship", "truck"]  # CIFAR-10's labels 0-9
assert train_files.classes == CIFAR10_ORDER

# %%
# Each sample is a PIL image and an integer label. With ``ImageFolder`` the
# list ``samples`` says which file each index reads:
picture, label = train_files[0]
print(f"sample 0: {picture.size} {picture.mode} image, label {label}")
counts = torch.bincount(torch.tensor(train_files.targets), minlength=10)
assert (counts == 5000).all()  # balanced: 5,000 training images per class
if use_jpeg:
    path, label0 = train_files.samples[0]
    print(f"read from {Path(path).relative_to(jpeg_dir)}")
    assert Path(path).parent.name == train_files.classes[label0]
assert picture.size == (32, 32) and picture.mode == "RGB"

# %%
# Normalisation statistics, measured
# ----------------------------------
# Networks usually train more easily on inputs with mean about 0 and spread
# about 1 per channel. ``v2.Normalize`` computes ``(x - mean) / std`` per
# channel, with a mean and std that should come from the *training* data.
# We measure them on a seeded random sample of 2,000 training images,
# turned into float tensors in ``[0, 1]`` by ``v2.ToImage`` (PIL image to
# ``uint8`` tensor) and ``v2.ToDtype(..., scale=True)`` (to float, divided
# by 255).
from torch.utils.data import DataLoader, Subset
from torchvision.transforms import v2

to_float = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])
gen = torch.Generator().manual_seed(0)
pick = torch.randperm(len(train_files), generator=gen)[:2000].tolist()
sample_set = Subset(cifar10(train=True, transform=to_float), pick)
pixels = torch.cat([images for images, _ in DataLoader(sample_set, 500)])
mean, std = pixels.mean(dim=(0, 2, 3)), pixels.std(dim=(0, 2, 3))
print(f"mean {[round(m, 4) for m in mean.tolist()]}")
print(f"std  {[round(s, 4) for s in std.tolist()]}")
# The statistics usually quoted for the whole CIFAR-10 training set:
quoted_mean, quoted_std = [0.4914, 0.4822, 0.4465], [0.2470, 0.2435, 0.2616]
torch.testing.assert_close(mean, torch.tensor(quoted_mean), atol=0.01, rtol=0)
torch.testing.assert_close(std, torch.tensor(quoted_std), atol=0.01, rtol=0)

# %%
# The 2,000 images agree with the statistics usually quoted for the whole
# training set to within 0.01 (the asserts check it).
#
# ``transforms.v2`` pipelines
# ---------------------------
# Training and testing need different pipelines. For training, random
# changes make each epoch see slightly different pictures:
# ``RandomResizedCrop`` cuts a random part (here 60-100% of the area, aspect
# ratio 3:4 to 4:3) and scales it back to 32 x 32, and
# ``RandomHorizontalFlip`` mirrors each image with probability 1/2. Test
# images stay as they are. Both pipelines end by converting to float and
# normalising.
#
# .. note:: Old code you may meet: ``transforms.ToTensor()``, which turned a
#    PIL image into a float tensor in ``[0, 1]`` in one step. In
#    ``transforms.v2`` that is two explicit steps, ``v2.ToImage()`` and
#    ``v2.ToDtype(torch.float32, scale=True)``, so the dtype and the scaling
#    are visible and each can be changed on its own.
normalize = v2.Normalize(mean.tolist(), std.tolist())
train_tf = v2.Compose(
    [
        v2.ToImage(),
        v2.RandomResizedCrop(32, scale=(0.6, 1.0), antialias=True),
        v2.RandomHorizontalFlip(),
        v2.ToDtype(torch.float32, scale=True),
        normalize,
    ]
)
test_tf = v2.Compose([to_float, normalize])
train_set = cifar10(train=True, transform=train_tf)
test_set = cifar10(train=False, transform=test_tf)

# %%
# The test images played no part in measuring the mean and std, yet after
# normalisation they too have a mean near 0 and a spread near 1 per channel:
gen = torch.Generator().manual_seed(1)
test_pick = torch.randperm(len(test_set), generator=gen)[:1000].tolist()
normed = torch.stack([test_set[i][0] for i in test_pick])
n_mean, n_std = normed.mean(dim=(0, 2, 3)), normed.std(dim=(0, 2, 3))
print(f"normalised test images: mean {[round(m, 3) for m in n_mean.tolist()]}")
print(f"                        std  {[round(s, 3) for s in n_std.tolist()]}")
assert normed.shape[1:] == (3, 32, 32) and normed.dtype == torch.float32
torch.testing.assert_close(n_mean, torch.zeros(3), atol=0.1, rtol=0)
torch.testing.assert_close(n_std, torch.ones(3), atol=0.1, rtol=0)

# %%
# The random transforms draw from ``torch``'s global generator, so one index
# gives a different training view at every access, and the same view again
# when the generator's state is restored. Here is one image eight times,
# tiled with :func:`torchvision.utils.make_grid` (normalisation undone for
# display):
import matplotlib.pyplot as plt
from torchvision.utils import make_grid


def for_display(images):
    return (images * std[:, None, None] + mean[:, None, None]).clamp(0, 1)


views = torch.stack([train_set[0][0] for _ in range(8)])
assert not torch.equal(views[0], views[1])
with torch.random.fork_rng(devices=[]):  # restores the state on exit
    again = train_set[0][0]
assert torch.equal(train_set[0][0], again)  # same state, same view
grid = make_grid(for_display(views), nrow=8, padding=2, pad_value=1)
fig, ax = plt.subplots(figsize=(9, 1.9))
ax.imshow(grid.permute(1, 2, 0))
name = train_set.classes[train_set.targets[0]]
ax.set_title(f"train_set[0] ({name}), read eight times")
ax.set_xlabel(
    "eight random crops of one image, each flipped with probability 1/2"
)
ax.set_xticks([])
ax.set_yticks([])
plt.show()

# %%
# A shuffled batch
# ----------------
# A :class:`~torch.utils.data.DataLoader` over ``train_set`` reads and
# transforms the images and stacks them into a batch. (Worker processes can
# share that work; see :ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`
# for ``num_workers`` and when it needs an ``if __name__ == "__main__":``
# guard.) ``make_grid`` tiles the first 16 images, 8 pixels apart so that
# each class name fits under its tile.
gen = torch.Generator().manual_seed(0)
loader = DataLoader(train_set, batch_size=32, shuffle=True, generator=gen)
images, labels = next(iter(loader))
print(f"batch: images {tuple(images.shape)} {images.dtype}")
assert images.shape == (32, 3, 32, 32) and labels.shape == (32,)

# sphinx_gallery_thumbnail_number = 2
pad, tile = 8, 32 + 8
grid = make_grid(for_display(images[:16]), nrow=8, padding=pad, pad_value=1)
fig, ax = plt.subplots(figsize=(9, 3.2))
ax.imshow(grid.permute(1, 2, 0))
for k, label in enumerate(labels[:16].tolist()):
    row, col = divmod(k, 8)
    x, y = col * tile + pad + 16, (row + 1) * tile + 0.5
    ax.text(x, y, train_set.classes[label], ha="center", va="top", size=7)
ax.set_title("16 images of a shuffled training batch, with their classes")
ax.set_xlabel("column of the grid")
ax.set_ylabel("row of the grid")
ax.set_xticks([col * tile + pad + 16 for col in range(8)], range(8))
ax.set_yticks([row * tile + pad + 16 for row in range(2)], range(2))
plt.show()

# %%
# Each tile is one training image after a random crop and, about half the
# time, a flip, labelled with the class that its folder (or CIFAR-10's own
# label) gives it.
