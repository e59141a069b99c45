"""
An RNN from scratch
===================

A recurrent network is an ordinary module with a loop inside: the same small
layer is applied once per time step, and a hidden state carries what it has
seen so far. This lesson writes an Elman RNN by hand as an ``nn.Module`` with a
plain Python ``for`` loop, proves it computes exactly what ``nn.RNN`` computes,
and trains it to track and continue noisy sine waves.

.. tags:: intermediate, sequences, nn
"""

# %%
# Setup
# -----
# A single seed fixes the weights and the data. The RNN below runs one tiny
# matrix product per time step; on a CPU, fanning such small operations out to
# several threads costs more than it saves (and is very slow on a busy
# machine), so on CPU we use one thread for this lesson and restore the
# setting at the end.
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")

saved_threads = torch.get_num_threads()
if device.type == "cpu":
    torch.set_num_threads(1)

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
# The two affine maps are two ``nn.Linear`` layers, so the module is a handful
# of lines. It reads a time-major tensor of shape ``(seq_len, batch,
# input_size)`` (the default layout of ``nn.RNN``), so ``for x_t in x``
# iterates over time. The hidden state starts at zeros unless the caller passes
# one, and every step's state is collected and stacked into one output tensor.
#
# The old tutorial this site grew from had a version of this class that
# created a list called ``output`` but appended to ``outputs``, so it crashed
# on its first step, and it used ReLU while ``nn.RNN`` defaults to tanh. Here
# the non-linearity is a parameter so that both variants can be checked.


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
# .. note:: Old code you may meet: the first hidden state built as
#    ``Variable(torch.zeros(batch, hidden))`` and modules starting with
#    ``super(RNN, self).__init__()``. ``Variable`` was merged into ``Tensor``
#    in PyTorch 0.4, so a plain ``torch.zeros`` (here ``x.new_zeros``, which
#    also picks the right device and dtype) is the state; the two-argument
#    ``super`` is only the Python 2 spelling of ``super().__init__()``.
#
# Checking it against ``nn.RNN``
# ------------------------------
# ``nn.RNN`` implements the same recurrence in optimized code (cuDNN on a
# GPU). Its parameters are named ``weight_ih_l0``, ``bias_ih_l0``,
# ``weight_hh_l0`` and ``bias_hh_l0`` (``l0``: the first layer) and have the
# same shapes as our two ``Linear`` layers, so we can copy ours into it and
# compare. Two differences in the interface: ``nn.RNN`` wants the initial
# state with a leading layer dimension, ``(num_layers, batch, hidden)``, and
# returns the final state in that shape too.


def copy_into_reference(mine, ref):
    with (
        torch.no_grad()
    ):  # copying weights is not part of any computation to differentiate
        ref.weight_ih_l0.copy_(mine.input_to_hidden.weight)
        ref.bias_ih_l0.copy_(mine.input_to_hidden.bias)
        ref.weight_hh_l0.copy_(mine.hidden_to_hidden.weight)
        ref.bias_hh_l0.copy_(mine.hidden_to_hidden.bias)


x = torch.randn(7, 3, 4, device=device)  # 7 time steps, batch of 3, 4 features
h0 = torch.randn(3, 8, device=device)

for nonlinearity in ("tanh", "relu"):
    mine = ElmanRNN(4, 8, nonlinearity).to(device)
    ref = nn.RNN(4, 8, nonlinearity=nonlinearity).to(device)
    copy_into_reference(mine, ref)

    out_mine, h_mine = mine(x, h0)
    out_ref, h_ref = ref(x, h0.unsqueeze(0))  # add the layer dimension
    torch.testing.assert_close(out_mine, out_ref)  # every time step
    torch.testing.assert_close(h_mine, h_ref.squeeze(0))  # final state

    # Same forward pass, so backpropagation must agree too.
    out_mine.square().sum().backward()
    out_ref.square().sum().backward()
    pairs = [
        (mine.input_to_hidden.weight, ref.weight_ih_l0),
        (mine.input_to_hidden.bias, ref.bias_ih_l0),
        (mine.hidden_to_hidden.weight, ref.weight_hh_l0),
        (mine.hidden_to_hidden.bias, ref.bias_hh_l0),
    ]
    for p_mine, p_ref in pairs:
        torch.testing.assert_close(p_mine.grad, p_ref.grad)

    max_diff = (out_mine - out_ref).abs().max().item()
    print(
        f"{nonlinearity}: outputs {tuple(out_mine.shape)}, final state {tuple(h_mine.shape)}, "
        f"max |difference| {max_diff:.1e}"
    )

torch.testing.assert_close(
    h_mine, out_mine[-1]
)  # the final state is the last output row

# %%
# Outputs at all seven steps, the final hidden state and the gradients of all
# four parameters match ``nn.RNN`` to floating-point rounding, for both
# non-linearities. For one layer the final state is just the last time step of
# the output. ``nn.RNN`` still returns it separately because in a stack of
# layers (``num_layers > 1``) the output holds only the top layer's states,
# while ``h_n`` holds the last state of every layer.
#
# A task: track a noisy sine wave
# -------------------------------
# Each training sequence is a sine wave with a random frequency and phase,
# observed with Gaussian noise. At every step the network sees the noisy value
# and must predict the *clean* value one step ahead. One sample cannot tell it
# where in the cycle it is or how fast the wave turns; the hidden state has to
# accumulate that from the history, so this is a task a feed-forward net on a
# single input could not solve.
#
# The trivial baseline is persistence: "the next value equals the one I see
# now". With noise of standard deviation 0.1 and waves that move a fair amount
# per step, it is off by a clear margin.
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
train_clean, train_noisy = make_waves(1024, seq_len + 1, data_gen)
test_clean, test_noisy = make_waves(256, seq_len + 1, data_gen)

# inputs: noisy values at steps 0..49; targets: clean values at steps 1..50.
# A trailing feature dimension of size 1 makes them (seq_len, batch, 1).
x_train, y_train = train_noisy[:-1, :, None], train_clean[1:, :, None]
x_test, y_test = test_noisy[:-1, :, None], test_clean[1:, :, None]

burn_in = 10  # give the network a few steps to lock on before scoring it
baseline_mse = (x_test - y_test)[burn_in:].square().mean().item()
print(f"persistence baseline, test MSE: {baseline_mse:.4f}")

# %%
# The model is our ``ElmanRNN`` plus a linear read-out that turns each hidden
# state into one number. Applied to the stacked states, ``nn.Linear`` reads
# out all time steps at once.


class WaveTracker(nn.Module):
    def __init__(self, hidden_size=32):
        super().__init__()
        self.rnn = ElmanRNN(1, hidden_size)
        self.readout = nn.Linear(hidden_size, 1)

    def forward(self, x, h=None):
        states, h = self.rnn(x, h)
        return self.readout(states), h


model = WaveTracker().to(device)
n_params = sum(p.numel() for p in model.parameters())
print(f"{n_params} parameters")

# %%
# Training
# --------
# Mini-batches of 64 sequences, Adam, mean squared error after the burn-in.
# Backpropagation goes through the Python loop: autograd recorded every step
# of it, so gradients flow back through all 50 time steps (backpropagation
# through time) with no extra code.
loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)


def test_mse():
    with torch.no_grad():
        pred, _ = model(x_test)
        return loss_fn(pred[burn_in:], y_test[burn_in:]).item()


train_losses, test_points = [], []
for step in range(301):
    idx = torch.randint(0, x_train.shape[1], (64,), generator=data_gen).to(
        device
    )
    pred, _ = model(x_train[:, idx])
    loss = loss_fn(pred[burn_in:], y_train[burn_in:, idx])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    train_losses.append(loss.item())
    if step % 50 == 0:
        test_points.append((step, test_mse()))
        print(
            f"step {step:3d}  train MSE {loss.item():.4f}  test MSE {test_points[-1][1]:.4f}"
        )

final_mse = test_mse()
print(
    f"final test MSE {final_mse:.4f} vs persistence {baseline_mse:.4f} "
    f"({baseline_mse / final_mse:.1f}x lower)"
)
assert final_mse < 0.3 * baseline_mse, (
    "the RNN should beat persistence by a wide margin"
)

# %%
# The test error ends several times below the persistence baseline (the
# assert demands at least a factor of three): the network averages away much
# of the noise and anticipates where the wave is heading.
import matplotlib.pyplot as plt
import numpy as np

fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(train_losses, lw=1, label="training batch")
steps, values = zip(*test_points)
ax.plot(steps, values, "o-", label="test set")
ax.axhline(baseline_mse, color="gray", ls="--", label="persistence baseline")
ax.set_yscale("log")
ax.set_xlabel("optimizer step")
ax.set_ylabel("MSE (log scale)")
ax.set_title("Elman RNN learning to predict the next clean value")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# Predicting and continuing a wave
# --------------------------------
# For a new wave, the first panel shows what training optimized: one-step
# predictions from noisy observations. The second panel runs the network
# *closed loop*: after 50 observed steps we stop feeding it data and feed back
# its own prediction as the next input. The hand-written module makes this
# easy, because we can call it on one step at a time and pass the hidden
# state along.
horizon = 15
plot_gen = torch.Generator().manual_seed(2)
clean, noisy = make_waves(256, seq_len + horizon, plot_gen)

with torch.no_grad():
    one_step, h = model(noisy[:seq_len, :, None])
    guess = one_step[-1:]  # prediction for step seq_len, shape (1, batch, 1)
    continuation = []
    for _ in range(horizon):
        continuation.append(guess)
        states, h = model.rnn(guess, h)  # feed the prediction back in
        guess = model.readout(states)
    continuation = torch.cat(continuation)[:, :, 0]

truth = clean[seq_len:]
free_mse = (continuation - truth).square().mean().item()
hold_mse = (
    (noisy[seq_len - 1] - truth).square().mean().item()
)  # repeat the last observation
zero_mse = truth.square().mean().item()  # predict the mean of a sine
print(
    f"{horizon}-step continuation MSE: RNN {free_mse:.4f}, "
    f"hold last value {hold_mse:.4f}, predict zero {zero_mse:.4f}"
)
assert free_mse < 0.5 * min(hold_mse, zero_mse)

# %%
# Now plot one of these waves.
k = 0
t = np.arange(seq_len + horizon)
fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
ax1.plot(
    t[:seq_len],
    noisy[:seq_len, k].cpu().numpy(),
    ".",
    color="gray",
    label="noisy input",
)
ax1.plot(
    t[: seq_len + 1],
    clean[: seq_len + 1, k].cpu().numpy(),
    color="black",
    lw=1,
    label="clean wave",
)
ax1.plot(
    t[1 : seq_len + 1],
    one_step[:, k, 0].cpu().numpy(),
    color="C0",
    label="one-step prediction",
)
ax1.set_ylabel("value")
ax1.set_title("One-step-ahead predictions from noisy observations")
ax1.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")

ax2.plot(t, clean[:, k].cpu().numpy(), color="black", lw=1, label="clean wave")
ax2.plot(
    t[seq_len:],
    continuation[:, k].cpu().numpy(),
    "o-",
    color="C1",
    ms=3,
    label="closed-loop continuation",
)
ax2.axvline(seq_len - 0.5, color="gray", ls=":")
ax2.set_xlabel("time step")
ax2.set_ylabel("value")
ax2.set_title("Continuing the wave on its own predictions")
ax2.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
fig.tight_layout()
plt.show()

# %%
# Closed loop, the network keeps the wave going well beyond the last
# observation, with an error far below both trivial guesses. The error still
# grows with the horizon: the model was trained only to look one step ahead,
# and each small mistake becomes the next input. Training on its own
# predictions (feeding outputs back inside the training loop) is the usual
# fix, and the hand-written loop would allow that with a few more lines.
#
# ``nn.RNN`` runs the same recurrence much faster, especially on a GPU, and
# :ref:`sphx_glr_lessons_advanced_01_lstm.py` moves on to LSTMs, which keep
# information over longer spans than this plain tanh recurrence.

torch.set_num_threads(saved_threads)  # undo this lesson's CPU setting
