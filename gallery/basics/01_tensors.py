"""
Tensors: the array at the heart of PyTorch
==========================================

A tensor is an n-dimensional array of numbers of one type, much like a NumPy
array, that can also live on a GPU. This lesson makes tensors in several ways,
does arithmetic on them, cuts them up, changes their shape and type, passes
them to and from NumPy without copying, and moves them to a GPU when one is
present.

.. tags:: beginner, tensors, numpy
"""

# %%
# Setup
# -----
# One seed for the whole lesson makes the "random" numbers below the same on
# every run. The ``device`` line picks the GPU when there is one; the last
# section uses it.
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")

# %%
# Creating tensors
# ----------------
# There are three kinds of constructor. ``torch.empty`` only reserves
# memory: the values are whatever bytes were there before, so they differ from
# run to run and must be overwritten before use. That is why we print its shape
# and dtype but never its values.
e = torch.empty(2, 3)
print(f"empty: shape={tuple(e.shape)}, dtype={e.dtype}")
e.fill_(0.5)  # now every entry is defined
assert torch.all(e == 0.5)

# %%
# The second kind fills the memory with known values: constants, ranges, an
# identity matrix, or numbers you type in (``torch.tensor`` copies a Python
# list, and infers the dtype from it).
zeros = torch.zeros(2, 3)
sevens = torch.full((2, 3), 7.0)
steps = torch.arange(0, 10, 2)  # like range(): the end is left out
grid = torch.linspace(0, 1, 5)  # 5 points, both ends included
eye = torch.eye(3)
typed = torch.tensor([[1, 2], [3, 4]])
for name, value in [
    ("zeros", zeros),
    ("full", sevens),
    ("arange", steps),
    ("linspace", grid),
    ("eye", eye),
    ("tensor", typed),
]:
    print(f"{name}:\n{value}")
assert zeros.sum() == 0 and sevens.sum() == 42
assert steps.tolist() == [0, 2, 4, 6, 8] and grid[-1] == 1
assert eye.trace() == 3 and eye.sum() == 3 and typed.dtype == torch.int64

# %%
# The third kind draws random numbers: ``rand`` is uniform on :math:`[0, 1)`,
# ``randn`` is standard normal and ``randint`` gives whole numbers. The
# ``*_like`` forms copy the shape, dtype and device of an existing tensor.
u = torch.rand(2, 3)
g = torch.randn(2, 3)
dice = torch.randint(1, 7, (10,))  # the upper bound 7 is left out
print(f"rand:\n{u}\nrandn:\n{g}\nrandint: {dice.tolist()}")
assert u.min() >= 0 and u.max() < 1
assert dice.min() >= 1 and dice.max() <= 6
assert torch.zeros_like(g).shape == g.shape

# %%
# .. note:: Old code you may meet: ``torch.Tensor(5, 3)`` and
#    ``torch.FloatTensor(5, 3)`` made an *uninitialised* tensor, while
#    ``torch.Tensor([5, 3])`` made a filled one: the same name did two jobs.
#    Today ``torch.empty(5, 3)`` says "uninitialised" and ``torch.tensor(data)``
#    says "from data", so the intent is visible in the code.
#
# Shape and size
# --------------
# ``x.shape`` and ``x.size()`` return the same ``torch.Size``, a subclass of
# ``tuple``: it unpacks and compares like one. ``x.size(d)`` (or
# ``x.shape[d]``) is the length of one dimension.
x = torch.rand(4, 3)
rows, cols = x.shape
print(
    f"shape={x.shape}, size(1)={x.size(1)}, ndim={x.ndim}, numel={x.numel()}"
)
assert x.shape == x.size() == (4, 3)
assert (rows, cols) == (4, 3) and x.numel() == rows * cols

# %%
# Arithmetic, three ways and in place
# -----------------------------------
# An addition can be written with an operator, with a function, or with a
# function that writes into a tensor you allocated beforehand (``out=``). The
# last form saves an allocation inside hot loops. All three give the same bits.
a = torch.rand(2, 3)
b = torch.rand(2, 3)
by_operator = a + b
by_function = torch.add(a, b)
result = torch.empty(2, 3)
torch.add(a, b, out=result)
print(f"a + b:\n{by_operator}")
assert torch.equal(by_operator, by_function) and torch.equal(
    by_operator, result
)

# %%
# A method whose name ends in an underscore changes its tensor *in place*
# and returns that same tensor: ``add_``, ``mul_``, ``zero_``, ``copy_``,
# ``t_`` (transpose) and many more. The tensor keeps its memory; only the
# values change. ``b += a`` is in place too.
before = b.clone()
address = b.data_ptr()
returned = b.add_(a)
assert returned is b and b.data_ptr() == address
torch.testing.assert_close(b, before + a)
b += a  # also in place: same memory
assert b.data_ptr() == address
b.mul_(0).add_(1)  # in-place calls chain
assert torch.all(b == 1)

# %%
# ``*`` multiplies element by element; ``@`` (or ``torch.mm``) is the
# matrix product we will use for network layers. Reductions such as ``sum``
# give a one-element tensor, and ``.item()`` turns that into a Python number.
m1 = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
m2 = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
print(f"m1 * m2 (element by element):\n{m1 * m2}")
print(f"m1 @ m2 (matrix product):\n{m1 @ m2}")
total = (m1 @ m2).sum().item()
print(f"sum of the product: {total:.1f}  ({type(total).__name__})")
assert torch.equal(m1 @ m2, torch.mm(m1, m2)) and total == 10.0

# %%
# Indexing and slicing
# --------------------
# Indices start at zero and slices follow Python's rules (``start:stop:step``,
# the stop excluded, negative numbers count from the end). A slice is a
# *view*: it shares memory with the tensor it came from, so writing through it
# changes the original.
t = torch.arange(20).reshape(4, 5)  # reshape is explained below
print(t)
print(f"t[0, 3] = {t[0, 3].item()}, last row = {t[-1].tolist()}")
print(f"column 2 = {t[:, 2].tolist()}, block = {t[1:3, 3:5].tolist()}")
assert t[0, 3] == 3 and t[:, 2].tolist() == [2, 7, 12, 17]

column = t[:, 0]
column.fill_(-1)  # writes into t
assert t[:, 0].tolist() == [-1, -1, -1, -1]

# %%
# A boolean tensor selects the entries where it is ``True``; assigning to
# such a selection changes just those entries. A list of indices picks whole
# rows. Both of these make copies when read, unlike slices.
t[t < 0] = 0  # replace the -1s with 0
odd = t % 2 == 1
print(f"odd entries: {t[odd].tolist()}")
picked = t[[0, 2]]
print(f"rows 0 and 2: {picked.tolist()}")
assert (t >= 0).all() and t[odd].tolist() == [1, 3, 7, 9, 11, 13, 17, 19]
assert picked.data_ptr() != t.data_ptr()  # a copy, unlike t[0:1]
assert t[odd].data_ptr() != t.data_ptr()
assert t[0:1].data_ptr() == t.data_ptr()

# %%
# Changing the shape: ``view``, ``reshape`` and ``-1``
# -----------------------------------------------------
# ``view`` gives the same numbers under a new shape without copying. One
# dimension may be ``-1``, meaning "whatever makes the element count match".
flat = torch.arange(12)
as_3x4 = flat.view(3, 4)
as_2x6 = flat.view(-1, 6)  # -1 becomes 2
as_cube = flat.view(2, 2, -1)  # -1 becomes 3
print(
    f"view(3, 4): {tuple(as_3x4.shape)}, view(-1, 6): {tuple(as_2x6.shape)}, "
    f"view(2, 2, -1): {tuple(as_cube.shape)}"
)
assert as_2x6.shape == (2, 6) and as_cube.shape == (2, 2, 3)
assert as_3x4.data_ptr() == flat.data_ptr()  # same memory
as_3x4[0, 0] = 100
assert flat[0] == 100

# %%
# ``view`` needs memory laid out so that the new shape can walk through it in
# order. A transpose breaks that: ``.t()`` only swaps the strides, so the
# result is not *contiguous* and ``view`` refuses it. ``reshape`` then copies
# when it must (and is a view when it can); ``.contiguous().view(...)`` does
# the same by hand.
transposed = as_3x4.t()
print(f"contiguous after .t(): {transposed.is_contiguous()}")
try:
    transposed.view(12)
except RuntimeError:
    print("view(12) on the transposed tensor raised RuntimeError")
else:
    raise AssertionError("view should refuse a non-contiguous tensor")
reshaped = transposed.reshape(-1)
assert reshaped.data_ptr() != transposed.data_ptr()  # a copy was made
assert torch.equal(reshaped, transposed.contiguous().view(-1))
assert flat.reshape(4, 3).data_ptr() == flat.data_ptr()  # no copy needed here

# %%
# Data types
# ----------
# Every tensor has one ``dtype``. Python floats become ``float32`` (the default
# for neural networks) and Python ints ``int64``; comparisons give ``bool``.
# Mixing integers with floats gives floats (``float32`` here, not
# ``float64``: the kind decides, not the number of bits). ``/`` always returns
# floats while ``//`` stays integer. ``.to(dtype)`` converts (``.double()``,
# ``.float()`` and ``.long()`` are shorthands).
ints = torch.tensor([7, 8])
floats = torch.tensor([0.5, 1.5])
print(
    f"ints: {ints.dtype}, floats: {floats.dtype}, ints > 7: {(ints > 7).dtype}"
)
print(f"default float type: {torch.get_default_dtype()}")
print(
    f"ints / 2 -> {(ints / 2).tolist()}, ints // 2 -> {(ints // 2).tolist()}"
)
print(f"int64 + float32 -> {(ints + floats).dtype}")
doubles = floats.to(torch.float64)
small = torch.zeros(3, dtype=torch.int32)
assert ints.dtype == torch.int64 and floats.dtype == torch.float32
assert (ints + floats).dtype == torch.float32 and (
    ints // 2
).dtype == torch.int64
assert (
    doubles.dtype == torch.float64 == floats.double().dtype
    and small.dtype == torch.int32
)

# %%
# .. note:: Old code you may meet: ``x.type(torch.DoubleTensor)`` and types
#    named ``torch.FloatTensor`` / ``torch.LongTensor`` mixed the element type
#    with the device in one class name. Now the element type is a ``dtype``
#    object (``x.to(torch.float64)``) and the device is a separate setting.
#
# The NumPy bridge
# ----------------
# ``tensor.numpy()`` and ``torch.from_numpy(array)`` convert without copying:
# the tensor and the array are two views of the same memory (for tensors on
# the CPU). A change made through either side shows up on the other.
import numpy as np

ones_t = torch.ones(4)
ones_a = ones_t.numpy()
ones_t.add_(1)  # change the tensor...
print(f"array after tensor.add_(1): {ones_a}")  # ...the array sees it
assert np.shares_memory(ones_a, ones_t.numpy()) and (ones_a == 2).all()

arr = np.zeros(4)
from_arr = torch.from_numpy(arr)
np.add(arr, 3, out=arr)  # change the array in place...
print(
    f"tensor after np.add(..., out=arr): {from_arr}"
)  # ...the tensor sees it
assert from_arr.dtype == torch.float64  # NumPy's float64 is kept
assert torch.equal(from_arr, torch.full((4,), 3.0, dtype=torch.float64))

# %%
# When you want an independent copy, say so: ``torch.tensor(array)`` always
# copies (``array.copy()`` does the same on the NumPy side).
copied = torch.tensor(arr)
arr[0] = -5.0
assert copied[0] == 3.0 and from_arr[0] == -5.0

# %%
# Sharing memory only works for a plain CPU tensor. A tensor that autograd
# tracks must be detached first (see
# :ref:`sphx_glr_lessons_basics_04_autograd.py`), and one on a GPU must be
# copied back with ``.cpu()`` (shown in the next section).
tracked = torch.ones(3, requires_grad=True)
try:
    tracked.numpy()
except RuntimeError:
    print(
        "tracked.numpy() raised RuntimeError; tracked.detach().numpy() works"
    )
else:
    raise AssertionError("numpy() should refuse a tensor that requires grad")
assert np.array_equal(tracked.detach().numpy(), np.ones(3))

# %%
# .. note:: Old code you may meet: ``torch.Tensor(array)`` silently copied
#    *and* cast to float32, while ``torch.DoubleTensor(array)`` shared memory.
#    Use ``torch.from_numpy`` (share) or ``torch.tensor`` (copy), which keep
#    the array's dtype and make the choice explicit.
#
# Moving tensors to a GPU
# -----------------------
# A tensor's ``device`` says where its memory is. ``.to(device)`` returns a
# copy on that device (or the tensor itself if it is already there), and
# factory functions take ``device=`` to create data in place. Results of an
# operation live on the device of its inputs; ``.cpu()`` brings them back.
# Without a GPU, ``device`` is the CPU and the same code runs unchanged.
print(f"CUDA available: {torch.cuda.is_available()}")
if device.type == "cuda":
    print(f"GPU: {torch.cuda.get_device_name(device)}")

host = torch.arange(6.0).view(2, 3)
on_device = host.to(device)
ones_there = torch.ones(2, 3, device=device)
summed = on_device + ones_there
print(f"host tensor on {host.device}, sum computed on {summed.device}")
back = summed.cpu()
assert summed.device.type == device.type and back.device.type == "cpu"
torch.testing.assert_close(back, host + 1)
assert host.to("cpu") is host  # no copy when nothing changes

# %%
# On a GPU machine the cell below also shows that operations refuse to mix
# devices and that ``.numpy()`` wants a CPU tensor; without a GPU it says so
# and skips.
if device.type == "cuda":
    try:
        _ = host + on_device
    except RuntimeError:
        print("cpu tensor + cuda tensor raised RuntimeError")
    else:
        raise AssertionError("mixing devices should fail")
    try:
        on_device.numpy()
    except TypeError:
        print("cuda_tensor.numpy() raised TypeError; use .cpu().numpy()")
    else:
        raise AssertionError("numpy() should refuse a GPU tensor")
    assert np.array_equal(on_device.cpu().numpy(), host.numpy())
else:
    print("No GPU here: every tensor in this lesson stayed on the CPU.")

# %%
# .. note:: Old code you may meet: ``x.cuda()`` and
#    ``dtype = torch.cuda.FloatTensor; x.type(dtype)`` hard-wired the GPU and
#    failed on machines without one. Pick the device once and write
#    ``x.to(device)`` or ``torch.zeros(..., device=device)``.
#
# Next, :ref:`sphx_glr_lessons_basics_02_numpy_warmup.py` fits a small
# network with NumPy alone, and
# :ref:`sphx_glr_lessons_basics_03_tensor_backprop.py` repeats it with
# tensors.
