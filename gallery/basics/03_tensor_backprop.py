"""
The same network on PyTorch tensors
===================================

We port the NumPy network of the warm-up lesson to PyTorch tensors, still
writing the backward pass by hand. The code barely changes, but it now runs on
an accelerator such as a GPU when one is present (one with ``float64``,
which this lesson needs). Starting from the same data and weights, we train
both versions and check that they produce the same losses and the same
trained weights.

**You will learn** to translate NumPy code to PyTorch operation by
operation, to put tensors on a device, and to compare two runs with a
tolerance.

**You need first** :ref:`sphx_glr_lessons_basics_01_tensors.py` and
:ref:`sphx_glr_lessons_basics_02_numpy_warmup.py`.
"""

# %%
# Setup
# -----
# One seed for PyTorch's generator, and the device picked once, as in
# :ref:`sphx_glr_lessons_basics_01_tensors.py`: every tensor below is
# created on it or moved to it. This lesson needs ``float64`` to compare with
# NumPy to many digits. Apple GPUs (MPS) and some Intel GPUs (XPU) have no
# ``float64``, so the ``if`` below falls back to the CPU there.
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
# sphinx_gallery_tags = ["beginner", "tensors", "backprop"]

# %%
# The same data and starting weights
# ----------------------------------
# These lines are the ones from
# :ref:`sphx_glr_lessons_basics_02_numpy_warmup.py`: one seeded NumPy
# generator, the same draws in the same order, so both lessons start from
# the same numbers.
import numpy as np

N, D_in, H, D_out = 64, 1000, 100, 10

rng = np.random.default_rng(0)
x_np = rng.standard_normal((N, D_in))
y_np = rng.standard_normal((N, D_out))
w1_np = rng.standard_normal((D_in, H))
w2_np = rng.standard_normal((H, D_out))

# %%
# ``torch.from_numpy`` wraps each array as a tensor without copying and keeps
# its ``float64`` dtype, so both versions do the same arithmetic.
# ``.to(device)`` then copies to an accelerator, but on the CPU it returns
# the very same tensor, still sharing memory with the array. That is fine for
# the data, which we only read. The weights, however, are updated in place,
# and we need the NumPy weights untouched for the reference run, so
# ``copy=True`` forces a separate copy on every device.
x = torch.from_numpy(x_np).to(device)
y = torch.from_numpy(y_np).to(device)
w1 = torch.from_numpy(w1_np).to(device, copy=True)
w2 = torch.from_numpy(w2_np).to(device, copy=True)
print(f"w1: {tuple(w1.shape)} {w1.dtype} on {w1.device}")
# sphinx_gallery_start_ignore
assert w1.dtype == x.dtype == torch.float64
if device.type == "cpu":  # on an accelerator, .cpu() always makes a copy
    assert np.shares_memory(x.numpy(), x_np)
    assert not np.shares_memory(w1.numpy(), w1_np)
    assert not np.shares_memory(w2.numpy(), w2_np)
# sphinx_gallery_end_ignore

# %%
# We use ``float64`` only to compare with NumPy to many digits. Networks are
# normally trained in ``float32`` or lower precision.
#
# From NumPy to PyTorch, operation by operation
# ---------------------------------------------
# Almost every line has a direct counterpart:
#
# .. list-table::
#    :header-rows: 1
#
#    * - NumPy
#      - PyTorch
#    * - ``x @ w1`` or ``x.dot(w1)``
#      - ``x @ w1`` or ``x.mm(w1)`` (torch's ``dot`` takes 1-D tensors only)
#    * - ``np.maximum(h, 0.0)``
#      - ``h.clamp(min=0)`` or ``torch.relu(h)``
#    * - ``np.sum(err**2)``
#      - ``err.pow(2).sum()``
#    * - ``a.T``
#      - ``a.T`` or ``a.t()``
#    * - ``arr.copy()``
#      - ``tensor.clone()``
#    * - ``w1 -= lr * g``
#      - ``w1 -= lr * g`` or ``w1.sub_(lr * g)``
#
# Training on tensors
# -------------------
# The learning rate is the one the warm-up lesson used.
# Each step stores its loss into a preallocated tensor on the device:
# an accelerator runs work *asynchronously* (Python queues operations and
# moves on), and ``loss.item()`` copies a number to the CPU, which must then
# wait for all queued work to finish, so we read numbers back only every
# 100 steps.
learning_rate = 5e-7
steps = 500
losses = torch.empty(steps, dtype=torch.float64, device=device)
for t in range(steps):
    # forward pass
    h = x @ w1
    a = h.clamp(min=0)
    y_hat = a @ w2
    err = y_hat - y
    loss = err.pow(2).sum()
    losses[t] = loss
    # backward pass, by hand as before
    d_y_hat = 2.0 * err
    d_w2 = a.T @ d_y_hat
    d_a = d_y_hat @ w2.T
    d_h = d_a * (h > 0)
    d_w1 = x.T @ d_h
    # gradient descent step, in place
    w1.sub_(learning_rate * d_w1)
    w2.sub_(learning_rate * d_w2)
    if t % 100 == 0 or t == steps - 1:
        print(f"step {t:3d}: loss {loss.item():.6g}")

# sphinx_gallery_start_ignore
assert losses[-1] < losses[0] / 1e8
# sphinx_gallery_end_ignore

# %%
# The printed losses are the warm-up lesson's, digit for digit.
#
# The NumPy reference run
# -----------------------
# Now the warm-up's loop again, in NumPy, from copies of the same starting
# weights.
w1_ref, w2_ref = w1_np.copy(), w2_np.copy()
losses_ref = np.empty(steps)
for t in range(steps):
    h = x_np @ w1_ref
    a = np.maximum(h, 0.0)
    y_hat = a @ w2_ref
    err = y_hat - y_np
    losses_ref[t] = np.sum(err**2)
    d_y_hat = 2.0 * err
    d_w2 = a.T @ d_y_hat
    d_a = d_y_hat @ w2_ref.T
    d_h = d_a * (h > 0)
    d_w1 = x_np.T @ d_h
    w1_ref -= learning_rate * d_w1
    w2_ref -= learning_rate * d_w2

# %%
# Do the two runs agree?
# ----------------------
# The two libraries may call different matrix-multiplication routines, which
# add up terms in different orders, so the last bits can differ. We print
# the losses side by side and the largest relative difference between the
# two runs, over the 500 losses and the entries of both trained weight
# matrices.
for t in (0, 100, 499):
    print(
        f"step {t:3d}: torch {losses[t].item():.6g}  numpy {losses_ref[t]:.6g}"
    )
pairs = [(losses, losses_ref), (w1, w1_ref), (w2, w2_ref)]
for name, (ours, ref) in zip(["losses", "w1", "w2"], pairs):
    ref = torch.from_numpy(ref)
    gap = ((ours.cpu() - ref).abs() / ref.abs()).max().item()
    print(f"{name}: largest relative difference {gap:.1e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(losses.cpu(), torch.from_numpy(losses_ref))
torch.testing.assert_close(w1.cpu(), torch.from_numpy(w1_ref))
torch.testing.assert_close(w2.cpu(), torch.from_numpy(w2_ref))
# sphinx_gallery_end_ignore

# %%
# The relative differences are far smaller than the printed digits can
# show: the same computation, in a new library. To compare tensors in your
# own code, ``torch.testing.assert_close(actual, expected)`` raises an error
# when two tensors differ by more than a tolerance chosen for their dtype.
#
# Going deeper
# ------------
# Optional on a first read: how much difference is "the same".
#
# How close is close enough?
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# For ``float64``, ``assert_close`` allows by default a difference of
# :math:`10^{-7}` plus :math:`10^{-7}` times the size of the expected value.
# Here the losses agree much better than that. Their relative difference starts
# near ``float64``'s rounding error and grows as each run builds on its own
# rounding; we check a tighter bound of :math:`10^{-7}` separately, since at
# the final loss, about 0.015, ``assert_close``'s absolute term alone would
# allow a relative difference near :math:`7 \times 10^{-6}`.
rel = np.abs(losses.cpu().numpy() - losses_ref) / losses_ref
print(f"largest relative difference: {rel.max():.1e}")
print(f"step 0: {rel[0]:.1e}, last 100 steps: {rel[-100:].max():.1e}")
print(f"steps with bit-for-bit equal losses: {(rel == 0).sum()}")
# sphinx_gallery_start_ignore
assert rel[0] < 1e-14 and rel[-100:].max() > rel[:100].max()
assert rel.max() < 1e-7
# sphinx_gallery_end_ignore

# %%
# The figure shows the relative difference at every step. Steps where the
# two losses are bit for bit equal have no point on the log scale.
import matplotlib.pyplot as plt

steps_axis = np.arange(steps)
fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogy(steps_axis[rel > 0], rel[rel > 0], ".", markersize=3)
ax.axhline(1e-7, color="black", linestyle="--", label="checked bound")
ax.set_xlabel("step")
ax.set_ylabel("relative difference of the losses")
ax.set_title(f"Hand-written backprop, PyTorch ({device.type}) vs NumPy")
ax.legend()
ax.grid(True, which="both", alpha=0.3)
plt.show()

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``dtype = torch.cuda.FloatTensor`` followed by
#      ``torch.randn(...).type(dtype)`` chose the device through a type name
#      and had to be edited by hand to switch. The device is now a separate
#      argument: ``torch.randn(..., device=device)`` or ``x.to(device)``,
#      with the dtype given apart (``dtype=torch.float32``).

# %%
# Takeaways
# ---------
# - NumPy code ports to PyTorch almost line by line: ``@``, ``clamp``,
#   ``.T``, ``clone`` and in-place updates such as ``sub_``.
# - Create or move every tensor to one ``device``; ``torch.from_numpy``
#   shares memory, so copy what you will change in place.
# - Reading a number back with ``.item()`` makes the CPU wait for the
#   device; do it rarely.
# - Two correct implementations agree up to rounding; compare them with
#   ``torch.testing.assert_close``, not ``==``.
#
# Next, :ref:`sphx_glr_lessons_basics_04_autograd.py` lets PyTorch record
# the forward pass and compute these gradients for us, so we no longer
# derive and type every gradient by hand.


# %%
# Exercises
# ---------
# Two exercises on moving NumPy code to PyTorch. Each cell ends with a check:
# run it after your attempt and it says whether you are right. Solutions
# are at the end.
#
# **Exercise 1: weights you may update in place.** Write
# ``weights_from_numpy(array, device)``, which returns a tensor on
# ``device`` with the values, the shape and the dtype of ``array``
# (``float64`` for the lesson's weights), in memory of its own, so that
# updating the tensor in place leaves the array alone, on the CPU too. The
# check also passes the ``meta`` device, which every machine has: a tensor
# there has a shape and a dtype but no values.


def check_exercise_1(fn):
    """Exercise 1's check: run it on your attempt."""
    rng = np.random.default_rng(1)
    cases = [
        ("a float64 array", rng.standard_normal((2, 3)), "cpu"),
        ("a float64 array", rng.standard_normal((3, 4)), "meta"),
        ("a float32 array", rng.standard_normal(5).astype(np.float32), "cpu"),
        ("a transposed array", rng.standard_normal((4, 2)).T, "cpu"),
    ]
    for i, (name, array, device) in enumerate(cases):
        before = array.copy()
        try:
            w = fn(array, torch.device(device))
        except Exception as err:
            raise AssertionError(
                f"for {name} and device {device!r}, weights_from_numpy "
                f"failed with {type(err).__name__}: {err}"
            ) from err
        if w is ... and i == 0:
            print("Exercise 1 not attempted yet: write weights_from_numpy")
            return
        if not isinstance(w, torch.Tensor):
            raise AssertionError(f"expected a tensor, got {type(w).__name__}")
        want = torch.from_numpy(before).dtype
        if w.device.type != device:
            raise AssertionError(
                f"asked for device {device!r}, got a tensor on {w.device}: "
                "pass device on"
            )
        if w.dtype != want or w.shape != array.shape:
            raise AssertionError(
                f"for {name} expected {want} of shape {array.shape}, got "
                f"{w.dtype} of shape {tuple(w.shape)}: keep the array's"
            )
        if w.requires_grad:
            raise AssertionError(
                "the tensor requires gradients, so it cannot be updated in "
                "place outside torch.no_grad(): return a plain tensor"
            )
        if device == "meta":
            continue
        if not np.array_equal(w.numpy(), before):
            raise AssertionError("the tensor should hold the array's values")
        w.sub_(1.0)
        if not np.array_equal(array, before):
            raise AssertionError(
                "w.sub_(1.0) changed the array too: the tensor shares its "
                "memory"
            )
    print("Exercise 1: correct")


# %%
# Your attempt at exercise 1, then its check:


def weights_from_numpy(array, device):
    return ...  # replace ... with your code


check_exercise_1(weights_from_numpy)

# %%
# **Exercise 2: port the backward pass.** Its check computes the
# gradients of the lesson's two-layer network with NumPy. Write
# ``grads_torch(x, y, w1, w2)``, which takes tensors of any sizes that fit
# together, on any device, and returns the same two gradients,
# ``(d_w1, d_w2)``, as tensors of the inputs' dtype on their device,
# translating the NumPy code operation by operation.


def check_exercise_2(fn):
    """Exercise 2's check: run it on your attempt."""
    rng = np.random.default_rng(2)
    for i, (n, d_in, h, d_out) in enumerate([(6, 5, 4, 2), (9, 3, 7, 4)]):
        x, y = rng.standard_normal((n, d_in)), rng.standard_normal((n, d_out))
        w1, w2 = (
            rng.standard_normal((d_in, h)),
            rng.standard_normal((h, d_out)),
        )
        # the NumPy reference, as in the warm-up lesson
        a = np.maximum(x @ w1, 0.0)
        d_y_hat = 2.0 * (a @ w2 - y)
        d_w2 = a.T @ d_y_hat
        d_w1 = x.T @ ((d_y_hat @ w2.T) * (x @ w1 > 0))
        tensors = [torch.tensor(v) for v in (x, y, w1, w2)]
        try:
            result = fn(*tensors)
        except Exception as err:
            raise AssertionError(
                f"grads_torch failed with {type(err).__name__}: {err}"
            ) from err
        if result is ... and i == 0:
            print("Exercise 2 not attempted yet: write grads_torch")
            return
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise AssertionError("return two gradients: (d_w1, d_w2)")
        for v, t in zip((x, y, w1, w2), tensors):
            if not np.array_equal(t.numpy(), v):
                raise AssertionError("grads_torch changed one of its inputs")
        for name, ours, ref in zip(["d_w1", "d_w2"], result, [d_w1, d_w2]):
            if not isinstance(ours, torch.Tensor):
                raise AssertionError(
                    f"{name} should be a tensor, not {type(ours).__name__}"
                )
            if ours.shape != ref.shape:
                raise AssertionError(
                    f"{name} has shape {tuple(ours.shape)}, expected "
                    f"{ref.shape}: return (d_w1, d_w2) in that order"
                )
            if ours.dtype != torch.float64:
                raise AssertionError(f"{name} is {ours.dtype}: keep float64")
            gap = (ours - torch.from_numpy(ref)).abs().max().item()
            if gap > 1e-10 * (1 + np.abs(ref).max()):
                raise AssertionError(
                    f"{name} differs from NumPy's by up to {gap:.3g}: compare "
                    "your code with the NumPy lines, one by one"
                )
    meta = [t.to("meta") for t in tensors]
    try:
        result = fn(*meta)
    except Exception as err:
        raise AssertionError(
            "on the meta device grads_torch failed with "
            f"{type(err).__name__}: {err}: use tensor operations only"
        ) from err
    if not all(isinstance(g, torch.Tensor) and g.is_meta for g in result):
        raise AssertionError(
            "given meta tensors, return meta tensors: stay on the inputs' "
            "device"
        )
    print("Exercise 2: correct")


# %%
# Your attempt at exercise 2, then its check:


def grads_torch(x, y, w1, w2):
    return ...  # replace ... with your code


check_exercise_2(grads_torch)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.

# %%


# Solution 1: weights you may update in place
def weights_from_numpy(array, device):
    # from_numpy keeps the dtype; copy=True copies even when nothing else
    # would (torch.tensor(array, device=device) copies as well)
    return torch.from_numpy(array).to(device, copy=True)


check_exercise_1(weights_from_numpy)

# %%


# Solution 2: port the backward pass
def grads_torch(x, y, w1, w2):
    h = x @ w1
    a = h.clamp(min=0)
    d_y_hat = 2.0 * (a @ w2 - y)
    d_w2 = a.T @ d_y_hat
    d_w1 = x.T @ ((d_y_hat @ w2.T) * (h > 0))
    return d_w1, d_w2


check_exercise_2(grads_torch)
