"""
A classic convolutional network
===============================

LeNet, a small convolutional network for 32x32 grayscale images, is the
"hello world" of ``torch.nn``. This lesson defines it, follows an input's
shape through convolution and pooling, counts where its weights sit, feeds it
single images as well as batches, backpropagates from its ten outputs without
a scalar loss, and fits it to one target.
"""

# %%
# Setup
# -----
# The training cycle (forward, loss, ``zero_grad``, backward, step) was taken
# apart in :ref:`sphx_glr_lessons_nn_01_nn_package.py` and
# :ref:`sphx_glr_lessons_nn_02_optim.py`; here the new part is the layers.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["beginner", "vision", "nn", "optim"]


# %%
# Defining the network
# --------------------
# Layers with weights are created in ``__init__``; operations without
# weights (ReLU, max pooling, flattening) are called as functions from
# ``torch.nn.functional`` in ``forward``. For a 1x32x32 input, a 5x5
# convolution trims 4 pixels (32 to 28), 2x2 max pooling halves (28 to 14),
# the second convolution gives 10 and pooling 5. So 16 channels of 5x5 reach
# the first fully connected layer, which has 16 * 5 * 5 = 400 inputs.
class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5)  # 1 channel in, 6 out
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)  # one score per class

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)  # (N, 6, 14, 14)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)  # (N, 16, 5, 5)
        x = torch.flatten(x, start_dim=1)  # (N, 400): keeps the batch dim
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = LeNet().to(device)
print(net)

# %%
# The shapes in the comments are checked by running the two convolution
# stages by hand on one input:
t = torch.randn(1, 1, 32, 32, device=device)
shapes = []
for conv in (net.conv1, net.conv2):
    t = conv(t)
    shapes.append(tuple(t.shape))
    t = F.max_pool2d(F.relu(t), 2)
    shapes.append(tuple(t.shape))
print(" -> ".join(str(s) for s in [(1, 1, 32, 32)] + shapes))
assert shapes == [
    (1, 6, 28, 28),
    (1, 6, 14, 14),
    (1, 16, 10, 10),
    (1, 16, 5, 5),
]

# %%
# .. note:: Old code you may meet: a ``num_flat_features`` helper that
#    multiplied the non-batch sizes together for ``x.view(-1, n)``.
#    ``torch.flatten(x, 1)`` (or an ``nn.Flatten()`` layer) does it in one
#    call.
#
# Where the weights are
# ---------------------
# Each convolution has ``out * in * k * k`` weights plus ``out`` biases;
# each linear layer ``out * in`` weights plus ``out`` biases. The counts per
# layer are worth a look.
counts = {
    name: sum(p.numel() for p in layer.parameters())
    for name, layer in net.named_children()
}
for name, n in counts.items():
    print(f"{name:6s} {n:6,d}")
total = sum(counts.values())
print(f"total  {total:,d}")
assert counts["conv1"] == 6 * 1 * 5 * 5 + 6
assert counts["conv2"] == 16 * 6 * 5 * 5 + 16
assert counts["fc1"] == 120 * 400 + 120
assert total == sum(p.numel() for p in net.parameters()) == 61_706
assert counts["fc1"] > 0.75 * total

# %%
# More than three quarters of the 61,706 numbers sit in ``fc1``. A
# convolution slides its small kernels over the whole image, so its weight
# count does not depend on the image size; a fully connected layer has one
# weight per pair of input and output numbers.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.bar(list(counts), list(counts.values()), color=["C0"] * 2 + ["C1"] * 3)
ax.set_yscale("log")
ax.set_xlabel("layer (blue: convolution, orange: fully connected)")
ax.set_ylabel("learnable numbers (log scale)")
ax.set_title("Where LeNet's 61,706 parameters sit")
fig.tight_layout()
plt.show()

# %%
# Mini-batches and single samples
# -------------------------------
# ``nn.Conv2d`` reads a 4-D tensor ``(N, C, H, W)``: samples, channels,
# height, width. One image of shape ``(C, H, W)`` gets a batch dimension of
# size 1 with ``unsqueeze(0)``. (``nn.Conv2d`` alone also accepts an
# unbatched 3-D input, but our ``forward`` flattens from dimension 1 on,
# which assumes a batch dimension.) Samples in a batch do
# not interact: one image scores what it scored in the batch (to rounding).
net.eval()  # no dropout or batch norm here, but evaluate in eval mode
with torch.no_grad():
    batch = torch.randn(4, 1, 32, 32, device=device)  # four random "images"
    out = net(batch)
    image = batch[2]  # one sample, shape (1, 32, 32)
    single = net(image.unsqueeze(0))  # shape (1, 1, 32, 32)
    unbatched = net.conv1(image)  # no batch dimension in, none out
print(f"batch: {tuple(batch.shape)} -> {tuple(out.shape)}")
print(
    f"one sample: {tuple(image.unsqueeze(0).shape)} -> {tuple(single.shape)}"
)
# equal up to rounding: a GPU may pick other kernels for another batch size,
# and on recent NVIDIA GPUs convolutions round their inputs to TF32
torch.testing.assert_close(single, out[2:3], rtol=1e-3, atol=1e-4)
assert unbatched.shape == (6, 28, 28)

# %%
# .. note:: Old code you may meet:
#    ``input = Variable(torch.randn(1, 1, 32, 32))`` before calling the net.
#    ``Variable`` was merged into ``Tensor`` in PyTorch 0.4; modules take and
#    return plain tensors.
#
# Backward from a non-scalar output
# ---------------------------------
# ``backward()`` with no argument works only on an output with one element
# (the error says "scalar", but shape ``(1, 1)`` is accepted too).
# For the ``(1, 10)`` output, pass a tensor ``v`` of the same shape that
# says how much each entry matters: autograd then computes ``v`` times the
# Jacobian, which is the gradient of ``(out * v).sum()``.
net.train()
x = torch.randn(1, 1, 32, 32, device=device)
try:
    net(x).backward()
except RuntimeError as error:
    print(f"raised RuntimeError: {error}")
else:
    raise AssertionError("backward() of ten numbers should have failed")
net(x)[:, :1].backward()  # one element, shape (1, 1): no error
v = torch.randn(1, 10, device=device)
net.zero_grad()
net(x).backward(v)
with_v = [p.grad.clone() for p in net.parameters()]

net.zero_grad()
(net(x) * v).sum().backward()
for g, p in zip(with_v, net.parameters()):
    torch.testing.assert_close(g, p.grad)
print(f"conv1.weight.grad: shape {tuple(net.conv1.weight.grad.shape)}")

# %%
# Both ways give the same gradient for every one of the ten parameter
# tensors. (The graph that backward walks here can be listed with the
# helper of :ref:`sphx_glr_lessons_nn_04_dynamic_weight_sharing.py`.)
#
# A loss needs a target of the output's shape
# -------------------------------------------
# The target here is a made-up row of ten values. ``nn.MSELoss`` averages
# the squared differences, and the target should have the output's shape,
# ``(1, 10)``. A target of shape ``(10,)`` is broadcast against it, with a
# warning that the result is likely wrong; we catch that warning to show it.
# Four predictions of shape ``(4, 1)`` against four targets of shape
# ``(4,)`` show why: they broadcast to ``(4, 4)``, every prediction against
# every target.
import warnings

criterion = nn.MSELoss()
target = torch.arange(1.0, 11.0, device=device)  # shape (10,)
column = torch.arange(4.0).view(4, 1)  # a perfect fit of arange(4.0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loss_10 = criterion(net(x), target)
    loss_4 = criterion(column, torch.arange(4.0))
message = str(caught[0].message)
print(f"warned {caught[0].category.__name__}: {message.split('. ')[0]}.")
assert caught[0].category is UserWarning and "target size" in message
target = target.view(1, -1)  # the fix: shape (1, 10)
torch.testing.assert_close(loss_10, criterion(net(x), target))
print(f"(4, 1) against (4,): loss {loss_4:.2f} for a perfect fit")
assert loss_4 == 2.5 and criterion(column, torch.arange(4.0)[:, None]) == 0
int_target = torch.arange(1, 11, device=device).view(1, -1)  # int64
torch.testing.assert_close(criterion(net(x), int_target), loss_10)

# %%
# For ``(1, 10)`` against ``(10,)`` the broadcast happens to give the right
# number; for ``(4, 1)`` against ``(4,)`` a perfect fit scores 2.5 instead
# of 0. Match the shapes and the question does not arise.
#
# .. note:: Old code you may meet: ``target = Variable(torch.arange(1, 11))``
#    passed straight to ``MSELoss``. Besides the shape:
#    ``torch.arange(1, 11)`` is ``int64``. ``MSELoss`` promotes it to the
#    output's float type today (the last check above), but float bounds
#    (``arange(1.0, 11.0)``) say what is meant.

# %%
# Fitting one target
# ------------------
# Thirty Adam steps (see :ref:`sphx_glr_lessons_nn_02_optim.py`) drive the
# loss for this one input down. Real training feeds many different batches:
# :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py` trains a CNN on
# CIFAR-10.
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
losses = []
for step in range(30):
    optimizer.zero_grad()
    loss = criterion(net(x), target)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print(f"loss: step 0 {losses[0]:.4f}, step 29 {losses[-1]:.4f}")
assert losses[-1] < 0.1 * losses[0]

# %%
# The loss falls by more than a factor of ten in thirty steps.
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(losses, "o-", ms=3)
ax.set_yscale("log")
ax.set_xlabel("Adam step")
ax.set_ylabel("MSE loss (log scale)")
ax.set_title("LeNet fitting one input to a fixed target")
fig.tight_layout()
plt.show()
