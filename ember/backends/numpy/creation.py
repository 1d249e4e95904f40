"""NumPy kernels of the data-out and display families (creation is written once in base).

Public names here are kernels (``be.NAME``); helpers start with ``_``. Names carry a family
prefix (``creation_``, ``data_``, ``display_``) so that they cannot clash with other families.
"""

import math
import sys

import numpy as np

from . import bf16
from .core import allocates

__all__ = ["data_reshape_copy", "data_flat_list", "data_equal", "data_mismatches", "data_array",
           "data_can_mut", "data_as_dtype", "data_is_number", "data_to_python", "display_strings"]


def _is_float(dtype):
    return dtype.kind == "f" or bf16.is_bf16(dtype)


# -- data out -----------------------------------------------------------------------------------

@allocates(lambda a, shape: shape)
def data_reshape_copy(a, shape):
    """A C-contiguous copy of ``a`` with a new shape of the same size."""
    return np.array(a, copy=True, order="C").reshape(shape)


@allocates(lambda a: (a.size,))
def data_flat_list(a):
    """The values of ``a`` as one flat Python list, row-major."""
    return a.reshape(-1).tolist()


def data_equal(a, b):
    """Whether two arrays have the same shape and values (NaN equal to NaN)."""
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "c" or b.dtype.kind == "c":  # each part, NaN equal to NaN
        x, y = _parts(a), _parts(b)
        return bool(np.array_equal(x, y, equal_nan=True))
    if _is_float(a.dtype) or _is_float(b.dtype):
        return bool(np.array_equal(a.astype(np.float64), b.astype(np.float64), equal_nan=True))
    if a.dtype == b.dtype:
        return bool(np.array_equal(a, b))
    # compare ints and bools of different dtypes exactly (no float rounding)
    return bool(np.array_equal(a.astype(object), b.astype(object)))


def _parts(a):
    """The real and imaginary parts of ``a`` in float64, stacked in a last dim of size 2."""
    c = a.astype(np.complex128)
    return np.stack([c.real, c.imag], axis=-1)


def data_mismatches(a, b, rtol, atol, limit=5):
    """Up to ``limit`` mismatching (index, actual, expected) triples and their total count.

    Exact comparison when ``rtol`` and ``atol`` are None; NaN matches NaN.
    """
    if a.dtype.kind == "c" or b.dtype.kind == "c":  # each part, NaN matches NaN
        x, y = _parts(a), _parts(b)
        if rtol is None:
            same = (x == y) | (np.isnan(x) & np.isnan(y))
        else:
            with np.errstate(invalid="ignore", over="ignore"):
                same = (np.abs(x - y) <= atol + rtol * np.abs(y)) & np.isfinite(x) & np.isfinite(y)
            same |= (x == y) | (np.isnan(x) & np.isnan(y))
        bad = ~same.all(axis=-1)
    elif rtol is None:
        if _is_float(a.dtype) or _is_float(b.dtype):
            x, y = a.astype(np.float64), b.astype(np.float64)
            bad = ~((x == y) | (np.isnan(x) & np.isnan(y)))
        else:
            x, y = a.astype(object), b.astype(object)
            bad = np.asarray(x != y, dtype=bool)
    else:
        x, y = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            close = (np.abs(x - y) <= atol + rtol * np.abs(y)) & np.isfinite(x) & np.isfinite(y)
        close |= (x == y) | (np.isnan(x) & np.isnan(y))
        bad = ~close
    idx = np.argwhere(bad)
    out = [(tuple(int(i) for i in ix), a[tuple(ix)].item(), b[tuple(ix)].item())
           for ix in idx[:limit]]
    return out, int(idx.shape[0])


def data_array(a, dtype=None, copy=None):
    """NumPy's ``__array__`` protocol over a tensor's buffer: a read-only view when possible.

    Returns None when ``copy`` is False but a copy is needed (the caller raises).
    """
    if dtype is not None:
        dtype = np.dtype(dtype)
    if dtype is None or dtype == a.dtype:
        if copy:
            return np.array(a, copy=True)
        v = a.view()
        v.flags.writeable = False
        return v
    if copy is False:
        return None
    return a.astype(dtype)


def _refcount(a):
    return _getrefcount(a)


def _probe(a):
    # the same call shape as ``data_can_mut``: one frame holding ``a``, then ``_refcount``
    return _refcount(a)


class _Holder:
    __slots__ = ("a",)


def _unique_refcount():
    """The reference count ``data_can_mut`` sees for an array that only a slot holds."""
    if _getrefcount is None:
        return None
    holder = _Holder()
    holder.a = np.empty(1)
    return _probe(holder.a)


_getrefcount = getattr(sys, "getrefcount", None)
_UNIQUE = _unique_refcount()


def data_can_mut(a):
    """Whether ``a`` provably has its buffer to itself: it owns its memory, is writable, and
    nothing but the caller's one holder refers to it (no view, no buffer export, no other
    tensor, no saved autodiff step). False when that cannot be shown (no reference counts)."""
    if _UNIQUE is None or a.__class__ is not np.ndarray or not (
            a.flags.owndata and a.flags.writeable):  # (a deferred Chain is not written)
        return False
    return _refcount(a) <= _UNIQUE


def data_as_dtype(value):
    """``value`` as a NumPy dtype, or None if NumPy does not understand it."""
    try:
        return np.dtype(value)
    except TypeError:
        return None


def data_is_number(value):
    """Whether ``value`` is a Python or NumPy number (complex included) or bool (not a string,
    not an array)."""
    return isinstance(value, (bool, int, float, complex, np.bool_, np.integer, np.floating,
                              np.complexfloating))


def data_to_python(value):
    """A NumPy scalar as the matching Python number (others unchanged)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


# -- display ------------------------------------------------------------------------------------

def _shortest(x, dtype):
    """The shortest decimal string that reads back as ``x`` in ``dtype`` (x a float64)."""
    for p in range(1, 18):
        s = "%.*g" % (p, x)
        if np.asarray(float(s)).astype(dtype) == np.asarray(x).astype(dtype):
            return s
    return repr(x)


def _float_text(v, dtype):
    if v != v:
        return "nan"
    if v in (math.inf, -math.inf):
        return "inf" if v > 0 else "-inf"
    if bf16.is_bf16(dtype):
        x = float(_shortest(v, dtype))  # the shortest decimal, as a float64
    else:
        x = np.asarray(v).astype(dtype)[()]
    sci = np.format_float_scientific(x, unique=True, trim="-")
    a = abs(float(sci))  # the magnitude as printed decides the notation, as Python's repr
    if a == 0 or 1e-4 <= a < 1e16:
        return np.format_float_positional(x, unique=True, trim="0")
    return sci


def _complex_text(v, dtype):
    """A complex element as ``real+imagj``, each part as a float of the part's dtype prints
    (``1.0+2.0j``, ``-0.0-1.5e-05j``, ``nan+infj``): PyTorch's ``1.+2.j`` in ember's float
    format."""
    part = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
    re, im = _float_text(v.real, part), _float_text(v.imag, part)
    return f"{re}{im if im[0] == '-' else '+' + im}j"


# override: the host's own (the default sends other backends' values here)
def display_strings(a):
    """The elements of ``a`` as display strings, nested lists like ``a.tolist()`` (a single
    string for a 0-d array): floats always with a decimal point or an exponent, in the
    shortest form that reads back in their dtype; complex numbers ``1.0+2.0j`` (each part as a
    float of the part's dtype); ints plain; bools True/False."""
    dtype = a.dtype
    if dtype.kind == "b":
        flat = ["True" if v else "False" for v in a.reshape(-1).tolist()]
    elif dtype.kind in "iu":
        flat = [str(v) for v in a.reshape(-1).tolist()]
    elif dtype.kind == "c":
        flat = [_complex_text(v, dtype) for v in a.reshape(-1).tolist()]
    else:
        flat = [_float_text(v, dtype) for v in a.astype(np.float64).reshape(-1).tolist()]
    if a.ndim == 0:
        return flat[0]
    return np.array(flat, dtype=object).reshape(a.shape).tolist()
