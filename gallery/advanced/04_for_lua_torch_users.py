"""
PyTorch for former Lua Torch users
==================================

PyTorch kept Torch's tensors and ``nn`` ideas but changed conventions that
trip up Lua habits: in-place names, indexing, the NumPy bridge, devices,
threads, autograd and ``nn.Module``. A table of idioms closes the page.
"""

# %%
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["beginner", "tensors", "migration"]
# sphinx_gallery_thumbnail_path = "_static/thumbs/advanced.png"

# %%
# In place or not: the trailing underscore
# ----------------------------------------
# In Lua Torch ``x:add(y)`` changed ``x``. In PyTorch the rule is in the name:
# a method ending in ``_`` modifies its tensor in place and returns it; the
# same name without ``_`` leaves it alone and returns a new tensor. Lua's
# ``torch.add(result, x, y)`` became the ``out=`` keyword. "Out of place"
# does not always mean "a copy": ``narrow``, as in Lua, returns a *view*
# that shares memory, so writing through it changes the original:
a = torch.full((2, 3), 1.5)
b = a.add(2.0)  # out of place: a is untouched
assert torch.all(a == 1.5) and torch.all(b == 3.5)
assert a.add_(1.0) is a  # in place: a changes and comes back
assert torch.all(a == 2.5) and torch.all(b == 3.5)
result = torch.empty(3)
ptr = result.data_ptr()
torch.add(torch.ones(3), torch.ones(3), out=result)
assert torch.equal(result, torch.full((3,), 2.0)) and result.data_ptr() == ptr
row = torch.arange(6.0)
row.narrow(0, 2, 3).zero_()  # narrow: a view of elements 2, 3, 4
print(f"after zeroing the narrowed view: {row.tolist()}")
assert row.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 5.0]

# %%
# Zeroing the view zeroed elements 2 to 4 of ``row``. In-place operations
# save memory, but if one destroys a value the backward pass needs, the
# tensor's version counter (bumped by every in-place operation) shows it,
# and autograd refuses rather than computing wrong gradients:
w = torch.randn(3, requires_grad=True)
s = w.sigmoid()  # backward of sigmoid reuses its output s
s.mul_(2)  # ... which this overwrites
try:
    s.sum().backward()
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).splitlines()[0]}")
    assert "output 0 of Sigmoid" in str(err) and "version 1" in str(err)
else:
    raise AssertionError("backward through an overwritten output should fail")

# %%
# The error describes the overwritten tensor: its type and shape, the
# operation that made it (output 0 of ``Sigmoid``) and its version, 1
# where the backward expected 0. Prefer out-of-place forms unless memory is
# tight.
#
# Indexing starts at zero
# -----------------------
# Lua counts from 1; PyTorch, like Python, from 0, with ``start:stop``
# excluding ``stop`` and negative indices counting from the end. Dimensions
# too: ``x:size(1)`` is ``x.size(0)``, ``x:sum(2)`` is ``x.sum(dim=1)``.
# camelCase became snake_case (``indexAdd`` is ``index_add_``, ``nElement``
# is ``numel``), with the underscore where the work is in place.
m = torch.arange(1, 13).reshape(3, 4)
print(f"m[1, 2] = {m[1, 2].item()}, m[-1] = {m[-1].tolist()}")
assert m[1, 2] == 7  # second row, third column; Lua: m[2][3]
assert m[:, 1:3].tolist() == [[2, 3], [6, 7], [10, 11]]
assert torch.equal(m[-1], m[2]) and m.size(0) == 3 and m.numel() == 12
assert m.sum(dim=1).tolist() == [10, 26, 42]
totals = torch.zeros(3).index_add_(0, torch.tensor([2, 0, 2]), m[0, :3] * 1.0)
assert totals.tolist() == [2.0, 0.0, 4.0]  # repeated indices accumulate

# %%
# ``index_add_`` added source elements 0 and 2 (1 and 3) into slot 2.
#
# The NumPy bridge and the legacy constructors
# --------------------------------------------
# ``t.numpy()`` and ``torch.from_numpy(arr)`` share one buffer, so an
# in-place change to either shows in both; ``torch.tensor(arr)`` always
# copies. Both keep the array's dtype.
import numpy as np

arr = np.linspace(0.0, 1.0, 3)  # float64
shared, copied = torch.from_numpy(arr), torch.tensor(arr)
arr[0] = -7.0  # a write on the NumPy side
print(f"from_numpy {shared.tolist()}, torch.tensor {copied.tolist()}")
assert shared.tolist() == [-7.0, 0.5, 1.0] and copied[0] == 0.0
assert shared.dtype == copied.dtype == torch.float64
t = torch.arange(3.0)
t.numpy()[0] = 5.0  # a write through the array view of t
assert t[0] == 5.0

# %%
# The legacy constructors that Lua-era code uses are less predictable:
# whether they share depends on the dtypes. ``torch.Tensor`` always gives the
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
assert [bool(t[0] == 9) for t in legacy.values()] == [True, True, False]
assert legacy["torch.Tensor(float64 array)"].dtype == torch.get_default_dtype()
assert torch.get_default_dtype() == torch.float32

# %%
# .. note:: Old code you may meet: ``torch.Tensor(5, 2)``,
#    ``torch.LongTensor([4, 0])``, ``torch.DoubleTensor(np_array)``. They
#    guess whether they got a shape or data, fix the dtype by class name and
#    share or copy as above. Write ``torch.empty(5, 2)``,
#    ``torch.tensor([4, 0])`` (a copy) or ``torch.from_numpy(arr)`` (shared).
#
# Not every array crosses the bridge: strings and Python objects have no
# tensor dtype, and the error lists the NumPy dtypes that do convert (signed
# ``int8`` included).
try:
    torch.from_numpy(np.array(["a", "b"]))
except TypeError as err:
    print(f"raised TypeError: {err}")
else:
    raise AssertionError("an array of strings should have failed")
assert torch.from_numpy(np.zeros(2, dtype=np.int8)).dtype == torch.int8

# %%
# Devices keep the dtype
# ----------------------
# Lua's ``t:cuda()`` made any tensor a float ``CudaTensor``. In PyTorch a
# device move keeps the dtype; only ``.to(dtype)`` (``.float()``, ...)
# converts. Without an accelerator the data-less ``"meta"`` device shows it.
counts = torch.arange(5)  # int64
moved = counts.to(device if device.type != "cpu" else "meta")
print(f"{counts.type()} -> {moved.type()}")
assert moved.dtype == torch.int64
assert counts.to(torch.float32).dtype == torch.float32  # only this converts

# %%
# The legacy type name shows device and dtype together. Lua's habit of
# preallocating buffers is not needed: a caching allocator makes new GPU
# tensors in the loop cheap
# (:ref:`sphx_glr_lessons_advanced_03_gpu_performance.py`).
#
# Threads and processes instead of ``threads``
# --------------------------------------------
# Lua Torch used the ``threads`` package. In PyTorch one operation can run
# on several C++ threads (``torch.get_num_threads()``), and operations
# release Python's interpreter lock (GIL) while they compute, so other Python
# threads keep running; in a standard CPython build, Python code runs one
# thread at a time. To see both, Python may switch threads only once a
# second here (restored after); we count the main thread's steps meanwhile:
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
assert torch_steps > 0 and (python_steps == 0 or free_threaded)

# %%
# The matmul let the main thread run; with the GIL, the Python loop did
# not (a free-threaded build, which has no GIL, may let it). So
# Python-heavy work (decoding samples, Hogwild loops) runs in processes
# (``DataLoader(num_workers=...)``, ``torch.multiprocessing``), and
# ``share_memory_()`` copies a tensor into shared memory once, to be used by
# all of them.
params = torch.zeros(4)
before = params.data_ptr()
params.share_memory_()  # copies the storage into shared memory, in place
assert params.is_shared() and params.data_ptr() != before

# %%
# Same tensor object, new shared buffer. More in
# :ref:`sphx_glr_lessons_advanced_07_multiprocessing_hogwild.py`.
#
# Autograd instead of ``updateGradInput`` and ``accGradParameters``
# -----------------------------------------------------------------
# A Lua ``nn`` module implemented ``updateOutput`` (forward),
# ``updateGradInput`` (gradient with respect to its input) and
# ``accGradParameters`` (accumulate gradients of its weights). In PyTorch you
# write only the forward computation; autograd derives both backward parts.
# For a linear layer ``y = x W^T + b``, the hand-written formulas agree:
from torch import nn

linear = nn.Linear(5, 3)
x = torch.randn(4, 5, requires_grad=True)
grad_y = torch.randn(4, 3)  # the gradient arriving from the layers above
linear(x).backward(grad_y)  # updateOutput, then both backward parts
torch.testing.assert_close(x.grad, grad_y @ linear.weight)  # updateGradInput
grad_w = grad_y.T @ x.detach()  # what accGradParameters accumulated
torch.testing.assert_close(linear.weight.grad, grad_w)
torch.testing.assert_close(linear.bias.grad, grad_y.sum(dim=0))
linear(x).backward(grad_y)  # a second backward *adds* to .grad
torch.testing.assert_close(linear.weight.grad, 2 * grad_w)
print("autograd == hand-written updateGradInput / accGradParameters")

# %%
# As with ``accGradParameters``, gradients accumulate until you clear them
# (``zeroGradParameters`` became ``optimizer.zero_grad()``).
#
# ``nn.Module`` instead of containers and ``:forward()``
# ------------------------------------------------------
# ``nn.Sequential`` survives for plain chains. Skip connections and branches
# used to need ``nn.ConcatTable``, ``nn.CAddTable`` or nngraph; in PyTorch
# you subclass ``nn.Module`` and write ``forward`` in Python. Call the module,
# ``model(x)``, not ``model.forward(x)``: only the call runs hooks
# (:ref:`sphx_glr_lessons_nn_08_hooks.py`).


class Residual(nn.Module):
    """y = x + f(x): in Lua, ConcatTable(Identity, f) then CAddTable."""

    def __init__(self, width):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(width, width), nn.ReLU())

    def forward(self, x):
        return x + self.f(x)


model = nn.Sequential(Residual(8), nn.Linear(8, 2)).to(device)
print(model)

# %%
# ``Residual`` registered its ``Sequential`` as a child, so ``.to(device)``
# moved its weights too. ``model:backward`` plus
# ``model:updateParameters(lr)`` became ``loss.backward()`` plus an
# optimizer. Plain SGD is the old update ``p = p - lr * grad``:
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
for p_opt, p_hand in zip(model.parameters(), by_hand.parameters()):
    torch.testing.assert_close(p_opt, p_hand)
print("optimizer.step() == manual updateParameters")

# %%
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
# More: :ref:`sphx_glr_lessons_basics_01_tensors.py`,
# :ref:`sphx_glr_lessons_basics_04_autograd.py`,
# :ref:`sphx_glr_lessons_nn_03_custom_module.py`.
