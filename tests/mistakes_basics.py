"""Plausible wrong answers and correct variants: the basics lessons.

See tests/exercise_mistakes.py for the format.
"""

MISTAKES = {
    ('basics/01_tensors', 'check_exercise_1'): [
        ('((3, 4), (2, 1, 2), (4, 6))', None),
        ('((1, 3, 4), (2, 2), (4, 6))', None),
        ('((3, 4), (2, 2), (6, 4))', None),
    ],
    ('basics/01_tensors', 'check_exercise_2'): [
        ('lambda x: x.clamp(min=0)', None),
        ('lambda x: x[x >= 0]', None),
        ('lambda x: x.clamp_(max=0)', None),
    ],
    ('basics/01_tensors', 'check_exercise_3'): [
        ('lambda t: t.numpy()', None),
        ('lambda t: np.array(t.tolist())', None),
    ],
    ('basics/02_numpy_warmup', 'check_exercise_1'): [
        ('lambda w, x, y: (np.sum((x @ w - y) ** 2), x.T @ (x @ w - y))', None),
        ('lambda w, x, y: (np.sum((x @ w - y) ** 2), 2 * (x @ w - y).T @ x)', None),
        ('lambda w, x, y: (np.sum(x @ w - y) ** 2, 2 * x.T @ (x @ w - y))', None),
    ],
    ('basics/02_numpy_warmup', 'check_exercise_2'): [
        ('lambda f, w, eps: np.array([(f(w + eps * e) - f(w - eps * e)) / eps for e in np.eye(w.size).reshape(-1, *w.shape)]).reshape(w.shape)', None),
        ('lambda f, w, eps: np.array([(f(w + eps * e) - f(w)) / eps for e in np.eye(w.size).reshape(-1, *w.shape)]).reshape(w.shape)', None),
    ],
    ('basics/03_tensor_backprop', 'check_exercise_1'): [
        ('lambda array, device: torch.from_numpy(array).to(device)', None),
        ('lambda array, device: torch.as_tensor(array, device=device)', None),
        ('lambda array, device: torch.from_numpy(array).float().to(device)', None),
    ],
    ('basics/03_tensor_backprop', 'check_exercise_2'): [
        ('lambda x, y, w1, w2: (x.T @ ((2 * ((x @ w1).clamp(min=0) @ w2 - y)) @ w2.T), (x @ w1).clamp(min=0).T @ (2 * ((x @ w1).clamp(min=0) @ w2 - y)))', None),
        ('lambda x, y, w1, w2: (x.T @ ((((x @ w1).clamp(min=0) @ w2 - y) @ w2.T) * (x @ w1 > 0)), (x @ w1).clamp(min=0).T @ ((x @ w1).clamp(min=0) @ w2 - y))', None),
        ('lambda x, y, w1, w2: tuple(g.numpy() for g in (x.T @ ((2 * ((x @ w1).clamp(min=0) @ w2 - y) @ w2.T) * (x @ w1 > 0)), (x @ w1).clamp(min=0).T @ (2 * ((x @ w1).clamp(min=0) @ w2 - y))))', None),
    ],
    ('basics/04_autograd', 'check_exercise_1'): [
        ('[3.0, 12.0]', None),
        ('[6.0, -12.0]', None),
    ],
    ('basics/04_autograd', 'check_exercise_2'): [
        ('lambda f, x: f(x)', None),
        ('lambda f, x: (f(x + 1e-4) - f(x)) / 1e-4', None),
        ('lambda f, x: (x.requires_grad_(), torch.autograd.grad(f(x).sum(), x)[0])[1]', None),
    ],
    ('basics/04_autograd', 'check_exercise_3'): [
        ('lambda w, x, y, lr: ((x @ w - y).pow(2).sum().backward(), w.detach().sub_(lr * w.grad))', None),
        ('lambda w, x, y, lr: ((x @ w - y).pow(2).sum().backward(), w.detach() - lr * w.grad)', None),
        ('lambda w, x, y, lr: ((x @ w - y).pow(2).sum().backward(), w.grad.zero_(), w.detach().sub_(lr * w.grad))', None),
    ],
}

VARIANTS: dict[tuple[str, str], list[str]] = {}
