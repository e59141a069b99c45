"""Plausible wrong answers and correct variants: the data lessons.

See tests/exercise_mistakes.py for the format.
"""


def _squares(getitem, init="self.n = n", length="self.n", name="__getitem__"):
    """A Squares class whose __getitem__ body is ``getitem``."""
    return (
        "class answer(Dataset):\n"
        f"    def __init__(self, n):\n        {init}\n"
        f"    def __len__(self):\n        return {length}\n"
        f"    def {name}(self, i):\n"
        + "".join(f"        {line}\n" for line in getitem.split(";"))
    )


_BOUND = "if i >= self.n: raise IndexError(i)"
_OK = f"{_BOUND};x = torch.tensor([float(i)]);return x, x**2"


def _loss(body, *, mode="model.eval()", restore="model.train(was)"):
    """An average_loss whose loop body is ``body``."""
    return (
        "def answer(model, loader, loss_fn):\n"
        "    was = model.training\n"
        f"    {mode}\n"
        "    total, count, means = 0.0, 0, []\n"
        "    with torch.no_grad():\n"
        "        for xb, yb in loader:\n"
        "            loss = loss_fn(model(xb), yb)\n"
        f"            {body}\n"
        f"    {restore}\n"
        "    return result\n"
    )


MISTAKES = {
    ("data/01_datasets_dataloaders", "check_exercise_1"): [
        ("(6, 8, 6)", "number of batches"),
        ("(7, 2, 7)", "drop_last"),
        ("(7, 6, 6)", "last batch"),
        ("(6, 2, 6)", "number of batches"),
        ("(7, 8, 6)", "last batch"),
        ("(7, 2, 5)", "drop_last"),
        ("(7, 2)", "three whole numbers"),
        ("'7, 2, 6'", "three whole numbers"),
        ("(7, '2', 6)", "three whole numbers"),
        ("(7, 2, [6])", "three whole numbers"),
    ],
    ("data/01_datasets_dataloaders", "check_exercise_2"): [
        # the method's name misspelt: Dataset's own __getitem__ raises
        (_squares(_OK, name="__get_item__"), "__getitem__"),
        # plain Python numbers, not tensors
        (_squares(f"{_BOUND};return float(i), float(i**2)"), "tensor"),
        # 0-d tensors: batches of shape (4,), not (4, 1)
        (
            _squares(f"{_BOUND};x = torch.tensor(float(i));return x, x**2"),
            "shape (1,)",
        ),
        # int64: torch.tensor of a Python int
        (
            _squares(f"{_BOUND};x = torch.tensor([i]);return x, x**2"),
            "float32",
        ),
        # float64: NumPy's default float
        (
            _squares(
                f"{_BOUND};x = torch.from_numpy(np.array([float(i)]))"
                ";return x, x**2"
            ),
            "float32",
        ),
        # the solution of an earlier round: a for loop never stops
        (
            _squares("x = torch.tensor([float(i)]);return x, x**2"),
            "IndexError",
        ),
        # off by one: index n is let through
        (
            _squares(
                "if i > self.n: raise IndexError(i)"
                ";x = torch.tensor([float(i)]);return x, x**2"
            ),
            "IndexError",
        ),
        # StopIteration instead of IndexError
        (
            _squares(
                "if i >= self.n: raise StopIteration"
                ";x = torch.tensor([float(i)]);return x, x**2"
            ),
            "raise IndexError",
        ),
        # __len__ hard-coded to the visible example's 10
        (_squares(_OK, length="10"), "samples"),
        # __len__ one short
        (_squares(_OK, length="self.n - 1"), "samples"),
        # 2 * i instead of i ** 2
        (
            _squares(f"{_BOUND};x = torch.tensor([float(i)]);return x, 2 * x"),
            "hold",
        ),
        # a dict, not a pair
        (
            _squares(
                f"{_BOUND};x = torch.tensor([float(i)])"
                ";return {'x': x, 'y': x**2}"
            ),
            "pair",
        ),
        # __len__ left as the starter's ...
        (_squares(_OK, length="..."), "__len__ still returns"),
        # a float length
        (_squares(_OK, length="self.n / 1"), "int"),
    ],
    ("data/01_datasets_dataloaders", "check_exercise_3"): [
        # model.eval() without torch.no_grad()
        (
            "def answer(model, loader, loss_fn):\n"
            "    was = model.training\n"
            "    model.eval()\n"
            "    total = sum(loss_fn(model(xb), yb).item() * len(xb)"
            " for xb, yb in loader)\n"
            "    model.train(was)\n"
            "    return total / len(loader.dataset)\n",
            "torch.no_grad()",
        ),
        # no model.eval(): dropout stays on
        (
            _loss(
                "total += loss.item() * len(xb); count += len(xb)"
                "; result = total / count",
                mode="pass",
            ),
            "model.eval()",
        ),
        # the mean of the batch means
        (
            _loss(
                "means.append(loss.item()); result = sum(means) / len(means)"
            ),
            "mean of the batch means",
        ),
        # as a tensor, then .item(): still the mean of the batch means
        (
            _loss(
                "means.append(loss); result = torch.stack(means).mean().item()"
            ),
            "mean of the batch means",
        ),
        # weighted by size but divided by the number of batches
        (
            _loss(
                "total += loss.item() * len(xb); count += 1"
                "; result = total / count"
            ),
            "number of batches",
        ),
        # the weighted sum, never divided
        (
            _loss("total += loss.item() * len(xb); result = total"),
            "divide it by the number of samples",
        ),
        # weighted by loader.batch_size
        (
            _loss(
                "total += loss.item() * loader.batch_size"
                "; result = total / len(loader.dataset)"
            ),
            "len(xb)",
        ),
        # a tensor returned, not a float
        (
            _loss(
                "total += loss * len(xb); count += len(xb)"
                "; result = total / count"
            ),
            ".item()",
        ),
        # the mode not restored: the caller's training mode lost
        (
            _loss(
                "total += loss.item() * len(xb); count += len(xb)"
                "; result = total / count",
                restore="pass",
            ),
            "restore",
        ),
        # model.train() at the end, whatever the mode was
        (
            _loss(
                "total += loss.item() * len(xb); count += len(xb)"
                "; result = total / count",
                restore="model.train()",
            ),
            "evaluation mode before",
        ),
        # requires_grad_(False) instead of torch.no_grad()
        (
            "def answer(model, loader, loss_fn):\n"
            "    was = model.training\n"
            "    model.eval().requires_grad_(False)\n"
            "    with torch.no_grad():\n"
            "        total = sum(loss_fn(model(xb), yb).item() * len(xb)"
            " for xb, yb in loader)\n"
            "    model.train(was)\n"
            "    return total / len(loader.dataset)\n",
            "require gradients",
        ),
        # divided by batches times batch_size
        (
            _loss(
                "total += loss.item() * len(xb)"
                "; result = total / (len(loader) * loader.batch_size)"
            ),
            "len(loader.dataset)",
        ),
        # the first batch only
        (
            _loss("result = loss.item(); break"),
            "first batch",
        ),
        # grad mode switched off for good, not inside a with block
        (
            "def answer(model, loader, loss_fn):\n"
            "    was = model.training\n"
            "    model.eval()\n"
            "    torch.set_grad_enabled(False)\n"
            "    total = sum(loss_fn(model(xb), yb).item() * len(xb)"
            " for xb, yb in loader)\n"
            "    model.train(was)\n"
            "    return total / len(loader.dataset)\n",
            "left off",
        ),
        # nn.MSELoss() hard-coded instead of loss_fn
        (
            "def answer(model, loader, loss_fn):\n"
            "    was = model.training\n"
            "    model.eval()\n"
            "    with torch.no_grad():\n"
            "        total = sum(nn.MSELoss()(model(xb), yb).item() * len(xb)"
            " for xb, yb in loader)\n"
            "    model.train(was)\n"
            "    return total / len(loader.dataset)\n",
            "expected",
        ),
    ],
}

VARIANTS: dict[tuple[str, str], list[str]] = {
    ("data/01_datasets_dataloaders", "check_exercise_1"): [
        "[7, 2, 6]",
        "(np.int64(7), 2.0, torch.tensor(6))",
        "(math.ceil(50 / 8), 50 % 8, 50 // 8)",
    ],
    ("data/01_datasets_dataloaders", "check_exercise_2"): [
        _squares(
            "if not 0 <= i < len(self): raise IndexError(i)"
            ";return torch.full((1,), float(i)), torch.full((1,), float(i*i))"
        ),
        _squares(
            "x = torch.arange(self.n, dtype=torch.float32)[i].view(1)"
            ";return x, x * x"
        ),
        # range() raises IndexError itself
        _squares(
            "i = range(self.n)[i];x = torch.tensor([i], dtype=torch.float32)"
            ";return x, x.pow(2)"
        ),
    ],
    ("data/01_datasets_dataloaders", "check_exercise_3"): [
        # inference_mode instead of no_grad, the model's own dataset at once
        "def answer(model, loader, loss_fn):\n"
        "    was = model.training\n"
        "    model.eval()\n"
        "    with torch.inference_mode():\n"
        "        losses = [loss_fn(model(xb), yb) * len(xb)"
        " for xb, yb in loader]\n"
        "    model.train(was)\n"
        "    mean = torch.stack(losses).sum() / len(loader.dataset)\n"
        "    return mean.item()\n",
        # a decorator, and a try/finally that restores the mode
        "@torch.no_grad()\n"
        "def answer(model, loader, loss_fn):\n"
        "    was = model.training\n"
        "    model.eval()\n"
        "    try:\n"
        "        pairs = [(loss_fn(model(xb), yb).item(), len(xb))"
        " for xb, yb in loader]\n"
        "    finally:\n"
        "        model.train(was)\n"
        "    return sum(l * n for l, n in pairs) / sum(n for _, n in pairs)\n",
    ],
}
