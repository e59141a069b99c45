"""
Neural networks, the classic way
================================

The small convolutional network in the style of LeNet, for 32x32 grayscale
images, is the "hello world" of ``torch.nn``. This lesson defines it, looks at
its parameters, pushes an input through it, follows one backward pass into the
gradient buffers and the autograd graph, and updates the weights twice: once
by hand and once with ``torch.optim``, checking that the two agree.

.. tags:: beginner, vision, nn, optim
"""

# %%
# Setup
# -----
# Training any network repeats the same cycle: run a batch of inputs through
# it, measure how wrong the outputs are with a loss, backpropagate to get the
# gradient of the loss with respect to every weight, and nudge each weight
# against its gradient. This lesson takes that cycle apart one step at a time.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")

# %%
# Defining the network
# --------------------
# Layers that hold weights are created in ``__init__`` and become attributes,
# which registers their parameters with the module. ``forward`` says how data
# flows; operations without weights (ReLU, max pooling, flattening) can be
# called as functions from ``torch.nn.functional`` there. Nobody writes a
# ``backward``: autograd derives it from whatever ``forward`` did.
#
# The shapes for a 1x32x32 input: a 5x5 convolution trims 4 pixels (32 to 28),
# 2x2 max pooling halves (28 to 14), the second convolution gives 10 and
# pooling 5. So 16 channels of 5x5 reach the first fully connected layer,
# which therefore has 16 * 5 * 5 = 400 inputs.


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(
            1, 6, kernel_size=5
        )  # 1 input channel, 6 output channels
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)  # one score per class

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)  # (N, 6, 14, 14)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)  # (N, 16, 5, 5)
        x = torch.flatten(x, start_dim=1)  # (N, 400): keep the batch dimension
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = LeNet().to(device)
print(net)

# %%
# .. note:: Old code you may meet: a ``num_flat_features`` helper that
#    multiplied the non-batch sizes together for ``x.view(-1, n)``.
#    ``torch.flatten(x, 1)`` (or an ``nn.Flatten()`` layer) does the same in
#    one call, and ``flatten`` also works on non-contiguous tensors where
#    ``view`` raises an error.
#
# In ``view`` and ``reshape`` one size may be ``-1``, meaning "whatever makes
# the element count work out":
a = torch.arange(1, 17)  # 1, 2, ..., 16
print(a.view(4, 4).shape, a.view(-1, 8).shape, a.view(2, -1, 2).shape)
assert a.view(-1, 8).shape == (2, 8)

# %%
# Parameters
# ----------
# ``net.parameters()`` yields every learnable tensor, and
# ``named_parameters()`` adds the attribute path. Each layer contributes a
# weight and a bias, so five layers give ten tensors.
params = list(net.parameters())
print(
    f"{len(params)} parameter tensors; the first is conv1.weight, {tuple(params[0].shape)}"
)
for name, p in net.named_parameters():
    print(f"  {name:12s} {str(tuple(p.shape)):16s} {p.numel():6d}")
total = sum(p.numel() for p in params)
print(f"total: {total:,} learnable numbers")

# Count them by hand: each conv has out*in*k*k weights + out biases,
# each linear layer out*in weights + out biases.
by_hand = (
    (6 * 1 * 5 * 5 + 6)
    + (16 * 6 * 5 * 5 + 16)
    + (120 * 400 + 120)
    + (84 * 120 + 84)
    + (10 * 84 + 10)
)
assert len(params) == 10 and total == by_hand == 61_706

# %%
# Almost 50,000 of the 61,706 numbers sit in ``fc1``: fully connected layers
# are expensive, convolutions share a small kernel across the whole image.
#
# Forward: mini-batches and single samples
# ----------------------------------------
# Every layer in ``torch.nn`` is written for mini-batches: ``nn.Conv2d`` reads
# a 4-D tensor ``(N, C, H, W)``, samples by channels by height by width. One
# image of shape ``(C, H, W)`` gets a batch dimension of size 1 in front with
# ``unsqueeze(0)``. (Recent versions of ``nn.Conv2d`` also accept an unbatched
# 3-D input, but our ``forward`` flattens from dimension 1 on, which assumes a
# batch dimension; so do most models you will meet.)
batch = torch.randn(4, 1, 32, 32, device=device)  # four random "images"
out = net(batch)
print(f"batch of 4: input {tuple(batch.shape)} -> output {tuple(out.shape)}")

image = batch[2]  # one sample, shape (1, 32, 32)
single = net(image.unsqueeze(0))  # shape (1, 1, 32, 32)
print(
    f"one sample: {tuple(image.shape)} -> unsqueeze(0) -> {tuple(image.unsqueeze(0).shape)} "
    f"-> output {tuple(single.shape)}"
)
print("scores:", [round(v, 3) for v in single[0].tolist()])

# Samples in a batch do not interact: the single image scores what it scored in the batch.
torch.testing.assert_close(single, out[2:3])

# %%
# .. note:: Old code you may meet: ``input = Variable(torch.randn(1, 1, 32, 32))``
#    before calling the net. ``Variable`` was merged into ``Tensor`` in
#    PyTorch 0.4; modules take and return plain tensors.
#
# Backward with an explicit gradient
# ----------------------------------
# ``backward()`` with no argument only works on a scalar. For the ``(1, 10)``
# output we must say how much each output entry matters, by passing a tensor of
# the same shape: autograd then computes that vector times the Jacobian, the
# gradient of ``(out * v).sum()``. A random ``v`` is enough to exercise the
# whole graph.
x = torch.randn(1, 1, 32, 32, device=device)
net.zero_grad()
out = net(x)
out.backward(torch.randn(1, 10, device=device))
print(
    f"conv1.weight.grad: shape {tuple(net.conv1.weight.grad.shape)}, "
    f"norm {net.conv1.weight.grad.norm():.4f}"
)
assert all(p.grad is not None for p in net.parameters())

# %%
# A loss function
# ---------------
# A loss compares the output with a target and returns one number. Here the
# target is a made-up row of ten values, and ``nn.MSELoss`` averages the
# squared differences. The target must have the output's shape, ``(1, 10)``,
# and a floating dtype.
criterion = nn.MSELoss()
target = torch.arange(1, 11, dtype=torch.float32, device=device).view(1, -1)
output = net(x)
loss = criterion(output, target)
print(f"loss: {loss.item():.4f}")

# %%
# .. note:: Old code you may meet: ``target = Variable(torch.arange(1, 11))``
#    passed straight to ``MSELoss``. Today ``torch.arange(1, 11)`` gives
#    ``int64`` (it used to give floats), and its shape ``(10,)`` differs from
#    the output's ``(1, 10)``: ``MSELoss`` broadcasts and warns that the result
#    is likely wrong. Give the target the output's shape and a float dtype.
#
# Following the graph backwards
# -----------------------------
# ``loss`` remembers how it was made: ``loss.grad_fn`` is the backward node of
# the last operation, and each node lists its inputs' nodes in
# ``next_functions``. Walking from the loss towards the input retraces
# ``forward`` in reverse. At each node we print the names of its inputs and
# step to the first one that is an operation rather than a parameter.
# ``AccumulateGrad`` nodes are where gradients are stored into parameters'
# ``.grad``; ``TBackward0`` is the transpose of a ``Linear`` weight.


def input_names(node):
    return [
        type(n).__name__ if n is not None else "None"
        for n, _ in node.next_functions
    ]


node, path = loss.grad_fn, []
while node is not None:
    print(f"{type(node).__name__:31s} <- {', '.join(input_names(node))}")
    path.append(type(node).__name__)
    ops = [
        n
        for n, _ in node.next_functions
        if n is not None
        and type(n).__name__ not in ("AccumulateGrad", "TBackward0")
    ]
    node = ops[0] if ops else None

assert path[0] == "MseLossBackward0" and path[-1] == "ConvolutionBackward0"
assert (
    path.count("ConvolutionBackward0") == 2
    and path.count("AddmmBackward0") == 3
)

# %%
# The walk ends at ``conv1``: its input node is ``None`` because the input
# image does not require a gradient. One more check: a full traversal of the
# graph finds exactly one ``AccumulateGrad`` node per parameter, and its
# ``.variable`` *is* that parameter.
seen, stack, leaves = set(), [loss.grad_fn], []
while stack:
    node = stack.pop()
    if node is None or node in seen:
        continue
    seen.add(node)
    if type(node).__name__ == "AccumulateGrad":
        leaves.append(node.variable)
    stack.extend(n for n, _ in node.next_functions)

print(f"{len(seen)} nodes in the graph, {len(leaves)} of them AccumulateGrad")
assert {id(v) for v in leaves} == {id(p) for p in net.parameters()}

# %%
# Backpropagating the loss
# ------------------------
# Gradients *accumulate*: ``backward`` adds into ``.grad``. So before each
# backward pass the buffers are cleared with ``zero_grad()``, which by default
# sets them to ``None`` (no memory, no work) rather than filling them with
# zeros. Watch the bias of ``conv1``:
net.zero_grad()
print("conv1.bias.grad before backward:", net.conv1.bias.grad)
assert net.conv1.bias.grad is None

loss.backward()
first = net.conv1.bias.grad.clone()
print(
    "conv1.bias.grad after backward: ", [round(v, 4) for v in first.tolist()]
)
assert first.abs().sum() > 0

# %%
# Forgetting ``zero_grad`` silently adds the next gradient to the old one.
# A second backward of the same loss doubles the buffer:
loss = criterion(net(x), target)
loss.backward()
torch.testing.assert_close(net.conv1.bias.grad, 2 * first)
print(
    "after a second backward without zero_grad:",
    [round(v, 4) for v in net.conv1.bias.grad.tolist()],
)

net.zero_grad(
    set_to_none=False
)  # the old behaviour: keep the tensors, fill with 0
print("zero_grad(set_to_none=False):", net.conv1.bias.grad.tolist())
assert torch.count_nonzero(net.conv1.bias.grad) == 0

# %%
# .. note:: Old code you may meet: printouts where ``conv1.bias.grad`` is a
#    column of zeros after ``zero_grad()``. Since PyTorch 2.0 ``zero_grad``
#    defaults to ``set_to_none=True``, so the buffer is ``None`` until the
#    next backward writes it; code that reads ``.grad`` right after
#    ``zero_grad`` must allow for ``None``.
#
# Updating the weights by hand
# ----------------------------
# Plain stochastic gradient descent moves every weight a small step against
# its gradient: ``w = w - learning_rate * grad``. The update must not itself be
# recorded by autograd, hence ``torch.no_grad()``. To compare with
# ``torch.optim`` later, we make two identical copies of the network.
import copy

lr = 0.01
net_manual = copy.deepcopy(net)
net_optim = copy.deepcopy(net)
start = [p.detach().clone() for p in net.parameters()]

net_manual.zero_grad()
criterion(net_manual(x), target).backward()
with torch.no_grad():
    for p in net_manual.parameters():
        p -= lr * p.grad

# %%
# .. note:: Old code you may meet: ``f.data.sub_(f.grad.data * learning_rate)``.
#    Going through ``.data`` hides the change from autograd without any check;
#    an in-place update inside ``torch.no_grad()`` says the same thing
#    explicitly and is the supported way.
#
# The same update with ``torch.optim``
# ------------------------------------
# ``torch.optim.SGD`` does exactly this loop over the parameters it was given,
# and its relatives (momentum, Adam, RMSprop, ...) differ only in the update
# rule. The training-loop idiom is: zero the gradients, forward, loss,
# backward, ``step()``.
optimizer = torch.optim.SGD(net_optim.parameters(), lr=lr)
optimizer.zero_grad()
criterion(net_optim(x), target).backward()
optimizer.step()

max_diff = max(
    (a - b).abs().max().item()
    for a, b in zip(net_manual.parameters(), net_optim.parameters())
)
moved = max(
    (p - s).abs().max().item() for p, s in zip(net_optim.parameters(), start)
)
print(f"largest weight change from the step: {moved:.2e}")
print(f"largest difference, manual vs torch.optim: {max_diff:.1e}")
assert moved > 0
for a, b in zip(net_manual.parameters(), net_optim.parameters()):
    torch.testing.assert_close(a, b)

# %%
# Both copies started from the same weights and took the same step; they agree
# to floating-point rounding (the optimizer fuses the multiply and the
# subtraction, which can change the last bit).
#
# A few more steps, and another update rule
# -----------------------------------------
# Repeating the cycle on this one input drives its loss down, which is all
# that "training" means here (real training feeds many different batches; see
# :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`). Swapping the update
# rule is a one-line change: below, Adam replaces SGD. It scales each weight's
# step by a running estimate of its gradient's size, which copes better with
# this deliberately awkward target (values up to 10 from an untrained net) than
# plain SGD, whose steps here are either tiny or blow up. Adam's momentum also
# makes it overshoot and bounce a little on the way down, as the plot shows.
optimizer = torch.optim.Adam(net_optim.parameters(), lr=1e-3)
losses = []
for step in range(30):
    optimizer.zero_grad()
    loss = criterion(net_optim(x), target)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print(
    f"loss: step 0 {losses[0]:.4f}, step 10 {losses[10]:.4f}, step 29 {losses[-1]:.4f}"
)
assert losses[-1] < 0.1 * losses[0]

import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(losses, "o-", ms=3)
ax.set_yscale("log")
ax.set_xlabel("Adam step")
ax.set_ylabel("MSE loss (log scale)")
ax.set_title("LeNet fitting one input to a fixed target")
fig.tight_layout()
plt.show()
