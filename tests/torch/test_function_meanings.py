"""An audit of the ``torch.<name>`` functions ember.torch shares with PyTorch: each case calls a
function on ember.torch tensors and on torch tensors holding the same values (float32, int64, bool,
0-d, size-0 and non-contiguous inputs) and compares what comes back: its structure (tensor, tuple,
named tuple, list, bool, int, float), and each tensor's shape, dtype and values; where torch
raises, ember must raise one of its typed errors (or, for a call that matches none of the
function's signatures, Python's TypeError about its arguments, as torch's). Random functions
compare shapes and dtypes.

Most of ember.torch's functions are ember's own module-level functions; where ember.torch's
Tensor has a PyTorch override, ``torch.<name>(x, ...)`` must mean ``x.<name>(...)``
(ember/torch/functions.py). A difference here is fixed there, in ember/torch/methods.py, or in the
family module that owns the name. The comparison is test_method_meanings.py's.
"""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import EmberError
from ember.torch.functions import METHOD_FUNCTIONS
from test_method_meanings import _B, _I, _X, _Y, assert_same, canon, inputs


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
        if isinstance(ours, EmberError):
            return
        # a call that matches no signature: Python's own TypeError about it on both sides
        assert isinstance(theirs, TypeError) and isinstance(ours, TypeError) and \
            "argument" in str(ours), f"ember raised an untyped {ours!r}"
        return
    if kind_e == "raised":
        raise AssertionError(f"ember raised {ours!r}; torch returned {theirs!r}")
    assert_same(canon(ours), canon(theirs), "result")


CASES = []
_COUNT = {}


def case(name, *calls, marks=()):
    """Cases of ``torch.<name>``: each call is ``lambda T, a: ...`` (T the library, a the
    inputs of test_method_meanings.py); ``marks``: pytest marks of each (``pytest.mark.layout``:
    a case about strides)."""
    for call in calls:
        k = _COUNT[name] = _COUNT.get(name, -1) + 1
        CASES.append(pytest.param(call, id=f"{name}-{k}", marks=marks))


def _arg(a, k):
    return getattr(a, k) if isinstance(k, str) else k


def table(names, patterns, **kwargs):
    """For each name, a case per pattern: ``torch.<name>(*pattern, **kwargs)``, a string in the
    pattern naming one of the inputs."""
    for name in names.split():
        case(name, *[lambda T, a, n=name, p=p: getattr(T, n)(*[_arg(a, k) for k in p], **kwargs)
                     for p in patterns])


def meta(value):
    """Shape and dtype (for random results, whose streams differ)."""
    return tuple(value.shape), value.dtype


# -- element-wise, one operand: float, int, bool, 0-d, size-0, non-contiguous -----------------
UNARY = [("x",), ("i",), ("b",), ("s",), ("e",), ("xt",)]
table("abs acos acosh asin asinh atan atanh ceil floor trunc round cos cosh sin sinh tan tanh "
      "deg2rad rad2deg erf erfc erfinv exp exp2 expm1 log log10 log1p log2 neg positive "
      "reciprocal relu rsqrt sigmoid sign sgn sqrt square sinc isfinite isinf isnan logical_not "
      "bitwise_not angle conj real imag digamma lgamma i0 logit", UNARY)
table("abs sqrt exp sign relu isnan", [("si",), ("i32",), ("u8",), ("i8",)])
table("logit", [("u", 0.1)])
table("polygamma", [(1, "p"), (0, "x"), (2, "i")])
table("mvlgamma", [("p", 1), ("p", 2)])

# -- element-wise, two operands: dtypes, Python numbers either side, broadcasting ----------------
BINARY = [("x", "y"), ("i", "j"), ("b", "c"), ("x", 2), ("i", 2.5), ("s", "x"), ("e", "e"),
          ("xt", "x"), (2, "x"), ("x", "v"), ("i32", "i"), ("x", "b"), ("i", "si"), (2, "i"),
          ("b", True), (1.5, "i")]
table("add sub mul div true_divide floor_divide remainder fmod pow atan2 hypot maximum minimum "
      "eq ne lt le gt ge greater greater_equal not_equal logical_and logical_or logical_xor "
      "bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift xlogy igamma "
      "igammac heaviside multiply divide subtract", BINARY)
case("add", lambda T, a: T.add(a.x, a.y, alpha=2), lambda T, a: T.add(a.i, a.j, alpha=3),
     lambda T, a: T.add(input=a.x, other=a.y), lambda T, a: T.add(a.b, a.c, alpha=2),
     lambda T, a: T.add(2, a.x, alpha=3))
case("sub", lambda T, a: T.sub(a.x, a.y, alpha=0.5), lambda T, a: T.sub(a.b, a.c),
     lambda T, a: T.sub(1, a.b))
case("div", lambda T, a: T.div(a.i, a.j, rounding_mode="floor"),
     lambda T, a: T.div(a.i, a.j, rounding_mode="trunc"),
     lambda T, a: T.div(a.x, a.y, rounding_mode="trunc"), lambda T, a: T.div(a.i, 0),
     lambda T, a: T.div(a.x, a.y, rounding_mode="x"), lambda T, a: T.divide(a.i, a.j))
case("pow", lambda T, a: T.pow(a.i, 2), lambda T, a: T.pow(2, a.i), lambda T, a: T.pow(a.p, 0.5),
     lambda T, a: T.pow(a.x, exponent=3))
case("remainder", lambda T, a: T.remainder(-7, a.j), lambda T, a: T.remainder(a.i, 0))
case("floor_divide", lambda T, a: T.floor_divide(7, a.j))
case("mul", lambda T, a: T.mul(a.b, 2.5), lambda T, a: T.mul(True, a.i))
case("lerp", lambda T, a: T.lerp(a.x, a.y, 0.25), lambda T, a: T.lerp(a.x, a.y, a.p),
     lambda T, a: T.lerp(a.i, a.j, 0.5), lambda T, a: T.lerp(a.x, a.x64, 0.5),
     lambda T, a: T.lerp(a.s, a.x, 0.5))
case("clamp", lambda T, a: T.clamp(a.x, -0.5, 0.5), lambda T, a: T.clamp(a.x, min=0.0),
     lambda T, a: T.clamp(a.i, max=2), lambda T, a: T.clamp(a.x, a.y, a.p),
     lambda T, a: T.clamp(a.i, 0.5), lambda T, a: T.clamp(a.x), lambda T, a: T.clamp(a.e, 0, 1),
     lambda T, a: T.clamp(a.xt, -0.1, 0.1))
case("clamp_min", lambda T, a: T.clamp_min(a.x, 0.1), lambda T, a: T.clamp_min(a.i, 0))
case("clamp_max", lambda T, a: T.clamp_max(a.x, a.y), lambda T, a: T.clamp_max(a.i, 1))
case("isclose", lambda T, a: T.isclose(a.x, a.x + 1e-7), lambda T, a: T.isclose(a.x, a.y, atol=1),
     lambda T, a: T.isclose(a.nan, a.nan, equal_nan=True), lambda T, a: T.isclose(a.i, a.j))
case("allclose", lambda T, a: T.allclose(a.x, a.x + 1e-7), lambda T, a: T.allclose(a.x, a.y),
     lambda T, a: T.allclose(a.x, a.x64), lambda T, a: T.allclose(a.nan, a.nan, equal_nan=True))
case("equal", lambda T, a: T.equal(a.x, a.x.clone()), lambda T, a: T.equal(a.x, a.y),
     lambda T, a: T.equal(a.x, a.v), lambda T, a: T.equal(a.e, a.e),
                          lambda T, a: T.equal(a.i, a.i),
     lambda T, a: T.equal(a.xt, a.xt.contiguous()))
case("where", lambda T, a: T.where(a.b, a.x, a.y), lambda T, a: T.where(a.b, a.x, 0.0),
     lambda T, a: T.where(a.b, 1, a.i), lambda T, a: T.where(a.b),
     lambda T, a: T.where(a.b, a.i, a.x), lambda T, a: T.where(a.b, 1.0, 0.0))
case("masked_fill", lambda T, a: T.masked_fill(a.x, a.b, 0.5),
     lambda T, a: T.masked_fill(a.i, a.b, 9), lambda T, a: T.masked_fill(a.x, a.b, T.tensor(-1.0)))
case("heaviside", lambda T, a: T.heaviside(a.x, a.y))
case("complex", lambda T, a: T.complex(a.x, a.y), lambda T, a: T.complex(a.x, a.i))
case("polar", lambda T, a: T.polar(a.p, a.x))

# -- reductions -----------------------------------------------------------------------------------
REDUCE = [("x",), ("x", 1), ("x", 0, True), ("i",), ("b",), ("e", 0), ("s",), ("xt", 0),
          ("x", -1), ("x", 2)]
table("sum prod mean nansum nanmean amax amin logsumexp all any count_nonzero", REDUCE)
table("argmax argmin std var std_mean var_mean median nanmedian", REDUCE[:5] + REDUCE[6:])
table("max min", [("x",), ("x", 1), ("x", 0, True), ("i",), ("b",), ("s",), ("xt", 0),
                  ("x", "y"), ("e",)])
table("cumsum cumprod cummax cummin logcumsumexp", [("x", 1), ("i", 0), ("b", 1), ("s", 0),
                                                  ("e", 1), ("xt", 0), ("x", 2)])
table("kthvalue", [("x", 2), ("x", 1, 0), ("x", 2, 1, True), ("i", 1), ("x", 4)])
table("mode", [("dup",), ("dup", 0), ("i", 1)])
table("aminmax", [("x",)])
case("aminmax", lambda T, a: T.aminmax(a.x, dim=1), lambda T, a: T.aminmax(a.i, dim=0,
                                                                        keepdim=True))
case("sum", lambda T, a: T.sum(a.x, dtype=T.float64), lambda T, a: T.sum(a.x, (0, 1)),
     lambda T, a: T.sum(a.x, dim=[-1], keepdim=True), lambda T, a: T.sum(input=a.x, dim=0))
case("mean", lambda T, a: T.mean(a.i, dtype=T.float32), lambda T, a: T.mean(a.x, (0, 1)))
case("prod", lambda T, a: T.prod(a.x, 1, dtype=T.float64), lambda T, a: T.prod(a.i32))
case("var", lambda T, a: T.var(a.x, 1, unbiased=False), lambda T, a: T.var(a.x, 0, correction=0),
     lambda T, a: T.var(a.x, dim=(0, 1)))
case("std", lambda T, a: T.std(a.x, 1, unbiased=False), lambda T, a: T.std(a.x, correction=0))
case("var_mean", lambda T, a: T.var_mean(a.x, 1, correction=0))
case("cumsum", lambda T, a: T.cumsum(a.x, 1, dtype=T.float64), lambda T, a: T.cumsum(a.i32, 1))
case("cumprod", lambda T, a: T.cumprod(a.i32, dim=0))
case("norm", lambda T, a: T.norm(a.x), lambda T, a: T.norm(a.x, 1),
     lambda T, a: T.norm(a.x, dim=1),
     lambda T, a: T.norm(a.x, 2, 1, True), lambda T, a: T.norm(a.x, float("inf")),
     lambda T, a: T.norm(a.x, p="fro"), lambda T, a: T.norm(a.i))
case("softmax", lambda T, a: T.softmax(a.x, 1), lambda T, a: T.softmax(a.x, dim=0),
     lambda T, a: T.softmax(a.i, 1, dtype=T.float32))
case("log_softmax", lambda T, a: T.log_softmax(a.x, 1))
case("quantile", lambda T, a: T.quantile(a.x, 0.3), lambda T, a: T.quantile(a.x, 0.5, dim=1),
     lambda T, a: T.quantile(a.x, T.tensor([0.2, 0.8]), dim=0, keepdim=True),
     lambda T, a: T.quantile(a.i, 0.5))
case("nanquantile", lambda T, a: T.nanquantile(a.nan, 0.5, dim=1))
case("dist", lambda T, a: T.dist(a.x, a.y), lambda T, a: T.dist(a.x, a.y, 1))
case("trace", lambda T, a: T.trace(a.sq), lambda T, a: T.trace(a.x), lambda T, a: T.trace(a.i))
case("diff", lambda T, a: T.diff(a.x), lambda T, a: T.diff(a.x, dim=0), lambda T, a: T.diff(a.i),
     lambda T, a: T.diff(a.x, n=2), lambda T, a: T.diff(a.b))

# -- sorting, selection and searching -------------------------------------------------------------
table("sort argsort msort", [("x",), ("x", 0), ("i",), ("b",), ("e",), ("xt",)])
case("sort", lambda T, a: T.sort(a.x, descending=True), lambda T, a: T.sort(a.dup, stable=True),
     lambda T, a: T.sort(a.dup, dim=1, descending=True, stable=True),
     lambda T, a: T.sort(a.nan, 1), lambda T, a: T.sort(a.s), lambda T, a: T.sort(a.x, 2))
case("argsort", lambda T, a: T.argsort(a.x, descending=True),
     lambda T, a: T.argsort(a.dup, stable=True),
     lambda T, a: T.argsort(a.dup, dim=1, descending=True, stable=True),
     lambda T, a: T.argsort(a.dup, 1, True), lambda T, a: T.argsort(a.s))
case("topk", lambda T, a: T.topk(a.x, 2), lambda T, a: T.topk(a.x, 1, 0),
     lambda T, a: T.topk(a.x, 2, largest=False), lambda T, a: T.topk(a.i, 2, sorted=True),
     lambda T, a: T.topk(a.x, 4), lambda T, a: T.topk(a.xt, 1))
case("nonzero", lambda T, a: T.nonzero(a.x), lambda T, a: T.nonzero(a.x, as_tuple=True),
     lambda T, a: T.nonzero(a.e), lambda T, a: T.nonzero(a.b), lambda T, a: T.nonzero(a.s))
case("nonzero_static", lambda T, a: T.nonzero_static(a.x, size=3),
     lambda T, a: T.nonzero_static(a.b, size=6, fill_value=-2))
case("histogramdd", lambda T, a: T.histogramdd(a.m, bins=[2, 3]))
case("argwhere", lambda T, a: T.argwhere(a.x), lambda T, a: T.argwhere(a.b))
case("gather", lambda T, a: T.gather(a.x, 1, a.idx), lambda T, a: T.gather(a.x, 0, a.idx),
     lambda T, a: T.gather(a.x, 1, a.idx + 5))
case("take", lambda T, a: T.take(a.x, a.flat), lambda T, a: T.take(a.x, a.idx),
     lambda T, a: T.take(a.x, -a.flat - 1), lambda T, a: T.take(a.x, a.flat + 3),
     lambda T, a: T.take(a.xt, a.flat))
case("take_along_dim", lambda T, a: T.take_along_dim(a.x, a.idx, 1),
     lambda T, a: T.take_along_dim(a.x, a.x.argsort(1), dim=1))
case("index_select", lambda T, a: T.index_select(a.x, 1, a.flat % 3),
     lambda T, a: T.index_select(a.x, 0, T.tensor([1, 1, 0])))
case("masked_select", lambda T, a: T.masked_select(a.x, a.b),
     lambda T, a: T.masked_select(a.i, a.b))
case("searchsorted", lambda T, a: T.searchsorted(a.v.sort().values, a.w),
     lambda T, a: T.searchsorted(a.v.sort().values, a.w, right=True))
case("bucketize", lambda T, a: T.bucketize(a.x, a.v.sort().values),
     lambda T, a: T.bucketize(a.x, a.v.sort().values, right=True))
case("unique", lambda T, a: T.unique(a.i), lambda T, a: T.unique(a.dup, return_counts=True),
     lambda T, a: T.unique(a.dup, return_inverse=True))
case("unique_consecutive", lambda T, a: T.unique_consecutive(T.tensor([1, 1, 2, 2, 3, 1])),
     lambda T, a: T.unique_consecutive(T.tensor([1, 1, 2]), return_counts=True))
case("bincount", lambda T, a: T.bincount(a.flat), lambda T, a: T.bincount(a.flat, minlength=8),
     lambda T, a: T.bincount(a.flat, weights=a.v))
case("histc", lambda T, a: T.histc(a.x, bins=4), lambda T, a: T.histc(a.x, 3, -1, 1))
case("histogram", lambda T, a: T.histogram(a.x, bins=3))
case("is_nonzero", lambda T, a: T.is_nonzero(a.s), lambda T, a: T.is_nonzero(a.x))
case("is_complex", lambda T, a: T.is_complex(a.x), lambda T, a: T.is_complex(a.x + 0j))
case("is_floating_point", lambda T, a: T.is_floating_point(a.x),
     lambda T, a: T.is_floating_point(a.i))
case("is_same_size", lambda T, a: T.is_same_size(a.x, a.y), lambda T, a: T.is_same_size(a.x, a.m))
case("is_tensor", lambda T, a: T.is_tensor(a.x), lambda T, a: T.is_tensor(3))
case("numel", lambda T, a: T.numel(a.x), lambda T, a: T.numel(a.e))

# -- shapes and movement -----------------------------------------------------------------------
case("reshape", lambda T, a: T.reshape(a.x, (3, 2)), lambda T, a: T.reshape(a.x, (-1,)),
     lambda T, a: T.reshape(a.e, (0, 5)), lambda T, a: T.reshape(a.x, (5,)),
     lambda T, a: T.reshape(a.xt, (-1,)), lambda T, a: T.reshape(a.s, (1, 1)))
case("flatten", lambda T, a: T.flatten(a.x), lambda T, a: T.flatten(a.ones, 1),
     lambda T, a: T.flatten(a.s), lambda T, a: T.flatten(a.ones, 0, 1),
     lambda T, a: T.flatten(a.xt))
case("ravel", lambda T, a: T.ravel(a.xt), lambda T, a: T.ravel(a.s))
case("squeeze", lambda T, a: T.squeeze(a.ones), lambda T, a: T.squeeze(a.ones, 0),
     lambda T, a: T.squeeze(a.ones, 1), lambda T, a: T.squeeze(a.ones, (0, 2)),
     lambda T, a: T.squeeze(a.s), lambda T, a: T.squeeze(a.ones, 3))
case("unsqueeze", lambda T, a: T.unsqueeze(a.x, 0), lambda T, a: T.unsqueeze(a.x, -1),
     lambda T, a: T.unsqueeze(a.s, 0), lambda T, a: T.unsqueeze(a.x, 4))
case("flip", lambda T, a: T.flip(a.x, (0,)), lambda T, a: T.flip(a.x, [0, 1]),
     lambda T, a: T.flip(a.s, (0,)), lambda T, a: T.flip(a.x, dims=(-1,)))
case("fliplr", lambda T, a: T.fliplr(a.x), lambda T, a: T.fliplr(a.v))
case("flipud", lambda T, a: T.flipud(a.x))
case("rot90", lambda T, a: T.rot90(a.x), lambda T, a: T.rot90(a.x, 2),
     lambda T, a: T.rot90(a.x, -1))
case("roll", lambda T, a: T.roll(a.x, 1), lambda T, a: T.roll(a.x, 1, 1),
     lambda T, a: T.roll(a.x, (1, 2), (0, 1)), lambda T, a: T.roll(a.s, 1))
case("permute", lambda T, a: T.permute(a.x, (1, 0)), lambda T, a: T.permute(a.ones, (2, 0, 1)),
     lambda T, a: T.permute(a.x, (0,)), lambda T, a: T.permute(a.s, ()))
case("transpose", lambda T, a: T.transpose(a.x, 0, 1), lambda T, a: T.transpose(a.ones, 0, 2),
     lambda T, a: T.transpose(a.s, 0, -1), lambda T, a: T.transpose(a.x, 0, 2))
case("swapaxes", lambda T, a: T.swapaxes(a.x, 0, 1))
case("swapdims", lambda T, a: T.swapdims(a.ones, 0, 2))
case("movedim", lambda T, a: T.movedim(a.ones, 0, 2),
     lambda T, a: T.movedim(a.ones, (0, 1), (2, 0)))
case("moveaxis", lambda T, a: T.moveaxis(a.ones, -1, 0))
case("t", lambda T, a: T.t(a.x), lambda T, a: T.t(a.v), lambda T, a: T.t(a.s),
     lambda T, a: T.t(a.ones))
case("adjoint", lambda T, a: T.adjoint(a.x), lambda T, a: T.adjoint(a.x + 1j))
case("narrow", lambda T, a: T.narrow(a.x, 1, 0, 2), lambda T, a: T.narrow(a.x, 1, 2, 2))
case("narrow_copy", lambda T, a: T.narrow_copy(a.x, 0, 1, 1))
case("unbind", lambda T, a: T.unbind(a.x), lambda T, a: T.unbind(a.x, 1),
     lambda T, a: T.unbind(a.e))
case("split", lambda T, a: T.split(a.x, 2, 1), lambda T, a: T.split(a.x, [1, 2], 1),
     lambda T, a: T.split(a.x, 1), lambda T, a: T.split(a.x, [1, 1], 1))
case("split_with_sizes", lambda T, a: T.split_with_sizes(a.x, [1, 2], 1))
case("chunk", lambda T, a: T.chunk(a.x, 2, 1), lambda T, a: T.chunk(a.x, 3),
     lambda T, a: T.chunk(a.x, 4, 1))
case("tensor_split", lambda T, a: T.tensor_split(a.x, 2, 1),
     lambda T, a: T.tensor_split(a.x, [1], 1))
case("hsplit", lambda T, a: T.hsplit(a.x, 3), lambda T, a: T.hsplit(a.x, [1]))
case("vsplit", lambda T, a: T.vsplit(a.x, 2))
case("dsplit", lambda T, a: T.dsplit(a.ones, 1))
case("unflatten", lambda T, a: T.unflatten(a.x, 1, (3, 1)),
     lambda T, a: T.unflatten(a.x, 1, (-1, 1)))
case("repeat_interleave", lambda T, a: T.repeat_interleave(a.x, 2),
     lambda T, a: T.repeat_interleave(a.x, 2, dim=0),
     lambda T, a: T.repeat_interleave(a.x, T.tensor([1, 2]), dim=0),
     lambda T, a: T.repeat_interleave(a.x, 2, dim=1, output_size=6),
     lambda T, a: T.repeat_interleave(a.x, 2, dim=1, output_size=5),
     lambda T, a: T.repeat_interleave(T.tensor([1, 2])))
case("tile", lambda T, a: T.tile(a.x, (2,)), lambda T, a: T.tile(a.x, (2, 1, 1)))
case("broadcast_to", lambda T, a: T.broadcast_to(a.col, (2, 4)),
     lambda T, a: T.broadcast_to(a.x, (2, 2, 3)))
case("broadcast_tensors", lambda T, a: T.broadcast_tensors(a.col, a.v))
case("broadcast_shapes", lambda T, a: T.broadcast_shapes((2, 1), (3,)))
case("atleast_1d", lambda T, a: T.atleast_1d(a.s), lambda T, a: T.atleast_1d(a.x),
     lambda T, a: T.atleast_1d(a.s, a.v))
case("atleast_2d", lambda T, a: T.atleast_2d(a.s), lambda T, a: T.atleast_2d(a.v))
case("atleast_3d", lambda T, a: T.atleast_3d(a.v), lambda T, a: T.atleast_3d(a.x))
case("tril", lambda T, a: T.tril(a.x), lambda T, a: T.tril(a.x, -1), lambda T, a: T.tril(a.v))
case("triu", lambda T, a: T.triu(a.x, 1), lambda T, a: T.triu(a.x, diagonal=-1))
case("diag", lambda T, a: T.diag(a.v), lambda T, a: T.diag(a.x), lambda T, a: T.diag(a.v, 1),
     lambda T, a: T.diag(a.x, -1))
case("diagonal", lambda T, a: T.diagonal(a.x), lambda T, a: T.diagonal(a.sq, 1),
     lambda T, a: T.diagonal(a.ones, 0, 0, 2))
case("diag_embed", lambda T, a: T.diag_embed(a.x), lambda T, a: T.diag_embed(a.v, 1))
case("diagflat", lambda T, a: T.diagflat(a.x), lambda T, a: T.diagflat(a.v, -1))
case("clone", lambda T, a: T.clone(a.xt), lambda T, a: T.clone(a.b))
case("cat", lambda T, a: T.cat([a.x, a.y]), lambda T, a: T.cat((a.x, a.y), 1),
     lambda T, a: T.cat([a.x, a.i]), lambda T, a: T.cat([a.x, a.e]),
                        lambda T, a: T.cat([a.x, a.v]),
     lambda T, a: T.cat([a.x, a.y], dim=-1))
case("stack", lambda T, a: T.stack([a.x, a.y]), lambda T, a: T.stack((a.x, a.y), 2),
     lambda T, a: T.stack([a.x, a.v]))
case("hstack", lambda T, a: T.hstack([a.x, a.y]), lambda T, a: T.hstack([a.v, a.w]))
case("vstack", lambda T, a: T.vstack([a.x, a.v]))
case("row_stack", lambda T, a: T.row_stack([a.x, a.y]))
case("dstack", lambda T, a: T.dstack([a.x, a.y]))
case("column_stack", lambda T, a: T.column_stack([a.v, a.w]),
     lambda T, a: T.column_stack([a.x, a.y]))
case("block_diag", lambda T, a: T.block_diag(a.x, a.sq))
case("meshgrid", lambda T, a: T.meshgrid(a.v, a.w, indexing="ij"),
     lambda T, a: T.meshgrid(a.v, a.w, indexing="xy"))
case("cartesian_prod", lambda T, a: T.cartesian_prod(a.v, a.w))
case("combinations", lambda T, a: T.combinations(a.v), lambda T, a: T.combinations(a.v, 3))
case("scatter", lambda T, a: T.scatter(a.x, 1, a.idx, a.y),
     lambda T, a: T.scatter(a.x, 1, a.idx, 0.5),
     lambda T, a: T.scatter(a.x, 1, a.idx, a.y, reduce="add"))
case("scatter_add", lambda T, a: T.scatter_add(a.x, 1, a.idx, a.y))
case("scatter_reduce", lambda T, a: T.scatter_reduce(a.x, 1, a.idx, a.y, "amax"),
     lambda T, a: T.scatter_reduce(a.x, 1, a.idx, a.y, "sum", include_self=False))
case("index_add", lambda T, a: T.index_add(a.x, 1, T.tensor([0, 2]), a.m.t()),
     lambda T, a: T.index_add(a.x, 1, T.tensor([0, 2]), a.m.t(), alpha=2))
case("index_copy", lambda T, a: T.index_copy(a.x, 1, T.tensor([2, 0]), a.m.t()))
case("index_fill", lambda T, a: T.index_fill(a.x, 1, T.tensor([0, 2]), -1.0))
case("index_put", lambda T, a: T.index_put(a.x, (T.tensor([0, 1]), T.tensor([2, 0])),
                                           T.tensor([9.0, 8.0])))
case("index_reduce", lambda T, a: T.index_reduce(a.x, 1, T.tensor([0, 0]), a.m.t(), "prod"))
case("masked_scatter", lambda T, a: T.masked_scatter(a.x, a.b, a.y))
case("put", lambda T, a: T.put(a.x, a.flat, T.tensor([1.0, 2.0, 3.0])))
case("select_scatter", lambda T, a: T.select_scatter(a.x, a.v, 0, 1))
case("slice_scatter", lambda T, a: T.slice_scatter(a.x, a.m.t()[:, :1].contiguous(), 1, 0, 1))
case("diagonal_scatter", lambda T, a: T.diagonal_scatter(a.sq, a.v))
case("renorm", lambda T, a: T.renorm(a.x, 2, 0, 1.0))

# -- products and linear algebra ---------------------------------------------------------------
case("matmul", lambda T, a: T.matmul(a.x, a.m), lambda T, a: T.matmul(a.v, a.w),
     lambda T, a: T.matmul(a.x, a.v), lambda T, a: T.matmul(a.x, a.y),
     lambda T, a: T.matmul(a.i, a.i.t()), lambda T, a: T.matmul(a.xt, a.m))
case("mm", lambda T, a: T.mm(a.x, a.m), lambda T, a: T.mm(a.x, a.v))
case("bmm", lambda T, a: T.bmm(a.x[None], a.m[None]))
case("mv", lambda T, a: T.mv(a.x, a.v))
case("dot", lambda T, a: T.dot(a.v, a.w), lambda T, a: T.dot(a.x, a.y),
     lambda T, a: T.dot(a.v, a.v.to(T.float64)), lambda T, a: T.dot(a.i[0], a.j[0]))
case("vdot", lambda T, a: T.vdot(a.v, a.w))
case("inner", lambda T, a: T.inner(a.v, a.w), lambda T, a: T.inner(a.x, a.y),
     lambda T, a: T.inner(a.x, a.s), lambda T, a: T.inner(a.x, a.m))
case("outer", lambda T, a: T.outer(a.v, a.w), lambda T, a: T.outer(a.v, a.flat))
case("ger", lambda T, a: T.ger(a.v, a.w))
case("cross", lambda T, a: T.cross(a.x, a.y), lambda T, a: T.cross(a.x, a.y, dim=1),
     lambda T, a: T.cross(a.sq, a.sq.flip(0)), lambda T, a: T.cross(a.x[:, :2], a.x[:, :2]),
     lambda T, a: T.cross(a.v.reshape(3, 1), a.sq))
case("kron", lambda T, a: T.kron(a.x, a.sq))
case("tensordot", lambda T, a: T.tensordot(a.x, a.m, 1),
     lambda T, a: T.tensordot(a.x, a.y, ([0, 1], [0, 1])))
case("einsum", lambda T, a: T.einsum("ij,jk->ik", a.x, a.m), lambda T, a: T.einsum("ii", a.sq),
     lambda T, a: T.einsum("ij->j", a.x))
case("chain_matmul", lambda T, a: T.chain_matmul(a.x, a.m, a.x))
case("addmm", lambda T, a: T.addmm(a.sq[:2, :2], a.x, a.m),
     lambda T, a: T.addmm(a.sq[:2, :2], a.x, a.m, beta=0.5, alpha=2))
case("addmv", lambda T, a: T.addmv(a.v[:2], a.x, a.w))
case("addr", lambda T, a: T.addr(a.x, a.v[:2], a.w))
case("addbmm", lambda T, a: T.addbmm(a.sq[:2, :2], a.x[None], a.m[None]))
case("baddbmm", lambda T, a: T.baddbmm(a.sq[None, :2, :2], a.x[None], a.m[None]))
case("addcmul", lambda T, a: T.addcmul(a.x, a.y, a.p, value=0.5))
case("addcdiv", lambda T, a: T.addcdiv(a.x, a.y, a.p, value=2))
case("matrix_power", lambda T, a: T.matrix_power(a.sq, 3), lambda T, a: T.matrix_power(a.sq, 0))
case("det", lambda T, a: T.det(a.sq), lambda T, a: T.det(a.x))
case("logdet", lambda T, a: T.logdet(a.sq @ a.sq.t()))
case("slogdet", lambda T, a: T.slogdet(a.sq))
case("inverse", lambda T, a: T.inverse(a.sq))
case("pinverse", lambda T, a: T.pinverse(a.x))
case("cdist", lambda T, a: T.cdist(a.x, a.y), lambda T, a: T.cdist(a.x, a.y, p=1))
case("pdist", lambda T, a: T.pdist(a.x))
case("cov", lambda T, a: T.cov(a.x), lambda T, a: T.cov(a.x, correction=0),
     lambda T, a: T.cov(a.v),
     lambda T, a: T.cov(a.x, fweights=T.tensor([1, 2, 3])),
     lambda T, a: T.cov(a.x, aweights=a.p[0]), lambda T, a: T.cov(a.i), lambda T, a: T.cov(a.ones))
case("corrcoef", lambda T, a: T.corrcoef(a.x), lambda T, a: T.corrcoef(a.sq))
case("trapezoid", lambda T, a: T.trapezoid(a.x), lambda T, a: T.trapezoid(a.x, dx=0.5, dim=0),
     lambda T, a: T.trapezoid(a.x, a.v))
case("trapz", lambda T, a: T.trapz(a.x))
case("cumulative_trapezoid", lambda T, a: T.cumulative_trapezoid(a.x))
case("gradient", lambda T, a: T.gradient(a.x), lambda T, a: T.gradient(a.x, dim=1))
case("vander", lambda T, a: T.vander(a.v), lambda T, a: T.vander(a.v, N=2, increasing=True))

# -- creation, dtypes and conversion -------------------------------------------------------------
case("tensor", lambda T, a: T.tensor([1, 2]), lambda T, a: T.tensor([1.0, 2]),
     lambda T, a: T.tensor(True), lambda T, a: T.tensor([[1, 2]], dtype=T.float64),
     lambda T, a: T.tensor(_X), lambda T, a: T.tensor([]))
case("as_tensor", lambda T, a: T.as_tensor(_I.copy()), lambda T, a: T.as_tensor([1.5]),
     lambda T, a: T.as_tensor(a.x, dtype=T.float64))
case("asarray", lambda T, a: T.asarray(_B), lambda T, a: T.asarray([1, 2], dtype=T.int32))
case("from_numpy", lambda T, a: T.from_numpy(_Y), lambda T, a: T.from_numpy(_I))
case("zeros", lambda T, a: T.zeros(2, 3), lambda T, a: T.zeros((2,), dtype=T.int32),
     lambda T, a: T.zeros(0))
case("ones", lambda T, a: T.ones(2, 3), lambda T, a: T.ones([3], dtype=T.bool))
case("full", lambda T, a: T.full((2,), 3), lambda T, a: T.full((2,), 1.5),
     lambda T, a: T.full((1,), True), lambda T, a: T.full((2,), 2, dtype=T.float64))
case("eye", lambda T, a: T.eye(3), lambda T, a: T.eye(2, 3), lambda T, a: T.eye(2, dtype=T.int64))
case("arange", lambda T, a: T.arange(5), lambda T, a: T.arange(1, 4, 0.5),
     lambda T, a: T.arange(0, 10, 3), lambda T, a: T.arange(2.0))
case("range", lambda T, a: T.range(1, 4))
case("linspace", lambda T, a: T.linspace(0, 1, 5), lambda T, a: T.linspace(-1, 1, 1))
case("logspace", lambda T, a: T.logspace(0, 2, 3), lambda T, a: T.logspace(0, 2, 3, base=2))
case("zeros_like", lambda T, a: T.zeros_like(a.x), lambda T, a: T.zeros_like(a.i, dtype=T.float32))
case("ones_like", lambda T, a: T.ones_like(a.b), lambda T, a: T.ones_like(a.xt))
case("full_like", lambda T, a: T.full_like(a.x, 7), lambda T, a: T.full_like(a.i, 2.5))
case("empty_like", lambda T, a: meta(T.empty_like(a.i)))
case("empty", lambda T, a: meta(T.empty(2, 3)), lambda T, a: meta(T.empty((0,), dtype=T.int64)))
case("empty_strided", lambda T, a: meta(T.empty_strided((2, 3), (3, 1))))
case("tril_indices", lambda T, a: T.tril_indices(3, 3), lambda T, a: T.tril_indices(3, 4, 1))
case("triu_indices", lambda T, a: T.triu_indices(3, 3), lambda T, a: T.triu_indices(2, 4, -1))
case("promote_types", lambda T, a: T.promote_types(T.int32, T.float32),
     lambda T, a: T.promote_types(T.bool, T.uint8))
case("result_type", lambda T, a: T.result_type(a.i, 2.5), lambda T, a: T.result_type(a.i32, a.x64),
     lambda T, a: T.result_type(a.b, 2))
case("get_default_dtype", lambda T, a: T.get_default_dtype())
case("typename", lambda T, a: T.typename(a.x), lambda T, a: T.typename(a.i))
for _name in ("hann_window", "hamming_window", "bartlett_window", "blackman_window",
              "kaiser_window"):
    case(_name, lambda T, a, n=_name: getattr(T, n)(5),
         lambda T, a, n=_name: getattr(T, n)(4, periodic=False))

# random: the streams are ember's; shapes and dtypes are PyTorch's
case("rand", lambda T, a: meta(T.rand(2, 3)), lambda T, a: meta(T.rand((2,), dtype=T.float64)))
case("randn", lambda T, a: meta(T.randn(3)))
case("randint", lambda T, a: meta(T.randint(0, 5, (2, 3))), lambda T, a: meta(T.randint(4, (2,))))
case("randperm", lambda T, a: meta(T.randperm(4)), lambda T, a: sorted(T.randperm(5).tolist()))
case("rand_like", lambda T, a: meta(T.rand_like(a.x)))
case("randn_like", lambda T, a: meta(T.randn_like(a.x64)))
case("randint_like", lambda T, a: meta(T.randint_like(a.i, 5)))
case("bernoulli", lambda T, a: meta(T.bernoulli(a.p / 2)),
     lambda T, a: T.bernoulli(a.z).sum().item())
case("normal", lambda T, a: meta(T.normal(a.x, 1.0)), lambda T, a: meta(T.normal(0.0, 1.0, (2,))))
case("multinomial", lambda T, a: meta(T.multinomial(a.p, 2)),
     lambda T, a: T.multinomial(T.tensor([0.0, 1.0]), 1).tolist())


# -- the previous audit's leftovers: NumPy operands, None, view of a non-contiguous tensor, sort's
# argument rules (Tensor methods and operators; the functions above dispatch to them)
_NP = np.array([1.0, -2.0, 0.5], dtype=np.float32)
case("__operators__", *[lambda T, a, op=op: op(a.x, _NP) for op in (
    lambda x, n: x + n, lambda x, n: x - n, lambda x, n: x * n, lambda x, n: x / n,
    lambda x, n: x // n, lambda x, n: x % n, lambda x, n: x ** np.abs(n), lambda x, n: x == n,
    lambda x, n: x < n, lambda x, n: x & n, lambda x, n: n + x,
    lambda x, n: n * x, lambda x, n: n / x, lambda x, n: n == x, lambda x, n: n < x,
    lambda x, n: x + n.astype(np.float64), lambda x, n: x @ np.ones((3, 2), np.float32),
    lambda x, n: x + np.bool_(True), lambda x, n: x * np.float64(2.5), lambda x, n: x + n[0],
    lambda x, n: x > np.int64(0), lambda x, n: x == None, lambda x, n: x != None,  # noqa: E711
    lambda x, n: x.__eq__(None) is NotImplemented,
    lambda x, n: x.__ne__(None) is NotImplemented)])
case("__operators__", lambda T, a: a.i + np.float32(0.5), lambda T, a: a.i * np.int32(3),
     lambda T, a: a.b + np.bool_(True), lambda T, a: a.i + np.array([1, 2, 3]),
     lambda T, a: a.b & np.bool_(False), lambda T, a: a.i * np.bool_(True),
     lambda T, a: a.b == np.bool_(True))
# the operators of the binary functions, with the operand patterns of the functions
_OPERATORS = (lambda p, q: p // q, lambda p, q: p % q, lambda p, q: p ** q, lambda p, q: p < q,
              lambda p, q: p & q, lambda p, q: p | q, lambda p, q: p ^ q, lambda p, q: p == q,
              lambda p, q: p + q, lambda p, q: p - q, lambda p, q: p * q, lambda p, q: p / q)
case("__operators__", *[lambda T, a, op=op, p=p: op(*[_arg(a, k) for k in p])
                        for op in _OPERATORS for p in BINARY + [("i", True), ("u8", "i8")]])
case("view", lambda T, a: a.xt.view(-1), lambda T, a: a.xt.view(3, 2),
     lambda T, a: a.xt.view(3, 1, 2), lambda T, a: a.xt.view(6, 1),
                            lambda T, a: a.xt.view(1, 3, 2),
     lambda T, a: a.x[:, ::2].view(4), lambda T, a: a.x[:, 1:].view(2, 2),
     lambda T, a: a.x[:, 1:].view(4), lambda T, a: a.x.expand(2, 2, 3).view(4, 3),
     lambda T, a: a.x.expand(2, 2, 3).view(2, 6), lambda T, a: a.xt.view(5),
     lambda T, a: a.x.view(6), marks=pytest.mark.layout)  # view's stride rule
case("sort", lambda T, a: a.x.sort(0, True), lambda T, a: a.x.sort(0, True, True),
     lambda T, a: a.x.sort(0, stable=True), lambda T, a: a.x.sort(stable=True, dim=0),
     lambda T, a: a.x.sort(stable=1), lambda T, a: T.sort(a.dup, stable=True, descending=True),
     lambda T, a: T.sort(a.x, 0, stable=False), lambda T, a: a.x.sort(axis=0),
     lambda T, a: a.b.sort(1))
case("argsort", lambda T, a: a.x.argsort(0, True), lambda T, a: T.argsort(a.x, 0, stable=True),
     lambda T, a: T.argsort(a.dup, stable=True, dim=1), lambda T, a: a.b.argsort(),
     lambda T, a: T.argsort(a.x, 0, True, True), lambda T, a: T.argsort(a.x, axis=0))


@pytest.mark.parametrize("call", CASES)
def test_function_means_what_torch_means(call):
    check(call)


def _names():
    return {p.id.rsplit("-", 1)[0] for p in CASES} - {"__operators__", "view"}


def test_audit_covers_two_hundred_function_names():
    names = _names()
    assert len(names) >= 200
    assert [n for n in names if not hasattr(torch, n)] == []
    assert [n for n in names if not hasattr(et, n)] == []


def test_every_method_function_is_audited():
    """Each name of the rule (a function that means its Tensor method) has cases here."""
    assert sorted(set(METHOD_FUNCTIONS) - _names()) == []


def test_function_is_its_method():
    """``torch.<name>`` of every name of the rule is functions.py's dispatch to the method, and
    gives what the method gives (here on ints, where ember's own functions differ most)."""
    a = inputs(et)
    for name in METHOD_FUNCTIONS:
        assert getattr(et, name).__module__ == "ember.torch.functions", name
    assert et.div(a.i, a.j).tolist() == a.i.div(a.j).tolist()
    assert et.equal(a.x, a.x) is True


# -- gradients through the functions ---------------------------------------------------------

def _grad(lib, call):
    a = inputs(lib)
    x = lib.tensor(_X, requires_grad=True)
    call(lib, x, a).sum().backward()
    return x.grad


@pytest.mark.parametrize("call", [
    lambda T, x, a: T.div(x, a.p), lambda T, x, a: T.div(2, x + 3),
    lambda T, x, a: T.sub(1, x * x), lambda T, x, a: T.add(x, x * x, alpha=-0.5),
    lambda T, x, a: T.cross(x, a.y), lambda T, x, a: T.inner(x, a.y),
    lambda T, x, a: T.cov(x), lambda T, x, a: T.take(x, a.flat) ** 2,
    lambda T, x, a: T.unbind(x, 1)[2] ** 2, lambda T, x, a: T.var(x, 1),
    lambda T, x, a: T.sort(x, 1).values * a.y, lambda T, x, a: T.max(x, 1).values ** 2,
    lambda T, x, a: T.pow(x, 2), lambda T, x, a: T.xlogy(a.p, x * x + 1),
    lambda T, x, a: T.lerp(x, a.y, 0.3), lambda T, x, a: T.median(x, 1).values,
], ids=["div", "rdiv", "rsub", "add_alpha", "cross", "inner", "cov", "take", "unbind", "var",
        "sort", "max", "pow", "xlogy", "lerp", "median"])
def test_gradient_through_function_matches_torch(call):
    assert_same(canon(_grad(et, call)), canon(_grad(torch, call)), "grad")



def test_ember_keeps_its_own_meanings():
    """The other side of docs/pytorch.md's rows: ``import ember`` keeps the spec's meanings."""
    import ember
    from ember.errors import GraphError, KindError
    i, j = ember.tensor([[3, -4]]), ember.tensor([[2, 2]])
    assert ember.div(i, j).tolist() == [[1, -2]] and ember.div(i, j).dtype == ember.int64
    assert ember.equal(i, i).tolist() == [[True, True]]
    assert isinstance(ember.ones((2, 3)).unbind(0), list)
    assert ember.ones((2, 3, 4)).t().shape == (2, 4, 3)
    x = ember.tensor(_X)
    assert not isinstance(x.real, ember.Tensor) and x.real().tolist() == x.tolist()
    sq = ember.tensor(np.eye(3, dtype=np.float32))
    assert ember.cross(sq, sq.flip(0)).tolist() == torch.linalg.cross(
        torch.eye(3), torch.eye(3).flip(0), dim=-1).tolist()
    with pytest.raises(KindError):
        ember.tensor(_B) + ember.tensor(_B)
    with pytest.raises(KindError):
        x + np.ones(3, np.float32)
    assert ember.atan2(x, 2).shape == (2, 3) and ember.eq(2, x).shape == (2, 3)
    assert ember.sort(x, 0, False, True).values.tolist() == np.sort(_X, 0).tolist()
    y = ember.tensor(_X, requires_grad=True)
    assert (y * 2).backward() is not None and y.grad.tolist() == (2 * np.ones((2, 3))).tolist()
    z = et.tensor(_X, requires_grad=True)
    assert (z * 2).sum().backward() is None
    with pytest.raises(GraphError):
        (z * 2).backward()
