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
        ("lambda n, k, p, s: (n + 2 * p - k) // s", "+ 1 is missing"),
        ("lambda n, k, p, s: (n + p - k) // s + 1", "both sides"),
        ("lambda n, k, p, s: (n + 2 * p - k) / s + 1", "Python int"),
        ("lambda n, k, p, s: (n + 2 * p - k + 1) // s", "returned"),
        ("lambda n, k, p, s: n + 2 * p - k + 1", "stride divides"),
        ("lambda n, k, p, s: -(-(n + 2 * p - k) // s) + 1", "rounds up"),
        ("lambda n, k, p, s: round((n + 2 * p - k) / s) + 1", "rounds up"),
        (
            "lambda n, k, p, s: torch.tensor((n + 2 * p - k) // s + 1)",
            "Python int",
        ),
        ("lambda n, k, p, s: (n - k) // s + 1", "returned"),
        ("lambda n, k, p, s: conv_out_size(n, k, p)", "failed with"),
    ],
    ("nn/05_classic_cnn", "check_exercise_2"): [
        ("400", "32x32"),
        ("16 * 7 * 7", "shrinks the side, by 4"),
        ("16 * 8 * 8", "second pooling"),
        ("4 * 4", "times the 16 channels"),
        ("6 * 4 * 4", "16 output channels"),
        ("16 * 3 * 3", "not 5"),
        ('"256"', "expected a number"),
        ("16 * 5 * 5 - 4", "work out the side"),
    ],
    ("nn/05_classic_cnn", "check_exercise_3"): [
        ("(432, 49152)", "also has a bias"),
        ("(160, 49168)", "all 3 input channels"),
        ("(448, 3088)", "its weight is (16, 3 * 32 * 32)"),
        ("(49168, 448)", "comes first"),
        ("(448, 49152)", "bias too"),
        ("(14400, 49168)", "do not depend on the image size"),
        ('("448", "49168")', "whole numbers"),
        ("448", "pair"),
    ],
    ("nn/07_cifar10_classifier", "check_exercise_1"): [
        (
            "lambda logits, labels: (logits.argmax(dim=1) == labels).sum().item()",
            "count",
        ),
        (
            "lambda logits, labels: (logits.max(dim=1).values == labels).float().mean().item()",
            "highest score",
        ),
        (
            "lambda logits, labels: (logits.argmax(dim=1) == labels).float().mean()",
            ".item()",
        ),
        (
            "lambda logits, labels: (logits.argmax(dim=1) == labels).sum().item() / logits.shape[1]",
            "number of classes",
        ),
        (
            "lambda logits, labels: (logits.argmax(dim=0) == labels).float().mean().item()",
            "failed with RuntimeError",
        ),
        (
            "lambda logits, labels: 100 * (logits.argmax(dim=1) == labels).float().mean().item()",
            "percentage",
        ),
        ("lambda logits, labels: 0.6", "highest score"),
        (
            "lambda logits, labels: int((logits.argmax(dim=1) == labels).all())",
            "Python float",
        ),
        (
            "lambda logits, labels: (logits.argmin(dim=1) == labels).float().mean().item()",
            "highest score",
        ),
    ],
    ("nn/07_cifar10_classifier", "check_exercise_2"): [
        (
            "lambda model, images: model(images).argmax(dim=1)",
            "recorded gradients",
        ),
        (
            "lambda model, images: (model.eval(), model(images).argmax(dim=1))[1]",
            "recorded gradients",
        ),
        (
            "lambda model, images: (model.eval(), model.requires_grad_(False), model(images).argmax(dim=1))[2]",
            "requires_grad_(False)",
        ),
        (
            "def answer(model, images):\n"
            "    model.eval()\n"
            "    with torch.no_grad():\n"
            "        return model(images).argmax(dim=1)",
            "as you found it",
        ),
        (
            "def answer(model, images):\n"
            "    model.eval()\n"
            "    with torch.no_grad():\n"
            "        out = model(images).argmax(dim=1)\n"
            "    model.train()\n"
            "    return out",
            "as you found it",
        ),
        (
            "def answer(model, images):\n"
            "    with torch.no_grad():\n"
            "        return model(images).argmax(dim=1)",
            "training mode",
        ),
        (
            "def answer(model, images):\n"
            "    mode = model.training\n"
            "    model.eval()\n"
            "    with torch.no_grad():\n"
            "        out = model(images).argmax(dim=0)\n"
            "    model.train(mode)\n"
            "    return out",
            "expected shape (11,)",
        ),
        (
            "def answer(model, images):\n"
            "    mode = model.training\n"
            "    model.eval()\n"
            "    with torch.no_grad():\n"
            "        out = model(images).softmax(dim=1).max(dim=1).values\n"
            "    model.train(mode)\n"
            "    return out",
            "int64",
        ),
        (
            "def answer(model, images):\n"
            "    mode = model.training\n"
            "    model.eval()\n"
            "    with torch.no_grad():\n"
            "        out = model(images).argmax(dim=1).int()\n"
            "    model.train(mode)\n"
            "    return out",
            "int64",
        ),
    ],
    ("nn/07_cifar10_classifier", "check_exercise_3"): [
        ("4608", "scale and a shift per"),
        ("4640", "two numbers per"),
        ("4736", "buffers"),
        ("4704", "no bias"),
        ("1600", "3 x 3"),
        ("352", "all 16 input channels"),
        ('"4672"', "whole number"),
        ("4673", "does not hold 4673"),
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
    ("nn/05_classic_cnn", "check_exercise_1"): [
        "lambda n, k, p, s: int((n + 2 * p - k) // s) + 1",
        "lambda n, k, p, s: len(range(0, n + 2 * p - k + 1, s))",
    ],
    ("nn/05_classic_cnn", "check_exercise_2"): ["256", "16 * 4 * 4"],
    ("nn/05_classic_cnn", "check_exercise_3"): ["[448, 49168]"],
    ("nn/07_cifar10_classifier", "check_exercise_1"): [
        "lambda logits, labels: (torch.max(logits, 1)[1] == labels).sum().item() / len(labels)",
        "lambda logits, labels: float((logits.softmax(dim=1).argmax(dim=1) == labels).double().mean())",
    ],
    ("nn/07_cifar10_classifier", "check_exercise_2"): [
        "def answer(model, images):\n"
        "    mode = model.training\n"
        "    model.eval()\n"
        "    with torch.inference_mode():\n"
        "        out = model(images).argmax(dim=1)\n"
        "    model.train(mode)\n"
        "    return out",
        "def answer(model, images):\n"
        "    mode = model.training\n"
        "    try:\n"
        "        model.eval()\n"
        "        with torch.no_grad():\n"
        "            _, classes = torch.max(model(images), 1)\n"
        "        return classes\n"
        "    finally:\n"
        "        model.train(mode)",
    ],
    ("nn/07_cifar10_classifier", "check_exercise_3"): [
        "32 * 16 * 3 * 3 + 2 * 32",
        "4672.0",
    ],
}


# nn/09 and nn/10 (watching and debugging a training run)
_KEEP = "for n, p in model.named_parameters() if p.grad is not None"
_CLIP = "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)"
_TOTAL = "torch.nn.utils.get_total_norm([p.grad for p in model.parameters()])"
_STEP = "lambda model, optimizer, loss, max_norm: "
_TO = ".to(layer.weight.device, layer.weight.dtype)"
MISTAKES |= {
    ("nn/09_watching_a_training_run", "check_exercise_1"): [
        (
            f"lambda model: {{n: p.grad.pow(2).sum().item() {_KEEP}}}",
            "squared norm",
        ),
        (
            f"lambda model: {{n: p.norm().item() {_KEEP}}}",
            "norm of the weights",
        ),
        (
            f"lambda model: {{n: p.grad.abs().max().item() {_KEEP}}}",
            "largest entry",
        ),
        (f"lambda model: {{n: p.grad.abs().sum().item() {_KEEP}}}", "L1 norm"),
        (
            "lambda model: {n: (p.grad.norm().item() if p.grad is not None else 0.0) for n, p in model.named_parameters()}",
            "frozen",
        ),
        (
            "lambda model: {i: p.grad.norm().item() for i, p in enumerate(model.parameters()) if p.grad is not None}",
            "expected the keys",
        ),
        (
            "lambda model: [p.grad.norm().item() for p in model.parameters() if p.grad is not None]",
            "a dict",
        ),
        (
            f"lambda model: {{n: p.grad.pow_(2).sum().sqrt().item() {_KEEP}}}",
            "changed",
        ),
        (
            f"lambda model: ({{n: p.grad.norm().item() {_KEEP}}}, model.zero_grad())[0]",
            "changed",
        ),
        (
            f"lambda model: (model.train(), {{n: p.grad.norm().item() {_KEEP}}})[1]",
            "mode",
        ),
        (
            f"lambda model: {{n: torch.nn.utils.get_total_norm([q.grad for q in model.parameters() if q.grad is not None]).item() {_KEEP}}}",
            "gradient norm of",
        ),
        (
            "lambda model: {n: p.grad.norm().item() for n, p in model.named_parameters() if p.requires_grad}",
            "p.grad is not None",
        ),
    ],
    ("nn/09_watching_a_training_run", "check_exercise_2"): [
        (
            f"{_STEP}(optimizer.zero_grad(), loss.backward(), optimizer.step(), {_TOTAL})[3]",
            "unclipped",
        ),
        (
            f"{_STEP}(optimizer.zero_grad(), loss.backward(), optimizer.step(), {_CLIP})[3]",
            "unclipped",
        ),
        (
            f"{_STEP}(loss.backward(), {_CLIP}, optimizer.step())[1]",
            "zero_grad",
        ),
        (
            f"{_STEP}((n := {_CLIP}), optimizer.zero_grad(), loss.backward(), optimizer.step(), n)[4]",
            "unclipped",
        ),
        (
            f"{_STEP}(optimizer.zero_grad(), loss.backward(), {_CLIP})[2]",
            "did not move",
        ),
        (
            f"{_STEP}(optimizer.zero_grad(), loss.backward(), [torch.nn.utils.clip_grad_norm_([p], max_norm) for p in model.parameters()], optimizer.step())[2]",
            "on its own",
        ),
        (
            f"{_STEP}(optimizer.zero_grad(), loss.backward(), torch.nn.utils.clip_grad_value_(model.parameters(), max_norm), optimizer.step())[3]",
            "each value",
        ),
        (
            f"{_STEP}(optimizer.zero_grad(), loss.backward(), (n := {_TOTAL}), [p.grad.mul_(max_norm / n) for p in model.parameters()], optimizer.step(), n)[5]",
            "below max_norm",
        ),
        (
            f"{_STEP}(optimizer.zero_grad(), loss.backward(), {_CLIP}, optimizer.step(), {_TOTAL})[4]",
            "after clipping",
        ),
        (
            f"{_STEP}(optimizer.zero_grad(), loss.backward(), {_CLIP}, optimizer.step())[3]",
            "return the norm",
        ),
        (
            f"{_STEP}(model.eval(), optimizer.zero_grad(), loss.backward(), {_CLIP}, optimizer.step())[3]",
            "mode",
        ),
    ],
    ("nn/10_debugging_a_training_run", "check_exercise_1"): [
        (f"lambda x, layer: x.view(x.shape[0], -1){_TO}", "view"),
        (f"lambda x, layer: x.flatten(){_TO}", "expected shape"),
        (f"lambda x, layer: x.flatten(0, 1){_TO}", "expected shape"),
        ("lambda x, layer: x.flatten(1).float()", "dtype"),
        (
            "lambda x, layer: x.flatten(1).to(layer.weight.dtype)",
            "the layer on meta",
        ),
        (
            "lambda x, layer: x.flatten(1).to('cpu', layer.weight.dtype)",
            "the layer on meta",
        ),
        ("lambda x, layer: x.flatten(1).to(layer.weight.device)", "dtype"),
        (
            "lambda x, layer: x.reshape(-1, layer.in_features).double()",
            "dtype",
        ),
        (f"lambda x, layer: x.flatten(1){_TO} / 255", "scaled"),
        (f"lambda x, layer: x.permute(0, 2, 3, 1).flatten(1){_TO}", "order"),
        (f"lambda x, layer: layer(x.flatten(1){_TO})", "output"),
        (f"lambda x, layer: x.flatten(1).float(){_TO}", "float32"),
        (
            "def answer(x, layer):\n    layer.float()\n    return x.flatten(1).to(layer.weight)",
            "layer was changed",
        ),
        (f"lambda x, layer: x.flatten(1){_TO} / x.max()", "values changed"),
    ],
    ("nn/10_debugging_a_training_run", "check_exercise_2"): [
        ("((6, 300), (300, 5))", "what the layer expects"),
        ("((180, 10), (5, 300))", "transposed"),
        ("((18, 10), (300, 5))", "last dimension"),
        ("((6, 3), (300, 5))", "last dimension"),
        ("((60, 30), (300, 5))", "last dimension"),
        ("((10, 180), (300, 5))", "last dimension"),
        ("(180, 10)", "two (rows, cols) pairs"),
        ("((6, 3, 10, 10), (300, 5))", "two (rows, cols) pairs"),
    ],
}
VARIANTS |= {
    ("nn/09_watching_a_training_run", "check_exercise_1"): [
        f"lambda model: {{n: p.grad.norm() {_KEEP}}}",
        f"lambda model: {{n: torch.linalg.vector_norm(p.grad).item() {_KEEP}}}",
        f"lambda model: {{n: math.sqrt((p.grad.float() ** 2).sum()) {_KEEP}}}",
    ],
    ("nn/09_watching_a_training_run", "check_exercise_2"): [
        "def answer(model, optimizer, loss, max_norm):\n"
        "    model.zero_grad()\n"
        "    loss.backward()\n"
        f"    total = {_TOTAL}\n"
        "    torch.nn.utils.clip_grads_with_norm_(model.parameters(), max_norm, total)\n"
        "    optimizer.step()\n"
        "    return total.item()",
        "def answer(model, optimizer, loss, max_norm):\n"
        "    optimizer.zero_grad(set_to_none=False)\n"
        "    loss.backward()\n"
        "    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm, foreach=False)\n"
        "    optimizer.step()\n"
        "    return norm",
    ],
    ("nn/10_debugging_a_training_run", "check_exercise_1"): [
        "lambda x, layer: x.reshape(len(x), -1).to(device=layer.weight.device, dtype=layer.weight.dtype)",
        "lambda x, layer: torch.flatten(x, start_dim=1).type(layer.weight.dtype).to(layer.weight.device)",
        "lambda x, layer: x.contiguous().view(x.size(0), -1).to(layer.weight)",
    ],
    ("nn/10_debugging_a_training_run", "check_exercise_2"): [
        "[[180, 10], [300, 5]]",
        "(torch.Size([180, 10]), torch.Size([300, 5]))",
        "((6 * 3 * 10, 10), (300, 5))",
    ],
}
