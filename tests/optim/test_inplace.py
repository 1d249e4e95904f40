"""The optimizers' in-place update: SGD writes a parameter's new value into its own buffer only
when nothing else refers to that buffer (``Tensor.can_mut`` on CPython before 3.14), with the
values of the general path (a new array each step), and never changes another tensor, view or
NumPy array."""

import sys
import warnings

import numpy as np
import pytest
import torch

import ember
from ember import nn, optim
from ember.nn import functional as F
from ember.optim import optimizer as optimizer_mod

EXACT = optimizer_mod._EXACT_REFCOUNTS

SGD_OPTIONS = [
    {"lr": 0.1},
    {"lr": 0.1, "momentum": 0.9},
    {"lr": 0.05, "momentum": 0.9, "dampening": 0.5},
    {"lr": 0.05, "momentum": 0.8, "nesterov": True},
    {"lr": 0.1, "weight_decay": 0.1},
    {"lr": 0.01, "momentum": 0.9, "maximize": True, "weight_decay": 0.01},
]


def _train(options, dtype, steps, general, monkeypatch=None):
    """A few SGD steps of a tiny regression; ``general`` forces the allocating path (the
    reference-count gate off). Returns the parameters' values after each step and whether each
    step kept every parameter's buffer."""
    rng = np.random.default_rng(0)
    w = ember.tensor(rng.standard_normal((4, 3)), dtype=dtype).require_grad()
    b = ember.tensor(rng.standard_normal(3), dtype=dtype).require_grad()
    x = ember.tensor(rng.standard_normal((5, 4)), dtype=dtype)
    opt = optim.SGD([w, b], **options)
    history, kept = [], []
    for _ in range(steps):
        opt.zero_grad()
        ((x.matmul(w) + b).tanh() ** 2).sum().backward()
        ids = (id(w._data), id(b._data))
        if general:
            monkeypatch.setattr(optimizer_mod, "_EXACT_REFCOUNTS", False)
        opt.step()
        if general:
            monkeypatch.setattr(optimizer_mod, "_EXACT_REFCOUNTS", EXACT)
        kept.append(ids == (id(w._data), id(b._data)))
        history.append([np.array(w.numpy(), copy=True), np.array(b.numpy(), copy=True)])
    return history, kept


@pytest.mark.parametrize("options", SGD_OPTIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_sgd_in_place_equals_the_allocating_path(monkeypatch, options, dtype):
    fast, kept = _train(options, dtype, 4, general=False)
    slow, kept_slow = _train(options, dtype, 4, general=True, monkeypatch=monkeypatch)
    for a, b in zip(fast, slow):
        for x, y in zip(a, b):
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes()   # bit for bit
    assert not any(kept_slow)
    # float32/float64 buffers are reused where reference counts are exact; half precision
    # is computed in float32 and stored as a new array
    assert all(kept) == (EXACT and dtype != "float16")


def test_sgd_in_place_matches_torch():
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((16, 6)).astype(np.float32), rng.integers(0, 3, 16)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    tmodel = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    with torch.no_grad():
        for p, tp in zip(model.parameters(), tmodel.parameters()):
            tp.copy_(torch.from_numpy(np.array(p.numpy())))
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    topt = torch.optim.SGD(tmodel.parameters(), lr=0.1, momentum=0.9)
    xe, ye = ember.tensor(x), ember.tensor(y)
    ids = [id(p._data) for p in model.parameters()]
    for _ in range(5):
        opt.zero_grad()
        F.cross_entropy(model(xe), ye).backward()
        opt.step()
        topt.zero_grad()
        torch.nn.functional.cross_entropy(tmodel(torch.from_numpy(x)), torch.from_numpy(y)
                                          ).backward()
        topt.step()
    for p, tp in zip(model.parameters(), tmodel.parameters()):
        np.testing.assert_allclose(p.numpy(), tp.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert ([id(p._data) for p in model.parameters()] == ids) == EXACT


def _torch_view(p):
    """A torch tensor sharing p's buffer (torch warns that the NumPy view is read-only)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(p.numpy())


def _holders():
    """Ways to keep a reference to a parameter's buffer; each must block the in-place update."""
    return {
        "view": lambda p: p.reshape(-1),
        "slice": lambda p: p[0],
        "transpose": lambda p: p.t(),
        "detach": lambda p: p.detach(),
        "numpy": lambda p: p.numpy(),
        "array": lambda p: np.asarray(p),
        "memoryview": lambda p: memoryview(p.numpy()),
        "torch": _torch_view,
        "Tensor(p)": lambda p: ember.Tensor(p),
        "forward graph": lambda p: (p * p).sum(),     # its backward keeps p's array
    }


@pytest.mark.parametrize("name", list(_holders()))
def test_sgd_never_writes_into_a_shared_buffer(name):
    p = ember.tensor(np.arange(6.0).reshape(2, 3)).require_grad()
    opt = optim.SGD([p], lr=0.5)
    (p * p).sum().backward()
    holder = _holders()[name](p)
    seen = holder
    if name == "forward graph":
        before = None
    elif isinstance(seen, ember.Tensor):
        before = np.array(seen.numpy(), copy=True)
    elif isinstance(seen, torch.Tensor):
        before = seen.clone()
    else:
        before = np.array(seen, copy=True)
    buffer = id(p._data)
    opt.step()
    assert id(p._data) != buffer
    np.testing.assert_array_equal(p.numpy(), np.arange(6.0).reshape(2, 3) * 0.0)  # p - 0.5 * 2p
    if name == "forward graph":
        holder.backward()            # the recorded step still sees the old weights: 2p + 2p
        np.testing.assert_array_equal(p.grad.numpy(), 4 * np.arange(6.0).reshape(2, 3))
    elif isinstance(seen, ember.Tensor):
        np.testing.assert_array_equal(seen.numpy(), before)
    elif isinstance(seen, torch.Tensor):
        assert torch.equal(seen, before)
    else:
        np.testing.assert_array_equal(np.asarray(seen), before)


def test_sgd_never_writes_into_a_users_numpy_array():
    arr = np.arange(6.0)
    p = ember.from_numpy(arr).require_grad()
    opt = optim.SGD([p], lr=0.5)
    (p * p).sum().backward()
    opt.step()
    np.testing.assert_array_equal(arr, np.arange(6.0))
    np.testing.assert_array_equal(p.numpy(), np.zeros(6))


def test_sgd_never_writes_into_a_read_only_or_borrowed_buffer():
    base = np.arange(12.0)
    for make in (lambda: ember.from_numpy(base[:6].copy()[::2]),   # a view: owns no memory
                 lambda: ember.from_numpy(np.frombuffer(bytearray(48)))):   # borrowed memory
        p = make().require_grad()
        opt = optim.SGD([p], lr=0.1)
        (p * p).sum().backward()
        buffer = id(p._data)
        opt.step()
        assert id(p._data) != buffer
        np.testing.assert_allclose(p.numpy(), np.asarray(make().numpy()) * 0.8)


@pytest.mark.skipif(not EXACT, reason="reference counts are not exact on this Python")
def test_sgd_updates_in_place_when_the_parameter_alone_holds_its_buffer():
    p = ember.tensor(np.arange(6.0)).require_grad()
    opt = optim.SGD([p], lr=0.5, momentum=0.9)
    for _ in range(3):
        opt.zero_grad()
        (p * p).sum().backward()
        buffer = id(p._data)         # (holding the array itself would block the update)
        opt.step()
        assert id(p._data) == buffer
    grad = p.grad                    # the gradient tensor is never written into
    before = np.array(grad.numpy(), copy=True)
    opt.step()
    np.testing.assert_array_equal(grad.numpy(), before)


def test_refcount_gate_matches_the_interpreter():
    free_threaded = bool(__import__("sysconfig").get_config_var("Py_GIL_DISABLED"))
    expected = (sys.implementation.name == "cpython" and sys.version_info < (3, 14)
                and not free_threaded)
    assert EXACT == expected


def test_gate_off_allocates_every_step(monkeypatch):
    monkeypatch.setattr(optimizer_mod, "_EXACT_REFCOUNTS", False)
    p = ember.tensor(np.arange(6.0)).require_grad()
    opt = optim.SGD([p], lr=0.5)
    (p * p).sum().backward()
    buffer = id(p._data)
    opt.step()
    assert id(p._data) != buffer
    np.testing.assert_array_equal(p.numpy(), np.zeros(6))
