"""Kernels of the Array API namespace: the limits of a dtype (``finfo``/``iinfo``), complex data."""

import ml_dtypes
import numpy as np

from .core import NP

__all__ = ["dtype_limits", "complex_array", "complex_part"]


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
    info = ml_dtypes.finfo(dtype) if dtype.kind == "V" else np.finfo(dtype)
    return (info.bits, float(info.min), float(info.max), float(info.eps),
            float(info.smallest_normal))


def complex_array(data, dtype=None):
    """An ndarray of complex ``data`` (ember dtype ``dtype`` or complex128), never sharing the
    caller's buffer; TypeError for data that are not numbers."""
    try:
        arr = np.array(data, dtype=NP[dtype] if dtype is not None else np.complex128, copy=True)
    except ValueError as exc:
        raise TypeError(str(exc)) from None
    if arr.dtype.kind != "c":
        raise TypeError(f"values of type {arr.dtype} are not complex numbers")
    return arr


def complex_part(a, part):
    """``"real"``, ``"imag"`` or ``"conj"`` of a complex array (real and imag: views)."""
    if part == "real":
        return a.real
    if part == "imag":
        return a.imag
    return np.conj(a)
