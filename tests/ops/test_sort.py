"""Tests of ember/ops/sort.py: sort, argsort and topk against PyTorch, the spec, laws and bad input."""

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember
from oracle import SHAPES, assert_close, ember_tensor, layouts, random_array, to_torch
from oracle import assert_unchanged, snapshot

SPEC = [[12.0, -2.0, 3.0], [5.0, 3.0, 6.0]]
DTYPES = ["float64", "float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8"]


# -- the spec's examples ---------------------------------------------------------------------------
def test_spec_sort():
    t = ember.tensor(SPEC)
    assert t.sort(0).tolist() == [[5.0, -2.0, 3.0], [12.0, 3.0, 6.0]]
    assert t.sort(1).tolist() == [[-2.0, 3.0, 12.0], [3.0, 5.0, 6.0]]


def test_spec_sort_descending():
    t = ember.tensor(SPEC)
    assert t.sort_descending(0).tolist() == [[12.0, 3.0, 6.0], [5.0, -2.0, 3.0]]
    assert t.sort_descending(1).tolist() == [[12.0, 3.0, -2.0], [6.0, 5.0, 3.0]]


def test_spec_sort_with_indices():
    values, indices = ember.tensor(SPEC).sort_with_indices(0)
    assert values.tolist() == [[5.0, -2.0, 3.0], [12.0, 3.0, 6.0]]
    assert indices.tolist() == [[1, 0, 0], [0, 1, 1]]
    assert indices.dtype == ember.int64


def test_spec_sort_descending_with_indices():
    values, indices = ember.tensor(SPEC).sort_descending_with_indices(0)
    assert values.tolist() == [[12.0, 3.0, 6.0], [5.0, -2.0, 3.0]]
    assert indices.tolist() == [[0, 1, 1], [1, 0, 0]]


def test_spec_argsort():
    t = ember.tensor(SPEC)
    assert t.argsort(0).tolist() == [[1, 0, 0], [0, 1, 1]]
    assert t.argsort_descending(0).tolist() == [[0, 1, 1], [1, 0, 0]]
    assert t.argsort_descending(1).tolist() == [[0, 2, 1], [2, 0, 1]]


def test_spec_topk():
    t = ember.tensor(SPEC)
    assert t.topk(2, 0).tolist() == [[12.0, 3.0, 6.0], [5.0, -2.0, 3.0]]
    assert t.topk(1, 1).tolist() == [[12.0], [6.0]]
    values, indices = t.topk_with_indices(2, 0)
    assert values.tolist() == [[12.0, 3.0, 6.0], [5.0, -2.0, 3.0]]
    assert indices.tolist() == [[0, 1, 1], [1, 0, 0]]
    values, indices = values.topk_with_indices(1, 1)
    assert values.tolist() == [[12.0], [5.0]]
    assert indices.tolist() == [[0], [0]]
    values, indices = t.topk_with_indices(1, 1)
    assert values.tolist() == [[12.0], [6.0]]
    assert indices.tolist() == [[0], [2]]


# -- against PyTorch -------------------------------------------------------------------------------
def _data(rng, shape, dtype):
    # Few distinct values, so ties are common; NaN and infinities among the floats.
    if dtype.startswith(("int", "uint")):
        return random_array(rng, shape, dtype, low=-2, high=3)
    arr = np.asarray(np.round(rng.standard_normal(shape) * 2) / 2)
    if arr.size:
        flat = arr.reshape(-1)
        flat[rng.integers(0, arr.size, size=max(1, arr.size // 5))] = np.nan
        flat[0] = np.inf
        if arr.size > 1:
            flat[-1] = -np.inf
    return arr.astype("float32" if dtype == "bfloat16" else dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_sort_matches_torch(rng, shape, dtype):
    arr = _data(rng, shape, dtype)
    for name, a in layouts(arr):
        t = ember_tensor(a, dtype=dtype if dtype == "bfloat16" else None)
        tt = to_torch(t)
        for dim in range(-max(len(shape), 1), max(len(shape), 1)):
            for descending in (False, True):
                values, indices = t.sort_with_indices(dim, descending=descending)
                ev, ei = torch.sort(tt, dim=dim, descending=descending, stable=True)
                assert_close(values, ev)
                assert_close(indices, ei)
                assert_close(t.argsort(dim, descending=descending), ei)
            assert_close(t.sort(dim), torch.sort(tt, dim=dim, stable=True).values)
            assert_close(t.sort_descending(dim),
                         torch.sort(tt, dim=dim, descending=True, stable=True).values)
            assert_close(t.argsort_descending(dim),
                         torch.sort(tt, dim=dim, descending=True, stable=True).indices)
            values, indices = t.sort_descending_with_indices(dim)
            ev, ei = torch.sort(tt, dim=dim, descending=True, stable=True)
            assert_close(values, ev)
            assert_close(indices, ei)


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_sort_unsigned_matches_numpy(rng, dtype):
    arr = rng.integers(0, 2**15, size=(3, 7)).astype(dtype)
    arr[0, 0] = np.iinfo(dtype).max
    t = ember.from_numpy(arr)
    for dim in (0, 1):
        assert_close(t.argsort(dim), np.argsort(arr, axis=dim, kind="stable"))
        assert_close(t.sort(dim), np.sort(arr, axis=dim))
        desc = t.sort_descending(dim)
        assert_close(desc, np.flip(np.sort(arr, axis=dim), axis=dim))
        assert desc.dtype.name == dtype


def test_ties_keep_order_and_nan_is_largest():
    t = ember.tensor([1.0, float("nan"), 2.0, 1.0, float("nan"), -float("inf")])
    assert t.argsort().tolist() == [5, 0, 3, 2, 1, 4]
    assert t.argsort_descending().tolist() == [1, 4, 2, 0, 3, 5]
    v, i = t.topk_with_indices(3)
    assert i.tolist() == [1, 4, 2]
    assert np.isnan(v.numpy()[:2]).all()
    ints = ember.tensor([2, 1, 2, 1, 2])
    assert ints.argsort().tolist() == [1, 3, 0, 2, 4]
    assert ints.argsort_descending().tolist() == [0, 2, 4, 1, 3]
    assert ints.topk_with_indices(2)[1].tolist() == [0, 2]


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int16", "uint8", "bfloat16"])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (2, 0, 3)])
def test_topk_matches_torch(rng, shape, dtype):
    arr = random_array(rng, shape, dtype, low=-100, high=100)
    for name, a in layouts(arr):
        t = ember_tensor(a, dtype=dtype if dtype == "bfloat16" else None)
        tt = to_torch(t)
        for dim in range(-len(shape), len(shape)):
            n = shape[dim]
            for k in sorted({0, min(1, n), n // 2, n}):
                for largest in (True, False):
                    values, indices = t.topk_with_indices(k, dim, largest=largest)
                    ev = torch.topk(tt, k, dim=dim, largest=largest).values
                    assert_close(values, ev)
                    assert_close(t.topk(k, dim, largest=largest), ev)
                    # ties go to the lower index: the stable sort's first k
                    ei = torch.sort(tt, dim=dim, descending=largest, stable=True).indices
                    assert_close(indices, ei.narrow(dim if dim >= 0 else dim + len(shape), 0, k))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint8", "bfloat16"])
@pytest.mark.parametrize("spread", [3, 1000])
def test_topk_small_k_of_long_lines(rng, dtype, spread):
    # k much smaller than the line: the partition path, with and without ties at the k-th value
    arr = random_array(rng, (4, 50, 3), dtype, low=-spread, high=spread)
    if dtype.startswith("float") and spread == 3:
        arr = np.round(arr)
        arr[0, :7, 0] = np.nan
    for _, a in layouts(arr):
        t = ember_tensor(a, dtype=dtype if dtype == "bfloat16" else None)
        tt = to_torch(t)
        for k in (1, 2, 6):
            for largest in (True, False):
                values, indices = t.topk_with_indices(k, 1, largest=largest)
                ref = torch.sort(tt, dim=1, descending=largest, stable=True)
                assert_close(values, ref.values[:, :k])
                assert_close(indices, ref.indices[:, :k])


def test_zero_dim():
    t = ember.tensor(2.5)
    assert t.sort().tolist() == 2.5
    assert t.sort(0).shape == ()
    v, i = t.sort_with_indices(-1)
    assert (v.tolist(), i.tolist(), i.shape) == (2.5, 0, ())
    assert t.argsort_descending().tolist() == 0
    assert t.topk(1).tolist() == 2.5
    assert t.topk_with_indices(1, 0)[1].tolist() == 0


def test_module_functions_and_dtypes():
    t = ember.tensor([3, 1, 2], dtype="int32")
    assert ember.sort(t).values.tolist() == [1, 2, 3]
    assert ember.sort(t).values.dtype == ember.int32
    assert ember.argsort(t, descending=True).tolist() == [0, 2, 1]
    assert ember.topk(t, 2).values.tolist() == [3, 2]


def test_results_do_not_alias_input():
    arr = np.array([3.0, 1.0, 2.0])
    t = ember.from_numpy(arr)
    s = t.sort()
    assert not np.shares_memory(np.asarray(s.numpy()), arr)
    assert arr.tolist() == [3.0, 1.0, 2.0]


# -- gradients -------------------------------------------------------------------------------------
def _grad_compare(rng, arr, fn_e, fn_t):
    for name, a in layouts(arr):
        x = ember_tensor(a, requires_grad=True)
        out = fn_e(x)
        seed = rng.standard_normal(out.shape)
        out.backward(ember.tensor(seed))
        xt = torch.tensor(np.array(a), requires_grad=True)
        fn_t(xt).backward(torch.tensor(seed))
        assert_close(x.grad, xt.grad)


@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4), (2, 0, 3)])
def test_sort_grad_matches_torch(rng, shape):
    arr = np.asarray(np.round(rng.standard_normal(shape), 1))  # ties: stable on both sides
    for dim in range(-max(len(shape), 1), max(len(shape), 1)):
        for desc in (False, True):
            _grad_compare(rng, arr, lambda x: x.sort(dim, descending=desc),
                          lambda x: torch.sort(x, dim=dim, descending=desc, stable=True).values)
            _grad_compare(rng, arr, lambda x: x.sort_with_indices(dim, desc)[0],
                          lambda x: torch.sort(x, dim=dim, descending=desc, stable=True).values)
        _grad_compare(rng, arr, lambda x: x.sort_descending(dim),
                      lambda x: torch.sort(x, dim=dim, descending=True, stable=True).values)


@pytest.mark.parametrize("shape", [(6,), (3, 4), (2, 3, 4)])
def test_topk_grad_matches_torch(rng, shape):
    arr = rng.standard_normal(shape)
    for dim in range(len(shape)):
        for k in (1, shape[dim]):
            for largest in (True, False):
                _grad_compare(rng, arr, lambda x: x.topk(k, dim, largest=largest),
                              lambda x: torch.topk(x, k, dim=dim, largest=largest).values)
                _grad_compare(rng, arr, lambda x: x.topk_with_indices(k, dim)[0],
                              lambda x: torch.topk(x, k, dim=dim).values)


def test_topk_grad_finite_difference(rng):
    arr = rng.standard_normal((3, 5))
    seed = rng.standard_normal((3, 2))
    x = ember.tensor(arr).require_grad()
    x.topk(2, 1).backward(ember.tensor(seed))
    eps = 1e-6
    num = np.zeros_like(arr)
    for i in np.ndindex(arr.shape):
        hi, lo = arr.copy(), arr.copy()
        hi[i] += eps
        lo[i] -= eps
        f = lambda a: float((ember.tensor(a).topk(2, 1).numpy() * seed).sum())  # noqa: E731
        num[i] = (f(hi) - f(lo)) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), num, atol=1e-6)


def test_indices_carry_no_gradient():
    x = ember.tensor([2.0, 1.0]).require_grad()
    v, i = x.sort_with_indices()
    assert v.is_tracked() and not i.is_tracked()
    assert not x.argsort().is_tracked()


# -- laws ------------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5),
                  elements=st.sampled_from([-1.0, 0.0, 0.5, 2.0, np.nan, np.inf])),
       st.integers(0, 2), st.booleans())
def test_sort_laws(arr, dim, descending):
    dim = dim % arr.ndim
    t = ember.from_numpy(arr)
    values, indices = t.sort_with_indices(dim, descending=descending)
    idx = indices.numpy()
    # a permutation of each line, and the values are the input at the indices
    np.testing.assert_array_equal(np.sort(idx, axis=dim),
                                  np.broadcast_to(np.arange(arr.shape[dim]).reshape(
                                      [-1 if d == dim else 1 for d in range(arr.ndim)]), arr.shape))
    np.testing.assert_array_equal(values.numpy(), np.take_along_axis(arr, idx, axis=dim))
    # ordered with NaN largest, and equal values keep their order
    key = np.where(np.isnan(arr), np.inf, arr)
    rank = np.where(np.isnan(arr), 1, 0)
    sk, sr = np.take_along_axis(key, idx, dim), np.take_along_axis(rank, idx, dim)
    a, b = (slice(None, -1), slice(1, None))
    lo = tuple(a if d == dim else slice(None) for d in range(arr.ndim))
    hi = tuple(b if d == dim else slice(None) for d in range(arr.ndim))
    first, second = (lo, hi) if not descending else (hi, lo)
    ordered = (sk[first] < sk[second]) | ((sk[first] == sk[second]) & (sr[first] <= sr[second]))
    assert ordered.all()
    tie = (sk[lo] == sk[hi]) & (sr[lo] == sr[hi])
    assert (idx[lo][tie] < idx[hi][tie]).all()
    # argsort agrees with the indices of sort_with_indices
    assert_close(t.argsort(dim, descending=descending), idx)


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, err, match", [
    (lambda t: t.sort(2), ember.DimensionError, r"sort: dim 2 is out of range .* rank 2"),
    (lambda t: t.sort_descending(-3), ember.DimensionError, r"sort_descending: dim -3"),
    (lambda t: t.argsort("1"), ember.InvalidParameterError, r"argsort: dim must be an int"),
    (lambda t: t.argsort_descending(5), ember.DimensionError, r"argsort_descending: dim 5"),
    (lambda t: t.sort_with_indices(0, descending=1), ember.InvalidParameterError,
     r"sort_with_indices: descending must be a bool, got 1"),
    (lambda t: t.sort_descending_with_indices(9), ember.DimensionError, r"dim 9"),
    (lambda t: t.topk(4, 1), ember.InvalidParameterError,
     r"topk: k 4 is out of range for dim 1 of size 3; expected 0 <= k <= 3"),
    (lambda t: t.topk(-1), ember.InvalidParameterError, r"topk: k -1 is out of range"),
    (lambda t: t.topk(1.5), ember.InvalidParameterError, r"topk: k must be an int"),
    (lambda t: t.topk_with_indices(1, 2), ember.DimensionError, r"topk_with_indices: dim 2"),
    (lambda t: t.cast("bool").sort(), ember.KindError,
     r"sort: not defined for bool tensors"),
    (lambda t: t.cast("bool").topk(1), ember.KindError, r"topk: not defined for bool"),
    (lambda t: ember.sort([1, 2]), ember.InvalidParameterError, r"sort: self must be a Tensor"),
    (lambda t: ember.tensor(1.0).topk(0), ember.InvalidParameterError, r"k == 1 for a 0-d"),
    (lambda t: ember.tensor(1.0).sort(1), ember.DimensionError, r"sort: dim 1"),
])
def test_bad_input(call, err, match):
    t = ember.tensor(SPEC).require_grad()
    before = snapshot(t)
    with pytest.raises(err, match=match):
        call(t)
    assert_unchanged([t], before)


# -- the values-only fast path ---------------------------------------------------------------------
# An untracked sort() / sort_descending() sorts the values with NumPy's (unstable) sort when that
# gives the stable sort's bits, else the stable argsort: the result must equal, bit for bit, the
# stable sort's values (NumPy's stable argsort here) and the general path (sort_with_indices).
def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}")


def _stable_values(arr, axis, descending):
    keys = arr.astype(np.float32) if arr.dtype.name == "bfloat16" else arr
    if not descending:
        return np.take_along_axis(arr, np.argsort(keys, axis=axis, kind="stable"), axis=axis)
    n = arr.shape[axis]
    idx = np.argsort(np.flip(keys, axis), axis=axis, kind="stable")
    return np.take_along_axis(arr, (n - 1) - np.flip(idx, axis), axis=axis)


def _fast_path_data(rng, shape, dtype, special):
    """Ties everywhere; ``special``: signed zeros and NaNs of several signs and payloads."""
    if dtype.startswith(("int", "uint")):
        return random_array(rng, shape, dtype, low=-3, high=4)
    arr = np.asarray(np.round(rng.standard_normal(shape) * 2) / 2).astype(
        "float32" if dtype == "bfloat16" else dtype)
    if dtype == "bfloat16":
        arr = arr.astype(ml_dtypes.bfloat16)
    if special and arr.size:
        bits = arr.reshape(-1).view(f"u{arr.dtype.itemsize}")
        width = 8 * arr.dtype.itemsize
        sign = 1 << (width - 1)
        nan = np.asarray(np.nan, np.float32 if dtype == "bfloat16" else dtype)
        nan = int(_bits(nan.astype(arr.dtype).reshape(1))[0])
        picks = rng.integers(0, arr.size, size=max(1, arr.size // 2))
        choices = np.array([0, sign, nan, nan | sign, nan | 1, nan | sign | 2], dtype=bits.dtype)
        bits[picks] = choices[rng.integers(0, len(choices), size=len(picks))]
    return arr


FLOATS = ["float64", "float32", "float16", "bfloat16"]


@pytest.mark.parametrize("dtype, special", [(d, False) for d in FLOATS + ["int64", "int8", "uint8",
                                                                          "uint64"]]
                         + [(d, True) for d in FLOATS])
@pytest.mark.parametrize("shape", [(), (0,), (9,), (4, 6), (2, 0, 3), (3, 2, 5)])
def test_values_only_sort_is_bitwise_the_stable_sort(rng, shape, dtype, special):
    arr = _fast_path_data(rng, shape, dtype, special)
    for name, a in layouts(arr):
        t = ember.from_numpy(a)
        before = np.array(a, copy=True)
        for dim in range(-max(len(shape), 1), max(len(shape), 1)):
            axis = dim % max(len(shape), 1)
            for descending in (False, True):
                expected = _stable_values(a.reshape(a.shape or (1,)), axis, descending)
                expected = expected.reshape(a.shape)
                for out in (t.sort(dim, descending), ember.sort(t, dim, descending=descending).values):
                    assert out.dtype == t.dtype and out.shape == a.shape
                    np.testing.assert_array_equal(_bits(out.numpy()), _bits(expected))
                    general = t.sort_with_indices(dim, descending)[0]
                    np.testing.assert_array_equal(_bits(out.numpy()), _bits(general.numpy()))
                    assert not np.shares_memory(np.asarray(out.numpy()), a)
            np.testing.assert_array_equal(_bits(t.sort_descending(dim).numpy()),
                                          _bits(t.sort(dim, descending=True).numpy()))
        np.testing.assert_array_equal(_bits(a), _bits(before))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("special", ["signed zeros", "nans", "neither"])
def test_values_only_sort_of_long_rows_is_bitwise_the_stable_sort(rng, dtype, special):
    # long rows, where an unstable sort does reorder equal elements: each backend may sort
    # unstably only where that gives the same bits (no -0.0 beside 0.0, no NaNs of several
    # payloads)
    arr = (np.round(rng.standard_normal((3, 20_000)) * 2) / 2).astype(dtype) + 0.0  # (no -0.0)
    if special == "signed zeros":
        arr[:, ::7] = -0.0
    elif special == "nans":
        arr[:, ::5] = np.nan
        arr[:, 1::5] = -np.nan
    for descending in (False, True):
        out = ember.from_numpy(arr).sort(1, descending).numpy()
        np.testing.assert_array_equal(_bits(out), _bits(_stable_values(arr, 1, descending)))


def test_values_only_sort_of_a_tracked_tensor():
    # Tracked and grad on: the general path, whose gradient goes back through the indices;
    # inside no_grad: the fast path, an untracked result with the same bits.
    arr = np.array([[3.0, -0.0, 1.0, 0.0, 1.0], [2.0, 2.0, -1.0, 0.5, 7.0]])
    x = ember.from_numpy(arr).require_grad()
    out = x.sort(1)
    assert out.is_tracked()
    out.backward(ember.tensor([[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0]]))
    assert x.grad.tolist() == [[5.0, 1.0, 3.0, 2.0, 4.0], [8.0, 9.0, 6.0, 7.0, 10.0]]
    with ember.no_grad():
        quiet = x.sort(1)
    assert not quiet.is_tracked()
    np.testing.assert_array_equal(_bits(quiet.numpy()), _bits(out.numpy()))
    np.testing.assert_array_equal(arr, [[3.0, -0.0, 1.0, 0.0, 1.0], [2.0, 2.0, -1.0, 0.5, 7.0]])


def test_values_only_sort_keeps_the_checkpointing_strategy():
    t = ember.tensor([2.0, 1.0]).with_gradient_checkpointing_strategy("balanced")
    assert t.sort().gradient_checkpointing_strategy() == "balanced"
    assert t.sort_descending().tolist() == [2.0, 1.0]


@pytest.mark.parametrize("call, err, match", [
    (lambda t: t.sort(2), ember.DimensionError, r"sort: dim 2 is out of range .* rank 2"),
    (lambda t: t.sort(0, descending="yes"), ember.InvalidParameterError,
     r"sort: descending must be a bool, got 'yes'"),
    (lambda t: t.sort_descending(-3), ember.DimensionError, r"sort_descending: dim -3"),
    (lambda t: t.cast("bool").sort(), ember.KindError, r"sort: not defined for bool tensors"),
])
def test_bad_input_untracked(call, err, match):
    t = ember.tensor(SPEC)
    before = snapshot(t)
    with pytest.raises(err, match=match):
        call(t)
    assert_unchanged([t], before)


# -- complex tensors: no order (docs/complex.md) ----------------------------------------------
def _complex(shape, dtype=np.complex64):
    rng = np.random.default_rng(5)
    return ember.from_numpy(np.asarray(rng.standard_normal(shape)
                                       + 1j * rng.standard_normal(shape), dtype=dtype))


SORT_CALLS = {
    "sort": lambda z: z.sort(), "sort_function": lambda z: ember.sort(z, 0),
    "sort_descending": lambda z: z.sort_descending(),
    "sort_with_indices": lambda z: z.sort_with_indices(),
    "sort_descending_with_indices": lambda z: z.sort_descending_with_indices(),
    "argsort": lambda z: z.argsort(), "argsort_descending": lambda z: z.argsort_descending(),
    "topk": lambda z: z.topk(1), "topk_function": lambda z: ember.topk(z, 1),
    "topk_with_indices": lambda z: z.topk_with_indices(1),
    "kthvalue": lambda z: z.kthvalue(1),
}


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(2, 3), (), (0,)])
@pytest.mark.parametrize("name", sorted(SORT_CALLS))
def test_complex_refused(name, shape, dtype):
    if shape == (0,) and "k" in name.replace("sort", ""):
        shape = (0, 2)  # k = 1 must fit the sorted dim
    z = _complex(shape, dtype)
    before = snapshot(z)
    op = name.replace("_function", "").replace("_with_indices", "").replace("_descending", "")
    with pytest.raises(ember.KindError, match=rf"{op}.*complex"):
        SORT_CALLS[name](z)
    assert_unchanged([z], before)
