"""Torch kernels of the quantization family: the same names, arguments and results as the NumPy
backend's (int8 values of the tensor's shape, a 1-D tensor of scales: one per tensor or one per
block of ``block`` consecutive elements along the last dim)."""

import torch

from .core import TORCH

__all__ = ["quant_compute_dtype", "quant_cast_scales", "quant_first_bad_scale",
           "quant_dynamic_scales", "quant_quantize", "quant_dequantize"]


def quant_compute_dtype(dtype):
    """The torch dtype quantization arithmetic runs in for float dtype ``dtype`` (an ember or a
    torch dtype): float64 for float64 data, float32 for every narrower float."""
    t = TORCH.get(dtype, dtype)
    return torch.float64 if t == torch.float64 else torch.float32


def quant_cast_scales(scales, param):
    """A fresh copy of the 1-D ``scales`` as ember dtype ``param`` (out-of-range values become
    inf or 0 silently; the caller checks them)."""
    return scales.to(TORCH[param], copy=True).contiguous()


def quant_first_bad_scale(scales):
    """``(index, value)`` of the first scale that is not a finite number > 0, or None."""
    s = scales.to(torch.float64 if scales.device.type != "mps" else torch.float32)
    bad = ~(torch.isfinite(s) & (s > 0))
    if not bool(bad.any()):
        return None
    i = int(torch.nonzero(bad)[0, 0])
    return i, float(s[i])


def _blocked(x, block):
    if block is None:
        return x
    return x.reshape(tuple(x.shape[:-1]) + (x.shape[-1] // block, block))


def _scale_view(scales, shape, block, dtype):
    s = scales.to(dtype)
    if block is None:
        return s.reshape(())
    return s.reshape(tuple(shape[:-1]) + (shape[-1] // block, 1))


def quant_dynamic_scales(x, block, hi, param):
    """Min-max calibration (as the NumPy kernel): per tensor or per block, the largest finite
    ``|x|`` divided by ``hi``, as ember dtype ``param``; ``(scales, overflow)``."""
    cdt = quant_compute_dtype(x.dtype)
    a = torch.abs(x.to(cdt))
    a = torch.where(torch.isfinite(a), a, torch.zeros((), dtype=cdt, device=a.device))
    if block is None:
        m = (torch.amax(a).reshape(1) if a.numel()
             else torch.zeros(1, dtype=cdt, device=a.device))
    else:
        m = torch.amax(_blocked(a, block), dim=-1).reshape(-1)
    raw = (m / hi).to(cdt)
    s = quant_cast_scales(raw, param)
    over = ~torch.isfinite(s.to(cdt))
    if bool(over.any()):
        return s, float(raw[int(torch.nonzero(over)[0, 0])])
    one = torch.ones((), dtype=s.dtype, device=s.device)
    return torch.where(s.to(cdt) > 0, s, one).contiguous(), None


def quant_quantize(x, scales, block, lo, hi):
    """``clamp(round_half_even(x / scale), lo, hi)`` as int8 (NaN gives 0), computed in
    ``quant_compute_dtype(x.dtype)``; a new contiguous tensor of ``x``'s shape."""
    cdt = quant_compute_dtype(x.dtype)
    q = _blocked(x.to(cdt), block) / _scale_view(scales, tuple(x.shape), block, cdt)
    q = torch.clamp(torch.round(q), lo, hi)
    q = torch.where(torch.isnan(q), torch.zeros((), dtype=cdt, device=q.device), q)
    return q.to(torch.int8).reshape(x.shape).contiguous()


def quant_dequantize(values, scales, block, dtype):
    """``values * scale`` as ember float dtype ``dtype`` (computed in its compute dtype)."""
    cdt = quant_compute_dtype(dtype)
    out = _blocked(values.to(cdt), block) * _scale_view(scales, tuple(values.shape), block, cdt)
    return out.reshape(values.shape).to(TORCH[dtype])
