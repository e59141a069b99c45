"""
PyTorch for Keras and TensorFlow 2 users
========================================

A map from Keras to PyTorch, then a proof: a small Keras network and its
PyTorch twin, given the same weights, make the same predictions on
CIFAR-10 photos. Going deeper: the same gradients and training steps, the
traps that break the match, and ``fit()``'s callbacks as a loop.

**You will learn** what replaces ``fit``, ``predict``, ``GradientTape``
and ``training=``; to copy Keras weights into PyTorch layers; and the
traps: channels-last images, batch-norm settings, ``from_logits``.

**You need first** Keras; for PyTorch, autograd
(:ref:`sphx_glr_lessons_basics_04_autograd.py`) and a training loop
(:ref:`sphx_glr_lessons_nn_02_optim.py`) help. It needs TensorFlow and
Keras installed (``pip install tensorflow keras``).
"""

# %%
# Setup
# -----
# Both frameworks get one seed; TensorFlow is quietened as in
# :ref:`sphx_glr_lessons_basics_06_static_vs_dynamic_graphs.py`. Keras 3
# has several backends, so we name TensorFlow's. One trap first: PyTorch
# loads its compiler the first time an optimizer is built, and on Linux
# (where PyTorch brings the Triton compiler) loading it after TensorFlow
# 2.21 crashes Python; ``torch.compiler.reset()`` loads it first.
import os

import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
    device = torch.device("cpu")
print(f"PyTorch runs on: {device.type}")

torch.compiler.reset()  # before TensorFlow: see above
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"  # no C++ log lines
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # no oneDNN notice
os.environ["KERAS_BACKEND"] = "tensorflow"
try:
    import keras
    import tensorflow as tf
except ModuleNotFoundError as err:
    raise ModuleNotFoundError(f"{err}: pip install tensorflow keras") from err

tf.config.set_visible_devices([], "GPU")  # TensorFlow on the CPU
tf.config.experimental.enable_op_determinism()  # same digits every run
keras.utils.set_random_seed(0)  # Python, NumPy and TensorFlow
print(f"Keras {keras.__version__} on TensorFlow {tf.__version__}")
# sphinx_gallery_tags = ["advanced", "migration", "tensorflow", "keras"]
# sphinx_gallery_thumbnail_path = "_static/thumbs/advanced.png"

# %%
# Keras to PyTorch at a glance
# ----------------------------
# The right column names the section of this page that runs each row.
#
# .. list-table::
#    :header-rows: 1
#    :widths: 32 40 28
#
#    * - Keras / TensorFlow 2
#      - PyTorch
#      - On this page
#    * - ``model.compile(optimizer, loss)``; ``model.fit``
#      - a loop you write: ``optimizer.zero_grad()``, ``loss.backward()``,
#        ``optimizer.step()`` per batch
#      - Same training steps; a ``fit()``
#    * - ``model.evaluate``, ``model.predict``
#      - ``model.eval()`` and ``with torch.no_grad():`` around the calls
#      - Same predictions
#    * - ``tf.GradientTape`` records in its block; ``tape.gradient``
#      - autograd records whenever a parameter takes part;
#        ``backward()`` *adds* into each ``.grad``
#      - Same gradients
#    * - ``model(x, training=True)``, chosen per call
#      - ``model.train()`` / ``model.eval()``: a mode that stays set
#      - Same predictions
#    * - ``layer.trainable = False`` (also freezes batch-norm statistics)
#      - ``requires_grad_(False)``, plus ``.eval()`` on batch-norm layers
#      - Frozen layers
#    * - images ``(N, H, W, C)``, channels last
#      - images ``(N, C, H, W)``: ``x.permute(0, 3, 1, 2)``
#      - Four traps
#    * - ``SparseCategoricalCrossentropy(from_logits=True)``
#      - ``nn.CrossEntropyLoss()`` on logits, integer targets
#      - Four traps
#    * - ``Dense(units)``: kernel ``(in, out)``, input size inferred
#      - ``nn.Linear(in, out)``: weight ``(out, in)``
#      - Copying the weights
#    * - ``Conv2D`` kernel ``(kh, kw, in, out)``
#      - ``nn.Conv2d`` weight ``(out, in, kh, kw)``
#      - Copying the weights
#    * - ``BatchNormalization(momentum=0.99, epsilon=1e-3)``
#      - ``nn.BatchNorm2d(momentum=0.01, eps=1e-3)``: PyTorch's momentum
#        is the weight of the *new* batch, 1 minus Keras's; the defaults
#        are 0.1 and 1e-5
#      - Four traps
#    * - ``tf.data``: ``from_tensor_slices``, ``shuffle``, ``batch``
#      - ``Dataset`` and ``DataLoader(batch_size=, shuffle=True)``
#      - a ``fit()``
#    * - callbacks ``ModelCheckpoint``, ``EarlyStopping``,
#        ``ReduceLROnPlateau``, ``TensorBoard``
#      - lines of your loop; ``ReduceLROnPlateau.step(val_loss)``;
#        ``torch.utils.tensorboard``
#      - a ``fit()`` (TensorBoard not run)
#    * - ``mixed_precision.set_global_policy("mixed_float16")``
#      - ``torch.autocast``, with ``torch.amp.GradScaler`` for float16
#      - Mixed precision and saving
#    * - ``model.save`` (``.keras``); ``model.export`` (SavedModel)
#      - ``torch.save(model.state_dict())``; ``torch.export`` for a graph
#        to deploy
#      - Mixed precision and saving

# %%
# A slice of CIFAR-10
# -------------------
# The proof uses real photos: the first 100 training photos of each
# CIFAR-10 class, 1,000 in all, of 32x32 pixels (the full dataset trains
# in :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`, which explains
# these two cells). Offline, ``PBE_DATA_DIR`` names a folder holding a
# JPEG copy whose hash `pooch <https://www.fatiando.org/pooch/>`_ checks.
import pooch
from torchvision import datasets

cache = pooch.os_cache("pytorch-by-example")  # a per-user cache folder
SHA256 = "ad20075fc5d761cb1545aa313752ecc67cdb288bc8d01abc2128e7de0ddfedb5"
jpeg_copy = pooch.create(
    path=cache,
    base_url="",  # never downloaded: an offline copy is only read
    env="PBE_DATA_DIR",  # when set, pooch looks in that folder instead
    registry={"cifar10-jpeg.zip": f"sha256:{SHA256}"},
    allow_updates=False,  # a copy with another hash stops the lesson
)
use_jpeg = (jpeg_copy.abspath / "cifar10-jpeg.zip").is_file()

# %%
# The training photos are unpacked once, into this lesson's own folder;
# without the copy, torchvision downloads the original. Either dataset
# gives a photo as a ``(3, 32, 32)`` tensor of bytes and lists every
# photo's class; we keep the first 100 of each class.
from torchvision.transforms import PILToTensor

if use_jpeg:
    jpeg_dir = cache / "cifar10-jpeg-advanced11"  # this lesson's own folder
    unzip = pooch.Unzip(members=["train"], extract_dir=jpeg_dir)
    jpeg_copy.fetch("cifar10-jpeg.zip", processor=unzip)
    train = datasets.ImageFolder(jpeg_dir / "train", transform=PILToTensor())
    print("Using the JPEG copy of CIFAR-10 (lossy: pixels differ slightly)")
else:
    try:
        train = datasets.CIFAR10(
            cache, train=True, download=True, transform=PILToTensor()
        )
    except OSError as err:  # no network, or the server refused
        raise RuntimeError("offline: connect, or set PBE_DATA_DIR") from err
    print("Using the original CIFAR-10, downloaded by torchvision")
classes = torch.tensor(train.targets)
keep = torch.cat([(classes == c).nonzero()[:100, 0] for c in range(10)])
keep = keep[torch.randperm(len(keep))]  # mix the classes
images = torch.stack([train[i][0] for i in keep.tolist()]).float() / 255
labels = classes[keep]
# sphinx_gallery_start_ignore
assert torch.equal(torch.bincount(labels), torch.full((10,), 100))
# sphinx_gallery_end_ignore

# %%
# PyTorch images are ``(N, C, H, W)``: channels first. Keras's
# convolutions expect channels last, ``(N, H, W, C)``, so the Keras side
# gets the same pixels permuted. The proof predicts 64 photos.
x_check = images[320:384]


def nhwc(x):  # a PyTorch image batch as the NumPy array Keras expects
    return x.permute(0, 2, 3, 1).numpy()


print(f"PyTorch batch {tuple(x_check.shape)}, Keras {nhwc(x_check).shape}")

# %%
# Two twins: a Keras network and its PyTorch copy
# -----------------------------------------------
# A small convolutional network with batch normalization, in Keras. It
# ends without softmax: it returns *logits*, one score per class.
keras_model = keras.Sequential(
    [
        keras.Input(shape=(32, 32, 3)),  # (H, W, C): channels last
        keras.layers.Conv2D(8, 3, padding="same"),
        keras.layers.BatchNormalization(),
        keras.layers.ReLU(),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(16, 3, padding="same"),
        keras.layers.BatchNormalization(),
        keras.layers.ReLU(),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(10),  # logits
    ]
)

# %%
# The PyTorch twin, layer for layer. A PyTorch layer is told its input
# size (``Conv2d(3, 8, ...)``, ``Linear(16, 10)``), ``padding=1`` is
# ``"same"`` for a 3x3 kernel, and batch norm gets Keras's settings in
# PyTorch's terms (the table's momentum row).


def torch_twin(momentum=0.01, eps=1e-3):
    """The Keras network in PyTorch, with Keras's batch-norm settings."""
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8, momentum=momentum, eps=eps),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1),
        nn.BatchNorm2d(16, momentum=momentum, eps=eps),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),  # GlobalAveragePooling2D, but (N, C, 1, 1)
        nn.Flatten(),  # ... so flatten to Keras's (N, C)
        nn.Linear(16, 10),
    )


# %%
# Copying the weights
# -------------------
# Keras's weights come in the order of PyTorch's ``state_dict``, the
# model's named tensors (minus its ``num_batches_tracked`` counters), in
# other layouts: a ``Dense`` kernel ``(in, out)`` is the transpose of
# ``Linear.weight``, a ``Conv2D`` kernel ``(kh, kw, in, out)`` becomes
# ``(out, in, kh, kw)``. Permute; a reshape to the same shape would
# scramble the numbers silently. ``torch.from_numpy`` wraps a NumPy
# array without copying (the tensor shares its memory; ``torch.tensor``
# copies). ``copy_`` writes in place (a trailing underscore says so),
# under ``torch.no_grad()`` so autograd does not record it.


def torch_layout(array):  # a Keras weight in PyTorch's layout
    t = torch.from_numpy(array)
    if t.ndim == 4:  # Conv2D kernel -> Conv2d weight
        return t.permute(3, 2, 0, 1)
    if t.ndim == 2:  # Dense kernel -> Linear weight
        return t.T
    return t  # biases and batch-norm vectors


def copy_from_keras(arrays, model):  # arrays from Keras's get_weights()
    state = model.state_dict()  # shares memory with the model
    names = [n for n in state if not n.endswith("num_batches_tracked")]
    with torch.no_grad():
        for name, array in zip(names, arrays, strict=True):
            state[name].copy_(torch_layout(array))
    return names


# %%
# We copy the starting weights into the twin and list some pairs.
# ``nn.Sequential`` names each tensor by its layer's position and role:
# ``0.weight`` is the first layer's weight, ``9.bias`` the last's bias.
start_weights = keras_model.get_weights()  # NumPy arrays, Keras layouts
model = torch_twin()
names = copy_from_keras(start_weights, model)
for name, variable in zip(names, keras_model.weights):
    if name.startswith(("0.", "1.", "9.")):
        keras_name = variable.path.removeprefix("sequential/")
        shape = tuple(model.state_dict()[name].shape)
        print(f"{keras_name:32s} {variable.shape} -> {name} {shape}")
# sphinx_gallery_start_ignore
assert [v.path.split("/")[-1] for v in keras_model.weights[2:6]] == [
    "gamma",
    "beta",
    "moving_mean",
    "moving_variance",
]
# sphinx_gallery_end_ignore

# %%
# Batch norm's ``gamma``, ``beta``, ``moving_mean`` and
# ``moving_variance`` are PyTorch's ``weight``, ``bias``, ``running_mean``
# and ``running_var``; the last two are *buffers*, saved and moved with
# the model but not trained.
#
# Same predictions
# ----------------
# ``predict`` runs in inference mode: batch norm uses its moving
# statistics. PyTorch's ``model.eval()`` **stays set** until
# ``model.train()``, where Keras chooses per call (``training=``);
# ``torch.no_grad()`` skips recording for autograd.
keras_logits = keras_model.predict(nhwc(x_check), verbose=0)
model.eval()
with torch.no_grad():
    torch_logits = model(x_check).numpy()
print(f"first photo, Keras:   {np.round(keras_logits[0, :4], 4)}")
print(f"first photo, PyTorch: {np.round(torch_logits[0, :4], 4)}")
gap = np.abs(keras_logits - torch_logits).max()
print(f"largest difference over 64 x 10 logits: {gap:.1e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(torch_logits, keras_logits, rtol=1e-5, atol=1e-5)
assert not model.training
# sphinx_gallery_end_ignore

# %%
# The logits agree to float32 rounding: the frameworks add the same
# products in different orders. The twin stays in evaluation mode.
#
# Going deeper
# ------------
# Optional on a first read, though a Keras user will want most of it: the
# same gradients and training steps, four traps that break the match,
# ``fit()`` and its callbacks as a loop, frozen layers, mixed precision,
# and saving.
#
# Same gradients: ``GradientTape`` and ``backward()``
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A Keras custom training step records the forward pass on a
# ``GradientTape`` and asks it for the gradients. PyTorch records whenever
# a tensor that requires gradients (every parameter) takes part, and
# ``backward()`` stores each gradient in its parameter's ``.grad``. Both
# sides run in inference mode here, so no statistics change; ``.item()``
# turns a one-number tensor into a Python float.
keras_loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
loss_fn = nn.CrossEntropyLoss()  # takes logits and integer classes
x0, y0 = images[:64], labels[:64]
with tf.GradientTape() as tape:
    loss_k = keras_loss(y0.numpy(), keras_model(nhwc(x0), training=False))
grads = tape.gradient(loss_k, keras_model.trainable_variables)
loss_t = loss_fn(model(x0), y0)
loss_t.backward()
gaps = [
    (torch_layout(g.numpy()) - p.grad).abs().max().item()
    for g, p in zip(grads, model.parameters(), strict=True)
]
print(f"loss: Keras {float(loss_k):.6f}, PyTorch {loss_t.item():.6f}")
print(f"largest gradient difference, {len(gaps)} tensors: {max(gaps):.1e}")
# sphinx_gallery_start_ignore
assert max(gaps) < 1e-5 and abs(float(loss_k) - loss_t.item()) < 1e-5
# sphinx_gallery_end_ignore

# %%
# ``trainable_variables`` and ``parameters()`` list the same 10 tensors in
# the same order (the batch-norm statistics are in neither), and the
# gradients agree. One difference matters: a tape hands back fresh
# gradients, while ``backward()`` *adds* to ``.grad``. Run it again
# without clearing, and every gradient doubles:
first = model[0].weight.grad.clone()
loss_fn(model(x0), y0).backward()
ratio = (model[0].weight.grad / first).mean().item()
print(f"after a second backward(): gradient / first gradient = {ratio:.3f}")
model.zero_grad()  # what optimizer.zero_grad() does before each step
print(f"after zero_grad(): {model[0].weight.grad}")
# sphinx_gallery_start_ignore
assert model[0].weight.grad is None
torch.testing.assert_close(ratio, 2.0)
# sphinx_gallery_end_ignore

# %%
# Forgetting ``optimizer.zero_grad()`` is the classic bug of a first
# PyTorch loop written by a Keras user: the steps still run, on gradients
# summed over all earlier batches.
#
# Same training steps
# ~~~~~~~~~~~~~~~~~~~
# ``fit`` runs, for each batch, the step that ``train_on_batch`` runs
# once: forward in training mode, loss, gradients, update. We run five such
# steps in Keras with plain SGD, on the first 320 photos in batches of 64,
# and the same five in PyTorch, written out.
batches = [(images[i : i + 64], labels[i : i + 64]) for i in range(0, 320, 64)]
keras_model.compile(
    optimizer=keras.optimizers.SGD(learning_rate=0.02), loss=keras_loss
)
keras_losses = [
    keras_model.train_on_batch(nhwc(x), y.numpy()) for x, y in batches
]
keras_after = keras_model.predict(nhwc(x_check), verbose=0)


def torch_steps(model):
    """Five SGD steps on ``batches``, as Keras's fit runs them."""
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
    model.train()  # batch statistics, and update the running ones
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


# %%
# The twin still holds the starting weights (nothing above changed them).
# After training, both sides predict the next 64 photos again.


def predict_gap(model):
    """Largest logit difference from Keras's predictions after training."""
    model.eval()
    with torch.no_grad():
        return np.abs(model(x_check).numpy() - keras_after).max()


torch_losses = torch_steps(model)
for step, (k, t) in enumerate(zip(keras_losses, torch_losses)):
    print(f"step {step}: loss Keras {k:.6f}  PyTorch {t:.6f}")
loss_gap = max(abs(k - t) for k, t in zip(keras_losses, torch_losses))
after_gap = predict_gap(model)
print(f"largest loss difference: {loss_gap:.1e}")
print(f"predictions after training, largest difference: {after_gap:.1e}")
print(f"Keras ran the steps eagerly: {keras_model.run_eagerly}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(torch_losses, keras_losses, rtol=1e-5, atol=0)
assert after_gap < 1e-4
for k_var, name in zip(keras_model.weights, names, strict=True):
    torch.testing.assert_close(
        torch_layout(k_var.numpy()),
        model.state_dict()[name],
        rtol=1e-4,
        atol=1e-5,
    )
# sphinx_gallery_end_ignore

# %%
# Five steps later the losses still agree to rounding, and so do the
# predictions, which depend on the trained weights *and* on the batch-norm
# statistics that each training step updated. (A hidden check compares
# every weight and statistic as well.) Keras did not run its steps
# eagerly: ``train_on_batch``, like ``fit``, runs the step as a compiled
# ``tf.function`` unless ``run_eagerly=True``; the PyTorch loop runs
# eagerly, line by line
# (:ref:`sphx_glr_lessons_advanced_06_graphs_today.py` compiles both).
#
# Four traps that break the match
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Four settings break the match: channels-last images, batch norm's
# momentum, its epsilon, and ``from_logits``.
#
# **Channels last.** Handing PyTorch the Keras layout fails loudly, since
# the convolution expects 3 channels in dimension 1. A ``reshape`` to the
# right shape is worse: it runs, on scrambled pixels.
x_keras = torch.from_numpy(nhwc(x_check))  # (N, H, W, C)
try:
    model(x_keras)
except RuntimeError as err:
    print(f"raised RuntimeError: {err}")
else:
    raise AssertionError("a channels-last batch should not fit Conv2d")
with torch.no_grad():
    scrambled = model(x_keras.reshape(64, 3, 32, 32)).numpy()
scrambled_gap = np.abs(scrambled - keras_after).max()
print(f"reshape instead of permute: logits off by {scrambled_gap:.2f}")
# sphinx_gallery_start_ignore
assert scrambled_gap > 0.1
# sphinx_gallery_end_ignore

# %%
# **Batch-norm momentum and epsilon.** Keras's ``momentum=0.99`` keeps 99%
# of the old statistic; PyTorch's ``momentum`` is the share of the *new*
# batch, default 0.1. Keras adds ``epsilon=1e-3`` to the variance,
# PyTorch ``eps=1e-5``. Three wrong twins, from the same starting weights,
# through the same five steps:
wrong_twins = {
    "momentum=0.99 (Keras's number)": torch_twin(momentum=0.99),
    "momentum=0.1 (PyTorch's default)": torch_twin(momentum=0.1),
    "eps=1e-5 (PyTorch's default)": torch_twin(eps=1e-5),
}
trap_gaps = {}
print(f"{'twin':34s} {'loss gap':>9s} {'logit gap':>10s}")
for label, twin in wrong_twins.items():
    copy_from_keras(start_weights, twin)
    losses = torch_steps(twin)
    gap_loss = max(abs(k - t) for k, t in zip(keras_losses, losses))
    trap_gaps[label] = gap_loss, predict_gap(twin)
    print(f"{label:34s} {gap_loss:9.1e} {trap_gaps[label][1]:10.1e}")
# sphinx_gallery_start_ignore
for label, (gap_loss, gap_logits) in trap_gaps.items():
    assert gap_logits > 1e-4  # every wrong twin predicts differently
    assert (gap_loss > 1e-4) == label.startswith("eps")  # silent in training
# sphinx_gallery_end_ignore

# %%
# The right twin was off by about 1e-6 in loss and 1e-5 in logits
# (above); every wrong twin predicts worse than that. The momentum
# twins train like Keras, to the same rounding as the right twin: in
# training mode batch norm normalizes with the batch's own statistics, and
# momentum only decides how the running statistics follow them. The
# damage shows when those are used, at prediction time: Keras's number
# makes the running statistics 99% the last batch's. A wrong epsilon
# changes every step a little. One difference no setting removes:
# PyTorch's running variance follows the batch variance divided by
# :math:`n - 1`, Keras's divided by :math:`n`. With at least 64 x 16 x 16
# values a channel here, that is a relative 6e-5 or less, lost in the
# rounding; on small batches of features it shows.
#
# **``from_logits``.** Keras's ``SparseCategoricalCrossentropy()`` assumes
# probabilities unless told ``from_logits=True``; given logits, it
# computes a different number and trains on it without complaint.
# PyTorch's ``CrossEntropyLoss`` always takes logits: a softmax layer in
# front of it is the same mistake from the other side.
with torch.no_grad():
    logits = model(x_check)  # the trained twin, in evaluation mode
y_check = labels[320:384]
as_probs = keras.losses.SparseCategoricalCrossentropy()  # the default
losses = {
    "CrossEntropyLoss(logits)": loss_fn(logits, y_check).item(),
    "Keras, from_logits=True": float(keras_loss(y_check, logits.numpy())),
    "Keras, from_logits=False": float(as_probs(y_check, logits.numpy())),
    "CrossEntropyLoss(softmax(logits))": loss_fn(
        logits.softmax(dim=1), y_check
    ).item(),
}
for label, value in losses.items():
    print(f"{label:34s} {value:.4f}")
# sphinx_gallery_start_ignore
assert (
    abs(losses["CrossEntropyLoss(logits)"] - losses["Keras, from_logits=True"])
    < 1e-5
)
assert (
    losses["Keras, from_logits=False"] > 2 * losses["Keras, from_logits=True"]
)
assert (
    abs(
        losses["CrossEntropyLoss(softmax(logits))"]
        - losses["Keras, from_logits=True"]
    )
    > 1e-3
)
# the best that softmax-then-CrossEntropyLoss can reach: one-hot scores
assert (
    abs(
        loss_fn(torch.eye(10), torch.arange(10)).item()
        - (np.log(np.e + 9) - 1)
    )
    < 1e-6
)
# sphinx_gallery_end_ignore

# %%
# Keras's default setting gives more than twice the loss, with no
# warning. The softmax in front of ``CrossEntropyLoss`` gives a plausible
# number, but of another function: softmax is applied twice, and since
# the scores it then gets all lie between 0 and 1, this loss can never
# fall below :math:`\log(e + 9) - 1 \approx 1.46`, even for a network that
# is sure and right. End a PyTorch classifier in a plain
# ``nn.Linear`` and give its logits to ``CrossEntropyLoss``, with integer
# classes as targets (:ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py`).
#
# A ``fit()`` of your own, with callbacks
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``tf.data``'s ``from_tensor_slices``, ``shuffle`` and ``batch`` become a
# ``TensorDataset`` in a ``DataLoader``
# (:ref:`sphx_glr_lessons_data_01_datasets_dataloaders.py`). The first
# 200 photos validate, the other 800 train. Keras places work on the GPU by
# itself; in PyTorch the model and every batch go there with
# ``.to(device)``.
import tempfile
from pathlib import Path

from torch.utils.data import DataLoader, TensorDataset

x_val, y_val = images[:200].to(device), labels[:200].to(device)
train_set = TensorDataset(images[200:], labels[200:])
shuffle = torch.Generator()  # its state goes into each checkpoint
loader = DataLoader(train_set, batch_size=64, shuffle=True, generator=shuffle)


def evaluate(model):
    """Keras's ``evaluate`` on the validation photos: loss, accuracy."""
    model.eval()
    with torch.no_grad():
        logits = model(x_val)
    accuracy = (logits.argmax(dim=1) == y_val).float().mean().item()
    return loss_fn(logits, y_val).item(), accuracy


# %%
# Each callback becomes a few lines at the end of an epoch:
# ``ReduceLROnPlateau`` is a scheduler whose ``step`` takes the watched
# value; ``ModelCheckpoint(save_best_only=True)`` is a ``torch.save`` when
# the validation loss improves; ``EarlyStopping(patience=2)`` counts the
# epochs since then. Everything the run changes goes into a checkpoint
# every epoch, so a stopped run can resume (as in
# :ref:`sphx_glr_lessons_nn_02_optim.py`).


def fit(run, epochs, folder, patience=2):
    model, optimizer, scheduler, log = run
    while log["epoch"] < epochs and log["wait"] < patience:
        model.train()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss_fn(model(x), y).backward()
            optimizer.step()
        val_loss, val_acc = evaluate(model)
        scheduler.step(val_loss)  # ReduceLROnPlateau
        log["epoch"], log["wait"] = log["epoch"] + 1, log["wait"] + 1
        if val_loss < log["best"]:  # ModelCheckpoint(save_best_only)
            log["best"], log["wait"] = val_loss, 0
            torch.save(model.state_dict(), folder / "best.pt")
        lr = optimizer.param_groups[0]["lr"]
        log["history"].append((val_loss, val_acc, lr, log["wait"] == 0))
        state = {
            "model": model,
            "optimizer": optimizer,
            "scheduler": scheduler,
        }
        state = {name: part.state_dict() for name, part in state.items()}
        state.update(shuffle=shuffle.get_state(), log=log)
        torch.save(state, folder / "last.pt")  # everything, every epoch


# %%
# A fresh run: the twin's layers with new random weights and PyTorch's
# batch-norm defaults, Adam, and a scheduler that halves the rate after
# each epoch without improvement. ``fit`` runs until early stopping or 10
# epochs.


def new_run():
    torch.manual_seed(1)  # the same start for every run
    shuffle.manual_seed(1)
    model = torch_twin(momentum=0.1, eps=1e-5).to(device)  # PyTorch's
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
        optimizer, factor=0.5, patience=0
    )
    log = {"epoch": 0, "best": float("inf"), "wait": 0, "history": []}
    return model, optimizer, scheduler, log


straight_dir = Path(tempfile.mkdtemp())
straight = new_run()
fit(straight, epochs=10, folder=straight_dir)
for epoch, (loss, acc, lr, saved) in enumerate(straight[3]["history"], 1):
    note = " saved best" if saved else ""
    print(f"epoch {epoch:2d}: val loss {loss:.3f}, acc {acc:.3f}, ", end="")
    print(f"lr {lr:.4f}{note}")
print(f"stopped early: {straight[3]['wait'] >= 2}")
# sphinx_gallery_start_ignore
assert len(straight[3]["history"]) == 10 and straight[3]["wait"] < 2
assert 0.18 < straight[3]["history"][-1][1] < 0.35
assert sum(p.numel() for p in straight[0].parameters()) == 1610
# sphinx_gallery_end_ignore

# %%
# Each "saved best" is a new lowest validation loss, and the rate halves
# after every epoch without one. No two epochs in a row went without
# one, so early stopping never fired. An accuracy near a quarter is what
# 800 photos and a network of 1,610 parameters reach in 10 epochs (chance
# is 0.10); :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py` trains a
# real classifier. Keras's ``restore_best_weights=True`` is
# one more line, ``model.load_state_dict(torch.load(...))`` on
# ``best.pt``. To resume, a new process builds the same objects and loads
# every state from ``last.pt``; here a run stopped after 3 epochs resumes
# and finishes. ``weights_only=True`` makes ``torch.load`` read only
# tensors and plain Python values, never arbitrary pickled code:
interrupted_dir = Path(tempfile.mkdtemp())
fit(new_run(), epochs=3, folder=interrupted_dir)  # then the process dies
resumed = new_run()  # a new process builds the same objects ...
saved = torch.load(interrupted_dir / "last.pt", weights_only=True)
for name, part in zip(["model", "optimizer", "scheduler"], resumed):
    part.load_state_dict(saved[name])  # ... and loads every state
shuffle.set_state(saved["shuffle"])
resumed[3].update(saved["log"])
fit(resumed, epochs=10, folder=interrupted_dir)
weight_gap = max(
    (a - b).abs().max().item()
    for a, b in zip(
        straight[0].state_dict().values(), resumed[0].state_dict().values()
    )
)
print(f"resumed vs straight run: largest weight difference {weight_gap:.1e}")
# sphinx_gallery_start_ignore
assert resumed[3]["history"] == straight[3]["history"]
assert weight_gap == 0 or device.type != "cpu"
# sphinx_gallery_end_ignore

# %%
# The resumed run retraced the straight one exactly: same weights, same
# history, because the scheduler's counters, Adam's moments and the
# shuffling generator were restored along with the weights. If you want
# ``fit()`` itself back, libraries build it on a loop like this one:
# PyTorch Lightning's ``Trainer.fit``, or Keras 3 itself, which can run
# on a PyTorch backend (``KERAS_BACKEND="torch"``). Knowing the loop is what
# lets you debug either.
#
# Frozen layers and batch norm
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# In Keras, ``trainable = False`` on a batch-norm layer also runs it in
# inference mode, so fine-tuning leaves its statistics alone. In PyTorch,
# ``requires_grad_(False)`` only stops the gradients; a module in training
# mode still updates its running statistics, until ``.eval()``.
x_shifted = (torch.randn(64, 4) + 3.0).numpy()  # features with mean 3
frozen_keras = keras.layers.BatchNormalization()
frozen_keras.trainable = False
frozen_keras(x_shifted, training=True)
frozen_torch = nn.BatchNorm1d(4).requires_grad_(False)  # training mode
frozen_torch(torch.from_numpy(x_shifted))
print(f"Keras moving mean:    {frozen_keras.moving_mean.numpy().round(2)}")
print(f"PyTorch running mean: {frozen_torch.running_mean.numpy().round(2)}")
# sphinx_gallery_start_ignore
assert np.all(frozen_keras.moving_mean.numpy() == 0)
assert torch.all(frozen_torch.running_mean > 0.2)
# PyTorch's running variance follows the unbiased (n - 1) batch variance
torch.testing.assert_close(
    frozen_torch.running_var,
    0.9 + 0.1 * torch.from_numpy(x_shifted).var(dim=0, correction=1),
)
# sphinx_gallery_end_ignore

# %%
# The frozen PyTorch layer moved its running mean a tenth of the way to
# 3; Keras's did not move. To freeze batch norm as Keras does, call
# ``.eval()`` on those layers after every ``model.train()``.
#
# Mixed precision and saving
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# Keras's ``mixed_float16`` policy computes in float16 and keeps the
# weights in float32; ``torch.autocast`` runs the operations inside its
# block in the lower precision where that is safe (convolutions, matrix
# products) and keeps others in float32, and ``torch.amp.GradScaler`` adds
# the loss scaling float16 needs
# (:ref:`sphx_glr_lessons_advanced_03_gpu_performance.py` says which dtype
# each device wants). Here, bfloat16 on the CPU: it has float32's range,
# so it needs no loss scaling.
policy = keras.mixed_precision.Policy("mixed_float16")
print(f"Keras {policy.name}: {policy.compute_dtype}, {policy.variable_dtype}")
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model(x_check)
print(f"autocast: {out.dtype} outputs, {model[0].weight.dtype} weights")
# sphinx_gallery_start_ignore
assert out.dtype == torch.bfloat16 and model[0].weight.dtype == torch.float32
# sphinx_gallery_end_ignore

# %%
# Keras's ``model.save`` stores the architecture with the weights in a
# ``.keras`` file. PyTorch saves the ``state_dict`` (weights and buffers),
# and the code that builds the model is your Python class. For a file that
# runs without that code, the role of the SavedModel that Keras's
# ``model.export`` writes, ``torch.export`` captures the model's graph
# (:ref:`sphx_glr_lessons_advanced_06_graphs_today.py` shows graph
# capture), here for batches of 64 photos:
restored = torch_twin(momentum=0.1, eps=1e-5)
best = torch.load(straight_dir / "best.pt", weights_only=True)
restored.load_state_dict(best)
restored.eval()
exported = torch.export.export(restored, (x_check,))
torch.export.save(exported, straight_dir / "twin.pt2")
reloaded = torch.export.load(straight_dir / "twin.pt2").module()
with torch.no_grad():
    export_gap = (reloaded(x_check) - restored(x_check)).abs().max().item()
print(f"exported and reloaded vs the model: largest difference {export_gap}")
# sphinx_gallery_start_ignore
assert export_gap < 1e-5
assert not exported.range_constraints  # no size left free: 64 photos only
# sphinx_gallery_end_ignore

# %%
# Takeaways
# ---------
# - ``fit`` is a loop you write: ``zero_grad()``, forward, loss,
#   ``backward()``, ``step()``; ``predict`` and ``evaluate`` are
#   ``model.eval()`` plus ``torch.no_grad()``, and the mode stays set.
# - ``backward()`` adds to ``.grad``: clear it every step.
# - Copying weights: transpose ``Dense`` kernels, permute ``Conv2D``
#   kernels, and feed images as ``(N, C, H, W)``.
# - Batch norm: PyTorch's momentum is 1 minus Keras's, and Keras's epsilon
#   is 1e-3; ``CrossEntropyLoss`` takes logits.
# - Callbacks are lines of the loop; a checkpoint holds every state the
#   run changes, so a resumed run matches an unbroken one.
#
# Next, :ref:`sphx_glr_lessons_advanced_06_graphs_today.py` compares
# ``tf.function``, which ``fit`` uses by default, with ``torch.compile``.

# %%
# Exercises
# ---------
# Three exercises on the core: porting weights, batch-norm settings, and a
# Keras-style ``predict``. Each check runs your attempt on inputs of its
# own. Solutions are at the end.
#
# **Exercise 1: port a Dense layer.** Write
# ``dense_to_linear(kernel, bias)``: ``kernel`` and ``bias`` are NumPy
# arrays from a Keras ``Dense`` layer's ``get_weights()``, shapes
# ``(in, out)`` and ``(out,)``. Return an ``nn.Linear`` that computes what
# the ``Dense`` layer computes, ``x @ kernel + bias``, with trainable
# weights of the arrays' dtype, copied (training the layer must not change
# the arrays).


def check_exercise_1(fn):
    """Exercise 1's check: run it on your attempt."""
    rng = np.random.default_rng(11)
    for shape, dtype in [((5, 3), np.float64), ((4, 4), np.float32)]:
        kernel = rng.standard_normal(shape).astype(dtype)
        bias = rng.standard_normal(shape[1]).astype(dtype)
        kept = kernel.copy(), bias.copy()
        try:
            layer = fn(kernel, bias)
        except Exception as err:
            raise AssertionError(f"dense_to_linear failed: {err!r}") from err
        if layer is ...:
            print("Exercise 1 not attempted yet: write dense_to_linear")
            return
        if not isinstance(layer, torch.nn.Linear):
            raise AssertionError(f"return an nn.Linear, not {type(layer)}")
        if (layer.in_features, layer.out_features) != shape:
            raise AssertionError(
                f"a {shape} kernel maps {shape[0]} inputs to {shape[1]} "
                f"outputs, not Linear({layer.in_features}, "
                f"{layer.out_features})"
            )
        if layer.bias is None:
            raise AssertionError("the Dense layer has a bias: keep it")
        if set(dict(layer.named_parameters())) != {"weight", "bias"}:
            raise AssertionError(
                "weight and bias should be the layer's parameters "
                "(nn.Parameter), or an optimizer never sees them"
            )
        params = [layer.weight, layer.bias]
        if not all(p.requires_grad for p in params):
            raise AssertionError("weight and bias should be trainable")
        for role, p in zip(["weight", "bias"], params):
            if p.dtype != torch.from_numpy(kernel).dtype:
                raise AssertionError(
                    f"the arrays are {kernel.dtype}, the {role} "
                    f"{p.dtype}: keep the arrays' dtype"
                )
        x = torch.from_numpy(rng.standard_normal((shape[0], 6)).astype(dtype))
        x = x.T  # 6 inputs, as a transposed (non-contiguous) tensor
        try:
            out = (layer(x) - layer.bias).detach().numpy()
        except Exception as err:
            raise AssertionError(
                f"the layer failed on a ({x.shape[0]}, {shape[0]}) batch: "
                f"{err!r}"
            ) from err
        if not np.allclose(out, x.numpy() @ kernel, atol=1e-5):
            raise AssertionError(
                "layer(x) - bias differs from x @ kernel: a Dense kernel is "
                "(in, out) and Linear.weight is (out, in): transpose it"
            )
        if not np.allclose(layer.bias.detach().numpy(), bias, atol=1e-6):
            raise AssertionError("the bias differs from the Dense bias")
        with torch.no_grad():
            for p in params:
                p.add_(1.0)  # a training step, say
        if not (
            np.array_equal(kernel, kept[0]) and np.array_equal(bias, kept[1])
        ):
            raise AssertionError(
                "changing the layer changed the Keras arrays: it shares "
                "their memory; copy them (torch.tensor, .clone())"
            )
    print("Exercise 1: correct")


# %%
# Your attempt at exercise 1, then its check:


def dense_to_linear(kernel, bias):
    return ...  # replace ... with your code


check_exercise_1(dense_to_linear)

# %%
# **Exercise 2: Keras's batch norm in PyTorch.** Write
# ``keras_batchnorm(channels, momentum=0.99, epsilon=1e-3)``, returning a
# PyTorch module for ``(N, C, H, W)`` images that behaves like
# ``keras.layers.BatchNormalization(momentum=momentum, epsilon=epsilon)``:
# the same outputs in training mode and the same running mean after a
# training step, for any ``momentum`` and ``epsilon``.


def check_exercise_2(fn):
    """Exercise 2's check: run it on your attempt."""
    channels, momentum, epsilon = 6, 0.8, 0.01  # not Keras's defaults
    try:
        bn = fn(channels, momentum=momentum, epsilon=epsilon)
    except Exception as err:
        raise AssertionError(f"keras_batchnorm failed: {err!r}") from err
    if bn is ...:
        print("Exercise 2 not attempted yet: write keras_batchnorm")
        return
    gen = torch.Generator().manual_seed(2)
    x = 2.0 + 0.05 * torch.randn(8, channels, 5, 7, generator=gen)
    try:
        y = bn.train()(x)
    except Exception as err:
        raise AssertionError(
            f"on (N, C, H, W) images with C={channels}: {err!r}"
        ) from err
    if sum(p.numel() for p in bn.parameters()) != 2 * channels:
        raise AssertionError(
            "Keras's layer learns a scale and a shift per channel "
            f"(gamma, beta): expected {2 * channels} learnable numbers"
        )
    mean = x.mean(dim=(0, 2, 3))
    var = x.var(dim=(0, 2, 3), unbiased=False)
    shape = (1, channels, 1, 1)
    expected = (x - mean.view(shape)) / (var.view(shape) + epsilon).sqrt()
    running = getattr(bn, "running_mean", None)
    if running is None:
        raise AssertionError("Keras keeps running statistics; keep them")
    if not torch.allclose(running, (1 - momentum) * mean, atol=1e-5):
        raise AssertionError(
            f"after one step from 0 the running mean should be "
            f"{1 - momentum:.2f} x the batch mean (Keras momentum "
            f"{momentum}): PyTorch's momentum is the new batch's share"
        )
    if not torch.allclose(y, expected, atol=1e-4):
        default = (x - mean.view(shape)) / (var.view(shape) + 1e-5).sqrt()
        if torch.allclose(y, default, atol=1e-4):
            raise AssertionError(
                f"training-mode outputs differ: Keras adds "
                f"epsilon={epsilon} to the variance (PyTorch calls it eps)"
            )
        raise AssertionError(
            "training-mode outputs differ from Keras's: normalize each "
            "channel over the batch, height and width (BatchNorm2d), "
            f"adding epsilon={epsilon} to the variance"
        )
    print("Exercise 2: correct")


# %%
# Your attempt at exercise 2, then its check:


def keras_batchnorm(channels, momentum=0.99, epsilon=1e-3):
    return ...  # replace ... with your code


check_exercise_2(keras_batchnorm)

# %%
# **Exercise 3: a Keras-style predict.** Write ``predict(model, images)``:
# ``images`` is a channels-last batch ``(N, H, W, C)``, as a Keras
# pipeline hands it over, and ``model`` a PyTorch classifier that returns
# logits. Return the class probabilities, shape ``(N, classes)``, as
# Keras's ``predict`` would for a network ending in softmax: batch norm on
# its running statistics, nothing recorded for autograd, the model's mode
# left as you found it, and the images' dtype kept.


def check_exercise_3(fn):
    """Exercise 3's check: run it on your attempt."""
    with torch.random.fork_rng():  # your random state stays as it was
        torch.manual_seed(3)
        model = torch.nn.Sequential(
            torch.nn.Conv2d(3, 4, 3, padding=1),
            torch.nn.BatchNorm2d(4),
            torch.nn.Flatten(),
            torch.nn.Linear(4 * 4 * 6, 5),
        ).double()
        nchw = torch.rand(7, 3, 4, 6, dtype=torch.float64)  # H=4, W=6
    model[1].running_mean.fill_(0.5)  # statistics that differ from a batch's
    seen = []
    model.register_forward_pre_hook(
        lambda m, args: seen.append((m.training, torch.is_grad_enabled()))
    )
    with torch.no_grad():
        expected = model.eval()(nchw).softmax(dim=1)
    grad_mode = torch.is_grad_enabled()
    for mode in (True, False):
        model.train(mode)
        seen.clear()
        try:
            probs = fn(model, nchw.permute(0, 2, 3, 1))  # channels last
        except Exception as err:
            raise AssertionError(
                f"predict failed: {err!r}; the images are float64 (N, H, W, C)"
            ) from err
        finally:
            changed = torch.is_grad_enabled() != grad_mode
            torch.set_grad_enabled(grad_mode)  # the caller's, restored
        if probs is ...:
            print("Exercise 3 not attempted yet: write predict")
            return
        if not seen:
            raise AssertionError("predict never called the model")
        if any(training for training, _ in seen):
            raise AssertionError(
                "the model ran in training mode (batch norm used the "
                "batch's statistics and updated its running ones): use "
                "evaluation mode"
            )
        if any(grad for _, grad in seen):
            raise AssertionError(
                "autograd recorded the forward pass: use torch.no_grad()"
            )
        if changed:
            raise AssertionError(
                "predict left autograd switched off for its caller: use "
                "a with torch.no_grad(): block, which switches it back"
            )
        if model.training != mode:
            raise AssertionError(
                f"the model came in with training={mode} and left with "
                f"training={model.training}: leave its mode as found"
            )
        if not isinstance(probs, torch.Tensor) or probs.shape != (7, 5):
            got = getattr(probs, "shape", None)
            raise AssertionError(
                "expected a (7, 5) tensor of probabilities, got "
                f"{type(probs).__name__} {got}"
            )
        if probs.dtype != torch.float64:
            raise AssertionError(f"float64 images gave {probs.dtype}")
        if not torch.allclose(
            probs.sum(dim=1), torch.ones(7, dtype=probs.dtype)
        ):
            raise AssertionError(
                "each row should be probabilities over the classes, "
                "summing to 1: softmax the logits over dim=1"
            )
        if not torch.allclose(probs, expected):
            raise AssertionError(
                "wrong probabilities: are the images permuted to "
                "(N, C, H, W) with permute(0, 3, 1, 2)?"
            )
    print("Exercise 3: correct")


# %%
# Your attempt at exercise 3, then its check:


def predict(model, images):
    return ...  # replace ... with your code


check_exercise_3(predict)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.

# %%


# Solution 1: port a Dense layer
def dense_to_linear(kernel, bias):
    kernel = torch.tensor(kernel)  # a copy, in the arrays' dtype
    layer = nn.Linear(*kernel.shape, dtype=kernel.dtype)
    with torch.no_grad():
        layer.weight.copy_(kernel.T)  # (in, out) -> (out, in)
        layer.bias.copy_(torch.from_numpy(bias))
    return layer


check_exercise_1(dense_to_linear)

# %%


# Solution 2: Keras's batch norm in PyTorch
def keras_batchnorm(channels, momentum=0.99, epsilon=1e-3):
    return nn.BatchNorm2d(channels, eps=epsilon, momentum=1 - momentum)


check_exercise_2(keras_batchnorm)

# %%


# Solution 3: a Keras-style predict
def predict(model, images):
    was_training = model.training
    model.eval()
    with torch.no_grad():
        logits = model(images.permute(0, 3, 1, 2))
    model.train(was_training)
    return logits.softmax(dim=1)


check_exercise_3(predict)
