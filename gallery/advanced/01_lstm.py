"""
LSTMs and GRUs: whole sequences, single steps and padding
=========================================================

An ``nn.LSTM`` learns to name the shape behind a 3-D point cloud read as a
sequence of points, and an ``nn.GRU`` does the same job with one state
instead of two. Going deeper, ``nn.LSTMCell`` redoes the LSTM step by step,
a stacked bidirectional LSTM shows the state shapes, and
``pack_padded_sequence`` feeds sequences of different lengths.

**You will learn** to feed a batch of sequences to ``nn.LSTM`` and
``nn.GRU``, to read the final state ``h_n`` for a classifier, and when a
GRU is enough.

**You need first** a recurrent net written by hand
(:ref:`sphx_glr_lessons_nn_06_rnn_from_scratch.py`) and a training loop
with an optimizer (:ref:`sphx_glr_lessons_nn_02_optim.py`).
"""

# %%
# Setup
# -----
# The data is made on the CPU with a generator of its own, so it is the same
# on every device; the model trains on an accelerator when there is one.
import math

import torch

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
SHAPES = ["sphere", "cube", "cylinder", "torus"]
N_POINTS = 32  # points per cloud
# sphinx_gallery_tags = ["intermediate", "sequences"]

# %%
# Point clouds of four shapes
# ---------------------------
# Each example is 32 points on a sphere, a cube, an open cylinder or a torus.
# ``surface_points`` draws them on the unrotated shape:


def surface_points(shape, n, n_points, gen):
    """Points on one unrotated shape of about unit size."""
    if shape == "sphere":
        p = torch.randn(n, n_points, 3, generator=gen)
        return p / p.norm(dim=-1, keepdim=True)
    if shape == "cube":  # push one coordinate of each point to a face
        p = torch.rand(n, n_points, 3, generator=gen) * 2 - 1
        axis = torch.randint(0, 3, (n, n_points, 1), generator=gen)
        sign = torch.randint(0, 2, (n, n_points, 1), generator=gen) * 2.0 - 1
        return 0.6 * p.scatter(2, axis, sign)
    angle = torch.rand(n, n_points, generator=gen) * 2 * math.pi
    if shape == "cylinder":
        z = torch.rand(n, n_points, generator=gen) * 2 - 1
        return torch.stack([0.7 * angle.cos(), 0.7 * angle.sin(), z], -1)
    tube = torch.rand(n, n_points, generator=gen) * 2 * math.pi  # torus
    ring = 0.8 + 0.3 * tube.cos()
    return torch.stack(
        [ring * angle.cos(), ring * angle.sin(), 0.3 * tube.sin()], -1
    )


# %%
# ``make_clouds`` turns each cloud by a random rotation, adds a little noise
# and rescales it to a root-mean-square radius of 1, so that neither
# orientation nor size gives the shape away. The rotation is the ``Q`` of a
# QR decomposition of a random Gaussian matrix; the two sign fixes make it
# uniformly random and a rotation rather than a mirror image (determinant
# +1). An LSTM needs an order, so a "scanner" then reads each cloud from
# bottom to top: a sample is ``(points, 3)``, a batch ``(batch, points, 3)``.
def make_clouds(n, gen, n_points=N_POINTS):
    labels = torch.randint(0, len(SHAPES), (n,), generator=gen)
    clouds = torch.empty(n, n_points, 3)
    for k, shape in enumerate(SHAPES):
        rows = (labels == k).nonzero().squeeze(1)
        clouds[rows] = surface_points(shape, len(rows), n_points, gen)
    q, r = torch.linalg.qr(torch.randn(n, 3, 3, generator=gen))
    q = q * torch.diagonal(r, dim1=1, dim2=2).sign().unsqueeze(1)
    q[:, :, 0] *= torch.linalg.det(q).unsqueeze(1)  # det +1: a rotation
    clouds = clouds @ q.transpose(1, 2)
    clouds = clouds + 0.03 * torch.randn(clouds.shape, generator=gen)
    rms = clouds.pow(2).sum(-1).mean(1).sqrt()
    clouds = clouds / rms[:, None, None]
    order = clouds[..., 2].argsort(dim=1)  # the scanner: bottom to top
    return clouds.gather(1, order.unsqueeze(-1).expand(-1, -1, 3)), labels


data_gen = torch.Generator().manual_seed(0)
x_train, y_train = make_clouds(3000, data_gen)
x_test, y_test = make_clouds(1000, data_gen)
print(f"train {tuple(x_train.shape)}, test {tuple(x_test.shape)}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(x_train.pow(2).sum(-1).mean(1), torch.ones(3000))
assert torch.all(x_train[:, 1:, 2] >= x_train[:, :-1, 2])  # sorted by height
# sphinx_gallery_end_ignore

# %%
# One training example per class, as the model sees it, coloured by its
# position in the sequence (dark points are read first):
import matplotlib.pyplot as plt

fig, axes = plt.subplots(
    1, 4, figsize=(12, 3.4), subplot_kw={"projection": "3d"}
)
for k, (shape, ax) in enumerate(zip(SHAPES, axes)):
    cloud = x_train[(y_train == k).nonzero()[0, 0]]
    ax.scatter(*cloud.T, c=torch.arange(N_POINTS), cmap="viridis", s=14)
    ax.set(title=shape, xlabel="x", ylabel="y", zlabel="z")
fig.suptitle("What the LSTM reads (colour = step, bottom to top)")
fig.tight_layout()
plt.show()

# %%
# The colours climb each shape: the LSTM meets every cloud's points from
# bottom to top, one point per step.
#
# The model: ``nn.LSTM`` over the whole sequence
# -----------------------------------------------
# ``nn.LSTM`` takes the whole ``(batch, steps, 3)`` tensor (with
# ``batch_first=True``) and runs the recurrence of
# :ref:`sphx_glr_lessons_nn_06_rnn_from_scratch.py` over every step in one
# call. An LSTM carries two states from step to step: the hidden state ``h``,
# which it outputs, and a cell state ``c``, its longer-term memory, which
# gates decide to keep, forget or overwrite. It returns ``output`` (the last
# layer's ``h`` after every step) and ``(h_n, c_n)`` (every layer's states
# after the last step), with ``h_n`` shaped ``(layers, batch, hidden)``.
#
# The classifier reads ``h_n[-1]``: for a one-direction LSTM, the last
# layer's state after the whole cloud. (For a *bidirectional* LSTM,
# ``h_n[-1]`` is the last layer's backward direction, which ends at step 0:
# see "Going deeper".) The class takes the recurrent layer as an argument,
# so that the same code builds a GRU below.
import torch.nn.functional as F
from torch import nn


class CloudClassifier(nn.Module):
    def __init__(self, rnn_type=nn.LSTM, hidden_size=32):
        super().__init__()
        self.rnn = rnn_type(3, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, len(SHAPES))

    def forward(self, points):
        output, state = self.rnn(points)  # no state given: zeros
        h_n = state[0] if isinstance(self.rnn, nn.LSTM) else state
        return self.head(h_n[-1])


# %%
# Training
# --------
# Adam, with ``OneCycleLR``: it raises the learning rate to ``max_lr`` over
# the first part of ``total_steps`` and then lowers it towards zero, which
# usually trains faster than a fixed rate (by default it also moves Adam's
# first beta, its momentum, the other way, between 0.95 and 0.85: you will
# see it change in ``optimizer.param_groups``). The gradient norm is clipped, a
# common guard against one huge step through the recurrence. The recipe is
# fixed, not tuned, so the test set is read once per model, at the end.
def train_and_test(model, n_epochs=12, batch_size=128):
    optimizer = torch.optim.Adam(model.parameters())
    steps = n_epochs * math.ceil(len(x_train) / batch_size)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=3e-2, total_steps=steps
    )
    model.train()
    for epoch in range(n_epochs):
        for idx in torch.randperm(len(x_train)).split(batch_size):
            xb, yb = x_train[idx].to(device), y_train[idx].to(device)
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            scheduler.step()
    model.eval()
    with torch.no_grad():
        pred = model(x_test.to(device)).argmax(1).cpu()
    return loss.item(), (pred == y_test).float().mean().item()


# %%
# Train the LSTM classifier:
model = CloudClassifier(nn.LSTM).to(device)
last_loss, test_acc = train_and_test(model)
print(f"LSTM: last batch loss {last_loss:.3f}, test accuracy {test_acc:.3f}")
# sphinx_gallery_start_ignore
assert test_acc > 0.65, "the LSTM should beat guessing (0.25) by far"
# sphinx_gallery_end_ignore

# %%
# Test accuracy is far above the 25 % of guessing: the order in which the
# points arrive, bottom to top, is enough to tell the shapes apart.
#
# A lighter alternative: ``nn.GRU``
# ---------------------------------
# A GRU (gated recurrent unit) keeps a single state ``h``. Each step it
# computes two gates and a candidate state, three weight blocks where the
# LSTM has four (three gates and a candidate), so it returns
# ``(output, h_n)`` with no ``c_n`` and has three quarters of the
# parameters. The classifier above
# already handles both; only the layer type changes.
gru_model = CloudClassifier(nn.GRU).to(device)
gru_loss, gru_acc = train_and_test(gru_model)
print(f"GRU:  last batch loss {gru_loss:.3f}, test accuracy {gru_acc:.3f}")
for name, m in [("LSTM", model), ("GRU", gru_model)]:
    n_rnn = sum(p.numel() for p in m.rnn.parameters())
    print(f"{name} layer: {n_rnn} parameters")
with torch.no_grad():
    _, gru_state = gru_model.rnn(x_test[:5].to(device))
print(f"GRU state: one tensor of shape {tuple(gru_state.shape)}")
# sphinx_gallery_start_ignore
assert gru_acc > 0.65, "the GRU should beat guessing (0.25) by far"
assert abs(gru_acc - test_acc) < 0.05  # "about equally accurate"
assert 4 * sum(p.numel() for p in gru_model.rnn.parameters()) == 3 * sum(
    p.numel() for p in model.rnn.parameters()
)
# sphinx_gallery_end_ignore

# %%
# The two models end about equally accurate here, and the GRU's layer is a
# quarter smaller, since it has three weight blocks where the LSTM has four.
# Its state is one tensor, ``(layers, batch, hidden)``, where the LSTM's is a
# pair. Prefer a GRU when parameters, memory or time per step are tight and the
# sequences are short or medium; try an LSTM when a task needs memory over long
# spans, where its separate cell state often helps. Neither wins everywhere: on
# a new task, compare both on a validation split.
#
# Going deeper
# ------------
# Optional on a first read: the step-by-step ``nn.LSTMCell``, the states of
# stacked and bidirectional LSTMs, and batches of sequences of different
# lengths.
#
# The same computation one step at a time with ``nn.LSTMCell``
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``nn.LSTMCell`` does one step: ``x_t``, ``(batch, 3)``, and ``(h, c)``,
# each ``(batch, hidden)``, give the new ``(h, c)``. You write the time loop,
# which you need when a step depends on something outside the LSTM (sampling,
# attention). Both modules stack the four gates' weights in the same order,
# so the layer's ``weight_ih_l0`` and friends copy straight into the cell.
# The loop starts from zeros and feeds the *new* ``(h, c)`` back every step.


def lstm_by_steps(cell, points):
    h = points.new_zeros(len(points), cell.hidden_size)  # same device, dtype
    c = torch.zeros_like(h)
    outputs = []
    for t in range(points.shape[1]):
        h, c = cell(points[:, t], (h, c))
        outputs.append(h)
    return torch.stack(outputs, dim=1), (h, c)


# %%
# We compare on the CPU in float64, where both paths do the same arithmetic
# up to rounding, so a tight tolerance catches any real difference. The copy
# moves to the CPU first and is cast there: Apple's MPS has no float64, so
# one ``.to`` call that changes device and dtype together fails on MPS
# weights.
import copy

lstm64 = copy.deepcopy(model.rnn).cpu().double()
cell64 = nn.LSTMCell(3, 32, dtype=torch.float64)
with torch.no_grad():
    for name in ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]:
        getattr(cell64, name).copy_(getattr(lstm64, name + "_l0"))
batch64 = x_test[:256].double()
with torch.no_grad():
    fused_out, (fused_h, fused_c) = lstm64(batch64)
    step_out, (step_h, step_c) = lstm_by_steps(cell64, batch64)
gap = (fused_out - step_out).abs().max().item()
print(f"output {tuple(fused_out.shape)}, max |fused - steps| = {gap:.1e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(step_out, fused_out)
torch.testing.assert_close(step_h, fused_h[0])  # h_n has a leading layer dim
torch.testing.assert_close(step_c, fused_c[0])
# sphinx_gallery_end_ignore

# %%
# The loop reproduces the fused call to rounding, and the final ``(h, c)``
# of the loop are ``h_n[0]`` and ``c_n[0]``. The fused call runs the whole
# time loop inside one library call (cuDNN's on an NVIDIA GPU) instead of
# one Python call per step: use it unless a step needs input from outside
# the LSTM.
#
# States of stacked and bidirectional LSTMs
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Two layers, two directions: four recurrences, so the states are
# ``(num_layers * num_directions, batch, hidden)``, batch in dimension 1 even
# with ``batch_first=True``. ``output`` concatenates the last layer's two
# directions along its last dimension. Omitting the state means zeros.
bi = nn.LSTM(3, 16, num_layers=2, bidirectional=True, batch_first=True)
points = x_test[:3, :10]  # batch 3, 10 steps
with torch.no_grad():
    out, (h_n, c_n) = bi(points)
print(f"output {tuple(out.shape)}, h_n and c_n {tuple(h_n.shape)}")
h_layers = h_n.view(2, 2, 3, 16)  # (layers, directions, batch, hidden)
forward_end = torch.equal(h_layers[-1, 0], out[:, -1, :16])
backward_end = torch.equal(h_layers[-1, 1], out[:, 0, 16:])
print(f"last layer, forward state == output at the last step: {forward_end}")
print(f"last layer, backward state == output at step 0: {backward_end}")
print(f"h_n[-1] is the backward state: {torch.equal(h_n[-1], out[:, 0, 16:])}")
# sphinx_gallery_start_ignore
assert out.shape == (3, 10, 2 * 16) and h_n.shape == c_n.shape == (4, 3, 16)
assert forward_end and backward_end
# sphinx_gallery_end_ignore

# %%
# Each direction's final state sits at its own end of ``output``: the
# forward one after the last step, the backward one at step 0, since it read
# the sequence from the end. So for a bidirectional LSTM, ``h_n[-1]`` alone
# is only the backward summary; a classifier reads both directions of the
# last layer, ``torch.cat([h_n[-2], h_n[-1]], dim=1)``.
#
# Sequences of different lengths: packing
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Clouds of 12 to 32 points are padded to the longest (``pad_sequence``);
# ``pack_padded_sequence`` takes the true lengths (a CPU tensor or a list)
# and keeps only real points, so padding never reaches the LSTM and ``h_n``
# holds each sequence's state after *its own* last element. The clouds are
# made one length at a time, since ``make_clouds`` makes clouds of one size.
from torch.nn.utils.rnn import pack_padded_sequence, pad_sequence

var_gen = torch.Generator().manual_seed(1)
lengths = torch.randint(12, N_POINTS + 1, (1000,), generator=var_gen)
var_clouds = [None] * len(lengths)  # a list of (length_i, 3) tensors
var_labels = torch.empty(len(lengths), dtype=torch.long)
for n in lengths.unique().tolist():  # all clouds of one length at once
    members = (lengths == n).nonzero().squeeze(1)
    clouds, var_labels[members] = make_clouds(len(members), var_gen, n)
    for i, cloud in zip(members.tolist(), clouds):
        var_clouds[i] = cloud
padded = pad_sequence(var_clouds, batch_first=True)  # (1000, 32, 3)
packed = pack_padded_sequence(
    padded, lengths, batch_first=True, enforce_sorted=False
)
print(f"padded {tuple(padded.shape)}, packed data {tuple(packed.data.shape)}")
# sphinx_gallery_start_ignore
assert packed.data.shape[0] == lengths.sum()  # real points only
# sphinx_gallery_end_ignore

# %%
# The packed data holds one row per real point, fewer than the 32,000 rows
# of the padded tensor. The packed run gives each sequence the final state
# it gets when run alone, unpadded (compared for the first 20, in float64
# on the CPU):
with torch.no_grad():
    _, (packed_h, packed_c) = lstm64(packed.to(torch.float64))
    worst = 0.0
    for i in range(20):
        _, (alone_h, alone_c) = lstm64(var_clouds[i][None].double())
        worst = max(worst, (packed_h[:, i] - alone_h[:, 0]).abs().max().item())
print(f"max |packed h_n - alone h_n| over 20 clouds: {worst:.1e}")
# sphinx_gallery_start_ignore
assert worst < 1e-12
with torch.no_grad():
    for i in range(20):
        torch.testing.assert_close(
            packed_c[:, i], lstm64(var_clouds[i][None].double())[1][1][:, 0]
        )
# sphinx_gallery_end_ignore

# %%
# ``nn.LSTM`` accepts a ``PackedSequence`` and ``CloudClassifier`` reads
# ``h_n``, so the trained model classifies variable-length clouds with no
# code change. Fed the padded tensor instead, it reads extra points at the
# origin after each short cloud. (Packed sequences on Apple's MPS have an
# open bug report, pytorch/pytorch#102911, with crashes and missing
# gradients, so on MPS this comparison runs on the CPU.)
where = torch.device("cpu") if device.type == "mps" else device
model.to(where)
acc = {}
for name, x in [("packed", packed), ("padded", padded)]:
    with torch.no_grad():
        pred = model(x.to(where)).argmax(1).cpu()
    acc[name] = (pred == var_labels).float().mean().item()
    print(f"12 to 32 points, {name}: accuracy {acc[name]:.3f}")
# sphinx_gallery_start_ignore
assert test_acc > acc["packed"] > 0.5 and acc["packed"] > acc["padded"]
# sphinx_gallery_end_ignore
model.to(device)

# %%
# Packed, it is less accurate than on the 32-point test set, since it saw
# only 32-point clouds in training (training on mixed lengths would close
# much of the gap); padded, it does worse still.
#
# .. dropdown:: Coming from older PyTorch code?
#
#    - A loop that calls ``nn.LSTM`` on ``x[:, i]`` with states from
#      ``torch.randn(...).cuda()`` wrapped in ``Variable``: use
#      ``nn.LSTMCell`` for a step loop (or one ``nn.LSTM`` call on the whole
#      sequence). A 2-D input to ``nn.LSTM`` means one *unbatched* sequence,
#      so 3-D states for it are an error; a random start state gives random
#      outputs (omit it for zeros); ``.cuda()`` ties code to CUDA where
#      ``.to(device)`` does not; ``Variable`` is not needed, since tensors
#      carry autograd themselves (it is deprecated, and ``Variable(t)`` now
#      returns a tensor cut from the graph, as
#      :ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py` shows).
#    - Feeding the *old* ``cx`` back each step: feed the new ``(h, c)``
#      that the cell returned, or the memory is lost.
#    - ``r_out[:, -1, :]`` as the summary of a padded batch: that is the last
#      *padded* step, not each sequence's last element. Pack the batch and
#      read ``h_n[-1]`` (one direction) or ``h_n[-2:]`` (bidirectional).
#
# Takeaways
# ---------
# - ``nn.LSTM(..., batch_first=True)`` takes ``(batch, steps, features)`` and
#   returns ``output`` and ``(h_n, c_n)``; ``nn.GRU`` returns ``output`` and
#   ``h_n`` alone.
# - ``h_n[-1]`` is the last layer's final state of a one-direction net: a
#   good summary for a classifier. Bidirectional: take ``h_n[-2:]``.
# - A GRU has three quarters of an LSTM's parameters and often matches it;
#   compare both on validation data.
# - ``nn.LSTMCell`` is for loops that need outside input at each step;
#   ``pack_padded_sequence`` keeps padding out of the recurrence.
#
# Next, :ref:`sphx_glr_lessons_advanced_02_devices.py` shows what moves when
# a model and its data go to a GPU.
