"""
Graphs today: tf.function and torch.compile
===========================================

Both frameworks run eager code by default and offer a compiler that
captures a graph from Python: ``torch.compile`` and TensorFlow 2's
``tf.function``. This lesson trains one network with both, checks the
losses against eager mode, and shows where capture differs from plain
Python: data-dependent branches. Going deeper: loops over Python numbers in
both compilers, and what a step costs in each mode.

**You will learn** to compile a function with ``torch.compile``, to look at
the graph it captured, what a *graph break* is, how ``torch.cond`` keeps a
branch in one graph, and how ``tf.function``'s tracing compares.

**You need first** static and dynamic graphs
(:ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py`) and
autograd (:ref:`sphx_glr_lessons_basics_04_autograd.py`). The TensorFlow
half needs TensorFlow installed (``pip install tensorflow``); without it
the lesson stops where that half begins.
"""

# %%
# Data, starting weights and device
# ---------------------------------
# The float64 data and weights of
# :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py`, over 200
# steps. MPS and some Intel GPUs have no float64; there the PyTorch side
# runs on the CPU.
import time

import numpy as np
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
if device.type == "mps" or (
    device.type == "xpu"
    and not torch.xpu.get_device_properties(device).has_fp64
):
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
# records its tensor operations into a graph and hands that to a *backend*.
# The default, ``inductor``, derives a backward graph (with AOTAutograd,
# the part of ``torch.compile`` that traces autograd ahead of time to turn
# the forward graph into a forward and a backward graph) and compiles C++
# or GPU kernels for both, which can take longer than this
# small network takes to train. So we use ``aot_eager``: it derives the
# backward graph the same way but runs both with PyTorch's usual kernels.
compiled = torch.compile(torch_loss, backend="aot_eager")
curves["torch.compile"], step_times["torch.compile"] = train_torch(compiled)
for name, curve in curves.items():
    print(f"{name:>13}: loss {curve[0]:.4e} -> {curve[-1]:.4e}")
gap = np.max(np.abs(np.subtract(*curves.values())) / curves["PyTorch eager"])
print(f"largest relative gap: {gap:.1e}")
# sphinx_gallery_start_ignore
assert gap < 1e-8
# sphinx_gallery_end_ignore

# %%
# Compiled and eager losses agree to about a part in a billion or better.
# To see what was captured we pass our own backend: any function that
# receives the captured graph (a ``torch.fx.GraphModule``) and returns
# something to call. Ours records each (forward) graph and runs it
# unchanged.
graphs = []


def record(graph_module, example_inputs):
    graphs.append(graph_module)
    return graph_module.forward


w1_t, w2_t = (torch.from_numpy(w).to(device) for w in (w1_np, w2_np))
torch.compile(torch_loss, backend=record)(x_t, y_t, w1_t, w2_t)
calls = [n for n in graphs[0].graph.nodes if n.op.startswith("call")]
ops = [getattr(n.target, "__name__", n.target) for n in calls]
print(f"{len(graphs)} graph; its operations: {ops}")
# sphinx_gallery_start_ignore
assert len(graphs) == 1 and len(ops) == 6
# sphinx_gallery_end_ignore

# %%
# One graph held the whole loss, all six tensor operations of it.
#
# Graph breaks: data-dependent branches
# -------------------------------------
# In eager mode, ``if x.sum() > 0:`` is plain Python: the condition becomes
# a ``bool`` each call. While capturing, it is a tensor whose value is not
# known yet, and with ``fullgraph=True`` ``torch.compile`` refuses such
# code. Its error class, ``Unsupported``, lives in a private module, so we
# catch its public base class, ``RuntimeError``, and print the class name.


def on_positive(x):
    return torch.sin(x) * 2


def on_negative(x):
    return torch.cos(x) - 1


def signed_step(x):
    if x.sum() > 0:
        return on_positive(x)
    return on_negative(x)


positive, negative = torch.ones(4), -torch.ones(4)
strict = torch.compile(signed_step, fullgraph=True, backend=record)
try:
    strict(positive)
except RuntimeError as err:
    print(f"raised {type(err).__name__}: {str(err).splitlines()[0]}")
    # sphinx_gallery_start_ignore
    assert type(err).__name__ == "Unsupported"
    # sphinx_gallery_end_ignore
else:
    raise AssertionError("fullgraph=True should have refused the branch")

# %%
# Without ``fullgraph=True`` the function still runs correctly: the
# compiler captures a graph up to the branch, lets Python evaluate the
# condition, and captures the branch taken as a further graph. That is a
# *graph break*.
graphs.clear()
compiled_step = torch.compile(signed_step, backend=record)
counts = []
for x in (positive, negative):
    same = torch.equal(compiled_step(x), signed_step(x))
    counts.append(len(graphs))
    print(
        f"sign {x[0].item():+.0f}: same as eager {same}, {len(graphs)} graphs"
    )
# sphinx_gallery_start_ignore
assert counts == [2, 3]
for x in (positive, negative):
    torch.testing.assert_close(compiled_step(x), signed_step(x))
# sphinx_gallery_end_ignore

# %%
# One function became two graphs, and the second input added a third for
# the other branch. (``torch.cond``, under "Going deeper", keeps both
# branches in one graph.)
#
# TensorFlow 2: ``tf.function``
# -----------------------------
# The environment variables are those of
# :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py`.
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


def train_step(x, y, w1, w2):
    body_runs.append(1)  # Python: runs in eager mode or while tracing
    with tf.GradientTape() as tape:
        y_pred = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
        loss = tf.reduce_sum((y_pred - y) ** 2)
    g1, g2 = tape.gradient(loss, [w1, w2])
    w1.assign_sub(learning_rate * g1)
    w2.assign_sub(learning_rate * g2)
    return loss


# %%
# The same step, eager and as a ``tf.function``, trained and timed:
x_tf, y_tf = tf.constant(x_np), tf.constant(y_np)
runs = {}
for name, wrap in [("TF2 eager", lambda f: f), ("tf.function", tf.function)]:
    step, w1, w2 = wrap(train_step), tf.Variable(w1_np), tf.Variable(w2_np)
    body_runs.clear()
    losses, times = [], []
    for _ in range(steps):
        start = time.perf_counter()
        losses.append(float(step(x_tf, y_tf, w1, w2)))  # float(): waits
        times.append(time.perf_counter() - start)
    curves[name], step_times[name] = losses, times
    runs[name] = len(body_runs)
    print(f"{name:>11}: Python body ran {runs[name]} times")
reference = np.array(curves["PyTorch eager"])
for name in ["torch.compile", "TF2 eager", "tf.function"]:
    rel = np.max(np.abs(np.array(curves[name]) - reference) / reference)
    print(f"{name:>13}: largest relative gap to PyTorch eager {rel:.1e}")
# sphinx_gallery_start_ignore
assert runs == {"TF2 eager": steps, "tf.function": 1}
for name, curve in curves.items():
    assert np.max(np.abs(np.array(curve) - reference) / reference) < 1e-8
# sphinx_gallery_end_ignore

# %%
# Eager TensorFlow ran the body 200 times, ``tf.function`` once, and all
# four loss curves agree with eager PyTorch to better than a part in
# :math:`10^8`.
#
# Going deeper
# ------------
# Optional on a first read: ``torch.cond``, which keeps a branch in one
# graph, how both compilers treat loops over Python numbers, and what a
# training step costs in each mode.
#
# ``torch.cond``: both branches in one graph
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``torch.cond(pred, true_fn, false_fn, operands)`` is a graph operation
# for a branch, like ``tf.cond``: both branches are captured as subgraphs
# and the choice happens when the graph runs. It compiles with
# ``fullgraph=True``, and autograd differentiates through it. It is a
# *prototype* feature (its docs say so): both branches must take the same
# operands and return tensors of the same shapes and dtypes, without side
# effects such as appending to a Python list or changing a tensor from
# outside the branch in place (its docs allow in-place changes to a
# branch's own intermediate results).


def signed_step_cond(x):
    return torch.cond(x.sum() > 0, on_positive, on_negative, (x,))


graphs.clear()
compiled_cond = torch.compile(signed_step_cond, fullgraph=True, backend=record)
for x in (positive, negative):
    x = x.clone().requires_grad_()
    out = compiled_cond(x)
    (grad_x,) = torch.autograd.grad(out.sum(), x)
    (expected,) = torch.autograd.grad(signed_step(x).sum(), x)
    same = torch.equal(grad_x, expected)
    print(f"sign {x[0].item():+.0f}: gradient as eager {same}")
    # sphinx_gallery_start_ignore
    torch.testing.assert_close(out, signed_step(x))
    torch.testing.assert_close(grad_x, expected)
    # sphinx_gallery_end_ignore
subgraphs = [name for name, _ in graphs[0].named_children()]
print(f"graphs for both signs: {len(graphs)}, subgraphs: {subgraphs}")
# sphinx_gallery_start_ignore
assert len(graphs) == 1 and len(subgraphs) == 2
# sphinx_gallery_end_ignore

# %%
# One graph served both signs, with the same values and gradients as eager
# code.
#
# Loops over Python numbers are unrolled
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A Python ``int`` that drives a ``for`` loop is specialized: the loop is
# unrolled into the graph, and each new value needs a new graph, a
# *recompile*. Values seen before reuse their graph. Recompiles are capped
# (eight per function by default): past the cap, the compiler warns and
# runs new values eagerly, so a loop over many depths stops compiling. An
# ``int`` used only in arithmetic, as in ``x * n``, fares better.


def repeat_tanh(x, depth):
    for _ in range(depth):
        x = torch.tanh(x)
    return x


graphs.clear()
compiled_repeat = torch.compile(repeat_tanh, backend=record)
counts = []
for depth in [1, 2, 3, 2, 1]:
    compiled_repeat(positive, depth)
    counts.append(len(graphs))
n_ops = [sum(n.op == "call_function" for n in g.graph.nodes) for g in graphs]
print(f"graphs after depths 1, 2, 3, 2, 1: {counts}; ops in each: {n_ops}")
# sphinx_gallery_start_ignore
assert counts == [1, 2, 3, 3, 3] and n_ops == [1, 2, 3]
# sphinx_gallery_end_ignore
graphs.clear()
compiled_scale = torch.compile(lambda x, n: x * n, backend=record)
for n in range(1, 6):
    compiled_scale(positive, n)
inputs = [sum(n.op == "placeholder" for n in g.graph.nodes) for g in graphs]
print(f"x * n for n = 1 to 5: {len(graphs)} graphs, inputs {inputs}")
# sphinx_gallery_start_ignore
assert inputs == [1, 2]
for n in range(1, 6):
    torch.testing.assert_close(compiled_scale(positive, n), positive * n)
# sphinx_gallery_end_ignore

# %%
# Three depths, three graphs, each unrolled into ``depth`` operations;
# depths seen before reused theirs. For ``x * n``, five values took two
# graphs. The first call built ``n = 1`` into its graph, as it builds in
# every ``int``; when ``n`` changed, the compiler assumed it would keep
# changing, marked it *dynamic* and compiled a second graph that takes ``n``
# as an input, which served 3, 4 and 5 too. A loop cannot become
# such a graph: its length decides how many operations the graph has.
#
# ``tf.function`` retraces on Python values
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A trace bakes in Python values: each new ``int`` means a new trace.
# Passed as a tensor, the same ``for`` loop is rewritten by AutoGraph into
# a loop *operation*, and one trace serves every depth.
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
traced = repeat_tanh_tf.get_concrete_function(x_small, tf.constant(1))
op_types = {op.type for op in traced.graph.get_operations()}
print(
    f"the tensor trace holds a StatelessWhile: {'StatelessWhile' in op_types}"
)
# sphinx_gallery_start_ignore
assert n_int == 3 and n_tensor == 1
assert "StatelessWhile" in op_types
# sphinx_gallery_end_ignore

# %%
# The same three traces as ``torch.compile``'s three graphs for ints, and a
# single trace, holding a loop operation (``StatelessWhile``), for tensors.
#
# How long does a step take?
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# A compiled mode's first step includes capturing; the median of the other
# steps is the steady state, the fastest step the cost when nothing else
# competes. ``aot_eager`` runs eager mode's kernels, so it cannot gain from
# fusing them (``inductor`` can). All these numbers depend on the machine,
# its load and the model size.
import pandas as pd

ms = 1e3 * pd.DataFrame(step_times)  # a column per mode, a row per step
table = pd.concat([ms.iloc[0], ms[1:].median(), ms[1:].min()], axis=1)
table.columns = ["first step (ms)", "median step (ms)", "fastest step (ms)"]
print(table.to_string(float_format=lambda v: f"{v:.2f}"))

# %%
# The fastest steps, least disturbed by other work on the machine:
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
ax.barh(table.index[::-1], table["fastest step (ms)"][::-1])
ax.set_xlabel("fastest training step (ms)")
ax.set_title("Two-layer net, float64: one training step")
plt.show()

# %%
# The bars are this run's fastest steps; on another machine, or with
# ``inductor``, the order can change.
#
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``torch.jit.trace`` and ``torch.jit.script`` (TorchScript):
#      deprecated (calling them in torch 2.13 warns so);
#      ``torch.compile`` captures graphs from ordinary Python, and
#      ``torch.export`` produces a graph to deploy.
#    - TensorFlow 1's ``tf.Session``, ``tf.placeholder`` and
#      ``session.run``: TF2 runs eagerly and builds graphs with
#      ``tf.function``, as shown above.
#
# Takeaways
# ---------
# - ``torch.compile(fn)`` captures graphs from Python on the first call and
#   agrees with eager mode; a custom backend shows what it captured.
# - A branch on a tensor's value is a graph break (an error with
#   ``fullgraph=True``): the code still runs, as several graphs.
# - A Python ``int`` that drives a loop is built into the graph: new values
#   recompile, as they retrace ``tf.function``.
# - Whether capture pays off depends on model, backend and machine:
#   measure.
#
# Next, :ref:`sphx_glr_lessons_advanced_07_multiprocessing_hogwild.py`
# trains one model from several processes at once.
