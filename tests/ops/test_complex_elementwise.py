"""Complex tensors in the elementwise, comparison and bitwise families (docs/complex.md).

Values are compared with PyTorch (torch.complex64/complex128) on random inputs; special values
(nan, inf, -0.0 in each part) of the float math with NumPy's complex functions, which follow
C99 Annex G as the Array API standard asks. Both backends are held to the same expected values.
"""

import math
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.errors import KindError

CDTYPES = ["complex64", "complex128"]
SHAPES = [(), (0,), (3,), (2, 3), "view"]
TOL = {"complex64": dict(rtol=2e-5, atol=2e-6), "complex128": dict(rtol=1e-10, atol=1e-12),
       "float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


def cx_array(rng, shape, dtype="complex64", scale=1.0):
    """Random complex data; ``"view"`` gives a non-contiguous (stepped, transposed) view."""
    if shape == "view":
        big = cx_array(rng, (4, 6), dtype, scale)
        return big[::2, ::3].T
    re = rng.standard_normal(shape) * scale
    im = rng.standard_normal(shape) * scale
    return np.asarray(re + 1j * im).astype(dtype)


def tensor(arr):
    return ember.from_numpy(arr)


def to_torch(t):
    """A torch tensor with ember tensor ``t``'s values and dtype (complex included)."""
    return torch.from_numpy(np.array(t.numpy(), copy=True))


def check(actual, expected, dtype=None):
    """``actual`` (ember) has ``expected``'s (torch) dtype, shape and values (nan where nan)."""
    assert isinstance(actual, ember.Tensor)
    assert actual.dtype.name == str(expected.dtype).replace("torch.", ""), \
        f"dtype {actual.dtype.name} != {expected.dtype}"
    act = np.asarray(actual.numpy())
    exp = expected.numpy() if isinstance(expected, torch.Tensor) else np.asarray(expected)
    assert act.shape == exp.shape
    np.testing.assert_allclose(act, exp, equal_nan=True, **TOL[dtype or actual.dtype.name])


# -- float math, parts and unary arithmetic vs PyTorch ------------------------------------------

UNARY = {
    "exp": torch.exp, "expm1": torch.expm1, "log": torch.log, "log1p": torch.log1p,
    "log2": torch.log2, "log10": torch.log10, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
    "sin": torch.sin, "cos": torch.cos, "tan": torch.tan, "sinh": torch.sinh,
    "cosh": torch.cosh, "tanh": torch.tanh, "asin": torch.asin, "acos": torch.acos,
    "atan": torch.atan, "asinh": torch.asinh, "acosh": torch.acosh, "atanh": torch.atanh,
    "sign": torch.sgn, "sgn": torch.sgn, "neg": torch.neg, "positive": torch.positive,
    "square": torch.square, "reciprocal": torch.reciprocal, "recip": torch.reciprocal,
    "abs": torch.abs, "angle": torch.angle, "conj": lambda x: torch.conj(x).resolve_conj(),
    "real": lambda x: x.real.clone(), "imag": lambda x: x.imag.clone(),
    "round": lambda x: torch.complex(torch.round(x.real), torch.round(x.imag)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_unary_matches_torch(name, dtype, shape):
    rng = np.random.default_rng(abs(hash((name, dtype, str(shape)))) % 2**32)
    arr = cx_array(rng, shape, dtype, scale=0.5 if name in ("tan", "tanh") else 1.0)
    t = tensor(arr)
    before = np.array(arr, copy=True)
    out = getattr(t, name)()
    check(out, UNARY[name](torch.from_numpy(np.array(arr))))
    assert getattr(ember, name if name != "positive" else "positive")(t).tolist() == out.tolist()
    np.testing.assert_array_equal(t.numpy(), before)     # the input is unchanged


@pytest.mark.parametrize("dtype", CDTYPES)
def test_log1p_expm1_are_accurate_near_zero(dtype):
    rng = np.random.default_rng(7)
    arr = cx_array(rng, (50,), dtype, scale=1e-6)
    for name in ("log1p", "expm1"):
        expected = getattr(torch, name)(torch.from_numpy(arr)).numpy()
        out = getattr(tensor(arr), name)().numpy()
        # part by part: the real part of log1p is about |z|**2, far below |z|
        np.testing.assert_allclose(out.real, expected.real, rtol=1e-3, atol=0)
        np.testing.assert_allclose(out.imag, expected.imag, rtol=1e-4, atol=0)


def test_operators_on_complex_tensors():
    rng = np.random.default_rng(0)
    a = cx_array(rng, (2, 3), "complex64")
    t = tensor(a)
    ta = torch.from_numpy(a)
    check(-t, -ta)
    check(+t, ta)
    check(abs(t), torch.abs(ta))


def test_round_decimals_rounds_each_part():
    arr = np.array([1.2345 - 2.5678j, -0.0049 + 0.0051j, 2.5 + 3.5j], "complex128")
    out = tensor(arr).round(2)
    assert out.dtype == ember.complex128
    np.testing.assert_allclose(out.numpy(), np.round(arr.real, 2) + 1j * np.round(arr.imag, 2))
    assert tensor(arr).round().tolist() == [(1 - 3j), (-0.0 + 0j), (2 + 4j)]


# -- binary arithmetic vs PyTorch -----------------------------------------------------------------

BINARY = {
    "add": (lambda a, b: a + b, torch.add), "sub": (lambda a, b: a - b, torch.sub),
    "mul": (lambda a, b: a * b, torch.mul), "true_divide": (lambda a, b: a / b, torch.true_divide),
    "pow": (lambda a, b: a ** b, torch.pow),
}


def _operand(rng, kind, shape):
    """(ember operand, torch operand) of one kind."""
    if kind in CDTYPES:
        arr = cx_array(rng, shape, kind)
        return tensor(arr), torch.from_numpy(np.array(arr))
    if kind in ("float32", "float64"):
        arr = np.asarray(rng.standard_normal(shape) + 2.0).astype(kind)
        return tensor(arr), torch.from_numpy(np.array(arr))
    if kind == "int64":
        arr = np.asarray(rng.integers(1, 4, size=shape)).astype(kind)
        return tensor(arr), torch.from_numpy(np.array(arr))
    value = {"pycomplex": 0.75 - 1.25j, "pyfloat": 1.5, "pyint": 3}[kind]
    return value, value


PAIRS = [("complex64", "complex64"), ("complex128", "complex128"), ("complex64", "complex128"),
         ("complex64", "float64"), ("float64", "complex64"), ("complex128", "float32"),
         ("complex64", "int64"), ("int64", "complex128"), ("float32", "pycomplex"),
         ("float64", "pycomplex"), ("int64", "pycomplex"), ("pycomplex", "float32"),
         ("pycomplex", "float64"), ("pycomplex", "int64"), ("complex64", "pycomplex"),
         ("complex128", "pycomplex"), ("complex64", "pyfloat"), ("pyfloat", "complex128"),
         ("complex64", "pyint"), ("pyint", "complex64")]


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("kinds", PAIRS, ids="-".join)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3)], ids=str)
def test_binary_matches_torch(name, kinds, shape):
    rng = np.random.default_rng(abs(hash((name, kinds, shape))) % 2**32)
    a, ta = _operand(rng, kinds[0], shape)
    b, tb = _operand(rng, kinds[1], shape)
    pyop, top = BINARY[name]
    expected = top(ta, tb) if isinstance(ta, torch.Tensor) else pyop(ta, tb)
    out = pyop(a, b)
    check(out, expected)
    if isinstance(a, ember.Tensor):
        check(getattr(a, name)(b), expected)
        check(getattr(ember, name)(a, b), expected)


def test_binary_broadcast_and_views():
    rng = np.random.default_rng(1)
    a = cx_array(rng, "view", "complex128")          # (2, 2), non-contiguous
    b = cx_array(rng, (2,), "complex64")
    ta, tb = torch.from_numpy(np.array(a)), torch.from_numpy(b)
    for pyop, top in BINARY.values():
        check(pyop(tensor(a), tensor(b)), top(ta, tb))


def test_burn_div_and_scalar_forms_take_complex():
    rng = np.random.default_rng(2)
    a = cx_array(rng, (4,), "complex64")
    t, ta = tensor(a), torch.from_numpy(a)
    check(t.div(tensor(a[::-1].copy())), ta / torch.from_numpy(a[::-1].copy()))
    check(t.div_scalar(2j), ta / 2j)
    check(t.add_scalar(1 - 1j), ta + (1 - 1j))
    check(t.sub_scalar(2.5), ta - 2.5)
    check(t.mul_scalar(3), ta * 3)
    check(ember.tensor([1, 2]).div(1j), torch.tensor([1, 2]) / 1j)


def test_inplace_operators_write_in_place():
    rng = np.random.default_rng(3)
    a = cx_array(rng, (3,), "complex64")
    t = tensor(a)
    keep = t
    ta = torch.from_numpy(np.array(a))
    t += 1j
    ta = ta + 1j
    t *= t
    ta = ta * ta
    t -= 2
    ta = ta - 2
    t /= 1 - 2j
    ta = ta / (1 - 2j)
    t **= 2
    ta = ta ** 2
    check(t, ta)
    assert keep is t                                   # in place, as PyTorch's
    f = ember.tensor([1.0, 2.0])
    with pytest.raises(KindError, match="can't be cast"):
        f *= 1j                                        # a float tensor cannot hold complex
    assert f.tolist() == [1.0, 2.0]


def test_complex_fill_and_copy():
    z = tensor(np.array([1 + 2j, 3j], "complex64"))
    assert z.copy_(ember.tensor([1.0, 2.0])).tolist() == [1 + 0j, 2 + 0j]
    assert z.fill_(2).tolist() == [2 + 0j, 2 + 0j]
    f = ember.zeros(2)
    with pytest.raises(KindError, match="copy_: src has dtype complex64"):
        f.copy_(tensor(np.array([1 + 2j, 3j], "complex64")))
    with pytest.raises(KindError, match="fill_: value 1j is complex"):
        f.fill_(1j)
    assert f.tolist() == [0.0, 0.0]


# -- special values vs NumPy (C99 Annex G) ----------------------------------------------------------

PARTS = [-math.inf, -2.5, -0.0, 0.0, 0.5, 2.5, math.inf, math.nan]

NUMPY_FN = {
    "exp": np.exp, "expm1": lambda z: _expm1_standard(z), "log": np.log, "log1p": np.log1p, "log2": np.log2,
    "log10": np.log10, "sqrt": np.sqrt, "rsqrt": lambda z: 1 / np.sqrt(z), "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "tanh": lambda z: _tanh_standard(z),
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
    "acosh": np.arccosh, "atanh": np.arctanh, "abs": np.abs, "angle": np.angle,
    "conj": np.conj, "neg": np.negative, "square": np.square,
    # PyTorch's reciprocal is 1 / z (NumPy's reciprocal differs in the sign of zero parts)
    "reciprocal": lambda z: 1 / z,
}


# The Array API standard's special cases of expm1(a + bj) that NumPy does not give (it gives
# nan parts there), for b >= 0 or nan; for -b the imaginary part's sign flips.
INF, NAN = math.inf, math.nan
_EXPM1_CASES = [((0.0, 0.0), (0.0, 0.0)), ((-0.0, 0.0), (0.0, 0.0)), ((INF, 0.0), (INF, 0.0)),
                ((-INF, INF), (-1.0, 0.0)), ((INF, INF), (INF, NAN)), ((-INF, NAN), (-1.0, 0.0)),
                ((INF, NAN), (INF, NAN)), ((NAN, 0.0), (NAN, 0.0))]


def _same(x, y):
    return (x == y and math.copysign(1, x) == math.copysign(1, y)) or (x != x and y != y)


def _expm1_standard(z):
    out = np.expm1(z)
    for i, v in enumerate(z.tolist()):
        sign = math.copysign(1.0, v.imag)
        for (a, b), (re, im) in _EXPM1_CASES:
            if _same(a, v.real) and _same(b, abs(v.imag)):
                out[i] = complex(re, sign * im)
    return out


def _tanh_standard(z):
    # the standard: tanh(±inf + bj) is ±1 + 0j for a finite b, the zero signed as b; NumPy (C99)
    # signs it as sin(2b)
    out = np.tanh(z)
    fix = np.isinf(z.real) & np.isfinite(z.imag)
    out.real[fix] = np.sign(z.real[fix])
    out.imag[fix] = np.copysign(0.0, z.imag[fix])  # not 1j * ...: that loses the sign of -0
    return out


def test_tanh_of_infinite_real_parts_follows_the_standard():
    z = [complex(INF, 5.0), complex(INF, -5.0), complex(-INF, 0.5)]
    out = ember.tensor(z, dtype="complex128").tanh().tolist()
    assert out == [1 + 0j, 1 - 0j, -1 + 0j]
    assert [math.copysign(1, v.imag) for v in out] == [1.0, -1.0, 1.0]  # sin(10) < 0: not C99's


def _grid(dtype):
    return np.array([complex(a, b) for a in PARTS for b in PARTS], dtype)


def _assert_same_special(actual, expected, dtype, what):
    """Equal part by part: NaN where NaN, the sign of zeros and infinities, close elsewhere."""
    act = np.asarray(actual).astype(np.complex128)
    exp = np.asarray(expected).astype(np.complex128)
    rtol = 5e-6 if dtype == "complex64" else 1e-13
    for x, y in ((act.real, exp.real), (act.imag, exp.imag)):
        nan = np.isnan(y)
        assert np.array_equal(np.isnan(x), nan), what
        exact = ~nan & ((y == 0) | np.isinf(y))
        assert np.array_equal(x[exact], y[exact]), what
        assert np.array_equal(np.signbit(x[exact]), np.signbit(y[exact])), what
        rest = ~nan & ~exact
        np.testing.assert_allclose(x[rest], y[rest], rtol=rtol, atol=0, err_msg=what)


@pytest.mark.parametrize("name", sorted(NUMPY_FN))
@pytest.mark.parametrize("dtype", CDTYPES)
def test_special_values_match_numpy(name, dtype):
    z = _grid(dtype)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = NUMPY_FN[name](z)
    out = getattr(tensor(z), name)()
    _assert_same_special(out.numpy(), expected, dtype, name)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_sign_special_values_are_z_over_abs(dtype):
    # PyTorch's sgn (the Array API's sign): +0 at 0, each part over the modulus elsewhere, so
    # an infinite part gives NaN and a finite part beside it ±0 (NumPy's sign gives ±1 there).
    # PyTorch's own answer at zeros and non-finite z depends on its CPU kernel (its scalar loop
    # gives NaN + NaN j at infinities and drops the sign of a -0 part), so it is the oracle of
    # the values at finite nonzero z only
    z = _grid(dtype)
    with np.errstate(all="ignore"):
        m = np.abs(z)
        expected = np.zeros_like(z)
        expected.real, expected.imag = z.real / m, z.imag / m
    expected[z == 0] = 0
    plain = np.isfinite(z) & (z != 0)
    np.testing.assert_allclose(expected[plain], torch.sgn(torch.from_numpy(z[plain])).numpy(),
                               rtol=5e-6 if dtype == "complex64" else 1e-13)
    for name in ("sign", "sgn"):
        _assert_same_special(getattr(tensor(z), name)().numpy(), expected, dtype, name)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_add_sub_mul_keep_infinite_parts(dtype):
    # part by part, as NumPy and the Array API: (-inf - inf j) + (-inf - inf j) is -inf - inf j
    z = _grid(dtype)
    a, b = np.meshgrid(z, z)
    ta, tb = tensor(a.ravel().copy()), tensor(b.ravel().copy())
    with np.errstate(all="ignore"):
        _assert_same_special((ta + tb).numpy(), a.ravel() + b.ravel(), dtype, "add")
        _assert_same_special((ta - tb).numpy(), a.ravel() - b.ravel(), dtype, "sub")
        _assert_same_special((ta - 1.5).numpy(), a.ravel() - np.asarray(1.5, dtype), dtype, "sub")
        _assert_same_special((ta * tb).numpy(), a.ravel() * b.ravel(), dtype, "mul")


@pytest.mark.parametrize("dtype", CDTYPES)
def test_pow_and_div_special_values_match_numpy(dtype):
    # NumPy's complex power: x ** 0 is 1 + 0j (also for infinite and NaN x); 0 ** y is 0 when
    # y has a positive real part, else NaN + NaN j
    z = _grid(dtype)
    a, b = (g.ravel().copy() for g in np.meshgrid(z, z))
    ta, tb = tensor(a), tensor(b)
    with np.errstate(all="ignore"):
        _assert_same_special((ta ** tb).numpy(), np.power(a, b), dtype, "pow")
        _assert_same_special(ta.pow(0).numpy(), np.power(a, np.asarray(0, dtype)), dtype, "pow 0")
        _assert_same_special((0 ** tb).numpy(), np.power(np.asarray(0, dtype), b), dtype, "0 pow")
        finite = np.isfinite(a) & np.isfinite(b) & (b != 0)
        # finite quotients agree to rounding (torch's division rounds z / z to 1 + 1e-17j)
        np.testing.assert_allclose((ta / tb).numpy()[finite], (a / b)[finite], **TOL[dtype])


@pytest.mark.parametrize("dtype", CDTYPES)
def test_predicates_of_either_part(dtype):
    z = _grid(dtype)
    t = tensor(z)
    assert t.isnan().tolist() == np.isnan(z).tolist()
    assert t.isinf().tolist() == np.isinf(z).tolist()
    assert t.isfinite().tolist() == np.isfinite(z).tolist()
    assert ember.isnan(t).numpy().sum() == 15          # a NaN in either part
    assert t.is_inf().numpy().sum() == 28


# -- comparisons and closeness -----------------------------------------------------------------------

def test_equality_with_complex_operands():
    rng = np.random.default_rng(4)
    a = cx_array(rng, (2, 3), "complex64")
    b = a.copy()
    b[0, 1] += 1j
    b[1, 2] = complex(a[1, 2].real, a[1, 2].imag)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    t, u = tensor(a), tensor(b)
    for ours, theirs in ((t == u, ta == tb), (t != u, ta != tb), (t.eq(u), ta.eq(tb)),
                         (t.ne(u), ta.ne(tb)), (t.equal(u), ta == tb),
                         (t.not_equal(u), ta != tb),
                         (t == complex(a[0, 0]), ta == complex(a[0, 0])),
                         (t.equal_scalar(complex(a[0, 0])), ta == complex(a[0, 0]))):
        assert ours.dtype == ember.bool_
        assert ours.tolist() == theirs.tolist()
    # mixed kinds and dtypes: compared in the promoted dtype, as PyTorch
    z = tensor(np.array([1 + 0j, 2 + 1j, 3 + 0j], "complex128"))
    f = ember.tensor([1.0, 2.0, 4.0])
    assert (z == f).tolist() == [True, False, False]
    assert (f != z).tolist() == [False, True, True]
    assert (z == 3).tolist() == [False, False, True]
    assert (2 + 1j == z).tolist() == [False, True, False]
    assert (f == 1 + 0j).tolist() == [True, False, False]
    assert (tensor(np.array([0.1 + 0j], "complex64")) == tensor(np.array([0.1], "complex128"))
            ).tolist() == (torch.tensor([0.1 + 0j], dtype=torch.complex64)
                           == torch.tensor([0.1 + 0j], dtype=torch.complex128)).tolist()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_isclose_matches_torch(dtype):
    rng = np.random.default_rng(5)
    a = cx_array(rng, (40,), dtype)
    b = a + (rng.standard_normal(40) * 1e-5 + 1j * rng.standard_normal(40) * 1e-5).astype(dtype)
    b[:4] = [complex(math.nan, 0), complex(math.inf, 1), complex(math.inf, 1), 5j]
    a[:4] = [complex(math.nan, 0), complex(math.inf, 1), complex(math.inf, 2), 5j]
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    for kw in ({}, {"rtol": 1e-3}, {"atol": 1e-4}, {"equal_nan": True}, {"rtol": 0, "atol": 0}):
        expected = torch.isclose(ta, tb, **kw)
        assert tensor(a).isclose(tensor(b), **kw).tolist() == expected.tolist()
        assert ember.isclose(tensor(a), tensor(b), **kw).tolist() == expected.tolist()
        assert tensor(a).allclose(tensor(b), **kw) == torch.allclose(ta, tb, **kw)
        assert tensor(a).all_close(tensor(b), **kw) == torch.allclose(ta, tb, **kw)
    assert tensor(a[4:]).allclose(tensor(a[4:].copy()))
    assert tensor(np.array([1 + 1e-9j])).isclose(1 + 0j).tolist() == [True]
    assert tensor(np.array([1.0])).isclose(1 + 1e-3j).tolist() == [False]


# -- complex parts ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_complex_and_polar_match_torch(dtype, shape):
    rng = np.random.default_rng(6)
    if shape == "view":
        re = rng.standard_normal((4, 6)).astype(dtype)[::2, ::3].T
        im = rng.standard_normal((4, 6)).astype(dtype)[1::2, ::3].T
    else:
        re = np.asarray(rng.standard_normal(shape)).astype(dtype)
        im = np.asarray(rng.standard_normal(shape)).astype(dtype)
    tre, tim = torch.from_numpy(np.array(re)), torch.from_numpy(np.array(im))
    check(ember.complex(tensor(re), tensor(im)), torch.complex(tre, tim))
    check(ember.polar(tensor(np.asarray(np.abs(re))), tensor(im)), torch.polar(tre.abs(), tim))


def test_complex_keeps_special_parts_and_broadcasts():
    re = ember.tensor([-0.0, math.inf, math.nan])
    im = ember.tensor([[-0.0], [1.0]])
    out = ember.complex(re, im)
    assert out.shape == (2, 3) and out.dtype == ember.complex64
    r, i = out.real().numpy(), out.imag().numpy()
    assert np.signbit(r[0, 0]) and np.signbit(i[0, 0]) and np.isinf(r[0, 1]) and np.isnan(r[0, 2])
    assert i[1].tolist() == [1.0, 1.0, 1.0]


def test_complex_and_polar_refuse_other_dtypes():
    f32, f64, i = ember.tensor([1.0]), ember.tensor([1.0], dtype="float64"), ember.tensor([1])
    with pytest.raises(KindError, match="complex: real has dtype float32 and imag has dtype float64"):
        ember.complex(f32, f64)
    with pytest.raises(KindError, match="complex: imag has dtype int64; expected a float32 or float64"):
        ember.complex(f32, i)
    with pytest.raises(KindError, match="polar: abs has dtype complex64"):
        ember.polar(tensor(np.array([1j], "complex64")), f32)
    with pytest.raises(ember.InvalidParameterError, match="polar: angle must be a Tensor"):
        ember.polar(f32, 1.0)
    with pytest.raises(ember.ShapeMismatchError):
        ember.complex(ember.ones(2), ember.ones(3))


def test_parts_of_real_tensors_follow_torch():
    f = ember.tensor([-2.0, -0.0, 0.0, 3.0, math.nan])
    assert f.real() is f and f.conj() is f
    with pytest.raises(KindError, match=r"imag: not defined for real tensors \(self has dtype float32\)"):
        f.imag()
    check(f.angle(), torch.angle(torch.tensor([-2.0, -0.0, 0.0, 3.0, math.nan])))
    check(ember.tensor([-1, 0, 2]).angle(), torch.angle(torch.tensor([-1, 0, 2])))
    check(ember.tensor([-1.0, 1.0], dtype="float64").angle(),
          torch.angle(torch.tensor([-1.0, 1.0], dtype=torch.float64)))


def test_angle_of_real_tensors_has_zero_gradient():
    x = ember.tensor([-2.0, 0.0, 3.0]).require_grad()
    x.angle().sum().backward()
    tx = torch.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    torch.angle(tx).sum().backward()
    assert x.grad.tolist() == tx.grad.tolist() == [0.0, 0.0, 0.0]


def test_log2_log10_on_real_tensors():
    x = ember.tensor([0.5, 1.0, 8.0, 0.0, -1.0])
    check(x.log2(), torch.log2(torch.tensor([0.5, 1.0, 8.0, 0.0, -1.0])))
    check(ember.log10(x), torch.log10(torch.tensor([0.5, 1.0, 8.0, 0.0, -1.0])))
    check(ember.tensor([1, 100]).log10(), torch.log10(torch.tensor([1, 100])))
    g = ember.tensor([2.0, 5.0], dtype="float64").require_grad()
    (g.log2() + g.log10()).sum().backward()
    tg = torch.tensor([2.0, 5.0], dtype=torch.float64, requires_grad=True)
    (tg.log2() + tg.log10()).sum().backward()
    np.testing.assert_allclose(g.grad.numpy(), tg.grad.numpy(), rtol=1e-12)


def test_logical_ops_take_complex_as_truth():
    z = tensor(np.array([0j, 1j, 2 + 0j, complex(math.nan, 0)], "complex64"))
    tz = to_torch(z)
    i = ember.tensor([1, 0, 1, 0])
    ti = torch.tensor([1, 0, 1, 0])
    assert z.logical_and(i).tolist() == torch.logical_and(tz, ti).tolist()
    assert ember.logical_or(z, 0j).tolist() == torch.logical_or(tz, torch.tensor(0j)).tolist()
    assert z.logical_xor(i).tolist() == torch.logical_xor(tz, ti).tolist()
    assert z.logical_not().tolist() == torch.logical_not(tz).tolist()


# -- gradients and refusals ------------------------------------------------------------------------------

def test_no_gradients_through_complex_results():
    with pytest.raises(KindError, match="mul: a complex result of a tracked tensor"):
        ember.ones(2).require_grad() * 1j
    with pytest.raises(KindError, match="complex: a complex result of a tracked tensor"):
        ember.complex(ember.ones(2).require_grad(), ember.zeros(2))
    with ember.no_grad():
        assert (ember.ones(2).require_grad() * 1j).tolist() == [1j, 1j]


def _z():
    return tensor(np.array([1 + 2j, -1j], "complex64"))


def _f():
    return ember.tensor([1.0, 2.0])


REFUSED = [
    ("lower", lambda: _z() < _z()), ("lower_equal", lambda: _z() <= 1),
    ("greater", lambda: _z() > _f()), ("greater_equal", lambda: _f() >= _z()),
    ("greater", lambda: _z().gt(_z())), ("lower", lambda: _f() < 1j),
    ("lower_scalar", lambda: _z().lower_scalar(1)),
    ("maximum", lambda: _z().maximum(_z())), ("minimum", lambda: ember.minimum(_f(), _z())),
    ("max_pair", lambda: _z().max_pair(_f())), ("min_pair", lambda: _z().min_pair(_z())),
    ("clamp", lambda: _z().clamp(0, 1)), ("clamp", lambda: _f().clamp(_z())),
    ("clamp_min", lambda: _z().clamp_min(0)), ("clamp_max", lambda: _z().clamp_max(1)),
    ("floor", lambda: _z().floor()), ("ceil", lambda: _z().ceil()),
    ("trunc", lambda: _z().trunc()), ("fmod", lambda: _z().fmod(2)),
    ("fmod_scalar", lambda: _z().fmod_scalar(2)),
    ("remainder", lambda: _z() % 2), ("remainder", lambda: _f() % 1j),
    ("remainder_scalar", lambda: _z().remainder_scalar(2)),
    ("floor_divide", lambda: _z() // _z()), ("floor_divide", lambda: 2 // _z()),
    ("atan2", lambda: _z().atan2(_f())), ("hypot", lambda: _f().hypot(_z())),
    ("erf", lambda: _z().erf()), ("sigmoid", lambda: _z().sigmoid()),
    ("relu", lambda: _z().relu()), ("deg2rad", lambda: _z().deg2rad()),
    ("rad2deg", lambda: _z().rad2deg()), ("lerp", lambda: _z().lerp(_z(), 0.5)),
    ("lerp", lambda: _f().lerp(_f(), 0.5j)),
    ("powf", lambda: _z().powf(_z())), ("powf_scalar", lambda: _f().powf_scalar(1j)),
    ("powi", lambda: _z().powi(2)), ("powi_scalar", lambda: _z().powi_scalar(2)),
    ("contains_nan", lambda: _z().contains_nan()),
    ("bitwise_and", lambda: _z() & _z()), ("bitwise_or", lambda: ember.tensor([1]) | 1j),
    ("bitwise_xor", lambda: _z().bitwise_xor(1)), ("bitwise_not", lambda: ~_z()),
    ("bitwise_not", lambda: _z().bitwise_not()),
    ("bitwise_left_shift", lambda: _z() << 1), ("bitwise_right_shift", lambda: ember.tensor([1]) >> _z()),
    ("bitwise_and_scalar", lambda: _z().bitwise_and_scalar(1)),
    ("bool_and", lambda: _z().bool_and(_z())), ("bool_not", lambda: _z().bool_not()),
    ("normal_", lambda: _z().normal_()), ("uniform_", lambda: _z().uniform_()),
]


@pytest.mark.parametrize("name,call", REFUSED, ids=[f"{n}-{i}" for i, (n, _) in enumerate(REFUSED)])
def test_ops_without_complex_raise(name, call):
    with pytest.raises(KindError, match=rf"^{name}\b.*complex"):
        call()


def test_refusal_leaves_inputs_unchanged():
    z = _z()
    before = np.array(z.numpy(), copy=True)
    for call in (lambda: z < z, lambda: z.clamp(0), lambda: z // 2, lambda: z & 1):
        with pytest.raises(KindError):
            call()
    np.testing.assert_array_equal(z.numpy(), before)


def test_python_numbers_with_complex_tensors():
    z = tensor(np.array([1j, 2 + 0j], "complex64"))
    with pytest.raises(ember.InvalidParameterError, match="add: other 1000.* is out of range; "
                                                          "expected a value that fits a 64-bit "
                                                          "integer or a float"):
        z + 10 ** 400
    check(z * 2 ** 70, torch.tensor([1j, 2 + 0j]) * float(2 ** 70))
    assert (z + 1e300j).tolist()[0] == complex(0, math.inf)       # rounded to complex64's parts
    check(ember.tensor([1.0, 2.0], dtype="float64") * (0.1 + 0.2j),
          torch.tensor([1.0, 2.0], dtype=torch.float64) * (0.1 + 0.2j))
    with pytest.raises(KindError, match=r"mul: not defined for bool tensors"):
        ember.tensor([True]) * 1j
    with pytest.raises(KindError, match="mul: other must be a Tensor or a number, got str"):
        z * "x"
