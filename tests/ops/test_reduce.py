"""Tests of ember/ops/reduce.py: values against PyTorch (NumPy where PyTorch lacks the op),
gradients against torch.autograd and finite differences, the spec's examples, bad input. The
spec's examples, laws and bad input of extremes.py and statistics.py are here too; their other
tests are in test_extremes.py and test_statistics.py."""

import doctest
import os
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember
from oracle import SHAPES, assert_close, ember_tensor, layouts, random_array, to_torch

NAN = float("nan")
INF = float("inf")
FLOATS = ["float64", "float32", "float16", "bfloat16"]
INTS = ["int64", "int32", "int16", "int8", "uint8"]
ALL = FLOATS + INTS + ["bool"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# -- helpers ------------------------------------------------------------------------------------

def cases(rng, dtype, shapes=SHAPES, all_layouts=True):
    """(tensor, original values) for each shape and layout; the values are a private copy."""
    for shape in shapes:
        arr = np.asarray(random_array(rng, shape, dtype))
        for i, (_, lay) in enumerate(layouts(arr)):
            if i and not all_layouts:
                break
            t = ember_tensor(lay, "bfloat16" if dtype == "bfloat16" else None)
            yield t, np.array(t.numpy(), copy=True)


def dim_args(ndim):
    if ndim == 0:
        return [None, 0, -1, (0,)]
    out = [None] + list(range(ndim)) + [-1]
    if ndim >= 2:
        out += [(0, 1), (-1, 0), tuple(range(ndim))]
    return out


def count(shape, dim):
    if dim is None:
        dims = range(len(shape))
    elif isinstance(dim, tuple):
        dims = dim
    else:
        dims = (dim,)
    n = 1
    for d in dims:
        if shape:
            n *= shape[d]
    return n


def torch_reduce(fn, x, dim, keepdim):
    """A PyTorch reduction with ember's meaning of dim (None: every dim; keepdim honoured)."""
    if dim is None:
        out = fn(x)
        return out.reshape([1] * x.ndim) if keepdim else out
    return fn(x, dim, keepdim=keepdim)


def torch_multi(fn, x, dim, keepdim):
    """A PyTorch single-dim reduction applied over ``dim`` (None, an int or a tuple)."""
    if dim is None:
        dims = tuple(range(x.ndim))
    elif isinstance(dim, tuple):
        dims = dim
    else:
        dims = (dim,)
    if x.ndim == 0:
        return fn(x, 0, keepdim=True)
    dims = sorted(d % x.ndim for d in dims)
    out = x
    for d in dims:
        out = fn(out, d, keepdim=True)
    if not keepdim:
        for d in reversed(dims):
            out = out.squeeze(d)
    return out


def unchanged(t, before):
    np.testing.assert_array_equal(np.asarray(t.numpy()).astype(np.float64),
                                  np.asarray(before).astype(np.float64))


def grad_pair(arr, ember_fn, torch_fn, rng):
    """(ember gradient, torch gradient) of out . seed for a random seed, in float64."""
    x = ember.from_numpy(arr).require_grad()
    out = ember_fn(x)
    seed = np.asarray(rng.standard_normal(out.shape))
    out.backward(ember.tensor(seed))
    xt = torch.from_numpy(np.array(arr, copy=True)).requires_grad_(True)
    torch_fn(xt).backward(torch.from_numpy(seed))
    return x.grad, xt.grad


def check_grad(arr, ember_fn, torch_fn, rng):
    g, gt = grad_pair(arr, ember_fn, torch_fn, rng)
    assert_close(g, gt)


def finite_difference(arr, fn, rng, eps=1e-6):
    """Compare the gradient of sum(fn(x) * seed) with central differences."""
    x = ember.from_numpy(arr).require_grad()
    out = fn(x)
    seed = np.asarray(rng.standard_normal(out.shape))
    out.backward(ember.tensor(seed))
    num = np.zeros(arr.shape)
    for i in np.ndindex(arr.shape):
        hi, lo = arr.copy(), arr.copy()
        hi[i] += eps
        lo[i] -= eps
        f_hi = float((fn(ember.from_numpy(hi)).numpy() * seed).sum())
        f_lo = float((fn(ember.from_numpy(lo)).numpy() * seed).sum())
        num[i] = (f_hi - f_lo) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-6)


def raises(fn, tensors, exc, match):
    before = [np.array(t.numpy(), copy=True) for t in tensors]
    with pytest.raises(exc, match=match) as info:
        fn()
    assert isinstance(info.value, ember.EmberError)
    for t, b in zip(tensors, before):
        unchanged(t, b)


def T(data, dtype=None):
    return ember.tensor(data, dtype=dtype)


# -- the spec's examples ------------------------------------------------------------------------

A = [[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]


def test_spec_sum_mean_prod():
    t = T(A)
    assert t.sum().tolist() == 22.0 and t.sum().shape == ()
    assert t.sum_dim(0).tolist() == [[6.0, 7.0, 9.0]]
    assert t.sum_dim(1).tolist() == [[2.0], [20.0]]
    assert t.sum_dims([0, 1]).tolist() == [[22.0]]  # API.md erratum: the comment says 27
    b = T([[[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]], [[9.0, 2.0, 5.0], [5.0, 7.0, 7.0]]])
    assert b.sum_dims_squeeze([0, 1]).tolist() == [20.0, 16.0, 21.0]
    assert t.mean().dtype == ember.float32
    assert t.mean().tolist() == float(np.float32(3.6666667))
    assert t.mean_dim(0).tolist() == [[3.0, 3.5, 4.5]]
    f32 = lambda v: float(np.float32(v))  # noqa: E731
    assert t.mean_dim(1).tolist() == [[f32(0.6666667)], [f32(6.6666665)]]
    assert T([[2.0, 4.0], [6.0, -4.0]]).mean_dims([0, 1]).tolist() == [[2.0]]
    assert t.prod().tolist() == -1620.0
    assert t.prod_dim(0).tolist() == [[5.0, -18.0, 18.0]]
    assert t.prod_dim(1).tolist() == [[-6.0], [270.0]]
    assert t.prod_dims([0, 1]).tolist() == [[-1620.0]]  # API.md erratum: the example calls sum_dims


def test_spec_max_min():
    t = T(A)
    assert t.max().tolist() == 9.0
    assert np.isnan(T([1.0, NAN, 3.0]).max().tolist())
    values, index = t.max_dim_with_indices(0)
    assert values.tolist() == [[5.0, 9.0, 6.0]] and index.tolist() == [[1, 1, 1]]
    assert T([[1.0, -7.0, 3.0], [5.0, -1.0, 6.0]]).max_abs().tolist() == 7.0
    assert t.max_abs_dim(0).tolist() == [[5.0, 9.0, 6.0]]  # API.md erratum: it calls max_dim
    assert t.max_abs_dims([0, 1]).tolist() == [[9.0]]
    assert t.min().tolist() == -2.0
    assert t.min_dim(0).tolist() == [[1.0, -2.0, 3.0]]
    assert t.min_dims([0, 1]).tolist() == [[-2.0]]
    values, index = T([[7.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).min_dim_with_indices(0)
    assert values.tolist() == [[5.0, -2.0, 3.0]] and index.tolist() == [[1, 0, 0]]
    assert t.max_dim(0).tolist() == [[5.0, 9.0, 6.0]]
    assert t.max_dims([0, 1]).tolist() == [[9.0]]


def test_spec_arg():
    ones = ember.from_numpy(np.ones((2, 3, 3), dtype=np.float32))
    assert ones.argmax(1).shape == (2, 1, 3)
    assert ones.argmin(1).shape == (2, 1, 3)
    assert ones.argmax(1).dtype == ember.int64
    assert ones.argmax(1).tolist() == np.zeros((2, 1, 3), dtype=int).tolist()
    assert T([3.0, NAN, NAN]).argmax(0).tolist() == [1]
    top = ones.argtopk(1, 2)
    assert top.shape == (2, 3, 1) and top.tolist() == np.zeros((2, 3, 1), dtype=int).tolist()


def test_spec_any_all():
    t = T([[True, False, True], [False, True, False]])
    assert t.any().tolist() is True and t.any().shape == () and t.any().dtype == ember.bool_
    assert T([[False] * 3] * 2).any().tolist() is False
    assert T([[True, False, False], [False, True, False]]).any_dim(1).tolist() == [[True], [True]]
    assert T([[True, False, True], [True, True, True]]).all().tolist() is False
    assert T([[True, True, False], [True, True, True]]).all_dim(0).tolist() == [[True, True, False]]


def test_spec_median():
    t = T([[1.0, 5.0, 3.0, 2.0], [8.0, 4.0, 6.0, 7.0]])
    assert t.median(0).tolist() == [[1.0, 4.0, 3.0, 2.0]]
    assert t.median(1).tolist() == [[2.0], [6.0]]
    flat = ember.from_numpy(t.numpy().reshape(-1))
    assert flat.median(0).tolist() == [4.0]
    values, indices = t.median_with_indices(1)
    assert values.tolist() == [[2.0], [6.0]] and indices.tolist() == [[3], [2]]


# -- sum, mean, prod against PyTorch ------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
def test_sum(rng, dtype):
    for t, before in cases(rng, dtype):
        x = to_torch(t)
        for dim in dim_args(t.ndim):
            for keepdim in (False, True):
                assert_close(t.sum(dim, keepdim), torch_reduce(torch.sum, x, dim, keepdim))
        assert_close(ember.sum(t), torch.sum(x))
        unchanged(t, before)


@pytest.mark.parametrize("dtype", ALL)
def test_sum_dim_forms(rng, dtype):
    for t, _ in cases(rng, dtype, all_layouts=False):
        x = to_torch(t)
        for dim in dim_args(t.ndim)[1:]:
            if isinstance(dim, tuple):
                assert_close(t.sum_dims(list(dim)), torch.sum(x, dim, keepdim=True))
                assert_close(t.sum_dims_squeeze(dim), torch.sum(x, dim))
            else:
                assert_close(t.sum_dim(dim), torch.sum(x, dim, keepdim=True))


@pytest.mark.parametrize("dtype", FLOATS)
def test_mean_float(rng, dtype):
    for t, before in cases(rng, dtype):
        x = to_torch(t)
        for dim in dim_args(t.ndim):
            for keepdim in (False, True):
                assert_close(t.mean(dim, keepdim), torch_reduce(torch.mean, x, dim, keepdim))
            if dim is not None and not isinstance(dim, tuple):
                assert_close(t.mean_dim(dim), torch.mean(x, dim, keepdim=True))
            elif dim is not None:
                assert_close(t.mean_dims(dim), torch.mean(x, dim, keepdim=True))
        unchanged(t, before)


def test_mean_empty_float_is_nan():
    assert np.isnan(T([]).mean().tolist())
    out = ember.from_numpy(np.zeros((3, 0))).mean(1)
    assert out.shape == (3,) and np.isnan(out.numpy()).all()
    assert ember.from_numpy(np.zeros((0, 3))).mean(0).shape == (3,)


@pytest.mark.parametrize("dtype", INTS)
def test_mean_int_floor(rng, dtype):
    for t, _ in cases(rng, dtype, all_layouts=False):
        x = to_torch(t)
        for dim in dim_args(t.ndim):
            if count(t.shape, dim) == 0:
                continue
            for keepdim in (False, True):
                s = torch_reduce(torch.sum, x, dim, keepdim)
                want = torch.div(s, count(t.shape, dim), rounding_mode="floor").to(x.dtype)
                assert_close(t.mean(dim, keepdim), want)


def test_mean_int_examples():
    assert T([1, 2]).mean().tolist() == 1
    assert T([-1, -2]).mean().tolist() == -2
    assert T([[1, 2], [3, 5]], dtype="int8").mean_dim(1).tolist() == [[1], [4]]
    assert T([[1, 2], [3, 5]], dtype="int8").mean_dim(1).dtype == ember.int8
    assert T([250, 252], dtype="uint8").mean().tolist() == 251


ALL_INTS = ["int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "uint64"]


def _exact_floor_mean(arr, axis):
    """The floor of the exact mean with Python ints (no fixed-width arithmetic)."""
    rows = np.moveaxis(np.asarray(arr, dtype=object), axis, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    return [sum(int(v) for v in row) // len(row) for row in flat], rows.shape[:-1]


@pytest.mark.parametrize("dtype", ALL_INTS)
def test_mean_int_is_the_floor_of_the_exact_mean_over_the_whole_range(rng, dtype):
    info = np.iinfo(dtype)
    extremes = [np.full((3, 4), info.max, dtype), np.full((3, 4), info.min, dtype),
                rng.integers(info.min, info.max, (3, 4), dtype=dtype, endpoint=True),
                rng.integers(info.max // 2, info.max, (3, 4), dtype=dtype, endpoint=True)]
    for arr in extremes:
        for name, lay in layouts(arr):
            t = ember.from_numpy(lay)
            want, _ = _exact_floor_mean(arr.reshape(1, -1), 1)
            assert t.mean().dtype.name == dtype and t.mean().tolist() == want[0], name
            for axis in (0, 1):
                want, shape = _exact_floor_mean(arr, axis)
                got = t.mean(axis)
                assert got.dtype.name == dtype and got.shape == shape
                assert got.numpy().reshape(-1).tolist() == want, (name, axis)
                assert t.mean_dim(axis).numpy().reshape(-1).tolist() == want
            np.testing.assert_array_equal(t.numpy(), arr)


def test_mean_int_of_huge_values():
    assert T([2**62, 2**62]).mean().tolist() == 2**62
    assert T([2**63 - 1] * 2).mean().tolist() == 2**63 - 1
    assert T([-2**63, -2**63, -1]).mean().tolist() == (-2**64 - 1) // 3
    assert T([-2**63, 2**63 - 1]).mean().tolist() == -1
    assert T([2**64 - 1] * 3, dtype="uint64").mean().tolist() == 2**64 - 1
    assert T([[2**63 - 1, 2**63 - 2], [1, 2]]).mean_dims([0, 1]).tolist() == [[2**62]]
    assert T([2**31 - 1] * 4, dtype="int32").mean().tolist() == 2**31 - 1
    assert T([0], dtype="int8").mean().tolist() == 0 and T(7).mean().tolist() == 7


def test_mean_int_of_very_long_rows_matches_the_exact_mean(rng, monkeypatch):
    """Counts from 2**31 elements up (a 2 GiB int8 row) take a path that adds chunks as Python
    ints; a small threshold runs that path on small data."""
    from ember.backends.numpy import reduce as kernels
    monkeypatch.setattr(kernels, "_EXACT_COUNT", 4)
    for dtype in ("int64", "uint64", "int8"):
        info = np.iinfo(dtype)
        arr = rng.integers(info.min, info.max, (2, 11, 3), dtype=dtype, endpoint=True)
        arr[0, :, 0] = info.max
        t = ember.from_numpy(arr)
        for axis in (0, 1, 2):
            want, shape = _exact_floor_mean(arr, axis)
            assert t.mean(axis).numpy().reshape(-1).tolist() == want
        want, _ = _exact_floor_mean(arr.reshape(1, -1), 1)
        assert t.mean().tolist() == want[0]
        assert t.mean_dims([0, 2]).numpy().reshape(-1).tolist() == [
            v for v in _exact_floor_mean(np.moveaxis(arr, 1, 0).reshape(11, -1), 1)[0]]


@pytest.mark.parametrize("dtype", ALL)
def test_prod(rng, dtype):
    for t, before in cases(rng, dtype, all_layouts=dtype in ("float64", "int32", "bool")):
        x = to_torch(t)
        for dim in dim_args(t.ndim):
            for keepdim in (False, True):
                assert_close(t.prod(dim, keepdim), torch_multi(torch.prod, x, dim, keepdim))
            if dim is not None and not isinstance(dim, tuple):
                assert_close(t.prod_dim(dim), torch.prod(x, dim, keepdim=True))
            elif dim is not None:
                assert_close(t.prod_dims(dim), torch_multi(torch.prod, x, dim, True))
        unchanged(t, before)


def test_uint_sums_as_numpy(rng):
    for dtype in ("uint16", "uint32", "uint64"):
        arr = random_array(rng, (3, 4), dtype, high=50)
        t = ember.from_numpy(arr)
        assert t.sum().dtype == ember.int64 and t.sum().tolist() == int(arr.sum())
        assert t.prod(0).tolist() == np.prod(arr.astype(np.int64), 0).tolist()
        assert t.mean(1).tolist() == (arr.astype(np.int64).sum(1) // 4).tolist()
        assert t.max().tolist() == int(arr.max())


def test_empty_tuple_reduces_nothing(rng):
    arr = random_array(rng, (2, 3), "float64")
    t = ember.from_numpy(arr)
    np.testing.assert_array_equal(t.sum(()).numpy(), arr)
    np.testing.assert_array_equal(t.max(()).numpy(), arr)
    np.testing.assert_array_equal(t.max_abs_dims([]).numpy(), np.abs(arr))
    assert T([True, False]).sum(()).tolist() == [1, 0]
    assert T([1, 0, 3]).count_nonzero(()).tolist() == [1, 0, 1]


@pytest.mark.half_precision
def test_float16_sum_accumulates_in_float32():
    arr = np.full(4096, 0.1, dtype=np.float16)
    s = ember.from_numpy(arr).sum()
    assert s.dtype == ember.float16
    assert s.tolist() == float(np.float16(arr.astype(np.float32).sum()))
    assert_close(s, torch.from_numpy(arr).sum())


def test_nan_inf_sum_mean(rng):
    arr = np.array([[1.0, INF, -INF], [2.0, NAN, 3.0], [INF, 1.0, 2.0]])
    t = ember.from_numpy(arr)
    x = torch.from_numpy(arr)
    for dim in (None, 0, 1):
        assert_close(t.sum(dim), torch_reduce(torch.sum, x, dim, False))
        assert_close(t.mean(dim), torch_reduce(torch.mean, x, dim, False))
        assert_close(t.prod(dim), torch_multi(torch.prod, x, dim, False))


# -- any, all, count_nonzero --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int64", "uint8", "bool"])
def test_any_all(rng, dtype):
    for t0, _ in cases(rng, dtype):
        t = t0
        if dtype != "bool":
            arr = np.asarray(t0.numpy()).astype(np.float64)
            arr[np.abs(arr) < 0.7] = 0
            t = ember.from_numpy(arr).cast(dtype)
        before = np.array(t.numpy(), copy=True)
        x = to_torch(t)
        for dim in dim_args(t.ndim):
            for keepdim in (False, True):
                for name in ("any", "all"):
                    got = getattr(t, name)(dim, keepdim)
                    want = torch_reduce(getattr(torch, name), x, dim, keepdim).bool()
                    assert_close(got, want)
            if dim is not None and not isinstance(dim, tuple):
                assert_close(t.any_dim(dim), torch.any(x, dim, keepdim=True).bool())
                assert_close(t.all_dim(dim), torch.all(x, dim, keepdim=True).bool())
        unchanged(t, before)


def test_any_all_nan_and_empty():
    assert T([NAN]).all().tolist() is True and T([NAN, 0.0]).any().tolist() is True
    assert T([]).any().tolist() is False and T([]).all().tolist() is True
    assert ember.any(T([0, 0])).tolist() is False


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_count_nonzero(rng, dtype):
    for t, _ in cases(rng, dtype):
        arr = np.asarray(t.numpy()).astype(np.float64)
        if dtype != "bool":
            arr[np.abs(arr) < 0.7] = 0
        t = ember.from_numpy(arr).cast(dtype)
        x = to_torch(t)
        for dim in dim_args(t.ndim):
            if dim == (0,) or (t.ndim == 0 and dim is not None):
                continue
            got = t.count_nonzero(dim)
            assert_close(got, torch.count_nonzero(x, dim))


# -- gradients against torch.autograd (float64) -------------------------------------------------

GRAD_SHAPES = [(), (5,), (3, 4), (2, 3, 4), (2, 0, 3)]


def grad_cases(rng, shapes=GRAD_SHAPES):
    for shape in shapes:
        arr = random_array(rng, shape, "float64")
        for _, lay in layouts(arr):
            yield lay


def test_grad_sum_mean(rng):
    for arr in grad_cases(rng):
        for dim in dim_args(arr.ndim):
            for keepdim in (False, True):
                check_grad(arr, lambda x: x.sum(dim, keepdim),
                           lambda x: torch_reduce(torch.sum, x, dim, keepdim), rng)
                check_grad(arr, lambda x: x.mean(dim, keepdim),
                           lambda x: torch_reduce(torch.mean, x, dim, keepdim), rng)
            if dim is not None and not isinstance(dim, tuple):
                check_grad(arr, lambda x: x.sum_dim(dim), lambda x: x.sum(dim, keepdim=True), rng)
                check_grad(arr, lambda x: x.mean_dim(dim), lambda x: x.mean(dim, keepdim=True),
                           rng)
            elif dim is not None:
                check_grad(arr, lambda x: x.sum_dims_squeeze(dim), lambda x: x.sum(dim), rng)
                check_grad(arr, lambda x: x.mean_dims(dim), lambda x: x.mean(dim, keepdim=True),
                           rng)


def test_grad_prod_with_zeros(rng):
    arrays = list(grad_cases(rng, [(), (5,), (3, 4), (2, 3, 4)]))
    one = random_array(rng, (3, 4), "float64")
    one[1, 2] = 0.0
    several = random_array(rng, (3, 4), "float64")
    several[0, 1] = several[0, 3] = several[2, 0] = 0.0
    several[2, 2] = 0.0
    allzero = np.zeros((2, 3))
    arrays += [one, several, allzero, np.array([0.0, 2.0, 3.0]), np.array([0.0, 0.0, 3.0])]
    for arr in arrays:
        for dim in dim_args(arr.ndim):
            for keepdim in (False, True):
                check_grad(arr, lambda x: x.prod(dim, keepdim),
                           lambda x: torch_multi(torch.prod, x, dim, keepdim), rng)
        if arr.ndim:
            check_grad(arr, lambda x: x.prod_dim(-1), lambda x: x.prod(-1, keepdim=True), rng)


def test_finite_differences(rng):
    arr = random_array(rng, (3, 4), "float64")
    with_zero = arr.copy()
    with_zero[1, 1] = 0.0
    finite_difference(arr, lambda x: x.sum(1), rng)
    finite_difference(arr, lambda x: x.mean((0, 1)), rng)
    finite_difference(arr, lambda x: x.prod(0), rng)
    finite_difference(with_zero, lambda x: x.prod_dim(1), rng)
    finite_difference(arr, lambda x: x.var(1), rng)
    finite_difference(arr, lambda x: x.max_dim(0), rng)
    finite_difference(arr, lambda x: x.median(1), rng)
    finite_difference(arr, lambda x: x.cov(1, 1), rng)


@pytest.mark.half_precision
def test_float32_and_float16_grads_keep_dtype(rng):
    for dtype in ("float32", "float16"):
        x = ember.from_numpy(random_array(rng, (3, 4), dtype)).require_grad()
        x.var(1).backward()
        assert x.grad.dtype.name == dtype
        x = ember.from_numpy(random_array(rng, (3, 4), dtype)).require_grad()
        x.prod(0).backward()
        assert x.grad.dtype.name == dtype and x.grad.shape == (3, 4)


def test_int_results_carry_no_gradient(rng):
    x = ember.from_numpy(random_array(rng, (3, 4), "float64")).require_grad()
    assert not x.argmax(1).is_tracked()
    assert not x.max_dim_with_indices(0)[1].is_tracked()
    assert not x.any().is_tracked() and not x.count_nonzero().is_tracked()
    assert x.sum().is_tracked() and x.median(0).is_tracked()
    with ember.no_grad():
        assert not x.sum().is_tracked()


# -- laws (Hypothesis) --------------------------------------------------------------------------

small_ints = hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
                        elements=st.integers(-20, 20))


@settings(max_examples=30, deadline=None)
@given(small_ints, st.data())
def test_law_sum_dims_is_sequential_sum_dim(arr, data):
    t = ember.from_numpy(arr)
    dims = data.draw(st.lists(st.integers(0, arr.ndim - 1), unique=True, min_size=1))
    out = t
    for d in dims:
        out = out.sum_dim(d)
    assert t.sum_dims(dims).tolist() == out.tolist()
    assert t.sum(tuple(dims)).tolist() == np.sum(arr, axis=tuple(dims)).tolist()


@settings(max_examples=30, deadline=None)
@given(small_ints, st.data())
def test_law_extremes_and_indices_agree(arr, data):
    t = ember.from_numpy(arr)
    d = data.draw(st.integers(-arr.ndim, arr.ndim - 1))
    values, index = t.max_dim_with_indices(d)
    assert values.tolist() == np.take_along_axis(arr, index.numpy(), axis=d).tolist()
    assert index.tolist() == t.argmax(d).tolist()
    assert t.argtopk(1, d).tolist() == index.tolist()
    assert (t.max_dim(d).numpy() >= arr).all() and (t.min_dim(d).numpy() <= arr).all()
    lo, hi = t.min_dim(d).numpy(), t.max_dim(d).numpy()
    med = t.median(d).numpy()
    assert (lo <= med).all() and (med <= hi).all()


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4),
                  elements=st.floats(-100, 100)), st.data())
def test_law_var_bias_and_var(arr, data):
    t = ember.from_numpy(arr)
    d = data.draw(st.integers(-arr.ndim, arr.ndim - 1))
    n = arr.shape[d]
    np.testing.assert_allclose(t.var_bias(d).numpy() * n, t.var(d).numpy() * (n - 1),
                               rtol=1e-9, atol=1e-9)
    assert (t.var(d).numpy() >= 0).all()


# -- bad input ----------------------------------------------------------------------------------

def test_bad_dims():
    t = T([[1.0, 2.0], [3.0, 4.0]])
    for name in ("sum", "mean", "prod", "max", "min", "any", "all", "count_nonzero", "max_abs"):
        raises(lambda: getattr(t, name)(2), [t], ember.DimensionError, rf"{name}: dim 2 is out")
        raises(lambda: getattr(t, name)((0, 5)), [t], ember.DimensionError,
               rf"{name}: dim 5 is out of range")
        raises(lambda: getattr(t, name)((0, -2)), [t], ember.InvalidParameterError,
               rf"{name}: dim \(0, -2\) repeats a dim")
        raises(lambda: getattr(t, name)(1.5), [t], ember.InvalidParameterError,
               rf"{name}: dim must be an int")
    for name in ("sum_dim", "mean_dim", "prod_dim", "max_dim", "min_dim", "max_abs_dim",
                 "any_dim", "all_dim", "max_dim_with_indices", "min_dim_with_indices"):
        raises(lambda: getattr(t, name)(-3), [t], ember.DimensionError,
               rf"{name}: dim -3 is out of range .* expected a dim in \[-2, 1\]")
        raises(lambda: getattr(t, name)((0,)), [t], ember.InvalidParameterError,
               rf"{name}: dim must be an int, got tuple")
    for name in ("sum_dims", "sum_dims_squeeze", "mean_dims", "prod_dims", "max_dims",
                 "min_dims", "max_abs_dims"):
        raises(lambda: getattr(t, name)([0, 0]), [t], ember.InvalidParameterError,
               rf"{name}: dims \(0, 0\) repeats a dim")
        raises(lambda: getattr(t, name)([3]), [t], ember.DimensionError, rf"{name}: dims 3")
    for name in ("argmax", "argmin", "var", "var_bias", "var_mean", "var_mean_bias", "median",
                 "median_with_indices"):
        raises(lambda: getattr(t, name)(2), [t], ember.DimensionError, rf"{name}: dim 2 is out")
    raises(lambda: t.argtopk(1, 2), [t], ember.DimensionError, r"argtopk: dim 2 is out")
    raises(lambda: t.cov(2), [t], ember.DimensionError, r"cov: dim 2 is out")
    z = T(3.0)
    raises(lambda: z.sum(1), [z], ember.DimensionError, r"sum: dim 1 is out of range for a 0-d")
    raises(lambda: z.max_dim(-2), [z], ember.DimensionError, r"max_dim: dim -2 .* 0-d")
    raises(lambda: z.sum((0, -1)), [z], ember.InvalidParameterError, r"sum: dim .* repeats")


def test_bad_keepdim():
    t = T([[1.0, 2.0], [3.0, 4.0]])
    for name in ("sum", "mean", "prod", "max", "min", "any", "all", "max_abs", "argmax",
                 "median", "var"):
        raises(lambda: getattr(t, name)(0, "yes"), [t], ember.InvalidParameterError,
               rf"{name}: keepdim must be a bool, got str 'yes'")


def test_bad_kinds():
    b = T([True, False])
    i = T([1, 2, 3])
    raises(lambda: b.mean(), [b], ember.KindError, r"mean: not defined for bool tensors")
    raises(lambda: b.mean_dim(0), [b], ember.KindError, r"mean_dim: not defined for bool")
    raises(lambda: b.max_abs(), [b], ember.KindError, r"max_abs: not defined for bool")
    raises(lambda: b.median(), [b], ember.KindError, r"median: not defined for bool")
    for name in ("var", "var_bias", "var_mean", "var_mean_bias"):
        raises(lambda: getattr(i, name)(0), [i], ember.KindError,
               rf"{name}: not defined for int tensors \(dtype int64\); expected a float tensor")
    m = T([[1, 2], [3, 4]])
    raises(lambda: m.cov(1), [m], ember.KindError, r"cov: not defined for int tensors")


def test_bad_empty_reductions():
    e = ember.from_numpy(np.zeros((0, 3)))
    for name in ("max", "min", "max_abs", "argmax", "argmin", "median_with_indices"):
        raises(lambda: getattr(e, name)(), [e], ember.InvalidParameterError,
               rf"{name}: cannot reduce zero elements .*shape \(0, 3\)")
    for name in ("max_dim", "min_dim", "max_abs_dim", "max_dim_with_indices",
                 "min_dim_with_indices", "argmax", "argmin", "median", "median_with_indices"):
        raises(lambda: getattr(e, name)(0), [e], ember.InvalidParameterError,
               rf"{name}: cannot reduce zero elements \(dims \(0,\)")
    raises(lambda: e.max((0, 1)), [e], ember.InvalidParameterError, r"max: cannot reduce zero")
    ei = ember.from_numpy(np.zeros((2, 0), dtype=np.int32))
    raises(lambda: ei.mean(), [ei], ember.InvalidParameterError,
           r"mean: the mean of zero int elements is undefined")
    raises(lambda: ei.mean_dim(1), [ei], ember.InvalidParameterError,
           r"mean_dim: the mean of zero int elements")
    raises(lambda: ei.median(), [ei], ember.InvalidParameterError, r"median: cannot reduce zero")


def test_bad_argtopk_k():
    t = T([[1.0, 2.0, 3.0]])
    raises(lambda: t.argtopk(4, 1), [t], ember.InvalidParameterError,
           r"argtopk: k 4 is out of range for dim 1 of size 3; expected 0 <= k <= 3")
    raises(lambda: t.argtopk(-1, 1), [t], ember.InvalidParameterError, r"argtopk: k -1 is out")
    raises(lambda: t.argtopk(1.0, 1), [t], ember.InvalidParameterError,
           r"argtopk: k must be an int")
    z = T(1.0)
    raises(lambda: z.argtopk(0, 0), [z], ember.InvalidParameterError, r"argtopk: k 0 .* 0-d")


def test_bad_cov():
    v = T([1.0, 2.0, 3.0])
    raises(lambda: v.cov(0), [v], ember.ShapeMismatchError,
           r"cov: self has shape \(3,\) \(rank 1\); expected a tensor of rank 2 or more")
    s = T(2.0)
    raises(lambda: s.cov(0), [s], ember.ShapeMismatchError, r"cov: self has shape \(\) \(rank 0\)")
    b = ember.zeros(2, 3, 4)
    raises(lambda: b.cov(3), [b], ember.DimensionError, r"cov: dim 3 is out")
    t = T([[1.0, 2.0], [3.0, 5.0]])
    raises(lambda: t.cov(1, -1), [t], ember.InvalidParameterError,
           r"cov: correction_factor -1 is negative")
    raises(lambda: t.cov(1, 0.5), [t], ember.InvalidParameterError,
           r"cov: correction_factor must be an int")


def test_bad_self_for_module_functions():
    for name in ("sum", "mean", "prod", "max", "min", "argmax", "argmin", "any", "all", "var",
                 "var_mean", "median", "count_nonzero"):
        with pytest.raises(ember.InvalidParameterError,
                           match=rf"{name}: expected a Tensor, got list"):
            getattr(ember, name)([1.0, 2.0])
    with pytest.raises(ember.InvalidParameterError, match=r"cov: expected a Tensor"):
        ember.cov([[1.0]], 0)


# -- the user guide -----------------------------------------------------------------------------

def test_docs_reductions_md():
    path = os.path.join(ROOT, "docs", "reductions.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


# -- the untracked fast paths and the cheap warning switch ---------------------------------------

def _with_ad(t, ad):
    return t.without_autodiff() if ad is None else t.with_gradient_checkpointing_strategy(ad)


@pytest.mark.parametrize("ad", ["none", "balanced", None])
@pytest.mark.parametrize("dtype", FLOATS)
def test_untracked_sum_and_mean_keep_the_autodiff_state(ad, dtype):
    rng = np.random.default_rng(7)
    arr = random_array(rng, (3, 4), dtype)
    t = _with_ad(ember_tensor(arr, "bfloat16" if dtype == "bfloat16" else None), ad)
    tracked = ember_tensor(arr, "bfloat16" if dtype == "bfloat16" else None).require_grad()
    for fn in (lambda x: x.sum(), lambda x: x.sum(1), lambda x: x.sum((0, 1), keepdim=True),
               lambda x: x.sum_dim(0), lambda x: x.mean(), lambda x: x.mean(0),
               lambda x: x.mean_dims([0, 1]), lambda x: x.max(), lambda x: x.min(1)):
        out, ref = fn(t), fn(tracked)  # the untracked result equals the recorded one's value
        assert not out.is_tracked() and ref.is_tracked()
        assert out.gradient_checkpointing_strategy() == ad
        assert out.dtype is ref.dtype and out.shape == ref.shape
        assert type(out._data) is type(t._data)  # an array, never a NumPy scalar
        np.testing.assert_array_equal(np.asarray(out.numpy()), np.asarray(ref.numpy()))
    tt = to_torch(tracked)
    assert_close(t.sum(), tt.sum(), **({"rtol": 2e-2, "atol": 2e-2} if "16" in dtype else {}))
    assert_close(t.mean(1), tt.mean(1), **({"rtol": 2e-2, "atol": 2e-2} if "16" in dtype else {}))


def test_reductions_never_warn_nor_change_numpy_error_state():
    be = ember.Device("cpu").backend
    big = ember.tensor([3e38, 3e38, -1.0])
    empty = ember.tensor(np.zeros((0, 3)), dtype="float32")
    state = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert big.sum().tolist() == INF and big.mean().tolist() == INF
        assert big.prod().tolist() == -INF
        assert np.isnan(empty.mean(0).numpy()).all() and empty.sum(0).tolist() == [0.0] * 3
        assert ember.tensor([INF, -INF]).sum().tolist() != ember.tensor([INF, -INF]).sum().tolist()
        assert np.isnan(ember.tensor([2.0]).var(0).tolist()).all()  # 0 / 0
    assert np.geterr() == state
    with pytest.raises(np.exceptions.AxisError):  # a failing kernel restores the error state
        be.reduce_sum(np.ones(3), (5,), False, ember.float64)
    assert np.geterr() == state


@pytest.mark.numpy_only
def test_sum_kernel_returns_arrays_of_the_requested_dtype():
    be = ember.Device("cpu").backend
    for arr, dtype in [(np.ones(3, np.float32), np.float32), (np.ones((2, 2)), np.float64),
                       (np.ones(3, np.float16), np.float16), (np.ones(3, np.int8), np.int64),
                       (np.ones(3, bool), np.int64)]:
        out = be.reduce_sum(arr, tuple(range(arr.ndim)), False, be.dtype_of(np.ones(1, dtype)))
        assert type(out) is np.ndarray and out.shape == () and out.dtype == dtype
        assert out == arr.size
        mean = be.reduce_mean(arr.astype(dtype), (0,), True)
        assert type(mean) is np.ndarray and mean.dtype == dtype and mean.shape[0] == 1
