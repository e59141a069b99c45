"""
Warm-up: a two-layer network in plain NumPy
===========================================

Before using any PyTorch machinery we train a small neural network with NumPy
alone, writing the backward pass by hand. The network has one hidden layer of
ReLU units and learns to map 64 random inputs to 64 random targets. The
next lessons train this very network, from the same data and starting
weights, with tensors and autograd; ``torch.nn`` later builds one of the same
sizes, with bias terms.

**You will learn** the forward pass, the loss and the backward pass of a
small network written out by hand, how to check a gradient numerically, and
how gradient descent trains the network.

**You need first** Python and NumPy; the chain rule from calculus helps.
"""

# %%
# The problem and the data
# ------------------------
# A batch of ``N = 64`` inputs with ``D_in = 1000`` features goes through
# ``H = 100`` hidden units to ``D_out = 10`` outputs. Inputs, targets and both
# weight matrices are standard normal numbers from one seeded generator, drawn
# in a fixed order, so every run (and the next lesson, which repeats these
# lines) starts from the same numbers. Random targets are deliberate: with
# nothing to discover, the network can only memorise them, which makes it a
# clean test of the training machinery rather than of a model.
import numpy as np

N, D_in, H, D_out = 64, 1000, 100, 10

rng = np.random.default_rng(0)
x = rng.standard_normal((N, D_in))
y = rng.standard_normal((N, D_out))
w1 = rng.standard_normal((D_in, H))
w2 = rng.standard_normal((H, D_out))
print(f"x {x.shape}, y {y.shape}, w1 {w1.shape}, w2 {w2.shape}, {x.dtype}")
# sphinx_gallery_start_ignore
assert x.dtype == w1.dtype == np.float64
assert isinstance(rng.bit_generator, np.random.PCG64)
# sphinx_gallery_end_ignore
# sphinx_gallery_tags = ["beginner", "numpy", "backprop"]

# %%
# Forward and backward by hand
# ----------------------------
# The forward pass is two matrix products with a ReLU between them, and the
# loss is the sum of squared errors over every sample and output:
#
# .. math::
#
#    h = x W_1, \qquad a = \max(h, 0), \qquad \hat y = a W_2, \qquad
#    L = \sum_{n, k} (\hat y_{nk} - y_{nk})^2 .
#
# The chain rule, applied from the loss backwards, gives each gradient from
# the one after it. We write :math:`\delta v` for :math:`\partial L /
# \partial v`, the gradient of the loss with respect to :math:`v` (``d_v`` in
# the code). A gradient has the shape of the thing it belongs to, which is a
# good check on where the transposes go:
#
# .. math::
#
#    \delta \hat y = 2 (\hat y - y), \qquad
#    \delta W_2 = a^\top \delta \hat y, \qquad
#    \delta a = \delta \hat y \, W_2^\top, \qquad
#    \delta h = \delta a \odot [h > 0], \qquad
#    \delta W_1 = x^\top \delta h .
#
# The ReLU passes gradient only where its input was positive: :math:`[h >
# 0]` is 1 where :math:`h > 0` and 0 elsewhere, and :math:`\odot` multiplies
# element by element. The function below does both passes and returns the loss
# with the two weight gradients.


def loss_and_grads(w1, w2):
    # forward pass, keeping what the backward pass needs
    h = x @ w1  # (N, H)
    a = np.maximum(h, 0.0)  # (N, H)
    y_hat = a @ w2  # (N, D_out)
    err = y_hat - y
    loss = np.sum(err**2)
    # backward pass, from the loss towards the inputs
    d_y_hat = 2.0 * err  # (N, D_out)
    d_w2 = a.T @ d_y_hat  # (H, D_out)
    d_a = d_y_hat @ w2.T  # (N, H)
    d_h = d_a * (h > 0)  # (N, H)
    d_w1 = x.T @ d_h  # (D_in, H)
    return loss, d_w1, d_w2


loss0, d_w1, d_w2 = loss_and_grads(w1, w2)
print(f"initial loss: {loss0:.6g}")
print(f"gradient shapes: d_w1 {d_w1.shape}, d_w2 {d_w2.shape}")
# sphinx_gallery_start_ignore
assert d_w1.shape == w1.shape and d_w2.shape == w2.shape
# sphinx_gallery_end_ignore

# %%
# Checking the gradients numerically
# ----------------------------------
# A hand-written backward pass is easy to get subtly wrong, so we compare a few
# entries against central differences,
# :math:`(L(w + \varepsilon) - L(w - \varepsilon)) / 2\varepsilon`, nudging one
# weight at a time. Along a single weight the loss is a parabola (as long as
# no ReLU flips), for which the central difference is exact, so the two
# numbers should agree to many digits.
eps = 1e-3
for name, index in [("w1", (0, 0)), ("w1", (321, 45)), ("w2", (99, 9))]:
    up = {"w1": w1.copy(), "w2": w2.copy()}
    down = {"w1": w1.copy(), "w2": w2.copy()}
    up[name][index] += eps
    down[name][index] -= eps
    numeric = (loss_and_grads(**up)[0] - loss_and_grads(**down)[0]) / (2 * eps)
    grad = {"w1": d_w1, "w2": d_w2}[name][index]
    print(f"d{name}{index}: backprop {grad:.5e}, finite diff {numeric:.5e}")
    # sphinx_gallery_start_ignore
    assert abs(numeric - grad) <= 1e-7 * abs(grad)
    # sphinx_gallery_end_ignore

# %%
# The two columns agree to every printed digit, so the hand-written backward
# pass is right, at least at these three weights.

# %%
# Training
# --------
# Gradient descent moves each weight by ``-learning_rate * gradient``, using
# the whole batch at every step. The weights are standard normal, not scaled
# down by the size of their layer as ``torch.nn`` does later, and the loss is
# a sum over 64 samples, so the gradients are large and we take a small step,
# ``5e-7``.
learning_rate = 5e-7
steps = 500
losses = np.empty(steps)
for t in range(steps):
    loss, d_w1, d_w2 = loss_and_grads(w1, w2)
    losses[t] = loss
    w1 -= learning_rate * d_w1
    w2 -= learning_rate * d_w2
    if t % 100 == 0 or t == steps - 1:
        print(f"step {t:3d}: loss {loss:.6g}")

print(f"loss fell by a factor of {losses[0] / losses[-1]:.3g}")
print(f"steps where the loss rose: {(np.diff(losses) >= 0).sum()}")
# sphinx_gallery_start_ignore
assert losses[-1] < losses[0] / 1e8  # more than eight orders of magnitude
assert np.all(np.diff(losses) < 0)  # and it fell at every single step
# sphinx_gallery_end_ignore

# %%
# The loss curve
# --------------
# The loss fell at every one of the 500 steps, by more than eight orders of
# magnitude in all. A log scale shows the whole fall, from about :math:`3
# \times 10^7` down.
import matplotlib.pyplot as plt

# sphinx_gallery_start_ignore
assert 3e7 < losses[0] < 4e7
# sphinx_gallery_end_ignore
fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogy(losses)
ax.set_xlabel("step")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title(
    f"Two-layer ReLU network in NumPy, learning rate {learning_rate:g}"
)
ax.grid(True, which="both", alpha=0.3)
plt.show()

# %%
# The loss drops steeply at first and then along a nearly straight line:
# late in training each step removes about the same fraction of what is
# left. It can head towards zero because the 64 rows of hidden activations
# are linearly independent (rank 64, computed below with the trained
# ``W_1``), so some ``W_2`` fits any 64 targets exactly.
removed = 1 - losses[301:] / losses[300:-1]  # fraction removed per step
lo, hi = removed.min(), removed.max()
print(f"fraction of the loss removed per step, 300-499: {lo:.2%}-{hi:.2%}")
rank = np.linalg.matrix_rank(np.maximum(x @ w1, 0.0))
print(f"rank of the {N} x {H} hidden activations: {rank}")
# sphinx_gallery_start_ignore
assert hi < 1.2 * lo  # the same fraction, to within 20%
assert rank == N
# sphinx_gallery_end_ignore

# %%
# What NumPy cannot do
# --------------------
# This works, but NumPy runs only on the CPU and knows nothing about
# gradients: every new layer means deriving and coding its backward pass
# again. :ref:`sphx_glr_lessons_basics_03_tensor_backprop.py` moves the same
# computation onto PyTorch tensors, which can run on a GPU, and
# :ref:`sphx_glr_lessons_basics_04_autograd.py` lets PyTorch derive the
# backward pass for us.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``np.random.seed(...)`` then ``np.random.randn(...)``: draws from one
#      hidden global generator that any library can advance. ``rng =
#      np.random.default_rng(seed)`` gives you your own generator object
#      (PCG64 rather than the Mersenne Twister); ``rng.standard_normal``
#      replaces ``randn``.

# %%
# Takeaways
# ---------
# - A network's forward pass is a few array operations; the loss turns its
#   output into one number to minimise.
# - The backward pass applies the chain rule from the loss back to each
#   weight; each gradient has the shape of its weight.
# - Central differences check a hand-written gradient.
# - Gradient descent subtracts ``learning_rate * gradient`` from each weight.
#
# Next, :ref:`sphx_glr_lessons_basics_03_tensor_backprop.py` runs the same
# network on PyTorch tensors.


# %%
# Exercises
# ---------
# Two exercises on the backward pass and its numerical check. Each cell ends
# with a check: run it after your attempt and it says whether you are right.
# Solutions are at the end.
#
# **Exercise 1: the gradient of one linear layer.** A network with no hidden
# layer predicts :math:`\hat y = x W` and has the lesson's loss,
# :math:`L = \sum (\hat y - y)^2`. Write ``loss_and_grad(w, x, y)``, which
# returns the loss and the gradient :math:`\delta W = \partial L / \partial
# W`, an array of the same shape as ``w``. Derive it by the chain rule, as
# the lesson did for the two layers.


def check_exercise_1(fn):
    """Exercise 1's check: run it on your attempt."""
    rng = np.random.default_rng(1)
    for i, (n, d_in, d_out) in enumerate([(5, 3, 2), (7, 4, 3)]):
        x = rng.standard_normal((n, d_in))
        y = rng.standard_normal((n, d_out))
        w = rng.standard_normal((d_in, d_out))
        inputs = {"w": w.copy(), "x": x.copy(), "y": y.copy()}
        try:
            result = fn(w, x, y)
        except Exception as err:
            raise AssertionError(
                f"with w of shape {w.shape}, loss_and_grad failed with "
                f"{type(err).__name__}: {err}"
            ) from err
        if result is ... and i == 0:
            print("Exercise 1 not attempted yet: write loss_and_grad")
            return
        for name, value in zip("wxy", (w, x, y)):
            if not np.array_equal(value, inputs[name]):
                raise AssertionError(
                    f"loss_and_grad changed {name}: leave its inputs alone"
                )
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise AssertionError("return two things: the loss and d_w")
        loss, d_w = result
        if np.ndim(loss) != 0 or np.ndim(d_w) == 0:
            raise AssertionError(
                "return the loss (one number) first, then the array d_w"
            )
        if not isinstance(d_w, np.ndarray):
            raise AssertionError(
                f"d_w is a {type(d_w).__name__}: return a NumPy array"
            )
        loss = float(loss)

        def total(v):  # the loss at weights v
            return np.sum((x @ v - y) ** 2)

        if not np.isclose(loss, total(w), rtol=1e-9):
            raise AssertionError(
                f"the loss should be {total(w):.6g}, the sum of the squared "
                f"errors, not {loss:.6g}"
                + (
                    ": that is their mean"
                    if np.isclose(loss, total(w) / y.size, rtol=1e-9)
                    else ""
                )
            )
        if d_w.shape != w.shape:
            raise AssertionError(
                f"d_w has shape {d_w.shape}; a gradient has the shape of "
                f"its weight, {w.shape}"
            )
        if d_w.dtype != np.float64:
            raise AssertionError(f"d_w is {d_w.dtype}: keep float64")
        # L is quadratic in w, so (L(w + v) - L(w - v)) / 2 is exactly the
        # change of L along any direction v: the sum of d_w * v
        for v in rng.standard_normal((2 * w.size, *w.shape)):
            slope = (total(w + v) - total(w - v)) / 2
            if not np.isclose(np.sum(d_w * v), slope, rtol=1e-8, atol=1e-8):
                if np.isclose(-np.sum(d_w * v), slope, rtol=1e-8):
                    raise AssertionError(
                        "d_w points the wrong way: check its sign"
                    )
                raise AssertionError(
                    "d_w has the right shape but wrong values: go back "
                    "through the chain rule, from the loss to w"
                )
    print("Exercise 1: correct")


# %%
# Your attempt at exercise 1, then its check:


def loss_and_grad(w, x, y):
    return ...  # replace ... with your code


check_exercise_1(loss_and_grad)

# %%
# **Exercise 2: central differences for every weight.** Write
# ``numeric_grad(f, w, eps)``, which returns an array shaped like ``w``
# whose entry at each index is :math:`(f(w + \varepsilon) - f(w -
# \varepsilon)) / 2\varepsilon`, nudging that one entry of ``w`` only, for
# an array ``w`` of any shape. ``f`` maps an array to a number. Leave ``w`` as
# you found it (if you nudge it in place and then undo the nudge, rounding
# may change its last bit, which the check allows).
# (``np.ndindex(w.shape)`` walks every index of an array of any shape.)


def check_exercise_2(fn):
    """Exercise 2's check: run it on your attempt."""
    rng = np.random.default_rng(2)

    def f(v):  # a test function with a known gradient
        return np.sum(v**3) + v.flat[1] * v.flat[-1]

    cases = [("a 2-D w", (2, 3), 1e-5), ("a 3-D w", (2, 2, 3), 1e-4)]
    for i, (name, shape, eps) in enumerate(cases):
        w = rng.standard_normal(shape)
        before = w.copy()
        try:
            grad = fn(f, w, eps)
        except Exception as err:
            raise AssertionError(
                f"on {name}, numeric_grad failed with {type(err).__name__}: "
                f"{err}"
            ) from err
        if grad is ... and i == 0:
            print("Exercise 2 not attempted yet: write numeric_grad")
            return
        if np.shape(w) != shape or np.any(
            np.abs(w - before) > 1e-12 * (1 + np.abs(before))
        ):
            raise AssertionError(
                f"on {name}, numeric_grad left w changed: put each entry back"
            )
        if not isinstance(grad, np.ndarray):
            raise AssertionError(
                f"numeric_grad returned a {type(grad).__name__}: return a "
                "NumPy array"
            )
        if grad.shape != shape:
            raise AssertionError(
                f"on {name}, expected shape {shape}, got {np.shape(grad)}"
            )
        if grad.dtype != np.float64:
            raise AssertionError(f"the result is {grad.dtype}: keep float64")
        exact = 3 * w**2
        exact.flat[1] += w.flat[-1]
        exact.flat[-1] += w.flat[1]
        if not np.allclose(grad, exact, rtol=1e-7, atol=1e-7):
            raise AssertionError(
                f"on {name} the exact gradient is "
                f"{np.round(exact, 5).tolist()}, yours is "
                f"{np.round(grad, 5).tolist()}: check the formula and that "
                "each evaluation nudges one entry only"
            )
    print("Exercise 2: correct")


# %%
# Your attempt at exercise 2, then its check:


def numeric_grad(f, w, eps):
    return ...  # replace ... with your code


check_exercise_2(numeric_grad)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.

# %%


# Solution 1: the gradient of one linear layer
def loss_and_grad(w, x, y):
    err = x @ w - y
    d_y_hat = 2.0 * err  # (N, D_out)
    return np.sum(err**2), x.T @ d_y_hat  # (D_in, N) @ (N, D_out)


check_exercise_1(loss_and_grad)

# %%


# Solution 2: central differences for every weight
def numeric_grad(f, w, eps):
    grad = np.zeros_like(w)
    for index in np.ndindex(w.shape):
        step = np.zeros_like(w)
        step[index] = eps  # nudge one entry; w itself is never changed
        grad[index] = (f(w + step) - f(w - step)) / (2 * eps)
    return grad


check_exercise_2(numeric_grad)
