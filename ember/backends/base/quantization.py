"""The quantization kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class QuantizationKernels:
    @required
    def quant_compute_dtype(self, dtype):
        """The NumPy dtype quantization arithmetic runs in for float dtype ``dtype`` (an ember or a
        NumPy dtype): float64 for float64 data, float32 for every narrower float."""

    @required
    def quant_cast_scales(self, scales, param):
        """A fresh copy of the 1-D ``scales`` as ember dtype ``param`` (out-of-range values become inf
        or 0 silently; the caller checks them)."""

    @required
    def quant_first_bad_scale(self, scales):
        """``(index, value)`` of the first scale that is not a finite number > 0, or None."""

    @required
    def quant_dynamic_scales(self, x, block, hi, param):
        """Min-max calibration: per tensor (``block`` None) or per block, the largest finite ``|x|``
        divided by ``hi``, as ember dtype ``param`` (a 1-D array)."""

    @required
    def quant_quantize(self, x, scales, block, lo, hi):
        """``clamp(round_half_even(x / scale), lo, hi)`` as int8 (NaN gives 0), computed in
        ``quant_compute_dtype(x.dtype)``; a new C-contiguous array of ``x``'s shape."""

    @required
    def quant_dequantize(self, values, scales, block, dtype):
        """``values * scale`` as ember float dtype ``dtype`` (computed in its compute dtype)."""
