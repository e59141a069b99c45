"""
LSTMs: whole sequences, single steps and padding
================================================

An LSTM reads a sequence one element at a time and carries a memory from step
to step. This lesson trains ``nn.LSTM`` to name the shape behind a 3-D point
cloud read as a sequence of points, rebuilds the same computation step by step
with ``nn.LSTMCell`` and times both, works out the shapes of the hidden state
for a stacked bidirectional LSTM, and feeds sequences of different lengths
with ``pack_padded_sequence``.

.. tags:: intermediate, sequences, performance
"""

# %%
# Setup
# -----
# One seed for the whole lesson. The data is made on the CPU with its own
# random generator, so it is the same whatever device trains the model.
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")

# %%
# Point clouds of four shapes
# ---------------------------
# Each example is a cloud of 32 points on the surface of a sphere, a cube, an
# open cylinder or a torus. To keep the task honest every cloud gets a random
# 3-D rotation, a random size and a little noise, so neither the orientation
# nor the scale gives the answer away.
#
# Real scans come in any size, so, as point-cloud pipelines usually do, each
# cloud is then rescaled to a root-mean-square distance of 1 from its centre.
# A cloud has no natural order, but an LSTM needs one. We let a scanner sweep
# each cloud from bottom to top: the points are sorted by height *after* the
# rotation. A sample is then a tensor of shape ``(points, 3)``, a batch is
# ``(batch, points, 3)``: exactly the ``batch_first`` layout ``nn.LSTM``
# accepts.
import math

SHAPES = ["sphere", "cube", "cylinder", "torus"]
N_POINTS = 32


def surface_points(shape, n_clouds, n_points, gen):
    """Points on the surface of one unrotated shape, about unit size."""
    if shape == "sphere":
        p = torch.randn(n_clouds, n_points, 3, generator=gen)
        return p / p.norm(dim=-1, keepdim=True)
    if shape == "cube":
        p = torch.rand(n_clouds, n_points, 3, generator=gen) * 2 - 1
        face_axis = torch.randint(0, 3, (n_clouds, n_points, 1), generator=gen)
        face_sign = (
            torch.randint(0, 2, (n_clouds, n_points, 1), generator=gen) * 2.0
            - 1
        )
        return 0.6 * p.scatter(
            2, face_axis, face_sign
        )  # push one coordinate to a face
    angle = torch.rand(n_clouds, n_points, generator=gen) * 2 * math.pi
    if shape == "cylinder":
        height = torch.rand(n_clouds, n_points, generator=gen) * 2 - 1
        return torch.stack(
            [0.7 * angle.cos(), 0.7 * angle.sin(), height], dim=-1
        )
    tube = torch.rand(n_clouds, n_points, generator=gen) * 2 * math.pi  # torus
    ring = 0.8 + 0.3 * tube.cos()
    return torch.stack(
        [ring * angle.cos(), ring * angle.sin(), 0.3 * tube.sin()], dim=-1
    )


def random_rotations(n, gen):
    """n uniformly random 3x3 rotation matrices (QR of Gaussian matrices)."""
    q, r = torch.linalg.qr(torch.randn(n, 3, 3, generator=gen))
    q = q * torch.sign(torch.diagonal(r, dim1=1, dim2=2)).unsqueeze(1)
    q[:, :, 0] *= torch.linalg.det(q).unsqueeze(1)  # make every det +1
    return q


def make_clouds(n_clouds, gen, n_points=N_POINTS):
    labels = torch.randint(0, len(SHAPES), (n_clouds,), generator=gen)
    clouds = torch.empty(n_clouds, n_points, 3)
    for k, shape in enumerate(SHAPES):
        rows = (labels == k).nonzero().squeeze(1)
        clouds[rows] = surface_points(shape, len(rows), n_points, gen)
    clouds = clouds @ random_rotations(n_clouds, gen).transpose(1, 2)
    clouds = clouds * (0.6 + 0.8 * torch.rand(n_clouds, 1, 1, generator=gen))
    clouds = clouds + 0.03 * torch.randn(clouds.shape, generator=gen)
    rms = clouds.pow(2).sum(dim=-1).mean(dim=1).sqrt()
    clouds = clouds / rms[:, None, None]  # normalize the size
    order = clouds[..., 2].argsort(dim=1)  # the scanner: bottom to top
    clouds = clouds.gather(1, order.unsqueeze(-1).expand(-1, -1, 3))
    return clouds, labels


data_gen = torch.Generator().manual_seed(0)
x_train, y_train = make_clouds(3000, data_gen)
x_test, y_test = make_clouds(1000, data_gen)
print(f"train {tuple(x_train.shape)}, test {tuple(x_test.shape)}")
print("train examples per class:", torch.bincount(y_train).tolist())
assert x_train.shape == (3000, N_POINTS, 3)
torch.testing.assert_close(x_train.pow(2).sum(-1).mean(1), torch.ones(3000))
assert torch.all(x_train[:, 1:, 2] >= x_train[:, :-1, 2])  # sorted by height

# %%
# Top row: each shape before rotation, densely sampled. Bottom row: one
# training example per class, as the model sees it, coloured by position in
# the sequence (dark points are read first).
import matplotlib.pyplot as plt

fig, axes = plt.subplots(
    2, 4, figsize=(12, 6.4), subplot_kw={"projection": "3d"}
)
for k, shape in enumerate(SHAPES):
    dense = surface_points(shape, 1, 600, torch.Generator().manual_seed(k))[0]
    axes[0, k].scatter(*dense.T, s=2, color="gray")
    axes[0, k].set(
        title=f"{shape} (unrotated)", xlim=(-1, 1), ylim=(-1, 1), zlim=(-1, 1)
    )
    cloud = x_train[(y_train == k).nonzero()[0, 0]]
    axes[1, k].scatter(
        *cloud.T, c=torch.arange(N_POINTS), cmap="viridis", s=14
    )
    axes[1, k].set_title(f"{shape}: a training sequence")
for ax in axes.flat:
    ax.set(xlabel="x", ylabel="y", zlabel="z")
fig.suptitle(
    "Four shapes, and what the LSTM reads (colour = step, bottom to top)"
)
fig.tight_layout()

# %%
# The model: ``nn.LSTM`` over the whole sequence
# -----------------------------------------------
# ``nn.LSTM(input_size=3, hidden_size=32, batch_first=True)`` takes the whole
# ``(batch, steps, 3)`` tensor at once and returns two things:
#
# * ``output``, shape ``(batch, steps, hidden)``: the hidden state after every
#   step (of the last layer);
# * ``(h_n, c_n)``, each ``(num_layers * num_directions, batch, hidden)``: the
#   hidden and cell state after the last step, for every layer.
#
# A classifier needs one vector per cloud: the hidden state after the last
# point, ``h_n[-1]``. For full-length sequences this equals ``output[:, -1]``;
# we use ``h_n`` because it stays right once sequences have different lengths
# (last section).
from torch import nn


class CloudClassifier(nn.Module):
    def __init__(self, hidden_size=32, n_classes=len(SHAPES)):
        super().__init__()
        self.lstm = nn.LSTM(
            input_size=3, hidden_size=hidden_size, batch_first=True
        )
        self.head = nn.Linear(hidden_size, n_classes)

    def forward(self, points):
        output, (h_n, c_n) = self.lstm(points)  # no state given: zeros
        return self.head(h_n[-1])


model = CloudClassifier().to(device)
print(model)

# %%
# Training
# --------
# Mini-batch training with Adam, with the learning rate ramped up and then
# down by ``OneCycleLR``. Clipping the gradient norm is a common habit with
# recurrent nets: one unlucky batch can otherwise produce a huge step through
# the recurrence.
import torch.nn.functional as F


def accuracy(net, clouds, labels):
    net.eval()
    with torch.no_grad():
        pred = net(clouds.to(device)).argmax(dim=1).cpu()
    net.train()
    return (pred == labels).float().mean().item()


batch_size, n_epochs = 128, 12
optimizer = torch.optim.Adam(model.parameters())
steps_per_epoch = math.ceil(len(x_train) / batch_size)
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=3e-2, total_steps=n_epochs * steps_per_epoch
)
history = []
for epoch in range(n_epochs):
    perm = torch.randperm(len(x_train))
    total = 0.0
    for start in range(0, len(x_train), batch_size):
        idx = perm[start : start + batch_size]
        xb, yb = x_train[idx].to(device), y_train[idx].to(device)
        loss = F.cross_entropy(model(xb), yb)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        scheduler.step()
        total += loss.item() * len(idx)
    history.append((total / len(x_train), accuracy(model, x_test, y_test)))
    if epoch % 3 == 2 or epoch == n_epochs - 1:
        print(
            f"epoch {epoch + 1:2d}  loss {history[-1][0]:.3f}  test acc {history[-1][1]:.3f}"
        )

test_acc = history[-1][1]
chance = 1 / len(SHAPES)
print(f"test accuracy {test_acc:.3f} (chance {chance:.2f})")
assert test_acc > chance + 0.4, (
    "the LSTM should beat guessing by a wide margin"
)

# %%
# The loss falls and test accuracy climbs well above the 25 % of guessing:
fig, ax = plt.subplots(figsize=(6, 3.5))
epochs = range(1, n_epochs + 1)
ax.plot(epochs, [h[0] for h in history], "o-", label="train loss")
ax.plot(epochs, [h[1] for h in history], "s-", label="test accuracy")
ax.axhline(chance, color="gray", ls="--", label="chance")
ax.set(
    xlabel="epoch",
    ylabel="loss / accuracy",
    title="LSTM point-cloud classifier",
)
ax.legend()
fig.tight_layout()

# %%
# The same computation one step at a time with ``nn.LSTMCell``
# -------------------------------------------------------------
# ``nn.LSTMCell`` does a single step: it maps ``x_t`` of shape
# ``(batch, 3)`` and the state ``(h, c)``, each ``(batch, hidden)``, to the new
# ``(h, c)``. You loop over time yourself, which is what you need when a step
# depends on something outside the LSTM (sampling, attention, a custom gate).
#
# Both modules keep the four gates' weights stacked in the same order, so the
# trained layer's ``weight_ih_l0``, ``weight_hh_l0``, ``bias_ih_l0`` and
# ``bias_hh_l0`` copy straight into the cell's ``weight_ih``, ``weight_hh``,
# ``bias_ih`` and ``bias_hh``. Three details the loop must get right:
#
# * start from zeros, as ``nn.LSTM`` does when no state is given;
# * feed the *new* ``(h, c)`` back in at every step, cell state included;
# * collect ``h`` after each step and stack along dimension 1 (batch first).


def lstm_by_steps(cell, points, state=None):
    batch, steps, _ = points.shape
    if state is None:
        h = points.new_zeros(batch, cell.hidden_size)  # same device and dtype
        c = torch.zeros_like(h)
    else:
        h, c = state
    outputs = []
    for t in range(steps):
        h, c = cell(points[:, t], (h, c))
        outputs.append(h)
    return torch.stack(outputs, dim=1), (h, c)


def cell_from_lstm(lstm):
    w = lstm.weight_ih_l0
    cell = nn.LSTMCell(
        lstm.input_size, lstm.hidden_size, device=w.device, dtype=w.dtype
    )
    with torch.no_grad():
        cell.weight_ih.copy_(lstm.weight_ih_l0)
        cell.weight_hh.copy_(lstm.weight_hh_l0)
        cell.bias_ih.copy_(lstm.bias_ih_l0)
        cell.bias_hh.copy_(lstm.bias_hh_l0)
    return cell


# %%
# We compare in float64: on a GPU, cuDNN may run a float32 LSTM with TF32
# tensor cores (``torch.backends.cudnn.rnn.fp32_precision`` is ``"tf32"`` by
# default), which would blur a tight comparison. In float64 both paths do the
# same exact arithmetic up to rounding.
import copy

lstm64 = copy.deepcopy(model.lstm).double()
cell64 = cell_from_lstm(lstm64)
batch64 = x_test[:256].to(device, torch.float64)
with torch.no_grad():
    fused_out, (fused_h, fused_c) = lstm64(batch64)
    step_out, (step_h, step_c) = lstm_by_steps(cell64, batch64)

print(
    f"output {tuple(fused_out.shape)}, max |fused - steps| = "
    f"{(fused_out - step_out).abs().max().item():.1e}"
)
torch.testing.assert_close(step_out, fused_out)
torch.testing.assert_close(step_h, fused_h[0])  # h_n has a leading layer dim
torch.testing.assert_close(step_c, fused_c[0])
torch.testing.assert_close(fused_out[:, -1], fused_h[-1])  # last output == h_n

# %%
# .. note:: Old code you may meet: a step-by-step loop that calls ``nn.LSTM``
#    on ``x[:, i]``, feeds the original ``cx`` back instead of the updated cell
#    state, and starts from ``torch.randn(...).cuda()`` wrapped in
#    ``Variable``. Today ``nn.LSTM`` reads a 2-D input as one *unbatched*
#    sequence (of length ``batch``), so that call means something else; a
#    stale ``cx`` throws the memory away; a random start makes outputs random;
#    ``.cuda()`` ties the code to one device; and ``Variable`` is gone (tensors
#    carry autograd themselves). Use ``nn.LSTMCell``, feed ``(h, c)`` back, start
#    from zeros made with ``new_zeros``.
#
# Timing: the fused kernel is the point
# -------------------------------------
# Same weights, same result, very different speed. ``nn.LSTM`` runs the whole
# time loop inside one library call: it computes the input projections of all
# steps in one big matrix multiply, and on a GPU cuDNN also fuses each step's
# gate arithmetic into a few kernels. The cell loop pays Python (and, on a GPU,
# kernel-launch) overhead at every step, forward and backward. We time a
# training step (forward plus backward) at two sequence lengths with a batch
# of 64, on the CPU and, when present, the GPU.
# GPU work is asynchronous, so we synchronize before reading the clock and
# warm up first (the first calls pay for cuDNN setup and memory allocation).
import statistics
import time

import pandas as pd


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def median_ms(fn, dev, repeats=3, warmup=1):
    for _ in range(warmup):
        fn()
    sync(dev)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        sync(dev)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


devices = [torch.device("cpu")] + (
    [torch.device("cuda")] if torch.cuda.is_available() else []
)
rows = []
for dev in devices:
    lstm_d = copy.deepcopy(model.lstm).to(dev)
    cell_d = cell_from_lstm(lstm_d)
    for steps in (32, 256):
        xb = torch.randn(64, steps, 3, device=dev)
        fused_ms = median_ms(lambda: lstm_d(xb)[0].sum().backward(), dev)
        loop_ms = median_ms(
            lambda: lstm_by_steps(cell_d, xb)[0].sum().backward(), dev
        )
        rows.append(
            {
                "device": dev.type,
                "steps": steps,
                "nn.LSTM ms": fused_ms,
                "LSTMCell loop ms": loop_ms,
                "loop / fused": loop_ms / fused_ms,
            }
        )
print(pd.DataFrame(rows).to_string(index=False, float_format="{:.2f}".format))
if not torch.cuda.is_available():
    print(
        "No GPU here: on one, a 'cuda' row would show cuDNN's fused LSTM kernel."
    )

# %%
# The last column is how many times slower the hand-written loop is (timings
# are noisy on a shared machine). The cell loop has its uses; when it is not
# needed, hand the whole sequence to ``nn.LSTM``. On a GPU the gap usually
# widens with sequence length, because each loop step launches several small
# kernels while the fused call launches a handful for the whole sequence.
#
# Hidden-state shapes for stacked and bidirectional LSTMs
# -------------------------------------------------------
# With ``num_layers=2`` and ``bidirectional=True`` there are four recurrences:
# (layer 0, forward), (layer 0, backward), (layer 1, forward), (layer 1,
# backward). Each has its own ``h`` and ``c``, so the initial and final states
# have shape ``(num_layers * num_directions, batch, hidden)``. Note that
# ``batch_first=True`` changes only ``input`` and ``output``: the states keep
# the batch in dimension 1.
num_layers, hidden = 2, 16
bi = nn.LSTM(
    3, hidden, num_layers=num_layers, bidirectional=True, batch_first=True
).to(device)
batch, steps = 4, 10
points = x_test[:batch, :steps].to(device)
h0 = torch.zeros(num_layers * 2, batch, hidden, device=device)
c0 = torch.zeros_like(h0)
out, (h_n, c_n) = bi(points, (h0, c0))
for name, t in [
    ("input", points),
    ("h0 and c0", h0),
    ("output", out),
    ("h_n", h_n),
    ("c_n", c_n),
]:
    print(f"{name:10s} {tuple(t.shape)}")

assert h0.shape == (num_layers * 2, batch, hidden)
assert out.shape == (batch, steps, 2 * hidden)  # both directions, concatenated
assert h_n.shape == c_n.shape == (num_layers * 2, batch, hidden)

# %%
# ``h_n`` unfolds as ``(num_layers, num_directions, batch, hidden)``. The
# last layer's forward direction ends at the last step, so it matches the
# first half of ``output[:, -1]``; the backward direction reads the sequence
# in reverse and ends at step 0, so it matches the second half of
# ``output[:, 0]``. Leaving the state out is the same as passing zeros.
h_layers = h_n.view(num_layers, 2, batch, hidden)
torch.testing.assert_close(h_layers[-1, 0], out[:, -1, :hidden])
torch.testing.assert_close(h_layers[-1, 1], out[:, 0, hidden:])
torch.testing.assert_close(bi(points)[0], out)
print(
    "h_n[-1, forward] == output[:, -1, :16];  h_n[-1, backward] == output[:, 0, 16:]"
)

# %%
# Sequences of different lengths: packing
# ---------------------------------------
# Real clouds do not all have 32 points. To batch sequences of different
# lengths we pad them to the longest (``pad_sequence``) and tell the LSTM the
# true lengths with ``pack_padded_sequence``. The packed form stores, step by
# step, only the sequences still running, so padding is never fed to the
# LSTM, and ``h_n`` holds each sequence's state after *its own* last element.
# ``enforce_sorted=False`` lets the batch come in any order (PyTorch sorts and
# unsorts internally); the lengths must be a CPU tensor or a list.
from torch.nn.utils.rnn import (
    pack_padded_sequence,
    pad_packed_sequence,
    pad_sequence,
)

var_gen = torch.Generator().manual_seed(1)
lengths = torch.randint(12, N_POINTS + 1, (1000,), generator=var_gen)
var_clouds = [None] * len(lengths)  # a list of (length_i, 3) tensors
var_labels = torch.empty(len(lengths), dtype=torch.long)
for (
    length
) in lengths.unique().tolist():  # make all clouds of one length at once
    members = (lengths == length).nonzero().squeeze(1)
    clouds, var_labels[members] = make_clouds(
        len(members), var_gen, n_points=length
    )
    for i, cloud in zip(members.tolist(), clouds):
        var_clouds[i] = cloud

padded = pad_sequence(var_clouds, batch_first=True).to(
    device
)  # (1000, longest, 3)
packed = pack_padded_sequence(
    padded, lengths, batch_first=True, enforce_sorted=False
)
print(
    f"lengths of the first five: {lengths[:5].tolist()}; padded {tuple(padded.shape)}"
)
print(
    f"packed data {tuple(packed.data.shape)} = {int(lengths.sum())} real points, no padding"
)
assert packed.data.shape[0] == lengths.sum()

# %%
# The packed run gives each sequence exactly the final state it gets when run
# alone, unpadded; we check the first 20 (in float64 again, with the trained
# weights). Running the padded tensor directly does not: the LSTM keeps
# stepping through the zero padding.
with torch.no_grad():
    packed_out, (packed_h, packed_c) = lstm64(packed.to(torch.float64))
    naive_out, (naive_h, _) = lstm64(padded.double())
    for i in range(20):
        _, (alone_h, alone_c) = lstm64(
            var_clouds[i].unsqueeze(0).to(device, torch.float64)
        )
        torch.testing.assert_close(packed_h[:, i], alone_h[:, 0])
        torch.testing.assert_close(packed_c[:, i], alone_c[:, 0])

short = (lengths < padded.shape[1]).nonzero()[0, 0]
gap = (naive_h[-1, short] - packed_h[-1, short]).abs().max().item()
print(
    f"cloud {short.item()} has {lengths[short].item()} points: "
    f"padded-run h_n differs from the true one by up to {gap:.3f}"
)
assert gap > 1e-3

# %%
# ``pad_packed_sequence`` turns the packed output back into a padded tensor
# plus lengths; positions past each length are filled with zeros, and the
# output at the last real step equals ``h_n``.
unpacked, out_lengths = pad_packed_sequence(packed_out, batch_first=True)
assert torch.equal(out_lengths, lengths)
last = unpacked[torch.arange(len(lengths)), lengths - 1]
torch.testing.assert_close(last, packed_h[-1])
past_end = torch.arange(unpacked.shape[1]) >= lengths.unsqueeze(
    1
)  # (batch, longest)
assert unpacked[past_end.to(device)].abs().sum() == 0

# %%
# Because ``CloudClassifier.forward`` reads ``h_n`` and ``nn.LSTM`` accepts a
# ``PackedSequence`` as input, the trained model classifies variable-length
# clouds unchanged. Feeding the padded tensor instead makes it classify
# clouds with extra points at the origin.
with torch.no_grad():
    acc_packed = (
        (model(packed).argmax(1).cpu() == var_labels).float().mean().item()
    )
    acc_padded = (
        (model(padded).argmax(1).cpu() == var_labels).float().mean().item()
    )
model.train()
print(
    f"variable-length clouds (12..32 points): packed acc {acc_packed:.3f}, "
    f"padded acc {acc_padded:.3f}"
)
assert acc_packed > chance + 0.25
assert acc_packed > acc_padded

# %%
# .. note:: Old code you may meet: ``r_out[:, -1, :]`` as the summary of a
#    padded batch. It is the last *padded* step, not each sequence's last
#    element; use ``h_n[-1]`` from a packed run (or gather ``output`` at
#    ``lengths - 1``, as above).
#
# Where next
# ----------
# The recurrence written by hand with ``nn.Linear`` layers is in
# :ref:`sphx_glr_lessons_nn_05_rnn_from_scratch.py`; moving models and data to
# a GPU and timing them properly is in
# :ref:`sphx_glr_lessons_advanced_02_gpus.py`.
