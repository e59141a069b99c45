"""
Optimizers, learning-rate schedules and checkpoints
===================================================

The previous lesson updated every weight by hand. ``torch.optim`` turns that
loop into one call, ``optimizer.step()``, and offers smarter update rules than
plain gradient descent. Here the two-layer network is trained from one fixed
starting point by six optimizers, a learning-rate scheduler rescues a run that
stalls, and a checkpoint of model, optimizer and scheduler resumes training
with exactly the same result as never stopping.

.. tags:: beginner, optim
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
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")

N, D_in, H, D_out = 64, 1000, 100, 10
x = torch.randn(N, D_in).to(device)
y = torch.randn(N, D_out).to(device)

base = nn.Sequential(nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out)).to(
    device
)
loss_fn = nn.MSELoss(reduction="sum")

# %%
# ``optim.SGD`` is the loop you already wrote
# -------------------------------------------
# An optimizer is given the parameters it should update, plus its
# hyperparameters. Each step is then three calls: ``optimizer.zero_grad()``
# clears the gradients of exactly those parameters, ``loss.backward()`` fills
# them, ``optimizer.step()`` applies the update rule. For plain SGD the rule
# is ``p -= lr * p.grad``; side by side with the manual update of the
# previous lesson, five steps leave both copies with the same weights.
by_hand = copy.deepcopy(base)
with_optim = copy.deepcopy(base)
optimizer = torch.optim.SGD(with_optim.parameters(), lr=1e-4)

for _ in range(5):
    by_hand.zero_grad()
    loss_fn(by_hand(x), y).backward()
    with torch.no_grad():
        for p in by_hand.parameters():
            p -= 1e-4 * p.grad

    optimizer.zero_grad()
    loss_fn(with_optim(x), y).backward()
    optimizer.step()

for p_hand, p_optim in zip(by_hand.parameters(), with_optim.parameters()):
    torch.testing.assert_close(p_optim, p_hand)
print("optim.SGD and the manual update agree after 5 steps")

# %%
# .. note:: Old code you may meet:
#    ``for f in net.parameters(): f.data.sub_(f.grad.data * lr)``. Writing
#    through ``.data`` hides the change from autograd, and every new update
#    rule meant a new loop; ``optimizer.step()`` replaces both, and the
#    update runs without being recorded by autograd.


# %%
# Six optimizers, one starting point
# ----------------------------------
# A small helper trains a model for a number of steps and returns the loss
# before each step, along with the learning rate that step used (we need the
# latter for schedulers below).
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
#   and steps along :math:`v`, so consistent directions build up speed.
#   **Nesterov** momentum evaluates that velocity one step ahead.
# - **RMSprop** divides :math:`g` by a running root-mean-square of recent
#   gradients, so every weight moves at a similar pace.
# - **Adagrad** divides by the root of the *sum* of all past squared
#   gradients, so its steps shrink as training goes on.
# - **Adam** combines momentum with RMSprop's scaling (both bias-corrected).
#
# Learning rates are not comparable across rules: SGD's step grows with the
# gradient, which is large for a sum-of-squares loss, while the adaptive
# rules normalise the gradient, so their ``lr`` is roughly the size of a
# step. Each rate below was picked to work for this problem.
recipes = {
    "SGD (lr 1e-4)": lambda params: torch.optim.SGD(params, lr=1e-4),
    "SGD + momentum (lr 1e-4)": lambda params: torch.optim.SGD(
        params, lr=1e-4, momentum=0.9
    ),
    "SGD + Nesterov (lr 1e-4)": lambda params: torch.optim.SGD(
        params, lr=1e-4, momentum=0.9, nesterov=True
    ),
    "RMSprop (lr 1e-4)": lambda params: torch.optim.RMSprop(params, lr=1e-4),
    "Adagrad (lr 1e-2)": lambda params: torch.optim.Adagrad(params, lr=1e-2),
    "Adam (lr 1e-3)": lambda params: torch.optim.Adam(params, lr=1e-3),
}

steps = 200
curves, trained = {}, {}
for name, make_optimizer in recipes.items():
    model = copy.deepcopy(base)
    optimizer = make_optimizer(model.parameters())
    curves[name], _ = train(model, optimizer, steps)
    trained[name] = (model, optimizer)

print(f"{'optimizer':26s} {'step 0':>9s} {'step 50':>9s} {'step 199':>9s}")
for name, losses in curves.items():
    print(f"{name:26s} {losses[0]:9.4g} {losses[50]:9.4g} {losses[-1]:9.4g}")

first_losses = [losses[0] for losses in curves.values()]
assert all(loss == first_losses[0] for loss in first_losses), (
    "same start for every optimizer"
)
assert all(losses[-1] < 1e-3 * losses[0] for losses in curves.values())
for name in (
    "SGD + momentum (lr 1e-4)",
    "Adagrad (lr 1e-2)",
    "Adam (lr 1e-3)",
):
    assert curves[name][-1] < 1e-3 * curves["SGD (lr 1e-4)"][-1], name

# %%
# All six start from the same loss and all of them fit the data; momentum,
# Adagrad and Adam get there far sooner than plain SGD.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 4.5))
for name, losses in curves.items():
    ax.semilogy(losses, label=name)
ax.set_xlabel("step")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title("Same network, same initial weights, six optimizers")
ax.legend(fontsize="small")
ax.grid(True, which="both", alpha=0.3)
plt.show()


# %%
# What an optimizer remembers
# ---------------------------
# Apart from plain SGD, every rule keeps per-weight memory between steps:
# a velocity, a running average of squared gradients, or both. It lives in
# ``optimizer.state`` (keyed by parameter), next to the hyperparameters in
# ``optimizer.param_groups``. Counting it, per weight of the model:
def extra_numbers_per_weight(model, optimizer):
    params = list(model.parameters())
    extra = sum(
        value.numel()
        for p in params
        for value in optimizer.state[p].values()
        if torch.is_tensor(value) and value.shape == p.shape
    )
    return extra / sum(p.numel() for p in params)


memory = {name: extra_numbers_per_weight(*trained[name]) for name in recipes}
for name, ratio in memory.items():
    print(f"{name:26s} {ratio:.0f} extra number(s) per weight")
assert list(memory.values()) == [0, 1, 1, 1, 1, 2]  # in the order of `recipes`

adam = trained["Adam (lr 1e-3)"][1]
print(
    "Adam's state for one weight:",
    sorted(adam.state[adam.param_groups[0]["params"][0]]),
)
print(
    "Adam's hyperparameters:",
    {k: adam.param_groups[0][k] for k in ("lr", "betas", "eps")},
)

# %%
# This memory is part of the training run. A checkpoint that stores only the
# model's weights loses it, as the last section shows.
#
# Learning-rate schedules
# -----------------------
# With a ten times larger rate, RMSprop makes fast early progress and then
# bounces around instead of settling: its steps are too big near the
# minimum. A scheduler changes the learning rate as training goes on.
# ``StepLR(step_size=50, gamma=0.3)`` multiplies it by 0.3 every 50 calls to
# ``scheduler.step()``. Call it *after* ``optimizer.step()``; here once per
# training step (with mini-batches one usually calls it once per epoch).
from torch.optim.lr_scheduler import StepLR

constant = copy.deepcopy(base)
losses_constant, lrs_constant = train(
    constant, torch.optim.RMSprop(constant.parameters(), lr=1e-3), steps
)

scheduled = copy.deepcopy(base)
optimizer = torch.optim.RMSprop(scheduled.parameters(), lr=1e-3)
scheduler = StepLR(optimizer, step_size=50, gamma=0.3)
losses_scheduled, lrs_scheduled = train(scheduled, optimizer, steps, scheduler)

for t in range(steps):
    assert abs(lrs_scheduled[t] - 1e-3 * 0.3 ** (t // 50)) < 1e-12
print(f"final loss, constant lr:  {losses_constant[-1]:.4g}")
print(f"final loss, StepLR:       {losses_scheduled[-1]:.4g}")
assert losses_scheduled[-1] < losses_constant[-1] / 100

# %%
# Each drop of the learning rate (right) lets the loss (left) sink further,
# while the constant rate keeps it hovering.
fig, (ax_loss, ax_lr) = plt.subplots(1, 2, figsize=(10, 4))
ax_loss.semilogy(losses_constant, label="constant lr 1e-3")
ax_loss.semilogy(losses_scheduled, label="StepLR from 1e-3")
ax_loss.set_xlabel("step")
ax_loss.set_ylabel("sum-of-squares loss (log scale)")
ax_loss.set_title("RMSprop with and without a schedule")
ax_loss.legend()
ax_lr.semilogy(lrs_constant, label="constant")
ax_lr.semilogy(lrs_scheduled, label="StepLR(step_size=50, gamma=0.3)")
ax_lr.set_xlabel("step")
ax_lr.set_ylabel("learning rate (log scale)")
ax_lr.set_title("Learning rate used at each step")
ax_lr.legend()
fig.tight_layout()
plt.show()

# %%
# Saving and resuming training
# ----------------------------
# A run that is interrupted should continue as if nothing happened. That
# needs everything that changes during training: the model's weights, the
# optimizer's memory and the scheduler's position. Each has a
# ``state_dict()``; we store all three in one dictionary. To keep this page
# free of stray files, ``torch.save`` writes into an in-memory
# ``io.BytesIO``; a file path works the same way.
#
# First the reference: Adam with a ``StepLR`` trained for ``2 * k`` steps
# without a break.
import io

k = 50


def make_optimizer_and_scheduler(model):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    return optimizer, StepLR(optimizer, step_size=30, gamma=0.5)


straight = copy.deepcopy(base)
optimizer, scheduler = make_optimizer_and_scheduler(straight)
train(straight, optimizer, 2 * k, scheduler)

# %%
# Now the interrupted run: ``k`` steps, then a checkpoint. We also store the
# random-number generator's state; nothing here is random, but a run that
# shuffles its data or uses dropout needs it to resume exactly.
interrupted = copy.deepcopy(base)
optimizer, scheduler = make_optimizer_and_scheduler(interrupted)
train(interrupted, optimizer, k, scheduler)

buffer = io.BytesIO()
torch.save(
    {
        "step": k,
        "model": interrupted.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "rng": torch.get_rng_state(),
    },
    buffer,
)
print(f"checkpoint: {buffer.tell() / 2**20:.2f} MiB")
next_draw = torch.rand(3)  # what the interrupted run would have drawn next
del interrupted, optimizer, scheduler  # the process "dies"

# %%
# To resume, build *fresh* objects the same way as before (the new model
# even gets different random weights), then load the three states into
# them. Build the optimizer from the new model's parameters before loading
# its state: an optimizer's state dict refers to parameters by position,
# not by name. ``weights_only=True`` (the default) makes ``torch.load``
# refuse anything but tensors and plain containers, so a checkpoint from an
# untrusted source cannot run code; that is one more reason to save state
# dicts rather than whole pickled models. Loading onto the CPU is fine:
# each ``load_state_dict`` copies the tensors to wherever its object lives.
buffer.seek(0)
checkpoint = torch.load(buffer, map_location="cpu", weights_only=True)

resumed = nn.Sequential(nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out)).to(
    device
)
optimizer, scheduler = make_optimizer_and_scheduler(resumed)
resumed.load_state_dict(checkpoint["model"])
optimizer.load_state_dict(checkpoint["optimizer"])
scheduler.load_state_dict(checkpoint["scheduler"])
torch.set_rng_state(checkpoint["rng"])
torch.testing.assert_close(torch.rand(3), next_draw)

print(
    f"resuming at step {checkpoint['step']} with lr {optimizer.param_groups[0]['lr']:.1e}"
)
train(resumed, optimizer, 2 * k - checkpoint["step"], scheduler)

for p_straight, p_resumed in zip(straight.parameters(), resumed.parameters()):
    torch.testing.assert_close(p_resumed, p_straight)

# %%
# The resumed run ends on the same weights as the straight one. For contrast,
# resume from the same checkpoint but restore only the model: the new Adam
# starts with empty memory and the new scheduler at the full learning rate,
# and the run drifts off.
forgetful = nn.Sequential(
    nn.Linear(D_in, H), nn.ReLU(), nn.Linear(H, D_out)
).to(device)
forgetful.load_state_dict(checkpoint["model"])
optimizer, scheduler = make_optimizer_and_scheduler(forgetful)
train(forgetful, optimizer, 2 * k - checkpoint["step"], scheduler)


def max_difference(model_a, model_b):
    return max(
        (a - b).abs().max().item()
        for a, b in zip(model_a.parameters(), model_b.parameters())
    )


print(
    f"largest weight difference from the straight run, full resume:   {max_difference(resumed, straight):.1e}"
)
print(
    f"largest weight difference from the straight run, weights only:  {max_difference(forgetful, straight):.1e}"
)
assert max_difference(forgetful, straight) > 1e-3
