"""The quantization kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py).

A quantized tensor is stored as an int8 array of the tensor's shape (one element per value, no
bit packing, whatever the bit width) and a 1-D array of scales: one scale for the whole tensor
(``block`` None) or one per block of ``block`` consecutive elements along the last dim, blocks
numbered in row-major order.
"""

import math

from ... import dtypes


def _blocked(xp, x, block):
    """``x`` viewed as (..., blocks, block) when ``block`` is set (last dim divisible)."""
    if block is None:
        return x
    return xp.reshape(x, tuple(x.shape[:-1]) + (x.shape[-1] // block, block))


class QuantizationKernels:
    def quant_compute_dtype(self, dtype):
        """The backend dtype quantization arithmetic runs in for float dtype ``dtype`` (an ember
        or a backend dtype): float64 for float64 data, float32 for every narrower float."""
        wide = self.native_dtype(dtypes.float64)
        return wide if dtype in (dtypes.float64, wide) else self.native_dtype(dtypes.float32)

    def _scale_view(self, scales, shape, block, dtype):
        """The scales, cast to ``dtype``, shaped to broadcast against ``_blocked`` data of
        ``shape``."""
        s = self.xp.astype(scales, dtype, copy=False)
        if block is None:
            return self.xp.reshape(s, ())
        return self.xp.reshape(s, tuple(shape[:-1]) + (shape[-1] // block, 1))

    def quant_cast_scales(self, scales, param):
        """A fresh copy of the 1-D ``scales`` as ember dtype ``param`` (out-of-range values become
        inf or 0 silently; the caller checks them)."""
        return self.xp.astype(scales, self.native_dtype(param), copy=True)

    def quant_first_bad_scale(self, scales):
        """``(index, value)`` of the first scale that is not a finite number > 0, or None."""
        xp = self.xp
        bad = xp.nonzero(~(xp.isfinite(scales) & (scales > 0)))[0]
        if bad.shape[0] == 0:
            return None
        i = int(bad[0])
        return i, float(scales[i])

    def quant_dynamic_scales(self, x, block, hi, param):
        """Min-max calibration: per tensor (``block`` None) or per block, the largest finite ``|x|``
        divided by ``hi``, as ember dtype ``param`` (a 1-D array).

        NaN and infinities are left out of the maximum. A scale that is 0 in ``param`` (an
        all-zero or empty block, or values so small the scale underflows) becomes 1. Returns
        ``(scales, overflow)``: ``overflow`` is None, or the first scale (a float) that is
        infinite in ``param``.
        """
        xp = self.xp
        cdt = self.quant_compute_dtype(x.dtype)
        a = xp.abs(xp.astype(x, cdt, copy=False))
        zero = xp.zeros((), dtype=cdt, device=self.native_device)
        a = xp.where(xp.isfinite(a), a, zero)
        if block is not None:
            m = xp.reshape(self.reduce_max(_blocked(xp, a, block), (a.ndim,), False), (-1,))
        elif math.prod(a.shape):
            m = xp.reshape(self.reduce_max(a, tuple(range(a.ndim)), False), (1,))
        else:
            m = xp.reshape(zero, (1,))
        raw = self.ew_truediv(m, hi)
        s = self.quant_cast_scales(raw, param)
        over = xp.nonzero(~xp.isfinite(s))[0]
        if over.shape[0]:
            return s, float(raw[int(over[0])])
        return xp.where(s > 0, s, xp.ones((), dtype=s.dtype, device=self.native_device)), None

    def quant_quantize(self, x, scales, block, lo, hi):
        """``clamp(round_half_even(x / scale), lo, hi)`` as int8 (NaN gives 0), computed in
        ``quant_compute_dtype(x.dtype)``; a new C-contiguous array of ``x``'s shape."""
        xp = self.xp
        cdt = self.quant_compute_dtype(x.dtype)
        q = _blocked(xp, xp.astype(x, cdt, copy=False), block)
        q = xp.clip(xp.round(self.ew_truediv(q, self._scale_view(scales, x.shape, block, cdt))),
                    lo, hi)
        q = xp.where(xp.isnan(q), xp.zeros((), dtype=cdt, device=self.native_device), q)
        return xp.reshape(xp.astype(q, self.native_dtype(dtypes.int8)), x.shape)

    def quant_dequantize(self, values, scales, block, dtype):
        """``values * scale`` as ember float dtype ``dtype`` (computed in its compute dtype)."""
        xp = self.xp
        cdt = self.quant_compute_dtype(dtype)
        out = _blocked(xp, xp.astype(values, cdt), block)
        out = out * self._scale_view(scales, values.shape, block, cdt)
        return xp.asarray(xp.astype(xp.reshape(out, values.shape), self.native_dtype(dtype),
                                    copy=False))
