"""Plausible wrong answers and correct variants: the nn lessons.

See tests/exercise_mistakes.py for the format.
"""

# Skeletons the nn/03 answers share: a SkipNet with its layer registered,
# and a Heads class whose heads and offset each mistake fills in.
SKIP = (
    "class answer(nn.Module):\n"
    "    def __init__(self, dim):\n"
    "        super().__init__()\n"
    "        self.linear = nn.Linear(dim, dim)\n"
    "    def forward(self, x):\n"
)
HEADS = (
    "class answer(nn.Module):\n"
    "    def __init__(self, d_in, n_heads):\n"
    "        super().__init__()\n"
    "        self.heads = {heads}\n"
    "        {offset}\n"
)
FWD = (
    "    def forward(self, x):\n"
    "        return torch.cat([h(x) for h in self.heads], dim=1) + self.offset"
)

MISTAKES = {
    ("nn/01_nn_package", "check_exercise_1"): [
        ("(750, (30, 20))", "bias"),
        ("(785, (20, 30))", "in_features and out_features"),
        ("(630, (30, 20))", "one Linear layer"),
        ("(785, 600)", "tuple"),
        ("785", "pair"),
        ('("785", (30, 20))', "int"),
        ("(786, (30, 20))", "does not hold 786"),
        ("(785, (30, 5))", "first layer"),
    ],
    ("nn/01_nn_package", "check_exercise_2"): [
        (
            "def answer(model, lr):\n"
            "    for p in model.parameters():\n"
            "        p.data -= lr * p.grad\n"
            "    model.zero_grad()",
            ".data",
        ),
        (
            "def answer(model, lr):\n"
            "    for p in model.parameters():\n"
            "        p -= lr * p.grad\n"
            "    model.zero_grad()",
            "torch.no_grad()",
        ),
        (
            "def answer(model, lr):\n"
            "    with torch.no_grad():\n"
            "        for p in model.parameters():\n"
            "            p -= lr * p.grad",
            "gradients are still there",
        ),
        (
            "def answer(model, lr):\n"
            "    model.zero_grad()\n"
            "    with torch.no_grad():\n"
            "        for p in model.parameters():\n"
            "            p -= lr * p.grad",
            "cleared before the update",
        ),
        (
            "def answer(model, lr):\n"
            "    with torch.no_grad():\n"
            "        for p in model.parameters():\n"
            "            p = p - lr * p.grad\n"
            "    model.zero_grad()",
            "did not change",
        ),
        (
            "def answer(model, lr):\n"
            "    with torch.no_grad():\n"
            "        for p in model.parameters():\n"
            "            p += lr * p.grad\n"
            "    model.zero_grad()",
            "up its gradient",
        ),
        (
            "def answer(model, lr):\n"
            "    with torch.no_grad():\n"
            "        for p in model[0].parameters():\n"
            "            p -= lr * p.grad\n"
            "    model.zero_grad()",
            "2.weight did not change",
        ),
        (
            "def answer(model, lr):\n"
            "    with torch.no_grad():\n"
            "        for p in model.parameters():\n"
            "            p -= lr * p.grad.sign()\n"
            "    model.zero_grad()",
            "did not move to p - lr * p.grad",
        ),
        (
            "def answer(model, lr):\n"
            "    for p in model.parameters():\n"
            "        p.data = (p - lr * p.grad).float()\n"
            "    model.zero_grad()",
            "dtype",
        ),
        (
            "def answer(model, lr):\n"
            "    for p in model.parameters():\n"
            "        p.detach().sub_(lr * p.grad)\n"
            "    return model",
            "gradients are still there",
        ),
    ],
    ("nn/02_optim", "check_exercise_1"): [
        (
            "def answer(model, optimizer, x, y, steps):\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            '        loss = nn.MSELoss(reduction="sum")(model(x), y)\n'
            "        losses.append(loss.item())\n"
            "        optimizer.zero_grad()\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "    return losses",
            "sum of squares",
        ),
        (
            "def answer(model, optimizer, x, y, steps):\n"
            "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            "        loss = nn.MSELoss()(model(x), y)\n"
            "        losses.append(loss.item())\n"
            "        optimizer.zero_grad()\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "    return losses",
            "optimizer of your own",
        ),
        (
            "def answer(model, optimizer, x, y, steps):\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            "        out = model(x).squeeze()\n"
            "        loss = ((out - y) ** 2).mean()\n"
            "        losses.append(loss.item())\n"
            "        optimizer.zero_grad()\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "    return losses",
            "squeeze both or neither",
        ),
        (
            "def answer(model, optimizer, x, y, steps):\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            "        loss = nn.MSELoss()(model(x), y)\n"
            "        losses.append(loss.item())\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "    return losses",
            "without zero_grad()",
        ),
        (
            "def answer(model, optimizer, x, y, steps):\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            "        loss = nn.MSELoss()(model(x), y)\n"
            "        losses.append(loss.item())\n"
            "        loss.backward()\n"
            "        optimizer.zero_grad()\n"
            "        optimizer.step()\n"
            "    return losses",
            "weights never changed",
        ),
        (
            "def answer(model, optimizer, x, y, steps):\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            "        optimizer.zero_grad()\n"
            "        nn.MSELoss()(model(x), y).backward()\n"
            "        optimizer.step()\n"
            "        losses.append(nn.MSELoss()(model(x), y).item())\n"
            "    return losses",
            "one step late",
        ),
        (
            "def answer(model, optimizer, x, y, steps):\n"
            "    losses = []\n"
            "    for _ in range(steps):\n"
            "        loss = nn.MSELoss()(model(x), y)\n"
            "        losses.append(loss)\n"
            "        optimizer.zero_grad()\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "    return losses",
            ".item()",
        ),
        (
            "def answer(model, optimizer, x, y, steps):\n"
            "    losses = []\n"
            "    for _ in range(steps - 1):\n"
            "        loss = nn.MSELoss()(model(x), y)\n"
            "        losses.append(loss.item())\n"
            "        optimizer.zero_grad()\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "    return losses",
            "list of 5 losses",
        ),
        (
            "def answer(model, optimizer, x, y, steps):\n"
            "    for _ in range(steps):\n"
            "        loss = nn.MSELoss()(model(x), y)\n"
            "        optimizer.zero_grad()\n"
            "        loss.backward()\n"
            "        optimizer.step()\n"
            "    return loss.item()",
            "list of 5 losses",
        ),
    ],
    ("nn/02_optim", "check_exercise_2"): [
        ("[0.1, 0.05, 0.05, 0.025, 0.025, 0.0125]", "too early"),
        ("[0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125]", "every step"),
        ("[0.1, 0.1, 0.1, 0.05, 0.05, 0.025]", "too late"),
        ("[0.05, 0.05, 0.025, 0.025, 0.0125, 0.0125]", "starting lr"),
        ("[0.1, 0.1, 0.05, 0.05, 0.025]", "six"),
        ('"0.1, 0.1, 0.05, 0.05, 0.025, 0.025"', "six numbers"),
        ("[0.1, 0.1, 0.05, 0.05, 0.025, 0.0125]", "step 6"),
        ("0.025", "six numbers"),
    ],
    ("nn/02_optim", "check_exercise_3"): [
        (
            "lambda checkpoint, model, optimizer, scheduler: model.load_state_dict(checkpoint['model'])",
            "optimizer starts from scratch",
        ),
        (
            "lambda checkpoint, model, optimizer, scheduler: (model.load_state_dict(checkpoint['model']), optimizer.load_state_dict(checkpoint['optimizer']))",
            "scheduler starts from scratch",
        ),
        (
            "lambda checkpoint, model, optimizer, scheduler: (model.load_state_dict(checkpoint['model']), scheduler.load_state_dict(checkpoint['scheduler']))",
            "optimizer starts from scratch",
        ),
        (
            "lambda checkpoint, model, optimizer, scheduler: (optimizer.load_state_dict(checkpoint['optimizer']), scheduler.load_state_dict(checkpoint['scheduler']))",
            "model's weights",
        ),
        (
            "lambda checkpoint, model, optimizer, scheduler: model.load_state_dict(checkpoint['model_state_dict'])",
            "KeyError",
        ),
        (
            "lambda checkpoint, model, optimizer, scheduler: model.load_state_dict(checkpoint)",
            "failed with RuntimeError",
        ),
        (
            "def answer(checkpoint, model, optimizer, scheduler):\n"
            '    model.load_state_dict(checkpoint["model"])\n'
            "    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)\n"
            '    optimizer.load_state_dict(checkpoint["optimizer"])\n'
            '    scheduler.load_state_dict(checkpoint["scheduler"])',
            "optimizer starts from scratch",
        ),
    ],
    ("nn/03_custom_module", "check_exercise_1"): [
        (
            SKIP + "        return torch.relu(x + self.linear(x))",
            "apply relu to linear(x) alone",
        ),
        (SKIP + "        return x + self.linear(x)", "relu is missing"),
        (
            SKIP + "        return torch.relu(self.linear(x))",
            "input x is not added",
        ),
        (
            SKIP + "        return (x + torch.relu(self.linear(x))).detach()",
            "cut off from the graph",
        ),
        (
            SKIP
            + "        with torch.no_grad():\n            return x + torch.relu(self.linear(x))",
            "cut off from the graph",
        ),
        (
            SKIP + "        return x.detach() + torch.relu(self.linear(x))",
            "detached copy",
        ),
        (
            SKIP + "        x += torch.relu(self.linear(x))\n        return x",
            "in-place",
        ),
        (
            SKIP.replace("def forward", "def foward")
            + "        return x + torch.relu(self.linear(x))",
            "spelled forward",
        ),
        (
            "class answer(nn.Module):\n"
            "    def __init__(self, dim):\n"
            "        super().__init__()\n"
            "        self.layers = [nn.Linear(dim, dim)]\n"
            "    def forward(self, x):\n"
            "        return x + torch.relu(self.layers[0](x))",
            "register one nn.Linear",
        ),
        (
            "class answer(nn.Module):\n"
            "    def __init__(self, dim):\n"
            "        super().__init__()\n"
            "        self.linear = nn.Linear(dim, dim).float()\n"
            "    def forward(self, x):\n"
            "        return x + torch.relu(self.linear(x.float()))",
            "float64",
        ),
    ],
    ("nn/03_custom_module", "check_exercise_2"): [
        (
            HEADS.format(
                heads="[nn.Linear(d_in, 1) for _ in range(n_heads)]",
                offset="self.offset = torch.zeros(n_heads)",
            )
            + FWD,
            "plain Python list",
        ),
        (
            HEADS.format(
                heads="nn.ModuleList([nn.Linear(d_in, 1) for _ in range(n_heads)])",
                offset="self.offset = torch.zeros(n_heads)",
            )
            + FWD,
            "not in the state dict",
        ),
        (
            HEADS.format(
                heads="nn.ModuleList([nn.Linear(d_in, 1) for _ in range(n_heads)])",
                offset="self.offset = nn.Parameter(torch.zeros(n_heads))",
            )
            + FWD,
            "not be trained",
        ),
        (
            HEADS.format(
                heads="nn.ModuleList([nn.Linear(d_in, 1) for _ in range(n_heads)])",
                offset='self.register_buffer("offset", torch.zeros(n_heads))',
            )
            + "    def forward(self, x):\n        return torch.cat([h(x) for h in self.heads], dim=1)",
            "offset is not added",
        ),
        (
            HEADS.format(
                heads="nn.ModuleList([nn.Linear(d_in, 1) for _ in range(n_heads)])",
                offset='self.register_buffer("offset", torch.zeros(n_heads))',
            )
            + "    def forward(self, x):\n        return torch.cat([h(x) for h in self.heads], dim=1) + torch.zeros(len(self.heads), dtype=x.dtype)",
            "offset is not added",
        ),
        (
            HEADS.format(
                heads="nn.Linear(d_in, n_heads)",
                offset='self.register_buffer("offset", torch.zeros(n_heads))',
            )
            + "    def forward(self, x):\n        return self.heads(x) + self.offset",
            "the 4 heads hold 8",
        ),
        (
            HEADS.format(
                heads="nn.ModuleList([nn.Linear(d_in, 1) for _ in range(n_heads)])",
                offset='self.register_buffer("offset", torch.zeros(n_heads))',
            )
            + "    def forward(self, x):\n        return torch.stack([h(x) for h in self.heads], dim=0) + self.offset",
            "shape (5, 4)",
        ),
        (
            HEADS.format(
                heads="nn.ModuleList([nn.Linear(d_in, 1) for _ in range(n_heads)])",
                offset='self.register_buffer("offset", torch.zeros(n_heads))',
            )
            + "    def forward(self, x):\n        return torch.cat([h(x) for h in self.heads], dim=1) + self.offset.detach().cpu().clone()",
            "net.to('meta')",
        ),
        (
            HEADS.format(
                heads="nn.ModuleList([nn.Linear(d_in, 1) for _ in range(n_heads)])",
                offset='self.register_buffer("offset", torch.zeros(n_heads))',
            )
            + "    def foward(self, x):\n        return torch.cat([h(x) for h in self.heads], dim=1) + self.offset",
            "spelled forward",
        ),
    ],
    ("nn/03_custom_module", "check_exercise_3"): [
        ("(4, 18)", "freezes its bias too"),
        ("(4, 30)", "freezes one more"),
        ("(2, 10)", "still trains"),
        ("(6, 46)", "nothing frozen"),
        ("(14, 3)", "comes first"),
        ('("3", "14")', "whole numbers"),
        ("14", "pair"),
        ("(3, 12)", "strike out the frozen ones"),
    ],
    ("nn/05_classic_cnn", "check_exercise_1"): [
        ("lambda n, k, p, s: (n + 2 * p - k) // s", None),
        ("lambda n, k, p, s: (n + p - k) // s + 1", None),
        ("lambda n, k, p, s: (n + 2 * p - k) / s + 1", None),
        ("lambda n, k, p, s: (n + 2 * p - k + 1) // s", None),
    ],
    ("nn/05_classic_cnn", "check_exercise_2"): [
        ("400", None),
        ("16 * 7 * 7", None),
        ("4 * 4", None),
        ("16 * 5 * 5 - 4", None),
    ],
    ("nn/05_classic_cnn", "check_exercise_3"): [
        ("(432, 49152)", None),
        ("(160, 49168)", None),
        ("(448, 3088)", None),
    ],
    ("nn/07_cifar10_classifier", "check_exercise_1"): [
        (
            "lambda logits, labels: (logits.argmax(dim=1) == labels).sum().item()",
            None,
        ),
        (
            "lambda logits, labels: (logits.max(dim=1).values == labels).float().mean().item()",
            None,
        ),
        (
            "lambda logits, labels: (logits.argmax(dim=1) == labels).float().mean()",
            None,
        ),
        (
            "lambda logits, labels: (logits.argmax(dim=1) == labels).sum().item() / logits.shape[1]",
            None,
        ),
    ],
    ("nn/07_cifar10_classifier", "check_exercise_2"): [
        ("lambda model, images: model(images).argmax(dim=1)", None),
        ("lambda model, images: (model.eval(), model(images))[1]", None),
        (
            "lambda model, images: (model.eval(), model(images).argmax(dim=0))[1]",
            None,
        ),
    ],
    ("nn/07_cifar10_classifier", "check_exercise_3"): [
        ("4608", None),
        ("4704", None),
        ("4640", None),
        ("4736", None),
    ],
}

VARIANTS: dict[tuple[str, str], list[str]] = {
    ("nn/01_nn_package", "check_exercise_2"): [
        "lambda model, lr: (torch.optim.SGD(model.parameters(), lr=lr).step(), model.zero_grad(), None)[2]",
        "def answer(model, lr):\n"
        "    with torch.no_grad():\n"
        "        for p in model.parameters():\n"
        "            p.add_(p.grad, alpha=-lr)\n"
        "            p.grad = None",
        "def answer(model, lr):\n"
        "    with torch.no_grad():\n"
        "        for p in model.parameters():\n"
        "            p.copy_(p - lr * p.grad)\n"
        "            p.grad.zero_()",
    ],
    ("nn/01_nn_package", "check_exercise_1"): [
        "[785, [30, 20]]",
        "(785, torch.Size([30, 20]))",
    ],
    ("nn/02_optim", "check_exercise_1"): [
        "def answer(model, optimizer, x, y, steps):\n"
        "    losses = []\n"
        "    for _ in range(steps):\n"
        "        optimizer.zero_grad(set_to_none=False)\n"
        "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "        loss.backward()\n"
        "        losses.append(loss.detach().item())\n"
        "        optimizer.step()\n"
        "    return losses",
        "def answer(model, optimizer, x, y, steps):\n"
        "    losses = []\n"
        "    for _ in range(steps):\n"
        "        loss = ((model(x).squeeze(1) - y.squeeze(1)) ** 2).mean()\n"
        "        losses.append(loss.item())\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n"
        "    return losses",
    ],
    ("nn/02_optim", "check_exercise_2"): [
        "(0.1, 0.1, 0.05, 0.05, 0.025, 0.025)",
        "[0.1 * 0.5 ** (i // 2) for i in range(6)]",
    ],
    ("nn/02_optim", "check_exercise_3"): [
        "def answer(checkpoint, model, optimizer, scheduler):\n"
        '    scheduler.load_state_dict(checkpoint["scheduler"])\n'
        '    optimizer.load_state_dict(checkpoint["optimizer"])\n'
        '    model.load_state_dict(checkpoint["model"])',
    ],
    ("nn/03_custom_module", "check_exercise_1"): [
        "class answer(nn.Module):\n"
        "    def __init__(self, dim):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(dim, dim)\n"
        "        self.act = nn.ReLU()\n"
        "    def forward(self, x):\n"
        "        return self.act(self.fc(x)).add(x)",
    ],
    ("nn/03_custom_module", "check_exercise_2"): [
        HEADS.format(
            heads="nn.ModuleList([nn.Linear(d_in, 1) for _ in range(n_heads)])",
            offset="self.offset = nn.Buffer(torch.zeros(n_heads))",
        )
        + FWD,
        HEADS.format(
            heads="nn.ModuleList([nn.Linear(d_in, 1) for _ in range(n_heads)])",
            offset="self.offset = nn.Parameter(torch.zeros(n_heads), requires_grad=False)",
        )
        + FWD,
    ],
    ("nn/03_custom_module", "check_exercise_3"): ["[3, 14]"],
}
