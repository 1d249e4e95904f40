"""Conv3d, ConvTranspose3d, the 3-D pools, BatchNorm3d and the 1-D/3-D max unpools against
torch."""

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import InvalidParameterError, ShapeMismatchError
from math_oracle import check, rand


def _F(m):
    return m.nn.functional


@pytest.mark.parametrize("xs,ws,kw", [
    ((2, 4, 5, 6, 5), (6, 4, 3, 2, 3), dict(stride=(2, 1, 2), padding=1, dilation=(1, 2, 1))),
    ((4, 3, 4, 5), (4, 2, 2, 3, 2), dict(groups=2, padding="same")),
    ((1, 1, 2, 2, 2), (1, 1, 1, 1, 1), {}),
])
def test_conv3d(xs, ws, kw):
    check(lambda m, x, w, b: _F(m).conv3d(x, w, b, **kw), rand(xs), rand(ws, seed=1),
          rand((ws[0],), seed=2), atol=1e-5)


@pytest.mark.parametrize("xs,ws,kw", [
    ((2, 4, 3, 3, 2), (4, 3, 3, 2, 3), dict(stride=(2, 1, 3), padding=(1, 0, 1),
                                            output_padding=(1, 0, 2))),
    ((4, 2, 3, 2), (4, 1, 2, 2, 2), dict(groups=2, dilation=(2, 1, 1))),
])
def test_conv_transpose3d(xs, ws, kw):
    check(lambda m, x, w, b: _F(m).conv_transpose3d(x, w, b, **kw), rand(xs), rand(ws, seed=1),
          rand((ws[1] * kw.get("groups", 1),), seed=2), atol=1e-5)


CASES = [
    ("avg", lambda F, x: F.avg_pool3d(x, (2, 3, 2), stride=(1, 2, 2), padding=1, ceil_mode=True,
                                      count_include_pad=False), (2, 3, 5, 6, 5)),
    ("avg_pad", lambda F, x: F.avg_pool3d(x, 2, padding=1, ceil_mode=True), (1, 2, 5, 6, 5)),
    ("avg_div", lambda F, x: F.avg_pool3d(x, 2, divisor_override=3), (3, 4, 4, 4)),
    ("max", lambda F, x: F.max_pool3d(x, (2, 3, 2), stride=(1, 2, 2), padding=1,
                                      ceil_mode=True, return_indices=True), (2, 3, 5, 6, 5)),
    ("max_dil", lambda F, x: F.max_pool3d_with_indices(x, 2, dilation=(2, 1, 1)), (3, 5, 4, 4)),
    ("adaptive", lambda F, x: F.adaptive_avg_pool3d(x, (2, None, 3)), (2, 3, 5, 6, 5)),
    ("adaptive_1", lambda F, x: F.adaptive_avg_pool3d(x, 1), (3, 2, 3, 4)),
    ("lp", lambda F, x: F.lp_pool3d(x, 2, 2), (2, 3, 4, 4, 4)),
    ("adaptive_max", lambda F, x: F.adaptive_max_pool3d(x, (2, 3, 2), True), (2, 3, 5, 6, 5)),
    ("adaptive_max_up", lambda F, x: F.adaptive_max_pool3d_with_indices(x, (3, 2, 4)),
     (1, 2, 3, 4)),
    ("adaptive_max_none", lambda F, x: F.adaptive_max_pool3d(x, (None, 1, 2)), (2, 2, 3, 4, 5)),
]


@pytest.mark.parametrize("name,f,shape", CASES, ids=[c[0] for c in CASES])
def test_pools(name, f, shape):
    check(lambda m, x: f(_F(m), x), rand(shape), atol=1e-5)


def test_unpools():
    def u1(m, t):
        v, i = _F(m).max_pool1d(t, 2, return_indices=True)
        return _F(m).max_unpool1d(v, i, 2, output_size=[9])

    def u3(m, t):
        v, i = _F(m).max_pool3d(t, 2, return_indices=True)
        return _F(m).max_unpool3d(v, i, 2)

    check(u1, rand((2, 3, 8)))
    check(u3, rand((2, 3, 4, 4, 6)))
    check(lambda m, t: m.nn.MaxUnpool3d(2)(*m.nn.MaxPool3d(2, return_indices=True)(t)),
          rand((3, 4, 2, 2)))
    check(lambda m, t: m.nn.MaxUnpool1d(2)(*m.nn.MaxPool1d(2, return_indices=True)(t)),
          rand((3, 4)))


@pytest.mark.parametrize("cls,args,kw,xs", [
    ("Conv3d", (2, 4, 3), dict(padding=1, padding_mode="reflect"), (1, 2, 4, 5, 4)),
    ("Conv3d", (2, 4, (1, 2, 3)), dict(stride=2, bias=False), (2, 3, 4, 5)),
    ("ConvTranspose3d", (4, 2, 2), dict(stride=2, padding=1, output_padding=1), (1, 4, 2, 3, 3)),
    ("MaxPool3d", (2,), {}, (2, 2, 4, 4, 4)),
    ("AvgPool3d", (2, 1, 1), {}, (2, 2, 3, 4, 4)),
    ("AdaptiveAvgPool3d", ((1, None, 2),), {}, (2, 2, 3, 4, 5)),
    ("LPPool3d", (2, 2), {}, (2, 2, 4, 4, 4)),
    ("AdaptiveMaxPool3d", ((1, 2, 2),), dict(return_indices=True), (2, 2, 3, 4, 5)),
    ("BatchNorm3d", (3,), {}, (2, 3, 2, 3, 2)),
])
def test_modules(cls, args, kw, xs):
    torch.manual_seed(0)
    mt, me = getattr(torch.nn, cls)(*args, **kw), getattr(et.nn, cls)(*args, **kw)
    assert repr(me) == repr(mt)
    assert list(me.state_dict()) == list(mt.state_dict())
    me.load_state_dict({k: et.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})
    check(lambda m, x: (me if m is et else mt)(x), rand(xs), atol=1e-5)


def test_deprecated_aliases():
    assert repr(et.nn.NLLLoss2d()) == "NLLLoss2d()"
    logp = np.log(np.full((2, 3, 2, 2), 1 / 3, "float32"))
    y = np.zeros((2, 2, 2), "int64")
    check(lambda m, x: m.nn.NLLLoss2d()(x, m.tensor(y)), logp)
    c = et.nn.Container(act=et.nn.ReLU())
    assert [n for n, _ in c.named_children()] == ["act"]


def test_bad_arguments():
    F = ember.nn.functional
    with pytest.raises(ShapeMismatchError):
        F.conv3d(ember.ones(1, 2, 3, 3), ember.ones(1, 2, 2, 2))
    with pytest.raises(ShapeMismatchError):
        F.conv3d(ember.ones(1, 3, 3, 3, 3), ember.ones(1, 2, 2, 2, 2))
    with pytest.raises(InvalidParameterError):
        F.conv_transpose3d(ember.ones(1, 1, 2, 2, 2), ember.ones(1, 1, 2, 2, 2), stride=2,
                           output_padding=2)
    with pytest.raises(InvalidParameterError):
        F.avg_pool3d(ember.ones(1, 1, 4, 4, 4), (2, 2))
    with pytest.raises(InvalidParameterError):
        ember.nn.AvgPool3d(2, padding=2)
    with pytest.raises(ShapeMismatchError):
        ember.nn.BatchNorm3d(3)(ember.ones(2, 3, 4, 4))
