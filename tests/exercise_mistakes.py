"""Plausible wrong answers to the exercise checks (tests/test_exercises.py).

Keys are (lesson, check name); values are Python expressions evaluated where
the lesson's imports are (``torch``, and ``np`` or ``nn`` where the lesson
imports them): a callable for an ``fn`` check, a value for an ``answer``
check. Each check must reject each of them with an AssertionError and a
message.
"""

MISTAKES = {
    ("basics/01_tensors", "check_exercise_1"): [
        "((3, 4), (2, 1, 2), (4, 6))",
        "((1, 3, 4), (2, 2), (4, 6))",
        "((3, 4), (2, 2), (6, 4))",
    ],
    ("basics/01_tensors", "check_exercise_2"): [
        "lambda x: x.clamp(min=0)",
        "lambda x: x[x >= 0]",
        "lambda x: x.clamp_(max=0)",
    ],
    ("basics/01_tensors", "check_exercise_3"): [
        "lambda t: t.numpy()",
        "lambda t: np.array(t.tolist())",
    ],
    ("basics/02_numpy_warmup", "check_exercise_1"): [
        "lambda w, x, y: (np.sum((x @ w - y) ** 2), x.T @ (x @ w - y))",
        "lambda w, x, y: (np.sum((x @ w - y) ** 2), 2 * (x @ w - y).T @ x)",
        "lambda w, x, y: (np.sum(x @ w - y) ** 2, 2 * x.T @ (x @ w - y))",
    ],
    ("basics/02_numpy_warmup", "check_exercise_2"): [
        "lambda f, w, eps: np.array([(f(w + eps * e) - f(w - eps * e)) / eps"
        " for e in np.eye(w.size).reshape(-1, *w.shape)]).reshape(w.shape)",
        "lambda f, w, eps: np.array([(f(w + eps * e) - f(w)) / eps"
        " for e in np.eye(w.size).reshape(-1, *w.shape)]).reshape(w.shape)",
    ],
    ("basics/03_tensor_backprop", "check_exercise_1"): [
        "lambda array, device: torch.from_numpy(array).to(device)",
        "lambda array, device: torch.as_tensor(array, device=device)",
        "lambda array, device: torch.from_numpy(array).float().to(device)",
    ],
    ("basics/03_tensor_backprop", "check_exercise_2"): [
        # forgot the ReLU's mask
        "lambda x, y, w1, w2: ("
        "x.T @ ((2 * ((x @ w1).clamp(min=0) @ w2 - y)) @ w2.T),"
        " (x @ w1).clamp(min=0).T @ (2 * ((x @ w1).clamp(min=0) @ w2 - y)))",
        # forgot the factor 2 of the square
        "lambda x, y, w1, w2: ("
        "x.T @ ((((x @ w1).clamp(min=0) @ w2 - y) @ w2.T) * (x @ w1 > 0)),"
        " (x @ w1).clamp(min=0).T @ ((x @ w1).clamp(min=0) @ w2 - y))",
        # NumPy arrays back, not tensors
        "lambda x, y, w1, w2: tuple(g.numpy() for g in ("
        "x.T @ ((2 * ((x @ w1).clamp(min=0) @ w2 - y) @ w2.T) * (x @ w1 > 0)),"
        " (x @ w1).clamp(min=0).T @ (2 * ((x @ w1).clamp(min=0) @ w2 - y))))",
    ],
    ("basics/04_autograd", "check_exercise_1"): [
        "[3.0, 12.0]",  # only the last backward
        "[6.0, -12.0]",  # only the first backward
    ],
    ("basics/04_autograd", "check_exercise_2"): [
        "lambda f, x: f(x)",
        "lambda f, x: (f(x + 1e-4) - f(x)) / 1e-4",
        # x itself made to require gradients
        "lambda f, x: (x.requires_grad_(), torch.autograd.grad("
        "f(x).sum(), x)[0])[1]",
    ],
    ("basics/04_autograd", "check_exercise_3"): [
        # the broken step: the gradients pile up
        "lambda w, x, y, lr: ((x @ w - y).pow(2).sum().backward(),"
        " w.detach().sub_(lr * w.grad))",
        # a step that rebinds a name and changes nothing
        "lambda w, x, y, lr: ((x @ w - y).pow(2).sum().backward(),"
        " w.detach() - lr * w.grad)",
        # the gradient cleared before it is used
        "lambda w, x, y, lr: ((x @ w - y).pow(2).sum().backward(),"
        " w.grad.zero_(), w.detach().sub_(lr * w.grad))",
    ],
    ("nn/01_nn_package", "check_exercise_1"): [
        "(750, (30, 20))",  # biases forgotten
        "(785, (20, 30))",  # weight taken as (in, out)
    ],
    ("nn/01_nn_package", "check_exercise_2"): [
        # gradients never cleared
        "lambda model, lr: [p.detach().sub_(lr * p.grad)"
        " for p in model.parameters()]",
        # gradients cleared, nothing updated
        "lambda model, lr: model.zero_grad()",
        # a step up the gradient
        "lambda model, lr: ([p.detach().add_(lr * p.grad)"
        " for p in model.parameters()], model.zero_grad())",
    ],
    ("nn/02_optim", "check_exercise_1"): [
        # zero_grad() forgotten
        "lambda model, optimizer, x, y, steps: [("
        "(loss := nn.MSELoss()(model(x), y)).backward(), optimizer.step(),"
        " loss.item())[2] for _ in range(steps)]",
        # step() before backward(): each step uses the previous gradient
        "lambda model, optimizer, x, y, steps: [(optimizer.step(),"
        " optimizer.zero_grad(), (loss := nn.MSELoss()(model(x), y))"
        ".backward(), loss.item())[3] for _ in range(steps)]",
        # the losses returned as tensors
        "lambda model, optimizer, x, y, steps: [(optimizer.zero_grad(),"
        " (loss := nn.MSELoss()(model(x), y)).backward(), optimizer.step(),"
        " loss)[3] for _ in range(steps)]",
    ],
    ("nn/02_optim", "check_exercise_2"): [
        "[0.1, 0.05, 0.05, 0.025, 0.025, 0.0125]",  # off by one
        "[0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125]",  # every step
        "[0.1, 0.1, 0.1, 0.05, 0.05, 0.05]",
    ],
    ("nn/02_optim", "check_exercise_3"): [
        # the model alone
        "lambda checkpoint, model, optimizer, scheduler:"
        " model.load_state_dict(checkpoint['model'])",
        # the scheduler forgotten
        "lambda checkpoint, model, optimizer, scheduler:"
        " (model.load_state_dict(checkpoint['model']),"
        " optimizer.load_state_dict(checkpoint['optimizer']))",
        # the optimizer forgotten
        "lambda checkpoint, model, optimizer, scheduler:"
        " (model.load_state_dict(checkpoint['model']),"
        " scheduler.load_state_dict(checkpoint['scheduler']))",
    ],
    ("nn/03_custom_module", "check_exercise_1"): [
        # the skip forgotten
        "type('SkipNet', (nn.Module,), {"
        "'__init__': lambda self, dim: (nn.Module.__init__(self),"
        " setattr(self, 'linear', nn.Linear(dim, dim)))[0],"
        " 'forward': lambda self, x: torch.relu(self.linear(x))})",
        # the ReLU applied after the sum
        "type('SkipNet', (nn.Module,), {"
        "'__init__': lambda self, dim: (nn.Module.__init__(self),"
        " setattr(self, 'linear', nn.Linear(dim, dim)))[0],"
        " 'forward': lambda self, x: torch.relu(x + self.linear(x))})",
        # the layer kept in a Python list: not registered
        "type('SkipNet', (nn.Module,), {"
        "'__init__': lambda self, dim: (nn.Module.__init__(self),"
        " setattr(self, 'layers', [nn.Linear(dim, dim)]))[0],"
        " 'forward': lambda self, x: x + torch.relu(self.layers[0](x))})",
    ],
    ("nn/03_custom_module", "check_exercise_2"): [
        # the broken version itself
        "type('Heads', (nn.Module,), {"
        "'__init__': lambda self, d_in, n_heads: (nn.Module.__init__(self),"
        " setattr(self, 'heads', [nn.Linear(d_in, 1) for _ in"
        " range(n_heads)]), setattr(self, 'offset', torch.zeros(n_heads)))[0],"
        " 'forward': lambda self, x: torch.cat([h(x) for h in self.heads],"
        " dim=1) + self.offset})",
        # heads registered, offset left a plain tensor
        "type('Heads', (nn.Module,), {"
        "'__init__': lambda self, d_in, n_heads: (nn.Module.__init__(self),"
        " setattr(self, 'heads', nn.ModuleList([nn.Linear(d_in, 1) for _ in"
        " range(n_heads)])), setattr(self, 'offset', torch.zeros(n_heads)))"
        "[0], 'forward': lambda self, x: torch.cat([h(x) for h in"
        " self.heads], dim=1) + self.offset})",
        # offset made a parameter: it would be trained
        "type('Heads', (nn.Module,), {"
        "'__init__': lambda self, d_in, n_heads: (nn.Module.__init__(self),"
        " setattr(self, 'heads', nn.ModuleList([nn.Linear(d_in, 1) for _ in"
        " range(n_heads)])), setattr(self, 'offset',"
        " nn.Parameter(torch.zeros(n_heads))))[0],"
        " 'forward': lambda self, x: torch.cat([h(x) for h in self.heads],"
        " dim=1) + self.offset})",
    ],
    ("nn/03_custom_module", "check_exercise_3"): [
        "(4, 18)",  # as if requires_grad_(False) froze the weight only
        "(3, 30)",
        "(2, 10)",
    ],
    ("data/01_datasets_dataloaders", "check_exercise_1"): [
        "(6, 8, 6)",  # as if the last batch were full
        "(7, 2, 7)",  # as if drop_last changed nothing
        "(7, 6, 6)",
    ],
    ("data/01_datasets_dataloaders", "check_exercise_2"): [
        # plain Python numbers: the loader makes int64 tensors of shape (B,)
        "type('Squares', (torch.utils.data.Dataset,), {"
        "'__init__': lambda self, n: setattr(self, 'n', n),"
        " '__len__': lambda self: self.n,"
        " '__getitem__': lambda self, i: (i, i**2)})",
        # one sample too few
        "type('Squares', (torch.utils.data.Dataset,), {"
        "'__init__': lambda self, n: setattr(self, 'n', n),"
        " '__len__': lambda self: self.n - 1,"
        " '__getitem__': lambda self, i: (torch.tensor([float(i)]),"
        " torch.tensor([float(i * i)]))})",
        # 0-dim tensors: batches of shape (B,), not (B, 1)
        "type('Squares', (torch.utils.data.Dataset,), {"
        "'__init__': lambda self, n: setattr(self, 'n', n),"
        " '__len__': lambda self: self.n,"
        " '__getitem__': lambda self, i: (torch.tensor(float(i)),"
        " torch.tensor(float(i * i)))})",
    ],
    ("data/01_datasets_dataloaders", "check_exercise_3"): [
        # training mode: dropout still on
        "lambda model, loader, loss_fn: sum(loss_fn(model(xb), yb).item()"
        " * len(xb) for xb, yb in loader) / len(loader.dataset)",
        # evaluation mode, but the mean of the batch means
        "lambda model, loader, loss_fn: (model.eval(), sum(loss_fn(model(xb),"
        " yb).item() for xb, yb in loader) / len(loader))[1]",
        # a tensor that still requires gradients, not a number
        "lambda model, loader, loss_fn: (model.eval(), sum(loss_fn(model(xb),"
        " yb) * len(xb) for xb, yb in loader) / len(loader.dataset))[1]",
    ],
    ("nn/05_classic_cnn", "check_exercise_1"): [
        "lambda n, k, p, s: (n + 2 * p - k) // s",  # the + 1 forgotten
        "lambda n, k, p, s: (n + p - k) // s + 1",  # padding on one side
        "lambda n, k, p, s: (n + 2 * p - k) / s + 1",  # no rounding down
        "lambda n, k, p, s: (n + 2 * p - k + 1) // s",
    ],
    ("nn/05_classic_cnn", "check_exercise_2"): [
        "400",  # the 32x32 answer
        "16 * 7 * 7",  # the poolings only
        "4 * 4",  # the channels forgotten
        "16 * 5 * 5 - 4",
    ],
    ("nn/05_classic_cnn", "check_exercise_3"): [
        "(432, 49152)",  # biases forgotten
        "(160, 49168)",  # input channels forgotten
        "(448, 3088)",  # weights of the linear layer added, not multiplied
    ],
    ("nn/07_cifar10_classifier", "check_exercise_1"): [
        # a count, not a fraction
        "lambda logits, labels: (logits.argmax(dim=1) == labels).sum().item()",
        # the scores compared with the labels
        "lambda logits, labels: (logits.max(dim=1).values == labels)"
        ".float().mean().item()",
        # a tensor, not a float
        "lambda logits, labels: (logits.argmax(dim=1) == labels).float()"
        ".mean()",
        # divided by the number of classes
        "lambda logits, labels: (logits.argmax(dim=1) == labels).sum().item()"
        " / logits.shape[1]",
    ],
    ("nn/07_cifar10_classifier", "check_exercise_2"): [
        # training mode: batch statistics and dropout
        "lambda model, images: model(images).argmax(dim=1)",
        # scores, not classes
        "lambda model, images: (model.eval(), model(images))[1]",
        # the maximum over the batch, not over the classes
        "lambda model, images: (model.eval(), model(images).argmax(dim=0))[1]",
    ],
    ("nn/07_cifar10_classifier", "check_exercise_3"): [
        "4608",  # batch normalization forgotten
        "4704",  # a bias counted in the convolution too
        "4640",  # one number per channel in batch normalization
        "4736",  # running mean and variance counted as learned
    ],
}
