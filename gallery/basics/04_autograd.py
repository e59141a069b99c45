"""
Autograd: gradients without writing backward
============================================

The previous lesson derived every gradient of the two-layer network by hand.
Here PyTorch records the operations on tensors that ask for gradients and
replays them backwards when you call ``backward()``. We check gradients by
hand, compute vector-Jacobian products, switch recording off, and train the
same network with autograd, matching the hand-written gradients every step.
"""

# %%
# Tensors that remember where they came from
# ------------------------------------------
# A tensor created with ``requires_grad=True`` is a *leaf*: autograd fills
# its ``.grad``. While autograd records, the floating-point result of a
# differentiable operation on it carries a ``grad_fn``, the node of the
# backward graph that pushes a gradient back to its inputs. The last part
# needs ``float64``; MPS, and some Intel GPUs, have no ``float64``, so there
# we use the CPU.
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
if device.type == "mps" or (
    device.type == "xpu"
    and not torch.xpu.get_device_properties(device).has_fp64
):
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["beginner", "autograd", "backprop"]

# %%
# :math:`f(x) = \sum_i (x_i^3 - 2x_i)` builds a small graph: ``SumBackward0``
# points to ``SubBackward0``, which points to the power and the product that
# made its operands. Nothing is differentiated yet; the graph only records.
x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
f = (x**3 - 2 * x).sum()
sub = f.grad_fn.next_functions[0][0]
parents = [type(n).__name__ for n, _ in sub.next_functions]
print(f"x.is_leaf={x.is_leaf}, x.grad_fn={x.grad_fn}")
print(f"{type(f.grad_fn).__name__} <- {type(sub).__name__} <- {parents}")
assert x.is_leaf and x.grad_fn is None and not f.is_leaf
assert x.grad is None  # no gradient yet
assert type(f.grad_fn).__name__ == "SumBackward0"
assert parents == ["PowBackward0", "MulBackward0"]

# %%
# A gradient you can check by hand
# --------------------------------
# :math:`\partial f / \partial x_i = 3x_i^2 - 2`, so at :math:`x = (1, 2,
# 3)` the gradient is :math:`(1, 10, 25)`. ``f.backward()`` walks the graph
# from ``f`` back to ``x`` and stores the result in ``x.grad``.
f.backward()
print(f"x.grad = {x.grad.tolist()}")
by_hand = torch.tensor([1.0, 10.0, 25.0], device=device)
torch.testing.assert_close(x.grad, by_hand)
torch.testing.assert_close(x.grad, 3 * x.detach() ** 2 - 2)  # the formula

# %%
# The same works for many points at once: ``grid`` holds 101 values of
# :math:`x`, and since :math:`f` sums over them, one backward pass gives the
# derivative at every point. The figure shows it against the formula.
import matplotlib.pyplot as plt

grid = torch.linspace(-2, 2, 101, device=device, requires_grad=True)
(grid**3 - 2 * grid).sum().backward()
torch.testing.assert_close(grid.grad, 3 * grid.detach() ** 2 - 2)
xs = grid.detach().cpu()
fig, ax = plt.subplots(figsize=(6, 3.8), layout="constrained")
ax.plot(xs, xs**3 - 2 * xs, label="$f(x) = x^3 - 2x$")
ax.plot(xs, grid.grad.cpu(), linewidth=4, alpha=0.5, label="autograd $df/dx$")
ax.plot(xs, 3 * xs**2 - 2, "k--", label="formula $3x^2 - 2$")
ax.set_xlabel("x")
ax.set_ylabel("value")
ax.set_title("One backward pass: the derivative at 101 points")
ax.legend()
plt.show()

# %%
# Gradients accumulate
# --------------------
# ``backward()`` *adds* into ``.grad``, so several losses can contribute to
# one update, and a training loop must reset the gradient between steps. The
# graph's saved values are freed after one backward pass (unless
# ``retain_graph=True``), so we rebuild ``f`` before each call. Optimizers
# (:ref:`sphx_glr_lessons_nn_02_optim.py`) reset with ``zero_grad()``.
try:
    f.backward()
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split('. ')[0]}.")
else:
    raise AssertionError("the second backward should have failed")
(x**3 - 2 * x).sum().backward()
torch.testing.assert_close(x.grad, 2 * by_hand)  # added, not replaced
x.grad = None  # drop it; the next backward allocates a fresh one
(x**3 - 2 * x).sum().backward()
torch.testing.assert_close(x.grad, by_hand)
optimizer = torch.optim.SGD([x], lr=0.1)  # see the optim lesson
optimizer.zero_grad()  # by default also sets .grad to None
assert x.grad is None

# %%
# Non-scalar outputs: vector-Jacobian products
# --------------------------------------------
# For a vector output :math:`y = g(x)` the derivative is a Jacobian matrix
# :math:`J`, which ``backward()`` never builds. ``y.backward(v)`` computes the
# vector-Jacobian product :math:`v^\top J`, the gradient of :math:`v \cdot
# y`. For :math:`y = Ax` the Jacobian is :math:`A`, so the answer must be
# :math:`A^\top v`. When you do need the whole Jacobian,
# ``torch.func.jacrev`` builds it from one vector-Jacobian product per
# output element, batched with ``vmap``.
from torch.func import jacrev

A = torch.tensor([[1.0, 2.0, 0.0], [0.0, -1.0, 4.0]], device=device)
x = torch.tensor([0.5, -1.0, 2.0], device=device, requires_grad=True)
y = A @ x  # shape (2,): not a scalar
v = torch.tensor([3.0, -2.0], device=device)
y.backward(v)
print(f"v^T J = {x.grad.tolist()}   A^T v = {(A.T @ v).tolist()}")
torch.testing.assert_close(x.grad, A.T @ v)
J = jacrev(lambda t: A @ t)(x.detach())
torch.testing.assert_close(J, A)

# %%
# The graph is built as the code runs
# -----------------------------------
# Autograd records the operations that actually execute, so Python control
# flow is allowed. Here the number of loop passes depends on the data; each
# pass adds one multiplication node, and the gradient of :math:`y = 3^k x`
# is :math:`3^k` in every component, whatever :math:`k` turned out to be.
# :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py` compares
# this with frameworks that build the graph first.
x = torch.tensor([0.2, -0.1, 0.4], device=device, requires_grad=True)
y, k = x, 0
while y.norm() < 100:
    y = y * 3
    k += 1
node, names = y.grad_fn, []
while node.next_functions:  # walk the chain back to x
    names.append(node.name())
    node = node.next_functions[0][0]
assert names == ["MulBackward0"] * k
y.backward(torch.ones_like(y))
print(f"loop ran k={k} times, x.grad = {x.grad.tolist()}")
torch.testing.assert_close(x.grad, torch.full_like(x, 3.0**k))

# %%
# How ``requires_grad`` spreads, and freezing
# -------------------------------------------
# A differentiable operation's output requires a gradient if *any* input
# does; if none does, autograd records nothing. So turning
# ``requires_grad`` off freezes a tensor: no gradient is computed or stored
# for it. A model is frozen the same way, layer by layer:
# ``module.requires_grad_(False)``. Give the optimizer only the parameters
# that still train; a step leaves the frozen layer as it was.
a = torch.randn(4, 4, device=device)
b = torch.randn(4, 4, device=device)
c = torch.randn(4, 4, device=device, requires_grad=True)
assert not (a + b).requires_grad and (a + b).grad_fn is None
assert (a + c).requires_grad
model = torch.nn.Sequential(
    torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)
).to(device)
model[0].requires_grad_(False)  # freeze the first layer
model(a).sum().backward()
print(f"first layer grad: {model[0].weight.grad}")
assert model[0].weight.grad is None and model[2].weight.grad is not None
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1)
frozen_before = model[0].weight.clone()
last_before = model[2].weight.clone()
optimizer.step()
assert len(trainable) == 2  # the second layer's weight and bias
assert torch.equal(model[0].weight, frozen_before)
assert not torch.equal(model[2].weight, last_before)

# %%
# Switching recording off
# -----------------------
# - ``torch.no_grad()``: inside it, results do not require gradients. Use
#   it for weight updates and, together with ``model.eval()``, for
#   evaluation.
# - ``torch.inference_mode()``: the same, and it also skips autograd's
#   bookkeeping for its results, *inference tensors*, which can make it
#   cheaper. Use it for pure inference.
# - ``t.detach()``: a tensor sharing ``t``'s memory, cut off from the graph.
#   Inside a recorded computation it makes a value a constant.
w = torch.randn(3, device=device, requires_grad=True)
with torch.no_grad():
    p = w * 2
with torch.inference_mode():
    q = w * 2
r = (w * 2).detach()
for name, t in [("no_grad", p), ("inference_mode", q), ("detach", r)]:
    print(f"{name:>14}: requires_grad={t.requires_grad}")
assert not p.requires_grad and not q.requires_grad and not r.requires_grad
assert q.is_inference() and not p.is_inference() and not r.is_inference()
assert w.detach().data_ptr() == w.data_ptr()  # same memory, no copy
(w * w.detach()).sum().backward()  # d/dw of w * const(w) is w, not 2w
torch.testing.assert_close(w.grad, w.detach())

# %%
# An inference tensor may still be an *input* to a recorded computation:
# ``q + w`` requires grad and backpropagates to ``w``. What fails is an
# operation that must *save* the inference tensor for the backward pass,
# such as ``q * w`` (the gradient for ``w`` is ``q``), or changing it in
# place outside inference mode, since it has no version counter to track
# the change. The docs advise against recording with inference tensors at
# all; ``q.clone()`` outside the block gives a normal tensor.
w.grad = None
mixed = q + w
assert mixed.requires_grad and not mixed.is_inference()
mixed.sum().backward()
torch.testing.assert_close(w.grad, torch.ones_like(w))
try:
    (q * w).sum().backward()
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split('. ')[0]}.")
else:
    raise AssertionError("saving an inference tensor should have failed")
try:
    q.add_(1)
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split('.')[0]}.")
else:
    raise AssertionError("changing q in place should have failed")
assert not q.clone().is_inference()

# %%
# .. note:: Old code you may meet: ``Variable(t, requires_grad=True)`` and
#    ``Variable(t, volatile=True)``. Tensors carry ``requires_grad``
#    themselves, so ``Variable(t)`` just returns a tensor, and the
#    ``torch.no_grad()`` block replaced ``volatile``.
#
# The two-layer network, trained with autograd
# --------------------------------------------
# The running example again: the same NumPy draws as in the two previous
# lessons, in ``float64`` so that autograd and the hand-written gradients
# can be compared tightly. ``torch.tensor`` copies the weights, so the
# in-place updates below leave the arrays alone.
import numpy as np

N, D_in, H, D_out = 64, 1000, 100, 10
rng = np.random.default_rng(0)
x = torch.tensor(rng.standard_normal((N, D_in)), device=device)
y = torch.tensor(rng.standard_normal((N, D_out)), device=device)
w1_np = rng.standard_normal((D_in, H))
w2_np = rng.standard_normal((H, D_out))
w1 = torch.tensor(w1_np, device=device, requires_grad=True)
w2 = torch.tensor(w2_np, device=device, requires_grad=True)
w1_hand = torch.tensor(w1_np, device=device)  # for the hand-written run
w2_hand = torch.tensor(w2_np, device=device)
assert x.dtype == w1.dtype == torch.float64

# %%
# The forward pass is one line and the backward pass one call. The function
# below recomputes the gradients by hand, as in
# :ref:`sphx_glr_lessons_basics_03_tensor_backprop.py`, without autograd.


def hand_gradients(w1, w2):
    h = x @ w1
    a = h.clamp(min=0)
    err = a @ w2 - y
    grad_y_hat = 2.0 * err
    grad_h = (grad_y_hat @ w2.T) * (h > 0)
    return x.T @ grad_h, a.T @ grad_y_hat


# %%
# Now train for 500 steps, both ways in lockstep. The update must not itself
# be recorded, hence ``torch.no_grad()``, and the gradients are cleared
# after each step. Each step stores the largest gap between the two
# gradients, relative to the largest gradient entry.
learning_rate = 5e-7  # as in the previous lessons
losses = torch.empty(500, dtype=torch.float64, device=device)
gaps = torch.empty(500, dtype=torch.float64, device=device)
for step in range(500):
    loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
    loss.backward()
    losses[step] = loss.detach()
    g1_hand, g2_hand = hand_gradients(w1_hand, w2_hand)
    gap1 = (w1.grad - g1_hand).abs().max() / g1_hand.abs().max()
    gap2 = (w2.grad - g2_hand).abs().max() / g2_hand.abs().max()
    gaps[step] = torch.maximum(gap1, gap2)
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
    w1.grad, w2.grad = None, None
    w1_hand -= learning_rate * g1_hand
    w2_hand -= learning_rate * g2_hand

# %%
# At every one of the 500 steps autograd's gradients matched the
# hand-written ones to better than :math:`10^{-10}` of the largest entry,
# and the loss fell by more than eight orders of magnitude.
print(f"loss: {losses[0].item():.4e} -> {losses[-1].item():.4e}")
print(f"largest relative gradient gap over all steps: {gaps.max().item():.1e}")
assert gaps.max() < 1e-10 and losses[-1] < 1e-8 * losses[0]
torch.testing.assert_close(w1.detach(), w1_hand)
torch.testing.assert_close(w2.detach(), w2_hand)

# %%
# .. note:: Old code you may meet: ``loss.data[0]`` to read the loss and
#    ``w1.data -= lr * w1.grad.data`` to update. Indexing a 0-dim tensor is
#    an error today; use ``loss.item()``. Writing through ``.data`` hides
#    the change from autograd's checks; update inside ``torch.no_grad()``.
#
# Autograd gave us the backward pass for free. The next lesson,
# :ref:`sphx_glr_lessons_basics_05_custom_functions.py`, defines a new
# operation with its own forward *and* backward.
