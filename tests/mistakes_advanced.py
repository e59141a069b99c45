"""Plausible wrong answers and correct variants: the advanced lessons.

See tests/exercise_mistakes.py for the format.
"""

# advanced/10, exercise 1: to_batch(words, char_index) -> (chars, lengths)
_ROWS = "[torch.tensor([{look} for c in w]) for w in {order}]"
_SORTED = "sorted(words, key=len, reverse=True)"
_LENGTHS = "torch.tensor([len(w) for w in words])"


def _padded(
    look="char_index.get(c, 1)", opt=", batch_first=True", order="words"
):
    return f"pad_sequence({_ROWS.format(look=look, order=order)}{opt})"


def _to_batch(lengths=_LENGTHS, **padded):
    return f"lambda words, char_index: ({_padded(**padded)}, {lengths})"


# advanced/10, exercise 2: final_states(rnn, embedded, lengths) -> h_n[-1]
_HEAD = "def answer(rnn, embedded, lengths):\n"
_PACK = (
    "    packed = pack_padded_sequence(\n"
    "        embedded, lengths, batch_first=True, enforce_sorted=False\n"
    "    )\n"
)
_RUN = "    _, state = rnn(packed)\n"
_H = "    h = state[0] if isinstance(state, tuple) else state\n"


def _final(*lines):
    return _HEAD + "".join(lines)


MISTAKES: dict[tuple[str, str], list[tuple[str, str | None]]] = {
    ("advanced/10_text_language_of_a_word", "check_exercise_1"): [
        # a character missing from the index: KeyError
        (_to_batch(look="char_index[c]"), "KeyError"),
        # unknown characters as padding
        (_to_batch(look="char_index.get(c, 0)"), "UNKNOWN"),
        # padded with the unknown index
        (_to_batch(opt=", batch_first=True, padding_value=1"), "pad with 0"),
        # pad_sequence's default layout: (longest, words)
        (_to_batch(opt=""), "one word per row"),
        # the lengths of the padded rows
        (
            "lambda words, char_index: (lambda c: (c, torch.full("
            f"(len(words),), c.shape[1])))({_padded()})",
            "own length",
        ),
        # sorted longest first, as older code did
        (
            _to_batch(
                order=_SORTED,
                lengths="torch.tensor(sorted(map(len, words), reverse=True))",
            ),
            "order",
        ),
        # only the rows sorted, the lengths left in order
        (_to_batch(order=_SORTED), "order"),
        # lengths as a list
        (_to_batch(lengths="[len(w) for w in words]"), "tensor"),
        # float rows built with torch.zeros
        (
            "def answer(words, char_index):\n"
            "    chars = torch.zeros(len(words), max(map(len, words)))\n"
            "    for i, w in enumerate(words):\n"
            "        for j, c in enumerate(w):\n"
            "            chars[i, j] = char_index.get(c, 1)\n"
            f"    return chars, {_LENGTHS}\n",
            "int64",
        ),
        # int32 lengths
        (
            _to_batch(
                lengths="torch.tensor([len(w) for w in words], "
                "dtype=torch.int32)"
            ),
            "int64",
        ),
        # the pair in the other order
        (
            f"lambda words, char_index: ({_LENGTHS}, {_padded()})",
            "(chars, lengths)",
        ),
        # one index too many for every character
        (_to_batch(look="char_index.get(c, 0) + 1"), "row of"),
    ],
    ("advanced/10_text_language_of_a_word", "check_exercise_2"): [
        # no packing: the final state after the padding
        (
            _final("    state = rnn(embedded)[1]\n", _H, "    return h[-1]\n"),
            "padding",
        ),
        # the last step of the padded output
        ("lambda rnn, embedded, lengths: rnn(embedded)[0][:, -1]", "padding"),
        # enforce_sorted left at its default
        (
            _final(
                "    packed = pack_padded_sequence(\n"
                "        embedded, lengths, batch_first=True\n"
                "    )\n",
                _RUN,
                _H,
                "    return h[-1]\n",
            ),
            "enforce_sorted",
        ),
        # the LSTM's cell state
        (
            _final(
                _PACK,
                _RUN,
                "    c = state[1] if isinstance(state, tuple) else state\n",
                "    return c[-1]\n",
            ),
            "cell state",
        ),
        # the first layer
        (_final(_PACK, _RUN, _H, "    return h[0]\n"), "first layer"),
        # every layer
        (_final(_PACK, _RUN, _H, "    return h\n"), "last layer"),
        # no gradients
        (
            _final(
                "    with torch.no_grad():\n",
                "    " + _PACK.replace("\n    ", "\n        "),
                "    " + _RUN,
                _H,
                "    return h[-1]\n",
            ),
            "gradient",
        ),
        # detached
        (
            _final(_PACK, _RUN, _H, "    return h[-1].detach()\n"),
            "gradient",
        ),
        # eval mode left behind
        (
            _final("    rnn.eval()\n", _PACK, _RUN, _H, "    return h[-1]\n"),
            "training mode",
        ),
        # float32
        (_final(_PACK, _RUN, _H, "    return h[-1].float()\n"), "dtype"),
        # sorted by hand, never unsorted
        (
            _final(
                "    lengths, order = lengths.sort(descending=True)\n"
                "    packed = pack_padded_sequence(\n"
                "        embedded[order], lengths, batch_first=True\n"
                "    )\n",
                _RUN,
                _H,
                "    return h[-1]\n",
            ),
            "batch's order",
        ),
        # batch_first forgotten when packing
        (
            _final(
                "    packed = pack_padded_sequence(\n"
                "        embedded, lengths, enforce_sorted=False\n"
                "    )\n",
                _RUN,
                _H,
                "    return h[-1]\n",
            ),
            "failed with",
        ),
    ],
}

VARIANTS: dict[tuple[str, str], list[str]] = {
    ("advanced/10_text_language_of_a_word", "check_exercise_1"): [
        _to_batch(),
        _to_batch(
            look="char_index[c] if c in char_index else 1",
            opt=", batch_first=True, padding_value=0",
        ),
        "def answer(words, char_index):\n"
        "    longest = max(map(len, words))\n"
        "    chars = torch.zeros(len(words), longest, dtype=torch.long)\n"
        "    for i, w in enumerate(words):\n"
        "        for j, c in enumerate(w):\n"
        "            chars[i, j] = char_index.get(c, 1)\n"
        "    lengths = torch.tensor([len(w) for w in words])\n"
        "    return chars, lengths.long()\n",
    ],
    ("advanced/10_text_language_of_a_word", "check_exercise_2"): [
        _final(_PACK, _RUN, _H, "    return h[-1]\n"),
        # one direction: the output at each word's last real step
        "lambda rnn, embedded, lengths: "
        "rnn(embedded)[0][torch.arange(len(lengths)), lengths - 1]",
        # sorted by hand, then put back in the batch's order
        _final(
            "    ordered, order = lengths.sort(descending=True)\n"
            "    packed = pack_padded_sequence(\n"
            "        embedded[order], ordered, batch_first=True\n"
            "    )\n",
            _RUN,
            _H,
            "    return h[-1][order.argsort()]\n",
        ),
    ],
}

# advanced/11, exercise 1: dense_to_linear(kernel, bias) -> nn.Linear
_K11 = "advanced/11_for_keras_users"
_DENSE = (
    "def answer(kernel, bias):\n"
    "    dtype = torch.from_numpy(kernel).dtype\n"
    "    layer = nn.Linear({shape}, dtype=dtype{opt})\n"
    "    with torch.no_grad():\n"
    "        layer.weight.copy_({weight})\n"
    "{bias}"
    "    return layer{after}\n"
)
_BIAS = "        layer.bias.copy_(torch.tensor(bias))\n"


def _dense(
    shape="*kernel.shape",
    opt="",
    weight="torch.tensor(kernel).T",
    bias=_BIAS,
    after="",
):
    return _DENSE.format(
        shape=shape, opt=opt, weight=weight, bias=bias, after=after
    )


# advanced/11, exercise 3: predict(model, images) -> probabilities
_PREDICT = (
    "def answer(model, images):\n"
    "    was_training = model.training\n"
    "{mode}"
    "    with {context}:\n"
    "        logits = model({images})\n"
    "{restore}"
    "    return {result}\n"
)


def _predict(
    mode="    model.eval()\n",
    context="torch.no_grad()",
    images="images.permute(0, 3, 1, 2)",
    restore="    model.train(was_training)\n",
    result="logits.softmax(dim=1)",
):
    return _PREDICT.format(
        mode=mode,
        context=context,
        images=images,
        restore=restore,
        result=result,
    )


_BN = "lambda channels, momentum=0.99, epsilon=1e-3: "

MISTAKES |= {
    (_K11, "check_exercise_1"): [
        # the kernel's shape read as (out, in)
        (
            _dense(
                shape="kernel.shape[1], kernel.shape[0]",
                weight="torch.tensor(kernel)",
                bias="",
            ),
            "inputs",
        ),
        # reshaped, not transposed: the right shape, scrambled numbers
        (
            _dense(weight="torch.tensor(kernel).reshape(kernel.shape[::-1])"),
            "transpose",
        ),
        # the bias left at its random start
        (_dense(bias=""), "bias differs"),
        # no bias at all
        (_dense(opt=", bias=False", bias=""), "has a bias"),
        # float32 whatever the arrays hold
        (
            "def answer(kernel, bias):\n"
            "    layer = nn.Linear(*kernel.shape)\n"
            "    with torch.no_grad():\n"
            "        layer.weight.copy_(torch.tensor(kernel).T)\n"
            "        layer.bias.copy_(torch.tensor(bias))\n"
            "    return layer\n",
            "dtype",
        ),
        # frozen, as after a Keras layer.trainable = False
        (_dense(after=".requires_grad_(False)"), "trainable"),
        # shares the arrays' memory
        (
            "def answer(kernel, bias):\n"
            "    layer = nn.Linear(*kernel.shape)\n"
            "    layer.weight = nn.Parameter(torch.from_numpy(kernel).T)\n"
            "    layer.bias = nn.Parameter(torch.from_numpy(bias))\n"
            "    return layer\n",
            "shares",
        ),
        # a function, not a layer
        (
            "lambda kernel, bias: lambda x: x @ torch.from_numpy(kernel)"
            " + torch.from_numpy(bias)",
            "nn.Linear",
        ),
        # Keras's Dense(units) call: PyTorch needs both sizes
        ("lambda kernel, bias: nn.Linear(kernel.shape[1])", "failed"),
        # the weight replaced, the bias left float32
        (
            "def answer(kernel, bias):\n"
            "    layer = nn.Linear(*kernel.shape)\n"
            "    layer.weight = nn.Parameter(torch.tensor(kernel.T))\n"
            "    layer.bias = nn.Parameter(torch.tensor(bias, "
            "dtype=torch.float32))\n"
            "    return layer\n",
            "the bias",
        ),
        # a plain tensor, not a parameter: no optimizer sees it
        (
            "def answer(kernel, bias):\n"
            "    dtype = torch.from_numpy(kernel).dtype\n"
            "    layer = nn.Linear(*kernel.shape, dtype=dtype)\n"
            "    del layer.weight\n"
            "    layer.weight = torch.tensor(kernel.T, requires_grad=True)\n"
            "    with torch.no_grad():\n"
            "        layer.bias.copy_(torch.tensor(bias))\n"
            "    return layer\n",
            "nn.Parameter",
        ),
    ],
    (_K11, "check_exercise_2"): [
        # Keras's number copied
        (
            _BN + "nn.BatchNorm2d(channels, eps=epsilon, momentum=momentum)",
            "momentum",
        ),
        # PyTorch's default momentum, whatever Keras said
        (_BN + "nn.BatchNorm2d(channels, eps=epsilon)", "momentum"),
        # a cumulative average instead of a moving one
        (
            _BN + "nn.BatchNorm2d(channels, eps=epsilon, momentum=None)",
            "momentum",
        ),
        # PyTorch's default epsilon
        (_BN + "nn.BatchNorm2d(channels, momentum=1 - momentum)", "epsilon"),
        # positional arguments in Keras's order: eps comes first in PyTorch
        (_BN + "nn.BatchNorm2d(channels, 1 - momentum, epsilon)", "momentum"),
        # no learned scale and shift
        (
            _BN
            + "nn.BatchNorm2d(channels, epsilon, 1 - momentum, affine=False)",
            "learnable",
        ),
        # no running statistics
        (
            _BN + "nn.BatchNorm2d(channels, epsilon, 1 - momentum, "
            "track_running_stats=False)",
            "running statistics",
        ),
        # the layer for (N, C) features
        (
            _BN + "nn.BatchNorm1d(channels, epsilon, 1 - momentum)",
            "(N, C, H, W)",
        ),
        # per-image statistics: the running mean matches, outputs do not
        (
            _BN + "nn.InstanceNorm2d(channels, epsilon, 1 - momentum, "
            "affine=True, track_running_stats=True)",
            "over the batch",
        ),
    ],
    (_K11, "check_exercise_3"): [
        # channels last into Conv2d
        (_predict(images="images"), "(N, H, W, C)"),
        # reshaped, not permuted
        (
            _predict(
                images="images.reshape(images.shape[0], "
                "images.shape[3], images.shape[1], images.shape[2])"
            ),
            "permute",
        ),
        # H and W swapped
        (_predict(images="images.permute(0, 3, 2, 1)"), "permute"),
        # batch statistics while predicting
        (_predict(mode=""), "evaluation mode"),
        # autograd records the forward pass
        (_predict(context="torch.enable_grad()"), "torch.no_grad"),
        # left in evaluation mode
        (_predict(restore=""), "as found"),
        # always back to training mode
        (_predict(restore="    model.train()\n"), "as found"),
        # logits, as a Keras model without softmax would return
        (_predict(result="logits"), "probabilities"),
        # softmax over the batch
        (_predict(result="logits.softmax(dim=0)"), "probabilities"),
        # float32 whatever the images were
        (_predict(result="logits.float().softmax(dim=1)"), "float64"),
        # autograd switched off for the caller too
        (
            _predict(
                mode="    model.eval()\n    torch.set_grad_enabled(False)\n",
                context="contextlib.nullcontext()",
            ).replace("def answer", "import contextlib\n\ndef answer"),
            "switched off",
        ),
        # a NumPy array, as Keras's predict returns
        (_predict(result="logits.softmax(dim=1).numpy()"), "ndarray"),
        # a forward pass in training mode first
        (
            _predict(
                mode="    model(images.permute(0, 3, 1, 2))\n"
                "    model.eval()\n"
            ),
            "training mode",
        ),
    ],
}

VARIANTS |= {
    (_K11, "check_exercise_1"): [
        "def answer(kernel, bias):\n"
        "    dtype = torch.from_numpy(kernel).dtype\n"
        "    layer = nn.Linear(*kernel.shape).to(dtype)\n"
        "    layer.load_state_dict({\n"
        "        'weight': torch.from_numpy(kernel.T.copy()),\n"
        "        'bias': torch.from_numpy(bias.copy()),\n"
        "    })\n"
        "    return layer\n",
    ],
    (_K11, "check_exercise_2"): [
        _BN + "nn.BatchNorm2d(channels, epsilon, 1 - momentum)",
        _BN + "nn.LazyBatchNorm2d(eps=epsilon, momentum=1 - momentum)",
        _BN + "nn.BatchNorm2d(channels, eps=epsilon, momentum=1 - momentum)"
        ".train()",
    ],
    (_K11, "check_exercise_3"): [
        _predict(context="torch.inference_mode()"),
        _predict(images="images.movedim(-1, 1)"),
    ],
}
