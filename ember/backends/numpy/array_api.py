"""Kernels of the Array API namespace: the limits of a dtype (``finfo``/``iinfo``), ``nextafter``,
``signbit``."""

import numpy as np

from . import bf16
from .core import NP

__all__ = ["dtype_limits", "ew_nextafter", "ew_signbit"]


def dtype_limits(dtype):
    """``(bits, min, max, eps, smallest_normal)`` of an ember dtype (eps and smallest_normal are
    None for ints)."""
    dtype = NP[dtype]
    dtype = np.dtype(dtype)
    if dtype.kind in "iub":
        if dtype.kind == "b":
            return 8, 0, 1, None, None
        info = np.iinfo(dtype)
        return info.bits, int(info.min), int(info.max), None, None
    info = bf16.finfo(dtype)
    return (info.bits, float(info.min), float(info.max), float(info.eps),
            float(info.smallest_normal))


def ew_nextafter(a, b):
    """The next representable value after ``a`` towards ``b`` (NumPy's ``nextafter``), for two
    arrays of one float dtype (broadcast)."""
    return np.nextafter(a, b)


def ew_signbit(a):
    """Whether the sign bit of each element of a float array is set (-0.0 and NaNs with the sign
    bit included): a bool array."""
    return np.signbit(a)
