"""
An RNN from scratch
===================

A recurrent network is an ordinary module with a loop inside: the same small
layer is applied once per time step, and a hidden state carries what it has
seen so far. This lesson writes an Elman RNN by hand as an ``nn.Module`` with a
plain Python ``for`` loop, checks it against ``nn.RNN``, and trains it to
track and continue noisy sine waves. Optional on a first read: the core path
goes on with :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`.

**You will learn** how a recurrent network carries a hidden state through
time, how ``nn.RNN`` lays out its inputs, states and weights, how
backpropagation through time follows from autograd, and how to run a
trained RNN one step at a time.

**You need first** :ref:`sphx_glr_lessons_nn_03_custom_module.py`.
"""

# %%
# Setup
# -----
# One seed fixes the weights and the check inputs; the waves have their own.
import torch
from torch import nn

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["intermediate", "sequences", "nn"]
# sphinx_gallery_thumbnail_number = 2


# %%
# The recurrence
# --------------
# An Elman RNN keeps a hidden vector :math:`h_t`. At each step it mixes the
# new input :math:`x_t` with the previous state and squashes the sum:
#
# .. math::
#
#    h_t = \tanh(W_{ih} x_t + b_{ih} + W_{hh} h_{t-1} + b_{hh})
#
# The two affine maps are two ``nn.Linear`` layers. The module reads a
# time-major tensor of shape ``(seq_len, batch, input_size)`` (the default
# layout of ``nn.RNN``), so ``for x_t in x`` iterates over time. The hidden
# state starts at zeros unless the caller passes one; every step's state is
# stacked into one output tensor. Like ``nn.RNN``, it offers tanh and ReLU.
class ElmanRNN(nn.Module):
    def __init__(self, input_size, hidden_size, nonlinearity="tanh"):
        super().__init__()
        self.hidden_size = hidden_size
        self.input_to_hidden = nn.Linear(input_size, hidden_size)
        self.hidden_to_hidden = nn.Linear(hidden_size, hidden_size)
        self.activation = torch.tanh if nonlinearity == "tanh" else torch.relu

    def forward(self, x, h=None):
        """x: (seq_len, batch, input_size); h: (batch, hidden_size) or None."""
        if h is None:
            h = x.new_zeros(x.shape[1], self.hidden_size)
        states = []
        for x_t in x:  # one iteration per time step
            h = self.activation(
                self.input_to_hidden(x_t) + self.hidden_to_hidden(h)
            )
            states.append(h)
        return torch.stack(states), h  # all states, and the last one


rnn = ElmanRNN(input_size=4, hidden_size=8).to(device)
print(rnn)


# %%
# Checking it against ``nn.RNN``
# ------------------------------
# ``nn.RNN`` implements the same recurrence as one built-in operation
# (cuDNN on NVIDIA GPUs). Its parameters ``weight_ih_l0``, ``bias_ih_l0``,
# ``weight_hh_l0`` and ``bias_hh_l0`` (``l0``: the first layer) have the
# shapes of our two ``Linear`` layers, so we copy ours into it and compare.
# ``x.new_zeros`` in our ``forward`` makes a zero tensor on the device and
# with the dtype of ``x``.
# ``nn.RNN`` wants the initial state with a leading layer dimension,
# ``(num_layers, batch, hidden)``, and returns the final state that way.
def matching_parameters(mine, ref):
    return [
        (mine.input_to_hidden.weight, ref.weight_ih_l0),
        (mine.input_to_hidden.bias, ref.bias_ih_l0),
        (mine.hidden_to_hidden.weight, ref.weight_hh_l0),
        (mine.hidden_to_hidden.bias, ref.bias_hh_l0),
    ]


# %%
# Seven time steps, a batch of 3 and 4 features, for both non-linearities;
# the backward passes must agree too. The check runs on the CPU: on NVIDIA
# GPUs cuDNN may compute float32 RNNs in TF32 by default, which rounds more
# coarsely than our float32 layers.
x, h0 = torch.randn(7, 3, 4), torch.randn(3, 8)
for nonlinearity in ("tanh", "relu"):
    mine = ElmanRNN(4, 8, nonlinearity)
    ref = nn.RNN(4, 8, nonlinearity=nonlinearity)
    with torch.no_grad():  # copying weights is not to be differentiated
        for p_mine, p_ref in matching_parameters(mine, ref):
            p_ref.copy_(p_mine)
    out_mine, h_mine = mine(x, h0)
    out_ref, h_ref = ref(x, h0.unsqueeze(0))  # add the layer dimension
    out_mine.square().sum().backward()
    out_ref.square().sum().backward()
    grad_diff = max(
        (p_mine.grad - p_ref.grad).abs().max().item()
        for p_mine, p_ref in matching_parameters(mine, ref)
    )
    max_diff = (out_mine - out_ref).abs().max().item()
    print(f"{nonlinearity}: outputs {tuple(out_mine.shape)}, ", end="")
    print(f"max |diff| {max_diff:.1e}, gradients {grad_diff:.1e}")
    # sphinx_gallery_start_ignore
    torch.testing.assert_close(out_mine, out_ref)  # every time step
    torch.testing.assert_close(h_mine, h_ref.squeeze(0))  # final state
    torch.testing.assert_close(h_ref.squeeze(0), out_ref[-1])
    for p_mine, p_ref in matching_parameters(mine, ref):
        torch.testing.assert_close(p_mine.grad, p_ref.grad)
    # sphinx_gallery_end_ignore


# %%
# Outputs at all seven steps and the gradients of all four parameters match
# ``nn.RNN`` to floating-point rounding, for both non-linearities; so does
# the final state, which for one layer is the last step of the output.
#
# A task: track a noisy sine wave
# -------------------------------
# Each sequence is a sine wave with a random frequency and phase, observed
# with Gaussian noise. At every step the network sees the noisy value and
# must predict the *clean* value one step ahead; where the wave is in its
# cycle and how fast it turns must be gathered from the history, in the
# hidden state. The trivial baseline is persistence: "the next value equals
# the one I see now".
import math


def make_waves(n, length, generator, noise=0.1):
    """Clean and noisy sine waves, time-major: shape (length, n)."""
    freq = 0.15 + 0.25 * torch.rand(n, generator=generator)  # radians per step
    phase = 2 * math.pi * torch.rand(n, generator=generator)
    t = torch.arange(length, dtype=torch.float32)
    clean = torch.sin(freq * t[:, None] + phase)
    noisy = clean + noise * torch.randn(clean.shape, generator=generator)
    return clean.to(device), noisy.to(device)


seq_len = 50
data_gen = torch.Generator().manual_seed(1)
sets = {}
for name, n in (("train", 1024), ("test", 256)):
    clean, noisy = make_waves(n, seq_len + 1, data_gen)
    # inputs: noisy values at steps 0..49; targets: clean values at 1..50,
    # with a trailing feature dimension: (seq_len, batch, 1).
    sets[name] = noisy[:-1, :, None], clean[1:, :, None]
x_train, y_train = sets["train"]

burn_in = 10  # give the network a few steps to lock on before scoring it
x_test, y_test = sets["test"]
baseline_mse = (x_test - y_test)[burn_in:].square().mean().item()
print(f"persistence baseline, test MSE: {baseline_mse:.4f}")


# %%
# The model is our ``ElmanRNN`` plus a linear read-out that turns each
# hidden state into one number, for all time steps at once.
class WaveTracker(nn.Module):
    def __init__(self, hidden_size=32):
        super().__init__()
        self.rnn = ElmanRNN(1, hidden_size)
        self.readout = nn.Linear(hidden_size, 1)

    def forward(self, x, h=None):
        states, h = self.rnn(x, h)
        return self.readout(states), h


model = WaveTracker().to(device)
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
print(f"{sum(p.numel() for p in model.parameters())} parameters")

# %%
# Training
# --------
# Mini-batches of 64 sequences, Adam (see
# :ref:`sphx_glr_lessons_nn_02_optim.py`), mean squared error after the
# burn-in. Backpropagation goes through the Python loop: autograd recorded
# every step of it, so gradients flow back through all 50 time steps
# (*backpropagation through time*) with no extra code.
train_losses = []
for step in range(301):
    idx = torch.randint(0, x_train.shape[1], (64,), generator=data_gen)
    pred, _ = model(x_train[:, idx.to(device)])
    loss = loss_fn(pred[burn_in:], y_train[burn_in:, idx.to(device)])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    train_losses.append(loss.item())
    if step % 50 == 0:
        print(f"step {step:3d}  training-batch MSE {loss:.4f}")

# %%
# How far back does the gradient reach? We ask for the gradient of the last
# step's predictions with respect to every input step.
# ``torch.autograd.grad`` returns it without touching the parameters'
# ``.grad``.
probe = x_train[:, :64].clone().requires_grad_()
last_step = model(probe)[0][-1]  # [0]: predictions, not state; [-1]: last
(input_grad,) = torch.autograd.grad(last_step.sum(), probe)
per_step = input_grad.norm(dim=(1, 2))  # one norm per input step
for t in (49, 48, 45, 40, 30, 0):
    print(f"input step {t:2d}: gradient norm {per_step[t]:.1e}")
# sphinx_gallery_start_ignore
assert per_step[0] < 1e-3 * per_step[-1]  # "over a thousand times smaller"
assert per_step[0] < per_step[30] < per_step[40] < per_step[45] < per_step[48]
assert per_step[48] < per_step[49]
# sphinx_gallery_end_ignore

# %%
# The gradient does reach the very first input, but it shrinks the further
# back it goes: at step 0 it is over a thousand times smaller than at step
# 49. Each step back multiplies it by the recurrent weights and by the slope
# of tanh, which is at most 1. This *vanishing gradient* makes it hard for a
# plain RNN to learn from events long past; the LSTM of
# :ref:`sphx_glr_lessons_advanced_01_lstm.py` was designed against it.
#
# Then, once, the test waves, in evaluation mode and without a graph:
model.eval()
with torch.no_grad():
    pred, _ = model(x_test)
test_mse = loss_fn(pred[burn_in:], y_test[burn_in:]).item()
print(f"test MSE {test_mse:.4f} vs persistence {baseline_mse:.4f}")
# sphinx_gallery_start_ignore
assert test_mse < min(0.15 * baseline_mse, 0.1**2)  # 0.1: the noise's std
# sphinx_gallery_end_ignore

# %%
# The test error ends about ten times below the persistence baseline, and
# below 0.01, the variance of the noise on the inputs: the
# network averages away much of the noise and anticipates where the wave is
# heading.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(train_losses, lw=1, label="training batch")
ax.axhline(test_mse, color="C1", label="trained model (test)")
ax.axhline(baseline_mse, color="gray", ls="--", label="persistence (test)")
ax.set_yscale("log")
ax.set_xlabel("optimizer step")
ax.set_ylabel("MSE (log scale)")
ax.set_title("Elman RNN learning to predict the next clean value")
ax.legend()
plt.show()


# %%
# Going deeper
# ------------
# Optional on a first read: running the trained network on its own
# predictions, and the final states of a stack of layers.
#
# Continuing a wave on its own
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# On new waves, the network first sees 50 noisy steps (one-step
# predictions, what it was trained for). Then it runs *closed loop*: we stop
# feeding it data and feed back its own prediction as the next input. The
# hand-written module makes this easy: call it on one step at a time and
# pass the hidden state along.
horizon = 15
plot_gen = torch.Generator().manual_seed(2)
clean, noisy = make_waves(256, seq_len + horizon, plot_gen)

with torch.no_grad():  # the model is still in eval mode
    one_step, h = model(noisy[:seq_len, :, None])
    guess = one_step[-1:]  # prediction for step seq_len, shape (1, batch, 1)
    continuation = []
    for _ in range(horizon):
        continuation.append(guess)
        states, h = model.rnn(guess, h)  # feed the prediction back in
        guess = model.readout(states)
    continuation = torch.cat(continuation)[:, :, 0]

# %%
# Two trivial guesses for comparison: hold the last observation, or
# predict zero (the mean of a sine).
truth = clean[seq_len:]
errors = (continuation - truth).square().mean(dim=1)  # per step ahead
free_mse = errors.mean().item()
hold_mse = (noisy[seq_len - 1] - truth).square().mean().item()
zero_mse = truth.square().mean().item()
early, late = errors[:5].mean().item(), errors[-5:].mean().item()
print(f"{horizon}-step continuation MSE: RNN {free_mse:.4f} ", end="")
print(f"(first 5 steps {early:.4f}, last 5 {late:.4f})")
print(f"hold last value {hold_mse:.4f}, predict zero {zero_mse:.4f}")
# sphinx_gallery_start_ignore
assert free_mse < 0.1 * min(hold_mse, zero_mse) and late > early
# sphinx_gallery_end_ignore

# %%
# Closed loop, the network keeps the wave going beyond the last
# observation, with an error over ten times below both trivial guesses, but
# growing with the horizon: the model was trained only to look one step
# ahead, and each small mistake becomes the next input. One wave of the 256:
t = torch.arange(seq_len + horizon).numpy()
wave_clean, wave_noisy = clean[:, 0].cpu().numpy(), noisy[:, 0].cpu().numpy()
fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
for ax in (ax1, ax2):
    ax.plot(t, wave_clean, color="black", lw=1, label="clean wave")
    ax.set_ylabel("value")
ax1.plot(t[:seq_len], wave_noisy[:seq_len], ".", color="gray", label="noisy")
ax1.plot(t[1 : seq_len + 1], one_step[:, 0, 0].cpu(), label="one step ahead")
ax1.set_title("One-step-ahead predictions from noisy observations")
ax2.plot(t[seq_len:], continuation[:, 0].cpu(), "o-", label="closed loop")
ax2.axvline(seq_len - 0.5, color="gray", ls=":")
ax2.set_xlabel("time step")
ax2.set_title("Continuing the wave on its own predictions")
for ax in (ax1, ax2):
    ax.legend(loc="lower left", fontsize="small")
plt.show()

# %%
# One remedy for the growing error is training on the model's own
# predictions, fed back inside the training loop (scheduled sampling).

# %%
# Several layers and ``h_n``
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# For one layer, the final state ``nn.RNN`` returns is just the last time
# step of its output. It still returns it separately because in a stack of
# layers (``num_layers > 1``) the output holds only the top layer's
# states, while ``h_n`` holds the last state of every layer:
out, h_n = nn.RNN(4, 8, num_layers=2)(x)
print(f"two layers: output {tuple(out.shape)}, h_n {tuple(h_n.shape)}")
# sphinx_gallery_start_ignore
assert out.shape == (7, 3, 8) and h_n.shape == (2, 3, 8)
torch.testing.assert_close(h_n[-1], out[-1])  # top layer only in output
# sphinx_gallery_end_ignore

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - The first hidden state built as
#      ``Variable(torch.zeros(batch, hidden))``: ``Variable`` was merged
#      into ``Tensor`` in PyTorch 0.4, so a plain tensor (here
#      ``x.new_zeros``, which also picks the right device and dtype) is the
#      state.

# %%
# Takeaways
# ---------
# - An RNN applies one small layer per time step and carries a hidden
#   state from step to step; in PyTorch that is a Python ``for`` loop in
#   ``forward``.
# - ``nn.RNN`` computes the same recurrence in one built-in operation; it
#   reads ``(seq_len, batch, features)`` and wants states with a leading
#   layer dimension.
# - Autograd backpropagates through every step of the loop, but the
#   gradient reaching early steps can shrink a great deal.
# - A trained RNN can be run one step at a time by passing the hidden state
#   along.
#
# Next, :ref:`sphx_glr_lessons_advanced_01_lstm.py` moves on to LSTMs,
# recurrent layers built to keep information over longer spans.
