"""Torch kernels of the movement family: the overrides of ember/backends/base/movement.py's
defaults (and its required kernels). torch has no negative strides, so ``mv_flip`` copies; wide
unsigned ints (whose flip and index kernels torch's CPU lacks) move as the signed view of the
same bits.
"""

import torch

from ..base.movement import pad_crop, pad_source, pad_windows
from .core import TORCH, allocates, allocation_failed
from .reduce import _bits, _unbits

__all__ = ["mv_reshape", "mv_expand", "mv_flip", "mv_pad", "mv_unfold", "mv_repeat_interleave"]

_I64 = torch.int64


# override: the typed allocation error (torch raises RuntimeError)
def mv_reshape(a, shape, op="reshape"):
    """``a`` with a new shape: a view when the layout allows, else a copy (``op``: the op named
    if the copy cannot be allocated)."""
    try:
        return a.reshape(shape)
    except (MemoryError, RuntimeError) as exc:
        raise allocation_failed(exc, op, shape) from None


# override: the typed allocation error (torch raises RuntimeError)
def mv_expand(a, shape, op="expand"):
    """A broadcast view of ``a`` with ``shape`` (leading dims added as needed;
    ``op``: the op named if its size cannot be addressed)."""
    try:
        return a.expand(shape)
    except RuntimeError as exc:
        raise allocation_failed(exc, op, shape) from None


# override: torch's flip lacks uint16/32/64 (flipped as the signed ints of the same bits)
def mv_flip(a, axes):
    """``a`` reversed along ``axes`` (non-negative): a copy (torch has no negative strides)."""
    if not axes:
        return a
    return _unbits(torch.flip(_bits(a), tuple(axes)), a.dtype)


def _fill(value, dtype):
    if dtype is torch.bool:
        return bool(value)
    if dtype.is_complex:
        return complex(value)
    if not dtype.is_floating_point:
        return int(value)
    return float(value)


@allocates(lambda a, pads, *rest: tuple(n + b + e for n, (b, e) in zip(a.shape, pads)))
def mv_pad(a, pads, mode, value, dtype):
    """``a`` padded by ``pads`` (one (before, after) pair per axis; negative amounts crop);
    ``mode`` constant (``value``), reflect, edge or circular; ember ``dtype``."""
    dtype = TORCH[dtype]
    if not any([b or e for b, e in pads]):
        return a.to(dtype, copy=True)
    if mode == "constant":
        shape = tuple([n + b + e for n, (b, e) in zip(a.shape, pads)])
        out = torch.full(shape, _fill(value, dtype), dtype=dtype, device=a.device)
        src, dst = pad_windows(a.shape, pads)
        out[dst] = a[src].to(dtype)
        return out
    out = _bits(a)
    for axis, (n, (b, e)) in enumerate(zip(a.shape, pads)):
        b, e = max(b, 0), max(e, 0)
        if b or e:
            index = torch.tensor(pad_source(n, b, e, mode), dtype=_I64, device=a.device)
            out = torch.index_select(out, axis, index)
    out = _unbits(out, a.dtype)
    if any(b < 0 or e < 0 for b, e in pads):
        out = out[pad_crop(pads)].contiguous()
    return out if out.dtype == dtype else out.to(dtype)


def mv_unfold(a, axis, size, step):
    """A strided view of the windows of ``size`` every ``step`` along ``axis``; the window index
    replaces ``axis`` and the window offset is a new last axis."""
    n = a.shape[axis]
    count = 0 if n < size else (n - size) // step + 1
    shape = tuple(a.shape[:axis]) + (count,) + tuple(a.shape[axis + 1:]) + (size,)
    st = a.stride()
    strides = st[:axis] + (st[axis] * step,) + st[axis + 1:] + (st[axis],)
    return a.as_strided(shape, strides, a.storage_offset())


@allocates()
def mv_repeat_interleave(a, repeats, axis):
    """Each element of ``a`` along ``axis`` repeated ``repeats`` times (an int or an int tensor)."""
    if isinstance(repeats, torch.Tensor):
        repeats = repeats.to(_I64)
        if repeats.numel() == 1 and a.shape[axis] != 1:
            repeats = repeats.reshape(()).item()
    return torch.repeat_interleave(a, repeats, dim=axis)
