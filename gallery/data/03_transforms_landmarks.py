"""
Transforms that move images and landmarks together
==================================================

Cropping, resizing or flipping a photo moves every pixel, and each landmark
point must move with its pixel. This lesson builds an augmentation pipeline
for face landmarks with ``torchvision.transforms.v2`` and
``tv_tensors.KeyPoints``, and batches the augmented faces.

**You will learn** to wrap a sample's parts in ``tv_tensors`` so that v2
transforms move points with pixels, to write transforms of your own (a
crop to the face, a flip that swaps left and right points, a resize that
keeps points on their pixels), and to chain them into a random pipeline.

**You need first** :ref:`sphx_glr_lessons_data_02_custom_dataset_faces.py`
(the face photos and their landmarks). This lesson is optional on a first
read of the site.
"""

# %%
# Setup
# -----
# One seed fixes every random crop and flip.
import torch

torch.manual_seed(0)
print("Running on: cpu (this lesson only transforms and batches data)")
# sphinx_gallery_tags = ["intermediate", "data", "real data", "vision"]

# %%
# The files
# ---------
# dlib's example faces, pinned as in
# :ref:`sphx_glr_lessons_data_02_custom_dataset_faces.py`:
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
# That lesson's function fetches them (or finds the offline copy) and
# checks every hash; the one call after it is all that matters here.
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
# sphinx_gallery_start_ignore
assert all(pooch.file_hash(faces_dir / n) == h for n, h in SHA256.items())
# sphinx_gallery_end_ignore

# %%
# Faces as ``tv_tensors``
# -----------------------
# ``transforms.v2`` moves points along with pixels when it knows which is
# which. So the dataset wraps the photo in
# :class:`~torchvision.tv_tensors.Image`, the 68 ``(x, y)`` landmarks in
# :class:`~torchvision.tv_tensors.KeyPoints` and the face box in
# :class:`~torchvision.tv_tensors.BoundingBoxes`; the last two carry the
# size of the photo they belong to (``canvas_size``). This time the dataset
# reads dlib's XML directly, and applies ``transform`` to each sample.
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
        box = tv_tensors.BoundingBoxes([xywh], format="XYWH", canvas_size=size)
        points = tv_tensors.KeyPoints(points, canvas_size=size)
        sample = {"image": tv_tensors.Image(image), "landmarks": points}
        sample["box"] = box
        return self.transform(sample) if self.transform else sample


# %%
# The first face of the training half (18 faces in four photos):
faces = Faces(faces_dir / "training_with_face_landmarks.xml")
face = faces[0]
print({key: f"{type(v).__name__} {tuple(v.shape)}" for key, v in face.items()})
print(f"canvas_size of the landmarks: {face['landmarks'].canvas_size}")
# sphinx_gallery_start_ignore
assert len(faces) == 18 and face["landmarks"].shape == (68, 2)
# sphinx_gallery_end_ignore

# %%
# Cropping to the face
# --------------------
# v2 has no "crop to this face" transform, so we write one. A subclass of
# ``v2.Transform`` overrides two hooks. ``make_params`` runs once per call
# and sees every input (``flat_inputs``: here image, points and box); it
# returns the parameters of this call, which is where random choices go.
# ``transform`` then runs once per input with those parameters. ``CropFace``
# reads the box and crops a square around it, plus a margin, from image,
# points and box alike with ``v2.functional.crop``.
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
# A flip that knows left from right
# ---------------------------------
# ``v2.RandomHorizontalFlip`` mirrors every point, ``x`` to ``W - 1 - x``,
# but after a mirror the eye on the picture's left is the former right eye:
# point 36 must take the place of point 45, and so on. ``FlipFace`` adds
# that renumbering, from a table of mirror partners: jaw, eyebrows, nose
# bottom, eyes and lips swap left for right; points on the middle line
# stay.
FLIP = list(range(16, -1, -1)) + list(range(26, 16, -1))  # jaw, brows
FLIP += [27, 28, 29, 30] + list(range(35, 30, -1))  # nose
FLIP += [45, 44, 43, 42, 47, 46, 39, 38, 37, 36, 41, 40]  # eyes
FLIP += list(range(54, 47, -1)) + list(range(59, 54, -1))  # outer lips
FLIP += list(range(64, 59, -1)) + [67, 66, 65]  # inner lips
FLIP = torch.tensor(FLIP)


class FlipFace(v2.RandomHorizontalFlip):
    def transform(self, inpt, params):
        out = super().transform(inpt, params)
        if isinstance(out, tv_tensors.KeyPoints):
            out = tv_tensors.wrap(out[FLIP], like=out)
        return out


# %%
# Resizing, with points on their pixels
# -------------------------------------
# ``v2.Resize`` by a factor ``s`` scales a point as ``x * s``, treating
# ``x`` as a distance from the image's corner. But the pixels are resampled
# around pixel *centres* (the convention that makes the flip
# ``W - 1 - x``): the centre of pixel ``x`` lands at ``(x + 0.5) * s - 0.5``.
# dlib's landmarks are pixel positions, so after ``v2.Resize`` they are off
# by ``0.5 * (s - 1)`` pixels, more than half a pixel when ``s`` is above
# 2 ("Going deeper" measures it). ``ResizeFace`` adds that correction on
# each axis; it builds the shift on the points' own device, so it works
# wherever the points are.


class ResizeFace(v2.Resize):
    def transform(self, inpt, params):
        out = super().transform(inpt, params)
        if isinstance(out, tv_tensors.KeyPoints):
            (h0, w0), (h1, w1) = inpt.canvas_size, out.canvas_size
            shift = out.new_tensor([w1 / w0 - 1, h1 / h0 - 1]) / 2
            out = tv_tensors.wrap(out + shift, like=out)
        return out


# %%
# The pipeline
# ------------
# Crop to the face, resize to 128 x 128 with the correction, cut a random
# 112 x 112 window, flip with probability 1/2, and turn the ``uint8`` image
# into floats in ``[0, 1]``. The dataset applies it on every access, so each
# epoch sees new crops and flips. Every sample now has the same size, so the
# default ``collate_fn`` stacks each entry into a batch, as plain tensors.
from torch.utils.data import DataLoader

steps = [CropFace(), ResizeFace((128, 128)), v2.RandomCrop(112), FlipFace()]
augment = v2.Compose([*steps, v2.ToDtype(torch.float32, scale=True)])
train_faces = Faces(faces_dir / "training_with_face_landmarks.xml", augment)
gen = torch.Generator().manual_seed(0)
loader = DataLoader(train_faces, batch_size=8, shuffle=True, generator=gen)
batch = next(iter(loader))
print({key: tuple(value.shape) for key, value in batch.items()})
# sphinx_gallery_start_ignore
assert batch["image"].shape == (8, 3, 112, 112)
assert type(batch["landmarks"]) is torch.Tensor
assert not torch.equal(*[train_faces[0]["landmarks"] for _ in range(2)])
# sphinx_gallery_end_ignore

# %%
# The batch, with the eye on the picture's left (points 36-41) in red.
# :func:`torchvision.utils.make_grid` tiles a batch into one image, 4 per
# row with 4 pixels between them; each face's points move by its tile's
# corner.
import matplotlib.pyplot as plt
from torchvision.utils import make_grid

grid = make_grid(batch["image"], nrow=4, padding=4, pad_value=1.0)
fig, ax = plt.subplots(figsize=(9, 4.8), layout="constrained")
ax.imshow(grid.permute(1, 2, 0).numpy())  # (height, width, channels)
for k, points in enumerate(batch["landmarks"]):
    row, col = divmod(k, 4)
    points = points + torch.tensor([col, row]) * (112 + 4) + 4
    ax.plot(*points.numpy().T, ".", color="cyan", ms=2)
    ax.plot(*points[36:42].numpy().T, ".", color="red", ms=3)
    # sphinx_gallery_start_ignore
    assert points[36:42, 0].mean() < points[42:48, 0].mean()
    # sphinx_gallery_end_ignore
ax.set(xlabel="x (pixels in the grid)", ylabel="y (pixels)")
ax.set_title("One augmented batch; red: the eye on the picture's left")
plt.show()

# %%
# Every face is cropped, resized, cut and sometimes flipped, and its points
# follow: the red eye stays on the picture's left, flipped or not.
#
# Going deeper
# ------------
# Optional on a first read: what checks the flip table, and where the
# landmarks really land after a resize and after the whole pipeline.
#
# Checking the flip table
# ~~~~~~~~~~~~~~~~~~~~~~~
# Swapping twice must change nothing, and on an upright face some points
# lie left of their partners: the picture-left eye left of the other eye,
# jaw point 0 left of point 16, mouth corner 48 left of 54, nostril 31 left
# of 35. ``FlipFace`` must keep that order on every face; a plain mirror
# reverses it. These checks catch a table that sends an eye, a jaw end, a
# mouth corner or a nostril to the wrong side; they cannot tell whether
# every brow or lip point got the right partner: that we checked entry by
# entry against the numbering of the 68-point scheme.
PAIRS = [(slice(36, 42), slice(42, 48)), (0, 16), (48, 54), (31, 35)]


def left_of(points):
    return [points[a, 0].mean() < points[b, 0].mean() for a, b in PAIRS]


kept = reversed_by_mirror = 0
for face in faces:
    flipped = FlipFace(p=1.0)(face)["landmarks"]
    mirrored = v2.RandomHorizontalFlip(p=1.0)(face)["landmarks"]
    kept += all(left_of(face["landmarks"])) and all(left_of(flipped))
    reversed_by_mirror += not any(left_of(mirrored))
involution = torch.equal(FLIP[FLIP], torch.arange(68))
print(f"swapping twice changes nothing: {involution}")
print(f"order kept by FlipFace on {kept} of {len(faces)} faces")
print(f"order reversed by a plain mirror on {reversed_by_mirror} faces")
# sphinx_gallery_start_ignore
assert kept == reversed_by_mirror == len(faces) == 18 and involution
assert torch.equal(
    mirrored[:, 0], face["image"].shape[-1] - 1 - face["landmarks"][:, 0]
)
# sphinx_gallery_end_ignore

# %%
# Do the landmarks land on their pixels?
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# First the correction on the smallest case: a row of 2 pixels resized to
# 4 (``s = 2``). Pixel ``x`` covers the stretch from ``x`` to ``x + 1``, so
# pixel 1 has its centre at 1.5, and the resize stretches that to 3.0. In
# the new row, position ``j`` has its centre at ``j + 0.5``, so 3.0 is
# position 2.5: pixel 1 moves to 2.5, while ``x * s`` says 2, half a pixel
# short, ``0.5 * (s - 1)``.
#
# On the photos, the pixels themselves can tell us. We add five channels to the
# image, one per tracked landmark on the face's middle line (nose and lips),
# each black except for one white pixel under its landmark. Transforms treat
# these channels like colours, so they move the white dots exactly as they move
# the photo. After a transform, the brightness-weighted centre of each channel
# is where the pixel went, and the transformed landmark should be there too;
# ``gap`` measures the largest distance between the two.
TRACKED = torch.tensor([27, 30, 33, 51, 57])


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
    weight = markers.sum(dim=(1, 2))  # the brightness of each channel
    centres = [(markers * c).sum(dim=(1, 2)) / weight for c in (xs, ys)]
    centres = torch.stack(centres, dim=1)  # one (x, y) per channel
    return (centres - sample["landmarks"][TRACKED]).abs().max().item()


# %%
# We crop face 0, then resize the crop to 128 x 128 with ``v2.Resize`` and
# with ``ResizeFace``; last, we run the whole pipeline twice on each of the
# 18 marked faces.
marked = CropFace()(add_markers(faces[0]))
scale = 128 / marked["image"].shape[-1]
resized = v2.Resize((128, 128))(marked)
fixed = ResizeFace((128, 128))(marked)
print(f"after CropFace: gap {gap(marked):.3f} px")
print(f"after v2.Resize (x {scale:.2f}): gap {gap(resized):.3f} px")
print(f"0.5 * (s - 1) = {0.5 * (scale - 1):.3f} px")
print(f"after ResizeFace: gap {gap(fixed):.3f} px")
gaps = [gap(augment(add_markers(faces[i]))) for i in range(18) for _ in "ab"]
print(f"{len(gaps)} augmented faces: largest gap {max(gaps):.3f} px")
# sphinx_gallery_start_ignore
assert torch.equal(FLIP[TRACKED], TRACKED)
assert gap(marked) < 0.01 and gap(resized) > 0.5 and gap(fixed) < 0.1
torch.testing.assert_close(resized["landmarks"], marked["landmarks"] * scale)
torch.testing.assert_close(gap(resized), 0.5 * (scale - 1), atol=0.1, rtol=0)
assert ResizeFace((64, 64))(marked["landmarks"].to("meta")).is_meta
assert max(gaps) < 0.1
# sphinx_gallery_end_ignore

# %%
# The crop moves points by whole pixels and keeps them exact. ``v2.Resize``
# leaves them off by about ``0.5 * (s - 1)`` pixels, here more than half a
# pixel; ``ResizeFace`` puts them back within a few hundredths, and so does
# the whole pipeline of crops, resize and flips. Around the nose tip:
x, y = fixed["landmarks"][30].tolist()
fig, ax = plt.subplots(figsize=(5, 4.2))
ax.imshow(fixed["image"][4].numpy(), cmap="gray")  # the nose-tip marker
ax.plot(
    *resized["landmarks"][30].tolist(),
    "x",
    color="red",
    ms=12,
    label="v2.Resize",
)
ax.plot(x, y, "+", color="cyan", ms=14, mew=2, label="ResizeFace")
ax.set_xlim(x - 4, x + 4)
ax.set_ylim(y + 4, y - 4)
ax.set_xlabel("x (pixels of the 128 x 128 crop)")
ax.set_ylabel("y (pixels)")
ax.set_title(f"Nose-tip marker after a {scale:.2f}x resize")
ax.legend()
# sphinx_gallery_start_ignore
assert (resized["landmarks"][30] < fixed["landmarks"][30]).all()
# sphinx_gallery_end_ignore
plt.show()

# %%
# The corrected point sits on the centre of the white blob, the other one
# above and left of it.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - Hand-written ``Rescale`` and ``RandomCrop`` classes that change a
#      NumPy image and adjust the landmarks by hand: ``transforms.v2``
#      moves ``KeyPoints`` and ``BoundingBoxes`` along with the image.
#    - ``transforms.ToTensor()``: in v2 it is ``v2.ToImage()`` followed by
#      ``v2.ToDtype(torch.float32, scale=True)``; photos read with
#      ``decode_image`` are tensors already, so only the second is needed.

# %%
# Takeaways
# ---------
# - Wrap a sample's parts in ``tv_tensors`` (``Image``, ``KeyPoints``,
#   ``BoundingBoxes``), and v2 transforms move points and boxes with the
#   pixels.
# - A ``v2.Transform`` subclass picks its parameters in ``make_params`` and
#   applies them to each input in ``transform``.
# - Mirroring a face also swaps left and right points: renumber them with a
#   table of partners.
# - ``v2.Resize`` treats points as distances from the corner; landmarks
#   that are pixel positions need a ``0.5 * (s - 1)`` shift.
#
# Next, :ref:`sphx_glr_lessons_data_04_torchvision_datasets.py` loads
# ready-made datasets and folders of images with torchvision.
