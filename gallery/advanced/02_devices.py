"""
Devices and moving data
=======================

The same PyTorch code runs on a CPU or an accelerator (a CUDA GPU, Apple's
MPS, Intel's XPU); what changes is where tensors live. This lesson picks the
device once, moves models and batches to it, shows the errors that mixing
devices raises, loads checkpoints onto any device and explains
``non_blocking`` copies from pinned memory.
"""

# %%
# Pick the device once
# --------------------
# ``torch.accelerator`` knows which accelerator this PyTorch build can use;
# without one we stay on the CPU. Everything below receives ``device``;
# nothing names ``"cuda"`` except code that only CUDA supports. With several
# GPUs, ``torch.device("cuda", 1)`` (or ``"cuda:1"``) is the second one;
# plain ``"cuda"`` has no index and means the current one (index 0 unless
# changed). Making a ``torch.device`` needs no GPU, so those asserts run
# anywhere.
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
if device.type == "cuda":  # CUDA-only queries
    name = torch.cuda.get_device_name(device)
    print(f"{name}, capability {torch.cuda.get_device_capability(device)}")
print(f"accelerators visible: {torch.accelerator.device_count()}")
assert torch.device("cuda", 1) == torch.device("cuda:1")
assert torch.device("cuda").index is None
# sphinx_gallery_tags = ["intermediate", "gpu"]
# sphinx_gallery_thumbnail_path = "_static/thumbs/advanced.png"

# %%
# The first line of output names the device every cell below uses.
#
# Moving a model: ``Module.to`` works in place
# --------------------------------------------
# ``model.to(device)`` moves every *parameter* and *buffer* of the module and
# its submodules and returns the module itself. The ``Parameter`` objects
# stay the same Python objects; still, the usual order is build, move, then
# create the optimizer. A tensor stored as a plain attribute is neither a
# parameter nor a buffer, so ``.to`` never sees it.
from torch import nn


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
assert net.to(device) is net  # in place: the same module comes back
assert net.linear.weight is weight  # same Parameter, data on the new device
assert net.linear.weight.device.type == net.shift.device.type == device.type
assert net.scale.device.type == "cpu"
where = [t.device.type for t in (weight, net.shift, net.scale)]
print("weight, buffer, plain attribute on: " + ", ".join(where))

# %%
# The plain attribute stayed behind on the CPU.
#
# Mixing devices is an error
# --------------------------
# An operation needs all its tensors on one device (a 0-dimensional CPU
# tensor is an exception, checked in the last lines). With an accelerator we
# mix it with the CPU; on a CPU-only machine we use the ``"meta"`` device,
# which has shapes but no data, to see the same rule.
other = device if device.type != "cpu" else torch.device("meta")
try:
    torch.ones(3) + torch.ones(3, device=other)
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
else:
    raise AssertionError("mixing devices should have failed")
scaled = torch.tensor(2.0) * torch.ones(3, device=other)  # 0-dim CPU: fine
assert scaled.device.type == other.type

# %%
# The same error hits a module whose plain attribute was left behind: the
# model moved, its input moved, ``self.scale`` did not.
stranded = Shifted().to(other)
try:
    stranded(torch.ones(2, 4, device=other))
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
else:
    raise AssertionError("a tensor left on the CPU should have failed")
del stranded.scale  # the fix: a buffer instead of a plain attribute
stranded.register_buffer("scale", torch.ones(4))
out = stranded.to(other)(torch.ones(2, 4, device=other))
assert out.device.type == other.type

# %%
# Registered as a buffer, ``scale`` moved with the module and the call
# worked: register tensors a module needs with ``register_buffer`` (or make
# them parameters). ``net`` above still has its stranded attribute, so from
# here on a plain ``nn.Linear`` is the model.
#
# Moving a tensor: ``Tensor.to`` returns a new tensor
# ----------------------------------------------------
# ``x.to(device)`` leaves ``x`` where it was and returns a copy on the new
# device, so the result must be assigned; every batch of inputs and targets
# is moved this way inside the training loop. When nothing would change,
# ``.to`` returns ``x`` itself.
x = torch.randn(3, 4)
x.to(device, torch.float16)  # result thrown away: x is unchanged
assert x.device.type == "cpu" and x.dtype == torch.float32
x_dev = x.to(device)
assert x_dev.device.type == device.type
assert x.to("cpu") is x  # already there: no copy
assert x.to(torch.float64) is not x  # a real conversion makes a new tensor
like = x_dev.half()
moved = x.to(like)  # .to(other) takes other's device and dtype
assert moved.device == like.device and moved.dtype == torch.float16
model = nn.Linear(4, 2).to(device)
y = model(x_dev)
print(f"output on {y.device.type}: {[round(v, 4) for v in y[0].tolist()]}")

# %%
# To read a result back, use ``.item()`` for one number, ``.tolist()`` for a
# small tensor and ``.cpu().numpy()`` for an array: ``.numpy()`` works only
# on CPU tensors (``other`` is the accelerator, or ``"meta"`` on a CPU).
try:
    torch.ones(2, device=other).numpy()
except TypeError as err:
    print(f"raised TypeError: {err}")
else:
    raise AssertionError(".numpy() off the CPU should have failed")
array = y.detach().cpu().numpy()
print(f"as a NumPy array: shape {array.shape}, dtype {array.dtype}")

# %%
# Where new tensors are created
# -----------------------------
# Factory functions such as ``torch.zeros`` know nothing about your model:
# without arguments they give ``float32`` tensors on the CPU. Ask for the
# device explicitly, or copy it from an existing tensor with ``*_like``
# (same shape, dtype, device) or ``t.new_*`` (new shape, ``t``'s dtype and
# device, handy inside ``forward`` for hidden states).
w = torch.randn(2, 3, device=device)
made = {
    "torch.zeros(2)": torch.zeros(2),
    "torch.zeros(2, device=w.device)": torch.zeros(2, device=w.device),
    "torch.zeros_like(w)": torch.zeros_like(w),
    "w.new_zeros(5)": w.new_zeros(5),
    "w.new_tensor([1.5, 2])": w.new_tensor([1.5, 2]),
}
for expr, t in made.items():
    print(f"{expr:32s} {t.device.type:5s} {tuple(t.shape)}")
assert made["torch.zeros(2)"].device.type == "cpu"
assert all(t.device == w.device for t in list(made.values())[1:])

# %%
# All but the first followed ``w`` to its device; ``torch.zeros(2)`` is on
# the CPU wherever ``w`` is.
#
# .. note:: Old code you may meet: ``x.cuda()``, ``model.cuda()``,
#    ``torch.cuda.FloatTensor(3, 4)``, ``dtype = torch.cuda.FloatTensor``.
#    The legacy tensor types fused dtype and device into one class name;
#    today they are separate arguments (``device=``, ``dtype=``), and
#    ``.cuda()`` hard-codes CUDA, so such code cannot run on MPS or a CPU.
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
    here = torch.load(path, map_location=device, weights_only=True)
assert all(t.device.type == "cpu" for t in on_cpu.values())
assert all(t.device.type == device.type for t in here.values())
fresh = nn.Linear(4, 2)
fresh.load_state_dict(on_cpu)  # copies values into fresh's CPU tensors
torch.testing.assert_close(fresh(x), model(x_dev).cpu())
model.load_state_dict(on_cpu)  # a CPU checkpoint into a model on device
assert model.weight.device.type == device.type
print(f"loaded onto the CPU and onto {device.type}: same outputs")

# %%
# ``load_state_dict`` copies values into the module's own tensors wherever
# they live, so ``model`` stayed on its device.
#
# ``non_blocking`` copies and pinned memory
# -----------------------------------------
# Ordinary ("pageable") host memory may be moved by the operating system, so
# a CUDA GPU cannot read it directly: the copy is staged through a pinned
# buffer. Memory that is *pinned* (page-locked) can be read by the GPU
# directly, which lets ``.to(device, non_blocking=True)`` return before the
# copy ends: it is queued on the current CUDA stream, later work on that
# stream waits for it, and the CPU can prepare the next batch meanwhile.
# ``DataLoader(..., pin_memory=True)`` hands out pinned batches for this.
# Two rules: do not modify the pinned source before the copy has finished,
# and synchronize before reading a tensor copied *to* the CPU with
# ``non_blocking=True``.

# %%
# Pinning is shown on CUDA only; how much it saves is measured in
# :ref:`sphx_glr_lessons_advanced_03_gpu_performance.py`.
if device.type == "cuda":
    batch = torch.randn(256, 4)
    pinned = batch.pin_memory()  # a pinned copy
    assert pinned.is_pinned() and not batch.is_pinned()
    on_gpu = pinned.to(device, non_blocking=True)  # may return before done
    result = model(on_gpu)  # queued behind the copy on the same stream
    back = result.detach().to("cpu", non_blocking=True)
    torch.cuda.current_stream().synchronize()  # rule 2: wait, then read
    expected = model(batch.to(device)).detach().cpu()
    torch.testing.assert_close(back, expected)
    print("non_blocking round trip: correct after synchronizing")
else:
    print(f"skipped on {device.type}: pinned memory is shown on CUDA only")

# %%
# Without the ``synchronize`` the CPU could read ``back`` before the copy
# has written it.
#
# .. note:: Old code you may meet: ``nn.DataParallel(model)`` to use
#    several GPUs. One process copies the model to every GPU on every
#    forward pass; the PyTorch docs recommend ``DistributedDataParallel``
#    instead, one process per GPU, even on one machine:
#    :ref:`sphx_glr_lessons_advanced_08_distributed_data_parallel.py`.
#
# Summary
# -------
# Pick ``device`` once with ``torch.accelerator``; move the model once (in
# place) and every batch (assign the result); create new tensors with
# ``device=`` or ``*_like`` / ``new_*``; load checkpoints with
# ``map_location``; pin host memory to queue copies with ``non_blocking``.
# Next: timing, memory and mixed precision in
# :ref:`sphx_glr_lessons_advanced_03_gpu_performance.py`.
