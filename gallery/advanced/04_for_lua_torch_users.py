"""
PyTorch for former Lua Torch users
==================================

PyTorch kept Torch's tensors and ``nn`` ideas but changed conventions that
trip up Lua habits: in-place names, indexing, the NumPy bridge, devices,
``nn.Module`` and the optimizer. A table of idioms closes the core; going
deeper, threads, shared memory and the backward methods that autograd
replaced.

**You will learn** to translate Lua Torch idioms into PyTorch: the
trailing underscore, 0-based indexing, shared NumPy memory, device moves
that keep the dtype, ``forward`` instead of container modules, and an
optimizer instead of ``updateParameters``.

**You need first** experience with Lua Torch; for PyTorch itself, tensors
(:ref:`sphx_glr_lessons_basics_01_tensors.py`) and autograd
(:ref:`sphx_glr_lessons_basics_04_autograd.py`).
"""

# %%
# Setup
# -----
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["advanced", "legacy", "migration"]
# sphinx_gallery_thumbnail_number = 1

# %%
# In place or not: the trailing underscore
# ----------------------------------------
# In Lua Torch ``x:add(y)`` changed ``x``. In PyTorch the rule is in the name:
# a method ending in ``_`` modifies its tensor in place and returns it; the
# same name without ``_`` leaves it alone and returns a new tensor. Lua's
# ``torch.add(result, x, y)`` became the ``out=`` keyword.
a = torch.full((2, 3), 1.5)
b = a.add(2.0)  # out of place: a is untouched
print(f"after a.add(2.0):  a[0, 0] = {a[0, 0]}, b[0, 0] = {b[0, 0]}")
assert a.add_(1.0) is a  # in place: a changes and comes back
print(f"after a.add_(1.0): a[0, 0] = {a[0, 0]}")
result = torch.empty(3)
torch.add(torch.ones(3), torch.ones(3), out=result)
print(f"out=result: {result.tolist()}")
# sphinx_gallery_start_ignore
assert torch.all(a == 2.5) and torch.all(b == 3.5)
assert torch.equal(result, torch.full((3,), 2.0))
# sphinx_gallery_end_ignore

# %%
# ``a.add`` left ``a`` at 1.5; ``a.add_`` changed it and returned the same
# tensor. "Out of place" does not always mean "a copy": ``narrow``, as in
# Lua, returns a *view* that shares memory, so writing through it changes the
# original:
row = torch.arange(6.0)
row.narrow(0, 2, 3).zero_()  # narrow: a view of elements 2, 3, 4
print(f"after zeroing the narrowed view: {row.tolist()}")
# sphinx_gallery_start_ignore
assert row.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 5.0]
# sphinx_gallery_end_ignore

# %%
# Zeroing the view zeroed elements 2 to 4 of ``row``. In-place operations
# save memory, but one may destroy a value the backward pass needs. Every
# in-place operation bumps the tensor's version counter, and autograd checks
# it, so it usually refuses rather than computing wrong gradients:
w = torch.randn(3, requires_grad=True)
s = w.sigmoid()  # backward of sigmoid reuses its output s
s.mul_(2)  # ... which this overwrites
try:
    s.sum().backward()
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).splitlines()[0]}")
    # sphinx_gallery_start_ignore
    assert "output 0 of Sigmoid" in str(err) and "version 1" in str(err)
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("backward through an overwritten output should fail")

# %%
# The error describes the overwritten tensor: its type and shape, the
# operation that made it (output 0 of ``Sigmoid``) and its version, 1
# where the backward expected 0. "Usually", because writes through
# ``.data`` (or through a NumPy view of it) skip the version counter: then
# the gradients are silently wrong. Prefer out-of-place forms unless memory
# is tight, and never write through ``.data``.
#
# Indexing starts at zero
# -----------------------
# Lua counts from 1; PyTorch, like Python, from 0, with ``start:stop``
# excluding ``stop`` and negative indices counting from the end. Dimensions
# too: ``x:size(1)`` is ``x.size(0)``, ``x:sum(2)`` is ``x.sum(dim=1)``.
# The figure labels each element of a 3 x 4 tensor with its PyTorch index
# and, below it, the Lua one:
import matplotlib.pyplot as plt

m = torch.arange(1, 13).reshape(3, 4)
fig, ax = plt.subplots(figsize=(5.5, 3.8), layout="constrained")
ax.imshow(m.numpy(), cmap="Blues", vmin=-4, vmax=30)
for i in range(3):
    for j in range(4):
        label = f"{m[i, j].item()}\n[{i}, {j}]\nLua [{i + 1}][{j + 1}]"
        ax.text(j, i, label, ha="center", va="center", fontsize=9)
ax.set(
    xticks=range(4),
    yticks=range(3),
    xlabel="dim 1 (Lua: 2)",
    ylabel="dim 0 (Lua: 1)",
    title="m = torch.arange(1, 13).reshape(3, 4)",
)
plt.show()

# %%
# Element 7 sits at ``m[1, 2]`` here and at ``m[2][3]`` in Lua. Slices and
# reductions follow the same shift, and camelCase became snake_case
# (``indexAdd`` is ``index_add_``, ``nElement`` is ``numel``), with the
# underscore where the work is in place:
print(f"m[1, 2] = {m[1, 2].item()}, m[-1] = {m[-1].tolist()}")
print(f"m[:, 1:3] = {m[:, 1:3].tolist()}, m.numel() = {m.numel()}")
print(f"m.sum(dim=1) = {m.sum(dim=1).tolist()}")
totals = torch.zeros(3).index_add_(0, torch.tensor([2, 0, 2]), m[0, :3] * 1.0)
print(f"index_add_ of {m[0, :3].tolist()} into slots [2, 0, 2]: ", end="")
print(totals.tolist())
# sphinx_gallery_start_ignore
assert m[1, 2] == 7 and m.numel() == 12
assert m[:, 1:3].tolist() == [[2, 3], [6, 7], [10, 11]]
assert m.sum(dim=1).tolist() == [10, 26, 42]
assert totals.tolist() == [2.0, 0.0, 4.0]  # repeated indices accumulate
# sphinx_gallery_end_ignore

# %%
# ``m[:, 1:3]`` took columns 1 and 2 (``stop`` excluded), and ``index_add_``
# added source elements 0 and 2 (1 and 3) into slot 2: repeated indices
# accumulate.
#
# The NumPy bridge
# ----------------
# ``t.numpy()`` and ``torch.from_numpy(arr)`` share one buffer, so an
# in-place change to either shows in both; ``torch.tensor(arr)`` always
# copies. Both keep the array's dtype.
import numpy as np

arr = np.linspace(0.0, 1.0, 3)  # float64
shared, copied = torch.from_numpy(arr), torch.tensor(arr)
arr[0] = -7.0  # a write on the NumPy side
print(f"from_numpy {shared.tolist()}, torch.tensor {copied.tolist()}")
print(f"dtypes: {shared.dtype}, {copied.dtype}")
t = torch.arange(3.0)
t.numpy()[0] = 5.0  # a write through the array view of t
print(f"t after writing through t.numpy(): {t.tolist()}")
# sphinx_gallery_start_ignore
assert shared.tolist() == [-7.0, 0.5, 1.0] and copied[0] == 0.0
assert shared.dtype == copied.dtype == torch.float64
assert t[0] == 5.0
# sphinx_gallery_end_ignore

# %%
# The shared tensor saw the write, the copy did not, and both kept float64.
# (The legacy constructors, ``torch.Tensor(arr)`` and friends, share or copy
# depending on the dtypes: see "Going deeper".)
#
# Devices keep the dtype
# ----------------------
# Lua's ``t:cuda()`` made any tensor a float ``CudaTensor``. In PyTorch a
# device move keeps the dtype; only ``.to(dtype)`` (``.float()``, ...)
# converts. Without an accelerator, the data-less ``"meta"`` device
# (:ref:`sphx_glr_lessons_advanced_02_devices.py`) shows the same.
counts = torch.arange(5)  # int64
moved = counts.to(device if device.type != "cpu" else "meta")
print(f"{counts.type()} -> {moved.type()}")
# sphinx_gallery_start_ignore
assert moved.dtype == torch.int64 and moved.device.type != "cpu"
# sphinx_gallery_end_ignore

# %%
# The legacy type name shows device and dtype together: the device changed,
# ``Long`` (int64) stayed. Lua's habit of preallocating buffers is not
# needed either: a caching allocator makes new GPU tensors in the loop cheap
# (:ref:`sphx_glr_lessons_advanced_03_gpu_performance.py`).
#
# ``nn.Module`` instead of containers and ``:forward()``
# ------------------------------------------------------
# ``nn.Sequential`` survives for plain chains. Skip connections and branches
# used to need ``nn.ConcatTable``, ``nn.CAddTable`` or nngraph; in PyTorch
# you subclass ``nn.Module`` and write ``forward`` in Python. Call the module,
# ``model(x)``, not ``model.forward(x)``: only the call runs hooks
# (:ref:`sphx_glr_lessons_nn_08_hooks.py`).
from torch import nn


class Residual(nn.Module):
    """y = x + f(x): in Lua, ConcatTable(Identity, f) then CAddTable."""

    def __init__(self, width):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(width, width), nn.ReLU())

    def forward(self, x):
        return x + self.f(x)


model = nn.Sequential(Residual(8), nn.Linear(8, 2)).to(device)
for name, p in model.named_parameters():
    print(f"{name:12s} {tuple(p.shape)} on {p.device.type}")

# %%
# ``Residual`` registered its ``Sequential`` as a child (``0.f``), so its
# weights are among the model's parameters, and ``.to(device)`` and the
# optimizer reach them. ``model:backward`` plus ``model:updateParameters(lr)``
# became ``loss.backward()`` plus an optimizer. Plain SGD is the old update
# ``p = p - lr * grad``:
import copy

import torch.nn.functional as F

inputs = torch.randn(5, 8, device=device)
target = torch.randint(0, 2, (5,), device=device)
by_hand = copy.deepcopy(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for net in (model, by_hand):
    F.cross_entropy(net(inputs), target).backward()
optimizer.step()
with torch.no_grad():
    for p in by_hand.parameters():
        p -= 0.1 * p.grad  # the old updateParameters(0.1)
gap = max(
    (p1 - p2).abs().max().item()
    for p1, p2 in zip(model.parameters(), by_hand.parameters())
)
print(f"optimizer.step() vs manual update: max difference {gap:.1e}")
# sphinx_gallery_start_ignore
for p_opt, p_hand in zip(model.parameters(), by_hand.parameters()):
    torch.testing.assert_close(p_opt, p_hand)
# sphinx_gallery_end_ignore

# %%
# The two updates agree to rounding. As with ``accGradParameters``,
# gradients accumulate until you clear them: ``zeroGradParameters`` became
# ``optimizer.zero_grad()``.
#
# Lua Torch to PyTorch at a glance
# --------------------------------
#
# .. list-table::
#    :header-rows: 1
#
#    * - Lua Torch
#      - PyTorch
#    * - ``torch.Tensor(3, 4)``; ``torch.LongTensor({1, 2})``
#      - ``torch.empty(3, 4)``; ``torch.tensor([1, 2])``
#    * - ``x:add(y)`` (changes ``x``); ``torch.add(res, x, y)``
#      - ``x.add_(y)``; ``torch.add(x, y, out=res)``
#    * - ``x[1][4]``; ``x:sum(2)``; ``x:indexAdd(1, idx, src)``
#      - ``x[0, 3]``; ``x.sum(dim=1)``; ``x.index_add_(0, idx - 1, src)``
#    * - ``x:cuda()`` (becomes a float ``CudaTensor``)
#      - ``x.to(device)`` (keeps its dtype)
#    * - ``threads`` package
#      - intra-op threads; ``DataLoader(num_workers=...)``;
#        ``torch.multiprocessing``
#    * - ``nn.ConcatTable``, ``nn.CAddTable``, nngraph
#      - an ``nn.Module`` subclass with a Python ``forward``
#    * - ``model:backward``; ``model:updateParameters(lr)``
#      - ``loss.backward()``; ``optimizer.step()``
#
# Going deeper
# ------------
# Optional on a first read: the legacy constructors, threads and shared
# memory, and the backward methods that autograd replaced.
#
# Legacy constructors share or copy by dtype
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The constructors that Lua-era code uses are less predictable: whether
# they share depends on the dtypes. ``torch.Tensor`` always gives the
# default dtype (float32): it shares a float32 array but copies and casts a
# float64 one; ``torch.DoubleTensor`` shares a float64 array.
a32 = np.zeros(3, dtype=np.float32)
a64 = np.zeros(3, dtype=np.float64)
legacy = {
    "torch.Tensor(float32 array)": torch.Tensor(a32),
    "torch.DoubleTensor(float64 array)": torch.DoubleTensor(a64),
    "torch.Tensor(float64 array)": torch.Tensor(a64),
}
a32[0] = a64[0] = 9.0  # write through the arrays
for name, t in legacy.items():
    print(f"{name:34s} {t.dtype}, sees the write: {bool(t[0] == 9)}")
# sphinx_gallery_start_ignore
assert [bool(t[0] == 9) for t in legacy.values()] == [True, True, False]
assert legacy["torch.Tensor(float64 array)"].dtype == torch.get_default_dtype()
assert torch.get_default_dtype() == torch.float32
# sphinx_gallery_end_ignore

# %%
# Only the float64 array given to ``torch.Tensor`` was copied (and cast to
# float32). Write ``torch.tensor(arr)`` for a copy and
# ``torch.from_numpy(arr)`` to share, and the question never arises.
#
# Threads and processes instead of ``threads``
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Lua Torch used the ``threads`` package. In PyTorch one operation can run
# on several C++ threads (``torch.get_num_threads()``), and operations
# release Python's interpreter lock (GIL) while they compute, so other Python
# threads keep running; in a standard CPython build, Python code runs one
# thread at a time. To see both, Python may switch threads only once a
# second here (restored after): a thread running Python code then keeps
# the GIL for up to a second unless it releases it itself, far longer than
# the work takes. We count the main thread's steps meanwhile:
import sys
import sysconfig
import threading


def main_thread_steps(work):
    worker = threading.Thread(target=work)
    steps = 0
    worker.start()
    while worker.is_alive():  # runs only while the worker lets go of the GIL
        steps += 1
    return steps


big = torch.randn(2048, 2048)
old_interval = sys.getswitchinterval()
sys.setswitchinterval(1.0)
try:
    torch_steps = main_thread_steps(lambda: big @ big)
    python_steps = main_thread_steps(lambda: sum(i * i for i in range(10**5)))
finally:
    sys.setswitchinterval(old_interval)
print(f"intra-op threads: {torch.get_num_threads()}")
print(f"main thread ran: during the matmul {torch_steps > 0}, ", end="")
print(f"during the Python loop {python_steps > 0}")
free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
print(f"free-threaded Python (no GIL): {free_threaded}")
# sphinx_gallery_start_ignore
assert torch_steps > 0 and (python_steps == 0 or free_threaded)
# sphinx_gallery_end_ignore

# %%
# The matmul let the main thread run; with the GIL, the Python loop did
# not (a free-threaded build, which has no GIL, may let it). So
# Python-heavy work (decoding samples, or "Hogwild" training, where
# several processes update one shared model without locks, as
# :ref:`sphx_glr_lessons_advanced_07_multiprocessing_hogwild.py` shows)
# runs in processes
# (``DataLoader(num_workers=...)``, ``torch.multiprocessing``), and
# ``share_memory_()`` moves a tensor's data into shared memory once, to be
# used by all of them:
params = torch.zeros(4)
before = params.data_ptr()  # the address of the tensor's data
params.share_memory_()  # copies the storage into shared memory, in place
print(f"shared: {params.is_shared()}, ", end="")
print(f"data moved to a new address: {params.data_ptr() != before}")
# sphinx_gallery_start_ignore
assert params.is_shared() and params.data_ptr() != before
# sphinx_gallery_end_ignore

# %%
# Same tensor object, new shared buffer. More in
# :ref:`sphx_glr_lessons_advanced_07_multiprocessing_hogwild.py`.
#
# Autograd instead of ``updateGradInput`` and ``accGradParameters``
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A Lua ``nn`` module implemented ``updateOutput`` (forward),
# ``updateGradInput`` (gradient with respect to its input) and
# ``accGradParameters`` (accumulate gradients of its weights). In PyTorch you
# write only the forward computation; autograd derives both backward parts.
# For a linear layer ``y = x W^T + b``, we compare with the hand-written
# formulas:
linear = nn.Linear(5, 3)
x = torch.randn(4, 5, requires_grad=True)
grad_y = torch.randn(4, 3)  # the gradient arriving from the layers above
linear(x).backward(grad_y)  # updateOutput, then both backward parts
grad_x = grad_y @ linear.weight  # what updateGradInput returned
grad_w = grad_y.T @ x.detach()  # what accGradParameters accumulated
for name, auto, by_formula in [
    ("input", x.grad, grad_x),
    ("weight", linear.weight.grad, grad_w),
    ("bias", linear.bias.grad, grad_y.sum(dim=0)),
]:
    gap = (auto - by_formula).abs().max().item()
    print(f"gradient of the {name:6s}: autograd vs formula {gap:.1e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(x.grad, grad_x)
torch.testing.assert_close(linear.weight.grad, grad_w)
torch.testing.assert_close(linear.bias.grad, grad_y.sum(dim=0))
# sphinx_gallery_end_ignore

# %%
# Autograd's gradients match the hand-written ones to rounding, with no
# backward code written.
#
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``torch.Tensor(5, 2)``, ``torch.LongTensor([4, 0])``,
#      ``torch.DoubleTensor(np_array)``: they guess whether they got a shape
#      or data, fix the dtype by class name and share or copy as shown above.
#      Write ``torch.empty(5, 2)``, ``torch.tensor([4, 0])`` (a copy) or
#      ``torch.from_numpy(arr)`` (shared).
#    - ``x.type(torch.cuda.FloatTensor)``, ``x.cuda()``: ``x.to(device,
#      torch.float32)``, with ``device`` from ``torch.accelerator``.
#    - ``Variable(x)`` and ``x.data``: tensors carry autograd themselves
#      since PyTorch 0.4; ``.data`` also hides in-place writes from autograd,
#      so use ``x.detach()`` or ``with torch.no_grad():`` instead.
#
# Takeaways
# ---------
# - A trailing ``_`` means in place; ``out=`` replaces Lua's result
#   argument.
# - Indices and dimensions count from 0, and ``stop`` is excluded.
# - ``torch.from_numpy`` shares, ``torch.tensor`` copies; device moves keep
#   the dtype.
# - Write ``forward`` in an ``nn.Module`` subclass and let autograd and an
#   optimizer replace ``backward`` and ``updateParameters``.
#
# Next, :ref:`sphx_glr_lessons_advanced_05_custom_functions_compose.py`
# shows how to write the backward by hand when you must, as a
# ``torch.autograd.Function``.
