"""
Tensors: the array at the heart of PyTorch
==========================================

A tensor is an n-dimensional array of numbers of one type, much like a NumPy
array, that can also live on an accelerator such as a GPU. This lesson makes
tensors, does arithmetic on them, cuts them up, changes their shape and type,
shares memory with NumPy and moves them to an accelerator when one is present.
"""

# %%
# Setup
# -----
# One seed makes the random numbers below the same on every run. The
# ``device`` is an accelerator (CUDA, MPS, XPU) if present, else the CPU.
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["beginner", "tensors", "numpy"]

# %%
# Creating tensors
# ----------------
# ``torch.empty`` only reserves memory: its values are whatever bytes were
# there, so we print its shape, never its values, and fill it before use.
# Other constructors fill the memory with known values; ``torch.tensor``
# copies a Python list and infers the dtype from it.
e = torch.empty(2, 3)
print(f"empty: shape={tuple(e.shape)}, dtype={e.dtype}")
e.fill_(0.5)
steps = torch.arange(0, 10, 2)  # like range(): the end is left out
grid = torch.linspace(0, 1, 5)  # 5 points, both ends included
typed = torch.tensor([[1, 2], [3, 4]])
print(f"arange: {steps.tolist()}\nlinspace: {grid.tolist()}\n{typed}")
assert torch.all(e == 0.5) and torch.zeros(2, 3).sum() == 0
assert steps.tolist() == [0, 2, 4, 6, 8] and grid[-1] == 1
assert torch.eye(3).trace() == 3 and typed.dtype == torch.int64

# %%
# ``rand`` draws uniformly from :math:`[0, 1)`, ``randn`` from a standard
# normal and ``randint`` whole numbers. ``x.shape`` and ``x.size()`` return
# the same ``torch.Size``, a ``tuple`` subclass that unpacks like one;
# ``x.size(d)`` is the length of dimension ``d``.
u = torch.rand(2, 3)
g = torch.randn(2, 3)
dice = torch.randint(1, 7, (10,))  # the upper bound 7 is left out
print(f"rand:\n{u}\nrandn:\n{g}\nrandint: {dice.tolist()}")
assert u.min() >= 0 and u.max() < 1 and set(dice.tolist()) <= set(range(1, 7))
rows, cols = g.shape
print(f"shape={g.shape}, size(1)={g.size(1)}, numel={g.numel()}")
assert isinstance(g.shape, tuple) and g.shape == g.size() == (2, 3)
assert (rows, cols) == (2, 3) == (g.size(0), g.size(1))
assert g.numel() == rows * cols

# %%
# .. note:: Old code you may meet: ``torch.Tensor(5, 3)`` (uninitialised)
#    and ``torch.Tensor([5, 3])`` (from data): one name, two jobs. Write
#    ``torch.empty(5, 3)`` or ``torch.tensor(data)``.
#
# Arithmetic and in-place methods
# -------------------------------
# An addition can be written as an operator, a function, or a function that
# writes into a tensor you allocated (``out=``); all three give the same
# bits. A method whose name ends in ``_`` changes its tensor *in place* and
# returns it: the values change and the memory usually stays (``resize_``,
# for one, may have to move it).
a = torch.rand(2, 3)
b = torch.rand(2, 3)
result = torch.empty(2, 3)
torch.add(a, b, out=result)
assert torch.equal(a + b, torch.add(a, b)) and torch.equal(a + b, result)
before, address = b.clone(), b.data_ptr()
assert b.add_(a) is b and b.data_ptr() == address
torch.testing.assert_close(b, before + a)
b += a  # in place too: same memory
assert b.data_ptr() == address
b.mul_(0).add_(1)  # in-place calls chain
assert torch.all(b == 1)

# %%
# Not every in-place method changes values. ``t_()`` transposes in place: it
# swaps the shape and the *strides* (how far to step in memory per index)
# and leaves the bytes in memory as they were: only which index reads which
# byte changes.
m = torch.arange(6).view(2, 3)
before, address = m.clone(), m.data_ptr()
print(f"before t_(): shape {tuple(m.shape)}, strides {m.stride()}")
m.t_()
print(f"after  t_(): shape {tuple(m.shape)}, strides {m.stride()}")
assert m.shape == (3, 2) and m.stride() == (1, 3)
assert m.data_ptr() == address and torch.equal(m, before.T)
assert m.as_strided((6,), (1,)).tolist() == list(range(6))  # same bytes

# %%
# ``*`` multiplies element by element; ``@`` is the matrix product used by
# network layers. A full reduction such as ``sum()`` returns a *0-dim*
# tensor: shape ``()``, no axis to index. ``.item()`` turns it into a Python
# number, and indexing it, as in the old ``loss.data[0]``, fails.
m1 = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
m2 = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
print(f"m1 * m2:\n{m1 * m2}\nm1 @ m2:\n{m1 @ m2}")
total = (m1 @ m2).sum()
print(f"sum: shape {tuple(total.shape)}, ndim {total.ndim}")
assert total.shape == () and total.item() == 10.0
try:
    total[0]
except IndexError as err:
    print(f"raised IndexError: {err}")
else:
    raise AssertionError("indexing a 0-dim tensor should have failed")

# %%
# .. note:: Old code you may meet: ``loss.data[0]`` read a loss when
#    reductions returned one-element tensors of shape ``(1,)``. They return
#    0-dim tensors now; write ``loss.item()``.
#
# Indexing and slicing
# --------------------
# Indices start at zero and slices follow Python's rules. A slice is a
# *view*: it shares memory with its tensor, so writing through it changes
# the original. A boolean mask or a list of indices, read, makes a copy.
t = torch.arange(20).reshape(4, 5)
print(t)
assert t[0, 3] == 3 and t[:, 2].tolist() == [2, 7, 12, 17]
t[:, 0].fill_(-1)  # writes into t
assert t[:, 0].tolist() == [-1, -1, -1, -1]
t[t < 0] = 0  # assigning through a mask changes just those entries
odd = t[t % 2 == 1]
picked = t[[0, 2]]
print(f"odd entries: {odd.tolist()}\nrows 0 and 2: {picked.tolist()}")
assert odd.tolist() == [1, 3, 7, 9, 11, 13, 17, 19]
picked[0, 1], odd[0] = 100, 100  # both are copies of t[0, 1] ...
assert t[0, 1] == 1  # ... so t is unchanged

# %%
# Changing the shape: ``view`` and ``reshape``
# ---------------------------------------------
# ``view`` gives the same memory a new shape and new strides, without
# copying. The figure shows the storage offset of each element of a
# ``(3, 4)`` tensor and of its transpose ``.T``, which just swaps the
# strides: reading ``.T`` row by row jumps through memory (0, 4, 8, 1, ...),
# so it is not *contiguous*.
import matplotlib.pyplot as plt

grid = torch.arange(12).view(3, 4)  # values = storage offsets
fig, axes = plt.subplots(1, 2, figsize=(7, 3.6), layout="constrained")
for ax, (name, view) in zip(axes, [("grid", grid), ("grid.T", grid.T)]):
    ax.imshow(view, cmap="Blues", vmin=-4, vmax=14)
    for r in range(view.shape[0]):
        for c in range(view.shape[1]):
            ax.text(c, r, int(view[r, c]), ha="center", va="center")
    ax.set_xticks(range(view.shape[1]))
    ax.set_yticks(range(view.shape[0]))
    ax.set_title(f"{name}\nshape {tuple(view.shape)}, strides {view.stride()}")
    ax.set_xlabel("column index")
    ax.set_ylabel("row index")
fig.suptitle("Storage offset of each element")
plt.show()

# %%
# Whether ``view`` works on a non-contiguous tensor depends on its strides,
# not on contiguity. Splitting the first dimension of ``grid.T`` (stride 1)
# into ``(2, 2)`` is a new set of strides, so it works; flattening to
# ``(12,)`` would need one stride that walks 0, 4, 8, 1, ..., so it fails.
# One size may be ``-1``, meaning "whatever makes the count match".
# ``reshape`` returns a view when the strides allow and a copy otherwise;
# the docs warn not to rely on which.
transposed = grid.T
assert grid.view(2, -1).shape == (2, 6)  # -1 becomes 6
split = transposed.view(2, 2, 3)
assert not transposed.is_contiguous() and split.stride() == (2, 1, 4)
split[0, 0, 0] = 100  # a view: writing through it changes grid
assert grid[0, 0] == 100
try:
    transposed.view(12)
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
else:
    raise AssertionError("view(12) should have failed")
flattened = transposed.reshape(12)
assert flattened.data_ptr() != grid.data_ptr()  # reshape had to copy
assert flattened[:4].tolist() == [100, 4, 8, 1]

# %%
# Data types and promotion
# ------------------------
# Python floats become ``float32`` and Python ints ``int64``; ``/`` gives
# floats, ``//`` keeps integers. When dtypes mix, the higher *category* wins
# (bool < integer < float < complex) and, between tensors with dimensions,
# a dtype that can hold both: the wider one, or a third (``uint8`` with
# ``int8`` gives ``int16``). A Python number, or a 0-dim tensor, of the
# *same* category as a tensor with dimensions does not widen it.
i32 = torch.tensor([7, 8], dtype=torch.int32)
i64 = torch.tensor([7, 8])
f32 = torch.tensor([0.5, 1.5])
print(f"int32 + int64 -> {(i32 + i64).dtype}")
print(f"int32 + 5 -> {(i32 + 5).dtype}, int32 + 2.5 -> {(i32 + 2.5).dtype}")
print(f"int32 + 0-dim int64 tensor -> {(i32 + torch.tensor(5)).dtype}")
assert f32.dtype == torch.float32 and i64.dtype == torch.int64
assert (i32 / 2).dtype == torch.float32 and (i32 // 2).dtype == torch.int32
assert (i32 + i64).dtype == torch.int64 and (i64 + f32).dtype == f32.dtype
assert (i32 + 5).dtype == torch.int32 and (i32 + 2.5).dtype == torch.float32
assert (i32 + torch.tensor(5)).dtype == torch.int32
u8 = torch.tensor([200], dtype=torch.uint8)
i8 = torch.tensor([-1], dtype=torch.int8)
assert (u8 + i8).dtype == torch.int16 and (u8 + i8).item() == 199
assert f32.to(torch.float64).dtype == torch.float64 == f32.double().dtype

# %%
# NumPy 2 agrees for arrays and Python numbers, but not for 0-dim values: a
# 0-dim ``int64`` array, or a NumPy ``int64`` scalar, widens the result to
# ``int64`` where the 0-dim tensor above did not.
import numpy as np

a32 = np.array([7, 8], dtype=np.int32)
print(f"NumPy: int32 + 5 -> {(a32 + 5).dtype}")
print(f"NumPy: int32 + 0-dim int64 array -> {(a32 + np.array(5)).dtype}")
assert (a32 + 5).dtype == np.int32 and (a32 + i64.numpy()).dtype == np.int64
assert (a32 + np.array(5, dtype=np.int64)).dtype == np.int64
assert (a32 + np.int64(5)).dtype == np.int64

# %%
# The NumPy bridge
# ----------------
# ``tensor.numpy()`` and ``torch.from_numpy(array)`` do not copy: tensor and
# array share the memory of a CPU tensor, so a change through either side
# shows on the other. ``torch.tensor(array)`` always copies. A tensor that
# autograd tracks must be detached first (see
# :ref:`sphx_glr_lessons_basics_04_autograd.py`).
ones_t = torch.ones(4)
ones_a = ones_t.numpy()
ones_t.add_(1)
arr = np.zeros(4)
from_arr = torch.from_numpy(arr)
copied = torch.tensor(arr)
np.add(arr, 3, out=arr)
print(f"array after tensor.add_(1): {ones_a}")
print(f"tensor after np.add(arr, 3): {from_arr}")
assert np.shares_memory(ones_a, ones_t.numpy()) and (ones_a == 2).all()
assert from_arr.dtype == torch.float64 and torch.all(from_arr == 3)
assert torch.all(copied == 0) and copied.dtype == torch.float64
tracked = torch.ones(3, requires_grad=True)  # see the autograd lesson
try:
    tracked.numpy()
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
else:
    raise AssertionError("numpy() should refuse a tensor that requires grad")

# %%
# .. note:: Old code you may meet: ``torch.Tensor(array)`` and
#    ``torch.DoubleTensor(array)``. Whether they shared memory with the array
#    depended on its dtype: they share when the dtypes match and copy (and
#    cast) when they do not. The cell below proves both cases. Write
#    ``torch.from_numpy`` to share and ``torch.tensor`` to copy; both keep
#    the array's dtype.
a32 = np.zeros(3, dtype=np.float32)
a64 = np.zeros(3, dtype=np.float64)
legacy32 = torch.Tensor(a32)  # float32 array: shared
legacy64 = torch.Tensor(a64)  # float64 array: copied, cast to float32
double64 = torch.DoubleTensor(a64)  # float64 array: shared
assert np.shares_memory(a32, legacy32.numpy())
assert np.shares_memory(a64, double64.numpy())
assert legacy64.dtype == torch.float32
assert not np.shares_memory(a64, legacy64.numpy())
assert torch.from_numpy(a32).dtype == torch.tensor(a32).dtype == torch.float32

# %%
# Moving tensors to an accelerator
# --------------------------------
# ``.to(device)`` returns a copy on that device (or the tensor itself if it
# is already there); factory functions take ``device=``. Results live on the
# device of their inputs and ``.cpu()`` brings them back. On a CPU-only
# machine the same code runs unchanged.
host = torch.arange(6.0).view(2, 3)
on_device = host.to(device)
summed = on_device + torch.ones(2, 3, device=device)
print(f"host tensor on {host.device}, sum computed on {summed.device}")
back = summed.cpu()
assert summed.device.type == device.type and back.device.type == "cpu"
torch.testing.assert_close(back, host + 1)
assert host.to("cpu") is host  # no copy when nothing changes

# %%
# With an accelerator, the cell below also shows that an operation refuses
# to mix a CPU tensor that has dimensions with an accelerator tensor; a
# 0-dim CPU tensor is accepted, as a scalar. On a CPU-only machine it says
# so and skips.
if device.type != "cpu":
    scalar = torch.tensor(10.0)  # 0-dim, on the CPU: accepted
    scaled = on_device * scalar
    assert scaled.device == on_device.device
    torch.testing.assert_close(scaled.cpu(), host * 10)
    try:
        host + on_device
    except RuntimeError as err:
        print(f"raised RuntimeError: {err}")
    else:
        raise AssertionError("mixing devices should have failed")
else:
    print("No accelerator: every tensor in this lesson stayed on the CPU.")

# %%
# .. note:: Old code you may meet: ``x.cuda()`` and
#    ``x.type(torch.cuda.FloatTensor)`` hard-wired a CUDA (or ROCm) GPU and
#    mixed the element type with the device. Pick the device once and write
#    ``x.to(device)``; the dtype is separate: ``x.to(torch.float64)``.
#
# Next, :ref:`sphx_glr_lessons_basics_02_numpy_warmup.py` fits a small
# network with NumPy alone.
