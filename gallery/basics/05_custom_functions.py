"""
Custom autograd Functions
=========================

Every operation autograd knows is a pair of functions: a forward that maps
input tensors to outputs, and a backward that maps the gradient of the
outputs to the gradient of the inputs. This lesson writes such a pair
ourselves with ``torch.autograd.Function``, a ReLU, checks its backward with
``gradcheck`` and trains the two-layer network with it.
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
# static methods. ``forward(ctx, ...)`` computes the result and may stash
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
assert out.grad_fn.name() == "MyReLUBackward"
torch.testing.assert_close(
    z.grad, torch.tensor([0.0, 0.0, 30.0, 40.0], device=device)
)

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
    assert "is at version 1; expected version 0 instead" in str(err)
else:
    raise AssertionError("backward should have failed")

# %%
# The error describes the saved tensor by its type, its shape and the
# operation that made it (``Add``), and says it is at version 1 where
# version 0 was expected: the in-place ``add_`` raised its version counter.
#
# .. note:: Old code you may meet: ``class MyReLU(Function)`` with
#    ``def forward(self, input)``, ``self.save_for_backward(...)`` and calls
#    like ``MyReLU()(x)``. Such non-static "legacy" Functions kept per-call
#    state on an instance. Today ``forward`` and ``backward`` are static
#    methods that get a fresh ``ctx`` each call, and the operation is
#    invoked as ``MyReLU.apply(x)``. Current PyTorch refuses the old style:
import warnings


class LegacyReLU(torch.autograd.Function):
    def forward(self, x):  # the old style: an instance method
        return x.clamp(min=0)


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        LegacyReLU()(z)
    except RuntimeError as err:
        print(f"raised RuntimeError: {err}")
    else:
        raise AssertionError("a legacy Function should have failed")
assert [w.category for w in caught] == [DeprecationWarning]
print(f"warned DeprecationWarning: {caught[0].message}")

# %%
# Creating the instance drew a deprecation warning (a Function is never
# instantiated), and calling it raised the error.
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
assert gradcheck(MyReLU.apply, (z64,), raise_exception=False)
print("MyReLU passes gradcheck")

# %%
# Our backward passes in ``float64``. Use ``float64`` for such checks: in
# ``float32`` the rounding error of the finite difference exceeds
# gradcheck's default tolerances, so the same correct backward fails, and
# gradcheck warns that it probably will.
z32 = z64.detach().to(device, torch.float32).requires_grad_()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert not gradcheck(MyReLU.apply, (z32,), raise_exception=False)
assert [w.category for w in caught] == [UserWarning]
print(f"warned UserWarning: {str(caught[0].message).strip()}")
print("MyReLU fails gradcheck in float32")

# %%
# Back in ``float64``, a buggy backward fails the check. This one forgets
# to multiply by ``grad_output``, a common slip:


class BrokenReLU(MyReLU):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return (x > 0).to(grad_output.dtype)


assert not gradcheck(BrokenReLU.apply, (z64,), raise_exception=False)
print("BrokenReLU fails gradcheck, as it should")

# %%
# With ``raise_exception=False`` gradcheck returns ``False`` instead of
# raising an error that shows the two Jacobians.
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
# Each run starts from the same weights; ``assert_close`` compares the two
# runs' 500 losses.


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
        losses.append(loss.item())
    return losses


relu_losses = train(MyReLU.apply)
torch.testing.assert_close(relu_losses, train(lambda h: h.clamp(min=0)))
print(f"MyReLU: loss {relu_losses[0]:.4e} -> {relu_losses[-1]:.4e}")
assert relu_losses[-1] < 1e-9 * relu_losses[0]

# %%
# At every one of the 500 steps the loss with our ReLU matches the
# built-in's within ``assert_close``'s float64 tolerance, and it falls by
# more than nine orders of magnitude: the network fits its 64 random
# targets, trained through a backward we wrote ourselves.
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
# ``MyReLU`` only re-derives what autograd already knows: ``clamp`` gives
# the same gradients, as checked above. Reach for ``torch.autograd.Function``
# when autograd cannot see inside the forward, because it calls code outside
# PyTorch (NumPy, or your own C++ or CUDA kernel); when the backward you
# would write is *better* than the one autograd derives (more stable, or
# keeping fewer tensors alive); or when it is deliberately not the true
# derivative, such as a straight-through estimator, which ``gradcheck``
# would rightly reject. Otherwise write the operation with
# existing tensor operations, or use a built-in, and let autograd
# differentiate it; to inspect or change gradients of existing operations,
# use hooks (:ref:`sphx_glr_lessons_nn_08_hooks.py`).
#
# :ref:`sphx_glr_lessons_advanced_05_custom_functions_compose.py` goes
# further: a numerically stable softplus whose backward is worth writing by
# hand, the ``setup_context`` style that lets a Function work under
# ``torch.func.vmap`` and ``grad``, Functions that refuse a second
# derivative, and how to measure what a Function saves for backward.
#
# Next, :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py` puts
# the network into TensorFlow's graphs, built ahead of time.
