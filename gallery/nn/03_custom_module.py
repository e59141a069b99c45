"""
Writing your own nn.Module
==========================

``nn.Sequential`` only chains layers. Anything else (skip connections, loops,
several inputs, a layer used twice) is written as a subclass of ``nn.Module``.
This lesson rewrites the two-layer network that way, looks at what a module
registers (and what it silently does not), and shows how ``train()`` and
``eval()`` switch layers such as dropout and batch normalisation between
their two behaviours.

.. tags:: beginner, nn
"""

# %%
# Same data as before
# -------------------
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")

N, D_in, H, D_out = 64, 1000, 100, 10
x = torch.randn(N, D_in).to(device)
y = torch.randn(N, D_out).to(device)


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
        super().__init__()  # must come first: it sets up the registries
        self.linear1 = nn.Linear(d_in, hidden)
        self.linear2 = nn.Linear(hidden, d_out)

    def forward(self, x):
        hidden = self.linear1(x).clamp(min=0)  # ReLU as a tensor operation
        return self.linear2(hidden)


net = TwoLayerNet(D_in, H, D_out).to(device)
print(net)

# %%
# .. note:: Old code you may meet: ``super(TwoLayerNet, self).__init__()``.
#    Python 3 lets you write ``super().__init__()``; the long form repeats the
#    class name and breaks when the class is renamed or copied.
#
# ``print`` lists the registered submodules. ``named_parameters()`` now uses
# the attribute names, and ``state_dict()`` the same ones.
for name, p in net.named_parameters():
    print(f"{name:15s} {tuple(p.shape)}")
print("state_dict keys:", list(net.state_dict()))

# %%
# It is the same network as the ``nn.Sequential`` of
# :ref:`sphx_glr_lessons_nn_01_nn_package.py`: only the names differ. Renaming
# the keys of our state dict lets a ``Sequential`` load our weights, and then
# both compute the same outputs.
seq = nn.Sequential(nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out)).to(
    device
)
renamed = {
    key.replace("linear1.", "0.").replace("linear2.", "2."): value
    for key, value in net.state_dict().items()
}
seq.load_state_dict(renamed)
torch.testing.assert_close(net(x), seq(x))
print("TwoLayerNet and nn.Sequential agree")

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
    if t % 100 == 0 or t == 299:
        print(f"step {t:3d}   loss {loss.item():.4g}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

assert losses[-1] < 1e-3 * losses[0]


# %%
# What gets registered, and what does not
# ---------------------------------------
# Assigning an ``nn.Module`` or an ``nn.Parameter`` to an attribute
# registers it. Anything else is an ordinary Python attribute that the
# module knows nothing about. Two classic traps:
#
# - a **plain tensor** attribute (a constant mask, a scale) is not saved in
#   the state dict and is not moved by ``.to(...)``;
# - a **Python list of layers** hides those layers: their weights are not in
#   ``parameters()``, so no optimizer trains them, no state dict saves them,
#   and ``.to(...)`` leaves them behind.
#
# The fixes are ``self.register_buffer(name, tensor)`` for state that is not
# learned, and ``nn.ModuleList`` (or ``nn.ModuleDict``) for containers of
# layers. Both classes below share one ``forward`` and differ only in how
# ``__init__`` stores the same parts.
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


forgetful, registered = ForgetfulStack(), RegisteredStack()
for model in (forgetful, registered):
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"{type(model).__name__:16s} parameters: {n_params:6,d}   state_dict: {list(model.state_dict())}"
    )

assert (
    len(list(forgetful.parameters())) == 0 and len(forgetful.state_dict()) == 0
)
assert len(list(registered.parameters())) == 4
assert "scale" in registered.state_dict()
assert "scale" not in dict(
    registered.named_parameters()
)  # a buffer is not trained
print("buffers:", [name for name, _ in registered.named_buffers()])

# %%
# Converting a module shows the difference at once. On a GPU machine the
# trap is ``.to("cuda")``; converting to ``float64`` shows the same thing on
# any machine. The registered module converts everything. The forgetful one
# converts nothing and then fails on its first input.
forgetful.to(torch.float64)
registered.to(torch.float64)
h = torch.randn(N, H, dtype=torch.float64)
print(
    "RegisteredStack:",
    registered.blocks[0].weight.dtype,
    registered.scale.dtype,
)
print(
    "ForgetfulStack: ", forgetful.blocks[0].weight.dtype, forgetful.scale.dtype
)
assert registered(h).dtype == torch.float64
assert forgetful.blocks[0].weight.dtype == torch.float32

try:
    forgetful(h)
except RuntimeError as err:
    print(f"raised RuntimeError: {str(err).splitlines()[0]}")
else:
    raise AssertionError(
        "the unconverted layers should have rejected float64 input"
    )

# %%
# Training mode and evaluation mode
# ---------------------------------
# Some layers behave differently while training. **Dropout** zeroes a random
# half of its inputs (for ``p=0.5``) and doubles the rest, so the expected
# value is unchanged; at evaluation it passes its input through. Every module
# carries a ``training`` flag; ``model.train()`` and ``model.eval()`` set it
# on the module and all its children.
dropout = nn.Dropout(p=0.5)
ones = torch.ones(1000, 100, device=device)

dropout.train()
dropped = dropout(ones)
assert set(dropped.unique().tolist()) <= {0.0, 2.0}
assert (
    abs(dropped.mean().item() - 1) < 0.02
)  # same expected value as the input
print(
    f"train mode: {(dropped == 0).float().mean().item():.3f} of the entries zeroed, "
    f"mean {dropped.mean().item():.3f}"
)

dropout.eval()
assert torch.equal(dropout(ones), ones)
print("eval mode: input passed through unchanged")

# %%
# **Batch normalisation** standardises each feature. In training mode it
# uses the mean and variance of the current batch, and also updates a
# running average of them; those averages are buffers, so they are saved in
# the state dict and moved with the model. In evaluation mode it uses the
# running averages instead and leaves them alone, so the output for a sample
# no longer depends on the rest of the batch.
bn = nn.BatchNorm1d(H).to(device)
batch = 3 + 2 * torch.randn(N, H).to(device)  # features with mean 3, std 2

bn.train()
out = bn(batch)
print(
    f"train mode: largest |feature mean| {out.mean(dim=0).abs().max().item():.3f}, "
    f"output std {out.std().item():.3f}"
)
torch.testing.assert_close(
    out.mean(dim=0), torch.zeros(H, device=device), atol=1e-5, rtol=0
)
torch.testing.assert_close(
    bn.running_mean, 0.1 * batch.mean(dim=0)
)  # momentum 0.1, from 0

bn.eval()
before = bn.running_mean.clone()
out_eval = bn(batch)
torch.testing.assert_close(
    bn.running_mean, before
)  # eval leaves the averages alone
expected = (batch - bn.running_mean) / torch.sqrt(
    bn.running_var + bn.eps
) * bn.weight + bn.bias
torch.testing.assert_close(out_eval, expected)
torch.testing.assert_close(
    bn(batch[:1]), out_eval[:1]
)  # one sample alone: same answer
print(
    f"eval mode:  output mean {out_eval.mean().item():.3f} (running averages saw one batch)"
)
print("buffers of BatchNorm1d:", [name for name, _ in bn.named_buffers()])

# %%
# In a whole model one call switches every layer. Two forward passes in
# training mode differ (new dropout masks); in evaluation mode they are
# identical. ``eval()`` does **not** turn off gradient tracking: for
# inference, also wrap the call in ``torch.no_grad()``.
model = nn.Sequential(
    nn.Linear(D_in, H),
    nn.BatchNorm1d(H),
    nn.ReLU(),
    nn.Dropout(0.2),
    nn.Linear(H, D_out),
).to(device)

model.train()
assert not torch.equal(model(x), model(x))

model.eval()
assert all(not m.training for m in model.modules())
assert torch.equal(model(x), model(x))
assert model(x).requires_grad  # eval() alone still records the graph
with torch.no_grad():
    assert not model(x).requires_grad
print("train(): outputs vary between calls; eval(): outputs repeat exactly")
