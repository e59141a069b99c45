"""
Autograd: gradients without writing backward
============================================

The previous lesson derived every gradient of the two-layer network by hand.
Here PyTorch records the operations on tensors that ask for gradients and
replays them backwards when you call ``backward()``. We check gradients by
hand, compute vector-Jacobian products, switch recording off, and train the
same network with autograd, matching the hand-written gradients every step.

**You will learn** to ask for gradients with ``requires_grad``, compute
them with ``backward()``, reset them between steps, switch recording off
with ``torch.no_grad()`` and ``detach()``, and train a network with
autograd.

**You need first** :ref:`sphx_glr_lessons_basics_01_tensors.py` and
:ref:`sphx_glr_lessons_basics_03_tensor_backprop.py`.
"""

# %%
# Setup
# -----
# The device is picked as in
# :ref:`sphx_glr_lessons_basics_03_tensor_backprop.py`. The network at the
# end needs ``float64`` to compare with hand-written gradients tightly;
# Apple GPUs (MPS) and some Intel GPUs (XPU) have no ``float64``, so there we
# use the CPU.
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
# Tensors that remember where they came from
# ------------------------------------------
# A tensor created with ``requires_grad=True`` is a *leaf*: a starting point
# of the computation, whose gradient autograd will store in ``.grad``.
# :math:`f(x) = \sum_i (x_i^3 - 2x_i)` computed from it carries a
# ``grad_fn``: the step of the *backward graph* that will send a gradient
# back towards ``x``. Nothing is differentiated yet; autograd only records.
x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
f = (x**3 - 2 * x).sum()
print(f"x: is_leaf={x.is_leaf}, grad_fn={x.grad_fn}, grad={x.grad}")
print(f"f: is_leaf={f.is_leaf}, grad_fn={f.grad_fn.name()}")
# sphinx_gallery_start_ignore
assert x.is_leaf and x.grad_fn is None and not f.is_leaf
assert x.grad is None and f.grad_fn.name() == "SumBackward0"
# sphinx_gallery_end_ignore

# %%
# ``x`` has no ``grad_fn`` (nothing made it) and no gradient yet. ``f`` was
# made by a sum, so its ``grad_fn`` is the backward step of a sum.
#
# A gradient you can check by hand
# --------------------------------
# :math:`\partial f / \partial x_i = 3x_i^2 - 2`, so at :math:`x = (1, 2,
# 3)` the gradient is :math:`(1, 10, 25)`. ``f.backward()`` walks the graph
# from ``f`` back to ``x`` and stores the result in ``x.grad``.
f.backward()
print(f"x.grad = {x.grad.tolist()}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(
    x.grad, torch.tensor([1.0, 10.0, 25.0], device=device)
)
torch.testing.assert_close(x.grad, 3 * x.detach() ** 2 - 2)  # the formula
torch.testing.assert_close(  # backward() on a scalar seeds it with 1
    torch.autograd.grad(
        (x**3 - 2 * x).sum(), x, torch.tensor(1.0, device=device)
    )[0],
    torch.tensor([1.0, 10.0, 25.0], device=device),
)
# sphinx_gallery_end_ignore

# %%
# The same works for many points at once: ``grid`` holds 101 values of
# :math:`x`, and since :math:`f` sums over them, one backward pass gives the
# derivative at every point. The figure shows it against the formula.
import matplotlib.pyplot as plt

grid = torch.linspace(-2, 2, 101, device=device, requires_grad=True)
(grid**3 - 2 * grid).sum().backward()
# sphinx_gallery_start_ignore
torch.testing.assert_close(grid.grad, 3 * grid.detach() ** 2 - 2)
# sphinx_gallery_end_ignore
xs = grid.detach().cpu()  # detach (taught below): no graph, for plotting
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
# The autograd curve lies on the formula at every point.
#
# Gradients accumulate
# --------------------
# The graph's saved values are freed after one backward pass (unless you
# pass ``retain_graph=True``). Here ``x**3`` saved ``x`` to compute its
# gradient later, so a second ``f.backward()`` fails:
try:
    f.backward()
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split('. ')[0]}.")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("the second backward should have failed")
# sphinx_gallery_end_ignore

# %%
# So we rebuild ``f`` before each call. ``backward()`` *adds* into
# ``.grad``: several losses can contribute to one update, and a training
# loop must reset the gradient between steps, for instance by setting it to
# ``None``. Optimizers (:ref:`sphx_glr_lessons_nn_02_optim.py`) reset it
# with ``zero_grad()``.
(x**3 - 2 * x).sum().backward()
print(f"after a second backward: x.grad = {x.grad.tolist()}")
x.grad = None  # drop it; the next backward allocates a fresh one
(x**3 - 2 * x).sum().backward()
print(f"after a reset and a backward: x.grad = {x.grad.tolist()}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(
    x.grad, torch.tensor([1.0, 10.0, 25.0], device=device)
)
# sphinx_gallery_end_ignore

# %%
# The second backward doubled the gradient to :math:`(2, 20, 50)`; after the
# reset it is :math:`(1, 10, 25)` again.
#
# Non-scalar outputs: vector-Jacobian products
# --------------------------------------------
# For a vector output :math:`y = g(x)` the derivative is a Jacobian matrix
# :math:`J`, which ``backward()`` never builds. ``y.backward(v)`` computes the
# vector-Jacobian product :math:`v^\top J`, the gradient of :math:`v \cdot
# y`. For :math:`y = Ax` the Jacobian is :math:`A`, so the answer must be
# :math:`A^\top v`. For a scalar, ``backward()`` is the case :math:`v = 1`.
A = torch.tensor([[1.0, 2.0, 0.0], [0.0, -1.0, 4.0]], device=device)
x = torch.tensor([0.5, -1.0, 2.0], device=device, requires_grad=True)
y = A @ x  # shape (2,): not a scalar
v = torch.tensor([3.0, -2.0], device=device)
y.backward(v)
print(f"v^T J = {x.grad.tolist()}   A^T v = {(A.T @ v).tolist()}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(x.grad, A.T @ v)
# sphinx_gallery_end_ignore

# %%
# The graph is built as the code runs
# -----------------------------------
# Autograd records the operations that actually execute, so Python control
# flow is allowed. Here the number of loop passes depends on the data; each
# pass multiplies by 3, and the gradient of :math:`y = 3^k x` is :math:`3^k`
# in every component, whatever :math:`k` turned out to be.
# :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py` compares
# this with frameworks that build the graph first.
x = torch.tensor([0.2, -0.1, 0.4], device=device, requires_grad=True)
y, k = x, 0
while y.norm() < 100:
    y = y * 3
    k += 1
y.backward(torch.ones_like(y))
print(f"loop ran k={k} times, x.grad = {x.grad.tolist()}, 3**k = {3**k}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(x.grad, torch.full_like(x, 3.0**k))
# sphinx_gallery_end_ignore

# %%
# Switching recording off
# -----------------------
# A differentiable operation's output requires a gradient if *any* input
# does; if none does, autograd records nothing. Two ways stop the
# recording:
#
# - ``torch.no_grad()``: inside it, results do not require gradients. Use
#   it for weight updates and for evaluation (where a model also needs
#   ``model.eval()``, which switches layers such as dropout to evaluation
#   behaviour and which ``no_grad`` does not do for you; see
#   :ref:`sphx_glr_lessons_nn_03_custom_module.py`).
# - ``t.detach()``: a tensor sharing ``t``'s memory, cut off from the graph.
#   Inside a recorded computation it makes a value a constant.
w = torch.randn(3, device=device, requires_grad=True)
with torch.no_grad():
    p = w * 2
r = (w * 2).detach()
print(f"w * 2: requires_grad={(w * 2).requires_grad}")
print(f"under no_grad: requires_grad={p.requires_grad}")
print(f"detached: requires_grad={r.requires_grad}")
(w * w.detach()).sum().backward()  # d/dw of w * const(w) is w, not 2w
print(f"w.grad equals w: {torch.equal(w.grad, w.detach())}")
# sphinx_gallery_start_ignore
assert (w * 2).requires_grad and not p.requires_grad and not r.requires_grad
assert w.detach().data_ptr() == w.data_ptr()  # same memory, no copy
torch.testing.assert_close(w.grad, w.detach())
# sphinx_gallery_end_ignore

# %%
# With ``w.detach()`` as a constant factor, the gradient of
# :math:`\sum_i w_i c_i` is :math:`c = w`, not the :math:`2w` of
# :math:`\sum_i w_i^2`. ``torch.inference_mode()`` also switches recording
# off and skips more bookkeeping; "Going deeper" below shows what it
# forbids.
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
print(f"w1: {tuple(w1.shape)} {w1.dtype}, requires_grad={w1.requires_grad}")

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
# after each step. Each step stores its loss and the largest gap between the
# two gradients, relative to the largest gradient entry.
learning_rate = 5e-7  # as in the previous lessons
losses = torch.empty(500, dtype=torch.float64, device=device)
gaps = torch.empty(500, dtype=torch.float64, device=device)
for step in range(500):
    loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
    loss.backward()
    losses[step] = loss.detach()  # the value only, not its graph
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
# The losses, read back once the loop is done:
for step in (0, 100, 200, 300, 400, 499):
    print(f"step {step:3d}: loss {losses[step].item():.6g}")
print(f"largest relative gradient gap over all steps: {gaps.max().item():.1e}")
# sphinx_gallery_start_ignore
assert gaps.max() < 1e-10 and losses[-1] < 1e-8 * losses[0]
torch.testing.assert_close(w1.detach(), w1_hand)
torch.testing.assert_close(w2.detach(), w2_hand)
# sphinx_gallery_end_ignore

# %%
# The losses are those of the two previous lessons, digit for digit, and at
# every one of the 500 steps autograd's gradients matched the hand-written
# ones (the printed gap, relative to the largest gradient entry). Where
# that gap prints as exactly zero, autograd computed the very same
# floating-point numbers as the hand-written code.
#
# Going deeper
# ------------
# Optional on a first read: the recorded graph itself, whole Jacobians,
# freezing part of a model, and inference tensors.
#
# Walking the recorded graph
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# Each ``grad_fn`` node lists the nodes that made its inputs in
# ``next_functions``, as pairs of (node, index); the index says which of
# that node's outputs was used, 0 for an operation with one output. Walking
# them back from a
# result shows what was recorded: for :math:`f` a sum of a subtraction of a
# power and a product; for the data-dependent loop above, one
# multiplication per pass.
x = torch.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
f = (x**3 - 2 * x).sum()
sub = f.grad_fn.next_functions[0][0]
parents = [n.name() for n, _ in sub.next_functions]
print(f"{f.grad_fn.name()} <- {sub.name()} <- {parents}")
x = torch.tensor([0.2, -0.1, 0.4], device=device, requires_grad=True)
y = x
while y.norm() < 100:
    y = y * 3
node, names = y.grad_fn, []
while node.next_functions:  # walk the chain back to x
    names.append(node.name())
    node = node.next_functions[0][0]
print(f"the loop recorded: {names}")
# sphinx_gallery_start_ignore
assert sub.name() == "SubBackward0"
assert parents == ["PowBackward0", "MulBackward0"]
assert names == ["MulBackward0"] * k
# sphinx_gallery_end_ignore

# %%
# Whole Jacobians
# ~~~~~~~~~~~~~~~
# When you need the whole Jacobian, ``torch.func.jacrev`` builds it from
# one vector-Jacobian product per output element. It runs them together
# with ``torch.func.vmap``, which applies a function to a whole batch as if
# in a Python loop, without the loop. For :math:`y = Ax` it returns
# :math:`A`.
from torch.func import jacrev

J = jacrev(lambda t: A @ t)(x.detach())
print(f"jacrev:\n{J}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(J, A)
# sphinx_gallery_end_ignore

# %%
# Freezing part of a model
# ~~~~~~~~~~~~~~~~~~~~~~~~
# Turning ``requires_grad`` off freezes a tensor: no gradient is computed
# or stored for it. A model, here a small ``torch.nn.Sequential`` (see
# :ref:`sphx_glr_lessons_nn_01_nn_package.py`), is frozen layer by layer
# with ``module.requires_grad_(False)``; give the optimizer only the
# parameters that still train.
model = torch.nn.Sequential(
    torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)
).to(device)
model[0].requires_grad_(False)  # freeze the first layer
inputs = torch.randn(4, 4, device=device)
model(inputs).sum().backward()
print(f"first layer grad: {model[0].weight.grad}")
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1)
frozen_before = model[0].weight.clone()
optimizer.step()
print(f"tensors that train: {len(trainable)} (second layer weight and bias)")
print(f"frozen layer unchanged: {torch.equal(model[0].weight, frozen_before)}")
# sphinx_gallery_start_ignore
assert model[0].weight.grad is None and model[2].weight.grad is not None
assert len(trainable) == 2 and torch.equal(model[0].weight, frozen_before)
# sphinx_gallery_end_ignore

# %%
# ``requires_grad_(False)`` freezes *parameters* only. A layer with
# *buffers*, such as batch normalization's running statistics, still
# updates them in training mode, and dropout still drops: call ``.eval()``
# on frozen layers that have such behaviour. (Keras users, beware: Keras
# documents that ``trainable = False`` on its ``BatchNormalization`` layer
# also makes it run in inference mode; ``requires_grad_(False)`` does not.)
bn = torch.nn.BatchNorm1d(4).to(device).requires_grad_(False)
mean_before = bn.running_mean.clone()
bn(inputs + 5)
changed = not torch.equal(bn.running_mean, mean_before)
print(f"frozen BatchNorm in training mode, running mean changed: {changed}")
# sphinx_gallery_start_ignore
assert changed and bn.training
# sphinx_gallery_end_ignore

# %%
# Inference tensors
# ~~~~~~~~~~~~~~~~~
# Results made inside ``torch.inference_mode()`` are *inference tensors*:
# autograd keeps no record for them, not even the *version counter* that
# counts in-place changes to a tensor (autograd uses it to notice a saved
# value that changed before the backward pass). That can make inference
# mode cheaper than ``no_grad``. An inference tensor may still be an
# *input* to a recorded computation: ``q + w`` requires grad and
# backpropagates to ``w``.
with torch.inference_mode():
    q = w * 2
print(f"q: requires_grad={q.requires_grad}, is_inference={q.is_inference()}")
w.grad = None
mixed = q + w
mixed.sum().backward()
print(f"q + w: requires_grad={mixed.requires_grad}, w.grad={w.grad.tolist()}")
# sphinx_gallery_start_ignore
assert not q.requires_grad and q.is_inference() and not p.is_inference()
assert not r.is_inference()
assert mixed.requires_grad and not mixed.is_inference()
torch.testing.assert_close(w.grad, torch.ones_like(w))
# sphinx_gallery_end_ignore

# %%
# What fails is an operation that must *save* the inference tensor for the
# backward pass, such as ``q * w`` (the gradient for ``w`` is ``q``), and
# changing it in place outside inference mode, since it has no version
# counter to track the change. The docs go further: inference tensors
# "cannot be used in computations recorded by autograd". Some operations,
# like ``q + w`` above, work anyway, but do not rely on that: ``q.clone()``
# outside the block gives a normal tensor.
try:
    (q * w).sum().backward()
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split('. ')[0]}.")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("saving an inference tensor should have failed")
# sphinx_gallery_end_ignore
try:
    q.add_(1)
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split('.')[0]}.")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("changing q in place should have failed")
# sphinx_gallery_end_ignore
print(f"q.clone() is an inference tensor: {q.clone().is_inference()}")
# sphinx_gallery_start_ignore
assert not q.clone().is_inference()
# sphinx_gallery_end_ignore

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``Variable(t, requires_grad=True)``: tensors carry ``requires_grad``
#      themselves, so ``Variable(t)`` just returns a
#      tensor; write ``torch.tensor(..., requires_grad=True)``.
#    - ``Variable(t, volatile=True)``: ``volatile`` was removed and has no
#      effect; ``with torch.no_grad():`` replaced it.
#    - ``out.backward(torch.tensor(1.0))`` on a scalar ``out``: that is what
#      ``out.backward()`` does (a gradient of one for the output), so the
#      argument is only needed for non-scalar outputs.
#    - ``loss.data[0]`` to read the loss: indexing a 0-dim tensor is an error
#      today; use ``loss.item()``.
#    - ``w1.data -= lr * w1.grad.data`` to update: writing through ``.data``
#      hides the change from autograd's checks; update inside
#      ``torch.no_grad()``.

# %%
# Takeaways
# ---------
# - ``requires_grad=True`` makes autograd record every operation on a
#   tensor; ``backward()`` fills ``.grad`` of the leaves.
# - Gradients accumulate: reset ``.grad`` (or call ``zero_grad()``) between
#   steps.
# - ``y.backward(v)`` gives the vector-Jacobian product; a scalar's
#   ``backward()`` uses :math:`v = 1`.
# - The graph is recorded as the code runs, so Python control flow works.
# - Update weights inside ``torch.no_grad()``; ``detach()`` makes a
#   constant.
#
# Next, :ref:`sphx_glr_lessons_nn_01_nn_package.py` builds the same network
# from ``torch.nn`` layers. Two optional lessons go further first:
# :ref:`sphx_glr_lessons_basics_05_custom_functions.py` writes an operation
# with its own backward, and
# :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py` compares
# with TensorFlow's static graphs.


# %%
# Exercises
# ---------
# Three exercises on gradients with autograd. Each cell ends with a check:
# run it after your attempt and it says whether you are right. Solutions
# are at the end.
#
# **Exercise 1: predict a gradient.** Work out, without running it, what
# ``x.grad`` holds after these lines, and write it as a list of two
# numbers:
#
# .. code-block:: python
#
#    x = torch.tensor([1.0, -2.0], requires_grad=True)
#    (3 * x**2).sum().backward()
#    (x**3).sum().backward()
import math


def check_exercise_1(answer):
    """Exercise 1's check: run it on your answer."""
    if answer is ...:
        print("Exercise 1 not attempted yet: replace ... with two numbers")
        return
    if isinstance(answer, torch.Tensor):
        answer = answer.tolist()
    if (
        not isinstance(answer, (list, tuple))
        or len(answer) != 2
        or not all(isinstance(a, (int, float)) for a in answer)
    ):
        raise AssertionError(
            f"answer with a list of two numbers, not {answer!r}"
        )
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    (3 * x**2).sum().backward()
    first = x.grad.tolist()
    (x**3).sum().backward()
    both = x.grad.tolist()
    if all(math.isclose(a, g, abs_tol=1e-9) for a, g in zip(answer, both)):
        print("Exercise 1: correct")
        return
    alone = [b - f for b, f in zip(both, first)]
    if any(
        all(math.isclose(a, g, abs_tol=1e-9) for a, g in zip(answer, part))
        for part in (first, alone)
    ):
        raise AssertionError(
            f"{list(answer)} is what one of the two backward() calls "
            "computes: what does the other one do to the x.grad already there?"
        )
    raise AssertionError(
        f"x.grad is not {list(answer)}: differentiate each sum, and "
        "remember what backward() does with a gradient already there"
    )


# %%
# Your attempt at exercise 1, then its check:


answer_1 = ...  # [..., ...]
check_exercise_1(answer_1)

# %%
# **Exercise 2: derivatives at many points.** Write ``derivative(f, x)``: for
# a function ``f`` that works element by element and a 1-D tensor ``x``
# (which does not require gradients), return :math:`f'` at every point of
# ``x``, with autograd (one backward pass does it). Leave ``x`` as you found
# it: not requiring gradients, without a ``.grad``. (Hint: ``x.detach()`` is
# a new tensor that shares ``x``'s memory; ``requires_grad_()`` on it, or on
# a ``clone()`` of it, leaves ``x`` untracked.)


def check_exercise_2(fn):
    """Exercise 2's check: run it on your attempt."""
    gen = torch.Generator().manual_seed(4)
    a, b = (1 + torch.rand(2, generator=gen, dtype=torch.float64)).tolist()
    seen = []  # for each call of f: did autograd track its input?

    def f(t):  # an element-wise function made up for the check
        seen.append(t.requires_grad and torch.is_grad_enabled())
        return torch.sin(a * t) * torch.exp(-b * t * t) + t**3 / a

    f64 = torch.float64
    cases = [
        ("float64 points", torch.rand(9, generator=gen, dtype=f64) * 4 - 2),
        ("float32 points", torch.randn(5, generator=gen)),
        ("every other point of x", torch.randn(12, generator=gen)[::2]),
        ("points on the meta device", torch.zeros(4, device="meta")),
    ]
    for i, (name, x) in enumerate(cases):
        before = x.clone()
        seen.clear()
        try:
            out = fn(f, x)
        except Exception as err:
            raise AssertionError(
                f"on {name}, derivative failed with {type(err).__name__}: "
                f"{err}"
            ) from err
        if out is ... and i == 0:
            print("Exercise 2 not attempted yet: write derivative")
            return
        if x.requires_grad or x.grad is not None:
            raise AssertionError(
                f"on {name}, x now requires gradients or has a .grad: work "
                "on a detached tensor"
            )
        if not any(seen):
            raise AssertionError(
                "f never ran on a tensor that requires gradients: compute "
                "f' with autograd, not with a formula or finite differences"
            )
        if not isinstance(out, torch.Tensor) or (
            out.shape,
            out.dtype,
            out.device,
        ) != (x.shape, x.dtype, x.device):
            raise AssertionError(
                f"on {name}, expected a {x.dtype} tensor of shape "
                f"{tuple(x.shape)} on {x.device}, got "
                + (
                    f"{out.dtype} {tuple(out.shape)} on {out.device}"
                    if isinstance(out, torch.Tensor)
                    else type(out).__name__
                )
            )
        if x.is_meta:
            continue
        if not torch.equal(x, before):
            raise AssertionError(f"on {name}, x's values changed")
        t = x.detach().clone().requires_grad_()
        (want,) = torch.autograd.grad(f(t).sum(), t)
        tol = 1e-10 if x.dtype == f64 else 1e-5
        gap = (out.detach() - want).abs().max().item()
        if gap > tol * (1 + want.abs().max().item()):
            raise AssertionError(
                f"on {name}, your values differ from f' by up to {gap:.2g}"
            )
    print("Exercise 2: correct")


# %%
# Your attempt at exercise 2, then its check:


def derivative(f, x):
    return ...  # replace ... with your code


check_exercise_2(derivative)

# %%
# **Exercise 3: fix a training step.** The step below runs without an
# error, and its first call moves ``w`` correctly, but every later call
# moves it wrongly. Find out why and write a correct ``train_step``, which
# takes one gradient-descent step on ``w`` (a leaf tensor that requires
# gradients) in place.
#
# .. code-block:: python
#
#    def train_step(w, x, y, lr):
#        loss = (x @ w - y).pow(2).sum()
#        loss.backward()
#        with torch.no_grad():
#            w -= lr * w.grad


def check_exercise_3(fn):
    """Exercise 3's check: run it on your attempt."""
    gen = torch.Generator().manual_seed(5)
    f64 = torch.float64
    x = torch.randn(6, 3, generator=gen, dtype=f64)
    y = torch.randn(6, generator=gen, dtype=f64)
    w = torch.randn(3, generator=gen, dtype=f64, requires_grad=True)
    inputs = (x.clone(), y.clone())
    w_ref = w.detach().clone()
    for step in range(1, 4):
        before = w.detach().clone()
        probe = (w * w).sum()  # a recorded use of w, made before the step
        try:
            out = fn(w, x, y, 0.02)
        except Exception as err:
            raise AssertionError(
                f"at step {step}, train_step failed with "
                f"{type(err).__name__}: {err}"
            ) from err
        if out is ... and step == 1:
            print("Exercise 3 not attempted yet: write train_step")
            return
        if not torch.is_grad_enabled():
            torch.set_grad_enabled(True)
            raise AssertionError(
                "train_step left gradient recording switched off: update "
                "inside a with torch.no_grad(): block, which switches it back"
            )
        if not (w.is_leaf and w.requires_grad):
            raise AssertionError("w should stay a leaf that requires grad")
        if not (torch.equal(x, inputs[0]) and torch.equal(y, inputs[1])):
            raise AssertionError("train_step changed x or y")
        w_ref -= 0.02 * 2 * x.T @ (x @ w_ref - y)  # the gradient by hand
        if torch.equal(w.detach(), before):
            raise AssertionError(
                f"step {step} left w unchanged: update w itself, in place"
            )
        if not torch.allclose(w.detach(), w_ref, rtol=1e-9, atol=1e-12):
            raise AssertionError(
                f"after {step} step(s) w is {w.tolist()}, but it should be "
                f"{w_ref.tolist()}"
                + (
                    ": what does backward() do with a gradient the previous "
                    "step left in w.grad?"
                    if step > 1
                    else ""
                )
            )
        try:  # autograd saw w change in place, so the probe must fail
            torch.autograd.grad(probe, w)
        except RuntimeError:
            continue
        raise AssertionError(
            "w changed behind autograd's back (through .data?): update w "
            "itself inside torch.no_grad(), so autograd can notice"
        )
    print("Exercise 3: correct")


# %%
# Your attempt at exercise 3, then its check:


def train_step(w, x, y, lr):
    return ...  # replace ... with your code


check_exercise_3(train_step)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.

# %%

# Solution 1: predict a gradient
# The first backward stores 6x = (6, -12); the second adds 3x**2 = (3, 12).
answer_1 = [9.0, 0.0]
check_exercise_1(answer_1)

# %%


# Solution 2: derivatives at many points
def derivative(f, x):
    x = x.detach().clone().requires_grad_()  # a tracked copy of our own
    # each f(x)[i] depends on x[i] only, so the gradient of the sum holds
    # every derivative at once
    f(x).sum().backward()
    return x.grad


check_exercise_2(derivative)

# %%


# Solution 3: fix a training step
def train_step(w, x, y, lr):
    loss = (x @ w - y).pow(2).sum()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
    w.grad = None  # backward() adds into .grad: reset it for the next step


check_exercise_3(train_step)
