"""Plausible wrong answers and correct variants: the nn lessons.

See tests/exercise_mistakes.py for the format.
"""

MISTAKES = {
    ('nn/01_nn_package', 'check_exercise_1'): [
        ('(750, (30, 20))', None),
        ('(785, (20, 30))', None),
    ],
    ('nn/01_nn_package', 'check_exercise_2'): [
        ('lambda model, lr: [p.detach().sub_(lr * p.grad) for p in model.parameters()]', None),
        ('lambda model, lr: model.zero_grad()', None),
        ('lambda model, lr: ([p.detach().add_(lr * p.grad) for p in model.parameters()], model.zero_grad())', None),
    ],
    ('nn/02_optim', 'check_exercise_1'): [
        ('lambda model, optimizer, x, y, steps: [((loss := nn.MSELoss()(model(x), y)).backward(), optimizer.step(), loss.item())[2] for _ in range(steps)]', None),
        ('lambda model, optimizer, x, y, steps: [(optimizer.step(), optimizer.zero_grad(), (loss := nn.MSELoss()(model(x), y)).backward(), loss.item())[3] for _ in range(steps)]', None),
        ('lambda model, optimizer, x, y, steps: [(optimizer.zero_grad(), (loss := nn.MSELoss()(model(x), y)).backward(), optimizer.step(), loss)[3] for _ in range(steps)]', None),
    ],
    ('nn/02_optim', 'check_exercise_2'): [
        ('[0.1, 0.05, 0.05, 0.025, 0.025, 0.0125]', None),
        ('[0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125]', None),
        ('[0.1, 0.1, 0.1, 0.05, 0.05, 0.05]', None),
    ],
    ('nn/02_optim', 'check_exercise_3'): [
        ("lambda checkpoint, model, optimizer, scheduler: model.load_state_dict(checkpoint['model'])", None),
        ("lambda checkpoint, model, optimizer, scheduler: (model.load_state_dict(checkpoint['model']), optimizer.load_state_dict(checkpoint['optimizer']))", None),
        ("lambda checkpoint, model, optimizer, scheduler: (model.load_state_dict(checkpoint['model']), scheduler.load_state_dict(checkpoint['scheduler']))", None),
    ],
    ('nn/03_custom_module', 'check_exercise_1'): [
        ("type('SkipNet', (nn.Module,), {'__init__': lambda self, dim: (nn.Module.__init__(self), setattr(self, 'linear', nn.Linear(dim, dim)))[0], 'forward': lambda self, x: torch.relu(self.linear(x))})", None),
        ("type('SkipNet', (nn.Module,), {'__init__': lambda self, dim: (nn.Module.__init__(self), setattr(self, 'linear', nn.Linear(dim, dim)))[0], 'forward': lambda self, x: torch.relu(x + self.linear(x))})", None),
        ("type('SkipNet', (nn.Module,), {'__init__': lambda self, dim: (nn.Module.__init__(self), setattr(self, 'layers', [nn.Linear(dim, dim)]))[0], 'forward': lambda self, x: x + torch.relu(self.layers[0](x))})", None),
    ],
    ('nn/03_custom_module', 'check_exercise_2'): [
        ("type('Heads', (nn.Module,), {'__init__': lambda self, d_in, n_heads: (nn.Module.__init__(self), setattr(self, 'heads', [nn.Linear(d_in, 1) for _ in range(n_heads)]), setattr(self, 'offset', torch.zeros(n_heads)))[0], 'forward': lambda self, x: torch.cat([h(x) for h in self.heads], dim=1) + self.offset})", None),
        ("type('Heads', (nn.Module,), {'__init__': lambda self, d_in, n_heads: (nn.Module.__init__(self), setattr(self, 'heads', nn.ModuleList([nn.Linear(d_in, 1) for _ in range(n_heads)])), setattr(self, 'offset', torch.zeros(n_heads)))[0], 'forward': lambda self, x: torch.cat([h(x) for h in self.heads], dim=1) + self.offset})", None),
        ("type('Heads', (nn.Module,), {'__init__': lambda self, d_in, n_heads: (nn.Module.__init__(self), setattr(self, 'heads', nn.ModuleList([nn.Linear(d_in, 1) for _ in range(n_heads)])), setattr(self, 'offset', nn.Parameter(torch.zeros(n_heads))))[0], 'forward': lambda self, x: torch.cat([h(x) for h in self.heads], dim=1) + self.offset})", None),
    ],
    ('nn/03_custom_module', 'check_exercise_3'): [
        ('(4, 18)', None),
        ('(3, 30)', None),
        ('(2, 10)', None),
    ],
    ('nn/05_classic_cnn', 'check_exercise_1'): [
        ('lambda n, k, p, s: (n + 2 * p - k) // s', None),
        ('lambda n, k, p, s: (n + p - k) // s + 1', None),
        ('lambda n, k, p, s: (n + 2 * p - k) / s + 1', None),
        ('lambda n, k, p, s: (n + 2 * p - k + 1) // s', None),
    ],
    ('nn/05_classic_cnn', 'check_exercise_2'): [
        ('400', None),
        ('16 * 7 * 7', None),
        ('4 * 4', None),
        ('16 * 5 * 5 - 4', None),
    ],
    ('nn/05_classic_cnn', 'check_exercise_3'): [
        ('(432, 49152)', None),
        ('(160, 49168)', None),
        ('(448, 3088)', None),
    ],
    ('nn/07_cifar10_classifier', 'check_exercise_1'): [
        ('lambda logits, labels: (logits.argmax(dim=1) == labels).sum().item()', None),
        ('lambda logits, labels: (logits.max(dim=1).values == labels).float().mean().item()', None),
        ('lambda logits, labels: (logits.argmax(dim=1) == labels).float().mean()', None),
        ('lambda logits, labels: (logits.argmax(dim=1) == labels).sum().item() / logits.shape[1]', None),
    ],
    ('nn/07_cifar10_classifier', 'check_exercise_2'): [
        ('lambda model, images: model(images).argmax(dim=1)', None),
        ('lambda model, images: (model.eval(), model(images))[1]', None),
        ('lambda model, images: (model.eval(), model(images).argmax(dim=0))[1]', None),
    ],
    ('nn/07_cifar10_classifier', 'check_exercise_3'): [
        ('4608', None),
        ('4704', None),
        ('4640', None),
        ('4736', None),
    ],
}

VARIANTS: dict[tuple[str, str], list[str]] = {}
