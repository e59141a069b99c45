"""
Watching and debugging a training run
=====================================

Training rarely works the first time. This lesson trains a small network on
real CIFAR-10 photos and does two things a practitioner does every day:
it *watches* the run (logs the loss, the accuracy, histograms of weights
and gradients and a grid of photos with TensorBoard, then reads the log
back), and it *debugs* it: it looks inside ``forward``, traces a NaN to the
operation that made it, finds and tames exploding gradients, and reads the
four errors every learner meets, one line at a time.

**You will learn** to log a run with ``SummaryWriter`` and read the log
back, to open TensorBoard, to print the shapes flowing through a model, to
stop inside ``forward`` with ``breakpoint()``, to find the operation that
produced a NaN with ``torch.autograd.detect_anomaly``, to spot exploding
gradients from their norms and clip them with ``clip_grad_norm_``, and to
read the shape, device, dtype and freed-graph errors.

**You need first** the training loop and the CIFAR-10 photos of
:ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`. Forward hooks are
explained here again in two lines; :ref:`sphx_glr_lessons_nn_08_hooks.py`
covers them in depth.
"""

# %%
# Setup
# -----
# One seed for the whole lesson; ``device`` is an accelerator (CUDA, MPS,
# XPU) if there is one, else the CPU.
import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
if torch.accelerator.is_available():
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["intermediate", "debugging", "tensorboard", "vision"]

# %%
# A slice of CIFAR-10
# -------------------
# The photos of :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`, from
# the same places: the offline JPEG copy that the environment variable
# ``PBE_DATA_DIR`` may name (`pooch <https://www.fatiando.org/pooch/>`_
# checks its SHA-256 hash and unpacks it once, into this lesson's own
# folder), else torchvision's download; with neither, the lesson stops. A
# slice is enough to watch a run: the first 500 training photos of each
# class, as ``uint8`` tensors.
import pooch
from torchvision import datasets
from torchvision.transforms.functional import pil_to_tensor

SHA256 = "ad20075fc5d761cb1545aa313752ecc67cdb288bc8d01abc2128e7de0ddfedb5"


def cifar10_slice(per_class):
    """The first ``per_class`` training photos of each class, and labels."""
    cache = pooch.os_cache("pytorch-by-example")  # a per-user cache folder
    jpeg_copy = pooch.create(
        path=cache,
        base_url="",  # never downloaded: an offline copy is only read
        env="PBE_DATA_DIR",  # when set, pooch looks in that folder instead
        registry={"cifar10-jpeg.zip": f"sha256:{SHA256}"},
        allow_updates=False,  # a copy with another hash stops the lesson
    )
    if (jpeg_copy.abspath / "cifar10-jpeg.zip").is_file():
        folder = cache / "cifar10-jpeg-nn09"  # this lesson's own folder
        jpeg_copy.fetch(
            "cifar10-jpeg.zip", processor=pooch.Unzip(extract_dir=folder)
        )
        train = datasets.ImageFolder(folder / "train", transform=pil_to_tensor)
        print(
            "Using the JPEG copy of CIFAR-10 (lossy: pixels differ slightly)"
        )
    else:
        try:
            train = datasets.CIFAR10(
                cache, download=True, transform=pil_to_tensor
            )
        except OSError as err:  # no network, or the server refused
            raise RuntimeError(
                "offline: connect, or set PBE_DATA_DIR"
            ) from err
        print("Using the original CIFAR-10, downloaded by torchvision")
    labels = torch.tensor(train.targets)
    keep = [torch.nonzero(labels == c)[:per_class, 0] for c in range(10)]
    keep = torch.cat(keep)
    return torch.stack([train[i][0] for i in keep]), labels[keep]


# %%
# 4,000 photos train the network and 1,000 others, drawn at random, measure
# it: a **validation set**. Nothing is tuned on this page, so the test photos
# stay unread.
photos, labels = cifar10_slice(per_class=500)
order = torch.randperm(len(labels))
x_val, y_val = photos[order[:1000]], labels[order[:1000]]
x_train, y_train = photos[order[1000:]], labels[order[1000:]]
print(f"train {tuple(x_train.shape)} {x_train.dtype}, validation {len(y_val)}")
# sphinx_gallery_start_ignore
assert torch.equal(torch.bincount(labels), torch.full((10,), 500))
# sphinx_gallery_end_ignore

# %%
# A small network and its training pieces
# ---------------------------------------
# One convolution, a max pool that keeps a quarter of each side, and a
# linear layer: small enough to train in seconds. ``to_input`` turns bytes
# into floats in ``[0, 1]`` on the device; ``accuracy`` switches to
# evaluation mode and counts right answers on the validation photos.


def small_cnn():
    return nn.Sequential(
        nn.Conv2d(3, 16, kernel_size=5, padding=2),  # (N, 16, 32, 32)
        nn.ReLU(),
        nn.MaxPool2d(4),  # (N, 16, 8, 8)
        nn.Flatten(),  # (N, 1024)
        nn.Linear(16 * 8 * 8, 10),
    ).to(device)


def to_input(batch):
    return batch.to(device).float() / 255


def accuracy(model, prepare=to_input):
    model.eval()
    with torch.no_grad():
        predicted = model(prepare(x_val)).argmax(dim=1)
    model.train()
    return (predicted.cpu() == y_val).float().mean().item()


# %%
# Watching a run with TensorBoard
# -------------------------------
# **TensorBoard** is a viewer for training logs. PyTorch writes the logs
# with :class:`~torch.utils.tensorboard.writer.SummaryWriter` (it needs the
# ``tensorboard`` package installed): each ``add_...`` call appends a
# record, tagged with a name and a **step** (the x-axis), to an *event file*
# in the writer's folder. Here the folder is a temporary one. First, a
# grid of 16 training photos, made with
# :func:`torchvision.utils.make_grid`:
import tempfile
from pathlib import Path

from torch.utils.tensorboard import SummaryWriter
from torchvision.utils import make_grid

tmp = tempfile.TemporaryDirectory()  # deleted at the end of this section
log_dir = Path(tmp.name) / "runs" / "small_cnn"
writer = SummaryWriter(log_dir)
grid = make_grid(x_train[:16], nrow=8, padding=1)  # (3, H, W), uint8
writer.add_image("photos", grid, global_step=0)
print(f"grid {tuple(grid.shape)}, written to {log_dir.relative_to(tmp.name)}")

# %%
# Then three epochs of plain training. Every step logs the loss and the
# **gradient norm**, the length of all gradients put together into one
# vector, ``sqrt(sum of squares)`` (``nn.utils.get_total_norm`` computes
# it); every epoch logs the validation accuracy and a histogram of each
# layer's weights and of their last gradients.
model = small_cnn()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
logged = {"loss": [], "accuracy": []}  # kept to compare with the log
step = 0
for epoch in range(3):
    for batch in torch.randperm(len(y_train)).split(100):
        loss = F.cross_entropy(model(to_input(x_train[batch])), y_train[batch])
        optimizer.zero_grad()
        loss.backward()
        grads = [p.grad for p in model.parameters()]
        writer.add_scalar("grad_norm", nn.utils.get_total_norm(grads), step)
        optimizer.step()
        writer.add_scalar("loss/train", loss.item(), step)
        logged["loss"].append(loss.item())
        step += 1
    logged["accuracy"].append(accuracy(model))
    writer.add_scalar("accuracy/validation", logged["accuracy"][-1], step)
    for name, p in model.named_parameters():
        writer.add_histogram(f"weights/{name}", p, step)
        writer.add_histogram(f"grads/{name}", p.grad, step)
writer.close()  # writes what is still buffered
accuracies = ", ".join(f"{a:.3f}" for a in logged["accuracy"])
print(f"{step} steps; validation accuracy after each epoch: {accuracies}")

# %%
# Accuracy rises from one epoch to the next, which is all a quick look at
# the prints can say. The log holds more: every step's loss and gradient
# norm, and the histograms.
#
# Reading the log back
# --------------------
# The ``tensorboard`` package reads its own files:
# ``EventAccumulator`` loads every event file in a folder and serves the
# records by tag. ``size_guidance`` says how many records of a kind to keep
# (``0``: all; by default it keeps only one histogram per tag).
from tensorboard.backend.event_processing.event_accumulator import (
    EventAccumulator,
)

run = EventAccumulator(
    str(log_dir), size_guidance={"scalars": 0, "histograms": 0, "images": 0}
)
run.Reload()  # reads the event files
tags = run.Tags()
print(f"scalars: {tags['scalars']}")
print(f"histograms: {tags['histograms']}")
print(f"images: {tags['images']}")
loss_log = run.Scalars("loss/train")
print(f"first loss record: step {loss_log[0].step}, ", end="")
print(f"value {loss_log[0].value:.4f}; {len(loss_log)} records")
# sphinx_gallery_start_ignore
assert len(loss_log) == step == 120
# the log holds what was logged, rounded to float32 as TensorBoard stores it
assert [e.value for e in loss_log] == torch.tensor(logged["loss"]).tolist()
assert [e.step for e in loss_log] == list(range(step))
read_acc = [e.value for e in run.Scalars("accuracy/validation")]
assert read_acc == torch.tensor(logged["accuracy"]).tolist()
assert logged["accuracy"] == sorted(logged["accuracy"])
assert logged["accuracy"][-1] > 0.25  # well above chance (0.10)
# sphinx_gallery_end_ignore

# %%
# Each record is a ``ScalarEvent``: the ``step`` it was logged at, its
# ``value`` (stored as a 32-bit float) and the wall-clock time. The scalars
# read back, plotted the way TensorBoard's "Scalars" tab shows them:
import matplotlib.pyplot as plt

fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(9, 3.2))
ax_loss.plot([e.step for e in loss_log], [e.value for e in loss_log])
ax_loss.set(xlabel="step", ylabel="training loss", title="loss/train")
acc_log = run.Scalars("accuracy/validation")
ax_acc.plot([e.step for e in acc_log], [e.value for e in acc_log], "o-")
ax_acc.set(xlabel="step", ylabel="accuracy", title="accuracy/validation")
fig.tight_layout()
plt.show()

# %%
# The training loss is noisy from batch to batch (each is 100 photos) but
# falls; validation accuracy rises at each epoch's end. A histogram record
# keeps the bucket edges and counts; here are the first layer's weights and
# their gradients, one curve per logged epoch:
fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
for ax, kind in zip(axes, ["weights", "grads"]):
    for event in run.Histograms(f"{kind}/0.weight"):
        h = event.histogram_value
        ax.stairs(
            h.bucket, [h.min, *h.bucket_limit], label=f"step {event.step}"
        )
    ax.set(xlabel="value", ylabel="count", title=f"{kind}/0.weight")
axes[0].legend()
fig.tight_layout()
plt.show()

# %%
# The weights spread out a little as they learn; the gradients stay centred
# on 0, a few hundredths wide. A layer whose gradient histogram is a spike at
# 0 has stopped learning; one that widens from epoch to epoch is a warning
# sign (see exploding gradients below). Last, the image record is a PNG
# file's bytes, which matplotlib reads:
import io

image = run.Images("photos")[0]
png = plt.imread(io.BytesIO(image.encoded_image_string))
print(f"image record: {image.width}x{image.height} pixels, step {image.step}")
plt.figure(figsize=(8, 2.2))
plt.imshow(png)
plt.axis("off")
plt.title("photos, read back from the event file")
plt.show()
tmp.cleanup()  # the log is gone from here on
# sphinx_gallery_start_ignore
assert (image.width, image.height) == (grid.shape[2], grid.shape[1])
torch.testing.assert_close(
    torch.from_numpy(png[..., :3]).permute(2, 0, 1),
    grid.float() / 255,
    atol=1 / 255,
    rtol=0,
)
# sphinx_gallery_end_ignore

# %%
# Opening TensorBoard
# ~~~~~~~~~~~~~~~~~~~
# The build of this page ran no TensorBoard server, so it shows no
# screenshot of one. To look at your own runs, give ``SummaryWriter`` a
# folder you keep (with no folder it writes to ``runs/<date>_<host>``),
# then start the viewer from a terminal and open http://localhost:6006 in a
# browser:
#
# .. code-block:: bash
#
#    tensorboard --logdir runs
#
# In a Jupyter or Colab notebook, two magic commands show it inside the
# notebook:
#
# .. code-block:: text
#
#    %load_ext tensorboard
#    %tensorboard --logdir runs
#
# Each sub-folder of ``runs`` is one run, and TensorBoard draws runs side by
# side: a new folder per experiment makes them easy to compare. Its
# "Scalars", "Histograms" and "Images" tabs show what this page plotted by
# hand.


# %%
# Debugging eager code
# --------------------
# PyTorch runs your Python line by line ("eager" execution): every tool of
# Python debugging works inside a model.
#
# Shapes with a forward hook
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# Most bugs are shape bugs. A **forward hook** is a function PyTorch calls
# right after a module's ``forward``, with the module, its inputs and its
# output; ``register_forward_hook`` returns a handle whose ``remove()``
# takes it off. One hook on every layer prints the shapes of a batch of 4:
def print_shapes(module, args, output):
    print(f"{type(module).__name__:>9}: ", end="")
    print(f"{tuple(args[0].shape)} -> {tuple(output.shape)}")


handles = [layer.register_forward_hook(print_shapes) for layer in model]
with torch.no_grad():
    model(to_input(x_val[:4]))
for handle in handles:
    handle.remove()

# %%
# Each line is one layer, in the order they ran: the convolution keeps the
# 32x32 size and makes 16 channels, the pool divides each side by 4, and
# ``Flatten`` turns each photo's ``16 * 8 * 8`` numbers into the 1024 the
# linear layer expects.
#
# Stopping inside ``forward``
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Because ``forward`` is plain Python, Python's debugger can stop in it.
# Put ``breakpoint()`` on the line you want to inspect (the page does not
# run this: a build cannot type at a prompt):
#
# .. code-block:: python
#
#    class Net(nn.Module):
#        def forward(self, x):
#            x = self.features(x)
#            breakpoint()  # execution stops here, in pdb
#            return self.head(x)
#
# At the ``(Pdb)`` prompt, ``p x.shape`` prints a value, ``n`` runs the
# next line, ``s`` steps into a call, ``c`` continues and ``q`` quits.
# Jupyter shows the same prompt under the cell. Setting the environment
# variable ``PYTHONBREAKPOINT=0`` turns every ``breakpoint()`` into a no-op,
# so a forgotten one does not stop a long run.


# %%
# A NaN, traced to its operation
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A single NaN ("not a number") in a gradient spreads to every weight it
# updates, and from then on the loss is NaN too. A classic source: this
# "safe" square root, meant to give 0 for inputs that are not positive. Its
# output is fine; its gradient is not.
def safe_sqrt(x):
    return torch.where(x > 0, torch.sqrt(x), 0.0)


x = torch.tensor([4.0, 0.0, -1.0], requires_grad=True)
safe_sqrt(x).sum().backward()
print(f"output {safe_sqrt(x).tolist()}, gradient {x.grad.tolist()}")
# sphinx_gallery_start_ignore
assert math.isnan(x.grad[1]) and math.isnan(x.grad[2])
assert not safe_sqrt(x).isnan().any()
# sphinx_gallery_end_ignore

# %%
# The NaN never shows in the output, so printing outputs will not find it.
# Inside the context manager ``torch.autograd.detect_anomaly()``, autograd
# checks every backward function's result and raises at the first that
# returns NaN. It also warns twice: once that the mode is on (it is slow:
# use it only to debug), and once with the line of the forward pass that
# created the failing operation.
import warnings

x.grad = None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        loss = safe_sqrt(x).sum()
        try:
            loss.backward()
        except RuntimeError as err:
            report = str(err)
            print(f"raised RuntimeError: {report}")
        # sphinx_gallery_start_ignore
        else:
            raise AssertionError("anomaly mode should have raised")
        # sphinx_gallery_end_ignore
for w in caught:
    lines = str(w.message).splitlines()
    print(f"warned {w.category.__name__}: {lines[0]}")
code = [ln.strip() for ln in lines if ln.startswith("    ")]  # source lines
print(f"    the forward line: {code[-1]}")
# sphinx_gallery_start_ignore
assert [w.category for w in caught] == [UserWarning, UserWarning]
assert "'SqrtBackward0' returned nan" in report
assert "Error detected in SqrtBackward0" in lines[0]
assert code[-1] == "return torch.where(x > 0, torch.sqrt(x), 0.0)"
# sphinx_gallery_end_ignore


# %%
# Read the report from the top. ``Function 'SqrtBackward0'`` is the backward
# of ``torch.sqrt`` (autograd names each backward function after its
# operation); ``returned nan values in its 0th output`` means the gradient
# it passed back, toward ``x``, holds NaN. The second warning names the
# forward line that called ``torch.sqrt``. Why: ``torch.where`` keeps the
# zeros in the output, but backward still runs through *both* branches, and
# the square root's slope at 0 is infinite and at -1 is NaN; the zero that
# ``where`` sends back, times either, is NaN. The fix keeps unsafe values
# away from ``sqrt`` itself:
def safe_sqrt_fixed(x):
    positive = x > 0
    return torch.where(
        positive, torch.sqrt(torch.where(positive, x, 1.0)), 0.0
    )


x.grad = None
safe_sqrt_fixed(x).sum().backward()
print(f"output {safe_sqrt_fixed(x).tolist()}, gradient {x.grad.tolist()}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(x.grad, torch.tensor([0.25, 0.0, 0.0]))
# sphinx_gallery_end_ignore


# %%
# Exploding gradients, found and clipped
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A common slip: a loss *summed* over the batch (``reduction="sum"``, or a
# hand-written ``.sum()``) where the optimizer's learning rate was chosen
# for the mean. Every gradient comes out 100 times too large (the batch
# size), and so does every step. ``train_one_epoch`` below runs one epoch
# with that bug and records each step's gradient norm, measured by
# ``nn.utils.clip_grad_norm_``: it computes the total norm of the
# gradients, scales them all down by one factor if that norm is above
# ``max_norm``, and returns the norm from before the scaling. With
# ``max_norm=math.inf`` it only measures.
def train_one_epoch(max_norm):
    torch.manual_seed(1)  # the same start and batches for each call
    model = small_cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses, norms = [], []
    for batch in torch.randperm(len(y_train)).split(100):
        logits = model(to_input(x_train[batch]))
        loss = F.cross_entropy(logits, y_train[batch], reduction="sum")  # bug
        optimizer.zero_grad()
        loss.backward()
        norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        losses.append(loss.item() / len(batch))  # the mean, to compare
        norms.append(norm.item())
    return losses, norms, accuracy(model)


# %%
# One run without clipping, one that clips the gradient norm to 1:
losses, norms, acc = train_one_epoch(max_norm=math.inf)
print(f"not clipped: gradient norms {[f'{n:.3g}' for n in norms[:4]]} ...")
print(f"  largest mean loss {max(losses):.3g}; validation accuracy {acc:.3f}")
losses_c, norms_c, acc_c = train_one_epoch(max_norm=1.0)
print(f"clipped to 1: gradient norms {[f'{n:.3g}' for n in norms_c[:4]]} ...")
print(
    f"  largest mean loss {max(losses_c):.3g}; validation accuracy {acc_c:.3f}"
)
# sphinx_gallery_start_ignore
assert max(norms[:5]) > 1000  # an explosion in the first steps
assert max(losses) > 5 * losses[0]
assert acc < 0.15  # about as good as guessing (0.10)
assert max(losses_c) < 1.1 * losses_c[0]
assert acc_c > acc + 0.1
assert min(norms_c) > 10  # the cause is still there
# sphinx_gallery_end_ignore

# %%
# Without clipping, the norm passes a thousand within a few steps, one huge
# update throws the weights far away, the loss jumps, and the network ends
# about as good as guessing (10% on ten classes). With clipping, no step
# moves the weights by more than the learning rate times ``max_norm`` (plus
# momentum); the loss never rises above its start, and after one epoch the
# accuracy is close to that of the watched run's first epoch. The norms,
# with the watched run's read back from its log:
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.semilogy(norms, label="summed loss, not clipped")
ax.semilogy(norms_c, label="summed loss, clipped to 1 (norm before clipping)")
watched = [e.value for e in run.Scalars("grad_norm")][: len(norms)]
ax.semilogy(watched, label="mean loss (the watched run)")
ax.set(xlabel="step", ylabel="gradient norm")
ax.legend()
plt.show()

# %%
# Clipping saved the run, but the norm before clipping stays around a
# hundred times the watched run's: the cause is still there, and the plot
# shows it. So: log the gradient norm, clip as a safety net (a ``max_norm``
# of about 1 is a common start), and when the norm is large, look for the
# cause: a summed loss, unscaled inputs (pixels 0 to 255), a learning rate
# too high.
#
# The four errors every learner meets
# -----------------------------------
# Each error below is raised on purpose and read line by line. **A shape
# mismatch in ``Linear``**: the network without its ``Flatten``.
no_flatten = nn.Sequential(*list(model)[:3], model[4])  # Flatten left out
try:
    no_flatten(to_input(x_val[:4]))
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("the Linear layer should have refused the shape")
# sphinx_gallery_end_ignore

# %%
# ``mat1`` is the input to ``Linear`` and ``mat2`` its weight, transposed to
# ``(in_features, out_features)`` = ``1024x10``. ``Linear`` works on the
# *last* dimension and treats all others as a batch, so the pooled
# ``(4, 16, 8, 8)`` tensor arrived as ``4 * 16 * 8 = 512`` rows of 8
# numbers: ``512x8``. The two inner numbers, 8 and 1024, must be equal.
# Fix: flatten each sample, ``x.flatten(1)`` or ``nn.Flatten()``.
#
# **Tensors on two devices.** An operation needs all its tensors on one
# device. On an accelerator, the page puts the model there and leaves the
# input on the CPU; without one, it uses PyTorch's ``meta`` device
# (tensors with a shape and no data) as the second device.
other = device if device.type != "cpu" else torch.device("meta")
head = nn.Linear(1024, 10).to(other)
try:
    head(torch.ones(4, 1024))  # made on the CPU
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("mixing devices should have failed")
# sphinx_gallery_end_ignore

# %%
# The message names both devices. On the ``meta`` path it reads "Tensor
# on device meta" (the layer's weight) "is not on the expected device
# cpu" (where the input is); on a CUDA GPU the same mistake raises a
# message that begins "Expected all tensors to be on the same device" and
# names the two. Fix: move the batch where the model
# is, ``x.to(device)``, as ``to_input`` does; build the model, move it,
# then create the optimizer.
#
# **Double vs Float.** Dividing in NumPy gives 64-bit floats ("double");
# the model's weights are 32-bit ("float").
pixels = x_val[:4].numpy() / 255  # NumPy: uint8 / int -> float64
try:
    model(torch.from_numpy(pixels).to(device))
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("a float64 input should have failed")
# sphinx_gallery_end_ignore

# %%
# The convolution compared its input's type, ``double``
# (``torch.float64``), with its bias's, ``float`` (``torch.float32``): a
# layer does not convert between them silently (a ``Linear`` layer says
# "mat1 and mat2 must have the same dtype, but got Double and Float"). Fix: ``torch.from_numpy(pixels).float()``, or
# divide after converting, as ``to_input`` does.
#
# **Backward through a freed graph.** ``backward`` frees the values the
# graph saved for it, so a second ``backward`` through the same graph fails:
loss = F.cross_entropy(model(to_input(x_val[:4])), y_val[:4].to(device))
loss.backward()
try:
    loss.backward()  # for example, to look at the gradients again
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("a second backward should have failed")
# sphinx_gallery_end_ignore
model.zero_grad()

# %%
# "Trying to backward through the graph a second time": the first
# ``backward`` already ran, and "saved intermediate values ... are freed"
# says why the second cannot: the values each backward function needs were
# thrown away to save memory. The usual cause is reusing a tensor across
# steps (a loss summed over batches, a hidden state carried over): compute
# a fresh forward pass for each ``backward``, or ``.detach()`` what is
# carried over. ``retain_graph=True``, which the message offers, is for the
# rare case when you really need two backward passes through one graph.

# %%
# Going deeper
# ------------
# Optional on a first read.
#
# Errors that arrive late on a GPU
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A CUDA GPU runs kernels asynchronously: Python goes on while the GPU
# works, so an error inside a kernel (an index out of range, for example)
# can surface at a later line than the one that caused it. Setting the
# environment variable ``CUDA_LAUNCH_BLOCKING=1`` before starting Python
# makes every launch wait for its kernel, so the traceback points at the
# right line (see `CUDA semantics
# <https://docs.pytorch.org/docs/stable/notes/cuda.html>`_). It slows
# everything down: use it only to debug.
#
# TensorBoard and TensorFlow
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``tensorboard`` does not need TensorFlow. When TensorFlow is installed,
# though, TensorBoard uses it to read and write files, so the first
# ``SummaryWriter`` takes a few seconds longer, the time TensorFlow takes
# to import.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``from tensorboardX import SummaryWriter``: a separate package from
#      before PyTorch 1.1; ``torch.utils.tensorboard.SummaryWriter`` is
#      built in and takes the same calls.
#    - ``nn.utils.clip_grad_norm(...)`` without the trailing underscore:
#      deprecated; ``clip_grad_norm_`` (the underscore marks an in-place
#      change of the gradients) replaced it.

# %%
# Takeaways
# ---------
# - ``SummaryWriter`` logs scalars, histograms and images per step;
#   ``EventAccumulator`` reads them back, and ``tensorboard --logdir``
#   (or ``%tensorboard`` in a notebook) shows them.
# - A forward hook on every layer prints the shapes a batch takes;
#   ``breakpoint()`` stops inside ``forward``.
# - ``torch.autograd.detect_anomaly()`` names the backward function that
#   first returned NaN and the forward line that created it.
# - Log the gradient norm; ``clip_grad_norm_`` caps it, and a large norm
#   asks for its cause.
# - Read an error from its numbers: ``mat1``/``mat2`` shapes, the two
#   devices, Double and Float, a graph already freed.
#
# Next, :doc:`/further_reading` says where to go from here: the official
# tutorials, ``pytorch/examples``, free courses and books. Or read
# :ref:`sphx_glr_lessons_advanced_10_text_language_of_a_word.py`, a first
# network on real text.

# %%
# Exercises
# ---------
# **Exercise 1: gradient norms per parameter.** Write ``grad_norms(model)``,
# which returns a dict from each parameter's name (as
# ``model.named_parameters()`` gives it) to the L2 norm of its gradient,
# ``sqrt(sum of squares)``, for every parameter that has a gradient (a
# frozen parameter's ``.grad`` is ``None``: leave it out). Read the
# gradients only: leave them, and the model, as you found them. Run the
# cell: the check says whether your attempt is right. Solutions are at the
# end.


def check_exercise_1(fn):
    """Exercise 1's check: run it on your attempt."""
    gen = torch.Generator().manual_seed(11)
    net = torch.nn.Sequential(
        torch.nn.Linear(5, 7), torch.nn.Tanh(), torch.nn.Linear(7, 3)
    ).double()
    net[0].bias.requires_grad_(False)  # frozen: its .grad stays None
    x = torch.randn(6, 5, generator=gen, dtype=torch.float64)
    net(x).pow(2).sum().backward()
    net.eval()
    params = dict(net.named_parameters())
    saved = {
        n: p.grad.clone() for n, p in params.items() if p.grad is not None
    }
    out = fn(net)
    if out is Ellipsis:
        print("Exercise 1 not attempted yet: write the body of grad_norms")
        return
    for n, p in params.items():
        if (p.grad is None) != (n not in saved) or (
            p.grad is not None and not torch.equal(p.grad, saved[n])
        ):
            raise AssertionError(
                f"the gradient of {n} changed: read .grad, never change it"
            )
    if net.training or not params["0.weight"].requires_grad:
        raise AssertionError(
            "leave the model's mode and requires_grad as found"
        )
    if not isinstance(out, dict):
        raise AssertionError(
            f"expected a dict from names to norms, got {type(out).__name__}"
        )
    if "0.bias" in out:
        raise AssertionError(
            "0.bias is frozen (its .grad is None): leave it out"
        )
    if set(out) != set(saved):
        raise AssertionError(
            f"expected the keys {sorted(saved)} (the names that "
            f"model.named_parameters() gives), got {sorted(map(str, out))}"
        )
    for n, g in saved.items():
        try:
            got = float(out[n])
        except (TypeError, ValueError, RuntimeError):
            raise AssertionError(
                f"the norm of {n} should be a number or a one-element tensor, "
                f"got {type(out[n]).__name__}"
            ) from None
        want = g.norm().item()
        if math.isclose(got, want, rel_tol=1e-6):
            continue
        hints = [
            (want**2, "that is the squared norm: take its square root"),
            (params[n].norm().item(), "that is the norm of the weights"),
            (g.abs().max().item(), "that is the largest entry"),
            (g.abs().sum().item(), "that is the L1 norm (sum of |values|)"),
        ]
        hint = [h for v, h in hints if math.isclose(got, v, rel_tol=1e-6)]
        raise AssertionError(
            f"the gradient norm of {n} is {want:.6g}, got {got:.6g}"
            + "".join(f"; {h}" for h in hint[:1])
        )
    print("Exercise 1: correct")


def grad_norms(model):
    return ...  # replace ... with your code


check_exercise_1(grad_norms)

# %%
# **Exercise 2: one clipped training step.** Write
# ``clipped_step(model, optimizer, loss, max_norm)``: given a loss just
# computed from ``model``'s output, it clears the old gradients, runs
# backward, clips the gradient norm of all parameters together to
# ``max_norm``, takes the optimizer's step, and returns the gradient norm
# from *before* clipping.


def check_exercise_2(fn):
    """Exercise 2's check: run it on your attempt."""
    for seed, scale in [(3, 20.0), (4, 0.005)]:  # a large, a small gradient
        gen = torch.Generator().manual_seed(seed)
        net = torch.nn.Linear(6, 4).double()
        x = torch.randn(5, 6, generator=gen, dtype=torch.float64)
        params = list(net.parameters())
        for p in params:
            p.grad = torch.full_like(p, 7.0)  # left over from an earlier step
        optimizer = torch.optim.SGD(params, lr=1.0)  # a step subtracts .grad
        loss = scale * net(x).pow(2).sum()
        grads = torch.autograd.grad(loss, params, retain_graph=True)
        norm = math.sqrt(sum(g.pow(2).sum().item() for g in grads))
        before = [p.detach().clone() for p in params]
        out = fn(net, optimizer, loss, 0.5)
        if out is Ellipsis:
            print(
                "Exercise 2 not attempted yet: write the body of clipped_step"
            )
            return
        moved = [b - p.detach() for b, p in zip(before, params)]

        def moved_by(steps):
            return all(
                torch.allclose(m, s, rtol=1e-5, atol=1e-12)
                for m, s in zip(moved, steps)
            )

        stale = [g + 7.0 for g in grads]
        stale_norm = math.sqrt(sum(g.pow(2).sum().item() for g in stale))
        mistakes = [
            ([g * min(1, 0.5 / (norm + 1e-6)) for g in grads], None),
            (
                [torch.zeros_like(g) for g in grads],
                "the parameters did not "
                "move: call optimizer.step() after clipping",
            ),
            (
                grads,
                "the step used the unclipped gradient: clip after "
                "backward() and before optimizer.step()",
            ),
            (
                stale,
                "stale gradients from an earlier step were added in: "
                "call optimizer.zero_grad() before backward()",
            ),
            (
                [g * min(1, 0.5 / (stale_norm + 1e-6)) for g in stale],
                "stale gradients from an earlier step were added in: "
                "call optimizer.zero_grad() before backward()",
            ),
            (
                [g * min(1, 0.5 / (g.norm() + 1e-6)) for g in grads],
                "each parameter was clipped on its own: clip the norm of "
                "all gradients together, by one factor",
            ),
            (
                [g.clamp(-0.5, 0.5) for g in grads],
                "each value was clipped: "
                "clip the norm of the gradients, not each value",
            ),
            (
                [g * 0.5 / norm for g in grads],
                "a gradient whose norm is "
                "below max_norm must stay as it is: clip, do not rescale",
            ),
        ]
        found = [msg for steps, msg in mistakes if moved_by(steps)]
        if not found:
            raise AssertionError(
                "the step should subtract lr times the gradient, scaled "
                "down (if its norm is above max_norm) to norm max_norm"
            )
        if found[0] is not None:
            raise AssertionError(found[0])
        if not net.training:
            raise AssertionError("leave the model in the mode you found it")
        try:
            got = float(out)
        except (TypeError, ValueError, RuntimeError):
            raise AssertionError(
                "return the norm from before clipping (a number), "
                f"got {type(out).__name__}"
            ) from None
        if not math.isclose(got, norm, rel_tol=1e-6):
            after = min(norm, 0.5)
            raise AssertionError(
                f"expected the norm from before clipping, {norm:.6g}, got "
                f"{got:.6g}"
                + (
                    " (the norm after clipping)"
                    if math.isclose(got, after, rel_tol=1e-4)
                    else ""
                )
            )
    print("Exercise 2: correct")


def clipped_step(model, optimizer, loss, max_norm):
    return ...  # replace ... with your code


check_exercise_2(clipped_step)

# %%
# **Exercise 3: a batch a ``Linear`` layer accepts.** Write
# ``as_linear_input(x, layer)``: given a batch ``x`` of any shape (first
# dimension: the samples) and any dtype, return the same numbers as a
# ``(samples, layer.in_features)`` tensor, with each sample flattened in
# order, on the device and with the dtype of ``layer.weight``: the fix for
# three of the four errors at once.


def check_exercise_3(fn):
    """Exercise 3's check: run it on your attempt."""
    gen = torch.Generator().manual_seed(5)
    photos = torch.randint(0, 256, (3, 2, 4, 5), generator=gen)
    photos = photos.to(torch.uint8)
    cases = [
        ("a float64 layer", photos, torch.nn.Linear(40, 2).double()),
        ("a transposed batch", photos.transpose(2, 3), torch.nn.Linear(40, 2)),
        (
            "a layer on the meta device",
            photos,
            torch.nn.Linear(40, 2).to("meta"),
        ),
    ]
    for what, x, layer in cases:
        x_before = x.clone()
        try:
            out = fn(x, layer)
        except Exception as err:
            raise AssertionError(
                f"with {what}, your function raised "
                f"{type(err).__name__}: {err}"
            ) from None
        if out is Ellipsis:
            print(
                "Exercise 3 not attempted yet: "
                "write the body of as_linear_input"
            )
            return
        if not isinstance(out, torch.Tensor):
            raise AssertionError(
                f"expected a tensor, got {type(out).__name__}"
            )
        if tuple(out.shape) == (len(x), layer.out_features):
            raise AssertionError("return the layer's input, not its output")
        if tuple(out.shape) != (len(x), layer.in_features):
            raise AssertionError(
                f"with {what}: expected shape {(len(x), layer.in_features)}, "
                f"one row per sample, got {tuple(out.shape)}"
            )
        weight = layer.weight
        if out.device != weight.device:
            raise AssertionError(
                f"with {what}: the batch is on {out.device}, the layer on "
                f"{weight.device}: move it to layer.weight.device"
            )
        if out.dtype != weight.dtype:
            raise AssertionError(
                f"with {what}: the batch's dtype is {out.dtype}, the layer's "
                f"{weight.dtype}: convert to layer.weight.dtype"
            )
        if not torch.equal(x, x_before):
            raise AssertionError("x was changed in place: return a new tensor")
        if out.device.type == "meta":
            continue  # a meta tensor has no values to compare
        want = x.reshape(len(x), -1).to(weight.dtype)
        if torch.allclose(out * 255, want):
            raise AssertionError(
                "the values were scaled: keep them as they are"
            )
        if not torch.equal(out, want):
            raise AssertionError(
                f"with {what}: the values are not in the order of "
                "x.flatten(1): reshape, do not permute"
            )
    print("Exercise 3: correct")


def as_linear_input(x, layer):
    return ...  # replace ... with your code


check_exercise_3(as_linear_input)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.


# %%


# Solution 1: gradient norms per parameter
def grad_norms(model):
    return {
        name: p.grad.norm().item()
        for name, p in model.named_parameters()
        if p.grad is not None
    }


check_exercise_1(grad_norms)

# %%


# Solution 2: one clipped training step
def clipped_step(model, optimizer, loss, max_norm):
    optimizer.zero_grad()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return norm


check_exercise_2(clipped_step)

# %%


# Solution 3: a batch a Linear layer accepts
def as_linear_input(x, layer):
    return x.flatten(1).to(layer.weight.device, layer.weight.dtype)


check_exercise_3(as_linear_input)
