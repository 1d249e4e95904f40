"""Complex tensors in the reductions and scans (ember/ops/reduce.py, extremes.py, statistics.py,
ember/ops/scan.py) against PyTorch: sum, mean, prod, cumsum, cumprod keep the complex dtype; any,
all and count_nonzero count an element as nonzero when either part is; every ordering reduction
raises KindError naming the op (docs/complex.md)."""

import numpy as np
import pytest
import torch

import ember
from oracle import SHAPES, assert_unchanged, layouts, snapshot

CDTYPES = ["complex64", "complex128"]
TOL = {"complex64": (2e-5, 2e-5), "complex128": (1e-12, 1e-12)}


def crand(rng, shape, dtype):
    """Random complex data of ``shape``, with exact zeros in some parts (and some elements)."""
    re = rng.standard_normal(shape)
    im = rng.standard_normal(shape)
    if re.size:
        re.reshape(-1)[::3] = 0.0
        im.reshape(-1)[::4] = 0.0
    return np.asarray(re + 1j * im).astype(dtype)


def to_torch(t):
    """A torch tensor with the values and dtype of the ember tensor ``t`` (a copy)."""
    return torch.from_numpy(np.array(t.numpy(), copy=True))


def check(actual, expected, dtype=None):
    """``actual`` (ember) equals ``expected`` (torch): dtype, shape and values (complex
    compared as complex numbers; NaNs equal)."""
    assert isinstance(actual, ember.Tensor)
    exp = expected.detach().resolve_conj().resolve_neg()
    assert actual.dtype.name == str(exp.dtype).replace("torch.", ""), (actual.dtype, exp.dtype)
    act = np.asarray(actual.numpy())
    e = exp.numpy()
    assert act.shape == e.shape, (act.shape, e.shape)
    if act.dtype.kind in "fc":
        rtol, atol = TOL.get(dtype or actual.dtype.name, (1e-12, 1e-12))
        np.testing.assert_allclose(act, e, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(act, e)


def _dims(ndim):
    out = [None]
    out += list(range(-ndim, ndim)) if ndim else [0, -1]
    if ndim >= 2:
        out += [(0, ndim - 1), tuple(range(ndim))]
    return out


def _inputs(rng, shape, dtype):
    for name, arr in layouts(crand(rng, shape, dtype)):
        yield name, ember.from_numpy(arr)


# -- sum, mean, prod ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_sum_mean_prod_match_torch(rng, shape, dtype):
    for _, x in _inputs(rng, shape, dtype):
        tx = to_torch(x)
        before = snapshot(x)
        for dim in _dims(len(shape)):
            for keep in (False, True):
                tdim = dim if dim is not None else tuple(range(len(shape)))
                if not shape and dim is not None:
                    tdim = dim
                check(x.sum(dim, keepdim=keep), torch.sum(tx, tdim, keepdim=keep))
                check(x.mean(dim, keepdim=keep), torch.mean(tx, tdim, keepdim=keep))
                if isinstance(dim, int) or (dim is None and shape):
                    # torch.prod takes one dim (or none)
                    tp = (torch.prod(tx, dim, keepdim=keep) if dim is not None
                          else torch.prod(tx.reshape(-1), 0))
                    got = x.prod(dim, keepdim=keep)
                    if dim is None and keep:
                        tp = tp.reshape((1,) * len(shape))
                    check(got, tp)
        assert_unchanged([x], before)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_burn_forms_keep_the_dim(rng, dtype):
    x = ember.from_numpy(crand(rng, (2, 3, 4), dtype))
    tx = to_torch(x)
    check(x.sum_dim(1), tx.sum(1, keepdim=True))
    check(x.sum_dims([0, 2]), tx.sum((0, 2), keepdim=True))
    check(x.sum_dims_squeeze([0, 2]), tx.sum((0, 2)))
    check(x.mean_dim(-1), tx.mean(-1, keepdim=True))
    check(x.mean_dims([0, 1]), tx.mean((0, 1), keepdim=True))
    check(x.prod_dim(2), tx.prod(2, keepdim=True))
    check(x.prod_dims([0, 2]), tx.prod(2, keepdim=True).prod(0, keepdim=True))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_empty_reductions_match_torch(dtype):
    x = ember.from_numpy(np.zeros((2, 0, 3), dtype=dtype))
    tx = to_torch(x)
    check(x.sum(1), tx.sum(1))
    check(x.prod(1), tx.prod(1))          # 1 + 0j
    check(x.mean(1), tx.mean(1))          # nan + nan j
    check(x.sum(), tx.sum())


@pytest.mark.parametrize("dtype", CDTYPES)
def test_special_values_in_each_part(dtype):
    # PyTorch's results (C99 Annex G does not differ for sums): inf and nan propagate per part
    vals = np.array([complex(np.inf, 0.0), complex(0.0, np.nan), complex(-0.0, -0.0),
                     complex(1.0, -np.inf), complex(2.0, 3.0)], dtype=dtype)
    for arr in (vals, vals[::-1], vals.reshape(5, 1)):
        x = ember.from_numpy(arr)
        tx = to_torch(x)
        check(x.sum(), tx.sum())
        check(x.mean(), tx.mean())
        check(x.cumsum(0), tx.cumsum(0))
        check(x.any(), tx.any())
        check(x.all(), tx.all())
        check(x.count_nonzero(), torch.count_nonzero(tx))
    finite = np.array([complex(-0.0, 2.0), complex(3.0, -0.0), complex(-1.5, 0.5)], dtype=dtype)
    x = ember.from_numpy(finite)
    check(x.prod(), to_torch(x).prod())
    check(x.cumprod(0), to_torch(x).cumprod(0))


def test_sum_of_large_complex64_accumulates_like_torch(rng):
    a = crand(rng, (10000,), "complex64") + np.complex64(100 + 50j)
    x = ember.from_numpy(a)
    tx = to_torch(x)
    np.testing.assert_allclose(x.sum().numpy(), tx.sum().numpy(), rtol=1e-5)
    np.testing.assert_allclose(x.mean().numpy(), tx.mean().numpy(), rtol=1e-5)


# -- any, all, count_nonzero --------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_any_all_count_nonzero(rng, shape, dtype):
    for _, x in _inputs(rng, shape, dtype):
        tx = to_torch(x)
        for dim in _dims(len(shape)):
            tdim = tuple(range(len(shape))) if dim is None else dim
            if not shape:
                check(x.any(dim), torch.any(tx))
                check(x.all(dim), torch.all(tx))
                check(x.count_nonzero(dim), torch.count_nonzero(tx))
                continue
            for keep in (False, True):
                check(x.any(dim, keepdim=keep), torch.any(tx, tdim, keepdim=keep))
                check(x.all(dim, keepdim=keep), torch.all(tx, tdim, keepdim=keep))
            check(x.count_nonzero(dim), torch.count_nonzero(tx, tdim))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_nonzero_means_either_part(dtype):
    x = ember.from_numpy(np.array([[0j, 1j], [2 + 0j, 0j], [-0.0 + 0j, complex(0.0, -0.0)]],
                                  dtype=dtype))
    assert x.any(1).numpy().tolist() == [True, True, False]
    assert x.all(1).numpy().tolist() == [False, False, False]
    assert x.count_nonzero(0).numpy().tolist() == [1, 1]
    assert x.any_dim(0).numpy().tolist() == [[True, True]]
    assert x.all_dim(1).numpy().tolist() == [[False], [False], [False]]


# -- cumsum, cumprod ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_cumsum_cumprod_match_torch(rng, shape, dtype):
    for _, x in _inputs(rng, shape, dtype):
        tx = to_torch(x)
        before = snapshot(x)
        for dim in (range(-len(shape), len(shape)) if shape else (0, -1)):
            check(x.cumsum(dim), torch.cumsum(tx, dim))
            check(x.cumprod(dim), torch.cumprod(tx, dim))
        assert_unchanged([x], before)


# -- the refusing reductions --------------------------------------------------------------------

REFUSED = [
    ("max", lambda x: x.max()), ("max", lambda x: x.max(0)), ("max", lambda x: ember.max(x, 0)),
    ("min", lambda x: x.min()), ("min", lambda x: ember.min(x, dim=1)),
    ("max_dim", lambda x: x.max_dim(0)), ("min_dim", lambda x: x.min_dim(1)),
    ("max_dims", lambda x: x.max_dims([0, 1])), ("min_dims", lambda x: x.min_dims([0])),
    ("max_abs", lambda x: x.max_abs()), ("max_abs_dim", lambda x: x.max_abs_dim(0)),
    ("max_abs_dims", lambda x: x.max_abs_dims([0])),
    ("argmax", lambda x: x.argmax()), ("argmax", lambda x: ember.argmax(x, 1)),
    ("argmin", lambda x: x.argmin(0)), ("argmin", lambda x: ember.argmin(x)),
    ("argtopk", lambda x: x.argtopk(1, 0)),
    ("max_dim_with_indices", lambda x: x.max_dim_with_indices(0)),
    ("min_dim_with_indices", lambda x: x.min_dim_with_indices(0)),
    ("median", lambda x: x.median()), ("median", lambda x: ember.median(x, 0)),
    ("median_with_indices", lambda x: x.median_with_indices(0)),
    ("var", lambda x: x.var(0)), ("var", lambda x: ember.var(x)),
    ("var_bias", lambda x: x.var_bias(0)), ("var_mean", lambda x: x.var_mean(0)),
    ("var_mean", lambda x: ember.var_mean(x, 1)), ("var_mean_bias", lambda x: x.var_mean_bias()),
    ("cov", lambda x: x.cov(1)),
    ("cummax", lambda x: x.cummax(0)), ("cummax", lambda x: ember.cummax(x, 0)),
    ("cummin", lambda x: x.cummin(1)), ("cummin", lambda x: ember.cummin(x, 1)),
    ("cummax_with_indices", lambda x: x.cummax_with_indices(0)),
    ("cummin_with_indices", lambda x: x.cummin_with_indices(0)),
]


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("op,fn", REFUSED, ids=[f"{op}-{i}" for i, (op, _) in enumerate(REFUSED)])
def test_ordering_reductions_refuse_complex(rng, dtype, op, fn):
    x = ember.from_numpy(crand(rng, (2, 3), dtype))
    before = snapshot(x)
    with pytest.raises(ember.KindError) as info:
        fn(x)
    msg = str(info.value)
    assert msg.startswith(f"{op}:"), msg
    assert "complex" in msg and dtype in msg
    assert_unchanged([x], before)


@pytest.mark.parametrize("op,fn", [("max", lambda x: x.max()), ("var", lambda x: x.var()),
                                   ("cummax", lambda x: x.cummax(0))])
def test_refusal_comes_before_other_checks(op, fn):
    # an empty complex tensor is refused for its kind, not for being empty
    x = ember.from_numpy(np.zeros((0,), dtype=np.complex64))
    with pytest.raises(ember.KindError, match=f"^{op}: not defined for complex"):
        fn(x)


def test_real_reductions_unchanged(rng):
    a = rng.standard_normal((3, 4))
    x = ember.from_numpy(a)
    np.testing.assert_allclose(x.sum(1).numpy(), a.sum(1))
    np.testing.assert_allclose(x.cumsum(0).numpy(), a.cumsum(0))
    assert x.max().item() == a.max()
    assert ember.from_numpy(np.array([1, 2, 3], dtype=np.int32)).cumsum(0).dtype == ember.int64
    assert ember.from_numpy(np.array([1, 2], dtype=np.int32)).prod().dtype == ember.int64
