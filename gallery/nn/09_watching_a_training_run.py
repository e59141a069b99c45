"""
Watching a training run
=======================

A training run prints a few numbers; a log keeps all of them. A small
network learns from real CIFAR-10 photos while TensorBoard logs the run;
the log, read back, shows exploding gradients and what clipping does.

**You will learn** to log a run with ``SummaryWriter``, to read the log
back and plot it, to open TensorBoard in a
terminal or a notebook, and to spot exploding gradients from their norm
and clip them with ``clip_grad_norm_``.

**You need first** the training loop and the CIFAR-10 photos of
:ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`.
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
# sphinx_gallery_tags = ["intermediate", "tensorboard", "training", "vision"]

# %%
# A slice of CIFAR-10
# -------------------
# The photos of :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`, read
# the same way: the offline JPEG copy that ``PBE_DATA_DIR`` may name
# (`pooch <https://www.fatiando.org/pooch/>`_ checks its SHA-256 hash and
# unpacks it once, into this lesson's own folder), else torchvision's
# download; with neither, the lesson stops. The lesson uses only the first
# 500 training photos of each class.
import pooch
from torchvision import datasets
from torchvision.transforms.functional import pil_to_tensor

SHA256 = "ad20075fc5d761cb1545aa313752ecc67cdb288bc8d01abc2128e7de0ddfedb5"


def cifar10_train():
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
        unzip = pooch.Unzip(extract_dir=folder)  # once; then only checked
        jpeg_copy.fetch("cifar10-jpeg.zip", processor=unzip)
        print("Using CIFAR-10's JPEG copy (lossy: pixels differ slightly)")
        return datasets.ImageFolder(folder / "train", transform=pil_to_tensor)
    try:  # no offline copy: torchvision downloads the original
        train = datasets.CIFAR10(cache, download=True, transform=pil_to_tensor)
    except OSError as err:  # no network, or the server refused
        raise RuntimeError("offline: connect, or set PBE_DATA_DIR") from err
    print("Using the original CIFAR-10, downloaded by torchvision")
    return train


# %%
# ``pil_to_tensor`` turns each photo into a ``(3, 32, 32)`` ``uint8``
# tensor. Then 4,000 photos train the network and 1,000 others, drawn at
# random, measure it: a **validation set**. Nothing is tuned on this page,
# so the test photos stay unread.
train = cifar10_train()
labels = torch.tensor(train.targets)
# indices sorted by class (stable: in photo order), 500 from each class
keep = labels.argsort(stable=True).view(10, -1)[:, :500].flatten()
photos, labels = torch.stack([train[i][0] for i in keep]), labels[keep]
order = torch.randperm(len(labels))
x_val, y_val = photos[order[:1000]], labels[order[:1000]]
x_train, y_train = photos[order[1000:]], labels[order[1000:]]
print(f"train {tuple(x_train.shape)} {x_train.dtype}, validation {len(y_val)}")
# sphinx_gallery_start_ignore
assert torch.equal(torch.bincount(labels), torch.full((10,), 500))
# sphinx_gallery_end_ignore

# %%
# A small network, logged with TensorBoard
# ----------------------------------------
# One convolution, a max pool and a linear layer: small enough to train in
# seconds. ``to_input`` turns bytes
# into floats in ``[0, 1]`` on the device; ``accuracy`` counts right
# answers on the validation photos, in evaluation mode.


def small_cnn():
    conv = nn.Conv2d(3, 16, kernel_size=5, padding=2)  # (N, 16, 32, 32)
    pool = nn.MaxPool2d(4)  # (N, 16, 8, 8), flattened to (N, 1024)
    head = nn.Linear(16 * 8 * 8, 10)
    return nn.Sequential(conv, nn.ReLU(), pool, nn.Flatten(), head).to(device)


def to_input(batch):
    return batch.to(device).float() / 255


def accuracy(model):
    model.eval()
    with torch.no_grad():
        right = model(to_input(x_val)).argmax(dim=1).cpu() == y_val
    model.train()
    return right.float().mean().item()


# %%
# **TensorBoard** is a viewer for training logs. PyTorch writes them with
# :class:`~torch.utils.tensorboard.writer.SummaryWriter` (it needs the
# ``tensorboard`` package): each ``add_...`` call appends a record, tagged
# with a name and a **step** (the x-axis), to an *event file* in the
# writer's folder, one folder per run. ``train`` logs every step's loss
# and **gradient norm** (the length of all gradients put together into one
# vector, ``sqrt(sum of squares)``, which ``nn.utils.clip_grad_norm_``
# returns; with ``max_norm=math.inf`` it clips nothing), and every epoch's
# validation accuracy and histograms of each weight and its last gradient.
from torch.utils.tensorboard import SummaryWriter


def train(log_dir, epochs=1, reduction="mean", max_norm=math.inf):
    torch.manual_seed(1)  # the same start and batches for every run
    model = small_cnn()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    writer, losses = SummaryWriter(log_dir), []
    for epoch in range(epochs):
        for batch in torch.randperm(len(y_train)).split(100):
            logits = model(to_input(x_train[batch]))
            loss = F.cross_entropy(logits, y_train[batch], reduction=reduction)
            optimizer.zero_grad()
            loss.backward()
            norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
            writer.add_scalar("loss/train", loss.item(), len(losses))
            writer.add_scalar("grad_norm", norm, len(losses))  # step 0, 1, ...
            losses.append(loss.item())
        writer.add_scalar("accuracy/validation", accuracy(model), len(losses))
        for name, p in model.named_parameters():
            writer.add_histogram(f"weights/{name}", p, len(losses))
            writer.add_histogram(f"grads/{name}", p.grad, len(losses))
    writer.close()  # writes what is still buffered
    return losses


# %%
# The logs go to a temporary folder, deleted at the end of the lesson. One
# run of three epochs:
import tempfile
from pathlib import Path

tmp = tempfile.TemporaryDirectory()
runs = Path(tmp.name) / "runs"
losses = train(runs / "mean_loss", epochs=3)

# %%
# Reading the log back
# --------------------
# The ``tensorboard`` package reads its own files:
# ``event_accumulator.EventAccumulator`` loads the event files of one run's
# folder and serves the records by tag. Its second argument,
# ``size_guidance``, says how many records of each kind to keep (``0``:
# all; by default it keeps only one histogram per tag).
from tensorboard.backend.event_processing import event_accumulator


def read_run(log_dir):
    kinds = {"scalars": 0, "histograms": 0, "images": 0}
    run = event_accumulator.EventAccumulator(str(log_dir), kinds)
    run.Reload()  # reads the event files
    return run


run = read_run(runs / "mean_loss")
print(f"scalars: {run.Tags()['scalars']}")
loss_log = run.Scalars("loss/train")
print(f"{len(loss_log)} loss records, the first {loss_log[0].value:.4f}")
acc_log = run.Scalars("accuracy/validation")
# sphinx_gallery_start_ignore
assert len(loss_log) == len(losses) == 120
# the log holds what was logged, rounded to float32 as TensorBoard stores it
assert [e.value for e in loss_log] == torch.tensor(losses).tolist()
assert [e.step for e in loss_log] == list(range(120))
assert [e.step for e in acc_log] == [40, 80, 120]
assert acc_log[-1].value > 0.25  # well above chance (0.10)
assert acc_log[0].value < acc_log[1].value < acc_log[2].value  # rises
assert sum(losses[-40:]) < sum(losses[:40])  # the loss fell
# sphinx_gallery_end_ignore

# %%
# Each record is a ``ScalarEvent``: the wall-clock time, the ``step`` it
# was logged at and its ``value`` (stored as a 32-bit float). The scalars
# read back, plotted as TensorBoard's "Scalars" tab shows them:
import matplotlib.pyplot as plt

fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(9, 3.2), layout="tight")
ax_loss.plot([e.step for e in loss_log], [e.value for e in loss_log])
ax_loss.set(xlabel="step", ylabel="training loss", title="loss/train")
ax_acc.plot([e.step for e in acc_log], [e.value for e in acc_log], "o-")
ax_acc.set(xlabel="step", ylabel="accuracy", title="accuracy/validation")
plt.show()

# %%
# The training loss is noisy from batch to batch (each is 100 photos) but
# falls; validation accuracy rises at each epoch's end.
#
# Opening TensorBoard
# ~~~~~~~~~~~~~~~~~~~
# This page ran no TensorBoard server, so it has no screenshot of one. For
# your own runs, give ``SummaryWriter`` a folder you keep (without one it
# writes to ``runs/<date>_<host>``), start the viewer in a terminal and
# open http://localhost:6006 in a browser:
#
# .. code-block:: bash
#
#    tensorboard --logdir runs
#
# In a Jupyter or Colab notebook, two magic commands show it in place:
#
# .. code-block:: text
#
#    %load_ext tensorboard
#    %tensorboard --logdir runs
#
# Each sub-folder of ``runs`` is one run; TensorBoard draws every run's
# curve for a tag on the same chart, one colour per run, so give each
# experiment its own folder. The "Scalars", "Histograms" and
# "Images" tabs show what this page plots by hand.

# %%
# Exploding gradients, found and clipped
# --------------------------------------
# A common slip: a loss *summed* over the batch (``reduction="sum"``, or a
# hand-written ``.sum()``) where the learning rate was chosen for the mean.
# The sum is 100 times (the batch size) the mean, so for the same weights
# and batch every gradient comes out 100 times too large, and so does the
# step. Two runs of one epoch with
# that bug, the second with ``max_norm=1.0``: ``clip_grad_norm_`` then
# scales all the gradients down by one factor whenever their norm is above
# 1, and still returns (and ``train`` logs) the norm from before the
# scaling. For each run, the printout gives the largest norm of its first
# epoch (40 steps) and the validation accuracy after that epoch:
train(runs / "sum_loss", reduction="sum")
train(runs / "sum_loss_clipped", reduction="sum", max_norm=1.0)
fig, ax = plt.subplots(figsize=(7, 3.2))
for name in ["mean_loss", "sum_loss", "sum_loss_clipped"]:
    run = read_run(runs / name)
    norms = [e.value for e in run.Scalars("grad_norm")][:40]
    acc = run.Scalars("accuracy/validation")[0].value
    print(f"{name:>16}: largest norm {max(norms):8.3g}, accuracy {acc:.3f}")
    ax.semilogy(norms, label=name)
    # sphinx_gallery_start_ignore
    if name == "sum_loss":
        assert max(norms[:5]) > 1000  # an early explosion
        assert acc < 0.15  # about as good as guessing
    else:
        assert acc > 0.25
    if name == "sum_loss_clipped":
        assert min(norms) > 10  # the cause is still there
    if name == "mean_loss":
        assert max(norms) < 10
    # sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
# the clipped run (the loop's last) ends close to the mean-loss run
assert (
    abs(
        acc
        - read_run(runs / "mean_loss").Scalars("accuracy/validation")[0].value
    )
    < 0.03
)
# sphinx_gallery_end_ignore
ax.set(xlabel="step", ylabel="gradient norm (before clipping)")
ax.legend()
plt.show()

# %%
# Without clipping, the norm passes a thousand within a few steps, the huge
# updates throw the weights far away, and after an epoch the network is about
# as good as guessing (10%). With clipping, each gradient's norm is at most
# ``max_norm``, so each step is at most the learning rate times ``max_norm``
# (plus what momentum carries over from earlier steps), and the accuracy ends
# close to the mean-loss run's (same start, same batches). Yet the norm before
# clipping stays above all of the mean-loss run's norms: the cause is still
# there, and the log shows it. So: log the gradient norm, clip as a safety net
# (``max_norm`` of about 1 is a common start), and when the norm is large, find
# the cause: a summed loss, unscaled inputs, too high a learning rate.

# %%
# Going deeper
# ------------
# Optional on a first read.
#
# Histograms and images, read back
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A histogram record keeps its smallest value ``min``, the right edge of
# each bucket (``bucket_limit``) and the count in each (``bucket``). The
# tags name each parameter as ``model.named_parameters()`` does: in a
# ``Sequential``, by the layer's position, so ``0.weight`` is the
# convolution's weight and ``4.weight`` the linear layer's. The first
# layer's weights and their gradients in the mean-loss run, one curve per
# epoch:
run = read_run(runs / "mean_loss")
fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
print(f"histograms: {run.Tags()['histograms']}")
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
# Each curve is one epoch's end; TensorBoard's "Histograms" tab stacks the
# same curves over the steps. A tall, narrow spike at 0 counts weights
# whose gradient in that last batch was zero or nearly; a layer whose whole
# gradient histogram is such a spike learnt next to nothing from that
# batch, and one that widens from epoch to epoch is a warning sign (see
# exploding gradients above). Images are logged the same way: here a grid
# of 16 training photos, made with :func:`torchvision.utils.make_grid`, in
# a second writer on the same folder. An image record holds a PNG file's
# bytes, which matplotlib reads:
import io

from torchvision.utils import make_grid

grid = make_grid(x_train[:16], nrow=8, padding=1)  # (3, H, W), uint8
with SummaryWriter(runs / "mean_loss") as writer:  # closed at the end
    writer.add_image("photos", grid, global_step=0)
image = read_run(runs / "mean_loss").Images("photos")[0]
png = plt.imread(io.BytesIO(image.encoded_image_string))
tmp.cleanup()  # the logs are deleted
plt.figure(figsize=(8, 2.2))
print(f"image record: {image.width}x{image.height} pixels, step {image.step}")
plt.imshow(png)
plt.axis("off")
plt.title("photos, read back from the event file")
plt.show()
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
# TensorBoard and TensorFlow
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``tensorboard`` does not need TensorFlow. When TensorFlow is installed,
# though, TensorBoard imports it to read and write files, so the first
# write also waits for that import. Whether this page's run imported it:
import importlib.util
import sys

installed = importlib.util.find_spec("tensorflow") is not None
imported = "tensorflow" in sys.modules
print(f"TensorFlow installed: {installed}, imported: {imported}")
# sphinx_gallery_start_ignore
assert imported == installed
# sphinx_gallery_end_ignore

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``from tensorboardX import SummaryWriter``: a separate package
#      from before PyTorch 1.1; ``torch.utils.tensorboard.SummaryWriter``
#      is built in and takes the same ``add_...`` calls for what this page
#      logs.
#    - ``nn.utils.clip_grad_norm(...)`` without the trailing underscore:
#      deprecated; ``clip_grad_norm_`` (the underscore marks an in-place
#      change of the gradients) replaced it.

# %%
# Takeaways
# ---------
# - ``SummaryWriter`` logs scalars, histograms and images, each under a tag
#   and a step, into one folder per run.
# - ``EventAccumulator`` reads a run back, so a script can plot or check
#   what was logged; ``tensorboard --logdir runs`` (or ``%tensorboard`` in
#   a notebook) draws every run on the same charts.
# - Log the gradient norm: a jump by orders of magnitude is an exploding
#   gradient.
# - ``clip_grad_norm_`` caps the norm between ``backward`` and ``step`` and
#   returns it from before clipping; a norm that stays large asks for its
#   cause.
#
# Next, :ref:`sphx_glr_lessons_nn_10_debugging_a_training_run.py` looks
# inside a run that fails: shapes, NaNs and four errors most learners
# meet.

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
        torch.nn.Linear(5, 7),
        torch.nn.Tanh(),
        torch.nn.Linear(7, 3),
        torch.nn.Linear(3, 2),  # never used below: no .grad, yet not frozen
    ).double()
    net[0].bias.requires_grad_(False)  # frozen: its .grad stays None
    x = torch.randn(6, 5, generator=gen, dtype=torch.float64)
    net[:3](x).pow(2).sum().backward()
    net.eval()
    params = dict(net.named_parameters())
    saved = {
        n: p.grad.clone() for n, p in params.items() if p.grad is not None
    }
    try:
        out = fn(net)
    except AttributeError as err:
        raise AssertionError(
            f"your function failed with AttributeError: {err}. A parameter "
            "can require a gradient and still have .grad None (3.weight "
            "took no part in the loss): test p.grad is not None"
        ) from None
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


# %%
# Your attempt at exercise 1, then its check:


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


# %%
# Your attempt at exercise 2, then its check:


def clipped_step(model, optimizer, loss, max_norm):
    return ...  # replace ... with your code


check_exercise_2(clipped_step)

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
