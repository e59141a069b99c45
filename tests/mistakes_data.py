"""Plausible wrong answers and correct variants: the data lessons.

See tests/exercise_mistakes.py for the format.
"""

MISTAKES = {
    ('data/01_datasets_dataloaders', 'check_exercise_1'): [
        ('(6, 8, 6)', None),
        ('(7, 2, 7)', None),
        ('(7, 6, 6)', None),
    ],
    ('data/01_datasets_dataloaders', 'check_exercise_2'): [
        ("type('Squares', (torch.utils.data.Dataset,), {'__init__': lambda self, n: setattr(self, 'n', n), '__len__': lambda self: self.n, '__getitem__': lambda self, i: (i, i**2)})", None),
        ("type('Squares', (torch.utils.data.Dataset,), {'__init__': lambda self, n: setattr(self, 'n', n), '__len__': lambda self: self.n - 1, '__getitem__': lambda self, i: (torch.tensor([float(i)]), torch.tensor([float(i * i)]))})", None),
        ("type('Squares', (torch.utils.data.Dataset,), {'__init__': lambda self, n: setattr(self, 'n', n), '__len__': lambda self: self.n, '__getitem__': lambda self, i: (torch.tensor(float(i)), torch.tensor(float(i * i)))})", None),
    ],
    ('data/01_datasets_dataloaders', 'check_exercise_3'): [
        ('lambda model, loader, loss_fn: sum(loss_fn(model(xb), yb).item() * len(xb) for xb, yb in loader) / len(loader.dataset)', None),
        ('lambda model, loader, loss_fn: (model.eval(), sum(loss_fn(model(xb), yb).item() for xb, yb in loader) / len(loader))[1]', None),
        ('lambda model, loader, loss_fn: (model.eval(), sum(loss_fn(model(xb), yb) * len(xb) for xb, yb in loader) / len(loader.dataset))[1]', None),
    ],
}

VARIANTS: dict[tuple[str, str], list[str]] = {}
