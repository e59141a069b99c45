"""
A custom Dataset: face landmarks
================================

Real photos, each face marked with 68 landmark points. We turn dlib's
annotation XML into a tidy CSV table with pandas, write a ``Dataset`` that
reads that table and loads images lazily with scikit-image, and write
transforms that move an image and its landmarks together (crop, rescale,
random crop, a horizontal flip that knows which eye is which). We prove that
the landmarks stay on their pixels, batch faces with a ``DataLoader``, redo
the pipeline with ``torchvision.transforms.v2`` and ``KeyPoints``, and make
bad annotation rows fail with a message that says where they are.

.. tags:: intermediate, data, real data, vision
"""

# %%
# Setup
# -----
# Random crops and flips below draw from PyTorch's generator, so one seed
# fixes every picture on this page.
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")

# %%
# Getting the photos
# ------------------
# The data is dlib's set of example faces: nine photos from PASCAL VOC with
# 43 faces, each annotated with a box and 68 points in the iBUG 300-W scheme.
# If ``PBE_DATA_DIR`` points at a folder with a ``dlib-faces/`` copy we use
# it; otherwise ``pooch`` downloads each file once into a cache folder. Either
# way every file must match its pinned SHA-256 hash, so the page is always
# built from the same bytes.
import os
from pathlib import Path

import pooch

FACE_FILES = {
    "2007_007763.jpg": "17d9897dd55d38179f51dc18371b3f4495a606aaa2846e25a3cb6a58b3a97c89",
    "2008_001009.jpg": "2509864113a286bf245161d0317a18c38b6a6641135969847a7e59dff359c52c",
    "2008_001322.jpg": "2ea5a60f5347baab8da6eccce43b0320d63da1368d7710fb15cbff8a790bc626",
    "2008_002079.jpg": "f929bdf416d756b37eb90c119b892eba5d21041b134883e18d827bce641fb48f",
    "2008_002470.jpg": "14b543e3ac55b497aaaba9dc03a39be04c8ae670851b3f78f9f5adb08295d780",
    "2008_002506.jpg": "ede6804edf0ec005144ffe7f0f2b56bd2aa1d21beee79d29f72cb16ead19a447",
    "2008_004176.jpg": "92a075f5e1d279f009ab4809592aaf0109e429adf3266e5aa8ce2755730b41c2",
    "2008_007676.jpg": "09a0e07d6fb3b4276e73b9f6450b5c69d97d3e3b75807948caf6defd40260e6f",
    "2009_004587.jpg": "2dc5d52a5388499cf912d7d99dc9d05e4bec7651153331f40e81ae4813bb317c",
    "testing_with_face_landmarks.xml": "b45d736ab07016dd552a95cedb569a5e1f0c4dacf9ba6db60861fec55c05c57e",
    "training_with_face_landmarks.xml": "d7895a98681f5e3818fb5d95cd75fdeba7c0e0c74cc9b22193df2909eb8f6ce5",
}
BASE_URL = (
    "https://raw.githubusercontent.com/davisking/dlib/master/examples/faces/"
)


def locate_faces():
    """Return (folder, description) of a verified copy of dlib's example faces."""
    data_dir = os.environ.get("PBE_DATA_DIR")
    if data_dir and (Path(data_dir) / "dlib-faces").is_dir():
        folder = Path(data_dir) / "dlib-faces"
        for name, sha256 in FACE_FILES.items():
            if pooch.file_hash(str(folder / name)) != sha256:
                raise ValueError(
                    f"{folder / name} does not match its pinned SHA-256 hash"
                )
        return folder, "the offline copy in $PBE_DATA_DIR/dlib-faces"
    folder = Path(pooch.os_cache("pytorch-by-example")) / "dlib-faces"
    pooch.get_logger().setLevel(
        "WARNING"
    )  # no "Downloading ..." lines on stderr
    try:
        for name, sha256 in FACE_FILES.items():
            pooch.retrieve(
                BASE_URL + name,
                known_hash=f"sha256:{sha256}",
                fname=name,
                path=folder,
            )
    except OSError as err:  # no network, DNS failure, HTTP error, ...
        raise RuntimeError(
            f"Could not download dlib's example faces ({type(err).__name__}). "
            "Connect to the internet, or set PBE_DATA_DIR to a folder that holds a dlib-faces/ copy."
        ) from err
    return folder, "the pooch cache, downloaded from dlib's GitHub repository"


faces_dir, source = locate_faces()
print(f"Face photos and annotations from: {source}")

# %%
# From XML to a tidy table
# ------------------------
# dlib stores annotations as XML: an ``<image>`` element per photo, a
# ``<box>`` per face and a ``<part>`` per landmark. Models and spreadsheets
# prefer one row per face, so we flatten it with the standard library's
# ElementTree into a pandas ``DataFrame``: the image file, the box, then the
# 68 points as ``x00, y00, x01, y01, ...``. We keep dlib's own train/test
# split in a column.
import xml.etree.ElementTree as ET

import pandas as pd

N_POINTS = 68
POINT_COLUMNS = [f"{axis}{i:02d}" for i in range(N_POINTS) for axis in "xy"]


def faces_from_xml(xml_file, split):
    rows = []
    for image in ET.parse(xml_file).getroot().iter("image"):
        for box in image.iter("box"):
            points = {
                int(p.get("name")): (int(p.get("x")), int(p.get("y")))
                for p in box.iter("part")
            }
            if sorted(points) != list(range(N_POINTS)):
                raise ValueError(
                    f"{xml_file}: a face in {image.get('file')} lacks some of the 68 points"
                )
            row = {"image": image.get("file"), "split": split}
            row |= {
                key: int(box.get(key))
                for key in ("left", "top", "width", "height")
            }
            row |= {
                f"{axis}{i:02d}": points[i][k]
                for i in range(N_POINTS)
                for k, axis in enumerate("xy")
            }
            rows.append(row)
    return rows


faces = pd.DataFrame(
    faces_from_xml(faces_dir / "training_with_face_landmarks.xml", "train")
    + faces_from_xml(faces_dir / "testing_with_face_landmarks.xml", "test")
)
print(
    f"{len(faces)} faces in {faces['image'].nunique()} photos; {faces.shape[1]} columns"
)
print(faces.iloc[:3, :10].to_string())
assert faces.shape == (43, 6 + 2 * N_POINTS)
assert faces["split"].value_counts().to_dict() == {"test": 25, "train": 18}

# %%
# A real project would write this table once and read it many times, so we
# save it as CSV. It goes into this site's cache folder, never next to the
# lesson (which may be read-only, or run from elsewhere as a notebook). We
# write to a temporary name and then rename, so a reader never sees a
# half-written file.
import tempfile

work_dir = Path(pooch.os_cache("pytorch-by-example")) / "face-landmarks"
work_dir.mkdir(parents=True, exist_ok=True)


def write_atomically(path, write):
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(fd)
    write(tmp)
    os.replace(tmp, path)


csv_file = work_dir / "face_landmarks.csv"
write_atomically(csv_file, lambda tmp: faces.to_csv(tmp, index=False))
print(
    f"wrote {csv_file.name} to the cache folder: {csv_file.stat().st_size / 1024:.0f} KiB"
)

# %%
# The Dataset
# -----------
# ``__init__`` reads and checks the table, which is small; ``__getitem__``
# reads one photo, only when asked, so a dataset of a million photos costs
# no more memory than its table. A sample is a dict: the ``image`` as an
# ``H x W x 3`` ``uint8`` array, the ``landmarks`` as a ``68 x 2`` array of
# ``(x, y)`` pixel positions, and the face ``box`` as ``(left, top, width,
# height)``. ``transform``, if given, is applied to that dict.
#
# Bad annotation rows are common in practice, and "ValueError: could not
# convert string to float" from deep inside a training loop says nothing
# about where the problem is. So the checks name the CSV file and the row
# (counted from 0, which is also the dataset index; the file line is that plus
# 2, because of the header).
#
# .. note:: Old code you may meet: ``frame.iloc[idx, 1:].as_matrix()`` to get
#    one row's landmarks. pandas removed ``as_matrix`` in version 1.0; use
#    ``.to_numpy()``. Here we convert all rows once in ``__init__``, so
#    ``__getitem__`` only slices an array.
import csv

import numpy as np
import skimage.io
from torch.utils.data import Dataset


class FaceLandmarks(Dataset):
    def __init__(self, csv_file, image_dir, transform=None):
        self.csv_file, self.image_dir, self.transform = (
            Path(csv_file),
            Path(image_dir),
            transform,
        )
        with open(self.csv_file, newline="") as f:
            lines = csv.reader(f)
            n_fields = len(next(lines))
            for row, fields in enumerate(lines):
                if len(fields) != n_fields:
                    raise ValueError(
                        f"{self.csv_file}, row {row} (line {row + 2}): "
                        f"{len(fields)} fields where the header has {n_fields}"
                    )
        table = pd.read_csv(self.csv_file, dtype={"image": str})
        if table["image"].isna().any():
            row = int(np.flatnonzero(table["image"].isna())[0])
            raise ValueError(
                f"{self.csv_file}, row {row} (line {row + 2}): no image file named"
            )
        numbers = table[["left", "top", "width", "height", *POINT_COLUMNS]]
        parsed = numbers.apply(pd.to_numeric, errors="coerce")
        bad_rows, bad_cols = np.nonzero(parsed.isna().to_numpy())
        if len(bad_rows):
            row, column = bad_rows[0], numbers.columns[bad_cols[0]]
            raise ValueError(
                f"{self.csv_file}, row {row} (line {row + 2}): column {column!r} "
                f"holds {numbers.iat[row, bad_cols[0]]!r}, which is not a number"
            )
        self.images = table["image"].tolist()
        self.boxes = parsed[["left", "top", "width", "height"]].to_numpy(
            np.float32
        )
        self.landmarks = (
            parsed[POINT_COLUMNS].to_numpy(np.float32).reshape(-1, N_POINTS, 2)
        )

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        path = self.image_dir / self.images[idx]
        if not path.is_file():
            raise FileNotFoundError(
                f"{self.csv_file}, row {idx} (line {idx + 2}): image file {path} does not exist"
            )
        image = skimage.io.imread(path)
        sample = {
            "image": image,
            "landmarks": self.landmarks[idx].copy(),
            "box": self.boxes[idx].copy(),
        }
        return self.transform(sample) if self.transform else sample


face_set = FaceLandmarks(csv_file, faces_dir)
sample = face_set[0]
print(
    f"{len(face_set)} faces; sample 0: image {sample['image'].shape} {sample['image'].dtype}, "
    f"landmarks {sample['landmarks'].shape}, box {sample['box'].tolist()}"
)
assert len(face_set) == 43 and sample["image"].shape == (375, 500, 3)

# %%
# Looking at the data
# -------------------
# The iBUG scheme numbers the points in fixed groups: jaw line 0-16,
# eyebrows 17-21 and 22-26, nose 27-35, eyes 36-41 and 42-47, lips 48-67.
# "Left" and "right" in this lesson mean left and right *in the picture*:
# points 36-41 are the eye on the picture's left (the person's right eye).
# We draw that eye in red so flips are easy to follow. The faces are small
# in their photos, so each panel zooms in on the face box.
import matplotlib.pyplot as plt

OUTLINES = [  # (point indices, closed?)
    (range(0, 17), False),
    (range(17, 22), False),
    (range(22, 27), False),
    (range(27, 31), False),
    (range(31, 36), False),
    (range(36, 42), True),
    (range(42, 48), True),
    (range(48, 60), True),
    (range(60, 68), True),
]


def show_face(ax, image, landmarks, title=None):
    if isinstance(image, torch.Tensor):  # C x H x W tensor -> H x W x C array
        image = image.permute(1, 2, 0).numpy()
    ax.imshow(np.clip(image, 0, 255 if image.dtype == np.uint8 else 1))
    for indices, closed in OUTLINES:
        idx = list(indices) + ([indices[0]] if closed else [])
        ax.plot(
            landmarks[idx, 0], landmarks[idx, 1], "-", color="cyan", lw=0.8
        )
    ax.plot(landmarks[36:42, 0], landmarks[36:42, 1], ".", color="red", ms=3)
    if title:
        ax.set_title(title, fontsize=9)


fig, axes = plt.subplots(1, 4, figsize=(10, 2.9), layout="constrained")
for ax, idx in zip(axes, [0, 9, 14, 40]):
    face = face_set[idx]
    show_face(
        ax,
        face["image"],
        face["landmarks"],
        f"face {idx}: {face_set.images[idx]}",
    )
    left, top, width, height = face["box"]
    ax.set_xlim(left - 0.3 * width, left + 1.3 * width)
    ax.set_ylim(
        top + 1.3 * height, top - 0.3 * height
    )  # image rows grow downwards
fig.supxlabel("x (pixels in the photo)")
fig.supylabel("y (pixels)")
fig.suptitle("Samples from FaceLandmarks, zoomed to the face box")
plt.show()

# %%
# Transforms that move landmarks with the pixels
# ----------------------------------------------
# A transform is any callable that takes a sample and returns a new one. Ours
# change the image and adjust the landmarks to match:
#
# * ``CropFace`` cuts a square around the face box plus a margin, padding
#   with black where the square leaves the photo; landmarks shift by the
#   crop's corner. It uses up the box, so it drops it.
# * ``Rescale`` resizes with :func:`skimage.transform.resize`. A landmark is
#   the *centre* of a pixel, so ``x`` maps to ``(x + 0.5) * s - 0.5``, not
#   ``x * s``; we test which is right below.
# * ``RandomCrop`` cuts a random window; landmarks shift by its corner.
# * ``RandomHorizontalFlip`` mirrors ``x`` to ``W - 1 - x``, and must also
#   renumber the points: after a mirror, the eye on the picture's left is
#   the former right eye, so point 36 must take the coordinates of point 45.
# * ``ToTensor`` makes a ``3 x H x W`` float tensor in ``[0, 1]``.
#
# Randomness comes from ``torch``, so ``torch.manual_seed`` makes it
# repeatable, and DataLoader workers (each seeded differently) get different
# crops. ``torch.randint(0, h - size + 1)`` allows every position, including
# the last one and a crop as large as the image.
import skimage.transform
import skimage.util


def face_square(left, top, width, height, margin):
    """(top, left, side, side) of a square around a box, grown by margin per side."""
    side = round(max(width, height) * (1 + 2 * margin))
    return (
        round(top + height / 2 - side / 2),
        round(left + width / 2 - side / 2),
        side,
        side,
    )


def crop_sample(sample, top, left, height, width):
    image = sample["image"]
    pad_y = (max(0, -top), max(0, top + height - image.shape[0]))
    pad_x = (max(0, -left), max(0, left + width - image.shape[1]))
    if any(pad_y + pad_x):
        image = np.pad(image, (pad_y, pad_x, (0, 0)))
        top, left = top + pad_y[0], left + pad_x[0]
    image = image[top : top + height, left : left + width]
    landmarks = sample["landmarks"] - np.array(
        [left - pad_x[0], top - pad_y[0]], np.float32
    )
    return {"image": image, "landmarks": landmarks}


class CropFace:
    def __init__(self, margin=0.25):
        self.margin = margin

    def __call__(self, sample):
        return crop_sample(
            sample, *face_square(*sample["box"].tolist(), self.margin)
        )


class Rescale:
    def __init__(self, size):
        self.size = (size, size) if isinstance(size, int) else tuple(size)

    def __call__(self, sample):
        h, w = sample["image"].shape[:2]
        image = skimage.transform.resize(
            sample["image"], self.size, anti_aliasing=True
        )
        scale = np.array([self.size[1] / w, self.size[0] / h], np.float32)
        return {
            "image": image,
            "landmarks": (sample["landmarks"] + 0.5) * scale - 0.5,
        }


class RandomCrop:
    def __init__(self, size):
        self.size = size

    def __call__(self, sample):
        h, w = sample["image"].shape[:2]
        top = torch.randint(0, h - self.size + 1, ()).item()
        left = torch.randint(0, w - self.size + 1, ()).item()
        return crop_sample(sample, top, left, self.size, self.size)


# Mirror partners in the 68-point scheme: jaw, eyebrows, nose bottom, eyes
# and lips swap left for right; points on the middle line map to themselves.
FLIP_PERM = np.arange(N_POINTS)
FLIP_PERM[0:17] = np.arange(
    16, -1, -1
)  # jaw: 0 <-> 16, 1 <-> 15, ..., 8 stays
FLIP_PERM[17:27] = np.arange(26, 16, -1)  # eyebrows: 17 <-> 26, ..., 21 <-> 22
FLIP_PERM[31:36] = np.arange(35, 30, -1)  # nose bottom: 31 <-> 35, 33 stays
FLIP_PERM[36:40], FLIP_PERM[42:46] = (
    [45, 44, 43, 42],
    [39, 38, 37, 36],
)  # eye corners and upper lids
FLIP_PERM[40:42], FLIP_PERM[46:48] = [47, 46], [41, 40]  # lower lids
FLIP_PERM[48:55] = np.arange(
    54, 47, -1
)  # outer upper lip: 48 <-> 54, 51 stays
FLIP_PERM[55:60] = np.arange(
    59, 54, -1
)  # outer lower lip: 55 <-> 59, 57 stays
FLIP_PERM[60:65] = np.arange(
    64, 59, -1
)  # inner upper lip: 60 <-> 64, 62 stays
FLIP_PERM[65:68] = np.arange(
    67, 64, -1
)  # inner lower lip: 65 <-> 67, 66 stays
assert (
    FLIP_PERM[FLIP_PERM] == np.arange(N_POINTS)
).all()  # swapping twice changes nothing
assert sorted(set(FLIP_PERM.tolist())) == list(range(N_POINTS))


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, sample):
        if torch.rand(()) >= self.p:
            return sample
        image = sample["image"][:, ::-1].copy()
        landmarks = sample["landmarks"][FLIP_PERM].copy()
        landmarks[:, 0] = image.shape[1] - 1 - landmarks[:, 0]
        return {"image": image, "landmarks": landmarks}


class ToTensor:
    def __call__(self, sample):
        image = skimage.util.img_as_float32(sample["image"]).transpose(2, 0, 1)
        landmarks = torch.from_numpy(sample["landmarks"])
        return {
            "image": torch.from_numpy(np.ascontiguousarray(image)),
            "landmarks": landmarks,
        }


# %%
# Is the flip table right? Two checks on every face in the set. Mirroring
# twice must give back the original points exactly. And on an upright face
# certain points lie left of their partners (image-left eye left of the other
# eye, jaw point 0 left of point 16, mouth corner 48 left of 54, nostril 31
# left of 35, eyebrow end 17 left of 26); a correct flip keeps all of that
# true, while mirroring coordinates without renumbering makes every one false.
LEFT_OF = [
    (slice(36, 42), slice(42, 48)),
    (0, 16),
    (48, 54),
    (31, 35),
    (17, 26),
]


def left_of_checks(landmarks):
    return [
        landmarks[a, 0].mean() < landmarks[b, 0].mean() for a, b in LEFT_OF
    ]


def is_upright(landmarks):
    return all(left_of_checks(landmarks))


always_flip = RandomHorizontalFlip(p=1.0)
for idx in range(len(face_set)):
    s = {
        "image": np.zeros((500, 500, 1)),
        "landmarks": face_set.landmarks[idx].copy(),
    }  # only points matter here
    once = always_flip(s)
    np.testing.assert_array_equal(
        always_flip(once)["landmarks"], s["landmarks"]
    )
    assert is_upright(s["landmarks"]) and is_upright(once["landmarks"])
    mirrored_only = s["landmarks"] * [-1, 1] + [499, 0]
    assert not any(left_of_checks(mirrored_only))
print(f"flip table checked on all {len(face_set)} faces")

# %%
# Do the landmarks land on the same pixels?
# -----------------------------------------
# The strongest test of a geometric transform is to let the pixels speak. We
# add five extra channels to the image, one per tracked landmark (eye
# corners, nose tip, mouth corners), each black except for one white pixel
# under its landmark. The transforms treat these channels like colours, so
# every crop, resize and flip moves the white dots exactly as it moves the
# photo. After each step, the brightness-weighted centre of each channel is
# where the pixel went; the transformed landmark must be there too.
TRACKED = np.array([36, 45, 30, 48, 54])


def add_markers(sample):
    image = skimage.util.img_as_float(sample["image"])
    markers = np.zeros(image.shape[:2] + (len(TRACKED),))
    for k, (x, y) in enumerate(
        sample["landmarks"][TRACKED].round().astype(int)
    ):
        markers[y, x, k] = 1.0
    return sample | {"image": np.concatenate([image, markers], axis=2)}


def marker_centres(image):
    """(x, y) brightness-weighted centre of each marker channel of an H x W x C image."""
    markers = image[:, :, 3:]
    ys, xs = np.mgrid[: image.shape[0], : image.shape[1]]
    weights = markers.sum(axis=(0, 1))
    centre_x = (markers * xs[..., None]).sum(axis=(0, 1)) / weights
    centre_y = (markers * ys[..., None]).sum(axis=(0, 1)) / weights
    return np.stack([centre_x, centre_y], axis=1)


steps = [
    CropFace(0.25),
    Rescale(128),
    RandomCrop(112),
    RandomHorizontalFlip(p=1.0),
]
marked = add_markers(
    face_set[0]
)  # a small face: the crop gets enlarged about 2.3 times
which = TRACKED.copy()  # which landmark each marker channel belongs to
history = [marked]
for step in steps:
    marked = step(marked)
    history.append(marked)
    if isinstance(step, RandomHorizontalFlip):
        which = FLIP_PERM[
            which
        ]  # after renumbering, a marker sits under the partner point
    gap = np.abs(
        marker_centres(marked["image"]) - marked["landmarks"][which]
    ).max()
    size = marked["image"].shape[:2]
    print(
        f"after {type(step).__name__:<20} image {size}, largest marker-landmark gap {gap:.3f} px"
    )
    assert gap < 0.1

# %%
# Every gap is a small fraction of a pixel. The pixel-centre rule in
# ``Rescale`` matters: had it used ``x * s``, the resized landmarks would sit
# ``0.5 * (s - 1)`` pixels up and to the left of their pixels.
cropped, rescaled = history[1], history[2]
s = 128 / cropped["image"].shape[1]
gap_naive = np.abs(
    marker_centres(rescaled["image"]) - cropped["landmarks"][TRACKED] * s
).max()
print(
    f"scale factor {s:.3f}: the rule x * s would be off by up to {gap_naive:.2f} px"
)
assert gap_naive > 0.4 * (s - 1)

# ToTensor moves no pixel: it only puts channels first and converts to float32.
tensor_sample = ToTensor()(marked)
assert (
    tensor_sample["image"].shape == (8, 112, 112)
    and tensor_sample["image"].dtype == torch.float32
)
torch.testing.assert_close(
    tensor_sample["image"],
    torch.from_numpy(marked["image"]).permute(2, 0, 1).float(),
)

# %%
# Composing, and augmentation on the fly
# --------------------------------------
# :class:`torchvision.transforms.Compose` chains callables; it does not care
# that our samples are dicts. The dataset applies the chain each time a
# sample is requested, so a random transform gives a *new* version of the
# face on every access: the dataset never stores augmented copies, and each
# epoch sees different crops and flips of the same 43 faces.
from torchvision import transforms

augment = transforms.Compose(
    [
        CropFace(0.25),
        Rescale(128),
        RandomCrop(112),
        RandomHorizontalFlip(),
        ToTensor(),
    ]
)
train_faces = FaceLandmarks(csv_file, faces_dir, transform=augment)

views = [train_faces[0] for _ in range(4)]
for v in views:
    assert v["image"].shape == (3, 112, 112) and v["landmarks"].shape == (
        N_POINTS,
        2,
    )
assert not torch.equal(
    views[0]["landmarks"], views[1]["landmarks"]
)  # same index, different crop
assert all(
    is_upright(v["landmarks"].numpy()) for v in views
)  # flipped or not, the red eye stays left

fig, axes = plt.subplots(1, 4, figsize=(10, 2.9), layout="constrained")
for k, (ax, v) in enumerate(zip(axes, views)):
    nose_tip = tuple(v["landmarks"][30].round().int().tolist())
    show_face(
        ax,
        v["image"],
        v["landmarks"].numpy(),
        f"access {k + 1}: nose tip at {nose_tip}",
    )
fig.supxlabel("x (pixels)")
fig.supylabel("y (pixels)")
fig.suptitle(
    "train_faces[0], read four times: a new random crop and flip each time"
)
plt.show()

# %%
# The titles give where the nose tip (point 30) landed in each view.
#
# Batching faces with a DataLoader
# --------------------------------
# The default ``collate_fn`` stacks each dict entry across the batch, which
# needs equal shapes. The raw photos differ in size, so it refuses them:
from torch.utils.data import DataLoader

raw_loader = DataLoader(
    face_set,
    batch_size=4,
    shuffle=True,
    generator=torch.Generator().manual_seed(0),
)
try:
    next(iter(raw_loader))
    raise AssertionError("expected the default collate to fail")
except RuntimeError as err:
    print(f"default collate on raw photos: {str(err).splitlines()[0]}")

# %%
# Two ways out. A custom ``collate_fn`` decides what a batch is; here the
# images stay a list of different-sized tensors while the landmarks, which
# always have 68 points, are stacked:


def collate_faces(samples):
    return {
        "image": [torch.from_numpy(s["image"]) for s in samples],
        "landmarks": torch.stack(
            [torch.from_numpy(s["landmarks"]) for s in samples]
        ),
    }


raw_loader = DataLoader(
    face_set,
    batch_size=4,
    shuffle=True,
    generator=torch.Generator().manual_seed(0),
    collate_fn=collate_faces,
)
raw_batch = next(iter(raw_loader))
print(
    "custom collate: image sizes",
    [tuple(im.shape) for im in raw_batch["image"]],
    "landmarks",
    tuple(raw_batch["landmarks"].shape),
)
assert raw_batch["landmarks"].shape == (4, N_POINTS, 2)

# %%
# Or let the transforms make every sample the same size, and the default
# collate works: it stacks ``image`` into ``B x 3 x 112 x 112`` and
# ``landmarks`` into ``B x 68 x 2``. Shuffling uses its own seeded generator.
face_loader = DataLoader(
    train_faces,
    batch_size=8,
    shuffle=True,
    generator=torch.Generator().manual_seed(0),
)
batch = next(iter(face_loader))
print(
    f"default collate after the transforms: image {tuple(batch['image'].shape)}, "
    f"landmarks {tuple(batch['landmarks'].shape)}"
)
assert batch["image"].shape == (8, 3, 112, 112) and batch[
    "landmarks"
].shape == (8, N_POINTS, 2)

fig, axes = plt.subplots(2, 4, figsize=(9, 4.9), layout="constrained")
for k, ax in enumerate(axes.flat):
    show_face(ax, batch["image"][k], batch["landmarks"][k].numpy())
fig.supxlabel("x (pixels)")
fig.supylabel("y (pixels)")
fig.suptitle("One batch from the DataLoader, landmarks drawn on each face")
plt.show()

# %%
# The same pipeline with ``transforms.v2`` and ``KeyPoints``
# ----------------------------------------------------------
# torchvision's ``transforms.v2`` already knows how to move points:
# wrap the landmarks in :class:`torchvision.tv_tensors.KeyPoints` (added in
# torchvision 0.23, still marked beta), the image in
# :class:`~torchvision.tv_tensors.Image` and the box in
# :class:`~torchvision.tv_tensors.BoundingBoxes`, and every v2 transform
# changes all three consistently. Two parts stay ours: v2 has no "crop to
# this face" transform, so ``CropFaceV2`` reads the box and calls
# ``v2.functional.crop``; and ``v2.RandomHorizontalFlip`` mirrors points
# without knowing that point 36 and point 45 are partners, so ``FlipFaceV2``
# adds the renumbering.
from torchvision import tv_tensors
from torchvision.transforms import v2


def to_tv_tensors(sample):
    h, w = sample["image"].shape[:2]
    return {
        "image": tv_tensors.Image(
            torch.from_numpy(sample["image"]).permute(2, 0, 1)
        ),
        "landmarks": tv_tensors.KeyPoints(
            torch.from_numpy(sample["landmarks"]), canvas_size=(h, w)
        ),
        "box": tv_tensors.BoundingBoxes(
            torch.from_numpy(sample["box"])[None],
            format="XYWH",
            canvas_size=(h, w),
        ),
    }


class CropFaceV2(v2.Transform):
    def __init__(self, margin=0.25):
        super().__init__()
        self.margin = margin

    def make_params(self, flat_inputs):
        box = next(
            x for x in flat_inputs if isinstance(x, tv_tensors.BoundingBoxes)
        )
        top, left, height, width = face_square(*box[0].tolist(), self.margin)
        return {"top": top, "left": left, "height": height, "width": width}

    def transform(self, inpt, params):
        return v2.functional.crop(inpt, **params)


class FlipFaceV2(v2.RandomHorizontalFlip):
    def transform(self, inpt, params):
        out = super().transform(inpt, params)
        if isinstance(out, tv_tensors.KeyPoints):
            out = tv_tensors.wrap(out[torch.from_numpy(FLIP_PERM)], like=out)
        return out


augment_v2 = v2.Compose(
    [
        to_tv_tensors,
        CropFaceV2(0.25),
        v2.Resize((128, 128)),
        v2.RandomCrop(112),
        FlipFaceV2(),
        v2.ToDtype(torch.float32, scale=True),
    ]
)
v2_faces = FaceLandmarks(csv_file, faces_dir, transform=augment_v2)
s_v2 = v2_faces[0]
print({k: f"{type(v).__name__} {tuple(v.shape)}" for k, v in s_v2.items()})
assert s_v2["image"].shape == (3, 112, 112) and isinstance(
    s_v2["landmarks"], tv_tensors.KeyPoints
)

# %%
# Do v2 and our transforms agree? We run each step both ways on one face,
# with the randomness taken out (flips with ``p=1``), and compare:
#
# * face crop: identical pixels and identical points;
# * flip: identical points, identical pixels;
# * resize: the pixels agree up to the two libraries' interpolation, but the
#   points differ by exactly ``0.5 * (s - 1)``. In torchvision 0.28,
#   ``Resize`` scales key points as ``x * s`` (distances from the image's
#   corner), while its flip uses ``W - 1 - x`` (pixel centres). The marker
#   test above showed that resized pixels follow the pixel-centre rule, so
#   for pixel-centred landmarks like dlib's, v2's resized points sit up to
#   half a pixel per unit of enlargement above and left of their pixels.
raw = face_set[0]
ours, theirs = CropFace(0.25)(raw), CropFaceV2(0.25)(to_tv_tensors(raw))
assert torch.equal(
    theirs["image"], torch.from_numpy(ours["image"]).permute(2, 0, 1)
)
torch.testing.assert_close(
    theirs["landmarks"].as_subclass(torch.Tensor),
    torch.from_numpy(ours["landmarks"]),
)

s = 128 / ours["image"].shape[1]
ours, theirs = Rescale(128)(ours), v2.Resize((128, 128))(theirs)
pixel_diff = np.abs(
    ours["image"] - theirs["image"].permute(1, 2, 0).numpy() / 255
).mean()
point_diff = torch.from_numpy(ours["landmarks"]) - theirs[
    "landmarks"
].as_subclass(torch.Tensor)
print(
    f"resize by {s:.3f}: mean pixel difference {pixel_diff:.4f}; points differ by {point_diff.mean():.4f} "
    f"px (0.5 * (s - 1) = {0.5 * (s - 1):.4f})"
)
assert pixel_diff < 0.02
torch.testing.assert_close(
    point_diff, torch.full_like(point_diff, 0.5 * (s - 1))
)

ours, theirs = RandomHorizontalFlip(p=1.0)(ours), FlipFaceV2(p=1.0)(theirs)
torch.testing.assert_close(
    theirs["landmarks"].as_subclass(torch.Tensor)
    + 0.5 * (s - 1) * torch.tensor([-1.0, 1.0]),
    torch.from_numpy(ours["landmarks"]),
)
assert is_upright(theirs["landmarks"].numpy())

# %%
# After the flip the x offset changes sign, as a mirror should. For the
# random crop the parameters differ between the two libraries, so we check
# v2's crop on its own: the points must move by the same whole-pixel shift
# as the picture.
before = theirs
after = v2.RandomCrop(112)(before)
shift = (before["landmarks"] - after["landmarks"]).as_subclass(torch.Tensor)
left, top = shift[0].round().int().tolist()
assert torch.equal(shift, shift[0].expand_as(shift)) and torch.equal(
    shift[0], shift[0].round()
)
assert torch.equal(
    after["image"], before["image"][:, top : top + 112, left : left + 112]
)
print(
    f"v2.RandomCrop cut at (left, top) = ({left}, {top}); the points moved by exactly that"
)

# %%
# Bad rows get clear errors
# -------------------------
# Finally, what happens when the table is wrong. We write three broken copies
# of the CSV: one names a photo that does not exist, one has a landmark
# that is not a number, and one has a field missing. The first is caught
# when that sample is read; the other two as soon as the dataset is built.
# Each message names the full path of the file; on this page the two folders
# are shortened to ``<cache>`` and ``<faces>``.
rows = csv_file.read_text().splitlines()


def broken_copy(name, row, edit):
    """Copy the CSV with data row `row` passed through edit(list of fields)."""
    path = work_dir / name
    lines = rows.copy()
    lines[row + 1] = ",".join(
        edit(lines[row + 1].split(","))
    )  # + 1 skips the header
    write_atomically(
        path, lambda tmp: Path(tmp).write_text("\n".join(lines) + "\n")
    )
    return path


def on_page(message):
    """The message with this machine's two folders shortened, for the page."""
    return message.replace(str(work_dir), "<cache>").replace(
        str(faces_dir), "<faces>"
    )


missing = broken_copy(
    "missing_image.csv",
    5,
    lambda f: [f[0].replace(".jpg", "_lost.jpg"), *f[1:]],
)
try:
    FaceLandmarks(missing, faces_dir)[5]
except FileNotFoundError as err:
    message = str(err)
    print(f"Missing image error: {on_page(message)}")
assert str(missing) in message and "row 5" in message

not_a_number = broken_copy(
    "not_a_number.csv", 7, lambda f: f[:8] + ["107px"] + f[9:]
)  # x01 of face 7
too_short = broken_copy(
    "too_short.csv", 11, lambda f: f[:-1]
)  # last field lost
for path, row in [(not_a_number, 7), (too_short, 11)]:
    try:
        FaceLandmarks(path, faces_dir)
    except ValueError as err:
        message = str(err)
        print(f"Malformed row error: {on_page(message)}")
    assert str(path) in message and f"row {row}" in message
