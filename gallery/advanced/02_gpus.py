"""
Running on GPUs
===============

The same PyTorch code runs on a CPU or a CUDA GPU; what changes is where
tensors live. This lesson writes device-agnostic code, shows what ``.to()``
moves and what it leaves behind, times matrix products and training steps
correctly, looks at the CUDA caching allocator and pinned-memory copies,
trains with mixed precision, and explains how several GPUs are used today.
Cells that need a GPU say what they would show when none is present.

.. tags:: intermediate, gpu, performance
"""

# %%
# Device-agnostic code
# --------------------
# Choose the device once, near the top, and pass it everywhere else. Nothing
# below names ``"cuda"`` directly except code that only makes sense on a GPU.
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")
if device.type == "cuda":
    print(
        f"GPU: {torch.cuda.get_device_name(device)}, {torch.cuda.device_count()} visible, "
        f"compute capability {torch.cuda.get_device_capability(device)}"
    )
else:
    print(
        "No CUDA GPU: everything below runs on the CPU; "
        "GPU-only cells explain what they would do."
    )

# %%
# ``torch.accelerator`` generalizes the same choice to any accelerator
# PyTorch supports (CUDA, ROCm, Apple's MPS, Intel's XPU):
accel = torch.device("cpu")
if torch.accelerator.is_available():
    accel = torch.accelerator.current_accelerator()
print(f"torch.accelerator picks: {accel}")
assert accel.type == device.type

# %%
# Moving a model: ``Module.to`` works in place
# --------------------------------------------
# ``model.to(device)`` converts every *parameter* and *buffer* of the module and
# its submodules, then returns the module itself. The ``Parameter`` objects stay
# the same Python objects (their data is replaced), so an optimizer that holds
# them keeps working; still, the usual order is: build, move, then create the
# optimizer. A tensor stored as a plain attribute is neither a parameter nor a
# buffer, so ``.to`` never sees it.
from torch import nn


class Standardize(nn.Module):
    """Subtracts a stored mean, then applies a linear layer."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 2)  # parameters: moved
        self.register_buffer(
            "mean", torch.zeros(4)
        )  # buffer: moved, saved in state_dict
        self.forgotten = torch.ones(4)  # plain attribute: NOT moved

    def forward(self, x):
        return self.linear(x - self.mean)


net = Standardize()
weight = net.linear.weight
returned = net.to(device)
assert returned is net  # in place: same module back
assert (
    net.linear.weight is weight
)  # same Parameter object, data on the new device
assert net.linear.weight.device.type == net.mean.device.type == device.type
assert net.forgotten.device.type == "cpu"

# %%
# Without a GPU we can watch the same mechanism with a dtype change, which
# ``.to`` applies to exactly the same tensors:
import pandas as pd

net.to(torch.float64)
rows = [
    (name, kind, str(t.dtype).removeprefix("torch."), str(t.device))
    for kind, items in [
        ("parameter", net.named_parameters()),
        ("buffer", net.named_buffers()),
    ]
    for name, t in items
]
rows.append(
    (
        "forgotten",
        "plain attribute",
        str(net.forgotten.dtype).removeprefix("torch."),
        str(net.forgotten.device),
    )
)
print(
    pd.DataFrame(rows, columns=["name", "kind", "dtype", "device"]).to_string(
        index=False
    )
)
assert net.linear.weight.dtype == net.mean.dtype == torch.float64
assert net.forgotten.dtype == torch.float32
net.to(torch.float32)  # and back
assert net.linear.weight.dtype == torch.float32

# %%
# Register tensors your module needs with ``register_buffer`` (or make them
# parameters); a plain attribute stays behind on the CPU and the first forward
# pass on the GPU fails with a device-mismatch error.
#
# Moving a tensor: ``Tensor.to`` returns a new tensor
# ----------------------------------------------------
# Tensors are different: ``x.to(device)`` leaves ``x`` where it was and
# returns a copy on the new device, so the result must be assigned. When
# nothing needs to change, ``.to`` returns ``x`` itself without copying.
x = torch.randn(3, 4)
x.to(device, torch.float64)  # result thrown away: x is unchanged
assert x.device.type == "cpu" and x.dtype == torch.float32

x_dev = x.to(device)
assert x_dev.device.type == device.type
assert x.to("cpu") is x  # already there: no copy
assert x.to(torch.float64) is not x  # a real conversion makes a new tensor
assert (
    x.to(x_dev).device == x_dev.device
)  # .to(other) matches other's dtype and device
print(
    f"x on {x.device}, x_dev on {x_dev.device}; "
    f"same object when nothing changes: {x.to('cpu') is x}"
)

# %%
# Inputs and targets are tensors too: every batch must be moved, inside the
# training loop. To read a result back, use ``.item()`` for a number,
# ``.tolist()`` for a small tensor and ``.cpu().numpy()`` for an array:
# ``.numpy()`` works only on CPU tensors.
y = net(x_dev)
print(f"output on {y.device}: {[round(v, 4) for v in y[0].tolist()]}")
if device.type == "cuda":
    try:
        y.detach().numpy()
    except TypeError as err:
        print(
            f"y.numpy() on a GPU tensor: TypeError: {str(err).splitlines()[0]}"
        )
    try:
        x + x_dev
    except RuntimeError as err:
        print(
            f"CPU tensor + GPU tensor: RuntimeError: {str(err).splitlines()[0]}"
        )
else:
    print(
        "On a GPU, y.numpy() would raise TypeError (copy to the CPU first), and adding a "
        "CPU tensor to a GPU tensor would raise RuntimeError (devices must match)."
    )

# %%
# Where new tensors are created
# -----------------------------
# Factory functions such as ``torch.zeros`` know nothing about your model:
# without arguments they give ``float32`` tensors on the CPU. Ask for the
# device (and dtype) explicitly, or copy them from an existing tensor:
#
# * ``torch.zeros(..., device=..., dtype=...)``: explicit;
# * ``torch.zeros_like(t)``: same shape, dtype and device as ``t``;
# * ``t.new_zeros(shape)``, ``t.new_full``, ``t.new_tensor``: new shape, but
#   ``t``'s dtype and device. Handy inside ``forward`` for hidden states.
w = torch.randn(2, 3, device=device, dtype=torch.float64)
made = {
    "torch.zeros(2)": torch.zeros(2),
    "torch.zeros(2, device=w.device)": torch.zeros(2, device=w.device),
    "torch.zeros_like(w)": torch.zeros_like(w),
    "w.new_zeros(5)": w.new_zeros(5),
    "w.new_tensor([1, 2])": w.new_tensor([1, 2]),
    "torch.arange(3, device=w.device)": torch.arange(3, device=w.device),
}
print(
    pd.DataFrame(
        [
            (
                k,
                str(t.dtype).removeprefix("torch."),
                str(t.device),
                tuple(t.shape),
            )
            for k, t in made.items()
        ],
        columns=["expression", "dtype", "device", "shape"],
    ).to_string(index=False)
)
assert made["torch.zeros(2)"].device.type == "cpu"
assert (
    made["torch.zeros(2)"].dtype == torch.get_default_dtype() == torch.float32
)
for key in ["torch.zeros_like(w)", "w.new_zeros(5)", "w.new_tensor([1, 2])"]:
    assert made[key].dtype == torch.float64 and made[key].device == w.device
assert made["torch.arange(3, device=w.device)"].dtype == torch.int64

# %%
# .. note:: Old code you may meet: ``x.cuda()``, ``model.cuda()``,
#    ``torch.cuda.FloatTensor(3, 4)`` and ``dtype = torch.cuda.FloatTensor``
#    with ``torch.randn(3, 4).type(dtype)``. The legacy tensor *types* fused
#    dtype and device into one class name; today they are two independent
#    arguments: ``torch.randn(3, 4, device=device, dtype=torch.float32)`` or
#    ``x.to(device)``. ``.cuda()`` still works but hard-codes CUDA, so code
#    written with it cannot fall back to the CPU.
#
# Timing CPU against GPU, correctly
# ---------------------------------
# CUDA calls are *asynchronous*: Python queues the kernel and returns at once.
# A timer read right after a GPU call measures only the queuing. Correct GPU
# timing therefore (1) warms up first, so one-time costs such as cuBLAS
# initialization and memory allocation are not counted, and (2) calls
# ``torch.cuda.synchronize()`` before reading the clock. We take the median of
# a few repeats. (``torch.utils.benchmark.Timer`` and CUDA events do the
# same bookkeeping for you.)
import statistics
import time


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def median_ms(fn, dev, repeats=5, warmup=2):
    for _ in range(warmup):
        fn()
    sync(dev)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        sync(dev)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


devices = [torch.device("cpu")] + (
    [torch.device("cuda")] if torch.cuda.is_available() else []
)
print("timing on:", ", ".join(d.type for d in devices))

# %%
# First a matrix product ``a @ b`` of two ``n x n`` float32 matrices at a few
# sizes (``2 n^3`` floating-point operations each).
rows = []
for dev in devices:
    sizes = [64, 256, 1024] + (
        [4096] if dev.type == "cuda" else []
    )  # 4096 is slow on a CPU
    for n in sizes:
        a = torch.randn(n, n, device=dev)
        b = torch.randn(n, n, device=dev)
        ms = median_ms(lambda: a @ b, dev)
        rows.append(
            {
                "device": dev.type,
                "n": n,
                "ms": ms,
                "GFLOP/s": 2 * n**3 / ms / 1e6,
            }
        )
print(pd.DataFrame(rows).to_string(index=False, float_format="{:.3f}".format))

# %%
# Tiny products cost about the same everywhere because fixed overheads
# dominate; the GPU pulls ahead as ``n`` grows (when a GPU is present, compare
# its rows with the CPU's). Here is what skipping the synchronization would
# report on a GPU:
if device.type == "cuda":
    a = torch.randn(4096, 4096, device=device)
    median_ms(lambda: a @ a, device)  # warm up
    start = time.perf_counter()
    a @ a
    queued_ms = 1e3 * (
        time.perf_counter() - start
    )  # wrong: kernel still running
    torch.cuda.synchronize()
    true_ms = median_ms(lambda: a @ a, device)
    print(
        f"4096 matmul: {queued_ms:.3f} ms without synchronize vs {true_ms:.3f} ms with it"
    )
    assert queued_ms < true_ms
else:
    print(
        "No GPU: on one, timing without torch.cuda.synchronize() would report only the "
        "microseconds it takes to queue the kernel, not its run time."
    )

# %%
# A whole training step (forward, loss, backward, optimizer step) of a small
# multilayer perceptron on a batch of 256. The model and the batch are moved
# once, before the loop.
import torch.nn.functional as F


def make_mlp():
    return nn.Sequential(
        nn.Linear(512, 1024),
        nn.ReLU(),
        nn.Linear(1024, 1024),
        nn.ReLU(),
        nn.Linear(1024, 10),
    )


def train_step(model, opt, xb, yb):
    loss = F.cross_entropy(model(xb), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


x_cpu, y_cpu = torch.randn(256, 512), torch.randint(0, 10, (256,))
step_rows = []
for dev in devices:
    torch.manual_seed(0)
    mlp = make_mlp().to(dev)
    opt = torch.optim.SGD(mlp.parameters(), lr=0.01)
    xb, yb = x_cpu.to(dev), y_cpu.to(dev)
    ms = median_ms(lambda: train_step(mlp, opt, xb, yb), dev)
    step_rows.append({"device": dev.type, "train step ms": ms})
print(
    pd.DataFrame(step_rows).to_string(
        index=False, float_format="{:.3f}".format
    )
)

# %%
# The CUDA caching allocator
# --------------------------
# Asking the CUDA driver for memory (``cudaMalloc``) and giving it back
# (``cudaFree``) is slow and makes the device wait. PyTorch therefore keeps
# freed GPU blocks in a cache and hands them out again. Two counters tell the
# story: ``torch.cuda.memory_allocated()`` is what live tensors use;
# ``torch.cuda.memory_reserved()`` is what the cache holds from the driver
# (live tensors plus free cached blocks). Creating a tensor of a size seen
# before, as a training loop does every iteration, is a quick lookup in that
# cache, so allocating inside the loop is fine. Tools such as
# ``nvidia-smi`` show the reserved amount, which is why memory looks "used"
# after tensors are deleted; ``torch.cuda.empty_cache()`` hands the free
# blocks back (rarely needed).
if device.type == "cuda":
    MiB = 2**20
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    stages = []

    def record(stage):
        stages.append(
            (
                stage,
                torch.cuda.memory_allocated() / MiB,
                torch.cuda.memory_reserved() / MiB,
            )
        )

    record("start")
    block = torch.empty(64 * MiB // 4, device=device)  # 64 MiB of float32
    record("64 MiB tensor created")
    del block
    record("tensor deleted")
    reserved_after_first = torch.cuda.memory_reserved()
    for _ in range(20):  # a loop that allocates a new tensor every iteration
        block = torch.ones(64 * MiB // 4, device=device)
        del block
        assert (
            torch.cuda.memory_reserved() == reserved_after_first
        )  # served from the cache
    record("after 20 alloc/free rounds")
    torch.cuda.empty_cache()
    record("empty_cache()")
    table = pd.DataFrame(
        stages, columns=["stage", "allocated MiB", "reserved MiB"]
    )
    print(table.to_string(index=False, float_format="{:.1f}".format))
    alloc, res = table["allocated MiB"], table["reserved MiB"]
    assert alloc[1] - alloc[0] == 64 and res[1] - res[0] >= 64
    assert alloc[2] == alloc[0] and res[2] == res[1]  # freed, but still cached
    assert res[4] <= res[0]
else:
    print(
        "No GPU: on one, this cell prints memory_allocated() and memory_reserved() as a "
        "64 MiB tensor is created and deleted; allocated falls back, reserved stays, and "
        "20 more alloc/free rounds reuse the cached block without growing reserved memory."
    )

# %%
# Pinned memory and ``non_blocking`` copies
# -----------------------------------------
# Ordinary ("pageable") host memory can be moved by the operating system, so
# the GPU cannot read it directly: a host-to-device copy is staged through a
# pinned buffer, and the call returns only when the copy is done. Memory that
# is *pinned* (page-locked) can be read by the GPU's copy engine directly,
# which is usually faster (compare the GB/s column below), and lets
# ``.to(device, non_blocking=True)`` return at once: the copy is queued on the
# current CUDA stream, later kernels on that stream wait for it, and the CPU
# is free to prepare the next batch meanwhile.
# ``DataLoader(..., pin_memory=True)`` returns pinned batches for exactly this.
#
# Two rules: do not modify the pinned source until the copy has finished, and
# synchronize before reading a tensor copied *to* the host with
# ``non_blocking=True``.
if device.type == "cuda":
    MiB = 2**20
    pageable = torch.randn(64 * MiB // 4)
    pinned = pageable.pin_memory()  # a pinned copy
    assert pinned.is_pinned() and not pageable.is_pinned()
    copy_rows = []
    for name, src in [("pageable", pageable), ("pinned", pinned)]:
        ms = median_ms(lambda: src.to(device), device)
        copy_rows.append(
            {"64 MiB copy from": name, "ms": ms, "GB/s": 64 * MiB / ms / 1e6}
        )
    print(
        pd.DataFrame(copy_rows).to_string(
            index=False, float_format="{:.2f}".format
        )
    )

    torch.cuda.synchronize()
    start = time.perf_counter()
    on_gpu = pinned.to(
        device, non_blocking=True
    )  # returns before the copy ends
    doubled = (
        on_gpu * 2
    )  # queued behind the copy on the same stream: sees the data
    queued_ms = 1e3 * (time.perf_counter() - start)
    torch.cuda.synchronize()
    waited_ms = 1e3 * (time.perf_counter() - start)
    print(
        f"non_blocking copy + multiply: control back after {queued_ms:.3f} ms, "
        f"finished after {waited_ms:.3f} ms"
    )
    assert queued_ms < waited_ms
    back = doubled.to("cpu", non_blocking=True)  # device-to-host: ...
    torch.cuda.synchronize()  # ... wait before reading it on the CPU
    assert torch.equal(back, pageable * 2)
else:
    print(
        "No GPU: pin_memory() needs one (it raises RuntimeError here). On a GPU this cell "
        "times a 64 MiB host-to-device copy from pageable and from pinned memory, and "
        "shows that a non_blocking copy returns before the data has arrived."
    )

# %%
# Mixed precision with ``torch.autocast``
# ---------------------------------------
# Inside ``with torch.autocast(device_type, dtype)``, operations that are safe
# and fast in lower precision (matrix products, convolutions, linear layers)
# run in ``bfloat16`` or ``float16``, while precision-sensitive ones (losses,
# reductions such as ``cross_entropy``) stay in ``float32``. The parameters
# themselves stay ``float32``; autocast casts copies on the fly. ``bfloat16``
# has ``float32``'s exponent range but only 8 bits of precision (2 to 3
# significant digits), so results agree to within about 1 %. It runs on CPUs
# too:
layer = nn.Linear(256, 128)
inputs, labels = torch.randn(64, 256), torch.randint(0, 128, (64,))
if torch.amp.is_autocast_available("cpu"):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        out_bf16 = layer(inputs)
        loss = F.cross_entropy(out_bf16, labels)
    out_fp32 = layer(inputs)
    print(
        f"inside autocast: linear -> {out_bf16.dtype}, cross_entropy -> {loss.dtype}, "
        f"weight stays {layer.weight.dtype}"
    )
    rel_err = ((out_bf16.float() - out_fp32).norm() / out_fp32.norm()).item()
    print(f"relative error of the bf16 linear layer: {rel_err:.4f}")
    assert out_bf16.dtype == torch.bfloat16 and loss.dtype == torch.float32
    assert layer.weight.dtype == torch.float32
    torch.testing.assert_close(
        out_bf16.float(), out_fp32, rtol=1.6e-2, atol=1.6e-2
    )
    loss.backward()
    assert (
        layer.weight.grad.dtype == torch.float32
    )  # gradients match the fp32 weights
else:
    print("This PyTorch build has no CPU autocast.")

# %%
# A device-agnostic mixed-precision training loop. ``float16`` has a narrow
# exponent range, so small gradients can underflow to zero; a
# ``torch.amp.GradScaler`` multiplies the loss before ``backward`` and divides
# the gradients again before the step. ``bfloat16`` does not need it. We use
# ``bfloat16`` wherever it is supported and enable the scaler only for
# ``float16`` (with ``enabled=False`` its methods pass everything through).
use_bf16 = device.type == "cpu" or torch.cuda.is_bf16_supported()
amp_dtype = torch.bfloat16 if use_bf16 else torch.float16
torch.manual_seed(0)
small = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).to(
    device
)
opt = torch.optim.SGD(small.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(device.type, enabled=amp_dtype == torch.float16)
xb = torch.randn(256, 32, device=device)
yb = xb[:, :10].argmax(
    dim=1
)  # a learnable rule: where the largest of 10 inputs is
losses = []
for step in range(30):
    with torch.autocast(device_type=device.type, dtype=amp_dtype):
        loss = F.cross_entropy(small(xb), yb)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    losses.append(loss.item())
print(
    f"autocast {str(amp_dtype).removeprefix('torch.')} on {device.type}: "
    f"loss {losses[0]:.3f} -> {losses[-1]:.3f} in 30 steps"
)
assert losses[-1] < 0.9 * losses[0]

# %%
# The speed-up comes from tensor cores: on a recent NVIDIA GPU a
# ``bfloat16`` matrix product runs many times faster than a ``float32`` one.
# On a CPU without bf16 matrix units autocast may even be slower; there its
# main gain is memory.
if device.type == "cuda":
    a = torch.randn(4096, 4096, device=device)

    def autocast_matmul():
        with torch.autocast(device_type="cuda", dtype=amp_dtype):
            return a @ a

    fp32_ms = median_ms(lambda: a @ a, device)
    amp_ms = median_ms(autocast_matmul, device)
    print(
        f"4096 matmul: float32 {fp32_ms:.3f} ms, autocast {amp_dtype} {amp_ms:.3f} ms "
        f"({fp32_ms / amp_ms:.1f}x)"
    )
    assert amp_ms < fp32_ms
else:
    print(
        "No GPU: on one, this cell times a 4096 x 4096 matmul in float32 and under autocast."
    )

# %%
# .. note:: Old code you may meet: ``torch.cuda.amp.autocast()`` and
#    ``torch.cuda.amp.GradScaler()`` (deprecated aliases; the device is now an
#    argument: ``torch.autocast("cuda")``, ``torch.amp.GradScaler("cuda")``),
#    and NVIDIA's separate ``apex.amp`` package, which autocast replaced.
#
# Several GPUs
# ------------
# ``nn.DataParallel(model)`` was the early one-line answer: one process
# splits each batch across the GPUs, copies the model to every GPU on *every*
# forward pass, and gathers outputs and gradients on GPU 0. Its threads
# share one Python interpreter and GPU 0 does extra work, so it scales poorly,
# and it cannot span machines. Today's answer is
# ``nn.parallel.DistributedDataParallel`` (DDP): one process per GPU, each
# with its own copy of the model and its own share of the data (via
# ``DistributedSampler``); during ``backward`` the gradients are averaged
# across processes with all-reduce, in buckets that overlap with the rest of
# the backward pass. It works the same on one machine or many and is started
# with ``torchrun --nproc-per-node=<gpus> train.py``. The PyTorch docs
# recommend DDP even on a single machine. See
# :ref:`sphx_glr_lessons_advanced_05_distributed_data_parallel.py`.
print(f"GPUs visible: {torch.cuda.device_count()}")
assert hasattr(nn, "DataParallel") and hasattr(
    nn.parallel, "DistributedDataParallel"
)
assert not hasattr(nn, "Parallel")
print("torch.nn.Parallel exists:", hasattr(nn, "Parallel"))

# %%
# .. note:: Old code you may meet: ``net = torch.nn.Parallel(model).cuda()``.
#    There never was a ``torch.nn.Parallel`` (the class meant is
#    ``nn.DataParallel``, and it wraps a model *instance*, not its class).
#    Use DDP, launched with ``torchrun``.
#
# Summary
# -------
# Pick ``device`` once; move the model once (in place) and every batch
# (assign the result); create new tensors with ``device=`` or ``*_like`` /
# ``new_*``; synchronize before reading a timer; let the caching allocator
# handle allocations in the loop; pin host memory to overlap copies with
# compute; use ``torch.autocast`` for speed; use DDP for more than one GPU.
# Next: :ref:`sphx_glr_lessons_advanced_03_for_lua_torch_users.py`.
