"""Sums and means over leading, middle or trailing axes, and row max/min, through the NumPy backend's
compiled kernels (ember/backends/numpy/jit/reduce.py) and through NumPy: against PyTorch,
NaN/inf/-0.0 included, and the accuracy of long float32 sums."""

import numpy as np
import pytest
import torch

import ember
from ember.backends.numpy import jit
from ember.backends.numpy import reduce as breduce
from ember.backends.numpy.jit import reduce as jit_reduce
from oracle import assert_close, assert_unchanged, snapshot

pytestmark = pytest.mark.numpy_only

CASES = [  # (shape, dims): leading or trailing axes, and others that stay on NumPy
    ((37, 45), 0), ((37, 45), 1), ((37, 45), -1), ((300, 1), 0), ((1, 300), 1),
    ((4, 37, 45), (0, 1)), ((4, 37, 45), (1, 2)), ((4, 37, 45), 2), ((4, 37, 45), 0),
    ((4, 37, 45), 1), ((4, 37, 45), (0, 2)), ((2, 3, 4, 5), (2, 3)), ((700, 520), 0),
    ((520, 700), 1), ((5,), 0), ((0, 4), 0), ((4, 0), 1), ((0, 4), 1), ((), None),
    ((37, 45), None), ((700, 520), None), ((1009,), None), ((4, 37, 45), (0, 1, 2)),
    ((0, 4), None),  # every axis: the compiled total over up to 64 rows
    ((3, 4, 5, 6), (1, 2)), ((6, 70, 5), 1), ((2, 0, 3), 1), ((0, 3, 4), 1),  # middle axes
]


def _take(path, monkeypatch):
    if path == "compiled":
        if not jit.enabled():
            pytest.skip("no C compiler here (or EMBER_JIT=0): the NumPy path is tested alone")
        monkeypatch.setenv("EMBER_JIT", "sync")
        monkeypatch.setattr(jit_reduce, "MIN_NUMEL", 1)
    else:
        monkeypatch.setenv("EMBER_JIT", "0")
    return path


@pytest.fixture(params=["compiled", "numpy_path"])
def path(request, monkeypatch):
    return _take(request.param, monkeypatch)


def _data(rng, shape, dtype, special):
    a = rng.standard_normal(shape)
    if special and a.ndim == 2 and a.shape[0] >= 6 and a.shape[1] >= 3:
        a[0, 1] = np.nan                              # a NaN row (and column)
        a[1, :] = -0.0                                # a row of negative zeros
        a[2, 0], a[2, 2] = np.inf, -np.inf           # inf - inf: NaN
        a[3, 1] = np.inf                              # an inf max
        a[4, :] = -np.inf                             # a row of -inf
        a[5, 0] = -np.nan
    return np.asarray(a.astype(dtype))



@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sums_and_means_match_torch(path, rng, dtype, special):
    """Against PyTorch's float64 sums (cast back): a float32 sum of ``n`` values may be off by
    about ``n`` float32 roundings where it cancels, in NumPy's order as in PyTorch's."""
    for shape, dim in CASES:
        a = _data(rng, shape, dtype, special)
        x, t = ember.from_numpy(a), torch.from_numpy(a.copy())
        before = snapshot(x)
        dims = tuple(range(a.ndim)) if dim is None else (dim,) if isinstance(dim, int) else dim
        n = max(1, int(np.prod([a.shape[d] for d in dims])))
        tol = {} if dtype == "float64" else {"rtol": 1e-5, "atol": 1e-7 * n}
        wide = t.double()
        for keepdim in (False, True):
            if dim is None:
                assert_close(x.sum(), wide.sum().to(t.dtype), **tol)
                if a.size:
                    assert_close(x.mean(), wide.mean().to(t.dtype),
                                 **(tol and {"rtol": 1e-5, "atol": 1e-7}))
                continue
            assert_close(x.sum(dim, keepdim=keepdim),
                         wide.sum(dim, keepdim=keepdim).to(t.dtype), **tol)
            mean_tol = tol and {"rtol": 1e-5, "atol": 1e-7}
            assert_close(x.mean(dim, keepdim=keepdim),
                         wide.mean(dim, keepdim=keepdim).to(t.dtype), **mean_tol)
        assert_unchanged([x], before)


@pytest.mark.parametrize("special", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_row_max_min_match_torch(path, rng, dtype, special):
    for shape, dim in CASES:
        if dim is None or 0 in shape:
            continue
        a = _data(rng, shape, dtype, special)
        x, t = ember.from_numpy(a), torch.from_numpy(a.copy())
        for keepdim in (False, True):
            assert_close(x.max(dim, keepdim=keepdim), t.amax(dim, keepdim=keepdim))
            assert_close(x.min(dim, keepdim=keepdim), t.amin(dim, keepdim=keepdim))


def test_total_sums_of_long_float32_arrays_are_accurate(path):
    # a million values of 1e-3 (float32): the float64 parts give 1000 to float32 precision
    x = ember.from_numpy(np.full((1000, 1000), 1e-3, dtype=np.float32))
    assert abs(x.sum().item() - 1000.0) < 1e-2
    assert abs(x.mean().item() - 1e-3) < 1e-8


def test_negative_zero_sums_and_extremes(path):
    a = np.full((6, 40), -0.0, dtype=np.float32)
    x = ember.from_numpy(a)
    for got, want in ((x.sum(1), torch.zeros(6)), (x.sum(0), torch.zeros(40)),
                      (x.max(1), torch.full((6,), -0.0)), (x.min(1), torch.full((6,), -0.0))):
        assert_close(got, want)
        assert np.signbit(got.numpy()).tolist() == torch.signbit(want).tolist()


@pytest.mark.parametrize("path, dim", [("compiled", 0), ("compiled", 1), ("numpy_path", 1)])
def test_long_float32_sums_are_accurate(monkeypatch, path, dim):
    """A million float32 values of 1e-3 add up to 1000 within the oracle's tolerance (a plain
    float32 running sum drifts by 1e-2 relative, as NumPy's sum over axis 0 does: row after
    row)."""
    _take(path, monkeypatch)
    shape = (1_000_000, 2) if dim == 0 else (2, 1_000_000)
    a = np.full(shape, 1e-3, dtype=np.float32)
    x, t = ember.from_numpy(a), torch.from_numpy(a)
    want = np.add.reduce(a.astype(np.float64), axis=dim)
    np.testing.assert_allclose(x.sum(dim).numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(x.mean(dim).numpy(), want / a.shape[dim], rtol=1e-6)
    assert_close(x.sum(dim), t.sum(dim))
    assert_close(x.mean(dim), t.mean(dim))


def test_compiled_kernels_are_taken(monkeypatch, rng, jit_launches):
    if not jit.enabled():
        pytest.skip("no C compiler here (or EMBER_JIT=0)")
    monkeypatch.setenv("EMBER_JIT", "sync")
    monkeypatch.setattr(jit_reduce, "MIN_NUMEL", 1)
    for dtype in ("float32", "float64"):
        a = _data(rng, (30, 20), dtype, False)
        x, t = ember.from_numpy(a), torch.from_numpy(a)
        assert_close(x.sum(0), t.sum(0))
        assert_close(x.mean(1), t.mean(1))
        assert_close(x.max(1), t.amax(1))
        assert_close(x.min(-1), t.amin(-1))
        assert_close(x.sum(), t.double().sum().to(t.dtype), rtol=1e-6)
        b = _data(rng, (3, 10, 20), dtype, False)
        assert_close(ember.from_numpy(b).mean(1), torch.from_numpy(b).mean(1))
        for kind in ("col_sum", "row_sum", "row_max", "row_min", "row_totals", "mid_sum"):
            assert (jit_reduce.source(kind, dtype)[0], True) in jit_launches


def test_other_layouts_and_dtypes_stay_on_numpy(monkeypatch, rng):
    monkeypatch.setattr(jit_reduce, "MIN_NUMEL", 1)
    a = _data(rng, (30, 20), "float32", False)
    assert jit_reduce.plan(a.T, (0,), False, ("col_sum", "row_sum")) is None   # not contiguous
    assert jit_reduce.plan(a.astype(np.float16), (0,), False, ("col_sum", "row_sum")) is None
    b = _data(rng, (4, 5, 6), "float64", False)
    assert jit_reduce.plan(b, (1,), False, ("col_sum", "row_sum")) is None     # a middle axis
    assert jit_reduce.plan(b, (0, 1, 2), False, ("col_sum", "row_sum")) is None  # every axis
    assert jit_reduce.plan(b, (0,), False, (None, "row_max")) is None          # no column max
    x, t = ember.from_numpy(a.T), torch.from_numpy(a.T.copy())
    assert_close(x.sum(0), t.sum(0))
    assert_close(x.max(1), t.amax(1))
    # a sum into another dtype: NumPy's
    got = breduce.reduce_sum(a, (0,), False, ember.float64)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, torch.from_numpy(a).sum(0).double().numpy(), rtol=1e-5)


def test_large_sums_on_threads_match_torch(path, rng):
    a = _data(rng, (2100, 1000), "float32", True)       # above the threads' threshold
    assert a.size >= jit_reduce.PARALLEL_NUMEL
    previous = ember.get_num_threads()
    try:
        ember.set_num_threads(2)
        x, t = ember.from_numpy(a), torch.from_numpy(a)
        for dim in (0, 1):
            want = t.double().sum(dim)
            assert_close(x.sum(dim), want.float(), rtol=1e-5, atol=1e-4)
            assert_close(x.mean(dim), (want / a.shape[dim]).float(), rtol=1e-5, atol=1e-7)
        assert_close(x.max(1), t.amax(1))
        b = _data(rng, (40, 300, 200), "float32", False)  # middle axis, a block per thread
        y, u = ember.from_numpy(b), torch.from_numpy(b)
        assert_close(y.sum(1), u.double().sum(1).float(), rtol=1e-5, atol=1e-4)
        assert_close(y.mean(1, keepdim=True), u.double().mean(1, keepdim=True).float(),
                     rtol=1e-5, atol=1e-7)
    finally:
        ember.set_num_threads(previous)


def test_middle_axis_sums_keep_nan_inf_and_negative_zero(path):
    a = np.full((3, 8, 40), -0.0, dtype=np.float32)
    a[0, 2, 5] = np.nan
    a[1, 3, 6], a[1, 4, 6] = np.inf, -np.inf
    a[2, 0, 7] = np.inf
    x, t = ember.from_numpy(a), torch.from_numpy(a.copy())
    got, want = x.sum(1), t.sum(1)
    assert_close(got, want)
    assert np.signbit(got.numpy()).tolist() == torch.signbit(want).tolist()
    assert np.isnan(got.numpy()[0, 5]) and np.isnan(got.numpy()[1, 6])
    assert got.numpy()[2, 7] == np.inf
