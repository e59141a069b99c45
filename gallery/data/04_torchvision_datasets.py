"""
torchvision datasets and ImageFolder
====================================

torchvision ships ready-made datasets, and ``ImageFolder`` turns any folder
of class subfolders into a labelled dataset. This lesson gets CIFAR-10 both
ways, measures the statistics to normalise it with, builds training and test
pipelines with ``transforms.v2``, and shows a shuffled batch with its class
names.

**You will learn** to load a torchvision dataset or a folder of images, to
see how ``ImageFolder`` numbers classes, to measure normalisation
statistics on training data, and to build random training transforms with
``transforms.v2``.

**You need first** ``Dataset`` and ``DataLoader`` from
:ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`.
"""

# %%
# Setup
# -----
# One seed, for the random choices and the random transforms below.
import torch

torch.manual_seed(0)
print("Running on: cpu (this lesson only reads and transforms data)")
# sphinx_gallery_tags = ["beginner", "data", "real data", "vision"]

# %%
# Getting CIFAR-10
# ----------------
# CIFAR-10 has 50,000 training and 10,000 test photos of 32x32 pixels in ten
# classes. Dataset classes such as :class:`~torchvision.datasets.CIFAR10`
# know where their data lives: with ``download=True`` they download the
# archive into the folder ``root`` unless it is already there, check its MD5
# sum and unpack it. Offline, the environment variable ``PBE_DATA_DIR`` can
# name a folder holding ``cifar10-jpeg.zip``, the same photos as JPEG files
# (``train/<class>/N.jpg``); `pooch <https://www.fatiando.org/pooch/>`_
# checks its SHA-256 hash and unpacks it once, into a folder of this
# lesson's own (so two lessons running at once never write the same files).
# ``fetch_cifar10`` does one or the other, and stops at once with neither.
import pooch
from torchvision import datasets

cache = pooch.os_cache("pytorch-by-example")  # a per-user cache folder
SHA256 = "ad20075fc5d761cb1545aa313752ecc67cdb288bc8d01abc2128e7de0ddfedb5"


def fetch_cifar10():
    """The JPEG copy's folder if PBE_DATA_DIR holds it, else None after
    torchvision's download of the original into ``cache``."""
    jpeg_copy = pooch.create(
        path=cache,
        base_url="",  # never downloaded: an offline copy is only read
        env="PBE_DATA_DIR",  # when set, pooch looks in that folder instead
        registry={"cifar10-jpeg.zip": f"sha256:{SHA256}"},
        allow_updates=False,  # a copy with another hash stops the lesson
    )
    if (jpeg_copy.abspath / "cifar10-jpeg.zip").is_file():
        unzip = pooch.Unzip(extract_dir=cache / "cifar10-jpeg-data04")
        jpeg_copy.fetch("cifar10-jpeg.zip", processor=unzip)
        return cache / "cifar10-jpeg-data04"
    try:
        datasets.CIFAR10(cache, download=True)  # both splits, one archive
    except OSError as err:  # no network, or the server refused
        raise RuntimeError("offline: connect, or set PBE_DATA_DIR") from err
    return None


# %%
# One call gets the data, and we print which copy it found:
jpeg_dir = fetch_cifar10()
use_jpeg = jpeg_dir is not None
if use_jpeg:
    print("Using the JPEG copy of CIFAR-10 (lossy: pixels differ slightly)")
else:
    print("Using the original CIFAR-10, downloaded by torchvision")

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
    """One split of CIFAR-10 as (PIL image, label) pairs: the JPEG folders
    if we have them, else the original."""
    if use_jpeg:
        folder = jpeg_dir / ("train" if train else "test")
        return datasets.ImageFolder(folder, transform=transform)
    return datasets.CIFAR10(cache, train=train, transform=transform)


train_files, test_files = cifar10(train=True), cifar10(train=False)
print(f"{type(train_files).__name__}: {len(train_files):,} training photos")
print("class_to_idx:", train_files.class_to_idx)
# sphinx_gallery_start_ignore
assert (len(train_files), len(test_files)) == (50_000, 10_000)
assert train_files.classes == [
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
]  # CIFAR-10's labels 0-9
# sphinx_gallery_end_ignore

# %%
# Each sample is a PIL image and an integer label:
picture, label = train_files[0]
print(f"sample 0: a {picture.size} {picture.mode} image, label {label}")
counts = torch.bincount(torch.tensor(train_files.targets), minlength=10)
print(f"training photos per class: {counts.tolist()}")
# sphinx_gallery_start_ignore
assert picture.size == (32, 32) and picture.mode == "RGB"
assert (counts == 5000).all()
# sphinx_gallery_end_ignore

# %%
# The classes are balanced: 5,000 training photos each.
#
# Normalisation statistics, measured
# ----------------------------------
# Networks usually train more easily on inputs with mean about 0 and spread
# about 1 per channel. ``v2.Normalize`` computes ``(x - mean) / std`` per
# channel, with a mean and std that should come from the *training* data.
# We measure them on 2,000 random training photos, turned into float tensors
# in ``[0, 1]`` by ``v2.ToImage`` (PIL image to ``uint8`` tensor) and
# ``v2.ToDtype(..., scale=True)`` (to float, divided by 255).
from torch.utils.data import DataLoader, Subset
from torchvision.transforms import v2

to_float = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])
pick = torch.randperm(len(train_files))[:2000].tolist()
sample_set = Subset(cifar10(train=True, transform=to_float), pick)
pixels = torch.cat([images for images, _ in DataLoader(sample_set, 500)])
mean, std = pixels.mean(dim=(0, 2, 3)), pixels.std(dim=(0, 2, 3))
print(f"mean {[round(m, 4) for m in mean.tolist()]}")
print(f"std  {[round(s, 4) for s in std.tolist()]}")
per_photo = pixels.std(dim=(2, 3)).mean(dim=0)  # each photo's own spread
print(f"mean of each photo's std {[round(s, 4) for s in per_photo.tolist()]}")
# sphinx_gallery_start_ignore
assert (per_photo < std).all()
torch.testing.assert_close(
    per_photo, torch.tensor([0.2023, 0.1994, 0.2010]), atol=0.01, rtol=0
)
# The statistics usually quoted for the whole CIFAR-10 training set:
torch.testing.assert_close(
    mean, torch.tensor([0.4914, 0.4822, 0.4465]), atol=0.01, rtol=0
)
torch.testing.assert_close(
    std, torch.tensor([0.2470, 0.2435, 0.2616]), atol=0.01, rtol=0
)
# sphinx_gallery_end_ignore

# %%
# These agree to within 0.01 with the statistics usually quoted for the
# whole training set (mean 0.4914, 0.4822, 0.4465; std 0.2470, 0.2435,
# 0.2616): 2,000 photos are plenty for six numbers. Some tutorials give
# the std as (0.2023, 0.1994, 0.2010) instead: that is the mean of each
# photo's own spread, printed last, which leaves out how much the photos
# differ from each other. ``Normalize`` needs the spread of all pixels
# together, the ``std`` line.
#
# ``transforms.v2`` pipelines
# ---------------------------
# Training and testing need different pipelines. For training, random
# changes make each epoch see slightly different pictures:
# ``RandomResizedCrop`` cuts a random part (here 60-100% of the area, aspect
# ratio 3:4 to 4:3) and scales it back to 32x32, and
# ``RandomHorizontalFlip`` mirrors each image with probability 1/2. Test
# images stay as they are. Both pipelines end by converting to float and
# normalising.
normalize = v2.Normalize(mean.tolist(), std.tolist())
train_tf = v2.Compose(
    [
        v2.ToImage(),
        v2.RandomResizedCrop(32, scale=(0.6, 1.0)),
        v2.RandomHorizontalFlip(),
        v2.ToDtype(torch.float32, scale=True),
        normalize,
    ]
)
test_tf = v2.Compose([to_float, normalize])
train_set = cifar10(train=True, transform=train_tf)
test_set = cifar10(train=False, transform=test_tf)

# %%
# The random transforms draw from ``torch``'s random generator, so one index
# gives a different training view at every access. Here is one photo read
# eight times (normalisation undone for display).
# :func:`torchvision.utils.make_grid` tiles a batch of images,
# ``(N, 3, H, W)``, into one image, 8 per row with 12 pixels of padding
# between them, where the titles go:
import matplotlib.pyplot as plt
from torchvision.utils import make_grid


def show(images, titles, suptitle):
    """Plot (N, 3, 32, 32) normalised images in rows of 8, with titles."""
    images = (images * std[:, None, None] + mean[:, None, None]).clamp(0, 1)
    grid = make_grid(images, nrow=8, padding=12, pad_value=1.0)
    rows = (len(images) + 7) // 8
    fig, ax = plt.subplots(figsize=(9, 1.2 * rows + 0.4), layout="constrained")
    ax.imshow(grid.permute(1, 2, 0).numpy())  # (height, width, channels)
    for k, title in enumerate(titles):  # tiles 32 + 12 = 44 pixels apart
        row, col = divmod(k, 8)
        ax.text(44 * col + 28, 44 * row + 10, title, ha="center", fontsize=8)
    ax.set_title(suptitle)
    ax.axis("off")


views = torch.stack([train_set[0][0] for _ in range(8)])
# sphinx_gallery_start_ignore
assert not torch.equal(views[0], views[1])
# sphinx_gallery_end_ignore
name = train_set.classes[train_set.targets[0]]
titles = [f"view {k + 1}" for k in range(8)]
show(views, titles, f"train_set[0] ({name}), read 8 times")
plt.show()

# %%
# A shuffled batch
# ----------------
# A :class:`~torch.utils.data.DataLoader` over ``train_set`` reads and
# transforms the photos and stacks them into a batch (worker processes can
# share that work: see
# :ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`).
loader = DataLoader(train_set, batch_size=32, shuffle=True)
images, labels = next(iter(loader))
print(
    f"batch: images {tuple(images.shape)} {images.dtype}, labels {labels[:8]}"
)
# sphinx_gallery_start_ignore
assert images.shape == (32, 3, 32, 32) and labels.shape == (32,)
# sphinx_gallery_end_ignore

# %%
# The first 16 photos of the batch, each after a random crop and, about
# half the time, a flip, titled with the class its folder (or CIFAR-10's own
# label) gives it:

# sphinx_gallery_thumbnail_number = 2
titles = [train_set.classes[label] for label in labels[:16]]
show(images[:16], titles, "16 photos of a shuffled training batch")
plt.show()

# %%
# Going deeper
# ------------
# Optional on a first read.
#
# Normalised test photos
# ~~~~~~~~~~~~~~~~~~~~~~
# The test photos played no part in measuring the mean and std, yet after
# normalisation they too have a mean near 0 and a spread near 1 per channel:
pick = torch.randperm(len(test_set))[:1000].tolist()
normed = torch.stack([test_set[i][0] for i in pick])
n_mean, n_std = normed.mean(dim=(0, 2, 3)), normed.std(dim=(0, 2, 3))
print(f"normalised test photos: mean {n_mean.numpy().round(3)}")
print(f"                        std  {n_std.numpy().round(3)}")
# sphinx_gallery_start_ignore
assert normed.shape[1:] == (3, 32, 32) and normed.dtype == torch.float32
torch.testing.assert_close(n_mean, torch.zeros(3), atol=0.1, rtol=0)
torch.testing.assert_close(n_std, torch.ones(3), atol=0.1, rtol=0)
# sphinx_gallery_end_ignore

# %%
# Repeating a random view
# ~~~~~~~~~~~~~~~~~~~~~~~
# The views come from the global generator's state, so restoring that
# state repeats a view: :func:`torch.random.fork_rng` saves the state and
# restores it on exit (``devices=[]``: only the CPU generator; by default it
# would also save and restore the state of every CUDA device).
with torch.random.fork_rng(devices=[]):
    again = train_set[0][0]
same = torch.equal(train_set[0][0], again)
print(f"the same view after restoring the state: {same}")
# sphinx_gallery_start_ignore
assert same
# sphinx_gallery_end_ignore

# %%
# Which files an ``ImageFolder`` reads
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``samples`` lists ``(path, label)`` for every index, and the label is the
# number of the path's folder (on the original CIFAR-10, which is not a
# folder of files, there is no such list):
from pathlib import Path

if use_jpeg:
    path, label = train_files.samples[0]
    print(f"index 0 reads {Path(path).relative_to(jpeg_dir)}, label {label}")
    # sphinx_gallery_start_ignore
    assert Path(path).parent.name == train_files.classes[label]
    # sphinx_gallery_end_ignore

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``transforms.ToTensor()`` turned a PIL image into a float tensor in
#      ``[0, 1]`` in one step. In ``transforms.v2`` that is two explicit
#      steps, ``v2.ToImage()`` and ``v2.ToDtype(torch.float32,
#      scale=True)``, so the dtype and the scaling are visible and each can
#      be changed on its own.
#    - ``from torchvision import transforms`` (v1): ``transforms.v2`` accepts
#      the same transforms, and also transforms boxes, masks and keypoints
#      together with the image.

# %%
# Takeaways
# ---------
# - A torchvision dataset class downloads, checks and reads its data;
#   ``ImageFolder`` labels any folder of class subfolders by their sorted
#   names.
# - Normalisation statistics come from the training data only, then apply
#   to every split.
# - Training pipelines add random transforms (crops, flips); test pipelines
#   only convert and normalise.
# - A ``DataLoader`` over such a dataset transforms and batches the photos.
#
# Next, :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py` trains a
# classifier on these photos, if you have not read it yet; then
# :ref:`sphx_glr_lessons_advanced_09_cifar10_fast_cpu.py` trains one fast on
# a CPU, with random flips among other tools.
