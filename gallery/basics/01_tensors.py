"""
Tensors: the array at the heart of PyTorch
==========================================

A tensor is an n-dimensional array of numbers of one type, much like a NumPy
array, that can also live on an accelerator such as a GPU.

**You will learn** to create tensors, compute with them, index and reshape
them, combine tensors of different shapes by broadcasting, choose their
dtype, pass them to and from NumPy and move them to a device.

**You need first** Python and NumPy.
"""

# %%
# Setup
# -----
# One seed makes the random numbers below the same on every run. An
# *accelerator* is a chip that computes tensors faster than the CPU: an
# NVIDIA or AMD GPU (CUDA), an Apple GPU (MPS) or an Intel GPU (XPU). The
# ``device`` is the accelerator if one is present, else the CPU.
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
# ``torch.zeros``, ``torch.ones`` and ``torch.eye`` (the identity matrix)
# take a shape and fill it. ``torch.arange`` counts like Python's
# ``range()``, leaving the end out; ``torch.linspace`` spaces a number of
# points evenly, both ends included. ``torch.tensor`` copies a Python list
# and infers the dtype from it: whole numbers give ``int64``.
zeros = torch.zeros(2, 3)
ones = torch.ones(2, 3)
identity = torch.eye(3)
steps = torch.arange(0, 10, 2)
points = torch.linspace(0, 1, 5)
typed = torch.tensor([[1, 2], [3, 4]])
print(f"zeros:\n{zeros}\nones:\n{ones}\neye(3):\n{identity}")
print(f"arange: {steps.tolist()}, linspace: {points.tolist()}")
print(f"{typed}, dtype {typed.dtype}")
# sphinx_gallery_start_ignore
assert zeros.sum() == 0 and ones.sum() == 6 and identity.trace() == 3
assert steps.tolist() == [0, 2, 4, 6, 8] and points[-1] == 1
assert typed.dtype == torch.int64
# sphinx_gallery_end_ignore

# %%
# The output shows each tensor with its values; ``tolist()`` turns a tensor
# into plain Python lists.
#
# Random tensors and shapes
# -------------------------
# ``rand`` draws uniformly from :math:`[0, 1)`, ``randn`` from a standard
# normal and ``randint`` whole numbers. ``x.shape`` and ``x.size()`` return
# the same ``torch.Size``, a ``tuple`` subclass that unpacks like one;
# ``x.size(d)`` is the length of dimension ``d``.
u = torch.rand(2, 3)
g = torch.randn(2, 3)
print(f"rand:\n{u}\nrandn:\n{g}")
rows, cols = g.shape
print(f"shape={g.shape}, size(1)={g.size(1)}, numel={g.numel()}")
# sphinx_gallery_start_ignore
assert u.min() >= 0 and u.max() < 1
assert isinstance(g.shape, tuple) and g.shape == g.size() == (2, 3)
assert (rows, cols) == (2, 3) == (g.size(0), g.size(1))
assert g.numel() == rows * cols
# sphinx_gallery_end_ignore

# %%
# Arithmetic and in-place methods
# -------------------------------
# An addition can be written as an operator, ``a + b``, or as a function,
# ``torch.add(a, b)``; ``torch.equal`` tells whether two tensors hold
# exactly the same values. A method whose name ends in ``_`` changes its
# tensor *in place* and returns it: the values change, and the memory
# usually stays. ``data_ptr()`` gives the memory address of a
# tensor's first element, so for a tensor that stays alive, an unchanged
# address means the same memory; ``clone()`` copies a tensor into new memory.
a = torch.rand(2, 3)
b = torch.rand(2, 3)
before, address = b.clone(), b.data_ptr()
returned = b.add_(a)
print(f"add_ returned b itself: {returned is b}")
print(f"same memory: {b.data_ptr() == address}")
print(f"b now equals before + a: {torch.equal(b, before + a)}")
b += a  # in place too
print(f"after b += a, same memory: {b.data_ptr() == address}")
# sphinx_gallery_start_ignore
assert returned is b and b.data_ptr() == address
assert torch.equal(b, before + a + a)
# sphinx_gallery_end_ignore

# %%
# Products and reductions
# -----------------------
# ``*`` multiplies element by element; ``@`` is the matrix product used by
# network layers. A full reduction such as ``sum()`` returns a *0-dim*
# tensor: shape ``()``, no axis to index. ``.item()`` turns it into a Python
# number.
m1 = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
m2 = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
print(f"m1 * m2:\n{m1 * m2}\nm1 @ m2:\n{m1 @ m2}")
total = (m1 @ m2).sum()
print(f"sum: {total!r}, shape {tuple(total.shape)}, item() {total.item()}")
# sphinx_gallery_start_ignore
assert total.shape == () and total.item() == 10.0
# sphinx_gallery_end_ignore

# %%
# Indexing and slicing
# --------------------
# Indices start at zero and slices follow Python's rules, with one exception: a
# slice's step must be positive (``t[::-1]`` is an error; "Going deeper" shows
# it and ``torch.flip``, which reverses). A slice is a *view*: it shares memory
# with its tensor, so writing through it changes the original. An integer index
# removes its dimension; a slice keeps it.
t = torch.arange(20).reshape(4, 5)
print(t)
print(f"t[0, 3] = {t[0, 3].item()}, column 2: {t[:, 2].tolist()}")
t[:, 0].fill_(-1)  # writes into t
print(f"after t[:, 0].fill_(-1), column 0 of t: {t[:, 0].tolist()}")
# sphinx_gallery_start_ignore
assert t[:, 0].tolist() == [-1, -1, -1, -1]
# sphinx_gallery_end_ignore

# %%
# A boolean mask or a list of indices picks entries; read, it makes a copy,
# so changing the result leaves ``t`` alone. Assigning through a mask
# changes just the entries it selects.
t[t < 0] = 0
odd = t[t % 2 == 1]
picked = t[[0, 2]]
print(f"odd entries: {odd.tolist()}\nrows 0 and 2: {picked.tolist()}")
picked[0, 1], odd[0] = 100, 100  # both are copies of t[0, 1] ...
print(f"t[0, 1] is still {t[0, 1].item()}")
# sphinx_gallery_start_ignore
assert odd.tolist() == [100, 3, 7, 9, 11, 13, 17, 19]
assert t[0, 1] == 1 and t[:, 0].tolist() == [0, 0, 0, 0]
# sphinx_gallery_end_ignore

# %%
# Changing the shape: ``view`` and ``reshape``
# ---------------------------------------------
# ``view`` gives the same memory a new shape, without copying. What makes that
# possible are *strides*: for each dimension, how many elements to skip in
# memory to reach the next index; ``x.stride()`` returns them. ``grid`` below,
# a ``(3, 4)`` tensor stored row by row, has strides ``(4, 1)``: one step down
# a row skips 4 elements, one step along a row skips 1. Its transpose ``.T``
# just swaps the strides, so reading it row by row jumps through memory (0, 4,
# 8, 1, ...): it is not *contiguous* ("Going deeper" draws both). One size
# given to ``view`` may be ``-1``, meaning "whatever makes the count match".
# Flattening ``grid.T`` would need a single stride that walks 0, 4, 8, 1, ...,
# so ``view`` refuses; ``reshape`` returns a view when the strides allow and a
# copy otherwise (the docs warn not to rely on which). Writing into the result
# tells the two apart.
grid = torch.arange(12).view(3, 4)  # values = positions in memory
print(f"grid.stride() = {grid.stride()}, grid.T.stride() = {grid.T.stride()}")
print(f"grid.view(2, -1) has shape {tuple(grid.view(2, -1).shape)}")
try:
    grid.T.view(12)
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("view(12) should have failed")
# sphinx_gallery_end_ignore
flat = grid.T.reshape(12)
print(f"grid.T.reshape(12): {flat.tolist()}")
flat[1] = 100
print(f"after flat[1] = 100, grid[1, 0] is still {grid[1, 0].item()}: a copy")
# sphinx_gallery_start_ignore
assert grid.view(2, -1).shape == (2, 6) and not grid.T.is_contiguous()
assert flat[:4].tolist() == [0, 100, 8, 1] and grid[1, 0] == 4
assert flat.untyped_storage().data_ptr() != grid.untyped_storage().data_ptr()
# sphinx_gallery_end_ignore

# %%
# Adding, removing and reordering dimensions
# ------------------------------------------
# Three more methods change the shape and return views, like ``view``.
# ``unsqueeze(d)`` inserts a dimension of length 1 at position ``d``, as
# indexing with ``None`` does; ``squeeze(d)`` removes dimension ``d`` if its
# length is 1. Without an argument, ``squeeze()`` removes *every* length-1
# dimension, which can take a batch of one sample's batch dimension too.
# ``permute`` reorders all dimensions: ``permute(2, 0, 1)`` makes the old
# dimension 2 the first. A photo stored as (height, width, colour) becomes
# the (colour, height, width) layout that PyTorch's image layers expect,
# with the strides reordered and no copy, so the result is not contiguous.
v = torch.arange(3.0)  # shape (3,)
batch = torch.zeros(1, 3, 1)
photo = torch.rand(32, 48, 3)  # height, width, colour
chw = photo.permute(2, 0, 1)
print(v.unsqueeze(0).shape, v.unsqueeze(1).shape, v[:, None].shape)
print(batch.squeeze(2).shape, batch.squeeze().shape)
print(f"{chw.shape}, strides {chw.stride()}, contiguous {chw.is_contiguous()}")
# sphinx_gallery_start_ignore
assert v.unsqueeze(0).shape == (1, 3) and v.unsqueeze(1).shape == (3, 1)
assert v[:, None].shape == (3, 1)
assert batch.squeeze(2).shape == (1, 3) and batch.squeeze().shape == (3,)
assert chw.shape == (3, 32, 48) and chw.stride() == (1, 144, 3)
assert not chw.is_contiguous() and chw.data_ptr() == photo.data_ptr()
assert torch.equal(chw[1], photo[:, :, 1])
# sphinx_gallery_end_ignore

# %%
# Broadcasting
# ------------
# An element-by-element operation on two tensors of different shapes
# *broadcasts* them to a common shape, by NumPy's rules:
#
# 1. Line the shapes up from the right; where one has fewer dimensions,
#    pad it on the left with 1s.
# 2. In each position the two lengths must be equal, or one of them 1.
# 3. A length-1 dimension is repeated to match the other, without copying.
#
# ``torch.broadcast_shapes`` applies the rules to shapes alone. The table
# below is its answer for four pairs: a row added to every row, a column
# added to every column, a column and a row making a full table, and a
# pitfall.
pairs = [((3, 4), (4,)), ((3, 4), (3, 1)), ((3, 1), (1, 4)), ((4,), (4, 1))]
for left, right in pairs:
    result = tuple(torch.broadcast_shapes(left, right))
    print(f"{left} with {right} -> {result}")
try:
    torch.ones(3, 4) + torch.ones(3)
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("(3, 4) + (3,) should not broadcast")
assert torch.broadcast_shapes((3, 1), (1, 4)) == (3, 4)
assert torch.broadcast_shapes((4,), (4, 1)) == (4, 4)
# sphinx_gallery_end_ignore

# %%
# ``(3, 4)`` with ``(3,)`` fails: lined up from the right, 4 meets 3. To add
# one number per *row*, give it the shape ``(3, 1)``. ``mean(dim=1)`` averages
# along dimension 1, giving one mean per row, and ``keepdim=True`` keeps that
# dimension, with length 1, so subtracting each row's mean is one line. The
# last row of the table is the classic pitfall: a column of 4 predictions ``(4,
# 1)`` minus 4 targets ``(4,)`` gives a ``(4, 4)`` table of every prediction
# minus every target, without an error, and its mean is not the error you
# meant. Make the shapes agree first, with ``squeeze(1)`` or ``unsqueeze(1)``.
rows = torch.tensor([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
print(rows - rows.mean(dim=1, keepdim=True))  # (2, 3) - (2, 1)
prediction = torch.tensor([[1.0], [2.0], [3.0], [4.0]])  # (4, 1)
target = torch.tensor([1.0, 2.0, 3.0, 4.0])  # (4,): a perfect fit
diff = prediction - target
print(f"shape {tuple(diff.shape)}, mean squared error {diff.pow(2).mean()}")
print(f"after squeeze(1): {(prediction.squeeze(1) - target).pow(2).mean()}")
# sphinx_gallery_start_ignore
assert (rows - rows.mean(dim=1, keepdim=True)).sum(dim=1).abs().max() < 1e-5
assert diff.shape == (4, 4) and diff.pow(2).mean() > 0
assert (prediction.squeeze(1) - target).abs().max() == 0
# sphinx_gallery_end_ignore

# %%
# Data types
# ----------
# With the default settings, Python floats become ``float32`` and Python
# ints ``int64``; ``/`` gives floats, ``//`` keeps integers. ``.to(dtype)``
# converts; ``.double()`` and ``.float()`` are shorthands. The last line
# but one mixes two dtypes in one operation.
i32 = torch.tensor([7, 8], dtype=torch.int32)
i64 = torch.tensor([7, 8])
f32 = torch.tensor([0.5, 1.5])
print(f"int32 / 2 -> {(i32 / 2).dtype}, int32 // 2 -> {(i32 // 2).dtype}")
print(f"int64 + float32 -> {(i64 + f32).dtype}")
print(f"float32 to float64: {f32.to(torch.float64).dtype}")
# sphinx_gallery_start_ignore
assert f32.dtype == torch.float32 and i64.dtype == torch.int64
assert (i32 / 2).dtype == torch.float32 and (i32 // 2).dtype == torch.int32
assert (i32 + i64).dtype == torch.int64 and (i64 + f32).dtype == f32.dtype
assert (i32 + 5).dtype == torch.int32 and (i32 + 2.5).dtype == torch.float32
assert f32.to(torch.float64).dtype == torch.float64 == f32.double().dtype
# sphinx_gallery_end_ignore

# %%
# When dtypes mix, the higher *category* wins (bool < integer < float <
# complex): ``int64 + float32`` gives ``float32``, even though ``float32``
# cannot hold every ``int64`` exactly. NumPy picks ``float64`` there;
# "Going deeper" below gives the rules within a category and compares the
# two libraries.
#
# The NumPy bridge
# ----------------
# ``tensor.numpy()`` and ``torch.from_numpy(array)`` do not copy: tensor and
# array share the memory of a CPU tensor, so a change through either side
# shows on the other. ``torch.tensor(array)`` always copies. All three keep
# the dtype: NumPy's default ``float64`` stays ``float64``.
import numpy as np

ones_t = torch.ones(4)
ones_a = ones_t.numpy()
ones_t.add_(1)
arr = np.zeros(4)
from_arr = torch.from_numpy(arr)
copied = torch.tensor(arr)
np.add(arr, 3, out=arr)
print(f"array after tensor.add_(1): {ones_a}")
print(f"tensor after np.add(arr, 3): {from_arr}")
print(f"the copy made before: {copied}")
# sphinx_gallery_start_ignore
assert np.shares_memory(ones_a, ones_t.numpy()) and (ones_a == 2).all()
assert from_arr.dtype == torch.float64 and torch.all(from_arr == 3)
assert torch.all(copied == 0) and copied.dtype == torch.float64
# sphinx_gallery_end_ignore

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
back = summed.cpu()
print(f"host tensor on {host.device}, sum computed on {summed.device}")
print(f"back on the CPU:\n{back}")
# sphinx_gallery_start_ignore
assert summed.device.type == device.type and back.device.type == "cpu"
torch.testing.assert_close(back, host + 1)
assert host.to("cpu") is host  # no copy when nothing changes
# sphinx_gallery_end_ignore

# %%
# Going deeper
# ------------
# Optional on a first read: uninitialised memory and counting values, two
# errors worth recognising, how strides work in detail, the full rules of dtype
# promotion and how NumPy differs, mixing devices, tracked tensors and NumPy,
# and old constructors at work.
#
# Uninitialised memory and counting values
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``torch.empty`` only reserves memory: its values are whatever bytes were
# there, so we print its shape, never its values, and fill it before use.
# ``bincount`` counts how often each value from 0 up to the largest
# appears: for 1000 rolls of a die, 0 never comes up and 1 to 6 do.
e = torch.empty(2, 3)
print(f"empty: shape={tuple(e.shape)}, dtype={e.dtype}")
e.fill_(0.5)
print(f"after fill_(0.5):\n{e}")
dice = torch.randint(1, 7, (1000,))  # the upper bound 7 is left out
print(f"first dice: {dice[:10].tolist()}")
print(f"how often 0, 1, ..., 6 came up: {dice.bincount().tolist()}")
# sphinx_gallery_start_ignore
assert torch.all(e == 0.5) and dice.min() == 1 and dice.max() == 6
assert dice.bincount()[0] == 0 and dice.bincount()[1:].min() > 0
# sphinx_gallery_end_ignore

# %%
# Two errors worth recognising
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A 0-dim tensor, such as the ``total`` of a full reduction, has no axis to
# index, and a slice with a negative step, which reverses a NumPy array, is
# refused by PyTorch; ``torch.flip`` reverses instead.
try:
    total[0]
except IndexError as err:
    print(f"raised IndexError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("indexing a 0-dim tensor should have failed")
# sphinx_gallery_end_ignore
try:
    t[::-1]
except ValueError as err:
    print(f"raised ValueError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("a negative step should have failed")
# sphinx_gallery_end_ignore
print(f"row 0 reversed: {torch.flip(t[0], dims=[0]).tolist()}")

# %%
# Strides and the storage behind a tensor
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The figure shows where in memory each element of ``grid`` and of its
# transpose ``grid.T`` sits, with their shapes and strides (PyTorch counts
# strides in elements, NumPy in bytes).
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 2, figsize=(7, 3.6), layout="constrained")
for ax, (name, view) in zip(axes, [("grid", grid), ("grid.T", grid.T)]):
    ax.imshow(view.numpy(), cmap="Blues", vmin=-4, vmax=14)
    for r in range(view.shape[0]):
        for c in range(view.shape[1]):
            ax.text(c, r, int(view[r, c]), ha="center", va="center")
    ax.set_xticks(range(view.shape[1]))
    ax.set_yticks(range(view.shape[0]))
    ax.set_title(f"{name}\nshape {tuple(view.shape)}, strides {view.stride()}")
    ax.set_xlabel("column index")
    ax.set_ylabel("row index")
fig.suptitle("Position in memory of each element")
plt.show()

# %%
# A tensor is a view onto a flat block of memory, its *storage*: a
# *storage offset* (the element where it starts), a shape and strides. A
# slice that starts inside the block has a non-zero offset. ``t_()``
# transposes in place: it swaps the shape and the strides and leaves the
# elements in memory where they were, which ``as_strided`` (an expert tool
# that reads a storage with any shape and strides you give it) shows.
t = torch.arange(20).reshape(4, 5)
corner = t[1:, 2:]
print(
    f"t[1:, 2:]: offset {corner.storage_offset()}, strides {corner.stride()}"
)
m = torch.arange(6).view(2, 3)
print(f"before t_(): shape {tuple(m.shape)}, strides {m.stride()}")
m.t_()
print(f"after  t_(): shape {tuple(m.shape)}, strides {m.stride()}")
print(f"memory read in order: {m.as_strided((6,), (1,)).tolist()}")
# sphinx_gallery_start_ignore
assert corner.storage_offset() == 7 and corner.stride() == (5, 1)
assert m.shape == (3, 2) and m.stride() == (1, 3)
assert m.as_strided((6,), (1,)).tolist() == list(range(6))
# sphinx_gallery_end_ignore

# %%
# Whether ``view`` works on a non-contiguous tensor depends on its strides,
# not on contiguity. ``grid.T`` has strides ``(1, 4)``. Splitting its first
# dimension, of length 4 and stride 1, into ``(2, 2)`` gives strides ``(2,
# 1)`` for the two new dimensions (2 elements per outer step, 1 per inner
# step), and the last keeps 4: ``(2, 1, 4)``. Writing through that view
# changes ``grid``.
split = grid.T.view(2, 2, 3)
print(f"grid.T.view(2, 2, 3): strides {split.stride()}")
split[0, 0, 0] = 100
print(f"grid[0, 0] is now {grid[0, 0].item()}")
# sphinx_gallery_start_ignore
assert split.stride() == (2, 1, 4) and grid[0, 0] == 100
# sphinx_gallery_end_ignore

# %%
# Promotion in full
# ~~~~~~~~~~~~~~~~~
# Between two tensors of the same category that each have at least one
# dimension, the result is a dtype that can hold both operands' values: the
# wider one (``int32 + int64`` gives ``int64``), or a third (``uint8`` with
# ``int8`` gives ``int16``). A Python number, or a 0-dim tensor, of the same
# category as a tensor that has dimensions does not widen it: ``int32 + 5``
# stays ``int32``. The unsigned types ``uint16``, ``uint32`` and ``uint64`` are
# the exception: they have little support, and mixing them with another integer
# dtype or bool raises an error.
u8 = torch.tensor([200], dtype=torch.uint8)
i8 = torch.tensor([-1], dtype=torch.int8)
print(f"uint8 + int8 -> {(u8 + i8).dtype}, value {(u8 + i8).item()}")
print(f"int32 + 0-dim int64 tensor -> {(i32 + torch.tensor(5)).dtype}")
try:
    torch.promote_types(torch.uint32, torch.int32)
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("uint32 with int32 should not promote")
assert (u8 + i8).dtype == torch.int16 and (u8 + i8).item() == 199
assert (i32 + torch.tensor(5)).dtype == torch.int32
# sphinx_gallery_end_ignore

# %%
# NumPy 2 follows the same idea with different outcomes. For the integer
# pairs below the two agree (``int32 + int64`` and ``int32 + 5``). With an
# integer array and a float one, NumPy picks a float that holds every value
# of the integer type, ``float64`` for ``int32`` or ``int64`` with
# ``float32`` (``int16`` fits in ``float32``), where PyTorch stays at
# ``float32``; and a 0-dim NumPy array or a NumPy scalar widens the result
# where a 0-dim tensor does not. Code moved between the two may change
# dtype.
a32 = np.array([7, 8], dtype=np.int32)
a64 = np.array([7, 8])
cases = {
    "int32 + int64": (i32 + i64, a32 + a64),
    "int32 + 5": (i32 + 5, a32 + 5),
    "int32 + 2.5": (i32 + 2.5, a32 + 2.5),
    "int32 / 2": (i32 / 2, a32 / 2),
    "int64 + float32": (i64 + f32, a64 + f32.numpy()),
    "int16 + float32": (i64.short() + f32, a64.astype(np.int16) + f32.numpy()),
    "int32 + 0-dim int64": (i32 + torch.tensor(5), a32 + np.array(5)),
}
for name, (in_torch, in_numpy) in cases.items():
    print(f"{name:>20}: torch {in_torch.dtype}, NumPy {in_numpy.dtype}")
# sphinx_gallery_start_ignore
assert (a32 + a64).dtype == np.int64 and (a32 + 5).dtype == np.int32
assert (a32 + 2.5).dtype == (a32 / 2).dtype == np.float64
assert (a64 + f32.numpy()).dtype == np.float64
assert (a64.astype(np.int16) + f32.numpy()).dtype == np.float32
assert (i64.short() + f32).dtype == torch.float32
assert (a32 + np.array(5)).dtype == (a32 + np.int64(5)).dtype == np.int64
# sphinx_gallery_end_ignore

# %%
# Mixing devices
# ~~~~~~~~~~~~~~
# With an accelerator, the cell below shows that an operation refuses to mix
# a CPU tensor that has dimensions with an accelerator tensor, while a 0-dim
# CPU tensor is accepted, as a scalar. On a CPU-only machine it says so and
# skips.
if device.type != "cpu":
    scaled = on_device * torch.tensor(10.0)  # 0-dim, on the CPU: accepted
    print(f"0-dim CPU tensor times {device.type} tensor: on {scaled.device}")
    try:
        host + on_device
    except RuntimeError as err:
        print(f"raised RuntimeError: {err}")
    # sphinx_gallery_start_ignore
    else:
        raise AssertionError("mixing devices should have failed")
    assert scaled.device == on_device.device
    torch.testing.assert_close(scaled.cpu(), host * 10)
    # sphinx_gallery_end_ignore
else:
    print("No accelerator: every tensor in this lesson stayed on the CPU.")

# %%
# Tensors that autograd tracks
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A tensor that autograd tracks for gradients (see
# :ref:`sphx_glr_lessons_basics_04_autograd.py`) refuses ``numpy()``; detach
# it first.
tracked = torch.ones(3, requires_grad=True)
try:
    tracked.numpy()
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("numpy() should refuse a tensor that requires grad")
# sphinx_gallery_end_ignore
print(f"detached: {tracked.detach().numpy()}")

# %%
# Old constructors at work
# ~~~~~~~~~~~~~~~~~~~~~~~~
# ``torch.Tensor(array)`` always makes the default dtype, ``float32``. It
# shares memory with a ``float32`` array but copies (and casts) a
# ``float64`` one; ``torch.DoubleTensor`` shares a ``float64`` array. And
# ``torch.range`` includes its end and warns that it is deprecated.
import warnings

a32 = np.zeros(3, dtype=np.float32)
a64 = np.zeros(3, dtype=np.float64)
for name, made, source in [
    ("Tensor(float32 array)", torch.Tensor(a32), a32),
    ("Tensor(float64 array)", torch.Tensor(a64), a64),
    ("DoubleTensor(float64 array)", torch.DoubleTensor(a64), a64),
]:
    shared = np.shares_memory(made.numpy(), source)
    print(f"{name:>27}: {made.dtype}, shares memory: {shared}")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old = torch.range(0, 8, 2)
print(f"torch.range(0, 8, 2): {old.tolist()}")
print(f"warned {caught[0].category.__name__}: {caught[0].message}")
# sphinx_gallery_start_ignore
assert np.shares_memory(a32, torch.Tensor(a32).numpy())
assert np.shares_memory(a64, torch.DoubleTensor(a64).numpy())
assert torch.Tensor(a64).dtype == torch.float32
assert not np.shares_memory(a64, torch.Tensor(a64).numpy())
assert old.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
assert torch.equal(torch.arange(0.0, 10.0, 2.0), old)
assert torch.arange(0, 10, 2).dtype == torch.int64
assert [w.category for w in caught] == [UserWarning]
assert "deprecated" in str(caught[0].message)
# sphinx_gallery_end_ignore

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``torch.Tensor(5, 3)`` (uninitialised) and ``torch.Tensor([5, 3])``
#      (from data): one name, two jobs, always the default dtype
#      (``float32`` unless changed), and for arrays sharing memory only
#      sometimes (see "Going deeper"). Write
#      ``torch.empty(5, 3)``, ``torch.tensor(data)`` to copy, or
#      ``torch.from_numpy(array)`` to share; the last two keep the dtype.
#    - ``torch.range(0, 8, 2)`` included its end, unlike Python's
#      ``range()``, returned floats, and is deprecated. Write
#      ``torch.arange(0.0, 10.0, 2.0)``, which leaves the end out; with
#      integer arguments ``arange`` returns ``int64``.
#    - ``total.data[0]`` (often ``loss.data[0]``, for the number training
#      minimises) read one number when reductions returned tensors of shape
#      ``(1,)``. They return 0-dim tensors now, which cannot be indexed;
#      write ``total.item()``.
#    - ``x.cuda()`` and ``x.type(torch.cuda.FloatTensor)`` hard-wired a CUDA
#      (or ROCm) GPU and mixed the element type with the device. Pick the
#      device once and write ``x.to(device)``; the dtype is separate:
#      ``x.to(torch.float64)``.

# %%
# Takeaways
# ---------
# - A tensor is a typed n-dimensional array; ``torch.zeros``,
#   ``torch.arange``, ``torch.rand``, ``torch.tensor`` and friends make one.
# - Methods ending in ``_`` change a tensor in place; slices and ``view``
#   share memory with the original, masks and lists of indices copy.
# - ``view`` needs compatible strides; ``reshape`` copies when it must;
#   ``unsqueeze``, ``squeeze`` and ``permute`` add, remove and reorder
#   dimensions.
# - Broadcasting lines shapes up from the right and stretches length-1
#   dimensions: check your shapes, since ``(n, 1)`` with ``(n,)`` silently
#   gives ``(n, n)``.
# - ``numpy()`` and ``torch.from_numpy`` share memory on the CPU;
#   ``torch.tensor`` copies. Pick the device once and move tensors with
#   ``.to(device)``.
#
# Next, :ref:`sphx_glr_lessons_basics_02_numpy_warmup.py` fits a small
# network with NumPy alone.


# %%
# Exercises
# ---------
# Three short exercises on the core of this lesson. Each cell ends with a
# check: run it after your attempt and it says whether you are right.
# Solutions are at the end.
#
# **Exercise 1: predict four shapes.** Let
# ``t = torch.arange(24).reshape(2, 3, 4)``. Without running anything, work
# out the shapes of ``t[1]``, ``t[:, 0, 1:3]``, ``t.view(4, -1)`` and
# ``t[0, :, :1] - t[1, 0]``, and write them as a tuple of four tuples, such
# as ``((1, 2), (3,), (4, 5), (6, 7))``. If the check disagrees, print the
# shapes to see why.


def check_exercise_1(answer):
    """Exercise 1's check: run it on your answer."""
    if answer is ...:
        print("Exercise 1 not attempted yet: replace ... with four shapes")
        return
    t = torch.arange(24).reshape(2, 3, 4)
    names = ["t[1]", "t[:, 0, 1:3]", "t.view(4, -1)", "t[0, :, :1] - t[1, 0]"]
    shapes = [
        t[1].shape,
        t[:, 0, 1:3].shape,
        t.view(4, -1).shape,
        (t[0, :, :1] - t[1, 0]).shape,
    ]
    if not isinstance(answer, (tuple, list)) or len(answer) != 4:
        raise AssertionError(
            f"answer with a tuple of four shapes, not {answer!r}"
        )
    for name, shape, guess in zip(names, shapes, answer):
        if not isinstance(guess, (tuple, list)) or not all(
            isinstance(n, int) for n in guess
        ):
            raise AssertionError(
                f"write the shape of {name} as a tuple of whole numbers, "
                f"not {guess!r}"
            )
        if tuple(guess) != tuple(shape):
            raise AssertionError(
                f"{name} does not have shape {tuple(guess)}: "
                f"print({name}.shape) and work out why"
            )
    print("Exercise 1: correct")


# %%
# Your attempt at exercise 1, then its check:


answer_1 = ...  # ((...), (...), (...), (...))
check_exercise_1(answer_1)

# %%
# **Exercise 2: clear the negatives in place.** Write ``zero_negatives_(x)``,
# which sets every negative entry of the float tensor ``x`` to zero *in
# place* and returns ``x`` itself, as methods ending in ``_`` do. It must
# work for any shape and float dtype, and for a view such as ``m.T``
# (``m`` must then see the zeros). A boolean mask does it in one line.


def check_exercise_2(fn):
    """Exercise 2's check: run it on your attempt."""
    gen = torch.Generator().manual_seed(2)
    m = torch.randn(2, 4, 5, dtype=torch.float64, generator=gen)
    cases = [
        ("a 2-D float32 tensor", torch.randn(3, 4, generator=gen)),
        ("a 1-D float64 tensor", torch.randn(7, generator=gen).double()),
        (
            "a tensor with tiny and large entries",
            torch.tensor([[-1e-30, 2.5e6, 0.0], [3.5, -7.0, -0.25]]),
        ),
        ("a 3-D tensor", torch.randn(2, 3, 2, generator=gen)),
        ("a transpose m.T, which is not contiguous", m[0].T),
        ("a slice m[1:, ::2]", m[1][1:, ::2]),
    ]
    for i, (name, x) in enumerate(cases):
        before = x.clone()
        address, dtype = x.data_ptr(), x.dtype
        try:
            out = fn(x)
        except Exception as err:
            raise AssertionError(
                f"on {name}, zero_negatives_ failed with "
                f"{type(err).__name__}: {err}"
            ) from err
        if out is ... and i == 0:
            print("Exercise 2 not attempted yet: write zero_negatives_")
            return
        if x.data_ptr() != address or x.dtype != dtype:
            raise AssertionError(
                f"on {name}, x now has new memory or a new dtype: change "
                "its values in place"
            )
        if (before < 0).any() and torch.equal(x, before):
            raise AssertionError(
                f"on {name}, x itself is unchanged: change x in place "
                "rather than make a new tensor"
                + (
                    " (reshape, flatten and contiguous make a copy when the "
                    "strides need one)"
                    if i >= 4
                    else ""
                )
            )
        kept = before >= 0
        if not torch.equal(x[kept], before[kept]):
            raise AssertionError(
                f"on {name}, entries that were not negative changed: they "
                "should stay as they were"
            )
        if not (x[~kept] == 0).all():
            raise AssertionError(
                f"on {name}, some negative entries did not become 0"
            )
        if out is not x:
            raise AssertionError(
                f"on {name}, return x itself, as in-place methods do, not "
                f"{'None' if out is None else 'a new ' + type(out).__name__}"
            )
    print("Exercise 2: correct")


# %%
# Your attempt at exercise 2, then its check:


def zero_negatives_(x):
    return ...  # replace ... with your code


check_exercise_2(zero_negatives_)

# %%
# **Exercise 3: a NumPy copy that stays put.** Write ``to_numpy_copy(t)``,
# which returns a NumPy array with the values, the shape and the dtype of
# the CPU tensor ``t`` (any dtype NumPy has), but with memory of its own:
# changing ``t`` afterwards must leave the array alone.


def check_exercise_3(fn):
    """Exercise 3's check: run it on your attempt."""
    gen = torch.Generator().manual_seed(3)
    cases = [
        ("float32", torch.randn(2, 3, generator=gen)),
        ("float64", torch.randn(4, generator=gen, dtype=torch.float64)),
        ("int64 beyond 2**24", torch.tensor([2**40 + 1, -(2**30) - 3, 7])),
        ("a transposed float32", torch.randn(3, 2, generator=gen).T),
    ]
    for i, (name, t) in enumerate(cases):
        values = t.clone()
        try:
            arr = fn(t)
        except Exception as err:
            raise AssertionError(
                f"on a {name} tensor, to_numpy_copy failed with "
                f"{type(err).__name__}: {err}"
            ) from err
        if arr is ... and i == 0:
            print("Exercise 3 not attempted yet: write to_numpy_copy")
            return
        if not isinstance(arr, np.ndarray):
            raise AssertionError(
                f"expected a NumPy array, got {type(arr).__name__}"
            )
        want = values.numpy()
        if arr.dtype != want.dtype:
            raise AssertionError(
                f"on a {name} tensor the array's dtype is {arr.dtype}: keep "
                f"the tensor's dtype, {want.dtype}"
            )
        if arr.shape != want.shape:
            raise AssertionError(
                f"on a {name} tensor the array has shape {arr.shape}: keep "
                f"the tensor's shape, {want.shape}"
            )
        if not np.array_equal(arr, want):
            raise AssertionError(f"on a {name} tensor, the values differ")
        t.add_(1)
        if not np.array_equal(arr, want):
            raise AssertionError(
                "changing t changed the array: it shares the tensor's memory"
            )
    print("Exercise 3: correct")


# %%
# Your attempt at exercise 3, then its check:


def to_numpy_copy(t):
    return ...  # replace ... with your code


check_exercise_3(to_numpy_copy)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.

# %%

# Solution 1: predict four shapes
# An integer index removes its dimension; a slice keeps it, however short;
# view(4, -1) puts the 24 elements in 4 rows of 24 / 4 = 6; (3, 1) minus
# (4,) broadcasts: lined up from the right, (3, 1) with (1, 4) gives (3, 4).
answer_1 = ((3, 4), (2, 2), (4, 6), (3, 4))
check_exercise_1(answer_1)

# %%


# Solution 2: clear the negatives in place
def zero_negatives_(x):
    x[x < 0] = 0  # assigning through a mask writes into x, view or not
    return x


check_exercise_2(zero_negatives_)

# %%


# Solution 3: a NumPy copy that stays put
def to_numpy_copy(t):
    return t.numpy().copy()  # numpy() shares memory; copy() does not


check_exercise_3(to_numpy_copy)
