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
import torch

torch.manual_seed(0)
if torch.accelerator.is_available():  # CUDA, MPS or XPU
    device = torch.accelerator.current_accelerator()
else:
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
# the task is spelling, not script), keeping words made only of letters.
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
# shuffled batches of 256 words, with Adam. After each epoch we measure
# validation accuracy and keep the weights of the best epoch so far:
# validation decides how long to train.
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
for word in butterflies:
    print(f"{chosen}, {word:>13}: {predict(models[chosen], word)}")
# sphinx_gallery_start_ignore
assert not set(butterflies) & set(n_lists), "in none of the lists"
# sphinx_gallery_end_ignore

# %%
# In order, the true languages are English, German, Dutch, Swedish, French,
# Spanish, Italian, Portuguese, Polish and Finnish. The probabilities say
# how sure the model is: spelling is evidence, not proof.
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
# first:
test_words = [words[i] for i in parts["test"]]
for i in (guess != truth).nonzero().squeeze(1)[:12].tolist():
    print(f"{test_words[i]:>14}: {NAMES[truth[i]]}, read as {NAMES[guess[i]]}")
# sphinx_gallery_start_ignore
assert set(share.diag().topk(2).indices.tolist()) == {8, 9}  # pl, fi
assert share[5, 7] + share[7, 5] > 0.1  # Spanish and Portuguese
assert share[4, 0] + share[0, 4] > 0.1  # French and English
# sphinx_gallery_end_ignore

# %%
# Many are words that exist in the language the model chose as well, but
# were frequent enough for only one list; others are short or borrowed.
# Spelling alone cannot settle them.
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
