"""Torch kernels of the Array API namespace: the limits of a dtype (``finfo``/``iinfo``),
``nextafter``, ``signbit`` (the same names and meanings as the NumPy backend's)."""

import torch

from .core import TORCH

__all__ = ["dtype_limits", "ew_nextafter", "ew_signbit"]


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


def ew_nextafter(a, b):
    """The next representable value after ``a`` towards ``b`` (``torch.nextafter``), for two
    tensors of one float dtype (broadcast)."""
    return torch.nextafter(a, b)


def ew_signbit(a):
    """Whether the sign bit of each element of a float array is set (-0.0 and NaNs with the sign
    bit included): a bool array."""
    return torch.signbit(a)
