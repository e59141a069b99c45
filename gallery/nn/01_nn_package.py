"""
The nn package: layers, losses and parameters
=============================================

The basics lessons built the two-layer ReLU network from bare weight tensors
and a hand-written forward pass. ``torch.nn`` packages those pieces: layers
that create and own their weights, ready-made loss functions, and a
``state_dict`` that names every weight. This lesson rebuilds the same network
with ``nn.Sequential`` and trains it by gradient descent written by hand.

**You will learn** to build a model from ``nn.Linear`` and ``nn.ReLU``
layers, to list and count its parameters, to compute a loss with
``nn.MSELoss``, to read and restore a ``state_dict``, and why gradients must
be cleared and updates made under ``torch.no_grad()``.

**You need first** :ref:`sphx_glr_lessons_basics_04_autograd.py`.
"""

# %%
# Data and device
# ---------------
# Same sizes as the basics chain: 64 samples with 1000 features each, a
# hidden layer of 100 units and 10 outputs. The inputs and targets are
# random numbers, so the network can only memorise them: this lesson is about
# the tools, not about learning anything real. The random tensors are drawn
# on the CPU and then moved, so every device starts from the same numbers.
import torch
from torch import nn

torch.manual_seed(0)
if torch.accelerator.is_available():  # e.g. CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")

N, D_in, H, D_out = 64, 1000, 100, 10
x = torch.randn(N, D_in).to(device)
y = torch.randn(N, D_out).to(device)
# sphinx_gallery_tags = ["beginner", "nn"]

# %%
# A model is a stack of modules
# -----------------------------
# A *module* is an object that holds state (usually learnable weights) and
# knows how to turn inputs into outputs. ``nn.Linear(D_in, H)`` stores a
# weight of shape ``(H, D_in)`` and a bias of shape ``(H,)`` and computes
# ``x @ weight.T + bias`` (a Keras ``Dense`` kernel is the transpose,
# ``(in, out)``). It needs both sizes; ``nn.LazyLinear(H)`` would infer
# ``in_features`` from its first input. ``nn.ReLU`` has no state at all.
# ``nn.Sequential`` is itself a module: it feeds its input through its
# children in the order given. ``.to(device)`` moves every weight inside
# the model in one call. You run a module by calling it: ``model(x)`` runs
# ``forward`` plus any hooks attached to the model (see
# :ref:`sphx_glr_lessons_nn_08_hooks.py`), so avoid ``model.forward(x)``.
# To show there is no magic, we unpack the three children and redo the
# arithmetic by hand.
model = nn.Sequential(nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out))
model.to(device)
print(model)
y_pred = model(x)

first, relu, second = model  # a Sequential can be indexed and iterated
hidden = torch.clamp(x @ first.weight.T + first.bias, min=0)
by_hand = hidden @ second.weight.T + second.bias
gap = (y_pred - by_hand).abs().max().item()
print(f"output shape: {tuple(y_pred.shape)}, largest gap to hand: {gap:.1e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(y_pred, by_hand)
assert model.to(device) is model
assert nn.LazyLinear(3)(torch.ones(2, 5)).shape == (2, 3)
assert x.to(torch.float64) is not x and x.dtype == torch.float32
# sphinx_gallery_end_ignore

# %%
# The model's output has one row of 10 numbers per sample, and the
# arithmetic by hand gives the same numbers (to float rounding). Note the
# two uses of ``.to``: ``model.to(device)`` moves the model's own weights
# and returns the same model, so its result need not be kept, while
# ``x.to(device)`` leaves ``x`` as it was and returns a moved tensor, which
# we had to assign.
#
# Parameters
# ----------
# The weights of a layer are ``nn.Parameter`` objects: tensors with
# ``requires_grad=True`` that a module records as its learnable state.
# ``named_parameters()`` walks the whole tree of modules. In a ``Sequential``
# the names are the children's positions: ``0`` and ``2`` but no ``1``,
# since the ReLU owns nothing.
for name, p in model.named_parameters():
    shape = str(tuple(p.shape))
    print(f"{name:9s} shape={shape:12s} requires_grad={p.requires_grad}")

n_params = sum(p.numel() for p in model.parameters())
print(f"learnable numbers in total: {n_params:,}")
# sphinx_gallery_start_ignore
assert n_params == D_in * H + H + H * D_out + D_out
assert {name[0] for name, _ in model.named_parameters()} == {"0", "2"}
assert all(p.requires_grad for p in model.parameters())
assert isinstance(first.weight, nn.Parameter)
# sphinx_gallery_end_ignore

# %%
# The 101,110 numbers are the two weight matrices and two bias vectors.
# Unlike the standard-normal weights of the basics lessons, a fresh
# ``nn.Linear`` draws its weight and bias uniformly from
# :math:`[-1/\sqrt{n}, 1/\sqrt{n}]`, where :math:`n` is ``in_features``.
# So the outputs start small: here less than half the spread of the
# unit-variance targets.
for layer in (first, second):
    bound = layer.in_features**-0.5
    largest = max(layer.weight.abs().max(), layer.bias.abs().max())
    print(f"{layer.in_features} inputs: bound {bound:.4f}, ", end="")
    print(f"largest entry {largest:.4f}")
    # sphinx_gallery_start_ignore
    assert largest <= bound
    # sphinx_gallery_end_ignore
print(f"output std {y_pred.std():.3f}, target std {y.std():.3f}")
# sphinx_gallery_start_ignore
assert y_pred.std() < 0.5 * y.std()
# sphinx_gallery_end_ignore

# %%
# Loss functions
# --------------
# ``torch.nn`` also ships the usual losses as modules. ``nn.MSELoss`` squares
# the differences; ``reduction="sum"`` keeps the sum of squares of the basics
# lessons, while the default, ``"mean"``, divides by the number of elements
# (here :math:`64 \times 10 = 640`), and so every gradient too.
loss_fn = nn.MSELoss(reduction="sum")
loss = loss_fn(y_pred, y)
mean_loss = nn.MSELoss()(y_pred, y)
print(f"sum of squares: {loss.item():.4f}   mean: {mean_loss.item():.4f}")
print(f"ratio: {loss.item() / mean_loss.item():.1f}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(loss, ((y_pred - y) ** 2).sum())
torch.testing.assert_close(mean_loss, loss / y.numel())
torch.testing.assert_close(
    torch.autograd.grad(mean_loss, first.bias, retain_graph=True)[0],
    torch.autograd.grad(loss, first.bias, retain_graph=True)[0] / y.numel(),
)
# sphinx_gallery_end_ignore

# %%
# The two differ by the factor 640, and so do their gradients: with plain
# gradient descent, the mean needs a learning rate 640 times larger for the
# same steps.
#
# The state dict
# --------------
# ``model.state_dict()`` maps each name to its tensor. It is what you save
# and reload (the next lesson does both, in a checkpoint). Its tensors are
# detached, but they share memory with the live parameters: when training
# changes the model, the dict changes too. To keep a snapshot, clone it.
state = model.state_dict()
print(list(state))
same = state["0.weight"].data_ptr() == first.weight.data_ptr()
print(f"state['0.weight'] uses the memory of first.weight: {same}")
initial_state = {name: t.clone() for name, t in state.items()}
# sphinx_gallery_start_ignore
assert same and not state["0.weight"].requires_grad
# sphinx_gallery_end_ignore

# %%
# Gradients add up until you clear them
# -------------------------------------
# ``backward()`` *adds* into each parameter's ``.grad``: two backward passes
# over the same batch give twice the gradient of one. ``model.zero_grad()``
# clears the gradients of every parameter; by default it sets them to
# ``None`` (no memory held, and "no gradient yet" differs from "zero").
loss_fn(model(x), y).backward()
once = first.bias.grad.clone()
loss_fn(model(x), y).backward()
print(f"bias grad norm: {once.norm():.2f} after one backward,")
print(f"                {first.bias.grad.norm():.2f} after two")
# sphinx_gallery_start_ignore
torch.testing.assert_close(first.bias.grad, 2 * once)
# sphinx_gallery_end_ignore

model.zero_grad()
print(f"after zero_grad(): first.bias.grad is {first.bias.grad}")
# sphinx_gallery_start_ignore
assert all(p.grad is None for p in model.parameters())
# sphinx_gallery_end_ignore

# %%
# Why the update needs ``torch.no_grad()``
# ----------------------------------------
# A gradient-descent step changes each parameter in place. That change must
# not become part of the graph autograd records. Parameters are *leaf*
# tensors (created by you, not computed from other tensors; see
# :ref:`sphx_glr_lessons_basics_04_autograd.py`), and autograd refuses an
# in-place change to a leaf that requires gradients:
p = first.bias
print(f"first.bias: is_leaf={p.is_leaf}, requires_grad={p.requires_grad}")
try:
    p -= 1e-4 * torch.ones_like(p)
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).splitlines()[0]}")
else:
    raise AssertionError("the in-place update should have been refused")

# %%
# Inside ``with torch.no_grad():`` nothing is recorded, so the update the
# leaf refused above is allowed there, and it is exactly the update we want.
#
# Training
# --------
# The loop: forward, loss, clear the old gradients, backward, then step every
# parameter against its gradient. The learning rate ``1e-4`` suits the sum
# of squares and PyTorch's default initialisation.
learning_rate = 1e-4
losses = []
for t in range(500):
    loss = loss_fn(model(x), y)
    losses.append(loss.item())
    if t % 100 == 0 or t == 499:
        print(f"step {t:3d}   loss {loss.item():.4g}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= learning_rate * p.grad
# sphinx_gallery_start_ignore
assert losses[-1] < 1e-4 * losses[0]  # it fits the random targets
# sphinx_gallery_end_ignore

# %%
# The loss falls by more than four orders of magnitude:
# with 101,110 weights and only 640 target numbers, the network can
# memorise the random targets. A logarithmic axis shows the whole descent.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogy(losses)
ax.set_xlabel("step")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title("Two-layer nn.Sequential, manual gradient descent")
plt.show()

# %%
# Restoring a snapshot
# --------------------
# The ``state`` dict followed the weights as they changed; the cloned
# snapshot kept the starting values. ``load_state_dict`` copies tensors into
# an existing model by name, and a fresh ``Sequential`` loaded with the
# snapshot reproduces the very first loss. We call ``eval()`` first, a
# habit that matters in :ref:`sphx_glr_lessons_nn_03_custom_module.py`.

# sphinx_gallery_start_ignore
assert torch.equal(state["0.weight"], first.weight.detach())
assert not torch.equal(initial_state["0.weight"], first.weight.detach())
# sphinx_gallery_end_ignore
restored = nn.Sequential(nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out))
restored.to(device)
print(restored.load_state_dict(initial_state))
restored.eval()
with torch.no_grad():
    restored_loss = loss_fn(restored(x), y).item()
print(f"loss of the restored model: {restored_loss:.4f}")
print(f"first loss of training:     {losses[0]:.4f}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(restored_loss, losses[0])
# sphinx_gallery_end_ignore

# %%
# ``load_state_dict`` reports keys it found missing or unexpected
# (``<All keys matched successfully>`` means none) and, by default, raises
# on any mismatch. The restored model gives the very first loss of training
# again: the snapshot holds the starting weights, and the live ``state``
# dict moved with training.
#
# Going deeper
# ------------
# Optional on a first read: how autograd notices an in-place change, and
# why ``.data`` defeats it.
#
# Version counters
# ~~~~~~~~~~~~~~~~
# A tensor computed inside the graph (a non-leaf) *may* be changed in place:
# autograd records the change as one more operation. What it checks is that
# no value saved for the backward pass was overwritten: each tensor carries
# a version counter that every in-place change increments, and ``backward``
# refuses to use a saved tensor whose version moved on, even when
# ``torch.no_grad()`` hid the change itself.
h = first(x)  # a non-leaf: computed from the weights
h.clamp_(min=0)  # allowed, recorded like torch.clamp(h, min=0)
squared = h * h  # saves h for the backward pass
with torch.no_grad():
    h.add_(1)  # ... and now h has changed, unrecorded
try:
    squared.sum().backward()
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).split(' Hint:')[0]}")
else:
    raise AssertionError("backward should have found h modified")

# %%
# The message names the saved tensor by the recorded operation that made
# it (here the in-place clamp: its name in the message starts with
# ``Clamp``) and gives the version it expected and the one it found.
#
# ``.data`` skips the check
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# ``.data`` is an alias of a tensor that autograd does not watch: a change
# through it does not move the version counter, so ``backward`` silently
# returns a wrong gradient. Here the gradient of
# :math:`\sum_i w_i^2` at :math:`w = 1` should be :math:`2w = 2`:
w = torch.ones(3, requires_grad=True)
out = (w * w).sum()  # saves w; d out / d w = 2 * w = 2
w.data.add_(1)  # unseen: backward now reads w = 2
out.backward()
print(f"gradient after a .data change: {w.grad.tolist()}, should be 2")
# sphinx_gallery_start_ignore
assert torch.equal(w.grad, torch.full((3,), 4.0))
# sphinx_gallery_end_ignore

# %%
# Backward used the changed value and no error told us. The same change
# made under ``torch.no_grad()`` moves the version counter, and backward
# raises the error of the previous section instead.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``nn.MSELoss(size_average=False)``: the booleans ``size_average`` and
#      ``reduce`` were merged into one ``reduction`` argument;
#      ``size_average=False`` is ``reduction="sum"``. The old flags still
#      work, with a warning that they will be removed.
#    - ``loss.data[0]``: a loss is a 0-dimensional tensor, which cannot be
#      indexed; ``loss.item()`` returns its Python number.
#    - ``Variable(t)``: tensors track gradients themselves since PyTorch
#      0.4, so use ``t``.
#    - ``param.data -= lr * param.grad.data``: ``.data`` skips autograd's
#      checks (see "Going deeper"); update under ``torch.no_grad()``, or
#      let ``torch.optim`` do it (next lesson).

# %%
# Takeaways
# ---------
# - ``nn.Linear`` and friends create and own their weights;
#   ``nn.Sequential`` chains modules, and a model is called as ``model(x)``.
# - ``parameters()`` and ``named_parameters()`` list the learnable tensors;
#   ``state_dict()`` names them for saving, and shares their memory.
# - ``backward()`` adds into ``.grad``: clear it with ``zero_grad()`` every
#   step.
# - Update parameters in place inside ``torch.no_grad()``.
#
# Next, :ref:`sphx_glr_lessons_nn_02_optim.py` hands the update to
# ``torch.optim`` and compares smarter rules than plain gradient descent.


# %%
# Exercises
# ---------
# Two exercises on layers, parameters and the update. Each cell ends with a
# check: run it after your attempt and it says whether you are right.
# Solutions are at the end.
#
# **Exercise 1: count before you build.** For
# ``nn.Sequential(nn.Linear(20, 30), nn.ReLU(), nn.Linear(30, 5))``, work
# out without running it how many learnable numbers the model holds, and the
# shape of its first layer's weight. Answer with a pair such as
# ``(1234, (5, 6))``.


def check_exercise_1(answer):
    """Exercise 1's check: run it on your answer."""
    if answer is ...:
        print("Exercise 1 not attempted yet: replace ... with your pair")
        return
    model = torch.nn.Sequential(
        torch.nn.Linear(20, 30), torch.nn.ReLU(), torch.nn.Linear(30, 5)
    )
    count = sum(p.numel() for p in model.parameters())
    shape = tuple(model[0].weight.shape)
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        raise AssertionError(
            f"expected a pair (count, weight shape), got {answer!r}"
        )
    n, rows_cols = answer
    if not isinstance(n, int) or isinstance(n, bool):
        raise AssertionError(f"the count should be an int, got {n!r}")
    if n == 20 * 30 + 30 * 5:
        raise AssertionError(
            f"{n} counts the weights only: each Linear also has a bias"
        )
    if n in (20 * 30 + 30, 30 * 5 + 5):
        raise AssertionError(
            f"{n} counts one Linear layer: add the other one's weight and bias"
        )
    if n != count:
        raise AssertionError(
            f"the model does not hold {n} numbers: count each layer's "
            "weight and bias, and the ReLU's parameters"
        )
    if not isinstance(rows_cols, (tuple, list, torch.Size)):
        raise AssertionError(
            f"the shape should be a tuple such as (5, 6), got {rows_cols!r}"
        )
    if tuple(rows_cols) == shape[::-1]:
        raise AssertionError(
            f"the first weight does not have shape {tuple(rows_cols)}: "
            "which of in_features and out_features comes first?"
        )
    if tuple(rows_cols) != shape:
        raise AssertionError(
            f"the first weight does not have shape {tuple(rows_cols)}: "
            "it is the first layer's weight, (rows, columns)"
        )
    print("Exercise 1: correct")


# %%
# Your attempt at exercise 1, then its check:


answer_1 = ...  # (count, (rows, columns))
check_exercise_1(answer_1)

# %%
# **Exercise 2: one step of gradient descent.** Write
# ``sgd_step(model, lr)``. After ``backward()`` has filled the gradients, it
# moves every parameter of ``model`` by ``-lr`` times its gradient, in
# place, then clears the gradients for the next step.


def check_exercise_2(fn):
    """Exercise 2's check: run it on your attempt."""
    torch.manual_seed(2)
    model = torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)
    ).double()
    x, y = torch.randn(6, 3).double(), torch.randn(6, 2).double()
    torch.nn.MSELoss(reduction="sum")(model(x), y).backward()
    params = dict(model.named_parameters())
    old = {name: p.detach().clone() for name, p in params.items()}
    grads = {name: p.grad.clone() for name, p in params.items()}
    probe = sum((p * p).sum() for p in params.values())  # saves each p
    lr = 0.05
    try:
        result = fn(model, lr)
    except Exception as err:
        hint = ""
        if "leaf Variable" in str(err):
            hint = ": an in-place update needs torch.no_grad()"
        elif "NoneType" in str(err):
            hint = ": were the gradients cleared before the update?"
        raise AssertionError(
            f"sgd_step failed with {type(err).__name__}: {err}{hint}"
        ) from err
    if result is ...:
        print("Exercise 2 not attempted yet: write the body of sgd_step")
        return
    for name, p in model.named_parameters():
        if p is not params[name]:
            raise AssertionError(
                f"{name} was replaced by a new tensor: change the "
                "parameter in place"
            )
        if not (p.is_leaf and p.requires_grad):
            raise AssertionError(f"{name} should stay a trainable leaf")
        if p.dtype != torch.float64:
            raise AssertionError(
                f"{name} changed dtype to {p.dtype}: keep float64"
            )
        step = p.detach() - old[name]
        if torch.equal(step, torch.zeros_like(step)):
            raise AssertionError(
                f"{name} did not change: p = p - lr * p.grad only "
                "rebinds the name p; update in place with -="
            )
        if torch.allclose(step, lr * grads[name]):
            raise AssertionError(
                f"{name} moved up its gradient: subtract lr * p.grad"
            )
        if not torch.allclose(step, -lr * grads[name]):
            raise AssertionError(
                f"{name} did not move to p - lr * p.grad: move every "
                "parameter by -lr times its own gradient"
            )
    if any(p.grad is not None and p.grad.any() for p in model.parameters()):
        raise AssertionError(
            "the gradients are still there: the next backward() would add "
            "to them"
        )
    try:
        probe.backward()
    except RuntimeError:
        pass  # autograd saw the in-place change, as it should
    else:
        raise AssertionError(
            "the update went through .data, which autograd does not "
            "watch: update p itself under torch.no_grad()"
        )
    print("Exercise 2: correct")


# %%
# Your attempt at exercise 2, then its check:


def sgd_step(model, lr):
    return ...  # replace ... with your code


check_exercise_2(sgd_step)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.

# %%

# Solution 1: count before you build
# 20 * 30 + 30 = 630 in the first layer, 30 * 5 + 5 = 155 in the second,
# none in the ReLU. A weight is (out_features, in_features).
answer_1 = (785, (30, 20))
check_exercise_1(answer_1)

# %%


# Solution 2: one step of gradient descent
def sgd_step(model, lr):
    with torch.no_grad():  # the update is not part of the graph
        for p in model.parameters():
            p -= lr * p.grad
    model.zero_grad()


check_exercise_2(sgd_step)
