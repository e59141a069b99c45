"""
Optimizers, learning-rate schedules and checkpoints
===================================================

The previous lesson updated every weight by hand. ``torch.optim`` turns that
loop into one call, ``optimizer.step()``, with smarter update rules than plain
gradient descent. Six optimizers train the network from one starting point, a
learning-rate schedule rescues a run that stalls, and a checkpoint resumes
training with the same result as never stopping.
"""

# %%
# One model, one starting point
# -----------------------------
# Same data and network as :ref:`sphx_glr_lessons_nn_01_nn_package.py`. We
# build the model once and keep it as ``base``; every experiment trains a
# ``copy.deepcopy`` of it, so all of them start from identical weights.
import copy

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


def fresh_model():
    return nn.Sequential(nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out))


base = fresh_model().to(device)
loss_fn = nn.MSELoss(reduction="sum")
# sphinx_gallery_tags = ["beginner", "optim"]

# %%
# ``optim.SGD`` is the loop you already wrote
# -------------------------------------------
# An optimizer is given the parameters it should update, plus its
# hyperparameters. Each step is then three calls: ``optimizer.zero_grad()``
# clears the gradients of exactly those parameters, ``loss.backward()`` fills
# them, ``optimizer.step()`` applies the update rule. For plain SGD the rule
# is ``p -= lr * p.grad``; side by side with the manual update of the
# previous lesson, one step leaves both copies with the same weights.
by_hand, with_optim = copy.deepcopy(base), copy.deepcopy(base)
optimizer = torch.optim.SGD(with_optim.parameters(), lr=1e-4)

loss_fn(by_hand(x), y).backward()
with torch.no_grad():
    for p in by_hand.parameters():
        p -= 1e-4 * p.grad

optimizer.zero_grad()
loss_fn(with_optim(x), y).backward()
optimizer.step()
for p_hand, p_optim in zip(by_hand.parameters(), with_optim.parameters()):
    torch.testing.assert_close(p_optim, p_hand)
assert not torch.equal(by_hand[0].weight, base[0].weight)  # both moved
print("optim.SGD and the manual update agree")

# %%
# .. note:: Old code you may meet: ``f.data.sub_(f.grad.data * lr)`` for
#    each parameter ``f``. Writing through ``.data`` hides the change from
#    autograd's checks, and every update rule meant a new loop;
#    ``optimizer.step()`` replaces both.


# %%
# Six optimizers, one starting point
# ----------------------------------
# A helper trains for some steps and returns the loss before each step and
# the learning rate that step used (for the schedules below).
def train(model, optimizer, steps, scheduler=None):
    losses, lrs = [], []
    for _ in range(steps):
        loss = loss_fn(model(x), y)
        losses.append(loss.item())
        lrs.append(optimizer.param_groups[0]["lr"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
    return losses, lrs


# %%
# What each rule does with the gradient :math:`g` of a weight:
#
# - **SGD** steps by :math:`-\mathrm{lr}\cdot g`.
# - **Momentum** keeps a running velocity, :math:`v \leftarrow 0.9\,v + g`,
#   and steps along :math:`v`, so consistent directions build up speed;
#   **Nesterov** steps along :math:`g + 0.9\,v`, a look ahead.
# - **RMSprop** divides :math:`g` by a running root-mean-square of recent
#   gradients, so a weight's step no longer scales with its gradient.
# - **Adagrad** divides by the root of the *sum* of all past squared
#   gradients, so its effective learning rate can only shrink.
# - **Adam** combines momentum with RMSprop's scaling (both bias-corrected).
#
# Learning rates are not comparable across rules. SGD's step grows with the
# gradient, large for a sum of squares; the adaptive rules divide by a running
# gradient scale, so a first step moves a weight by at most ``lr`` with Adam
# and Adagrad, up to ``10 * lr`` with RMSprop (its average of squares starts at
# 0, with no bias correction). Each rate below was picked for this problem.
from functools import partial

from torch.optim import SGD, Adagrad, Adam, RMSprop

recipes = {
    "SGD (lr 1e-4)": partial(SGD, lr=1e-4),
    "momentum (lr 1e-4)": partial(SGD, lr=1e-4, momentum=0.9),
    "Nesterov (lr 1e-4)": partial(SGD, lr=1e-4, momentum=0.9, nesterov=True),
    "RMSprop (lr 1e-4)": partial(RMSprop, lr=1e-4),
    "Adagrad (lr 1e-2)": partial(Adagrad, lr=1e-2),
    "Adam (lr 1e-3)": partial(Adam, lr=1e-3),
}

# %%
# Each recipe trains its own copy of ``base`` for 200 steps; we measure the
# largest weight change of the first step, in units of ``lr``.
steps = 200
curves, trained, first_step = {}, {}, {}
for name, make_optimizer in recipes.items():
    model = copy.deepcopy(base)
    optimizer = make_optimizer(model.parameters())
    curves[name], _ = train(model, optimizer, 1)
    moved = (model[0].weight - base[0].weight).abs().max().item()
    first_step[name] = moved / optimizer.param_groups[0]["lr"]
    curves[name] += train(model, optimizer, steps - 1)[0]
    trained[name] = (model, optimizer)

print(f"{'optimizer':20s} {'step 0':>9s} {'step 50':>9s} {'step 199':>9s}")
for name, losses in curves.items():
    print(f"{name:20s} {losses[0]:9.4g} {losses[50]:9.4g} {losses[-1]:9.4g}")
assert len({losses[0] for losses in curves.values()}) == 1  # same start
assert all(losses[-1] < 1e-3 * losses[0] for losses in curves.values())
for name in list(recipes)[1:3] + ["Adagrad (lr 1e-2)", "Adam (lr 1e-3)"]:
    assert curves[name][-1] < 1e-3 * curves["SGD (lr 1e-4)"][-1], name
adaptive = [round(first_step[name], 2) for name in list(recipes)[3:]]
print(f"first step / lr, RMSprop, Adagrad, Adam: {adaptive}")
assert adaptive == [10.0, 1.0, 1.0]

# %%
# All six start from the same loss and all of them cut it by more than a factor
# of 1000; both momentum variants, Adagrad and Adam end more than 1000 times
# lower than plain SGD. The first steps have the sizes given above.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 4.5))
for name, losses in curves.items():
    ax.semilogy(losses, label=name)
ax.set_xlabel("step")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title("Same network, same initial weights, six optimizers")
ax.legend(fontsize="small")
plt.show()

# %%
# What an optimizer remembers
# ---------------------------
# Apart from plain SGD, every rule keeps per-weight memory between steps: a
# velocity, a sum or running average of squared gradients, or both. It lives in
# ``optimizer.state``, a dict keyed by parameter, next to the hyperparameters
# in ``optimizer.param_groups``, and a checkpoint must save it with the weights
# (last section). The entries shaped like their weight:
memory = {}
for name, (model, optimizer) in trained.items():
    w = model[0].weight
    memory[name] = sorted(
        key
        for key, value in optimizer.state[w].items()
        if torch.is_tensor(value) and value.shape == w.shape
    )
    print(f"{name:20s} {memory[name]}")
assert [len(v) for v in memory.values()] == [0, 1, 1, 1, 1, 2]

# %%
# Learning-rate schedules
# -----------------------
# A scheduler changes the learning rate as training goes on.
# ``StepLR(step_size=50, gamma=0.3)`` multiplies it by 0.3 every 50 calls to
# ``scheduler.step()``. Call it *after* ``optimizer.step()``; here once per
# training step (with mini-batches, often once per epoch). With a ten times
# larger rate, RMSprop stalls: in its last 50 steps the loss never comes
# within a factor of 100 of where the same start ends with the schedule.
from torch.optim.lr_scheduler import StepLR

constant = copy.deepcopy(base)
optimizer = RMSprop(constant.parameters(), lr=1e-3)
losses_constant, _ = train(constant, optimizer, steps)

scheduled = copy.deepcopy(base)
optimizer = RMSprop(scheduled.parameters(), lr=1e-3)
scheduler = StepLR(optimizer, step_size=50, gamma=0.3)
losses_scheduled, lrs = train(scheduled, optimizer, steps, scheduler)
for t in range(steps):
    assert abs(lrs[t] - 1e-3 * 0.3 ** (t // 50)) < 1e-12
print(f"final loss, constant lr:  {losses_constant[-1]:.4g}")
print(f"final loss, StepLR:       {losses_scheduled[-1]:.4g}")
assert losses_scheduled[-1] < losses_constant[-1] / 100
assert min(losses_constant[150:]) > 100 * losses_scheduled[-1]

# %%
# Saving and resuming training
# ----------------------------
# A run that is interrupted should continue as if nothing happened. That
# needs everything that changes during training: the model's weights, the
# optimizer's memory and the scheduler's position. Each has a
# ``state_dict()``; we store all three in one dictionary.
#
# First the reference: Adam with a ``StepLR`` trained for ``2 * k`` steps
# without a break.
import io


def make_optimizer_and_scheduler(model):
    optimizer = Adam(model.parameters(), lr=1e-3)
    return optimizer, StepLR(optimizer, step_size=30, gamma=0.5)


k = 50
straight = copy.deepcopy(base)
optimizer, scheduler = make_optimizer_and_scheduler(straight)
train(straight, optimizer, 2 * k, scheduler)

# %%
# Now the interrupted run: ``k`` steps, then a checkpoint. Nothing here is
# random, but a run that shuffles its data or uses dropout resumes exactly only
# if every generator it draws from resumes too. ``torch.get_rng_state()`` saves
# only PyTorch's default CPU generator; a ``torch.Generator`` given to a
# ``DataLoader`` (here one permutation per step stands in), the accelerator
# generators (e.g. ``torch.cuda.get_rng_state_all()``,
# ``torch.mps.get_rng_state()``), NumPy and Python's ``random`` keep their own.
# ``torch.save`` writes to an in-memory buffer here.
interrupted = copy.deepcopy(base)
optimizer, scheduler = make_optimizer_and_scheduler(interrupted)
train(interrupted, optimizer, k, scheduler)
shuffle_gen = torch.Generator().manual_seed(1)
orders = [torch.randperm(N, generator=shuffle_gen) for _ in range(k)]

saved = {
    "step": k,
    "model": interrupted.state_dict(),
    "optimizer": optimizer.state_dict(),
    "scheduler": scheduler.state_dict(),
    "rng": torch.get_rng_state(),
    "shuffle_rng": shuffle_gen.get_state(),
}
buffer = io.BytesIO()
torch.save(saved, buffer)
next_draw = torch.rand(3)  # what the run would have drawn next
next_order = torch.randperm(N, generator=shuffle_gen)
del interrupted, optimizer, scheduler, shuffle_gen, saved  # the run "dies"

# %%
# To resume, build *fresh* objects the same way (the new model even gets other
# random weights) and load the three states into them. Build the optimizer from
# the new model's parameters first: its state dict refers to parameters by
# position (0, 1, 2, 3), not by name (``named_parameters()`` would only add
# names). ``weights_only=True`` (the default) makes ``torch.load`` refuse to
# unpickle arbitrary objects: save state dicts, not whole models.
buffer.seek(0)
checkpoint = torch.load(buffer, map_location="cpu", weights_only=True)
assert list(checkpoint["optimizer"]["state"]) == [0, 1, 2, 3]

resumed = fresh_model().to(device)
assert not torch.equal(resumed[0].weight, base[0].weight)
optimizer, scheduler = make_optimizer_and_scheduler(resumed)
resumed.load_state_dict(checkpoint["model"])
optimizer.load_state_dict(checkpoint["optimizer"])
scheduler.load_state_dict(checkpoint["scheduler"])
lr = optimizer.param_groups[0]["lr"]
print(f"resuming at step {checkpoint['step']} with lr {lr:.1e}")
train(resumed, optimizer, 2 * k - checkpoint["step"], scheduler)
for p_straight, p_resumed in zip(straight.parameters(), resumed.parameters()):
    torch.testing.assert_close(p_resumed, p_straight)

# %%
# The resumed run ends on the straight run's weights (to float tolerance). The
# generators resume too. Restoring the default generator continues its stream
# and nothing else: the shuffling generator, rebuilt and seeded as at the
# start, would replay the first order, and only its own saved state brings back
# the order the run would have drawn next.
torch.set_rng_state(checkpoint["rng"])
assert torch.equal(torch.rand(3), next_draw)

shuffle_gen = torch.Generator().manual_seed(1)
replayed = torch.randperm(N, generator=shuffle_gen)
assert torch.equal(replayed, orders[0])
assert not torch.equal(replayed, next_order)
shuffle_gen.set_state(checkpoint["shuffle_rng"])
assert torch.equal(torch.randperm(N, generator=shuffle_gen), next_order)
print("default generator and shuffling generator both resumed")
