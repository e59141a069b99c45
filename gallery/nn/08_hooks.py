"""
Hooks: looking inside a network while it runs
=============================================

A hook is a function PyTorch calls at a set moment of a module's or a
tensor's forward or backward pass: it watches, or even changes, what flows
through a network without editing its ``forward``. This lesson covers forward
pre-hooks, forward hooks, full backward hooks and tensor hooks, removing them,
and three uses: feature maps, gradient sizes per layer, and changing
gradients on their way back. Optional on a first read: the core path goes on
with :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`.

**You will learn** to watch and change what flows through a module with
forward hooks, forward pre-hooks, full backward hooks and tensor hooks, to
remove hooks with their handles, and to capture a layer's feature maps.

**You need first** :ref:`sphx_glr_lessons_nn_05_classic_cnn.py` and
:ref:`sphx_glr_lessons_basics_04_autograd.py`.
"""

# %%
# A small CNN and a real photo
# ----------------------------
# The network is untrained except for its first layer, whose five 3x3
# kernels we set by hand to classic image filters (edge detectors, a blur, a
# sharpener), so that its feature maps mean something without training.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["intermediate", "nn", "vision"]


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        # padding repeats border pixels: the image edge is not an edge
        self.conv1 = nn.Conv2d(1, 5, 3, padding=1, padding_mode="replicate")
        self.conv2 = nn.Conv2d(5, 12, kernel_size=3, padding=1)
        self.fc1 = nn.Linear(12 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.adaptive_avg_pool2d(F.relu(self.conv2(x)), 4)  # to 4x4
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


# %%
# The kernels, and the "cameraman" photo that ships with scikit-image (no
# download), scaled to [0, 1] and averaged down to 256x256 pixels: a batch
# of one, of shape ``(1, 1, 256, 256)``.
from skimage import data

filters = {
    "vertical edges (Sobel x)": [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]],
    "horizontal edges (Sobel y)": [[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
    "Laplacian (fine detail)": [[0, 1, 0], [1, -4, 1], [0, 1, 0]],
    "blur (3x3 mean)": [[1 / 9] * 3] * 3,
    "sharpen": [[0, -1, 0], [-1, 5, -1], [0, -1, 0]],
}
model = SmallCNN().to(device)
with torch.no_grad():
    model.conv1.weight.copy_(torch.tensor(list(filters.values()))[:, None])
    model.conv1.bias.zero_()

photo = torch.from_numpy(data.camera()).float().div(255)
image = F.avg_pool2d(photo[None, None], 2).to(device)
print(f"image {tuple(image.shape)}")

# %%
# Forward hooks
# -------------
# Parameters and their ``.grad`` are always within reach; the data *between*
# layers is not. ``module.register_forward_hook(fn)`` calls ``fn(module,
# args, output)`` right after the module's ``forward`` (``args``: the
# positional inputs). It returns a *handle*: ``remove()`` detaches the hook,
# and as a context manager it removes the hook on exit. A value the hook
# *returns* replaces the module's output: below, ``fc2``'s becomes zeros.
# The model stays in evaluation mode for the whole lesson: no layer here
# depends on the mode, and backward works in either mode (see
# :ref:`sphx_glr_lessons_nn_03_custom_module.py`).
model.eval()
calls = []


def report(module, args, output):
    calls.append(module)
    print(f"{type(module).__name__}: {tuple(args[0].shape)} -> ", end="")
    print(f"{tuple(output.shape)}, output norm {output.norm():.2f}")


handle = model.conv2.register_forward_hook(report)
with torch.no_grad():  # hooks fire with or without autograd
    model(image)
    handle.remove()
    with model.fc2.register_forward_hook(lambda m, args, out: out * 0):
        zeroed = model(image)  # a second pass
print(f"report was called {len(calls)} time(s)")
print(f"fc2 hooked: {zeroed.count_nonzero()} nonzero scores of 10")
# sphinx_gallery_start_ignore
assert calls == [model.conv2]  # the second pass did not call report
assert not zeroed.any()
# sphinx_gallery_end_ignore


# %%
# ``report`` ran once, in the first pass: the second pass came after
# ``remove()``. In that pass the lambda's zeros replaced ``fc2``'s output.
#
# Forward pre-hooks
# -----------------
# ``register_forward_pre_hook(fn)`` calls ``fn(module, args)`` *before*
# ``forward``; returning a new tuple of arguments changes what the module
# receives. This one, on the whole model, standardizes every input.
def standardize(module, args):
    return ((args[0] - args[0].mean()) / args[0].std(),)


with torch.no_grad():
    with model.register_forward_pre_hook(standardize):
        hooked = model(image)
    plain = model(image)  # the hook is gone again
    by_hand = model((image - image.mean()) / image.std())
print(f"hooked vs standardized by hand: {(hooked - by_hand).abs().max():.1e}")
print(f"hooked vs plain:                {(hooked - plain).abs().max():.1e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(hooked, by_hand)
assert not torch.allclose(hooked, plain)
# sphinx_gallery_end_ignore

# %%
# With the pre-hook, the model gives what it gives for the image
# standardized by hand, and not what it gives for the plain image.

# %%
# Tensor hooks
# ------------
# Autograd computes gradients with respect to intermediate tensors, uses
# them and throws them away; only leaves such as parameters keep a ``.grad``
# (unless you call ``retain_grad()``). ``tensor.register_hook(fn)`` calls
# ``fn(grad)`` when that gradient is ready; a tensor it returns replaces the
# gradient from there on back. A first hook only looks at the gradient
# arriving at ``b = a * a``:
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
weights = torch.tensor([1.0, 10.0, 100.0])
b = a * a  # an intermediate tensor
b.register_hook(lambda grad: print(f"gradient reaching b: {grad.tolist()}"))
(weights * b).sum().backward()
print(f"a.grad = {a.grad.tolist()}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(a.grad, 2 * a.detach() * weights)
# sphinx_gallery_end_ignore

# %%
# The gradient reaching ``b`` is ``weights``, and ``a.grad`` is
# ``2 * a * weights``. A second hook caps the gradient at 5 on its way back:
a.grad = None
b = a * a
b.register_hook(lambda grad: grad.clamp(max=5.0))
(weights * b).sum().backward()
print(f"a.grad = {a.grad.tolist()}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(a.grad, 2 * a.detach() * torch.tensor([1.0, 5, 5]))
# sphinx_gallery_end_ignore

# %%
# With the cap, the gradient reaching ``b`` is ``[1, 5, 5]`` instead of
# ``[1, 10, 100]``, and ``a.grad`` follows.
#
# Full backward hooks
# -------------------
# ``module.register_full_backward_hook(fn)`` calls ``fn(module, grad_input,
# grad_output)`` once the gradients with respect to the module's inputs are
# computed. Both are tuples: ``grad_output`` holds what arrives from later
# layers (gradients with respect to the outputs), ``grad_input`` what the
# module sends back. A tensor hook on ``conv2``'s output, attached by a
# forward hook, must see the same gradient as ``grad_output``. (The
# ``with`` below removes both hooks on exit; its parenthesised form needs
# Python 3.10 or later.)
seen = {}


def save_grads(module, grad_input, grad_output):
    seen["grad_output"], seen["grad_input"] = grad_output[0], grad_input[0]


def watch_output(module, args, output):
    output.register_hook(lambda grad: seen.update(tensor_hook=grad))


criterion, label = nn.CrossEntropyLoss(), torch.tensor([3], device=device)
with (
    model.conv2.register_full_backward_hook(save_grads),
    model.conv2.register_forward_hook(watch_output),
):
    criterion(model(image), label).backward()  # label 3: arbitrary
for name, grad in seen.items():
    print(f"{name:12s} shape {tuple(grad.shape)}, norm {grad.norm():.3e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(seen["grad_output"], seen["tensor_hook"])
assert seen["grad_output"].shape == (1, 12, 128, 128)  # conv2's output
assert seen["grad_input"].shape == (1, 5, 128, 128)  # conv2's input
# sphinx_gallery_end_ignore

# %%
# ``grad_output`` has the shape of ``conv2``'s output (12 channels) and
# equals what the tensor hook saw; ``grad_input`` has the shape of its
# input (5 channels). The loss, ``nn.CrossEntropyLoss``, scores ten class
# scores against a label; :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`
# explains it. Here it is only something to backpropagate from.

# %%
# Use 1: capturing activations for plots
# --------------------------------------
# A forward hook that stores the output, detached from the graph, is a
# common way to pull out intermediate activations
# (``torchvision.models.feature_extraction`` is another).
activations = {}


def save_output(module, args, output):
    activations[module] = output.detach()


with model.conv1.register_forward_hook(save_output), torch.no_grad():
    model(image)
print(f"captured: {tuple(activations[model.conv1].shape)}")
# sphinx_gallery_start_ignore
assert activations[model.conv1].shape == (1, 5, 256, 256)
# sphinx_gallery_end_ignore

# %%
# One map per hand-made filter. The weights of the edge detectors and of
# the Laplacian sum to zero, so they answer 0 on flat regions and a signed
# value at edges and fine detail: red and blue mark the two signs, on a
# scale centred on zero and clipped at the 99.5th percentile. Blur and
# sharpen (weights summing to 1) are gray, like the photo.
import matplotlib.pyplot as plt
import numpy as np

maps = activations[model.conv1][0].cpu().numpy()
fig, axes = plt.subplots(2, 3, figsize=(9, 6.5), sharex=True, sharey=True)
axes.flat[0].imshow(image[0, 0].cpu().numpy(), cmap="gray")
axes.flat[0].set_title("input")
for ax, fmap, (title, kernel) in zip(axes.flat[1:], maps, filters.items()):
    limit = np.percentile(np.abs(fmap), 99.5)
    if abs(np.sum(kernel)) < 1e-6:  # an edge detector or the Laplacian
        ax.imshow(fmap, cmap="RdBu_r", vmin=-limit, vmax=limit)
    else:
        ax.imshow(fmap, cmap="gray", vmin=0, vmax=limit)
    ax.set_title(title, fontsize=9)
fig.supxlabel("column (pixel)")
fig.supylabel("row (pixel)")
fig.suptitle("conv1 feature maps, captured with a forward hook")
plt.show()

# %%
# The Sobel maps light up on vertical and horizontal edges with a sign that
# says which side is brighter, the Laplacian keeps only fine detail, and
# blur and sharpen look like the photo itself.
#
# Going deeper
# ------------
# Optional on a first read: two rules of full backward hooks, and two more
# uses: measuring gradients per layer and changing them in flight.
#
# Two rules of full backward hooks
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The documentation forbids
# modifying the module's inputs or outputs in place (no
# ``nn.ReLU(inplace=True)`` right after it). And if no input of the module
# requires a gradient, as for ``conv1`` fed the photo, ``grad_input`` holds
# ``None`` and PyTorch warns (so in Use 2 below, ``conv1``'s input will
# require one):
import warnings

with model.conv1.register_full_backward_hook(save_grads):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        criterion(model(image), label).backward()
message = str(caught[0].message).split(". ")[0]
print(f"warned {caught[0].category.__name__}: {message}.")
print(f"grad_input[0] seen by the hook: {seen['grad_input']}")
# sphinx_gallery_start_ignore
assert caught[0].category is UserWarning and seen["grad_input"] is None
assert "no inputs require gradients" in message
# sphinx_gallery_end_ignore


# %%
# Use 2: gradient norms per layer
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Full backward hooks can record how large the gradient arriving at each
# layer's output is. The batch is 16 random 128x128 crops of the photo with
# random labels (the net is untrained anyway). The hooks are registered
# input side first, but fill the dictionary in the opposite order: backward
# runs from the loss towards the input. A whole tensor's norm grows with
# its size, so we also record the root mean square per element,
# ``norm / sqrt(numel)``.
rows, cols = torch.randint(0, 128, (2, 16)).tolist()
crops = torch.stack(
    [image[0, :, r : r + 128, c : c + 128] for r, c in zip(rows, cols)]
).requires_grad_()  # conv1's input needs a gradient (rule above)
targets = torch.randint(0, 10, (16,)).to(device)
grad_norms = {}


def save_grad_norm(module, grad_input, grad_output):
    g = grad_output[0]
    grad_norms[names[module]] = (g.numel(), g.norm().item())


layers = ["conv1", "conv2", "fc1", "fc2"]
names = {getattr(model, name): name for name in layers}
handles = [m.register_full_backward_hook(save_grad_norm) for m in names]
model.zero_grad()
criterion(model(crops), targets).backward()
for h in handles:
    h.remove()
for name in layers:
    numel, norm = grad_norms[name]
    print(f"{name:5s} {numel:9,d} numbers, norm {norm:.2e}, ", end="")
    print(f"per element {norm / numel**0.5:.1e}")
# sphinx_gallery_start_ignore
assert list(grad_norms) == layers[::-1]  # fc2 first, conv1 last
assert all(  # per element: smaller at every layer closer to the input
    grad_norms[a][1] / grad_norms[a][0] ** 0.5
    < grad_norms[b][1] / grad_norms[b][0] ** 0.5
    for a, b in zip(layers, layers[1:])
)
# sphinx_gallery_end_ignore

# %%
# From ``fc2`` back to ``conv1`` the gradient is spread over ever more
# numbers, and per element it becomes far smaller. Such numbers describe one
# batch of one untrained network; whether gradients vanish or explode shows
# in how they change over training. A common check that needs no hook is
# each parameter's ``p.grad.norm() / p.norm()``: the gradient's size
# relative to the weight's. It is not the size of the step: plain SGD moves
# ``p`` by ``lr`` times the gradient, so its relative step is ``lr`` times
# this ratio, and Adam rescales every gradient, so its step can be far
# larger or smaller. To measure the step itself, compare the weights before
# and after ``optimizer.step()``.

# %%
# Use 3: changing gradients in flight
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A full backward hook may return a replacement for ``grad_input``. Halving
# what ``conv2`` sends back halves every gradient below it (``conv1``),
# while ``conv2``'s own weight gradient, computed from ``grad_output``,
# stays as it was.
before = {name: p.grad.clone() for name, p in model.named_parameters()}


def halve(module, grad_input, grad_output):
    return tuple(g * 0.5 if g is not None else None for g in grad_input)


with model.conv2.register_full_backward_hook(halve):
    model.zero_grad()
    criterion(model(crops), targets).backward()
for name in ("conv1.weight", "conv2.weight"):
    after = dict(model.named_parameters())[name].grad
    print(f"{name}: grad norm {before[name].norm():.3e} -> {after.norm():.3e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(2 * model.conv1.weight.grad, before["conv1.weight"])
torch.testing.assert_close(model.conv2.weight.grad, before["conv2.weight"])
# sphinx_gallery_end_ignore

# %%
# ``conv1``'s gradient is halved, ``conv2``'s is unchanged.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - ``output.data.norm()`` in hooks: ``.data`` dates from ``Variable``;
#      use the tensor itself (``.detach()`` it to keep it).
#    - ``module.register_backward_hook(fn)``: deprecated for
#      ``register_full_backward_hook``. It hooked only the module's last
#      operation, so ``grad_input`` could hold the wrong tensors.

# %%
# Takeaways
# ---------
# - A forward hook sees (and may replace) a module's output; a forward
#   pre-hook sees (and may replace) its inputs.
# - A tensor hook sees the gradient of one tensor, and may replace it; a
#   full backward hook sees the gradients at a module's outputs and inputs.
# - Every registration returns a handle: call ``remove()`` or use it in a
#   ``with`` block, or hooks keep firing (and keep what they capture alive).
# - A forward hook that stores ``output.detach()`` captures feature maps
#   without editing ``forward``.
#
# Next, :ref:`sphx_glr_lessons_basics_05_custom_functions.py` goes one step
# further than changing gradients in flight: it defines an operation's
# backward itself.
