"""Torch kernels of the movement family: the NumPy backend's kernels of the same names and
results.

Every kernel takes and returns torch tensors and never writes into a tensor it was given. reshape
(where the layout allows), expand, permute, slice and unfold are views; torch has no negative
strides, so ``mv_flip`` copies. Wide unsigned ints (whose flip, gather and index kernels torch's
CPU lacks) move as the signed view of the same bits.
"""

import torch

from .core import TORCH, allocates, allocation_failed
from .reduce import _bits, _unbits

__all__ = [
    "mv_reshape", "mv_expand", "mv_permute", "mv_flip", "mv_slice", "mv_slice_backward",
    "mv_pad", "mv_pad_backward", "mv_roll", "mv_unfold", "mv_unfold_backward",
    "mv_repeat_interleave", "mv_repeat_interleave_backward", "mv_any_negative",
    "mv_int_fits",
]

_I64 = torch.int64


def mv_reshape(a, shape, op="reshape"):
    """``a`` with a new shape: a view when the layout allows, else a copy (``op``: the op named
    if the copy cannot be allocated)."""
    try:
        return a.reshape(shape)
    except (MemoryError, RuntimeError) as exc:
        raise allocation_failed(exc, op, shape) from None


def mv_expand(a, shape, op="expand"):
    """A broadcast view of ``a`` with ``shape`` (leading dims added as needed;
    ``op``: the op named if its size cannot be addressed)."""
    try:
        return a.expand(shape)
    except RuntimeError as exc:
        raise allocation_failed(exc, op, shape) from None


def mv_permute(a, order):
    """A view of ``a`` with its axes in ``order``."""
    return a.permute(tuple(order))


def mv_flip(a, axes):
    """``a`` reversed along ``axes`` (non-negative): a copy (torch has no negative strides)."""
    if not axes:
        return a
    return _unbits(torch.flip(_bits(a), tuple(axes)), a.dtype)


def mv_slice(a, bounds):
    """A view of ``a`` restricted to ``[start, end)`` on each axis; ``bounds`` one pair per axis."""
    return a[tuple([slice(s, e) for s, e in bounds])]


def mv_slice_backward(g, shape, bounds):
    """The adjoint of ``mv_slice``: zeros of ``shape`` with ``g`` placed in the window."""
    out = torch.zeros(shape, dtype=g.dtype, device=g.device)
    out[tuple([slice(s, e) for s, e in bounds])] = g
    return out


def _crop(pads):
    """Slices that drop the negative part of each (before, after) pair from a padded tensor."""
    return tuple([slice(-b if b < 0 else 0, a if a < 0 else None) for b, a in pads])


def _source_index(n, b, e, mode):
    """For each position of an axis of size ``n`` padded by ``b`` before and ``e`` after (both
    >= 0), the input position it reads (NumPy's reflect, edge and wrap modes)."""
    out = []
    for j in range(-b, n + e):
        if mode == "reflect":
            i = -j if j < 0 else (2 * (n - 1) - j if j >= n else j)
        elif mode == "edge":
            i = 0 if j < 0 else (n - 1 if j >= n else j)
        else:  # circular
            i = j % n
        out.append(i)
    return out


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
    """``a`` padded by ``pads`` (one (before, after) pair per axis; negative amounts crop).

    ``mode`` is "constant" (fill with ``value``), "reflect", "edge" or "circular"; the result has
    ember dtype ``dtype``. Positive parts are padded first, negative parts cropped after.
    """
    dtype = TORCH[dtype]
    if not any([b or e for b, e in pads]):
        return a.to(dtype, copy=True)
    if mode == "constant":
        shape = tuple([n + b + e for n, (b, e) in zip(a.shape, pads)])
        out = torch.full(shape, _fill(value, dtype), dtype=dtype, device=a.device)
        src = tuple([slice(max(-b, 0), n - max(-e, 0)) for n, (b, e) in zip(a.shape, pads)])
        dst = tuple([slice(max(b, 0), max(b, 0) + (n - max(-b, 0) - max(-e, 0)))
                     for n, (b, e) in zip(a.shape, pads)])
        out[dst] = a[src].to(dtype)
        return out
    out = _bits(a)
    for axis, (n, (b, e)) in enumerate(zip(a.shape, pads)):
        b, e = max(b, 0), max(e, 0)
        if b or e:
            index = torch.tensor(_source_index(n, b, e, mode), dtype=_I64, device=a.device)
            out = torch.index_select(out, axis, index)
    out = _unbits(out, a.dtype)
    if any(b < 0 or e < 0 for b, e in pads):
        out = out[_crop(pads)].contiguous()
    return out if out.dtype == dtype else out.to(dtype)


def mv_pad_backward(g, shape, pads, mode):
    """The adjoint of ``mv_pad`` (without the fill value): the gradient for the input of
    ``shape``."""
    if not any([b or e for b, e in pads]):
        return g
    if mode == "constant":
        src = tuple([slice(max(-b, 0), n - max(-e, 0)) for n, (b, e) in zip(shape, pads)])
        dst = tuple([slice(max(b, 0), max(b, 0) + (n - max(-b, 0) - max(-e, 0)))
                     for n, (b, e) in zip(shape, pads)])
        if all(b >= 0 and e >= 0 for b, e in pads):
            return g[dst]
        out = torch.zeros(shape, dtype=g.dtype, device=g.device)
        out[src] = g[dst]
        return out
    if any(b < 0 or e < 0 for b, e in pads):
        full = tuple([n + max(b, 0) + max(e, 0) for n, (b, e) in zip(shape, pads)])
        big = torch.zeros(full, dtype=g.dtype, device=g.device)
        big[_crop(pads)] = g
        g = big
    for axis, (n, (b, e)) in enumerate(zip(shape, pads)):
        b, e = max(b, 0), max(e, 0)
        if b == 0 and e == 0:
            continue
        index = torch.tensor(_source_index(n, b, e, mode), dtype=_I64, device=g.device)
        size = list(g.shape)
        size[axis] = n
        g = torch.zeros(size, dtype=g.dtype, device=g.device).index_add(axis, index, g)
    return g


def mv_roll(a, shifts, axes):
    """A copy of ``a`` rolled by ``shifts`` along ``axes`` (NumPy's direction); ``axes=None``
    rolls the flattened tensor."""
    if axes is None:
        n = a.numel()
        return torch.roll(a, shifts % n if n else 0)
    if not len(axes):
        return a.clone()
    total = {}
    for s, ax in zip(shifts, axes):
        total[ax] = total.get(ax, 0) + s
    dims = tuple(total)
    amounts = tuple([total[d] % a.shape[d] if a.shape[d] else 0 for d in dims])
    return torch.roll(a, amounts, dims)


def mv_unfold(a, axis, size, step):
    """A strided view of the windows of ``size`` every ``step`` along ``axis``; the window index
    replaces ``axis`` and the window offset is a new last axis."""
    n = a.shape[axis]
    count = 0 if n < size else (n - size) // step + 1
    shape = tuple(a.shape[:axis]) + (count,) + tuple(a.shape[axis + 1:]) + (size,)
    st = a.stride()
    strides = st[:axis] + (st[axis] * step,) + st[axis + 1:] + (st[axis],)
    return a.as_strided(shape, strides, a.storage_offset())


def mv_unfold_backward(g, shape, axis, size, step):
    """The adjoint of ``mv_unfold``: windows summed back into a tensor of ``shape``."""
    out = torch.zeros(shape, dtype=g.dtype, device=g.device)
    count = g.shape[axis]
    if count == 0 or size == 0:
        return out
    gw = g.movedim(-1, 0)  # window offset first: (size, ..., count, ...)
    span = step * (count - 1) + 1
    for k in range(size):  # one vectorized add per window offset, not per element
        index = [slice(None)] * out.ndim
        index[axis] = slice(k, k + span, step)
        out[tuple(index)] += gw[k]
    return out


@allocates()
def mv_repeat_interleave(a, repeats, axis):
    """Each element of ``a`` along ``axis`` repeated ``repeats`` times (an int or an int tensor)."""
    if isinstance(repeats, torch.Tensor):
        repeats = repeats.to(_I64)
        if repeats.numel() == 1 and a.shape[axis] != 1:
            repeats = repeats.reshape(()).item()
    return torch.repeat_interleave(a, repeats, dim=axis)


def mv_repeat_interleave_backward(g, shape, repeats, axis):
    """The adjoint of ``mv_repeat_interleave``: the copies of each element summed."""
    n = shape[axis]
    if isinstance(repeats, torch.Tensor):
        repeats = repeats.to(_I64)
        if repeats.numel() == 1 and n != 1:
            repeats = repeats.reshape(()).item()
    index = torch.repeat_interleave(torch.arange(n, dtype=_I64, device=g.device), repeats)
    out = torch.zeros(shape, dtype=g.dtype, device=g.device)
    return out.index_add(axis, index, g)


_UNSIGNED = (torch.bool, torch.uint8, torch.uint16, torch.uint32, torch.uint64)


def mv_any_negative(a):
    """Whether an int tensor has a negative element."""
    if a.dtype in _UNSIGNED or not a.numel():
        return False
    return bool((a < 0).any())


def _int_range(dtype):
    if dtype is torch.bool:
        return 0, 1
    bits = torch.empty((), dtype=dtype).element_size() * 8
    if dtype in (torch.uint8, torch.uint16, torch.uint32, torch.uint64):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def mv_int_fits(value, dtype):
    """Whether the number ``value`` is an integer that ember int dtype ``dtype`` can hold."""
    low, high = _int_range(TORCH[dtype])
    try:
        as_int = int(value)
    except (OverflowError, ValueError):  # inf, nan
        return False
    return as_int == value and low <= as_int <= high
