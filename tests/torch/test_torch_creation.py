"""ember.torch's creation functions against PyTorch: dtypes, shapes, values, overloads."""

import math

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError
from oracle import has_views

rng = np.random.default_rng(3)


def name(dtype):
    return str(dtype).replace("torch.", "").replace("ember.", "")


def same(e, t, tol=1e-6):
    assert isinstance(e, et.Tensor)
    assert tuple(e.shape) == tuple(t.shape)
    assert name(e.dtype) == name(t.dtype)
    np.testing.assert_allclose(np.asarray(e.tolist(), dtype=np.float64).reshape(tuple(t.shape)),
                               t.detach().double().numpy(), rtol=tol, atol=tol)


def run(expr):
    return eval(expr, {"m": torch, "np": np}), eval(expr, {"m": et, "np": np})


@pytest.mark.parametrize("expr", [
    "m.tensor([1.0, 2])", "m.tensor([1, 2])", "m.tensor([True, False])", "m.tensor(3.5)",
    "m.tensor([[1, 2], [3, 4]], dtype=m.float64)", "m.tensor([])", "m.tensor(np.float64(1.5))",
    "m.tensor([m.tensor(1.0), m.tensor(2.0)])", "m.tensor(np.arange(3, dtype=np.int32))",
    "m.zeros(2, 3)", "m.zeros((2, 3), dtype=m.int32)", "m.zeros(())", "m.zeros(0, 2)",
    "m.ones([2])", "m.full((2,), 1)", "m.full((2,), 1.5)", "m.full((2, 1), True)",
    "m.full([2], 3, dtype=m.float64)", "m.full((2,), 2.7, dtype=m.int64)",
    "m.full((2,), -2.7, dtype=m.int32)", "m.full((2,), 0.2, dtype=m.bool)",
    "m.full_like(m.ones(2, dtype=m.int64), 2.7)", "m.full_like(m.ones(2), 2, dtype=m.float64)",
    "m.ones(1, dtype=m.int16).new_full((2,), -3.9)", "m.full(m.Size([2, 1]), 1.5)",
    "m.zeros_like(m.ones(2, dtype=m.int32))",
    "m.ones_like(m.ones(2), dtype=m.int64)", "m.full_like(m.ones(2, 3), 7)",
    "m.arange(5)", "m.arange(1, 4)", "m.arange(0, 1, 0.25)", "m.arange(5.0)",
    "m.arange(10, 0, -3)", "m.arange(0, 5, 2, dtype=m.float64)",
    "m.range(1, 4)", "m.range(0, 1, 0.25)", "m.range(5, 1, -2)", "m.range(0, 3, dtype=m.int64)",
    "m.linspace(0, 1, 5)", "m.linspace(-2, 10, 3, dtype=m.int64)", "m.linspace(0, 1, 1)",
    "m.logspace(0, 2, 3)", "m.logspace(-1, 1, 4, base=2.0)", "m.logspace(0, 3, 4, dtype=m.int64)",
    "m.logspace(0, 1, 0)", "m.eye(3)", "m.eye(2, 3, dtype=m.int64)",
    "m.complex(m.ones(2), -m.ones(2)).abs()", "m.polar(m.ones(2), m.ones(2)).angle()",
    "m.heaviside(m.tensor([-1.0, 0.0, 2.0, 0.0]), m.tensor([0.5, 0.5, 0.5, 3.0]))",
    "m.heaviside(m.tensor([-1, 0, 2]), m.tensor(7))",
    "m.tensor([-1.0, 0.0]).heaviside(m.tensor(0.25))",
    "m.empty_strided((2, 3), (1, 2)).zero_()", "m.empty(2, 3).fill_(1)",
    "m.as_tensor([1, 2])", "m.as_tensor(np.arange(3.0))", "m.as_tensor([1, 2], dtype=m.float64)",
    "m.as_tensor(m.ones(2), dtype=m.int32)", "m.asarray([1.5, 2])",
    "m.asarray(np.ones(2, dtype=np.float32), dtype=m.float64)", "m.asarray(m.ones(2), copy=True)",
    "m.clone(m.arange(3))",
    "m.ones(2, dtype=m.int32).new_zeros(3)", "m.ones(2, dtype=m.int32).new_zeros((3, 1))",
    "m.ones(2).new_ones(2, 3, dtype=m.float64)", "m.ones(2, dtype=m.int64).new_full((2,), 4)",
    "m.ones(2).new_empty(0).zero_()", "m.ones(2, dtype=m.float64).new_tensor([1, 2])",
    "m.ones(2).new_tensor(m.tensor([1, 2]))", "m.ones(2, dtype=m.int8).new_zeros(())",
])
def test_values(expr):
    t, e = run(expr)
    same(e, t)


def test_as_tensor_shares():
    e = et.ones(2)
    assert et.as_tensor(e) is e and et.asarray(e) is e
    a = np.arange(3.0)
    shared = et.as_tensor(a)
    a[0] = 9.0  # ember's view of the array sees the write, as PyTorch's does (a device
    assert shared.tolist()[0] == (9.0 if has_views(shared) else 0.0)  # without views copies)
    assert torch.as_tensor(a).tolist()[0] == 9.0
    with pytest.raises(InvalidParameterError):
        et.asarray(et.ones(2), dtype=et.float64, copy=False)


def test_requires_grad_options():
    for expr in ("m.asarray([1.0], requires_grad=True)", "m.range(0, 2, requires_grad=True)",
                 "m.logspace(0, 1, 2, requires_grad=True)",
                 "m.rand_like(m.ones(2), requires_grad=True)",
                 "m.ones(1).new_zeros(2, requires_grad=True)",
                 "m.ones(1).new_tensor([1.0], requires_grad=True)",
                 "m.empty_strided((2,), (1,), requires_grad=True)"):
        t, e = run(expr)
        assert e.requires_grad == t.requires_grad is True and e.is_leaf


@pytest.mark.parametrize("fn,kwargs", [("rand_like", {}), ("randn_like", {}),
                                       ("rand_like", {"dtype": "float64"}),
                                       ("randn_like", {"dtype": "float16"}),
                                       ("randint_like", {"high": 5}),
                                       ("randint_like", {"low": 3, "high": 5, "dtype": "int32"})])
@pytest.mark.parametrize("shape", [(2, 3), (), (0,)])
@pytest.mark.half_precision
def test_random_like(fn, kwargs, shape):
    kt = {k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()}
    ke = {k: getattr(et, v) if k == "dtype" else v for k, v in kwargs.items()}
    rt = getattr(torch, fn)(torch.ones(shape), **kt)
    re = getattr(et, fn)(et.ones(shape), **ke)
    assert tuple(re.shape) == tuple(rt.shape) and name(re.dtype) == name(rt.dtype)
    if fn == "randint_like":
        vals = re.tolist() if shape else [re.tolist()]
        assert all(kwargs.get("low", 0) <= v < kwargs["high"] for v in np.ravel(vals))


def test_random_like_stats_and_generator():
    g = et.Generator().manual_seed(5)
    x = et.randn_like(et.zeros(20000), generator=g)
    assert abs(x.mean().item()) < 0.03 and abs((x * x).mean().item() - 1) < 0.05
    u = et.rand_like(et.zeros(20000, dtype=et.float64))
    assert 0 <= u.min().item() and u.max().item() < 1 and abs(u.mean().item() - 0.5) < 0.02
    g1, g2 = et.Generator().manual_seed(7), et.Generator().manual_seed(7)
    assert et.rand_like(et.zeros(4), generator=g1).tolist() == \
        et.rand_like(et.zeros(4), generator=g2).tolist()


def test_normal_overloads():
    mean, std = torch.tensor([0.0, 10.0, -5.0]), torch.tensor([0.0, 0.0, 0.0])
    same(et.normal(et.tensor([0.0, 10.0, -5.0]), et.tensor([0.0, 0.0, 0.0])),
         torch.normal(mean, std))
    same(et.normal(et.tensor([1.0, 2.0]), 0.0), torch.normal(torch.tensor([1.0, 2.0]), 0.0))
    same(et.normal(3.0, et.zeros(2, 2)), torch.normal(3.0, torch.zeros(2, 2)))
    same(et.normal(2.0, 0.0, (3,)), torch.normal(2.0, 0.0, (3,)))
    same(et.normal(2.0, 0.0, size=(2, 1)), torch.normal(2.0, 0.0, size=(2, 1)))
    same(et.normal(et.zeros(2, 1), et.zeros(3)), torch.normal(torch.zeros(2, 1), torch.zeros(3)))
    x = et.normal(et.full((20000,), 3.0), 2.0)
    assert abs(x.mean().item() - 3.0) < 0.1 and abs(((x - 3) ** 2).mean().item() - 4) < 0.2
    assert et.normal(0.0, 1.0, (2,), dtype=et.float64).dtype == et.float64
    for lib in (torch, et):  # recorded, with zero gradients to mean and std, as PyTorch's
        m = lib.tensor([1.0, 2.0], requires_grad=True)
        s = lib.tensor([0.5, 0.5], requires_grad=True)
        out = lib.normal(m, s) + lib.normal(m, 2.0)
        assert out.requires_grad
        out.sum().backward()
        assert m.grad.tolist() == [0.0, 0.0] and s.grad.tolist() == [0.0, 0.0]
    with pytest.raises(InvalidParameterError):
        et.normal(0.0, 1.0)
    with pytest.raises(InvalidParameterError):
        et.normal(0.0, -1.0, (2,))
    with pytest.raises(InvalidParameterError):
        et.normal(et.zeros(2), -1.0)
    with pytest.raises(KindError):
        et.normal(et.zeros(2, dtype=et.int64), 1.0)


def test_bernoulli():
    same(et.bernoulli(et.tensor([0.0, 1.0, 1.0])), torch.bernoulli(torch.tensor([0.0, 1.0, 1.0])))
    same(et.tensor([0.0, 1.0], dtype=et.float64).bernoulli(),
         torch.tensor([0.0, 1.0], dtype=torch.float64).bernoulli())
    same(et.bernoulli(et.zeros(3), 1.0), torch.bernoulli(torch.zeros(3), 1.0))
    g = et.Generator().manual_seed(1)
    x = et.bernoulli(et.full((10000,), 0.2), generator=g)
    assert abs(x.mean().item() - 0.2) < 0.02
    for lib in (torch, et):  # recorded, with a zero gradient, as PyTorch's
        p = lib.tensor([0.3, 0.7], requires_grad=True)
        out = lib.bernoulli(p)
        assert out.requires_grad
        out.sum().backward()
        assert p.grad.tolist() == [0.0, 0.0]
    with pytest.raises(InvalidParameterError):
        et.bernoulli(et.tensor([1.5]))
    with pytest.raises(KindError):
        et.bernoulli(et.tensor([1]))


def test_seeds_and_state():
    g = et.manual_seed(11)
    assert g is et.default_generator and g.initial_seed() == torch.manual_seed(11).initial_seed()
    a = et.randn(3).tolist()
    et.manual_seed(11)
    assert et.randn(3).tolist() == a
    state = et.get_rng_state()
    b = et.rand(2).tolist()
    et.set_rng_state(state)
    assert et.rand(2).tolist() == b
    assert isinstance(et.seed(), int) and isinstance(et.initial_seed(), int)


def test_randint_rand_randperm_multinomial_signatures():
    for expr in ("m.randint(10, (3,))", "m.randint(3, 10, (2, 2))", "m.randint(0, 10, size=(2,))",
                 "m.randint(5, (2,), dtype=m.int32)", "m.randn(2, 3)", "m.randn((2, 3))",
                 "m.rand(2, dtype=m.float64)", "m.randperm(5)", "m.randperm(0)",
                 "m.multinomial(m.tensor([0.2, 0.8]), 3, replacement=True)",
                 "m.multinomial(m.tensor([[0.2, 0.8], [0.5, 0.5]]), 2)"):
        t, e = run(expr)
        assert tuple(e.shape) == tuple(t.shape) and name(e.dtype) == name(t.dtype), expr
    assert sorted(et.randperm(6).tolist()) == list(range(6))


def test_default_dtype():
    assert name(et.get_default_dtype()) == name(torch.get_default_dtype())
    try:
        et.set_default_dtype(et.float64)
        torch.set_default_dtype(torch.float64)
        for expr in ("m.tensor([1.5])", "m.zeros(2)", "m.arange(0.0, 1.0, 0.5)", "m.range(0, 2)",
                     "m.linspace(0, 1, 3)", "m.tensor([1.0]) + 1", "m.tensor([1]) / 2",
                     "m.tensor([1 + 2j])", "m.ones(2).new_tensor([1.5])", "m.tensor(2.5)"):
            t, e = run(expr)
            assert name(e.dtype) == name(t.dtype), expr
        assert name(et.get_default_dtype()) == "float64"
    finally:
        et.set_default_dtype(et.float32)
        torch.set_default_dtype(torch.float32)
    assert et.tensor([1.5]).dtype == et.float32
    with pytest.raises(KindError):
        et.set_default_dtype(et.int64)


def test_default_device():
    before = et.get_default_device()
    try:
        et.set_default_device("cpu")
        assert et.zeros(1).device.type == "cpu"
    finally:
        et.set_default_device(before)


def test_printoptions():
    values = [1.23456789, 1e-5, 123.0, float("nan")]
    try:
        for opts in ({"precision": 2}, {"precision": 6, "sci_mode": False},
                     {"sci_mode": True}, {"profile": "short"}, {"threshold": 5, "edgeitems": 2},
                     {"linewidth": 30}, {"profile": "full"}):
            torch.set_printoptions(**opts)
            et.set_printoptions(**opts)
            for data in (values, [[0.5, 2.0], [3.25, -1.0]], list(range(12))):
                assert repr(et.tensor(data)) == repr(torch.tensor(data)), (opts, data)
            torch.set_printoptions(profile="default")
            et.set_printoptions(profile="default")
    finally:
        torch.set_printoptions(profile="default")
        et.set_printoptions(profile="default")
    with pytest.raises(InvalidParameterError):
        et.set_printoptions(profile="long")


def test_range_and_creation_errors():
    with pytest.raises(InvalidParameterError):
        et.range(0, 1, 0)
    with pytest.raises(InvalidParameterError):
        et.range(2, 0, 1)
    with pytest.raises(InvalidParameterError):
        et.ones(2).new_zeros(-1)
    with pytest.raises(InvalidParameterError):
        et.empty_strided((2, 3), (1,))
    with pytest.raises(KindError):
        et.heaviside(et.tensor([1.0]), et.tensor([1]))
    with pytest.raises(KindError):
        et.rand_like([1.0])
    assert math.isclose(et.logspace(0, 1, 2, base=math.e).tolist()[1], math.e, rel_tol=1e-6)
