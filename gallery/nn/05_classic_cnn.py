"""
A classic convolutional network
===============================

LeNet, a small convolutional network for 32x32 grayscale images, is the
"hello world" of ``torch.nn``. This lesson first shows what a convolution and
a max pooling compute on tiny examples, then defines LeNet, follows an
input's shape through it, counts where its weights sit, and fits it to one
target.

**You will learn** what ``nn.Conv2d`` and max pooling compute, how they
change a tensor's shape (channels, kernel size, padding, stride), how to
write a CNN as an ``nn.Module``, and how to feed it batches and single
images.

**You need first** :ref:`sphx_glr_lessons_nn_03_custom_module.py`.
"""

# %%
# Setup
# -----
# The training cycle (forward, loss, ``zero_grad``, backward, step) was
# taken apart in :ref:`sphx_glr_lessons_nn_01_nn_package.py` and
# :ref:`sphx_glr_lessons_nn_02_optim.py`; here the new part is the layers.
import torch
import torch.nn.functional as F  # layers as plain functions, no weights
from torch import nn

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["beginner", "vision", "nn", "optim"]

# %%
# What a convolution computes
# ---------------------------
# Images enter a network as 4-D tensors ``(N, C, H, W)``: samples, channels,
# height, width (here ``H`` is a height, not a hidden size). Channels come
# before the pixels, unlike Keras's default (and a photo read as a NumPy
# array), which put them last: ``permute(0, 3, 1, 2)`` converts. A convolution
# slides a small grid of weights, the *kernel*, over the image; at each
# position it multiplies the kernel with the patch beneath it and sums the
# products into one output number. Here a 6x6 image, dark on the left and
# bright on the right, meets a 3x3 kernel that subtracts the left column from
# the right one (small examples like this one run on the CPU).
tiny = torch.zeros(1, 1, 6, 6)  # one sample, one channel, 6x6 pixels
tiny[..., 3:] = 1.0  # the right half is bright
kernel = torch.tensor([[-1.0, 0.0, 1.0]] * 3).view(1, 1, 3, 3)
out = F.conv2d(tiny, kernel)
print(f"{tuple(tiny.shape)} -> {tuple(out.shape)}")
print(out[0, 0])
patch = tiny[0, 0, 0:3, 1:4]  # the patch under output position (0, 1)
print(f"by hand at (0, 1): {(patch * kernel[0, 0]).sum().item()}")
# sphinx_gallery_start_ignore
assert out[0, 0, 0, 1] == (patch * kernel[0, 0]).sum() == 3.0
assert out[0, 0].tolist() == [[0.0, 3.0, 3.0, 0.0]] * 4
assert torch.zeros(2, 5, 6, 3).permute(0, 3, 1, 2).shape == (2, 3, 5, 6)
# sphinx_gallery_end_ignore

# %%
# The output is large only where the kernel straddles the edge: this kernel
# detects vertical edges. A 3x3 kernel fits in 6 - 3 + 1 = 4 positions per
# row, so the output is 4x4. (Strictly, this operation is a
# cross-correlation: the kernel is not flipped. Deep-learning libraries call
# it convolution all the same.) In a network the kernels are not chosen by
# hand: they are weights, learned like any other.
#
# Max pooling
# -----------
# *Max pooling* with a 2x2 window keeps the largest number of each 2x2
# block, so it halves height and width. It has no weights. It keeps the
# strongest responses and lets later layers see a larger part of the image.
grid = torch.arange(16.0).view(1, 1, 4, 4)
print(grid[0, 0])
print(F.max_pool2d(grid, 2)[0, 0])
# sphinx_gallery_start_ignore
assert F.max_pool2d(grid, 2)[0, 0].tolist() == [[5.0, 7.0], [13.0, 15.0]]
# sphinx_gallery_end_ignore

# %%
# Channels, padding and stride
# ----------------------------
# ``nn.Conv2d(in_channels, out_channels, kernel_size)`` holds one kernel for
# every pair of input and output channel: a weight of shape ``(out, in, k,
# k)``, plus one bias per output channel. Each output channel sums its
# kernels' responses over all input channels. The output size of a side of
# length :math:`n` is :math:`\lfloor (n + 2p - k) / s \rfloor + 1`, where
# ``padding`` :math:`p` adds zeros around the border and ``stride``
# :math:`s` moves the kernel by more than one pixel:
picture = torch.zeros(1, 1, 32, 32)
for conv in (
    nn.Conv2d(1, 6, kernel_size=5),
    nn.Conv2d(1, 6, kernel_size=5, padding=2),
    nn.Conv2d(1, 6, kernel_size=5, stride=2),
):
    shape = tuple(conv(picture).shape)
    print(
        f"padding {conv.padding[0]}, stride {conv.stride[0]}: "
        f"weight {tuple(conv.weight.shape)}, output {shape}"
    )
    # sphinx_gallery_start_ignore
    assert shape[-1] == (32 + 2 * conv.padding[0] - 5) // conv.stride[0] + 1
    # sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
torch.testing.assert_close(  # an output channel sums over input channels
    F.conv2d(torch.arange(50.0).view(1, 2, 5, 5), torch.ones(1, 2, 3, 3)),
    F.conv2d(torch.arange(25.0).view(1, 1, 5, 5), torch.ones(1, 1, 3, 3))
    + F.conv2d(
        torch.arange(25.0, 50.0).view(1, 1, 5, 5), torch.ones(1, 1, 3, 3)
    ),
)
# sphinx_gallery_end_ignore


# %%
# With no padding a 5x5 kernel trims 4 pixels (32 to 28); ``padding=2``
# keeps the size (32); ``stride=2`` roughly halves it
# (:math:`\lfloor 27 / 2 \rfloor + 1 = 14`).
#
# Defining the network
# --------------------
# Our LeNet is the variant of PyTorch's own tutorials: LeCun's LeNet-5
# (1998) used squashing non-linearities and trainable subsampling layers
# where this one uses ReLU and max pooling. Layers with weights are created
# in ``__init__``; ReLU and max pooling are called as functions from
# ``torch.nn.functional`` in ``forward``, and ``torch.flatten`` turns each
# sample's feature maps into one vector for the fully connected layers.
class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5)  # 1 channel in, 6 out
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)  # one score per class

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)  # (N, 6, 14, 14)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)  # (N, 16, 5, 5)
        x = torch.flatten(x, start_dim=1)  # (N, 400): keeps the batch dim
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = LeNet().to(device)
print(net)

# %%
# The shapes in the comments follow from the size rule. We check them by
# running the two convolution stages by hand on one input:
t = torch.randn(1, 1, 32, 32, device=device)
shapes = [tuple(t.shape)]
for conv in (net.conv1, net.conv2):
    t = conv(t)
    shapes.append(tuple(t.shape))
    t = F.max_pool2d(F.relu(t), 2)
    shapes.append(tuple(t.shape))
print(" -> ".join(str(s) for s in shapes))
# sphinx_gallery_start_ignore
assert shapes[1:] == [(1, 6, 28, 28), (1, 6, 14, 14), (1, 16, 10, 10)] + [
    (1, 16, 5, 5)
]
# sphinx_gallery_end_ignore

# %%
# A 5x5 convolution trims 4 pixels (32 to 28), pooling halves (14), the
# second convolution gives 10 and pooling 5. So 16 channels of 5x5 reach
# the first fully connected layer, which has 16 * 5 * 5 = 400 inputs.
#
# Where the weights are
# ---------------------
# Each convolution has ``out * in * k * k`` weights plus ``out`` biases;
# each linear layer ``out * in`` weights plus ``out`` biases.
# ``named_children()`` yields each direct submodule with its name.
counts = {
    name: sum(p.numel() for p in layer.parameters())
    for name, layer in net.named_children()
}
for name, n in counts.items():
    print(f"{name:6s} {n:6,d}")
total = sum(counts.values())
print(f"total  {total:,d}")
# sphinx_gallery_start_ignore
assert counts["conv1"] == 6 * 1 * 5 * 5 + 6
assert counts["conv2"] == 16 * 6 * 5 * 5 + 16
assert counts["fc1"] == 120 * 400 + 120
assert total == sum(p.numel() for p in net.parameters()) == 61_706
assert counts["fc1"] > 0.75 * total
# sphinx_gallery_end_ignore

# %%
# More than three quarters of the 61,706 numbers sit in ``fc1``. A
# convolution slides its small kernels over the whole image, so its weight
# count does not depend on the image size; a fully connected layer has one
# weight per pair of input and output numbers.
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.bar(list(counts), list(counts.values()), color=["C0"] * 2 + ["C1"] * 3)
ax.set_yscale("log")
ax.set_xlabel("layer (blue: convolution, orange: fully connected)")
ax.set_ylabel("learnable numbers (log scale)")
ax.set_title("Where LeNet's 61,706 parameters sit")
fig.tight_layout()
plt.show()

# %%
# Mini-batches and single samples
# -------------------------------
# One image of shape ``(C, H, W)`` gets a batch dimension of size 1 with
# ``unsqueeze(0)``. (``nn.Conv2d`` alone also accepts an unbatched 3-D
# input, but our ``forward`` flattens from dimension 1 on, which assumes a
# batch dimension.) We call ``eval()`` before evaluating, a habit from
# :ref:`sphx_glr_lessons_nn_03_custom_module.py`, although LeNet has no
# layer that depends on the mode.
net.eval()
with torch.no_grad():
    batch = torch.randn(4, 1, 32, 32, device=device)  # four random "images"
    out = net(batch)
    image = batch[2]  # one sample, shape (1, 32, 32)
    single = net(image.unsqueeze(0))  # shape (1, 1, 32, 32)
print(f"batch: {tuple(batch.shape)} -> {tuple(out.shape)}")
print(f"one sample: {tuple(image.unsqueeze(0).shape)} -> ", end="")
print(tuple(single.shape))
gap = (single - out[2:3]).abs().max().item()
print(f"sample 2 alone vs in the batch, largest gap: {gap:.1e}")
# sphinx_gallery_start_ignore
# equal up to rounding: a GPU may pick other kernels for another batch
# size, and on recent NVIDIA GPUs convolutions may round inputs to TF32
torch.testing.assert_close(single, out[2:3], rtol=1e-3, atol=1e-4)
assert net.conv1(image).shape == (6, 28, 28)  # unbatched in, unbatched out
# sphinx_gallery_end_ignore

# %%
# The samples of a batch do not interact: one image scores what it scored
# in the batch, up to float rounding (another batch size may run other
# low-level routines).
#
# Fitting one target
# ------------------
# The target is a made-up row of ten values, with the output's shape
# ``(1, 10)``; ``nn.MSELoss`` averages the squared differences. Thirty Adam
# steps (see :ref:`sphx_glr_lessons_nn_02_optim.py`) drive the loss for
# this one input down. Real training feeds many different batches:
# :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py` trains a CNN on
# CIFAR-10.
net.train()
x = torch.randn(1, 1, 32, 32, device=device)
target = torch.arange(1.0, 11.0, device=device).view(1, 10)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
losses = []
for step in range(30):
    optimizer.zero_grad()  # anywhere before backward() will do
    loss = criterion(net(x), target)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print(f"loss: step 0 {losses[0]:.4f}, step 29 {losses[-1]:.4f}")
# sphinx_gallery_start_ignore
assert losses[-1] < 0.1 * losses[0]
# sphinx_gallery_end_ignore

# %%
# The loss falls by more than a factor of ten in thirty steps.
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(losses, "o-", ms=3)
ax.set_yscale("log")
ax.set_xlabel("Adam step")
ax.set_ylabel("MSE loss (log scale)")
ax.set_title("LeNet fitting one input to a fixed target")
fig.tight_layout()
plt.show()

# %%
# Going deeper
# ------------
# Optional on a first read: ``backward`` from an output that is not a
# single number, and what happens when a target has the wrong shape.
#
# Backward from a non-scalar output
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``backward()`` with no argument works only on an output with one element
# (the error says "scalar", but shape ``(1, 1)`` is accepted too). For the
# ``(1, 10)`` output, pass a tensor ``v`` of the same shape that says how
# much each entry matters: autograd then computes ``v`` times the Jacobian,
# which is the gradient of ``(out * v).sum()``.
try:
    net(x).backward()
except RuntimeError as error:
    print(f"raised RuntimeError: {error}")
else:
    raise AssertionError("backward() of ten numbers should have failed")
net(x)[:, :1].backward()  # one element, shape (1, 1): no error
v = torch.randn(1, 10, device=device)
net.zero_grad()
net(x).backward(v)
with_v = [p.grad.clone() for p in net.parameters()]
net.zero_grad()
(net(x) * v).sum().backward()
pairs = list(zip(with_v, net.parameters()))
gap = max((g - p.grad).abs().max().item() for g, p in pairs)
print(f"largest gap between the two ways: {gap:.1e}")
# sphinx_gallery_start_ignore
for g, p in pairs:
    torch.testing.assert_close(g, p.grad)
# sphinx_gallery_end_ignore

# %%
# Both ways give the same gradient for all ten parameter tensors.
#
# A target of the wrong shape
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A target of shape ``(10,)`` is broadcast against the ``(1, 10)`` output,
# with a warning that the result is likely wrong; we catch that warning to
# show it. Four predictions of shape ``(4, 1)`` against four targets of
# shape ``(4,)`` show why: they broadcast to ``(4, 4)``, every prediction
# against every target.
import warnings

flat_target = torch.arange(1.0, 11.0, device=device)  # shape (10,)
column = torch.arange(4.0).view(4, 1)  # a perfect fit of arange(4.0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loss_10 = criterion(net(x), flat_target)
    loss_4 = criterion(column, torch.arange(4.0))
message = str(caught[0].message)
print(f"warned {caught[0].category.__name__}: {message.split('. ')[0]}.")
print(f"(1, 10) against (10,): loss {loss_10:.4f}, ", end="")
print(f"against (1, 10): {criterion(net(x), target):.4f}")
print(f"(4, 1) against (4,): loss {loss_4:.2f} for a perfect fit")
# sphinx_gallery_start_ignore
assert caught[0].category is UserWarning and "target size" in message
torch.testing.assert_close(loss_10, criterion(net(x), target))
assert loss_4 == 2.5 and criterion(column, torch.arange(4.0)[:, None]) == 0
torch.testing.assert_close(  # an int64 target is promoted
    criterion(net(x), torch.arange(1, 11, device=device).view(1, -1)), loss_10
)
# sphinx_gallery_end_ignore

# %%
# For ``(1, 10)`` against ``(10,)`` the broadcast happens to give the right
# number; for ``(4, 1)`` against ``(4,)`` a perfect fit scores 2.5 instead
# of 0. Match the shapes and the question does not arise.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``Variable(torch.randn(1, 1, 32, 32))`` before calling the net:
#      ``Variable`` was merged into ``Tensor`` in PyTorch 0.4; modules take
#      and return plain tensors.
#    - A ``num_flat_features`` helper that multiplied the non-batch sizes
#      together for ``x.view(-1, n)``: ``torch.flatten(x, 1)`` (or an
#      ``nn.Flatten()`` layer) does it in one call.
#    - ``target = Variable(torch.arange(1, 11))`` passed straight to
#      ``MSELoss``: besides ``Variable`` and the shape,
#      ``torch.arange(1, 11)`` is ``int64``. ``MSELoss`` promotes it to the
#      output's float type today, but float bounds (``arange(1.0, 11.0)``)
#      say what is meant.

# %%
# Takeaways
# ---------
# - A convolution slides small learned kernels over the image; max pooling
#   keeps the largest value of each window and has no weights.
# - A side of length :math:`n` becomes :math:`\lfloor (n + 2p - k) / s
#   \rfloor + 1`: follow the shapes layer by layer to size the first fully
#   connected layer.
# - Convolutions have few weights; in LeNet most sit in the first fully
#   connected layer.
# - Layers take batches ``(N, C, H, W)``; give a single image a batch
#   dimension with ``unsqueeze(0)``.
#
# Next, :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py` trains a CNN on
# real photos, the CIFAR-10 dataset, and teaches the loss used for
# classification.


# %%
# Exercises
# ---------
# Three exercises on the shapes and sizes of convolutional layers. Each
# cell ends with a check: run it after your attempt and it says whether you
# are right. Solutions are at the end.
#
# **Exercise 1: the size rule as code.** Write ``conv_out_size(n, k, p, s)``,
# which returns, as a whole number, the output length of one side of length
# ``n`` through a convolution (or pooling) with kernel size ``k``, padding
# ``p`` and stride ``s``. The check compares it with what ``F.conv2d``
# really returns.


def check_exercise_1(fn):
    """Exercise 1's check: run it on your attempt."""
    cases = [(32, 5, 0, 1), (32, 5, 2, 1), (32, 5, 0, 2), (28, 3, 1, 2)]
    cases += [(7, 3, 0, 3), (10, 4, 1, 3), (14, 2, 0, 2), (9, 2, 1, 4)]
    sizes = []
    for n, k, p, s in cases:
        image, kernel = torch.zeros(1, 1, n, n), torch.zeros(1, 1, k, k)
        out = torch.nn.functional.conv2d(image, kernel, padding=p, stride=s)
        sizes.append(out.shape[-1])
    outs = []
    for n, k, p, s in cases:
        try:
            outs.append(fn(n, k, p, s))
        except Exception as err:
            raise AssertionError(
                f"conv_out_size({n}, {k}, {p}, {s}) failed with "
                f"{type(err).__name__}: {err}"
            ) from err
        if outs[-1] is ...:
            print("Exercise 1 not attempted yet: write conv_out_size's body")
            return
    for (n, k, p, s), out in zip(cases, outs):
        if isinstance(out, bool) or not isinstance(out, int):
            raise AssertionError(
                f"conv_out_size({n}, {k}, {p}, {s}) returned {out!r}, not a "
                "Python int: // divides and rounds down"
            )
    rules = {
        "the + 1 is missing: a kernel that fits once gives one output": (
            lambda n, k, p, s: (n + 2 * p - k) // s
        ),
        "padding adds p on both sides: n + 2 * p": (
            lambda n, k, p, s: (n + p - k) // s + 1
        ),
        "the stride divides the room the kernel has to move": (
            lambda n, k, p, s: n + 2 * p - k + 1
        ),
    }
    if outs != sizes:
        for hint, rule in rules.items():
            if outs == [rule(*case) for case in cases]:
                raise AssertionError(f"not quite: {hint}")
        wrong = [i for i, (a, b) in enumerate(zip(outs, sizes)) if a != b]
        if all(
            outs[i] > sizes[i] and (n + 2 * p - k) % s
            for i, (n, k, p, s) in ((i, cases[i]) for i in wrong)
        ):
            raise AssertionError(
                "that rounds up where the kernel does not fit evenly, but a "
                "last window that does not fit is dropped: round down (//)"
            )
        i = wrong[0]
        raise AssertionError(
            f"conv_out_size{cases[i]} returned {outs[i]}, but the "
            f"convolution gives {sizes[i]}"
        )
    print("Exercise 1: correct")


# %%
# Your attempt at exercise 1, then its check:


def conv_out_size(n, k, p, s):
    return ...  # replace ... with your code


check_exercise_1(conv_out_size)

# %%
# **Exercise 2: LeNet on smaller images.** The lesson's LeNet expects 32x32
# images, so its ``fc1`` has ``16 * 5 * 5 = 400`` inputs. With the same
# convolutions and poolings, how many inputs must ``fc1`` have for 28x28
# images? Follow the side length layer by layer.


def check_exercise_2(answer):
    """Exercise 2's check: run it on your answer."""
    if answer is ...:
        print("Exercise 2 not attempted yet: replace ... with a number")
        return
    x = torch.zeros(1, 1, 28, 28)
    x = torch.nn.functional.max_pool2d(torch.nn.Conv2d(1, 6, 5)(x), 2)
    x = torch.nn.functional.max_pool2d(torch.nn.Conv2d(6, 16, 5)(x), 2)
    if isinstance(answer, bool) or not isinstance(answer, (int, float)):
        raise AssertionError(f"expected a number, got {answer!r}")
    hints = {
        400: "400 is right for 32x32 images, not 28x28",
        16 * 7 * 7: "each 5x5 convolution without padding also shrinks the "
        "side, by 4",
        16 * 8 * 8: "the second pooling halves the side too",
        4 * 4: "that is one channel's numbers: times the 16 channels",
        6 * 4 * 4: "the second convolution has 16 output channels",
        16 * 3 * 3: "a 5x5 convolution without padding shrinks the side "
        "by 4 (k - 1), not 5",
    }
    if answer in hints:
        raise AssertionError(f"not {answer}: {hints[answer]}")
    if answer != x[0].numel():
        raise AssertionError(
            f"fc1 would not get {answer} numbers per image: work out the "
            "side after each convolution and pooling, then multiply by the "
            "number of channels"
        )
    print("Exercise 2: correct")


# %%
# Your attempt at exercise 2, then its check:


answer_2 = ...  # fc1's in_features for 28x28 images
check_exercise_2(answer_2)

# %%
# **Exercise 3: few weights in a convolution.** How many learnable numbers
# does ``nn.Conv2d(3, 16, kernel_size=3)`` hold, and how many does
# ``nn.Linear(3 * 32 * 32, 16)``, which maps a whole 32x32 colour image to
# 16 numbers? Answer with a pair.


def check_exercise_3(answer):
    """Exercise 3's check: run it on your answer."""
    if answer is ...:
        print("Exercise 3 not attempted yet: replace ... with your pair")
        return
    conv, linear = torch.nn.Conv2d(3, 16, 3), torch.nn.Linear(3 * 32 * 32, 16)
    counts = [sum(p.numel() for p in m.parameters()) for m in (conv, linear)]
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        raise AssertionError(
            f"expected a pair (convolution, linear), got {answer!r}"
        )
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in answer):
        raise AssertionError(f"expected two whole numbers, got {answer!r}")
    guess_conv, guess_linear = answer
    if list(answer) == counts[::-1]:
        raise AssertionError("the convolution's count comes first")
    conv_hints = {
        counts[0] - 16: "the convolution also has a bias, one per filter",
        16 * 3 * 3 + 16: "each 3x3 filter spans all 3 input channels",
        16 * 30 * 30: "a convolution's weights do not depend on the image "
        "size: count its weight's shape (16, 3, 3, 3) and its bias",
    }
    if guess_conv in conv_hints:
        raise AssertionError(
            f"Conv2d: not {guess_conv}: {conv_hints[guess_conv]}"
        )
    if guess_conv != counts[0]:
        raise AssertionError(
            f"the Conv2d does not hold {guess_conv} numbers: count its "
            "weight's shape (out, in, k, k) and its bias"
        )
    if guess_linear == counts[1] - 16:
        raise AssertionError(f"Linear: not {guess_linear}: it has a bias too")
    if guess_linear != counts[1]:
        raise AssertionError(
            f"the Linear does not hold {guess_linear} numbers: its weight "
            "is (16, 3 * 32 * 32), plus 16 biases"
        )
    print("Exercise 3: correct")


# %%
# Your attempt at exercise 3, then its check:


answer_3 = ...  # (convolution, linear)
check_exercise_3(answer_3)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.

# %%


# Solution 1: the size rule as code
def conv_out_size(n, k, p, s):
    return (n + 2 * p - k) // s + 1


check_exercise_1(conv_out_size)

# %%

# Solution 2: LeNet on smaller images
# 28 -> conv 5x5 -> 24 -> pool -> 12 -> conv 5x5 -> 8 -> pool -> 4, and
# 16 channels of 4x4.
answer_2 = 16 * 4 * 4
check_exercise_2(answer_2)

# %%

# Solution 3: few weights in a convolution
# Conv2d: a (16, 3, 3, 3) weight and 16 biases, 448 in all, whatever the
# image size. Linear: a (16, 3072) weight and 16 biases, 49,168.
answer_3 = (16 * 3 * 3 * 3 + 16, 16 * 3 * 32 * 32 + 16)
check_exercise_3(answer_3)
