"""
A custom Dataset: face landmarks
================================

Real photos, each face marked with 68 landmark points. We turn dlib's
annotation XML into a CSV table with pandas, write a ``Dataset`` that reads
the table once and each photo only when it is asked for, batch photos of
different sizes with a ``collate_fn`` of our own, and make bad rows fail
with a message that names the file and the row.
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
# The data: dlib's example faces, nine photos from PASCAL VOC with 43 faces,
# each annotated with a box and 68 points (the iBUG 300-W scheme) in two XML
# files. Each file is pinned by its SHA-256 hash and by a commit of dlib's
# repository that holds it, so every reader gets the same bytes.
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
COMMIT = {  # commits of github.com/davisking/dlib
    "photos": "43ce7908b9a9d19955ddb35a6e83da8e413dd98f",
    "training": "c3b5fdefd05f0462057b9b7bf95c899e22eadac8",
    "testing": "16500906b0cdcb51a09db9879c4afcf8190009f3",
}

# %%
# Getting the photos
# ------------------
# If ``PBE_DATA_DIR`` names a folder whose ``dlib-faces/`` holds every
# file, we use that copy; else ``pooch`` downloads each file once into a
# cache folder. With neither, the lesson stops with a message.
import os
from pathlib import Path

import pooch

DLIB = "https://raw.githubusercontent.com/davisking/dlib"
copy_dir = Path(os.environ.get("PBE_DATA_DIR") or ".") / "dlib-faces"
use_copy = bool(os.environ.get("PBE_DATA_DIR"))
use_copy = use_copy and all((copy_dir / n).is_file() for n in SHA256)
cache_dir = pooch.os_cache("pytorch-by-example") / "dlib-faces"
faces_dir = copy_dir if use_copy else cache_dir

# %%
# Every file, copied or downloaded, must match its SHA-256 hash:
for name, sha256 in SHA256.items():
    kind = "photos" if name.endswith(".jpg") else name.split("_")[0]
    url = f"{DLIB}/{COMMIT[kind]}/examples/faces/{name}"
    try:
        if not use_copy:
            pooch.retrieve(url, f"sha256:{sha256}", name, cache_dir)
    except OSError as err:  # no network, or the server refused
        raise RuntimeError(
            "Could not download dlib's example faces: connect to the "
            "internet, or set PBE_DATA_DIR to a folder with dlib-faces/."
        ) from err
    if pooch.file_hash(str(faces_dir / name)) != sha256:
        raise ValueError(f"{faces_dir / name}: wrong SHA-256 hash")
print(f"{len(SHA256)} files, each matching its SHA-256 hash")

# %%
# From XML to a tidy table
# ------------------------
# dlib's XML has an ``<image>`` per photo, a ``<box>`` per face and a
# ``<part>`` per landmark. We flatten it into a pandas ``DataFrame``, one row
# per face: image file, dlib's train/test split, box, then the 68 points as
# ``x00, y00, x01, y01, ...``. We save it as CSV, as a project would, in a
# temporary folder that the lesson deletes at the end.
import tempfile
import xml.etree.ElementTree as ET
from itertools import product

import pandas as pd

N_POINTS = 68
POINT_COLUMNS = [f"{axis}{i:02d}" for i in range(N_POINTS) for axis in "xy"]
BOX_COLUMNS = ["left", "top", "width", "height"]


def faces_from_xml(xml_file, split):
    rows = []
    for image in ET.parse(xml_file).getroot().iter("image"):
        for box in image.iter("box"):
            row = {"image": image.get("file"), "split": split}
            row |= {key: int(box.get(key)) for key in BOX_COLUMNS}
            for part, axis in product(box.iter("part"), "xy"):
                row[f"{axis}{part.get('name')}"] = int(part.get(axis))
            rows.append(row)
    return rows


# %%
# Both files, one table; then the CSV:
faces = pd.DataFrame(
    faces_from_xml(faces_dir / "training_with_face_landmarks.xml", "train")
    + faces_from_xml(faces_dir / "testing_with_face_landmarks.xml", "test")
)
print(f"{len(faces)} faces in {faces['image'].nunique()} photos")
print(faces.iloc[:3, :10].to_string(), "...")
assert list(faces.columns[6:]) == POINT_COLUMNS  # 68 points on every face
assert faces.notna().all().all() and len(faces) == 43
assert faces["image"].nunique() == 9
work = tempfile.TemporaryDirectory()
work_dir = Path(work.name)
csv_file = work_dir / "face_landmarks.csv"
faces.to_csv(csv_file, index=False)

# %%
# The Dataset
# -----------
# The dataset reads and checks the whole table once, when it is built. Bad
# rows happen, and "could not convert string to float" from deep inside a
# training loop says nothing about where the problem is, so the checks
# name the CSV file and the row (counted from 0 like the dataset index; the
# line in the file is that plus 2, for the header).
import csv

import numpy as np
from torchvision.io import ImageReadMode, decode_image


def check_table(csv_file):
    """The image names and numbers of a CSV; ValueError for a bad row."""
    with open(csv_file, newline="") as f:
        header, *rows = csv.reader(f)
    for row, fields in enumerate(rows):
        where = f"{csv_file}, row {row} (line {row + 2})"
        if len(fields) != len(header):
            raise ValueError(
                f"{where}: {len(fields)} fields where the header has "
                f"{len(header)}"
            )
        for column, value in zip(header[2:], fields[2:]):
            if not np.isfinite(pd.to_numeric(value, errors="coerce")):
                raise ValueError(
                    f"{where}: column {column!r} holds {value!r}, "
                    "which is not a number"
                )
    return [f[0] for f in rows], np.array([f[2:] for f in rows], np.float32)


# %%
# ``__getitem__`` reads one photo, only when asked, so a dataset of a
# million photos costs no more memory than its table. A sample is a dict:
# the ``image`` as a ``3 x H x W`` ``uint8`` tensor, the ``landmarks`` as a
# ``68 x 2`` tensor of ``(x, y)`` pixel positions, and the face ``box``.
# ``transform``, if given, is applied to that dict. Batches need equal
# shapes, and :func:`torchvision.io.decode_image` gives as many channels as
# the file holds (1 for a grayscale photo), so every read asks for RGB.
#
# .. note:: Old code you may meet: ``frame.iloc[idx, 1:].as_matrix()`` to get
#    one row's landmarks. pandas removed ``as_matrix`` in version 1.0; use
#    ``.to_numpy()``, or convert all rows once, as ``check_table`` does.


class FaceLandmarks(torch.utils.data.Dataset):
    def __init__(self, csv_file, image_dir, transform=None):
        self.csv_file, self.image_dir = Path(csv_file), Path(image_dir)
        self.images, numbers = check_table(self.csv_file)
        self.boxes = torch.tensor(numbers[:, :4])
        self.landmarks = torch.tensor(numbers[:, 4:]).view(-1, N_POINTS, 2)
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        path = self.image_dir / self.images[idx]
        if not path.is_file():
            raise FileNotFoundError(
                f"{self.csv_file}, row {idx} (line {idx + 2}): "
                f"image file {path} does not exist"
            )
        image = decode_image(str(path), mode=ImageReadMode.RGB)
        sample = {"image": image, "landmarks": self.landmarks[idx].clone()}
        sample["box"] = self.boxes[idx].clone()
        return self.transform(sample) if self.transform else sample


# %%
# One sample, and a check that a grayscale photo is read as three channels:
from torchvision.io import encode_jpeg
from torchvision.transforms.v2.functional import rgb_to_grayscale

face_set = FaceLandmarks(csv_file, faces_dir)
sample = face_set[0]
shapes = {key: tuple(value.shape) for key, value in sample.items()}
print(f"{len(face_set)} faces; sample 0: {shapes}")
print(f"nose tip (point 30) at (x, y) = {sample['landmarks'][30].tolist()}")
assert len(face_set) == 43 and sample["image"].shape == (3, 375, 500)
assert torch.equal(sample["landmarks"][30], torch.tensor([208.0, 114.0]))
gray_jpeg = encode_jpeg(rgb_to_grayscale(sample["image"]))
assert decode_image(gray_jpeg).shape == (1, 375, 500)
assert decode_image(gray_jpeg, mode=ImageReadMode.RGB).shape == (3, 375, 500)

# %%
# Sample 0's nose tip is at the pixel dlib's XML gives, and a grayscale copy
# of its photo has one channel as stored, three when read as RGB.
#
# Looking at the data
# -------------------
# The iBUG scheme numbers the points in fixed groups: jaw line 0-16,
# eyebrows 17-21 and 22-26, nose 27-35, eyes 36-41 and 42-47, lips 48-67.
# The faces are small in their photos, so each panel zooms in on the box.
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 4, figsize=(10, 2.9), layout="constrained")
for ax, idx in zip(axes, [0, 9, 14, 40]):
    face = face_set[idx]
    points = face["landmarks"]
    ax.imshow(face["image"].permute(1, 2, 0))
    ax.plot(*points.T, ".", color="cyan", ms=2)
    ax.plot(*points[36:42].T, ".", color="red", ms=3)
    assert points[36:42, 0].mean() < points[42:48, 0].mean()  # picture's left
    left, top, width, height = face["box"].tolist()
    ax.set_xlim(left - 0.3 * width, left + 1.3 * width)
    ax.set_ylim(top + 1.3 * height, top - 0.3 * height)  # rows grow down
    ax.set_title(f"face {idx}: {face_set.images[idx]}", fontsize=9)
fig.supxlabel("x (pixels in the photo)")
fig.supylabel("y (pixels)")
fig.suptitle("Samples from FaceLandmarks, zoomed to the face box")
plt.show()

# %%
# The cyan dots follow each jaw, brow, nose, eye and mouth; points 36-41 (red)
# circle the eye on the picture's left (asserted).
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
else:
    raise AssertionError("the default collate should have failed")

# %%
# A ``collate_fn`` of our own decides what a batch is. Here the images stay
# a list of tensors of different sizes; landmarks and boxes are stacked:


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
print("image sizes", [tuple(im.shape) for im in raw_batch["image"]])
print(f"landmarks {tuple(raw_batch['landmarks'].shape)}")
assert raw_batch["landmarks"].shape == (4, N_POINTS, 2)

# %%
# The other way out, transforms that make every sample the same size and
# move the landmarks with the pixels, is the subject of the next lesson.
#
# Bad rows get clear errors
# -------------------------
# Three broken copies of the CSV: a missing photo is caught when its sample
# is read (``FileNotFoundError``), a malformed row as soon as the dataset is
# built (``ValueError``). Messages name the full path; on this page the two
# folders are shortened to ``<tmp>`` and ``<faces>``.
rows = csv_file.read_text().splitlines()


def broken_copy(name, row, edit):
    """A copy of the CSV with data row `row` passed through edit(fields)."""
    lines = rows.copy()
    lines[row + 1] = ",".join(edit(lines[row + 1].split(",")))  # 1: header
    (work_dir / name).write_text("\n".join(lines) + "\n")
    return work_dir / name


def on_page(message):
    """The message with this machine's folders shortened, for the page."""
    message = message.replace(str(work_dir), "<tmp>")
    return message.replace(str(faces_dir), "<faces>")


# %%
# A missing photo (row 5), a landmark that is not a number (``x01`` of row
# 7) and a row that lost its last field (row 11):
cases = [
    ("Missing image", 5, lambda f: ["lost.jpg", *f[1:]], FileNotFoundError),
    ("Malformed row", 7, lambda f: f[:8] + ["107px"] + f[9:], ValueError),
    ("Malformed row", 11, lambda f: f[:-1], ValueError),
]
for (kind, row, edit, error), stage in zip(cases, ["read", "build", "build"]):
    path = broken_copy(f"broken_row_{row}.csv", row, edit)
    step = "build"
    try:
        broken, step = FaceLandmarks(path, faces_dir), "read"
        broken[row]
    except (FileNotFoundError, ValueError) as err:
        message = str(err)
        print(f"{kind} error: {on_page(message)}")
        assert type(err) is error and step == stage
    else:
        raise AssertionError(f"{path.name} should have been refused")
    assert str(path) in message and f"row {row} " in message
work.cleanup()  # delete the temporary folder and its CSV files
assert not work_dir.exists()

# %%
# Each message says which file, which row (and line), and what is wrong
# there. Next, :ref:`sphx_glr_lessons_data_03_transforms_landmarks.py` crops,
# resizes and flips these faces with ``torchvision.transforms.v2``, moving
# the landmarks with the pixels.
