"""Argument checks shared by the neural-network ops (ember/ops/activation.py, conv.py,
pool.py, normalization.py, loss.py ...): float inputs, ints, pairs, reals, reductions."""

import math

from .. import dtypes as _dt
from ..backends.guard import check_shaped
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import normalize_dim
from .._tensor import Tensor, check_tensor, device_error


REDUCTIONS = ("none", "mean", "sum")


# -- argument checks ----------------------------------------------------------------------------

def _float_tensor(x, op, param="input"):
    """``x`` itself; InvalidParameterError unless a Tensor, KindError unless a float one."""
    if not isinstance(x, Tensor):
        check_tensor(x, op, param)  # raises
    if x._dtype.kind != "float":
        if x._dtype.kind == "complex":  # docs/complex.md: nn takes real tensors only
            raise _dt.complex_error(op, param, x._dtype)
        raise KindError(f"{op}: {param} has dtype {x._dtype.name}; expected a float tensor "
                        f"(cast it with .float())")
    return x


def _opt_float(x, op, param):
    return None if x is None else _float_tensor(x, op, param)


def _float_math(x, op, param="input"):
    """A float tensor for float math: floats as they are, ints in the default float dtype. The
    op computes a result of its shape, which must fit in memory (``guard.check_shaped``)."""
    if not isinstance(x, Tensor):
        check_tensor(x, op, param)  # raises
    kind = x._dtype.kind
    if kind == "float":
        check_shaped(op, x._data, x._dtype.itemsize)
        return x
    if kind == "int":
        check_shaped(op, x._data, _dt.default_float.itemsize)
        return x.cast(_dt.default_float)
    if kind == "complex":  # docs/complex.md: nn takes real tensors only
        raise _dt.complex_error(op, param, x._dtype)
    raise KindError(f"{op}: not defined for bool tensors ({param}); expected a float or int "
                    "tensor")


def _backend(tensors, op):
    """The backend of the given tensors (None entries skipped; the first is a tensor);
    DeviceError naming two devices that differ."""
    first = tensors[0]
    device = first._device
    for t in tensors:
        if t is not None and t._device is not device:
            raise device_error(op, first, t)
    return device.backend


def _common(tensors):
    """The promoted float dtype of the given tensors (None entries skipped)."""
    dt = None
    for t in tensors:
        if t is not None:
            d = t._dtype
            dt = d if dt is None or d is dt else _dt.promote_types(dt, d)
    return dt


def _int(value, op, param, low=None):
    if value.__class__ is int and (low is None or value >= low):  # the common case, one test
        return value
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise InvalidParameterError(
            f"{op}: {param} must be an int, got {type(value).__name__} {value!r}", param, value)
    value = value.__index__()
    if low is not None and value < low:
        raise InvalidParameterError(f"{op}: {param} is {value}; expected an int >= {low}",
                                    param, value)
    return value


def _pair(value, op, param, low):
    """An int or a pair of ints, each >= ``low``, as a tuple of two ints."""
    cls = type(value)
    if cls is int and value >= low:  # the common spellings, checked in a few operations
        return value, value
    if cls is tuple and len(value) == 2 and type(value[0]) is int is type(value[1]) and \
            value[0] >= low and value[1] >= low:
        return value
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise InvalidParameterError(
                f"{op}: {param} {tuple(value)!r} must be an int or a pair of ints", param, value)
        out = tuple(_int(v, op, param) for v in value)
    else:
        v = _int(value, op, param)
        out = (v, v)
    for v in out:
        if v < low:
            raise InvalidParameterError(
                f"{op}: {param} is {value!r}; expected ints >= {low}", param, value)
    return out


def _real(value, op, param, low=None, high=None):
    cls = value.__class__
    if cls is not float and cls is not int and (
            isinstance(value, bool) or not isinstance(value, (int, float))):
        item = getattr(value, "item", None)
        if item is None or isinstance(value, bool):
            raise InvalidParameterError(
                f"{op}: {param} must be a real number, got {type(value).__name__} {value!r}",
                param, value)
        held = value
        value = item()
        if isinstance(value, complex):  # a complex 0-d tensor: no real number to take
            raise _dt.complex_error(op, param, held.dtype)
    value = float(value)
    if math.isnan(value) or (low is not None and value < low) or (
            high is not None and value > high):
        rng = f"in [{low}, {high}]" if high is not None else f">= {low}" if low is not None \
            else "that is not NaN"
        raise InvalidParameterError(f"{op}: {param} is {value}; expected a number {rng}",
                                    param, value)
    return value


def _reduction(reduction, op):
    if reduction not in REDUCTIONS:
        raise InvalidParameterError(
            f"{op}: reduction {reduction!r} is unknown; expected 'none', 'mean' or 'sum'",
            "reduction", reduction)
    return reduction


def _shape_str(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _rank(x, ranks, op, what, param="input"):
    if x.ndim not in ranks:
        want = " or ".join(f"{r}-d" for r in ranks)
        raise ShapeMismatchError(
            f"{op}: {param} has shape {_shape_str(x.shape)} ({x.ndim}-d); expected a {want} "
            f"tensor {what}", expected=what, actual=tuple(x.shape))


def _softmax_dim(x, dim, op):
    nd = x.ndim
    if dim is None:
        return 0 if nd in (0, 1, 3) else 1  # PyTorch's implicit choice
    if nd == 0:
        d = normalize_dim(dim, 1, op)
        return d
    return normalize_dim(dim, nd, op)
