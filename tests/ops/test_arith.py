"""Tests of ember/ops/arith.py: the division laws, remainders, powers and the spec's printed
examples of the arithmetic (each op against PyTorch: the tables of test_elementwise.py)."""

import warnings

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

import ember
from oracle import assert_close, flush_subnormals, to_torch
from test_elementwise import E, INF, NAN, T1, T2, data, floor_divide_ieee


def test_burn_div_keeps_kind_and_division_law():
    a = data((4, 5), "int64", -20, 20)
    b = data((5,), "int64", -6, 6)
    b = np.where(b == 0, 3, b)
    ea, eb = E(a), E(b)
    q, r = ea.div(eb), ea.remainder(eb)
    assert q.dtype is ember.int64 and r.dtype is ember.int64
    np.testing.assert_array_equal(q.numpy(), a // b)
    np.testing.assert_array_equal(q.numpy() * b + r.numpy(), a)
    f = E(a.astype(np.float32)).div(E(b.astype(np.float32)))
    assert f.dtype is ember.float32
    np.testing.assert_allclose(f.numpy(), (a / b).astype(np.float32), rtol=1e-6)
    assert E(a).div(2.5).dtype is ember.float32  # an int tensor with a float scalar is float


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-10 ** 6, 10 ** 6), min_size=1, max_size=12),
       st.integers(-1000, 1000).filter(lambda v: v != 0),
       st.sampled_from(["int64", "int32", "int16"]))
def test_law_div_times_divisor_plus_remainder(values, divisor, dtype):
    info = np.iinfo(dtype)
    a = np.clip(np.array(values), info.min, info.max).astype(dtype)
    ea = E(a)
    q, r = ea.div_scalar(divisor), ea.remainder_scalar(divisor)
    np.testing.assert_array_equal(q.numpy().astype(np.int64) * divisor + r.numpy(), a)
    rr = r.numpy()
    assert np.all((rr == 0) | (np.sign(rr) == np.sign(divisor)))
    assert np.all(np.abs(rr) < abs(divisor))
    f = ea.fmod_scalar(divisor).numpy()
    assert np.all((f == 0) | (np.sign(f) == np.sign(a)))
    np.testing.assert_array_equal(f, np.fmod(a, divisor))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False, width=64), min_size=1, max_size=10),
       st.lists(st.floats(-1e6, 1e6, allow_nan=False, width=64), min_size=1, max_size=1))
def test_laws_float_arithmetic(xs, ys):
    a = E(np.array(xs))
    b = E(np.array(ys))
    np.testing.assert_array_equal((a - b).numpy(), (a + (-b)).numpy())
    np.testing.assert_array_equal((a + b).numpy(), (b + a).numpy())
    np.testing.assert_array_equal((a * b).numpy(), (b * a).numpy())
    np.testing.assert_array_equal((-(-a)).numpy(), a.numpy())
    hi, lo = a.max_pair(b).numpy(), a.min_pair(b).numpy()
    av, bv = flush_subnormals(a.numpy(), a), flush_subnormals(b.numpy(), b)  # XLA flushes them
    assert np.all(hi >= av) and np.all(hi >= bv) and np.all(lo <= av)
    c = a.clamp(-1.0, 2.0).numpy()
    assert np.all((c >= -1.0) & (c <= 2.0))


def test_fmod_and_remainder_special_cases():
    a = E(np.array([INF, -INF, 3.0, 3.0, -3.0, NAN, 3.0, 5.0, -0.0], np.float64))
    b = E(np.array([2.0, 2.0, 0.0, -0.0, INF, 2.0, NAN, -INF, 2.0], np.float64))
    f = a.fmod(b).numpy()
    assert np.isnan(f[:4]).all()
    assert f[4] == -3.0 and f[7] == 5.0
    assert np.isnan(f[5]) and np.isnan(f[6])
    assert f[8] == 0.0 and np.signbit(f[8])
    assert_close(a.fmod(b), torch.fmod(to_torch(a), to_torch(b)), equal_nan=True)
    assert_close(a % b, torch.remainder(to_torch(a), to_torch(b)), equal_nan=True)
    assert_close(a // b, floor_divide_ieee(to_torch(a), to_torch(b)), equal_nan=True)
    assert (a // b).tolist()[:2] == [INF, -INF] and str((a // b).tolist()[7]) == "-0.0"
    assert str((E(np.array([1.0, -1.0])) // -INF).tolist()) == "[-0.0, 0.0]"


def test_true_division_by_zero_is_ieee():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = E(np.array([1.0, -1.0, 0.0])) / 0.0
        assert out.numpy()[0] == INF and out.numpy()[1] == -INF and np.isnan(out.numpy()[2])
        out = E(np.array([1, 0])) / E(np.array([0, 0]))
        assert out.dtype is ember.float32 and out.numpy()[0] == INF and np.isnan(out.numpy()[1])


def test_sign_nan_and_zero_give_zero():
    t = E(np.array([NAN, -0.0, 0.0, -2.0, 3.0, -INF]))
    assert t.sign().tolist() == [0.0, 0.0, 0.0, -1.0, 1.0, -1.0]
    assert_close(t.sign(), torch.sign(to_torch(t)))


def test_powf_negative_base_integral_exponent():
    a = E(np.array([-2.0, -2.0, -8.0, 2.0]))
    out = a.powf(E(np.array([3.0, 2.0, 1.0 / 3.0, -1.0]))).numpy()
    assert out[0] == -8.0 and out[1] == 4.0 and np.isnan(out[2]) and out[3] == 0.5
    assert E(np.array([-2.0])).powf_scalar(3).tolist() == [-8.0]


@pytest.mark.half_precision
def test_powi_keeps_int_and_float_kinds():
    i = E(np.array([[1, -2, 3], [5, 9, 6]], np.int32))
    out = i.powi(E(np.array([2, 3, 1], np.int8)))
    assert out.dtype is ember.int32 and out.tolist() == [[1, -8, 3], [25, 729, 6]]
    f = E(np.array([1.5, -2.0], np.float16)).powi(E(np.array([2, 3])))
    assert f.dtype is ember.float16 and f.tolist() == [2.25, -8.0]
    assert E(np.array([2, 3])).square().dtype is ember.int64
    assert (2 ** E(np.array([0, 1, 10]))).tolist() == [1, 2, 1024]
    assert (2.0 ** E(np.array([0, 1, 10]))).dtype is ember.float32
    assert E(np.array([4, 9])).powf_scalar(0.5).tolist() == [2.0, 3.0]
    assert E(np.array([4, 9])).powf_scalar(0.5).dtype is ember.float32


def test_spec_examples_arithmetic():
    a, b = ember.tensor(T1), ember.tensor(T2)
    assert (a + b).tolist() == [[3.0, 1.0, 7.0], [6.0, 11.0, 9.0]]
    assert a.add(b).tolist() == [[3.0, 1.0, 7.0], [6.0, 11.0, 9.0]]
    assert (a + 2.0).tolist() == [[3.0, 0.0, 5.0], [7.0, 11.0, 8.0]]
    assert a.add_scalar(2.0).tolist() == [[3.0, 0.0, 5.0], [7.0, 11.0, 8.0]]
    assert (a - b).tolist() == [[-1.0, -5.0, -1.0], [4.0, 7.0, 3.0]]
    assert a.sub(b).tolist() == [[-1.0, -5.0, -1.0], [4.0, 7.0, 3.0]]
    assert (a - 2.0).tolist() == [[-1.0, -4.0, 1.0], [3.0, 7.0, 4.0]]
    assert a.sub_scalar(2.0).tolist() == [[-1.0, -4.0, 1.0], [3.0, 7.0, 4.0]]
    assert_close(a / b, [[0.5, -0.6666667, 0.75], [5.0, 4.5, 2.0]])
    assert_close(a.div(b), [[0.5, -0.6666667, 0.75], [5.0, 4.5, 2.0]])
    assert (a / 2.0).tolist() == [[0.5, -1.0, 1.5], [2.5, 4.5, 3.0]]
    assert a.div_scalar(2.0).tolist() == [[0.5, -1.0, 1.5], [2.5, 4.5, 3.0]]
    assert (a % 2.0).tolist() == [[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    assert a.remainder_scalar(2.0).tolist() == [[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    assert (a * b).tolist() == [[2.0, -6.0, 12.0], [5.0, 18.0, 18.0]]
    assert a.mul(b).tolist() == [[2.0, -6.0, 12.0], [5.0, 18.0, 18.0]]
    assert (a * 2.0).tolist() == [[2.0, -4.0, 6.0], [10.0, 18.0, 12.0]]
    assert a.mul_scalar(2.0).tolist() == [[2.0, -4.0, 6.0], [10.0, 18.0, 12.0]]
    assert (-a).tolist() == [[-1.0, 2.0, -3.0], [-5.0, -9.0, -6.0]]
    assert a.neg().tolist() == [[-1.0, 2.0, -3.0], [-5.0, -9.0, -6.0]]
    assert a.sign().tolist() == [[1.0, -1.0, 1.0], [1.0, 1.0, 1.0]]
    i = ember.tensor([[1, -2, 3], [4, -5, 6], [7, -8, 9]])
    assert i.abs().tolist() == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert E(np.array([np.iinfo(np.int64).min])).abs().tolist() == [np.iinfo(np.int64).min]


def test_spec_examples_powers():
    a, b = ember.tensor(T1), ember.tensor(T2)
    # erratum: the spec's comment prints 8.0 for (-2) ** 3; the value is -8.0
    assert a.powf(b).tolist() == [[1.0, -8.0, 81.0], [5.0, 81.0, 216.0]]
    assert a.powf_scalar(2.0).tolist() == [[1.0, 4.0, 9.0], [25.0, 81.0, 36.0]]
    i1 = ember.tensor([[1, -2, 3], [5, 9, 6]])
    i2 = ember.tensor([[2, 3, 4], [1, 2, 3]])
    assert i1.powi(i2).tolist() == [[1, -8, 81], [5, 81, 216]]
    assert i1.powi(i2).dtype is ember.int64
    assert i1.powi_scalar(2).tolist() == [[1, 4, 9], [25, 81, 36]]
    f = ember.tensor([[1.5, -2.0, 3.0], [5.0, 9.0, 6.0]])
    assert f.powi_scalar(2).tolist() == [[2.25, 4.0, 9.0], [25.0, 81.0, 36.0]]


def test_spec_examples_fmod():
    # erratum: fmod is C's truncated remainder (sign of the dividend), as the examples show
    out = ember.tensor([5.3, -5.3, 5.3, -5.3]).fmod(ember.tensor([2.0, 2.0, -2.0, -2.0]))
    assert_close(out, [1.3, -1.3, 1.3, -1.3])
    out = ember.tensor([5.3, -5.3, 7.5, -7.5]).fmod_scalar(2.0)
    assert_close(out, [1.3, -1.3, 1.5, -1.5])


def test_floor_divide_gradient_is_zero():
    a = ember.tensor([5.3, -2.0]).cast("float64").require_grad()
    b = ember.tensor([2.0, 2.0]).cast("float64").require_grad()
    (a // b).backward(ember.tensor([1.0, 1.0], dtype="float64"))
    assert a.grad.tolist() == [0.0, 0.0] and b.grad.tolist() == [0.0, 0.0]
