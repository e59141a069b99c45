"""
Optimizers, learning-rate schedules and checkpoints
===================================================

The previous lesson updated every weight by hand. ``torch.optim`` turns that
loop into one call, ``optimizer.step()``, with smarter update rules than plain
gradient descent. Here the same network trains under six optimizer recipes,
a learning-rate schedule rescues a run that stalls, and a checkpoint resumes
training with the same result as never stopping.

**You will learn** to train with ``torch.optim`` (SGD, momentum, RMSprop,
Adagrad, Adam), to change the learning rate with a scheduler, and to save
and resume training with a checkpoint.

**You need first** :ref:`sphx_glr_lessons_nn_01_nn_package.py`.
"""

# %%
# One model, one starting point
# -----------------------------
# Same data and network as :ref:`sphx_glr_lessons_nn_01_nn_package.py`, with
# the same seed, so the first loss below is that lesson's first loss. We build
# the model once and keep it as ``base``; every experiment trains a
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
# hyperparameters such as the learning rate ``lr``. Each step is then three
# calls: ``optimizer.zero_grad()`` clears the gradients of exactly those
# parameters, ``loss.backward()`` fills them, ``optimizer.step()`` applies
# the update rule. For plain SGD the rule is ``p -= lr * p.grad``. We take
# one step both ways, by hand as in the previous lesson and with the
# optimizer, each on its own copy of ``base``.
by_hand, with_optim = copy.deepcopy(base), copy.deepcopy(base)
optimizer = torch.optim.SGD(with_optim.parameters(), lr=1e-4)

loss_fn(by_hand(x), y).backward()
with torch.no_grad():
    for p in by_hand.parameters():
        p -= 1e-4 * p.grad

optimizer.zero_grad()
loss_fn(with_optim(x), y).backward()
optimizer.step()
pairs = list(zip(by_hand.parameters(), with_optim.parameters()))
gap = max((p_hand - p_optim).abs().max().item() for p_hand, p_optim in pairs)
print(f"largest difference between the two copies: {gap:.1e}")
# sphinx_gallery_start_ignore
for p_hand, p_optim in pairs:
    torch.testing.assert_close(p_optim, p_hand)
assert not torch.equal(by_hand[0].weight, base[0].weight)  # both moved
# sphinx_gallery_end_ignore


# %%
# The two copies hold the same weights after the step (up to float
# rounding): ``optim.SGD`` does exactly what our loop did.
#
# Six recipes, one starting point
# -------------------------------
# A helper trains and returns the loss before each step.
def train(model, optimizer, steps, scheduler=None):
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(x), y)
        losses.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
    return losses


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
# - **Adam** combines momentum with RMSprop's scaling (both averages start
#   at 0, so early steps are scaled up: "bias correction").
#
# Four classes, SGD in three configurations. Learning rates do not compare
# across rules; each below was picked for this problem. ``functools.partial``
# fixes the hyperparameters now, so that ``recipes[name](params)`` builds the
# optimizer later.
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
# Each recipe trains its own copy of ``base`` for 200 steps.
steps = 200
curves = {}
for name, make_optimizer in recipes.items():
    model = copy.deepcopy(base)
    optimizer = make_optimizer(model.parameters())
    curves[name] = train(model, optimizer, steps)

print(f"{'optimizer':20s} {'step 0':>9s} {'step 50':>9s} {'step 199':>9s}")
for name, losses in curves.items():
    print(f"{name:20s} {losses[0]:9.4g} {losses[50]:9.4g} {losses[-1]:9.4g}")
# sphinx_gallery_start_ignore
assert len({losses[0] for losses in curves.values()}) == 1  # same start
assert all(losses[-1] < 1e-3 * losses[0] for losses in curves.values())
for name in recipes:
    if not name.startswith(("SGD", "RMSprop")):
        assert curves[name][-1] < 1e-3 * curves["SGD (lr 1e-4)"][-1], name
assert curves["Adam (lr 1e-3)"][-1] < curves["RMSprop (lr 1e-4)"][-1]
assert curves["RMSprop (lr 1e-4)"][-1] < curves["SGD (lr 1e-4)"][-1]
# sphinx_gallery_end_ignore

# %%
# All six start from the same loss and cut it by more than a factor of
# 1000. Both momentum variants, Adagrad and Adam end over 1000 times lower
# than plain SGD; RMSprop ends between SGD and Adam.
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
# Learning-rate schedules
# -----------------------
# A scheduler changes the learning rate as training goes on.
# ``StepLR(step_size=50, gamma=0.3)`` multiplies it by 0.3 every 50 calls
# to ``scheduler.step()``. Call it *after* ``optimizer.step()``: here once
# per training step; with mini-batches, often once per *epoch*, one pass
# over the whole training set. We run RMSprop with a ten times larger rate,
# once constant and once under the schedule.
from torch.optim.lr_scheduler import StepLR

constant = copy.deepcopy(base)
optimizer = RMSprop(constant.parameters(), lr=1e-3)
losses_constant = train(constant, optimizer, steps)

scheduled = copy.deepcopy(base)
optimizer = RMSprop(scheduled.parameters(), lr=1e-3)
scheduler = StepLR(optimizer, step_size=50, gamma=0.3)
losses_scheduled = train(scheduled, optimizer, steps, scheduler)
print(f"final loss, constant lr:  {losses_constant[-1]:.4g}")
print(f"final loss, StepLR:       {losses_scheduled[-1]:.4g}")
# sphinx_gallery_start_ignore
assert abs(optimizer.param_groups[0]["lr"] - 1e-3 * 0.3**4) < 1e-12
assert losses_scheduled[-1] < losses_constant[-1] / 100
assert min(losses_constant[150:]) > 100 * losses_scheduled[-1]
# sphinx_gallery_end_ignore

# %%
# With the constant rate, RMSprop stalls: its steps stay too large to
# settle, and in its last 50 steps the loss never comes within a factor of
# 100 of where the scheduled run ends. Each cut of the learning rate lets
# the scheduled run go lower:
fig, ax = plt.subplots(figsize=(7, 4))
ax.semilogy(losses_constant, label="RMSprop, constant lr 1e-3")
ax.semilogy(losses_scheduled, label="RMSprop, StepLR from 1e-3")
ax.set_xlabel("step (the scheduled lr falls at 50, 100 and 150)")
ax.set_ylabel("sum-of-squares loss (log scale)")
ax.set_title("A schedule rescues a run that stalls")
ax.legend()
plt.show()

# %%
# Saving and resuming training
# ----------------------------
# An interrupted run should continue as if nothing happened. That needs
# all that changes during training: the weights, the optimizer's memory
# (all rules but plain SGD keep some per weight) and the scheduler's
# position. Each has a ``state_dict()``; we store all three in one dict.
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
straight_losses = train(straight, optimizer, 2 * k, scheduler)

# %%
# Now the interrupted run: ``k`` steps, then a checkpoint. ``torch.save``
# writes to an in-memory buffer here; with a file name, as
# ``torch.save(checkpoint, "checkpoint.pt")``, it writes to disk.
interrupted = copy.deepcopy(base)
optimizer, scheduler = make_optimizer_and_scheduler(interrupted)
first_losses = train(interrupted, optimizer, k, scheduler)

buffer = io.BytesIO()
checkpoint = {
    "step": k,
    "model": interrupted.state_dict(),
    "optimizer": optimizer.state_dict(),
    "scheduler": scheduler.state_dict(),
}
torch.save(checkpoint, buffer)
del interrupted, optimizer, scheduler, checkpoint  # the run "dies"

# %%
# To resume, build *fresh* objects the same way (the new model even gets
# other random weights) and load the three states into them. Build the
# optimizer from the new model's parameters first: its state dict refers to
# parameters by their position in that list. ``map_location="cpu"`` loads
# every tensor onto the CPU; ``load_state_dict`` then copies each into the
# object's own tensors, on their device. ``weights_only=True`` (the
# default) refuses to unpickle arbitrary objects: save state dicts, not
# whole models.
buffer.seek(0)
checkpoint = torch.load(buffer, map_location="cpu", weights_only=True)

resumed = fresh_model().to(device)
# sphinx_gallery_start_ignore
assert not torch.equal(resumed[0].weight, straight[0].weight)
# sphinx_gallery_end_ignore
optimizer, scheduler = make_optimizer_and_scheduler(resumed)
resumed.load_state_dict(checkpoint["model"])
optimizer.load_state_dict(checkpoint["optimizer"])
scheduler.load_state_dict(checkpoint["scheduler"])
lr = optimizer.param_groups[0]["lr"]  # a list of dicts: lr and the rest
print(f"resuming at step {checkpoint['step']} with lr {lr:.1e}")
later_losses = train(resumed, optimizer, k, scheduler)  # the other k
pairs = list(zip(straight.parameters(), resumed.parameters()))
gap = max((a - b).abs().max().item() for a, b in pairs)
print(f"largest weight difference, straight vs resumed: {gap:.1e}")
# sphinx_gallery_start_ignore
assert list(checkpoint["optimizer"]["state"]) == [0, 1, 2, 3]
torch.testing.assert_close(first_losses + later_losses, straight_losses)
for p_straight, p_resumed in pairs:
    torch.testing.assert_close(p_resumed, p_straight)
# sphinx_gallery_end_ignore

# %%
# The schedule had halved the rate at step 30; the restored optimizer
# resumes with it. The resumed run ends on the straight run's weights (to
# float rounding at most), with the same losses on the way.
#
# Going deeper
# ------------
# Optional on a first read: how large a first step is, what an optimizer
# remembers between steps, and what else a checkpoint must hold when
# training draws random numbers.
#
# One step of each rule
# ~~~~~~~~~~~~~~~~~~~~~
# SGD's step grows with the gradient, which is large for a sum of squares.
# The adaptive rules divide by a running gradient scale, so a first step
# moves a weight by at most ``lr`` with Adam and Adagrad, but up to
# ``10 * lr`` with RMSprop: its average of squares starts at 0 and, with
# ``alpha=0.99``, holds only 1% of the first squared gradient, with no bias
# correction. Apart from plain SGD, every rule also keeps memory per weight
# in ``optimizer.state``, a dict keyed by parameter: a velocity, a sum or
# running average of squared gradients, or both. After one step of each
# recipe, the largest weight change in units of ``lr``, and the entries of
# ``optimizer.state`` shaped like the weight:
for name, make_optimizer in recipes.items():
    model = copy.deepcopy(base)
    optimizer = make_optimizer(model.parameters())
    train(model, optimizer, 1)
    w = model[0].weight
    ratio = (w - base[0].weight).abs().max() / optimizer.param_groups[0]["lr"]
    state = optimizer.state[w]
    memory = sorted(k for k, v in state.items() if v.shape == w.shape)
    print(f"{name:20s} step / lr {ratio:7.2f}   {memory}")
    # sphinx_gallery_start_ignore
    if name.startswith(("RMSprop", "Adagrad", "Adam")):
        assert round(ratio.item(), 2) == (10 if "RMS" in name else 1)
    else:
        assert 9 < ratio / (1.9 if "Nesterov" in name else 1) < 11
    assert len(memory) == {"SGD": 0, "Adam": 2}.get(name.split()[0], 1)
    # sphinx_gallery_end_ignore

# %%
# The SGD family's first step is the gradient times ``lr``: about 10 times
# ``lr`` here, and 1.9 times that for Nesterov, whose look-ahead adds 0.9
# times the velocity (on the first step, the gradient itself). A larger
# loss would give larger steps. The adaptive rules stay at ``lr``, or
# ``10 * lr`` for RMSprop, whatever the gradient's scale. The momentum
# variants keep one ``momentum_buffer``, RMSprop and Adagrad their squares,
# and Adam both averages, ``exp_avg`` and ``exp_avg_sq``.
# ``optimizer.state_dict()`` holds all of it, which is why a checkpoint
# saves it.
#
# Random generators in a checkpoint
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Nothing above was random, but a run that shuffles its data or uses
# dropout resumes exactly only if every generator it draws from resumes too.
# ``torch.get_rng_state()`` saves only PyTorch's default CPU generator. A
# ``torch.Generator`` of your own (such as one given to a ``DataLoader``,
# see :ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`), the
# accelerator generators (e.g. ``torch.cuda.get_rng_state_all()``), NumPy
# and Python's ``random`` keep their own. Here a generator of our own draws
# one shuffling order per step; we save both states after ``k`` draws.
shuffle_gen = torch.Generator().manual_seed(1)
orders = [torch.randperm(N, generator=shuffle_gen) for _ in range(k)]
rng_states = {"rng": torch.get_rng_state(), "shuffle": shuffle_gen.get_state()}
next_draw = torch.rand(3)  # what the run would have drawn next
next_order = torch.randperm(N, generator=shuffle_gen)

# %%
# Restoring the default generator continues its stream. The shuffling
# generator, rebuilt and seeded as at the start, replays the *first* order;
# only its own saved state brings back the order the run would have drawn
# next.
torch.set_rng_state(rng_states["rng"])
resumed_draw = torch.rand(3)
print(f"default generator resumed: {torch.equal(resumed_draw, next_draw)}")
shuffle_gen = torch.Generator().manual_seed(1)
replayed = torch.randperm(N, generator=shuffle_gen)
print(f"reseeded: first order again: {torch.equal(replayed, orders[0])}")
shuffle_gen.set_state(rng_states["shuffle"])
resumed_order = torch.randperm(N, generator=shuffle_gen)
print(f"state restored: next order: {torch.equal(resumed_order, next_order)}")
# sphinx_gallery_start_ignore
assert torch.equal(resumed_draw, next_draw)
assert torch.equal(replayed, orders[0])
assert torch.equal(resumed_order, next_order)
assert not torch.equal(replayed, next_order)
# sphinx_gallery_end_ignore

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``f.data.sub_(f.grad.data * lr)`` for each parameter ``f``: writing
#      through ``.data`` hides the change from autograd's checks, and every
#      update rule meant a new loop. ``optimizer.step()`` replaces both.
#    - ``scheduler.step()`` called *before* ``optimizer.step()``: since
#      PyTorch 1.1 the scheduler is stepped after the optimizer; the old
#      order skips the first learning rate, and PyTorch warns about it.
#    - ``torch.save(model, path)`` and a bare ``torch.load(path)``: pickling
#      a whole model ties the file to your code, and unpickling can run
#      arbitrary code. Save ``state_dict()`` s; ``torch.load`` defaults to
#      ``weights_only=True`` since PyTorch 2.6.

# %%
# Takeaways
# ---------
# - An optimizer owns the update: ``zero_grad()``, ``backward()``,
#   ``step()``. ``optim.SGD`` is exactly the hand-written loop.
# - Update rules differ a lot on the same problem, and each has its own
#   good learning rate; momentum and the adaptive rules beat plain SGD here.
# - A scheduler changes the learning rate as training goes on; step it
#   after the optimizer.
# - A checkpoint holds the state dicts of the model, the optimizer and the
#   scheduler; loaded into fresh objects, training goes on unchanged.
#
# Next, :ref:`sphx_glr_lessons_nn_03_custom_module.py` writes the network as
# a class of its own, for models that are more than a chain of layers.


# %%
# Exercises
# ---------
# Three exercises on optimizers, schedules and checkpoints. Each cell ends
# with a check: run it after your attempt and it says whether you are right.
# Solutions are at the end.
#
# **Exercise 1: the training loop.** Write
# ``fit(model, optimizer, x, y, steps)``, which takes ``steps``
# optimizer steps on the mean squared error ``nn.MSELoss()`` of
# ``model(x)`` against ``y``, and returns the list of the ``steps`` losses
# (Python numbers) computed before each step.
import math


def check_exercise_1(fn):
    """Exercise 1's check: run it on your attempt."""
    torch.manual_seed(3)
    x = torch.randn(7, 3)
    y = x[:, :1] - x[:, 1:2] * x[:, 2:]  # shape (7, 1)

    def build():
        torch.manual_seed(4)
        model = torch.nn.Sequential(
            torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)
        )
        return model, torch.optim.SGD(model.parameters(), 0.1, momentum=0.9)

    def reference(clear, steps):
        model, opt = build()
        losses = []
        for _ in range(steps):
            loss = torch.nn.functional.mse_loss(model(x), y)
            losses.append(loss.item())
            if clear:
                opt.zero_grad()
            loss.backward()
            opt.step()
        return model, losses

    ours, expected = reference(True, 5)
    expected.append(torch.nn.functional.mse_loss(ours(x), y).item())
    not_cleared = reference(False, 5)[0]
    theirs, opt = build()
    with torch.no_grad():
        out = theirs(x)
        summed = torch.nn.functional.mse_loss(out, y, reduction="sum")
        broadcast = ((out.view(1, -1) - y) ** 2).mean()  # (7,) vs (7, 1)
    start = [p.detach().clone() for p in theirs.parameters()]
    steps = []
    opt.register_step_post_hook(lambda *args: steps.append(1))
    try:
        losses = fn(theirs, opt, x, y, 5)
    except Exception as err:
        hint = ""
        if "target size" in str(err):
            hint = ": model(x) and y should have the same shape"
        raise AssertionError(
            f"fit failed with {type(err).__name__}: {err}{hint}"
        ) from err
    if losses is ...:
        print("Exercise 1 not attempted yet: write the body of fit")
        return
    if not isinstance(losses, list) or len(losses) != 5:
        raise AssertionError(f"expected a list of 5 losses, got {losses!r}")
    if any(isinstance(v, torch.Tensor) for v in losses):
        raise AssertionError("the losses should be Python floats: .item()")
    if not all(isinstance(v, float) for v in losses):
        raise AssertionError(f"expected Python floats, got {losses!r}")
    if not steps:
        raise AssertionError(
            "the optimizer passed to fit made no step: use it, not an "
            "optimizer of your own"
        )
    if len(steps) != 5:
        raise AssertionError(f"the optimizer made {len(steps)} steps, not 5")
    if math.isclose(losses[0], summed.item(), rel_tol=1e-5):
        raise AssertionError(
            "the first loss is the sum of squares: nn.MSELoss() takes the "
            "mean, so its default reduction is the one to use"
        )
    if math.isclose(losses[0], broadcast.item(), rel_tol=1e-5):
        raise AssertionError(
            "the output and the target have different shapes, (7,) and "
            "(7, 1), which broadcast to (7, 7): squeeze both or neither"
        )
    if all(torch.equal(p, q) for p, q in zip(start, theirs.parameters())):
        raise AssertionError(
            "the weights never changed: step() must come after backward() "
            "and before the gradients are cleared"
        )
    if all(math.isclose(a, b) for a, b in zip(losses, expected[1:])):
        raise AssertionError(
            "the losses are one step late: record each loss before its step"
        )
    pairs = list(zip(theirs.parameters(), not_cleared.parameters()))
    if all(torch.allclose(p, q) for p, q in pairs):
        raise AssertionError(
            "the weights match a loop without zero_grad(): backward() adds "
            "to the old gradients unless they are cleared each step"
        )
    for p, q in zip(ours.parameters(), theirs.parameters()):
        if not torch.allclose(p, q):
            raise AssertionError(
                "after 5 steps the weights differ from a correct loop's: "
                "check the order of zero_grad(), backward() and step()"
            )
    if not all(
        math.isclose(a, b, rel_tol=1e-6) for a, b in zip(losses, expected)
    ):
        raise AssertionError(
            f"the losses should be {[round(v, 4) for v in expected[:5]]}"
        )
    print("Exercise 1: correct")


# %%
# Your attempt at exercise 1, then its check:


def fit(model, optimizer, x, y, steps):
    return ...  # replace ... with your code


check_exercise_1(fit)

# %%
# **Exercise 2: predict a schedule.** An optimizer starts with ``lr=0.1``
# under ``StepLR(optimizer, step_size=2, gamma=0.5)``, and each training
# step calls ``optimizer.step()`` and then ``scheduler.step()``. Write down
# the learning rate used by each of the first six ``optimizer.step()``
# calls, as a list of six numbers.


def check_exercise_2(answer):
    """Exercise 2's check: run it on your answer."""
    if answer is ...:
        print("Exercise 2 not attempted yet: replace ... with six numbers")
        return
    w = torch.zeros(1, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 2, gamma=0.5)
    used = []
    for _ in range(6):
        used.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    try:
        guesses = [float(v) for v in answer]
    except (TypeError, ValueError):
        raise AssertionError(
            f"expected a list of six numbers, got {answer!r}"
        ) from None
    if len(guesses) != 6:
        raise AssertionError(
            f"expected six learning rates, one per step, got {len(guesses)}"
        )

    def same(values):
        return all(math.isclose(a, b) for a, b in zip(guesses, values))

    if same(used):
        print("Exercise 2: correct")
        return
    if not math.isclose(guesses[0], 0.1):
        raise AssertionError(
            "the first step uses the starting lr, 0.1: no scheduler.step() "
            "has run before it"
        )
    if same([0.1 * 0.5**i for i in range(6)]):
        raise AssertionError(
            "that halves the lr at every step: StepLR with step_size=2 "
            "halves it after every second scheduler.step()"
        )
    if same([0.1, *used[2:], used[-1] * 0.5]):
        raise AssertionError(
            "each halving comes one step too early: step i runs after only "
            "i - 1 calls to scheduler.step()"
        )
    if same([0.1, *used[:-1]]):
        raise AssertionError(
            "each halving comes one step too late: step i runs after "
            "i - 1 calls to scheduler.step(), not i - 2"
        )
    i = next(
        i
        for i, (a, b) in enumerate(zip(guesses, used))
        if not math.isclose(a, b)
    )
    raise AssertionError(
        f"step {i + 1} does not use lr {guesses[i]}: count the calls to "
        "scheduler.step() made before it"
    )


# %%
# Your attempt at exercise 2, then its check:


answer_2 = ...  # [lr of step 1, ..., lr of step 6]
check_exercise_2(answer_2)

# %%
# **Exercise 3: resume from a checkpoint.** ``checkpoint`` is a dictionary
# saved as in the lesson, with the keys ``"step"``, ``"model"``,
# ``"optimizer"`` and ``"scheduler"``. Write
# ``resume(checkpoint, model, optimizer, scheduler)``, which loads it into
# freshly built objects so that training continues exactly as if it had
# never stopped.


def check_exercise_3(fn):
    """Exercise 3's check: run it on your attempt."""
    x = torch.linspace(-1, 1, 12).view(6, 2)
    y = x.sum(dim=1, keepdim=True) ** 2

    def build(seed):
        torch.manual_seed(seed)
        model = torch.nn.Sequential(
            torch.nn.Linear(2, 4),
            torch.nn.BatchNorm1d(4),
            torch.nn.Linear(4, 1),
        )
        optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 2, gamma=0.5)
        return model, optimizer, scheduler

    def run(model, optimizer, scheduler, steps):
        for _ in range(steps):
            loss = torch.nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()

    straight, first, resumed = build(0), build(0), build(1)
    run(*straight, 6)
    run(*first, 3)
    model, optimizer, scheduler = first
    checkpoint = {
        "step": 3,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
    }
    try:
        result = fn(checkpoint, *resumed)
    except Exception as err:
        raise AssertionError(
            f"resume failed with {type(err).__name__}: {err} (the "
            f"checkpoint's keys are {list(checkpoint)})"
        ) from err
    if result is ...:
        print("Exercise 3 not attempted yet: write the body of resume")
        return
    new_model, new_optimizer, new_scheduler = resumed
    saved = checkpoint["model"]
    if not all(
        torch.equal(t, saved[name])
        for name, t in new_model.state_dict().items()
    ):
        raise AssertionError(
            "the model's weights and buffers were not loaded into the "
            "model passed in: model.load_state_dict(...)"
        )
    if not new_optimizer.state:
        raise AssertionError(
            "the optimizer starts from scratch: Adam's running averages "
            "are in checkpoint['optimizer'], load them too"
        )
    if new_scheduler.last_epoch != scheduler.last_epoch:
        raise AssertionError(
            "the scheduler starts from scratch: its step count is in "
            "checkpoint['scheduler'], load it too"
        )
    run(*resumed, 3)
    for p, q in zip(straight[0].parameters(), new_model.parameters()):
        if not torch.allclose(p, q):
            raise AssertionError(
                "3 steps after resume() the weights differ from a run that "
                "never stopped: is every state that training changes loaded?"
            )
    print("Exercise 3: correct")


# %%
# Your attempt at exercise 3, then its check:


def resume(checkpoint, model, optimizer, scheduler):
    return ...  # replace ... with your code


check_exercise_3(resume)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.

# %%


# Solution 1: the training loop
def fit(model, optimizer, x, y, steps):
    loss_fn = nn.MSELoss()
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(x), y)
        losses.append(loss.item())
        optimizer.zero_grad()  # else backward() adds to the old gradients
        loss.backward()
        optimizer.step()
    return losses


check_exercise_1(fit)

# %%

# Solution 2: predict a schedule
# Step i uses the lr after i - 1 calls to scheduler.step(), which halves it
# after every second call.
answer_2 = [0.1, 0.1, 0.05, 0.05, 0.025, 0.025]
check_exercise_2(answer_2)

# %%


# Solution 3: resume from a checkpoint
def resume(checkpoint, model, optimizer, scheduler):
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])  # Adam's averages
    scheduler.load_state_dict(checkpoint["scheduler"])  # where the lr is


check_exercise_3(resume)
