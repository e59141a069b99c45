"""
Static graphs (TensorFlow) and dynamic graphs (PyTorch)
=======================================================

Both TensorFlow and PyTorch compute gradients from a graph of operations; they
differ in *when* that graph exists. This lesson trains the two-layer network of
the previous lessons in TensorFlow three ways (a TF1 graph run in a session,
TF2 eager code with ``GradientTape``, and a TF2 graph made by ``tf.function``)
and in PyTorch, from the same data and starting weights, and checks that all of
them produce the same loss curve. Then it turns to where the two designs really
differ: control flow that depends on the data.

.. tags:: intermediate, tensorflow, autograd, performance
"""

# %%
# Shared data and starting weights
# --------------------------------
# Everything starts from the same float64 NumPy arrays as in
# :ref:`sphx_glr_lessons_basics_02_numpy_warmup.py`, so any difference between
# the frameworks would show up in the loss. PyTorch is imported first; the
# ``torch._dynamo`` import is explained next to the TensorFlow import below.
import numpy as np
import torch
import torch._dynamo  # noqa: F401  (must be loaded before TensorFlow, see below)

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"PyTorch runs on: {device}")

N, D_in, H, D_out = 64, 1000, 100, 10
learning_rate, steps = 5e-7, 500  # as in the NumPy warm-up
rng = np.random.default_rng(0)
x_np = rng.standard_normal((N, D_in))
y_np = rng.standard_normal((N, D_out))
w1_np = rng.standard_normal((D_in, H))
w2_np = rng.standard_normal((H, D_out))
print(
    f"x {x_np.shape}, y {y_np.shape}, w1 {w1_np.shape}, w2 {w2_np.shape}, dtype {x_np.dtype}"
)

# %%
# Importing TensorFlow quietly
# ----------------------------
# ``TF_CPP_MIN_LOG_LEVEL=3`` hides TensorFlow's C++ log lines, but it must be
# set before the import. TensorFlow 2.21 still writes a few start-up lines
# (oneDNN and CUDA-driver notices) from its native libraries before that
# setting takes effect, so we also point the process's stderr at ``/dev/null``
# for the duration of the import only.
#
# Two more details make TensorFlow a good neighbour to PyTorch in one process:
# on a GPU, TensorFlow would otherwise reserve almost all GPU memory at start,
# so we ask it to grow its allocation on demand; and ``torch.compile`` loads
# Triton (where installed), and with torch 2.13 and TensorFlow 2.21 loading
# Triton's native library *after* TensorFlow's crashed the process when this
# lesson was written. Importing ``torch._dynamo`` first, as above, loads it
# early.
import contextlib
import os
import sys

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"


@contextlib.contextmanager
def native_stderr_silenced():
    """Send file descriptor 2 (C/C++ stderr) to /dev/null inside the block."""
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


with native_stderr_silenced():
    import tensorflow as tf

for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
tf_device = "GPU" if tf.config.list_physical_devices("GPU") else "CPU"
print(f"TensorFlow {tf.__version__} runs on: {tf_device}")

# %%
# TensorFlow 1: build a graph, then run it in a session
# -----------------------------------------------------
# In TF1 style, Python code does not compute anything. It *describes* a graph:
# placeholders stand for data that will be fed later, variables hold state
# between runs, and ``tf.compat.v1.gradients`` adds the backward operations to
# the graph symbolically. Even the weight update is a graph operation. We build
# the graph inside ``tf.Graph().as_default()`` so the rest of the program stays
# in TF2's eager mode.
import time

g = tf.Graph()
with g.as_default():
    x_ph = tf.compat.v1.placeholder(tf.float64, shape=(None, D_in))
    y_ph = tf.compat.v1.placeholder(tf.float64, shape=(None, D_out))
    w1_v = tf.Variable(w1_np)  # initial values are baked into the graph
    w2_v = tf.Variable(w2_np)

    h_relu = tf.maximum(tf.matmul(x_ph, w1_v), 0.0)
    y_pred = tf.matmul(h_relu, w2_v)
    loss = tf.reduce_sum((y_pred - y_ph) ** 2)
    grad_w1, grad_w2 = tf.compat.v1.gradients(loss, [w1_v, w2_v])
    with tf.control_dependencies([loss]):  # read the loss before updating
        train_op = tf.group(
            w1_v.assign_sub(learning_rate * grad_w1),
            w2_v.assign_sub(learning_rate * grad_w2),
        )
    init_op = tf.compat.v1.global_variables_initializer()

print(f"loss, before anything has run: {loss}")
print(f"the graph holds {len(g.get_operations())} operations")
assert (
    loss.graph is g and tf.executing_eagerly()
)  # still eager outside the block

# %%
# Running the graph is a separate step. A ``Session`` executes the part of the
# graph needed for the tensors you ask for, with placeholders filled from
# ``feed_dict``; the same graph runs 500 times.
loss_curves, step_times = {}, {}

with tf.compat.v1.Session(graph=g) as sess:
    sess.run(init_op)
    losses, times = [], []
    for t in range(steps):
        start = time.perf_counter()
        loss_value, _ = sess.run(
            [loss, train_op], feed_dict={x_ph: x_np, y_ph: y_np}
        )
        times.append(time.perf_counter() - start)
        losses.append(float(loss_value))
(
    loss_curves["TF1 graph + Session"],
    step_times[("TensorFlow", "TF1 graph + Session")],
) = losses, times
print(f"TF1: loss {losses[0]:.4e} -> {losses[-1]:.4e}")

# %%
# .. note:: Old code you may meet: ``tf.placeholder``, ``tf.Session()``,
#    ``tf.global_variables_initializer()`` and ``tf.random_normal`` at the top
#    level of ``tf``. TensorFlow 2 made eager execution the default and moved
#    the graph-and-session API under ``tf.compat.v1``, keeping it for old
#    code; ``tf.random_normal`` became ``tf.random.normal``.
#
# TensorFlow 2: eager execution with ``GradientTape``
# ---------------------------------------------------
# TF2 executes operations as Python reaches them, like PyTorch. To get
# gradients you record the forward pass on a ``GradientTape`` and ask the tape
# afterwards. We write the step once, as a function of its variables, so it can
# be reused unchanged for the graph version in the next section.


def make_tf_step(w1, w2):
    def train_step(x, y):
        with tf.GradientTape() as tape:
            y_pred = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
            loss = tf.reduce_sum((y_pred - y) ** 2)
        g1, g2 = tape.gradient(loss, [w1, w2])
        w1.assign_sub(learning_rate * g1)
        w2.assign_sub(learning_rate * g2)
        return loss

    return train_step


def train_tf(step_fn):
    x, y = tf.constant(x_np), tf.constant(y_np)
    losses, times = [], []
    for t in range(steps):
        start = time.perf_counter()
        loss_value = float(step_fn(x, y))  # float() waits for the result
        times.append(time.perf_counter() - start)
        losses.append(loss_value)
    return losses, times


eager_step = make_tf_step(tf.Variable(w1_np), tf.Variable(w2_np))
losses, times = train_tf(eager_step)
loss_curves["TF2 eager"], step_times[("TensorFlow", "TF2 eager")] = (
    losses,
    times,
)
print(f"TF2 eager: loss {losses[0]:.4e} -> {losses[-1]:.4e}")

# %%
# TensorFlow 2: graphs with ``tf.function``
# -----------------------------------------
# Wrapping the *same* Python function in ``tf.function`` turns it into a graph
# builder: on the first call TensorFlow runs the Python code once with symbolic
# tensors (*tracing*), records the operations into a graph, and from then on
# executes that graph without running the Python body again. A list appended to
# inside the function shows how often the body really runs.
body_runs = []


def counted_step(step):
    def wrapper(x, y):
        body_runs.append(1)  # a Python side effect: happens only while tracing
        return step(x, y)

    return wrapper


graph_step = tf.function(
    counted_step(make_tf_step(tf.Variable(w1_np), tf.Variable(w2_np)))
)
losses, times = train_tf(graph_step)
(
    loss_curves["TF2 tf.function"],
    step_times[("TensorFlow", "TF2 tf.function")],
) = losses, times
print(f"TF2 tf.function: loss {losses[0]:.4e} -> {losses[-1]:.4e}")
print(f"the Python body ran {len(body_runs)} time(s) in {steps} calls")
assert len(body_runs) == 1

# %%
# PyTorch: the graph is built during every forward pass
# -----------------------------------------------------
# PyTorch has no separate build step. Each forward pass records a fresh
# autograd graph as it runs (see
# :ref:`sphx_glr_lessons_basics_04_autograd.py`), ``backward()`` consumes it,
# and the next step builds a new one. For a graph-compiled comparison we also
# run the forward through ``torch.compile``. It traces the function into a
# graph (TorchDynamo) and derives a matching backward graph (AOTAutograd). We
# pick the ``aot_eager`` backend, which runs those graphs with PyTorch's usual
# kernels: the default ``inductor`` backend would also generate fused code,
# but compiling it takes longer on a small CPU than this whole page may.
x_t = torch.from_numpy(x_np).to(device)
y_t = torch.from_numpy(y_np).to(device)


def torch_loss(x, y, w1, w2):
    return (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()


def train_torch(loss_fn):
    w1 = torch.tensor(w1_np, device=device, requires_grad=True)
    w2 = torch.tensor(w2_np, device=device, requires_grad=True)
    losses, times = [], []
    for t in range(steps):
        start = time.perf_counter()
        loss = loss_fn(x_t, y_t, w1, w2)
        loss.backward()
        with torch.no_grad():
            w1 -= learning_rate * w1.grad
            w2 -= learning_rate * w2.grad
        w1.grad = None
        w2.grad = None
        loss_value = loss.item()  # .item() waits for the result
        times.append(time.perf_counter() - start)
        losses.append(loss_value)
    return losses, times


losses, times = train_torch(torch_loss)
loss_curves["PyTorch eager"], step_times[("PyTorch", "eager")] = losses, times
print(f"PyTorch eager: loss {losses[0]:.4e} -> {losses[-1]:.4e}")

losses, times = train_torch(torch.compile(torch_loss, backend="aot_eager"))
(
    loss_curves["PyTorch torch.compile"],
    step_times[("PyTorch", "torch.compile (aot_eager)")],
) = losses, times
print(f"PyTorch torch.compile: loss {losses[0]:.4e} -> {losses[-1]:.4e}")

# %%
# The same step, side by side
# ---------------------------
# The four training steps above, reduced to their essential lines:
#
# .. tab-set::
#
#    .. tab-item:: TF1 graph + Session
#
#       .. code-block:: python
#
#          # once: describe the graph
#          y_pred = tf.matmul(tf.maximum(tf.matmul(x_ph, w1_v), 0.0), w2_v)
#          loss = tf.reduce_sum((y_pred - y_ph) ** 2)
#          grad_w1, grad_w2 = tf.compat.v1.gradients(loss, [w1_v, w2_v])
#          train_op = tf.group(w1_v.assign_sub(learning_rate * grad_w1),
#                              w2_v.assign_sub(learning_rate * grad_w2))
#          # every step: run it
#          loss_value, _ = sess.run([loss, train_op],
#                                   feed_dict={x_ph: x_np, y_ph: y_np})
#
#    .. tab-item:: TF2 eager
#
#       .. code-block:: python
#
#          with tf.GradientTape() as tape:
#              y_pred = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
#              loss = tf.reduce_sum((y_pred - y) ** 2)
#          g1, g2 = tape.gradient(loss, [w1, w2])
#          w1.assign_sub(learning_rate * g1)
#          w2.assign_sub(learning_rate * g2)
#
#    .. tab-item:: TF2 tf.function
#
#       .. code-block:: python
#
#          @tf.function  # traced once, then run as a graph
#          def train_step(x, y):
#              with tf.GradientTape() as tape:
#                  y_pred = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
#                  loss = tf.reduce_sum((y_pred - y) ** 2)
#              g1, g2 = tape.gradient(loss, [w1, w2])
#              w1.assign_sub(learning_rate * g1)
#              w2.assign_sub(learning_rate * g2)
#              return loss
#
#    .. tab-item:: PyTorch
#
#       .. code-block:: python
#
#          loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
#          loss.backward()
#          with torch.no_grad():
#              w1 -= learning_rate * w1.grad
#              w2 -= learning_rate * w2.grad
#          w1.grad = None
#          w2.grad = None
#
# TF2 eager and PyTorch read almost line for line alike. The TF1 version is
# the odd one out: its forward, backward and update lines run *once*, and only
# ``sess.run`` runs every step.
#
# Five implementations, one loss curve
# ------------------------------------
# Same float64 data, same starting weights, same arithmetic: the curves must
# agree up to rounding (the libraries sum in different orders, so not bit for
# bit).
reference = np.array(loss_curves["PyTorch eager"])
for name, curve in loss_curves.items():
    rel = np.max(np.abs(np.array(curve) - reference) / reference)
    assert rel < 1e-8, (name, rel)
    print(
        f"{name:>22}: final loss {curve[-1]:.4e}, max relative gap to PyTorch eager < 1e-8"
    )
assert reference[-1] < 1e-9 * reference[0]

# %%
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6.5, 4))
styles = ["-", "--", ":", "-.", (0, (1, 4))]
for (name, curve), style in zip(loss_curves.items(), styles):
    ax.semilogy(curve, linestyle=style, linewidth=2, label=name)
ax.set_xlabel("step")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title("Two-layer net: TensorFlow and PyTorch, same start")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# The lines lie on top of each other. Static or dynamic, the frameworks
# compute the same function and the same gradient.
#
# How long does a step take?
# --------------------------
# Each step above was timed, on the devices present in this build. The first
# step of a graph mode includes tracing (and for TF1, session set-up); the
# median of the other 499 describes the steady state, and the fastest step is
# what a step costs when nothing else competes for the processor. They depend
# on the machine, its load and the problem size: this network is small, so
# fixed per-step costs (Python, dispatch, session calls) may weigh as much as
# the arithmetic, and a bigger model could rank the modes differently.
import pandas as pd

rows = []
for (framework, mode), times in step_times.items():
    rows.append(
        {
            "framework": framework,
            "mode": mode,
            "device": tf_device
            if framework == "TensorFlow"
            else str(device).upper(),
            "first step (ms)": 1e3 * times[0],
            "median step (ms)": 1e3 * float(np.median(times[1:])),
            "fastest step (ms)": 1e3 * min(times[1:]),
        }
    )
table = pd.DataFrame(rows)
print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))

# %%
# Control flow: where static and dynamic graphs really differ
# -----------------------------------------------------------
# A model may need to do a different amount of work for each input: an RNN
# over sequences of different lengths, or, here, a network that keeps applying
# one shared layer until its hidden state is small, so its *depth depends on
# the input*. In PyTorch that is an ordinary ``while`` loop, and autograd
# records whichever layers actually ran.
cf_rng = np.random.default_rng(1)
w_in_np = cf_rng.standard_normal((D_in, H)) / np.sqrt(D_in)
w_mid_np = 0.5 * cf_rng.standard_normal((H, H)) / np.sqrt(H)  # shrinks h
w_out_np = cf_rng.standard_normal((H, D_out)) / np.sqrt(H)
threshold, max_depth = 1.0, 20
scales = [0.05, 0.2, 0.3, 1.0]  # inputs of different sizes
inputs_np = [s * x_np[:1] for s in scales]


def halting_net(x, w_in, w_mid, w_out):
    h = torch.tanh(x @ w_in)
    depth = 0
    while h.norm() > threshold and depth < max_depth:
        h = torch.tanh(h @ w_mid)
        depth += 1
    return h @ w_out, depth


def count_nodes(out, kind):
    """Count nodes of one kind in the autograd graph behind ``out``."""
    seen, todo = set(), [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(next_node for next_node, _ in node.next_functions)
    return sum(type(node).__name__ == kind for node in seen)


w_in_t, w_mid_t, w_out_t = (
    torch.tensor(a, device=device, requires_grad=True)
    for a in (w_in_np, w_mid_np, w_out_np)
)
torch_depths, torch_grads = [], []
for x_in in inputs_np:
    out, depth = halting_net(
        torch.tensor(x_in, device=device), w_in_t, w_mid_t, w_out_t
    )
    n_mm = count_nodes(out, "MmBackward0")
    print(
        f"|x| = {np.linalg.norm(x_in):6.2f}: depth {depth}, matmuls in this autograd graph: {n_mm}"
    )
    assert n_mm == depth + 2
    torch_depths.append(depth)
    torch_grads.append(
        torch.autograd.grad(out.sum(), w_mid_t, allow_unused=True)[0]
    )
assert len(set(torch_depths)) > 1  # different inputs, different depths

# %%
# Every call built a graph of exactly the layers it ran. (For depth 0 the
# middle layer was never used, and its gradient is ``None``.)
#
# A graph, by contrast, is built before the data is known, so a loop whose trip
# count depends on a *tensor* must become part of the graph. TensorFlow's
# operation for that is ``tf.while_loop``: the condition and body are
# functions, and the graph contains one ``While`` node no matter how many times
# it will run (its counterpart for branches is ``tf.cond``). ``tf.function``
# also applies *AutoGraph*, which rewrites a Python ``while`` on a tensor
# condition into ``tf.while_loop``, so PyTorch-like code works too. We write
# it both ways and count traces.
w_in_tf, w_mid_tf, w_out_tf = (
    tf.Variable(a) for a in (w_in_np, w_mid_np, w_out_np)
)
traces = {"while_loop": 0, "autograph": 0}


@tf.function
def halting_net_while_loop(x):
    traces["while_loop"] += 1
    h0 = tf.tanh(x @ w_in_tf)

    def keep_going(h, depth):
        return tf.logical_and(tf.norm(h) > threshold, depth < max_depth)

    def one_layer(h, depth):
        return tf.tanh(h @ w_mid_tf), depth + 1

    h, depth = tf.while_loop(keep_going, one_layer, (h0, tf.constant(0)))
    return h @ w_out_tf, depth


@tf.function
def halting_net_autograph(x):
    traces["autograph"] += 1
    h = tf.tanh(x @ w_in_tf)
    depth = tf.constant(0)
    while (
        tf.norm(h) > threshold and depth < max_depth
    ):  # rewritten by AutoGraph
        h = tf.tanh(h @ w_mid_tf)
        depth += 1
    return h @ w_out_tf, depth


for net in (halting_net_while_loop, halting_net_autograph):
    for x_in, torch_depth, torch_grad in zip(
        inputs_np, torch_depths, torch_grads
    ):
        with tf.GradientTape() as tape:
            out, depth = net(tf.constant(x_in))
            total = tf.reduce_sum(out)  # inside the tape, so it is recorded
        grad = tape.gradient(total, w_mid_tf)
        assert int(depth) == torch_depth
        if torch_grad is None:  # depth 0: no path from w_mid to the output
            assert grad is None or not np.any(grad.numpy())
        else:
            np.testing.assert_allclose(
                grad.numpy(), torch_grad.cpu().numpy(), rtol=1e-10, atol=1e-12
            )
print(
    f"TF depths: {torch_depths} (same as PyTorch), gradients through the loop agree"
)
print(f"traces for {len(inputs_np)} different inputs: {traces}")
assert traces == {"while_loop": 1, "autograph": 1}

# %%
# One trace served all inputs, deep and shallow, and gradients flow through
# the ``While`` node. Here is what the traced graph contains: a fixed set of
# operations, with the loop body stored inside the ``While`` node, not
# unrolled.
concrete = halting_net_autograph.get_concrete_function(
    tf.constant(inputs_np[0])
)
op_types = [op.type for op in concrete.graph.get_operations()]
print(f"op types in the traced graph: {sorted(set(op_types))}")
print(f"MatMul ops outside the loop body: {op_types.count('MatMul')}")
assert "While" in op_types or "StatelessWhile" in op_types
assert op_types.count("MatMul") == 2

# %%
# What a trace captures, and when it retraces
# -------------------------------------------
# Tracing records operations on *tensors*. Plain Python values are not
# recorded; they are constants baked into the trace. If the depth is passed as
# a Python ``int``, a Python ``for`` loop is simply unrolled while tracing, and
# every new value of the ``int`` needs a new trace. Passed as a tensor, the
# very same ``for`` loop is rewritten by AutoGraph into a ``While`` node, and
# one trace serves every depth.
trace_log = []


@tf.function
def fixed_depth_net(x, depth):
    trace_log.append(depth)
    h = tf.tanh(x @ w_in_tf)
    for _ in range(depth):  # AutoGraph: tf.range if depth is a tensor
        h = tf.tanh(h @ w_mid_tf)
    return h @ w_out_tf


x_tf = tf.constant(inputs_np[-1])
for depth in [1, 2, 3, 2, 1]:
    fixed_depth_net(x_tf, depth)
python_int_traces = len(trace_log)
for depth in [1, 2, 3, 2, 1]:
    fixed_depth_net(x_tf, tf.constant(depth))
tensor_traces = len(trace_log) - python_int_traces
print(f"5 calls with Python ints 1,2,3,2,1 -> {python_int_traces} traces")
print(f"5 calls with tensors 1,2,3,2,1     -> {tensor_traces} trace")
assert python_int_traces == 3 and tensor_traces == 1

unrolled = fixed_depth_net.get_concrete_function(
    x_tf, 3
).graph.get_operations()
looped = fixed_depth_net.get_concrete_function(
    x_tf, tf.constant(3)
).graph.get_operations()
n_unrolled = [op.type for op in unrolled].count("MatMul")
n_looped = [op.type for op in looped].count("MatMul")
print(
    f"MatMul ops: depth=3 as int {n_unrolled} (unrolled), as tensor {n_looped} (+ loop body)"
)
assert n_unrolled == 3 + 2 and n_looped == 2

# %%
# The same two nets side by side:
#
# .. tab-set::
#
#    .. tab-item:: TensorFlow (tf.while_loop)
#
#       .. code-block:: python
#
#          @tf.function
#          def halting_net_while_loop(x):
#              h0 = tf.tanh(x @ w_in_tf)
#
#              def keep_going(h, depth):
#                  return tf.logical_and(tf.norm(h) > threshold, depth < max_depth)
#
#              def one_layer(h, depth):
#                  return tf.tanh(h @ w_mid_tf), depth + 1
#
#              h, depth = tf.while_loop(keep_going, one_layer, (h0, tf.constant(0)))
#              return h @ w_out_tf, depth
#
#    .. tab-item:: TensorFlow (AutoGraph)
#
#       .. code-block:: python
#
#          @tf.function
#          def halting_net_autograph(x):
#              h = tf.tanh(x @ w_in_tf)
#              depth = tf.constant(0)
#              while tf.norm(h) > threshold and depth < max_depth:
#                  h = tf.tanh(h @ w_mid_tf)
#                  depth += 1
#              return h @ w_out_tf, depth
#
#    .. tab-item:: PyTorch
#
#       .. code-block:: python
#
#          def halting_net(x, w_in, w_mid, w_out):
#              h = torch.tanh(x @ w_in)
#              depth = 0
#              while h.norm() > threshold and depth < max_depth:
#                  h = torch.tanh(h @ w_mid)
#                  depth += 1
#              return h @ w_out, depth
#
# The AutoGraph version looks like the PyTorch one, but it is not the same
# thing: it runs once, symbolically, and works only because AutoGraph can
# rewrite the loop into graph operations. Anything the rewrite cannot express
# (a Python list grown in the loop, a ``print`` that should run every step, a
# call into NumPy) behaves differently inside ``tf.function`` than outside it,
# as the trace counter shows. In PyTorch the loop is just the loop: the
# condition is a Python ``bool`` computed from the data each time.
#
# Summary
# -------
# - A static graph is described first and run many times; a dynamic graph is
#   recorded while the code runs, fresh for every forward pass.
# - For a fixed computation the two give identical results: all five loss
#   curves above coincide.
# - Data-dependent control flow must become graph operations
#   (``tf.while_loop``, ``tf.cond``, or AutoGraph's rewrite) in a static graph,
#   and a trace specialises on Python values, retracing when they change. In
#   PyTorch it is plain Python.
# - Graph modes trade a one-off tracing cost for per-step savings that depend
#   on the model and the machine; the timing table above shows what they were
#   in this build.
#
# The next section, starting with :ref:`sphx_glr_lessons_nn_01_nn_package.py`,
# leaves raw tensors behind and builds the same network from ``torch.nn``
# layers.
