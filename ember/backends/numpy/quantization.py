"""NumPy kernels of the quantization family. Public names here are kernels (`be.NAME`); helpers
start with _.

A quantized tensor is stored as an int8 array of the tensor's shape (one element per value, no
bit packing, whatever the bit width) and a 1-D array of scales: one scale for the whole tensor
(``block`` None) or one per block of ``block`` consecutive elements along the last dim, blocks
numbered in row-major order.
"""

import numpy as np

from ...dtypes import DType
from .core import NP

__all__ = ["quant_compute_dtype", "quant_cast_scales", "quant_first_bad_scale",
           "quant_dynamic_scales", "quant_quantize", "quant_dequantize"]


def quant_compute_dtype(dtype):
    """The NumPy dtype quantization arithmetic runs in for float dtype ``dtype`` (an ember or a
    NumPy dtype): float64 for float64 data, float32 for every narrower float."""
    wide = (NP[dtype] if isinstance(dtype, DType) else np.dtype(dtype)) == np.float64
    return np.dtype(np.float64) if wide else np.dtype(np.float32)


def quant_cast_scales(scales, param):
    """A fresh copy of the 1-D ``scales`` as ember dtype ``param`` (out-of-range values become
    inf or 0 silently; the caller checks them)."""
    with np.errstate(over="ignore", under="ignore"):
        return np.array(scales, dtype=NP[param], copy=True, order="C")


def quant_first_bad_scale(scales):
    """``(index, value)`` of the first scale that is not a finite number > 0, or None."""
    s = np.asarray(scales).astype(np.float64)
    bad = ~(np.isfinite(s) & (s > 0))
    if not bad.any():
        return None
    i = int(np.argmax(bad))
    return i, float(s[i])


def _blocked(x, block):
    """``x`` viewed as (..., blocks, block) when ``block`` is set (last dim divisible)."""
    if block is None:
        return x
    return x.reshape(x.shape[:-1] + (x.shape[-1] // block, block))


def _scale_view(scales, shape, block, dtype):
    """The scales, cast to ``dtype``, shaped to broadcast against ``_blocked`` data of ``shape``."""
    s = scales.astype(dtype, copy=False)
    if block is None:
        return s.reshape(())
    return s.reshape(shape[:-1] + (shape[-1] // block, 1))


def quant_dynamic_scales(x, block, hi, param):
    """Min-max calibration: per tensor (``block`` None) or per block, the largest finite ``|x|``
    divided by ``hi``, as ember dtype ``param`` (a 1-D array).

    NaN and infinities are left out of the maximum. A scale that is 0 in ``param`` (an all-zero
    or empty block, or values so small the scale underflows) becomes 1. Returns
    ``(scales, overflow)``: ``overflow`` is None, or the first scale (a float) that is infinite
    in ``param``.
    """
    np_param = NP[param]
    cdt = quant_compute_dtype(x.dtype)
    a = np.abs(x.astype(cdt, copy=False))
    a = np.where(np.isfinite(a), a, cdt.type(0))
    if block is None:
        m = np.asarray([a.max(initial=0)], dtype=cdt)
    else:
        m = _blocked(a, block).max(axis=-1, initial=0).reshape(-1)
    raw = (m / cdt.type(hi)).astype(cdt, copy=False)
    s = quant_cast_scales(raw, param)
    over = ~np.isfinite(s.astype(np.float64))
    if over.any():
        return s, float(raw[int(np.argmax(over))])
    s = np.where(s.astype(np.float64) > 0, s, np.ones((), dtype=np_param)).astype(np_param)
    return s, None


def quant_quantize(x, scales, block, lo, hi):
    """``clamp(round_half_even(x / scale), lo, hi)`` as int8 (NaN gives 0), computed in
    ``quant_compute_dtype(x.dtype)``; a new C-contiguous array of ``x``'s shape."""
    cdt = quant_compute_dtype(x.dtype)
    q = _blocked(x.astype(cdt, copy=False), block) / _scale_view(scales, x.shape, block, cdt)
    q = np.asarray(np.rint(q))  # a fresh buffer (0-d too): written in place below
    np.clip(q, lo, hi, out=q)
    q[np.isnan(q)] = 0
    return q.astype(np.int8, order="C").reshape(x.shape)


def quant_dequantize(values, scales, block, dtype):
    """``values * scale`` as ember float dtype ``dtype`` (computed in its compute dtype)."""
    dtype = NP[dtype]
    cdt = quant_compute_dtype(dtype)
    out = _blocked(values.astype(cdt), block) * _scale_view(scales, values.shape, block, cdt)
    return np.asarray(out.reshape(values.shape).astype(dtype, copy=False))
