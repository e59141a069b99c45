"""
LSTMs: whole sequences, single steps and padding
================================================

``nn.LSTM`` learns to name the shape behind a 3-D point cloud read as a
sequence; ``nn.LSTMCell`` redoes it step by step; a stacked bidirectional
LSTM shows the state shapes; ``pack_padded_sequence`` feeds ragged batches.
"""

# %%
# Setup
# -----
# The data is made on the CPU with its own generator: the same on any device.
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
# Each example is 32 points on a sphere, a cube, an open cylinder or a torus,
# randomly rotated, a little noisy, rescaled to a root-mean-square radius of
# 1. An LSTM needs an order, so a "scanner" reads each cloud from bottom to
# top: a sample is ``(points, 3)``, a batch ``(batch, points, 3)``.


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
# ``make_clouds`` rotates (a QR decomposition of a Gaussian matrix, with its
# determinant fixed to +1), adds noise, rescales and sorts by height.
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
torch.testing.assert_close(x_train.pow(2).sum(-1).mean(1), torch.ones(3000))
assert torch.all(x_train[:, 1:, 2] >= x_train[:, :-1, 2])  # sorted by height

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
# Height grows along each sequence (asserted above): the LSTM meets every
# cloud's points from bottom to top.
#
# The model: ``nn.LSTM`` over the whole sequence
# -----------------------------------------------
# ``nn.LSTM`` takes the whole ``(batch, steps, 3)`` tensor and returns
# ``output`` (the last layer's hidden state after every step) and
# ``(h_n, c_n)`` (every layer's states after the last step). The classifier
# reads ``h_n[-1]``, which, given a packed batch, is each sequence's state
# after its own last element (see packing below).
import torch.nn.functional as F
from torch import nn


class CloudClassifier(nn.Module):
    def __init__(self, hidden_size=32):
        super().__init__()
        self.lstm = nn.LSTM(3, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, len(SHAPES))

    def forward(self, points):
        output, (h_n, c_n) = self.lstm(points)  # no state given: zeros
        return self.head(h_n[-1])


model = CloudClassifier().to(device)

# %%
# Training
# --------
# Adam with a ``OneCycleLR`` schedule, and the gradient norm clipped, a common
# guard with recurrent nets against one huge step through the recurrence.
# The recipe is fixed, not tuned, so the test set is read once, at the end.
batch_size, n_epochs = 128, 12
optimizer = torch.optim.Adam(model.parameters())
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=3e-2, total_steps=n_epochs * math.ceil(3000 / 128)
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
test_acc = (pred == y_test).float().mean().item()
print(f"last batch loss {loss.item():.3f}, test accuracy {test_acc:.3f}")
assert test_acc > 0.65, "the LSTM should beat guessing (0.25) by far"

# %%
# Test accuracy is far above the 25 % of guessing.
#
# The same computation one step at a time with ``nn.LSTMCell``
# -------------------------------------------------------------
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
# up to rounding, so a tight tolerance catches any real difference:
import copy

lstm64 = copy.deepcopy(model.lstm).to("cpu", torch.float64)
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
torch.testing.assert_close(step_out, fused_out)
torch.testing.assert_close(step_h, fused_h[0])  # h_n has a leading layer dim
torch.testing.assert_close(step_c, fused_c[0])

# %%
# The loop reproduces the fused call, which runs the whole time loop in one
# library call: use it unless a step needs input from outside the LSTM.
#
# .. note:: Old code you may meet: a loop that calls ``nn.LSTM`` on
#    ``x[:, i]`` with 3-D ``hx``, ``cx`` from ``torch.randn(...).cuda()`` in
#    ``Variable``, feeding the old ``cx`` back. A 2-D input is one
#    *unbatched* sequence and 3-D states for it are an error (below); a stale
#    ``cx`` loses the memory, a random start gives random outputs, ``.cuda()``
#    ties code to CUDA, and ``Variable`` is not needed (tensors carry
#    autograd). Use ``nn.LSTMCell``, feed ``(h, c)`` back, start from zeros.
step_input = x_test[:4, 0]  # one time step of a batch of 4: (4, 3)
hx = cx = torch.zeros(1, 4, 32)  # (layers, batch, hidden), as the old loop
try:
    nn.LSTM(3, 32)(step_input, (hx, cx))
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
else:
    raise AssertionError("3-D states for a 2-D input should have failed")

# %%
# States of stacked and bidirectional LSTMs
# -----------------------------------------
# Two layers, two directions: four recurrences, so the states are
# ``(num_layers * num_directions, batch, hidden)``, batch in dimension 1 even
# with ``batch_first=True``. The last layer's forward direction ends at the
# last step, the backward one at step 0. Omitting the state means zeros.
bi = nn.LSTM(3, 16, num_layers=2, bidirectional=True, batch_first=True)
points = x_test[:3, :10]  # batch 3, 10 steps
h0 = torch.zeros(2 * 2, 3, 16)
out, (h_n, c_n) = bi(points, (h0, torch.zeros_like(h0)))
print(f"output {tuple(out.shape)}, h_n and c_n {tuple(h_n.shape)}")
assert out.shape == (3, 10, 2 * 16)  # both directions, concatenated
assert h_n.shape == c_n.shape == (2 * 2, 3, 16)
h_layers = h_n.view(2, 2, 3, 16)  # (layers, directions, batch, hidden)
torch.testing.assert_close(h_layers[-1, 0], out[:, -1, :16])
torch.testing.assert_close(h_layers[-1, 1], out[:, 0, 16:])
torch.testing.assert_close(bi(points)[0], out)

# %%
# Each direction's final state sits at its own end of ``output``.
#
# Sequences of different lengths: packing
# ---------------------------------------
# Clouds of 12 to 32 points are padded to the longest (``pad_sequence``);
# ``pack_padded_sequence`` takes the true lengths (a CPU tensor or a list)
# and keeps only real points, so padding never reaches the LSTM and ``h_n``
# holds each sequence's state after *its own* last element.
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
assert packed.data.shape[0] == lengths.sum()  # real points only

# %%
# The packed run gives each sequence the final state it gets when run alone,
# unpadded (checked for the first 20, in float64 on the CPU).
with torch.no_grad():
    _, (packed_h, packed_c) = lstm64(packed.to(torch.float64))
    for i in range(20):
        _, (alone_h, alone_c) = lstm64(var_clouds[i][None].double())
        torch.testing.assert_close(packed_h[:, i], alone_h[:, 0])
        torch.testing.assert_close(packed_c[:, i], alone_c[:, 0])
print("packed h_n == each cloud run alone, for the first 20")

# %%
# ``nn.LSTM`` accepts a ``PackedSequence`` and ``CloudClassifier`` reads
# ``h_n``, so the trained model classifies variable-length clouds with no
# code change, though less accurately than the 32-point test set: it saw
# only 32-point clouds in training. Fed the padded tensor, it reads extra
# points at the origin and does worse still.
model.eval()
acc = {}
for name, x in [("packed", packed), ("padded", padded)]:
    with torch.no_grad():
        pred = model(x.to(device)).argmax(1).cpu()
    acc[name] = (pred == var_labels).float().mean().item()
    print(f"12 to 32 points, {name}: accuracy {acc[name]:.3f}")
assert test_acc > acc["packed"] > 0.5 and acc["packed"] > acc["padded"]

# %%
# .. note:: Old code you may meet: ``r_out[:, -1, :]`` as the summary of a
#    padded batch. It is the last *padded* step, not each sequence's last
#    element; use ``h_n[-1]`` from a packed run.
#
# Where next
# ----------
# The recurrence written by hand with ``nn.Linear`` layers is in
# :ref:`sphx_glr_lessons_nn_06_rnn_from_scratch.py`; moving models and data
# between devices is in :ref:`sphx_glr_lessons_advanced_02_devices.py`.
