"""Torch kernels of the segments family: the NumPy backend's names, argument order and results."""

import torch

from .core import TORCH, allocates
from .indexing import _SIGNED, _bits, _unbits

__all__ = ["segments_cat", "segments_stack", "segments_zeros"]


def _cast_all(arrays, dtype):
    target = TORCH[dtype]
    return [a if a.dtype == target else a.to(target) for a in arrays], target


@allocates()
def segments_cat(arrays, axis, dtype=None):
    """The tensors joined along ``axis`` into a new tensor of ember ``dtype`` (each cast to it);
    ``dtype`` None: the tensors all have the result's dtype already."""
    if dtype is not None:
        arrays, target = _cast_all(arrays, dtype)
    else:
        target = arrays[0].dtype
    if target in _SIGNED:
        return _unbits(torch.cat([_bits(a) for a in arrays], dim=axis), target)
    return torch.cat(arrays, dim=axis)


@allocates()
def segments_stack(arrays, axis, dtype):
    """The tensors (all of one shape) stacked along a new ``axis``, as ember ``dtype``."""
    arrays, target = _cast_all(arrays, dtype)
    if target in _SIGNED:
        return _unbits(torch.stack([_bits(a) for a in arrays], dim=axis), target)
    return torch.stack(arrays, dim=axis)


@allocates(lambda shape, *a, **k: tuple(shape))
def segments_zeros(shape, dtype, *, device=None):
    return torch.zeros(tuple(shape), dtype=TORCH[dtype], device=device)
