"""
GPU performance: timing, memory, pinned copies and mixed precision
==================================================================

Timing work on an accelerator without fooling yourself, and mixed precision
in the 16-bit type your hardware supports. Going deeper, the CUDA-only
tools: events that watch the GPU's queue, the caching allocator, and
pinned-memory copies.

**You will learn** to time device work correctly (warm up, synchronize,
take a median), to pick the autocast dtype for CUDA, MPS, XPU or a CPU, and
to write one training loop with ``torch.autocast`` and ``GradScaler`` that
runs on every path.

**You need first** devices and moving data
(:ref:`sphx_glr_lessons_advanced_02_devices.py`) and a training loop with
an optimizer (:ref:`sphx_glr_lessons_nn_02_optim.py`).
"""

# %%
# Setup
# -----
# Accelerators run asynchronously: a call queues work and returns. ``sync``
# waits until the device has finished everything queued.
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")


def sync(dev):
    if dev.type != "cpu":
        torch.accelerator.synchronize()


# sphinx_gallery_tags = ["intermediate", "gpu", "performance"]

# %%
# Timing with synchronization
# ---------------------------
# Correct timing (1) warms up, so one-time costs such as library setup and
# the first allocation are not counted, (2) synchronizes before reading the
# clock, since otherwise it measures only how long queuing took, and (3)
# takes the median of repeats (``torch.utils.benchmark.Timer`` does this
# bookkeeping for you, on one CPU thread unless you pass ``num_threads``).
import statistics
import time


def median_ms(fn, dev, repeats=5):
    fn()  # warm-up
    sync(dev)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        sync(dev)
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


# %%
# A matrix product ``a @ b`` of two ``n x n`` float32 matrices costs
# ``2 n^3`` floating-point operations. We time it on the CPU and, when there
# is one, on the accelerator (up to 4096 only there: slow on a CPU).
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
for dev in dict.fromkeys([torch.device("cpu"), device]):  # no duplicates
    sizes = [64, 256, 1024] + ([2048, 4096] if dev.type != "cpu" else [])
    gflops = []
    for n in sizes:
        a, b = torch.randn(n, n, device=dev), torch.randn(n, n, device=dev)
        ms = median_ms(lambda: a @ b, dev, repeats=11)
        gflops.append(2 * n**3 / ms / 1e6)
    print(f"{dev.type}: " + ", ".join(f"{g:.3g}" for g in gflops))
    ax.loglog(sizes, gflops, "o-", label=dev.type)
ax.set(xlabel="matrix size n", ylabel="GFLOP/s (this run)")
ax.set_title("float32 matmul throughput, synchronized timing")
ax.legend()
plt.show()

# %%
# The printed lines are GFLOP/s for each size, one line per device this page
# ran on. Small products usually reach only a fraction of large ones'
# throughput, since fixed costs (launching the work, moving the operands
# into caches) weigh more; a GPU needs larger products than a CPU before it
# pays.
#
# Mixed precision: pick the dtype the hardware has
# ------------------------------------------------
# ``torch.autocast`` runs matrix products and convolutions in a 16-bit type
# and keeps precision-sensitive operations in float32. Which type:
#
# * CUDA, compute capability 8.0 or more (A100, H100, RTX 30xx on): bfloat16,
#   float32's exponent range, so no loss scaling.
# * Older CUDA GPUs (T4 is 7.5, V100 7.0): float16 with a ``GradScaler``.
# * MPS and XPU: this lesson takes float16 with a ``GradScaler`` there too;
#   many of these devices also run bfloat16, so check yours.
# * CPU: bfloat16 only with native bf16 instructions, else float32.
#   ``torch.cpu.get_capabilities()`` lists the CPU's instruction sets: on
#   x86 the bf16 ones are ``avx512_bf16`` and ``amx_bf16``, on Arm (Apple M2
#   and later, AWS Graviton3) ``bf16``.
caps = torch.cpu.get_capabilities()
native_bf16 = any(
    caps.get(k, False) for k in ["avx512_bf16", "amx_bf16", "bf16"]
)
amp_dtype = torch.float16
if device.type == "cuda":
    capability = torch.cuda.get_device_capability(device)
    if capability >= (8, 0):
        amp_dtype = torch.bfloat16
elif device.type == "cpu":
    print(f"CPU: {caps['architecture']}, native bf16: {native_bf16}")
    amp_dtype = torch.bfloat16
use_amp = device.type != "cpu" or native_bf16
use_scaler = use_amp and amp_dtype == torch.float16
kind = str(amp_dtype).removeprefix("torch.") if use_amp else "float32 only"
print(f"path taken on {device.type}: {kind}, GradScaler: {use_scaler}")

# %%
# The last line says which path this run took. On a T4 (Colab's free GPU)
# the same code takes float16 with a ``GradScaler``, on an A100 or H100
# bfloat16 without one.
#
# What autocast does, seen on the CPU
# -----------------------------------
# We look on the CPU, where bfloat16 autocast gives correct results on any
# CPU (only its speed depends on native support).
# Other devices follow the same scheme; their op lists differ in detail.
import torch.nn.functional as F
from torch import nn

layer = nn.Linear(256, 128)
inputs, labels = torch.randn(64, 256), torch.randint(0, 128, (64,))
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    out_bf16 = layer(inputs)
    loss = F.cross_entropy(out_bf16, labels)
loss.backward()
out_fp32 = layer(inputs)
print(f"linear -> {out_bf16.dtype}, cross_entropy -> {loss.dtype}")
print(f"weight and its grad stay {layer.weight.grad.dtype}")
diff = (out_bf16.float() - out_fp32).abs().max().item()
size = out_fp32.abs().mean().item()
print(f"largest difference {diff:.4f}; outputs average {size:.2f} in size")
# sphinx_gallery_start_ignore
assert out_bf16.dtype == torch.bfloat16 and loss.dtype == torch.float32
assert layer.weight.dtype == layer.weight.grad.dtype == torch.float32
torch.testing.assert_close(out_bf16.float(), out_fp32, rtol=0, atol=2e-2)
# sphinx_gallery_end_ignore

# %%
# The linear layer ran in bfloat16, while the loss was computed in float32.
# The parameters and their gradients stay float32; autocast casts copies on
# the fly, and with bfloat16's 8 bits of precision every output stays within
# 0.02 of float32 here.
#
# NumPy has no bfloat16, so ``.numpy()`` refuses a bfloat16 tensor; convert
# it with ``.float()`` first:
try:
    out_bf16.detach().numpy()
except TypeError as err:
    print(f"raised TypeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError(".numpy() should refuse bfloat16")
# sphinx_gallery_end_ignore
as_array = out_bf16.detach().float().numpy()
print(f"after .float(): a NumPy {as_array.dtype} array, {as_array.shape}")

# %%
# ``.float()`` made a float32 copy, which NumPy can hold. (A float16 tensor
# needs no such step: NumPy has a float16 type.)
#
# One training loop for every path
# --------------------------------
# With ``enabled=False``, autocast and the scaler pass everything through, so
# one loop serves all devices. The scaler multiplies the loss before
# ``backward`` so small float16 gradients do not underflow, and divides the
# gradients again before the step.
torch.manual_seed(0)
small = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
small = small.to(device)
opt = torch.optim.SGD(small.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(device.type, enabled=use_scaler)
xb = torch.randn(256, 32).to(device)
yb = xb[:, :10].argmax(dim=1)  # a rule to learn: where the largest input is
losses = []
for step in range(30):
    with torch.autocast(device.type, dtype=amp_dtype, enabled=use_amp):
        loss = F.cross_entropy(small(xb), yb)
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    losses.append(loss.item())
print(f"{kind} on {device.type}: loss {losses[0]:.3f} -> {losses[-1]:.3f}")
# sphinx_gallery_start_ignore
assert losses[-1] < 0.9 * losses[0]
# sphinx_gallery_end_ignore

# %%
# The loss fell on the path this page took; the same loop, unchanged, runs the
# float16-and-scaler path on older GPUs.
#
# Going deeper
# ------------
# Optional on a first read: whether autocast is faster here, clipping and
# checkpoints with a scaler, then three CUDA-only tools. Without a CUDA GPU
# those cells print "skipped"; the text after each says what a reader on a
# CUDA GPU will see, and why.
#
# Is autocast faster?
# ~~~~~~~~~~~~~~~~~~~
# It depends on the hardware, so we measure it where the lesson chose to use
# it, and assert nothing:
if use_amp:
    n = 4096 if device.type != "cpu" else 1024
    a = torch.randn(n, n, device=device)

    def autocast_matmul():
        with torch.autocast(device.type, dtype=amp_dtype):
            return a @ a

    fp32_ms = median_ms(lambda: a @ a, device)
    amp_ms = median_ms(autocast_matmul, device)
    print(f"{n} matmul: float32 {fp32_ms:.2f} ms, {kind} {amp_ms:.2f} ms")
else:
    print("skipped: this CPU has no native bf16, so no autocast timing")

# %%
# These are this run's numbers; measure on your machine before deciding that
# mixed precision pays. On CUDA GPUs of compute capability 8.0 or more,
# float32 matrix products can also run in TF32 (set
# ``torch.backends.cuda.matmul.fp32_precision`` to ``"tf32"``), which is off
# by default for matrix products. Once you use that setting, reading the
# older ``torch.backends.cuda.matmul.allow_tf32`` flag raises an error that
# says you mixed the two ways, so use only the new one.
#
# Clipping and checkpoints with a ``GradScaler``
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Between ``scaler.scale(loss).backward()`` and ``scaler.step(opt)`` the
# gradients are multiplied by the scaler's scale. Clipping them to a norm
# needs their true size, so call ``scaler.unscale_(opt)`` first; ``step``
# then knows they are unscaled and does not divide again. A checkpoint
# saves ``scaler.state_dict()`` beside the model's and the optimizer's, so
# that a resumed run keeps the scale it had found. To show it on every
# machine, this scaler is enabled on the CPU, with a scale of 1024:
torch.manual_seed(0)  # the same network whatever ran before
net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
net_opt = torch.optim.SGD(net.parameters(), lr=0.1)
scaler16 = torch.amp.GradScaler("cpu", init_scale=1024.0)
x_cpu, y_cpu = xb.cpu(), yb.cpu()
with torch.autocast("cpu", dtype=torch.bfloat16):
    loss = F.cross_entropy(net(x_cpu), y_cpu)
net_opt.zero_grad()
scaler16.scale(loss).backward()
scaled = torch.stack([p.grad.norm() for p in net.parameters()]).norm()
scaler16.unscale_(net_opt)  # the true gradients, before clipping
norm = nn.utils.clip_grad_norm_(net.parameters(), max_norm=1.0)
scaler16.step(net_opt)
scaler16.update()
print(f"gradient norm: {scaled:.1f} scaled, {norm:.3f} after unscale_")
checkpoint = {"model": net.state_dict(), "opt": net_opt.state_dict()}
checkpoint["scaler"] = scaler16.state_dict()
print(f"saved scale: {checkpoint['scaler']['scale']}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(scaled / norm, torch.tensor(1024.0))
# sphinx_gallery_end_ignore

# %%
# Before ``unscale_`` the norm was 1024 times too large; clipping it at 1.0
# would have shrunk every step about a thousandfold. The scale goes into the
# checkpoint; ``GradScaler.load_state_dict`` restores it.
#
# Watching the queue (CUDA only)
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# CUDA *events* are markers in a stream's queue: ``record()`` queues one,
# ``query()`` says whether the GPU has reached it, ``elapsed_time`` measures
# GPU time between two. We queue twenty large products and ask, as soon as
# Python has control back, whether the GPU is done.
if device.type == "cuda":
    a = torch.randn(4096, 4096, device=device)
    a @ a  # warm-up
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    host_start = time.perf_counter()
    start.record()
    for _ in range(20):
        c = a @ a
    end.record()
    host_ms = 1e3 * (time.perf_counter() - host_start)
    still_busy = not end.query()
    end.synchronize()  # wait for the GPU to reach the end marker
    gpu_ms = start.elapsed_time(end)
    print(f"back in Python after {host_ms:.1f} ms, GPU busy: {still_busy}")
    print(f"GPU time between the events: {gpu_ms:.1f} ms")
    # sphinx_gallery_start_ignore
    assert still_busy and end.query()
    # sphinx_gallery_end_ignore
else:
    print(f"skipped on {device.type}: this uses torch.cuda.Event;")
    print("the device-generic event is torch.Event")

# %%
# On a CUDA GPU the first line reports ``GPU busy: True`` after a few
# milliseconds, while the GPU time between the events is far longer: twenty
# products of 4096 x 4096 matrices are more than 2.7 trillion operations,
# tens of milliseconds even on the fastest GPUs, but queuing them takes
# Python well under that. A clock read without synchronizing would have
# measured only the queuing. (On a CUDA GPU the page's hidden checks assert
# exactly this.)
#
# The CUDA caching allocator (CUDA only)
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Asking the driver for GPU memory and giving it back is slow and makes the
# device wait, so PyTorch keeps freed blocks in a cache and hands them out
# again. ``torch.cuda.memory_allocated()`` counts live tensors;
# ``memory_reserved()`` counts what the cache holds from the driver (live
# tensors plus free cached blocks). Both include whatever else this process
# holds, so we take a baseline and report differences from it.
MiB = 2**20
if device.type == "cuda":
    torch.cuda.synchronize()
    torch.cuda.empty_cache()  # return free cached blocks to the driver
    torch.cuda.reset_peak_memory_stats()
    base_alloc = torch.cuda.memory_allocated()
    base_res = torch.cuda.memory_reserved()
    stages = []

    def record(stage):
        alloc = (torch.cuda.memory_allocated() - base_alloc) / MiB
        res = (torch.cuda.memory_reserved() - base_res) / MiB
        stages.append((alloc, res))
        print(f"{stage:22s} allocated {alloc:+6.1f} MiB, reserved {res:+6.1f}")


# %%
# A 64 MiB tensor is created and deleted; then a loop allocates and frees a
# tensor of the same size twenty times, as a training loop does.
if device.type == "cuda":
    block = torch.empty(64 * MiB // 4, device=device)  # 64 MiB of float32
    record("64 MiB tensor")
    del block
    record("tensor deleted")
    for _ in range(20):
        block = torch.ones(64 * MiB // 4, device=device)
        del block
    record("20 alloc/free rounds")
    peak = (torch.cuda.max_memory_allocated() - base_alloc) / MiB
    torch.cuda.empty_cache()
    record("empty_cache()")
    print(f"peak allocated since the baseline: +{peak:.1f} MiB")
    (a1, r1), (a2, r2), (a3, r3), (a4, r4) = stages
    # sphinx_gallery_start_ignore
    assert a1 == 64 and r1 >= 64 and a2 == 0 and r2 == r1  # freed, cached
    assert r3 == r1 and peak == 64 and r4 <= 0  # reused, then returned
    # sphinx_gallery_end_ignore
else:
    print(f"skipped on {device.type}: this shows the CUDA allocator;")
    print("device-generic counters: torch.accelerator.memory_allocated()")

# %%
# What a CUDA GPU prints, and why: after the 64 MiB tensor *allocated*
# rises by exactly 64 MiB and *reserved* by at least that. Deleting it
# drops *allocated* back to the baseline, while *reserved* stays: the block
# waits in the cache. The twenty rounds reuse that block, so *reserved* does
# not grow and the peak stays at 64 MiB; only
# ``empty_cache()`` hands it back to the driver. So creating tensors inside
# a training loop is fine, and ``empty_cache()`` is rarely needed.
#
# Pinned memory (CUDA only)
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# A copy from ordinary (pageable) host memory is staged through a pinned
# buffer; from pinned (page-locked) memory the GPU reads directly, and
# ``non_blocking=True`` returns before the copy ends
# (:ref:`sphx_glr_lessons_advanced_02_devices.py` explains the rules). We
# time 64 MiB from each kind of memory (no winner is asserted), then check
# that a ``non_blocking`` copy of 256 MiB is still running when ``.to``
# returns: an event recorded right after it is not yet reached.
if device.type == "cuda":
    pageable = torch.randn(64 * MiB // 4)
    pinned = pageable.pin_memory()
    for name, src in [("pageable", pageable), ("pinned", pinned)]:
        ms = median_ms(lambda: src.to(device), device)
        gb_per_s = 64 * MiB / ms / 1e6
        print(f"64 MiB from {name:8s}: {ms:6.2f} ms, {gb_per_s:5.1f} GB/s")
    big = torch.ones(256 * MiB // 4).pin_memory()
    torch.cuda.synchronize()
    on_gpu = big.to(device, non_blocking=True)
    copied = torch.cuda.Event()
    copied.record()  # reached when the copy (queued before it) is done
    in_flight = not copied.query()
    copied.synchronize()
    print(f"copy in flight when .to() returned: {in_flight}")
    # sphinx_gallery_start_ignore
    assert in_flight and copied.query() and bool(on_gpu.eq(1).all())
    # sphinx_gallery_end_ignore
else:
    print(f"skipped on {device.type}: pinned memory is shown on CUDA only")


# %%
# What a CUDA GPU prints, and why: the pinned copy is usually faster, since
# the pageable one is staged through a pinned buffer first, but by how much
# depends on the machine, so nothing is asserted. The 256 MiB copy is still
# in flight when ``.to`` returns (it takes milliseconds even over the
# fastest PCIe links), so the CPU is free to prepare the next batch
# meanwhile.
#
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``torch.cuda.amp.autocast()`` and ``torch.cuda.amp.GradScaler()``:
#      deprecated aliases of ``torch.autocast("cuda")`` and
#      ``torch.amp.GradScaler("cuda")``; the ``torch.amp`` forms take the
#      device type, so one loop serves CUDA, MPS, XPU and the CPU.
#    - NVIDIA's ``apex.amp``: replaced by ``torch.autocast`` and
#      ``torch.amp.GradScaler``, built into PyTorch.
#    - ``torch.cuda.synchronize()`` in timing code:
#      ``torch.accelerator.synchronize()`` does the same on any accelerator.
#
# Takeaways
# ---------
# - Warm up, synchronize before reading the clock, and take a median: an
#   unsynchronized clock measures only the queuing.
# - Autocast dtype: bfloat16 on CUDA from compute capability 8.0 and on CPUs
#   with native bf16; float16 with a ``GradScaler`` on older GPUs.
# - One loop with ``torch.autocast(..., enabled=...)`` and
#   ``torch.amp.GradScaler(..., enabled=...)`` runs on every path.
# - Whether mixed precision is faster is a measurement, never an assumption.
#
# Next, :ref:`sphx_glr_lessons_advanced_05_custom_functions_compose.py`
# writes autograd Functions that compose with ``torch.func``.
