"""NumPy kernels of the slicing family. Public names here are kernels (`be.NAME`); helpers start with _.

A ``key`` here is a normalized basic index: a tuple of Python ints (already in range), slices
(with int or None parts, step not 0) and None (a new axis), never Ellipsis and never an array.
"""

import numpy as np

from .core import NP

__all__ = ["slicing_view", "slicing_grad", "slicing_assign", "slicing_fill", "slicing_zero_region", "slicing_empty",
           "slicing_scalar", "slicing_is_index_object",]

_ELLIPSIS = (Ellipsis,)


# override: 0.18 vs the default's 0.20 µs (float32 (32, 64), two slices)
def slicing_view(a, key):
    """``a[key]`` as a view (a 0-d array, never a NumPy scalar, when every dim is indexed)."""
    return a[key + _ELLIPSIS]


# override: 0.99 vs the default's 1.7 µs (float32 (32, 64)), as for assign, fill, zero_region
def slicing_grad(g, shape, key):
    """The gradient of ``a[key]`` for ``a`` of ``shape``: zeros with ``g`` written at ``key``."""
    out = np.zeros(shape, dtype=g.dtype)
    out[key] = g
    return out


def slicing_assign(a, key, v):
    """A copy of ``a`` with ``v`` (broadcastable to ``a[key]``'s shape) written at ``key``."""
    out = np.array(a, copy=True)
    out[key] = v
    return out


slicing_fill = slicing_assign


def slicing_zero_region(g, key):
    """A copy of ``g`` with zeros at ``key``."""
    out = np.array(g, copy=True)
    out[key] = 0
    return out


# override: 0.31 vs the default's 0.46 µs
def slicing_empty(shape, dtype):
    return np.empty(shape, dtype=NP[dtype])


# override: 1.5 vs the default's 11 µs (int32)
def slicing_scalar(value, dtype):
    """A 0-d array of ember ``dtype`` holding the number ``value``.

    Raises OverflowError when an integer dtype cannot hold it. Float dtypes round (to inf
    where the value is beyond their range), as NumPy and PyTorch do.
    """
    dtype = NP[dtype]
    if dtype.kind in "iu":
        try:
            with np.errstate(all="raise"):
                return np.asarray(value, dtype=dtype)
        except (OverflowError, FloatingPointError, ValueError):
            raise OverflowError(f"{value!r} does not fit {dtype}") from None
    with np.errstate(all="ignore"):
        return np.asarray(value, dtype=dtype)


# override: NumPy bools index too (the default knows arrays only)
def slicing_is_index_object(x):
    """Whether ``x`` is a NumPy array or NumPy bool: an advanced index, never a basic one."""
    return isinstance(x, (np.ndarray, np.bool_))
