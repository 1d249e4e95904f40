"""Tests of ember/ops/float_math.py: float math against PyTorch, rounding, lerp, the untracked
path of the unaries, gradients at the edges and the spec's printed examples."""

import math
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import SHAPES, assert_close, on_device, to_torch
from oracle import assert_unchanged, snapshot
from test_elementwise import E, FLOATS, FLOAT_MATH, INF, NAN, RNG, check_grads, data, tol


@pytest.mark.parametrize("name", sorted(FLOAT_MATH))
@pytest.mark.parametrize("dtype", FLOATS + ["int32", "uint8", "int64"])
def test_float_math_matches_torch(name, dtype):
    for shape in SHAPES + [(40,)]:
        a = data(shape, dtype, special=True)
        t = E(a, dtype)
        out = getattr(t, name)()
        assert_close(out, FLOAT_MATH[name](to_torch(t)), **tol(dtype), equal_nan=True)
        module_out = getattr(ember, name)(t)
        np.testing.assert_array_equal(np.asarray(module_out.numpy(), np.float64),
                                      np.asarray(out.numpy(), np.float64))


def test_round_half_to_even_and_decimals():
    t = E(np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 2.4999], np.float32))
    assert t.round().tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 4.0, 2.0]
    assert np.signbit(t.round().numpy()[3])
    x = data((5, 3), "float64") * 100
    for d in (1, 2, -1):
        assert_close(E(x).round(d), torch.round(torch.from_numpy(x), decimals=d))
    i = E(np.array([3, -4]))
    assert i.round().tolist() == [3, -4] and i.round().dtype is ember.int64
    assert i.floor().dtype is ember.int64 and i.ceil().tolist() == [3, -4]


def test_trunc_keeps_sign_of_zero_and_specials():
    t = E(np.array([2.3, -1.7, 0.5, -0.5, 3.9, 0.0, -0.0, INF, -INF, NAN]))
    out = t.trunc().numpy()
    np.testing.assert_array_equal(out[:5], [2.0, -1.0, 0.0, -0.0, 3.0])
    assert list(np.signbit(out[:7])) == [False, True, False, True, False, False, True]
    assert out[7] == INF and out[8] == -INF and np.isnan(out[9])


def test_sigmoid_is_stable():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for dtype in on_device(FLOATS):
            t = E(np.array([-1e4, -100.0, 0.0, 100.0, 1e4], np.float32), dtype)
            out = t.sigmoid()
            assert not np.isnan(np.asarray(out.numpy(), np.float64)).any()
            assert_close(out, torch.sigmoid(to_torch(t)), **tol(dtype))


def test_lerp_matches_torch():
    for dtype in on_device(["float32", "float64", "float16", "bfloat16"]):
        a, b = data((3, 4), dtype), data((4,), dtype)
        w = data((3, 1), dtype)
        ea, eb, ew = E(a, dtype), E(b, dtype), E(w, dtype)
        assert_close(ea.lerp(eb, ew), torch.lerp(to_torch(ea), to_torch(eb).expand(3, 4),
                                                  to_torch(ew).expand(3, 4)), **tol(dtype))
        assert_close(ea.lerp(eb, 0.75), torch.lerp(to_torch(ea), to_torch(eb), 0.75), **tol(dtype))
    assert ember.lerp(E(np.array([0, 10])), 20, 0.5).tolist() == [10.0, 15.0]


def test_spec_examples_float_math():
    four = dict(rtol=0, atol=1e-4)  # the spec prints 4 decimals (some truncated, some rounded)
    assert_close(ember.tensor([0.0, -1.0, 2.0]).cosh(), [1.0, 1.5430, 3.7621], **four)
    assert_close(ember.tensor([0.0, -1.0, 2.0]).sinh(), [0.0, -1.1752, 3.6269], **four)
    assert_close(ember.tensor([0.0, -1.0, 2.0]).tanh(), [0.0, -0.7616, 0.9640], **four)
    assert_close(ember.tensor([0.0, -1.0, 1.0]).acos(), [1.5708, 3.1416, 0.0], **four)
    assert_close(ember.tensor([1.0, 2.0, 3.0]).acosh(), [0.0000, 1.3170, 1.7627], **four)
    assert_close(ember.tensor([0.0, -1.0, 1.0]).asin(), [0.0, -1.5708, 1.5708], **four)
    assert_close(ember.tensor([0.0, -1.0, 1.0]).asinh(), [0.0, -0.8814, 0.8814], **four)
    assert_close(ember.tensor([0.0, -1.0, 2.0]).atan(), [0.0, -0.7854, 1.1071], **four)
    assert_close(ember.tensor([0.0, -0.5, 0.5]).atanh(), [0.0, -0.5493, 0.5493], **four)
    lhs, rhs = ember.tensor([-2.0, 2.0, -2.0]), ember.tensor([1.0, -1.0, -1.0])
    assert_close(lhs.atan2(rhs), [-1.1071, 2.0344, -2.0344], **four)
    assert_close(ember.tensor([0.5, 1.0, -3.0]).erf(), [math.erf(v) for v in (0.5, 1.0, -3.0)])
    assert_close(ember.tensor([3.0, 5.0]).hypot(ember.tensor([4.0, 12.0])), [5.0, 13.0])
    assert ember.tensor([2.0, 0.5]).recip().tolist() == [0.5, 2.0]
    assert_close(ember.tensor([180.0, 90.0]).deg2rad(), [math.pi, math.pi / 2])
    assert_close(ember.tensor([math.pi, -math.pi / 2]).rad2deg(), [180.0, -90.0])
    assert ember.tensor([2.3, -1.7, 0.5, -0.5, 3.9]).trunc().tolist() == [2.0, -1.0, 0.0, -0.0, 3.0]
    assert ember.tensor([1.5, 2.5, -0.5]).round().tolist() == [2.0, 2.0, -0.0]
    assert ember.tensor([1.5, -1.5]).floor().tolist() == [1.0, -2.0]
    assert ember.tensor([1.5, -1.5]).ceil().tolist() == [2.0, -1.0]


def test_lerp_gradient_with_tensor_weight_matches_torch():
    a, b, w = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)), RNG.random((3, 4))
    w[0, 0] = 0.5
    w[1, 1] = 0.9
    check_grads(lambda x, y, z: x.lerp(y, z), torch.lerp, [a, b, w])


@pytest.mark.parametrize("name", ["exp", "sqrt", "log", "tanh", "sigmoid", "erf", "relu"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32"])
def test_unary_untracked_fast_path_equals_the_recorded_path(name, dtype):
    x = data((3, 4), dtype, special=True)
    plain = E(x)
    before = snapshot(plain)
    with np.errstate(all="ignore"):
        want = getattr(torch, name)(torch.from_numpy(np.asarray(x)))
    ref = None
    if dtype != "int32":  # the same op on a tracked tensor takes record's path
        ref = getattr(E(x).require_grad(), name)()
        assert ref.is_tracked()
    for ad in ("none", "balanced", None):
        t = plain.without_autodiff() if ad is None else plain.with_gradient_checkpointing_strategy(ad)
        out = getattr(t, name)()
        assert not out.is_tracked() and out.gradient_checkpointing_strategy() == ad
        if ref is not None:
            assert ref.dtype is out.dtype
            np.testing.assert_array_equal(out.numpy(), ref.numpy())
        assert_close(out, want, **tol(dtype), equal_nan=True)
    assert_unchanged([plain], before)


def test_atan2_gradient_at_the_origin_is_zero_like_pytorch():
    y = ember.tensor([0.0, 0.0], dtype="float64").require_grad()
    x = ember.tensor([0.0, 1.0], dtype="float64").require_grad()
    y.atan2(x).sum().backward()
    ty = torch.tensor([0.0, 0.0], dtype=torch.float64, requires_grad=True)
    tx = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    torch.atan2(ty, tx).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), ty.grad.numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_relu_gradient_at_nan_passes_like_pytorch():
    import ember.nn.functional as F
    values = [np.nan, -1.0, 0.0, 2.0]
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    torch.relu(tx).backward(torch.full((4,), 3.0, dtype=torch.float64))
    for relu in (lambda t: t.relu(), F.relu):
        x = ember.tensor(values, dtype="float64").require_grad()
        relu(x).backward(ember.full((4,), 3.0, dtype="float64"))
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("decimals", [1000, -1000, 2**31 - 1, 2**40, -2**40])
def test_round_with_huge_decimals_as_torch(decimals):
    x = torch.tensor([1.5, -0.25, 0.0])
    assert_close(ember.tensor([1.5, -0.25, 0.0]).round(decimals), torch.round(x, decimals=decimals))
