"""
PyTorch for former Lua Torch users
==================================

PyTorch kept Torch's tensor library and its ``nn`` ideas but moved them to
Python, and on the way changed conventions that trip up anyone with Lua Torch
habits. This lesson runs through them one by one: in-place naming, zero-based
indexing, snake_case names, the NumPy bridge, CUDA tensors, the caching
allocator, processes instead of threads, autograd instead of hand-written
backward methods, and ``nn.Module`` instead of containers. A lookup table of
idioms closes the page.

.. tags:: beginner, tensors, migration
"""

# %%
# Setup
# -----
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")

# %%
# In place or not: the trailing underscore
# ----------------------------------------
# In Lua Torch ``x:add(y)`` changed ``x``. In PyTorch the rule is in the name:
# a method ending in ``_`` modifies its tensor in place (and returns it); the
# same name without ``_`` leaves it alone and returns a new tensor.
a = torch.empty(2, 3)
returned = a.fill_(1.5)  # in place
b = a.add(2.0)  # out of place: a is untouched
print(
    f"a is filled with {a[0, 0].item()}, b = a.add(2.0) holds {b[0, 0].item()}"
)
assert returned is a
assert torch.all(a == 1.5) and torch.all(b == 3.5)
a.add_(1.0)  # now a changes
assert torch.all(a == 2.5) and torch.all(b == 3.5)

# %%
# Not every operation has both forms. ``narrow`` (a view of a slice) exists
# only out of place: there is no ``narrow_``. ``fill_``, ``zero_``, ``copy_``
# and the random fillers such as ``uniform_`` exist only in place; for an
# out-of-place fill use ``torch.full_like``.
import pandas as pd

pairs = [
    "add",
    "mul",
    "clamp",
    "index_add",
    "narrow",
    "view",
    "expand",
    "fill",
    "zero",
    "copy",
    "uniform",
]
forms = pd.DataFrame(
    [
        (op, hasattr(torch.Tensor, op), hasattr(torch.Tensor, op + "_"))
        for op in pairs
    ],
    columns=["method", "x.op(...)", "x.op_(...)"],
)
print(forms.to_string(index=False))
assert hasattr(torch.Tensor, "narrow") and not hasattr(torch.Tensor, "narrow_")
assert hasattr(torch.Tensor, "fill_") and not hasattr(torch.Tensor, "fill")
assert torch.equal(torch.full_like(a, 2.0), torch.full((2, 3), 2.0))

# %%
# "Out of place" does not always mean "a copy": ``narrow``, like Lua's, returns
# a *view* that shares memory, so writing through it changes the original.
# Lua's ``torch.add(result, x, y)`` became the ``out=`` keyword.
row = torch.arange(6.0)
middle = row.narrow(0, 2, 3)  # elements 2, 3, 4
middle.zero_()
print(f"after zeroing the narrowed view: {row.tolist()}")
assert row.tolist() == [0.0, 1.0, 0.0, 0.0, 0.0, 5.0]

result = torch.empty(3)
ptr = result.data_ptr()
torch.add(torch.ones(3), torch.ones(3), out=result)
assert torch.equal(result, torch.full((3,), 2.0)) and result.data_ptr() == ptr

# %%
# In-place operations save memory, but autograd may need the old values. If an
# in-place write destroys a value the backward pass needs, PyTorch notices and
# refuses rather than silently computing wrong gradients. So prefer the
# out-of-place form unless memory is tight.
w = torch.randn(3, requires_grad=True)
s = w.sigmoid()  # backward of sigmoid reuses its output s
s.mul_(2)  # ... which this overwrites
try:
    s.sum().backward()
    raise AssertionError("expected an error")
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split(':')[0]}")
    assert "modified by an inplace operation" in str(err)

# %%
# Indexing starts at zero
# -----------------------
# Lua counts from 1; Python, NumPy and PyTorch count from 0. Slices follow
# Python: ``start:stop`` includes ``start`` and excludes ``stop``, and negative
# indices count from the end. Dimension numbers start at 0 too: Lua's
# ``x:size(1)`` is ``x.size(0)``, and ``x:sum(2)`` is ``x.sum(dim=1)``.
m = torch.arange(1, 13).reshape(3, 4)
print(m)
print(f"m[1, 2] = {m[1, 2].item()}  (second row, third column; Lua: m[2][3])")
print(f"m[:, 1:3] = {m[:, 1:3].tolist()}  (second and third columns)")
print(f"m[-1] = {m[-1].tolist()}  (last row)")
assert m[1, 2] == 7
assert m[:, 1:3].tolist() == [[2, 3], [6, 7], [10, 11]]
assert torch.equal(m[-1], m[2]) and torch.equal(m.select(1, 0), m[:, 0])
assert m.size(0) == 3 and m.sum(dim=1).tolist() == [10, 26, 42]

# %%
# No camelCase
# ------------
# Lua Torch's ``indexAdd``, ``nElement``, ``maskedFill`` are spelled the
# Python way, with the in-place underscore where it applies. ``index_add_``
# adds rows of ``source`` into the rows of ``x`` named by ``index``; repeated
# indices accumulate, which makes it a per-group sum:
totals = torch.zeros(3, 2)
group = torch.tensor([2, 0, 2, 1, 2])  # group of each row below
values = torch.arange(10.0).reshape(5, 2)
totals.index_add_(0, group, values)
print(totals)
expected = torch.stack([values[group == g].sum(dim=0) for g in range(3)])
assert torch.equal(totals, expected)

renames = {
    "indexAdd": "index_add_",
    "indexCopy": "index_copy_",
    "maskedFill": "masked_fill_",
    "nElement": "numel",
    "isContiguous": "is_contiguous",
    "resizeAs": "resize_as_",
    "cmul": "mul",
}
for lua_name, torch_name in renames.items():
    assert not hasattr(torch.Tensor, lua_name) and hasattr(
        torch.Tensor, torch_name
    )
print("renamed:", ", ".join(f"{k} -> {v}" for k, v in renames.items()))

# %%
# .. note:: Old code you may meet: ``torch.Tensor(5, 2)`` for an uninitialized
#    tensor and ``torch.LongTensor([4, 0])`` for an index. The legacy
#    constructors guess whether their arguments are a shape or data and fix
#    the dtype by class name; write ``torch.empty(5, 2)`` and
#    ``torch.tensor([4, 0])`` (``int64`` inferred from the data).

# %%
# The NumPy bridge
# ----------------
# ``t.numpy()`` and ``torch.from_numpy(arr)`` convert without copying: tensor
# and array share one buffer, so an in-place change to either shows in both.
# ``torch.tensor(arr)`` always copies; ``torch.as_tensor(arr)`` shares when it
# can.
import numpy as np

t = torch.arange(3.0)
t_as_array = t.numpy()
t.mul_(10)
assert t_as_array.tolist() == [0.0, 10.0, 20.0]  # the array saw the change

arr = np.linspace(0.0, 1.0, 3)
shared, copied = torch.from_numpy(arr), torch.tensor(arr)
arr[0] = -7.0  # a write on the NumPy side
print(
    f"array {arr.tolist()}, from_numpy {shared.tolist()}, torch.tensor {copied.tolist()}"
)
assert shared.tolist() == [-7.0, 0.5, 1.0] and copied.tolist() == [
    0.0,
    0.5,
    1.0,
]
assert torch.as_tensor(arr).data_ptr() == shared.data_ptr()

# %%
# Which dtypes cross the bridge? All of NumPy's booleans, integers (signed and
# unsigned, including ``int8``), floats and complex numbers. Strings, Python
# objects and dates have no tensor equivalent and raise ``TypeError``.
conversions = []
for np_dtype in [
    np.float64,
    np.float32,
    np.float16,
    np.complex64,
    np.int64,
    np.int32,
    np.int16,
    np.int8,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.bool_,
]:
    tensor = torch.from_numpy(np.zeros(2, dtype=np_dtype))
    conversions.append(
        (np.dtype(np_dtype).name, str(tensor.dtype).removeprefix("torch."))
    )
for bad in [np.array(["a", "b"]), np.array([1, "x"], dtype=object)]:
    try:
        torch.from_numpy(bad)
        raise AssertionError("expected a TypeError")
    except TypeError as err:
        conversions.append(
            (bad.dtype.name, f"TypeError: {str(err).split('. ')[0]}")
        )
table = pd.DataFrame(
    conversions, columns=["numpy dtype", "torch.from_numpy gives"]
)
print(table.to_string(index=False))
assert torch.from_numpy(np.zeros(2, dtype=np.int8)).dtype == torch.int8

# %%
# The other direction has its own limits: NumPy has no ``bfloat16``, a tensor
# that requires grad must be detached first (``t.detach().numpy()``), and a GPU
# tensor must come to the CPU first (``t.cpu().numpy()``).
try:
    torch.zeros(2, dtype=torch.bfloat16).numpy()
    raise AssertionError("expected a TypeError")
except TypeError as err:
    print(f"bfloat16 tensor .numpy(): TypeError: {err}")
try:
    torch.zeros(2, requires_grad=True).numpy()
    raise AssertionError("expected a RuntimeError")
except RuntimeError as err:
    print(
        f"tensor requiring grad .numpy(): RuntimeError: {str(err).split('. ')[0]}"
    )

# %%
# .. note:: Old code you may meet: ``torch.DoubleTensor(np_array)`` or
#    ``torch.Tensor(np_array)`` to convert, and the rule that ``CharTensor``
#    could not cross the bridge. The legacy constructors copy and force a
#    dtype (``torch.Tensor`` always gives ``float32``); use
#    ``torch.from_numpy`` to share memory or ``torch.tensor`` to copy, both
#    keep the array's dtype. ``int8`` converts fine today.
#
# CUDA tensors keep their dtype
# -----------------------------
# In Lua, ``t:cuda()`` turned any tensor into a float ``CudaTensor``. In
# PyTorch, moving between devices never changes the dtype: an ``int64`` tensor
# is still ``int64`` on the GPU and back. Only an explicit ``.to(dtype)`` (or
# ``.float()``, ``.long()``, ...) converts. The legacy type names survive in
# ``t.type()``.
counts = torch.arange(5)  # int64
print(f"on the CPU: {counts.type()}")
if device.type == "cuda":
    on_gpu = counts.to(device)
    print(f"after .to('cuda'): {on_gpu.type()}, dtype {on_gpu.dtype}")
    assert (
        on_gpu.dtype == torch.int64
        and on_gpu.type() == "torch.cuda.LongTensor"
    )
    back = on_gpu.cpu()
    assert back.dtype == torch.int64 and torch.equal(back, counts)
else:
    print(
        "No GPU: on one, counts.to('cuda').type() would be 'torch.cuda.LongTensor'."
    )
    meta = counts.to("meta")  # a data-less device: the same rule, checked here
    print(f"same rule on the 'meta' device: {meta.type()}")
    assert meta.dtype == torch.int64
assert (
    counts.to(torch.float32).dtype == torch.float32
)  # only this changes the dtype

# %%
# The caching allocator
# ---------------------
# With Torch's plain CUDA allocator every allocation and free synchronized the
# GPU, so Lua code created its buffers once and resized them in place each
# iteration. PyTorch keeps freed GPU memory in a cache and reuses it, so
# creating fresh tensors inside the training loop is cheap and idiomatic.
# :ref:`sphx_glr_lessons_advanced_02_gpus.py` looks at the cache in detail.
if device.type == "cuda":
    reserved = []
    for step in range(10):
        x_gpu = torch.randn(256, 1024).to(device)  # a new GPU tensor each step
        gram = x_gpu @ x_gpu.T
        reserved.append(torch.cuda.memory_reserved() / 2**20)
    print(
        "reserved GPU memory (MiB) per step:", [f"{r:.0f}" for r in reserved]
    )
    # While step k's tensors are created, step k-1's are still alive; from the
    # third step on, the cache has blocks for both and stops growing.
    assert reserved[2:] == [reserved[2]] * 8
else:
    print(
        "No GPU: on one, this loop creates a new GPU tensor every step and shows that "
        "torch.cuda.memory_reserved() stops growing after the first steps."
    )

# %%
# Processes instead of ``threads``
# --------------------------------
# Lua Torch used the ``threads`` package for parallel data loading and
# Hogwild training. Python threads share one interpreter lock, so PyTorch
# uses *processes*: ``torch.multiprocessing`` is a drop-in replacement for
# Python's ``multiprocessing`` that moves a tensor's storage into shared memory
# when the tensor is sent to another process, so nothing is copied. Whole
# models can be shared for Hogwild (``model.share_memory()``), and
# ``DataLoader(..., num_workers=4)`` runs loading in worker processes. See
# :ref:`sphx_glr_lessons_advanced_04_multiprocessing_hogwild.py` and
# :ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`.
params = torch.zeros(4)
params.share_memory_()  # storage moves to shared memory, in place
shared_model = torch.nn.Linear(4, 2).share_memory()
print(
    f"tensor shared: {params.is_shared()}, "
    f"model parameters shared: {all(p.is_shared() for p in shared_model.parameters())}"
)
assert params.is_shared() and all(
    p.is_shared() for p in shared_model.parameters()
)

# %%
# Autograd instead of ``updateGradInput`` and ``accGradParameters``
# -----------------------------------------------------------------
# A Lua ``nn`` module implemented three methods: ``updateOutput`` (forward),
# ``updateGradInput`` (gradient with respect to its input) and
# ``accGradParameters`` (accumulate gradients of its weights). In PyTorch you
# write only the forward computation; autograd records it and derives both
# backward parts. For a linear layer ``y = x W^T + b``, here are the two
# hand-written backward formulas next to autograd's results:
from torch import nn

linear = nn.Linear(5, 3)
x = torch.randn(4, 5, requires_grad=True)
y = linear(x)  # updateOutput
grad_y = torch.randn(4, 3)  # the gradient arriving from the layers above
y.backward(grad_y)

grad_x = grad_y @ linear.weight  # what updateGradInput computed
grad_w = grad_y.T @ x.detach()  # what accGradParameters accumulated
grad_b = grad_y.sum(dim=0)
torch.testing.assert_close(x.grad, grad_x)
torch.testing.assert_close(linear.weight.grad, grad_w)
torch.testing.assert_close(linear.bias.grad, grad_b)
print("autograd == hand-written updateGradInput / accGradParameters")

# %%
# As with ``accGradParameters``, gradients *accumulate* in ``.grad`` until you
# clear them (``zeroGradParameters`` became ``optimizer.zero_grad()``):
linear(x).backward(grad_y)
torch.testing.assert_close(linear.weight.grad, 2 * grad_w)

# %%
# ``nn.Module`` instead of containers and ``:forward()``
# ------------------------------------------------------
# ``nn.Sequential`` survives for plain chains. Anything else (skip
# connections, branches, loops) used to need ``nn.ConcatTable``,
# ``nn.CAddTable`` or nngraph; in PyTorch you subclass ``nn.Module`` and write
# ``forward`` as ordinary Python. Submodules assigned as attributes are
# registered automatically, so ``parameters()``, ``.to(device)`` and
# ``state_dict()`` find them.


class Residual(nn.Module):
    """y = x + f(x): in Lua, ConcatTable(Identity, f) followed by CAddTable."""

    def __init__(self, width):
        super().__init__()
        self.f = nn.Sequential(
            nn.Linear(width, width), nn.ReLU(), nn.Linear(width, width)
        )

    def forward(self, x):
        return x + self.f(x)


model = nn.Sequential(Residual(8), nn.ReLU(), nn.Linear(8, 2)).to(device)
print(model)
print(f"{sum(p.numel() for p in model.parameters())} parameters")

# %%
# Call the module, ``model(x)``, rather than ``model.forward(x)``: the call
# also runs the hooks registered on the module (used by tools such as
# profilers and feature extractors), which ``forward`` alone skips.
calls = []
handle = model.register_forward_hook(
    lambda module, inputs, output: calls.append(output.shape)
)
inputs = torch.randn(5, 8, device=device)
out_call = model(inputs)
out_forward = model.forward(inputs)
handle.remove()
print(
    f"hook ran {len(calls)} time(s) for one model(x) and one model.forward(x)"
)
assert len(calls) == 1 and torch.equal(out_call, out_forward)

# %%
# ``model:backward`` plus ``model:updateParameters(lr)`` became
# ``loss.backward()`` plus an optimizer. Plain SGD is exactly the old update
# ``p = p - lr * grad``:
import copy

import torch.nn.functional as F

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
#    :widths: 50 50
#
#    * - Lua Torch
#      - PyTorch
#    * - ``require 'torch'``; ``torch.manualSeed(0)``
#      - ``import torch``; ``torch.manual_seed(0)``
#    * - ``torch.Tensor(3, 4)`` (uninitialized)
#      - ``torch.empty(3, 4)``
#    * - ``torch.LongTensor({1, 2})``
#      - ``torch.tensor([1, 2])``
#    * - ``x:add(y)`` (changes ``x``)
#      - ``x.add_(y)``; ``x.add(y)`` returns a new tensor
#    * - ``torch.add(res, x, y)``
#      - ``torch.add(x, y, out=res)``
#    * - ``x[1][4]``; ``x[{ {}, {2, 3} }]``
#      - ``x[0, 3]``; ``x[:, 1:3]``
#    * - ``x:size(1)``; ``x:sum(2)``
#      - ``x.size(0)``; ``x.sum(dim=1)``
#    * - ``x:indexAdd(1, idx, src)``; ``x:nElement()``
#      - ``x.index_add_(0, idx, src)``; ``x.numel()``
#    * - ``x:type('torch.DoubleTensor')``
#      - ``x.to(torch.float64)`` or ``x.double()``
#    * - ``x:cuda()`` (becomes a float ``CudaTensor``)
#      - ``x.to("cuda")`` (keeps its dtype)
#    * - preallocate, then ``buf:resize(...)`` every iteration
#      - create tensors in the loop (caching allocator)
#    * - ``threads`` package
#      - ``torch.multiprocessing``; ``DataLoader(num_workers=...)``
#    * - ``nn.Sequential():add(a):add(b)``
#      - ``nn.Sequential(a, b)``
#    * - ``nn.ConcatTable``, ``nn.CAddTable``, nngraph
#      - an ``nn.Module`` subclass with a Python ``forward``
#    * - ``model:forward(x)``
#      - ``model(x)``
#    * - ``updateGradInput``, ``accGradParameters``, ``model:backward(x, g)``
#      - autograd: ``loss.backward()``
#    * - ``model:zeroGradParameters()``; ``model:updateParameters(lr)``
#      - ``optimizer.zero_grad()``; ``optimizer.step()``
#    * - ``model:training()``; ``model:evaluate()``
#      - ``model.train()``; ``model.eval()``
#    * - ``torch.save('f.t7', model)``
#      - ``torch.save(model.state_dict(), "f.pt")`` (object first)
#
# More on tensors and autograd: :ref:`sphx_glr_lessons_basics_01_tensors.py`,
# :ref:`sphx_glr_lessons_basics_04_autograd.py`; writing modules:
# :ref:`sphx_glr_lessons_nn_03_custom_module.py`.
