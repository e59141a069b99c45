"""
Writing your own nn.Module
==========================

``nn.Sequential`` only chains layers. Anything else (skip connections, several
inputs, a depth decided at run time) is written as a subclass of ``nn.Module``.
This lesson rewrites the two-layer network that way, freezes part of it, looks
at what a module registers (and what it silently does not) and at how
``train()`` and ``eval()`` switch layers such as dropout.

**You will learn** to write a module's ``__init__`` and ``forward``, to
freeze layers, to register sub-layers and tensors so that they are saved and
moved with the model (``nn.ModuleList``, buffers), and to switch between
training and evaluation mode.

**You need first** :ref:`sphx_glr_lessons_nn_02_optim.py`.
"""

# %%
# Same data as before
# -------------------
# The data of :ref:`sphx_glr_lessons_nn_01_nn_package.py`: random inputs
# and targets, drawn with the same seed.
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
# The two-layer net as a class
# ----------------------------
# A module has two halves. ``__init__`` runs once: it creates the parts that
# hold state and assigns them to attributes, which registers them with the
# module. ``forward`` runs on every call: it says how to combine the parts
# for one input, and it may use any Python and any tensor operation. There
# is no ``backward`` to write; autograd records whatever ``forward`` did.
class TwoLayerNet(nn.Module):
    def __init__(self, d_in, hidden, d_out):
        super().__init__()  # before any layer is assigned
        self.linear1 = nn.Linear(d_in, hidden)
        self.linear2 = nn.Linear(hidden, d_out)

    def forward(self, x):
        hidden = self.linear1(x).clamp(min=0)  # ReLU as a tensor operation
        return self.linear2(hidden)


net = TwoLayerNet(D_in, H, D_out).to(device)
print(net)
print(list(net.state_dict()))
seq = nn.Sequential(net.linear1, nn.ReLU(), net.linear2)  # the layout of 01
gap = (seq(x) - net(x)).abs().max().item()
print(f"largest gap between the class and a Sequential: {gap:.1e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(seq(x), net(x))
# sphinx_gallery_end_ignore

# %%
# ``print`` lists the registered submodules; ``named_parameters()`` and
# ``state_dict()`` use the attribute names. Under other names it is the
# network of :ref:`sphx_glr_lessons_nn_01_nn_package.py`: in a
# ``Sequential`` the same layers give the same output.
#
# Training it
# -----------
# Because ``net.parameters()`` finds every registered parameter, the
# training loop of :ref:`sphx_glr_lessons_nn_02_optim.py` works unchanged.
loss_fn = nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(net.parameters(), lr=1e-4)

losses = []
for t in range(300):
    loss = loss_fn(net(x), y)
    losses.append(loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"loss: step 0 {losses[0]:.4g}, step 299 {losses[-1]:.4g}")
# sphinx_gallery_start_ignore
assert losses[-1] < 1e-3 * losses[0]
# sphinx_gallery_end_ignore

# %%
# Freezing part of a model
# ------------------------
# To fine-tune only the last layer (say, on new targets), switch off
# gradients for the first: ``module.requires_grad_(False)`` does it for
# every parameter of that submodule. Autograd then computes no gradient for
# them, and an optimizer built over the *trainable* parameters only never
# touches them. Freezing does not clear a gradient that is already there,
# so we clear the ones left by the first training with ``zero_grad()``.
net.zero_grad()
net.linear1.requires_grad_(False)
trainable = [p for p in net.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=1e-4, momentum=0.9)
frozen_before = net.linear1.weight.detach().clone()
print(f"trainable tensors: {len(trainable)} of {len(list(net.parameters()))}")

# %%
# Training on new targets then moves only ``linear2``.
new_y = torch.randn(N, D_out).to(device)
new_losses = []
for t in range(100):
    loss = loss_fn(net(x), new_y)
    new_losses.append(loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"new targets: loss {new_losses[0]:.4g} -> {new_losses[-1]:.4g}")
unchanged = torch.equal(net.linear1.weight, frozen_before)
print(f"linear1 unchanged: {unchanged}, its grad: {net.linear1.weight.grad}")
# sphinx_gallery_start_ignore
assert len(trainable) == 2  # linear2.weight and linear2.bias
assert unchanged and net.linear1.weight.grad is None
assert new_losses[-1] < 0.5 * new_losses[0]
# sphinx_gallery_end_ignore


# %%
# The loss on the new targets falls while ``linear1`` keeps its weights and
# never even gets a gradient.
#
# What gets registered, and what does not
# ---------------------------------------
# Assigning an ``nn.Module`` or an ``nn.Parameter`` to an attribute
# registers it. A *buffer* is a tensor the module saves and moves with its
# parameters but does not train (a mask, a scale, running statistics); it
# is registered with ``register_buffer`` (or, since PyTorch 2.5, by
# assigning an ``nn.Buffer``). A **plain tensor** assigned to a new name
# stays a plain attribute: it is not saved or converted. And a **Python
# list of layers** hides them from ``parameters()``, the state dict and
# ``.to(...)``; ``nn.ModuleList`` registers them. The base class below holds
# the ``forward``; each subclass sets ``self.blocks`` and ``self.scale`` in
# its own ``__init__``, one carelessly and one properly.
class Stack(nn.Module):
    def forward(self, h):
        for block in self.blocks:
            h = torch.relu(block(h))
        return h * self.scale


class ForgetfulStack(Stack):
    def __init__(self):
        super().__init__()
        self.blocks = [nn.Linear(H, H), nn.Linear(H, H)]  # a Python list
        self.scale = torch.full((H,), 0.5)  # a plain tensor


class RegisteredStack(Stack):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(H, H), nn.Linear(H, H)])
        self.register_buffer("scale", torch.full((H,), 0.5))


# %%
# The two classes differ only in how ``__init__`` stores the same parts:
forgetful, registered = ForgetfulStack(), RegisteredStack()
for model in (forgetful, registered):
    n_params = len(list(model.parameters()))
    print(f"{type(model).__name__}: {n_params} parameters, ", end="")
    print(f"state_dict {list(model.state_dict())}")
# sphinx_gallery_start_ignore
assert list(forgetful.parameters()) == [] and forgetful.state_dict() == {}
assert len(list(registered.parameters())) == 4
assert "scale" in registered.state_dict()
assert "scale" not in dict(registered.named_parameters())
# sphinx_gallery_end_ignore

# %%
# The forgetful one has no parameters and an empty state dict: saving it
# saves nothing, and an optimizer over its ``parameters()`` would train
# nothing. In the other, the buffer ``scale`` is saved but not trained.
#
# Converting shows the difference (on an accelerator the trap is
# ``.to(device)``; ``float64`` shows it anywhere): the registered module
# converts everything, the forgetful one nothing, and then fails.
forgetful.to(torch.float64)
registered.to(torch.float64)
h = torch.randn(N, H, dtype=torch.float64)
out = registered(h)
print(f"registered: output {out.dtype}, scale {registered.scale.dtype}")
w = forgetful.blocks[0].weight
print(f"forgetful: weight {w.dtype}, scale {forgetful.scale.dtype}")
try:
    forgetful(h)
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).splitlines()[0]}")
else:
    raise AssertionError("float32 layers should have rejected float64 input")
# sphinx_gallery_start_ignore
assert out.dtype == registered.scale.dtype == torch.float64
assert w.dtype == forgetful.scale.dtype == torch.float32
# sphinx_gallery_end_ignore

# %%
# Training mode and evaluation mode
# ---------------------------------
# Some layers behave differently while training. **Dropout** zeroes each
# input with probability ``p`` and scales the rest by :math:`1/(1-p)`,
# keeping the expected value; in evaluation mode it passes its input
# through. ``train()`` and ``eval()`` set the ``training`` flag of a module
# and all its children.
dropout = nn.Dropout(p=0.5)
ones = torch.ones(1000, 100, device=device)

dropout.train()
dropped = dropout(ones)
print(f"train(): values {dropped.unique().tolist()}, ", end="")
print(f"mean {dropped.mean():.3f}")
dropout.eval()
passed = torch.equal(dropout(ones), ones)
print(f"eval(): output equals input: {passed}")
# sphinx_gallery_start_ignore
assert passed
assert set(dropped.unique().tolist()) <= {0.0, 2.0}
assert abs(dropped.mean().item() - 1) < 0.02  # expected value kept
# sphinx_gallery_end_ignore

# %%
# With ``p=0.5`` about half the ones became 0 and the rest 2, so the mean
# stays close to 1. A corner of both outputs, 12 samples by 30 features:
import matplotlib.pyplot as plt

shown = {"train(): zeroed or doubled": dropped, "eval(): passed through": ones}
fig, axes = plt.subplots(1, 2, figsize=(8, 2.6), sharey=True)
for ax, (title, values) in zip(axes, shown.items()):
    image = ax.imshow(values[:12, :30].cpu().numpy(), vmin=0, vmax=2)
    ax.set_title(title)
    ax.set_xlabel("feature")
axes[0].set_ylabel("sample")
fig.colorbar(image, ax=axes, label="output of nn.Dropout(p=0.5)")
plt.show()

# %%
# In a whole model one call switches every layer. (The model below also
# holds a ``BatchNorm1d``, taught under "Going deeper"; here only the dropout
# makes two calls differ.) Two forward passes in training mode differ (new
# dropout masks); in evaluation mode they are identical. ``eval()`` does
# **not** turn off gradient tracking: for inference, also run the model
# inside ``torch.no_grad()`` (or ``torch.inference_mode()``, a stricter and
# slightly faster variant).
layers = [nn.Linear(D_in, H), nn.BatchNorm1d(H), nn.ReLU(), nn.Dropout(0.2)]
model = nn.Sequential(*layers, nn.Linear(H, D_out)).to(device)
model.train()
same_train = torch.equal(model(x), model(x))
model.eval()
same_eval = torch.equal(model(x), model(x))
print(f"two calls equal? train(): {same_train}, eval(): {same_eval}")
tracked = model(x).requires_grad
with torch.no_grad():
    inside = model(x).requires_grad
print(f"eval() output requires_grad: {tracked}; under no_grad: {inside}")
# sphinx_gallery_start_ignore
assert not same_train and same_eval and tracked and not inside
assert all(not m.training for m in model.modules())
# sphinx_gallery_end_ignore

# %%
# The model above also holds a ``BatchNorm1d`` layer, the other common layer
# that depends on the mode ("Going deeper" shows how).
#
# Going deeper
# ------------
# Optional on a first read: what batch normalisation does in each mode.
#
# Batch normalisation
# ~~~~~~~~~~~~~~~~~~~
# **Batch normalisation** standardises each feature, then multiplies it by
# a learnable scale (``bn.weight``) and adds a learnable shift
# (``bn.bias``), one of each per feature; they start at 1 and 0, so a fresh
# layer's output is standardised. In training mode it uses the batch's mean
# and variance and updates running averages of them: buffers that start at
# 0 and 1 and move 10% of the way to each batch's values
# (``momentum=0.1``). In evaluation mode it uses the running averages and
# leaves them alone, so a sample's output no longer depends on the rest of
# the batch.
bn = nn.BatchNorm1d(H).to(device)
batch = 3 + 2 * torch.randn(N, H).to(device)  # features: mean 3, std 2
bn.train()
out = bn(batch)
mean, std = out.mean(dim=0), out.std(dim=0, correction=0)
print(f"train(): output mean {mean.abs().max():.1e} at most, ", end="")
print(f"std {std.mean():.3f} on average")
print(f"running_mean after one batch: {bn.running_mean.mean():.3f} on average")
# sphinx_gallery_start_ignore
assert torch.equal(bn.weight, torch.ones_like(bn.weight))
assert torch.equal(bn.bias, torch.zeros_like(bn.bias))
torch.testing.assert_close(mean, torch.zeros_like(mean), atol=1e-5, rtol=0)
torch.testing.assert_close(std**2, torch.ones_like(std), atol=1e-3, rtol=0)
torch.testing.assert_close(bn.running_mean, 0.1 * batch.mean(dim=0))
torch.testing.assert_close(bn.running_var, 0.9 + 0.1 * batch.var(dim=0))
# sphinx_gallery_end_ignore

# %%
# With the scale and shift still at 1 and 0, each output feature has mean
# 0 and standard deviation 1 over the batch, and the running mean moved a
# tenth of the way from 0 towards 3. The standard deviation is printed
# with ``correction=0`` (divided by ``N``), because that is the variance
# batch normalisation divides by; the running variance instead tracks the
# batch's *unbiased* variance, divided by ``N - 1``. In evaluation mode
# one sample alone gets the output it gets inside the batch:
bn.eval()
before = bn.running_mean.clone()
out_eval = bn(batch)
alone = bn(batch[:1])
print("eval(): sample alone vs in batch, largest gap ", end="")
print(f"{(alone - out_eval[:1]).abs().max():.1e}")
kept = torch.equal(bn.running_mean, before)
print(f"running_mean left alone in eval(): {kept}")
# sphinx_gallery_start_ignore
assert kept
torch.testing.assert_close(alone, out_eval[:1])
torch.testing.assert_close(
    out_eval,
    (batch - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps) * bn.weight
    + bn.bias,
)
# sphinx_gallery_end_ignore

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``super(TwoLayerNet, self).__init__()``: Python 3 lets you write
#      ``super().__init__()``; the long form repeats the class name, which
#      must then change whenever the class is renamed.

# %%
# Takeaways
# ---------
# - A module creates its parts in ``__init__`` and combines them in
#   ``forward``; autograd provides the backward pass.
# - Only modules, parameters and buffers assigned as attributes are
#   registered: use ``nn.ModuleList`` for lists of layers and
#   ``register_buffer`` for tensors that should be saved and moved.
# - ``requires_grad_(False)`` freezes layers; give the optimizer only the
#   trainable parameters.
# - ``train()`` and ``eval()`` switch dropout and batch normalisation;
#   ``eval()`` does not stop gradient tracking.
#
# Next, :ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py` feeds a
# model real datasets in shuffled mini-batches.


# %%
# Exercises
# ---------
# Three exercises on writing, registering and freezing modules. Each cell
# ends with a check: run it after your attempt and it says whether you are
# right. Solutions are at the end.
#
# **Exercise 1: a skip connection.** Write a module ``SkipNet(dim)`` that
# holds one ``nn.Linear(dim, dim)`` and whose ``forward`` returns
# ``x + relu(linear(x))``: the input skips past the layer and is added to
# its output, something a plain ``nn.Sequential`` cannot express.


def check_exercise_1(fn):
    """Exercise 1's check: run it on your class."""
    torch.manual_seed(5)
    try:
        net = fn(4)
        out = net(torch.randn(3, 4))
    except NotImplementedError as err:
        raise AssertionError(
            f"NotImplementedError: {err}: is the method spelled forward?"
        ) from err
    except Exception as err:
        raise AssertionError(
            f"SkipNet failed with {type(err).__name__}: {err}"
        ) from err
    if out is ...:
        print("Exercise 1 not attempted yet: write SkipNet's two methods")
        return
    names = [name for name, _ in net.named_parameters()]
    linears = [m for m in net.modules() if isinstance(m, torch.nn.Linear)]
    if len(linears) != 1 or len(names) != 2:
        raise AssertionError(
            "SkipNet should register one nn.Linear (a weight and a bias) as "
            f"an attribute; its parameters are {names}"
        )
    if linears[0].in_features != 4 or linears[0].out_features != 4:
        raise AssertionError("SkipNet(4) should hold an nn.Linear(4, 4)")
    x = torch.randn(4, 6, dtype=torch.float64).T  # (6, 4), not contiguous
    x.requires_grad_(True)
    before = x.detach().clone()
    try:
        out = net.double()(x)
    except Exception as err:
        raise AssertionError(
            f"on a float64 input SkipNet failed with {type(err).__name__}: "
            f"{err}"
        ) from err
    if not torch.equal(x.detach(), before):
        raise AssertionError(
            "forward changed its input x in place: return x + ..., do not "
            "add into x"
        )
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        raise AssertionError(f"expected a tensor of shape {tuple(x.shape)}")
    if out.dtype != torch.float64:
        raise AssertionError(f"float64 in, {out.dtype} out: keep the dtype")
    linear = linears[0]
    with torch.no_grad():
        y = linear(x)
        candidates = {
            "x + relu(linear(x))": x + torch.relu(y),
            "relu(x + linear(x)): apply relu to linear(x) alone, then add x": (
                torch.relu(x + y)
            ),
            "x + linear(x): the relu is missing": x + y,
            "relu(linear(x)): the input x is not added": torch.relu(y),
            "linear(x): the relu and the skip are missing": y,
        }
    for what, value in candidates.items():
        if torch.allclose(out.detach(), value):
            break
    else:
        what = "something else"
    if what != "x + relu(linear(x))":
        raise AssertionError(
            f"net(x) should be x + relu(linear(x)), not {what}"
        )
    if out.grad_fn is None:
        raise AssertionError(
            "the output is cut off from the graph (.detach() or "
            "torch.no_grad() in forward?): no gradient reaches the layer"
        )
    out.sum().backward()
    for name, p in net.named_parameters():
        if p.grad is None or not p.grad.any():
            raise AssertionError(f"no gradient reached {name}")
    x_ref = x.detach().clone().requires_grad_(True)
    (x_ref + torch.relu(linear(x_ref))).sum().backward()
    if x.grad is None or not torch.allclose(x.grad, x_ref.grad):
        raise AssertionError(
            "the gradient to x should include 1 from the skip: x itself "
            "must be added, not a detached copy"
        )
    print("Exercise 1: correct")


# %%
# Your attempt at exercise 1, then its check:


class SkipNet(nn.Module):
    def __init__(self, dim):
        super().__init__()
        # create the layer here

    def forward(self, x):
        return ...  # replace ... with your code


check_exercise_1(SkipNet)

# %%
# **Exercise 2: register what the module holds.** This module gives each
# input several scores, one per *head* (here a small ``nn.Linear`` that
# gives one score), plus a fixed offset. It runs, but an
# optimizer over its ``parameters()`` would train nothing, its state dict
# is empty and ``.to(...)`` moves none of it:
#
# .. code-block:: python
#
#    class Heads(nn.Module):
#        def __init__(self, d_in, n_heads):
#            super().__init__()
#            self.heads = [nn.Linear(d_in, 1) for _ in range(n_heads)]
#            self.offset = torch.zeros(n_heads)
#
#        def forward(self, x):
#            scores = [head(x) for head in self.heads]
#            return torch.cat(scores, dim=1) + self.offset
#
# Write it again so that the heads are trained, and the offset is saved and
# moved with the module but not trained.


def check_exercise_2(fn):
    """Exercise 2's check: run it on your class."""
    torch.manual_seed(6)
    x = torch.randn(5, 3)
    try:
        net = fn(3, 4)
        out = net(x)
    except NotImplementedError as err:
        raise AssertionError(
            f"NotImplementedError: {err}: is the method spelled forward?"
        ) from err
    except Exception as err:
        raise AssertionError(
            f"Heads failed with {type(err).__name__}: {err}"
        ) from err
    if out is ...:
        print("Exercise 2 not attempted yet: write the Heads class")
        return
    params = dict(net.named_parameters())
    if "offset" in params and params["offset"].requires_grad:
        raise AssertionError(
            "offset should not be trained: register it as a buffer"
        )
    trainable = [p for p in params.values() if p.requires_grad]
    heads = [m for m in net.modules() if isinstance(m, torch.nn.Linear)]
    if len(trainable) != 8 or len(heads) != 4:
        raise AssertionError(
            f"net.parameters() yields {len(trainable)} trainable tensors "
            f"in {len(heads)} nn.Linear; the 4 heads hold 8 (a weight and "
            "a bias each): a plain Python list registers nothing"
        )
    if "offset" not in net.state_dict():
        raise AssertionError("offset is not in the state dict: register it")
    with torch.no_grad():
        net.offset.copy_(torch.tensor([0.5, -1.0, 2.0, 3.0]))
    net.to(torch.float64)
    kinds = {name: t.dtype for name, t in net.state_dict().items()}
    if set(kinds.values()) != {torch.float64}:
        raise AssertionError(f".to(torch.float64) missed some: {kinds}")
    x = x.double()
    out = net(x)
    scores = torch.cat([head(x) for head in heads], dim=1)
    if not isinstance(out, torch.Tensor) or out.shape != (5, 4):
        raise AssertionError("net(x) should have shape (5, 4)")
    if torch.allclose(out, scores):
        raise AssertionError("the offset is not added to the scores")
    if not torch.allclose(out, scores + net.offset):
        raise AssertionError(
            "net(x) should be the heads' scores side by side plus offset"
        )
    out.sum().backward()
    if any(p.grad is None for p in trainable):
        raise AssertionError("a gradient should reach every head")
    net.to("meta")
    try:
        out = net(torch.empty(5, 3, dtype=torch.float64, device="meta"))
    except Exception as err:
        raise AssertionError(
            f"after net.to('meta') the forward failed ({err}): does forward "
            "make a new tensor instead of using the registered offset?"
        ) from err
    if isinstance(net.offset, torch.nn.Parameter):
        print(
            "Exercise 2: correct (a frozen nn.Parameter works; a buffer is "
            "the usual home for state that is never trained)"
        )
        return
    print("Exercise 2: correct")


# %%
# Your attempt at exercise 2, then its check:


class Heads(nn.Module):
    def __init__(self, d_in, n_heads):
        super().__init__()
        # register the heads and the offset here

    def forward(self, x):
        return ...  # replace ... with your code, as in the version above


check_exercise_2(Heads)

# %%
# **Exercise 3: what still trains?** After these lines, how many parameter
# tensors of ``net`` still require gradients, and how many numbers do they
# hold? Answer with a pair of whole numbers.
#
# .. code-block:: python
#
#    net = nn.Sequential(
#        nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU(),
#        nn.Linear(4, 2),
#    )
#    net[0].requires_grad_(False)
#    net[2].weight.requires_grad_(False)


def check_exercise_3(answer):
    """Exercise 3's check: run it on your answer."""
    if answer is ...:
        print("Exercise 3 not attempted yet: replace ... with your pair")
        return
    net = torch.nn.Sequential(
        torch.nn.Linear(3, 4),
        torch.nn.ReLU(),
        torch.nn.Linear(4, 4),
        torch.nn.ReLU(),
        torch.nn.Linear(4, 2),
    )
    net[0].requires_grad_(False)
    net[2].weight.requires_grad_(False)
    trainable = [p for p in net.parameters() if p.requires_grad]
    expected = (len(trainable), sum(p.numel() for p in trainable))
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        raise AssertionError(
            f"expected a pair (tensors, numbers), got {answer!r}"
        )
    if not all(isinstance(v, int) for v in answer):
        raise AssertionError(f"expected two whole numbers, got {answer!r}")
    answer = tuple(answer)
    if answer == expected[::-1]:
        raise AssertionError("the count of tensors comes first")
    hints = {
        (6, 46): "nothing frozen: requires_grad_(False) freezes them",
        (4, 30): "net[2].weight.requires_grad_(False) freezes one more",
        (4, 18): "requires_grad_(False) on net[0] freezes its bias too",
        (2, 10): "net[2].bias still trains: only its weight was frozen",
    }
    if answer in hints:
        raise AssertionError(f"{answer} is not right: {hints[answer]}")
    if answer != expected:
        raise AssertionError(
            f"{answer} is not right: list the parameters layer by "
            "layer and strike out the frozen ones"
        )
    print("Exercise 3: correct")


# %%
# Your attempt at exercise 3, then its check:


answer_3 = ...  # (tensors, numbers)
check_exercise_3(answer_3)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.

# %%


# Solution 1: a skip connection
class SkipNet(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.linear = nn.Linear(dim, dim)  # an attribute: registered

    def forward(self, x):
        return x + torch.relu(self.linear(x))


check_exercise_1(SkipNet)

# %%


# Solution 2: register what the module holds
class Heads(nn.Module):
    def __init__(self, d_in, n_heads):
        super().__init__()
        self.heads = nn.ModuleList(nn.Linear(d_in, 1) for _ in range(n_heads))
        self.register_buffer("offset", torch.zeros(n_heads))

    def forward(self, x):
        scores = [head(x) for head in self.heads]
        return torch.cat(scores, dim=1) + self.offset


check_exercise_2(Heads)

# %%

# Solution 3: what still trains?
# requires_grad_(False) on a module freezes its weight and its bias; the
# second line freezes one more tensor. Left: net[2].bias (4 numbers),
# net[4].weight (2 x 4 = 8) and net[4].bias (2).
answer_3 = (3, 14)
check_exercise_3(answer_3)
