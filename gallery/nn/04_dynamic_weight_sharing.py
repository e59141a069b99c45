"""
Control flow and weight sharing
===============================

PyTorch records the graph while ``forward`` runs, afresh on every call. So a
model's shape can be decided by ordinary Python ``for`` loops and ``if``
statements, and one layer can be applied as many times as you like. This
lesson builds a deliberately strange network that draws its depth at random
on every call by reusing one hidden layer, proves that the shared weights
collect the gradients of all their uses, and trains it.
"""

# %%
# Setup
# -----
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
# The graph that ``backward`` will walk hangs off the output's ``grad_fn``.
# A short search through it counts its nodes: one matrix multiply
# (``AddmmBackward0``) per linear layer applied, and one ``AccumulateGrad``
# per distinct parameter, the node that adds an incoming gradient into that
# parameter's ``.grad``. Each node lists the nodes of its inputs in
# ``next_functions``; this is the only graph walk of the nn lessons.
from collections import Counter


def count_graph_nodes(tensor):
    counts, seen, todo = Counter(), set(), [tensor.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        counts[type(node).__name__] += 1
        todo.extend(child for child, _ in node.next_functions)
    return counts


# %%
# Six calls, six freshly recorded graphs:
for call in range(6):
    counts = count_graph_nodes(net(x))
    repeats = net.last_repeats
    print(
        f"call {call}: {repeats + 1} hidden layer(s), "
        f"{counts['AddmmBackward0']} matrix multiplies, "
        f"{counts['AccumulateGrad']} parameter leaves"
    )
    assert counts["AddmmBackward0"] == repeats + 2
    assert counts["AccumulateGrad"] == (6 if repeats > 0 else 4)

# %%
# The number of multiplies follows the depth drawn on that call, but the
# number of parameter leaves does not: however often ``middle_linear`` runs,
# its weight and bias are the same two tensors, so every use feeds the same
# two ``AccumulateGrad`` nodes. See
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
# ``torch.autograd.grad`` returns those gradients instead of adding them
# into ``.grad``, so the check leaves the model untouched.
import copy

repeats = 3
net.zero_grad()
loss = loss_fn(net(x, repeats=repeats), y)
loss.backward()
shared_weight_grad = net.middle_linear.weight.grad.clone()
shared_bias_grad = net.middle_linear.bias.grad.clone()

copies = [copy.deepcopy(net.middle_linear) for _ in range(repeats)]
h = net.input_linear(x).clamp(min=0)
for layer in copies:
    h = layer(h).clamp(min=0)
unrolled_loss = loss_fn(net.output_linear(h), y)
torch.testing.assert_close(unrolled_loss, loss)

# %%
# The gradients of the three copies add up to the shared layer's gradient;
# no single one of them equals it. No ``.grad`` of the model changed.
grads_before = [p.grad.clone() for p in net.parameters()]
grads = torch.autograd.grad(
    unrolled_loss, [p for layer in copies for p in (layer.weight, layer.bias)]
)
for p, before in zip(net.parameters(), grads_before):
    assert torch.equal(p.grad, before)
copy_weight_grads, copy_bias_grads = grads[0::2], grads[1::2]
for i, grad in enumerate(copy_weight_grads):
    print(f"use {i + 1}: weight gradient norm {grad.norm().item():.4f}")
print(f"sum of the three: {sum(copy_weight_grads).norm().item():.4f}")
print(f"shared layer:     {shared_weight_grad.norm().item():.4f}")

torch.testing.assert_close(sum(copy_weight_grads), shared_weight_grad)
torch.testing.assert_close(sum(copy_bias_grads), shared_bias_grad)
for grad in copy_weight_grads:  # no single use explains it
    assert not torch.allclose(grad, shared_weight_grad)

# %%
# In Lua Torch, which PyTorch grew out of, a module stored the output of its
# last call, so a second use in the same graph overwrote the first; sharing
# meant cloning modules with tied weights (see
# :ref:`sphx_glr_lessons_advanced_04_for_lua_torch_users.py`). Here the
# graph remembers each use, and reuse is just a second call.
#
# Training
# --------
# We train with SGD and momentum, a combination that did well in
# :ref:`sphx_glr_lessons_nn_02_optim.py`. One detail: when a call draws zero
# repeats, ``middle_linear`` is not used and its gradient stays ``None``
# after ``zero_grad()``. PyTorch's optimizers skip such parameters entirely,
# so on those steps the shared layer does not move at all, not even by
# momentum.
optimizer = torch.optim.SGD(net.parameters(), lr=1e-4, momentum=0.9)
losses, depths, skipped = [], [], 0
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
        assert torch.equal(net.middle_linear.weight, before)
        skipped += 1
assert skipped > 0
print(f"steps that left middle_linear untouched: {skipped}")


# %%
# Over the last 100 steps, each depth's loss stays below 5% of the first
# loss: it learned at every depth, not just on average.
final = sum(losses[-50:]) / 50
print(f"first loss {losses[0]:.4g}, mean of the last 50: {final:.4g}")
print(f"steps per depth: {dict(sorted(Counter(depths).items()))}")
assert final < 0.01 * losses[0]
assert set(depths) == {1, 2, 3, 4}  # one set of weights served all four
for depth in sorted(set(depths)):
    late = [
        loss for loss, d in zip(losses[-100:], depths[-100:]) if d == depth
    ]
    print(f"depth {depth}: mean late loss {sum(late) / len(late):.3f}")
    assert max(late) < 0.05 * losses[0], depth

# %%
# All four depths train one shared set of weights, and the plot shows the
# loss falling for each of them.
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
