"""
Training CIFAR-10 fast on a CPU
===============================

How much accuracy can about a minute of training on a CPU buy? We keep
CIFAR-10 in memory and train a network with the tricks of two fast recipes
(Keller Jordan's airbench, David Page's "How to train your ResNet");
going deeper, we measure what each trick buys and costs.

**You will learn** to train from images kept in memory (on the device
that trains), and a fast recipe's tricks: a computed first layer,
``channels_last``, progressive resizing, a one-cycle learning rate,
weight-decay groups, label smoothing, flips, GELU, test-time
augmentation.

**You need first** :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`
(a first classifier, with a validation split),
:ref:`sphx_glr_lessons_nn_05_classic_cnn.py`,
:ref:`sphx_glr_lessons_nn_03_custom_module.py` (batch norm),
:ref:`sphx_glr_lessons_advanced_03_gpu_performance.py`.
"""

# %%
# An available accelerator, else the CPU. We train in bfloat16 (bf16)
# autocast only where the device computes bf16 natively, else in float32.
import time

import torch


def computes_bf16(device):  # natively, not emulated
    if device.type in ("cuda", "xpu"):  # NVIDIA from Ampere on, AMD, Intel
        module = torch.get_device_module(device)
        return module.is_bf16_supported(including_emulation=False)
    flags = torch.cpu.get_capabilities()  # x86, x86, Arm:
    native = [flags.get(f, False) for f in ["amx_bf16", "avx512_bf16", "bf16"]]
    return device.type == "cpu" and any(native)  # MPS: no such check


torch.manual_seed(0)
device = torch.accelerator.current_accelerator(check_available=True)
device = device or torch.device("cpu")
use_bf16 = computes_bf16(device)
precision = "bf16 autocast" if use_bf16 else "float32"
print(f"Running on {device.type} in {precision}")
# sphinx_gallery_tags = ["advanced", "vision", "real data", "performance"]

# %%
# Getting CIFAR-10
# ----------------
# 50,000 training and 10,000 test images, 32x32 pixels. ``get_cifar10``
# returns the unpacked offline JPEG copy's folder, else downloads the
# original; skip its body on a first read.
import pooch
from torchvision import datasets

cache = pooch.os_cache("pytorch-by-example")  # a per-user cache folder
SHA256 = "ad20075fc5d761cb1545aa313752ecc67cdb288bc8d01abc2128e7de0ddfedb5"


def get_cifar10():  # the JPEG copy's folder, else None: the original
    jpeg_copy = pooch.create(path=cache, base_url="", env="PBE_DATA_DIR",
        registry={"cifar10-jpeg.zip": f"sha256:{SHA256}"},
        allow_updates=False)  # fmt: skip
    if (jpeg_copy.abspath / "cifar10-jpeg.zip").is_file():
        folder = cache / "cifar10-jpeg-advanced09"  # this lesson's own
        jpeg_copy.fetch("cifar10-jpeg.zip", pooch.Unzip(extract_dir=folder))
        print("Using the JPEG copy of CIFAR-10 (lossy: pixels differ)")
        return folder
    try:
        datasets.CIFAR10(cache, download=True)  # both splits, one archive
    except OSError as err:  # no network, or the server refused
        raise RuntimeError("offline: connect, or set PBE_DATA_DIR") from err
    print("Using the original CIFAR-10, downloaded by torchvision")


jpeg_dir = get_cifar10()

# %%
# Decoded once, kept in memory
# ----------------------------
# A :ref:`DataLoader <sphx_glr_lessons_data_01_datasets_dataloaders.py>`
# over files decodes every image in every epoch. CIFAR-10 fits in memory
# as ``uint8`` (150 MB of training images), so we decode it once and a
# batch becomes one indexing operation.
from torchvision.io import decode_image


def load_split(train):  # all images as one uint8 tensor, and the labels
    if jpeg_dir is None:
        split = datasets.CIFAR10(cache, train=train)
        images = torch.from_numpy(split.data).permute(0, 3, 1, 2)
        return images.contiguous(), torch.tensor(split.targets)
    folder = jpeg_dir / ("train" if train else "test")
    files = datasets.ImageFolder(folder, loader=decode_image)
    return torch.stack([x for x, _ in files]), torch.tensor(files.targets)


# %%
# 5,000 training images are held out for validation; each colour
# channel's mean and spread come from the other 45,000. Both splits move
# to the device once, where every step reads them.
x_all, y_all = load_split(train=True)
val, rest = torch.randperm(50_000).split([5000, 45_000])
x_val, y_val = x_all[val].to(device), y_all[val].to(device)
x_train, y_train = x_all[rest].to(device), y_all[rest].to(device)
std, mean = torch.std_mean(x_train.float() / 255, (0, 2, 3), keepdim=True)


def normalize(images):  # uint8 -> float32, mean 0 and spread 1 per channel
    return (images.float() / 255 - mean) / std


# sphinx_gallery_start_ignore
assert len(y_all) == 50_000 and x_all.dtype == torch.uint8
assert (torch.bincount(y_val) > 400).all() and len(y_val) == 5000
# sphinx_gallery_end_ignore

# %%
# The network
# -----------
# **A frozen first layer, computed** (airbench): its filters *whiten*
# 2x2 patches of the training images ("Going deeper" shows how), and it
# never trains.
from torch import nn


def whitening_filters(images, eps=5e-4):
    patches = normalize(images).unfold(2, 2, 1).unfold(3, 2, 1)
    patches = patches.permute(0, 2, 3, 1, 4, 5).reshape(-1, 12)
    eigenvalues, eigenvectors = torch.linalg.eigh(torch.cov(patches.T).cpu())
    filters = eigenvectors.T / (eigenvalues + eps).sqrt().unsqueeze(1)
    return torch.cat([filters, -filters]).view(24, 3, 2, 2), eigenvalues


filters, eigenvalues = whitening_filters(x_train[:10_000])

# %%
# Then three blocks of two 3x3 convolutions (32, 64, 128 channels) with
# :class:`~torch.nn.GELU`, a smooth ReLU; pooling before batch norm,
# identity-initialized filters and frozen batch-norm scales ("Going
# deeper" says why).


def conv_bn(c_in, c_out, pool=False):  # conv, [pool], batch norm, GELU
    conv = nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
    nn.init.dirac_(conv.weight[:c_in])  # identity filters first
    norm = nn.BatchNorm2d(c_out, momentum=0.2)  # running stats: 20%/batch
    norm.weight.requires_grad_(False)  # scale frozen, shift trained
    layers = [conv, nn.MaxPool2d(2)] if pool else [conv]
    return layers + [norm, nn.GELU()]


def fast_net():
    whiten = nn.Conv2d(3, 24, 2, bias=False)  # 32x32 -> 31x31
    whiten.weight.requires_grad_(False).copy_(filters)  # frozen, computed
    layers = [whiten, nn.GELU()]
    for c_in, c in ((24, 32), (32, 64), (64, 128)):
        layers += conv_bn(c_in, c, pool=True) + conv_bn(c, c)
    pool = nn.AdaptiveMaxPool2d(1)  # any image size -> 1x1
    return nn.Sequential(*layers, pool, nn.Flatten(), nn.Linear(128, 10))


# sphinx_gallery_start_ignore
assert eigenvalues.max() / eigenvalues.min() > 1e3
torch.testing.assert_close(  # Dirac: the first filters are identities
    conv_bn(3, 8)[0](normalize(x_val[:2]).cpu())[:, :3],  # no TF32 here
    normalize(x_val[:2]).cpu(),
)
# sphinx_gallery_end_ignore

# %%
# The training recipe
# -------------------
# ``train`` trains a fresh network for ``steps`` steps of 256 images (SGD,
# Nesterov momentum, scores divided by 9 as in airbench). Its keyword
# arguments switch the tricks, on by default:
#
# - **one-cycle rate** (:class:`~torch.optim.lr_scheduler.OneCycleLR`):
#   up to 0.8 over the first 20% of the steps, then linearly down to
#   almost zero. Off: a constant 0.1 (a usual value, not tuned).
# - **weight-decay groups**: only convolution and linear weights decay;
#   batch-norm shifts and biases do not, and get 4 times the rate.
BATCH, LR, WD = 256, 0.8, 5e-4


def make_optimizer(model, steps, one_cycle, groups):
    lr = LR if one_cycle else 0.1
    params = [p for p in model.parameters() if p.requires_grad]
    decay = [p for p in params if p.ndim > 1 or not groups]
    shifts = [p for p in params if p.ndim == 1 and groups]
    param_groups = [{"params": decay, "weight_decay": WD},
                    {"params": shifts, "lr": 4 * lr}]  # fmt: skip
    optimizer = torch.optim.SGD(param_groups, lr, momentum=0.9, nesterov=True)
    if not one_cycle:  # the rate stays as it is
        return optimizer, torch.optim.lr_scheduler.ConstantLR(optimizer, 1)
    return optimizer, torch.optim.lr_scheduler.OneCycleLR(
        optimizer, [lr, 4 * lr], steps, pct_start=0.2,
        anneal_strategy="linear", cycle_momentum=False)  # fmt: skip


# %%
# - **progressive resizing** (fast.ai): images shrink to ``sizes[0]``
#   pixels a side in the first part of the steps, then ``sizes[1]``...
#   Off: ``sizes=(32,)``.
# - **flips**: each image is mirrored at random, and the other way round
#   in the next epoch (airbench).
from torchvision.transforms import v2

PER_EPOCH = len(y_train) // BATCH  # steps in one epoch


def batches(steps, sizes, flips):
    flip = torch.rand(len(y_train), device=device) < 0.5  # even epochs
    for step in range(steps):
        epoch, k = divmod(step, PER_EPOCH)
        if k == 0:  # a new epoch, a new order
            order = torch.randperm(len(y_train), device=device)
        i = order[k * BATCH : (k + 1) * BATCH]
        size = sizes[step * len(sizes) // steps]
        x = v2.functional.resize(x_train[i], [size, size])
        if flips:
            mirror = (flip[i] ^ (epoch % 2 == 1)).view(-1, 1, 1, 1)
            x = torch.where(mirror, x.flip(-1), x)
        yield x, y_train[i]


# %%
# - **label smoothing** (0.2): the loss aims at 82% confidence in the
#   right class, not 100%.
# - **channels_last**: each pixel's channels adjacent in memory; the shape
#   stays (N, C, H, W).


def train(steps, sizes, one_cycle=True, groups=True, flips=True,
          smoothing=0.2, layout=torch.channels_last):  # fmt: skip
    model = fast_net().to(device, memory_format=layout).train()
    optimizer, schedule = make_optimizer(model, steps, one_cycle, groups)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=smoothing)
    start = time.perf_counter()
    for x, y in batches(steps, sizes, flips):
        x = normalize(x).contiguous(memory_format=layout)
        with torch.autocast(device.type, torch.bfloat16, enabled=use_bf16):
            loss = loss_fn(model(x) / 9, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
    loss.item()  # waits for the device to finish
    return model, time.perf_counter() - start


# %%
# The whole recipe
# ----------------
# One epoch per entry of ``SIZES``: 4 in bf16, 3 in float32 ("Going
# deeper" says why). ``validate`` scores a network on the validation
# split, at its last training size.
@torch.inference_mode()
def validate(net, size):
    net.eval()
    x = normalize(v2.functional.resize(x_val, [size, size]))
    with torch.autocast(device.type, torch.bfloat16, enabled=use_bf16):
        guesses = torch.cat([net(b).argmax(1) for b in x.split(500)])
    return (guesses == y_val).float().mean().item()


SIZES = (20, 24, 24, 28) if use_bf16 else (20, 24, 28)
model, seconds = train(len(SIZES) * PER_EPOCH, SIZES)
print(f"{len(SIZES)} epochs on {device.type}, {precision}: "
      f"trained in {seconds:.1f} s")  # fmt: skip
accuracy = validate(model, SIZES[-1])
print(f"validation accuracy: {accuracy:.2%}")

# sphinx_gallery_start_ignore
assert accuracy > 0.78
# sphinx_gallery_end_ignore

# %%
# Going deeper
# ------------
# Optional on a first read: the schedules, the network's design,
# test-time augmentation, what each trick buys, the one look at the test
# set, where the time goes.
#
# A schedule per precision path
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Each schedule was sized to about 45 seconds of training on the idle
# two-core CPU this page was tuned on, and its length and image sizes
# chosen among a few on the validation split (the batch size, rates and
# divisor were chosen there too); bf16 steps were cheaper there, so that
# path gets one more epoch. The path picks the schedule, not a timer:
# every machine on one path trains the same steps, and a run repeats
# exactly on one CPU. The seconds depend on the machine and its load: the
# line after training says what this run took, and on which device.
#
# A bf16 tensor, such as the scores autocast's layers return, has a type
# NumPy lacks: ``.numpy()`` refuses it; convert with ``.float()`` first.
scores = model(normalize(x_val[:2])).detach().to("cpu", torch.bfloat16)
try:
    scores.numpy()
except TypeError as err:
    print(f"raised TypeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError(".numpy() accepted a bf16 tensor")
# sphinx_gallery_end_ignore
print(scores.float().numpy().round(1))

# %%
#
# The network's design
# ~~~~~~~~~~~~~~~~~~~~
# **Whitening.** PCA whitening of 2x2 patches: the eigenvectors of their
# covariance, divided by ``sqrt(eigenvalue + eps)``, turn a patch into 12
# nearly uncorrelated values. These are the filters; each also appears
# with its sign flipped, because the GELU after them keeps little of a
# negative value (see below). The first 12 filters turn validation
# patches into 12 channels whose covariance is nearly diagonal, with
# variances of about 1 or less: ``eps`` damps the directions whose
# eigenvalue is near or below it instead of blowing them up.
white = nn.functional.conv2d(normalize(x_val[:1000]), filters[:12].to(device))
cov = torch.cov(white.transpose(0, 1).flatten(1))  # 12 x 12
off_diagonal = (cov - cov.diag().diag()).abs().max()
low, high = eigenvalues.min(), eigenvalues.max()
print(f"eigenvalues {low:.4f} to {high:.1f}, ratio {high / low:,.0f}")
variances = cov.diag()
print(f"whitened variances {variances.min():.2f} to {variances.max():.2f}, "
      f"covariances up to {off_diagonal:.3f}")  # fmt: skip

# sphinx_gallery_start_ignore
assert variances.max() < 1.1 and off_diagonal < 0.1 and high / low > 1e3
for f in filters[:2] * torch.tensor([[1.0, -1.0], [-1.0, 1.0]]):
    assert f.std((1, 2)).max() < 0.05 * f.abs().max()  # a checkerboard
    assert f.mean((1, 2)).min() < 0 < f.mean((1, 2)).max()  # colours
# sphinx_gallery_end_ignore


# %%
# The eigenvalues, the patches' variances along each direction, span
# orders of magnitude (their ratio is printed); whitening evens them out.
# The two smallest belong to 2x2 checkerboards whose colour channels
# have opposite signs: fine colour detail, which the JPEG copy's lossy
# compression may have thinned out further.
#
# **GELU** (airbench's choice): ``x * Φ(x)``, where ``Φ(x)`` is the
# chance that a standard normal value falls below ``x``. Like ReLU it
# passes large positive inputs almost unchanged and nearly stops very
# negative ones, but it bends smoothly, and negative inputs come out
# slightly below zero (lowest about -0.17, near -0.75):
import pandas as pd

points = torch.tensor([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
gelu = nn.functional.gelu(points)
shapes = pd.DataFrame({"x": points, "ReLU": points.relu(), "GELU": gelu})
print(shapes.set_index("x").T.round(3))


# %%
# In our tuning runs of the bf16 schedule on the validation split (two
# seeds each, not shown on this page), GELU instead of ReLU scored about
# 0.4 points higher on average, about as much as single runs vary; its
# steps took about 8 per cent longer.
#
# **conv, pool, BN, GELU** (Page): pooling right after a block's first
# convolution leaves batch norm and GELU a quarter of the values, for the
# same convolution FLOPs. **Dirac initialization**
# (:func:`torch.nn.init.dirac_`): the first ``c_in`` filters of each
# convolution start as identities: a fresh convolution's first ``c_in``
# output channels copy its input channels. **Frozen batch-norm scales**
# (airbench): only the shifts train, so each channel reaches the GELU with
# a spread of about 1 and a learned offset. With ReLU that loses nothing,
# since the next layer can rescale; with GELU a scale would move a channel
# along the curve, so freezing does restrict the network. airbench
# freezes them all the same; we did not measure the difference.
#
# Test-time augmentation
# ~~~~~~~~~~~~~~~~~~~~~~
# ``predict`` adds to each image's scores those of its mirror image, and
# those of the image and its mirror each moved one pixel up-left and one
# down-right (these four at half weight): six forward passes per image
# instead of one.
@torch.inference_mode()
def predict(net, images, size):
    net.eval()
    out = []
    with torch.autocast(device.type, torch.bfloat16, enabled=use_bf16):
        for batch in v2.functional.resize(images, [size, size]).split(500):
            x = normalize(batch)
            scores = net(x).float() + net(x.flip(-1)).float()
            pad = nn.functional.pad(x, (1, 1, 1, 1), mode="reflect")
            for v in (pad[..., :-2, :-2], pad[..., 2:, 2:]):  # shifted
                scores += (net(v).float() + net(v.flip(-1)).float()) / 2
            out.append(scores.argmax(1))
    return torch.cat(out)


def validate_views(net, size):  # six views
    return (predict(net, x_val, size) == y_val).float().mean().item()


six_views = validate_views(model, SIZES[-1])
print(f"six views: validation accuracy {six_views:.2%}")

# %%
# What each trick buys
# ~~~~~~~~~~~~~~~~~~~~
# Each row adds one trick to the row above, from the plain recipe on, and
# starts from the same random state (the same initial weights, batches and
# flips), so rows differ by their tricks only. To keep this cheap, every
# row trains for only ``ROW_STEPS`` steps (about a fifth of an epoch):
# accuracies far below the whole recipe's, and a trick's gain here is not
# its gain in a longer run. The last row scores the network of the row
# above it in six views. Each row is timed from its first step, so a short
# untimed run first pays the plain row's one-off set-up costs.
ROW_STEPS, rows = 32, {}
recipe = dict(sizes=(32,), one_cycle=False, groups=False, flips=False,
              smoothing=0.0, layout=torch.contiguous_format)  # fmt: skip
tricks = [("plain", {}), ("channels_last", {"layout": torch.channels_last}),
          ("progressive resizing", {"sizes": (20, 24, 28)}),
          ("one-cycle rate", {"one_cycle": True}),
          ("weight-decay groups", {"groups": True}),
          ("label smoothing", {"smoothing": 0.2}),
          ("flips", {"flips": True})]  # fmt: skip
train(5, **recipe)  # the untimed warm-up
for name, change in tricks:
    recipe |= change
    torch.manual_seed(1)  # the same draws for every row, on every device
    net, seconds = train(ROW_STEPS, **recipe)
    rows[name] = validate(net, recipe["sizes"][-1]), seconds
rows["six views"] = validate_views(net, 28), seconds
table = pd.DataFrame(rows, index=["validation", "training s"]).T
table.insert(1, "gain", table["validation"].diff().fillna(0))
table["time"] = table["training s"].pct_change().fillna(0)  # vs. above
print(f"{ROW_STEPS} steps of {BATCH} images per row, {device.type}, "
      f"{precision}:")  # fmt: skip
print(table.to_string(formatters={"validation": "{:.1%}".format,
      "gain": "{:+.1%}".format, "training s": "{:.1f}".format,
      "time": "{:+.0%}".format}))  # fmt: skip

# sphinx_gallery_start_ignore
assert table["gain"].idxmax() == "one-cycle rate"
assert 0.17 < ROW_STEPS * BATCH / len(y_train) < 0.23  # "about a fifth"
assert table["validation"].between(0.35, 0.55).all()  # "near 45%"
assert table["validation"].iloc[-1] > table["validation"].iloc[0] + 0.02
# sphinx_gallery_end_ignore

# %%
# Read it from the top; each row includes the ones above it; ``time`` is
# a row's training seconds against the row above. ``channels_last`` and
# progressive resizing are there for speed; what they save depends on
# the device, and their ``time`` says what they saved on this one
# (resizing also shows smaller images, which can cost accuracy). The
# one-cycle row buys the most; it changes three things at once (a peak of
# 0.8 instead of a constant 0.1, a warm-up, an end near zero), and the
# table cannot say which of them pays. The groups and label smoothing
# change no work per step; flips add a select over each batch; whether
# they pay at this budget is in their rows. Six views cost six forward
# passes per image, at prediction only (its row repeats the training
# seconds of the row above). Each row is one run, scored on 5,000
# images: one accuracy near 45% has a standard error of about 0.7 points,
# so treat gaps under about two points as noise, and timing gaps under
# about ten per cent too: in our runs, rows that add no work to a step
# timed that far apart.
#
# Testing once
# ~~~~~~~~~~~~
# Only now do we load the test set, and the whole recipe's network, in six
# views, meets it once.
x_test, y_test = (t.to(device) for t in load_split(train=False))
correct = (predict(model, x_test, SIZES[-1]) == y_test).sum().item()
print(f"Test accuracy: {correct} of {len(y_test)} = {correct / 100:.2f}%")

# sphinx_gallery_start_ignore
assert torch.bincount(y_test).eq(1000).all() and len(y_test) == 10_000
assert correct >= 7_900
assert abs(correct / 10_000 - six_views) < 0.015  # "close"
# sphinx_gallery_end_ignore

# %%
# The test accuracy lands close to the six-view validation accuracy. Both
# estimate the same thing, but the recipe was tuned on validation, so its
# figure can read a little high.
#
# Where the time goes
# ~~~~~~~~~~~~~~~~~~~
# Five set-ups, timed, all in float32 (cuDNN on recent NVIDIA GPUs runs
# float32 convolutions in TF32 by default). The first is the classic
# recipe: a PIL image per item (``ImageFolder`` decodes a JPEG file,
# ``CIFAR10`` wraps an array), ``v2`` transforms per image, batches of
# four, the LeNet of :ref:`sphx_glr_lessons_nn_05_classic_cnn.py`. Row two
# loads from memory; each later row changes one thing; the last two train
# our network. ``FlopCounterMode`` counts the convolution and matrix FLOPs
# of one training step per image: ``MFLOP x images/s / 1000`` is GFLOP/s.
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
# Random batches from memory; all but the first three steps are timed.
def in_memory(batch_size, layout=torch.contiguous_format):
    while True:
        i = torch.randint(len(y_train), (batch_size,), device=device)
        x = normalize(x_train[i]).contiguous(memory_format=layout)
        yield x, y_train[i]


def images_per_second(model, batches, steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for k, (x, y) in zip(range(3 + steps), batches):
        loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if k == 2:
            loss.item()  # waits for the warm-up to finish
            start = time.perf_counter()
    loss.item()  # waits for the device to finish
    return steps * len(y) / (time.perf_counter() - start)


# %%
# The set-ups, each with a fresh network:
from torch.utils.data import DataLoader

per_image = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])
if jpeg_dir is not None:
    classic = datasets.ImageFolder(jpeg_dir / "train", transform=per_image)
else:
    classic = datasets.CIFAR10(cache, transform=per_image)
loader = DataLoader(classic, batch_size=4, shuffle=True)
cl = torch.channels_last
setups = {
    "classic: PIL, batch 4": (lenet, iter(loader), 100),
    "decoded in memory, batch 4": (lenet, in_memory(4), 100),
    "decoded in memory, batch 128": (lenet, in_memory(128), 20),
    "our network, batch 128": (fast_net, in_memory(128), 8),
    "our network, channels_last": (fast_net, in_memory(128, cl), 8),
}  # fmt: skip
speeds = {}
for name, (make, batches_, steps_) in setups.items():
    layout = cl if name.endswith("channels_last") else torch.contiguous_format
    model = make().to(device, memory_format=layout)
    speed = images_per_second(model, batches_, steps_)
    speeds[name] = {"MFLOP/image": mflop(model), "images/s": speed}

# %%
# A ceiling to compare with: one large convolution (256 to 256 channels,
# 3x3, 64 images of 16x16, ``channels_last``, forward only), the kind of
# work the same library (oneDNN on a CPU, cuDNN on NVIDIA) does best: a
# warm-up call, then three timed calls, each waiting for the device; the
# median counts.
import statistics


def conv_gflops(dtype):
    x = torch.randn(64, 256, 16, 16, device=device, dtype=dtype)
    weight = torch.randn(256, 256, 3, 3, device=device, dtype=dtype)
    x, weight = x.to(memory_format=cl), weight.to(memory_format=cl)
    flops = 2 * 64 * 256 * 16 * 16 * 256 * 9
    times = []
    for _ in range(4):  # the first is the warm-up
        start = time.perf_counter()
        nn.functional.conv2d(x, weight, padding=1).sum().item()
        times.append(time.perf_counter() - start)
    return flops / statistics.median(times[1:]) / 1e9


# %%
# The table and the ceiling, in float32 (and bf16 where we train in it),
# the label naming TF32 where the GPU uses it:
import matplotlib.pyplot as plt

float32 = "float32"
if device.type == "cuda" and torch.version.cuda:  # NVIDIA, not AMD's ROCm
    if torch.cuda.get_device_capability() >= (8, 0):  # Ampere or newer
        float32 = "float32 (TF32 convolutions)"

table = pd.DataFrame(speeds).T
table["GFLOP/s"] = table["MFLOP/image"] * table["images/s"] / 1000
print(table.round(1).to_string())
ceiling = conv_gflops(torch.float32)
print(f"large convolution, {float32}: {ceiling:.0f} GFLOP/s (median of 3)")
if use_bf16:
    print(
        f"large convolution, bf16: {conv_gflops(torch.bfloat16):.0f} GFLOP/s"
    )

# %%
# The same rows as bars, the dashed line at the large convolution:
fig, ax = plt.subplots(figsize=(7, 3), layout="constrained")
ax.barh(table.index[::-1], table["GFLOP/s"][::-1])
ax.axvline(ceiling, color="k", ls="--", label="large convolution")
ax.set(xscale="log", xlabel="GFLOP/s", title=f"Training on {device.type}")
ax.legend(loc="lower right")
plt.show()

# %%
# What each change does (short timings vary from run to run: trust large
# gaps, not digits):
#
# * **Decoding once** makes a batch one indexing operation, where the
#   classic loader makes a PIL image of each item and converts it, one at
#   a time, in every epoch. What that saves depends on how long the
#   model's own step takes: with batches of four, a step's fixed costs
#   can hide it (compare rows one and two on this device).
# * **Large batches** spread the fixed cost of a step (Python, launching
#   kernels, the optimizer update) over 128 images instead of 4, and give
#   each convolution more work to spread over the cores.
# * **channels_last**: whether convolutions gain from it depends on the
#   device, layer sizes and version (compare the last two rows).
#
# Our network stays below the ceiling: a training step also runs batch
# norm, GELU, pooling, the loss and the optimizer, which the FLOP count
# leaves out, on small images; and every step pays fixed costs (Python,
# launching each operation), which weigh the more, the faster the device
# does the arithmetic. The distance to the ceiling bounds what a faster
# implementation could win. (A float32 matrix product ``a @ b`` is
# no fair ceiling on an x86 CPU: PyTorch sends it to MKL, which on some
# processors, such as AMD's, runs a slower code path than oneDNN's
# convolutions.)
#
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``torch.cpu.amp.autocast()`` and ``torch.cuda.amp.autocast()``:
#      deprecated; ``torch.autocast(device.type, dtype)`` is one API for
#      every device.
#    - ``transforms.ToTensor()``: in ``torchvision.transforms.v2`` it is
#      ``ToImage()`` then ``ToDtype(torch.float32, scale=True)``, which
#      says the dtype and the scaling.
#    - ``scheduler.step(epoch)``: passing the epoch is deprecated; call
#      ``scheduler.step()`` as often as before (once per epoch for an
#      epoch-based schedule, once per optimizer step for ``OneCycleLR``,
#      as here) and let the scheduler count.

# %%
# Takeaways
# ---------
# - Keep a small dataset in memory as ``uint8`` tensors, on the device
#   that trains: a batch becomes one indexing operation.
# - Measure what each trick buys on a validation split, at a fixed budget,
#   and what it costs in seconds; the one-cycle rate buys the most in a
#   short run.
# - Time each trick on the device you train on: what ``channels_last``
#   and smaller images save depends on it.
# - Train in bf16 only where the device computes it natively, say which
#   path ran, and ``.float()`` a bf16 tensor before ``.numpy()``.
# - Choose on validation; read the test set once, at the end.
#
# Next, :ref:`sphx_glr_lessons_advanced_06_graphs_today.py` compiles a
# model with ``torch.compile``, another way to make each step faster. If
# you have not read it yet,
# :ref:`sphx_glr_lessons_advanced_10_text_language_of_a_word.py`
# classifies words with recurrent networks.
