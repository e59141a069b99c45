"""
Custom autograd Functions
=========================

Every operation autograd knows is a pair of functions: a forward that maps
input tensors to outputs, and a backward that maps the gradient of the outputs
to the gradient of the inputs. This lesson writes such pairs ourselves with
``torch.autograd.Function``: first a ReLU, then a numerically stable softplus
whose backward is worth writing by hand. Both are verified with
``gradcheck`` and used to train the two-layer network.

.. tags:: intermediate, autograd
"""

# %%
# A ReLU with a hand-written backward
# -----------------------------------
# A custom operation is a subclass of ``torch.autograd.Function`` with two
# static methods. ``forward(ctx, ...)`` computes the result and may stash what
# the backward will need on ``ctx``: tensors through ``ctx.save_for_backward``
# (so autograd can check they were not modified in place), anything else as
# plain attributes. ``backward(ctx, grad_output)`` receives
# :math:`\partial L / \partial \mathrm{out}` and returns
# :math:`\partial L / \partial \mathrm{in}`, one value per input of ``forward``.
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        # d relu(x)/dx is 1 where x > 0 and 0 elsewhere
        return grad_output * (x > 0).to(grad_output.dtype)


# %%
# You never instantiate the class. ``MyReLU.apply`` runs ``forward``, and
# records a node in the graph whose backward is ours.
z = torch.tensor([-2.0, -0.5, 0.5, 3.0], device=device, requires_grad=True)
out = MyReLU.apply(z)
out.backward(torch.tensor([10.0, 20.0, 30.0, 40.0], device=device))
print(f"out = {out.tolist()}, grad_fn = {type(out.grad_fn).__name__}")
print(f"z.grad = {z.grad.tolist()}")
assert out.grad_fn.name() == "MyReLUBackward"
torch.testing.assert_close(
    z.grad, torch.tensor([0.0, 0.0, 30.0, 40.0], device=device)
)

# %%
# .. note:: Old code you may meet: ``class MyReLU(Function)`` with
#    ``def forward(self, input)``, ``self.save_for_backward(...)`` and calls
#    like ``MyReLU()(x)``. Such non-static "legacy" Functions kept per-call
#    state on an instance and were removed in PyTorch 1.5; today ``forward``
#    and ``backward`` are static methods that get a fresh ``ctx`` each call,
#    and the operation is invoked as ``MyReLU.apply(x)``.
#
# Checking a backward with ``gradcheck``
# --------------------------------------
# A hand-written backward is easy to get wrong, and a wrong gradient does not
# crash: training just goes badly. ``torch.autograd.gradcheck`` compares your
# backward against finite differences
# :math:`(f(x + \epsilon) - f(x - \epsilon)) / 2\epsilon` for every input
# element. It needs float64: in float32 the rounding error of the finite
# difference is larger than the tolerance. We keep the inputs away from 0,
# where ReLU has a kink and finite differences are meaningless.
from torch.autograd import gradcheck

z64 = torch.randn(8, 5, dtype=torch.float64, device=device)
z64 = (
    z64 + 0.1 * z64.sign()
).requires_grad_()  # no entry within 0.1 of the kink
assert gradcheck(MyReLU.apply, (z64,))
print("MyReLU passes gradcheck")

# %%
# A buggy backward fails the check. This one forgets to multiply by
# ``grad_output``, a common slip:


class BrokenReLU(MyReLU):
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return (x > 0).to(grad_output.dtype)


assert not gradcheck(BrokenReLU.apply, (z64,), raise_exception=False)
print("BrokenReLU fails gradcheck, as it should")

# %%
# The two-layer network with our ReLU
# -----------------------------------
# Same data, weights and sizes as in :ref:`sphx_glr_lessons_basics_04_autograd.py`.
# First, at the initial weights, our ReLU must give the same gradients as the
# built-in ``clamp``; then we train with it.
import numpy as np

N, D_in, H, D_out = 64, 1000, 100, 10
rng = np.random.default_rng(0)
x = torch.from_numpy(rng.standard_normal((N, D_in))).to(device)
y = torch.from_numpy(rng.standard_normal((N, D_out))).to(device)
w1_np = rng.standard_normal((D_in, H))
w2_np = rng.standard_normal((H, D_out))


def gradients_at_start(activation):
    w1 = torch.tensor(w1_np, device=device, requires_grad=True)
    w2 = torch.tensor(w2_np, device=device, requires_grad=True)
    (activation(x.mm(w1)).mm(w2) - y).pow(2).sum().backward()
    return w1.grad, w2.grad


for ours, builtin in zip(
    gradients_at_start(MyReLU.apply),
    gradients_at_start(lambda h: h.clamp(min=0)),
):
    torch.testing.assert_close(ours, builtin)
print("MyReLU gives the same gradients as clamp(min=0)")


def train(activation, steps=500, learning_rate=5e-7):
    """Plain gradient descent on the two-layer net; returns the loss curve."""
    w1 = torch.tensor(w1_np, device=device, requires_grad=True)
    w2 = torch.tensor(w2_np, device=device, requires_grad=True)
    losses = []
    for t in range(steps):
        loss = (activation(x.mm(w1)).mm(w2) - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            w1 -= learning_rate * w1.grad
            w2 -= learning_rate * w2.grad
        w1.grad = None
        w2.grad = None
        losses.append(loss.item())
        if t % 125 == 0 or t == steps - 1:
            print(f"  step {t:3d}  loss {loss.item():.4e}")
    return losses


print("two-layer net with MyReLU:")
relu_losses = train(MyReLU.apply)
assert relu_losses[-1] < 1e-9 * relu_losses[0]

# %%
# A Function whose backward is not obvious: a stable softplus
# -----------------------------------------------------------
# Softplus, :math:`\mathrm{sp}(x) = \log(1 + e^x)`, is a smooth ReLU. Written
# literally it breaks on this very network: the hidden pre-activations
# ``x @ w1`` reach magnitudes above 100, and in float32 :math:`e^{x}`
# overflows to ``inf`` once :math:`x > 88.7`.
h32 = x.mm(torch.from_numpy(w1_np).to(device)).float()


def naive_softplus(t):
    return torch.log(1 + torch.exp(t))


print(f"largest hidden value: {h32.max().item():.1f}")
print(
    f"naive softplus gives {torch.isinf(naive_softplus(h32)).sum().item()} inf values"
)
assert torch.isinf(naive_softplus(h32)).any()

# %%
# Two identities fix both passes.
#
# - Forward: :math:`\mathrm{sp}(x) = \max(x, 0) + \log(1 + e^{-|x|})`. The
#   exponent is never positive, so nothing overflows, and ``log1p`` keeps
#   precision when :math:`e^{-|x|}` is tiny.
# - Backward: :math:`\mathrm{sp}'(x) = e^x / (1 + e^x) = \sigma(x)`, the
#   logistic sigmoid, and it can be computed from the *output* alone:
#   :math:`1 - e^{-\mathrm{sp}(x)} = 1 - 1/(1 + e^x) = \sigma(x)`.
#   ``-expm1(-out)`` evaluates :math:`1 - e^{-\mathrm{out}}` accurately even
#   when ``out`` is tiny.
#
# So the backward needs only one saved tensor, the output. This version is
# written in the newer style: ``forward`` takes only the inputs, and a separate
# ``setup_context`` fills ``ctx``. That split, plus ``generate_vmap_rule``,
# lets the Function work under ``torch.func`` transforms such as ``vmap`` and
# ``grad``, which we use below.


class StableSoftplus(torch.autograd.Function):
    generate_vmap_rule = True  # let torch.func.vmap batch this Function

    @staticmethod
    def forward(x):
        return x.clamp(min=0) + torch.log1p(torch.exp(-x.abs()))

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(output)

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * -torch.expm1(-out)  # sigmoid(x), from the output


import torch.nn.functional as F

soft32 = StableSoftplus.apply(h32)
print(f"stable softplus: all finite = {torch.isfinite(soft32).all().item()}")
assert torch.isfinite(soft32).all()
torch.testing.assert_close(soft32, F.softplus(h32))  # the built-in agrees

# %%
# ``gradcheck`` on inputs spanning the dangerous range, from -800 to 800 (where
# even float64 :math:`e^x` overflows). Because the backward is built from
# ordinary differentiable operations on the saved output, autograd can
# differentiate *it* too, so the second derivative is right as well:
# ``gradgradcheck`` verifies that. The naive formula fails.
from torch.autograd import gradgradcheck

wide = torch.tensor(
    [-800.0, -30.0, -2.0, -1e-3, 0.0, 1e-3, 2.0, 30.0, 800.0],
    dtype=torch.float64,
    device=device,
    requires_grad=True,
)
assert gradcheck(StableSoftplus.apply, (wide,))
assert gradgradcheck(StableSoftplus.apply, (wide,))
assert not gradcheck(naive_softplus, (wide,), raise_exception=False)
grad_wide = torch.autograd.grad(StableSoftplus.apply(wide).sum(), wide)[0]
print(
    f"gradient (= sigmoid) on the wide range: {[f'{g:.3g}' for g in grad_wide.tolist()]}"
)
torch.testing.assert_close(grad_wide, torch.sigmoid(wide.detach()))

# %%
# ``torch.func`` transforms work thanks to ``setup_context``. Here ``vmap``
# applies ``grad`` row by row and must agree with the plain batched call.
from torch.func import grad, vmap

rows = torch.randn(4, 6, dtype=torch.float64, device=device)
per_row = vmap(grad(lambda r: StableSoftplus.apply(r).sum()))(rows)
torch.testing.assert_close(per_row, torch.sigmoid(rows))
print(f"vmap(grad(...)) output shape: {tuple(per_row.shape)}")

# %%
# ``MyReLU`` above uses the combined ``forward(ctx, x)`` signature, which
# plain autograd accepts but ``torch.func`` refuses:
try:
    vmap(MyReLU.apply)(rows)
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split(',')[0]}")
else:
    raise AssertionError("vmap should have rejected MyReLU")

# %%
# Backward that is only differentiable once
# -----------------------------------------
# ``MyReLU``'s backward also uses differentiable operations, but many hand-written
# backwards call code autograd cannot see through (NumPy, an in-place kernel,
# an external library). Decorating such a backward with ``once_differentiable``
# says so honestly: a first derivative works, and asking for a second raises an
# error instead of silently returning a wrong one.
from torch.autograd.function import once_differentiable


class ReLUOnce(MyReLU):
    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x > 0).to(grad_output.dtype)


assert gradcheck(ReLUOnce.apply, (z64,))
(g,) = torch.autograd.grad(
    ReLUOnce.apply(z64).pow(2).sum(), z64, create_graph=True
)
try:
    g.sum().backward()
except RuntimeError as err:
    print(f"second derivative: RuntimeError: {err}")
else:
    raise AssertionError("double backward should have failed")

# %%
# Training with the stable softplus
# ---------------------------------
# The Function drops into the network like any other operation. We also check
# its gradients at the start against PyTorch's built-in ``softplus``. The
# built-in returns plain ``x`` above ``threshold=20`` by default (the
# difference, :math:`\log(1 + e^{-x}) < 3 \times 10^{-9}`, is below float32
# resolution); we raise the threshold so both compute the exact formula.
for ours, builtin in zip(
    gradients_at_start(StableSoftplus.apply),
    gradients_at_start(lambda h: F.softplus(h, threshold=1000.0)),
):
    torch.testing.assert_close(ours, builtin)
print("two-layer net with StableSoftplus:")
softplus_losses = train(StableSoftplus.apply)
assert softplus_losses[-1] < 1e-6 * softplus_losses[0]

# %%
# Both networks fit the random targets; their curves differ only a little
# because, at these activation sizes, softplus is almost a ReLU.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.semilogy(relu_losses, label="MyReLU")
ax.semilogy(softplus_losses, label="StableSoftplus", linestyle="--")
ax.set_xlabel("step")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title("Two-layer net trained with custom Functions")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# When a custom Function is the wrong tool
# ----------------------------------------
# Reach for ``torch.autograd.Function`` only when the backward you would write
# is *better* than the one autograd derives: more stable, cheaper in memory, or
# deliberately not the true derivative (a straight-through estimator, which
# ``gradcheck`` would rightly reject). Otherwise:
#
# - If the operation can be written with existing tensor operations, usually
#   just write it and let autograd differentiate it. Our stable forward, used
#   *without* a custom backward, is stable in both passes. It shows the two
#   things a custom backward can still buy, checked in the next cell: memory
#   (the composition saves several tensors for backward, the Function one) and
#   correctness at kinks: at exactly :math:`x = 0` autograd combines the
#   conventions ``clamp`` and ``abs`` use there into a slope of 1, while the
#   true derivative is :math:`\sigma(0) = 0.5`.
# - If a built-in exists (``torch.nn.functional.softplus``, ``torch.logsumexp``,
#   ...), use it: it is tested, fast, and works with every transform.
# - To inspect or change gradients flowing through existing operations, use
#   hooks (:ref:`sphx_glr_lessons_nn_08_hooks.py`); to block them, ``detach()``.


def count_saved(fn, t):
    """How many tensors autograd keeps for the backward of fn(t)."""
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(
        lambda s: saved.append(s) or s, lambda s: s
    ):
        fn(t)
    return len(saved)


def composed(t):
    return t.clamp(min=0) + torch.log1p(torch.exp(-t.abs()))


h_req = h32.double().requires_grad_()
n_composed, n_custom = (
    count_saved(composed, h_req),
    count_saved(StableSoftplus.apply, h_req),
)
print(
    f"tensors saved for backward: composition {n_composed}, StableSoftplus {n_custom}"
)
assert n_custom == 1 and n_composed > n_custom

away_from_zero = wide.detach()[wide.detach() != 0].requires_grad_()
assert gradcheck(
    composed, (away_from_zero,)
)  # autograd alone is fine off the kink
slope_at_0 = torch.autograd.grad(composed(wide).sum(), wide)[0][
    wide == 0
].item()
print(
    f"slope at 0: composition {slope_at_0:.2f}, StableSoftplus {grad_wide[wide == 0].item():.2f}"
)
assert slope_at_0 == 1.0 and grad_wide[wide == 0].item() == 0.5

# %%
# Neither gain matters for a two-layer toy, and the built-in ``F.softplus``
# has both; the point is to measure before writing a backward by hand.

# %%
# With autograd and custom operations in hand, the basics are complete. The
# last lesson of the section,
# :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py`, puts the same
# network into TensorFlow and compares graphs built ahead of time with the
# graphs PyTorch builds as the code runs.
