"""
Which language is this word?
============================

Shown "vlinder" or "perhonen", a reader who knows a few languages can often
name the language from the spelling alone. We train networks to do that on
real words of ten languages, read one character at a time: a GRU and an
LSTM, measured against a simple baseline.

**You will learn** to turn words into tensors (a character vocabulary,
``pad_sequence``, ``nn.Embedding``), to keep a recurrent network out of the
padding with ``pack_padded_sequence``, to compare ``nn.GRU`` with
``nn.LSTM``, and to measure honestly: a baseline, choices made on
validation data, the test set read once.

**You need first** :ref:`sphx_glr_lessons_nn_06_rnn_from_scratch.py`
(recurrent networks), :ref:`sphx_glr_lessons_advanced_01_lstm.py` (LSTM
states) and :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py` (the
training loop).
"""

# %%
# Setup
# -----
# One seed fixes the data split, the initial weights and the batch order.
# On an Apple GPU (MPS) the lesson runs on the CPU ("Going deeper" says
# why).
import torch

torch.manual_seed(0)
device = torch.accelerator.current_accelerator(check_available=True)
if device is None or device.type == "mps":  # none, or an Apple GPU
    device = torch.device("cpu")
print(f"Running on: {device.type}")
# sphinx_gallery_tags = ["intermediate", "sequences", "real data", "text"]

# %%
# Real words, offline
# -------------------
# The `wordfreq <https://github.com/rspeer/wordfreq>`_ package ships
# frequency-ranked word lists inside the package: nothing is downloaded.
# Its code is under the Apache-2.0 license; its lists, built from public
# text (Wikipedia, subtitles, news, books, the web, social media), under
# `CC BY-SA 4.0
# <https://creativecommons.org/licenses/by-sa/4.0/>`_. We take the 3,000
# most frequent words of ten languages written in the Latin alphabet (so
# the task is spelling, not script), keeping words made only of letters
# (``str.isalpha``: "º" counts too).
import wordfreq

LANGUAGES = dict(en="English", de="German", nl="Dutch", sv="Swedish",
                 fr="French", es="Spanish", it="Italian", pt="Portuguese",
                 pl="Polish", fi="Finnish")  # fmt: skip
NAMES = list(LANGUAGES.values())
ranked = {}
for code, name in LANGUAGES.items():
    ranked[code] = [w for w in wordfreq.top_n_list(code, 3000) if w.isalpha()]
    print(f"{name:>10}: {' '.join(ranked[code][:9])} ...")

# %%
# Some words ("de", "in", "a") are in several lists. No spelling can tell
# their language, and counting any of their languages as right would need
# another loss and another score: we drop every word in two or more lists.
from collections import Counter

n_lists = Counter(word for words in ranked.values() for word in words)
kept = [(w, k) for k, ws in enumerate(ranked.values()) for w in ws]
kept = [(word, k) for word, k in kept if n_lists[word] == 1]
words, labels = [w for w, _ in kept], torch.tensor([k for _, k in kept])
print(f"dropped {sum(n > 1 for n in n_lists.values())} shared words")
print(f"kept {len(words)}, per language: {labels.bincount().tolist()}")
# sphinx_gallery_start_ignore
assert len(set(words)) == len(words), "each word has one language"
assert n_lists["de"] >= 4 and "de" not in words
assert set(labels.bincount().argsort()[:2].tolist()) == {5, 7}  # es, pt
assert 0.115 < labels.bincount().max() / len(labels) < 0.125
# sphinx_gallery_end_ignore

# %%
# Spanish and Portuguese, which share many words, lose the most. Always
# guessing the largest language would be right 12 % of the time.
#
# Split first
# -----------
# First we split the words: 80 % to train, 10 % for validation (to make
# choices with), 10 % for the test, read once at the end. Whatever is
# built from data, the vocabulary included, comes from the training words
# only.
order = torch.randperm(len(words))
n = len(words) // 10
parts = {"val": order[:n], "test": order[n : 2 * n], "train": order[2 * n :]}

# %%
# From strings to tensors
# -----------------------
# Each character seen in training gets an index from 2 up; index 1 stands
# for any other character ("unknown"), index 0 is padding (below).
PAD, UNKNOWN = 0, 1
alphabet = sorted(set("".join(words[i] for i in parts["train"])))
char_index = {char: i for i, char in enumerate(alphabet, start=2)}
n_chars = len(alphabet) + 2


def encode(word):
    return torch.tensor([char_index.get(char, UNKNOWN) for char in word])


print(f"{len(alphabet)} characters: {''.join(alphabet)}")
print(f"fjäril -> {encode('fjäril').tolist()}, ø -> {encode('ø').tolist()}")

# %%
# The Danish "ø" is in none of the training words: it maps to "unknown".
#
# A batch is one rectangular tensor, but words differ in length.
# ``pad_sequence`` stacks 1-D tensors into ``(batch, longest)``, filling
# with the padding index. ``nn.Embedding`` turns each index into a learned
# vector, its row of a ``(n_chars, dim)`` table (as a one-hot vector times
# the table would); ``padding_idx`` keeps the padding row zero.
from torch import nn
from torch.nn.utils.rnn import pad_sequence

example = ["ja", "nein", "vielleicht"]
padded = pad_sequence([encode(w) for w in example], batch_first=True)
embed = nn.Embedding(n_chars, 8, padding_idx=PAD)
print(padded)
print(f"{tuple(padded.shape)} indices -> {tuple(embed(padded).shape)} values")
# sphinx_gallery_start_ignore
torch.testing.assert_close(
    nn.functional.one_hot(padded, n_chars).float() @ embed.weight,
    embed(padded),
)
assert embed(padded)[0, 2:].abs().sum() == 0, "padding embeds to zeros"
# sphinx_gallery_end_ignore

# %%
# Padding, and why a recurrent network must not read it
# -----------------------------------------------------
# A recurrent network's final state ``h_n`` sums up what it read. In the
# padded batch "ja" is followed by eight padding steps, and the network
# reads those too. ``pack_padded_sequence`` takes the true lengths and keeps
# only the real steps (``enforce_sorted=False``: in any order). The final
# state of "ja" in a fresh GRU, read alone, padded and packed:
from torch.nn.utils.rnn import pack_padded_sequence

gru = nn.GRU(8, 16, batch_first=True)
packed = pack_padded_sequence(
    embed(padded), [2, 4, 10], batch_first=True, enforce_sorted=False
)
with torch.no_grad():
    h_alone = gru(embed(encode("ja"))[None])[1][0, 0]
    h_padded, h_packed = gru(embed(padded))[1][0], gru(packed)[1][0]
print(f"padded: off by {(h_padded[0] - h_alone).abs().max():.3f}")
print(f"packed: off by {(h_packed[0] - h_alone).abs().max():.0e}")
# sphinx_gallery_start_ignore
torch.testing.assert_close(h_packed[0], h_alone)
assert (h_padded[0] - h_alone).abs().max() > 1e-2
torch.testing.assert_close(h_padded[2], h_packed[2])  # no padding: equal
# sphinx_gallery_end_ignore

# %%
# Through its padding, "ja" ends in another state than alone; packed, in
# the same state, up to rounding.
#
# A GRU and an LSTM
# -----------------
# The classifier: embedding, packing, the recurrent layer, and a linear
# layer from the final hidden state to ten scores. A GRU carries one state
# ``h`` from step to step and returns ``h_n``; an LSTM carries a hidden
# state ``h`` and a cell state ``c`` (its longer memory) and returns
# ``(h_n, c_n)``. Both classify from ``h_n``.


class WordClassifier(nn.Module):
    def __init__(self, rnn_type, embed_dim=32, hidden_size=128):
        super().__init__()
        self.embed = nn.Embedding(n_chars, embed_dim, padding_idx=PAD)
        self.rnn = rnn_type(embed_dim, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, len(NAMES))

    def forward(self, chars, lengths):
        packed = pack_padded_sequence(
            self.embed(chars), lengths, batch_first=True, enforce_sorted=False
        )
        _, state = self.rnn(packed)
        h_n = state[0] if isinstance(state, tuple) else state  # LSTM: (h, c)
        return self.head(h_n[-1])  # the last (here the only) layer


# %%
# The baseline: pairs of letters
# ------------------------------
# How far does a model get that only counts the pairs of neighbouring
# characters ("ij" is Dutch, "sz" Polish)? With a padding index before and
# after the word, each pair gets a number; ``nn.EmbeddingBag(mode="sum")``
# adds up one learned row of ten scores per pair: a linear model on the
# pair counts. Padding pairs (number 0) are left out; pairs never seen in
# training keep the score 0 they start with.
import torch.nn.functional as F


class LetterPairs(nn.EmbeddingBag):
    def __init__(self):
        super().__init__(n_chars**2, len(NAMES), mode="sum", padding_idx=0)
        nn.init.zeros_(self.weight)

    def forward(self, chars, lengths):  # lengths: not needed
        marked = F.pad(chars, (1, 1))  # a 0 before and after each word
        return super().forward(marked[:, :-1] * n_chars + marked[:, 1:])


# %%
# Each split becomes a padded tensor of indices (padded once; batches are
# rows of it), the lengths (on the CPU, where ``pack_padded_sequence``
# wants them) and the labels.
def to_tensors(idx):
    chars = pad_sequence([encode(words[i]) for i in idx], batch_first=True)
    lengths = torch.tensor([len(words[i]) for i in idx])
    return chars.to(device), lengths, labels[idx].to(device)


data = {part: to_tensors(idx) for part, idx in parts.items()}

# %%
# Training, with validation choosing the epoch
# --------------------------------------------
# The loop of :ref:`sphx_glr_lessons_nn_07_cifar10_classifier.py` on
# shuffled batches of 256 words, with Adam, for 12 epochs. After each
# epoch we measure validation accuracy and keep the weights of the best
# epoch so far: validation decides which epoch's weights we keep.
import time


def predict_part(model, part):
    chars, lengths, _ = data[part]
    model.eval()
    with torch.no_grad():
        return model(chars, lengths).argmax(1)


# %%
# ``train`` returns every epoch's validation accuracy and the seconds it
# took (``.item()`` waits for the device, so the clock reads finished work).
def train(model, epochs=12, batch_size=256, lr=3e-3):
    chars, lengths, targets = data["train"]
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    history, start = [], time.perf_counter()
    for epoch in range(epochs):
        model.train()
        for idx in torch.randperm(len(targets)).split(batch_size):
            scores = model(chars[idx], lengths[idx])
            loss = F.cross_entropy(scores, targets[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        hits = predict_part(model, "val") == data["val"][2]
        history.append(hits.float().mean().item())
        if history[-1] == max(history):
            best = {k: v.clone() for k, v in model.state_dict().items()}
    model.load_state_dict(best)
    return history, time.perf_counter() - start


# %%
# The baseline first, then the two networks, with the same hidden size:
models = {"letter pairs": LetterPairs().to(device)}
for rnn_type in (nn.GRU, nn.LSTM):
    models[rnn_type.__name__] = WordClassifier(rnn_type).to(device)
histories = {}
for name, model in models.items():
    histories[name], seconds = train(model)
    size = sum(p.numel() for p in model.parameters())
    print(f"{name:>12}: {size:>6,} parameters, {seconds:4.1f} s, best "
          f"validation accuracy {max(histories[name]):.1%}")  # fmt: skip
# sphinx_gallery_start_ignore
assert 0.65 < max(histories["letter pairs"]) < 0.75, "seven in ten"
for name in ("GRU", "LSTM"):
    assert max(histories[name]) > max(histories["letter pairs"]) + 0.02
    assert max(histories[name]) == (
        (predict_part(models[name], "val") == data["val"][2]).float().mean()
    ), "the best epoch's weights are back"
assert sum(p.numel() for p in models["LSTM"].rnn.parameters()) * 3 == 4 * sum(
    p.numel() for p in models["GRU"].rnn.parameters()
)
# sphinx_gallery_end_ignore

# %%
# Letter pairs name the language of about seven words in ten; both
# networks do better, reading the whole word in order: longer patterns
# ("sch", "ción") count, and where they occur. Per step a GRU computes three
# weighted sums of input and state (two gates, a candidate state), an LSTM
# four (three gates, a candidate): a third more recurrent weights and work.
# Times vary with the machine and with its load.
#
# The test set, read once
# -----------------------
# Every choice is made: the models, their sizes, each one's best epoch.
# Now, once, the test words:
targets = data["test"][2]
predictions = {name: predict_part(m, "test") for name, m in models.items()}
for name, guess in predictions.items():
    test_accuracy = (guess == targets).float().mean()
    print(f"{name:>12}: test accuracy {test_accuracy:.1%}")
    # sphinx_gallery_start_ignore
    assert abs(test_accuracy - max(histories[name])) < 0.03
    # sphinx_gallery_end_ignore
# sphinx_gallery_start_ignore
assert models["letter pairs"].weight[UNKNOWN * n_chars + UNKNOWN].eq(0).all()
torch.testing.assert_close(  # EmbeddingBag(sum) == pair counts @ weights
    models["letter pairs"](padded.to(device), None),
    nn.functional.one_hot(
        (lambda m: m[:, :-1] * n_chars + m[:, 1:])(
            F.pad(padded.to(device), (1, 1))
        ),
        n_chars**2,
    )[:, :, 1:]
    .sum(1)
    .float()
    @ models["letter pairs"].weight[1:],
)
# sphinx_gallery_end_ignore

# %%
# The test accuracies are close to the validation ones: the choices made on
# validation did not merely fit those words.

# %%
# Going deeper
# ------------
# Optional on a first read.
#
# Words the model has never seen
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# To use one network we keep the one with the better *validation*
# accuracy (choosing by test accuracy would make the test set one more
# validation set). The two are close: one point of accuracy is 23 of the
# 2,297 validation words, too few to call one architecture better at this
# task. ``predict`` runs a word as a batch of one and turns its ten
# scores into probabilities with a softmax. "Butterfly" in our ten
# languages, words that are in none of the lists:
chosen = max(("GRU", "LSTM"), key=lambda name: max(histories[name]))
# sphinx_gallery_start_ignore
assert abs(max(histories["GRU"]) - max(histories["LSTM"])) < 0.02
assert len(parts["val"]) == 2297
# sphinx_gallery_end_ignore


def predict(model, word, k=3):
    model.eval()
    with torch.no_grad():
        scores = model(
            encode(word)[None].to(device), torch.tensor([len(word)])
        )
    top = scores.softmax(1)[0].topk(k)
    guesses = zip(top.values.tolist(), top.indices.tolist())
    return ", ".join(f"{NAMES[i]} {p:.0%}" for p, i in guesses)


butterflies = ["butterfly", "schmetterling", "vlinder", "fjäril", "papillon"]
butterflies += ["mariposa", "farfalla", "borboleta", "motyl", "perhonen"]
wrong = []
for word, language in zip(butterflies, NAMES):  # in the languages' order
    guesses = predict(models[chosen], word)
    if not guesses.startswith(language):
        wrong.append(f"{word} ({language})")
    print(f"{chosen}, {word:>13} ({language}): {guesses}")
print(f"first guess wrong for {len(wrong)} of 10: {', '.join(wrong)}")
# sphinx_gallery_start_ignore
assert not set(butterflies) & set(n_lists), "in none of the lists"
# sphinx_gallery_end_ignore

# %%
# The probabilities say how sure the model is, which is not how often it
# is right: compare a wrong first guess's probability with the right
# ones'. Spelling is evidence, not proof.
#
# Which languages get confused
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The kept network's test predictions (from the one test pass above) as a
# confusion matrix: row = true language, column = predicted language, each
# row as shares of that language's test words.
import matplotlib.pyplot as plt

truth, guess = targets.cpu(), predictions[chosen].cpu()
counts = torch.zeros(len(NAMES), len(NAMES))
counts.index_put_((truth, guess), torch.ones(len(truth)), accumulate=True)
share = counts / counts.sum(1, keepdim=True)
fig, ax = plt.subplots(figsize=(6.5, 5.5))
image = ax.imshow(share.numpy(), cmap="Blues", vmin=0, vmax=1)
for i, j in torch.cartesian_prod(torch.arange(10), torch.arange(10)).tolist():
    color = "white" if share[i, j] > 0.5 else "black"
    ax.text(j, i, f"{share[i, j]:.2f}", ha="center", va="center",
            fontsize=7, color=color)  # fmt: skip
ax.set_xticks(range(len(NAMES)), NAMES, rotation=45, ha="right")
ax.set_yticks(range(len(NAMES)), NAMES)
ax.set(xlabel="predicted language", ylabel="true language")
ax.set_title(f"{chosen} on the test words")
fig.colorbar(image, ax=ax, label="share of the true language's words")
fig.tight_layout()
plt.show()

# %%
# The diagonal holds each language's accuracy. Polish and Finnish, each
# alone in its family here, are named best. Many mistakes are between close
# neighbours: Spanish and Portuguese, or English and French, which share
# many words of the same spelling.
#
# Where the test mistakes come from
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The first wrong test predictions of the kept network, true language
# first, with each word's Zipf frequency in the language the model chose
# (wordfreq's ``zipf_frequency``: 3 is once per million words, 0 never
# seen). A word at 3 or more is an ordinary word of that language too.
codes = list(LANGUAGES)
test_words = [words[i] for i in parts["test"]]
ordinary = 0
for i in (guess != truth).nonzero().squeeze(1)[:12].tolist():
    zipf = wordfreq.zipf_frequency(test_words[i], codes[guess[i]])
    ordinary += zipf >= 3
    print(f"{test_words[i]:>14}: {NAMES[truth[i]]}, read as "
          f"{NAMES[guess[i]]} (Zipf {zipf:.1f} there)")  # fmt: skip
print(f"{ordinary} of 12 are ordinary words of the language chosen")
# sphinx_gallery_start_ignore
assert set(share.diag().topk(2).indices.tolist()) == {8, 9}  # pl, fi
assert share[5, 7] + share[7, 5] > 0.1  # Spanish and Portuguese
assert share[4, 0] + share[0, 4] > 0.1  # French and English
# sphinx_gallery_end_ignore

# %%
# The ordinary words of the chosen language were frequent enough for
# only one top-3,000 list: spelling alone cannot settle them. Any others
# are the model's own errors.
#
# The curves behind "the best epoch"
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Validation accuracy after every epoch, for the three models:
fig, ax = plt.subplots(figsize=(6, 3.5))
for name, history in histories.items():
    ax.plot(range(1, len(history) + 1), history, marker="o", label=name)
ax.set(xlabel="epoch", ylabel="validation accuracy")
ax.set_title("Validation accuracy while training")
ax.legend()
fig.tight_layout()
plt.show()
# sphinx_gallery_start_ignore
for name in ("GRU", "LSTM"):
    assert histories[name][0] < histories["letter pairs"][0]
    assert histories[name].index(max(histories[name])) >= 6
assert (
    max(histories["letter pairs"][-4:]) - histories["letter pairs"][-4] < 0.01
)
# sphinx_gallery_end_ignore

# %%
# Both networks start below the baseline and pass it after a few epochs.
# The baseline levels off; the networks keep gaining slowly, and validation
# picked their weights from a late epoch.
#
# The last real step without packing
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A one-directional network run on the padded batch does pass each word's
# last real character: ``output`` holds the state after every step, so the
# state at step ``length - 1`` is the right summary, and indexing each row
# at its own last step picks it. The network still computes the padding
# steps, and a bidirectional one's backward direction would start in the
# padding, so packing is the general answer.
with torch.no_grad():
    output, _ = gru(embed(padded))  # (3, 10, 16): the state after every step
last = torch.tensor([2, 4, 10]) - 1
h_last = output[torch.arange(3), last]  # row i, step last[i]
print(f"max |state at the last letter - packed h_n| = "
      f"{(h_last - h_packed).abs().max():.0e}")  # fmt: skip
# sphinx_gallery_start_ignore
torch.testing.assert_close(h_last, h_packed)
# sphinx_gallery_end_ignore

# %%
# Packed sequences on an Apple GPU
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# On MPS, PyTorch's backend for Apple GPUs, this lesson picks the CPU. An
# open bug report, `pytorch/pytorch#102911
# <https://github.com/pytorch/pytorch/issues/102911>`_, shows GRUs and
# LSTMs trained on packed sequences there failing in the backward pass
# (``grad_y`` missing) or crashing; a related open report,
# `pytorch/pytorch#94691 <https://github.com/pytorch/pytorch/issues/94691>`_,
# shows a GRU there returning NaN.
# Until it is closed, train packed recurrent networks on the CPU there,
# or check them against a CPU run.

# %%
# .. dropdown:: Coming from older PyTorch code?
#
#    - **One-hot character tensors** built by hand (a ``torch.zeros`` of
#      shape ``(length, 1, n_letters)`` with a 1 per letter) fed to the RNN:
#      ``nn.Embedding`` does the same lookup from an index tensor, without
#      the one-hot vectors, and learns the table.
#    - **Sorting each batch by length** before ``pack_padded_sequence``,
#      then unsorting the results: ``enforce_sorted=False`` (PyTorch 1.1)
#      does both inside, and ``h_n`` comes back in the batch's order.
#    - **Lengths moved to the GPU** (``lengths.cuda()``): the lengths must
#      be a list or a CPU tensor; keep them on the CPU.
#    - **torchtext** (``Field``, ``BucketIterator``, ``build_vocab``): its
#      development stopped with release 0.18 (April 2024). A dictionary from
#      characters to indices and ``pad_sequence`` do this lesson's share.
#    - **The last step of a padded batch**, ``output[:, -1]``, as each
#      sequence's summary: it is the state after the padding; use ``h_n`` of
#      a packed run.

# %%
# Takeaways
# ---------
# - Split the data before building anything from it; the vocabulary comes
#   from the training words, with an index for characters it lacks.
# - ``pad_sequence`` makes a rectangular batch, ``nn.Embedding`` turns
#   indices into learned vectors, and ``pack_padded_sequence`` (true
#   lengths, on the CPU) keeps the recurrent network out of the padding.
# - A GRU carries one state, an LSTM two (``h`` and ``c``); at the same
#   hidden size the LSTM has a third more recurrent weights.
# - Measure a baseline first, make choices on validation data (here: the
#   epoch and the kept network), and read the test set once.
#
# Next, :ref:`sphx_glr_lessons_advanced_09_cifar10_fast_cpu.py` measures
# where training time goes on a CPU and how to spend it.

# %%
# Exercises
# ---------
# Two exercises on the core's two steps, from words to a batch and from a
# batch to one state per word, on small made-up inputs so each runs at
# once. Each cell ends with a check: run it after your attempt and it says
# whether you are right. Solutions are at the end.
#
# **Exercise 1: words to a batch.** Write ``to_batch(words, char_index)``,
# which returns a pair ``(chars, lengths)``: ``chars`` an ``int64`` tensor
# with one row per word, in the order given, holding each character's
# index from ``char_index``, 1 (``UNKNOWN``) for a character it lacks, and
# 0 (``PAD``) after the word's end up to the longest word; ``lengths`` the
# words' lengths as an ``int64`` tensor on the CPU.


def check_exercise_1(fn):
    """Exercise 1's check: run it on your attempt."""
    index = {"a": 2, "b": 3, "e": 4, "r": 5, "t": 6, "u": 7, "ä": 8}
    words = ["tree", "a", "bäume", "straße"]  # m, s and ß: not in index
    expected = torch.tensor(
        [[6, 5, 4, 4, 0, 0], [2, 0, 0, 0, 0, 0],
         [3, 8, 7, 1, 4, 0], [1, 6, 5, 2, 1, 4]]
    )  # fmt: skip
    try:
        out = fn(words, index)
    except KeyError as err:
        raise AssertionError(
            f"looking up a character missing from char_index failed with "
            f"KeyError: {err}; such a character gets 1 (UNKNOWN)"
        ) from None
    if out is ...:
        print("Exercise 1 not attempted yet: replace ... with your code")
        return
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise AssertionError(f"return a pair (chars, lengths), not {out!r}")
    chars, lengths = out
    for name, value in (("chars", chars), ("lengths", lengths)):
        if not isinstance(value, torch.Tensor):
            raise AssertionError(
                f"{name} should be a tensor, not {type(value).__name__}"
            )
    if lengths.dim() == 2 and chars.dim() == 1:
        raise AssertionError("return (chars, lengths), in that order")
    if lengths.device.type != "cpu":
        raise AssertionError(
            f"lengths are on {lengths.device}: pack_padded_sequence wants "
            "them on the CPU"
        )
    if lengths.dtype != torch.int64:
        raise AssertionError(f"lengths should be int64, not {lengths.dtype}")
    if lengths.tolist() == [6, 6, 6, 6]:
        raise AssertionError(
            "lengths should be each word's own length, not the padded one"
        )
    if lengths.tolist() == [6, 5, 4, 1]:
        raise AssertionError(
            "keep the words in the order given: the lengths came back sorted"
        )
    if lengths.tolist() != [4, 1, 5, 6]:
        raise AssertionError(
            f"lengths of {words} should be [4, 1, 5, 6], not "
            f"{lengths.tolist()}"
        )
    if chars.dtype != torch.int64:
        raise AssertionError(
            f"chars should be int64 indices (what nn.Embedding takes), not "
            f"{chars.dtype}"
        )
    if tuple(chars.shape) == (6, 4):
        raise AssertionError(
            "chars has shape (longest, words): put one word per row "
            "(batch_first=True for pad_sequence)"
        )
    if tuple(chars.shape) != (4, 6):
        raise AssertionError(
            f"chars should have shape (4 words, 6 = the longest word), not "
            f"{tuple(chars.shape)}"
        )
    if torch.equal(chars, expected[[3, 2, 0, 1]]):
        raise AssertionError("keep the words in the order given, unsorted")
    pad, unknown = expected == 0, expected == 1
    if chars[pad].eq(1).any():
        raise AssertionError("pad with 0 (PAD) after a word's end, not 1")
    if chars[unknown].eq(0).any():
        raise AssertionError(
            "a character missing from char_index gets 1 (UNKNOWN); 0 is the "
            "padding"
        )
    for word, row, want in zip(words, chars, expected):
        if not torch.equal(row, want):
            raise AssertionError(
                f"the row of {word!r} should be {want.tolist()}, not "
                f"{row.tolist()}"
            )
    chars, lengths = fn(["ba", "b"], {"b": 2})  # another index, other sizes
    if chars.tolist() != [[2, 1], [2, 0]] or lengths.tolist() != [2, 1]:
        raise AssertionError(
            "for ['ba', 'b'] and the index {'b': 2} expected [[2, 1], "
            f"[2, 0]] and [2, 1], got {chars.tolist()} and {lengths.tolist()}"
        )
    print("Exercise 1: correct")


# %%
# Your attempt at exercise 1, then its check:


def to_batch(words, char_index):
    return ...  # replace ... with your code


check_exercise_1(to_batch)

# %%
# **Exercise 2: one state per word.** Write
# ``final_states(rnn, embedded, lengths)``. ``rnn`` is an ``nn.GRU`` or an
# ``nn.LSTM`` made with ``batch_first=True``, maybe of several layers;
# ``embedded`` a padded batch ``(words, longest, features)`` whose words
# come in any order of length; ``lengths`` their true lengths (a CPU
# tensor). Return the last layer's final hidden state of each word, shape
# ``(words, hidden_size)``, in the batch's order, as if each word had been
# run alone. It is used in training: gradients must reach the network. Leave
# ``rnn`` as you found it.


def check_exercise_2(fn):
    """Exercise 2's check: run it on your attempt."""
    for kind, layers in ((torch.nn.GRU, 1), (torch.nn.LSTM, 2)):
        with torch.random.fork_rng(devices=[]):  # your random state stays
            torch.manual_seed(3)
            rnn = kind(5, 7, layers, batch_first=True, dtype=torch.float64)
            steps = torch.randn(6, 4, 5, dtype=torch.float64)
        embedded = steps.transpose(0, 1).requires_grad_()  # not contiguous
        lengths = torch.tensor([3, 6, 1, 4])  # in no order; padding random
        name = f"a {layers}-layer {kind.__name__}"
        try:
            out = fn(rnn, embedded, lengths)
        except (RuntimeError, ValueError, TypeError, IndexError) as err:
            hint = ""
            if "sorted" in str(err):
                hint = " (words come in any order: enforce_sorted=False)"
            raise AssertionError(
                f"with {name}, your function failed with "
                f"{type(err).__name__}: {err}{hint}"
            ) from None
        if out is ...:
            print("Exercise 2 not attempted yet: replace ... with your code")
            return
        if not isinstance(out, torch.Tensor):
            raise AssertionError(f"return a tensor, not {type(out).__name__}")
        if not rnn.training:
            raise AssertionError(
                "the rnn came in training mode and left in eval mode: leave "
                "it as you found it"
            )
        if out.dim() == 3:
            raise AssertionError(
                f"shape {tuple(out.shape)} holds every layer's state: return "
                "the last layer's, shape (words, hidden_size)"
            )
        if tuple(out.shape) != (4, 7):
            raise AssertionError(
                f"with {name} of hidden size 7 and 4 words expected shape "
                f"(4, 7), got {tuple(out.shape)}"
            )
        if out.dtype != torch.float64:
            raise AssertionError(
                f"a float64 network and batch gave {out.dtype}: keep the dtype"
            )
        with torch.no_grad():
            alone, cells, first = [], [], []
            for i, n in enumerate(lengths.tolist()):
                state = rnn(embedded[i : i + 1, :n])[1]
                h, c = state if isinstance(state, tuple) else (state, state)
                alone.append(h[-1, 0])
                cells.append(c[-1, 0])
                first.append(h[0, 0])
            padded = rnn(embedded)[1]
            padded = padded[0] if isinstance(padded, tuple) else padded
        alone, cells, first = map(torch.stack, (alone, cells, first))
        if torch.allclose(out, alone):
            pass
        elif torch.allclose(out, padded[-1]):
            raise AssertionError(
                f"with {name}, the states include the padding steps: pack "
                "the batch with the true lengths"
            )
        elif kind is torch.nn.LSTM and torch.allclose(out, cells):
            raise AssertionError(
                "that is the LSTM's cell state c_n: an LSTM returns "
                "(h_n, c_n); return h_n's last layer"
            )
        elif layers > 1 and torch.allclose(out, first):
            raise AssertionError(
                f"with {name} that is the first layer's state: h_n[-1] is "
                "the last layer's"
            )
        elif torch.allclose(out.sort(0).values, alone.sort(0).values):
            raise AssertionError(
                "right states in the wrong rows: return them in the batch's "
                "order"
            )
        else:
            raise AssertionError(
                f"with {name}, the states differ from each word run alone"
            )
        if not out.requires_grad:
            raise AssertionError(
                "the result carries no gradient: no torch.no_grad() or "
                ".detach() in a function used in training"
            )
        out.sum().backward()
        for p_name, p in rnn.named_parameters():
            if p.grad is None or not p.grad.any():
                raise AssertionError(
                    f"with {name}, no gradient reached {p_name}"
                )
        if lengths.tolist() != [3, 6, 1, 4] or lengths.device.type != "cpu":
            raise AssertionError("leave the lengths as you found them")
    print("Exercise 2: correct")


# %%
# Your attempt at exercise 2, then its check:


def final_states(rnn, embedded, lengths):
    return ...  # replace ... with your code


check_exercise_2(final_states)

# %%
# Solutions
# ---------
# Try each exercise first; open a solution to compare.

# %%


# Solution 1: words to a batch
def to_batch(words, char_index):
    rows = [torch.tensor([char_index.get(ch, UNKNOWN) for ch in word])
            for word in words]  # fmt: skip
    chars = pad_sequence(rows, batch_first=True, padding_value=PAD)
    return chars, torch.tensor([len(w) for w in words])


check_exercise_1(to_batch)

# %%


# Solution 2: one state per word
def final_states(rnn, embedded, lengths):
    packed = pack_padded_sequence(
        embedded, lengths, batch_first=True, enforce_sorted=False
    )
    _, state = rnn(packed)
    h_n = state[0] if isinstance(state, tuple) else state  # LSTM: (h, c)
    return h_n[-1]  # the last layer, rows in the batch's order


check_exercise_2(final_states)
