"""Torch kernels of the Array API namespace: the limits of a dtype (``finfo``/``iinfo``),
complex data (the same names and meanings as the NumPy backend's)."""

import torch

from .core import TORCH

__all__ = ["dtype_limits", "complex_array", "complex_part"]


def dtype_limits(dtype):
    """``(bits, min, max, eps, smallest_normal)`` of an ember dtype (eps and smallest_normal are
    None for ints)."""
    t = TORCH[dtype]
    if t == torch.bool:
        return 8, 0, 1, None, None
    if not (t.is_floating_point or t.is_complex):
        info = torch.iinfo(t)
        return info.bits, int(info.min), int(info.max), None, None
    info = torch.finfo(t)
    return (info.bits, float(info.min), float(info.max), float(info.eps),
            float(info.smallest_normal))


def complex_array(data, dtype=None, *, device=None):
    """A complex tensor of ``data`` (ember dtype ``dtype`` or complex128) on ``device``, never
    sharing the caller's buffer; TypeError for data that are not numbers."""
    try:
        out = torch.tensor(data, dtype=TORCH[dtype] if dtype is not None else torch.complex128,
                           device=device)
    except (ValueError, RuntimeError) as exc:
        raise TypeError(str(exc)) from None
    return out


def complex_part(a, part):
    """``"real"``, ``"imag"`` or ``"conj"`` of a complex tensor (real and imag: views; conj: a
    new tensor, as NumPy's)."""
    if part == "real":
        return a.real
    if part == "imag":
        return a.imag
    return torch.conj_physical(a)
