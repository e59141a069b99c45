"""Plausible wrong answers and correct variants: the basics lessons.

See tests/exercise_mistakes.py for the format.
"""

MISTAKES = {
    ('basics/01_tensors', 'check_exercise_1'): [
        ('((3, 4), (2, 1, 2), (4, 6), (3, 4))', 't[:, 0, 1:3] does not'),
        ('((3, 4), (2,), (4, 6), (3, 4))', 't[:, 0, 1:3] does not'),
        ('((1, 3, 4), (2, 2), (4, 6), (3, 4))', 't[1] does not'),
        ('((3, 4), (2, 2), (6, 4), (3, 4))', 't.view(4, -1) does not'),
        ('((3, 4), (2, 2), (4, 6, 1), (3, 4))', 't.view(4, -1) does not'),
        ('((3, 4), (2, 2), (4, 6), (3, 1))', 't[0, :, :1] - t[1, 0] does'),
        ('((3, 4), (2, 2), (4, 6), (4, 3))', 't[0, :, :1] - t[1, 0] does'),
        ('((3, 4), (2, 2), (4, 6))', 'four shapes'),
        ('("3, 4", "2, 2", "4, 6", "3, 4")', 'tuple of whole numbers'),
        ('(12, 4, 24, 12)', 'tuple of whole numbers'),
        ('((3.0, 4.0), (2, 2), (4, 6), (3, 4))', 'whole numbers'),
    ],
    ('basics/01_tensors', 'check_exercise_2'): [
        ('lambda x: x.clamp(min=0)', 'unchanged'),
        ('lambda x: x[x >= 0]', 'unchanged'),
        ('lambda x: torch.relu(x)', 'unchanged'),
        ('lambda x: x.clamp_(max=0)', 'not negative changed'),
        ('lambda x: x.abs_()', 'did not become 0'),
        ('def answer(x):\n    x[x < -1e-6] = 0\n    return x',
         'did not become 0'),
        ('lambda x: x.clamp_(min=0, max=3)', 'not negative changed'),
        ('def answer(x):\n    x[x < 0] = 0', 'return x itself'),
        ('def answer(x):\n    flat = x.reshape(-1)\n    flat[flat < 0] = 0\n'
         '    return x', 'copy'),
        ('def answer(x):\n    flat = x.contiguous()\n    flat[flat < 0] = 0\n'
         '    return x', 'copy'),
        ('def answer(x):\n    flat = x.view(-1)\n    flat[flat < 0] = 0\n'
         '    return x', 'failed with RuntimeError'),
        ('lambda x: x.clamp_(min=0).float()', 'return x itself'),
        ('def answer(x):\n    for i in range(x.shape[0]):\n'
         '        for j in range(x.shape[1]):\n'
         '            if x[i, j] < 0:\n                x[i, j] = 0\n'
         '    return x', 'failed with IndexError'),
        ('def answer(x):\n    x.data = x.clamp(min=0)\n    return x',
         'new memory'),
    ],
    ('basics/01_tensors', 'check_exercise_3'): [
        ('lambda t: t.numpy()', 'shares'),
        ('lambda t: np.asarray(t)', 'shares'),
        ('lambda t: t.detach().numpy()[:]', 'shares'),
        ('lambda t: np.array(t.tolist())', 'dtype'),
        ('lambda t: np.array(t.tolist(), dtype=np.float32)', 'dtype'),
        ('lambda t: t.float().numpy().copy()', 'dtype'),
        ('lambda t: t.numpy().astype(np.float32)', 'dtype'),
        ('lambda t: t.numpy().flatten()', 'shape'),
        ('lambda t: t.view(-1).numpy().copy()', 'shape'),
        ('lambda t: t.numpy().copy() if t.is_contiguous() else t.numpy()',
         'shares'),
        ('lambda t: t.tolist()', 'NumPy array'),
        ('lambda t: t.clone()', 'NumPy array'),
    ],
    ('basics/02_numpy_warmup', 'check_exercise_1'): [
        ('lambda w, x, y: (np.sum((x @ w - y) ** 2), x.T @ (x @ w - y))',
         'wrong values'),
        ('lambda w, x, y: (np.sum((x @ w - y) ** 2), '
         '2 * x.T @ (x @ w - y) / len(x))', 'wrong values'),
        ('lambda w, x, y: (np.sum((x @ w - y) ** 2), 2 * (x @ w - y).T @ x)',
         'shape'),
        ('lambda w, x, y: (np.sum(x @ w - y) ** 2, 2 * x.T @ (x @ w - y))',
         'the loss should be'),
        ('lambda w, x, y: (np.mean((x @ w - y) ** 2), '
         '2 * x.T @ (x @ w - y) / y.size)', 'mean'),
        ('lambda w, x, y: (np.sum((x @ w - y) ** 2), 2 * x.T @ (y - x @ w))',
         'wrong way'),
        ('lambda w, x, y: (np.sum((x @ w - y) ** 2), 2 * x @ (x @ w - y))',
         'failed with ValueError'),
        ('def answer(w, x, y):\n    y -= x @ w\n'
         '    return np.sum(y**2), -2 * x.T @ y', 'changed y'),
        ('lambda w, x, y: 2 * x.T @ (x @ w - y)', 'two things'),
        ('lambda w, x, y: (np.sum((x @ w - y) ** 2), '
         '(2 * x.T @ (x @ w - y)).tolist())', 'NumPy array'),
        ('lambda w, x, y: (2 * x.T @ (x @ w - y), np.sum((x @ w - y) ** 2))',
         'loss (one number) first'),
        ('lambda w, x, y: (np.sum((x @ w - y) ** 2), '
         '(2 * x.T @ (x @ w - y)).astype(np.float32))', 'float64'),
    ],
    ('basics/02_numpy_warmup', 'check_exercise_2'): [
        ('lambda f, w, eps: np.array([(f(w + eps * e) - f(w - eps * e)) / eps'
         ' for e in np.eye(w.size).reshape(-1, *w.shape)]).reshape(w.shape)',
         'exact gradient'),
        ('lambda f, w, eps: np.array([(f(w + eps * e) - f(w)) / eps'
         ' for e in np.eye(w.size).reshape(-1, *w.shape)]).reshape(w.shape)',
         'exact gradient'),
        ('lambda f, w, eps: np.array([(f(w + eps * e) - f(w - eps * e))'
         ' / (2 * eps) for e in np.eye(w.size).reshape(-1, *w.shape)])',
         'expected shape'),
        ('lambda f, w, eps: (f(w + eps) - f(w - eps)) / (2 * eps)',
         'NumPy array'),
        ('lambda f, w, eps: [(f(w + eps * e) - f(w - eps * e)) / (2 * eps)'
         ' for e in np.eye(w.size).reshape(-1, *w.shape)]', 'NumPy array'),
        ('def answer(f, w, eps):\n    grad = np.zeros_like(w)\n'
         '    for i in np.ndindex(w.shape):\n        w[i] += eps\n'
         '        up = f(w)\n        w[i] -= 2 * eps\n'
         '        grad[i] = (up - f(w)) / (2 * eps)\n    return grad',
         'left w changed'),
        ('def answer(f, w, eps):\n    grad = np.zeros_like(w)\n'
         '    for i in range(w.shape[0]):\n'
         '        for j in range(w.shape[1]):\n'
         '            s = np.zeros_like(w)\n            s[i, j] = eps\n'
         '            grad[i, j] = (f(w + s) - f(w - s)) / (2 * eps)\n'
         '    return grad', 'on a 3-D w'),
        ('def answer(f, w, eps):\n    grad = np.zeros_like(w)\n'
         '    v = w.copy()\n    for i in np.ndindex(w.shape):\n'
         '        v[i] += eps\n        up = f(v)\n'
         '        v[i] -= 2 * eps\n'
         '        grad[i] = (up - f(v)) / (2 * eps)\n    return grad',
         'nudges one entry only'),
        ('def answer(f, w, eps):\n'
         '    grad = np.zeros(w.shape, dtype=np.float32)\n'
         '    for i in np.ndindex(w.shape):\n'
         '        s = np.zeros_like(w)\n        s[i] = eps\n'
         '        grad[i] = (f(w + s) - f(w - s)) / (2 * eps)\n'
         '    return grad', 'float64'),
    ],
    ('basics/03_tensor_backprop', 'check_exercise_1'): [
        ('lambda array, device: torch.from_numpy(array).to(device)',
         'shares its memory'),
        ('lambda array, device: torch.as_tensor(array, device=device)',
         'shares its memory'),
        ('lambda array, device: torch.tensor(array)', 'pass device on'),
        ('lambda array, device: torch.from_numpy(array).clone()',
         'pass device on'),
        ('lambda array, device: torch.from_numpy(array).float().to(device)',
         "keep the array's"),
        ('lambda array, device: torch.tensor(array, dtype=torch.float64, '
         'device=device)', "keep the array's"),
        ('lambda array, device: torch.tensor(array.tolist(), device=device)',
         "keep the array's"),
        ('lambda array, device: torch.tensor(array, device=device).T',
         "keep the array's"),
        ('lambda array, device: torch.zeros(array.shape, dtype=torch.float64,'
         ' device=device)', "hold the array's values"),
        ('lambda array, device: torch.tensor(array, device=device).numpy()',
         'expected a tensor'),
        ('lambda array, device: torch.from_numpy(array).to(device)'
         '.contiguous()', 'shares its memory'),
        ('lambda array, device: array.copy()', 'expected a tensor'),
        ('lambda array, device: torch.tensor(array, device=device, '
         'requires_grad=True)', 'requires gradients'),
    ],
    ('basics/03_tensor_backprop', 'check_exercise_2'): [
        ('lambda x, y, w1, w2: (x.T @ ((2 * ((x @ w1).clamp(min=0) @ w2 - y))'
         ' @ w2.T), (x @ w1).clamp(min=0).T @ (2 * ((x @ w1).clamp(min=0)'
         ' @ w2 - y)))', 'differs from NumPy'),
        ('lambda x, y, w1, w2: (x.T @ ((((x @ w1).clamp(min=0) @ w2 - y)'
         ' @ w2.T) * (x @ w1 > 0)), (x @ w1).clamp(min=0).T @ ((x @ w1)'
         '.clamp(min=0) @ w2 - y))', 'differs from NumPy'),
        ('lambda x, y, w1, w2: tuple(g.numpy() for g in (x.T @ ((2 * ((x @ w1).clamp(min=0) @ w2 - y) @ w2.T) * (x @ w1 > 0)), (x @ w1).clamp(min=0).T @ (2 * ((x @ w1).clamp(min=0) @ w2 - y))))',
         'should be a tensor'),
        ('lambda x, y, w1, w2: tuple(reversed((x.T @ ((2 * ((x @ w1).clamp(min=0) @ w2 - y) @ w2.T) * (x @ w1 > 0)), (x @ w1).clamp(min=0).T @ (2 * ((x @ w1).clamp(min=0) @ w2 - y)))))', 'in that order'),
        ('lambda x, y, w1, w2: tuple(g.float() for g in (x.T @ ((2 * ((x @ w1).clamp(min=0) @ w2 - y) @ w2.T) * (x @ w1 > 0)), (x @ w1).clamp(min=0).T @ (2 * ((x @ w1).clamp(min=0) @ w2 - y))))', 'keep float64'),
        ('lambda x, y, w1, w2: (x.T @ ((2 * ((x @ w1).clamp(min=0) @ w2 - y)'
         ' @ w2) * (x @ w1 > 0)), (x @ w1).clamp(min=0).T @ (2 * ((x @ w1)'
         '.clamp(min=0) @ w2 - y)))', 'failed with RuntimeError'),
        ('def answer(x, y, w1, w2):\n    xn, yn = x.numpy(), y.numpy()\n'
         '    a1, a2 = w1.numpy(), w2.numpy()\n    h = xn @ a1\n'
         '    a = np.maximum(h, 0)\n    d = 2 * (a @ a2 - yn)\n'
         '    return (torch.from_numpy(xn.T @ ((d @ a2.T) * (h > 0))),'
         ' torch.from_numpy(a.T @ d))', 'meta device'),
        ('def answer(x, y, w1, w2):\n    h = x @ w1\n    a = h.clamp(min=0)\n'
         '    d = 2 * (a @ w2 - y)\n'
         '    return (x.T @ ((d @ w2.T) * (h > 0)), a.T @ d)'
         ' if x.device.type == "cpu" else (torch.zeros(w1.shape),'
         ' torch.zeros(w2.shape))', 'meta tensors'),
        ('def answer(x, y, w1, w2):\n    h = x @ w1\n    a = h.clamp_(min=0)\n'
         '    y.sub_(a @ w2).mul_(-2)\n'
         '    return (x.T @ ((y @ w2.T) * (h > 0)), a.T @ y)',
         'changed one of its inputs'),
    ],
    ('basics/04_autograd', 'check_exercise_1'): [
        ('[3.0, 12.0]', 'one of the two backward'),
        ('[6.0, -12.0]', 'one of the two backward'),
        ('[6.0, 12.0]', 'differentiate each sum'),
        ('[0.0, 9.0]', 'differentiate each sum'),
        ('[9.0, 24.0]', 'differentiate each sum'),
        ('[9.0]', 'two numbers'),
        ('"9, 0"', 'two numbers'),
        ('[[9.0, 0.0]]', 'two numbers'),
        ('["9", "0"]', 'two numbers'),
    ],
    ('basics/04_autograd', 'check_exercise_2'): [
        ('lambda f, x: f(x)', 'with autograd'),
        ('lambda f, x: (f(x + 1e-5) - f(x - 1e-5)) / 2e-5', 'with autograd'),
        ('lambda f, x: torch.sin(x) + x * torch.cos(x)', 'with autograd'),
        ('lambda f, x: (x.requires_grad_(), '
         'torch.autograd.grad(f(x).sum(), x)[0])[1]', 'x now requires'),
        ('def answer(f, x):\n    x.requires_grad_()\n    f(x).sum().backward()'
         '\n    x.requires_grad_(False)\n    return x.grad', 'has a .grad'),
        ('def answer(f, x):\n    t = x.detach().requires_grad_()\n'
         '    f(t).sum()\n    return (f(x + 1e-6) - f(x - 1e-6)) / 2e-6',
         'differ from'),
        ('def answer(f, x):\n    t = x.double().requires_grad_()\n'
         '    f(t).sum().backward()\n    return t.grad', 'x now requires'),
        ('def answer(f, x):\n    t = x.detach().double().requires_grad_()\n'
         '    f(t).sum().backward()\n    return t.grad', 'expected a'),
        ('def answer(f, x):\n    t = torch.tensor(x.tolist(), '
         'requires_grad=True)\n    f(t).sum().backward()\n    return t.grad',
         'expected a torch.float64'),
        ('def answer(f, x):\n    t = x.detach().clone().requires_grad_()\n'
         '    return torch.autograd.grad(f(t).mean(), t)[0]', 'differ from'),
        ('def answer(f, x):\n    t = x.detach().clone().requires_grad_()\n'
         '    f(t).sum().backward()\n    return t.grad[:-1]', 'expected a'),
    ],
    ('basics/04_autograd', 'check_exercise_3'): [
        ('def answer(w, x, y, lr):\n    loss = (x @ w - y).pow(2).sum()\n'
         '    loss.backward()\n    with torch.no_grad():\n'
         '        w -= lr * w.grad', 'previous step left'),
        ('def answer(w, x, y, lr):\n    loss = (x @ w - y).pow(2).sum()\n'
         '    loss.backward()\n    w.data -= lr * w.grad.data\n'
         '    w.grad = None', '.data'),
        ('def answer(w, x, y, lr):\n    loss = (x @ w - y).pow(2).sum()\n'
         '    loss.backward()\n    w.data.sub_(lr * w.grad)\n'
         '    w.grad.zero_()', 'behind autograd'),
        ('def answer(w, x, y, lr):\n    loss = (x @ w - y).pow(2).sum()\n'
         '    loss.backward()\n    with torch.no_grad():\n'
         '        w = w - lr * w.grad\n    w.grad = None', 'unchanged'),
        ('def answer(w, x, y, lr):\n    loss = (x @ w - y).pow(2).sum()\n'
         '    loss.backward()\n    w -= lr * w.grad\n    w.grad = None',
         'failed with RuntimeError'),
        ('def answer(w, x, y, lr):\n    w.grad.zero_()\n'
         '    (x @ w - y).pow(2).sum().backward()\n    with torch.no_grad():\n'
         '        w -= lr * w.grad', 'failed with AttributeError'),
        ('def answer(w, x, y, lr):\n    (x @ w - y).pow(2).sum().backward()\n'
         '    torch.set_grad_enabled(False)\n    w -= lr * w.grad\n'
         '    w.grad = None', 'switched off'),
        ('def answer(w, x, y, lr):\n    (x @ w - y).pow(2).sum().backward()\n'
         '    w.requires_grad_(False)\n    w -= lr * w.grad\n'
         '    w.grad = None', 'leaf that requires grad'),
        ('def answer(w, x, y, lr):\n    (x @ w - y).pow(2).mean().backward()\n'
         '    with torch.no_grad():\n        w -= lr * w.grad\n'
         '    w.grad = None', 'after 1 step'),
        ('def answer(w, x, y, lr):\n    (x @ w - y).pow(2).sum().backward()\n'
         '    w.grad = None\n    with torch.no_grad():\n'
         '        w -= lr * w.grad', 'failed with TypeError'),
        ('def answer(w, x, y, lr):\n    (x @ w - y).pow(2).sum().backward()\n'
         '    return w.detach() - lr * w.grad', 'unchanged'),
    ],
}

VARIANTS: dict[tuple[str, str], list[str]] = {
    ('basics/01_tensors', 'check_exercise_1'): [
        '[[3, 4], [2, 2], [4, 6], [3, 4]]',
        '(torch.Size([3, 4]), torch.Size([2, 2]), torch.Size([4, 6]), '
        'torch.Size([3, 4]))',
    ],
    ('basics/01_tensors', 'check_exercise_2'): [
        'lambda x: x.clamp_(min=0)',
        'lambda x: x.relu_()',
        'lambda x: x.mul_(x >= 0)',
        'lambda x: x.copy_(x.clamp(min=0))',
        'lambda x: x.sub_(x.clamp(max=0))',
        'def answer(x):\n    x.masked_fill_(x < 0, 0)\n    return x',
    ],
    ('basics/02_numpy_warmup', 'check_exercise_1'): [
        'lambda w, x, y: (np.sum((x @ w - y) ** 2), 2 * x.T @ (x @ w - y))',
        'lambda w, x, y: [((x @ w - y) ** 2).sum(), '
        '2 * np.einsum("ni,nk->ik", x, x @ w - y)]',
        'lambda w, x, y: (np.linalg.norm(x @ w - y) ** 2, '
        '2 * (x.T @ x @ w - x.T @ y))',
    ],
    ('basics/02_numpy_warmup', 'check_exercise_2'): [
        'def answer(f, w, eps):\n    grad = np.zeros_like(w)\n'
        '    for i in np.ndindex(w.shape):\n        w[i] += eps\n'
        '        up = f(w)\n        w[i] -= 2 * eps\n'
        '        grad[i] = (up - f(w)) / (2 * eps)\n        w[i] += eps\n'
        '    return grad',
        'def answer(f, w, eps):\n    grad = np.empty(w.shape)\n'
        '    for i in np.ndindex(w.shape):\n        old = w[i]\n'
        '        w[i] = old + eps\n        up = f(w)\n'
        '        w[i] = old - eps\n        down = f(w)\n'
        '        w[i] = old\n        grad[i] = (up - down) / (2 * eps)\n'
        '    return grad',
    ],
    ('basics/03_tensor_backprop', 'check_exercise_1'): [
        'lambda array, device: torch.tensor(array, device=device)',
        'lambda array, device: torch.from_numpy(array.copy()).to(device)',
        'lambda array, device: torch.as_tensor(array, device=device).clone()',
        'lambda array, device: torch.from_numpy(array).to(device, copy=True)',
    ],
    ('basics/03_tensor_backprop', 'check_exercise_2'): [
        'def answer(x, y, w1, w2):\n    h = x.mm(w1)\n    a = torch.relu(h)\n'
        '    d = 2.0 * (a.mm(w2) - y)\n'
        '    return x.t().mm(d.mm(w2.t()) * (a > 0)), a.t().mm(d)',
        'def answer(x, y, w1, w2):\n    h = x @ w1\n'
        '    a = torch.where(h > 0, h, 0.0)\n    d = 2 * (a @ w2 - y)\n'
        '    return [x.T @ (d @ w2.T).masked_fill(h <= 0, 0), a.T @ d]',
    ],
    ('basics/04_autograd', 'check_exercise_1'): [
        '[9.0, 0.0]',
        '(9, 0)',
        'torch.tensor([9.0, 0.0])',
    ],
    ('basics/04_autograd', 'check_exercise_2'): [
        'def answer(f, x):\n    t = x.detach().requires_grad_()\n'
        '    return torch.autograd.grad(f(t).sum(), t)[0]',
        'def answer(f, x):\n    t = x.clone().requires_grad_()\n'
        '    f(t).backward(torch.ones_like(t))\n    return t.grad',
        'lambda f, x: torch.func.vmap(torch.func.grad(f))(x)',
        'lambda f, x: torch.autograd.functional.jacobian(f, x).diagonal()',
    ],
    ('basics/04_autograd', 'check_exercise_3'): [
        'def answer(w, x, y, lr):\n    (x @ w - y).pow(2).sum().backward()\n'
        '    with torch.no_grad():\n        w -= lr * w.grad\n'
        '    w.grad.zero_()',
        'def answer(w, x, y, lr):\n    w.grad = None\n'
        '    (x @ w - y).pow(2).sum().backward()\n    with torch.no_grad():\n'
        '        w.sub_(lr * w.grad)',
        'def answer(w, x, y, lr):\n'
        '    (g,) = torch.autograd.grad((x @ w - y).pow(2).sum(), w)\n'
        '    with torch.no_grad():\n        w.add_(g, alpha=-lr)',
        'def answer(w, x, y, lr):\n    opt = torch.optim.SGD([w], lr=lr)\n'
        '    opt.zero_grad()\n    (x @ w - y).pow(2).sum().backward()\n'
        '    opt.step()',
    ],
    ('basics/01_tensors', 'check_exercise_3'): [
        'lambda t: t.clone().numpy()',
        'lambda t: t.numpy().copy()',
        'lambda t: np.array(t.numpy())',
        'lambda t: t.detach().cpu().numpy().copy(order="F")',
    ],
}
