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
