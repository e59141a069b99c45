"""
Graphs today: tf.function and torch.compile
===========================================

Both frameworks run eager code by default and offer a compiler that
captures a graph from Python: ``torch.compile`` and TensorFlow 2's
``tf.function``. This lesson trains one network with both, checks the
losses against eager mode, and shows where capture differs from plain
Python: data-dependent branches and changing Python numbers.
"""

# %%
# Data, starting weights and device
# ---------------------------------
# The float64 data and weights of
# :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py`, over 200
# steps. MPS has no float64, so on a Mac the PyTorch side runs on the CPU.
import time

import numpy as np
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
if device.type == "mps":
    device = torch.device("cpu")
print(f"PyTorch runs on: {device.type}")

N, D_in, H, D_out = 64, 1000, 100, 10
learning_rate, steps = 5e-7, 200
rng = np.random.default_rng(0)
x_np, y_np = rng.standard_normal((N, D_in)), rng.standard_normal((N, D_out))
w1_np, w2_np = rng.standard_normal((D_in, H)), rng.standard_normal((H, D_out))
# sphinx_gallery_tags = ["advanced", "compile", "tensorflow", "performance"]

# %%
# Eager PyTorch, timed step by step
# ---------------------------------
# ``loss.item()`` copies the loss to the host, so each timed step waits
# for the device to finish.
x_t, y_t = torch.from_numpy(x_np).to(device), torch.from_numpy(y_np).to(device)


def torch_loss(x, y, w1, w2):
    return (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()


def train_torch(loss_fn):
    w1 = torch.tensor(w1_np, device=device, requires_grad=True)
    w2 = torch.tensor(w2_np, device=device, requires_grad=True)
    losses, times = [], []
    for _ in range(steps):
        start = time.perf_counter()
        loss = loss_fn(x_t, y_t, w1, w2)
        loss.backward()
        with torch.no_grad():
            w1 -= learning_rate * w1.grad
            w2 -= learning_rate * w2.grad
        w1.grad, w2.grad = None, None
        losses.append(loss.item())
        times.append(time.perf_counter() - start)
    return losses, times


curves, step_times = {}, {}
curves["PyTorch eager"], step_times["PyTorch eager"] = train_torch(torch_loss)

# %%
# ``torch.compile``
# -----------------
# On the first call, ``torch.compile`` follows the function's Python code,
# recording its tensor operations into a graph; it derives a backward graph
# and hands both to a *backend*. The default, ``inductor``, generates and
# compiles C++ (or GPU) kernels, which takes far longer than this network
# takes to train, so we use ``aot_eager``: it captures both graphs the same
# way but runs them with PyTorch's ordinary kernels.
compiled = torch.compile(torch_loss, backend="aot_eager")
curves["torch.compile"], step_times["torch.compile"] = train_torch(compiled)
for name, curve in curves.items():
    print(f"{name:>13}: loss {curve[0]:.4e} -> {curve[-1]:.4e}")
gap = np.max(np.abs(np.subtract(*curves.values())) / curves["PyTorch eager"])
print(f"largest relative gap: {gap:.1e}")
assert gap < 1e-8

# %%
# Compiled and eager losses agree within the asserted tolerance. To see
# what was captured we pass our own backend: any function that receives
# the captured graph (a ``torch.fx.GraphModule``) and returns something to
# call. Ours records each graph and runs it unchanged.
graphs = []


def recording_backend(graph_module, example_inputs):
    graphs.append(graph_module)
    return graph_module.forward


torch.compile(torch_loss, backend=recording_backend)(
    x_t, y_t, torch.from_numpy(w1_np), torch.from_numpy(w2_np)
)
calls = [n for n in graphs[0].graph.nodes if n.op.startswith("call")]
ops = [getattr(n.target, "__name__", n.target) for n in calls]
print(f"{len(graphs)} graph; its operations: {ops}")
assert len(graphs) == 1 and len(ops) == 6

# %%
# One graph held the whole loss, all six tensor operations of it.
#
# Graph breaks: data-dependent branches
# -------------------------------------
# In eager mode, ``if x.sum() > 0:`` is plain Python: the condition becomes
# a ``bool`` each call. While capturing, the condition is a tensor whose
# value is not known yet. With ``fullgraph=True``, ``torch.compile``
# refuses such code. The error's class, ``Unsupported``, lives in a private
# module, so we catch its public base class, ``RuntimeError``.


def on_positive(x):
    return torch.sin(x) * 2


def on_negative(x):
    return torch.cos(x) - 1


def signed_step(x):
    if x.sum() > 0:
        return on_positive(x)
    return on_negative(x)


positive, negative = torch.ones(4), -torch.ones(4)
strict = torch.compile(signed_step, fullgraph=True, backend=recording_backend)
try:
    strict(positive)
except RuntimeError as err:
    print(f"raised {type(err).__name__}: {str(err).splitlines()[0]}")
else:
    raise AssertionError("fullgraph=True should have refused the branch")

# %%
# Without ``fullgraph=True`` the function still runs correctly: the
# compiler captures a graph up to the branch, lets Python evaluate the
# condition, and captures the branch taken as a further graph. That is a
# *graph break*.
graphs.clear()
compiled_step = torch.compile(signed_step, backend=recording_backend)
for x in (positive, negative):
    torch.testing.assert_close(compiled_step(x), signed_step(x))
    print(f"after an input of sign {x[0].item():+.0f}: {len(graphs)} graphs")
assert len(graphs) == 3

# %%
# One function became two graphs, and the second input added a third for
# the other branch.
#
# ``torch.cond``: both branches in one graph
# ------------------------------------------
# ``torch.cond(pred, true_fn, false_fn, operands)`` is a graph operation
# for a branch, like ``tf.cond``: both branches are captured as subgraphs
# and the choice happens when the graph runs. It compiles with
# ``fullgraph=True``, and autograd differentiates through it.


def signed_step_cond(x):
    return torch.cond(x.sum() > 0, on_positive, on_negative, (x,))


graphs.clear()
compiled_cond = torch.compile(
    signed_step_cond, fullgraph=True, backend=recording_backend
)
for x in (positive, negative):
    x = x.clone().requires_grad_()
    out = compiled_cond(x)
    (grad_x,) = torch.autograd.grad(out.sum(), x)
    torch.testing.assert_close(out, signed_step(x))
    (expected,) = torch.autograd.grad(signed_step(x).sum(), x)
    torch.testing.assert_close(grad_x, expected)
subgraphs = [name for name, _ in graphs[0].named_children()]
print(f"graphs for both signs: {len(graphs)}, subgraphs: {subgraphs}")
assert len(graphs) == 1 and len(subgraphs) == 2

# %%
# One graph served both signs, with the same values and gradients as eager
# code.
#
# Python numbers are constants of the graph
# -----------------------------------------
# A Python ``int`` argument is not a tensor, so it is baked into the
# captured graph, and a ``for`` loop over it is unrolled. A new value needs
# a new graph: a *recompile*. Values seen before reuse their graph.


def repeat_tanh(x, depth):
    for _ in range(depth):
        x = torch.tanh(x)
    return x


graphs.clear()
compiled_repeat = torch.compile(repeat_tanh, backend=recording_backend)
counts = []
for depth in [1, 2, 3, 2, 1]:
    compiled_repeat(positive, depth)
    counts.append(len(graphs))
n_ops = [sum(n.op == "call_function" for n in g.graph.nodes) for g in graphs]
print(f"graphs after depths 1, 2, 3, 2, 1: {counts}; ops in each: {n_ops}")
assert counts == [1, 2, 3, 3, 3] and n_ops == [1, 2, 3]

# %%
# Three distinct values, three graphs, each with the loop unrolled into
# ``depth`` operations; values seen before reused their graph.
#
# TensorFlow 2: ``tf.function``
# -----------------------------
# We import TensorFlow only after ``torch.compile`` has loaded its compiler
# libraries: loading the two frameworks' native libraries in the other
# order in one process can conflict. The environment variables are those
# of :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py`.
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import tensorflow as tf

tf_device = "GPU" if tf.config.list_physical_devices("GPU") else "CPU"
print(f"TensorFlow {tf.__version__} runs on: {tf_device}")

# %%
# A TF2 training step records the forward on a ``GradientTape``. Wrapped in
# ``tf.function``, the Python body runs once with symbolic tensors
# (*tracing*), and later calls run the recorded graph. A list in the body
# counts how often the Python code ran.
body_runs = []


def make_tf_step(w1, w2):
    def train_step(x, y):
        body_runs.append(1)  # Python: runs in eager mode or while tracing
        with tf.GradientTape() as tape:
            y_pred = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
            loss = tf.reduce_sum((y_pred - y) ** 2)
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(learning_rate * g1)
        w2.assign_sub(learning_rate * g2)
        return loss

    return train_step


# %%
# The same step, eager and as a ``tf.function``, trained and timed:
x_tf, y_tf = tf.constant(x_np), tf.constant(y_np)
for name, wrap in [("TF2 eager", lambda f: f), ("tf.function", tf.function)]:
    step = wrap(make_tf_step(tf.Variable(w1_np), tf.Variable(w2_np)))
    body_runs.clear()
    losses, times = [], []
    for _ in range(steps):
        start = time.perf_counter()
        losses.append(float(step(x_tf, y_tf)))  # float() waits for it
        times.append(time.perf_counter() - start)
    curves[name], step_times[name] = losses, times
    print(f"{name:>11}: Python body ran {len(body_runs)} times")
assert len(body_runs) == 1  # the tf.function traced once
reference = np.array(curves["PyTorch eager"])
for name, curve in curves.items():
    assert np.max(np.abs(np.array(curve) - reference) / reference) < 1e-8

# %%
# Eager TensorFlow ran the body 200 times, ``tf.function`` once, and all
# four loss curves agree with eager PyTorch to a part in :math:`10^8`.
#
# ``tf.function`` retraces on Python values
# -----------------------------------------
# Like ``torch.compile``, a trace bakes in Python values: each new ``int``
# means a new trace. Passed as a tensor, the same ``for`` loop is rewritten
# by AutoGraph into a loop *operation*, and one trace serves every depth.
traces = []


@tf.function
def repeat_tanh_tf(x, depth):
    traces.append(depth)  # runs only while tracing
    for _ in range(depth):  # AutoGraph: a graph loop if depth is a tensor
        x = tf.tanh(x)
    return x


x_small = tf.ones(4)
for depth in [1, 2, 3, 2, 1]:
    repeat_tanh_tf(x_small, depth)
n_int = len(traces)
for depth in [1, 2, 3, 2, 1]:
    repeat_tanh_tf(x_small, tf.constant(depth))
n_tensor = len(traces) - n_int
print(f"traces: {n_int} for Python ints, {n_tensor} for tensors")
assert n_int == 3 and n_tensor == 1
traced = repeat_tanh_tf.get_concrete_function(x_small, tf.constant(1))
assert "StatelessWhile" in {op.type for op in traced.graph.get_operations()}

# %%
# The same three traces as ``torch.compile``'s three graphs for ints, and a
# single trace, holding a loop operation (``StatelessWhile``), for tensors.
#
# How long does a step take?
# --------------------------
# The first step of a compiled mode includes capturing (and for
# ``torch.compile``, compiling); the median of the other steps describes
# the steady state, and the fastest step what a step costs when nothing
# else competes. ``aot_eager`` runs eager mode's kernels, so it cannot gain
# from fusing them; that is what ``inductor`` is for. All these numbers
# depend on the machine, its load and the model size.
import pandas as pd

rows = [
    {
        "mode": name,
        "first step (ms)": 1e3 * times[0],
        "median step (ms)": 1e3 * float(np.median(times[1:])),
        "fastest step (ms)": 1e3 * min(times[1:]),
    }
    for name, times in step_times.items()
]
table = pd.DataFrame(rows)
print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))

# %%
# The fastest steps, least disturbed by other work on the machine:
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3))
ax.barh(table["mode"], table["fastest step (ms)"])
ax.set_xlabel("fastest training step (ms)")
ax.set_title("Two-layer net, float64: one training step")
ax.invert_yaxis()
fig.tight_layout()
plt.show()

# %%
# Summary
# -------
# Both compilers capture a graph by running Python once, and agree with
# eager mode. A branch on a tensor's value splits PyTorch's graph unless
# written with ``torch.cond``; AutoGraph makes a tensor loop a graph loop.
# Python numbers are constants of a captured graph: new values recompile or
# retrace. Whether capture pays off depends on model, backend and machine.
