"""
Custom autograd Functions
=========================

Autograd's basic operations are each a pair of functions: a forward that
maps input tensors to outputs, and a backward that maps the gradient of the
outputs to the gradient of the inputs (other operations are built from
these and differentiated through them). This lesson writes such a pair
ourselves with ``torch.autograd.Function``, a ReLU, checks its backward with
``gradcheck`` and trains the two-layer network with it.

**You will learn** to write a ``torch.autograd.Function`` with its own
forward and backward, to check the backward with ``gradcheck``, and when a
custom Function is worth writing. Optional on the core path: you can go
straight to :ref:`sphx_glr_lessons_nn_01_nn_package.py` and come back.

**You need first** :ref:`sphx_glr_lessons_basics_04_autograd.py`.
"""

# %%
# Device
# ------
# The lesson runs on any device. Its ``float64`` parts (``gradcheck`` and
# the network) need ``float64``; MPS, and some Intel GPUs, have no
# ``float64``, so there they use the CPU.
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
f64_device = device
if device.type == "mps" or (
    device.type == "xpu"
    and not torch.xpu.get_device_properties(device).has_fp64
):
    f64_device = torch.device("cpu")
# sphinx_gallery_tags = ["intermediate", "autograd"]

# %%
# A ReLU with a hand-written backward
# -----------------------------------
# A custom operation is a subclass of ``torch.autograd.Function`` with two
# static methods. Both receive ``ctx``, a fresh object autograd makes for
# each call so that the two methods can share what they need.
# ``forward(ctx, ...)`` computes the result and may stash
# what the backward will need on ``ctx``: tensors through
# ``ctx.save_for_backward`` (so autograd can check they were not modified in
# place), anything else as plain attributes. ``backward(ctx, grad_output)``
# receives :math:`\partial L / \partial \mathrm{out}` and returns
# :math:`\partial L / \partial \mathrm{in}`, one value per input of
# ``forward``.


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors  # d relu(x)/dx: 1 where x > 0, else 0
        return grad_output * (x > 0).to(grad_output.dtype)


# %%
# You never instantiate the class. ``MyReLU.apply`` runs ``forward`` and
# records a node in the graph whose backward is ours.
z = torch.tensor([-2.0, -0.5, 0.5, 3.0], device=device, requires_grad=True)
out = MyReLU.apply(z)
out.backward(torch.tensor([10.0, 20.0, 30.0, 40.0], device=device))
print(f"out = {out.tolist()}, grad_fn = {out.grad_fn.name()}")
print(f"z.grad = {z.grad.tolist()}")
# sphinx_gallery_start_ignore
assert out.grad_fn.name() == "MyReLUBackward"
assert torch.square(z).grad_fn.name() == "PowBackward0"  # built from pow
torch.testing.assert_close(
    z.grad, torch.tensor([0.0, 0.0, 30.0, 40.0], device=device)
)
# sphinx_gallery_end_ignore

# %%
# The gradient is ``grad_output`` where the input was positive and zero
# elsewhere, and the graph node carries our class's name. Because ``x`` was
# saved with ``save_for_backward``, changing it in place before the
# backward is caught instead of silently giving a wrong gradient:
h = z * 2  # a non-leaf tensor that we are allowed to change in place
out = MyReLU.apply(h)
h.add_(1)
try:
    out.sum().backward()
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split('. Hint')[0]}")
    # sphinx_gallery_start_ignore
    assert "is at version 1; expected version 0 instead" in str(err)
    assert "output 0 of Add" in str(err)
else:
    raise AssertionError("backward should have failed")
# sphinx_gallery_end_ignore
print(f"h.grad_fn is now {h.grad_fn.name()}")

# %%
# The error describes the saved tensor by its type and shape, and by the
# operation that last wrote it: ``Add``, the in-place ``add_``, which
# became ``h``'s ``grad_fn`` (``h`` was made by a multiplication). It says
# the tensor is at version 1 where version 0 was expected: every tensor made
# outside inference mode carries a *version counter* (see "Inference
# tensors" in :ref:`sphx_glr_lessons_basics_04_autograd.py`), and the
# in-place ``add_`` raised it.
#
# Checking a backward with ``gradcheck``
# --------------------------------------
# A hand-written backward is easy to get wrong, and a wrong gradient does
# not crash: training just goes badly. ``torch.autograd.gradcheck``
# compares your backward against finite differences
# :math:`(f(x + \epsilon) - f(x - \epsilon)) / 2\epsilon` for every input
# element. We keep the inputs away from 0, where ReLU has a kink and finite
# differences are meaningless.
from torch.autograd import gradcheck

z64 = torch.randn(8, 5, dtype=torch.float64, device=f64_device)
z64 = z64 + 0.1 * z64.sign()  # no entry within 0.1 of the kink
z64.requires_grad_()
passed = gradcheck(MyReLU.apply, (z64,), raise_exception=False)
print(f"MyReLU passes gradcheck: {passed}")
# sphinx_gallery_start_ignore
assert passed
# sphinx_gallery_end_ignore

# %%
# Our backward passes in ``float64``. Use ``float64`` for such checks: in
# ``float32`` the rounding error of the finite difference exceeds
# gradcheck's default tolerances, so the same correct backward fails, and
# gradcheck warns that it probably will.
import warnings

z32 = z64.detach().float().to(device).requires_grad_()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    passed32 = gradcheck(MyReLU.apply, (z32,), raise_exception=False)
print(f"warned UserWarning: {str(caught[0].message).strip()}")
print(f"MyReLU passes gradcheck in float32: {passed32}")
# sphinx_gallery_start_ignore
assert [w.category for w in caught] == [UserWarning]
assert not passed32
# sphinx_gallery_end_ignore

# %%
# Back in ``float64``, a buggy backward fails the check. This one forgets
# to multiply by ``grad_output``, a common slip:


class BrokenReLU(MyReLU):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return (x > 0).to(grad_output.dtype)


broken = gradcheck(BrokenReLU.apply, (z64,), raise_exception=False)
print(f"BrokenReLU passes gradcheck: {broken}")
# sphinx_gallery_start_ignore
assert not broken
# sphinx_gallery_end_ignore

# %%
# With ``raise_exception=False`` gradcheck returns ``False``; by default it
# raises an error that shows the two Jacobians, numerical and analytical.
#
# The two-layer network with our ReLU
# -----------------------------------
# Same data, weights, sizes and gradient-descent loop as in
# :ref:`sphx_glr_lessons_basics_04_autograd.py`, trained once with
# ``MyReLU.apply`` and once with the built-in ``clamp(min=0)``.
import numpy as np

N, D_in, H, D_out = 64, 1000, 100, 10
rng = np.random.default_rng(0)
x = torch.from_numpy(rng.standard_normal((N, D_in))).to(f64_device)
y = torch.from_numpy(rng.standard_normal((N, D_out))).to(f64_device)
w1_np = rng.standard_normal((D_in, H))
w2_np = rng.standard_normal((H, D_out))

# %%
# Each run starts from the same weights. The losses stay on the device
# during training and are read back once at the end.


def train(activation, steps=500, learning_rate=5e-7):
    """Plain gradient descent on the two-layer net; returns the losses."""
    w1 = torch.tensor(w1_np, device=f64_device, requires_grad=True)
    w2 = torch.tensor(w2_np, device=f64_device, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = (activation(x.mm(w1)).mm(w2) - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            w1 -= learning_rate * w1.grad
            w2 -= learning_rate * w2.grad
        w1.grad = None
        w2.grad = None
        losses.append(loss.detach())
    return torch.stack(losses).cpu()


relu_losses = train(MyReLU.apply)
clamp_losses = train(lambda h: h.clamp(min=0))
for step in (0, 100, 200, 300, 400, 499):
    print(f"step {step:3d}: loss {relu_losses[step].item():.6g}")
gap = ((relu_losses - clamp_losses).abs() / clamp_losses).max().item()
print(f"largest relative gap to the built-in's losses: {gap:.1e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(relu_losses, clamp_losses)
assert relu_losses[-1] < 1e-9 * relu_losses[0]
# sphinx_gallery_end_ignore

# %%
# At every one of the 500 steps the loss with our ReLU matches the
# built-in's, and it is the loss of the previous lessons: the network fits
# its 64 random targets, trained through a backward we wrote ourselves.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.semilogy(relu_losses)
ax.set_xlabel("step")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title("Two-layer net trained with MyReLU")
fig.tight_layout()
plt.show()

# %%
# When to write a Function
# ------------------------
# ``MyReLU`` only re-derives what autograd already knows. Reach for
# ``torch.autograd.Function`` when the backward you would write is *better*
# than the one autograd derives (more stable, or keeping fewer tensors
# alive), or when it is deliberately not the true derivative, such as a
# straight-through estimator (a backward that passes the gradient straight
# through an operation such as rounding, whose true derivative is zero
# almost everywhere), which ``gradcheck`` would rightly reject.
# When the forward calls code that autograd cannot see into (NumPy, or your
# own C++ or CUDA kernel), PyTorch's custom-operator guide recommends a
# *custom operator* instead, ``torch.library.custom_op`` with
# ``register_autograd``, which also works with ``torch.compile`` (the
# compiler, met in :ref:`sphx_glr_lessons_advanced_06_graphs_today.py`).
# Otherwise write the operation with existing tensor operations, or use a
# built-in, and let autograd differentiate it; to inspect or change
# gradients of existing operations, use hooks
# (:ref:`sphx_glr_lessons_nn_08_hooks.py`).
#
# :ref:`sphx_glr_lessons_advanced_05_custom_functions_compose.py` goes
# further: a numerically stable softplus whose backward is worth writing by
# hand, the ``setup_context`` style that, with a vmap rule, lets a Function
# work under ``torch.func.vmap`` and ``grad``, Functions that refuse a
# second derivative, and how to measure what a Function saves for backward.
#
# Going deeper
# ------------
# Optional on a first read.
#
# The same losses, not the same gradient everywhere
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The two runs agreed, but ``clamp(min=0)`` and our ReLU differ at exactly
# 0: ``clamp`` passes the gradient there, ``MyReLU`` and ``torch.relu`` do
# not. With this random ``float64`` data no hidden value happened to be
# exactly 0, so the network never saw the difference.
at_kink = torch.tensor([-1.0, 0.0, 1.0], device=device)
grads = {}
for name, fn in [
    ("clamp(min=0)", lambda t: t.clamp(min=0)),
    ("MyReLU", MyReLU.apply),
    ("torch.relu", torch.relu),
]:
    t = at_kink.clone().requires_grad_()
    fn(t).sum().backward()
    grads[name] = t.grad.tolist()
    print(f"{name:>12}: gradient at [-1, 0, 1] = {grads[name]}")
# sphinx_gallery_start_ignore
assert grads["clamp(min=0)"] == [0.0, 1.0, 1.0]
assert grads["MyReLU"] == grads["torch.relu"] == [0.0, 0.0, 1.0]
# sphinx_gallery_end_ignore

# %%
# Legacy Functions
# ~~~~~~~~~~~~~~~~
# Old code defines ``class MyReLU(Function)`` with ``def forward(self,
# input)``, ``self.save_for_backward(...)`` and calls like ``MyReLU()(x)``.
# Such non-static "legacy" Functions kept per-call state on an instance.
# Today ``forward`` and ``backward`` are static methods that get a fresh
# ``ctx`` each call, and the operation is invoked as ``MyReLU.apply(x)``.
# Current PyTorch refuses the old style:


class LegacyReLU(torch.autograd.Function):
    def forward(self, x):  # the old style: an instance method
        return x.clamp(min=0)


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        LegacyReLU()(z)
    except RuntimeError as err:
        print(f"raised RuntimeError: {err}")
    # sphinx_gallery_start_ignore
    else:
        raise AssertionError("a legacy Function should have failed")
    # sphinx_gallery_end_ignore
print(f"warned DeprecationWarning: {caught[0].message}")
# sphinx_gallery_start_ignore
assert [w.category for w in caught] == [DeprecationWarning]
# sphinx_gallery_end_ignore

# %%
# Creating the instance drew a deprecation warning (a Function is never
# instantiated), and calling it raised the error.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``class MyReLU(Function)`` with ``def forward(self, input)``,
#      ``self.save_for_backward(...)`` and calls like ``MyReLU()(x)``: a
#      legacy Function with per-call state on an instance. Current PyTorch
#      refuses it (see "Going deeper"). Write static ``forward(ctx, ...)``
#      and ``backward(ctx, ...)`` and call ``MyReLU.apply(x)``.

# %%
# Takeaways
# ---------
# - A ``torch.autograd.Function`` pairs a static ``forward`` with a static
#   ``backward``; call it with ``.apply``.
# - Save tensors for backward with ``ctx.save_for_backward``, so in-place
#   changes to them are caught.
# - Check every hand-written backward with ``gradcheck`` in ``float64``.
# - Write a Function only when you need a better or a different backward;
#   for code autograd cannot see into, prefer ``torch.library.custom_op``.
#
# Next, :ref:`sphx_glr_lessons_nn_01_nn_package.py` continues the core
# path with ``torch.nn``; the other optional lesson,
# :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py`, puts the
# network into TensorFlow's graphs, built ahead of time.
