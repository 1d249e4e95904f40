"""The lazy modules against torch: repr and keys before the first call, the module they
become, and values after loading torch's materialized weights."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import InvalidParameterError, ShapeMismatchError
from math_oracle import check, rand

CASES = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyLinear", (4,), dict(bias=False), (2, 3, 6)),
    ("LazyConv1d", (4, 3), dict(padding=1), (2, 3, 7)),
    ("LazyConv2d", (4, 3), dict(groups=2, stride=2), (1, 6, 5, 5)),
    ("LazyConv2d", (2, (1, 3)), {}, (3, 4, 5)),
    ("LazyConv3d", (2, 2), {}, (1, 3, 3, 4, 4)),
    ("LazyConvTranspose1d", (2, 3), dict(stride=2), (1, 4, 5)),
    ("LazyConvTranspose2d", (4, 3), dict(stride=2, padding=1, output_padding=1), (2, 3, 4, 4)),
    ("LazyConvTranspose3d", (2, 2), dict(stride=2), (1, 3, 2, 2, 2)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), dict(affine=False), (2, 3, 4, 4)),
    ("LazyBatchNorm3d", (), dict(track_running_stats=False), (2, 3, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), dict(affine=False, track_running_stats=False), (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {}, (2, 3, 2, 3, 2)),
]


@pytest.mark.parametrize("cls,args,kw,xs", CASES)
def test_lazy_modules(cls, args, kw, xs):
    mt, me = getattr(torch.nn, cls)(*args, **kw), getattr(et.nn, cls)(*args, **kw)
    assert repr(me) == repr(mt)
    assert list(me.state_dict()) == list(mt.state_dict())
    assert [n for n, _ in me.named_parameters()] == [n for n, _ in mt.named_parameters()]
    x = rand(xs)
    mt(torch.tensor(x))
    me(et.tensor(x))
    assert type(me) is getattr(et.nn, type(mt).__name__)
    assert repr(me) == repr(mt)
    assert {k: tuple(v.shape) for k, v in me.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in mt.state_dict().items()}
    me.load_state_dict({k: et.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    check(lambda m, t: (me if m is et else mt)(t), rand(xs, seed=1), atol=1e-5)


def test_ember_lazy_linear_and_placeholders():
    ember.manual_seed(0)
    fc = ember.nn.LazyLinear(3)
    assert fc.weight.shape == (0,) and isinstance(fc.weight, ember.nn.UninitializedParameter)
    assert fc.has_uninitialized_params()
    model = ember.nn.Sequential(fc, ember.nn.ReLU())
    assert model(ember.ones(2, 5)).shape == (2, 3)
    assert type(model[0]) is ember.nn.Linear and model[0].weight.shape == (3, 5)
    assert ember.nn.UninitializedBuffer().is_require_grad() is False
    with pytest.raises(ShapeMismatchError):
        ember.nn.LazyConv2d(4, 3)(ember.ones(2, 3))


def test_factory_kwargs():
    for kw in ({"device": "cpu"}, {"dtype": None, "factory_kwargs": {"device": "cpu"}}, None,
               {}):
        assert et.nn.factory_kwargs(kw) == torch.nn.factory_kwargs(kw)
    with pytest.raises(InvalidParameterError):
        et.nn.factory_kwargs({"size": 3})
    with pytest.raises(InvalidParameterError):
        et.nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"device": "cpu"}})
