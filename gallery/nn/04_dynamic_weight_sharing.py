"""
Control flow and weight sharing
===============================

PyTorch records the graph while ``forward`` runs, afresh on every call. So a
model's shape can be decided by ordinary Python ``for`` loops and ``if``
statements, and one layer can be applied as many times as you like. This
lesson builds a deliberately strange network that draws its depth at random
on every call by reusing one hidden layer, shows that the shared weights
collect the gradients of all their uses, and trains it. Optional on a first
read: the core path goes on with
:ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`.

**You will learn** to use Python control flow in ``forward``, to reuse one
layer several times, how autograd adds up the gradients of a shared weight,
and how to walk the recorded graph.

**You need first** :ref:`sphx_glr_lessons_nn_03_custom_module.py`.
"""

# %%
# Setup
# -----
# The random data and the loss of
# :ref:`sphx_glr_lessons_nn_01_nn_package.py`.
import torch
from torch import nn

torch.manual_seed(0)
if torch.accelerator.is_available():  # e.g. CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")

N, D_in, H, D_out = 64, 1000, 100, 10
x = torch.randn(N, D_in).to(device)
y = torch.randn(N, D_out).to(device)
loss_fn = nn.MSELoss(reduction="sum")
# sphinx_gallery_tags = ["intermediate", "nn", "autograd"]


# %%
# A network with a random depth
# -----------------------------
# Three linear layers, but a variable number of hidden layers: after the
# input layer, ``forward`` applies the *same* ``middle_linear`` between zero
# and three times, so each call has one to four hidden layers. The number
# is drawn with ``torch.randint``, so the lesson's seed makes the sequence
# of depths reproducible. Passing ``repeats`` fixes it, which we need for the
# checks below.
class DynamicNet(nn.Module):
    def __init__(self, d_in, hidden, d_out, max_repeats=3):
        super().__init__()
        self.input_linear = nn.Linear(d_in, hidden)
        self.middle_linear = nn.Linear(hidden, hidden)
        self.output_linear = nn.Linear(hidden, d_out)
        self.max_repeats = max_repeats
        self.last_repeats = None  # a plain int, for inspection only

    def forward(self, x, repeats=None):
        if repeats is None:
            repeats = int(torch.randint(0, self.max_repeats + 1, ()))
        self.last_repeats = repeats
        h = self.input_linear(x).clamp(min=0)
        for _ in range(repeats):  # a Python loop decides the depth
            h = self.middle_linear(h).clamp(min=0)
        return self.output_linear(h)


net = DynamicNet(D_in, H, D_out).to(device)
print(net)

# %%
# A new graph on every call
# -------------------------
# The graph that ``backward`` will walk (see
# :ref:`sphx_glr_lessons_basics_04_autograd.py`) hangs off the output's
# ``grad_fn``; each node lists the nodes of its inputs in
# ``next_functions``. The walk ends at one ``AccumulateGrad`` node per
# parameter, the node that adds an incoming gradient into that parameter's
# ``.grad``; its ``variable`` attribute is the parameter. A short search
# counts, for each parameter, how many nodes send a gradient to it: that is
# how many times ``forward`` used it.
from collections import Counter


def count_uses(tensor, model):
    names = {p: name for name, p in model.named_parameters()}
    uses, seen, todo = Counter(), set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for child, _ in node.next_functions:
            if hasattr(child, "variable"):  # an AccumulateGrad node
                uses[names[child.variable]] += 1
            todo.append(child)
    return uses, seen


# %%
# Six calls, six freshly recorded graphs:
for call in range(6):
    uses, nodes = count_uses(net(x), net)
    repeats = net.last_repeats
    print(
        f"call {call}: {repeats + 1} hidden layer(s), middle_linear used "
        f"{uses['middle_linear.weight']} time(s), {len(uses)} parameters"
    )
    # sphinx_gallery_start_ignore
    assert uses["middle_linear.weight"] == repeats
    assert uses["middle_linear.bias"] == repeats
    assert uses["input_linear.weight"] == uses["output_linear.bias"] == 1
    assert len(uses) == (6 if repeats > 0 else 4)
    # sphinx_gallery_end_ignore
print(sorted({type(node).__name__ for node in nodes}))

# %%
# The uses of ``middle_linear`` follow the depth drawn on that call, but
# the parameters do not multiply: however often ``middle_linear`` runs, its
# weight and bias are the same two tensors, so every use feeds the same two
# ``AccumulateGrad`` nodes (when a call draws no repeat, only the four other
# parameters are reached). The last line lists the kinds of node in the
# last graph. They depend on the backend: on a CPU each linear layer
# records a matrix multiply, ``AddmmBackward0``, while other backends may
# record one node for the whole layer. That is why we counted uses, not
# node names. See
# :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py` for how a
# static-graph framework has to express such a loop instead.
#
# Shared weights add up their gradients
# -------------------------------------
# If a weight is used three times, the chain rule gives it the *sum* of three
# contributions. To see them one by one, unroll the network by hand: three
# separate deep copies of ``middle_linear``, each with the very same weights,
# stacked in place of the three reuses. The unrolled net computes the same
# loss, and each copy receives just the gradient of its own use.
import copy

repeats = 3
net.zero_grad()
loss = loss_fn(net(x, repeats=repeats), y)  # repeats=3 forces the depth
loss.backward()
shared_weight_grad = net.middle_linear.weight.grad.clone()
shared_bias_grad = net.middle_linear.bias.grad.clone()

copies = [copy.deepcopy(net.middle_linear) for _ in range(repeats)]
h = net.input_linear(x).clamp(min=0)
for layer in copies:
    h = layer(h).clamp(min=0)
unrolled_loss = loss_fn(net.output_linear(h), y)
print(f"loss {loss.item():.4f}, unrolled loss {unrolled_loss.item():.4f}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(unrolled_loss, loss)
# sphinx_gallery_end_ignore

# %%
# ``torch.autograd.grad`` returns the gradients of the copies instead of
# adding them into ``.grad``, so the model's own gradients stay as they
# are (we keep a copy to check). Printed are the norms (overall sizes) of
# the weight gradients:
grads_before = [p.grad.clone() for p in net.parameters()]
grads = torch.autograd.grad(
    unrolled_loss, [p for layer in copies for p in (layer.weight, layer.bias)]
)
# sphinx_gallery_start_ignore
for p, before in zip(net.parameters(), grads_before):
    assert torch.equal(p.grad, before)
# sphinx_gallery_end_ignore
copy_weight_grads, copy_bias_grads = grads[0::2], grads[1::2]
for i, grad in enumerate(copy_weight_grads):
    print(f"use {i + 1}: weight gradient norm {grad.norm().item():.4f}")
print(f"sum of the three: {sum(copy_weight_grads).norm().item():.4f}")
print(f"shared layer:     {shared_weight_grad.norm().item():.4f}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(sum(copy_weight_grads), shared_weight_grad)
torch.testing.assert_close(sum(copy_bias_grads), shared_bias_grad)
for grad in copy_weight_grads:  # no single use explains it
    assert not torch.allclose(grad, shared_weight_grad)
# sphinx_gallery_end_ignore

# %%
# The three uses get different gradients, and their sum is the shared
# layer's gradient (the norms of a sum need not add up, the sums do).
#
# Training
# --------
# We train with SGD and momentum, a combination that did well in
# :ref:`sphx_glr_lessons_nn_02_optim.py`. One detail: when a call draws zero
# repeats, ``middle_linear`` is not used and its gradient stays ``None``
# after ``zero_grad()``. SGD skips parameters whose ``.grad`` is ``None``
# (so does Adam), so on those steps the shared layer does not move at all,
# not even by momentum.
optimizer = torch.optim.SGD(net.parameters(), lr=1e-4, momentum=0.9)
losses, depths, skipped, untouched = [], [], 0, 0
for t in range(400):
    loss = loss_fn(net(x), y)
    losses.append(loss.item())
    depths.append(net.last_repeats + 1)
    if t % 100 == 0 or t == 399:
        print(f"step {t:3d}   depth {depths[-1]}   loss {loss.item():.4g}")

    optimizer.zero_grad()
    loss.backward()
    unused = net.middle_linear.weight.grad is None
    before = net.middle_linear.weight.detach().clone()
    optimizer.step()
    if unused:
        skipped += 1
        untouched += torch.equal(net.middle_linear.weight, before)
print(f"steps without a gradient for middle_linear: {skipped}, ", end="")
print(f"of which it stayed untouched: {untouched}")
# sphinx_gallery_start_ignore
assert skipped > 0 and untouched == skipped
# sphinx_gallery_end_ignore


# %%
# How well does each depth do at the end? The losses of the last 100 steps,
# sorted by the depth each step drew:
final = sum(losses[-100:]) / 100
print(f"first loss {losses[0]:.4g}, mean of the last 100: {final:.4g}")
print(f"steps per depth: {dict(sorted(Counter(depths).items()))}")
late_mean = {}
for depth in sorted(set(depths)):
    late = [
        loss for loss, d in zip(losses[-100:], depths[-100:]) if d == depth
    ]
    late_mean[depth] = sum(late) / len(late)
    print(f"depth {depth}: late loss mean {late_mean[depth]:.3f}, ", end="")
    print(f"max {max(late):.3f}")
    # sphinx_gallery_start_ignore
    assert max(late) < 0.02 * losses[0], depth
    assert late_mean[depth] < 0.005 * losses[0], depth
    # sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
assert final < 0.01 * losses[0]
assert late_mean[4] > 2 * late_mean[1]
assert set(depths) == {1, 2, 3, 4}  # one set of weights served all four
# sphinx_gallery_end_ignore

# %%
# At every depth the late losses stay below 2% of the first loss, and
# their means below 0.5%. The deeper nets end clearly higher: at depth 4
# the late mean is more than twice that of depth 1. One shared
# set of weights learned to serve all four depths, not just their average.
# The plot shows the loss falling for each of them.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 4.5))
steps = torch.arange(len(losses))
depths_t = torch.tensor(depths)
losses_t = torch.tensor(losses)
for depth in range(1, net.max_repeats + 2):
    picked = depths_t == depth
    ax.scatter(
        steps[picked], losses_t[picked], s=6, label=f"{depth} hidden layer(s)"
    )
ax.set_yscale("log")
ax.set_xlabel("step")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title("DynamicNet: depth drawn anew at every step")
ax.legend(markerscale=2)
ax.grid(True, which="both", alpha=0.3)
plt.show()

# %%
# Going deeper
# ------------
# Optional on a first read: when an unused parameter does move after all,
# and how Lua Torch handled shared layers.
#
# Parameters without a gradient
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The training above relied on two defaults. ``zero_grad()`` sets gradients
# to ``None``; with ``zero_grad(set_to_none=False)`` they become zeros
# instead, SGD no longer skips the parameter, and momentum keeps moving it
# on a step that did not use it. And not every optimizer skips a ``None``
# gradient: ``torch.optim.LBFGS`` reads it as zeros and can still move the
# parameter along its remembered directions. The first case, on a copy of
# the trained net:
probe = copy.deepcopy(net)
optimizer = torch.optim.SGD(probe.parameters(), lr=1e-4, momentum=0.9)
for repeats in (1, 0):  # one step that uses middle_linear, one that does not
    optimizer.zero_grad(set_to_none=False)
    loss_fn(probe(x, repeats=repeats), y).backward()
    before = probe.middle_linear.weight.detach().clone()
    optimizer.step()
moved = (probe.middle_linear.weight - before).abs().max().item()
print(f"unused, with zeroed gradients: middle_linear moved by {moved:.1e}")
# sphinx_gallery_start_ignore
assert moved > 0
# sphinx_gallery_end_ignore

# %%
# Sharing in Lua Torch
# ~~~~~~~~~~~~~~~~~~~~
# In Lua Torch, which PyTorch grew out of, a module stored the output of its
# last call, so a second use in the same graph overwrote the first; sharing
# meant cloning modules with tied weights (see
# :ref:`sphx_glr_lessons_advanced_04_for_lua_torch_users.py`). In PyTorch
# the graph remembers each use, and reuse is just a second call.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``optimizer.zero_grad()`` before PyTorch 2.0 filled gradients with
#      zeros. Since 2.0 it sets them to ``None`` (``set_to_none=True``), so
#      SGD skips a parameter the step did not use instead of moving it by
#      momentum (see "Going deeper").

# %%
# Takeaways
# ---------
# - ``forward`` is ordinary Python: loops and ``if`` statements shape the
#   graph, which is recorded anew on every call.
# - Calling one layer several times shares its weights; nothing else is
#   needed.
# - A shared weight receives the *sum* of the gradients of all its uses.
# - The recorded graph can be walked from ``grad_fn`` through
#   ``next_functions``; count what you need (uses of a parameter), not the
#   names of nodes, which depend on the backend.
#
# Next, :ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py` goes on
# with the core path: real datasets in shuffled mini-batches.
