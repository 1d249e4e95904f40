"""Data type functions of the Array API standard."""

import builtins

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError
from ..ops import creation as _creation
from ..devices import as_device
from .._tensor import Tensor
from ._common import _check_device, _dtype

_int = builtins.int
_float = builtins.float
_bool = builtins.bool


# -- data types -----------------------------------------------------------------------------------

def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` cast to ``dtype``. Complex to a real dtype (unspecified by the standard) raises
    ``KindError``: take ``real``, ``imag`` or ``abs`` first.

    >>> import ember.array_api as xp
    >>> xp.astype(xp.asarray([1.5, -2.5]), xp.int32).tolist()
    [1, -2]
    """
    device = _check_device(device, "astype")
    dtype = _dtype(dtype)
    if x.dtype.kind == "complex" and dtype.kind != "complex":
        raise KindError(f"astype: x has dtype {x.dtype.name} and dtype is {dtype.name}; a cast "
                        "from complex to a real dtype would drop the imaginary part: take "
                        "real(x), imag(x) or abs(x) first")
    out = x.cast(dtype)
    if device is not None and device is not out.device:
        return out.to_device(device)
    return out.clone() if copy and out is x else out


def _as_dtype_of(v):
    return v.dtype if isinstance(v, Tensor) else _dtype(v)


def can_cast(from_, to, /):
    """Whether ``from_`` promotes to ``to`` in the standard's lattice: within a kind, and from a
    real float to a complex dtype at least as wide (float64 to complex128, not complex64).

    >>> import ember.array_api as xp
    >>> xp.can_cast(xp.float32, xp.complex64), xp.can_cast(xp.float64, xp.complex64)
    (True, False)
    """
    a, b = _as_dtype_of(from_), _dtype(to)
    return (a.kind == b.kind or (a.kind == "float" and b.kind == "complex")) and \
        _dt.promote_types(a, b) is b


def result_type(*arrays_and_dtypes):
    """The standard's promotion: arrays and dtypes promote fully (0-d arrays too), Python
    scalars are weak."""
    result = None
    scalars = []
    for v in arrays_and_dtypes:
        if isinstance(v, (_bool, _int, _float, complex)):
            scalars.append(v)
            continue
        dt = _as_dtype_of(v)
        result = dt if result is None else _dt.promote_types(result, dt)
    if result is None:
        if not scalars:
            raise InvalidParameterError("result_type: expected at least one array or dtype",
                                        "arrays_and_dtypes", ())
        return _dt.result_type(*scalars)
    if scalars:
        return _dt.result_type(_creation.zeros((1,), dtype=result), *scalars)
    return result


class finfo_object:
    """Limits of a float dtype (``finfo``)."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.bits, self.min, self.max, self.eps, self.smallest_normal = \
            as_device(None, "finfo").backend.dtype_limits(dtype)

    def __repr__(self):
        return f"finfo(dtype={self.dtype.name}, bits={self.bits}, eps={self.eps})"


class iinfo_object:
    """Limits of an int dtype (``iinfo``)."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.bits, self.min, self.max = as_device(None, "iinfo").backend.dtype_limits(dtype)[:3]

    def __repr__(self):
        return f"iinfo(dtype={self.dtype.name}, bits={self.bits}, min={self.min}, max={self.max})"


def finfo(type, /):
    dtype = _as_dtype_of(type)
    dtype = _dt.real_of(dtype)
    if dtype.kind != "float":
        raise KindError(f"finfo: {dtype.name} is not a float dtype")
    return finfo_object(dtype)


def iinfo(type, /):
    dtype = _as_dtype_of(type)
    if dtype.kind != "int":
        raise KindError(f"iinfo: {dtype.name} is not an int dtype")
    return iinfo_object(dtype)


_KIND_TEST = {
    "bool": lambda d: d.kind == "bool",
    "signed integer": lambda d: d.kind == "int" and d.is_signed,
    "unsigned integer": lambda d: d.kind == "int" and not d.is_signed,
    "integral": lambda d: d.kind == "int",
    "real floating": lambda d: d.kind == "float",
    "complex floating": lambda d: d.kind == "complex",
    "numeric": lambda d: d.kind in ("int", "float", "complex"),
}


def isdtype(dtype, kind):
    dtype = _dtype(dtype)
    if isinstance(kind, tuple):
        return builtins.any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KIND_TEST:
            raise InvalidParameterError(f"isdtype: kind {kind!r} is not one of "
                                        f"{sorted(_KIND_TEST)}", "kind", kind)
        return _KIND_TEST[kind](dtype)
    return dtype is _dtype(kind)
