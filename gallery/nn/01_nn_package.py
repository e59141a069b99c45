"""
The nn package: layers, losses and parameters
=============================================

The basics lessons built the two-layer ReLU network from bare weight tensors
and a hand-written forward pass. ``torch.nn`` packages those pieces: layers
that create and own their weights, ready-made loss functions, and a
``state_dict`` that names every weight. This lesson rebuilds the same network
with ``nn.Sequential`` and trains it by gradient descent written by hand.
"""

# %%
# Data and device
# ---------------
# Same sizes as the basics chain: 64 samples with 1000 features each, a
# hidden layer of 100 units and 10 outputs. The random tensors are drawn on
# the CPU and then moved, so every device starts from the same numbers.
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
# sphinx_gallery_tags = ["beginner", "nn"]

# %%
# A model is a stack of modules
# -----------------------------
# A *module* is an object that holds state (usually learnable weights) and
# knows how to turn inputs into outputs. ``nn.Linear(D_in, H)`` stores a
# weight of shape ``(H, D_in)`` and a bias of shape ``(H,)`` and computes
# ``x @ weight.T + bias``; ``nn.ReLU`` has no state at all.
# ``nn.Sequential`` is itself a module: it feeds its input through its
# children in the order given. ``.to(device)`` moves every weight inside
# the model in one call. You run a module by calling it: ``model(x)`` runs
# ``forward`` plus any hooks attached to the model (see
# :ref:`sphx_glr_lessons_nn_08_hooks.py`), so avoid ``model.forward(x)``.
# To show there is no magic, we unpack the three children and redo the
# arithmetic by hand.
model = nn.Sequential(nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out))
model.to(device)
print(model)
y_pred = model(x)

first, relu, second = model  # a Sequential can be indexed and iterated
hidden = torch.clamp(x @ first.weight.T + first.bias, min=0)
by_hand = hidden @ second.weight.T + second.bias
torch.testing.assert_close(y_pred, by_hand)
print(f"output shape: {tuple(y_pred.shape)}")

# %%
# Parameters
# ----------
# The weights of a layer are ``nn.Parameter`` objects: tensors with
# ``requires_grad=True`` that a module records as its learnable state.
# ``named_parameters()`` walks the whole tree of modules. In a ``Sequential``
# the names are the children's positions: ``0`` and ``2`` but no ``1``,
# since the ReLU owns nothing.
for name, p in model.named_parameters():
    shape = str(tuple(p.shape))
    print(f"{name:9s} shape={shape:12s} requires_grad={p.requires_grad}")

n_params = sum(p.numel() for p in model.parameters())
print(f"learnable numbers in total: {n_params:,}")
assert n_params == D_in * H + H + H * D_out + D_out
assert {name[0] for name, _ in model.named_parameters()} == {"0", "2"}
assert all(p.requires_grad for p in model.parameters())
assert dict(first.named_parameters())["weight"] is first.weight  # recorded

# %%
# Unlike the ``torch.randn`` weights of the basics lessons, a fresh
# ``nn.Linear`` draws its weight and bias uniformly from
# :math:`[-1/\sqrt{n}, 1/\sqrt{n}]`, where :math:`n` is ``in_features``.
# So the outputs start small: here less than half the spread of the
# unit-variance targets.
for layer in (first, second):
    bound = layer.in_features**-0.5
    assert layer.weight.abs().max() <= bound
    assert layer.bias.abs().max() <= bound
    print(f"{layer.in_features} inputs: every entry within +/-{bound:.4f}")
print(f"output std {y_pred.std():.3f}, target std {y.std():.3f}")
assert y_pred.std() < 0.5 * y.std()

# %%
# Loss functions
# --------------
# ``torch.nn`` also ships the usual losses as modules. ``nn.MSELoss`` squares
# the differences; ``reduction="sum"`` keeps the sum of squares of the basics
# lessons, while the default, ``"mean"``, divides by the number of elements
# (here :math:`64 \times 10 = 640`), and so every gradient too.
loss_fn = nn.MSELoss(reduction="sum")
loss = loss_fn(y_pred, y)
torch.testing.assert_close(loss, ((y_pred - y) ** 2).sum())
mean_loss = nn.MSELoss()(y_pred, y)
torch.testing.assert_close(mean_loss, loss / y.numel())
(g_sum,) = torch.autograd.grad(loss, first.bias, retain_graph=True)
(g_mean,) = torch.autograd.grad(mean_loss, first.bias)
torch.testing.assert_close(g_mean, g_sum / y.numel())
print(f"sum of squares: {loss.item():.4f}   mean: {mean_loss.item():.4f}")

# %%
# .. note:: Old code you may meet: ``nn.MSELoss(size_average=False)``. The
#    booleans ``size_average`` and ``reduce`` were merged into ``reduction``;
#    ``size_average=False`` is ``reduction="sum"``. Likewise ``loss.data[0]``
#    is now ``loss.item()``; ``Variable(t)`` is no longer needed: use ``t``.

# %%
# The state dict
# --------------
# ``model.state_dict()`` maps each name to its tensor. It is what you save
# and reload (the next lesson does both, in a checkpoint). Its tensors are
# detached, but they share memory with the live parameters: when training
# changes the model, the dict changes too. To keep a snapshot, clone it.
state = model.state_dict()
print(list(state))
assert state["0.weight"].data_ptr() == first.weight.data_ptr()  # same memory
assert not state["0.weight"].requires_grad
initial_state = {name: t.clone() for name, t in state.items()}

# %%
# Gradients add up until you clear them
# -------------------------------------
# ``backward()`` *adds* into each parameter's ``.grad``: two backward passes
# over the same batch give twice the gradient of one. ``model.zero_grad()``
# clears the gradients of every parameter; by default it sets them to
# ``None`` (no memory held, and "no gradient yet" differs from "zero").
loss_fn(model(x), y).backward()
once = first.bias.grad.clone()
loss_fn(model(x), y).backward()
torch.testing.assert_close(first.bias.grad, 2 * once)
print(f"bias grad norm: {once.norm():.2f} after one backward,")
print(f"                {first.bias.grad.norm():.2f} after two")

model.zero_grad()
assert all(p.grad is None for p in model.parameters())

# %%
# Why the update needs ``torch.no_grad()``
# ----------------------------------------
# A gradient-descent step changes each parameter in place. That change must
# not become part of the graph autograd records. Parameters are *leaf*
# tensors (created by you, not computed from other tensors), and autograd
# refuses an in-place change to a leaf that requires gradients:
p = first.bias
assert p.is_leaf and p.requires_grad
try:
    p -= 1e-4 * torch.ones_like(p)
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).splitlines()[0]}")
else:
    raise AssertionError("the in-place update should have been refused")

# %%
# A tensor computed inside the graph (a non-leaf) *may* be changed in place:
# autograd records the change as one more operation. What it checks is that
# no value saved for the backward pass was overwritten: each tensor carries
# a version counter, and ``backward`` refuses to use a saved tensor whose
# version moved on, even when ``torch.no_grad()`` hid the change itself.
h = first(x)  # a non-leaf: computed from the weights
h.clamp_(min=0)  # allowed, recorded like torch.clamp(h, min=0)
assert not h.is_leaf and type(h.grad_fn).__name__ == "ClampBackward1"

squared = h * h  # saves h for the backward pass
with torch.no_grad():
    h.add_(1)  # ... and now h has changed, unrecorded
try:
    squared.sum().backward()
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split(' Hint:')[0]}")
else:
    raise AssertionError("backward should have found h modified")

# %%
# Inside ``with torch.no_grad():`` nothing is recorded, so the update the
# leaf refused above is allowed there, and it is exactly the update we want.
#
# .. note:: Old code you may meet: ``param.data -= lr * param.grad.data``.
#    ``.data`` is an alias autograd does not watch: a change through it skips
#    the version check, so ``backward`` silently returns a wrong gradient
#    (below). ``torch.no_grad()`` keeps the check; ``torch.optim`` does the
#    update for you (next lesson).
w = torch.ones(3, requires_grad=True)
out = (w * w).sum()  # saves w; d out / d w = 2 * w = 2
w.data.add_(1)  # unseen: backward now reads w = 2
out.backward()
print(f"gradient after a .data change: {w.grad.tolist()}, should be 2")
assert torch.equal(w.grad, torch.full((3,), 4.0))

# %%
# Training
# --------
# The loop: forward, loss, clear the old gradients, backward, then step every
# parameter against its gradient. The learning rate ``1e-4`` suits the sum
# of squares and PyTorch's default initialisation.
learning_rate = 1e-4
losses = []
for t in range(500):
    loss = loss_fn(model(x), y)
    losses.append(loss.item())
    if t % 100 == 0 or t == 499:
        print(f"step {t:3d}   loss {loss.item():.4g}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= learning_rate * p.grad

assert losses[-1] < 1e-4 * losses[0]  # it fits the random targets

# %%
# The loss falls by more than four orders of magnitude (the assert above):
# with 101,110 weights and only 640 target numbers, the network can
# memorise the random targets. A logarithmic axis shows the whole descent.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogy(losses)
ax.set_xlabel("step")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title("Two-layer nn.Sequential, manual gradient descent")
plt.show()

# %%
# Restoring a snapshot
# --------------------
# The ``state`` dict followed the weights as they changed; the cloned
# snapshot kept the starting values. ``load_state_dict`` copies tensors into
# an existing model by name, and a fresh ``Sequential`` loaded with the
# snapshot reproduces the very first loss. We call ``eval()`` first, a
# habit that matters in :ref:`sphx_glr_lessons_nn_03_custom_module.py`.
assert torch.equal(state["0.weight"], first.weight.detach())
assert not torch.equal(initial_state["0.weight"], first.weight.detach())

restored = nn.Sequential(nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out))
restored.to(device)
print(restored.load_state_dict(initial_state))
restored.eval()
with torch.no_grad():
    restored_loss = loss_fn(restored(x), y).item()
torch.testing.assert_close(restored_loss, losses[0])
print(f"loss of the restored model: {restored_loss:.4f}")
print(f"first loss of training:     {losses[0]:.4f}")
