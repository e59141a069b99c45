"""
torchvision datasets and ImageFolder
====================================

torchvision ships ready-made datasets, and ``ImageFolder`` turns any folder
of class subfolders into a labelled dataset. This lesson looks at what the
built-in datasets do with ``root`` and ``download=True``, reads CIFAR-10 from
a folder of JPEG files with ``ImageFolder``, builds training and test
pipelines with ``transforms.v2`` (normalising with statistics measured on the
data), and shows a shuffled batch with its class names.

.. tags:: beginner, data, real data, vision
"""

# %%
# Setup
# -----
import torch

# sphinx_gallery_parallel = False
torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")

# %%
# Built-in datasets: ``root`` and ``download=True``
# -------------------------------------------------
# Classes such as :class:`~torchvision.datasets.MNIST` and
# :class:`~torchvision.datasets.CIFAR10` know where their data lives on the
# internet. You choose a folder, ``root``; with ``download=True`` the class
# first checks whether the files are already there (by checksum), and only if
# not downloads the archive into ``root``, verifies it and unpacks it (for
# CIFAR-10, into ``root/cifar-10-batches-py``). Later runs find the files and
# skip the download. Nothing is stored anywhere else, so a per-user cache
# folder is a good ``root``:
#
# .. code-block:: python
#
#    import pooch
#    from torchvision import datasets
#
#    root = pooch.os_cache("pytorch-by-example")
#    train = datasets.CIFAR10(root, train=True, download=True)   # 50,000 images
#    test = datasets.CIFAR10(root, train=False, download=True)   # 10,000 images
#    image, label = train[0]   # a PIL image and an int; pass transform= to convert
#
# That block is not run here, because the machines that build this site have
# no internet. :class:`~torchvision.datasets.FakeData` follows the same
# interface with no files at all: it makes a random image for each index
# (the same one each time you ask) and a random label. It is handy for
# testing a pipeline before the real data is there.
from torchvision import datasets
from torchvision.transforms import v2

to_float = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])
fake = datasets.FakeData(
    size=100, image_size=(3, 32, 32), num_classes=10, transform=to_float
)
image, label = fake[3]
again, label_again = fake[3]
print(
    f"FakeData: {len(fake)} samples; sample 3: image {tuple(image.shape)} {image.dtype}, label {label}"
)
assert (
    torch.equal(image, again) and label == label_again
)  # same index, same sample
assert image.shape == (3, 32, 32) and 0.0 <= image.min() and image.max() <= 1.0

# %%
# A folder of JPEG files
# ----------------------
# Much real data arrives as image files sorted into one folder per class.
# The build machines hold CIFAR-10 in exactly that form, as a zip of JPEG
# files (``train/<class>/*.jpg`` and ``test/<class>/*.jpg``) in the folder
# named by the ``PBE_DATA_DIR`` environment variable. We check the zip's
# SHA-256 and unpack it once into the cache, into a temporary folder that is
# renamed into place when complete, with a marker file; the CIFAR-10 lesson
# :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py` reads the same copy.
#
# Without that zip (on your machine, say) the lesson uses a copy unpacked by
# an earlier run if there is one, and otherwise builds a small tree of its
# own with the same ten class folders and generated pictures, so that
# everything below still runs. The page says which one it used.
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

import pooch

CIFAR10_CLASSES = [
    "airplane",
    "automobile",
    "bird",
    "cat",
    "deer",
    "dog",
    "frog",
    "horse",
    "ship",
    "truck",
]
ZIP_SHA256 = "ad20075fc5d761cb1545aa313752ecc67cdb288bc8d01abc2128e7de0ddfedb5"
CACHE = Path(pooch.os_cache("pytorch-by-example"))
CIFAR_DIR = CACHE / "cifar10-jpeg"
MARKER = ".unpacked"


def is_complete(folder):
    """True if folder holds the whole JPEG copy: a marker, or all 60,000 files."""
    if (folder / MARKER).is_file():
        return True
    counts = {"train": 5000, "test": 1000}
    try:
        return all(
            len(os.listdir(folder / split / c)) == n
            for split, n in counts.items()
            for c in CIFAR10_CLASSES
        )
    except FileNotFoundError:
        return False


def unpack_cifar10_jpeg(zip_path):
    if pooch.file_hash(str(zip_path)) != ZIP_SHA256:
        raise ValueError(f"{zip_path} does not match its pinned SHA-256 hash")
    if is_complete(CIFAR_DIR):
        return
    CACHE.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=CACHE, prefix="cifar10-jpeg-"))
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(staging)
    (staging / MARKER).touch()
    staging.chmod(0o755)  # mkdtemp made it private to us
    if CIFAR_DIR.exists() and not is_complete(CIFAR_DIR):
        shutil.rmtree(CIFAR_DIR)  # a half-unpacked leftover
    try:
        staging.rename(CIFAR_DIR)
    except OSError:  # another process finished first
        shutil.rmtree(staging)


def make_small_tree(root, per_class={"train": 12, "test": 4}):
    """Ten CIFAR-10 class folders of generated 32 x 32 JPEGs: colour and stripe angle tell the class."""
    from matplotlib import colormaps
    from torchvision.io import write_jpeg

    gen = torch.Generator().manual_seed(0)
    ys, xs = torch.meshgrid(
        torch.arange(32.0), torch.arange(32.0), indexing="ij"
    )
    for label, name in enumerate(CIFAR10_CLASSES):
        colour = torch.tensor(
            colormaps["tab10"](label)[:3], dtype=torch.float32
        )
        angle = torch.tensor(label * torch.pi / 10)
        stripes = torch.sin(
            (xs * torch.cos(angle) + ys * torch.sin(angle)) / 2
        )
        for split, n in per_class.items():
            (root / split / name).mkdir(parents=True)
            for i in range(n):
                noise = torch.rand(3, 32, 32, generator=gen) * 0.3
                picture = (
                    0.1 + 0.6 * colour[:, None, None] + 0.15 * stripes + noise
                )
                write_jpeg(
                    (picture.clamp(0, 1) * 255).to(torch.uint8),
                    str(root / split / name / f"{i:04d}.jpg"),
                )


data_dir = os.environ.get("PBE_DATA_DIR")
zip_path = Path(data_dir) / "cifar10-jpeg.zip" if data_dir else None
if zip_path is not None and zip_path.is_file():
    unpack_cifar10_jpeg(zip_path)
    root, using_cifar = CIFAR_DIR, True
    print(
        "Using the CIFAR-10 JPEG copy from PBE_DATA_DIR (checked by SHA-256), unpacked in the cache."
    )
    print(
        "JPEG is lossy: pixel values differ slightly from the original CIFAR-10 files."
    )
elif is_complete(CIFAR_DIR):
    root, using_cifar = CIFAR_DIR, True
    print(
        "Using the CIFAR-10 JPEG copy unpacked in the cache by an earlier run."
    )
    print(
        "JPEG is lossy: pixel values differ slightly from the original CIFAR-10 files."
    )
else:
    root, using_cifar = Path(tempfile.mkdtemp(prefix="small-tree-")), False
    make_small_tree(root)
    print(
        "No CIFAR-10 JPEG copy found (PBE_DATA_DIR is unset or lacks cifar10-jpeg.zip):"
    )
    print(
        "using a small generated tree with the same ten class folders instead."
    )

# %%
# ``ImageFolder``
# ---------------
# :class:`~torchvision.datasets.ImageFolder` lists the subfolders of its
# ``root``, sorts their names, and numbers them in that order: that is the
# whole of its labelling. It then records every image file with the number of
# its folder. Images are opened only when indexed, and a ``transform`` is
# applied to each. Because CIFAR-10's class names happen to be in alphabetical
# order, the sorted folders give exactly CIFAR-10's own labels (airplane is
# 0, truck is 9), so a model trained on these folders agrees with one trained
# on :class:`~torchvision.datasets.CIFAR10`. For other data, check this
# mapping before comparing labels with anything else.
train_files = datasets.ImageFolder(root / "train")
test_files = datasets.ImageFolder(root / "test")
print(f"train: {len(train_files)} images, test: {len(test_files)} images")
print("class_to_idx:", train_files.class_to_idx)
assert list(train_files.class_to_idx) == CIFAR10_CLASSES == train_files.classes
assert list(train_files.class_to_idx.values()) == list(range(10))
assert test_files.class_to_idx == train_files.class_to_idx

path, label = train_files.samples[0]
picture, label0 = train_files[0]
print(
    f"sample 0: {Path(path).relative_to(root)} -> label {label} ({train_files.classes[label]}); "
    f"loaded as a PIL image of size {picture.size}"
)
assert Path(path).parent.name == train_files.classes[label] and label == label0
counts = torch.bincount(torch.tensor(train_files.targets), minlength=10)
assert (
    counts == counts[0]
).all()  # balanced: the same number of images per class
if using_cifar:
    assert (len(train_files), len(test_files)) == (50_000, 10_000)

# %%
# Normalisation statistics, measured
# ----------------------------------
# Networks train best on inputs of mean about 0 and spread about 1 per
# channel. ``v2.Normalize`` does ``(x - mean) / std`` per channel, and the
# mean and std should come from the *training* data. We measure them on a
# seeded random sample of up to 2,000 training images, loaded as float
# tensors in ``[0, 1]`` by ``ToImage`` (PIL to a ``uint8`` tensor) and
# ``ToDtype(..., scale=True)`` (to float, divided by 255).
from torch.utils.data import DataLoader, Subset

pick = torch.randperm(
    len(train_files), generator=torch.Generator().manual_seed(0)
)[:2000]
plain_train = datasets.ImageFolder(root / "train", transform=to_float)
pixels = torch.cat(
    [
        images
        for images, _ in DataLoader(
            Subset(plain_train, pick.tolist()), batch_size=500
        )
    ]
)
mean, std = pixels.mean(dim=(0, 2, 3)), pixels.std(dim=(0, 2, 3))
print(
    f"measured on {len(pixels)} training images: mean {[round(m, 4) for m in mean.tolist()]}, "
    f"std {[round(s, 4) for s in std.tolist()]}"
)

if using_cifar:
    # Widely quoted statistics of the original CIFAR-10 training set.
    torch.testing.assert_close(
        mean, torch.tensor([0.4914, 0.4822, 0.4465]), atol=0.01, rtol=0
    )
    torch.testing.assert_close(
        std, torch.tensor([0.2470, 0.2435, 0.2616]), atol=0.01, rtol=0
    )
    print("within 0.01 of the published CIFAR-10 statistics")

# %%
# ``transforms.v2`` pipelines
# ---------------------------
# Training and testing need different pipelines. For training, random
# changes make each epoch see slightly different pictures:
# ``RandomResizedCrop`` cuts a random part (here 60-100% of the area) and
# scales it back to 32 x 32, and ``RandomHorizontalFlip`` mirrors half of the
# images. For testing, the images must stay as they are. Both end by
# converting to float and normalising.
#
# .. note:: Old code you may meet: ``transforms.ToTensor()``, which turned a
#    PIL image into a float tensor in ``[0, 1]`` in one step. In
#    ``transforms.v2`` that is two explicit steps, ``v2.ToImage()`` and
#    ``v2.ToDtype(torch.float32, scale=True)``, so the dtype and the scaling
#    are visible and each can be changed on its own.
train_tf = v2.Compose(
    [
        v2.ToImage(),
        v2.RandomResizedCrop(32, scale=(0.6, 1.0), antialias=True),
        v2.RandomHorizontalFlip(),
        v2.ToDtype(torch.float32, scale=True),
        v2.Normalize(mean.tolist(), std.tolist()),
    ]
)
test_tf = v2.Compose(
    [
        v2.ToImage(),
        v2.ToDtype(torch.float32, scale=True),
        v2.Normalize(mean.tolist(), std.tolist()),
    ]
)
train_set = datasets.ImageFolder(root / "train", transform=train_tf)
test_set = datasets.ImageFolder(root / "test", transform=test_tf)

# The test images were not used to measure mean and std, yet after
# normalisation they have a mean near 0 and a spread near 1 per channel.
test_pick = torch.randperm(
    len(test_set), generator=torch.Generator().manual_seed(1)
)[:1000].tolist()
normed = torch.stack([test_set[i][0] for i in test_pick])
print(
    f"normalised test images: mean {[round(m, 3) for m in normed.mean(dim=(0, 2, 3)).tolist()]}, "
    f"std {[round(s, 3) for s in normed.std(dim=(0, 2, 3)).tolist()]}"
)
assert normed.shape[1:] == (3, 32, 32) and normed.dtype == torch.float32
torch.testing.assert_close(
    normed.mean(dim=(0, 2, 3)), torch.zeros(3), atol=0.1, rtol=0
)
torch.testing.assert_close(
    normed.std(dim=(0, 2, 3)), torch.ones(3), atol=0.1, rtol=0
)

# %%
# The random transforms draw from ``torch``'s generator, so one index gives a
# different training view at every access. Here is one image eight times,
# drawn with :func:`torchvision.utils.make_grid` (normalisation undone for
# display):
import matplotlib.pyplot as plt
from torchvision.utils import make_grid


def for_display(images):
    return (images * std[:, None, None] + mean[:, None, None]).clamp(0, 1)


views = torch.stack([train_set[0][0] for _ in range(8)])
assert not torch.equal(views[0], views[1])
fig, ax = plt.subplots(figsize=(9, 1.9))
ax.imshow(
    make_grid(for_display(views), nrow=8, padding=2, pad_value=1)
    .permute(1, 2, 0)
    .numpy()
)
ax.set_title(
    f"train_set[0] ({train_set.classes[train_set.targets[0]]}), read eight times"
)
ax.set_xlabel("eight random crops and flips of the same image")
ax.set_yticks([])
ax.set_xticks([])
plt.show()

# %%
# A shuffled batch
# ----------------
# A :class:`~torch.utils.data.DataLoader` over ``train_set`` decodes and
# transforms the JPEG files. Here two worker processes do that work. As
# explained in :ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`, we
# ask for the ``fork`` start method on Linux; ``ImageFolder`` and the v2
# transforms live in torchvision, so this loader could also be pickled for
# ``spawn`` (macOS, Windows) as long as the loop sits under ``if __name__ ==
# "__main__":`` in a script. This page simply uses no workers off Linux.
import sys

workers = (
    {"num_workers": 2, "multiprocessing_context": "fork"}
    if sys.platform.startswith("linux")
    else {}
)
loader = DataLoader(
    train_set,
    batch_size=32,
    shuffle=True,
    generator=torch.Generator().manual_seed(0),
    **workers,
)
images, labels = next(iter(loader))
print(
    f"batch: images {tuple(images.shape)} {images.dtype}, labels {labels[:8].tolist()} ..."
)
assert images.shape == (32, 3, 32, 32) and labels.shape == (32,)

# %%
# ``make_grid`` tiles the batch into one image, with ``padding`` pixels
# between tiles; we leave 8 pixels so that each class name fits under its
# tile.
pad, tile = 8, 32 + 8
grid = make_grid(for_display(images[:16]), nrow=8, padding=pad, pad_value=1)
fig, ax = plt.subplots(figsize=(9, 3.2))
ax.imshow(grid.permute(1, 2, 0).numpy())
for k, label in enumerate(labels[:16].tolist()):
    row, col = divmod(k, 8)
    ax.text(
        col * tile + pad + 16,
        (row + 1) * tile + 0.5,
        train_set.classes[label],
        ha="center",
        va="top",
        fontsize=7,
    )
ax.set_title("16 images of a shuffled training batch, with their class names")
ax.set_xlabel("column of the grid")
ax.set_ylabel("row of the grid")
ax.set_xticks([col * tile + pad + 16 for col in range(8)], range(8))
ax.set_yticks([row * tile + pad + 16 for row in range(2)], range(2))
plt.show()
