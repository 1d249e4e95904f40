"""Kernels of the Array API namespace: the limits of a dtype (``finfo``/``iinfo``)."""

import ml_dtypes
import numpy as np

__all__ = ["dtype_limits"]


def dtype_limits(dtype):
    """``(bits, min, max, eps, smallest_normal)`` of a NumPy dtype (eps and smallest_normal are
    None for ints)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iub":
        if dtype.kind == "b":
            return 8, 0, 1, None, None
        info = np.iinfo(dtype)
        return info.bits, int(info.min), int(info.max), None, None
    info = ml_dtypes.finfo(dtype) if dtype.kind == "V" else np.finfo(dtype)
    return (info.bits, float(info.min), float(info.max), float(info.eps),
            float(info.smallest_normal))
