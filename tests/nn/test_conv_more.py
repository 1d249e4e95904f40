"""Conv1d, ConvTranspose1d/2d, Unfold and Fold (functions and modules) against torch."""

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
    ((2, 4, 11), (6, 4, 3), dict(stride=2, padding=1, dilation=2)),
    ((4, 10), (6, 2, 4), dict(groups=2, padding="same")),
    ((1, 3, 5), (2, 3, 5), dict(padding="valid")),
    ((3, 1, 8), (1, 1, 1), {}),
])
def test_conv1d(xs, ws, kw):
    check(lambda m, x, w, b: _F(m).conv1d(x, w, b, **kw), rand(xs), rand(ws, seed=1),
          rand((ws[0],), seed=2), atol=1e-5)


@pytest.mark.parametrize("xs,ws,kw", [
    ((2, 4, 5, 3), (4, 3, 3, 4), dict(stride=2, padding=1, output_padding=1)),
    ((1, 4, 3, 4), (4, 3, 2, 3), dict(stride=(2, 3), padding=(0, 1), groups=2, dilation=(1, 2))),
    ((2, 3, 3), (2, 3, 2, 2), dict(output_padding=1, dilation=2)),  # unbatched; op >= stride
    ((1, 1, 1, 1), (1, 2, 4, 4), dict(stride=2)),
    ((3, 2, 4, 4), (2, 5, 1, 1), {}),
])
def test_conv_transpose2d(xs, ws, kw):
    check(lambda m, x, w, b: _F(m).conv_transpose2d(x, w, b, **kw), rand(xs), rand(ws, seed=1),
          rand((ws[1] * kw.get("groups", 1),), seed=2), atol=1e-5)


@pytest.mark.parametrize("xs,ws,kw", [
    ((2, 4, 7), (4, 5, 4), dict(stride=3, padding=2, output_padding=2)),
    ((4, 6), (4, 1, 3), dict(groups=2)),
])
def test_conv_transpose1d(xs, ws, kw):
    check(lambda m, x, w, b: _F(m).conv_transpose1d(x, w, b, **kw), rand(xs), rand(ws, seed=1),
          rand((ws[1] * kw.get("groups", 1),), seed=2), atol=1e-5)


def test_conv_transpose2d_second_order():
    x, w = rand((1, 2, 3, 3)), rand((2, 2, 2, 2), seed=1)
    grads = []
    for m in (torch, et):
        xt = m.tensor(x, requires_grad=True)
        wt = m.tensor(w, requires_grad=True)
        y = m.nn.functional.conv_transpose2d(xt, wt, stride=2).square().sum()
        (gx,) = m.autograd.grad(y, xt, create_graph=True)
        (gw,) = m.autograd.grad(gx.square().sum(), wt)
        grads.append(gw.detach().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs,kw", [
    ((2, 3, 5, 7), dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))),
    ((3, 4, 4), dict(kernel_size=2)),
    ((1, 1, 3, 3), dict(kernel_size=3, padding=1)),
])
def test_unfold(xs, kw):
    check(lambda m, x: _F(m).unfold(x, **kw), rand(xs))


@pytest.mark.parametrize("xs,kw", [
    ((2, 12, 18), dict(output_size=(5, 6), kernel_size=(2, 3), padding=1, stride=(2, 1))),
    ((8, 9), dict(output_size=4, kernel_size=2, dilation=1, stride=1)),
    ((1, 4, 4), dict(output_size=(3, 3), kernel_size=2, dilation=2, padding=1, stride=2)),
])
def test_fold(xs, kw):
    check(lambda m, x: _F(m).fold(x, **kw), rand(xs))


def _copy(me, mt):
    me.load_state_dict({k: et.tensor(v.detach().numpy()) for k, v in mt.state_dict().items()})


@pytest.mark.parametrize("cls,args,kw,xs", [
    ("Conv1d", (4, 6, 3), dict(stride=2, padding=1), (2, 4, 9)),
    ("Conv1d", (4, 6, 3), dict(padding="same", padding_mode="reflect", bias=False), (4, 9)),
    ("Conv1d", (2, 4, 3), dict(padding=2, padding_mode="circular", groups=2), (1, 2, 5)),
    ("Conv1d", (2, 4, 3), dict(padding=1, padding_mode="replicate", dilation=2), (3, 2, 6)),
    ("ConvTranspose1d", (4, 2, 3), dict(stride=2, output_padding=1), (2, 4, 5)),
    ("ConvTranspose2d", (4, 6, 4), dict(stride=2, padding=1, groups=2), (2, 4, 3, 5)),
    ("ConvTranspose2d", (3, 2, (3, 2)), dict(bias=False, dilation=2), (3, 4, 4)),
])
def test_modules(cls, args, kw, xs):
    torch.manual_seed(0)
    mt, me = getattr(torch.nn, cls)(*args, **kw), getattr(et.nn, cls)(*args, **kw)
    assert repr(me) == repr(mt)
    assert {k: tuple(v.shape) for k, v in me.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in mt.state_dict().items()}
    _copy(me, mt)
    check(lambda m, x: (me if m is et else mt)(x), rand(xs), atol=1e-5)


def test_init_distribution():
    ember.manual_seed(0)
    m = ember.nn.ConvTranspose2d(64, 32, 4)
    bound = 1 / np.sqrt(32 * 16)  # kaiming_uniform(a=sqrt(5)) of fan_in = 32 * 4 * 4
    w = m.weight.numpy()
    assert w.shape == (64, 32, 4, 4) and np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.abs(m.bias.numpy()).max() <= bound


def test_output_size():
    torch.manual_seed(0)
    mt, me = torch.nn.ConvTranspose2d(3, 2, 3, stride=2), et.nn.ConvTranspose2d(3, 2, 3, stride=2)
    _copy(me, mt)
    x = rand((1, 3, 4, 4))
    check(lambda m, t: (me if m is et else mt)(t, output_size=[1, 2, 10, 10]), x, atol=1e-5)
    with pytest.raises(InvalidParameterError):
        me(et.tensor(x), output_size=(12, 12))


def test_unfold_fold_modules_repr():
    assert repr(et.nn.Unfold((2, 3), padding=1)) == repr(torch.nn.Unfold((2, 3), padding=1))
    assert repr(et.nn.Fold((4, 5), 2, stride=2)) == repr(torch.nn.Fold((4, 5), 2, stride=2))
    x = rand((2, 3, 6, 6))
    check(lambda m, t: m.nn.Fold(6, 2, stride=2)(m.nn.Unfold(2, stride=2)(t)), x)


def test_bad_arguments():
    F = ember.nn.functional
    with pytest.raises(ShapeMismatchError):
        F.conv1d(ember.ones(2, 3, 5), ember.ones(4, 2, 3))
    with pytest.raises(ShapeMismatchError):
        F.conv_transpose2d(ember.ones(1, 3, 4, 4), ember.ones(2, 2, 3, 3))
    with pytest.raises(InvalidParameterError):
        F.conv_transpose2d(ember.ones(1, 2, 4, 4), ember.ones(2, 2, 3, 3), stride=2,
                           output_padding=2)
    with pytest.raises(ShapeMismatchError):
        F.fold(ember.ones(1, 5, 4), 3, 2)
    with pytest.raises(InvalidParameterError):
        ember.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(InvalidParameterError):
        ember.nn.Conv1d(3, 4, 3, groups=2)
    with pytest.raises(InvalidParameterError):
        ember.nn.Conv1d(3, 3, 3, stride=2, padding="same")


@pytest.mark.parametrize("xs,ws,pad", [((7, 2, 3), (3, 3, 4), 1), ((5, 1, 2), (5, 2, 2), 0),
                                       ((4, 3, 1), (2, 1, 5), 2)])
def test_conv_tbc(xs, ws, pad):
    check(lambda m, x, w, b: _F(m).conv_tbc(x, w, b, pad), rand(xs), rand(ws, seed=1),
          rand((ws[2],), seed=2), atol=1e-5)


def test_assert_int_or_pair():
    F = ember.nn.functional
    F.assert_int_or_pair(3, "k", "{} bad")
    with pytest.raises(InvalidParameterError, match="stride bad"):
        F.assert_int_or_pair((1, 2, 3), "stride", "{} bad")
