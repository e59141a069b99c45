"""
Transforms that move images and landmarks together
==================================================

Cropping, resizing or flipping a photo moves every pixel, and each landmark
point must move with its pixel. This lesson builds an augmentation pipeline
for face landmarks with ``torchvision.transforms.v2`` and
``tv_tensors.KeyPoints``, checks with marker pixels where every landmark
must land, corrects the half-pixel offset that ``v2.Resize`` gives
pixel-centred points, and batches the augmented faces.
"""

# %%
# Setup
# -----
# One seed fixes every random crop and flip. The data and its download are
# those of :ref:`sphx_glr_lessons_data_02_custom_dataset_faces.py`.
import torch

torch.manual_seed(0)
print("Running on: cpu (this lesson only transforms and batches data)")
# sphinx_gallery_tags = ["intermediate", "data", "real data", "vision"]

# %%
# The training half of dlib's example faces (18 faces in four photos), each
# file pinned by its SHA-256 hash and a commit of dlib's repository:
PHOTOS = """\
2007_007763 17d9897dd55d38179f51dc18371b3f4495a606aaa2846e25a3cb6a58b3a97c89
2008_001009 2509864113a286bf245161d0317a18c38b6a6641135969847a7e59dff359c52c
2008_002079 f929bdf416d756b37eb90c119b892eba5d21041b134883e18d827bce641fb48f
2008_001322 2ea5a60f5347baab8da6eccce43b0320d63da1368d7710fb15cbff8a790bc626"""
SHA256 = {f"{s}.jpg": h for s, h in map(str.split, PHOTOS.splitlines())}
SHA256["training_with_face_landmarks.xml"] = (
    "d7895a98681f5e3818fb5d95cd75fdeba7c0e0c74cc9b22193df2909eb8f6ce5"
)
COMMIT = {  # commits of github.com/davisking/dlib
    "photos": "43ce7908b9a9d19955ddb35a6e83da8e413dd98f",
    "training": "c3b5fdefd05f0462057b9b7bf95c899e22eadac8",
}

# %%
# Getting the photos
# ------------------
# As before: if ``PBE_DATA_DIR`` names a folder whose ``dlib-faces/`` holds
# every file, we use that copy; else ``pooch`` downloads each file once into
# a cache folder. With neither, the lesson stops with a message.
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
# Faces as ``tv_tensors``
# -----------------------
# ``transforms.v2`` moves points along with pixels when it knows which is
# which. So the dataset wraps the photo in
# :class:`~torchvision.tv_tensors.Image`, the 68 ``(x, y)`` landmarks in
# :class:`~torchvision.tv_tensors.KeyPoints` and the face box in
# :class:`~torchvision.tv_tensors.BoundingBoxes`; the last two carry the
# size of the photo they belong to (``canvas_size``). Photos are read as
# RGB, so a grayscale photo would get three channels like the others.
#
# .. note:: Old code you may meet: hand-written ``Rescale``, ``RandomCrop``
#    and ``ToTensor`` classes that change a NumPy image and adjust the
#    landmarks by hand. ``transforms.v2`` moves ``KeyPoints`` itself.
import xml.etree.ElementTree as ET

from torchvision import tv_tensors
from torchvision.io import ImageReadMode, decode_image


class Faces(torch.utils.data.Dataset):
    """The faces of one dlib XML file: a photo, 68 landmarks and a box."""

    def __init__(self, xml_file, transform=None):
        self.folder, self.transform = xml_file.parent, transform
        images = ET.parse(xml_file).getroot().iter("image")
        self.faces = [(im.get("file"), box) for im in images for box in im]

    def __len__(self):
        return len(self.faces)

    def __getitem__(self, idx):
        name, box = self.faces[idx]
        image = decode_image(str(self.folder / name), mode=ImageReadMode.RGB)
        size = tuple(image.shape[-2:])
        points = [[float(p.get(a)) for a in "xy"] for p in box.iter("part")]
        xywh = [float(box.get(k)) for k in ["left", "top", "width", "height"]]
        sample = {
            "image": tv_tensors.Image(image),
            "landmarks": tv_tensors.KeyPoints(points, canvas_size=size),
            "box": tv_tensors.BoundingBoxes(
                [xywh], format="XYWH", canvas_size=size
            ),
        }
        return self.transform(sample) if self.transform else sample


# %%
# The first face, as three ``tv_tensors``:
faces = Faces(faces_dir / "training_with_face_landmarks.xml")
face = faces[0]
print({key: f"{type(v).__name__} {tuple(v.shape)}" for key, v in face.items()})
print(f"canvas_size of the landmarks: {face['landmarks'].canvas_size}")
assert len(faces) == 18 and face["landmarks"].shape == (68, 2)

# %%
# Cropping to the face, and a flip that knows left from right
# -----------------------------------------------------------
# v2 has no "crop to this face" transform, so ``CropFace`` reads the box and
# calls ``v2.functional.crop`` on image, points and box alike, with a square
# around the box plus a margin.
# ``v2.RandomHorizontalFlip`` mirrors every point, ``x`` to ``W - 1 - x``,
# but after a mirror the eye on the picture's left is the former right eye:
# point 36 must take the place of point 45, and so on. ``FlipFace`` adds
# that renumbering, from a table of mirror partners.
from torchvision.transforms import v2


class CropFace(v2.Transform):
    margin = 0.25  # of the box's side, added on each side

    def make_params(self, flat_inputs):
        boxes = [x for x in flat_inputs if type(x) is tv_tensors.BoundingBoxes]
        left, top, width, height = boxes[0][0].tolist()
        side = round(max(width, height) * (1 + 2 * self.margin))
        top = round(top + (height - side) / 2)
        left = round(left + (width - side) / 2)
        return {"top": top, "left": left, "height": side, "width": side}

    def transform(self, inpt, params):
        return v2.functional.crop(inpt, **params)


# %%
# The mirror partners of the 68-point scheme: jaw, eyebrows, nose bottom,
# eyes and lips swap left for right; points on the middle line stay.
FLIP = list(range(16, -1, -1)) + list(range(26, 16, -1))  # jaw, brows
FLIP += [27, 28, 29, 30] + list(range(35, 30, -1))  # nose
FLIP += [45, 44, 43, 42, 47, 46, 39, 38, 37, 36, 41, 40]  # eyes
FLIP += list(range(54, 47, -1)) + list(range(59, 54, -1))  # outer lips
FLIP += list(range(64, 59, -1)) + [67, 66, 65]  # inner lips
FLIP = torch.tensor(FLIP)
assert torch.equal(FLIP[FLIP], torch.arange(68))  # swapping twice: no change


class FlipFace(v2.RandomHorizontalFlip):
    def transform(self, inpt, params):
        out = super().transform(inpt, params)
        if isinstance(out, tv_tensors.KeyPoints):
            out = tv_tensors.wrap(out[FLIP], like=out)
        return out


# %%
# Is the table right? On an upright face, certain points lie left of their
# partners: the picture-left eye left of the other eye, jaw point 0 left of
# point 16, mouth corner 48 left of 54, nostril 31 left of 35. ``FlipFace``
# must keep all of that true on every face; a plain mirror makes it false.
PAIRS = [(slice(36, 42), slice(42, 48)), (0, 16), (48, 54), (31, 35)]


def left_of(points):
    return [points[a, 0].mean() < points[b, 0].mean() for a, b in PAIRS]


for idx in range(len(faces)):
    face = faces[idx]
    flipped = FlipFace(p=1.0)(face)["landmarks"]
    mirrored = v2.RandomHorizontalFlip(p=1.0)(face)["landmarks"]
    assert all(left_of(face["landmarks"])) and all(left_of(flipped))
    assert not any(left_of(mirrored))
    width = face["image"].shape[-1]  # a mirror maps x to W - 1 - x:
    assert torch.equal(mirrored[:, 0], width - 1 - face["landmarks"][:, 0])
print(f"flip table checked on all {len(faces)} faces")

# %%
# Do the landmarks land on their pixels?
# --------------------------------------
# The pixels can tell us. We add five channels to the image, one per tracked
# landmark on the face's middle line (nose and lips), each black except for
# one white pixel under its landmark. Transforms treat these channels like
# colours, so they move the white dots exactly as they move the photo. After
# a transform, the brightness-weighted centre of each channel is where the
# pixel went, and the transformed landmark should be there too.
TRACKED = torch.tensor([27, 30, 33, 51, 57])
assert torch.equal(FLIP[TRACKED], TRACKED)  # the flip leaves them in place


def add_markers(sample):
    image = v2.functional.to_dtype(sample["image"], torch.float32, scale=True)
    markers = torch.zeros(len(TRACKED), *image.shape[-2:])
    for k, (x, y) in enumerate(sample["landmarks"][TRACKED].long().tolist()):
        markers[k, y, x] = 1.0
    marked = torch.cat([image, markers])
    return sample | {"image": tv_tensors.Image(marked)}


def gap(sample):
    """Largest distance, in pixels, between a marker and its landmark."""
    markers = sample["image"][3:]
    h, w = markers.shape[1:]
    ys, xs = torch.arange(h)[:, None], torch.arange(w)
    weight = markers.sum(dim=(1, 2))
    centres = [(markers * c).sum(dim=(1, 2)) / weight for c in (xs, ys)]
    centres = torch.stack(centres, dim=1)
    return (centres - sample["landmarks"][TRACKED]).abs().max().item()


# %%
# We crop face 0 and resize the crop to 128 x 128 with ``v2.Resize``:
marked = CropFace()(add_markers(faces[0]))
scale = 128 / marked["image"].shape[-1]
resized = v2.Resize((128, 128))(marked)
print(f"after CropFace: gap {gap(marked):.3f} px")
print(f"after v2.Resize (x {scale:.2f}): gap {gap(resized):.3f} px")
assert gap(marked) < 0.01
torch.testing.assert_close(resized["landmarks"], marked["landmarks"] * scale)
torch.testing.assert_close(gap(resized), 0.5 * (scale - 1), atol=0.1, rtol=0)
assert gap(resized) > 0.5

# %%
# The crop moves points by whole pixels and keeps them exact. The resize
# does not: its points are off by about ``0.5 * (s - 1)`` pixels for a scale
# factor ``s``, here more than half a pixel (asserted). ``v2.Resize`` scales
# a point as ``x * s``, treating ``x`` as a distance from the image's corner,
# while the pixels are resampled around pixel *centres* (the same convention
# that makes the flip ``W - 1 - x``): the centre of pixel ``x`` lands at
# ``(x + 0.5) * s - 0.5``. dlib's landmarks are pixel positions, so we
# correct the points after ``v2.Resize``, by ``0.5 * (s - 1)`` on each axis:


class ResizeFace(v2.Resize):
    def transform(self, inpt, params):
        out = super().transform(inpt, params)
        if isinstance(out, tv_tensors.KeyPoints):
            (h0, w0), (h1, w1) = inpt.canvas_size, out.canvas_size
            shift = torch.tensor([w1 / w0 - 1, h1 / h0 - 1]) / 2
            out = tv_tensors.wrap(out + shift, like=out)
        return out


fixed = ResizeFace((128, 128))(marked)
print(f"after ResizeFace: gap {gap(fixed):.3f} px")
assert gap(fixed) < 0.1

# %%
# Around the nose tip: the resized marker pixel, the point ``v2.Resize``
# gives, and the corrected one.
import matplotlib.pyplot as plt

x, y = fixed["landmarks"][30].tolist()
fig, ax = plt.subplots(figsize=(5, 4.2))
ax.imshow(fixed["image"][4], cmap="gray")  # the nose-tip marker channel
ax.plot(*resized["landmarks"][30], "x", color="red", ms=12, label="v2.Resize")
ax.plot(x, y, "+", color="cyan", ms=14, mew=2, label="ResizeFace")
ax.set_xlim(x - 4, x + 4)
ax.set_ylim(y + 4, y - 4)
ax.set_xlabel("x (pixels of the 128 x 128 crop)")
ax.set_ylabel("y (pixels)")
ax.set_title(f"Nose-tip marker after a {scale:.2f}x resize")
ax.legend()
assert (resized["landmarks"][30] < fixed["landmarks"][30]).all()
plt.show()

# %%
# The corrected point sits on the centre of the white blob, the other one
# above and left of it (asserted).
#
# The pipeline, checked end to end
# --------------------------------
# The pipeline we ship: crop to the face, resize to 128 x 128 with the
# correction, cut a random 112 x 112 window, flip with probability 1/2, and
# turn the ``uint8`` image into floats in ``[0, 1]``. The dataset applies it
# on every access, so each epoch sees new crops and flips. We run it twice
# on each marked face and check the markers after the whole chain.
augment = v2.Compose(
    [
        CropFace(),
        ResizeFace((128, 128)),
        v2.RandomCrop(112),
        FlipFace(),
        v2.ToDtype(torch.float32, scale=True),
    ]
)
gaps = [gap(augment(add_markers(faces[i]))) for i in range(18) for _ in "ab"]
print(f"{len(gaps)} augmented faces: largest gap {max(gaps):.3f} px")
assert max(gaps) < 0.1

# %%
# Batching the augmented faces
# ----------------------------
# Every sample now has the same size, so the default ``collate_fn`` stacks
# each entry: the images into ``B x 3 x 112 x 112``, the landmarks into
# ``B x 68 x 2``, as plain tensors.
from torch.utils.data import DataLoader

train_faces = Faces(faces_dir / "training_with_face_landmarks.xml", augment)
gen = torch.Generator().manual_seed(0)
loader = DataLoader(train_faces, batch_size=8, shuffle=True, generator=gen)
batch = next(iter(loader))
print({key: tuple(value.shape) for key, value in batch.items()})
assert batch["image"].shape == (8, 3, 112, 112)
assert type(batch["landmarks"]) is torch.Tensor
views = [train_faces[0]["landmarks"] for _ in range(2)]
assert not torch.equal(*views)  # a new crop on every access
assert all(all(left_of(points)) for points in batch["landmarks"])

fig, axes = plt.subplots(2, 4, figsize=(9, 4.9), layout="constrained")
for ax, image, points in zip(axes.flat, batch["image"], batch["landmarks"]):
    ax.imshow(image.permute(1, 2, 0))
    ax.plot(*points.T, ".", color="cyan", ms=2)
    ax.plot(*points[36:42].T, ".", color="red", ms=3)
fig.supxlabel("x (pixels)")
fig.supylabel("y (pixels)")
fig.suptitle("One augmented batch; red: the eye on the picture's left")
plt.show()

# %%
# Every face is cropped, resized, cut and sometimes flipped, and its points
# follow: the red eye stays on the picture's left.
