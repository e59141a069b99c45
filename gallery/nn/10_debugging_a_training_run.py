"""
Debugging a training run
========================

Training often fails at first, and PyTorch runs your model as plain
Python, so Python's own tools work inside it. This lesson looks inside a
small network on real photos: it prints the shapes a batch takes, stops in
``forward`` with the debugger, traces a NaN gradient to the operation that
made it, and reads four errors most learners meet, line by line.

**You will learn** to print the shapes flowing through a model with a
forward hook, to stop inside ``forward`` with ``breakpoint()``, to find the
operation that produced a NaN with ``torch.autograd.detect_anomaly``, and to
read the shape, device, dtype and freed-graph errors and fix each.

**You need first** the training loop of
:ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`; the network here is
the one of :ref:`sphx_glr_lessons_nn_09_watching_a_training_run.py`.
Forward hooks are explained here in two lines;
:ref:`sphx_glr_lessons_nn_08_hooks.py` covers them in depth.
"""

# %%
# Setup
# -----
# One seed for the whole lesson; ``device`` is an accelerator (CUDA, MPS,
# XPU) if there is one, else the CPU.
import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
if torch.accelerator.is_available():
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["intermediate", "debugging", "vision"]

# %%
# Four real photos and a small network
# ------------------------------------
# Four colour photos that ship with scikit-image (no download): an
# astronaut, a cat, a cup of coffee and a rocket, shrunk to 32x32 pixels
# like CIFAR-10's, as ``uint8`` tensors.
from skimage import data
from torchvision.transforms.v2.functional import resize

names = ["astronaut", "chelsea", "coffee", "rocket"]
photos = torch.stack(
    [
        resize(torch.from_numpy(getattr(data, n)()).permute(2, 0, 1), [32, 32])
        for n in names
    ]
)
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 4, figsize=(6, 1.9))
print(f"photos {tuple(photos.shape)} {photos.dtype}")
for ax, photo, name in zip(axes, photos, names):
    ax.imshow(photo.permute(1, 2, 0).numpy())  # channels last
    ax.set(title=name, xticks=[], yticks=[])
plt.show()

# %%
# The network is the small one of
# :ref:`sphx_glr_lessons_nn_09_watching_a_training_run.py`, untrained:
# every bug below happens before training could help. ``to_input`` turns
# bytes into floats in ``[0, 1]`` on the device.
conv = nn.Conv2d(3, 16, kernel_size=5, padding=2)  # (N, 16, 32, 32)
pool = nn.MaxPool2d(4)  # (N, 16, 8, 8), flattened to (N, 1024)
head = nn.Linear(16 * 8 * 8, 10)
model = nn.Sequential(conv, nn.ReLU(), pool, nn.Flatten(), head).to(device)


def to_input(batch):
    return batch.to(device).float() / 255


# %%
# Shapes with a forward hook
# --------------------------
# Many bugs are shape bugs. A **forward hook** is a function PyTorch calls
# right after a module's ``forward``, with the module, its inputs (a tuple
# of the positional arguments: ``args[0]`` is the batch) and its output;
# ``register_forward_hook`` returns a handle whose ``remove()`` takes it
# off. One hook on every layer prints the shapes of the batch:
def print_shapes(module, args, output):
    print(f"{type(module).__name__:>9}: ", end="")
    print(f"{tuple(args[0].shape)} -> {tuple(output.shape)}")


handles = [layer.register_forward_hook(print_shapes) for layer in model]
with torch.no_grad():
    model(to_input(photos))
for handle in handles:
    handle.remove()

# %%
# Each line is one layer, in the order they ran: the convolution keeps the
# 32x32 size and makes 16 channels, the pool divides each side by 4, and
# ``Flatten`` turns each photo's ``16 * 8 * 8`` numbers into the 1024 the
# linear layer expects. ``ReLU`` keeps the shape: it only changes values.
#
# Stopping inside ``forward``
# ---------------------------
# Because ``forward`` is plain Python, Python's debugger can stop in it.
# Put ``breakpoint()`` on the line you want to inspect (the page does not
# run this: a build cannot type at a prompt):
#
# .. code-block:: python
#
#    class Net(nn.Module):
#        def forward(self, x):
#            x = self.features(x)
#            breakpoint()  # execution stops here, in pdb
#            return self.head(x)
#
# At the ``(Pdb)`` prompt, ``p x.shape`` prints a value, ``n`` runs the
# next line, ``s`` steps into a call, ``c`` continues and ``q`` quits.
# In Jupyter, a debugger prompt with the same commands opens under the
# cell. Setting the environment
# variable ``PYTHONBREAKPOINT=0`` turns every ``breakpoint()`` into a no-op,
# so a forgotten one does not stop a long run.


# %%
# A NaN, traced to its operation
# ------------------------------
# A NaN ("not a number") in a gradient makes the weight it updates NaN, and
# NaN spreads through every sum and product it enters: from then on the
# outputs, and the loss, are NaN too (shown below). A classic source: this
# "safe" square root, meant to give 0 for inputs that are not positive. Its
# output is fine; its gradient is not.
def safe_sqrt(x):
    return torch.where(x > 0, torch.sqrt(x), 0.0)


x = torch.tensor([4.0, 0.0, -1.0], requires_grad=True)
safe_sqrt(x).sum().backward()
print(f"output {safe_sqrt(x).tolist()}, gradient {x.grad.tolist()}")
# sphinx_gallery_start_ignore
assert math.isnan(x.grad[1]) and math.isnan(x.grad[2])
assert not safe_sqrt(x).isnan().any()
# sphinx_gallery_end_ignore

# %%
# The NaN never shows in the output, so printing outputs will not find it.
# Inside the context manager ``torch.autograd.detect_anomaly()``, autograd
# checks every backward function's result and raises at the first that
# returns NaN. It also warns twice: once that the mode is on (it is slow:
# use it only to debug), and once with the line of the forward pass that
# created the failing operation. (The page records the warnings with
# ``warnings.catch_warnings`` to print their first lines, and the last
# indented line of the second, the forward line; in your own script they
# simply print.)
import warnings

x.grad = None
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        loss = safe_sqrt(x).sum()
        try:
            loss.backward()
        except RuntimeError as err:
            report = str(err)
            print(f"raised RuntimeError: {report}")
        # sphinx_gallery_start_ignore
        else:
            raise AssertionError("anomaly mode should have raised")
        # sphinx_gallery_end_ignore
for w in caught:
    lines = str(w.message).splitlines()
    print(f"warned {w.category.__name__}: {lines[0]}")
code = [ln.strip() for ln in lines if ln.startswith("    ")]
print(f"    the forward line: {code[-1]}")
# sphinx_gallery_start_ignore
assert [w.category for w in caught] == [UserWarning, UserWarning]
assert "'SqrtBackward0' returned nan" in report
assert "Error detected in SqrtBackward0" in lines[0]
assert code[-1] == "return torch.where(x > 0, torch.sqrt(x), 0.0)"
# sphinx_gallery_end_ignore


# %%
# Read the report from the top. ``Function 'SqrtBackward0'`` is the backward
# of ``torch.sqrt`` (autograd names each backward function after its
# operation); ``returned nan values in its 0th output`` means the gradient
# it passed back, toward ``x``, holds NaN. The second warning names the
# forward line that called ``torch.sqrt``. Why: ``torch.where`` keeps the
# zeros in the output, but backward still runs through *both* branches, and
# the square root's slope at 0 is infinite and at -1 is NaN; the zero that
# ``where`` sends back, times either, is NaN. The fix keeps unsafe values
# away from ``sqrt`` itself:
def safe_sqrt_fixed(x):
    positive = x > 0
    return torch.where(
        positive, torch.sqrt(torch.where(positive, x, 1.0)), 0.0
    )


x.grad = None
safe_sqrt_fixed(x).sum().backward()
print(f"output {safe_sqrt_fixed(x).tolist()}, gradient {x.grad.tolist()}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(x.grad, torch.tensor([0.25, 0.0, 0.0]))
# sphinx_gallery_end_ignore

# %%
# How far does one NaN weight reach? A copy of the network (the page's
# own stays intact) gets one in its linear layer:
import copy

broken = copy.deepcopy(model)
with torch.no_grad():
    broken[4].weight[0, 0] = math.nan  # its row 0 makes logit 0
logits = broken(to_input(photos))
targets = torch.tensor([0, 3, 1, 8], device=device)  # any classes will do
losses = F.cross_entropy(logits, targets, reduction="none")  # one per photo
print(f"NaN logits per class: {logits.isnan().sum(dim=0).tolist()}")
print(f"loss per photo: {losses.tolist()}")
# sphinx_gallery_start_ignore
assert logits[:, 0].isnan().all() and not logits[:, 1:].isnan().any()
assert losses.isnan().all()
# sphinx_gallery_end_ignore

# %%
# Logit 0 is NaN for all four photos, and since the cross-entropy uses
# every logit, so is each photo's loss.

# %%
# Four errors most learners meet
# ------------------------------
# Each error below is raised on purpose and read line by line. **A shape
# mismatch in ``Linear``**: the network without its ``Flatten`` (layers 0
# to 2 are the convolution, ``ReLU`` and pool; layer 4 is the ``Linear``).
no_flatten = nn.Sequential(*list(model)[:3], model[4])  # Flatten left out
try:
    no_flatten(to_input(photos))
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("the Linear layer should have refused the shape")
# sphinx_gallery_end_ignore

# %%
# ``mat1`` is the input to ``Linear`` and ``mat2`` its weight, transposed to
# ``(in_features, out_features)`` = ``1024x10``. ``Linear`` works on the
# *last* dimension and treats all others as a batch, so the pooled
# ``(4, 16, 8, 8)`` tensor arrived as ``4 * 16 * 8 = 512`` rows of 8
# numbers: ``512x8``. The two inner numbers, 8 and 1024, must be equal.
# Fix: flatten each sample, ``x.flatten(1)`` or ``nn.Flatten()``.
#
# **Tensors on two devices.** An operation needs all its tensors on one
# device. On an accelerator, the page puts the model there and leaves the
# input on the CPU; without one, it uses PyTorch's ``meta`` device
# (tensors with a shape and no data) as the second device.
other = device if device.type != "cpu" else torch.device("meta")
head = nn.Linear(1024, 10).to(other)
try:
    head(torch.ones(4, 1024))  # made on the CPU
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("mixing devices should have failed")
# sphinx_gallery_end_ignore

# %%
# The message names both devices. On the ``meta`` path it reads "Tensor
# on device meta" (the layer's weight) "is not on the expected device
# cpu" (where the input is); on a CUDA GPU the same mistake raises a
# message that begins "Expected all tensors to be on the same device" and
# names the two. Fix: move the batch where the model is,
# ``x.to(device)``, as ``to_input`` does.
#
# **Double vs Float.** Dividing in NumPy gives 64-bit floats ("double");
# the model's weights are 32-bit ("float").
pixels = photos.numpy() / 255  # NumPy: uint8 / int -> float64
try:
    model(torch.from_numpy(pixels).to(device))
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("a float64 input should have failed")
# sphinx_gallery_end_ignore

# %%
# The convolution compared its input's type, ``double``
# (``torch.float64``), with that of its parameters, ``float``
# (``torch.float32``): a layer does not convert between them silently.
# The wording depends on the layer and the device (on the CPU, the
# convolution names its bias; other layers and devices may word it their
# own way).
# Fix: ``torch.from_numpy(pixels).float()``, or divide after converting,
# as ``to_input`` does.
#
# **Backward through a freed graph.** ``backward`` frees the values the
# graph saved for it, so a second ``backward`` through the same graph fails:
loss = F.cross_entropy(model(to_input(photos)), targets)
loss.backward()
try:
    loss.backward()  # for example, to look at the gradients again
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("a second backward should have failed")
# sphinx_gallery_end_ignore
model.zero_grad()

# %%
# "Trying to backward through the graph a second time": the first
# ``backward`` already ran, and "saved intermediate values ... are freed"
# says why the second cannot: the values each backward function needs were
# thrown away to save memory. A common cause is reusing a tensor across
# steps (a loss summed over batches, a hidden state carried over): compute
# a fresh forward pass for each ``backward``, or ``.detach()`` what is
# carried over. ``retain_graph=True``, which the message offers, is for the
# rare case when you really need two backward passes through one graph.

# %%
# Going deeper
# ------------
# Optional on a first read.
#
# Errors that arrive late on a GPU
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A CUDA GPU runs kernels asynchronously: Python goes on while the GPU
# works, so an error inside a kernel (an index out of range, for example)
# can surface at a later line than the one that caused it. Setting the
# environment variable ``CUDA_LAUNCH_BLOCKING=1`` before starting Python
# makes every launch wait for its kernel, so the traceback points at the
# right line (see `CUDA semantics
# <https://docs.pytorch.org/docs/stable/notes/cuda.html>`_). It slows
# everything down: use it only to debug.

# %%
# Takeaways
# ---------
# - A forward hook on every layer prints the shapes a batch takes;
#   ``breakpoint()`` stops inside ``forward``, where ``p x.shape`` answers.
# - ``torch.autograd.detect_anomaly()`` names the backward function that
#   first returned NaN and the forward line that created it.
# - Keep unsafe inputs away from an operation, not just from its output:
#   ``torch.where`` differentiates both branches.
# - Read an error from its numbers: ``mat1``/``mat2`` shapes, the two
#   devices, Double and Float, a graph already freed; ``x.flatten(1)``,
#   ``.to(device)``, ``.float()`` and a fresh forward pass fix them.
#
# Next, :doc:`/further_reading` says where to go from here: the official
# tutorials, ``pytorch/examples``, free courses and books. Or read
# :ref:`sphx_glr_lessons_advanced_10_text_language_of_a_word.py`, a first
# network on real text.

# %%
# Exercises
# ---------
# **Exercise 1: a batch a ``Linear`` layer accepts.** Write
# ``as_linear_input(x, layer)``: given a batch ``x`` of any shape (first
# dimension: the samples) and any dtype, return the same numbers as a
# ``(samples, layer.in_features)`` tensor, with each sample flattened in
# order, on the device and with the dtype of ``layer.weight``: the fix for
# three of the four errors at once. Run the cell: the check says whether
# your attempt is right. Solutions are at the end.


def check_exercise_1(fn):
    """Exercise 1's check: run it on your attempt."""
    gen = torch.Generator().manual_seed(5)
    photos = torch.randint(0, 256, (3, 2, 4, 5), generator=gen)
    photos = photos.to(torch.uint8)
    fine = torch.randn(3, 4, 10, generator=gen, dtype=torch.float64)
    cases = [
        ("a float64 layer", photos, torch.nn.Linear(40, 2).double()),
        ("a float64 batch", fine, torch.nn.Linear(40, 2).double()),
        ("a transposed batch", photos.transpose(2, 3), torch.nn.Linear(40, 2)),
        (
            "a layer on the meta device",
            photos,
            torch.nn.Linear(40, 2).to("meta"),
        ),
    ]
    for what, x, layer in cases:
        x_before = x.clone()
        weight = layer.weight
        where = (weight.device, weight.dtype)
        try:
            out = fn(x, layer)
        except Exception as err:
            raise AssertionError(
                f"with {what}, your function failed with "
                f"{type(err).__name__}: {err}"
            ) from None
        if out is Ellipsis:
            print(
                "Exercise 1 not attempted yet: "
                "write the body of as_linear_input"
            )
            return
        if not isinstance(out, torch.Tensor):
            raise AssertionError(
                f"expected a tensor, got {type(out).__name__}"
            )
        if tuple(out.shape) == (len(x), layer.out_features):
            raise AssertionError("return the layer's input, not its output")
        if tuple(out.shape) != (len(x), layer.in_features):
            raise AssertionError(
                f"with {what}: expected shape {(len(x), layer.in_features)}, "
                f"one row per sample, got {tuple(out.shape)}"
            )
        if (layer.weight.device, layer.weight.dtype) != where:
            raise AssertionError(
                f"with {what}: the layer was changed; convert the batch "
                "to the layer, leave the layer as it is"
            )
        if out.device != weight.device:
            raise AssertionError(
                f"with {what}: the batch is on {out.device}, the layer on "
                f"{weight.device}: move it to layer.weight.device"
            )
        if out.dtype != weight.dtype:
            raise AssertionError(
                f"with {what}: the batch's dtype is {out.dtype}, the layer's "
                f"{weight.dtype}: convert to layer.weight.dtype"
            )
        if not torch.equal(x, x_before):
            raise AssertionError("x was changed in place: return a new tensor")
        if out.device.type == "meta":
            continue  # a meta tensor has no values to compare
        want = x.reshape(len(x), -1).to(weight.dtype)
        if torch.allclose(out * 255, want):
            raise AssertionError(
                "the values were scaled: keep them as they are"
            )
        if torch.equal(out, want):
            continue
        if torch.equal(out, want.float().to(want.dtype)):
            raise AssertionError(
                f"with {what}: the values went through float32 and lost "
                "digits: convert straight to layer.weight.dtype"
            )
        if torch.equal(out.flatten().sort()[0], want.flatten().sort()[0]):
            raise AssertionError(
                f"with {what}: the values are not in the order of "
                "x.flatten(1): reshape, do not permute"
            )
        raise AssertionError(
            f"with {what}: the values changed: keep the same numbers, "
            "only flattened and converted"
        )
    print("Exercise 1: correct")


# %%
# Your attempt at exercise 1, then its check:


def as_linear_input(x, layer):
    return ...  # replace ... with your code


check_exercise_1(as_linear_input)

# %%
# **Exercise 2: a shape error, read before it happens.** A
# ``nn.Linear(300, 5)`` layer is given a batch of shape ``(6, 3, 10, 10)``.
# Its error names two matrices, ``mat1`` and ``mat2``, as ``RxC``. Set
# ``answer`` to their shapes, ``((rows, cols), (rows, cols))``, without
# running the layer.


def check_exercise_2(answer):
    """Exercise 2's check: run it on your answer."""
    if answer is Ellipsis:
        print("Exercise 2 not attempted yet: set answer")
        return
    layer, x = torch.nn.Linear(300, 5), torch.zeros(6, 3, 10, 10)
    mat1 = tuple(x.reshape(-1, x.shape[-1]).shape)  # what Linear multiplies
    mat2 = tuple(layer.weight.T.shape)
    try:
        pair = tuple(tuple(int(n) for n in m) for m in answer)
    except (TypeError, ValueError):
        pair = ()
    if len(pair) != 2 or any(len(m) != 2 for m in pair):
        raise AssertionError(
            "expected two (rows, cols) pairs, like ((1, 2), (3, 4)), "
            f"got {answer!r}"
        )
    if pair[1] != mat2:
        raise AssertionError(
            f"mat2 is not {pair[1]}: it is the layer's weight, transposed "
            "to (in_features, out_features)"
        )
    if pair[0] == (6, 300):
        raise AssertionError(
            "(6, 300) is what the layer expects; mat1 is what it got"
        )
    if pair[0] != mat1:
        raise AssertionError(
            f"mat1 is not {pair[0]}: Linear keeps the last dimension as "
            "the columns and stacks all the others as rows"
        )
    print("Exercise 2: correct")


# %%
# Your attempt at exercise 2, then its check:

answer = ...  # replace ... with your answer
check_exercise_2(answer)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.


# %%


# Solution 1: a batch a Linear layer accepts
def as_linear_input(x, layer):
    return x.flatten(1).to(layer.weight.device, layer.weight.dtype)


check_exercise_1(as_linear_input)

# %%


# Solution 2: a shape error, read before it happens
answer = ((6 * 3 * 10, 10), (300, 5))  # all but the last dim become rows
check_exercise_2(answer)
