"""Tests of ember/ops/compare.py: comparisons, is_close/all_close, NaN/inf predicates.

The oracle is PyTorch (through int64 for the uint16/32/64 comparisons PyTorch has no kernels
for), and Python ints where ember deliberately differs from PyTorch (out-of-range int scalars).
"""

import doctest
import operator
import os
import pathlib

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from oracle import SHAPES, TORCH_DTYPES, assert_close, layouts
from oracle import assert_unchanged, snapshot

FLOATS = ["float64", "float32", "float16", "bfloat16"]
TORCH_INTS = ["int8", "int16", "int32", "int64", "uint8"]
WIDE_UINTS = ["uint16", "uint32", "uint64"]
SPECIALS = [np.nan, np.inf, -np.inf, -0.0, 0.0]


def data(rng, shape, dtype):
    """Values with many ties; floats include NaN, +-inf, -0.0 and 0.0."""
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in FLOATS:
        arr = np.asarray(np.round(rng.standard_normal(shape) * 2, 1))
        mask = rng.random(shape) < 0.25
        arr[mask] = rng.choice(SPECIALS, size=int(mask.sum()))
        return arr.astype(np.float32 if dtype == "bfloat16" else dtype)
    lo = 0 if dtype.startswith("uint") else -4
    return np.asarray(rng.integers(lo, 5, size=shape)).astype(dtype)


def et(arr, dtype=None):
    """An ember tensor viewing ``arr`` (layout kept); bfloat16 through a cast."""
    t = ember.from_numpy(arr)
    return t.cast(dtype) if dtype is not None and t.dtype.name != dtype else t


def tt(arr, dtype=None):
    out = torch.from_numpy(np.array(arr, copy=True))
    return out.to(TORCH_DTYPES[dtype]) if dtype is not None else out


CMP = [("equal", operator.eq, torch.eq, "eq"), ("not_equal", operator.ne, torch.ne, "ne"),
       ("greater", operator.gt, torch.gt, "gt"), ("greater_equal", operator.ge, torch.ge, "ge"),
       ("lower", operator.lt, torch.lt, "lt"), ("lower_equal", operator.le, torch.le, "le")]
CMP_IDS = [c[0] for c in CMP]


# -- the spec's examples ----------------------------------------------------------------------

A = [[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]
B = [[1.0, 3.0, 4.0], [1.0, 2.0, 3.0]]
T1 = [[2.0, 4.9], [2.0, 1.9], [4.0, 5.9]]
T2 = [[3.0, 4.9], [2.0, 1.9], [4.0, 5.9]]
F, T = False, True


def test_spec_examples_tensor_forms():
    assert ember.tensor(T1).equal(ember.tensor(T2)).tolist() == [[F, T], [T, T], [T, T]]
    assert ember.tensor(T1).not_equal(ember.tensor(T2)).tolist() == [[T, F], [F, F], [F, F]]
    a, b = ember.tensor(A), ember.tensor(B)
    assert a.greater(b).tolist() == [[F, F, F], [T, T, T]]
    assert a.greater_equal(b).tolist() == [[T, F, F], [T, T, T]]
    assert a.lower(b).tolist() == [[F, T, T], [F, F, F]]
    assert a.lower_equal(b).tolist() == [[T, T, T], [F, F, F]]


def test_spec_examples_scalar_forms():
    a = ember.tensor(A)
    assert a.equal_scalar(3.0).tolist() == [[F, F, T], [F, F, F]]
    assert a.not_equal_scalar(3.0).tolist() == [[T, T, F], [T, T, T]]
    # API.md errata: the spec's comment shows greater_equal_scalar's result
    assert a.greater_scalar(3.0).tolist() == [[F, F, F], [T, T, T]]
    assert a.greater_equal_scalar(3.0).tolist() == [[F, F, T], [T, T, T]]
    assert a.lower_scalar(3.0).tolist() == [[T, T, F], [F, F, F]]
    assert a.lower_equal_scalar(3.0).tolist() == [[T, T, T], [F, F, F]]


def test_spec_examples_closeness_and_predicates():
    a, b = ember.tensor(A), ember.tensor(A)
    assert a.is_close(b, None, None).tolist() == [[T, T, T], [T, T, T]]
    result = a.all_close(b, None, None)
    assert result is True
    nan, inf = float("nan"), float("inf")
    assert ember.tensor([[1.0, nan, 3.0], [5.0, 9.0, 6.0]]).is_nan().tolist() == [[F, T, F], [F, F, F]]
    c = ember.tensor([[1.0, -2.0, 3.0], [nan, 9.0, 6.0]]).contains_nan()
    assert c.shape == () and c.dtype is ember.bool_ and c.tolist() is True
    assert ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).contains_nan().tolist() is False
    # API.md errata: the spec's example calls is_finite; is_inf of this tensor is:
    x = ember.tensor([[1.0, inf, 3.0], [nan, 9.0, 6.0]])
    assert x.is_inf().tolist() == [[F, T, F], [F, F, F]]
    assert x.is_finite().tolist() == [[T, F, T], [F, T, T]]


# -- tensor forms against PyTorch ---------------------------------------------------------------

@pytest.mark.parametrize("name,pyop,top,alias", CMP, ids=CMP_IDS)
@pytest.mark.parametrize("dtype", FLOATS + TORCH_INTS + ["bool"])
def test_compare_matches_torch(rng, name, pyop, top, alias, dtype):
    for shape in SHAPES:
        a, b = data(rng, shape, dtype), data(rng, shape, dtype)
        if a.size:
            b.ravel()[: a.size // 2] = a.ravel()[: a.size // 2]     # ties
        expected = top(tt(a, dtype), tt(b, dtype))
        for (layout, x), (_, y) in zip(layouts(a), layouts(b)):
            ex, ey = et(x, dtype), et(y, dtype)
            for out in (getattr(ex, name)(ey), pyop(ex, ey), getattr(ex, alias)(ey),
                        getattr(ember, name)(ex, ey), getattr(ember, alias)(ex, ey)):
                assert_close(out, expected)


@pytest.mark.parametrize("name,pyop,top,alias", CMP, ids=CMP_IDS)
@pytest.mark.parametrize("dtype", WIDE_UINTS)
def test_compare_wide_unsigned(rng, name, pyop, top, alias, dtype):
    info = np.iinfo(dtype)
    a = np.asarray(rng.integers(0, 4, size=(3, 5))).astype(dtype)
    b = np.asarray(rng.integers(0, 4, size=(3, 5))).astype(dtype)
    a[0, :2] = info.max
    b[0, 1] = info.max
    ref = [[pyop(int(x), int(y)) for x, y in zip(ra, rb)] for ra, rb in zip(a, b)]
    assert pyop(et(a), et(b)).tolist() == ref
    assert getattr(et(a), name)(et(b)).tolist() == ref
    if dtype != "uint64":
        expected = top(tt(a.astype(np.int64)), tt(b.astype(np.int64)))
        assert_close(pyop(et(a), et(b)), expected)


@pytest.mark.parametrize("name,pyop,top,alias", CMP, ids=CMP_IDS)
def test_compare_broadcasts(rng, name, pyop, top, alias):
    for sa, sb in [((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (2, 3)), ((5, 0), (1,)),
                   ((2, 1, 3), (4, 1)), ((1,), ())]:
        a, b = data(rng, sa, "float32"), data(rng, sb, "float32")
        assert_close(pyop(et(a), et(b)), top(tt(a), tt(b)))
        assert_close(getattr(et(b), name)(et(a)), top(tt(b), tt(a)))


MIXED = [("int64", "float32"), ("int8", "float64"), ("float16", "bfloat16"),
         ("float32", "float64"), ("bool", "int8"), ("bool", "float32"), ("uint8", "int8"),
         ("int32", "float16"), ("int16", "int64"), ("float16", "float32")]


@pytest.mark.parametrize("name,pyop,top,alias", CMP, ids=CMP_IDS)
@pytest.mark.parametrize("da,db", MIXED)
def test_compare_mixed_dtypes_match_torch(rng, name, pyop, top, alias, da, db):
    ints = {"int8", "int16", "int32", "int64", "uint8", "bool"}
    for sa, sb in [((3, 4), (3, 4)), ((), (5,)), ((2, 3), ())]:
        a, b = data(rng, sa, da), data(rng, sb, db)
        ta, tb = tt(a, da), tt(b, db)
        if da in ints and db in ints:
            # int against int is exact in ember; PyTorch wraps a 0-d int8 into uint8 first
            ta, tb = ta.long(), tb.long()
        assert_close(pyop(et(a, da), et(b, db)), top(ta, tb))
        assert_close(pyop(et(b, db), et(a, da)), top(tb, ta))


def test_zero_dim_int_against_other_int_dtype_is_exact():
    u = ember.tensor([0, 200, 255], dtype="uint8")
    s = ember.tensor(-3, dtype="int8")
    assert (u > s).tolist() == [True, True, True]
    assert (u == ember.tensor(-56, dtype="int8")).tolist() == [False, False, False]


def test_int_against_float_compares_in_default_float():
    # PyTorch promotes int64 with a float to float32: 16777217 rounds to 16777216
    t = ember.tensor([16777217, 3])
    expected = torch.tensor([16777217, 3]) == 16777216.0
    assert_close(t == 16777216.0, expected)
    assert (t == 16777216.0).tolist() == [True, False]
    assert_close(t > 2.5, torch.tensor([16777217, 3]) > 2.5)
    assert (ember.tensor([2, 3]) < 2.5).tolist() == [True, False]


SCALARS = [0, 2, -1, 2.5, -0.0, float("nan"), float("inf"), -float("inf"), True, False,
           np.float32(0.5), np.int8(-3)]


@pytest.mark.parametrize("name,pyop,top,alias", CMP, ids=CMP_IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int8",
                                   "uint8", "bool"])
def test_compare_with_scalars_both_sides(rng, name, pyop, top, alias, dtype):
    a = data(rng, (4, 5), dtype)
    for s in SCALARS + [1e39, -1e39, 70000.0, 2**70]:
        ts = s.item() if isinstance(s, np.generic) else s
        if dtype in ("uint8", "int8", "int64") and not isinstance(ts, float) and not -128 <= ts < 256:
            continue      # PyTorch wraps such ints into the dtype (see the exact test below)
        if dtype == "uint8" and not isinstance(ts, float) and ts < 0:
            continue
        if not isinstance(ts, float) and abs(ts) >= 2**63:
            if dtype not in FLOATS:
                continue
            ts = float(ts)         # PyTorch takes no such int; it is the same float
        expected = pyop(tt(a, dtype), ts)
        assert_close(pyop(et(a, dtype), s), expected)
        assert_close(pyop(s, et(a, dtype)), pyop(ts, tt(a, dtype)))
        assert_close(getattr(et(a, dtype), name)(s), expected)
        assert_close(getattr(et(a, dtype), name + "_scalar")(s), expected)
        assert_close(getattr(et(a, dtype), name + "_elem")(s), expected)
        assert_close(getattr(ember, name)(s, et(a, dtype)), pyop(ts, tt(a, dtype)))


@pytest.mark.parametrize("pyop", [operator.eq, operator.ne, operator.gt, operator.ge,
                                  operator.lt, operator.le])
def test_out_of_range_int_scalars_compare_exactly(pyop):
    # ember compares a Python int with an int tensor exactly (NumPy 2); PyTorch wraps the scalar
    for dtype, values, scalars in [
            ("int8", [-128, -1, 0, 127], [1000, -1000, 128, -129, 2**70]),
            ("uint8", [0, 1, 255], [-1, 256, -(2**70)]),
            ("uint64", [0, 2**64 - 1], [-1, 2**64, 2**100]),
            ("int64", [-(2**63), 2**63 - 1], [2**63, -(2**63) - 1])]:
        t = ember.tensor(values, dtype=dtype)
        for s in scalars:
            assert pyop(t, s).tolist() == [pyop(v, s) for v in values]
            assert pyop(s, t).tolist() == [pyop(s, v) for v in values]


@pytest.mark.half_precision
def test_huge_int_scalar_against_float_tensor():
    t = ember.tensor([1.0, float("inf")])
    assert (t < 2**2000).tolist() == [True, False]
    assert (t > -(2**2000)).tolist() == [True, True]
    assert (ember.tensor([1.0], dtype="float16") < 1e6).tolist() == [True]


def test_uint64_against_int64_is_exact():
    u = ember.tensor([2**64 - 1, 5], dtype="uint64")
    s = ember.tensor([-1, 5], dtype="int64")
    assert (u == s).tolist() == [False, True]
    assert (u > s).tolist() == [True, False]


def test_large_int64_values_compare_exactly():
    a = ember.tensor([2**62 + 1, -(2**62)])
    b = ember.tensor([2**62, -(2**62)])
    assert_close(a > b, torch.tensor([2**62 + 1, -(2**62)]) > torch.tensor([2**62, -(2**62)]))
    assert (a == b).tolist() == [False, True]


def test_nan_and_signed_zero():
    nan = float("nan")
    a = ember.tensor([nan, nan, -0.0, 0.0, 1.0])
    b = ember.tensor([nan, 1.0, 0.0, -0.0, nan])
    assert (a == b).tolist() == [False, False, True, True, False]
    assert (a != b).tolist() == [True, True, False, False, True]
    assert (a < b).tolist() == [False, False, False, False, False]
    assert (a >= b).tolist() == [False, False, True, True, False]
    assert (a == nan).tolist() == [False] * 5
    assert (a != nan).tolist() == [True] * 5


# -- laws --------------------------------------------------------------------------------------

finite = st.floats(-1e6, 1e6, allow_nan=False, width=32)


@settings(max_examples=40)
@given(st.lists(st.tuples(finite, finite), max_size=12), st.booleans())
def test_laws_of_order(pairs, tie):
    a = np.array([p[0] for p in pairs], dtype=np.float32)
    b = np.array([p[0] if tie else p[1] for p in pairs], dtype=np.float32)
    x, y = ember.from_numpy(a), ember.from_numpy(b)
    lt, eq, gt = (x < y).numpy(), (x == y).numpy(), (x > y).numpy()
    np.testing.assert_array_equal(lt.astype(int) + eq.astype(int) + gt.astype(int), np.ones(len(a), int))
    np.testing.assert_array_equal((x < y).numpy(), (y > x).numpy())
    np.testing.assert_array_equal((x <= y).numpy(), ~(x > y).numpy())
    np.testing.assert_array_equal((x >= y).numpy(), ~(x < y).numpy())
    np.testing.assert_array_equal((x != y).numpy(), ~eq)
    np.testing.assert_array_equal((x == y).numpy(), (y == x).numpy())


@settings(max_examples=30)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=10))
def test_laws_of_nan(values):
    x = ember.tensor(values, dtype="float64")
    nan = np.isnan(np.array(values, dtype=np.float64))
    np.testing.assert_array_equal((x != x).numpy(), nan)
    np.testing.assert_array_equal(x.is_nan().numpy(), nan)
    np.testing.assert_array_equal(x.is_close(x).numpy(), ~nan)
    np.testing.assert_array_equal(x.is_close(x, equal_nan=True).numpy(), np.ones(len(values), bool))
    assert x.contains_nan().tolist() == bool(nan.any())


# -- is_close / all_close ------------------------------------------------------------------------

def close_pair(rng, shape, dtype):
    a = data(rng, shape, dtype).astype(np.float64)
    scale = 10.0 ** rng.integers(-9, -1, size=shape)
    b = a * (1 + rng.choice([-1, 1], size=shape) * scale) + rng.choice([0, 1e-9, -3e-8, 1e-6], size=shape)
    b = np.asarray(b)
    if a.size:
        b.ravel()[0] = a.ravel()[0]
    return a.astype(dtype), b.astype(dtype)


TOLS = [(None, None), (1e-3, 0.0), (0.0, 1e-7), (1e-2, 1e-2), (0.0, 0.0), (float("inf"), 0.0)]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("rtol,atol", TOLS)
@pytest.mark.parametrize("equal_nan", [False, True])
def test_is_close_matches_torch(rng, dtype, rtol, atol, equal_nan):
    kw = {"rtol": 1e-5 if rtol is None else rtol, "atol": 1e-8 if atol is None else atol}
    for shape in SHAPES:
        a, b = close_pair(rng, shape, dtype)
        expected = torch.isclose(tt(a), tt(b), equal_nan=equal_nan, **kw)
        for (layout, x), (_, y) in zip(layouts(a), layouts(b)):
            out = et(x).is_close(et(y), rtol, atol, equal_nan=equal_nan)
            assert_close(out, expected)
            assert_close(ember.isclose(et(x), et(y), rtol=rtol, atol=atol, equal_nan=equal_nan), expected)
            res = et(x).all_close(et(y), rtol, atol, equal_nan=equal_nan)
            assert type(res) is bool
            assert res == torch.allclose(tt(a), tt(b), equal_nan=equal_nan, **kw)
            assert et(x).allclose(et(y), rtol, atol, equal_nan=equal_nan) == res


@pytest.mark.half_precision
def test_is_close_half_precision_and_ints(rng):
    for dtype in ("float16", "bfloat16"):
        a = np.array([1.0, 2.0, np.inf, np.nan, -np.inf, 100.0, 0.0], dtype=np.float32)
        b = np.array([1.0, 2.5, np.inf, np.nan, np.inf, 100.5, 0.0], dtype=np.float32)
        expected = torch.isclose(tt(a, dtype), tt(b, dtype), rtol=1e-3, atol=1e-3)
        assert_close(et(a, dtype).is_close(et(b, dtype), 1e-3, 1e-3), expected)
    a = np.asarray(rng.integers(-50, 50, size=(4, 6)))
    b = a + rng.integers(-1, 2, size=(4, 6))
    for rtol, atol in [(None, None), (0.0, 1.0), (0.02, 0.0)]:
        kw = {"rtol": 1e-5 if rtol is None else rtol, "atol": 1e-8 if atol is None else atol}
        assert_close(et(a).is_close(et(b), rtol, atol), torch.isclose(tt(a), tt(b), **kw))
        assert et(a).all_close(et(b), rtol, atol) == torch.allclose(tt(a), tt(b), **kw)


def test_is_close_broadcasts_and_promotes(rng):
    a, b = close_pair(rng, (3, 4), "float64")
    expected = torch.isclose(tt(a), tt(b[:1]))
    assert_close(et(a).is_close(et(b[:1])), expected)
    # float32 against float64 promotes to float64 (PyTorch refuses mixed dtypes)
    a32 = a.astype(np.float32)
    expected = torch.isclose(tt(a32).double(), tt(b))
    assert_close(et(a32).is_close(et(b)), expected)
    # int tensor against float tensor, and a number as other
    i = np.array([1, 2, 3])
    assert_close(et(i).is_close(et(np.array([1.0, 2.1, 3.0], np.float32))),
                 torch.isclose(tt(i).float(), torch.tensor([1.0, 2.1, 3.0])))
    assert_close(et(a).is_close(0.5, atol=1.0), torch.isclose(tt(a), torch.full_like(tt(a), 0.5), atol=1.0))


def test_is_close_formula_is_relative_to_other():
    a, b = ember.tensor([1.0]), ember.tensor([2.0])
    assert a.is_close(b, rtol=0.5, atol=0.0).tolist() == [True]      # |1 - 2| <= 0.5 * |2|
    assert b.is_close(a, rtol=0.5, atol=0.0).tolist() == [False]     # |2 - 1| >  0.5 * |1|


def test_is_close_infinities_and_nan():
    inf, nan = float("inf"), float("nan")
    a = ember.tensor([inf, -inf, inf, nan, nan, 1.0])
    b = ember.tensor([inf, -inf, -inf, nan, 1.0, inf])
    assert a.is_close(b).tolist() == [True, True, False, False, False, False]
    assert a.is_close(b, equal_nan=True).tolist() == [True, True, False, True, False, False]
    assert a.all_close(a) is False
    assert a.all_close(a, equal_nan=True) is True


def test_all_close_empty_and_zero_dim():
    assert ember.tensor([]).all_close(ember.tensor([])) is True
    assert ember.tensor(1.0).all_close(ember.tensor(1.0 + 1e-9)) is True
    assert ember.tensor(1.0).is_close(ember.tensor(2.0)).shape == ()


@pytest.mark.parametrize("name", ["is_close", "all_close"])
def test_is_close_bad_input(name):
    a, b = ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0])
    bools = ember.tensor([True, False])
    before = snapshot(a, b, bools)
    fn = getattr(a, name)
    cases = [
        (ember.KindError, rf"{name}: not defined for bool tensors \(self has dtype bool\)",
         lambda: getattr(bools, name)(bools)),
        (ember.KindError, rf"{name}: not defined for bool tensors \(other has dtype bool\)",
         lambda: fn(bools)),
        (ember.KindError, rf"{name}: other must be a Tensor or a number \(int, float or complex\), got str 'x'",
         lambda: fn("x")),
        (ember.KindError, rf"{name}: other must be a Tensor or a number .*got bool True",
         lambda: fn(True)),
        (ember.InvalidParameterError, rf"{name}: rtol must be >= 0, got -1", lambda: fn(b, rtol=-1)),
        (ember.InvalidParameterError, rf"{name}: atol must be >= 0, got nan",
         lambda: fn(b, atol=float("nan"))),
        (ember.InvalidParameterError, rf"{name}: rtol must be a number >= 0 or None, got str '1'",
         lambda: fn(b, rtol="1")),
        (ember.InvalidParameterError, rf"{name}: atol must be a number >= 0 or None, got bool True",
         lambda: fn(b, atol=True)),
        (ember.InvalidParameterError, rf"{name}: equal_nan must be a bool, got int 1",
         lambda: fn(b, equal_nan=1)),
        (ember.ShapeMismatchError, rf"{name}: shapes \(2,\) and \(3,\) do not broadcast",
         lambda: fn(ember.tensor([1.0, 2.0, 3.0]))),
        (ember.InvalidParameterError, rf"{name}: self must be a Tensor, got float",
         lambda: getattr(ember, name)(1.0, a)),
    ]
    for err, match, call in cases:
        with pytest.raises(err, match=match) as info:
            call()
        if err is ember.InvalidParameterError and "must be" in match and "Tensor" not in match:
            assert info.value.param in ("rtol", "atol", "equal_nan")
    assert_unchanged([a, b, bools], before)


# -- predicates --------------------------------------------------------------------------------

PREDICATES = [("is_nan", torch.isnan, "isnan"), ("is_inf", torch.isinf, "isinf"),
              ("is_finite", torch.isfinite, "isfinite")]


@pytest.mark.parametrize("name,top,alias", PREDICATES, ids=[p[0] for p in PREDICATES])
@pytest.mark.parametrize("dtype", FLOATS + TORCH_INTS + WIDE_UINTS + ["bool"])
def test_predicates_match_torch(rng, name, top, alias, dtype):
    for shape in SHAPES:
        a = data(rng, shape, dtype)
        expected = top(tt(a, dtype))
        for layout, x in layouts(a):
            ex = et(x, dtype)
            for out in (getattr(ex, name)(), getattr(ex, alias)(), getattr(ember, name)(ex),
                        getattr(ember, alias)(ex)):
                assert_close(out, expected)


@pytest.mark.parametrize("dtype", FLOATS + TORCH_INTS + ["bool"])
def test_contains_nan_matches_torch(rng, dtype):
    for shape in SHAPES:
        a = data(rng, shape, dtype)
        for layout, x in layouts(a):
            out = et(x, dtype).contains_nan()
            assert out.shape == () and out.dtype is ember.bool_
            assert out.tolist() == bool(torch.isnan(tt(a, dtype)).any())
            assert ember.contains_nan(et(x, dtype)).tolist() == out.tolist()
    assert ember.tensor([1.0, float("inf")]).contains_nan().tolist() is False


@pytest.mark.parametrize("name", ["is_nan", "is_inf", "is_finite", "contains_nan"])
def test_predicates_bad_input(name):
    with pytest.raises(ember.InvalidParameterError, match=rf"{name}: self must be a Tensor, got list"):
        getattr(ember, name)([1.0, float("nan")])


# -- autodiff and hashing ----------------------------------------------------------------------

def test_comparisons_on_tracked_tensors_are_untracked():
    w = ember.tensor([1.0, float("nan"), 3.0], dtype="float64").require_grad()
    outs = [w > 1, w == w, w.lower(ember.tensor([2.0, 2.0, 2.0], dtype="float64")),
            w.is_nan(), w.is_finite(), w.contains_nan(), w.is_close(w), 2.0 <= w]
    for out in outs:
        assert out.dtype is ember.bool_
        assert not out.is_tracked()
    assert outs[0].tolist() == [False, False, True]
    assert w.is_tracked() and w.all_close(w, equal_nan=True) is True
    # the graph is untouched: backward through a recorded op of w still works after comparing
    y = w.cast("float32")
    assert (y > 0).is_tracked() is False
    y.backward(ember.tensor([0.5, 1.0, 2.0]))
    assert w.grad.tolist() == [0.5, 1.0, 2.0]


def test_hash_is_identity_and_eq_is_elementwise():
    a = ember.tensor([1, 2])
    b = ember.tensor([1, 2])
    assert hash(a) == id(a) and hash(b) == id(b)
    d = {a: "a", b: "b"}
    assert d[a] == "a" and d[b] == "b"
    assert len({a, b, a}) == 2
    assert (a == b).tolist() == [True, True]
    result = a == b
    assert type(result) is ember.Tensor and result.dtype is ember.bool_


def test_eq_with_other_types_falls_back():
    t = ember.tensor([1, 2])
    assert (t == "a") is False and (t != "a") is True
    assert (t == None) is False and (t != None) is True  # noqa: E711
    assert (t == [1, 2]) is False
    for pyop in (operator.lt, operator.le, operator.gt, operator.ge):
        with pytest.raises(TypeError, match="not supported between instances"):
            pyop(t, "a")
        with pytest.raises(TypeError, match="not supported between instances"):
            pyop(None, t)


# -- bad input for comparisons -------------------------------------------------------------------

@pytest.mark.parametrize("name,pyop,top,alias", CMP, ids=CMP_IDS)
def test_compare_bad_input(name, pyop, top, alias):
    a = ember.tensor([[1.0, 2.0, 3.0]])
    b = ember.tensor([1.0, 2.0])
    before = snapshot(a, b)
    with pytest.raises(ember.ShapeMismatchError, match=rf"^{name}: shapes \(1, 3\) and \(2,\) do not broadcast"):
        getattr(a, name)(b)
    with pytest.raises(ember.ShapeMismatchError, match=rf"^{name} \(\S+\): shapes \(1, 3\) and \(2,\)"):
        pyop(a, b)
    with pytest.raises(ember.KindError, match=rf"^{name}: other must be a Tensor or a number \(int, float or bool\), got str 'x'"):
        getattr(a, name)("x")
    if name in ("equal", "not_equal"):  # complex numbers compare for equality (docs/complex.md)
        assert getattr(a, name)(1j).tolist() == [[name == "not_equal"] * 3]
    else:
        with pytest.raises(ember.KindError, match=rf"^{name}: not defined for complex numbers "
                                                  r"\(other is 1j\)"):
            getattr(a, name)(1j)
    with pytest.raises(ember.KindError, match=rf"^{name}_scalar: other must be a number \(int, float or bool\), got Tensor; use {name} for tensors"):
        getattr(a, name + "_scalar")(b)
    with pytest.raises(ember.KindError, match=rf"^{name}_scalar: other must be a number .*got NoneType"):
        getattr(a, name + "_elem")(None)
    with pytest.raises(ember.KindError, match=rf"^{name}: expected at least one Tensor, got int 1 and float 2.0"):
        getattr(ember, name)(1, 2.0)
    assert_unchanged([a, b], before)
    with pytest.raises(TypeError):
        getattr(a, name)("x")      # a KindError is a TypeError


# -- the user guide ------------------------------------------------------------------------------

def test_docs_logic_md_examples_run():
    path = pathlib.Path(__file__).resolve().parents[2] / "docs" / "logic.md"
    result = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


def test_uint64_against_signed_ints_needs_no_common_dtype():
    # promote_types refuses uint64 with a signed int; comparisons need no common dtype
    u = ember.tensor([2**64 - 1, 2**63, 5, 0], dtype="uint64")
    for dtype in ("int8", "int32", "int64"):
        s = ember.tensor([-1, 100, 5, -128], dtype=dtype)
        assert (u == s).tolist() == [False, False, True, False]
        assert (s < u).tolist() == [True, True, False, True]
        assert u.greater_equal(s).tolist() == [True, True, True, True]
        assert u.is_close(s).tolist() == [False, False, True, False]
    assert (u[2] == ember.tensor(5)).tolist() is True


# -- the torch backend gives the NumPy backend's results --------------------------------------

# the torch device the comparisons run on: torch:cpu, or the suite's torch device (CUDA)
TORCH_DEVICE = os.environ.get("EMBER_DEVICE", "") if os.environ.get(
    "EMBER_DEVICE", "").startswith("torch:") else "torch:cpu"


def _values(dtype, shape=(3, 5), seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in FLOATS:
        arr = rng.standard_normal(shape) * 3
        arr.flat[:5] = SPECIALS
        return arr
    info = np.iinfo(dtype)
    arr = rng.integers(int(info.min), int(info.max), shape, dtype=np.dtype(dtype), endpoint=True)
    arr.flat[:3] = [0, info.max, info.min]
    return arr


def _same(ours, theirs, what):
    assert isinstance(ours, bool) and ours == theirs if isinstance(theirs, bool) else True, what
    if isinstance(theirs, bool):
        return
    assert ours.device == ember.Device(TORCH_DEVICE), what
    assert ours.dtype is theirs.dtype, f"{what}: {ours.dtype} != {theirs.dtype}"
    np.testing.assert_array_equal(np.asarray(ours.numpy()), np.asarray(theirs.numpy()),
                                  err_msg=what)


ALL_DTYPES = FLOATS + TORCH_INTS + WIDE_UINTS + ["bool"]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_torch_backend_matches_numpy(dtype):
    arr, other = _values(dtype), _values(dtype, seed=1)
    other.flat[5:8] = arr.flat[5:8]
    na, ta = (ember.Tensor(arr, device=d).cast(dtype) for d in ("cpu", TORCH_DEVICE))
    nb, tb = (ember.Tensor(other, device=d).cast(dtype) for d in ("cpu", TORCH_DEVICE))
    ops = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]
    scalars = [0, 1, -1, 1000, 2**63 + 5, -(2**63), 2.5, float("nan"), float("inf"), 1e300,
               True]
    for fn in ops:
        what = f"{fn.__name__} {dtype}"
        _same(fn(ta, tb), fn(na, nb), what)
        _same(fn(ta, tb[1]), fn(na, nb[1]), what + " broadcast")
        for s in scalars:
            _same(fn(ta, s), fn(na, s), f"{what} {s!r}")
        for mixed in ("int64", "uint64", "int8", "float32"):
            if dtype != "bool":
                _same(fn(ta, tb.cast(mixed)), fn(na, nb.cast(mixed)), f"{what} vs {mixed}")
    for name in ("is_nan", "is_inf", "is_finite", "contains_nan"):
        _same(getattr(ta, name)(), getattr(na, name)(), f"{name} {dtype}")
    if dtype != "bool":
        for kw in ({}, {"equal_nan": True}, {"rtol": 0.5, "atol": 0.1}, {"rtol": 0, "atol": 0}):
            _same(ta.is_close(tb, **kw), na.is_close(nb, **kw), f"is_close {dtype} {kw}")
            _same(ta.is_close(1.5, **kw), na.is_close(1.5, **kw), f"is_close {dtype} {kw} 1.5")
            _same(ta.all_close(ta, **kw), na.all_close(na, **kw), f"all_close {dtype} {kw}")


def test_mixing_devices_raises_device_error():
    a = ember.Tensor([1, 2], device="cpu")
    b = ember.Tensor([1, 2], device="torch:cpu")
    for fn in (lambda: a == b, lambda: b < a, lambda: a.is_close(b), lambda: a & b,
               lambda: b << a, lambda: ember.logical_or(a, b)):
        with pytest.raises(ember.DeviceError, match="different devices"):
            fn()
