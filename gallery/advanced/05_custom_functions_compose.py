"""
Custom Functions that compose
=============================

A custom ``torch.autograd.Function`` earns its place when its backward is
better than the one autograd would derive. This lesson writes a numerically
stable softplus whose backward needs only its output, checks first and
second derivatives and makes it work under ``torch.func`` transforms with
``setup_context``. Going deeper: backwards that are differentiable only
once, what a Function keeps alive for the backward, and the slope at a kink.

**You will learn** to decide when a custom ``torch.autograd.Function`` pays,
to write one in the ``setup_context`` style that ``torch.func`` needs, and
to check it with ``gradcheck`` and ``gradgradcheck``.

**You need first** custom Functions in the combined style
(:ref:`sphx_glr_lessons_basics_05_custom_functions.py`) and autograd
(:ref:`sphx_glr_lessons_basics_04_autograd.py`).
"""

# %%
# Device
# ------
# Float64 is used for checking gradients. Apple's MPS has no float64, and
# some Intel GPUs lack it too (``has_fp64`` says so); there those parts run
# on the CPU.
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
print(f"float64 checks run on: {f64_device.type}")
# sphinx_gallery_tags = ["advanced", "autograd", "func"]

# %%
# Softplus written literally overflows
# ------------------------------------
# Softplus, :math:`\mathrm{sp}(x) = \log(1 + e^x)`, is a smooth ReLU.
# Written literally it breaks at both ends in float32: :math:`e^{x}`
# overflows to ``inf`` once :math:`x > 88.7`, and for very negative
# :math:`x`, :math:`1 + e^x` rounds to exactly 1, so the result is 0
# instead of the tiny positive :math:`e^x`.
#
# This part runs on the CPU whatever the device: the point is float32
# arithmetic itself, and the CPU keeps the *subnormal* results checked below:
# numbers under float32's smallest normal value (about :math:`10^{-38}`),
# stored with fewer significant digits.
x32 = torch.linspace(-100.0, 100.0, 401)
ref = torch.nn.functional.softplus(x32.double(), threshold=1000.0)


def naive_softplus(t):
    return torch.log(1 + torch.exp(t))


naive = naive_softplus(x32)
print(f"inf values: {torch.isinf(naive).sum().item()} of {x32.numel()}")
print(f"zeros where the true value is positive: {(naive == 0).sum().item()}")
# sphinx_gallery_start_ignore
assert torch.isinf(naive).any() and (naive == 0).any()
# sphinx_gallery_end_ignore

# %%
# The naive formula returned ``inf`` at the top of the grid and 0 at the
# bottom. Two identities fix both passes.
#
# - Forward: :math:`\mathrm{sp}(x) = \max(x, 0) + \log(1 + e^{-|x|})`. The
#   exponent is never positive, so nothing overflows, and ``log1p`` keeps
#   precision when :math:`e^{-|x|}` is tiny.
# - Backward: :math:`\mathrm{sp}'(x) = \sigma(x)`, the logistic sigmoid,
#   and it can be computed from the *output* alone:
#   :math:`1 - e^{-\mathrm{sp}(x)} = 1 - 1/(1 + e^x) = \sigma(x)`.
#   ``-expm1(-out)`` evaluates :math:`1 - e^{-\mathrm{out}}` accurately
#   even when ``out`` is tiny.
#
# So the backward needs one saved tensor, the output. The class is written
# in the style ``torch.func`` needs: ``forward`` takes only the inputs, and
# a separate ``setup_context`` fills ``ctx``.


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
        return grad_output * -torch.expm1(-out)  # sigmoid(x), from out


# %%
# How far each version is from a float64 reference, point by point:
stable = StableSoftplus.apply(x32)


def rel_error(v):
    return ((v.double() - ref).abs() / ref).clamp(max=10.0)


normal_range = x32 > -87  # results above float32's smallest normal
eps32 = torch.finfo(torch.float32).eps
worst = rel_error(stable)[normal_range].max().item()
print(f"stable, normal results: worst error {worst / eps32:.2f} x eps32")
# sphinx_gallery_start_ignore
assert torch.isfinite(stable).all()
assert worst < 4 * eps32
assert rel_error(stable).max() < 0.1  # subnormal results: a few percent
# sphinx_gallery_end_ignore

# %%
# Plotted over the whole range:
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.semilogy(x32, rel_error(naive), label="log(1 + exp(x))")
ax.semilogy(x32, rel_error(stable) + 1e-12, label="StableSoftplus")
ax.set_xlabel("x (float32)")
ax.set_ylabel("relative error (capped at 10)")
ax.set_title("Softplus in float32 against a float64 reference")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# The naive formula is wrong by 100% below about -17 (it returns 0) and
# infinitely wrong above 88.7. The stable one stays within a few units of
# float32's machine epsilon wherever the result is a normal float32 number
# (the printed worst case); below about -87 the true values are
# subnormal, where float32 keeps fewer digits, and its error grows to a few
# percent. The curve adds :math:`10^{-12}` so
# exact zeros show on a log axis.
#
# First and second derivatives
# ----------------------------
# ``gradcheck`` compares the backward's gradients with finite differences,
# :math:`(f(x + h) - f(x - h)) / 2h` for a tiny :math:`h`; only float64 is
# precise enough for that comparison, hence the float64 device above. We run
# it on inputs spanning -800 to 800, where even float64 :math:`e^x`
# overflows. The backward is built from ordinary differentiable
# operations on the saved output, so autograd can differentiate *it* too:
# ``gradgradcheck`` verifies the second derivative. The naive formula fails.
from torch.autograd import gradcheck, gradgradcheck

wide = torch.tensor(
    [-800.0, -30.0, -2.0, -1e-3, 0.0, 1e-3, 2.0, 30.0, 800.0],
    dtype=torch.float64,
    device=f64_device,
    requires_grad=True,
)
checks = {
    "gradcheck(StableSoftplus)": gradcheck(StableSoftplus.apply, (wide,)),
    "gradgradcheck(StableSoftplus)": gradgradcheck(
        StableSoftplus.apply, (wide,)
    ),
    "gradcheck(naive)": gradcheck(
        naive_softplus, (wide,), raise_exception=False
    ),
    "gradgradcheck(naive)": gradgradcheck(
        naive_softplus, (wide,), raise_exception=False
    ),
}
for name, passed in checks.items():
    print(f"{name:30s} passed: {passed}")
grad_wide = torch.autograd.grad(StableSoftplus.apply(wide).sum(), wide)[0]
print(f"gradient on the wide range: {[f'{g:.3g}' for g in grad_wide]}")
# sphinx_gallery_start_ignore
assert list(checks.values()) == [True, True, False, False]
torch.testing.assert_close(grad_wide, torch.sigmoid(wide.detach()))
# sphinx_gallery_end_ignore

# %%
# Both checks pass for the Function and fail for the naive formula, and the
# gradient is the sigmoid everywhere, including at :math:`\pm 800`.
#
# Working under ``torch.func``
# ----------------------------
# Because ``forward`` and ``setup_context`` are separate and
# ``generate_vmap_rule = True``, the Function works under ``torch.func``'s
# reverse-mode transforms (``grad``, ``vjp``, ``jacrev``) and under
# ``vmap``. Forward-mode transforms (``jvp``, ``jacfwd``, ``hessian``) need
# one more static method, ``jvp``, which this Function does not define
# (`Extending torch.func with autograd.Function
# <https://docs.pytorch.org/docs/stable/notes/extending.func.html>`__).
# Here ``vmap`` applies ``grad`` row by row and must agree with the sigmoid.
from torch.func import grad, vmap

rows = torch.randn(4, 6, dtype=torch.float64, device=f64_device)
per_row = vmap(grad(lambda r: StableSoftplus.apply(r).sum()))(rows)
gap = (per_row - torch.sigmoid(rows)).abs().max().item()
print(f"vmap(grad(...)): shape {tuple(per_row.shape)}, max error {gap:.1e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(per_row, torch.sigmoid(rows))
# sphinx_gallery_end_ignore

# %%
# Per row, the gradient under ``vmap`` equals the sigmoid to rounding.
#
# A Function in the combined ``forward(ctx, x)`` style, like the ReLU of
# :ref:`sphx_glr_lessons_basics_05_custom_functions.py`, works with plain
# autograd, but ``torch.func`` refuses it:


class CombinedReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x > 0).to(grad_output.dtype)


try:
    vmap(CombinedReLU.apply)(rows)
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
else:
    raise AssertionError("vmap should have rejected CombinedReLU")

# %%
# The message names the fix: override ``setup_context``.
#
# Going deeper
# ------------
# Optional on a first read: backwards that can be differentiated only once,
# what a Function keeps alive for the backward, and the slope at a kink.
#
# A backward that is only differentiable once
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Many hand-written backwards call code autograd cannot see through (NumPy,
# a custom C++/CUDA kernel, an external library). Decorating such a
# backward with ``once_differentiable`` says so: a first derivative works,
# and asking for a second raises an error instead of returning a wrong one.
from torch.autograd.function import once_differentiable


class ReLUOnce(CombinedReLU):
    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x > 0).to(grad_output.dtype)


z64 = torch.randn(8, 5, dtype=torch.float64, device=f64_device)
z64 = (z64 + 0.1 * z64.sign()).requires_grad_()  # away from the kink
print(f"first derivative, gradcheck: {gradcheck(ReLUOnce.apply, (z64,))}")
y = ReLUOnce.apply(z64).pow(2).sum()
(g,) = torch.autograd.grad(y, z64, create_graph=True)
try:
    g.sum().backward()
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
else:
    raise AssertionError("double backward should have failed")

# %%
# The first derivative passed ``gradcheck``; the second raised.
#
# What a Function keeps alive for the backward
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Our stable forward, used *without* a custom backward, is also stable in
# both passes: autograd differentiates it fine. What the Function buys is
# memory. ``saved_tensors_hooks`` sees every tensor saved for the backward.
# Counting hook calls would count *references*, and one tensor may be saved
# by several operations; what costs memory is distinct storage. So we
# record each saved tensor's storage address and size, and add up the bytes
# of storages that are neither the input nor the output, which are alive
# anyway.


def composed(t):
    return t.clamp(min=0) + torch.log1p(torch.exp(-t.abs()))


def saved_for_backward(fn, t):
    """Hook calls, distinct storages, and extra bytes saved by fn(t)."""
    storages, calls = {}, []

    def pack(s):
        calls.append(1)
        storages[s.untyped_storage().data_ptr()] = s.untyped_storage().nbytes()
        return s

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda s: s):
        out = fn(t)
    alive = {t.untyped_storage().data_ptr(), out.untyped_storage().data_ptr()}
    extra = sum(n for p, n in storages.items() if p not in alive)
    return len(calls), len(storages), extra


# %%
# We measure both on a float32 batch of 64 rows of 100 values:
t = torch.randn(64, 100, device=device, requires_grad=True)
results = {}
for name, fn in [
    ("composition", composed),
    ("Function", StableSoftplus.apply),
]:
    results[name] = n_calls, n_storages, extra = saved_for_backward(fn, t)
    print(
        f"{name:>11}: {n_calls} hook calls, {n_storages} distinct "
        f"storages, {extra} bytes beyond input and output"
    )
print(f"one {tuple(t.shape)} float32 tensor: {t.nbytes} bytes")
# sphinx_gallery_start_ignore
assert results["composition"] == (4, 2, t.nbytes)  # 2 storages, 1 extra
assert results["Function"] == (1, 1, 0)  # only the output
# sphinx_gallery_end_ignore

# %%
# The composition makes four saves of only two storages: the input (saved
# by ``clamp`` and ``abs``) and the intermediate :math:`e^{-|x|}` (saved by
# ``exp`` as its result and by ``log1p`` as its input). Counting hook calls
# would report twice as many tensors as there are. Its real extra cost is
# that one intermediate, a tensor the size of the input kept alive until
# the backward runs. The Function keeps only its output, which the caller holds
# anyway. Whether that matters depends on the model: for large activations
# it can, for a two-layer toy it does not.
#
# Correct at the kink
# ~~~~~~~~~~~~~~~~~~~
# At exactly :math:`x = 0`, autograd combines the conventions of ``clamp``
# and ``abs`` there into a slope of 1, while the true derivative is
# :math:`\sigma(0) = 0.5`, which the Function returns. At the other eight
# points of the wide range, the composition's gradient passes
# ``gradcheck``.
zero = torch.zeros(1, dtype=torch.float64, device=f64_device)
zero.requires_grad_()
slope_composed = torch.autograd.grad(composed(zero).sum(), zero)[0].item()
(slope_func,) = torch.autograd.grad(StableSoftplus.apply(zero).sum(), zero)
slope_func = slope_func.item()
print(f"slope at 0: composition {slope_composed}, Function {slope_func}")
away = wide.detach()[wide.detach() != 0].requires_grad_()
print(f"composition, gradcheck away from 0: {gradcheck(composed, (away,))}")
# sphinx_gallery_start_ignore
assert slope_composed == 1.0 and slope_func == 0.5
# sphinx_gallery_end_ignore

# %%
# For softplus itself, use the built-in ``torch.nn.functional.softplus``:
# our float64 reference above was the built-in, and the stable forward
# matched it. The point of this lesson is the method: measure what a
# hand-written backward buys before writing one, and when you do, write it
# in the ``setup_context`` style so it composes with ``torch.func``.
#
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``forward(ctx, x)`` that also fills ``ctx``: still works with plain
#      autograd, but ``torch.func`` transforms need ``forward(x)`` plus a
#      separate ``setup_context`` (shown above).
#    - Functions used as instances, ``MyFn()(x)``, with a non-static
#      ``forward(self, x)``: removed; Functions are classes with static
#      methods, called as ``MyFn.apply(x)``.
#    - ``Variable`` inputs and ``ctx.saved_variables``: tensors carry
#      autograd themselves, and saved tensors come back from
#      ``ctx.saved_tensors``.
#
# Takeaways
# ---------
# - Write a custom Function when its backward is better than the derived
#   one: more stable, cheaper in memory, or correct where autograd is not.
# - For ``torch.func``'s ``grad`` and ``vmap``: a ``forward`` without
#   ``ctx``, a ``setup_context``, and ``generate_vmap_rule = True``
#   (forward mode also needs a ``jvp`` method).
# - Check first and second derivatives with ``gradcheck`` and
#   ``gradgradcheck`` in float64 (on the CPU where the device lacks it).
# - Mark a backward autograd cannot see through with ``once_differentiable``.
#
# Next, :ref:`sphx_glr_lessons_advanced_06_graphs_today.py` compiles
# Python functions, such as a loss, into graphs with ``torch.compile``.
