"""
Hooks: looking inside a network while it runs
=============================================

A hook is a function you attach to a module or a tensor, which PyTorch calls
at a set moment of the forward or backward pass. Hooks let you watch and even
change what flows through a network without editing its ``forward``. This
lesson covers the four kinds (forward pre-hooks, forward hooks, full backward
hooks and tensor hooks), how to remove them, and three everyday uses: plotting
feature maps and activations, comparing gradient sizes across layers, and
altering gradients on their way back.

.. tags:: intermediate, nn, vision
"""

# %%
# A small CNN and a real photo
# ----------------------------
# The network is small and untrained, except for its first layer: we set the
# seven 3x3 kernels of ``conv1`` by hand to classic image filters (edge
# detectors, a blur, a sharpener), so that its feature maps mean something
# without any training. ``conv2`` and the linear layers keep their random
# initial weights. ``conv1`` pads by repeating the border pixels, so that the
# image edge does not look like a dark frame to the edge detectors.
# Activations are separate ``nn.ReLU`` modules rather than
# ``F.relu`` calls so that hooks can be attached to them.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Running on: {device}")


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(
            1, 7, kernel_size=3, padding=1, padding_mode="replicate"
        )
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(7, 12, kernel_size=3, padding=1)
        self.relu2 = nn.ReLU()
        self.pool2 = nn.AdaptiveAvgPool2d(4)  # any image size -> 4x4
        self.fc1 = nn.Linear(12 * 4 * 4, 32)
        self.relu3 = nn.ReLU()
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool1(self.relu1(self.conv1(x)))
        x = self.pool2(self.relu2(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc2(self.relu3(self.fc1(x)))


filters = {
    "vertical edges (Sobel x)": [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]],
    "horizontal edges (Sobel y)": [[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
    "diagonal edges (/)": [[0, 1, 2], [-1, 0, 1], [-2, -1, 0]],
    "diagonal edges (\\)": [[2, 1, 0], [1, 0, -1], [0, -1, -2]],
    "Laplacian (fine detail)": [[0, 1, 0], [1, -4, 1], [0, 1, 0]],
    "blur (3x3 mean)": [[1 / 9] * 3] * 3,
    "sharpen": [[0, -1, 0], [-1, 5, -1], [0, -1, 0]],
}
model = SmallCNN().to(device)
with torch.no_grad():
    model.conv1.weight.copy_(torch.tensor(list(filters.values())).unsqueeze(1))
    model.conv1.bias.zero_()

# %%
# The input is the "cameraman" photo that ships with scikit-image (no
# download needed), scaled to [0, 1] and averaged down from 512x512 to
# 256x256 pixels. It becomes a batch of one: shape ``(1, 1, 256, 256)``.
from skimage import data

photo = torch.from_numpy(data.camera()).float().div(255)
image = F.avg_pool2d(photo[None, None], 2).to(device)
print(
    f"image: {tuple(image.shape)}, values in [{image.min():.2f}, {image.max():.2f}]"
)

criterion = nn.CrossEntropyLoss()
label = torch.tensor(
    [3], device=device
)  # an arbitrary class: we only need gradients

# %%
# Weights and gradients without hooks
# -----------------------------------
# Parameters are always within reach: after a backward pass every weight's
# gradient sits in its ``.grad``, and norms summarize both in one number each.
loss = criterion(model(image), label)
loss.backward()
w = model.conv2.weight
print(
    f"conv2.weight: shape {tuple(w.shape)}, grad shape {tuple(w.grad.shape)}"
)
print(
    f"conv2.weight norm {w.norm():.4f}, its gradient's norm {w.grad.norm():.4f}"
)
assert w.grad.shape == w.shape

# %%
# What parameters do not show is the data *between* layers: the activations on
# the way forward and the gradients on the way back. Those are never stored
# where you can read them after the fact. Hooks are how you get at them.
#
# Forward hooks
# -------------
# ``module.register_forward_hook(fn)`` calls ``fn(module, args, output)`` right
# after the module's ``forward``; ``args`` is the tuple of positional inputs.
# Registering returns a *handle*; ``handle.remove()`` detaches the hook again.
# Here a hook on ``conv2`` reports what passes through it.
calls = []


def report(module, args, output):
    calls.append(module)
    print(
        f"{type(module).__name__} forward: input {tuple(args[0].shape)} -> "
        f"output {tuple(output.shape)}, output norm {output.norm():.4f}"
    )


handle = model.conv2.register_forward_hook(report)
with torch.no_grad():  # hooks fire with or without autograd
    model(image)
assert len(calls) == 1 and calls[0] is model.conv2

handle.remove()
with torch.no_grad():
    model(image)
assert len(calls) == 1  # removed: the second forward pass did not call it
print(f"hook calls after removal: still {len(calls)}")

# %%
# If a forward hook *returns* a value, that value replaces the module's output.
#
# .. note:: Old code you may meet: hooks reading ``output.data`` and computing
#    ``output.data.norm()``. ``.data`` dates from when tensors were wrapped in
#    ``Variable``; use the tensor itself (``.detach()`` it when you keep it).
#
# Forward pre-hooks
# -----------------
# ``register_forward_pre_hook(fn)`` calls ``fn(module, args)`` *before*
# ``forward``. Returning a new tuple of arguments changes what the module
# receives. This pre-hook, on the whole model, standardizes every input. The
# handle also works as a context manager that removes the hook on exit.


def standardize(module, args):
    (x,) = args
    return ((x - x.mean()) / x.std(),)


with torch.no_grad():
    with model.register_forward_pre_hook(standardize):
        hooked = model(image)
    plain = model(image)  # the hook is gone again
    by_hand = model((image - image.mean()) / image.std())

torch.testing.assert_close(hooked, by_hand)
assert not torch.allclose(hooked, plain)
print(
    "with the pre-hook the model saw the standardized image; without it, the raw one"
)

# %%
# Tensor hooks
# ------------
# Autograd computes the gradient with respect to every intermediate tensor,
# uses it, and throws it away; only leaf tensors such as parameters keep a
# ``.grad`` (unless you ask with ``retain_grad()``).
# ``tensor.register_hook(fn)`` calls ``fn(grad)`` when that gradient is
# computed, so you can look at it. If ``fn`` returns a tensor, that tensor
# replaces the gradient from there on back.
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
weights = torch.tensor([1.0, 10.0, 100.0])

b = a * a  # an intermediate tensor
b.register_hook(lambda grad: print(f"gradient reaching b: {grad.tolist()}"))
(weights * b).sum().backward()
print(f"a.grad = 2 * a * weights = {a.grad.tolist()}")
torch.testing.assert_close(a.grad, 2 * a.detach() * weights)

# %%
# Now a hook that caps the gradient at 5 before it travels further back:
a.grad = None
b = a * a
b.register_hook(lambda grad: grad.clamp(max=5.0))
(weights * b).sum().backward()
print(f"a.grad with the capped gradient: {a.grad.tolist()}")
torch.testing.assert_close(
    a.grad, 2 * a.detach() * torch.tensor([1.0, 5.0, 5.0])
)

# %%
# Full backward hooks
# -------------------
# ``module.register_full_backward_hook(fn)`` calls
# ``fn(module, grad_input, grad_output)`` when the gradients with respect to
# the module's inputs have been computed. ``grad_output`` holds the gradients
# with respect to the module's outputs (what arrives from the layers after
# it), ``grad_input`` those with respect to its inputs (what it sends back).
# Both are tuples, one entry per tensor. Gradients for the module's own
# parameters are not among them; they go to ``.grad`` as usual.
#
# To check the hook's ``grad_output``, a forward hook also attaches a tensor
# hook to ``conv2``'s output and saves the gradient it sees: the two must be
# the same tensor values.
seen = {}


def report_grads(module, grad_input, grad_output):
    seen["module hook"] = grad_output[0]
    seen["grad_input shape"] = grad_input[0].shape
    print(
        f"{type(module).__name__} backward: grad_output {tuple(grad_output[0].shape)}, "
        f"norm {grad_output[0].norm():.4f}; grad_input {tuple(grad_input[0].shape)}, "
        f"norm {grad_input[0].norm():.4f}"
    )


def watch_output(module, args, output):
    output.register_hook(lambda grad: seen.__setitem__("tensor hook", grad))


handles = [
    model.conv2.register_full_backward_hook(report_grads),
    model.conv2.register_forward_hook(watch_output),
]
model.zero_grad()
criterion(model(image), label).backward()
for h in handles:
    h.remove()

torch.testing.assert_close(seen["module hook"], seen["tensor hook"])
assert seen["module hook"].shape == (1, 12, 128, 128)
assert seen["grad_input shape"] == (1, 7, 128, 128)

# %%
# ``grad_input`` has the shape of ``conv2``'s input, ``(1, 7, 128, 128)``, and
# ``grad_output`` that of its output, ``(1, 12, 128, 128)``; the tensor hook
# saw exactly the module hook's ``grad_output``. Two rules come with full
# backward hooks: the module's output must not be modified in place afterwards
# (no ``nn.ReLU(inplace=True)`` right after it), and if no input of the module
# requires a gradient, the hook still fires but with ``grad_input`` set to
# ``None`` and a warning. "Use 2" below meets that case.
#
# .. note:: Old code you may meet: ``module.register_backward_hook(fn)``. It
#    attached to the last autograd operation inside the module, so for modules
#    made of several operations ``grad_input`` held the wrong tensors (for
#    ``nn.Linear``: the gradients of the bias, the input and the transposed
#    weight). It is deprecated in favour of
#    ``register_full_backward_hook``, which always reports the gradients with
#    respect to the module's own inputs and outputs.
#
# Use 1: capturing activations for plots
# --------------------------------------
# A forward hook that stores the output, detached from the graph, in a
# dictionary is the standard way to pull out intermediate activations. One small function
# makes a hook per layer.
activations = {}


def save_output(name):
    def hook(module, args, output):
        activations[name] = output.detach()

    return hook


layers = ["conv1", "relu1", "relu2", "relu3"]
handles = [
    getattr(model, name).register_forward_hook(save_output(name))
    for name in layers
]
with torch.no_grad():
    model(image)

for name in layers:
    print(f"{name:6s} output {tuple(activations[name].shape)}")
torch.testing.assert_close(
    activations["relu1"], activations["conv1"].clamp(min=0)
)
assert activations["conv1"].shape == (1, 7, 256, 256)

# %%
# ``conv1``'s output holds one map per hand-made filter. The edge detectors'
# weights sum to zero, so they answer 0 on flat regions and a signed value at
# edges: red and blue mark the two signs, on a colour scale centred on zero and
# clipped at the 99.5th percentile so that a few extreme pixels do not wash out
# the rest. Blur and sharpen (weights summing to 1) are shown in gray, like the
# photo, with the same percentile clipping.
import matplotlib.pyplot as plt
import numpy as np

maps = activations["conv1"][0].cpu().numpy()
fig, axes = plt.subplots(2, 4, figsize=(11, 6.5), sharex=True, sharey=True)
axes = axes.ravel()
axes[0].imshow(image[0, 0].cpu().numpy(), cmap="gray")
axes[0].set_title("input")
for ax, fmap, (title, kernel) in zip(axes[1:], maps, filters.items()):
    if abs(np.sum(kernel)) < 1e-6:  # an edge detector
        limit = np.percentile(np.abs(fmap), 99.5)
        ax.imshow(fmap, cmap="RdBu_r", vmin=-limit, vmax=limit)
    else:
        ax.imshow(
            fmap,
            cmap="gray",
            vmin=np.percentile(fmap, 0.5),
            vmax=np.percentile(fmap, 99.5),
        )
    ax.set_title(title, fontsize=9)
for ax in axes[4:]:
    ax.set_xlabel("column (pixel)")
for ax in axes[::4]:
    ax.set_ylabel("row (pixel)")
fig.suptitle("conv1 feature maps, captured with a forward hook")
fig.tight_layout()
plt.show()

# %%
# The Sobel maps light up on vertical and horizontal edges with a sign that
# says which side is brighter, the diagonal kernels pick out slanted edges (the
# tripod legs), the Laplacian keeps only fine detail, and blur and sharpen look
# like the photo itself.
#
# The same hooks, on a batch of 16 random 128x128 crops of the photo, give the
# distribution of every ReLU layer's outputs. A ReLU output of exactly zero
# means the unit is off for that input; in the randomly initialized layers
# about half of them are.
crop_rows, crop_cols = torch.randint(0, 128, (2, 16)).tolist()
crops = torch.stack(
    [
        image[0, :, r : r + 128, c : c + 128]
        for r, c in zip(crop_rows, crop_cols)
    ]
)
with torch.no_grad():
    model(crops)
for h in handles:
    h.remove()

fig, ax = plt.subplots(figsize=(7, 4))
for name in ["relu1", "relu2", "relu3"]:
    values = activations[name].flatten().cpu()
    zero_share = (values == 0).float().mean().item()
    print(
        f"{name}: {values.numel():7d} values, {zero_share:.1%} exactly zero, max {values.max():.3f}"
    )
    ax.hist(
        values[values > 0].numpy(),
        bins=50,
        density=True,
        histtype="step",
        lw=1.5,
        label=f"{name} ({zero_share:.0%} zeros not shown)",
    )
    assert (values >= 0).all()
ax.set_yscale("log")
ax.set_xlabel("activation value")
ax.set_ylabel("density (log scale)")
ax.set_title("Positive ReLU outputs per layer, on 16 crops of the photo")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# Use 2: gradient norms per layer
# -------------------------------
# Full backward hooks record how large the gradient arriving at each layer's
# output is, next to each weight's own gradient norm from ``.grad``. Comparing
# these across layers is a quick check for vanishing or exploding gradients.
# The crops get random labels (the net is untrained anyway). We also set
# ``requires_grad`` on the crops: ``conv1`` is the first layer, and without
# this its input would need no gradient, the case in which a full backward
# hook warns. As a bonus, ``crops.grad`` then holds the gradient with respect to
# the pixels.
crops.requires_grad_(True)
targets = torch.randint(0, 10, (16,)).to(device)
grad_norms = {}


def save_grad_norm(name):
    def hook(module, grad_input, grad_output):
        grad_norms[name] = grad_output[0].norm().item()

    return hook


parametric = ["conv1", "conv2", "fc1", "fc2"]
handles = [
    getattr(model, name).register_full_backward_hook(save_grad_norm(name))
    for name in parametric
]
model.zero_grad()
loss = criterion(model(crops), targets)
loss.backward()
for h in handles:
    h.remove()

weight_grad_norms = {
    name: getattr(model, name).weight.grad.norm().item() for name in parametric
}
for name in parametric:
    print(
        f"{name:5s} |dL/d output| {grad_norms[name]:.2e}   |dL/d weight| {weight_grad_norms[name]:.2e}"
    )
print(f"|dL/d pixels| {crops.grad.norm():.2e}")
assert (
    list(grad_norms) == parametric[::-1]
)  # backward visits layers last to first
assert all(v > 0 for v in grad_norms.values())

# %%
# The dictionary filled in reverse order, ``fc2`` first: backward runs from
# the loss towards the input. A bar chart makes the sizes easier to compare.
fig, ax = plt.subplots(figsize=(7, 4))
pos = np.arange(len(parametric))
ax.bar(
    pos - 0.2,
    [grad_norms[n] for n in parametric],
    width=0.4,
    label="gradient w.r.t. layer output (hook)",
)
ax.bar(
    pos + 0.2,
    [weight_grad_norms[n] for n in parametric],
    width=0.4,
    label="gradient w.r.t. weight (.grad)",
)
ax.set_xticks(pos, parametric)
ax.set_yscale("log")
ax.set_xlabel("layer (input side on the left)")
ax.set_ylabel("L2 norm (log scale)")
ax.set_title("Gradient sizes per layer of the untrained CNN")
ax.legend(fontsize="small")
fig.tight_layout()
plt.show()

# %%
# Use 3: changing gradients in flight
# -----------------------------------
# A hook that returns a value changes the backward pass. First, tensor hooks
# on every parameter clamp each gradient entry to ``[-limit, limit]`` before it
# is stored in ``.grad``. We compare against the unclipped gradients from the
# pass above.
reference = {name: p.grad.clone() for name, p in model.named_parameters()}
limit = 1e-3
handles = [
    p.register_hook(lambda grad: grad.clamp(-limit, limit))
    for p in model.parameters()
]
model.zero_grad()
criterion(model(crops), targets).backward()
for h in handles:
    h.remove()

clipped = sum((ref.abs() > limit).sum().item() for ref in reference.values())
total = sum(ref.numel() for ref in reference.values())
print(f"{clipped} of {total} gradient entries were clipped to +-{limit}")
for name, p in model.named_parameters():
    torch.testing.assert_close(p.grad, reference[name].clamp(-limit, limit))
assert clipped > 0

# %%
# This does element-wise what ``torch.nn.utils.clip_grad_value_`` does after
# ``backward`` returns, but in flight. (Clipping by the *total* norm,
# ``clip_grad_norm_``, needs all gradients at once, so it cannot be done this
# way.)
#
# Second, a full backward hook may return a replacement ``grad_input``. Halving
# what ``conv2`` sends back halves every gradient below it (``conv1``), while
# ``conv2``'s own weight gradient, computed from ``grad_output``, stays as it
# was.


def halve(module, grad_input, grad_output):
    return tuple(g * 0.5 if g is not None else None for g in grad_input)


with model.conv2.register_full_backward_hook(halve):
    model.zero_grad()
    criterion(model(crops), targets).backward()

torch.testing.assert_close(
    model.conv1.weight.grad, 0.5 * reference["conv1.weight"]
)
torch.testing.assert_close(model.conv2.weight.grad, reference["conv2.weight"])
ratio = (
    model.conv1.weight.grad.norm() / reference["conv1.weight"].norm()
).item()
print(f"conv1 gradient norm ratio with the hook: {ratio:.3f}; conv2 unchanged")

# %%
# Summary
# -------
# * forward pre-hook ``fn(module, args)``: before ``forward``; may replace the
#   inputs;
# * forward hook ``fn(module, args, output)``: after ``forward``; may replace
#   the output; the usual way to capture activations;
# * full backward hook ``fn(module, grad_input, grad_output)``: during
#   backward; may replace ``grad_input``;
# * tensor hook ``fn(grad)``: when one tensor's gradient is ready; may replace
#   it.
#
# Every registration returns a handle: call ``remove()`` or use it in a
# ``with`` block, or hooks keep firing (and keep whatever they capture alive).
# The graph that backward hooks and tensor hooks attach to is the subject of
# :ref:`sphx_glr_lessons_basics_04_autograd.py`.
