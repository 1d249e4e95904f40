"""The benchmark cases: the same computation written for ember, NumPy and PyTorch.

Each case has a name, a group, its sizes (full and ``--quick``) and one setup function per
library. A setup takes the case's parameters, builds its inputs from a fixed seed (NumPy's
``default_rng``, so every process gets the same data) and returns a function of no arguments
that runs the timed work once and returns its result (used for the fingerprint that checks the
three libraries agree). A backward case returns a ``Backward`` instead: the forward and backward
together, and the forward alone, whose times the worker subtracts.

Nothing here imports a library at module level: each worker process imports only its own.
"""

import functools

import gpt
import small_models

SEED = 0
GPT_FULL, GPT_QUICK = gpt.FULL, gpt.QUICK


class Case:
    """One benchmark case; ``setups`` maps a library name to its setup function."""

    def __init__(self, name, group, title, full, quick, setups, note="", check=None):
        self.name = name
        self.group = group
        self.title = title
        self.full = full
        self.quick = quick
        self.setups = setups
        self.note = note
        self.check = tuple(check or setups)  # the libraries whose results must agree

    def params(self, quick):
        return dict(self.quick if quick else self.full)


def _rng(offset=0):
    import numpy as np

    return np.random.default_rng(SEED + offset)


def _floats(shape, offset=0):
    import numpy as np

    return _rng(offset).standard_normal(shape, dtype=np.float32)


def _ember(arr):
    import ember

    return ember.tensor(arr)  # a copy on the default device (EMBER_DEVICE), owned by ember


def _torch(arr):
    import torch

    return torch.from_numpy(arr)


# -- per-op overhead: 8-element add -------------------------------------------------------------

def _add_inputs(p):
    return _floats(p["n"], 1), _floats(p["n"], 2)


def add_numpy(p):
    a, b = _add_inputs(p)
    return lambda: a + b


def add_torch(p):
    a, b = map(_torch, _add_inputs(p))
    return lambda: a + b


def add_ember(p):
    from ember._tensor import realized
    a, b = map(_ember, _add_inputs(p))
    device = a.device
    return lambda: realized((a + b)._data, device)  # the buffer: a large result is deferred


def add_tracked_torch(p):
    a, b = map(_torch, _add_inputs(p))
    a.requires_grad_(True)
    return lambda: a + b


def add_tracked_ember(p):
    a, b = map(_ember, _add_inputs(p))
    a = a.require_grad()
    return lambda: a + b


# -- in-place updates and views (issue 25) ---------------------------------------------------------

def inplace_add_numpy(p):
    import numpy as np

    a, b = _add_inputs(p)

    def run():
        np.add(a, b, out=a)
        np.subtract(a, b, out=a)
        return a
    return run


def inplace_add_torch(p):
    a, b = map(_torch, _add_inputs(p))
    return lambda: a.add_(b).sub_(b)


def inplace_add_ember(p):
    import ember.torch as torch

    a, b = (torch.tensor(x) for x in _add_inputs(p))
    return lambda: a.add_(b).sub_(b)._data


def inplace_slice_numpy(p):
    a = _floats(p["n"], 1)
    return lambda: a[1:3]


def inplace_slice_torch(p):
    a = _torch(_floats(p["n"], 1))
    return lambda: a[1:3]


def inplace_slice_ember(p):
    import ember.torch as torch

    a = torch.tensor(_floats(p["n"], 1))
    return lambda: a[1:3]._data


# -- large elementwise, reduction, matmul, softmax ------------------------------------------------

def _chain_inputs(p):
    return _floats(p["n"], 1), _floats(p["n"], 2), _floats(p["n"], 3)


def chain_numpy(p):
    x, y, z = _chain_inputs(p)
    return lambda: x * y + z


def chain_torch(p):
    x, y, z = map(_torch, _chain_inputs(p))
    return lambda: x * y + z


def chain_ember(p):
    from ember._tensor import realized
    x, y, z = map(_ember, _chain_inputs(p))
    device = x.device
    return lambda: realized((x * y + z)._data, device)  # the buffer: the chain computed


def sum_numpy(p):
    x = _floats(p["n"], 1)
    return lambda: x.sum()


def sum_torch(p):
    x = _torch(_floats(p["n"], 1))
    return lambda: x.sum()


def sum_ember(p):
    x = _ember(_floats(p["n"], 1))
    return lambda: x.sum()


def _mm_inputs(p):
    n = p["n"]
    return _floats((n, n), 1), _floats((n, n), 2)


def matmul_numpy(p):
    a, b = _mm_inputs(p)
    return lambda: a @ b


def matmul_torch(p):
    a, b = map(_torch, _mm_inputs(p))
    return lambda: a @ b


def matmul_ember(p):
    a, b = map(_ember, _mm_inputs(p))
    return lambda: a @ b


def softmax_numpy(p):
    import numpy as np

    x = _floats(p["shape"], 1)

    def run():
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        e /= e.sum(axis=-1, keepdims=True)
        return e
    return run


def softmax_torch(p):
    import torch

    x = _torch(_floats(p["shape"], 1))
    return lambda: torch.softmax(x, dim=-1)


def softmax_ember(p):
    from ember.nn import functional as F

    x = _ember(_floats(p["shape"], 1))
    return lambda: F.softmax(x, dim=-1)


# -- nn ops of a transformer: GELU, layer norm, log-softmax and their backward ------------------

GELU_TANH_C = 0.7978845608028654  # sqrt(2 / pi)


def _ln_inputs(p):
    n = p["shape"][-1]
    return _floats(p["shape"], 1), 1 + 0.1 * _floats(n, 2), 0.1 * _floats(n, 3)


def gelu_torch(p):
    from torch.nn import functional as F

    x = _torch(_floats(p["shape"], 1))
    return lambda: F.gelu(x)


def gelu_ember(p):
    from ember.nn import functional as F

    x = _ember(_floats(p["shape"], 1))
    return lambda: F.gelu(x)


def gelu_tanh_numpy(p):
    import numpy as np

    x = _floats(p["shape"], 1)
    c, k = np.float32(GELU_TANH_C), np.float32(0.044715)
    return lambda: 0.5 * x * (1 + np.tanh(c * (x + k * x * x * x)))


def gelu_tanh_torch(p):
    from torch.nn import functional as F

    x = _torch(_floats(p["shape"], 1))
    return lambda: F.gelu(x, approximate="tanh")


def gelu_tanh_ember(p):
    from ember.nn import functional as F

    x = _ember(_floats(p["shape"], 1))
    return lambda: F.gelu(x, approximate="tanh")


def layer_norm_numpy(p):
    import numpy as np

    x, w, b = _ln_inputs(p)
    eps = np.float32(1e-5)

    def run():
        mean = x.mean(axis=-1, keepdims=True)
        d = x - mean
        var = (d * d).mean(axis=-1, keepdims=True)
        return d / np.sqrt(var + eps) * w + b
    return run


def layer_norm_torch(p):
    from torch.nn import functional as F

    x, w, b = map(_torch, _ln_inputs(p))
    n = (p["shape"][-1],)
    return lambda: F.layer_norm(x, n, w, b)


def layer_norm_ember(p):
    from ember.nn import functional as F

    x, w, b = map(_ember, _ln_inputs(p))
    n = (p["shape"][-1],)
    return lambda: F.layer_norm(x, n, w, b)


def log_softmax_numpy(p):
    import numpy as np

    x = _floats(p["shape"], 1)

    def run():
        s = x - x.max(axis=-1, keepdims=True)
        return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))
    return run


def log_softmax_torch(p):
    import torch

    x = _torch(_floats(p["shape"], 1))
    return lambda: torch.log_softmax(x, dim=-1)


def log_softmax_ember(p):
    from ember.nn import functional as F

    x = _ember(_floats(p["shape"], 1))
    return lambda: F.log_softmax(x, dim=-1)


class Backward:
    """What a backward case's setup returns: ``run`` does a recorded forward and its backward
    and returns the input's gradient; ``baseline`` does the same recorded forward alone. The
    worker times both, alternated, and reports the difference: the backward's time."""

    def __init__(self, run, baseline):
        self.run = run
        self.baseline = baseline

    def __call__(self):
        return self.run()


def _backward_torch(p, forward, *extra):
    x = _torch(_floats(p["shape"], 1)).requires_grad_(True)
    g = _torch(_floats(p["shape"], 4))

    def run():
        x.grad = None
        forward(x, *extra).backward(g)
        return x.grad
    return Backward(run, lambda: forward(x, *extra))


def _backward_ember(p, forward, *extra):
    x = _ember(_floats(p["shape"], 1)).require_grad()
    g = _ember(_floats(p["shape"], 4))

    def run():
        x.grad = None
        forward(x, *extra).backward(g)
        return x.grad
    return Backward(run, lambda: forward(x, *extra))


def softmax_backward_numpy(p):
    import numpy as np

    x, g = _floats(p["shape"], 1), _floats(p["shape"], 4)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    y = e / e.sum(axis=-1, keepdims=True)  # the forward's output, saved as autodiff saves it
    return lambda: y * (g - (g * y).sum(axis=-1, keepdims=True))


def softmax_backward_torch(p):
    import torch

    return _backward_torch(p, lambda x: torch.softmax(x, dim=-1))


def softmax_backward_ember(p):
    from ember.nn import functional as F

    return _backward_ember(p, lambda x: F.softmax(x, dim=-1))


def layer_norm_backward_torch(p):
    from torch.nn import functional as F

    _, w, b = map(_torch, _ln_inputs(p))
    n = (p["shape"][-1],)
    return _backward_torch(p, lambda x: F.layer_norm(x, n, w, b))


def layer_norm_backward_ember(p):
    from ember.nn import functional as F

    _, w, b = map(_ember, _ln_inputs(p))
    n = (p["shape"][-1],)
    return _backward_ember(p, lambda x: F.layer_norm(x, n, w, b))


def gelu_backward_torch(p):
    from torch.nn import functional as F

    return _backward_torch(p, F.gelu)


def gelu_backward_ember(p):
    from ember.nn import functional as F

    return _backward_ember(p, F.gelu)


# -- layouts: transpose copy, column and row reductions -----------------------------------------

def transpose_numpy(p):
    import numpy as np

    x = _floats(p["shape"], 1)
    return lambda: np.ascontiguousarray(x.T)


def transpose_torch(p):
    x = _torch(_floats(p["shape"], 1))
    return lambda: x.T.contiguous()


def transpose_ember(p):
    x = _ember(_floats(p["shape"], 1))
    return lambda: x.T.contiguous()


def sum0_numpy(p):
    x = _floats(p["shape"], 1)
    return lambda: x.sum(0)


def sum0_torch(p):
    x = _torch(_floats(p["shape"], 1))
    return lambda: x.sum(0)


def sum0_ember(p):
    x = _ember(_floats(p["shape"], 1))
    return lambda: x.sum(0)


def sum_rows_numpy(p):
    x = _floats(p["shape"], 1)
    return lambda: x.sum(-1)


def sum_rows_torch(p):
    x = _torch(_floats(p["shape"], 1))
    return lambda: x.sum(-1)


def sum_rows_ember(p):
    x = _ember(_floats(p["shape"], 1))
    return lambda: x.sum(-1)


def max_rows_numpy(p):
    x = _floats(p["shape"], 1)
    return lambda: x.max(-1)


def max_rows_torch(p):
    import torch

    x = _torch(_floats(p["shape"], 1))
    return lambda: torch.amax(x, -1)


def max_rows_ember(p):
    x = _ember(_floats(p["shape"], 1))
    return lambda: x.max(-1)  # the values; the indices are computed only when asked for


# -- copies: permute + contiguous, cat ------------------------------------------------------------

def permute_numpy(p):
    import numpy as np

    x = _floats(p["shape"], 1)
    return lambda: np.ascontiguousarray(x.transpose(2, 0, 1))


def permute_torch(p):
    x = _torch(_floats(p["shape"], 1))
    return lambda: x.permute(2, 0, 1).contiguous()


def permute_ember(p):
    x = _ember(_floats(p["shape"], 1))
    return lambda: x.permute(2, 0, 1).contiguous()


def _cat_inputs(p):
    rng = _rng(1)
    import numpy as np

    return [rng.standard_normal(p["shape"], dtype=np.float32) for _ in range(p["count"])]


def cat_numpy(p):
    import numpy as np

    xs = _cat_inputs(p)
    return lambda: np.concatenate(xs, axis=0)


def cat_torch(p):
    import torch

    xs = [_torch(a) for a in _cat_inputs(p)]
    return lambda: torch.cat(xs, dim=0)


def cat_ember(p):
    import ember

    xs = [_ember(a) for a in _cat_inputs(p)]
    return lambda: ember.cat(xs, dim=0)


# -- indexing: gather, scatter-add, sort ----------------------------------------------------------

def _gather_inputs(p):
    import numpy as np

    n = p["n"]
    return _floats(n, 1), _rng(2).integers(0, n, n, dtype=np.int64), _floats(n, 3)


def gather_numpy(p):
    import numpy as np

    x, idx, _ = _gather_inputs(p)
    return lambda: np.take_along_axis(x, idx, axis=0)


def gather_torch(p):
    import torch

    x, idx, _ = map(_torch, _gather_inputs(p))
    return lambda: torch.gather(x, 0, idx)


def gather_ember(p):
    x, idx, _ = map(_ember, _gather_inputs(p))
    return lambda: x.gather(0, idx)


def scatter_numpy(p):
    import numpy as np

    x, idx, v = _gather_inputs(p)

    def run():
        out = x.copy()
        np.add.at(out, idx, v)
        return out
    return run


def scatter_torch(p):
    x, idx, v = map(_torch, _gather_inputs(p))
    return lambda: x.scatter_add(0, idx, v)


def scatter_ember(p):
    x, idx, v = map(_ember, _gather_inputs(p))
    return lambda: x.scatter(0, idx, v, "add")


def sort_numpy(p):
    import numpy as np

    x = _floats(p["n"], 1)
    return lambda: np.sort(x)


def sort_torch(p):
    import torch

    x = _torch(_floats(p["n"], 1))
    return lambda: torch.sort(x).values


def sort_ember(p):
    x = _ember(_floats(p["n"], 1))
    return lambda: x.sort()


# -- movement: a chain of views -------------------------------------------------------------------

def _view_shape(n):
    """A 3-d shape of ``n`` elements (``n`` a multiple of 100) for the view chain."""
    return (10, 10, n // 100)


def views_numpy(p):
    x = _floats(p["n"], 1)
    s = _view_shape(p["n"])
    return lambda: x.reshape(s).transpose(2, 0, 1)[1:, ::2, ::-1][None].swapaxes(-1, -2)


def views_torch(p):
    x = _torch(_floats(p["n"], 1))
    s = _view_shape(p["n"])
    # torch has no negative-step slicing: flip() copies, so the chain uses a positive step.
    return lambda: x.reshape(s).permute(2, 0, 1)[1:, ::2, 1:].unsqueeze(0).transpose(-1, -2)


def views_ember(p):
    x = _ember(_floats(p["n"], 1))
    s = _view_shape(p["n"])
    return lambda: x.reshape(s).permute(2, 0, 1)[1:, ::2, ::-1].unsqueeze(0).transpose(-1, -2)


# -- training steps -----------------------------------------------------------------------------

MLP_LR = 0.01
CNN_LR = 0.01


def _mlp_data(p):
    import numpy as np

    rng = _rng(10)
    x = rng.standard_normal((p["batch"], p["inp"]), dtype=np.float32)
    y = rng.integers(0, p["out"], p["batch"], dtype=np.int64)
    params = {}
    for name, shape, fan_in in (("0.weight", (p["hidden"], p["inp"]), p["inp"]),
                                ("0.bias", (p["hidden"],), p["inp"]),
                                ("2.weight", (p["out"], p["hidden"]), p["hidden"]),
                                ("2.bias", (p["out"],), p["hidden"])):
        bound = 1.0 / fan_in ** 0.5
        params[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
    return x, y, params


def mlp_numpy(p):
    import numpy as np

    x, y, params = _mlp_data(p)
    w1, b1, w2, b2 = (params[k].copy() for k in ("0.weight", "0.bias", "2.weight", "2.bias"))
    rows = np.arange(x.shape[0])
    n = x.shape[0]
    lr = np.float32(MLP_LR)

    def step():
        nonlocal w1, b1, w2, b2  # updated in place below
        h = x @ w1.T + b1
        r = np.maximum(h, 0)
        logits = r @ w2.T + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        s = e.sum(axis=1, keepdims=True)
        loss = (np.log(s[:, 0]) - shifted[rows, y]).mean()
        g = e / s                       # d loss / d logits = (softmax - onehot) / n
        g[rows, y] -= 1
        g /= n
        gw2 = g.T @ r
        gb2 = g.sum(axis=0)
        gh = g @ w2
        gh *= h > 0
        gw1 = gh.T @ x
        gb1 = gh.sum(axis=0)
        w1 -= lr * gw1
        b1 -= lr * gb1
        w2 -= lr * gw2
        b2 -= lr * gb2
        return loss
    return step


def mlp_torch(p):
    import torch
    from torch import nn

    x, y, params = _mlp_data(p)
    model = nn.Sequential(nn.Linear(p["inp"], p["hidden"]), nn.ReLU(),
                          nn.Linear(p["hidden"], p["out"]))
    model.load_state_dict({k: torch.from_numpy(v) for k, v in params.items()})
    opt = torch.optim.SGD(model.parameters(), lr=MLP_LR)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    loss_fn = nn.functional.cross_entropy

    def step():
        opt.zero_grad()
        loss = loss_fn(model(xt), yt)
        loss.backward()
        opt.step()
        return loss
    return step


def mlp_ember(p):
    import ember
    from ember import nn, optim
    from ember.nn import functional as F

    x, y, params = _mlp_data(p)
    model = nn.Sequential(nn.Linear(p["inp"], p["hidden"]), nn.ReLU(),
                          nn.Linear(p["hidden"], p["out"]))
    model.load_state_dict({k: ember.from_numpy(v) for k, v in params.items()})
    opt = optim.SGD(model.parameters(), lr=MLP_LR)
    xe, ye = ember.from_numpy(x), ember.from_numpy(y)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(xe), ye)
        loss.backward()
        opt.step()
        return loss
    return step


# The digits CNN of ember/train.py (build_model), parameter names as in its state_dict.
CNN_PARAMS = (
    ("0.weight", (16, 1, 3, 3), 9), ("0.bias", (16,), 9),
    ("1.weight", (16,), None), ("1.bias", (16,), None),
    ("4.weight", (32, 16, 3, 3), 144), ("4.bias", (32,), 144),
    ("5.weight", (32,), None), ("5.bias", (32,), None),
    ("9.weight", (10, 128), 128), ("9.bias", (10,), 128),
)


def _cnn_data(p):
    import numpy as np

    rng = _rng(20)
    x = rng.uniform(0, 1, (p["batch"], 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 10, p["batch"], dtype=np.int64)
    params = {}
    for name, shape, fan_in in CNN_PARAMS:
        if fan_in is None:  # batch-norm affine: weight near 1, bias near 0
            base = 1.0 if name.endswith("weight") else 0.0
            params[name] = (base + 0.1 * rng.standard_normal(shape)).astype(np.float32)
        else:
            bound = 1.0 / fan_in ** 0.5
            params[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
    return x, y, params


def cnn_torch(p):
    import torch
    from torch import nn

    x, y, params = _cnn_data(p)
    # a copy of ember.train.build_model's architecture
    model = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10),
    )
    model.load_state_dict({k: torch.from_numpy(v) for k, v in params.items()}, strict=False)
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=CNN_LR)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    loss_fn = nn.functional.cross_entropy

    def step():
        opt.zero_grad()
        loss = loss_fn(model(xt), yt)
        loss.backward()
        opt.step()
        return loss
    return step


def cnn_ember(p):
    import ember
    from ember import optim
    from ember.nn import functional as F
    from ember.train import build_model

    x, y, params = _cnn_data(p)
    model = build_model()
    model.load_state_dict({k: ember.from_numpy(v) for k, v in params.items()}, strict=False)
    model.train()
    opt = optim.Adam(model.parameters(), lr=CNN_LR)
    xe, ye = ember.from_numpy(x), ember.from_numpy(y)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(xe), ye)
        loss.backward()
        opt.step()
        return loss
    return step


GPT_SEED = 30


def _gpt_setup(lib, p):
    """(model, optimizer, batches, loss function) of the GPT of benchmarks/gpt.py in ``lib``,
    from the same NumPy weights and batches in every library."""
    params = gpt.init_params(p, GPT_SEED)
    data = gpt.batches(p, GPT_SEED + 1)
    if lib == "torch":
        import torch

        model = gpt.model("torch", p, params)
        opt = torch.optim.AdamW(model.parameters(), lr=gpt.LR, weight_decay=gpt.WEIGHT_DECAY)
        data = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in data]
        return model, opt, data, functools.partial(gpt.loss, "torch")
    import ember

    model = gpt.model("ember", p, params)
    opt = ember.optim.AdamW(model.parameters(), lr=gpt.LR, weight_decay=gpt.WEIGHT_DECAY)
    data = [(ember.from_numpy(x), ember.from_numpy(y)) for x, y in data]
    return model, opt, data, functools.partial(gpt.loss, "ember")


def _gpt_step(lib, p):
    model, opt, data, loss_fn = _gpt_setup(lib, p)
    model.train()
    calls = [0]

    def step():
        x, y = data[calls[0] % len(data)]  # the calls cycle through the same batches
        calls[0] += 1
        opt.zero_grad()
        loss = loss_fn(model, x, y)
        loss.backward()
        opt.step()
        return loss  # the first call's loss (step 0, same weights) is the fingerprint
    return step


def _gpt_forward(lib, p):
    model, _, data, _ = _gpt_setup(lib, p)
    x = data[0][0]
    return lambda: model(x)  # parameters require grad: the graph is recorded as in training


def gpt_step_torch(p):
    return _gpt_step("torch", p)


def gpt_step_ember(p):
    return _gpt_step("ember", p)


def gpt_forward_torch(p):
    return _gpt_forward("torch", p)


def gpt_forward_ember(p):
    return _gpt_forward("ember", p)


# -- torch.nn layers (issue 27's targets): ember.torch.nn against torch.nn ------------------------
#
# Each layer is built with the same constructor in ember.torch and in PyTorch; its parameters are
# then replaced by the same NumPy values (drawn by parameter name and shape from a fixed seed), so
# the two agree without either process importing the other library. A forward case returns the
# layer's output; a forward+backward case runs the forward, back-propagates a fixed gradient of
# the output and returns the input's gradient (EmbeddingBag: the weight's), all timed together.

def _layer_weights(shapes, offset):
    """NumPy values for parameters ``{name: shape}``: 1-D weights near 1, biases near 0, other
    weights uniform in ±1/√fan_in."""
    import numpy as np

    rng = _rng(offset)
    out = {}
    for name in sorted(shapes):
        shape = tuple(shapes[name])
        if name.split(".")[-1].startswith("bias") or name.endswith("_bias"):
            out[name] = rng.uniform(-0.1, 0.1, shape).astype(np.float32)
        elif len(shape) == 1:
            out[name] = (1.0 + 0.1 * rng.standard_normal(shape)).astype(np.float32)
        else:
            fan_in = int(np.prod(shape[1:]))
            bound = 1.0 / fan_in ** 0.5
            out[name] = rng.uniform(-bound, bound, shape).astype(np.float32)
    return out


def _dcgan_generator(nn, p):
    """The DCGAN generator (nz -> 3 x 64 x 64): five transposed convolutions, batch norm, ReLU,
    and a tanh at the end."""
    nz, ngf = p["nz"], p["ngf"]
    return nn.Sequential(
        nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8),
        nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4),
        nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2),
        nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
        nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh(),
    )


def _maxpool(nn, p):
    pool = nn.MaxPool2d(2, return_indices=True)
    return lambda x: pool(x)[0]  # the indices are computed; the values are the fingerprint


def _interpolate(nn, p):
    f = nn.functional.interpolate
    return lambda x: f(x, scale_factor=2, mode="bilinear", align_corners=False)


# layer name -> (builder(nn, p) returning a module or a function of the input, input kind)
NN_LAYERS = {
    "lstm": (lambda nn, p: nn.LSTM(p["hidden"], p["hidden"], num_layers=2), "seq"),
    "gru": (lambda nn, p: nn.GRU(p["hidden"], p["hidden"], num_layers=2), "seq"),
    "transformer": (lambda nn, p: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(p["d_model"], p["heads"], dropout=0.0, batch_first=True), 2,
        enable_nested_tensor=False), "float"),
    "dcgan": (_dcgan_generator, "float"),
    "interpolate": (_interpolate, "float"),
    "group_norm": (lambda nn, p: nn.GroupNorm(p["groups"], p["shape"][1]), "float"),
    "maxpool": (_maxpool, "float"),
    "embedding_bag": (lambda nn, p: nn.EmbeddingBag(p["num"], p["dim"], mode="mean"), "index"),
}


def _layer_setup(lib, layer, backward, p):
    """The timed function of one nn-layer case in ``lib`` ("ember": ember.torch, or "torch")."""
    import numpy as np

    if lib == "torch":
        import torch
    else:
        import ember.torch as torch
    build, kind = NN_LAYERS[layer]
    torch.manual_seed(SEED)
    module = build(torch.nn, p)
    weight = None
    if isinstance(module, torch.nn.Module):
        module.train()
        params = dict(module.named_parameters())
        values = _layer_weights({k: v.shape for k, v in params.items()}, 40)
        module.load_state_dict({k: torch.from_numpy(v) for k, v in values.items()}, strict=False)
        weight = params.get("weight")
    if kind == "index":
        x = torch.from_numpy(_rng(41).integers(0, p["num"], p["shape"], dtype=np.int64))
    else:
        x = torch.from_numpy(_floats(p["shape"], 41))
        if backward:
            x.requires_grad_(True)
    if kind == "seq":
        forward = lambda: module(x)[0]  # noqa: E731 - the output sequence, not (h, c)
    else:
        forward = lambda: module(x)  # noqa: E731
    if not backward:
        return forward
    g = torch.from_numpy(_floats(tuple(forward().shape), 42))
    grad_of = weight if kind == "index" else x

    def step():
        grad_of.grad = None
        forward().backward(g)
        return grad_of.grad
    return step


def _layer_cases():
    """The cases of the "nn_layers" group: each layer forward, and forward+backward."""
    sizes = {
        "lstm": ("LSTM, 2 layers, 256 hidden, sequence 35, batch 20",
                 {"hidden": 256, "shape": (35, 20, 256)}, {"hidden": 8, "shape": (3, 2, 8)}),
        "gru": ("GRU, 2 layers, 256 hidden, sequence 35, batch 20",
                {"hidden": 256, "shape": (35, 20, 256)}, {"hidden": 8, "shape": (3, 2, 8)}),
        "transformer": ("TransformerEncoder, 2 layers, d_model 128, 4 heads (feed-forward 2048, "
                        "dropout 0), sequence 64, batch 16",
                        {"d_model": 128, "heads": 4, "shape": (16, 64, 128)},
                        {"d_model": 8, "heads": 2, "shape": (2, 4, 8)}),
        "dcgan": ("DCGAN generator (nz 100, ngf 64, 64 x 64 images; ConvTranspose2d, BatchNorm2d "
                  "in training mode, ReLU, tanh), batch 64",
                  {"nz": 100, "ngf": 64, "shape": (64, 100, 1, 1)},
                  {"nz": 4, "ngf": 2, "shape": (2, 4, 1, 1)}),
        "interpolate": ("interpolate bilinear (align_corners=False), scale 2: (8, 32, 64, 64) -> "
                        "(8, 32, 128, 128)", {"shape": (8, 32, 64, 64)}, {"shape": (2, 2, 4, 4)}),
        "group_norm": ("GroupNorm(32, 256) of (16, 256, 32, 32), with weight and bias",
                       {"groups": 32, "shape": (16, 256, 32, 32)},
                       {"groups": 2, "shape": (2, 4, 3, 3)}),
        "maxpool": ("MaxPool2d(2, return_indices=True) of (16, 64, 64, 64)",
                    {"shape": (16, 64, 64, 64)}, {"shape": (2, 2, 4, 4)}),
        "embedding_bag": ("EmbeddingBag(10000, 128, mode='mean'), 64 bags of 50 indices",
                          {"num": 10000, "dim": 128, "shape": (64, 50)},
                          {"num": 20, "dim": 4, "shape": (2, 3)}),
    }
    out = []
    for layer, (title, full, quick) in sizes.items():
        for backward in (False, True):
            setups = {lib: functools.partial(_layer_setup, lib, layer, backward)
                      for lib in ("ember", "torch")}
            suffix = "_fwd_bwd" if backward else "_fwd"
            what = ("forward and backward of a fixed output gradient; *agree* compares the "
                    + ("weight's" if layer == "embedding_bag" else "input's") + " gradient"
                    if backward else "forward; the parameters require grad (graph recorded)")
            out.append(Case(f"{layer}{suffix}", "nn_layers", f"{title}: "
                            + ("forward + backward" if backward else "forward"), full, quick,
                            setups, note="ember.torch.nn against torch.nn, the same weights; "
                            + what + "; NumPy: no hand-written version"))
    return out


# -- the table ------------------------------------------------------------------------------------

def _libs(prefix, names=("ember", "numpy", "torch")):
    g = globals()
    return {lib: g[f"{prefix}_{lib}"] for lib in names}


CASES = [
    Case("add_8", "overhead", "a + b, 8 float32 elements (per-op overhead)",
         {"n": 8}, {"n": 8}, _libs("add")),
    Case("add_8_tracked", "overhead",
         "a + b, 8 elements, `a` requires grad (the op is recorded; no backward)",
         {"n": 8}, {"n": 8}, _libs("add_tracked", ("ember", "torch")),
         note="NumPy has no autodiff: compared with PyTorch only"),
    Case("add_4M", "large", "a + b, 4M float32", {"n": 4 * 2**20}, {"n": 1000}, _libs("add")),
    Case("inplace_add_4M", "inplace",
         "a.add_(b).sub_(b) (NumPy: np.add(a, b, out=a), np.subtract(a, b, out=a)), 4M float32",
         {"n": 4 * 2**20}, {"n": 1000}, _libs("inplace_add"), note="ember through ember.torch"),
    Case("inplace_add_8", "inplace", "a.add_(b).sub_(b), 8 float32 elements (per-op overhead)",
         {"n": 8}, {"n": 8}, _libs("inplace_add"), note="ember through ember.torch"),
    Case("inplace_slice_8", "inplace",
         "a[1:3] of 8 float32 elements (a view: its aliasing record)",
         {"n": 8}, {"n": 8}, _libs("inplace_slice"),
         note="ember through ember.torch: the view joins a's alias family"),
    Case("chain_4M", "large", "x * y + z, 4M float32", {"n": 4 * 2**20}, {"n": 1000},
         _libs("chain")),
    Case("sum_4M", "large", "sum of 4M float32", {"n": 4 * 2**20}, {"n": 1000}, _libs("sum")),
    Case("matmul_1024", "large", "1024 × 1024 @ 1024 × 1024, float32", {"n": 1024}, {"n": 16},
         _libs("matmul")),
    Case("softmax_4096x1024", "large", "softmax over the last dim of (4096, 1024) float32",
         {"shape": (4096, 1024)}, {"shape": (8, 16)}, _libs("softmax"),
         note="NumPy: hand-written stable softmax (max, exp, sum, divide)"),
    Case("gelu_4096x1024", "nn", "exact (erf) GELU of (4096, 1024) float32",
         {"shape": (4096, 1024)}, {"shape": (8, 16)}, _libs("gelu", ("ember", "torch")),
         note="NumPy has no erf: compared with PyTorch only"),
    Case("gelu_tanh_4096x1024", "nn", "tanh-approximated GELU of (4096, 1024) float32",
         {"shape": (4096, 1024)}, {"shape": (8, 16)}, _libs("gelu_tanh"),
         note="NumPy: hand-written 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))"),
    Case("layer_norm_4096x1024", "nn",
         "layer_norm over the last dim of (4096, 1024) float32, with weight and bias",
         {"shape": (4096, 1024)}, {"shape": (8, 16)}, _libs("layer_norm"),
         note="NumPy: hand-written mean, variance, normalise, scale and shift"),
    Case("log_softmax_4096x1024", "nn", "log_softmax over the last dim of (4096, 1024) float32",
         {"shape": (4096, 1024)}, {"shape": (8, 16)}, _libs("log_softmax"),
         note="NumPy: hand-written stable log-softmax"),
    Case("softmax_backward_4096x1024", "nn",
         "backward of softmax over the last dim of (4096, 1024) float32, given the gradient",
         {"shape": (4096, 1024)}, {"shape": (8, 16)}, _libs("softmax_backward"),
         note="ember, PyTorch: the time of a recorded forward and `y.backward(g)` minus the "
              "time of the recorded forward alone (measured alternately); NumPy: the "
              "backward formula y (g − Σ g y) on the saved output"),
    Case("layer_norm_backward_4096x1024", "nn",
         "backward of layer_norm (weight, bias) over the last dim of (4096, 1024) float32",
         {"shape": (4096, 1024)}, {"shape": (8, 16)},
         _libs("layer_norm_backward", ("ember", "torch")),
         note="forward and `y.backward(g)` minus the forward alone; the gradient of the input is "
              "compared (weight and bias do not require grad)"),
    Case("gelu_backward_4096x1024", "nn", "backward of exact GELU of (4096, 1024) float32",
         {"shape": (4096, 1024)}, {"shape": (8, 16)},
         _libs("gelu_backward", ("ember", "torch")),
         note="forward and `y.backward(g)` minus the forward alone"),
    Case("transpose_copy_4096x1024", "layout", "(4096, 1024).T.contiguous(), float32",
         {"shape": (4096, 1024)}, {"shape": (8, 16)}, _libs("transpose")),
    Case("sum_axis0_4096x1024", "layout", "(4096, 1024).sum(0), float32: a column reduction",
         {"shape": (4096, 1024)}, {"shape": (8, 16)}, _libs("sum0")),
    Case("sum_rows_4096x1024", "layout", "(4096, 1024).sum(-1), float32: a row reduction",
         {"shape": (4096, 1024)}, {"shape": (8, 16)}, _libs("sum_rows")),
    Case("max_rows_4096x1024", "layout", "(4096, 1024).max(-1), float32: the row maxima",
         {"shape": (4096, 1024)}, {"shape": (8, 16)}, _libs("max_rows"),
         note="values only: PyTorch's `amax(x, -1)`, ember's `x.max(-1)` (indices computed only "
              "when asked for), NumPy's `x.max(-1)`"),
    Case("permute_copy", "large", "(256, 256, 64).permute(2, 0, 1).contiguous(), float32",
         {"shape": (256, 256, 64)}, {"shape": (4, 4, 2)}, _libs("permute")),
    Case("cat_100", "large", "cat of 100 × (64, 64) float32 along dim 0",
         {"count": 100, "shape": (64, 64)}, {"count": 5, "shape": (4, 4)}, _libs("cat")),
    Case("gather_1M", "large", "gather along dim 0, 1M float32 at 1M random int64 indices",
         {"n": 2**20}, {"n": 1000}, _libs("gather"),
         note="NumPy: take_along_axis"),
    Case("scatter_add_1M", "large", "scatter-add of 1M values into 1M float32 at random indices",
         {"n": 2**20}, {"n": 1000}, _libs("scatter"),
         note="NumPy: copy + np.add.at; ember: scatter(0, idx, v, 'add')"),
    Case("sort_1M", "large", "sort of 1M float32", {"n": 2**20}, {"n": 1000}, _libs("sort"),
         note="PyTorch's sort also returns the indices"),
    Case("views_4M", "movement",
         "reshape → permute → slice with steps → unsqueeze → transpose of 4M float32 (views)",
         {"n": 4_000_000}, {"n": 1000}, _libs("views"), check=("ember", "numpy"),
         note="PyTorch has no negative slice steps: its chain uses `1:` where the others use "
              "`::-1`"),
    Case("mlp_step", "training",
         "784-256-10 MLP, batch 128: forward, cross-entropy, backward, SGD update",
         {"batch": 128, "inp": 784, "hidden": 256, "out": 10},
         {"batch": 4, "inp": 16, "hidden": 8, "out": 10}, _libs("mlp"),
         note="NumPy: a hand-written forward, backward and in-place update"),
    Case("cnn_step", "training",
         "digits CNN of ember/train.py, batch 32 of 1×8×8: forward, backward, Adam update",
         {"batch": 32}, {"batch": 2}, _libs("cnn", ("ember", "torch")),
         note="NumPy: no hand-written CNN; PyTorch: the same architecture"),
    Case("gpt_step", "training",
         "nanoGPT-style GPT (2 layers, 4 heads, 64 wide, block 64, 65 characters), batch 16: "
         "forward, cross-entropy, backward, AdamW update",
         dict(GPT_FULL), dict(GPT_QUICK), _libs("gpt_step", ("ember", "torch")),
         note="benchmarks/gpt.py, one model code built with ember and with PyTorch, the same "
              "initial weights and batches; *agree* compares the loss of step 0"),
    Case("gpt_forward", "training", "the GPT's forward alone: logits of one batch of 16 × 64",
         dict(GPT_FULL), dict(GPT_QUICK), _libs("gpt_forward", ("ember", "torch")),
         note="the parameters require grad, so the graph is recorded as in a training step"),
]


LAYER_CASES = _layer_cases()
CASES.extend(LAYER_CASES)


# -- small models: the cost per call (benchmarks/small_models.py) -------------------------------

def _small(setup, arg, compiled=False, torch_compiled=False):
    """ember (through ember.torch) and PyTorch setups of ``small_models.<setup>``; ``arg`` is
    the case's parameter the setup takes (None: the parameters themselves). ``compiled``:
    ember's step through ``ember.torch.compile``; ``torch_compiled``: PyTorch's through
    ``torch.compile`` (else eager)."""
    fn = getattr(small_models, setup)

    def pick(p):
        return p if arg is None else p[arg]
    ours = {"compiled": True} if compiled else {}
    theirs = {"compiled": True} if torch_compiled else {}
    return {"ember": lambda p: fn("ember.torch", pick(p), **ours),
            "torch": lambda p: fn("torch", pick(p), **theirs)}


SMALL_CASES = [
    Case(f"call_{op}", "per_call", f"`{expr}` on (32, 64) float32, x requires grad (recorded)",
         {"op": op}, {"op": op}, _small("per_call_setup", "op"),
         note="ember through ember.torch" if op == "add" else "")
    for op, expr in small_models.PER_CALL.items()
] + [
    Case("makemore_step", "small_models",
         "makemore-style transformer (4 layers, width 64, 4 heads, block 16, batch 32): forward, "
         "cross-entropy, backward, AdamW", dict(small_models.MAKEMORE),
         dict(small_models.GPT_QUICK), _small("gpt_step_setup", None),
         note="benchmarks/gpt.py's GPT at these sizes; ember through ember.torch"),
    Case("mingpt_step", "small_models",
         "minGPT-sized transformer (3 layers, width 48, 3 heads, block 32, batch 32): forward, "
         "cross-entropy, backward, AdamW", dict(small_models.MINGPT),
         dict(small_models.GPT_QUICK), _small("gpt_step_setup", None)),
    Case("char_rnn_step", "small_models",
         "the name-classification tutorial's RNN (hidden 128), one 8-letter name: forward, NLL, "
         "backward, `p.data.add_(p.grad.data, alpha=-lr)`", dict(small_models.RNN),
         dict(small_models.RNN_QUICK), _small("char_rnn_setup", None)),
    Case("actor_critic_step", "small_models",
         "actor-critic example (4-128 trunk, policy and value heads), batch 1: Categorical "
         "sample, losses, backward, Adam", dict(small_models.AC), dict(small_models.AC_QUICK),
         _small("actor_critic_setup", None),
         note="*agree* compares the value estimate of step 0 (the sampled actions differ: each "
              "library draws its own random stream)"),
] + [
    Case(f"{name}_compiled", "small_models", f"{name}, ember's step through "
         "`ember.torch.compile` (recorded kernels replayed) against PyTorch eager",
         dict(full), dict(quick), _small(setup, None, compiled=True),
         note="the actor-critic's compiled step reads `value.detach()` for `value.item()`"
         if name == "actor_critic_step" else "")
    for name, setup, full, quick in small_models.STEPS
] + [
    Case(f"{name}_vs_torch_compile", "small_models", f"{name}, ember's step through "
         "`ember.torch.compile` against PyTorch's through `torch.compile` (its first call, "
         "the warm-up, compiles: 10-40 s)", dict(full), dict(quick),
         _small(setup, None, compiled=True, torch_compiled=True))
    for name, setup, full, quick in small_models.STEPS
]
CASES.extend(SMALL_CASES)


# -- scaling: time against size ------------------------------------------------------------------

SCALING_SIZES = (10**3, 10**4, 10**5, 10**6, 10**7)
QUICK_SCALING_SIZES = (10**3, 10**4)
SCALING_OPS = {
    "add": ("elementwise a + b", "add"),
    "sum": ("reduction sum()", "sum"),
    "views": ("movement chain (reshape, permute, slice, unsqueeze, transpose)", "views"),
}
SCALING_LIBS = ("ember", "numpy")


def scaling_cases(quick):
    """One Case per (op, size) of the scaling table, for ember and NumPy."""
    out = []
    for op, (title, prefix) in SCALING_OPS.items():
        for n in (QUICK_SCALING_SIZES if quick else SCALING_SIZES):
            out.append(Case(f"scale_{op}_{n:.0e}".replace("+0", "").replace("+", ""), "scaling",
                            f"{title}, {n:,} elements", {"n": n}, {"n": n},
                            _libs(prefix, SCALING_LIBS)))
    return out


def all_cases(quick=False):
    return CASES + scaling_cases(quick)


def by_name(quick=False):
    return {c.name: c for c in all_cases(quick)}
