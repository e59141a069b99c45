"""
Devices and moving data
=======================

The same PyTorch code runs on a CPU or an accelerator (a CUDA GPU, Apple's
MPS, Intel's XPU); what changes is where tensors live. This lesson picks the
device once, moves models and batches to it, shows the errors that mixing
devices raises and loads checkpoints onto any device.

**You will learn** to pick a device with ``torch.accelerator``, what
``model.to`` and ``tensor.to`` move (and what they leave behind), where new
tensors are created and how to load a checkpoint on another device.

**You need first** tensors (:ref:`sphx_glr_lessons_basics_01_tensors.py`)
and modules with parameters (:ref:`sphx_glr_lessons_nn_03_custom_module.py`).
"""

# %%
# Pick the device once
# --------------------
# ``torch.accelerator`` knows which accelerator this PyTorch build can use;
# without one we stay on the CPU. Everything below receives ``device``;
# nothing names ``"cuda"`` except code that only CUDA supports. With several
# GPUs, ``torch.device("cuda", 1)`` (or ``"cuda:1"``) is the second one;
# plain ``"cuda"`` has no index and means the current one (index 0 unless
# changed). Making a ``torch.device`` needs no GPU, so the last lines run
# anywhere.
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
print(f"accelerators visible: {torch.accelerator.device_count()}")
if device.type == "cuda":  # CUDA-only queries
    name = torch.cuda.get_device_name(device)
    print(f"{name}, capability {torch.cuda.get_device_capability(device)}")
same = torch.device("cuda", 1) == torch.device("cuda:1")
print(f'torch.device("cuda", 1) == torch.device("cuda:1"): {same}')
print(f'torch.device("cuda").index: {torch.device("cuda").index}')
# sphinx_gallery_tags = ["intermediate", "gpu"]
# sphinx_gallery_thumbnail_path = "_static/thumbs/advanced.png"

# %%
# A place to move things to
# -------------------------
# To *see* what moves, we need a second device. On a machine with an
# accelerator it is the accelerator. On a CPU-only machine it is ``"meta"``,
# a device that every PyTorch build has: its tensors have shapes and dtypes
# but no data, so operations on them work out the shape and dtype of their
# results but no numbers, and a move to it shows on the printed device like
# a move to a GPU. The code below calls this
# second device ``target``.

# %%
# Moving a model: ``Module.to`` works in place
# --------------------------------------------
# ``model.to(target)`` moves every *parameter* and *buffer* of the module
# and its submodules and returns the module itself. A tensor stored as a
# plain attribute is neither a parameter nor a buffer, so ``.to`` never sees
# it.
from torch import nn

target = device if device.type != "cpu" else torch.device("meta")
print(f"moves below go to: {target.type}")


class Shifted(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 2)  # parameters: moved
        self.register_buffer("shift", torch.zeros(4))  # buffer: moved
        self.scale = torch.ones(4)  # plain attribute: NOT moved

    def forward(self, x):
        return self.linear((x - self.shift) * self.scale)


net = Shifted()
weight = net.linear.weight
print(f"the same module comes back: {net.to(target) is net}")
parts = {"weight": net.linear.weight, "buffer": net.shift, "attr": net.scale}
for part, t in parts.items():
    print(f"{part:7s} now on {t.device.type}")
# sphinx_gallery_start_ignore
assert net.linear.weight.device.type == net.shift.device.type == target.type
assert net.scale.device.type == "cpu"
if target.type != "meta":
    assert net.linear.weight is weight  # same Parameter on an accelerator
# sphinx_gallery_end_ignore

# %%
# The weight and the buffer moved; the plain attribute stayed behind on the
# CPU. On an accelerator, ``.to`` keeps the same ``Parameter`` objects and
# swaps their data (on ``meta`` it makes new ones); either way, the usual
# order is build, move, *then* create the optimizer, so that it holds the
# parameters that will be trained.
#
# Mixing devices is an error
# --------------------------
# An operation needs all its tensors on one device. Elementwise operations
# (``+``, ``*`` and the like) make one exception: a 0-dimensional CPU tensor
# counts there as a plain number.
try:
    torch.ones(3) + torch.ones(3, device=target)
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
else:
    raise AssertionError("mixing devices should have failed")
scaled = torch.tensor(2.0) * torch.ones(3, device=target)  # 0-dim CPU: fine
print(f"0-dim CPU tensor times a {target.type} tensor: on {scaled.device}")
try:  # not elementwise: the 0-dim CPU tensor is refused
    torch.stack([torch.tensor(2.0), torch.ones((), device=target)])
except RuntimeError as err:
    print(f"torch.stack raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("stack across devices should have failed")
assert scaled.device.type == target.type
# sphinx_gallery_end_ignore

# %%
# Each message names the two devices; on a CUDA GPU the same mistakes raise
# messages that begin "Expected all tensors to be on the same device".
#
# The same error hits a module whose plain attribute was left behind: the
# model moved, its input moved, ``self.scale`` did not.
try:
    net(torch.ones(2, 4, device=target))
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
else:
    raise AssertionError("a tensor left on the CPU should have failed")
fixed = Shifted()
del fixed.scale  # the fix: a buffer instead of a plain attribute
fixed.register_buffer("scale", torch.ones(4))
out = fixed.to(target)(torch.ones(2, 4, device=target))
print(f"with scale as a buffer: output on {out.device.type}")
# sphinx_gallery_start_ignore
assert out.device.type == target.type
# sphinx_gallery_end_ignore

# %%
# Registered as a buffer, ``scale`` moved with the module and the call
# worked: register tensors a module needs with ``register_buffer`` (or make
# them parameters).
#
# Moving a tensor: ``Tensor.to`` returns a new tensor
# ----------------------------------------------------
# ``x.to(target)`` leaves ``x`` where it was and returns a copy on the new
# device, so the result must be assigned; every batch of inputs and targets
# is moved this way inside the training loop. When nothing would change,
# ``.to`` returns ``x`` itself.
x = torch.randn(3, 4)
x.to(target, torch.float16)  # result thrown away: x is unchanged
print(f"x after a discarded .to: {x.device.type}, {x.dtype}")
x_moved = x.to(target)
print(f"x.to(target): {x_moved.device.type}, {x_moved.dtype}")
print(f"x.to('cpu') is x: {x.to('cpu') is x}")  # already there: no copy
like = x_moved.half()
moved = x.to(like)  # .to(other) takes other's device and dtype
print(f"x.to(like): {moved.device.type}, {moved.dtype}")
# sphinx_gallery_start_ignore
assert x.device.type == "cpu" and x.dtype == torch.float32
assert x_moved.device.type == target.type
assert moved.device == like.device and moved.dtype == torch.float16
# sphinx_gallery_end_ignore

# %%
# ``x`` stayed a ``float32`` CPU tensor; only the assigned results moved.
#
# Computing on the device and reading results back
# ------------------------------------------------
# ``meta`` tensors hold no numbers, so from here on the model runs on
# ``device`` (the accelerator, or the CPU). To read a result back, use
# ``.item()`` for one number, ``.tolist()`` for a small tensor and
# ``.cpu().numpy()`` for an array: ``.numpy()`` works only on CPU tensors.
model = nn.Linear(4, 2).to(device)
x_dev = x.to(device)
y = model(x_dev)
print(f"output on {y.device.type}: {[round(v, 4) for v in y[0].tolist()]}")
try:
    torch.ones(2, device=target).numpy()
except TypeError as err:
    print(f"raised TypeError: {err}")
else:
    raise AssertionError(".numpy() off the CPU should have failed")
array = y.detach().cpu().numpy()
print(f"as a NumPy array: shape {array.shape}, dtype {array.dtype}")

# %%
# ``.detach()`` drops the autograd history (``.numpy()`` refuses a tensor
# that requires grad) and ``.cpu()`` copies to the host; on a CPU tensor it
# changes nothing.
#
# Where new tensors are created
# -----------------------------
# Factory functions such as ``torch.zeros`` know nothing about your model:
# they create tensors on the *default device*, the CPU unless you changed it
# (``torch.set_default_device``, or a ``with torch.device(...):`` block).
# Ask for the device explicitly, or copy it from an existing tensor with
# ``*_like`` (same shape, dtype, device) or ``t.new_*`` (new shape, ``t``'s
# dtype and device, handy inside ``forward`` for hidden states).
w = torch.randn(2, 3, device=target)
made = {
    "torch.zeros(2)": torch.zeros(2),
    "torch.zeros(2, device=w.device)": torch.zeros(2, device=w.device),
    "torch.zeros_like(w)": torch.zeros_like(w),
    "w.new_zeros(5)": w.new_zeros(5),
    "w.new_tensor([1.5, 2])": w.new_tensor([1.5, 2]),
}
for expr, t in made.items():
    print(f"{expr:32s} {t.device.type:5s} {tuple(t.shape)}")
# sphinx_gallery_start_ignore
assert made["torch.zeros(2)"].device.type == "cpu"
assert all(t.device == w.device for t in list(made.values())[1:])
# sphinx_gallery_end_ignore

# %%
# All but the first followed ``w`` to its device; ``torch.zeros(2)`` is on
# the CPU wherever ``w`` is.
#
# Saving on one device, loading on another
# ----------------------------------------
# ``torch.save`` records each tensor's device, and ``torch.load`` puts it
# back there by default, which fails on a machine without that device.
# ``map_location`` says where to load instead: ``"cpu"``, the reader's
# ``device``, or a mapping such as ``{"cuda:1": "cuda:0"}``.
import pathlib
import tempfile

with tempfile.TemporaryDirectory() as tmp:
    path = pathlib.Path(tmp) / "linear.pt"
    torch.save(model.state_dict(), path)
    on_cpu = torch.load(path, map_location="cpu", weights_only=True)
    there = torch.load(path, map_location=target, weights_only=True)
for name, sd in [("map_location='cpu'", on_cpu), ("target", there)]:
    print(f"{name:19s} weight on {sd['weight'].device.type}")
fresh = nn.Linear(4, 2)
fresh.load_state_dict(on_cpu)  # copies values into fresh's CPU tensors
model.load_state_dict(on_cpu)  # a CPU checkpoint into a model on device
print(f"model still on {model.weight.device.type} after loading")
# sphinx_gallery_start_ignore
assert all(t.device.type == target.type for t in there.values())
assert model.weight.device.type == device.type
torch.testing.assert_close(fresh(x), model(x_dev).cpu())
# sphinx_gallery_end_ignore

# %%
# ``load_state_dict`` copies values into the module's own tensors wherever
# they live, so a model on a GPU stays there whatever device the checkpoint
# was loaded onto; ``fresh`` and ``model`` now give the same outputs. (With
# ``assign=True`` it takes the checkpoint's tensors themselves instead, and
# with them their device.)
#
# Going deeper
# ------------
# Optional on a first read: ``non_blocking`` copies from pinned memory, and
# the old way to use several GPUs in one process, ``nn.DataParallel``.
#
# ``non_blocking`` copies and pinned memory
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Ordinary ("pageable") host memory may be moved by the operating system, so
# a GPU cannot read it directly: the copy is staged through a pinned buffer.
# Memory that is *pinned* (page-locked) can be read by the GPU directly,
# which lets ``.to(device, non_blocking=True)`` return before the copy ends:
# it is queued on the device's current *stream* (a queue of work that the
# device runs in order), later work on that stream waits for it, and the
# CPU can prepare the next batch meanwhile.
# ``DataLoader(..., pin_memory=True)`` hands out pinned batches for this.
# Two rules: do not modify the pinned source before the copy has finished,
# and synchronize before reading a tensor copied *to* the CPU with
# ``non_blocking=True``.

# %%
# Pinning is shown on CUDA and Intel XPU GPUs (Apple's GPU shares memory
# with the CPU, and ``DataLoader`` turns pinning off there); how much it
# saves is measured in
# :ref:`sphx_glr_lessons_advanced_03_gpu_performance.py`.
if device.type in ("cuda", "xpu"):
    batch = torch.randn(256, 4)
    pinned = batch.pin_memory()  # a pinned copy
    print(f"pinned: {pinned.is_pinned()}, original: {batch.is_pinned()}")
    on_gpu = pinned.to(device, non_blocking=True)  # may return before done
    result = model(on_gpu)  # queued behind the copy on the same stream
    back = result.detach().to("cpu", non_blocking=True)
    torch.accelerator.current_stream().synchronize()  # rule 2: wait, read
    expected = model(batch.to(device)).detach().cpu()
    print(f"round trip equals a blocking one: {torch.equal(back, expected)}")
    # sphinx_gallery_start_ignore
    torch.testing.assert_close(back, expected)
    # sphinx_gallery_end_ignore
else:
    print(f"skipped on {device.type}: pinning is shown on CUDA and XPU")

# %%
# On a CUDA or XPU GPU the round trip matches a blocking one. Without
# the ``synchronize`` the CPU could read ``back`` before the copy has written
# it. ``torch.accelerator.current_stream()`` is the current stream of
# whichever accelerator this machine has.
#
# Several GPUs in one process: ``nn.DataParallel``
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Older code uses several GPUs by wrapping the model in
# ``nn.DataParallel``. On every forward pass it splits the batch across the
# GPUs, copies the model to each of them, runs the copies in threads and
# gathers the outputs on the first GPU. Without CUDA GPUs (a CPU, or Apple's
# GPU) it simply calls the model. The wrapped model is ``.module``, and the
# wrapper's ``state_dict`` keys carry a ``module.`` prefix:
dp = nn.DataParallel(model)
print(f"dp.module is model: {dp.module is model}")
print(f"model keys: {list(model.state_dict())}")
print(f"dp keys:    {list(dp.state_dict())}")
if device.type != "xpu":  # DataParallel's batch splitting is CUDA-only
    gap = (dp(x_dev) - model(x_dev)).abs().max().item()
    print(f"max |dp(x) - model(x)| = {gap:.1e}")
# sphinx_gallery_start_ignore
if device.type != "xpu":
    torch.testing.assert_close(dp(x_dev), model(x_dev))
assert dp.module is model
assert list(dp.state_dict()) == ["module." + k for k in model.state_dict()]
# sphinx_gallery_end_ignore

# %%
# A checkpoint saved from ``dp`` therefore does not load into a bare model;
# save ``dp.module.state_dict()`` instead. With one GPU or none, the wrapper
# calls the model directly, so the outputs are the same (with several GPUs
# they agree to rounding). On Intel GPUs its forward pass fails (its batch
# splitting exists only for CUDA), which is why it is skipped there.
#
# ``DistributedDataParallel`` replaced it: one process per GPU, each with
# its own copy of the model made once, not on every step, and gradients
# averaged while the backward pass still runs, with no single Python process
# (and its global interpreter lock) driving every GPU. The PyTorch docs
# recommend it even on one machine; it is taught in
# :ref:`sphx_glr_lessons_advanced_08_distributed_data_parallel.py`.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``x.cuda()``, ``model.cuda()``: use ``.to(device)`` with ``device``
#      from ``torch.accelerator``; ``.cuda()`` hard-codes CUDA, so such code
#      cannot run on MPS, XPU or a CPU.
#    - ``torch.cuda.FloatTensor(3, 4)``, ``dtype = torch.cuda.FloatTensor``:
#      these legacy tensor types fused dtype and device into one class name;
#      today they are separate arguments, ``torch.empty(3, 4, device=device,
#      dtype=torch.float32)``.
#    - ``torch.cuda.current_stream()``: ``torch.accelerator.current_stream()``
#      does the same on every accelerator.
#    - ``nn.DataParallel(model)``: ``DistributedDataParallel``, one process
#      per GPU (see above).
#
# Takeaways
# ---------
# - Pick ``device`` once with ``torch.accelerator``; never name ``"cuda"``
#   outside CUDA-only code.
# - ``model.to(device)`` moves parameters and buffers in place; plain tensor
#   attributes stay behind, so register them as buffers.
# - ``x.to(device)`` returns a new tensor: assign it. Create new tensors with
#   ``device=``, ``*_like`` or ``new_*``.
# - Load checkpoints with ``map_location``; ``load_state_dict`` copies into
#   the model wherever it lives.
#
# Next, :ref:`sphx_glr_lessons_advanced_03_gpu_performance.py` times work on
# a GPU, watches its memory and trains in mixed precision.
