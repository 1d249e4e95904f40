"""Small models and single ops at small sizes, where the cost is per call, not per element:
written once with PyTorch's API and run with ``torch`` and with ``ember.torch``.

- ``PER_CALL``: one op on a (32, 64) float32 input that requires grad (the op is recorded, as
  in a training step; no backward), the sizes of a small model's activations.
- ``STEPS``: a training step of four small models, from the same NumPy weights and data in
  both libraries:
  - ``makemore``: a GPT of benchmarks/gpt.py at makemore's transformer sizes (4 layers, width
    64, 4 heads, block 16, batch 32, 27 characters), cross-entropy, backward, AdamW;
  - ``mingpt``: the same GPT at minGPT's small sizes (3 layers, width 48, 3 heads, block 32,
    batch 32, 65 characters);
  - ``char_rnn``: the RNN of PyTorch's name-classification tutorial (``i2h``/``h2o`` over
    the concatenated input and hidden state, log-softmax), one name of 8 letters read one
    letter at a time, NLL loss, backward, SGD written as the tutorial writes it
    (``p.data.add_(p.grad.data, alpha=-lr)``);
  - ``actor_critic``: PyTorch's actor-critic example (a 4-128 trunk, a 2-way policy head and a
    value head), batch 1: a ``Categorical`` sample, the policy and smooth-L1 value losses,
    backward, Adam.

Each ``*_setup(lib, p)`` returns the step function; its first result is the fingerprint (the
loss of step 0, or for the actor-critic the value estimate, which does not depend on the
sampled action: the two libraries draw different random streams). With ``compiled=True`` the
training step is ``lib.compile``d (ember's replay of the recorded kernels; the batch is its
argument); the actor-critic's compiled step computes the advantage with ``value.detach()``
where the example reads ``value.item()`` (a value read in Python is not recorded).

Nothing here imports a library at module level: each benchmark worker imports only its own.
"""

import importlib

import gpt

PER_CALL = {
    "add": "x + y", "add_scalar": "x + 1.0", "mul": "x * y", "matmul": "x @ w",
    "linear": "F.linear(x, w, b)", "relu": "F.relu(x)", "gelu": "F.gelu(x)",
    "tanh": "torch.tanh(x)", "softmax": "F.softmax(x, -1)",
    "log_softmax": "F.log_softmax(x, -1)",
    "layer_norm": "F.layer_norm(x, (64,), lnw, lnb)",
    "cross_entropy": "F.cross_entropy(x, target)", "embedding": "F.embedding(ids, table)",
    "index": "x[idx]", "masked_fill": "x.masked_fill(mask, 0.0)", "sum": "x.sum()",
    "mean_dim": "x.mean(-1)", "transpose": "x.transpose(0, 1)", "view": "x.view(64, 32)",
    "cat": "torch.cat([x, y], 0)", "stack": "torch.stack([x, y])",
}

MAKEMORE = {"n_layer": 4, "n_head": 4, "n_embd": 64, "block": 16, "vocab": 27, "batch": 32}
MINGPT = {"n_layer": 3, "n_head": 3, "n_embd": 48, "block": 32, "vocab": 65, "batch": 32}
GPT_QUICK = {"n_layer": 1, "n_head": 2, "n_embd": 8, "block": 4, "vocab": 27, "batch": 2}
RNN = {"letters": 57, "hidden": 128, "classes": 18, "length": 8}
RNN_QUICK = {"letters": 57, "hidden": 8, "classes": 18, "length": 2}
AC = {"obs": 4, "hidden": 128, "actions": 2}
AC_QUICK = {"obs": 4, "hidden": 8, "actions": 2}
SEED = 32
# (case name, setup, full sizes, quick sizes) of the training steps
STEPS = (("makemore_step", "gpt_step_setup", MAKEMORE, GPT_QUICK),
         ("mingpt_step", "gpt_step_setup", MINGPT, GPT_QUICK),
         ("char_rnn_step", "char_rnn_setup", RNN, RNN_QUICK),
         ("actor_critic_step", "actor_critic_setup", AC, AC_QUICK))


def _lib(lib):
    """(torch module, nn, nn.functional) of ``lib``: "torch" or "ember.torch"."""
    torch = importlib.import_module(lib)
    return torch, torch.nn, torch.nn.functional


def per_call_setup(lib, expr):
    """The op ``PER_CALL[expr]`` on (32, 64) float32 inputs of ``lib``; ``x`` requires grad."""
    import numpy as np

    torch, _, F = _lib(lib)
    rng = np.random.default_rng(SEED)

    def t(shape, grad=False):
        out = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
        return out.requires_grad_() if grad else out
    scope = {"torch": torch, "F": F, "x": t((32, 64), True), "y": t((32, 64)),
             "w": t((64, 64), True), "b": t((64,), True), "lnw": t((64,), True),
             "lnb": t((64,), True), "table": t((100, 64), True),
             "target": torch.from_numpy(rng.integers(0, 64, 32)),
             "ids": torch.from_numpy(rng.integers(0, 100, 32)),
             "idx": torch.from_numpy(rng.integers(0, 32, 16)),
             "mask": torch.from_numpy(rng.standard_normal((32, 64)) > 0)}
    code = compile(PER_CALL[expr], f"<per-call {expr}>", "eval")
    return lambda: eval(code, scope)  # noqa: S307 (our own table)


def _compiled(lib, fn, compiled):
    return _lib(lib)[0].compile(fn) if compiled else fn


def gpt_step_setup(lib, p, compiled=False):
    """A training step of benchmarks/gpt.py's GPT at sizes ``p`` in ``lib``."""
    torch, _, _ = _lib(lib)
    data = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in gpt.batches(p, SEED + 1)]
    model = gpt.model(lib, p, gpt.init_params(p, SEED))
    opt = torch.optim.AdamW(model.parameters(), lr=gpt.LR, weight_decay=gpt.WEIGHT_DECAY)
    calls = [0]

    def train(x, y):
        opt.zero_grad()
        loss = gpt.loss(lib, model, x, y)
        loss.backward()
        opt.step()
        return loss
    train = _compiled(lib, train, compiled)

    def step():
        x, y = data[calls[0] % len(data)]  # the calls cycle through the same batches
        calls[0] += 1
        return train(x, y)
    return step


def _load(module, lib, rng, scale=0.1):
    """Give every parameter of ``module`` weights drawn from ``rng`` (the same in both libraries:
    the names and shapes are PyTorch's)."""
    import numpy as np

    torch, _, _ = _lib(lib)
    state = {name: torch.from_numpy((scale * rng.standard_normal(tuple(v.shape)))
                                    .astype(np.float32))
             for name, v in module.state_dict().items()}
    module.load_state_dict(state)


def char_rnn_setup(lib, p, compiled=False):
    """A step of the name-classification tutorial's RNN (see the module)."""
    import numpy as np

    torch, nn, _ = _lib(lib)
    h = p["hidden"]

    class RNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.i2h = nn.Linear(p["letters"] + h, h)
            self.h2o = nn.Linear(p["letters"] + h, p["classes"])
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, letter, hidden):
            combined = torch.cat((letter, hidden), 1)
            return self.softmax(self.h2o(combined)), self.i2h(combined)

    rng = np.random.default_rng(SEED)
    rnn = RNN()
    _load(rnn, lib, rng)
    letters = rng.integers(0, p["letters"], p["length"])
    onehot = np.zeros((p["length"], 1, p["letters"]), np.float32)
    onehot[np.arange(p["length"]), 0, letters] = 1.0
    name = torch.from_numpy(onehot)
    category = torch.from_numpy(np.array([3]))
    criterion = nn.NLLLoss()
    lr = 0.005

    def step():
        hidden = torch.zeros(1, h)
        rnn.zero_grad()
        for i in range(name.size()[0]):
            output, hidden = rnn(name[i], hidden)
        loss = criterion(output, category)
        loss.backward()
        for q in rnn.parameters():
            q.data.add_(q.grad.data, alpha=-lr)
        return loss
    return _compiled(lib, step, compiled)


def actor_critic_setup(lib, p, compiled=False, detach=None):
    """A step of PyTorch's actor-critic example at batch 1 (see the module); ``detach``
    (default: ``compiled``) reads the value estimate with ``value.detach()``."""
    detach = compiled if detach is None else detach
    import numpy as np

    torch, nn, F = _lib(lib)
    Categorical = importlib.import_module(lib + ".distributions").Categorical

    class Policy(nn.Module):
        def __init__(self):
            super().__init__()
            self.affine1 = nn.Linear(p["obs"], p["hidden"])
            self.action_head = nn.Linear(p["hidden"], p["actions"])
            self.value_head = nn.Linear(p["hidden"], 1)

        def forward(self, x):
            x = F.relu(self.affine1(x))
            return F.softmax(self.action_head(x), dim=-1), self.value_head(x)

    rng = np.random.default_rng(SEED)
    model = Policy()
    _load(model, lib, rng)
    opt = torch.optim.Adam(model.parameters(), lr=3e-2)
    state = torch.from_numpy(rng.standard_normal(p["obs"]).astype(np.float32))
    reward = torch.tensor([1.0])

    def step():
        probs, value = model(state)
        m = Categorical(probs)
        action = m.sample()
        advantage = reward - (value.detach() if detach else value.item())
        loss = -m.log_prob(action) * advantage + F.smooth_l1_loss(value, reward)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return value.detach() if detach else value  # (the fingerprint: not the action's)
    return _compiled(lib, step, compiled)
