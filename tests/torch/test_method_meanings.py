"""An audit of the Tensor methods ember.torch shares with PyTorch: each case calls a method (or an
operator) on ember.torch tensors and on torch tensors holding the same values, and compares what
comes back: its structure (tensor, tuple, list, bool, int, float), and each tensor's shape, dtype
and values; where torch raises, ember must raise one of its typed errors. The gradient cases
compare ``x.grad`` after ``op(x).sum().backward()``.

A difference here is a program that runs and computes something else than PyTorch would; the
fixes live in ember/torch/methods.py.
"""

import copy
import pickle
import types

import numpy as np
import pytest
import torch

import ember
import ember.torch as et
from ember.errors import EmberError

_RNG = np.random.default_rng(26)
_X = _RNG.standard_normal((2, 3)).astype(np.float32)
_X[0, 1] = 0.0  # a zero, for sign/sgn/nonzero/count_nonzero
_Y = _RNG.standard_normal((2, 3)).astype(np.float32)
_P = (_RNG.random((2, 3)) + 0.5).astype(np.float32)  # positive, for log/sqrt/pow
_U = (_RNG.random((2, 3)) * 1.6 - 0.8).astype(np.float32)  # in (-0.8, 0.8), for asin/atanh
_I = np.array([[-7, 0, 5], [3, -2, 8]], dtype=np.int64)
_J = np.array([[2, -3, 4], [-5, 3, 3]], dtype=np.int64)  # no zeros: a divisor
_B = np.array([[True, False, True], [False, False, True]])
_C = np.array([[True, True, False], [False, True, True]])
_V = np.array([1.5, -2.0, 0.5], dtype=np.float32)
_W = np.array([0.25, 3.0, -1.0], dtype=np.float32)
_HALVES = np.array([[0.5, 1.5, 2.5], [-0.5, -1.5, 1.25]], dtype=np.float32)  # round-half-even
_M = _RNG.standard_normal((3, 2)).astype(np.float32)
_NAN = np.array([[1.0, np.nan, -2.0], [0.5, 3.0, np.nan]], dtype=np.float32)
_SQ = _RNG.standard_normal((3, 3)).astype(np.float32)
_DUP = np.array([[3.0, 1.0, 3.0], [2.0, 2.0, 1.0]], dtype=np.float32)  # ties, for stable sorts


def inputs(lib):
    """The test tensors, made by ``lib`` (torch or ember.torch) from the same NumPy values."""
    t = lib.tensor
    return types.SimpleNamespace(
        x=t(_X), y=t(_Y), p=t(_P), u=t(_U), i=t(_I), j=t(_J), b=t(_B), c=t(_C), v=t(_V), w=t(_W),
        i32=t(_I.astype(np.int32)), j32=t(_J.astype(np.int32)), x64=t(_X.astype(np.float64)),
        halves=t(_HALVES), dup=t(_DUP), s=t(2.5), si=t(3), e=t(np.zeros((0, 3), np.float32)),
        col=t(_X[:, :1].copy()), ones=t(np.ones((1, 3, 1), np.float32)),
        m=t(_M), idx=t(np.array([[0, 2], [1, 1]])),
        flat=t(np.array([4, 0, 5])), xt=t(_X.T.copy()).t(), nan=t(_NAN), sq=t(_SQ),
        z=t(np.zeros((2, 3), np.float32)), i8=t(_I.astype(np.int8)),
        u8=t(np.abs(_I).astype(np.uint8)),
    )


# -- comparing results ---------------------------------------------------------------------------

def _dtype_name(d):
    return str(d).replace("torch.", "") if isinstance(d, torch.dtype) else d.name


def canon(value):
    """A structure of plain Python and NumPy values standing for ``value`` (either library's)."""
    if isinstance(value, torch.Tensor):
        return ("tensor", tuple(value.shape), _dtype_name(value.dtype),
                value.detach().resolve_conj().numpy())
    if isinstance(value, ember.Tensor):
        # a plain ember tensor would answer its next method call with ember's meaning
        assert isinstance(value, et.Tensor), f"an ember tensor, not an ember.torch one: {value!r}"
        return ("tensor", tuple(value.shape), value.dtype.name,
                np.asarray(ember.Tensor.numpy(value)))
    if isinstance(value, (torch.dtype, ember.DType)):
        return ("dtype", _dtype_name(value))
    if isinstance(value, tuple):
        named = hasattr(value, "_fields") or type(value).__module__ == "torch.return_types"
        kind = "named tuple" if named else "tuple"
        return (kind, [canon(v) for v in value])
    if isinstance(value, list):
        return ("list", [canon(v) for v in value])
    if isinstance(value, (bool, int, float, complex, str)) or value is None:
        return (type(value).__name__, value)
    raise AssertionError(f"no canonical form for {type(value)}")


def assert_same(ours, theirs, where=""):
    if theirs[0] == "tensor":
        assert ours[0] == "tensor", f"{where}: ember gave {ours[0]}, torch a tensor"
        assert ours[1] == theirs[1], f"{where}: shape {ours[1]} != torch's {theirs[1]}"
        assert ours[2] == theirs[2], f"{where}: dtype {ours[2]} != torch's {theirs[2]}"
        a, b = ours[3], theirs[3]
        if b.dtype.kind in "fc":
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6, equal_nan=True,
                                       err_msg=where)
        else:
            np.testing.assert_array_equal(a, b, err_msg=where)
        return
    assert ours[0] == theirs[0], f"{where}: ember gave {ours[0]}, torch {theirs[0]}"
    if theirs[0] in ("tuple", "named tuple", "list"):
        assert len(ours[1]) == len(theirs[1]), \
            f"{where}: {len(ours[1])} items, torch's {len(theirs[1])}"
        for k, (a, b) in enumerate(zip(ours[1], theirs[1])):
            assert_same(a, b, f"{where}[{k}]")
    elif theirs[0] == "float":
        assert ours[1] == pytest.approx(theirs[1], rel=2e-5, abs=2e-6, nan_ok=True), where
    else:
        assert ours[1] == theirs[1], f"{where}: {ours[1]!r} != torch's {theirs[1]!r}"


def run(fn, lib):
    try:
        return "ok", fn(lib, inputs(lib))
    except Exception as exc:  # noqa: BLE001 - the kind of failure is what is compared
        return "raised", exc


def check(fn):
    kind_t, theirs = run(fn, torch)
    kind_e, ours = run(fn, et)
    if kind_t == "raised":
        assert kind_e == "raised", f"torch raised {theirs!r}; ember returned {ours!r}"
        assert isinstance(ours, EmberError), f"ember raised an untyped {ours!r}"
        return
    if kind_e == "raised":
        raise AssertionError(f"ember raised {ours!r}; torch returned {theirs!r}")
    assert_same(canon(ours), canon(theirs), "result")


# -- the cases: (method name, id, call) ------------------------------------------------------------

CASES = []


def case(name, *calls, marks=()):
    """Cases of method ``name``: each call is ``lambda T, a: ...`` (T the library, a the inputs);
    ``marks``: pytest marks of each (``pytest.mark.layout``: a case about strides)."""
    for k, call in enumerate(calls):
        CASES.append(pytest.param(call, id=f"{name}-{k}", marks=marks))


# unary element-wise, on floats (in their domain) and ints
case("abs", lambda T, a: a.x.abs(), lambda T, a: a.i.abs(), lambda T, a: a.i32.abs())
case("acos", lambda T, a: a.u.acos(), lambda T, a: a.i.acos())
case("acosh", lambda T, a: (a.p + 1).acosh())
case("asin", lambda T, a: a.u.asin())
case("asinh", lambda T, a: a.x.asinh())
case("atan", lambda T, a: a.x.atan(), lambda T, a: a.i.atan())
case("atanh", lambda T, a: a.u.atanh())
case("ceil", lambda T, a: a.x.ceil(), lambda T, a: a.i.ceil())
case("floor", lambda T, a: a.x.floor(), lambda T, a: a.i.floor())
case("trunc", lambda T, a: a.x.trunc(), lambda T, a: a.i.trunc())
case("round", lambda T, a: a.halves.round(), lambda T, a: a.x.round(decimals=1),
     lambda T, a: a.x.round(decimals=-1), lambda T, a: a.i.round())
case("cos", lambda T, a: a.x.cos(), lambda T, a: a.i.cos())
case("cosh", lambda T, a: a.x.cosh())
case("sin", lambda T, a: a.x.sin())
case("sinh", lambda T, a: a.x.sinh())
case("tan", lambda T, a: a.u.tan())
case("tanh", lambda T, a: a.x.tanh(), lambda T, a: a.i.tanh())
case("deg2rad", lambda T, a: a.x.deg2rad())
case("rad2deg", lambda T, a: a.x.rad2deg())
case("erf", lambda T, a: a.x.erf())
case("exp", lambda T, a: a.x.exp(), lambda T, a: a.i.exp(), lambda T, a: a.b.exp())
case("bool operands", *[lambda T, a, n=n: getattr(a.b, n)() for n in (
    "expm1", "log", "log1p", "sqrt", "sin", "cos", "tanh", "sigmoid", "erf", "reciprocal",
    "square", "sgn", "neg", "abs", "relu", "floor", "round")])
case("expm1", lambda T, a: a.x.expm1())
case("log", lambda T, a: a.p.log(), lambda T, a: a.x.log(), lambda T, a: a.j.log())
case("log10", lambda T, a: a.p.log10())
case("log1p", lambda T, a: a.p.log1p())
case("log2", lambda T, a: a.p.log2())
case("neg", lambda T, a: a.x.neg(), lambda T, a: a.i.neg(), lambda T, a: a.b.neg())
case("positive", lambda T, a: a.x.positive())
case("reciprocal", lambda T, a: a.p.reciprocal(), lambda T, a: a.j.reciprocal())
case("relu", lambda T, a: a.x.relu(), lambda T, a: a.i.relu())
case("rsqrt", lambda T, a: a.p.rsqrt())
case("sigmoid", lambda T, a: a.x.sigmoid(), lambda T, a: a.i.sigmoid())
case("sign", lambda T, a: a.x.sign(), lambda T, a: a.i.sign(), lambda T, a: a.b.sign())
case("sgn", lambda T, a: a.x.sgn(), lambda T, a: a.i.sgn())
case("sqrt", lambda T, a: a.p.sqrt(), lambda T, a: a.x.sqrt(), lambda T, a: a.i.sqrt())
case("square", lambda T, a: a.x.square(), lambda T, a: a.i.square(), lambda T, a: a.i32.square())
case("isfinite", lambda T, a: (a.x / 0).isfinite(), lambda T, a: a.i.isfinite())
case("isinf", lambda T, a: (a.x / 0).isinf())
case("isnan", lambda T, a: (a.x / 0).isnan(), lambda T, a: a.i.isnan())
case("logical_not", lambda T, a: a.x.logical_not(), lambda T, a: a.i.logical_not(),
     lambda T, a: a.b.logical_not())
case("bitwise_not", lambda T, a: a.i.bitwise_not(), lambda T, a: a.b.bitwise_not(),
     lambda T, a: a.x.bitwise_not())
case("angle", lambda T, a: a.x.angle())
case("conj", lambda T, a: a.x.conj())
case("real", lambda T, a: a.x.real, lambda T, a: (a.x + 0j).real, lambda T, a: (a.x * 1j).imag)
case("imag", lambda T, a: a.x.imag)

# binary element-wise, tensors and Python numbers, with PyTorch's type promotion
case("add", lambda T, a: a.x.add(a.y), lambda T, a: a.x.add(2), lambda T, a: a.x.add(a.y, alpha=2),
     lambda T, a: a.i.add(a.x), lambda T, a: a.i.add(1.5), lambda T, a: a.i32.add(a.i),
     lambda T, a: a.i32.add(2), lambda T, a: a.b.add(a.c), lambda T, a: a.b.add(1),
     lambda T, a: a.x.add(a.x64), lambda T, a: a.x.add(a.s), lambda T, a: a.i32.add(a.si),
     lambda T, a: a.b.add(a.c, alpha=2), lambda T, a: a.x.add(a.b, alpha=2),
     lambda T, a: a.b.add(a.si), lambda T, a: a.b.add(2.5), lambda T, a: a.x.add(True),
     lambda T, a: a.x.add(a.v), lambda T, a: a.x.add(a.m))
case("sub", lambda T, a: a.x.sub(a.y), lambda T, a: a.x.sub(a.y, alpha=0.5),
     lambda T, a: a.i.sub(3), lambda T, a: a.b.sub(a.c), lambda T, a: a.x.sub(a.b),
     lambda T, a: a.i.sub(a.j, alpha=2), lambda T, a: a.b.sub(1),
     lambda T, a: a.x.sub(a.b, alpha=2),
     lambda T, a: a.i.sub(a.j, alpha=True))
case("subtract", lambda T, a: a.x.subtract(a.y, alpha=2))
case("multiply", lambda T, a: a.x.multiply(a.y), lambda T, a: a.b.multiply(a.c))
case("mul", lambda T, a: a.x.mul(a.y), lambda T, a: a.x.mul(2), lambda T, a: a.i.mul(a.j),
     lambda T, a: a.b.mul(a.c), lambda T, a: a.i32.mul(0.5))
case("div", lambda T, a: a.x.div(a.y), lambda T, a: a.i.div(a.j), lambda T, a: a.i.div(2),
     lambda T, a: a.i.div(a.j, rounding_mode="floor"),
     lambda T, a: a.i.div(a.j, rounding_mode="trunc"),
     lambda T, a: a.x.div(a.y, rounding_mode="floor"),
     lambda T, a: a.x.div(a.y, rounding_mode="trunc"), lambda T, a: a.x.div(a.y, rounding_mode="x"))
case("divide", lambda T, a: a.i.divide(a.j), lambda T, a: a.x.divide(2))
case("true_divide", lambda T, a: a.i.true_divide(a.j))
case("floor_divide", lambda T, a: a.x.floor_divide(a.y), lambda T, a: a.i.floor_divide(a.j),
     lambda T, a: a.i.floor_divide(2), lambda T, a: a.x.floor_divide(0.7))
case("remainder", lambda T, a: a.x.remainder(a.y), lambda T, a: a.i.remainder(a.j),
     lambda T, a: a.i.remainder(3), lambda T, a: a.x.remainder(-0.7))
case("fmod", lambda T, a: a.x.fmod(a.y), lambda T, a: a.i.fmod(a.j), lambda T, a: a.i.fmod(3),
     lambda T, a: a.x.fmod(-0.7))
case("pow", lambda T, a: a.x.pow(2), lambda T, a: a.p.pow(a.y), lambda T, a: a.p.pow(0.5),
     lambda T, a: a.i.pow(2), lambda T, a: a.i.pow(0.5), lambda T, a: a.i.pow(a.j.abs()),
     lambda T, a: a.x.pow(3), lambda T, a: a.i32.pow(2), lambda T, a: a.x.pow(a.i))
case("atan2", lambda T, a: a.x.atan2(a.y), lambda T, a: a.i.atan2(a.j))
case("hypot", lambda T, a: a.x.hypot(a.y))
case("maximum", lambda T, a: a.x.maximum(a.y), lambda T, a: a.i.maximum(a.j),
     lambda T, a: a.i.maximum(a.x))
case("minimum", lambda T, a: a.x.minimum(a.y), lambda T, a: a.i.minimum(a.j))
case("lerp", lambda T, a: a.x.lerp(a.y, 0.25), lambda T, a: a.x.lerp(a.y, a.p))
case("eq", lambda T, a: a.x.eq(a.y), lambda T, a: a.x.eq(0), lambda T, a: a.i.eq(a.j),
     lambda T, a: a.i.eq(5.0))
case("ne", lambda T, a: a.x.ne(a.y), lambda T, a: a.i.ne(0))
case("not_equal", lambda T, a: a.x.not_equal(a.y))
case("lt", lambda T, a: a.x.lt(a.y), lambda T, a: a.x.lt(0), lambda T, a: a.i.lt(0.5))
case("le", lambda T, a: a.x.le(a.y), lambda T, a: a.i.le(a.j))
case("gt", lambda T, a: a.x.gt(a.y), lambda T, a: a.x.gt(0))
case("ge", lambda T, a: a.x.ge(a.y), lambda T, a: a.i.ge(-2))
case("greater", lambda T, a: a.x.greater(a.y))
case("greater_equal", lambda T, a: a.x.greater_equal(0.1))
case("logical_and", lambda T, a: a.b.logical_and(a.c), lambda T, a: a.x.logical_and(a.i))
case("logical_or", lambda T, a: a.b.logical_or(a.c), lambda T, a: a.x.logical_or(a.y))
case("logical_xor", lambda T, a: a.b.logical_xor(a.c), lambda T, a: a.i.logical_xor(a.j))
case("bitwise_and", lambda T, a: a.i.bitwise_and(a.j), lambda T, a: a.b.bitwise_and(a.c),
     lambda T, a: a.i.bitwise_and(6), lambda T, a: a.x.bitwise_and(a.y))
case("bitwise_or", lambda T, a: a.i.bitwise_or(a.j), lambda T, a: a.b.bitwise_or(a.c))
case("bitwise_xor", lambda T, a: a.i.bitwise_xor(a.j), lambda T, a: a.b.bitwise_xor(a.c))
case("bitwise_left_shift", lambda T, a: a.i.bitwise_left_shift(a.j.abs()),
     lambda T, a: a.i.bitwise_left_shift(2))
case("bitwise_right_shift", lambda T, a: a.i.bitwise_right_shift(a.j.abs()),
     lambda T, a: a.i.bitwise_right_shift(1))
case("isclose", lambda T, a: a.x.isclose(a.x + 1e-7), lambda T, a: a.x.isclose(a.y, atol=1.0))
case("allclose", lambda T, a: a.x.allclose(a.x + 1e-7), lambda T, a: a.x.allclose(a.y))
case("equal", lambda T, a: a.x.equal(a.x.clone()), lambda T, a: a.x.equal(a.y),
     lambda T, a: a.x.equal(a.v))
case("where", lambda T, a: a.x.where(a.b, a.y), lambda T, a: a.x.where(a.b, 0.0),
     lambda T, a: a.i.where(a.b, a.x))
case("masked_fill", lambda T, a: a.x.masked_fill(a.b, 0.5), lambda T, a: a.i.masked_fill(a.b, 9),
     lambda T, a: a.x.masked_fill(a.b, T.tensor(-1.0)))
case("clamp", lambda T, a: a.x.clamp(-0.5, 0.5), lambda T, a: a.x.clamp(min=0.0),
     lambda T, a: a.x.clamp(max=0.0), lambda T, a: a.x.clamp(a.y, a.p),
     lambda T, a: a.x.clamp(min=a.y), lambda T, a: a.i.clamp(-1, 4), lambda T, a: a.i.clamp(0.5),
     lambda T, a: a.x.clamp())
case("clamp_min", lambda T, a: a.x.clamp_min(0.1), lambda T, a: a.i.clamp_min(0))
case("clamp_max", lambda T, a: a.x.clamp_max(0.1), lambda T, a: a.x.clamp_max(a.y))

# matrix products
case("matmul", lambda T, a: a.x.matmul(a.m), lambda T, a: a.v.matmul(a.w),
     lambda T, a: a.x.matmul(a.v), lambda T, a: a.v.matmul(a.m), lambda T, a: a.x.matmul(a.y))
case("dot", lambda T, a: a.v.dot(a.w), lambda T, a: a.x.dot(a.y))
case("inner", lambda T, a: a.v.inner(a.w), lambda T, a: a.x.inner(a.y),
     lambda T, a: a.ones.inner(a.x), lambda T, a: a.x.inner(a.s), lambda T, a: a.x.inner(a.m))
case("outer", lambda T, a: a.v.outer(a.w))
case("cross", lambda T, a: a.x.cross(a.y), lambda T, a: a.x.cross(a.y, dim=1),
     lambda T, a: a.v.cross(a.w))

# reductions
case("sum", lambda T, a: a.x.sum(), lambda T, a: a.x.sum(0), lambda T, a: a.x.sum(1, keepdim=True),
     lambda T, a: a.x.sum((0, 1)), lambda T, a: a.x.sum(dim=[-1]), lambda T, a: a.i32.sum(),
     lambda T, a: a.i32.sum(1), lambda T, a: a.b.sum(), lambda T, a: a.x.sum(dtype=T.float64),
     lambda T, a: a.e.sum(0), lambda T, a: a.s.sum(), lambda T, a: a.x.sum(2))
case("mean", lambda T, a: a.x.mean(), lambda T, a: a.x.mean(0), lambda T, a: a.x.mean(1, True),
     lambda T, a: a.x.mean((0, 1)), lambda T, a: a.i.mean(), lambda T, a: a.i.mean(dtype=T.float32),
     lambda T, a: a.e.mean(1))
case("prod", lambda T, a: a.x.prod(), lambda T, a: a.x.prod(1), lambda T, a: a.x.prod(1, True),
     lambda T, a: a.i32.prod(), lambda T, a: a.b.prod(0), lambda T, a: a.x.prod(dtype=T.float64))
case("all", lambda T, a: a.b.all(), lambda T, a: a.b.all(1),
     lambda T, a: a.b.all(dim=1, keepdim=True),
     lambda T, a: a.x.all(), lambda T, a: a.i.all(0), lambda T, a: a.b.all((0, 1)))
case("any", lambda T, a: a.b.any(), lambda T, a: a.b.any(0), lambda T, a: a.b.any(1, keepdim=True),
     lambda T, a: a.x.any(1), lambda T, a: a.i.any())
case("max", lambda T, a: a.x.max(), lambda T, a: a.x.max(1), lambda T, a: a.x.max(1, keepdim=True),
     lambda T, a: a.x.max(a.y), lambda T, a: a.i.max(), lambda T, a: a.x.max(dim=0),
     lambda T, a: a.e.max())
case("min", lambda T, a: a.x.min(), lambda T, a: a.x.min(0), lambda T, a: a.x.min(1, True),
     lambda T, a: a.x.min(a.y), lambda T, a: a.i.min(1))
case("argmax", lambda T, a: a.x.argmax(), lambda T, a: a.x.argmax(1),
     lambda T, a: a.x.argmax(1, keepdim=True), lambda T, a: a.x.argmax(dim=0),
     lambda T, a: a.dup.argmax(1))
case("argmin", lambda T, a: a.x.argmin(), lambda T, a: a.x.argmin(0),
     lambda T, a: a.dup.argmin(1))
case("median", lambda T, a: a.x.median(), lambda T, a: a.x.median(1),
     lambda T, a: a.x.median(1, keepdim=True), lambda T, a: a.dup.median(0))
case("kthvalue", lambda T, a: a.x.kthvalue(2), lambda T, a: a.x.kthvalue(1, 0),
     lambda T, a: a.x.kthvalue(2, 1, True))
case("count_nonzero", lambda T, a: a.x.count_nonzero(), lambda T, a: a.x.count_nonzero(1),
     lambda T, a: a.i.count_nonzero(0))
case("norm", lambda T, a: a.x.norm(), lambda T, a: a.x.norm(1), lambda T, a: a.x.norm(p=1),
     lambda T, a: a.x.norm(dim=1), lambda T, a: a.x.norm(2, 1, True),
     lambda T, a: a.x.norm(float("inf")), lambda T, a: a.x.norm(p="fro"))
case("var", lambda T, a: a.x.var(), lambda T, a: a.x.var(1),
     lambda T, a: a.x.var(1, unbiased=False),
     lambda T, a: a.x.var(1, keepdim=True), lambda T, a: a.x.var(0, correction=0),
     lambda T, a: a.x.var(dim=(0, 1)))
case("cumsum", lambda T, a: a.x.cumsum(1), lambda T, a: a.x.cumsum(dim=0),
     lambda T, a: a.i32.cumsum(1), lambda T, a: a.b.cumsum(0),
     lambda T, a: a.x.cumsum(1, dtype=T.float64), lambda T, a: a.x.cumsum(-1))
case("cumprod", lambda T, a: a.x.cumprod(1), lambda T, a: a.i32.cumprod(0),
     lambda T, a: a.x.cumprod(0, dtype=T.float64))
case("cummax", lambda T, a: a.x.cummax(1), lambda T, a: a.dup.cummax(1))
case("cummin", lambda T, a: a.x.cummin(0), lambda T, a: a.dup.cummin(1))
case("softmax", lambda T, a: a.x.softmax(1), lambda T, a: a.x.softmax(dim=0),
     lambda T, a: a.x.softmax(), lambda T, a: a.i.softmax(1, T.float32),
     lambda T, a: a.x.softmax(-1, dtype=T.float64), lambda T, a: a.i.softmax(1))
case("log_softmax", lambda T, a: a.x.log_softmax(1), lambda T, a: a.x.log_softmax(dim=0),
     lambda T, a: a.x.log_softmax(1, T.float64))

# sorting and selection
case("sort", lambda T, a: a.x.sort(), lambda T, a: a.x.sort(0),
     lambda T, a: a.x.sort(descending=True), lambda T, a: a.dup.sort(stable=True),
     lambda T, a: a.dup.sort(dim=1, descending=True, stable=True), lambda T, a: a.i.sort(0))
case("argsort", lambda T, a: a.x.argsort(), lambda T, a: a.x.argsort(0),
     lambda T, a: a.x.argsort(descending=True), lambda T, a: a.dup.argsort(stable=True),
     lambda T, a: a.dup.argsort(dim=1, descending=True, stable=True))
case("topk", lambda T, a: a.x.topk(2), lambda T, a: a.x.topk(1, 0),
     lambda T, a: a.x.topk(2, largest=False), lambda T, a: a.x.topk(2, sorted=True),
     lambda T, a: a.x.topk(2, dim=1, largest=True, sorted=True), lambda T, a: a.x.topk(4))
case("nonzero", lambda T, a: a.x.nonzero(), lambda T, a: a.x.nonzero(as_tuple=True),
     lambda T, a: a.v.nonzero(), lambda T, a: a.e.nonzero())
case("argwhere", lambda T, a: a.x.argwhere(), lambda T, a: a.b.argwhere())
case("gather", lambda T, a: a.x.gather(1, a.idx), lambda T, a: a.x.gather(0, a.idx))
case("take", lambda T, a: a.x.take(a.flat), lambda T, a: a.x.take(a.idx),
     lambda T, a: a.x.take(-a.flat - 1), lambda T, a: a.x.take(a.flat + 3))

# shape and movement
case("squeeze", lambda T, a: a.ones.squeeze(), lambda T, a: a.ones.squeeze(0),
     lambda T, a: a.ones.squeeze(1), lambda T, a: a.ones.squeeze((0, 2)),
     lambda T, a: a.ones.squeeze(-1), lambda T, a: a.x.squeeze())
case("unsqueeze", lambda T, a: a.x.unsqueeze(0), lambda T, a: a.x.unsqueeze(-1),
     lambda T, a: a.x.unsqueeze(2), lambda T, a: a.s.unsqueeze(0), lambda T, a: a.x.unsqueeze(4))
case("flip", lambda T, a: a.x.flip(0), lambda T, a: a.x.flip((0, 1)), lambda T, a: a.x.flip([1]),
     lambda T, a: a.x.flip(0, 1), lambda T, a: a.x.flip(-1))
case("permute", lambda T, a: a.x.permute(1, 0), lambda T, a: a.x.permute((1, 0)),
     lambda T, a: a.ones.permute(2, 0, 1), lambda T, a: a.x.permute([-1, 0]),
     lambda T, a: a.x.permute(0))
case("expand", lambda T, a: a.col.expand(2, 4), lambda T, a: a.col.expand(-1, 4),
     lambda T, a: a.x.expand(4, 2, 3), lambda T, a: a.x.expand((3, -1, -1)),
     lambda T, a: a.col.expand([2, 5]), lambda T, a: a.x.expand(2, 4))
case("expand_as", lambda T, a: a.col.expand_as(a.x), lambda T, a: a.v.expand_as(a.x))
case("view", lambda T, a: a.x.view(3, 2), lambda T, a: a.x.view(-1), lambda T, a: a.x.view((3, 2)),
     lambda T, a: a.x.view(1, -1, 3), lambda T, a: a.x.view(4, 2))
case("view_as", lambda T, a: a.x.view_as(a.m))
case("reshape", lambda T, a: a.x.reshape(3, 2), lambda T, a: a.x.reshape(-1),
     lambda T, a: a.x.reshape((6,)), lambda T, a: a.x.reshape([3, -1]),
     lambda T, a: a.xt.reshape(-1),
     lambda T, a: a.e.reshape(0, 5), lambda T, a: a.x.reshape(5))
case("reshape_as", lambda T, a: a.x.reshape_as(a.m))
case("transpose", lambda T, a: a.x.transpose(0, 1), lambda T, a: a.x.transpose(-1, -2),
     lambda T, a: a.ones.transpose(0, 2), lambda T, a: a.x.transpose(0, 2))
case("t", lambda T, a: a.x.t(), lambda T, a: a.v.t(), lambda T, a: a.ones.t(),
     lambda T, a: a.s.t())
case("T", lambda T, a: a.x.T)
case("mT", lambda T, a: a.x.mT, lambda T, a: a.ones.mT)
case("narrow", lambda T, a: a.x.narrow(1, 0, 2), lambda T, a: a.x.narrow(0, 1, 1),
     lambda T, a: a.x.narrow(-1, 1, 2), lambda T, a: a.x.narrow(1, 2, 2))
case("select", lambda T, a: a.x.select(0, 1), lambda T, a: a.x.select(1, -1),
     lambda T, a: a.x.select(1, 3))
case("unbind", lambda T, a: a.x.unbind(), lambda T, a: a.x.unbind(1), lambda T, a: a.x.unbind(-1))
case("unflatten", lambda T, a: a.x.unflatten(1, (3, 1)), lambda T, a: a.x.unflatten(1, (-1, 1)),
     lambda T, a: a.x.unflatten(0, (1, 2)))
case("unfold", lambda T, a: a.x.unfold(1, 2, 1), lambda T, a: a.x.unfold(0, 1, 1))
case("repeat", lambda T, a: a.x.repeat(2, 1), lambda T, a: a.x.repeat((1, 2)),
     lambda T, a: a.x.repeat(2, 1, 1), lambda T, a: a.v.repeat(2), lambda T, a: a.x.repeat(2),
     lambda T, a: a.x.repeat([3, 1]))
case("repeat_interleave", lambda T, a: a.x.repeat_interleave(2),
     lambda T, a: a.x.repeat_interleave(2, dim=0), lambda T, a: a.x.repeat_interleave(2, 1),
     lambda T, a: a.x.repeat_interleave(T.tensor([1, 2]), dim=0))
case("tril", lambda T, a: a.x.tril(), lambda T, a: a.x.tril(-1), lambda T, a: a.x.tril(1),
     lambda T, a: a.v.tril())
case("triu", lambda T, a: a.x.triu(), lambda T, a: a.x.triu(1), lambda T, a: a.x.triu(diagonal=-1))
case("clone", lambda T, a: a.x.clone(), lambda T, a: a.xt.clone())
case("contiguous", lambda T, a: a.xt.contiguous(), lambda T, a: a.xt.contiguous().is_contiguous())
case("detach", lambda T, a: a.x.detach())
case("cov", lambda T, a: a.x.cov(), lambda T, a: a.x.cov(correction=0), lambda T, a: a.v.cov(),
     lambda T, a: a.x.cov(fweights=T.tensor([1, 2, 3])),
     lambda T, a: a.x.cov(aweights=a.p[0]), lambda T, a: a.x.cov(fweights=T.tensor([2, 1, 1]),
                                                                 aweights=a.p[1], correction=0),
     lambda T, a: a.i.cov(), lambda T, a: a.x.cov(fweights=T.tensor([1, 2])),
     lambda T, a: a.ones.cov())

# metadata and Python values
case("size", lambda T, a: a.x.size(), lambda T, a: a.x.size(1), lambda T, a: a.x.size(-1),
     lambda T, a: a.x.size(dim=0), lambda T, a: a.x.size(2))
case("shape", lambda T, a: a.x.shape, lambda T, a: a.s.shape, lambda T, a: a.x.shape[1:])
case("dim", lambda T, a: a.x.dim(), lambda T, a: a.s.dim())
case("ndim", lambda T, a: a.x.ndim)
case("numel", lambda T, a: a.x.numel(), lambda T, a: a.e.numel())
case("dtype", lambda T, a: a.x.dtype, lambda T, a: a.i32.dtype, lambda T, a: a.b.dtype)
case("is_contiguous", lambda T, a: a.x.is_contiguous())
case("item", lambda T, a: a.s.item(), lambda T, a: a.si.item(), lambda T, a: a.b[0, 0].item(),
     lambda T, a: a.x[:1, :1].item(), lambda T, a: a.x.item())
case("tolist", lambda T, a: a.x.tolist(), lambda T, a: a.i.tolist(), lambda T, a: a.s.tolist(),
     lambda T, a: a.b.tolist())
case("to", lambda T, a: a.x.to(T.float64), lambda T, a: a.x.to(dtype=T.int32),
     lambda T, a: a.i.to(a.x), lambda T, a: a.x.to("cpu"), lambda T, a: a.x.to("cpu", T.float64))
case("type", lambda T, a: a.x.type(), lambda T, a: a.i.type(), lambda T, a: a.x.type(T.float64),
     lambda T, a: a.x.type("torch.LongTensor"))

# operators
case("__getitem__", lambda T, a: a.x[1], lambda T, a: a.x[:, 1], lambda T, a: a.x[0, -1],
     lambda T, a: a.x[[1, 0]], lambda T, a: a.x[:, [2, 0, 0]], lambda T, a: a.x[a.b],
     lambda T, a: a.x[a.flat % 2], lambda T, a: a.x[None, ..., 1], lambda T, a: a.x[..., None],
     lambda T, a: a.x[1:, ::2], lambda T, a: a.x[a.b[0]], lambda T, a: a.x[[0, 1], [2, 0]],
     lambda T, a: a.x[5], lambda T, a: a.x[:, 3], lambda T, a: a.x[-3])
case("__len__", lambda T, a: len(a.x), lambda T, a: len(a.e), lambda T, a: len(a.s))
case("__iter__", lambda T, a: list(a.x), lambda T, a: list(a.v), lambda T, a: list(a.s))
case("__bool__", lambda T, a: bool(a.s), lambda T, a: bool(a.x[0, 1]), lambda T, a: bool(a.x))
case("__contains__", lambda T, a: float(_X[1, 2]) in a.x, lambda T, a: 99.0 in a.x,
     lambda T, a: 5 in a.i, lambda T, a: a.x[0, 0] in a.x, lambda T, a: "a" in a.x)
case("__float__", lambda T, a: float(a.s), lambda T, a: float(a.si), lambda T, a: float(a.x))
case("__int__", lambda T, a: int(a.s), lambda T, a: int(a.si))
case("__index__", lambda T, a: [10, 20, 30, 40][a.si])
case("__abs__", lambda T, a: abs(a.x), lambda T, a: abs(a.i))
case("__neg__", lambda T, a: -a.x, lambda T, a: -a.i)
case("__pos__", lambda T, a: +a.x)
case("__invert__", lambda T, a: ~a.b, lambda T, a: ~a.i, lambda T, a: ~a.x)
case("__add__", lambda T, a: a.x + a.y, lambda T, a: a.i + 1.5, lambda T, a: a.i32 + 2,
     lambda T, a: a.b + a.c, lambda T, a: a.b + 1, lambda T, a: a.i32 + a.i,
     lambda T, a: a.x + True)
case("__radd__", lambda T, a: 1 + a.x, lambda T, a: 0.5 + a.i, lambda T, a: 1 + a.b,
     lambda T, a: True + a.b)
case("__sub__", lambda T, a: a.x - a.y, lambda T, a: a.i - 1, lambda T, a: a.b - a.c,
     lambda T, a: a.x - a.b)
case("__rsub__", lambda T, a: 1 - a.x, lambda T, a: 2 - a.i, lambda T, a: 1.5 - a.i32,
     lambda T, a: 1 - a.b)
case("__mul__", lambda T, a: a.x * a.y, lambda T, a: a.i * 2.5, lambda T, a: a.b * a.c)
case("__rmul__", lambda T, a: 3 * a.i32, lambda T, a: 2.5 * a.b, lambda T, a: True * a.b)
case("__truediv__", lambda T, a: a.x / a.y, lambda T, a: a.i / a.j, lambda T, a: a.i / 2,
     lambda T, a: a.i32 / a.j32, lambda T, a: a.b / 2, lambda T, a: a.b / a.c,
     lambda T, a: a.x / a.b)
case("__rtruediv__", lambda T, a: 1 / a.p, lambda T, a: 6 / a.j, lambda T, a: 1 / a.b)
case("__floordiv__", lambda T, a: a.x // a.y, lambda T, a: a.i // a.j, lambda T, a: a.i // 2,
     lambda T, a: a.x // 0.3)
case("__rfloordiv__", lambda T, a: 7 // a.j, lambda T, a: 1.0 // a.p)
case("__mod__", lambda T, a: a.x % a.y, lambda T, a: a.i % a.j, lambda T, a: a.i % 3,
     lambda T, a: a.x % -0.7, lambda T, a: a.i % -3)
case("__rmod__", lambda T, a: 7 % a.j, lambda T, a: 1.5 % a.p)
case("__pow__", lambda T, a: a.x ** 2, lambda T, a: a.i ** 2, lambda T, a: a.i ** 0.5,
     lambda T, a: a.p ** a.y, lambda T, a: a.x ** 3, lambda T, a: a.i32 ** 2,
     lambda T, a: a.x ** a.i,
     lambda T, a: a.i ** -1)
case("__rpow__", lambda T, a: 2 ** a.x, lambda T, a: 2 ** a.i.abs(), lambda T, a: 2.0 ** a.i)
case("__matmul__", lambda T, a: a.x @ a.m, lambda T, a: a.v @ a.w, lambda T, a: a.x @ a.v,
     lambda T, a: a.v @ a.m, lambda T, a: a.s @ a.s)
case("__and__", lambda T, a: a.b & a.c, lambda T, a: a.i & a.j, lambda T, a: a.i & 3)
case("__or__", lambda T, a: a.b | a.c, lambda T, a: a.i | 1)
case("__xor__", lambda T, a: a.b ^ a.c, lambda T, a: a.i ^ a.j)
case("__rand__", lambda T, a: 6 & a.i)
case("__ror__", lambda T, a: True | a.b)
case("__rxor__", lambda T, a: 5 ^ a.i)
case("__lshift__", lambda T, a: a.i << 2, lambda T, a: a.i << a.j.abs())
case("__rshift__", lambda T, a: a.i >> 1, lambda T, a: a.i >> a.j.abs())
case("__rlshift__", lambda T, a: 1 << a.j.abs())
case("__rrshift__", lambda T, a: 64 >> a.j.abs())
case("__eq__", lambda T, a: a.x == a.y, lambda T, a: a.x == 0, lambda T, a: a.i == 5,
     lambda T, a: a.x == a.v)
case("__ne__", lambda T, a: a.x != a.y, lambda T, a: a.i != 0.0)
case("__lt__", lambda T, a: a.x < a.y, lambda T, a: a.x < 0, lambda T, a: 0 < a.x)
case("__le__", lambda T, a: a.x <= 0.1, lambda T, a: a.i <= a.j)
case("__gt__", lambda T, a: a.x > a.y, lambda T, a: a.i > 2.5)
case("__ge__", lambda T, a: a.x >= 0, lambda T, a: a.b >= a.c)


# PyTorch's keyword names, as programs spell them
case("sum", lambda T, a: a.x.sum(dim=1, keepdim=True))
case("max", lambda T, a: a.x.max(dim=1, keepdim=True), lambda T, a: a.x.max(other=a.y))
case("min", lambda T, a: a.x.min(dim=0), lambda T, a: a.x.min(other=a.y))
case("transpose", lambda T, a: a.x.transpose(dim0=0, dim1=1))
case("squeeze", lambda T, a: a.ones.squeeze(dim=0), lambda T, a: a.x.squeeze(dim=(0,)))
case("unsqueeze", lambda T, a: a.x.unsqueeze(dim=0))
case("flip", lambda T, a: a.x.flip(dims=[0]), lambda T, a: a.x.flip(0, dims=[0]))
case("permute", lambda T, a: a.x.permute(dims=(1, 0)), lambda T, a: a.x.permute())
case("expand", lambda T, a: a.col.expand(size=(2, 3)))
case("reshape", lambda T, a: a.x.reshape(shape=(3, 2)))
case("view", lambda T, a: a.x.view(size=(3, 2)))
case("cumsum", lambda T, a: a.x.cumsum(dim=1))
case("cumprod", lambda T, a: a.x.cumprod(dim=1))
case("argmax", lambda T, a: a.x.argmax(dim=1), lambda T, a: a.x.argmax(keepdim=True))
case("argmin", lambda T, a: a.x.argmin(dim=1, keepdim=True))
case("topk", lambda T, a: a.x.topk(k=2, dim=1), lambda T, a: a.x.topk(2, dim=1, largest=False))
case("sort", lambda T, a: a.x.sort(dim=1, descending=True))
case("argsort", lambda T, a: a.x.argsort(dim=1, descending=True))
case("clamp", lambda T, a: a.x.clamp(min=-0.1, max=0.1))
case("pow", lambda T, a: a.x.pow(exponent=2))
case("add", lambda T, a: a.x.add(other=a.y))
case("mul", lambda T, a: a.x.mul(other=a.y))
case("sub", lambda T, a: a.x.sub(other=a.y))
case("div", lambda T, a: a.x.div(other=a.y))
case("gather", lambda T, a: a.x.gather(dim=1, index=a.idx))
case("masked_fill", lambda T, a: a.x.masked_fill(mask=a.b, value=1.0))
case("where", lambda T, a: a.x.where(condition=a.b, other=a.y))
case("narrow", lambda T, a: a.x.narrow(dim=1, start=0, length=2))
case("select", lambda T, a: a.x.select(dim=1, index=0))
case("repeat_interleave", lambda T, a: a.x.repeat_interleave(repeats=2, dim=0))
case("softmax", lambda T, a: a.x.softmax(dim=-1))
case("log_softmax", lambda T, a: a.x.log_softmax(dim=-1))
case("norm", lambda T, a: a.x.norm(p=2, dim=1, keepdim=True))
case("var", lambda T, a: a.x.var(dim=1, unbiased=False, keepdim=True))
case("mean", lambda T, a: a.x.mean(dim=(0, 1), keepdim=True))
case("prod", lambda T, a: a.x.prod(dim=1, keepdim=True))
case("all", lambda T, a: a.b.all(dim=1))
case("any", lambda T, a: a.b.any(dim=0, keepdim=True))
case("tril", lambda T, a: a.x.tril(diagonal=1))
case("triu", lambda T, a: a.x.triu(diagonal=1))
case("unflatten", lambda T, a: a.x.unflatten(dim=1, sizes=(3, 1)))
case("unfold", lambda T, a: a.x.unfold(dimension=1, size=2, step=1))
case("lerp", lambda T, a: a.x.lerp(end=a.y, weight=0.5))
case("atan2", lambda T, a: a.x.atan2(other=a.y))
case("matmul", lambda T, a: a.x.matmul(other=a.m))
case("eq", lambda T, a: a.x.eq(other=a.y))
case("allclose", lambda T, a: a.x.allclose(other=a.y, rtol=1.0, atol=1.0))
case("isclose", lambda T, a: a.x.isclose(other=a.y, rtol=0.5, atol=0.5, equal_nan=True))
case("to", lambda T, a: a.x.to(dtype=T.float64))
case("kthvalue", lambda T, a: a.x.kthvalue(k=2, dim=1))
case("median", lambda T, a: a.x.median(dim=1))
case("cummax", lambda T, a: a.x.cummax(dim=1))
case("cummin", lambda T, a: a.x.cummin(dim=1))
case("count_nonzero", lambda T, a: a.x.count_nonzero(dim=1))
case("take", lambda T, a: a.x.take(index=a.flat))
case("inner", lambda T, a: a.v.inner(other=a.w))
case("cross", lambda T, a: a.x.cross(other=a.y, dim=1))
case("dot", lambda T, a: a.v.dot(tensor=a.w))
case("outer", lambda T, a: a.v.outer(vec2=a.w))
case("expand_as", lambda T, a: a.col.expand_as(other=a.x))
case("view_as", lambda T, a: a.x.view_as(other=a.m))
case("reshape_as", lambda T, a: a.x.reshape_as(other=a.m))
case("maximum", lambda T, a: a.x.maximum(other=a.y))
case("minimum", lambda T, a: a.x.minimum(other=a.y))
case("fmod", lambda T, a: a.x.fmod(other=0.5))
case("remainder", lambda T, a: a.x.remainder(other=0.5))
case("floor_divide", lambda T, a: a.x.floor_divide(other=0.5))
case("clamp_min", lambda T, a: a.x.clamp_min(min=0))
case("clamp_max", lambda T, a: a.x.clamp_max(max=0))
case("hypot", lambda T, a: a.x.hypot(other=a.y))
case("bitwise_and", lambda T, a: a.i.bitwise_and(other=a.j))
case("logical_and", lambda T, a: a.x.logical_and(other=a.y))
case("lt", lambda T, a: a.x.lt(other=0))
case("ge", lambda T, a: a.x.ge(other=a.y))
case("equal", lambda T, a: a.x.equal(other=a.y))
case("unbind", lambda T, a: a.x.unbind(dim=1))
case("repeat", lambda T, a: a.x.repeat(repeats=(2, 1)))
case("size", lambda T, a: a.x.size(dim=1))
case("nonzero", lambda T, a: a.x.nonzero(as_tuple=False))

# 0-d tensors (dim 0 and -1 name their one "dim") and size-0 ones
case("sum", lambda T, a: a.s.sum(0), lambda T, a: a.s.sum(-1), lambda T, a: a.e.sum(),
     lambda T, a: a.e.sum(1))
case("mean", lambda T, a: a.s.mean(0), lambda T, a: a.e.mean())
case("argmax", lambda T, a: a.s.argmax(0), lambda T, a: a.e.argmax(1), lambda T, a: a.e.argmax())
case("max", lambda T, a: a.s.max(0), lambda T, a: a.e.max(1), lambda T, a: a.e.max(0))
case("min", lambda T, a: a.e.min())
case("softmax", lambda T, a: a.s.softmax(0), lambda T, a: a.e.softmax(0))
case("cumsum", lambda T, a: a.s.cumsum(0), lambda T, a: a.e.cumsum(0))
case("unsqueeze", lambda T, a: a.s.unsqueeze(-1))
case("squeeze", lambda T, a: a.s.squeeze())
case("flip", lambda T, a: a.s.flip(0), lambda T, a: a.s.flip(1), lambda T, a: a.e.flip(0))
case("permute", lambda T, a: a.s.permute(()), lambda T, a: a.s.permute(0))
case("expand", lambda T, a: a.s.expand(3), lambda T, a: a.e.expand(2, 0, 3))
case("reshape", lambda T, a: a.s.reshape(1, 1), lambda T, a: a.e.reshape(3, 0))
case("view", lambda T, a: a.s.view(-1), lambda T, a: a.e.view(-1, 0))
case("transpose", lambda T, a: a.s.transpose(0, -1), lambda T, a: a.s.transpose(0, 1))
case("sort", lambda T, a: a.s.sort(), lambda T, a: a.e.sort(0))
case("topk", lambda T, a: a.s.topk(1), lambda T, a: a.e.topk(0))
case("norm", lambda T, a: a.s.norm(), lambda T, a: a.e.norm())
case("var", lambda T, a: a.s.var(), lambda T, a: a.e.var(0))
case("prod", lambda T, a: a.s.prod(0), lambda T, a: a.e.prod(0))
case("all", lambda T, a: a.s.all(0), lambda T, a: a.e.all())
case("any", lambda T, a: a.e.any(1))
case("repeat", lambda T, a: a.s.repeat(2, 2), lambda T, a: a.e.repeat(2, 1))
case("count_nonzero", lambda T, a: a.s.count_nonzero(), lambda T, a: a.e.count_nonzero(0))
case("median", lambda T, a: a.s.median(), lambda T, a: a.e.median())
case("argsort", lambda T, a: a.s.argsort())
case("clamp", lambda T, a: a.s.clamp(0, 1))
case("where", lambda T, a: a.s.where(T.tensor(True), a.s))
case("nonzero", lambda T, a: a.s.nonzero(), lambda T, a: a.s.nonzero(as_tuple=True))
case("t", lambda T, a: a.e.t())
case("unbind", lambda T, a: a.e.unbind(0))
case("tolist", lambda T, a: a.e.tolist())
case("__iter__", lambda T, a: list(a.e))

# non-contiguous inputs (a transposed buffer)
case("sum", lambda T, a: a.xt.sum(0))
case("cumsum", lambda T, a: a.xt.cumsum(1))
case("argmax", lambda T, a: a.xt.argmax(1))
case("sort", lambda T, a: a.xt.sort(1))
case("flip", lambda T, a: a.xt.flip(0))
case("contiguous", lambda T, a: a.xt.transpose(0, 1).contiguous())
case("__getitem__", lambda T, a: a.xt[1], lambda T, a: a.xt[:, [1, 0]])
case("tolist", lambda T, a: a.xt.tolist())
case("unfold", lambda T, a: a.xt.unfold(0, 2, 1))
case("is_contiguous", lambda T, a: a.xt.is_contiguous(), lambda T, a: a.xt.t().is_contiguous(),
     lambda T, a: a.x[:, ::2].is_contiguous(), marks=pytest.mark.layout)

# conversions and Python values
case("bool", lambda T, a: a.x.bool(), lambda T, a: a.i.bool())
case("double", lambda T, a: a.x.double(), lambda T, a: a.i.double())
case("float", lambda T, a: a.i.float(), lambda T, a: a.b.float())
case("half", lambda T, a: a.x.half())
case("int", lambda T, a: a.x.int(), lambda T, a: a.b.int())
case("long", lambda T, a: a.x.long(), lambda T, a: a.i32.long())
case("short", lambda T, a: a.x.short())
case("numpy", lambda T, a: a.x.numpy().tolist(), lambda T, a: str(a.x.numpy().dtype),
     lambda T, a: str(a.b.numpy().dtype), lambda T, a: a.i.numpy().shape,
     lambda T, a: a.x.numpy(force=True).tolist(),
     lambda T, a: T.tensor(_X, requires_grad=True).numpy(force=True).tolist())
case("requires_grad", lambda T, a: a.x.requires_grad,
     lambda T, a: T.tensor([1.0], requires_grad=True).requires_grad,
     lambda T, a: (T.tensor([1.0], requires_grad=True) * 2).requires_grad,
     lambda T, a: T.tensor([1.0], requires_grad=True).detach().requires_grad)
case("is_leaf", lambda T, a: a.x.is_leaf,
     lambda T, a: (T.tensor([1.0], requires_grad=True) * 2).is_leaf)
case("device", lambda T, a: a.x.device.type)
case("grad", lambda T, a: a.x.grad)
case("data", lambda T, a: a.x.data)
case("is_distributed", lambda T, a: a.x.is_distributed())

# NaN: PyTorch's reductions and sorts treat it as the largest value and propagate it
case("max", lambda T, a: a.nan.max(), lambda T, a: a.nan.max(1), lambda T, a: a.nan.max(a.x))
case("min", lambda T, a: a.nan.min(), lambda T, a: a.nan.min(0))
case("argmax", lambda T, a: a.nan.argmax(), lambda T, a: a.nan.argmax(1))
case("argmin", lambda T, a: a.nan.argmin(1))
case("sort", lambda T, a: a.nan.sort(1), lambda T, a: a.nan.sort(1, descending=True))
case("argsort", lambda T, a: a.nan.argsort(1))
case("topk", lambda T, a: a.nan.topk(2), lambda T, a: a.nan.topk(1, largest=False))
case("median", lambda T, a: a.nan.median(), lambda T, a: a.nan.median(1))
case("cummax", lambda T, a: a.nan.cummax(1))
case("cummin", lambda T, a: a.nan.cummin(1))
case("maximum", lambda T, a: a.nan.maximum(a.x))
case("minimum", lambda T, a: a.nan.minimum(a.x))
case("clamp", lambda T, a: a.nan.clamp(-1, 1))
case("relu", lambda T, a: a.nan.relu())
case("sum", lambda T, a: a.nan.sum(1))
case("count_nonzero", lambda T, a: a.nan.count_nonzero())
case("sign", lambda T, a: a.nan.sign())
case("eq", lambda T, a: a.nan.eq(a.nan))
case("equal", lambda T, a: a.nan.equal(a.nan))
case("allclose", lambda T, a: a.nan.allclose(a.nan),
     lambda T, a: a.nan.allclose(a.nan, equal_nan=True))
case("isclose", lambda T, a: a.nan.isclose(a.nan, equal_nan=True))

# division by zero, small ints, and mixed dtypes
case("remainder", lambda T, a: a.i.remainder(0), lambda T, a: a.x.remainder(0))
case("floor_divide", lambda T, a: a.i.floor_divide(0), lambda T, a: a.x.floor_divide(0.0))
case("fmod", lambda T, a: a.i.fmod(0), lambda T, a: a.x.fmod(0))
case("div", lambda T, a: a.i.div(0), lambda T, a: a.x.div(a.z))
case("add", lambda T, a: a.i8.add(a.i8), lambda T, a: a.u8.add(250), lambda T, a: a.i8.add(a.u8),
     lambda T, a: a.i8.add(1000), lambda T, a: a.i8.add(1.5))
case("mul", lambda T, a: a.u8.mul(a.u8), lambda T, a: a.i8.mul(a.x64))
case("sum", lambda T, a: a.i8.sum(), lambda T, a: a.u8.sum(1))
case("neg", lambda T, a: a.u8.neg())
case("abs", lambda T, a: a.i8.abs())
case("var", lambda T, a: a.i.var())
case("lerp", lambda T, a: a.i.lerp(a.j, 0.5), lambda T, a: a.x.lerp(a.x64, 0.5),
     lambda T, a: a.x.lerp(a.y, a.x64))
case("where", lambda T, a: a.i.where(a.b, 0.5), lambda T, a: a.i32.where(a.b, a.i))
case("masked_fill", lambda T, a: a.i.masked_fill(a.b, 2.7), lambda T, a: a.b.masked_fill(a.c, 0))
case("allclose", lambda T, a: a.x.allclose(a.x64), lambda T, a: a.x.allclose(a.i))
case("cross", lambda T, a: a.sq.cross(a.sq.flip(0)), lambda T, a: a.sq.cross(a.sq.flip(0), dim=-1),
     lambda T, a: a.v.reshape(3, 1).cross(a.sq), lambda T, a: a.x[:, :2].cross(a.x[:, :2]))
case("gather", lambda T, a: a.x.gather(1, a.idx[:1]), lambda T, a: a.x.gather(1, a.idx + 5))
case("repeat_interleave", lambda T, a: a.x.repeat_interleave(T.tensor([1, 0, 2]), dim=1),
     lambda T, a: a.x.repeat_interleave(2, dim=1, output_size=6),
     lambda T, a: a.x.repeat_interleave(2, dim=1, output_size=5),
     lambda T, a: a.x.repeat_interleave(-1))
case("expand", lambda T, a: a.x.expand(-1, 2, 3), lambda T, a: a.x.expand(2, -1))
case("round", lambda T, a: a.i.round(decimals=1), lambda T, a: a.nan.round(decimals=2))
case("tolist", lambda T, a: a.i32.tolist(), lambda T, a: a.u8.tolist())
case("item", lambda T, a: a.u8[0, 0].item(), lambda T, a: a.x64[0, 0].item())
case("to", lambda T, a: a.x.to(a.i), lambda T, a: a.x.to("cpu", non_blocking=True),
     lambda T, a: a.x.to(T.float64, copy=True), lambda T, a: a.nan.to(T.int32)[0, 0].item() * 0)

# operators with None, hashing and formatting
case("__eq__", lambda T, a: a.x == None)  # noqa: E711
case("__ne__", lambda T, a: a.x != None)  # noqa: E711
case("__hash__", lambda T, a: len({a.x, a.y, a.x}))
case("__format__", lambda T, a: format(a.s, ".2f"), lambda T, a: f"{a.si:03d}",
     lambda T, a: format(a.x, ".2f"))
case("__array__", lambda T, a: np.asarray(a.x).tolist(), lambda T, a: str(np.asarray(a.i32).dtype))
case("__bool__", lambda T, a: bool(a.e))
case("__getitem__", lambda T, a: a.x[::-1], lambda T, a: a.x[[True, False]],
     lambda T, a: a.x[..., [0, 2]], lambda T, a: a.x[1:2, None], lambda T, a: a.x[[0, 5]],
     lambda T, a: a.x[a.i32[0].abs() % 2], lambda T, a: a.x[a.b[:, 0], 1:],
     lambda T, a: a.x[(0, 1)], lambda T, a: a.x[[0, 1]], lambda T, a: a.x[a.si - 2],
     lambda T, a: a.x[:, ::-1], lambda T, a: a.x[::2], lambda T, a: a.x[:, 1::0])

# copies and pickles keep PyTorch's meanings (and a leaf's requires_grad)
case("__reduce_ex__", lambda T, a: copy.deepcopy(a.x).argmax(1),
     lambda T, a: pickle.loads(pickle.dumps(a.x)).max(1), lambda T, a: copy.copy(a.x).topk(1),
     lambda T, a: copy.deepcopy(T.tensor([1.0], requires_grad=True)).requires_grad,
     lambda T, a: copy.deepcopy(T.tensor([1.0], requires_grad=True)).is_leaf)


def _backward(T, a, gradient=None, twice=False, retain=False):
    x = T.tensor(_X, requires_grad=True)
    y = (x * x).sum() if gradient is None else x * x
    y.backward(gradient, retain_graph=retain or None)
    if twice:
        y.backward(gradient)
    return x.grad


case("backward", lambda T, a: _backward(T, a), lambda T, a: _backward(T, a, T.tensor(_Y)),
     lambda T, a: _backward(T, a, twice=True),
     lambda T, a: _backward(T, a, twice=True, retain=True),
     lambda T, a: (T.tensor(_X, requires_grad=True) * 2).backward(),
     lambda T, a: T.tensor(_X).sum().backward(),
     lambda T, a: (T.tensor([2.0], requires_grad=True) * 2).backward())

# torch.Size: a tuple with PyTorch's type, slicing, arithmetic and numel
case("shape", lambda T, a: type(a.x.shape[1:]).__name__, lambda T, a: a.x.shape == (2, 3),
     lambda T, a: a.x.shape + (1,), lambda T, a: type(a.x.shape + (1,)).__name__,
     lambda T, a: a.x.shape.numel(), lambda T, a: list(a.x.shape), lambda T, a: len(a.ones.shape),
     lambda T, a: a.x.shape[-1], lambda T, a: hash(a.x.shape) == hash((2, 3)))
case("size", lambda T, a: type(a.x.size()).__name__, lambda T, a: a.x.size()[1:],
     lambda T, a: a.x.size() == a.x.shape)
case("view", lambda T, a: a.x.view(a.x.size(0), -1), lambda T, a: a.x.view(*a.x.shape),
     lambda T, a: a.x.view(a.x.shape))
case("reshape", lambda T, a: a.x.reshape(a.m.shape), lambda T, a: a.x.reshape(*a.m.shape))
case("expand", lambda T, a: a.col.expand(*a.x.shape), lambda T, a: a.col.expand(a.x.size()))


def _under_no_grad(T, op):
    x = T.tensor(_X, requires_grad=True)
    with T.no_grad():
        y = op(x)
    return y.requires_grad, y.is_leaf, y.grad_fn is None if hasattr(y, "grad_fn") else True


case("requires_grad", lambda T, a: _under_no_grad(T, lambda x: x * 2),
     lambda T, a: _under_no_grad(T, lambda x: x.sum(1)),
     lambda T, a: _under_no_grad(T, lambda x: x.max(1).values))
case("masked_fill", lambda T, a: a.x.masked_fill(a.b.logical_not(), float("-inf")).softmax(1))

@pytest.mark.parametrize("call", CASES)
def test_method_means_what_torch_means(call):
    check(call)


def _setitem(T, a, key, value):
    x = a.x.clone()
    x[key(a) if callable(key) else key] = value(T, a) if callable(value) else value
    return x


@pytest.mark.parametrize("key, value", [
    (0, 1.0), ((slice(None), 1), -2.0), ((1, 2), 7), (lambda a: a.b, 0.0),
    (lambda a: a.b, lambda T, a: a.y[a.b]), ((slice(None), [0, 2]), 3.0),
    (0, lambda T, a: a.v), (slice(0, 1), lambda T, a: a.v), (Ellipsis, 0.5),
    ([1, 0], lambda T, a: a.y), (5, 1.0), ((0, slice(None)), lambda T, a: a.i[0]),
    (lambda a: a.flat % 2, 4.0), ((slice(None), 0), lambda T, a: a.v[:2]),
    ((slice(None), 0), lambda T, a: a.v), (lambda a: a.b, lambda T, a: a.v[:2]),
], ids=lambda v: repr(v)[:20])
def test_setitem_means_what_torch_means(key, value):
    check(lambda T, a: _setitem(T, a, key, value))


def test_audit_covers_enough_method_names():
    names = {p.id.rsplit("-", 1)[0] for p in CASES} - {"bool operands"}
    assert len(names) >= 150
    missing = [n for n in names if not hasattr(et.Tensor, n)]
    assert missing == []


# -- gradients -----------------------------------------------------------------------------------

GRADS = []


def grad_case(name, call, source="x"):
    GRADS.append(pytest.param(call, source, id=name))


for _name, _call, _src in [
    ("abs", lambda T, x, a: x.abs(), "x"), ("exp", lambda T, x, a: x.exp(), "x"),
    ("log", lambda T, x, a: x.log(), "p"), ("sqrt", lambda T, x, a: x.sqrt(), "p"),
    ("rsqrt", lambda T, x, a: x.rsqrt(), "p"), ("reciprocal", lambda T, x, a: x.reciprocal(), "p"),
    ("sin", lambda T, x, a: x.sin(), "x"), ("cos", lambda T, x, a: x.cos(), "x"),
    ("tan", lambda T, x, a: x.tan(), "u"), ("tanh", lambda T, x, a: x.tanh(), "x"),
    ("sigmoid", lambda T, x, a: x.sigmoid(), "x"), ("relu", lambda T, x, a: x.relu(), "x"),
    ("asin", lambda T, x, a: x.asin(), "u"), ("atan", lambda T, x, a: x.atan(), "x"),
    ("sinh", lambda T, x, a: x.sinh(), "x"), ("erf", lambda T, x, a: x.erf(), "x"),
    ("log1p", lambda T, x, a: x.log1p(), "p"), ("expm1", lambda T, x, a: x.expm1(), "x"),
    ("square", lambda T, x, a: x.square(), "x"), ("sign", lambda T, x, a: x.sign(), "x"),
    ("pow", lambda T, x, a: x.pow(3), "x"), ("pow_tensor", lambda T, x, a: x.pow(a.y), "p"),
    ("rpow", lambda T, x, a: 2 ** x, "x"), ("mul", lambda T, x, a: x.mul(a.y), "x"),
    ("div", lambda T, x, a: a.y.div(x), "p"),
    ("sub_alpha", lambda T, x, a: x.sub(a.y, alpha=2), "x"),
    ("atan2", lambda T, x, a: x.atan2(a.y), "x"), ("hypot", lambda T, x, a: x.hypot(a.y), "x"),
    ("maximum", lambda T, x, a: x.maximum(a.y), "x"),
    ("minimum", lambda T, x, a: x.minimum(a.y), "x"),
    ("lerp", lambda T, x, a: x.lerp(a.y, 0.3), "x"),
    ("clamp", lambda T, x, a: x.clamp(-0.5, 0.5), "x"),
    ("clamp_tensor", lambda T, x, a: x.clamp(a.y, a.p), "x"),
    ("where", lambda T, x, a: x.where(a.b, a.y), "x"),
    ("masked_fill", lambda T, x, a: x.masked_fill(a.b, 0.0), "x"),
    ("sum_dim", lambda T, x, a: x.sum(1) ** 2, "x"),
    ("mean_dim", lambda T, x, a: x.mean(0) ** 2, "x"),
    ("prod", lambda T, x, a: x.prod(1), "x"), ("max_dim", lambda T, x, a: x.max(1).values, "x"),
    ("min_all", lambda T, x, a: x.min(), "x"), ("norm", lambda T, x, a: x.norm(), "x"),
    ("norm_dim", lambda T, x, a: x.norm(dim=1), "x"), ("var", lambda T, x, a: x.var(1), "x"),
    ("softmax", lambda T, x, a: x.softmax(1) * a.y, "x"),
    ("log_softmax", lambda T, x, a: x.log_softmax(1) * a.y, "x"),
    ("cumsum", lambda T, x, a: x.cumsum(1) * a.y, "x"),
    ("cumprod", lambda T, x, a: x.cumprod(1), "p"),
    ("matmul", lambda T, x, a: x.matmul(a.m), "x"), ("dot", lambda T, x, a: x[0].dot(a.v), "x"),
    ("outer", lambda T, x, a: x[1].outer(a.w), "x"),
    ("cross", lambda T, x, a: x.cross(a.y, dim=1), "x"),
    ("transpose", lambda T, x, a: x.transpose(0, 1) * a.m, "x"),
    ("permute", lambda T, x, a: x.permute(1, 0) * a.m, "x"),
    ("reshape", lambda T, x, a: x.reshape(3, 2) * a.m, "x"),
    ("expand", lambda T, x, a: x.expand(4, 2, 3) * a.y, "x"),
    ("flip", lambda T, x, a: x.flip(1) * a.y, "x"),
    ("squeeze", lambda T, x, a: x.unsqueeze(0).squeeze(0) * a.y, "x"),
    ("repeat", lambda T, x, a: x.repeat(2, 2) ** 2, "x"),
    ("getitem", lambda T, x, a: x[:, [2, 0, 0]] * a.y, "x"),
    ("gather", lambda T, x, a: x.gather(1, a.idx) ** 2, "x"),
    ("topk", lambda T, x, a: x.topk(2).values ** 2, "x"),
    ("sort", lambda T, x, a: x.sort(1).values * a.y, "x"),
    ("tril", lambda T, x, a: x.tril() ** 2, "x"),
    ("narrow", lambda T, x, a: x.narrow(1, 1, 2) ** 2, "x"),
    ("unbind", lambda T, x, a: x.unbind(1)[2] ** 2, "x"),
    ("take", lambda T, x, a: x.take(a.flat) ** 2, "x"),
    ("select", lambda T, x, a: x.select(1, 0) ** 2, "x"),
    ("repeat_interleave", lambda T, x, a: x.repeat_interleave(2, dim=1) ** 2, "x"),
    # ties, zeros and boundaries, where the subgradient is a choice
    ("max_all_ties", lambda T, x, a: x.max(), "dup"),
    ("min_all_ties", lambda T, x, a: x.min(), "dup"),
    ("max_dim_ties", lambda T, x, a: x.max(1).values, "dup"),
    ("maximum_ties", lambda T, x, a: x.maximum(a.dup), "dup"),
    ("median_all", lambda T, x, a: x.median(), "x"),
    ("median_dim", lambda T, x, a: x.median(1).values, "x"),
    ("kthvalue", lambda T, x, a: x.kthvalue(2, 1).values, "x"),
    ("cummax", lambda T, x, a: x.cummax(1).values * a.y, "x"),
    ("sort_ties", lambda T, x, a: x.sort(dim=1, stable=True).values * a.y, "dup"),
    ("norm_zeros", lambda T, x, a: x.norm(), "zeros"),
    ("norm_p1", lambda T, x, a: x.norm(p=1), "x"),
    ("norm_inf", lambda T, x, a: x.norm(float("inf")), "x"),
    ("prod_zero", lambda T, x, a: x.prod(), "x"),
    ("prod_two_zeros", lambda T, x, a: x.prod(1), "zeros"),
    ("cumprod_zero", lambda T, x, a: x.cumprod(1) * a.y, "x"),
    ("clamp_bounds", lambda T, x, a: x.clamp(0.0, 1.0), "zeros"),
    ("hypot_zero", lambda T, x, a: x.hypot(a.z), "zeros"),
    ("abs_zero", lambda T, x, a: x.abs(), "zeros"),
    ("relu_zero", lambda T, x, a: x.relu(), "zeros"),
    ("pow_exponent", lambda T, x, a: a.p.pow(x), "x"),
    ("pow_half", lambda T, x, a: x.pow(0.5), "p"),
    ("pow_zero", lambda T, x, a: x.pow(0), "zeros"),
    ("floor", lambda T, x, a: x.floor() * x, "x"), ("round", lambda T, x, a: x.round() + x, "x"),
    ("unfold", lambda T, x, a: x.unfold(1, 2, 1) ** 2, "x"),
    ("mask_index", lambda T, x, a: x[a.b] ** 2, "x"), ("triu", lambda T, x, a: x.triu(1) ** 2, "x"),
    ("t", lambda T, x, a: x.t() * a.m, "x"), ("mT", lambda T, x, a: x.mT * a.m, "x"),
    ("view", lambda T, x, a: x.view(-1) * a.x.view(-1), "x"),
    ("matmul_vec", lambda T, x, a: x.matmul(a.v), "x"),
    ("vec_matmul", lambda T, x, a: x[0] @ a.m, "x"),
    ("clone", lambda T, x, a: x.clone() * a.y, "x"),
    ("expand_as", lambda T, x, a: x[:1].expand_as(a.x) * a.y, "x"),
    ("inner", lambda T, x, a: x.inner(a.y), "x"),
    ("take_neg", lambda T, x, a: x.take(-a.flat - 1) ** 2, "x"),
    ("cov", lambda T, x, a: x.cov(), "x"),
    ("cov_weights", lambda T, x, a: x.cov(aweights=a.p[0]), "x"),
    ("cross_default", lambda T, x, a: x.cross(a.sq), "sq"),
    ("softmax_dtype", lambda T, x, a: x.softmax(1, dtype=T.float64) * a.y, "x"),
    ("sum_dtype", lambda T, x, a: x.sum(1, dtype=T.float64) ** 2, "x"),
    ("add_alpha", lambda T, x, a: x.add(x * x, alpha=-0.5), "x"),
    ("rsub", lambda T, x, a: 1 - x * x, "x"), ("rtruediv", lambda T, x, a: 1 / x, "p"),
    ("lerp_tensor", lambda T, x, a: a.y.lerp(x, a.p), "x"),
]:
    grad_case(_name, _call, _src)


def _grad(lib, call, source):
    a = inputs(lib)
    x = lib.tensor({"x": _X, "p": _P, "u": _U, "dup": _DUP, "zeros": np.zeros((2, 3), np.float32),
                    "sq": _SQ}[source], requires_grad=True)
    out = call(lib, x, a)
    out.sum().backward()
    return x.grad


@pytest.mark.parametrize("call, source", GRADS)
def test_gradient_matches_torch(call, source):
    theirs = _grad(torch, call, source)
    ours = _grad(et, call, source)
    assert ours is not None, "no gradient reached x"
    assert_same(canon(ours), canon(theirs), "grad")


def test_gradient_audit_covers_forty_ops():
    assert len({p.id for p in GRADS}) == len(GRADS) >= 40
