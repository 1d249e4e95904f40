"""Tests of ember/ops/scan.py: cumsum, cumprod, cummin, cummax against PyTorch, their gradients
against torch.autograd and finite differences, the spec's examples, laws and bad input."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember
from oracle import SHAPES, assert_close, ember_tensor, layouts, on_device, random_array, to_torch

NAN = float("nan")
INF = float("inf")
FLOATS = ["float64", "float32", "float16", "bfloat16"]
INTS = ["int64", "int32", "int16", "int8", "uint8"]
ALL = FLOATS + INTS + ["bool"]


def cases(rng, dtype, shapes=SHAPES):
    for shape in shapes:
        arr = np.asarray(random_array(rng, shape, dtype))
        for _, lay in layouts(arr):
            t = ember_tensor(lay, "bfloat16" if dtype == "bfloat16" else None)
            yield t, np.array(t.numpy(), copy=True)


def dims_of(ndim):
    return [0, -1] if ndim == 0 else list(range(-ndim, ndim))


def unchanged(t, before):
    np.testing.assert_array_equal(np.asarray(t.numpy()).astype(np.float64),
                                  np.asarray(before).astype(np.float64))


def check_grad(arr, ember_fn, torch_fn, rng):
    x = ember.from_numpy(arr).require_grad()
    out = ember_fn(x)
    seed = np.asarray(rng.standard_normal(out.shape))
    out.backward(ember.tensor(seed))
    xt = torch.from_numpy(np.array(arr, copy=True)).requires_grad_(True)
    torch_fn(xt).backward(torch.from_numpy(seed))
    assert_close(x.grad, xt.grad)


def finite_difference(arr, fn, rng, eps=1e-6):
    x = ember.from_numpy(arr).require_grad()
    out = fn(x)
    seed = np.asarray(rng.standard_normal(out.shape))
    out.backward(ember.tensor(seed))
    num = np.zeros(arr.shape)
    for i in np.ndindex(arr.shape):
        hi, lo = arr.copy(), arr.copy()
        hi[i] += eps
        lo[i] -= eps
        num[i] = float(((fn(ember.from_numpy(hi)).numpy() - fn(ember.from_numpy(lo)).numpy())
                        * seed).sum()) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-6)


def raises(fn, tensors, exc, match):
    before = [np.array(t.numpy(), copy=True) for t in tensors]
    with pytest.raises(exc, match=match) as info:
        fn()
    assert isinstance(info.value, ember.EmberError)
    for t, b in zip(tensors, before):
        unchanged(t, b)


# -- the spec's examples ------------------------------------------------------------------------

def test_spec_examples():
    t = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t.cumsum(0).tolist() == [[1.0, 2.0, 3.0], [5.0, 7.0, 9.0]]
    assert t.cumsum(1).tolist() == [[1.0, 3.0, 6.0], [4.0, 9.0, 15.0]]
    assert t.cumprod(0).tolist() == [[1.0, 2.0, 3.0], [4.0, 10.0, 18.0]]
    assert t.cumprod(1).tolist() == [[1.0, 2.0, 6.0], [4.0, 20.0, 120.0]]
    t = ember.tensor([[3.0, 5.0, 2.0], [4.0, 1.0, 6.0]])
    assert t.cummin(0).tolist() == [[3.0, 5.0, 2.0], [3.0, 1.0, 2.0]]
    assert t.cummin(1).tolist() == [[3.0, 3.0, 2.0], [4.0, 1.0, 1.0]]
    t = ember.tensor([[3.0, 1.0, 2.0], [4.0, 5.0, 2.0]])
    assert t.cummax(0).tolist() == [[3.0, 1.0, 2.0], [4.0, 5.0, 2.0]]
    assert t.cummax(1).tolist() == [[3.0, 3.0, 3.0], [4.0, 5.0, 5.0]]


def test_spec_nan_propagates_from_first_position():
    t = ember.tensor([2.0, 1.0, NAN, 0.0, 5.0])
    for name in ("cummin", "cummax", "cumsum", "cumprod"):
        out = getattr(t, name)(0).numpy()
        assert not np.isnan(out[:2]).any() and np.isnan(out[2:]).all(), name


# -- values against PyTorch ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
def test_cumsum_cumprod(rng, dtype):
    for t, before in cases(rng, dtype):
        x = to_torch(t)
        for dim in dims_of(t.ndim):
            assert_close(t.cumsum(dim), torch.cumsum(x, dim))
            assert_close(t.cumprod(dim), torch.cumprod(x, dim))
        unchanged(t, before)
    t = ember.from_numpy(np.asarray(random_array(rng, (3, 4), dtype)))
    assert_close(ember.cumsum(t, 1), torch.cumsum(to_torch(t), 1))
    assert_close(ember.cumprod(t, 0), torch.cumprod(to_torch(t), 0))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16", "int64", "int8",
                                   "uint8", "bool"])
def test_cummin_cummax(rng, dtype):
    for t, before in cases(rng, dtype):
        x = to_torch(t)
        for dim in dims_of(t.ndim):
            for name in ("cummin", "cummax"):
                want = getattr(torch, name)(x, dim)
                assert_close(getattr(t, name)(dim), want.values)
                values, indices = getattr(t, name + "_with_indices")(dim)
                assert_close(values, want.values)
                assert_close(indices, want.indices)  # ties: the last position, as torch
        unchanged(t, before)
    t = ember.from_numpy(np.asarray(random_array(rng, (3, 4), dtype)))
    for got, want in ((ember.cummax(t, 1), torch.cummax(to_torch(t), 1)),
                      (ember.cummin(t, 0), torch.cummin(to_torch(t), 0))):
        assert type(got).__name__ == type(want).__name__
        assert_close(got.values, want.values)
        assert_close(got.indices, want.indices)


def test_uint_and_wide_ints_as_numpy(rng):
    for dtype in ("uint16", "uint32", "uint64"):
        arr = random_array(rng, (3, 4), dtype, high=9)
        t = ember.from_numpy(arr)
        assert t.cumsum(1).dtype == ember.int64
        np.testing.assert_array_equal(t.cumsum(1).numpy(), np.cumsum(arr.astype(np.int64), 1))
        np.testing.assert_array_equal(t.cumprod(0).numpy(), np.cumprod(arr.astype(np.int64), 0))
        np.testing.assert_array_equal(t.cummax(1).numpy(), np.maximum.accumulate(arr, 1))


def test_nan_inf(rng):
    arr = np.array([[1.0, NAN, 2.0, NAN, 3.0], [INF, -INF, 1.0, 0.0, 2.0],
                    [NAN, 5.0, -1.0, -INF, INF], [0.0, -0.0, 0.0, 2.0, 2.0]])
    for dtype in on_device(["float64", "float32", "float16", "bfloat16"]):
        t = ember.from_numpy(arr).cast(dtype)
        x = to_torch(t)
        for dim in (0, 1):
            assert_close(t.cumsum(dim), torch.cumsum(x, dim))
            assert_close(t.cumprod(dim), torch.cumprod(x, dim))
            for name in ("cummin", "cummax"):
                values, indices = getattr(t, name + "_with_indices")(dim)
                want = getattr(torch, name)(x, dim)
                assert_close(values, want.values)
                assert_close(indices, want.indices)


def test_float32_accumulates_in_float64():
    arr = np.full(10000, 0.1, dtype=np.float32)
    out = ember.from_numpy(arr).cumsum(0)
    assert out.dtype == ember.float32
    want = np.cumsum(arr.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(out.numpy(), want)


def test_0d():
    t = ember.tensor(2.5)
    for name in ("cumsum", "cumprod", "cummin", "cummax"):
        out = getattr(t, name)(0)
        assert out.shape == () and out.tolist() == 2.5
    v, i = t.cummax_with_indices(-1)
    assert v.shape == () and i.shape == () and i.tolist() == 0
    assert ember.tensor(True).cumsum(0).tolist() == 1


# -- gradients ----------------------------------------------------------------------------------

GRAD_SHAPES = [(), (5,), (3, 4), (2, 3, 4), (2, 0, 3)]


def grad_cases(rng, shapes=GRAD_SHAPES):
    for shape in shapes:
        arr = random_array(rng, shape, "float64")
        for _, lay in layouts(arr):
            yield lay


def test_grad_cumsum(rng):
    for arr in grad_cases(rng):
        for dim in dims_of(arr.ndim):
            check_grad(arr, lambda x: x.cumsum(dim), lambda x: torch.cumsum(x, dim), rng)


def test_grad_cumprod_with_zeros(rng):
    one = random_array(rng, (3, 5), "float64")
    one[0, 2] = one[2, 0] = one[1, 4] = 0.0
    several = random_array(rng, (3, 5), "float64")
    several[0, 1] = several[0, 3] = several[2, 2] = several[2, 3] = 0.0
    arrays = list(grad_cases(rng)) + [one, several, np.zeros((2, 3)), np.array([0.0]),
                                      np.array([2.0, 0.0, 0.0, 3.0])]
    for arr in arrays:
        for dim in dims_of(arr.ndim):
            check_grad(arr, lambda x: x.cumprod(dim), lambda x: torch.cumprod(x, dim), rng)


def test_grad_cummin_cummax(rng):
    tied = np.array([[3.0, 1.0, 3.0, 2.0, 3.0], [1.0, NAN, 2.0, NAN, 3.0], [2.0, 2.0, 2.0, 2.0,
                                                                            2.0]])
    for arr in list(grad_cases(rng)) + [tied]:
        for dim in dims_of(arr.ndim):
            check_grad(arr, lambda x: x.cummax(dim), lambda x: torch.cummax(x, dim).values, rng)
            check_grad(arr, lambda x: x.cummin(dim), lambda x: torch.cummin(x, dim).values, rng)
            check_grad(arr, lambda x: x.cummax_with_indices(dim)[0],
                       lambda x: torch.cummax(x, dim).values, rng)


def test_finite_differences(rng):
    arr = random_array(rng, (3, 4), "float64")
    with_zero = arr.copy()
    with_zero[1, 1] = with_zero[2, 0] = 0.0
    finite_difference(arr, lambda x: x.cumsum(1), rng)
    finite_difference(arr, lambda x: x.cumprod(0), rng)
    finite_difference(with_zero, lambda x: x.cumprod(1), rng)
    finite_difference(arr, lambda x: x.cummax(1), rng)
    finite_difference(arr, lambda x: x.cummin(0), rng)


@pytest.mark.half_precision
def test_grads_keep_dtype_and_ints_untracked(rng):
    for dtype in ("float32", "float16"):
        x = ember.from_numpy(random_array(rng, (3, 4), dtype)).require_grad()
        x.cumprod(1).backward()
        assert x.grad.dtype.name == dtype
    x = ember.from_numpy(random_array(rng, (3, 4), "float64")).require_grad()
    assert x.cumsum(0).is_tracked()
    assert not x.cummax_with_indices(0)[1].is_tracked()


# -- laws ---------------------------------------------------------------------------------------

small_ints = hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
                        elements=st.integers(-9, 9))


@settings(max_examples=40, deadline=None)
@given(small_ints, st.data())
def test_law_scans_end_in_the_reduction(arr, data):
    t = ember.from_numpy(arr)
    d = data.draw(st.integers(-arr.ndim, arr.ndim - 1))
    last = [slice(None)] * arr.ndim
    last[d] = slice(-1, None)
    last = tuple(last)
    assert t.cumsum(d).numpy()[last].tolist() == np.sum(arr, d, keepdims=True).tolist()
    assert t.cumprod(d).numpy()[last].tolist() == np.prod(arr, d, keepdims=True).tolist()
    assert t.cummax(d).numpy()[last].tolist() == np.max(arr, d, keepdims=True).tolist()
    assert t.cummin(d).numpy()[last].tolist() == np.min(arr, d, keepdims=True).tolist()


@settings(max_examples=40, deadline=None)
@given(small_ints, st.data())
def test_law_indices_point_at_values(arr, data):
    t = ember.from_numpy(arr)
    d = data.draw(st.integers(-arr.ndim, arr.ndim - 1))
    for name in ("cummax_with_indices", "cummin_with_indices"):
        values, indices = getattr(t, name)(d)
        idx = indices.numpy()
        assert (np.take_along_axis(arr, idx, axis=d) == values.numpy()).all()
        assert (np.diff(idx, axis=d) >= 0).all()
        pos = np.arange(arr.shape[d]).reshape([-1 if i == d % arr.ndim else 1
                                               for i in range(arr.ndim)])
        assert (idx <= pos).all()


# -- bad input ----------------------------------------------------------------------------------

NAMES = ("cumsum", "cumprod", "cummin", "cummax", "cummin_with_indices", "cummax_with_indices")


def test_bad_dim():
    t = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    for name in NAMES:
        raises(lambda: getattr(t, name)(2), [t], ember.DimensionError,
               rf"{name}: dim 2 is out of range for a tensor of rank 2; "
               r"expected a dim in \[-2, 1\]")
        raises(lambda: getattr(t, name)(-3), [t], ember.DimensionError, rf"{name}: dim -3")
        raises(lambda: getattr(t, name)((0,)), [t], ember.InvalidParameterError,
               rf"{name}: dim must be an int, got tuple")
        raises(lambda: getattr(t, name)(None), [t], ember.InvalidParameterError,
               rf"{name}: dim must be an int, got NoneType")
        raises(lambda: getattr(t, name)(True), [t], ember.InvalidParameterError,
               rf"{name}: dim must be an int, got bool")
    z = ember.tensor(1.0)
    for name in NAMES:
        raises(lambda: getattr(z, name)(1), [z], ember.DimensionError,
               rf"{name}: dim 1 is out of range for a 0-d tensor; expected 0 or -1")


def test_bad_self():
    for name in ("cumsum", "cumprod", "cummin", "cummax"):
        with pytest.raises(ember.InvalidParameterError,
                           match=rf"{name}: expected a Tensor, got list"):
            getattr(ember, name)([1.0, 2.0], 0)
