"""Element-wise functions of the Array API standard: renames of ember's ops,
with the standard's promotion, and the functions it defines differently."""

import math

from .. import dtypes as _dt
from .. import shapes as _shapes
from ..errors import DeviceError, InvalidParameterError, KindError
from ..ops import creation as _creation
from ..ops.masking import where as _where
from .._tensor import Tensor, wrap
from ._data_types import result_type


# -- element-wise ---------------------------------------------------------------------------------

def _binary(name, method):
    def fn(x1, x2, /):
        if isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1.dtype is not x2.dtype:
            dt = _dt.promote_types(x1.dtype, x2.dtype)
            x1, x2 = x1.cast(dt), x2.cast(dt)
        elif not isinstance(x1, Tensor):
            if not isinstance(x2, Tensor):
                raise InvalidParameterError(
                    f"{name}: x1 and x2 are both {type(x1).__name__} and {type(x2).__name__}; "
                    "expected at least one array", "x1", x1)
            x1 = _creation.full((), x1, dtype=result_type(x2, x1), device=x2.device)
        elif not isinstance(x2, Tensor):
            x2 = _creation.full((), x2, dtype=result_type(x1, x2), device=x1.device)
        return method(x1, x2)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The Array API's ``{name}``: ember's ``{method.__name__}``, with the standard's " \
                 "promotion (0-d arrays are not weak)."
    return fn


def _unary(name, method):
    def fn(x, /):
        return method(x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"The Array API's ``{name}``: ember's ``{method.__name__}``."
    return fn


_UNARY = {
    "abs": Tensor.abs, "acos": Tensor.acos, "acosh": Tensor.acosh, "asin": Tensor.asin,
    "asinh": Tensor.asinh, "atan": Tensor.atan, "atanh": Tensor.atanh,
    "bitwise_invert": Tensor.bitwise_not, "ceil": Tensor.ceil, "cos": Tensor.cos,
    "cosh": Tensor.cosh, "exp": Tensor.exp, "expm1": Tensor.expm1, "floor": Tensor.floor,
    "isfinite": Tensor.isfinite, "isinf": Tensor.isinf, "isnan": Tensor.isnan,
    "log": Tensor.log, "log1p": Tensor.log1p, "logical_not": Tensor.logical_not,
    "negative": Tensor.neg, "positive": Tensor.positive, "reciprocal": Tensor.reciprocal,
    "sin": Tensor.sin, "sinh": Tensor.sinh, "square": Tensor.square,
    "sqrt": Tensor.sqrt, "tan": Tensor.tan, "tanh": Tensor.tanh, "trunc": Tensor.trunc,
}

_BINARY = {
    "add": Tensor.add, "atan2": Tensor.atan2, "bitwise_and": Tensor.bitwise_and,
    "bitwise_left_shift": Tensor.bitwise_left_shift, "bitwise_or": Tensor.bitwise_or,
    "bitwise_right_shift": Tensor.bitwise_right_shift, "bitwise_xor": Tensor.bitwise_xor,
    "divide": Tensor.true_divide, "equal": Tensor.equal,
    "greater": Tensor.greater, "greater_equal": Tensor.greater_equal,
    "less": Tensor.lower, "less_equal": Tensor.lower_equal, "logical_and": Tensor.logical_and,
    "logical_or": Tensor.logical_or, "logical_xor": Tensor.logical_xor,
    "maximum": Tensor.maximum, "minimum": Tensor.minimum, "multiply": Tensor.mul,
    "not_equal": Tensor.not_equal, "pow": Tensor.pow, "remainder": Tensor.remainder,
    "subtract": Tensor.sub,
}

for _name, _m in _UNARY.items():
    globals()[_name] = _unary(_name, _m)
for _name, _m in _BINARY.items():
    globals()[_name] = _binary(_name, _m)
del _name, _m


def sign(x, /):
    """The sign; NaN stays NaN, as the standard asks (ember's ``sign`` gives 0). Complex:
    ``x / |x|`` and 0 at 0 (ember's ``sign``, PyTorch's ``sgn``).

    >>> import ember.array_api as xp
    >>> xp.sign(xp.asarray([-2.0, 0.0, 3.0])).tolist()
    [-1.0, 0.0, 1.0]
    """
    out = x.sign()
    return _where(x.isnan(), x, out) if x.dtype.kind == "float" else out


def round(x, /):  # noqa: A001
    return x.round()


def log2(x, /):
    """The base-2 logarithm (complex: ember's ``log2``).

    >>> import ember.array_api as xp
    >>> xp.log2(xp.asarray([1.0, 4.0])).tolist()
    [0.0, 2.0]
    """
    if x.dtype.kind == "complex":
        return x.log2()
    return x.log() / math.log(2.0)


def log10(x, /):
    """The base-10 logarithm (complex: ember's ``log10``).

    >>> import ember.array_api as xp
    >>> xp.log10(xp.asarray([1.0, 100.0], dtype=xp.float64)).tolist()
    [0.0, 2.0]
    """
    if x.dtype.kind == "complex":
        return x.log10()
    return x.log() / math.log(10.0)


def logaddexp(x1, x2, /):
    x1, x2 = _binary("logaddexp", lambda a, b: (a, b))(x1, x2)
    big = maximum(x1, x2)
    finite = big.isfinite()
    safe = _where(finite, big, _creation.zeros_like(big))
    # max + log1p(exp(min - max)): exact where exp(min - max) is below the rounding of 1 + it
    return _where(finite, safe + (minimum(x1, x2) - safe).exp().log1p(), big)


def _pair(op, x1, x2):
    """``x1`` and ``x2`` as tensors of their promoted dtype (the standard's promotion)."""
    return _binary(op, lambda a, b: (a, b))(x1, x2)


def _real_float(op, param, x):
    if x.dtype.kind != "float":
        if x.dtype.kind == "complex":
            raise _dt.complex_error(op, param, x.dtype)
        raise KindError(f"{op}: {param} has dtype {x.dtype.name}; expected a real float tensor "
                        "(float32 or float64)")


def floor_divide(x1, x2, /):
    """The floor of ``x1 / x2`` with the standard's promotion and, for floats, its special cases
    (``x // ±inf`` is ±0, ``±inf // x`` is ±inf: ember's ``//``).

    >>> import ember.array_api as xp
    >>> x1, x2 = xp.asarray([7.0, -7.0, 1.0, -1.0]), xp.asarray([2.0, 2.0, xp.inf, xp.inf])
    >>> xp.floor_divide(x1, x2).tolist()
    [3.0, -4.0, 0.0, -0.0]
    """
    x1, x2 = _pair("floor_divide", x1, x2)
    return x1.floor_divide(x2)


def nextafter(x1, x2, /):
    """The next float after ``x1`` in the direction of ``x2`` (the dtype of ``x1``).

    >>> import ember.array_api as xp
    >>> xp.nextafter(xp.asarray([1.0], dtype=xp.float64), 2.0).item() - 1.0 == 2.0 ** -52
    True
    """
    if isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1.dtype is not x2.dtype:
        _real_float("nextafter", "x1", x1)
        _real_float("nextafter", "x2", x2)
        raise KindError(f"nextafter: x1 has dtype {x1.dtype.name} and x2 {x2.dtype.name}; "
                        "expected one float dtype")
    x1, x2 = _pair("nextafter", x1, x2)
    _real_float("nextafter", "x1", x1)
    if x1._device is not x2._device:
        raise DeviceError(f"nextafter: x1 is on {x1.device} and x2 on {x2.device}; "
                             "expected one device")
    _shapes.broadcast_shapes(x1.shape, x2.shape, op="nextafter")
    return wrap(x1._device.backend.ew_nextafter(x1._data, x2._data), x1.dtype)


def signbit(x, /):
    """Whether the sign bit is set: true for negative values, -0.0, -inf and a NaN with its
    sign bit set.

    >>> import ember.array_api as xp
    >>> xp.signbit(xp.asarray([-0.0, 0.0, -xp.inf, 2.0])).tolist()
    [True, False, True, False]
    """
    kind = x.dtype.kind
    if kind != "float":
        if kind == "complex":
            raise _dt.complex_error("signbit", "x", x.dtype)
        return x < 0
    # no arithmetic shows a NaN's sign bit: the backend's signbit kernel reads it
    return wrap(x._device.backend.ew_signbit(x._data), _dt.bool_)


def copysign(x1, x2, /):
    """The magnitude of ``x1`` with the sign bit of ``x2`` (NaNs included).

    >>> import ember.array_api as xp
    >>> xp.copysign(xp.asarray([1.5, -2.0, 3.0]), xp.asarray([-1.0, 1.0, -0.0])).tolist()
    [-1.5, 2.0, -3.0]
    """
    x1, x2 = _pair("copysign", x1, x2)
    mag = x1.abs()
    return _where(signbit(x2), -mag, mag)


def hypot(x1, x2, /):
    """``sqrt(x1 ** 2 + x2 ** 2)`` without overflow (ember's ``hypot``).

    >>> import ember.array_api as xp
    >>> xp.hypot(xp.asarray([3.0]), 4.0).tolist()
    [5.0]
    """
    x1, x2 = _pair("hypot", x1, x2)
    return x1.hypot(x2)


def clip(x, /, min=None, max=None):  # noqa: A002
    """``x`` clamped to ``[min, max]`` (the bounds broadcast; a NaN bound gives NaN), in the
    dtype of ``x``.

    >>> import ember.array_api as xp
    >>> xp.clip(xp.asarray([-2.0, 0.5, 3.0]), min=-1.0, max=1.0).tolist()
    [-1.0, 0.5, 1.0]
    """
    if min is None and max is None:
        return x
    if x.dtype.kind == "complex":
        raise _dt.complex_error("clip", "x", x.dtype)
    out = x
    for bound, beyond in ((min, Tensor.lower), (max, Tensor.greater)):
        if bound is None:
            continue
        b = bound.cast(x.dtype) if isinstance(bound, Tensor) else bound
        hit = beyond(out, b)
        if x.dtype.kind == "float" and (isinstance(bound, Tensor) or bound != bound):
            hit = hit | (b.isnan() if isinstance(b, Tensor) else True)
        out = _where(hit, b, out)
    return out.cast(x.dtype)


def real(x, /):
    """The real part (ember's ``real``; a real tensor: itself).

    >>> import ember.array_api as xp
    >>> xp.real(xp.asarray([1.5])).tolist()
    [1.5]
    """
    return x.real() if x.dtype.kind == "complex" else x


def imag(x, /):
    """The imaginary part (ember's ``imag``; a real tensor: zeros).

    >>> import ember.array_api as xp
    >>> xp.imag(xp.asarray([1.5])).tolist()
    [0.0]
    """
    return x.imag() if x.dtype.kind == "complex" else _creation.zeros_like(x)


def conj(x, /):
    """The complex conjugate (ember's ``conj``; a real tensor: itself).

    >>> import ember.array_api as xp
    >>> xp.conj(xp.asarray([1.5])).tolist()
    [1.5]
    """
    return x.conj() if x.dtype.kind == "complex" else x
