"""ONNX converters of elementwise math, activations, comparisons, logic and reductions.

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> CONVERTERS["LeakyRelu"]([ember.tensor([-1.0, 2.0])], {"alpha": 0.5}, Context(18)).tolist()
[-0.5, 2.0]
"""

import math

import ember
import ember.nn.functional as F

from .registry import axes_arg, axis_of, converter, ints, scalar, widened


def _same(fn):
    return lambda x, a, c: fn(*x)


converter("Add")(_same(lambda p, q: p + q))
converter("Sub")(_same(lambda p, q: p - q))
converter("Mul")(_same(lambda p, q: p * q))
converter("Neg")(_same(lambda p: -p))
converter("Abs")(_same(lambda p: p.abs()))
converter("Sqrt")(_same(lambda p: p.sqrt()))
converter("Exp")(_same(lambda p: p.exp()))
converter("Log")(_same(lambda p: p.log()))
converter("Erf")(_same(lambda p: p.erf()))
converter("Reciprocal")(_same(lambda p: p.reciprocal()))
converter("Floor")(_same(lambda p: p.floor()))
converter("Ceil")(_same(lambda p: p.ceil()))
converter("Round")(_same(lambda p: p.round()))
converter("Sign")(_same(lambda p: p.sign()))
converter("Sin")(_same(lambda p: p.sin()))
converter("Cos")(_same(lambda p: p.cos()))
converter("Tan")(_same(lambda p: p.tan()))
converter("Atan")(_same(lambda p: p.atan()))
converter("Relu")(_same(F.relu))
converter("Sigmoid")(_same(F.sigmoid))
converter("Tanh")(_same(F.tanh))
converter("Equal")(_same(lambda p, q: p == q))
converter("Less")(_same(lambda p, q: p < q))
converter("LessOrEqual")(_same(lambda p, q: p <= q))
converter("Greater")(_same(lambda p, q: p > q))
converter("GreaterOrEqual")(_same(lambda p, q: p >= q))
converter("Not")(_same(lambda p: p.logical_not()))
converter("And")(_same(lambda p, q: p.logical_and(q)))
converter("Or")(_same(lambda p, q: p.logical_or(q)))
converter("Xor")(_same(lambda p, q: p.logical_xor(q)))
converter("Where")(_same(ember.where))
converter("IsNaN")(_same(lambda p: p.isnan()))


@converter("Div")
def div(x, a, c):
    p, q = x
    if p.kind == "int":  # ONNX divides ints with truncation
        return (p - p.fmod(q)).div(q)
    return p / q


@converter("Mod")
def mod(x, a, c):
    p, q = x
    return p.fmod(q) if a.get("fmod", 0) else p.remainder(q)


@converter("Pow")
def pow_(x, a, c):
    p, q = x
    return p.pow(q).cast(p.dtype)


def _fold(fn, mean=False):
    def conv(x, a, c):
        out = x[0]
        for t in x[1:]:
            out = fn(out, t)
        return out / len(x) if mean else out
    return conv


converter("Max")(_fold(ember.maximum))
converter("Min")(_fold(ember.minimum))
converter("Sum")(_fold(lambda p, q: p + q))
converter("Mean")(_fold(lambda p, q: p + q, mean=True))


@converter("LeakyRelu")
def leaky_relu(x, a, c):
    alpha = a.get("alpha", 0.01)
    return ember.where(x[0] >= 0, x[0], x[0] * alpha)


@converter("Elu")
def elu(x, a, c):
    alpha = a.get("alpha", 1.0)
    return ember.where(x[0] > 0, x[0], (x[0].exp() - 1) * alpha)


@converter("Selu")
def selu(x, a, c):
    alpha, gamma = a.get("alpha", 1.67326319217681884765625), a.get("gamma", 1.05070102214813232421875)
    return ember.where(x[0] > 0, x[0], (x[0].exp() - 1) * alpha) * gamma


@converter("PRelu")
def prelu(x, a, c):
    t, slope = x
    if slope.ndim == 1 and t.ndim > 2 and slope.shape[0] == t.shape[1] != t.shape[-1]:
        slope = slope.reshape((-1,) + (1,) * (t.ndim - 2))  # one slope per channel
    return ember.where(t >= 0, t, t * slope)


@converter("HardSigmoid")
def hard_sigmoid(x, a, c):
    return (x[0] * a.get("alpha", 0.2) + a.get("beta", 0.5)).clamp(0.0, 1.0)


@converter("HardSwish")
def hard_swish(x, a, c):
    return x[0] * (x[0] / 6 + 0.5).clamp(0.0, 1.0)


@converter("Softplus")
def softplus(x, a, c):
    return ember.where(x[0] > 20, x[0], (x[0].exp() + 1).log())


@converter("Gelu")
def gelu(x, a, c):
    return F.gelu(x[0], approximate=a.get("approximate", "none"))


def _coerced(fn):
    """Softmax/LogSoftmax: opsets before 13 flatten to 2-D at ``axis`` (default 1)."""
    def conv(x, a, c):
        t = x[0]
        if c.opset >= 13:
            return fn(t, a.get("axis", -1))
        axis = axis_of(a.get("axis", 1), t.ndim)
        lead = math.prod(t.shape[:axis])
        return fn(t.reshape(lead, -1), 1).reshape(*t.shape)
    return conv


converter("Softmax")(widened(_coerced(lambda t, d: F.softmax(t, dim=d))))
converter("LogSoftmax")(widened(_coerced(lambda t, d: F.log_softmax(t, dim=d))))


@converter("Clip")
def clip(x, a, c):
    t = x[0]
    lo = scalar(x[1]) if len(x) > 1 else a.get("min")
    hi = scalar(x[2]) if len(x) > 2 else a.get("max")
    return t.clamp(lo, hi) if (lo is not None or hi is not None) else t


# ONNX's narrow float formats (carried as float32 values, see narrow.py): mantissa bits, the
# exponent of the smallest normal, the largest finite value, whether -0 and inf are absent (the
# "fnuz" formats), and what an overflow becomes without saturation (None: always saturates)
_FLOATS = {17: (3, -6, 448.0, False, math.nan), 18: (3, -7, 240.0, True, math.nan),
           19: (2, -14, 57344.0, False, math.inf), 20: (2, -15, 57344.0, True, math.nan),
           23: (1, 0, 6.0, False, None)}
# the narrow ints (carried as int8/uint8): range and carrier
_INTS = {21: (0, 15, ember.uint8), 22: (-8, 7, ember.int8), 25: (0, 3, ember.uint8),
         26: (-2, 1, ember.int8)}


def _exponent(ax):
    """floor(log2(ax)) of the positive finite float64 tensor ``ax``, exactly (log2's rounding
    is corrected against exact powers of two)."""
    e = ax.log2().floor()
    e = ember.where(ember.pow(2.0, e) > ax, e - 1, e)
    return ember.where(ember.pow(2.0, e + 1) <= ax, e + 1, e)


def _round_float(t, code, saturate):
    mbits, emin, fmax, fnuz, overflow = _FLOATS[code]
    x = t.cast(ember.float64)
    ax = x.abs()
    ordinary = ax.isfinite().logical_and(ax > 0)
    e = _exponent(ember.where(ordinary, ax, 1.0))
    ulp = ember.pow(2.0, e.clamp(min=emin) - mbits)
    r = (x / ulp).round() * ulp  # round half to even at the format's last mantissa bit
    big = r.abs() > fmax
    if saturate or overflow is None:
        r = ember.where(big, x.sign() * fmax, r)
    else:
        r = ember.where(big, x.sign() * overflow, r)
    if overflow is None:  # float4 has no NaN: ml_dtypes (onnx's reference) gives -0
        r = ember.where(x.isnan(), -0.0, r)
    if fnuz:  # no negative zero: -0 + 0 is +0
        r = r + 0.0
    return r.cast(ember.float32)


def _round_e8m0(t, saturate, mode):
    x = t.cast(ember.float64).abs()
    ordinary = x.isfinite().logical_and(x > 0)
    safe = ember.where(ordinary, x, 1.0)
    e = _exponent(safe)
    frac = safe / ember.pow(2.0, e)  # in [1, 2)
    if mode == "up":
        e = ember.where(frac > 1, e + 1, e)
    elif mode == "nearest":
        e = ember.where(frac >= 1.5, e + 1, e)
    e = ember.where(x == 0, -127.0, e)
    if saturate:
        e = ember.where(x.isinf(), 127.0, e).clamp(-127, 127)
    r = ember.pow(2.0, e)
    bad = x.isnan() if saturate else x.isnan().logical_or(x.isinf()).logical_or(e > 127)
    return ember.where(bad, math.nan, r).cast(ember.float32)


def _round_int(t, code):
    lo, hi, carrier = _INTS[code]
    v = t.trunc() if t.kind == "float" else t
    inside = (v >= lo).logical_and(v <= hi)  # NaN compares False
    return ember.where(inside, v, 0).cast(carrier)


def to_format(t, code, saturate=True, round_mode="up"):
    """``t`` rounded to ONNX's narrow element type ``code`` (float8, float4, int4, int2), as its
    ember carrier (float32, int8 or uint8): float formats round half to even, and out-of-range
    values saturate or overflow as ``Cast``'s table says; ints truncate and (as onnx's reference)
    values out of range become 0; float8e8m0 rounds to a power of two by ``round_mode``.

    >>> import ember
    >>> to_format(ember.tensor([0.3, 500.0, -1e-9]), 17).tolist()  # float8 e4m3fn
    [0.3125, 448.0, -0.0]
    """
    if code in _FLOATS:
        return _round_float(t, code, saturate)
    if code in _INTS:
        return _round_int(t, code)
    return _round_e8m0(t, saturate, round_mode)


def _cast(t, code, a):
    from .narrow import NARROW
    from .proto import ember_dtype
    if code in NARROW:
        return to_format(t, code, bool(a.get("saturate", 1)), a.get("round_mode", "up"))
    return t.cast(ember_dtype(code))


@converter("Cast")
def cast(x, a, c):
    return _cast(x[0], a["to"], a)


@converter("CastLike")
def cast_like(x, a, c):
    code = c.types[1] if len(c.types) > 1 else 0
    return _cast(x[0], code, a) if code else x[0].cast(x[1].dtype)


def _reduce(fn, empty=None):
    """A reduction converter; ``empty(t)`` is the value of a reduction over no elements
    (ONNX: -inf for ReduceMax, +inf for ReduceMin ..., the dtype's bound for ints)."""
    def conv(x, a, c):
        t = x[0]
        axes = axes_arg(x, a)
        keep = bool(a.get("keepdims", 1))
        if not axes:
            if a.get("noop_with_empty_axes", 0):
                return t
            axes = list(range(t.ndim))
        dims = tuple(axis_of(d, t.ndim) for d in axes)
        if empty is not None and any(t.shape[d] == 0 for d in dims):
            shape = [1 if i in dims else n for i, n in enumerate(t.shape) if keep or i not in dims]
            return ember.full(shape, empty(t), dtype=t.dtype, device=t.device)
        out = fn(t, dims, keep)
        return out.cast(t.dtype) if t.kind == "int" and out.dtype != t.dtype else out
    return conv


def _bound(t, top):
    """The largest (``top``) or smallest value of ``t``'s dtype: +-inf, True/False, int range."""
    if t.kind == "bool":
        return top
    if t.kind == "float":
        return math.inf if top else -math.inf
    bits = 8 * t.dtype.itemsize
    if not t.dtype.is_signed:
        return 2 ** bits - 1 if top else 0
    return 2 ** (bits - 1) - 1 if top else -2 ** (bits - 1)


converter("ReduceSum")(_reduce(lambda t, d, k: t.sum(dim=d, keepdim=k)))
converter("ReduceMean")(_reduce(lambda t, d, k: t.mean(dim=d, keepdim=k)))
converter("ReduceMax")(_reduce(lambda t, d, k: t.max(dim=d, keepdim=k), lambda t: _bound(t, False)))
converter("ReduceMin")(_reduce(lambda t, d, k: t.min(dim=d, keepdim=k), lambda t: _bound(t, True)))
converter("ReduceProd")(_reduce(lambda t, d, k: t.prod(dim=d, keepdim=k)))
converter("ReduceL2")(_reduce(lambda t, d, k: (t * t).sum(dim=d, keepdim=k).sqrt()))
converter("ReduceL1")(_reduce(lambda t, d, k: t.abs().sum(dim=d, keepdim=k)))
converter("ReduceSumSquare")(_reduce(lambda t, d, k: (t * t).sum(dim=d, keepdim=k)))
converter("ReduceLogSumExp")(_reduce(
    lambda t, d, k: (t - t.max(dim=d, keepdim=True).detach()).exp().sum(dim=d, keepdim=k).log()
    + (t.max(dim=d, keepdim=True).detach() if k else
       t.max(dim=d, keepdim=True).detach().reshape(*[n for i, n in enumerate(t.shape)
                                                     if i not in d])),
    lambda t: -math.inf))


def _arg(fn):
    def conv(x, a, c):
        t = x[0]
        axis = axis_of(a.get("axis", 0), t.ndim)
        if a.get("select_last_index", 0):
            n = t.shape[axis]
            return (n - 1) - fn(t.flip([axis]), axis, bool(a.get("keepdims", 1)))
        return fn(t, axis, bool(a.get("keepdims", 1)))
    return conv


converter("ArgMax")(_arg(lambda t, d, k: t.argmax(d) if k else t.argmax(d).squeeze(d)))
converter("ArgMin")(_arg(lambda t, d, k: t.argmin(d) if k else t.argmin(d).squeeze(d)))


@converter("CumSum")
def cumsum(x, a, c):
    t, axis = x[0], axis_of(ints(x[1])[0], x[0].ndim)
    if a.get("reverse", 0):
        t = t.flip([axis])
    out = t.cumsum(axis)
    if a.get("exclusive", 0):
        out = out - t
    out = out.cast(x[0].dtype)
    return out.flip([axis]) if a.get("reverse", 0) else out
