"""NumPy kernels of the creation, data-out and display families.

Public names here are kernels (``be.NAME``); helpers start with ``_``. Names carry a family
prefix (``creation_``, ``data_``, ``display_``) so that they cannot clash with other families.
"""

import math
import sys

import numpy as np

from . import bf16
from .core import NP, _first, allocates

__all__ = [ "creation_full", "creation_zeros",
           "creation_fill_value_fits", "creation_arange", "creation_arange_length",
           "creation_linspace", "creation_eye", "creation_tri_mask", "creation_tri_keep",
           "creation_cartesian_grid", "data_reshape_copy", "data_flat_list", "data_equal",
           "data_mismatches", "data_array", "data_can_mut", "data_as_dtype", "data_is_number",
           "data_to_python", "display_edges", "display_strings"]

_MAX_BYTES = 2 ** 63 - 1


def _is_float(dtype):
    return dtype.kind == "f" or bf16.is_bf16(dtype)


def _np(dtype):
    """The NumPy dtype of an ember DType."""
    return NP[dtype]


def _finfo(dtype):
    return bf16.finfo(dtype)


# -- creation -----------------------------------------------------------------------------------

@allocates(_first)
def creation_full(shape, value, dtype):
    """A new array of ``shape`` filled with ``value`` (already checked to fit ``dtype``)."""
    return np.full(shape, value, dtype=_np(dtype))


@allocates(_first)
def creation_zeros(shape, dtype):
    """A new zero-filled array."""
    return np.zeros(shape, dtype=_np(dtype))


def creation_fill_value_fits(value, dtype):
    """Whether the Python number ``value`` converts to NumPy ``dtype`` without loss of its
    integral value or overflow (floats may round; bool takes 0 and 1 only)."""
    dtype = np.dtype(_np(dtype))
    if dtype.kind == "b":
        return value == 0 or value == 1
    if dtype.kind in "iu":
        if isinstance(value, float):
            if not math.isfinite(value) or value != int(value):
                return False
            value = int(value)
        info = np.iinfo(dtype)
        return info.min <= value <= info.max
    # float dtypes: anything but a finite value that overflows to infinity
    try:
        as_float = float(value)
    except OverflowError:
        return False
    if not math.isfinite(as_float):
        return True
    if abs(as_float) <= float(_finfo(dtype).max):
        return True
    with np.errstate(over="ignore"):
        return bool(np.isfinite(np.asarray(as_float).astype(dtype)))


@allocates()
def creation_arange(start, end, step, dtype, is_float):
    """``[start, end)`` by ``step`` as NumPy ``dtype``; float ranges are computed in float64
    as ``start + i * step`` with ``ceil((end - start) / step)`` values (PyTorch's rule)."""
    dtype = _np(dtype)
    if is_float:
        n = max(0, math.ceil((end - start) / step))
        return (start + np.arange(n, dtype=np.float64) * step).astype(dtype)
    # exact at int64's ends: the length in Python ints, each value start + i * step in int64
    # arithmetic, whose wrap-around is exact since every value is within int64
    out = np.arange(creation_arange_length(start, end, step, False), dtype=np.int64)
    if step != 1:
        np.multiply(out, np.int64((step + 2 ** 63) % 2 ** 64 - 2 ** 63), out=out)
    if start:
        np.add(out, np.int64(start), out=out)
    return out.astype(dtype, copy=False)


def creation_arange_length(start, end, step, is_float):
    """The number of values ``creation_arange`` would make."""
    if is_float:
        return max(0, math.ceil((end - start) / step))
    return max(0, -((start - end) // step))


@allocates(lambda start, end, steps, dtype: (steps,))
def creation_linspace(start, end, steps, dtype):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive, computed in float64
    from both ends as PyTorch does (complex ends: both parts so), then converted to ``dtype``
    (a complex dtype for complex ends)."""
    wide = np.complex128 if dtype.kind == "complex" else np.float64  # complex: each part in float64
    dtype = _np(dtype)
    if steps == 1:
        return np.full((1,), start, dtype=wide).astype(dtype)
    i = np.arange(steps, dtype=np.float64)
    step = (end - start) / (steps - 1)
    half = steps // 2
    out = np.where(i < half, start + i * step, end - (steps - 1 - i) * step)
    return out.astype(dtype)


@allocates(lambda n, m, dtype: (n, m))
def creation_eye(n, m, dtype):
    """An ``n`` by ``m`` array with ones on the main diagonal."""
    return np.eye(n, m, dtype=_np(dtype))


def _offsets(rows, cols):
    return np.arange(cols, dtype=np.int64)[None, :] - np.arange(rows, dtype=np.int64)[:, None]


@allocates(_first)
def creation_tri_mask(shape, offset, part):
    """Burn's triangle masks over the last two dims of ``shape``, broadcast to ``shape``:
    True marks the elements *outside* the part (``"upper"``, ``"lower"`` or ``"diag"``)."""
    d = _offsets(shape[-2], shape[-1])  # column - row
    if part == "upper":
        m = d < offset
    elif part == "lower":
        m = d > offset
    else:
        m = d != offset
    return np.ascontiguousarray(np.broadcast_to(m, shape))


def creation_tri_keep(a, diagonal, upper):
    """``a`` with the elements outside the upper (or lower) triangle set to zero (a new array)."""
    if a.size == 0:
        return np.array(a, copy=True)
    d = _offsets(a.shape[-2], a.shape[-1])
    keep = d >= diagonal if upper else d <= diagonal
    return np.where(keep, a, np.zeros((), dtype=a.dtype))


@allocates(lambda shape: tuple(shape) + (len(shape),))
def creation_cartesian_grid(shape):
    """int64 array of shape ``(*shape, len(shape))`` whose entry at each index is that index."""
    grid = np.indices(shape, dtype=np.int64)
    return np.ascontiguousarray(np.moveaxis(grid, 0, -1))


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
    if _UNIQUE is None or not (a.flags.owndata and a.flags.writeable):
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

def display_edges(a, edge):
    """``a`` reduced to its first and last ``edge`` items along every dim longer than
    ``2 * edge``, and the tuple of dims that were cut."""
    cut = []
    for dim, size in enumerate(a.shape):
        if size > 2 * edge:
            idx = np.r_[0:edge, size - edge:size]
            a = np.take(a, idx, axis=dim)
            cut.append(dim)
    return a, tuple(cut)


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
