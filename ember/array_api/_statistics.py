"""Statistical and utility functions of the Array API standard."""

import builtins
import math

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError
from ..ops import creation as _creation
from ..ops.segments import cat as _cat
from ._common import _axis, _dtype, _plain
from ._manipulation import concat


# -- statistics and utilities ---------------------------------------------------------------------

def _sum_dtype(x, dtype, op):
    """The accumulation dtype of sum, prod and the cumulative ones: ``dtype``, or the standard's
    default (int64/uint64 for ints and bools, the input's dtype for floats and complex)."""
    if dtype is not None:
        dtype = _dtype(dtype)
        if x.dtype.kind == "complex" and dtype.kind != "complex":
            raise KindError(f"{op}: x has dtype {x.dtype.name} and dtype is {dtype.name}; "
                            "expected a complex dtype (a real one would drop the imaginary "
                            "part)")
        return dtype
    if x.dtype.kind == "int":
        return _dt.uint64 if not x.dtype.is_signed else _dt.int64
    if x.dtype.kind == "bool":
        return _dt.int64
    return x.dtype


def sum(x, /, *, axis=None, dtype=None, keepdims=False):  # noqa: A001
    dt = _sum_dtype(x, dtype, "sum")
    return x.cast(dt).sum(dim=_axis(axis), keepdim=keepdims).cast(dt)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    dt = _sum_dtype(x, dtype, "prod")
    return x.cast(dt).prod(dim=_axis(axis), keepdim=keepdims).cast(dt)


def mean(x, /, *, axis=None, keepdims=False):
    return x.mean(dim=_axis(axis), keepdim=keepdims)


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _plain(x.max(dim=_axis(axis), keepdim=keepdims))


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _plain(x.min(dim=_axis(axis), keepdim=keepdims))


def _dims(x, axis):
    if axis is None:
        return tuple(range(x.ndim))
    return tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    if x.dtype.kind == "complex":      # the standard's var and std take real floats only
        raise _dt.complex_error("var", "x", x.dtype)
    dims = _dims(x, axis)
    n = math.prod(x.shape[d] for d in dims)
    m = x.mean(dim=dims, keepdim=True)
    ss = ((x - m) ** 2).sum(dim=dims, keepdim=keepdims)
    return ss / builtins.max(n - correction, 0)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    if x.dtype.kind == "complex":
        raise _dt.complex_error("std", "x", x.dtype)
    return var(x, axis=axis, correction=correction, keepdims=keepdims).sqrt()


def _cumulative(op, x, axis, dtype, include_initial):
    if axis is None:
        if x.ndim > 1:
            raise InvalidParameterError(
                f"{op}: axis is needed for a {x.ndim}-d tensor", "axis", axis)
        axis = 0
    x = x.cast(_sum_dtype(x, dtype, op))
    if x.ndim == 0:
        x = x.reshape(1)
    out = (x.cumsum(axis) if op == "cumulative_sum" else x.cumprod(axis)).cast(x.dtype)
    if include_initial:
        shape = list(x.shape)
        shape[axis] = 1
        first = _creation.full(tuple(shape), 0 if op == "cumulative_sum" else 1, dtype=x.dtype,
                        device=x.device)
        out = _cat([first, out], axis)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    return _cumulative("cumulative_sum", x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    return _cumulative("cumulative_prod", x, axis, dtype, include_initial)


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return x.all(dim=_axis(axis), keepdim=keepdims)


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return x.any(dim=_axis(axis), keepdim=keepdims)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concat(parts, axis=axis)
    for _ in range(n):
        size = x.shape[axis]
        x = x.narrow(axis, 1, builtins.max(size - 1, 0)) - x.narrow(axis, 0,
                                                                     builtins.max(size - 1, 0))
    return x

