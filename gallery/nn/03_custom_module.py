"""
Writing your own nn.Module
==========================

``nn.Sequential`` only chains layers. Anything else (skip connections, several
inputs, a depth decided at run time) is written as a subclass of ``nn.Module``.
This lesson rewrites the two-layer network that way, freezes part of it, looks
at what a module registers (and what it silently does not) and at how
``train()`` and ``eval()`` switch dropout and batch normalisation.
"""

# %%
# Same data as before
# -------------------
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
torch.testing.assert_close(seq(x), net(x))

# %%
# ``print`` lists the registered submodules; ``named_parameters()`` and
# ``state_dict()`` use the attribute names. Under other names it is the network
# of :ref:`sphx_glr_lessons_nn_01_nn_package.py`: in a ``Sequential`` the same
# layers give the same output.
#
# .. note:: Old code you may meet: ``super(TwoLayerNet, self).__init__()``.
#    Python 3 lets you write ``super().__init__()``; the long form repeats the
#    class name, which must then change whenever the class is renamed.

# %%
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
assert losses[-1] < 1e-3 * losses[0]

# %%
# Freezing part of a model
# ------------------------
# To fine-tune only the last layer (say, on new targets), switch off
# gradients for the first: ``module.requires_grad_(False)`` does it for
# every parameter of that submodule. Autograd then computes no gradient for
# them, and an optimizer built over the *trainable* parameters only keeps no
# state for the frozen ones and never touches them.
net.zero_grad()  # drop the gradients left by the first training
net.linear1.requires_grad_(False)
trainable = [p for p in net.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=1e-4, momentum=0.9)
frozen_before = net.linear1.weight.detach().clone()
head_before = net.linear2.weight.detach().clone()

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
assert len(trainable) == 2  # linear2.weight and linear2.bias
assert net.linear1.weight.grad is None  # no gradient was computed
assert torch.equal(net.linear1.weight, frozen_before)
assert not torch.equal(net.linear2.weight, head_before)
assert new_losses[-1] < 0.5 * new_losses[0]
print(f"new targets: loss {new_losses[0]:.4g} -> {new_losses[-1]:.4g}")


# %%
# What gets registered, and what does not
# ---------------------------------------
# Assigning an ``nn.Module`` or ``nn.Parameter`` to an attribute registers it;
# anything else, unless it replaces a registered buffer, stays a plain
# attribute. So a **plain tensor** (a mask, a scale) is not saved or converted,
# and a **Python list of layers** hides them from ``parameters()``, the state
# dict and ``.to(...)``. The fixes: ``register_buffer`` and ``nn.ModuleList``.
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
# The two classes differ only in how ``__init__`` stores the same parts. The
# forgetful one has no parameters and an empty state dict; in the other,
# the buffer ``scale`` is saved but not trained.
forgetful, registered = ForgetfulStack(), RegisteredStack()
for model in (forgetful, registered):
    print(f"{type(model).__name__}: state_dict {list(model.state_dict())}")
assert list(forgetful.parameters()) == [] and forgetful.state_dict() == {}
assert len(list(registered.parameters())) == 4
assert "scale" in registered.state_dict()
assert "scale" not in dict(registered.named_parameters())

# %%
# Converting shows the difference (on an accelerator the trap is
# ``.to(device)``; ``float64`` shows it anywhere): the registered module
# converts everything, the forgetful one nothing, and then fails.
forgetful.to(torch.float64)
registered.to(torch.float64)
h = torch.randn(N, H, dtype=torch.float64)
assert registered(h).dtype == registered.scale.dtype == torch.float64
w = forgetful.blocks[0].weight
assert w.dtype == forgetful.scale.dtype == torch.float32
try:
    forgetful(h)
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).splitlines()[0]}")
else:
    raise AssertionError("float32 layers should have rejected float64 input")

# %%
# Training mode and evaluation mode
# ---------------------------------
# Some layers behave differently while training. **Dropout** zeroes each input
# with probability ``p`` and scales the rest by :math:`1/(1-p)`, keeping the
# expected value (for ``p=0.5`` about half are zeroed, the rest doubled); in
# evaluation mode it passes its input through. ``train()`` and ``eval()`` set
# the ``training`` flag of a module and all its children.
dropout = nn.Dropout(p=0.5)
ones = torch.ones(1000, 100, device=device)

dropout.train()
dropped = dropout(ones)
assert set(dropped.unique().tolist()) <= {0.0, 2.0}
assert abs(dropped.mean().item() - 1) < 0.02  # expected value kept
dropout.eval()
assert torch.equal(dropout(ones), ones)

# %%
# A corner of both outputs, 12 samples by 30 features:
import matplotlib.pyplot as plt

shown = {"train(): zeroed or doubled": dropped, "eval(): passed through": ones}
fig, axes = plt.subplots(1, 2, figsize=(8, 2.6), sharey=True)
for ax, (title, values) in zip(axes, shown.items()):
    image = ax.imshow(values[:12, :30].cpu(), vmin=0, vmax=2)
    ax.set_title(title)
    ax.set_xlabel("feature")
axes[0].set_ylabel("sample")
fig.colorbar(image, ax=axes, label="output of nn.Dropout(p=0.5)")
plt.show()

# %%
# **Batch normalisation** standardises each feature. In training mode it uses
# the batch's mean and variance and updates running averages of them: buffers
# that start at 0 and 1, with momentum 0.1 (the variance tracked is the
# unbiased one). In evaluation mode it uses the running averages and leaves
# them alone, so a sample's output no longer depends on the rest of the batch.
bn = nn.BatchNorm1d(H).to(device)
batch = 3 + 2 * torch.randn(N, H).to(device)  # features: mean 3, std 2
bn.train()
out = bn(batch)
mean, var = out.mean(dim=0), out.var(dim=0, correction=0)
torch.testing.assert_close(mean, torch.zeros_like(mean), atol=1e-5, rtol=0)
torch.testing.assert_close(var, torch.ones_like(var), atol=1e-3, rtol=0)
torch.testing.assert_close(bn.running_mean, 0.1 * batch.mean(dim=0))
torch.testing.assert_close(bn.running_var, 0.9 + 0.1 * batch.var(dim=0))

bn.eval()
before = bn.running_mean.clone()
out_eval = bn(batch)
torch.testing.assert_close(bn.running_mean, before)  # left alone
scale = torch.sqrt(bn.running_var + bn.eps)
expected = (batch - bn.running_mean) / scale * bn.weight + bn.bias
torch.testing.assert_close(out_eval, expected)
torch.testing.assert_close(bn(batch[:1]), out_eval[:1])  # one sample alone
print("buffers of BatchNorm1d:", [name for name, _ in bn.named_buffers()])

# %%
# In a whole model one call switches every layer. Two forward passes in
# training mode differ (new dropout masks); in evaluation mode they are
# identical. ``eval()`` does **not** turn off gradient tracking: for
# inference, also wrap the call in ``torch.no_grad()``.
layers = [nn.Linear(D_in, H), nn.BatchNorm1d(H), nn.ReLU(), nn.Dropout(0.2)]
model = nn.Sequential(*layers, nn.Linear(H, D_out)).to(device)
model.train()
assert not torch.equal(model(x), model(x))

model.eval()
assert all(not m.training for m in model.modules())
assert torch.equal(model(x), model(x))
assert model(x).requires_grad  # eval() alone still records the graph
with torch.no_grad():
    assert not model(x).requires_grad
print("train(): outputs vary between calls; eval(): outputs repeat exactly")
