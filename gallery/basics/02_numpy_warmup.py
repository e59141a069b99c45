"""
Warm-up: a two-layer network in plain NumPy
===========================================

Before using any PyTorch machinery we train a small neural network with NumPy
alone, writing the backward pass by hand. The network has one hidden layer of
ReLU units and learns to map 64 random inputs to 64 random targets; the
lessons that follow rebuild exactly this network with tensors, autograd and
``torch.nn``.

.. tags:: beginner, numpy, backprop
"""

# %%
# The problem and the data
# ------------------------
# A batch of ``N = 64`` inputs with ``D_in = 1000`` features goes through
# ``H = 100`` hidden units to ``D_out = 10`` outputs. Inputs, targets and both
# weight matrices are standard normal numbers from one seeded generator, drawn
# in a fixed order, so every run (and the next lesson, which repeats these
# lines) starts from the same numbers.
import numpy as np

N, D_in, H, D_out = 64, 1000, 100, 10

rng = np.random.default_rng(0)
x = rng.standard_normal((N, D_in))
y = rng.standard_normal((N, D_out))
w1 = rng.standard_normal((D_in, H))
w2 = rng.standard_normal((H, D_out))
print(
    f"x {x.shape}, y {y.shape}, w1 {w1.shape}, w2 {w2.shape}, dtype {x.dtype}"
)

# %%
# .. note:: Old code you may meet: ``np.random.randn(...)`` after
#    ``np.random.seed(...)`` draws from one hidden global generator that any
#    library can advance. ``rng = np.random.default_rng(seed)`` gives you your
#    own generator object (and a better algorithm); ``rng.standard_normal``
#    replaces ``randn``.
#
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
# the one after it. A gradient has the shape of the thing it belongs to, which
# is a good check on where the transposes go:
#
# .. math::
#
#    \frac{\partial L}{\partial \hat y} = 2 (\hat y - y), \qquad
#    \frac{\partial L}{\partial W_2} = a^\top \frac{\partial L}{\partial \hat y},
#    \qquad
#    \frac{\partial L}{\partial a} = \frac{\partial L}{\partial \hat y} W_2^\top,
#
#    \frac{\partial L}{\partial h} = \frac{\partial L}{\partial a} \odot [h > 0],
#    \qquad
#    \frac{\partial L}{\partial W_1} = x^\top \frac{\partial L}{\partial h} .
#
# The ReLU passes gradient only where its input was positive, hence the mask
# :math:`[h > 0]`. The function below does both passes and returns the loss
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
assert d_w1.shape == w1.shape and d_w2.shape == w2.shape

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
for name, weights, grad, index in [
    ("w1", w1, d_w1, (0, 0)),
    ("w1", w1, d_w1, (321, 45)),
    ("w2", w2, d_w2, (7, 3)),
    ("w2", w2, d_w2, (99, 9)),
]:
    up, down = weights.copy(), weights.copy()
    up[index] += eps
    down[index] -= eps
    if name == "w1":
        numeric = (loss_and_grads(up, w2)[0] - loss_and_grads(down, w2)[0]) / (
            2 * eps
        )
    else:
        numeric = (loss_and_grads(w1, up)[0] - loss_and_grads(w1, down)[0]) / (
            2 * eps
        )
    print(
        f"d{name}{index}: backprop {grad[index]:.5e}, finite difference {numeric:.5e}"
    )
    np.testing.assert_allclose(numeric, grad[index], rtol=1e-7)

# %%
# Choosing the learning rate
# --------------------------
# Gradient descent moves each weight by ``-learning_rate * gradient``. The
# safe step size depends on how sharply the loss curves. Hold :math:`W_1`
# fixed and the loss is a quadratic in :math:`W_2` with curvature matrix
# :math:`2 a^\top a`; plain gradient descent on a quadratic converges only if
# the step is below :math:`2 / \lambda_{\max}`, where :math:`\lambda_{\max}` is
# that matrix's largest eigenvalue, here twice the squared largest singular
# value of the hidden activations ``a``.
#
# The curvature is huge here for two reasons: the weights are unscaled
# standard normals, so each hidden pre-activation sums 1000 random terms and
# has a spread near :math:`\sqrt{1000} \approx 32`, and the loss adds up 64
# samples instead of averaging them.
a0 = np.maximum(x @ w1, 0.0)
lam_max = 2 * np.linalg.norm(a0, ord=2) ** 2
print(f"std of h = x @ w1: {np.std(x @ w1):.1f}")
print(
    f"largest curvature along w2: {lam_max:.4g}, stability limit 2/lambda: {2 / lam_max:.3g}"
)

learning_rate = 5e-7
assert learning_rate < 2 / lam_max < 1e-6

# %%
# The value ``1e-6`` that older versions of this example used sits just above
# that limit for our data, and the loss *grows* during the first steps instead
# of falling. Half of it, ``5e-7``, is close to
# :math:`1 / \lambda_{\max}`, safely inside the limit, and still fast. Scaling
# the initial weights by :math:`1/\sqrt{D_{in}}` or averaging the loss over the
# batch would shrink the curvature and allow larger rates.
w1_try, w2_try = w1.copy(), w2.copy()
early = []
for _ in range(5):
    loss, g1, g2 = loss_and_grads(w1_try, w2_try)
    early.append(loss)
    w1_try -= 1e-6 * g1
    w2_try -= 1e-6 * g2
print(
    "first losses with learning rate 1e-6:",
    ", ".join(f"{v:.4g}" for v in early),
)
assert np.any(np.diff(early) > 0)  # the loss went up on the way

# %%
# Training
# --------
# Each step runs the forward and backward passes on the whole batch and moves
# both weight matrices against their gradients, in place.
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
assert losses[-1] < losses[0] / 1e8  # more than eight orders of magnitude
assert np.all(np.diff(losses) < 0)  # and it fell at every single step

# %%
# The loss curve
# --------------
# On a log scale the loss drops steeply over the first few dozen steps and
# then falls along an almost straight line: each step removes a roughly
# constant fraction of what is left, as gradient descent does near the bottom
# of a bowl. Random targets can be fitted exactly here, because with 100
# hidden units and only 64 samples even the last layer alone has enough
# freedom to match any targets; so the loss keeps heading towards zero.
import matplotlib.pyplot as plt

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
# What NumPy cannot do
# --------------------
# This works, but NumPy runs only on the CPU and knows nothing about
# gradients: every new layer means deriving and coding its backward pass
# again. :ref:`sphx_glr_lessons_basics_03_tensor_backprop.py` moves the same
# computation onto PyTorch tensors, which can run on a GPU, and
# :ref:`sphx_glr_lessons_basics_04_autograd.py` lets PyTorch derive the
# backward pass for us.
