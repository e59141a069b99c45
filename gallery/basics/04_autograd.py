"""
Autograd: gradients without writing backward
============================================

In the previous lesson we derived every gradient of the two-layer network by
hand. Here PyTorch does that work: it records the operations you run on tensors
that ask for gradients and replays them backwards when you call
``backward()``. You will check a gradient with pencil and paper, compute
vector-Jacobian products, switch recording off, and finally train the same
network with autograd and prove it gets exactly the hand-written gradients.

.. tags:: beginner, autograd, backprop
"""

# %%
# Tensors that remember where they came from
# ------------------------------------------
# A tensor created with ``requires_grad=True`` is a *leaf*: autograd will fill
# its ``.grad`` attribute. Every tensor computed from it carries a ``grad_fn``,
# the node of the backward graph that knows how to push a gradient back to its
# inputs. Leaves have no ``grad_fn``; their history starts with them.
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")

x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
u = x**3  # elementwise cube
f = (u - 2 * x).sum()  # a scalar: f(x) = sum(x_i**3 - 2 x_i)

print(f"x.is_leaf={x.is_leaf}, x.grad_fn={x.grad_fn}")
print(f"u.grad_fn: {type(u.grad_fn).__name__}")
print(
    f"f.grad_fn: {type(f.grad_fn).__name__} <- {[type(n).__name__ for n, _ in f.grad_fn.next_functions]}"
)
assert x.is_leaf and x.grad_fn is None
assert u.grad_fn is not None and f.grad_fn is not None

# %%
# ``SumBackward0`` points to ``SubBackward0``, which points to the power and
# the multiplication that produced its two operands: the graph mirrors the
# expression. Nothing has been differentiated yet; the graph only records.
#
# A gradient you can check by hand
# --------------------------------
# Since :math:`f(x) = \sum_i (x_i^3 - 2x_i)`, each partial derivative is
# :math:`\partial f / \partial x_i = 3x_i^2 - 2`, so at :math:`x = (1, 2, 3)`
# the gradient is :math:`(1, 10, 25)`. Calling ``f.backward()`` walks the
# graph from ``f`` back to ``x`` and stores the result in ``x.grad``.
f.backward()
print(f"x.grad = {x.grad.tolist()}")
by_hand = torch.tensor([1.0, 10.0, 25.0], device=device)
torch.testing.assert_close(x.grad, by_hand)

# %%
# Gradients accumulate
# --------------------
# ``backward()`` *adds* into ``.grad`` rather than overwriting it. That is a
# feature (several losses, or several mini-batches, can contribute to one
# update), but it means a training loop must reset the gradient between steps.
# By default the graph is also freed after one backward pass (pass
# ``retain_graph=True`` to keep it), so we rebuild ``f`` before each call.
try:
    f.backward()
except RuntimeError as err:
    print(
        f"backward through the same graph again: RuntimeError: {str(err).split(' (')[0]}"
    )
else:
    raise AssertionError("the graph should have been freed")
(x**3 - 2 * x).sum().backward()
print(f"after a second backward: {x.grad.tolist()}")
torch.testing.assert_close(x.grad, 2 * by_hand)

x.grad.zero_()  # reset in place ...
(x**3 - 2 * x).sum().backward()
torch.testing.assert_close(x.grad, by_hand)
x.grad = None  # ... or drop it; the next backward allocates a fresh one
print(f"after x.grad = None: {x.grad}")

# %%
# Optimizers (see :ref:`sphx_glr_lessons_nn_02_optim.py`) do the same thing with
# ``optimizer.zero_grad()``, which by default sets the gradients to ``None``.
#
# Non-scalar outputs: vector-Jacobian products
# --------------------------------------------
# ``backward()`` with no argument only works on a scalar. For a vector output
# :math:`y = g(x)` the full derivative is a Jacobian matrix :math:`J`, and
# autograd never builds it. Instead ``y.backward(v)`` computes the
# vector-Jacobian product :math:`v^\top J`: the gradient of the scalar
# :math:`v \cdot y` with respect to :math:`x`. For a linear map
# :math:`y = Ax` the Jacobian is :math:`A` itself, so the answer must be
# :math:`A^\top v`.
A = torch.tensor([[1.0, 2.0, 0.0], [0.0, -1.0, 4.0]], device=device)
x = torch.tensor([0.5, -1.0, 2.0], device=device, requires_grad=True)
y = A @ x  # shape (2,): not a scalar
v = torch.tensor([3.0, -2.0], device=device)
y.backward(v)
print(f"v^T J = {x.grad.tolist()}   A^T v = {(A.T @ v).tolist()}")
torch.testing.assert_close(x.grad, A.T @ v)

# %%
# The full Jacobian is available when you really need it, at the cost of one
# backward pass per output. ``torch.autograd.functional.jacobian`` builds it, and
# multiplying by ``v`` gives the same vector.
J = torch.autograd.functional.jacobian(lambda t: A @ t, x.detach())
torch.testing.assert_close(J, A)
torch.testing.assert_close(v @ J, x.grad)

# %%
# The graph is built as the code runs
# -----------------------------------
# Autograd records whatever operations actually execute, so ordinary Python
# control flow is allowed. Below the number of loop iterations depends on the
# data; each pass through the loop adds one multiplication node. The gradient
# of :math:`y = 3^k x` with respect to :math:`x` is :math:`3^k` for every
# component, whatever :math:`k` the loop happened to pick.
x = torch.tensor([0.2, -0.1, 0.4], device=device, requires_grad=True)
y = x
k = 0
while y.norm() < 100:
    y = y * 3
    k += 1
y.backward(torch.ones_like(y))
print(
    f"loop ran k={k} times, x.grad = {[round(g, 1) for g in x.grad.tolist()]}"
)
torch.testing.assert_close(x.grad, torch.full_like(x, 3.0**k))

# %%
# Lesson :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py` comes
# back to this idea and compares it with frameworks that build the graph first.
#
# How ``requires_grad`` spreads, and how to freeze part of a model
# ----------------------------------------------------------------
# An operation's output requires a gradient if *any* input does; if none do,
# autograd records nothing for it. That is how you freeze parameters: turn off
# ``requires_grad`` and no gradient is computed or stored for them.
a = torch.randn(4, 4, device=device)
b = torch.randn(4, 4, device=device)
c = torch.randn(4, 4, device=device, requires_grad=True)
print(f"a + b requires grad: {(a + b).requires_grad}")
print(f"a + c requires grad: {(a + c).requires_grad}")
assert not (a + b).requires_grad and (a + b).grad_fn is None
assert (a + c).requires_grad

frozen = torch.randn(4, 4, device=device, requires_grad=True)
trainable = torch.randn(4, 4, device=device, requires_grad=True)
frozen.requires_grad_(False)  # freeze this one
(a @ frozen @ trainable).sum().backward()
print(
    f"frozen.grad is None: {frozen.grad is None}, trainable.grad shape: {tuple(trainable.grad.shape)}"
)
assert frozen.grad is None and trainable.grad is not None

# %%
# Switching recording off: ``no_grad``, ``inference_mode`` and ``detach``
# -----------------------------------------------------------------------
# Three tools stop autograd from recording:
#
# - ``torch.no_grad()`` is a context manager: inside it, results never require
#   gradients. Use it for weight updates and for evaluation.
# - ``torch.inference_mode()`` does the same and also skips bookkeeping that
#   ``no_grad`` keeps, such as the version counter autograd uses to detect
#   in-place changes, so it can be cheaper. The price: its results, *inference
#   tensors*, can never take part in a later computation that autograd
#   records. That makes it the right choice for pure inference.
# - ``t.detach()`` returns a tensor that shares ``t``'s storage but is cut off
#   from the graph: gradients will not flow back through it.
w = torch.randn(3, device=device, requires_grad=True)
with torch.no_grad():
    p = w * 2
with torch.inference_mode():
    q = w * 2
r = (w * 2).detach()
for name, t in [("no_grad", p), ("inference_mode", q), ("detach", r)]:
    print(
        f"{name:>14}: requires_grad={t.requires_grad}, inference tensor={t.is_inference()}"
    )
assert not p.requires_grad and not q.requires_grad and not r.requires_grad
assert q.is_inference() and not p.is_inference()
assert w.detach().data_ptr() == w.data_ptr()  # same memory, no copy

try:
    (
        q * w
    ).sum().backward()  # an inference tensor inside a recorded computation
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split('.')[0]}")
else:
    raise AssertionError("inference tensors should be rejected by autograd")

# %%
# ``detach`` is useful *inside* a computation that does record, to treat a
# value as a constant. Here the second factor is detached, so the gradient of
# :math:`w_i \cdot \mathrm{const}(w_i)` is just :math:`w_i`, not :math:`2 w_i`.
(w * w.detach()).sum().backward()
torch.testing.assert_close(w.grad, w.detach())
print("detach: gradient flows through one factor only")

# %%
# .. note:: Old code you may meet: ``Variable(t, requires_grad=True)`` and
#    ``Variable(t, volatile=True)``. Since PyTorch 0.4 tensors carry
#    ``requires_grad`` themselves, so ``Variable`` is gone (it now just returns
#    a tensor), and the ``volatile`` flag was replaced by the
#    ``torch.no_grad()`` context (and later ``torch.inference_mode()``), which
#    switches recording off for a whole block instead of one tensor.
#
# The two-layer network, trained with autograd
# --------------------------------------------
# Now the running example: 64 samples, 1000 inputs, 100 hidden units, 10
# outputs, random data and weights drawn with NumPy so every lesson in this
# chain starts from the same numbers. We use float64 so that autograd and the
# hand-written gradient can be compared tightly.
import numpy as np

N, D_in, H, D_out = 64, 1000, 100, 10
rng = np.random.default_rng(0)
x_np = rng.standard_normal((N, D_in))
y_np = rng.standard_normal((N, D_out))
w1_np = rng.standard_normal((D_in, H))
w2_np = rng.standard_normal((H, D_out))

x = torch.from_numpy(x_np).to(device)
y = torch.from_numpy(y_np).to(device)
print(f"x: {tuple(x.shape)} {x.dtype}, y: {tuple(y.shape)} {y.dtype}")

# %%
# First one step with autograd. The forward pass is one line and the backward
# pass is one call: no intermediate values to keep, no formulas to derive.
# The weights are created with ``torch.tensor``, which copies the array:
# ``torch.from_numpy`` would share memory with ``w1_np``, and the in-place
# updates below would then silently change every other tensor made from it.
w1 = torch.tensor(w1_np, device=device, requires_grad=True)  # copies the array
w2 = torch.tensor(w2_np, device=device, requires_grad=True)

loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
loss.backward()
print(f"initial loss: {loss.item():.1f}")

# %%
# Is it right? Recompute the gradients by hand exactly as in
# :ref:`sphx_glr_lessons_basics_03_tensor_backprop.py` (plain tensors, no
# autograd) on the same weights and compare.
w1_hand = torch.tensor(
    w1_np, device=device
)  # a separate copy of the same start
w2_hand = torch.tensor(w2_np, device=device)


def hand_gradients(w1, w2):
    h = x.mm(w1)
    h_relu = h.clamp(min=0)
    y_pred = h_relu.mm(w2)
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.t().mm(grad_y_pred)
    grad_h = grad_y_pred.mm(w2.t())
    grad_h[h < 0] = 0  # ReLU passes gradient only where its input was positive
    grad_w1 = x.t().mm(grad_h)
    return (y_pred - y).pow(2).sum(), grad_w1, grad_w2


loss_hand, g1_hand, g2_hand = hand_gradients(w1_hand, w2_hand)
torch.testing.assert_close(loss, loss_hand)
torch.testing.assert_close(w1.grad, g1_hand)
torch.testing.assert_close(w2.grad, g2_hand)
print(
    f"max |autograd - hand| for w1: {(w1.grad - g1_hand).abs().max().item():.1e}"
)
print(
    f"max |autograd - hand| for w2: {(w2.grad - g2_hand).abs().max().item():.1e}"
)

# %%
# The differences are at the level of float64 rounding. Now train for 500
# steps. The update must not itself be recorded, hence ``torch.no_grad()``; and
# the gradients must be cleared after each step, or they would pile up. In
# lockstep we run the hand-written version and check both stay together.
learning_rate = 5e-7  # the stable step size found in the NumPy warm-up
w1.grad = None
w2.grad = None
losses = []
for t in range(500):
    loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
    loss.backward()

    loss_hand, g1_hand, g2_hand = hand_gradients(w1_hand, w2_hand)
    torch.testing.assert_close(w1.grad, g1_hand)
    torch.testing.assert_close(w2.grad, g2_hand)

    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
    w1.grad = None
    w2.grad = None
    w1_hand -= learning_rate * g1_hand
    w2_hand -= learning_rate * g2_hand

    losses.append(loss.item())
    if t % 100 == 0 or t == 499:
        print(f"step {t:3d}  loss {loss.item():.4e}")

assert losses[-1] < 1e-9 * losses[0]
torch.testing.assert_close(w1.detach(), w1_hand)
torch.testing.assert_close(w2.detach(), w2_hand)

# %%
# Every one of the 500 steps produced the same gradients as the hand-written
# backward pass, and the loss fell from about :math:`3 \times 10^7` to
# almost zero: the network memorised the 64 random targets.
#
# .. note:: Old code you may meet: ``loss.data[0]`` to read the loss and
#    ``w1.data -= lr * w1.grad.data`` to update. Indexing a 0-dim tensor is an
#    error today; use ``loss.item()``. Writing through ``.data`` still works but
#    hides the change from autograd's safety checks; update inside
#    ``torch.no_grad()`` instead.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.semilogy(losses)
ax.set_xlabel("step")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title("Two-layer net trained with autograd")
fig.tight_layout()
plt.show()

# %%
# Autograd gave us the backward pass for free. The next lesson,
# :ref:`sphx_glr_lessons_basics_05_custom_functions.py`, opens the box and
# defines a new operation with its own forward *and* backward.
