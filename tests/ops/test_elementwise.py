"""Tests of the elementwise families as a whole (ember/ops/arith.py, float_math.py, clamps.py,
with the rules they share in elementwise.py): every op against PyTorch from one table, type
promotion, gradients and bad input. What one family does on its own is tested in test_arith.py,
test_float_math.py, test_clamps.py and test_operators.py; the torch backend's parity with
NumPy's in test_torch_elementwise.py.

Expected values come from PyTorch 2.13 (CPU), NumPy where PyTorch lacks a dtype, Python's math
module, or the spec's printed examples; ember results are read with .numpy()/.tolist().
"""

import doctest
import os
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import SHAPES, assert_close, ember_tensor, layouts, random_array, to_torch
from oracle import assert_unchanged, snapshot

RNG = np.random.default_rng(20240601)
NAN, INF = float("nan"), float("inf")
SPECIAL = np.array([0.0, -0.0, INF, -INF, NAN, 1.0, -1.0, 0.5, -0.5, 2.5, 1e-30, -1e30])
FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["int64", "int32", "int16", "int8", "uint8"]


def E(arr, dtype=None):
    return ember_tensor(np.asarray(arr), dtype)


def data(shape, dtype, low=-3, high=3, special=False):
    """Random values of an ember dtype name as a NumPy array (bfloat16 kept as float32)."""
    arr = random_array(RNG, shape, dtype, low, high)
    if special and dtype in FLOATS and arr.size:
        flat = arr.reshape(-1).copy()
        k = min(flat.size, SPECIAL.size)
        flat = flat.astype(np.float64)
        flat[RNG.choice(flat.size, k, replace=False)] = SPECIAL[:k]
        with np.errstate(over="ignore"):
            arr = flat.reshape(arr.shape).astype(arr.dtype)
    return arr


def tol(*dtypes):
    """Tolerances for the least precise of dtype names."""
    if "bfloat16" in dtypes:
        return dict(rtol=2e-2, atol=2e-2)
    if "float16" in dtypes:
        return dict(rtol=2e-3, atol=2e-3)
    if "float32" in dtypes or any(d in INTS for d in dtypes):
        return dict(rtol=2e-5, atol=1e-6)
    return dict(rtol=1e-10, atol=1e-12)


# -- binary arithmetic against PyTorch --------------------------------------------------------


def floor_divide_ieee(a, b):
    """PyTorch's floor division with the Array API standard's cases for an infinite operand
    (``floor(a / b)``: ``1 // -inf`` is -0.0, ``inf // 2`` is inf), which ember follows."""
    out = torch.floor_divide(a, b)
    if not out.is_floating_point():
        return out
    return torch.where(torch.isinf(a) | torch.isinf(b), torch.floor(a / b), out).to(out.dtype)


BINARY = {
    "add": (lambda a, b: a + b, lambda a, b: a + b),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "mul": (lambda a, b: a * b, lambda a, b: a * b),
    "truediv": (lambda a, b: a / b, lambda a, b: a / b),
    "floordiv": (lambda a, b: a // b, lambda a, b: floor_divide_ieee(a, b)),
    "mod": (lambda a, b: a % b, torch.remainder),
    "pow": (lambda a, b: a ** b, torch.pow),
    "add_m": (lambda a, b: a.add(b), torch.add),
    "sub_m": (lambda a, b: a.sub(b), torch.sub),
    "mul_m": (lambda a, b: a.mul(b), torch.mul),
    "true_divide": (lambda a, b: a.true_divide(b), torch.true_divide),
    "floor_divide": (lambda a, b: ember.floor_divide(a, b), lambda a, b: floor_divide_ieee(a, b)),
    "remainder": (lambda a, b: a.remainder(b), torch.remainder),
    "fmod": (lambda a, b: a.fmod(b), torch.fmod),
    "max_pair": (lambda a, b: a.max_pair(b), torch.maximum),
    "min_pair": (lambda a, b: a.min_pair(b), torch.minimum),
    "maximum": (lambda a, b: ember.maximum(a, b), torch.maximum),
    "minimum": (lambda a, b: ember.minimum(a, b), torch.minimum),
}
FLOAT_BINARY = {
    "atan2": (lambda a, b: a.atan2(b), torch.atan2),
    "hypot": (lambda a, b: a.hypot(b), torch.hypot),
    "powf": (lambda a, b: a.powf(b), torch.pow),
}
DIVIDING = {"floordiv", "mod", "floor_divide", "remainder", "fmod"}
DTYPE_PAIRS = [("float32", "float32"), ("float64", "float32"), ("float16", "float16"),
               ("bfloat16", "bfloat16"), ("float16", "bfloat16"), ("int64", "int64"),
               ("int32", "int8"), ("uint8", "int8"), ("uint8", "uint8"), ("int64", "float32"),
               ("int16", "float16")]
SHAPE_PAIRS = [((), ()), ((0,), (0,)), ((5,), ()), ((), (5,)), ((3, 4), (4,)),
               ((2, 1, 4), (3, 1)), ((2, 0, 3), (1, 3)), ((3, 4), (3, 4))]


def binary_inputs(name, da, db, sa, sb, special=True):
    a = data(sa, da, special=special)
    b = data(sb, db, special=special)
    if name in DIVIDING and (da in INTS or db in INTS) and not (da in FLOATS or db in FLOATS):
        b = np.where(b == 0, 1, b).astype(b.dtype)
    if name == "pow":
        if da in INTS and db in INTS:
            b = (np.abs(b) % 4).astype(b.dtype)
        elif da in INTS or db in INTS:
            a = np.abs(a).astype(a.dtype) if da in FLOATS else a
    return a, b


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("da,db", DTYPE_PAIRS)
def test_binary_matches_torch(name, da, db):
    ours, theirs = BINARY[name]
    for sa, sb in SHAPE_PAIRS:
        a, b = binary_inputs(name, da, db, sa, sb)
        ea, eb = E(a, da), E(b, db)
        expected = theirs(to_torch(ea), to_torch(eb))
        assert_close(ours(ea, eb), expected, **tol(da, db), equal_nan=True)


@pytest.mark.parametrize("name", sorted(FLOAT_BINARY))
@pytest.mark.parametrize("da,db", [p for p in DTYPE_PAIRS if p[0] in FLOATS and p[1] in FLOATS]
                         + [("int32", "int32"), ("int64", "float64")])
def test_float_binary_matches_torch(name, da, db):
    ours, theirs = FLOAT_BINARY[name]
    for sa, sb in SHAPE_PAIRS:
        a, b = data(sa, da, special=True), data(sb, db, special=True)
        ea, eb = E(a, da), E(b, db)
        ta, tb = to_torch(ea), to_torch(eb)
        if da in INTS:  # PyTorch lacks some of these for ints; ember computes in float
            ta = ta.to(tb.dtype if tb.is_floating_point() else torch.float32)
            tb = tb.to(ta.dtype)
        assert_close(ours(ea, eb), theirs(ta, tb), **tol(da, db), equal_nan=True)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "truediv", "mod", "pow", "max_pair",
                                  "atan2"])
def test_binary_non_contiguous_layouts(name):
    ours, theirs = {**BINARY, **FLOAT_BINARY}[name]
    for shape in [(3, 4), (2, 3, 4), (5,)]:
        a = data(shape, "float64")
        b = data(shape[-1:], "float64")
        if name == "pow":
            a = np.abs(a)
        for lname, arr in layouts(a):
            for lname_b, arr_b in layouts(b):
                ea, eb = E(arr), E(arr_b)
                assert_close(ours(ea, eb), theirs(torch.from_numpy(a), torch.from_numpy(b)))


SCALARS = [2, -3, 0, 2.5, -0.5, 1e10, 7]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**"])
def test_python_scalars_on_both_sides(dtype, op):
    fn = eval(f"lambda a, b: a {op} b")  # noqa: S307 - a fixed operator from the list above

    def expect(a, b):
        if op != "//" or dtype not in FLOATS:
            return fn(a, b)
        # a scalar overflowing float16 is inf: the standard
        like = a if isinstance(a, torch.Tensor) else b
        return floor_divide_ieee(*[x if isinstance(x, torch.Tensor) else
                                   torch.tensor(float(x)).to(like.dtype) for x in (a, b)])
    shape = (3, 4)
    base = data(shape, dtype)
    for s in SCALARS:
        if op in ("//", "%") and s == 0 and dtype in INTS:
            continue
        a = base
        if op == "**":
            if dtype in INTS and (isinstance(s, int) and s < 0):
                continue
            if s == 1e10:
                continue
            a = np.abs(base).astype(base.dtype)
        t = E(a, dtype)
        tt = to_torch(t)
        assert_close(fn(t, s), expect(tt, s), **tol(dtype), equal_nan=True)
        # the scalar on the left: avoid int zero divisors and negative int exponents
        r = a
        if dtype in INTS and op in ("//", "%"):
            r = np.where(a == 0, 1, a).astype(a.dtype)
        if op == "**" and dtype in INTS:
            r = (np.abs(a) % 4).astype(a.dtype)
        if op == "**" and isinstance(s, float) and s < 0:
            continue
        t = E(r, dtype)
        assert_close(fn(s, t), expect(s, to_torch(t)), **tol(dtype), equal_nan=True)


def test_scalar_methods_match_operators():
    a = data((3, 4), "float32", special=True)
    t, tt = E(a), torch.from_numpy(a)
    assert_close(t.add_scalar(2.5), tt + 2.5, equal_nan=True)
    assert_close(t.sub_scalar(2), tt - 2, equal_nan=True)
    assert_close(t.mul_scalar(-1.5), tt * -1.5, equal_nan=True)
    assert_close(t.div_scalar(4.0), tt / 4.0, equal_nan=True)
    assert_close(t.remainder_scalar(1.5), torch.remainder(tt, 1.5), equal_nan=True)
    assert_close(t.fmod_scalar(1.5), torch.fmod(tt, 1.5), equal_nan=True)
    assert_close(t.powf_scalar(2.0), tt ** 2.0, equal_nan=True)
    assert_close(t.powi_scalar(3), tt ** 3, equal_nan=True)
    i = data((3, 4), "int32")
    ti, tti = E(i), torch.from_numpy(i)
    assert_close(ti.add_scalar(3), tti + 3)
    assert_close(ti.add_scalar(0.5), tti + 0.5)
    assert_close(ti.mul_scalar(2), tti * 2)
    assert_close(ti.div_scalar(2), torch.floor_divide(tti, 2))
    assert_close(ti.remainder_scalar(-2), torch.remainder(tti, -2))
    assert_close(ti.fmod_scalar(-2), torch.fmod(tti, -2))
    assert_close(ti.powi_scalar(2), tti ** 2)


@pytest.mark.half_precision
def test_zero_dim_tensors_are_weaker_than_dimensioned():
    a = E(np.array([1, 2], np.int8))
    b = ember.tensor(3, dtype="int64")
    assert (a + b).dtype is ember.int8
    assert (a + ember.tensor(1.5)).dtype is ember.float32
    assert (E(np.array([1.0], np.float16)) + ember.tensor(2.0, dtype="float64")).dtype is ember.float16


@pytest.mark.parametrize("da", ["float64", "float32", "float16", "bfloat16", "int64", "int32",
                                "int16", "int8", "uint8"])
@pytest.mark.parametrize("db", ["float64", "float32", "float16", "bfloat16", "int64", "int32",
                                "int16", "int8", "uint8"])
def test_promotion_matches_torch(da, db):
    a, b = E(np.ones(2, np.float32), da), E(np.ones(2, np.float32), db)
    expected = (to_torch(a) + to_torch(b)).dtype
    assert (a + b).dtype.name == str(expected).replace("torch.", "")
    assert (a * b).dtype.name == str(expected).replace("torch.", "")
    assert (a / b).dtype.name == str((to_torch(a) / to_torch(b)).dtype).replace("torch.", "")


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_wide_unsigned_ints_against_numpy(dtype):
    a = RNG.integers(0, 1000, (4, 3)).astype(dtype)
    b = RNG.integers(1, 50, (3,)).astype(dtype)
    ea, eb = E(a), E(b)
    for ours, theirs in [(ea + eb, a + b), (ea - eb, a - b), (ea * eb, a * b),
                         (ea // eb, a // b), (ea % eb, a % b), (ea.fmod(eb), np.fmod(a, b)),
                         (ea.max_pair(eb), np.maximum(a, b)), (ea.abs(), a), (ea.sign(), np.sign(a)),
                         (ea.square(), a * a), (ea.powi_scalar(2), a ** 2), (-ea, -a)]:
        assert ours.dtype.name == dtype
        np.testing.assert_array_equal(ours.numpy(), theirs)
    assert (ea / eb).dtype is ember.float32
    np.testing.assert_allclose((ea / eb).numpy(), (a / b).astype(np.float32), rtol=1e-6)


def test_uint64_with_a_signed_int_tensor_is_refused():
    a = E(np.array([2**64 - 1, 2**63], np.uint64))
    for b in (E(np.array([0, 3], np.int64)), E(np.array([0, 3], np.int8)), ember.tensor(3)[None]):
        for op in (lambda x, y: x + y, lambda x, y: x % y, lambda x, y: y - x,
                   lambda x, y: x.remainder(y), lambda x, y: x.max_pair(y)):
            with pytest.raises(ember.KindError, match="uint64 and int|int.* and uint64"):
                op(a, b)
    np.testing.assert_array_equal(a.numpy(), np.array([2**64 - 1, 2**63], np.uint64))


def test_uint64_remainder_and_floor_division_are_exact():
    big = [2**63, 2**64 - 1, 2**63 + 1, 7]
    a = E(np.array(big, np.uint64))
    for d in (3, 10, 2**63 + 5):
        assert (a % d).tolist() == [v % d for v in big]
        assert (a // d).tolist() == [v // d for v in big]
        assert a.remainder(d).tolist() == [v % d for v in big]
        assert a.fmod(d).tolist() == [v % d for v in big]
        du = E(np.array([d] * 4, np.uint64))
        assert (a % du).dtype is ember.uint64 and (a % du).tolist() == [v % d for v in big]
        assert (a // du).tolist() == [v // d for v in big]
    assert (E(np.array(2**63, np.uint64)) % 3).tolist() == 2    # 0-d
    assert (E(np.array(2**63, np.uint64)) % ember.tensor(3, dtype="uint8")).tolist() == 2


def test_integer_overflow_wraps_like_torch():
    a = E(np.array([1, 2, 127], np.int8))
    for s in (1000, 2 ** 40, -300):
        assert_close(a + s, to_torch(a) + s)
        assert_close(a * s, to_torch(a) * s)
    u = E(np.array([3, 0], np.uint8))
    assert_close(u - E(np.array([5, 1], np.uint8)), to_torch(u) - torch.tensor([5, 1], dtype=torch.uint8))
    assert_close(-u, -to_torch(u))
    big = E(np.array([np.iinfo(np.int64).min, 5], np.int64))
    assert big.abs().tolist() == [np.iinfo(np.int64).min, 5]
    assert (big // -1).tolist() == [np.iinfo(np.int64).min, -5]


# -- unary ops against PyTorch ----------------------------------------------------------------

FLOAT_MATH = {
    "exp": torch.exp, "log": torch.log, "log1p": torch.log1p, "expm1": torch.expm1,
    "sqrt": torch.sqrt, "rsqrt": torch.rsqrt, "recip": torch.reciprocal,
    "reciprocal": torch.reciprocal, "erf": torch.erf, "sin": torch.sin, "cos": torch.cos,
    "tan": torch.tan, "sinh": torch.sinh, "cosh": torch.cosh, "tanh": torch.tanh,
    "asin": torch.asin, "acos": torch.acos, "atan": torch.atan, "asinh": torch.asinh,
    "acosh": torch.acosh, "atanh": torch.atanh, "deg2rad": torch.deg2rad,
    "rad2deg": torch.rad2deg, "sigmoid": torch.sigmoid,
}
KEEP_KIND = {
    "neg": torch.neg, "abs": torch.abs, "sign": torch.sign, "square": torch.square,
    "relu": torch.relu, "floor": torch.floor, "ceil": torch.ceil, "round": torch.round,
    "trunc": torch.trunc, "positive": torch.positive,
}


@pytest.mark.parametrize("name", sorted(KEEP_KIND))
@pytest.mark.parametrize("dtype", FLOATS + INTS)
def test_keep_kind_unary_matches_torch(name, dtype):
    for shape in SHAPES:
        a = data(shape, dtype, special=True)
        t = E(a, dtype)
        out = getattr(t, name)()
        assert_close(out, KEEP_KIND[name](to_torch(t)), **tol(dtype), equal_nan=True)


@pytest.mark.parametrize("name", ["exp", "sin", "neg", "abs", "sqrt", "erf", "sigmoid", "round"])
def test_unary_non_contiguous_layouts(name):
    torch_fn = {**FLOAT_MATH, **KEEP_KIND}[name]
    a = data((3, 4, 5), "float64", special=True)
    for _, arr in layouts(a):
        assert_close(getattr(E(arr), name)(), torch_fn(torch.from_numpy(a)), equal_nan=True)


def test_operators_abs_neg_pos():
    a = data((3, 4), "float32", special=True)
    t = E(a)
    assert_close(abs(t), torch.abs(torch.from_numpy(a)), equal_nan=True)
    assert_close(-t, -torch.from_numpy(a), equal_nan=True)
    assert (+t) is t


@pytest.mark.half_precision
def test_float_math_never_warns():
    a = E(np.array([0.0, -0.0, -1.0, INF, -INF, NAN, 1e308, -1e308, 1.0, 2.0]))
    b = E(np.array([0.0, -0.0, 2.0, INF, 0.0, 1.0, 1e308, 10.0, 0.0, -1e308]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in FLOAT_MATH:
            getattr(a, name)()
        for fn in (lambda: a + b, lambda: a - b, lambda: a * b, lambda: a / b, lambda: a // b,
                   lambda: a % b, lambda: a ** b, lambda: a.fmod(b), lambda: a.atan2(b),
                   lambda: a.hypot(b), lambda: a.max_pair(b), lambda: a.lerp(b, 0.3),
                   lambda: a * 1e308, lambda: E(np.array([1.0], np.float16)) + 1e10,
                   lambda: a.clamp(0.0, 1.0), lambda: a.round(3)):
            fn()


@pytest.mark.half_precision
def test_scalars_round_to_the_tensor_dtype_first():
    # the Array API's weak-scalar rule (PyTorch's add and sub on float16 do the same)
    for dtype in (np.float16, "bfloat16"):
        a = E(np.linspace(-4, 4, 101).astype(np.float32), dtype)
        x = np.asarray(a.numpy())
        for s in (1.001, 0.1, 3.3333, 1e10):
            with np.errstate(all="ignore"):
                sd = np.asarray(s).astype(x.dtype)
                prod, total = (x * sd).astype(np.float32), (x + sd).astype(np.float32)
            np.testing.assert_array_equal(np.asarray((a * s).numpy(), np.float32), prod)
            np.testing.assert_array_equal(np.asarray((a + s).numpy(), np.float32), total)
            assert_close(a + s, to_torch(a) + s, rtol=0, atol=0)
    assert (E(np.array([1.0], np.float16)) + 1e10).tolist() == [INF]


# -- the spec's printed examples (the tests are in test_arith.py, test_float_math.py and
# test_clamps.py) -----------------------------------------------------------------------------

T1 = [[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]
T2 = [[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]]


# -- gradients against torch.autograd (float64) -----------------------------------------------

def torch_grads(fn, arrays, seed):
    ts = [torch.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
    out = fn(*ts)
    out.backward(torch.from_numpy(seed))
    return [t.grad for t in ts]


def ember_grads(fn, arrays, seed):
    es = [ember.tensor(a).require_grad() for a in arrays]
    out = fn(*es)
    out.backward(ember.tensor(seed))
    return out, [t.grad for t in es]


def check_grads(ours, theirs, arrays, out_shape=None, rtol=1e-7, atol=1e-9):
    out_shape = out_shape or np.broadcast_shapes(*[a.shape for a in arrays])
    seed = np.asarray(RNG.standard_normal(out_shape))
    out, grads = ember_grads(ours, arrays, seed)
    expected = torch_grads(theirs, arrays, seed)
    for g, e in zip(grads, expected):
        if e is None:
            assert g is None or np.all(g.numpy() == 0)
        else:
            assert g is not None
            assert_close(g, e, rtol=rtol, atol=atol, equal_nan=True)


UNARY_GRADS = {
    "exp": (lambda x: x.exp(), torch.exp, "any"), "log": (lambda x: x.log(), torch.log, "pos"),
    "log1p": (lambda x: x.log1p(), torch.log1p, "pos"),
    "expm1": (lambda x: x.expm1(), torch.expm1, "any"),
    "sqrt": (lambda x: x.sqrt(), torch.sqrt, "pos"),
    "rsqrt": (lambda x: x.rsqrt(), torch.rsqrt, "pos"),
    "recip": (lambda x: x.recip(), torch.reciprocal, "nonzero"),
    "erf": (lambda x: x.erf(), torch.erf, "any"), "sin": (lambda x: x.sin(), torch.sin, "any"),
    "cos": (lambda x: x.cos(), torch.cos, "any"), "tan": (lambda x: x.tan(), torch.tan, "unit"),
    "sinh": (lambda x: x.sinh(), torch.sinh, "any"),
    "cosh": (lambda x: x.cosh(), torch.cosh, "any"),
    "tanh": (lambda x: x.tanh(), torch.tanh, "any"),
    "asin": (lambda x: x.asin(), torch.asin, "unit"),
    "acos": (lambda x: x.acos(), torch.acos, "unit"),
    "atan": (lambda x: x.atan(), torch.atan, "any"),
    "asinh": (lambda x: x.asinh(), torch.asinh, "any"),
    "acosh": (lambda x: x.acosh(), torch.acosh, "gt1"),
    "atanh": (lambda x: x.atanh(), torch.atanh, "unit"),
    "deg2rad": (lambda x: x.deg2rad(), torch.deg2rad, "any"),
    "rad2deg": (lambda x: x.rad2deg(), torch.rad2deg, "any"),
    "sigmoid": (lambda x: x.sigmoid(), torch.sigmoid, "any"),
    "relu": (lambda x: x.relu(), torch.relu, "any"),
    "neg": (lambda x: -x, lambda x: -x, "any"), "abs": (lambda x: abs(x), torch.abs, "any"),
    "square": (lambda x: x.square(), torch.square, "any"),
    "sign": (lambda x: x.sign(), torch.sign, "any"),
    "round": (lambda x: x.round(), torch.round, "any"),
    "floor": (lambda x: x.floor(), torch.floor, "any"),
    "ceil": (lambda x: x.ceil(), torch.ceil, "any"),
    "trunc": (lambda x: x.trunc(), torch.trunc, "any"),
    "clamp": (lambda x: x.clamp(-0.5, 0.5), lambda x: torch.clamp(x, -0.5, 0.5), "any"),
    "clamp_min": (lambda x: x.clamp_min(0.2), lambda x: torch.clamp_min(x, 0.2), "any"),
    "clamp_max": (lambda x: x.clamp_max(0.2), lambda x: torch.clamp_max(x, 0.2), "any"),
    "powf_scalar": (lambda x: x.powf_scalar(2.5), lambda x: x ** 2.5, "pos"),
    "powi_scalar": (lambda x: x.powi_scalar(3), lambda x: x ** 3, "any"),
    "rpow": (lambda x: 2.0 ** x, lambda x: 2.0 ** x, "any"),
    "rsub": (lambda x: 2.0 - x, lambda x: 2.0 - x, "any"),
    "radd": (lambda x: 2.0 + x, lambda x: 2.0 + x, "any"),
    "rmul": (lambda x: 2.5 * x, lambda x: 2.5 * x, "any"),
    "add_float": (lambda x: x + 2.0, lambda x: x + 2.0, "any"),
    "sub_float": (lambda x: x - 2.0, lambda x: x - 2.0, "any"),
    "mul_float": (lambda x: x * -1.5, lambda x: x * -1.5, "any"),
    "div_float": (lambda x: x / 2.5, lambda x: x / 2.5, "any"),
    "mul_int": (lambda x: x * 3, lambda x: x * 3, "any"),
    "rdiv_int": (lambda x: 3 / x, lambda x: 3 / x, "nonzero"),
    "rdiv": (lambda x: 3.0 / x, lambda x: 3.0 / x, "nonzero"),
    "rmod": (lambda x: 3.0 % x, lambda x: torch.remainder(torch.full_like(x, 3.0), x), "nonzero"),
}


def domain(kind, shape):
    x = np.asarray(RNG.standard_normal(shape))
    if kind == "pos":
        x = np.abs(x) + 0.1
    elif kind == "nonzero":
        x = np.where(np.abs(x) < 0.1, 0.5, x)
    elif kind == "unit":
        x = np.clip(x * 0.4, -0.9, 0.9)
    elif kind == "gt1":
        x = np.abs(x) + 1.1
    return np.asarray(x, np.float64)


@pytest.mark.parametrize("name", sorted(UNARY_GRADS))
def test_unary_gradients_match_torch(name):
    ours, theirs, kind = UNARY_GRADS[name]
    for shape in [(), (5,), (3, 4), (2, 0)]:
        check_grads(ours, theirs, [domain(kind, shape)])


BINARY_GRADS = {
    "add": (lambda a, b: a + b, lambda a, b: a + b, "any"),
    "sub": (lambda a, b: a - b, lambda a, b: a - b, "any"),
    "mul": (lambda a, b: a * b, lambda a, b: a * b, "any"),
    "div": (lambda a, b: a / b, lambda a, b: a / b, "nonzero"),
    "burn_div": (lambda a, b: a.div(b), lambda a, b: a / b, "nonzero"),
    "remainder": (lambda a, b: a % b, torch.remainder, "nonzero"),
    "fmod": (lambda a, b: a.fmod(b), torch.fmod, "nonzero"),
    "pow": (lambda a, b: a ** b, torch.pow, "pos"),
    "powf": (lambda a, b: a.powf(b), torch.pow, "pos"),
    "atan2": (lambda a, b: a.atan2(b), torch.atan2, "nonzero"),
    "hypot": (lambda a, b: a.hypot(b), torch.hypot, "nonzero"),
    "max_pair": (lambda a, b: a.max_pair(b), torch.maximum, "any"),
    "min_pair": (lambda a, b: a.min_pair(b), torch.minimum, "any"),
    "lerp": (lambda a, b: a.lerp(b, 0.3), lambda a, b: torch.lerp(a, b, 0.3), "any"),
    "clamp_tensor_min": (lambda a, b: a.clamp(min=b), lambda a, b: torch.clamp(a, min=b), "any"),
    "clamp_tensor_max": (lambda a, b: a.clamp(max=b), lambda a, b: torch.clamp(a, max=b), "any"),
}


@pytest.mark.parametrize("name", sorted(BINARY_GRADS))
def test_binary_gradients_match_torch(name):
    ours, theirs, kind = BINARY_GRADS[name]
    for sa, sb in [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (3,)), ((0, 2), (2,))]:
        a, b = domain(kind, sa), domain(kind, sb)
        check_grads(ours, theirs, [a, b])


def test_gradients_at_the_edges_match_torch():
    z = np.array([0.0, -0.0, 1.0, -1.0, 2.0])
    for ours, theirs in [(lambda x: abs(x), torch.abs), (lambda x: x.sqrt(), torch.sqrt),
                         (lambda x: x.relu(), torch.relu),
                         (lambda x: x.clamp(-1.0, 1.0), lambda x: torch.clamp(x, -1.0, 1.0)),
                         (lambda x: x.clamp_min(0.0), lambda x: torch.clamp_min(x, 0.0)),
                         (lambda x: x.sign(), torch.sign), (lambda x: x.round(), torch.round)]:
        check_grads(ours, theirs, [z])
    # without -0.0: PyTorch computes x ** 0.5 as sqrt and x ** -0.5 as rsqrt, which give -inf
    # there where C's pow gives +inf
    z = np.array([0.0, 1.0, -1.0, 2.0])
    for ours, theirs in [(lambda x: x ** 2.0, lambda x: x ** 2.0),
                         (lambda x: x ** 0.5, lambda x: x ** 0.5),
                         (lambda x: x ** 0.0, lambda x: x ** 0.0),
                         (lambda x: 0.0 ** x, lambda x: 0.0 ** x)]:
        check_grads(ours, theirs, [z])
    base = np.array([0.0, 0.0, 0.0, 2.0, -2.0])
    expo = np.array([0.0, 2.0, 0.5, 0.0, 3.0])
    check_grads(lambda a, b: a ** b, torch.pow, [base, expo])
    ties = np.array([1.0, 2.0, 3.0, NAN])
    other = np.array([1.0, 1.0, 4.0, 1.0])
    check_grads(lambda a, b: a.max_pair(b), torch.maximum, [ties, other])
    check_grads(lambda a, b: a.min_pair(b), torch.minimum, [ties, other])


def test_gradient_of_mixed_dtypes_and_int_operands():
    a = ember.tensor([1.0, 2.0]).require_grad()                  # float32
    b = ember.tensor([3.0, 4.0], dtype="float64").require_grad()  # float64
    out = a * b
    assert out.dtype is ember.float64
    out.backward(ember.tensor([1.0, 1.0], dtype="float64"))
    assert a.grad.dtype is ember.float32 and a.grad.tolist() == [3.0, 4.0]
    assert b.grad.dtype is ember.float64 and b.grad.tolist() == [1.0, 2.0]
    c = ember.tensor([1.0, 2.0]).require_grad()
    (c * ember.tensor([3, 4])).backward(ember.tensor([1.0, 1.0]))
    assert c.grad.tolist() == [3.0, 4.0]
    d = ember.tensor([[1.0, 2.0]]).require_grad()
    (d + ember.tensor([[1.0], [2.0], [3.0]])).backward(ember.tensor(np.ones((3, 2), np.float32)))
    assert d.grad.shape == (1, 2) and d.grad.tolist() == [[3.0, 3.0]]


def test_same_tensor_on_both_sides_accumulates():
    x = ember.tensor([1.0, -2.0], dtype="float64").require_grad()
    (x * x + x).backward(ember.tensor([1.0, 1.0], dtype="float64"))
    assert x.grad.tolist() == [3.0, -3.0]


def test_int_results_are_not_tracked():
    x = ember.tensor([1.0, 2.0]).require_grad()
    assert (x + 1).is_tracked()
    assert not (ember.tensor([1, 2]) + 1).is_tracked()
    with ember.no_grad():
        assert not (x * 2.0).is_tracked()


def fd_check(fn, arrays, eps=1e-6, rtol=1e-5, atol=1e-7):
    """Compare ember gradients with central finite differences of the seeded output."""
    out_shape = np.broadcast_shapes(*[a.shape for a in arrays])
    seed = np.asarray(RNG.standard_normal(out_shape))
    _, grads = ember_grads(fn, arrays, seed)
    for k, a in enumerate(arrays):
        num = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            fp = np.sum(fn(*[ember.tensor(x) for x in plus]).numpy() * seed)
            fm = np.sum(fn(*[ember.tensor(x) for x in minus]).numpy() * seed)
            num[idx] = (fp - fm) / (2 * eps)
        np.testing.assert_allclose(grads[k].numpy(), num, rtol=rtol, atol=atol)


@pytest.mark.parametrize("fn,kind", [
    (lambda a, b: a * b + a / b, "nonzero"), (lambda a, b: a ** b, "pos"),
    (lambda a, b: a.atan2(b), "nonzero"), (lambda a, b: a.hypot(b), "nonzero"),
    (lambda a, b: (a.erf() + b.sigmoid()) * a.tanh(), "any"),
    (lambda a, b: a.lerp(b, 0.7).exp(), "any"),
])
def test_gradients_against_finite_differences(fn, kind):
    fd_check(fn, [domain(kind, (2, 3)), domain(kind, (3,))])


# -- bad input --------------------------------------------------------------------------------

BOOL = np.array([True, False, True])
FLT = np.array([1.0, 2.0, 3.0], np.float32)
INT = np.array([1, 0, 3])


def bool_cases():
    cases = []
    for name in ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod",
                 "pow", "powf", "max_pair", "min_pair", "maximum", "minimum", "atan2", "hypot"]:
        cases.append((name, lambda b, f, n=name: getattr(b, n)(f)))
        cases.append((name + "_rhs", lambda b, f, n=name: getattr(f, n)(b)))
    for name in list(FLOAT_MATH) + ["neg", "abs", "sign", "square", "relu", "round", "floor",
                                    "ceil", "trunc", "positive"]:
        cases.append((name, lambda b, f, n=name: getattr(b, n)()))
    cases += [("op+", lambda b, f: b + f), ("op-", lambda b, f: f - b), ("op*", lambda b, f: b * b),
              ("op/", lambda b, f: b / 2), ("op//", lambda b, f: 2 // b), ("op%", lambda b, f: b % 2),
              ("op**", lambda b, f: b ** 2), ("neg", lambda b, f: -b), ("abs", lambda b, f: abs(b)),
              ("pos", lambda b, f: +b), ("clamp", lambda b, f: b.clamp(0, 1)),
              ("clamp_bound", lambda b, f: f.clamp(b, None)), ("lerp", lambda b, f: b.lerp(f, 0.5)),
              ("lerp_w", lambda b, f: f.lerp(f, b)), ("add_scalar", lambda b, f: b.add_scalar(1)),
              ("powi", lambda b, f: b.powi_scalar(2))]
    return cases


@pytest.mark.parametrize("name,fn", bool_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_bool_tensors_raise_kind_error(name, fn):
    b, f = E(BOOL), E(FLT)
    before = snapshot(b, f)
    with pytest.raises(ember.KindError, match=r"not defined for bool tensors .*dtype bool"):
        fn(b, f)
    assert_unchanged([b, f], before)


@pytest.mark.parametrize("fn,exc,match", [
    (lambda f, i: f + E(np.ones((2, 2))), ember.ShapeMismatchError, r"add: shapes \(3,\) and \(2, 2\) do not broadcast"),
    (lambda f, i: f.atan2(E(np.ones(4))), ember.ShapeMismatchError, r"atan2: shapes .* do not broadcast"),
    (lambda f, i: f.clamp(E(np.zeros(2)), 5.0), ember.ShapeMismatchError, r"clamp: shapes .* do not broadcast"),
    (lambda f, i: f.lerp(f, E(np.zeros(2))), ember.ShapeMismatchError, r"lerp: shapes .* do not broadcast"),
    (lambda f, i: f.max_pair(E(np.zeros(4))), ember.ShapeMismatchError, r"max_pair: shapes"),
    (lambda f, i: E(INT) // i, ember.InvalidParameterError, r"floor_divide: integer division by zero"),
    (lambda f, i: E(INT) % i, ember.InvalidParameterError, r"remainder: integer division by zero"),
    (lambda f, i: E(INT).div(i), ember.InvalidParameterError, r"div: integer division by zero"),
    (lambda f, i: E(INT).div_scalar(0), ember.InvalidParameterError, r"div_scalar: integer division by zero"),
    (lambda f, i: E(INT).remainder_scalar(0), ember.InvalidParameterError, r"remainder_scalar: integer division by zero"),
    (lambda f, i: i.fmod(i), ember.InvalidParameterError, r"fmod: integer division by zero"),
    (lambda f, i: 5 // i, ember.InvalidParameterError, r"floor_divide: integer division by zero"),
    (lambda f, i: i ** -1, ember.InvalidParameterError, r"pow: integers to negative integer powers"),
    (lambda f, i: i.powi(E(np.array([1, -1, 2]))), ember.InvalidParameterError, r"powi: integers to negative"),
    (lambda f, i: 2 ** E(np.array([1, -1, 2])), ember.InvalidParameterError, r"pow: integers to negative"),
    (lambda f, i: f.powi(f), ember.KindError, r"powi: other must be an int tensor, got dtype float32"),
    (lambda f, i: f.powi_scalar(2.5), ember.InvalidParameterError, r"powi_scalar: other must be an int, got float 2.5"),
    (lambda f, i: f.clamp(), ember.InvalidParameterError, r"clamp: at least one of min and max"),
    (lambda f, i: f.clamp_min(None), ember.InvalidParameterError, r"clamp_min: min must be"),
    (lambda f, i: f.clamp_max(None), ember.InvalidParameterError, r"clamp_max: max must be"),
    (lambda f, i: f.clamp("a", 1), ember.KindError, r"clamp: min must be a Tensor or a number, got str"),
    (lambda f, i: f + "a", ember.KindError, r"add: other must be a Tensor or a number, got str"),
    (lambda f, i: "a" * f, ember.KindError, r"mul: self must be a Tensor or a number, got str"),
    (lambda f, i: f - [1, 2, 3], ember.KindError, r"sub: other must be a Tensor or a number, got list"),
    (lambda f, i: f + True, ember.KindError, r"add: other is the bool True"),
    (lambda f, i: f * np.ones(3), ember.KindError, r"mul: other must be a Tensor or a number, got ndarray"),
    (lambda f, i: f.add(None), ember.KindError, r"add: other must be a Tensor or a number, got NoneType"),
    (lambda f, i: f.add_scalar(f), ember.KindError, r"add_scalar: other must be a number, got a Tensor"),
    (lambda f, i: f.mul_scalar("2"), ember.KindError, r"mul_scalar: other must be a number, got str '2'"),
    (lambda f, i: f.add_scalar(True), ember.KindError, r"add_scalar: other is the bool True"),
    (lambda f, i: f.fmod_scalar(None), ember.KindError, r"fmod_scalar: scalar must be a number, got NoneType"),
    (lambda f, i: E(np.array([1], np.int8)) + 2 ** 70, ember.InvalidParameterError, r"add: other .* is out of range"),
    (lambda f, i: f + 2 ** 2000, ember.InvalidParameterError, r"add: other .* is out of range"),
    (lambda f, i: f.round(1.5), ember.InvalidParameterError, r"round: decimals must be an int, got float 1.5"),
    (lambda f, i: i.round(2), ember.KindError, r"round: decimals=2 is only defined for float tensors"),
    (lambda f, i: ember.exp(2.0), ember.InvalidParameterError, r"exp: input must be a Tensor, got float"),
    (lambda f, i: ember.abs([1, 2]), ember.InvalidParameterError, r"abs: input must be a Tensor, got list"),
    (lambda f, i: ember.add(1, 2), ember.KindError, r"add: expected at least one Tensor operand"),
    (lambda f, i: pow(f, 2, 3), ember.InvalidParameterError, r"pow: the three-argument pow"),
    (lambda f, i: f.lerp("x", 0.5), ember.KindError, r"lerp: end must be a Tensor or a number"),
])
def test_bad_input_raises_typed_errors(fn, exc, match):
    f = E(FLT)
    i = E(np.array([1, 0, 3]))
    before = snapshot(f, i)
    with pytest.raises(exc, match=match):
        fn(f, i)
    assert_unchanged([f, i], before)


def test_errors_are_also_builtin_exceptions():
    with pytest.raises(TypeError):
        E(BOOL) + E(BOOL)
    with pytest.raises(ValueError):
        E(INT) // 0
    with pytest.raises(ValueError):
        E(FLT) + E(np.ones(2))


def test_inputs_never_change_and_results_are_new():
    a = E(data((3, 4), "float64", special=True))
    b = E(data((4,), "float64", special=True))
    before = snapshot(a, b)
    outs = [a + b, a - b, a * b, a / b, a // b, a % b, a ** b, -a, abs(a), a.exp(), a.clamp(0, 1),
            a.max_pair(b), a.lerp(b, 0.5), a.sign(), a.round(), a.floor(), a.relu(), a.sigmoid()]
    assert_unchanged([a, b], before)
    for o in outs:
        assert not np.shares_memory(o.numpy(), a.numpy())


def test_public_names_are_exported_and_documented():
    from ember.ops import arith, clamps, complex_parts, float_math
    for family in (arith, float_math, clamps, complex_parts):
        for name in family.__all__:
            fn = getattr(ember, name)
            assert fn is getattr(family, name)
            assert fn.__doc__ and ">>> import ember" in fn.__doc__, name
            if name not in ("reciprocal", "complex", "polar"):  # functions, as torch's
                method = getattr(ember.Tensor, name)
                assert getattr(method, "view_of", method) is fn, name  # real, imag: views
    for name in ("add_scalar", "sub_scalar", "mul_scalar", "div_scalar", "remainder_scalar",
                 "fmod_scalar", "powf_scalar", "powi_scalar"):
        assert ">>> import ember" in getattr(ember.Tensor, name).__doc__



def test_module_doctests():
    from ember.ops import arith, clamps, complex_parts, float_math
    for module in (arith, float_math, clamps, complex_parts):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 10 and result.failed == 0, module.__name__

# -- the user guide ---------------------------------------------------------------------------

@pytest.mark.half_precision
def test_docs_math_examples_run():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "math.md")
    result = doctest.testfile(os.path.abspath(path), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 10
    assert result.failed == 0
