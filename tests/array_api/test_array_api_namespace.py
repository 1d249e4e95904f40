"""ember.array_api against NumPy's own namespace (which conforms) on random inputs and the
special cases (NaN, signed zeros, infinities, 0-d, size-0 and non-contiguous inputs)."""

import math
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.array_api as xp
from ember.errors import InvalidParameterError, KindError
from oracle import assert_close, ember_tensor, has_views, layouts, random_array, to_torch

SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)]
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan, 3.0, 1e-30],
                   dtype=np.float64)


def _inputs(shape, dtype="float64", seed=0, positive=False):
    arr = random_array(np.random.default_rng(seed), shape, dtype)
    if positive:
        arr = np.abs(arr) + 0.5
    for name, a in layouts(arr):
        yield name, a, ember_tensor(a)


def _check(actual, expected, rtol=1e-7, atol=1e-12):
    assert isinstance(actual, ember.Tensor)
    expected = np.asarray(expected)
    got = np.asarray(actual.numpy())
    assert got.shape == expected.shape, f"{got.shape} != {expected.shape}"
    assert actual.dtype.name == expected.dtype.name, f"{actual.dtype.name} != {expected.dtype}"
    if got.dtype.kind == "c":
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    elif got.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
        # signed zeros agree too
        zeros = expected == 0
        np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(expected[zeros]))
    else:
        np.testing.assert_array_equal(got, expected)


UNARY = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp",
         "expm1", "floor", "isfinite", "isinf", "isnan", "log", "log1p", "log2", "log10",
         "negative", "positive", "reciprocal", "round", "sign", "signbit", "sin", "sinh",
         "square", "sqrt", "tan", "tanh", "trunc"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("shape", SHAPES)
def test_unary_matches_numpy(name, shape):
    np_fn = getattr(np, name) if name != "reciprocal" else (lambda a: 1.0 / a)
    with np.errstate(all="ignore"):
        for _, a, t in _inputs(shape):
            _check(getattr(xp, name)(t), np_fn(a))


@pytest.mark.parametrize("name", UNARY)
def test_unary_special_cases(name):
    np_fn = getattr(np, name) if name != "reciprocal" else (lambda a: 1.0 / a)
    with np.errstate(all="ignore"):
        _check(getattr(xp, name)(ember.tensor(SPECIAL, dtype="float64")), np_fn(SPECIAL))


# floor_divide: NumPy's special values differ from the standard's (test_floor_divide_...)
BINARY = ["add", "atan2", "copysign", "divide", "equal", "greater", "greater_equal", "hypot",
          "less", "less_equal", "logaddexp", "maximum", "minimum", "multiply", "nextafter",
          "not_equal", "pow", "remainder", "subtract"]


@pytest.mark.parametrize("name", BINARY)
def test_binary_matches_numpy(name):
    rng = np.random.default_rng(1)
    with np.errstate(all="ignore"):
        for s1, s2 in [((), ()), ((3, 4), (4,)), ((0, 3), (1, 3)), ((2, 1, 3), (4, 1))]:
            a, b = rng.standard_normal(s1), rng.standard_normal(s2)
            _check(getattr(xp, name)(ember.tensor(a, dtype="float64"),
                                     ember.tensor(b, dtype="float64")),
                   getattr(np, name)(a, b))
        # every pair of special values, signed zeros and infinities included
        a, b = np.meshgrid(SPECIAL, SPECIAL)
        _check(getattr(xp, name)(ember.tensor(a), ember.tensor(b)), getattr(np, name)(a, b))


@pytest.mark.parametrize("name", ["bitwise_and", "bitwise_or", "bitwise_xor",
                                  "bitwise_left_shift", "bitwise_right_shift"])
def test_bitwise_matches_numpy(name):
    rng = np.random.default_rng(2)
    a = rng.integers(-50, 50, (3, 4)).astype(np.int32)
    b = rng.integers(0, 5, (4,)).astype(np.int32)
    _check(getattr(xp, name)(ember.tensor(a), ember.tensor(b)), getattr(np, name)(a, b))
    _check(xp.bitwise_invert(ember.tensor(a)), np.bitwise_invert(a))


def test_zero_d_arrays_promote_fully():
    # PyTorch lets a 0-d tensor be weak; the standard does not
    a = ember.tensor([1, 2], dtype="int8")
    b = ember.tensor(300, dtype="int16")
    out = xp.add(a, b)
    assert out.dtype == xp.int16 and out.tolist() == [301, 302]
    assert xp.result_type(a, b) == xp.int16
    assert xp.result_type(xp.float32, xp.int8, 1.5) == xp.float32
    assert xp.result_type(a, 1.5) == xp.float32
    assert xp.multiply(2, ember.tensor([1.5])).tolist() == [3.0]
    assert xp.copysign(ember.tensor([1.5, -2.0]), -1).tolist() == [-1.5, -2.0]
    assert xp.logaddexp(ember.tensor([0.0], dtype="float64"), 0).tolist() == [math.log(2.0)]


def test_clip_matches_numpy():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 5))
    _check(xp.clip(ember.tensor(a), min=-0.5, max=0.5), np.clip(a, -0.5, 0.5))
    _check(xp.clip(ember.tensor(a), max=0.0), np.clip(a, None, 0.0))
    lo = rng.standard_normal(5)
    _check(xp.clip(ember.tensor(a), min=ember.tensor(lo)), np.clip(a, lo, None))
    x = ember.tensor(a)
    assert xp.clip(x) is x


def _spec_floor_divide(a, b):
    """The standard's floor_divide of two Python floats, bullet by bullet (2024.12)."""
    inf = math.inf
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if math.isinf(a) and math.isinf(b):
        return math.nan
    if a == 0 and b == 0:
        return math.nan
    neg = (math.copysign(1.0, a) < 0) != (math.copysign(1.0, b) < 0)
    if a == 0:
        return -0.0 if neg else 0.0
    if b == 0:
        return -inf if neg else inf
    if math.isinf(a):
        return -inf if neg else inf
    if math.isinf(b):
        return -0.0 if neg else 0.0
    return a // b          # both finite and nonzero: Python's floor of the quotient


def test_floor_divide_follows_the_standards_special_cases():
    # every pair of special values (signed zeros, infinities, NaN) and random finite ones
    rng = np.random.default_rng(11)
    values = np.concatenate([SPECIAL, rng.standard_normal(6) * 10])
    a, b = np.meshgrid(values, values)
    want = np.vectorize(_spec_floor_divide, otypes=[np.float64])(a, b)
    for dtype in ("float64", "float32"):
        got = xp.floor_divide(ember.tensor(a, dtype=dtype), ember.tensor(b, dtype=dtype))
        _check(got, want.astype(dtype), rtol=1e-6)
    # the cases NumPy and Python answer differently
    x = ember.tensor([1.0, -1.0, 1.0, -1.0, np.inf, -np.inf, 5.0], dtype="float64")
    y = ember.tensor([-np.inf, np.inf, np.inf, -np.inf, 2.0, 2.0, 0.0], dtype="float64")
    _check(xp.floor_divide(x, y), np.array([-0.0, -0.0, 0.0, 0.0, np.inf, -np.inf, np.inf]))
    # finite operands: the floor of the exact quotient, not of the rounded one (1 / 0.1 is 10.0)
    _check(xp.floor_divide(ember.tensor([1.0, -1.0, 0.7], dtype="float64"), 0.1),
           np.array([1.0 // 0.1, -1.0 // 0.1, 0.7 // 0.1]))
    # ints and scalars: the plain floor division, promoted as the standard says
    i = np.array([7, -7, 0, 9], dtype=np.int16)
    _check(xp.floor_divide(ember.tensor(i), ember.tensor(np.int8(2))),
           np.floor_divide(i, np.int16(2)))
    _check(xp.floor_divide(7.5, ember.tensor([2.0, -np.inf], dtype="float64")),
           np.array([3.0, -0.0]))


def test_nextafter_matches_numpy():
    rng = np.random.default_rng(12)
    for dtype in ("float32", "float64"):
        a = rng.standard_normal((3, 4)).astype(dtype)
        b = rng.standard_normal((4,)).astype(dtype)
        _check(xp.nextafter(ember.tensor(a), ember.tensor(b)), np.nextafter(a, b))
        s = SPECIAL.astype(dtype)
        sa, sb = np.meshgrid(s, s)
        _check(xp.nextafter(ember.tensor(sa), ember.tensor(sb)), np.nextafter(sa, sb))
        # the standard's special cases: NaN in, NaN out; -0 towards +0 is +0 and back
        got = xp.nextafter(ember.tensor([-0.0, 0.0, np.nan, 1.0], dtype=dtype),
                           ember.tensor([0.0, -0.0, 1.0, np.nan], dtype=dtype)).numpy()
        assert got[0] == 0 and not np.signbit(got[0]) and got[1] == 0 and np.signbit(got[1])
        assert np.isnan(got[2:]).all()
    one = ember.tensor([1.0], dtype="float64")
    assert xp.nextafter(one, 2).item() == 1.0 + 2.0 ** -52
    assert xp.nextafter(3.0, ember.tensor([0.0], dtype="float32")).dtype == xp.float32
    for layout, v, t in _inputs((3, 4)):
        _check(xp.nextafter(t, 0.0), np.nextafter(v, 0.0))
    _check(xp.nextafter(ember.tensor(np.zeros((0, 2))), 1.0), np.zeros((0, 2)))
    with pytest.raises(KindError, match="nextafter"):
        xp.nextafter(ember.tensor([1, 2]), 1)
    with pytest.raises(KindError, match="nextafter"):
        xp.nextafter(ember.tensor([1.0], dtype="float64"), ember.tensor([1.0], dtype="float32"))
    with pytest.raises(ember.ShapeMismatchError, match="nextafter"):
        xp.nextafter(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0, 3.0]))
    with pytest.raises(InvalidParameterError, match="nextafter"):
        xp.nextafter(1.0, 2.0)


def test_sign_bits_of_nans():
    # NaNs with and without the sign bit: signbit reads it, copysign moves it
    nans = np.array([np.nan, -np.nan, 1.0, -1.0, 0.0, -0.0, np.inf, -np.inf])
    assert np.signbit(nans[1]) and not np.signbit(nans[0])
    for dtype in ("float32", "float64"):
        v = nans.astype(dtype)
        _check(xp.signbit(ember.tensor(v)), np.signbit(v))
        a, b = np.meshgrid(v, v)
        got = xp.copysign(ember.tensor(a), ember.tensor(b)).numpy()
        want = np.copysign(a, b)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    _check(xp.signbit(ember.tensor([-2, 0, 3])), np.array([True, False, False]))


def test_clip_nan_bounds_and_dtypes():
    x = ember.tensor([-2.0, 0.5, 3.0, np.nan], dtype="float64")
    nan_lo = ember.tensor([np.nan, 0.0, 0.0, 0.0], dtype="float64")
    _check(xp.clip(x, min=nan_lo, max=1.0), np.array([np.nan, 0.5, 1.0, np.nan]))
    _check(xp.clip(x, max=math.nan), np.full(4, np.nan))
    _check(xp.clip(x, min=-1.0), np.array([-1.0, 0.5, 3.0, np.nan]))
    i = ember.tensor([-5, 0, 7], dtype="int16")
    _check(xp.clip(i, min=-2, max=ember.tensor([1, 1, 5], dtype="int16")),
           np.array([-2, 0, 5], dtype=np.int16))


# -- creation -------------------------------------------------------------------------------------

def test_creation_matches_numpy():
    _check(xp.arange(5), np.arange(5))
    _check(xp.arange(1, 10, 3), np.arange(1, 10, 3))
    _check(xp.arange(0.0, 1.0, 0.25), np.arange(0.0, 1.0, 0.25, dtype=np.float32))
    _check(xp.arange(5, 1, -2, dtype=xp.int32), np.arange(5, 1, -2, dtype=np.int32))
    _check(xp.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32))
    _check(xp.linspace(0, 1, 4, endpoint=False), np.linspace(0, 1, 4, endpoint=False,
                                                              dtype=np.float32))
    _check(xp.eye(3, 4, k=1), np.eye(3, 4, k=1, dtype=np.float32))
    _check(xp.eye(3, k=-2, dtype=xp.int64), np.eye(3, k=-2, dtype=np.int64))
    _check(xp.full((2, 3), 7), np.full((2, 3), 7))
    _check(xp.full(2, True), np.full(2, True))
    _check(xp.full((), 1.5), np.full((), 1.5, dtype=np.float32))
    _check(xp.zeros((0, 2)), np.zeros((0, 2), dtype=np.float32))
    _check(xp.ones(3, dtype=xp.uint8), np.ones(3, dtype=np.uint8))
    _check(xp.empty((2,)).__class__ and xp.zeros_like(xp.ones(3)), np.zeros(3, np.float32))
    _check(xp.full_like(xp.ones(2, dtype=xp.int32), 4), np.full(2, 4, np.int32))
    _check(xp.tril(xp.ones((3, 3)), k=-1), np.tril(np.ones((3, 3), np.float32), k=-1))
    _check(xp.triu(xp.ones((2, 3)), k=1), np.triu(np.ones((2, 3), np.float32), k=1))
    _check(xp.asarray([1, 2.5]), np.asarray([1, 2.5], dtype=np.float32))
    _check(xp.asarray([[True], [False]]), np.asarray([[True], [False]]))
    a = np.arange(3.0)
    shared = xp.asarray(a)
    assert np.shares_memory(shared.numpy(), a) == has_views(shared)  # JAX holds a copy
    assert not np.shares_memory(xp.asarray(a, copy=True).numpy(), a)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(indexing):
    a, b, c = np.arange(3), np.arange(4) * 2, np.arange(2) * 3
    for arrays in [(a,), (a, b), (a, b, c)]:
        got = xp.meshgrid(*[ember.tensor(v) for v in arrays], indexing=indexing)
        want = np.meshgrid(*arrays, indexing=indexing)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _check(g, w)


# -- dtypes ---------------------------------------------------------------------------------------

def test_dtype_functions_match_numpy():
    for name in ["float32", "float64"]:
        mine, theirs = xp.finfo(getattr(xp, name)), np.finfo(name)
        assert (mine.bits, mine.eps, mine.max, mine.min, mine.smallest_normal) == (
            theirs.bits, float(theirs.eps), float(theirs.max), float(theirs.min),
            float(theirs.smallest_normal))
    for name in ["int8", "uint16", "int64", "uint64"]:
        mine, theirs = xp.iinfo(getattr(xp, name)), np.iinfo(name)
        assert (mine.bits, mine.min, mine.max) == (theirs.bits, theirs.min, theirs.max)
    assert xp.finfo(xp.ones(1)).bits == 32
    for a in ["int8", "uint8", "int64", "float32", "float64", "bool"]:
        for b in ["int16", "uint16", "int64", "float32", "float64", "bool"]:
            # across kinds the standard defines no promotion, so nothing casts (as
            # array-api-strict); within a kind NumPy's safe casting is the standard's lattice
            same_kind = np.dtype(a).kind.replace("u", "i") == np.dtype(b).kind.replace("u", "i")
            want = np.can_cast(a, b) and same_kind
            assert xp.can_cast(getattr(xp, a), getattr(xp, b)) == want, (a, b)
    kinds = ["bool", "signed integer", "unsigned integer", "integral", "real floating",
             "complex floating", "numeric"]
    for name in ["bool", "int8", "uint32", "float32", "float64", "complex64"]:
        for kind in kinds:
            assert xp.isdtype(getattr(xp, name), kind) == np.isdtype(np.dtype(name), kind)
    assert xp.isdtype(xp.float32, ("integral", "real floating"))
    assert xp.isdtype(xp.int8, xp.int8) and not xp.isdtype(xp.int8, xp.int16)
    x = ember.tensor([1.7, -2.5])
    _check(xp.astype(x, xp.int32), np.array([1, -2], np.int32))
    assert xp.astype(x, xp.float32) is not x and xp.astype(x, xp.float32, copy=False) is x


def test_complex_dtypes_answer_queries():
    for dtype in ("complex64", "complex128"):
        dt = getattr(xp, dtype)
        assert xp.finfo(dt).eps == float(np.finfo(dtype).eps)
        assert xp.isdtype(dt, "complex floating") and not xp.isdtype(dt, "real floating")
    r = ember.tensor([1.5, -2.0])
    assert xp.real(r) is r and xp.conj(r) is r and xp.imag(r).tolist() == [0.0, 0.0]


# -- complex --------------------------------------------------------------------------------------

def _works(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn() is not False
        except Exception:
            return False


_Z = np.array([1 + 2j, -1j])
# complex data from Python values, the complex parts (real, imag, conj) and the complex
# reductions come with the rest of ember's complex support (docs/complex.md); the tests of the
# namespace's functions over them skip where the ops are not there
HAS_COMPLEX_DATA = _works(lambda: ember.tensor([1j]).dtype == ember.complex64)
HAS_COMPLEX_PARTS = _works(lambda: ember.from_numpy(_Z).real().dtype == ember.float64)
HAS_COMPLEX_REDUCE = _works(lambda: ember.from_numpy(_Z).sum().dtype == ember.complex128)
needs_complex_data = pytest.mark.skipif(not HAS_COMPLEX_DATA, reason="no complex tensor data")
needs_complex_ops = pytest.mark.skipif(not (HAS_COMPLEX_PARTS and HAS_COMPLEX_DATA),
                                       reason="no complex element-wise ops")
needs_complex_reduce = pytest.mark.skipif(not HAS_COMPLEX_REDUCE,
                                          reason="no complex reductions")


def _complex_inputs(shape, dtype="complex128", seed=0):
    rng = np.random.default_rng(seed)
    arr = np.asarray(rng.standard_normal(shape) + 1j * rng.standard_normal(shape), dtype=dtype)
    for name, a in layouts(arr):
        yield name, a, ember_tensor(a)


def _ctol(dtype):
    return {"rtol": 1e-5, "atol": 1e-5} if dtype == "complex64" else {}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_creation_matches_numpy(dtype):
    dt = getattr(xp, dtype)
    _check(xp.zeros((2, 3), dtype=dt), np.zeros((2, 3), dtype=dtype))
    _check(xp.ones(4, dtype=dt), np.ones(4, dtype=dtype))
    _check(xp.empty((0, 2), dtype=dt), np.zeros((0, 2), dtype=dtype))
    _check(xp.eye(3, 4, k=1, dtype=dt), np.eye(3, 4, k=1, dtype=dtype))
    _check(xp.full((2,), 2.5, dtype=dt), np.full((2,), 2.5, dtype=dtype))
    _check(xp.linspace(0, 1, 5, dtype=dt), np.linspace(0, 1, 5, dtype=dtype))
    _check(xp.linspace(-1, 1, 4, dtype=dt, endpoint=False),
           np.linspace(-1, 1, 4, dtype=dtype, endpoint=False))
    _check(xp.zeros_like(xp.ones(3), dtype=dt), np.zeros(3, dtype=dtype))
    r = np.array([[1.5, -2.0], [0.0, -0.0]])
    _check(xp.astype(ember.tensor(r, dtype="float64"), dt), r.astype(dtype))
    for _, a, t in _complex_inputs((3, 4)):
        _check(xp.astype(t, dt), a.astype(dtype))
        _check(xp.asarray(t, dtype=dt), a.astype(dtype))


def test_complex_dtypes_promote_as_the_standard():
    names = ["bool", "int8", "int64", "float32", "float64", "complex64", "complex128"]
    for a in names:
        for b in names:
            kinds = {np.dtype(a).kind, np.dtype(b).kind}
            # the standard's lattice: float and complex meet (float64 with complex64 is
            # complex128); other kinds do not
            if kinds <= {"f", "c"} and "c" in kinds:
                assert xp.result_type(getattr(xp, a), getattr(xp, b)).name == \
                    np.result_type(a, b).name, (a, b)
            if "c" in (np.dtype(a).kind, np.dtype(b).kind):
                want = np.can_cast(a, b) and np.dtype(a).kind in "fc" and np.dtype(b).kind == "c"
                assert xp.can_cast(getattr(xp, a), getattr(xp, b)) == want, (a, b)
    f32, f64 = ember.tensor([1.0]), ember.tensor([1.0], dtype="float64")
    assert xp.result_type(f32, 1j) == xp.complex64 and xp.result_type(f64, 1j) == xp.complex128
    assert xp.result_type(xp.complex64, 1.5) == xp.complex64
    assert xp.finfo(xp.complex128).dtype == xp.float64
    assert xp.finfo(xp.complex64).bits == 32
    assert xp.__array_namespace_info__().default_dtypes()["complex floating"] == xp.complex64


def test_complex_to_real_raises():
    z = ember.from_numpy(np.array([1 + 2j, 3 - 1j], dtype=np.complex64))
    for dtype in (xp.float32, xp.float64, xp.int32, xp.bool):
        with pytest.raises(KindError, match="astype"):
            xp.astype(z, dtype)
    with pytest.raises(KindError, match="sum"):
        xp.sum(z, dtype=xp.float64)
    with pytest.raises(KindError, match="cumulative_sum"):
        xp.cumulative_sum(z, dtype=xp.float32)
    for fn in (xp.signbit, xp.var, xp.std, lambda v: xp.clip(v, min=0.0)):
        with pytest.raises(KindError, match="complex"):
            fn(z)
    with pytest.raises(KindError, match="nextafter"):
        xp.nextafter(z, z)
    with pytest.raises(KindError, match="linspace"):
        xp.linspace(0, 1j, 3, dtype=xp.float32)


@needs_complex_data
def test_complex_data_matches_numpy():
    _check(xp.asarray([1 + 2j, 3]), np.asarray([1 + 2j, 3], dtype=np.complex64))
    _check(xp.asarray([[1j], [2.5]], dtype=xp.complex128), np.asarray([[1j], [2.5]]))
    _check(xp.asarray(complex()), np.asarray(0j, dtype=np.complex64))
    _check(xp.full((2, 2), 1 - 1j), np.full((2, 2), 1 - 1j, dtype=np.complex64))
    _check(xp.full((2,), 1j, dtype=xp.complex128), np.full((2,), 1j))
    _check(xp.full_like(xp.zeros(3, dtype=xp.complex128), 2 + 0.5j),
           np.full(3, 2 + 0.5j))
    _check(xp.linspace(0, 2 + 4j, 5), np.linspace(0, 2 + 4j, 5, dtype=np.complex64), rtol=1e-6)
    _check(xp.linspace(1j, -1, 4, endpoint=False, dtype=xp.complex128),
           np.linspace(1j, -1, 4, endpoint=False))


@needs_complex_ops
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_elementwise_matches_numpy(dtype):
    real_dt = "float32" if dtype == "complex64" else "float64"
    for shape in [(), (0,), (5,), (3, 4)]:
        for _, a, t in _complex_inputs(shape, dtype):
            _check(xp.real(t), a.real.astype(real_dt))
            _check(xp.imag(t), a.imag.astype(real_dt))
            _check(xp.conj(t), np.conj(a))
            _check(xp.abs(t), np.abs(a), **_ctol(dtype))
            _check(xp.sign(t), np.sign(a), **_ctol(dtype))
            _check(xp.multiply(t, 2j), a * np.asarray(2j, dtype=dtype), **_ctol(dtype))
            _check(xp.add(1.5, t), a + np.asarray(1.5, dtype=dtype), **_ctol(dtype))
            _check(xp.divide(t, xp.asarray(2.0, dtype=getattr(xp, real_dt))),
                   a / np.asarray(2.0, dtype=real_dt), **_ctol(dtype))
            _check(xp.equal(t, t), np.equal(a, a))
            _check(xp.isnan(t), np.isnan(a))
    _check(xp.sign(ember.from_numpy(np.array([0j, 3 + 4j], dtype=dtype))),
           np.array([0j, 0.6 + 0.8j], dtype=dtype), **_ctol(dtype))


@needs_complex_reduce
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_statistics_match_numpy(dtype):
    for shape in [(), (0,), (5,), (3, 4)]:
        nd = len(shape)
        for _, a, t in _complex_inputs(shape, dtype):
            for axis in [None] + list(range(nd)):
                for kd in (False, True):
                    _check(xp.sum(t, axis=axis, keepdims=kd), np.sum(a, axis=axis, keepdims=kd),
                           **_ctol(dtype))
                    _check(xp.prod(t, axis=axis, keepdims=kd),
                           np.prod(a, axis=axis, keepdims=kd), **_ctol(dtype))
                    if a.size:
                        _check(xp.mean(t, axis=axis, keepdims=kd),
                               np.mean(a, axis=axis, keepdims=kd), **_ctol(dtype))
            if nd == 1:
                _check(xp.cumulative_sum(t, include_initial=True),
                       np.cumulative_sum(a, include_initial=True), **_ctol(dtype))
                _check(xp.cumulative_prod(t), np.cumulative_prod(a), **_ctol(dtype))
    _check(xp.sum(ember.from_numpy(np.ones(3, dtype="complex64")), dtype=xp.complex128),
           np.full((), 3 + 0j))


@needs_complex_ops
def test_complex_vecdot_conjugates_x1():
    for _, a, t in _complex_inputs((3, 4)):
        b = a[::-1] * (0.5 - 1j)
        _check(xp.vecdot(t, ember.from_numpy(np.ascontiguousarray(b))), np.vecdot(a, b))
        _check(xp.vecdot(t, ember.from_numpy(b), axis=0), np.vecdot(a, b, axis=0))


# -- manipulation ---------------------------------------------------------------------------------

def test_manipulation_matches_numpy():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 3, 4))
    for _, v, t in [("c", a, ember.tensor(a))] + [(n, v, ember_tensor(v)) for n, v in layouts(a)]:
        _check(xp.concat([t, t], axis=1), np.concat([v, v], axis=1))
        _check(xp.concat([t, t[:1]], axis=None), np.concat([v, v[:1]], axis=None))
        _check(xp.expand_dims(t, axis=-1), np.expand_dims(v, -1))
        _check(xp.flip(t), np.flip(v))
        _check(xp.flip(t, axis=(0, 2)), np.flip(v, axis=(0, 2)))
        _check(xp.moveaxis(t, 0, -1), np.moveaxis(v, 0, -1))
        _check(xp.permute_dims(t, (2, 0, 1)), np.permute_dims(v, (2, 0, 1)))
        _check(xp.reshape(t, (4, -1)), np.reshape(v, (4, -1)))
        _check(xp.roll(t, 2), np.roll(v, 2))
        _check(xp.roll(t, -1, axis=1), np.roll(v, -1, axis=1))
        _check(xp.stack([t, t], axis=-1), np.stack([v, v], axis=-1))
        _check(xp.tile(t, (2, 1, 1, 2)), np.tile(v, (2, 1, 1, 2)))
        _check(xp.tile(t, (2,)), np.tile(v, (2,)))
        _check(xp.repeat(t, 2, axis=1), np.repeat(v, 2, axis=1))
        _check(xp.repeat(t, 3), np.repeat(v, 3))
        for g, w in zip(xp.unstack(t, axis=1), np.unstack(v, axis=1)):
            _check(g, w)
        for g, w in zip(xp.broadcast_arrays(t, ember.tensor(1.0, dtype="float64")),
                        np.broadcast_arrays(v, np.float64(1.0))):
            _check(g, w)
    _check(xp.squeeze(xp.ones((1, 3, 1)), axis=(0, 2)), np.ones(3, np.float32))
    for shape, reps in [((0, 1), (1, 2)), ((2, 3), (0, 2)), ((3,), (2, 0, 1))]:
        _check(xp.tile(xp.zeros(shape), reps), np.tile(np.zeros(shape, np.float32), reps))
    _check(xp.broadcast_to(xp.arange(3), (2, 3)), np.broadcast_to(np.arange(3), (2, 3)))
    _check(xp.concat([xp.ones(2, dtype=xp.int8), xp.ones(1, dtype=xp.float64)]),
           np.ones(3))
    idx = np.array([2, 0, 2])
    _check(xp.take(ember.tensor(a), ember.tensor(idx), axis=2), np.take(a, idx, axis=2))
    idx = rng.integers(0, 3, (2, 3, 4))
    _check(xp.take_along_axis(ember.tensor(a), ember.tensor(idx), axis=1),
           np.take_along_axis(a, idx, axis=1))


# -- searching, sorting, sets ---------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4)])
def test_searching_and_sorting_match_numpy(shape):
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, shape).astype(np.float64)   # ties: stability is visible
    for _, v, t in [("c", a, ember.tensor(a))] + [(n, v, ember_tensor(v)) for n, v in layouts(a)]:
        for kd in (False, True):
            _check(xp.argmax(t, keepdims=kd), np.argmax(v, keepdims=kd))
            _check(xp.argmin(t, axis=-1, keepdims=kd), np.argmin(v, axis=-1, keepdims=kd))
            _check(xp.count_nonzero(t, axis=0, keepdims=kd),
                   np.count_nonzero(v, axis=0, keepdims=kd).astype(np.int64))
        _check(xp.sort(t, axis=0), np.sort(v, axis=0))
        _check(xp.sort(t, descending=True), -np.sort(-v, stable=True))
        _check(xp.argsort(t, axis=0), np.argsort(v, axis=0, stable=True))
        _check(xp.argsort(t, descending=True),
               np.flip(np.argsort(np.flip(v, -1), stable=True), -1).__rsub__(v.shape[-1] - 1))
        for g, w in zip(xp.nonzero(t), np.nonzero(v)):
            _check(g, w)
    cond = a > 1
    _check(xp.where(ember.tensor(cond), ember.tensor(a), ember.tensor(-a, dtype="float32")),
           np.where(cond, a, -a))


def test_searchsorted_matches_numpy():
    rng = np.random.default_rng(6)
    x1 = np.sort(rng.integers(0, 10, 12)).astype(np.float64)
    x2 = rng.integers(-1, 11, (3, 4)).astype(np.float64)
    for side in ("left", "right"):
        _check(xp.searchsorted(ember.tensor(x1), ember.tensor(x2), side=side),
               np.searchsorted(x1, x2, side=side).astype(np.int64))
    perm = rng.permutation(12)
    shuffled = x1[perm]
    sorter = np.argsort(shuffled, stable=True)
    _check(xp.searchsorted(ember.tensor(shuffled), ember.tensor(x2), sorter=ember.tensor(sorter)),
           np.searchsorted(shuffled, x2, sorter=sorter).astype(np.int64))
    # NaNs sort last: a NaN goes after the numbers (left) or after the NaNs too (right)
    x1 = np.array([-np.inf, 1.0, 2.0, 2.0, np.inf, np.nan, np.nan])
    x2 = np.array([[np.nan, 2.0, np.inf], [-np.inf, 0.0, np.nan]])
    for side in ("left", "right"):
        _check(xp.searchsorted(ember.tensor(x1), ember.tensor(x2), side=side),
               np.searchsorted(x1, x2, side=side).astype(np.int64))
    with pytest.raises(InvalidParameterError, match="side"):
        xp.searchsorted(ember.tensor(x1), ember.tensor(x2), side="middle")


@pytest.mark.parametrize("values", [[3, 1, 3, 2, 1, 1], [], [5], [[2.0, np.nan], [np.nan, 2.0]],
                                    [0.0, -0.0, 1.0]])
def test_unique_matches_numpy(values):
    a = np.asarray(values, dtype=np.float64)
    t = ember.tensor(a)
    got, want = xp.unique_all(t), np.unique_all(a)
    for field in ("values", "indices", "inverse_indices", "counts"):
        w = getattr(want, field)
        _check(getattr(got, field), w.astype(np.int64) if w.dtype.kind == "i" else w)
    _check(xp.unique_values(t), np.unique_values(a))
    _check(xp.unique_counts(t).counts, np.unique_counts(a).counts.astype(np.int64))
    _check(xp.unique_inverse(t).inverse_indices,
           np.unique_inverse(a).inverse_indices.astype(np.int64))


def test_unique_of_bools_matches_numpy():
    a = np.array([[True, False], [True, True]])
    got, want = xp.unique_all(ember.tensor(a)), np.unique_all(a)
    _check(got.values, want.values)
    _check(got.counts, want.counts.astype(np.int64))
    _check(got.indices, want.indices.astype(np.int64))
    _check(got.inverse_indices, want.inverse_indices.astype(np.int64))


# -- statistics -----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
def test_statistics_match_numpy(shape):
    nd = len(shape)
    axes = [None] + list(range(nd)) + ([(0, nd - 1)] if nd >= 2 else [])
    with np.errstate(all="ignore"):
        for _, a, t in _inputs(shape):
            for axis in axes:
                for kd in (False, True):
                    _check(xp.sum(t, axis=axis, keepdims=kd), np.sum(a, axis=axis, keepdims=kd))
                    _check(xp.prod(t, axis=axis, keepdims=kd), np.prod(a, axis=axis, keepdims=kd))
                    if a.size:
                        _check(xp.mean(t, axis=axis, keepdims=kd),
                               np.mean(a, axis=axis, keepdims=kd))
                    for corr in (0.0, 1.0):
                        if a.size and (a.size if axis is None else np.prod(
                                [shape[d] for d in np.atleast_1d(axis)])) > corr:
                            _check(xp.var(t, axis=axis, correction=corr, keepdims=kd),
                                   np.var(a, axis=axis, ddof=corr, keepdims=kd))
                            _check(xp.std(t, axis=axis, correction=corr, keepdims=kd),
                                   np.std(a, axis=axis, ddof=corr, keepdims=kd))
                    if a.size and (axis is None or all(shape[d] for d in np.atleast_1d(axis))):
                        _check(xp.max(t, axis=axis, keepdims=kd), np.max(a, axis=axis, keepdims=kd))
                        _check(xp.min(t, axis=axis, keepdims=kd), np.min(a, axis=axis, keepdims=kd))
                    _check(xp.all(t, axis=axis, keepdims=kd), np.all(a, axis=axis, keepdims=kd))
                    _check(xp.any(t, axis=axis, keepdims=kd), np.any(a, axis=axis, keepdims=kd))


def test_sum_dtypes_follow_the_standard():
    assert xp.sum(xp.ones(3, dtype=xp.int8)).dtype == xp.int64
    assert xp.sum(xp.ones(3, dtype=xp.uint8)).dtype == xp.uint64
    assert xp.prod(xp.ones(3, dtype=xp.int16), dtype=xp.int32).dtype == xp.int32
    assert xp.sum(xp.ones(3, dtype=xp.float32)).dtype == xp.float32


def test_cumulative_and_diff_match_numpy():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 4))
    t = ember.tensor(a)
    for axis in (0, 1):
        for init in (False, True):
            _check(xp.cumulative_sum(t, axis=axis, include_initial=init),
                   np.cumulative_sum(a, axis=axis, include_initial=init))
            _check(xp.cumulative_prod(t, axis=axis, include_initial=init),
                   np.cumulative_prod(a, axis=axis, include_initial=init))
        for n in (1, 2):
            _check(xp.diff(t, axis=axis, n=n), np.diff(a, axis=axis, n=n))
    i = np.arange(5, dtype=np.int8)
    _check(xp.cumulative_sum(ember.tensor(i)), np.cumulative_sum(i, dtype=np.int64))
    u = np.arange(4, dtype=np.uint8)
    _check(xp.cumulative_prod(ember.tensor(u), include_initial=True),
           np.cumulative_prod(u, dtype=np.uint64, include_initial=True))
    _check(xp.diff(t, prepend=t[:, :1], append=t[:, -1:]),
           np.diff(a, prepend=a[:, :1], append=a[:, -1:]))


# -- gradients ------------------------------------------------------------------------------------

def test_gradients_flow_through_the_namespace():
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    x = ember.tensor(a, dtype="float64").require_grad()
    y = ember.tensor(b, dtype="float64").require_grad()
    seed = rng.standard_normal(4)
    out = xp.std(xp.logaddexp(x, y), axis=0, correction=1.0) + xp.linalg.vector_norm(
        xp.multiply(x, y), axis=0) + xp.sum(xp.clip(x, min=-0.5, max=0.5), axis=0)
    out.backward(ember.tensor(seed))
    tx, ty = to_torch(x, requires_grad=True), to_torch(y, requires_grad=True)
    ref = torch.logaddexp(tx, ty).std(0, correction=1) + torch.linalg.vector_norm(
        tx * ty, dim=0) + tx.clamp(-0.5, 0.5).sum(0)
    ref.backward(torch.tensor(seed))
    assert_close(x.grad, tx.grad)
    assert_close(y.grad, ty.grad)


# -- devices ---------------------------------------------------------------------------------------

def _creation_takes(device):
    try:
        return ember.zeros(1, device=device).device == device
    except (InvalidParameterError, ember.DeviceError):
        return False


@pytest.mark.parametrize("device", [str(d) for d in ember.devices()])
def test_functions_with_device_accept_every_device(device):
    torch_device = torch.device(device.split(":", 1)[1]) if device.startswith("torch:") else None
    for spelling in (device, ember.Device(device), torch_device):
        if spelling is None:
            continue
        t = xp.asarray([1.0, 2.0], device=spelling)
        assert t.device == device and t.tolist() == [1.0, 2.0]
        info = xp.__array_namespace_info__()
        assert info.dtypes(device=spelling)["float32"] is xp.float32
        assert info.default_dtypes(device=spelling)["indexing"] is xp.int64
    if not _creation_takes(device):
        pytest.skip(f"ember's creation functions do not take device={device!r} yet")
    spelling = torch_device or device
    for out in (xp.zeros(2, device=spelling), xp.ones((2,), device=spelling),
                xp.empty(2, device=spelling), xp.full(2, 3.0, device=spelling),
                xp.arange(2, device=spelling), xp.arange(0.0, 1.0, 0.5, device=spelling),
                xp.linspace(0, 1, 2, device=spelling), xp.eye(2, device=spelling),
                xp.zeros_like(t, device=spelling), xp.full_like(t, 1.0, device=spelling)):
        assert out.device == device
    assert xp.add(t, 1.0).device == device and xp.add(2, t).device == device


# -- the array object and the info object ---------------------------------------------------------

def test_array_object():
    t = ember.tensor([[1.0, 2.0, 3.0]])
    assert t.__array_namespace__() is xp
    assert t.__array_namespace__(api_version="2023.12") is xp
    assert t.device == xp.__array_namespace_info__().default_device()
    assert t.device() is t.device          # Burn's call keeps working
    assert t.to_device(t.device) is t and t.to_device(str(t.device), stream=None) is t
    moved = t.to_device("cpu", stream=None)          # a move when the default device is not cpu
    assert moved.device == "cpu" and moved.tolist() == t.tolist()
    assert t.mT.shape == (3, 1) and xp.zeros((4, 2, 5)).mT.shape == (4, 5, 2)
    assert complex(ember.tensor([2.5])) == 2.5 + 0j
    assert t.ndim == 2 and t.shape == (1, 3) and t.dtype == xp.float32
    assert t.size == 3 and t.size() == (1, 3) and t.size(0) == 1   # the attribute and the call
    assert xp.zeros((2, 0)).size == 0 and xp.asarray(1.0).size == 1
    with pytest.raises(InvalidParameterError, match="api_version"):
        t.__array_namespace__(api_version="1999.01")
    with pytest.raises(ember.DimensionError, match="mT"):
        ember.tensor([1.0]).mT
    with pytest.raises(InvalidParameterError, match="stream"):
        t.to_device("cpu", stream=1)


def test_namespace_info():
    info = xp.__array_namespace_info__()
    assert info.capabilities()["boolean indexing"] is True
    assert info.devices() == ember.devices() and info.devices()[0] == "cpu"
    assert info.default_device() == ember.get_default_device() in info.devices()
    d = info.default_dtypes()
    assert d["real floating"] == xp.float32 and d["integral"] == xp.int64
    assert d["complex floating"] == xp.complex64
    assert d["indexing"] == xp.int64
    assert set(info.dtypes()) == {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64", "float32", "float64", "complex64",
                                  "complex128"}
    assert set(info.dtypes(kind="real floating")) == {"float32", "float64"}
    assert set(info.dtypes(kind=("bool", "unsigned integer"))) == {
        "bool", "uint8", "uint16", "uint32", "uint64"}
    assert xp.__array_api_version__ == "2024.12"
    assert (xp.e, xp.pi, xp.inf, xp.newaxis) == (math.e, math.pi, math.inf, None)
    assert math.isnan(xp.nan)
    with pytest.raises(InvalidParameterError, match="kind"):
        info.dtypes(kind="floats")


def test_bad_input():
    with pytest.raises(InvalidParameterError, match="device"):
        xp.zeros(3, device="tpu")
    with pytest.raises(InvalidParameterError, match="device"):
        xp.__array_namespace_info__().dtypes(device="tpu")
    if "torch:cuda:7" not in ember.devices():
        with pytest.raises(ember.DeviceError, match="torch:cuda:7"):
            xp.ones(3, device="cuda:7")
    with pytest.raises(InvalidParameterError, match="indexing"):
        xp.meshgrid(xp.ones(2), indexing="yx")
    with pytest.raises(KindError, match="finfo"):
        xp.finfo(xp.int32)
    with pytest.raises(KindError, match="iinfo"):
        xp.iinfo(xp.float32)
    with pytest.raises(InvalidParameterError, match="kind"):
        xp.isdtype(xp.int8, "ints")
    with pytest.raises(InvalidParameterError, match="axis"):
        xp.take(xp.ones((2, 2)), xp.asarray([0]))
    with pytest.raises(InvalidParameterError, match="copy"):
        xp.asarray([1.0], copy=False)
    with pytest.raises(ember.ShapeMismatchError, match="vecdot"):
        xp.vecdot(xp.ones((2, 3)), xp.ones((2, 4)))
    with pytest.raises(InvalidParameterError, match="nonzero: x is 0-d"):
        xp.nonzero(xp.asarray(1.0))


def test_docstring_examples_run():
    import doctest

    import ember.array_api._info
    import ember.array_api.linalg
    for module in (xp, ember.array_api._info, ember.array_api.linalg):
        result = doctest.testmod(module)
        assert result.attempted >= 1 and result.failed == 0, module.__name__


def test_docs_examples_run():
    import doctest
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "array-api.md")
    # the page documents the default configuration (the cpu device: Device('cpu') printed,
    # NumPy's read-only DLPack export), so its examples run there on every pass
    here = ember.get_default_device()
    ember.set_default_device("cpu")
    try:
        result = doctest.testfile(os.path.abspath(path), module_relative=False,
                                  optionflags=doctest.ELLIPSIS)
    finally:
        ember.set_default_device(here)
    assert result.attempted >= 10 and result.failed == 0
