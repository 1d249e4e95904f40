"""Tests of ember/nn/init.py's PyTorch spellings with the trailing underscore (and trunc_normal,
orthogonal): statistics, bounds, shapes and dtypes against torch.nn.init on the same shapes; the
tensor object is rebound (tied weights stay tied, a parameter stays the same leaf); generators
reproduce; bad input."""

import doctest
import math

import numpy as np
import pytest
import torch

import ember
from ember import nn
from ember.nn import init
from oracle import assert_unchanged, snapshot

TDTYPE = {"float32": torch.float32, "float64": torch.float64}


def _pair(shape, dtype):
    return ember.zeros(*shape, dtype=dtype), torch.zeros(*shape, dtype=TDTYPE[dtype])


def _stats(t):
    a = np.asarray(t.numpy() if isinstance(t, ember.Tensor) else t.detach().numpy(), np.float64)
    return a.mean(), a.std(), a.min(), a.max()


CASES = [
    ("uniform_", (-0.5, 2.0), {}),
    ("normal_", (1.0, 0.3), {}),
    ("trunc_normal_", (), {"std": 1.0, "a": -1.0, "b": 1.5}),
    ("trunc_normal_", (), {"mean": 0.1, "std": 0.02}),
    ("xavier_uniform_", (), {"gain": 2.0}),
    ("xavier_normal_", (), {}),
    ("kaiming_uniform_", (), {"a": math.sqrt(5)}),
    ("kaiming_uniform_", (), {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", (), {}),
    ("kaiming_normal_", (), {"mode": "fan_out", "nonlinearity": "tanh"}),
]


@pytest.mark.parametrize("name,args,kwargs", CASES)
@pytest.mark.parametrize("shape", [(300, 200), (64, 30, 3, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_initialisers_match_torch_statistics(name, args, kwargs, shape, dtype):
    ember.manual_seed(0)
    torch.manual_seed(0)
    t, tt = _pair(shape, dtype)
    out = getattr(init, name)(t, *args, **kwargs)
    getattr(torch.nn.init, name)(tt, *args, **kwargs)
    assert out is t and t.shape == shape and t.dtype.name == dtype
    m, s, lo, hi = _stats(t)
    tm, ts, tlo, thi = _stats(tt)
    assert abs(m - tm) < 0.05 * max(ts, 1e-3) + 1e-3
    assert abs(s - ts) < 0.05 * ts + 1e-4
    if "uniform" in name:                        # same support: [-bound, bound)
        assert abs(lo - tlo) < 0.01 * ts + 1e-6 and abs(hi - thi) < 0.01 * ts + 1e-6
    if name == "trunc_normal_":
        a, b = kwargs.get("a", -2.0), kwargs.get("b", 2.0)
        assert lo >= a and hi <= b


@pytest.mark.parametrize("shape", [(4, 6), (6, 4), (5, 5), (3, 2, 2, 2)])
@pytest.mark.parametrize("gain", [1.0, 0.5])
def test_orthogonal_matches_torch(shape, gain):
    t, tt = _pair(shape, "float64")
    init.orthogonal_(t, gain)
    torch.nn.init.orthogonal_(tt, gain)
    flat = np.asarray(t.numpy()).reshape(shape[0], -1)
    tflat = tt.numpy().reshape(shape[0], -1)
    for a in (flat, tflat):  # the same property: orthonormal rows or columns times gain
        small = a @ a.T if a.shape[0] <= a.shape[1] else a.T @ a
        np.testing.assert_allclose(small, gain ** 2 * np.eye(small.shape[0]), atol=1e-10)
    assert t.shape == tt.shape


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_constant_zeros_ones_match_torch(dtype):
    for fn, args in ((init.constant_, (2.5,)), (init.zeros_, ()), (init.ones_, ())):
        t = ember.full((3, 4), 7, dtype=dtype)
        tt = torch.full((3, 4), 7, dtype=getattr(torch, dtype))
        assert fn(t, *args) is t
        getattr(torch.nn.init, fn.__name__)(tt, *args)
        np.testing.assert_array_equal(t.numpy(), tt.numpy())
        assert t.dtype.name == dtype


def test_tied_weights_stay_tied_and_parameters_stay_leaves():
    ember.manual_seed(1)
    wte = nn.Embedding(20, 8)
    head = nn.Linear(8, 20, bias=False)
    head.weight = wte.weight
    opt = ember.optim.SGD(wte.parameters(), lr=0.1)
    for fn in (lambda w: init.normal_(w, std=0.02), init.xavier_uniform_, init.orthogonal_,
               lambda w: init.trunc_normal_(w, std=0.02)):
        fn(head.weight)
        assert head.weight is wte.weight and wte.weight.is_leaf and wte.weight.is_require_grad()
        assert opt.param_groups[0]["params"][0] is wte.weight
    with ember.no_grad():
        init.zeros_(wte.weight)
    assert head.weight.abs().sum().item() == 0.0
    loss = head(ember.ones(2, 8)).sum()
    loss.backward()
    assert wte.weight.grad.shape == (20, 8)


def test_rebinding_works_inside_modules_apply():
    def _init(m):
        if isinstance(m, nn.Linear):
            init.normal_(m.weight, mean=0.0, std=0.02)
            if m.bias is not None:
                init.zeros_(m.bias)

    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    ids = [id(p) for p in model.parameters()]
    for m in model.modules():
        _init(m)
    assert [id(p) for p in model.parameters()] == ids
    assert model[0].bias.tolist() == [0.0] * 8
    assert model[2].weight.abs().max().item() < 0.2


def test_generator_reproduces():
    outs = []
    for _ in range(2):
        g = ember.Generator().manual_seed(7)
        outs.append([getattr(init, n)(ember.zeros(6, 4), generator=g).tolist()
                     for n in ("normal_", "uniform_", "xavier_normal_", "kaiming_uniform_",
                               "trunc_normal_", "orthogonal_")])
    assert outs[0] == outs[1]
    assert init.normal((3,), generator=ember.Generator().manual_seed(2)).tolist() == \
        init.normal((3,), generator=ember.Generator().manual_seed(2)).tolist()


def test_bad_input_raises_typed_errors():
    t = ember.zeros(3, 4)
    i = ember.zeros(3, 4, dtype="int64")
    before = snapshot(t, i)
    cases = [
        (lambda: init.normal_([1.0]), ember.InvalidParameterError, r"normal_: tensor must be"),
        (lambda: init.normal_(i), ember.KindError, r"normal_: tensor has dtype int64"),
        (lambda: init.normal_(t, std=-1.0), ember.InvalidParameterError, r"std is -1.0"),
        (lambda: init.uniform_(t, 2.0, 1.0), ember.InvalidParameterError, r"a=2.0 is above"),
        (lambda: init.trunc_normal_(t, a=1.0, b=0.0), ember.InvalidParameterError, r"a=1.0"),
        (lambda: init.kaiming_uniform_(ember.zeros(3)), ember.InvalidParameterError,
         r"fewer than 2 dims"),
        (lambda: init.kaiming_normal_(t, mode="x"), ember.InvalidParameterError, r"mode 'x'"),
        (lambda: init.orthogonal_(ember.zeros(3)), ember.InvalidParameterError,
         r"orthogonal: shape \(3,\) has fewer than 2 dims"),
        (lambda: init.constant_(t, "a"), ember.InvalidParameterError, r"val must be a number"),
        (lambda: init.xavier_uniform_(t, generator="g"), ember.InvalidParameterError,
         r"generator must be an ember.Generator"),
    ]
    for fn, err, pattern in cases:
        with pytest.raises(err, match=pattern):
            fn()
    assert_unchanged([t, i], before)


def test_module_doctests():
    result = doctest.testmod(init)
    assert result.attempted > 20 and result.failed == 0


# -- complex: init takes real tensors only (docs/complex.md) -----------------------------------
INIT_INPLACE = ["uniform_", "normal_", "trunc_normal_", "constant_", "zeros_", "ones_",
                "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
                "orthogonal_"]
INIT_CREATORS = ["uniform", "normal", "trunc_normal", "constant", "zeros", "ones",
                 "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
                 "orthogonal"]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", INIT_INPLACE)
def test_complex_tensor_refused(name, dtype):
    z = ember.from_numpy(np.array([[1 + 2j, 3j], [-1, 0.5j]], dtype=dtype))
    before = snapshot(z)
    args = (0.5,) if name == "constant_" else ()
    op = "constant_" if name in ("zeros_", "ones_") else name
    with pytest.raises(ember.KindError, match=rf"{op}.*complex"):
        getattr(init, name)(z, *args)
    assert_unchanged([z], before)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", INIT_CREATORS)
def test_complex_dtype_refused(name, dtype):
    args = ((2, 2), 0.5) if name == "constant" else ((2, 2),)
    with pytest.raises(ember.KindError, match=rf"{name}.*complex"):
        getattr(init, name)(*args, dtype=getattr(ember, dtype))
