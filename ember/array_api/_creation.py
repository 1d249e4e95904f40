"""Creation functions of the Array API standard."""

import builtins

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError
from ..ops import creation as _creation
from ..ops.dlpack import from_dlpack
from .._tensor import Tensor
from ._common import _check_device, _dtype

_int = builtins.int


# -- creation -------------------------------------------------------------------------------------

def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """A tensor of ``obj`` (a Tensor, nested sequences, a scalar, a DLPack or buffer object)."""
    device = _check_device(device, "asarray")
    dtype = _dtype(dtype)
    if isinstance(obj, Tensor):
        out = obj if dtype is None else obj.cast(dtype)
        if device is not None and device is not out.device:
            if copy is False:
                raise InvalidParameterError(
                    f"asarray: copy=False, but the tensor is on {out.device}, not {device}",
                    "copy", copy)
            return out.to_device(device)
        if copy and out is obj:
            out = obj.clone()
        return out
    if copy is False and not hasattr(obj, "__dlpack__"):
        raise InvalidParameterError(
            f"asarray: copy=False, but {type(obj).__name__} cannot be shared without a copy",
            "copy", copy)
    if hasattr(obj, "__dlpack__") and not isinstance(obj, (list, tuple)):
        out = from_dlpack(obj, copy=copy)
        if device is not None and device is not out.device:
            out = out.to_device(device)
        return out if dtype is None else out.cast(dtype)
    # Python floats take the default float (float32), as PyTorch's; NumPy scalars keep their dtype
    return _creation.tensor(obj, dtype=dtype, device=device)


def _shape(shape):
    return (shape,) if isinstance(shape, _int) else tuple(shape)


def zeros(shape, *, dtype=None, device=None):
    device = _check_device(device, "zeros")
    return _creation.zeros(_shape(shape), dtype=_dtype(dtype), device=device)


def ones(shape, *, dtype=None, device=None):
    device = _check_device(device, "ones")
    return _creation.ones(_shape(shape), dtype=_dtype(dtype), device=device)


def empty(shape, *, dtype=None, device=None):
    device = _check_device(device, "empty")
    return _creation.zeros(_shape(shape), dtype=_dtype(dtype), device=device)


def full(shape, fill_value, *, dtype=None, device=None):
    device = _check_device(device, "full")
    dtype = _dtype(dtype)
    if dtype is None:
        dtype = _dt.result_type(fill_value)
    return _creation.full(_shape(shape), fill_value, dtype=dtype, device=device)


def zeros_like(x, /, *, dtype=None, device=None):
    device = _check_device(device, "zeros_like")
    return _creation.zeros_like(x, dtype=_dtype(dtype), device=device)


def ones_like(x, /, *, dtype=None, device=None):
    device = _check_device(device, "ones_like")
    return _creation.ones_like(x, dtype=_dtype(dtype), device=device)


def empty_like(x, /, *, dtype=None, device=None):
    device = _check_device(device, "empty_like")
    return _creation.zeros_like(x, dtype=_dtype(dtype), device=device)


def full_like(x, /, fill_value, *, dtype=None, device=None):
    device = _check_device(device, "full_like")
    return _creation.full_like(x, fill_value, dtype=_dtype(dtype) or x.dtype, device=device)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    device = _check_device(device, "arange")
    dtype = _dtype(dtype)
    raw = (start, stop, step)
    if stop is None:
        start, stop = 0, start
    start, stop, step, _, n = _creation._arange_args("arange", start, stop, step)
    if dtype is None:
        dtype = _dt.result_type(*(v for v in raw if v is not None))
    if dtype.kind == "int":
        return _creation.arange(start, stop, step, dtype=dtype, device=device)
    return (_creation.arange(n, dtype=_dt.float64, device=device) * step + start).cast(dtype)


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """``num`` evenly spaced values from ``start`` to ``stop``; complex ends give complex values.

    >>> import ember.array_api as xp
    >>> xp.linspace(0, 1, 3).tolist(), xp.linspace(0, 1, 3, dtype=xp.complex64).dtype
    ([0.0, 0.5, 1.0], ember.complex64)
    """
    device = _check_device(device, "linspace")
    dtype = _dtype(dtype)
    cplx = isinstance(start, complex) or isinstance(stop, complex)
    if dtype is None:
        dtype = _dt.complex_of(_dt.default_float) if cplx else _dt.default_float
    elif cplx and dtype.kind != "complex":
        raise KindError(f"linspace: start {start!r} or stop {stop!r} is complex and dtype is "
                        f"{dtype.name}; expected a complex dtype")
    # computed in 64 bits, then cast (complex ends: ember's complex linspace)
    wide = _dt.complex128 if cplx else _dt.float64
    out = _creation.linspace(start, stop, num if endpoint else num + 1, dtype=wide, device=device)
    return (out if endpoint else out[:num]).cast(dtype)


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    device = _check_device(device, "eye")
    n_cols = n_rows if n_cols is None else n_cols
    ones_ = _creation.ones((n_rows, n_cols), dtype=_dtype(dtype), device=device)
    return ones_.triu(k).tril(k)


def tril(x, /, *, k=0):
    return x.tril(k)


def triu(x, /, *, k=0):
    return x.triu(k)


def meshgrid(*arrays, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise InvalidParameterError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}",
                                    "indexing", indexing)
    sizes = [a.shape[0] for a in arrays]
    if indexing == "xy" and len(arrays) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, a in enumerate(arrays):
        pos = i if indexing == "ij" or len(arrays) < 2 else (1 - i if i < 2 else i)
        view = [1] * len(arrays)
        view[pos] = a.shape[0]
        out.append(a.reshape(tuple(view)).expand(tuple(sizes)))
    return out
