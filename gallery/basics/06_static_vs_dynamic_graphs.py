"""
TensorFlow 2 and PyTorch: eager steps, and the static graphs before them
========================================================================

Both TensorFlow and PyTorch compute gradients from a graph of operations
recorded as the code runs. This lesson trains the two-layer network of the
previous lessons with TensorFlow 2's ``GradientTape`` and with PyTorch,
from the same data and starting weights, and compares how each records
and hands back gradients, and a loop whose length depends on the data.
Going deeper, as history: TensorFlow 1's static graph, built first and run
in a session.

**You will learn** how a ``GradientTape`` step and a PyTorch step differ
(what is recorded, where gradients go, how weights change), that both run
data-dependent loops as plain Python, and what a static graph is. Optional
on the core path: you can go straight to
:ref:`sphx_glr_lessons_nn_01_nn_package.py`. It needs TensorFlow
installed; :ref:`sphx_glr_lessons_advanced_11_for_keras_users.py` is the
map for Keras users.

**You need first** :ref:`sphx_glr_lessons_basics_04_autograd.py`.
"""

# %%
# Shared data and starting weights
# --------------------------------
# Everything starts from the same float64 NumPy arrays as in
# :ref:`sphx_glr_lessons_basics_02_numpy_warmup.py`, so any difference
# between the frameworks would show up in the loss. MPS, and some Intel
# GPUs, have no ``float64``; there the PyTorch side uses the CPU.
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
learning_rate, steps = 5e-7, 500  # as in the NumPy warm-up
rng = np.random.default_rng(0)
x_np = rng.standard_normal((N, D_in))
y_np = rng.standard_normal((N, D_out))
w1_np = rng.standard_normal((D_in, H))
w2_np = rng.standard_normal((H, D_out))
# sphinx_gallery_tags = ["intermediate", "tensorflow", "autograd"]

# %%
# Importing TensorFlow
# --------------------
# Two environment variables, set before the import, quiet TensorFlow:
# ``TF_CPP_MIN_LOG_LEVEL=3`` hides its C++ log messages, and
# ``TF_ENABLE_ONEDNN_OPTS=0`` switches off its oneDNN custom operations
# (which can change float rounding) and the notice that announces them. On
# a GPU, TensorFlow would reserve almost all GPU memory at start, so we ask
# it to grow its allocation on demand and leave room for PyTorch.
import os

os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import tensorflow as tf

for gpu in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
tf_device = "GPU" if tf.config.list_physical_devices("GPU") else "CPU"
print(f"TensorFlow {tf.__version__} runs on: {tf_device}")

# %%
# TensorFlow 2: a ``GradientTape`` step
# -------------------------------------
# TensorFlow 2 runs eagerly, like PyTorch: each line computes at once.
# Weights that change are ``tf.Variable`` objects. A ``GradientTape``
# records the operations run inside its ``with`` block, and
# ``tape.gradient`` returns the gradients; the update is an
# ``assign_sub``, since TensorFlow tensors cannot be changed in place.
x_tf, y_tf = tf.constant(x_np), tf.constant(y_np)
w1_tf, w2_tf = tf.Variable(w1_np), tf.Variable(w2_np)
tf2_losses = []
for t in range(steps):
    with tf.GradientTape() as tape:  # records only inside this block
        y_pred = tf.matmul(tf.maximum(tf.matmul(x_tf, w1_tf), 0.0), w2_tf)
        loss = tf.reduce_sum((y_pred - y_tf) ** 2)
    grad_w1, grad_w2 = tape.gradient(loss, [w1_tf, w2_tf])  # returned
    w1_tf.assign_sub(learning_rate * grad_w1)
    w2_tf.assign_sub(learning_rate * grad_w2)
    tf2_losses.append(loss)
tf2_losses = [float(value) for value in tf2_losses]  # read back once

# %%
# PyTorch: the same step
# ----------------------
# PyTorch needs no tape: every operation on a tensor that requires
# gradients is recorded (see :ref:`sphx_glr_lessons_basics_04_autograd.py`),
# ``backward()`` consumes that graph and *adds* each gradient into the
# tensor's ``.grad``, and the next step records a new graph. The update
# changes the weights in place, under ``torch.no_grad()`` so that it is
# not recorded.
x_t = torch.from_numpy(x_np).to(device)
y_t = torch.from_numpy(y_np).to(device)
w1 = torch.tensor(w1_np, device=device, requires_grad=True)
w2 = torch.tensor(w2_np, device=device, requires_grad=True)
torch_losses = []
for t in range(steps):
    loss = (x_t.mm(w1).clamp(min=0).mm(w2) - y_t).pow(2).sum()
    loss.backward()  # adds into w1.grad and w2.grad
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
    w1.grad, w2.grad = None, None  # or the next step would add to them
    torch_losses.append(loss.detach())
torch_losses = torch.stack(torch_losses).tolist()  # read back once

# %%
# Compare the two loops line by line: the tape's ``with`` block against
# no block at all, gradients returned against gradients stored (and
# cleared by us), ``assign_sub`` against an in-place update.
#
# Two frameworks, one loss curve
# ------------------------------
# Same float64 data, same starting weights, same arithmetic: the losses
# should agree up to rounding (the libraries may sum in different orders,
# so we compare with a tolerance, not bit for bit).
for t in (0, 100, 200, 300, 400, 499):
    print(
        f"step {t:3d}: TF2 {tf2_losses[t]:.6g}  PyTorch {torch_losses[t]:.6g}"
    )
tf2_curve, torch_curve = np.array(tf2_losses), np.array(torch_losses)
gap = np.max(np.abs(tf2_curve - torch_curve) / torch_curve)
print(f"largest relative gap between the curves: {gap:.1e}")
# sphinx_gallery_start_ignore
assert gap < 1e-8
assert torch_curve[-1] < 1e-9 * torch_curve[0]
# sphinx_gallery_end_ignore

# %%
# Both are the losses of the earlier lessons, and the two curves never
# differ by more than a part in :math:`10^8`. Keras's ``fit`` runs such a
# step for you; :ref:`sphx_glr_lessons_advanced_11_for_keras_users.py`
# writes it out for a Keras network.
#
# Control flow: where static and dynamic graphs differ
# ----------------------------------------------------
# A model may do a different amount of work for each input. This one keeps
# applying one shared layer until its hidden state is small, so its *depth
# depends on the input*. In PyTorch that is an ordinary ``while`` loop, and
# autograd records whichever layers ran. The weights are scaled by one over
# the square root of their input size, which keeps ``h`` of moderate size;
# the shared layer's get a further factor of 0.5, so that applying it
# again and again shrinks ``h`` and the loop ends.
cf_rng = np.random.default_rng(1)
w_in_np = cf_rng.standard_normal((D_in, H)) / np.sqrt(D_in)
w_mid_np = 0.5 * cf_rng.standard_normal((H, H)) / np.sqrt(H)  # shrinks h
w_out_np = cf_rng.standard_normal((H, D_out)) / np.sqrt(H)
threshold, max_depth = 1.0, 20
inputs_np = [s * x_np[:1] for s in (0.05, 0.2, 0.3, 1.0)]
w_in, w_mid, w_out = (
    torch.tensor(a, device=device, requires_grad=True)
    for a in (w_in_np, w_mid_np, w_out_np)
)


def halting_net(x, w_in, w_mid, w_out):
    h = torch.tanh(x @ w_in)
    depth = 0
    while h.norm() > threshold and depth < max_depth:
        h = torch.tanh(h @ w_mid)
        depth += 1
    return h @ w_out, depth


# %%
# We run the net on four inputs of growing size.
torch_depths, torch_outs = [], []
for x_in in inputs_np:
    x_in = torch.tensor(x_in, device=device)
    out, depth = halting_net(x_in, w_in, w_mid, w_out)
    torch_depths.append(depth)
    torch_outs.append(out.detach().cpu().numpy())
print(f"depths: {torch_depths}")
# sphinx_gallery_start_ignore
assert len(set(torch_depths)) > 1  # different inputs, different depths
assert max(torch_depths) < max_depth  # every loop ended by shrinking h
# sphinx_gallery_end_ignore

# %%
# Different inputs took different numbers of layers, with no special code.
#
# TensorFlow 2 runs the same Python loop eagerly: the condition is
# computed from the tensor at each step, and a ``GradientTape`` would
# record whichever layers ran.


def halting_net_tf(x):
    h = tf.tanh(tf.matmul(x, w_in_np))
    depth = 0
    while tf.norm(h) > threshold and depth < max_depth:  # a Python bool
        h = tf.tanh(tf.matmul(h, w_mid_np))
        depth += 1
    return tf.matmul(h, w_out_np), depth


tf2_depths = [halting_net_tf(tf.constant(x_in))[1] for x_in in inputs_np]
print(f"TF2 depths: {tf2_depths}")
# sphinx_gallery_start_ignore
assert tf2_depths == torch_depths
# sphinx_gallery_end_ignore

# %%
# The same depths, from plain Python in both frameworks. That is what
# *eager* means: the program runs as written, and the recorded graph is a
# trace of what ran. Before TensorFlow 2, a TensorFlow program built a
# *static* graph first and ran it later; "Going deeper" shows that style,
# which older code and the graph compilers of today still reflect.
#
# Going deeper
# ------------
# Optional on a first read: history, TensorFlow 1's static graphs (a
# training graph run in a session, a data-dependent loop, a finalized
# graph), then the loss curves drawn, what autograd recorded, and how
# today's graph compilers handle the same loop.
#
# History: TensorFlow 1 built a graph, then ran it in a session
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# TensorFlow 1 is history, but its style explains what a *static* graph
# is, and it still runs under ``tf.compat.v1``. In TF1 style, Python code
# does not compute anything. It *describes* a graph: placeholders stand
# for data fed later, variables hold state between
# runs, and ``tf.compat.v1.gradients`` adds the backward operations to the
# graph symbolically. Even the weight update is a graph operation. The graph
# is built inside ``tf.Graph().as_default()``, so the rest of the program
# stays in TensorFlow 2's eager mode.
g = tf.Graph()
with g.as_default():
    x_ph = tf.compat.v1.placeholder(tf.float64, shape=(None, D_in))
    y_ph = tf.compat.v1.placeholder(tf.float64, shape=(None, D_out))
    w1_v = tf.Variable(w1_np)  # initial values are baked into the graph
    w2_v = tf.Variable(w2_np)
    y_pred = tf.matmul(tf.maximum(tf.matmul(x_ph, w1_v), 0.0), w2_v)
    loss = tf.reduce_sum((y_pred - y_ph) ** 2)
    grad_w1, grad_w2 = tf.compat.v1.gradients(loss, [w1_v, w2_v])
    train_op = tf.group(
        w1_v.assign_sub(learning_rate * grad_w1),
        w2_v.assign_sub(learning_rate * grad_w2),
    )
    init_op = tf.compat.v1.global_variables_initializer()
print(f"loss, before anything has run: {loss}")
print(f"the graph holds {len(g.get_operations())} operations")
# sphinx_gallery_start_ignore
assert loss.graph is g and tf.executing_eagerly()  # eager outside
# sphinx_gallery_end_ignore

# %%
# ``loss`` is a symbolic tensor of the graph, with a name and a shape but no
# value. Running the graph is a separate step: a ``Session`` executes the
# part of the graph needed for the tensors you ask for, with placeholders
# filled from ``feed_dict``. One run of ``[loss, train_op]`` computes the
# loss and the gradients from the current weights, then updates them. The
# same graph runs 500 times; we *finalize* it first, which makes it
# read-only: no operation can be added to it.
g.finalize()
with tf.compat.v1.Session(graph=g) as sess:
    sess.run(init_op)
    tf_losses = []
    for t in range(steps):
        loss_value, _ = sess.run(
            [loss, train_op], feed_dict={x_ph: x_np, y_ph: y_np}
        )
        tf_losses.append(float(loss_value))
for t in (0, 100, 200, 300, 400, 499):
    print(
        f"step {t:3d}: TF1 {tf_losses[t]:.6g}  PyTorch {torch_losses[t]:.6g}"
    )
# sphinx_gallery_start_ignore
torch.testing.assert_close(tf_losses, torch_losses, rtol=1e-8, atol=0)
# sphinx_gallery_end_ignore

# %%
# The same losses again. In TF1 the forward, backward and update lines ran
# *once*, while building the graph, and only ``sess.run`` ran every step;
# in TensorFlow 2 and PyTorch every line runs every step.
#
# A data-dependent loop in a static graph
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A TF1 graph is built before the data is known, so a loop
# whose trip count depends on a *tensor* must itself be a graph operation:
# ``tf.compat.v1.while_loop`` takes the condition and the body as
# functions, and the graph holds one loop, however often it will run (its
# counterpart for branches is ``tf.compat.v1.cond``).
cf_graph = tf.Graph()
with cf_graph.as_default():
    x_in_ph = tf.compat.v1.placeholder(tf.float64, shape=(1, D_in))
    h0 = tf.tanh(x_in_ph @ tf.constant(w_in_np))

    def keep_going(h, depth):
        return tf.logical_and(tf.norm(h) > threshold, depth < max_depth)

    def one_layer(h, depth):
        return tf.tanh(h @ tf.constant(w_mid_np)), depth + 1

    h, depth_t = tf.compat.v1.while_loop(
        keep_going, one_layer, (h0, tf.constant(0))
    )
    cf_out = h @ tf.constant(w_out_np)
n_cf_ops = len(cf_graph.get_operations())
cf_graph.finalize()  # read-only from here on

# %%
# The same graph now runs on all four inputs.
with tf.compat.v1.Session(graph=cf_graph) as sess:
    tf_runs = [
        sess.run([depth_t, cf_out], feed_dict={x_in_ph: x_in})
        for x_in in inputs_np
    ]
tf_depths = [int(depth) for depth, _ in tf_runs]
print(f"TF1 depths: {tf_depths}, graph operations: {n_cf_ops}")
# sphinx_gallery_start_ignore
assert tf_depths == torch_depths
for (_, tf_out), torch_out in zip(tf_runs, torch_outs):
    assert np.allclose(tf_out, torch_out, rtol=1e-10, atol=0)
# sphinx_gallery_end_ignore

# %%
# One fixed, finalized graph served every depth, the same depths the
# eager loops took, which needed no special loop operation.
#
# The two loss curves
# ~~~~~~~~~~~~~~~~~~~
# Drawn on a log scale, the three loss curves lie on top of each other.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.semilogy(tf_losses, linewidth=5, label="TF1 graph + Session")
ax.semilogy(tf2_losses, linewidth=2.5, label="TF2 GradientTape")
ax.semilogy(torch_losses, linestyle="--", label="PyTorch")
ax.set_xlabel("step")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title("Two-layer net: TensorFlow 1 and 2 and PyTorch, same start")
ax.legend()
fig.tight_layout()
plt.show()

# %%
#
# Counting the recorded layers
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Each ``grad_fn`` lists the nodes that made its inputs in
# ``next_functions`` (see
# :ref:`sphx_glr_lessons_basics_04_autograd.py`). A small helper walks the
# graph behind a result and counts its matrix-product nodes: each call of
# the halting net recorded ``depth + 2`` of them, exactly the layers it
# ran.


def count_nodes(out, kind):
    """Count nodes of one kind in the autograd graph behind ``out``."""
    seen, todo = set(), [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(next_node for next_node, _ in node.next_functions)
    return sum(node.name() == kind for node in seen)


counts = []
for x_in in inputs_np:
    x_in = torch.tensor(x_in, device=device)
    out, depth = halting_net(x_in, w_in, w_mid, w_out)
    counts.append(count_nodes(out, "MmBackward0"))
print(f"depths {torch_depths}, matrix products recorded {counts}")
# sphinx_gallery_start_ignore
assert counts == [d + 2 for d in torch_depths]
# sphinx_gallery_end_ignore

# %%
# A finalized graph is read-only
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The training graph ``g`` above was finalized before its 500 runs. It still
# refuses a new operation: it was complete before the first step.
try:
    with g.as_default():
        tf.constant(0.0)  # try to add one more operation
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
# sphinx_gallery_start_ignore
else:
    raise AssertionError("a finalized graph should refuse new operations")
# sphinx_gallery_end_ignore

# %%
# Graph compilers today
# ~~~~~~~~~~~~~~~~~~~~~
# Eager execution is not the whole story. Compilers that capture a graph
# from Python code, TensorFlow 2's ``tf.function`` and PyTorch's
# ``torch.compile``, meet the same problem a TF1 graph does, and solve it
# differently. TensorFlow's AutoGraph rewrites a Python loop that depends
# on a tensor into a loop operation of the graph. ``torch.compile`` instead
# breaks its graph at a data-dependent test and lets Python evaluate it;
# for code that must stay in one graph, two prototype operations exist:
# ``torch.cond`` keeps both sides of a branch, and ``torch.while_loop``
# expresses a loop (for inference only, so far). Both
# compilers bake plain Python numbers into what they capture, so a new
# value can mean a new trace or a recompile.
# :ref:`sphx_glr_lessons_advanced_06_graphs_today.py` shows both, with
# timings.

# %%
# .. dropdown:: Coming from TensorFlow 1 code?
#
#    - ``tf.placeholder``, ``tf.Session()`` and
#      ``tf.global_variables_initializer()`` at the top level of ``tf``:
#      TensorFlow 2 made eager execution the default and kept the
#      graph-and-session API under ``tf.compat.v1`` for old code. In
#      PyTorch, as in TensorFlow 2, the step is plain code that runs.

# %%
# Takeaways
# ---------
# - TensorFlow 2 and PyTorch both run eagerly and record a graph as the
#   code runs; for the same computation their losses agree to a part in
#   :math:`10^8`.
# - A ``GradientTape`` records inside its block and returns gradients;
#   PyTorch records every operation on a tensor that requires gradients
#   and *adds* them into ``.grad``, which you clear.
# - TensorFlow updates a ``Variable`` with ``assign_sub``; PyTorch updates
#   the tensor in place under ``torch.no_grad()``.
# - Data-dependent loops are plain Python in eager code; a static graph
#   (TensorFlow 1) needs graph operations such as ``while_loop``.
#
# Next, :ref:`sphx_glr_lessons_nn_01_nn_package.py` continues the core
# path: it leaves raw tensors behind and builds a network of the same
# sizes, with bias terms, from ``torch.nn`` layers.
