"""
A custom Dataset: face landmarks
================================

Real photos, each face marked with 68 landmark points: we turn dlib's XML
files into a CSV table, write a ``Dataset`` that reads each photo only when
asked, and batch photos of different sizes.

**You will learn** to fetch a small public dataset with ``pooch``, to
write a ``Dataset`` class with ``__len__`` and ``__getitem__`` over files
on disk, to look at its samples, and to decide with ``collate_fn`` what a
batch is.

**You need first** :ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`
(``Dataset`` and ``DataLoader``). Optional on a first read of the site.
"""

# %%
# Setup
# -----
import torch

torch.manual_seed(0)
print("Running on: cpu (this lesson only reads and batches data)")
# sphinx_gallery_tags = ["intermediate", "data", "real data", "vision"]

# %%
# The files
# ---------
# dlib's example faces: nine photos from the PASCAL VOC 2011 dataset with
# 43 faces, each with a box and 68 points (the iBUG 300-W scheme) in two XML
# files. dlib made the points with its own landmark model, not by hand,
# which is good enough to learn with. Each file is pinned by its SHA-256
# hash and a commit of dlib's repository, so every reader gets the same
# bytes.
PHOTOS = """\
2007_007763 17d9897dd55d38179f51dc18371b3f4495a606aaa2846e25a3cb6a58b3a97c89
2008_001009 2509864113a286bf245161d0317a18c38b6a6641135969847a7e59dff359c52c
2008_001322 2ea5a60f5347baab8da6eccce43b0320d63da1368d7710fb15cbff8a790bc626
2008_002079 f929bdf416d756b37eb90c119b892eba5d21041b134883e18d827bce641fb48f
2008_002470 14b543e3ac55b497aaaba9dc03a39be04c8ae670851b3f78f9f5adb08295d780
2008_002506 ede6804edf0ec005144ffe7f0f2b56bd2aa1d21beee79d29f72cb16ead19a447
2008_004176 92a075f5e1d279f009ab4809592aaf0109e429adf3266e5aa8ce2755730b41c2
2008_007676 09a0e07d6fb3b4276e73b9f6450b5c69d97d3e3b75807948caf6defd40260e6f
2009_004587 2dc5d52a5388499cf912d7d99dc9d05e4bec7651153331f40e81ae4813bb317c"""
SHA256 = {f"{s}.jpg": h for s, h in map(str.split, PHOTOS.splitlines())}
SHA256["training_with_face_landmarks.xml"] = (
    "d7895a98681f5e3818fb5d95cd75fdeba7c0e0c74cc9b22193df2909eb8f6ce5"
)
SHA256["testing_with_face_landmarks.xml"] = (
    "b45d736ab07016dd552a95cedb569a5e1f0c4dacf9ba6db60861fec55c05c57e"
)
COMMIT = {  # the commit of github.com/davisking/dlib that holds each file
    "jpg": "43ce7908b9a9d19955ddb35a6e83da8e413dd98f",
    "training": "c3b5fdefd05f0462057b9b7bf95c899e22eadac8",
    "testing": "16500906b0cdcb51a09db9879c4afcf8190009f3",
}

# %%
# Getting the files
# -----------------
# `pooch <https://www.fatiando.org/pooch/>`_ downloads each file once into a
# cache folder and checks its hash on every ``fetch``. If the environment
# variable ``PBE_DATA_DIR`` names a folder, pooch looks instead for an
# offline copy in its ``dlib-faces/`` subfolder. With neither network nor
# copy, the function stops at once.
from pathlib import Path

import pooch

RAW = "https://raw.githubusercontent.com/davisking/dlib/{}/examples/faces/{}"


def fetch_dlib_faces():
    """Fetch dlib's example faces (or find the offline copy); their folder."""
    commit = {n: COMMIT.get(n.split("_")[0], COMMIT["jpg"]) for n in SHA256}
    faces_data = pooch.create(
        path=pooch.os_cache("pytorch-by-example"),
        base_url="",  # every file has its own URL, at its own commit
        env="PBE_DATA_DIR",
        registry={f"dlib-faces/{n}": f"sha256:{h}" for n, h in SHA256.items()},
        urls={f"dlib-faces/{n}": RAW.format(c, n) for n, c in commit.items()},
    )
    try:
        files = [faces_data.fetch(name) for name in faces_data.registry]
    except OSError as err:
        raise RuntimeError("offline: connect, or set PBE_DATA_DIR") from err
    return Path(files[0]).parent


# %%
# One call gets the data:
faces_dir = fetch_dlib_faces()
print(f"{len(SHA256)} files, each matching its SHA-256 hash")
# sphinx_gallery_start_ignore
assert all(pooch.file_hash(faces_dir / n) == h for n, h in SHA256.items())
# sphinx_gallery_end_ignore

# %%
# From XML to a tidy table
# ------------------------
# dlib's XML has an ``<image>`` per photo, a ``<box>`` per face and a
# ``<part>`` per landmark. We flatten it into a pandas ``DataFrame``, one row
# per face: image file, dlib's train/test split, box, then the 68 points as
# ``x00, y00, x01, y01, ...``.
import xml.etree.ElementTree as ET

import pandas as pd

BOX = ["left", "top", "width", "height"]


def faces_from_xml(split):
    """One dict per face of a split: photo, split, box and 68 points."""
    xml_file = faces_dir / f"{split}_with_face_landmarks.xml"
    for image in ET.parse(xml_file).getroot().iter("image"):
        for box in image.iter("box"):
            row = {"image": image.get("file"), "split": split}
            row |= {k: int(box.get(k)) for k in BOX}
            for part in box.iter("part"):  # name "00" to "67"
                for axis in "xy":
                    row[f"{axis}{part.get('name')}"] = int(part.get(axis))
            yield row


# %%
# Both files as one table, saved as CSV as a project would keep it (here
# in a temporary folder):
import tempfile

faces = pd.DataFrame([*faces_from_xml("training"), *faces_from_xml("testing")])
print(f"{len(faces)} faces in {faces['image'].nunique()} photos")
print(faces.iloc[:3, :10].to_string(), "...")
work = tempfile.TemporaryDirectory()
csv_file = Path(work.name) / "face_landmarks.csv"
faces.to_csv(csv_file, index=False)
# sphinx_gallery_start_ignore
assert list(faces.columns[6:]) == [
    f"{axis}{i:02d}" for i in range(68) for axis in "xy"
]
assert faces.notna().all().all() and len(faces) == 43
assert faces["image"].nunique() == 9
# sphinx_gallery_end_ignore

# %%
# The Dataset
# -----------
# ``__init__`` reads the whole table once. ``__getitem__`` reads one photo,
# only when asked, so a dataset of a million photos costs no more memory
# than its table. A sample is a dict: the ``image`` as a ``3 x H x W``
# ``uint8`` tensor, the ``landmarks`` as a ``68 x 2`` tensor of ``(x, y)``
# pixel positions, and the face ``box``. Photos are read as RGB, so gray ones
# get three channels too (see "Going deeper").
import numpy as np
from torchvision.io import ImageReadMode, decode_image


class FaceLandmarks(torch.utils.data.Dataset):
    def __init__(self, csv_file, image_dir):
        self.csv_file, self.image_dir = Path(csv_file), Path(image_dir)
        table = pd.read_csv(self.csv_file)
        self.images = table["image"].tolist()
        numbers = torch.from_numpy(table.iloc[:, 2:].to_numpy(np.float32))
        self.boxes = numbers[:, :4]
        self.landmarks = numbers[:, 4:].reshape(-1, 68, 2)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        path = self.image_dir / self.images[idx]
        image = decode_image(str(path), mode=ImageReadMode.RGB)
        # copies, so that a change to a sample leaves the table as it was
        sample = {"image": image, "landmarks": self.landmarks[idx].clone()}
        sample["box"] = self.boxes[idx].clone()
        return sample


# %%
# One sample:
face_set = FaceLandmarks(csv_file, faces_dir)
sample = face_set[0]
shapes = {key: tuple(value.shape) for key, value in sample.items()}
print(f"{len(face_set)} faces; sample 0: {shapes}")
print(f"nose tip (point 30) at (x, y) = {sample['landmarks'][30].tolist()}")
# sphinx_gallery_start_ignore
assert len(face_set) == 43 and sample["image"].shape == (3, 375, 500)
assert torch.equal(sample["landmarks"][30], torch.tensor([208.0, 114.0]))
# sphinx_gallery_end_ignore

# %%
# The nose tip is where the XML puts it.
#
# Looking at the data
# -------------------
# The iBUG scheme numbers the points in fixed groups: jaw line 0-16,
# eyebrows 17-21 and 22-26, nose 27-35, eyes 36-41 and 42-47, lips 48-67.
# Each panel zooms to the face.
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 4, figsize=(10, 2.9), layout="constrained")
for ax, idx in zip(axes, [0, 9, 14, 40]):
    face = face_set[idx]
    points = face["landmarks"].numpy()
    ax.imshow(face["image"].permute(1, 2, 0).numpy())
    ax.plot(*points.T, ".", color="cyan", ms=2)
    ax.plot(*points[36:42].T, ".", color="red", ms=3)
    left, top, width, height = face["box"].tolist()
    ax.set_xlim(left - 0.3 * width, left + 1.3 * width)
    ax.set_ylim(top + 1.3 * height, top - 0.3 * height)  # rows grow down
    ax.set_title(f"face {idx}: {face_set.images[idx]}", fontsize=9)
    # sphinx_gallery_start_ignore
    assert points[36:42, 0].mean() < points[42:48, 0].mean()
    # sphinx_gallery_end_ignore
fig.supxlabel("x (pixels in the photo)")
fig.supylabel("y (pixels)")
fig.suptitle("Samples from FaceLandmarks, zoomed to the face box")
plt.show()

# %%
# The cyan dots follow each jaw, brow, nose, eye and mouth; points 36-41
# (red) circle the eye on the picture's left, which is the person's right
# eye.
#
# Batching faces with a DataLoader
# --------------------------------
# The default ``collate_fn`` stacks each dict entry across the batch, which
# needs equal shapes. The photos differ in size, so it refuses them:
from torch.utils.data import DataLoader

gen = torch.Generator().manual_seed(0)
raw_loader = DataLoader(face_set, batch_size=4, shuffle=True, generator=gen)
try:
    next(iter(raw_loader))
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).splitlines()[0]}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("the default collate should have failed")
# sphinx_gallery_end_ignore

# %%
# Our own ``collate_fn`` decides what a batch is: here a list of images of
# different sizes, and the landmarks and boxes stacked:


def collate_faces(samples):
    batch = {"image": [s["image"] for s in samples]}
    for key in ["landmarks", "box"]:
        batch[key] = torch.stack([s[key] for s in samples])
    return batch


gen = torch.Generator().manual_seed(0)
raw_loader = DataLoader(
    face_set, 4, shuffle=True, generator=gen, collate_fn=collate_faces
)
raw_batch = next(iter(raw_loader))
images = raw_batch["image"]
print("image sizes", [tuple(im.shape) for im in images])
print("faces 2 and 3 share a photo?", torch.equal(images[1], images[2]))
print(f"landmarks {tuple(raw_batch['landmarks'].shape)}")
# sphinx_gallery_start_ignore
assert raw_batch["landmarks"].shape == (4, 68, 2)
assert len({im.shape for im in images}) == 3
assert torch.equal(images[1], images[2])
# sphinx_gallery_end_ignore

# %%
# Four faces, but three photos: faces 2 and 3 come from one photo, which
# the dataset returns whole with each of its faces. The landmarks form one
# ``4 x 68 x 2`` tensor. The other
# way out, transforms that give every sample the same size and move the
# landmarks with the pixels, is the subject of the next lesson.
#
# Going deeper
# ------------
# Optional on a first read: clear errors for bad rows, and grayscale
# photos.
#
# Bad rows get clear errors
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# Bad rows happen. A CSV copy whose row 7 has ``107px`` where a number
# belongs makes ``FaceLandmarks`` fail with a message that says what, but
# not where:
rows = csv_file.read_text().splitlines()


def broken_copy(name, row, edit):
    """A copy of the CSV with data row `row` passed through edit(fields)."""
    lines = rows.copy()
    lines[row + 1] = ",".join(edit(lines[row + 1].split(",")))  # 1: header
    (Path(work.name) / name).write_text("\n".join(lines) + "\n")
    return Path(work.name) / name


bad_csv = broken_copy("bad_row_7.csv", 7, lambda f: f[:8] + ["107px"] + f[9:])
try:
    FaceLandmarks(bad_csv, faces_dir)
except ValueError as err:
    print(f"raised ValueError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("the bad row should have been refused")
# sphinx_gallery_end_ignore

# %%
# In a training loop deep inside a project, "could not convert" does not
# say which file or row to fix. ``CheckedFaces`` checks the table when the
# dataset is built and the photo when a sample is read, and names the CSV
# file, the row (counted from 0 like the dataset index) and its line in
# the file (the row plus 2, for the header). ``read_csv`` already reads an
# empty field as ``NaN``; ``pd.to_numeric`` with ``errors="coerce"``, applied
# to each column, turns what is not a number into ``NaN`` too. ``isna()``
# then marks every ``NaN`` with ``True``, and ``np.nonzero`` gives the rows
# and columns of those marks, the first of which we report.


class CheckedFaces(FaceLandmarks):
    def __init__(self, csv_file, image_dir):
        table = pd.read_csv(csv_file)
        numbers = table.iloc[:, 2:].apply(pd.to_numeric, errors="coerce")
        rows, columns = np.nonzero(numbers.isna().to_numpy())
        if len(rows):
            row, column = rows[0], numbers.columns[columns[0]]
            value = table.at[row, column]
            what = "is empty" if pd.isna(value) else f"holds {value!r}"
            raise ValueError(
                f"{csv_file}, row {row} (line {row + 2}): column {column!r} "
                f"{what}, where a number belongs"
            )
        super().__init__(csv_file, image_dir)

    def __getitem__(self, idx):
        path = self.image_dir / self.images[idx]
        if not path.is_file():
            raise FileNotFoundError(
                f"{self.csv_file}, row {idx} (line {idx + 2}): "
                f"image file {path} does not exist"
            )
        return super().__getitem__(idx)


# %%
# Three broken copies: a landmark that is not a number (``x01`` of row 7),
# a row that lost its last field (row 11), and a missing photo (row 5). On
# this page the two folders are shortened to ``<tmp>`` and ``<faces>``.
cases = {
    "not a number": bad_csv,
    "lost field": broken_copy("short_row_11.csv", 11, lambda f: f[:-1]),
    "missing photo": broken_copy(
        "lost_5.csv", 5, lambda f: ["lost.jpg"] + f[1:]
    ),
}
for name, path in cases.items():
    try:
        CheckedFaces(path, faces_dir)[5]
    except (ValueError, FileNotFoundError) as err:
        message = str(err).replace(work.name, "<tmp>")
        message = message.replace(str(faces_dir), "<faces>")
        print(f"{name}: raised {type(err).__name__}: {message}")
    # sphinx_gallery_start_ignore
    else:
        raise AssertionError(f"{path.name} should have been refused")
    # sphinx_gallery_end_ignore

# %%
# Each message says which file, which row (and line), and what is wrong
# there. The bad number and the short row are caught as soon as the dataset
# is built; the missing photo only when its sample is read.
#
# Grayscale photos
# ~~~~~~~~~~~~~~~~
# A grayscale JPEG holds one channel. ``decode_image`` returns it as stored
# unless asked for RGB; we check with a grayscale copy of sample 0's photo:
from torchvision.io import encode_jpeg
from torchvision.transforms.v2.functional import rgb_to_grayscale

gray_jpeg = encode_jpeg(rgb_to_grayscale(sample["image"]))
as_stored = decode_image(gray_jpeg)
as_rgb = decode_image(gray_jpeg, mode=ImageReadMode.RGB)
print(f"as stored: {tuple(as_stored.shape)}, as RGB: {tuple(as_rgb.shape)}")
work.cleanup()  # delete the temporary folder and its CSV files
# sphinx_gallery_start_ignore
assert as_stored.shape == (1, 375, 500) and as_rgb.shape == (3, 375, 500)
# sphinx_gallery_end_ignore

# %%
# Read as RGB, the gray photo has three equal channels and stacks with the
# colour photos.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``frame.iloc[idx, 1:].as_matrix()`` to get one row's landmarks:
#      pandas removed ``as_matrix`` in version 1.0; use ``.to_numpy()``, or
#      convert all rows once, as ``FaceLandmarks`` does.
#    - ``skimage.io.imread`` in ``__getitem__``, then a ``ToTensor``
#      transform: :func:`~torchvision.io.decode_image` reads a photo
#      straight into a ``C x H x W`` ``uint8`` tensor.

# %%
# Takeaways
# ---------
# - A ``Dataset`` over files reads its index (here a CSV table) once in
#   ``__init__`` and each file only in ``__getitem__``.
# - ``pooch.create`` with a registry of hashes fetches public files once,
#   checks them, and can point at an offline copy.
# - The default ``collate_fn`` stacks every entry and needs equal shapes; a
#   ``collate_fn`` of your own decides what a batch holds.
# - Read photos with ``mode=ImageReadMode.RGB``, so that every sample has
#   three channels.
#
# Next, :ref:`sphx_glr_lessons_data_03_transforms_landmarks.py` crops,
# resizes and flips these faces with ``torchvision.transforms.v2``, moving
# the landmarks with the pixels.
