"""NumPy kernels of the movement family. Public names here are kernels (`be.NAME`); helpers start with _.

Every kernel takes and returns ndarrays and never writes into an array it was given. The view
kernels (reshape when the layout allows, expand, permute, flip, slice, unfold) return views of
their input's buffer; the others return fresh arrays.
"""

import numpy as _np
from numpy.lib.stride_tricks import as_strided as _as_strided

from .core import NP, _transposed_copy, allocates, allocation_failed

__all__ = [
    "mv_reshape", "mv_expand", "mv_permute", "mv_flip", "mv_slice", "mv_slice_backward",
    "mv_pad", "mv_pad_backward", "mv_roll", "mv_unfold", "mv_unfold_backward",
    "mv_repeat_interleave", "mv_repeat_interleave_backward", "mv_any_negative",
    "mv_int_fits",
]

_RESHAPE_NO_COPY = _np.lib.NumpyVersion(_np.__version__) >= "2.1.0"  # reshape(copy=False)


def mv_reshape(a, shape, op="reshape"):
    """``a`` with a new shape: a view when the layout allows, else a copy (``op``: the op named
    if the copy cannot be allocated; a transposed layout is copied by the compiled tiled
    transpose)."""
    try:
        if _RESHAPE_NO_COPY and not a.flags.c_contiguous:
            try:
                return a.reshape(shape, copy=False)
            except ValueError:       # the layout needs a copy
                packed = _transposed_copy(a)
                if packed is not None:
                    return packed.reshape(shape)
        return a.reshape(shape)
    except (MemoryError, ValueError) as exc:
        raise allocation_failed(exc, op, shape) from None


def mv_expand(a, shape, op="expand"):
    """A read-only broadcast view of ``a`` with ``shape`` (leading dims added as needed;
    ``op``: the op named if its size cannot be addressed)."""
    try:
        return _np.broadcast_to(a, shape)
    except ValueError as exc:
        raise allocation_failed(exc, op, shape) from None


def mv_permute(a, order):
    """A view of ``a`` with its axes in ``order``."""
    return a.transpose(order)


_FULL = slice(None)
_REVERSED = slice(None, None, -1)


def mv_flip(a, axes):
    """A view of ``a`` reversed along ``axes`` (non-negative): one basic-indexing step, which
    costs a fraction of ``np.flip``'s argument handling (a 0-d ``a`` gives a 0-d view)."""
    return a[tuple([_REVERSED if i in axes else _FULL for i in range(a.ndim)]) + (Ellipsis,)]


def mv_slice(a, bounds):
    """A view of ``a`` restricted to ``[start, end)`` on each axis; ``bounds`` one pair per axis."""
    return a[tuple([slice(s, e) for s, e in bounds]) + (Ellipsis,)]


def mv_slice_backward(g, shape, bounds):
    """The adjoint of ``mv_slice``: zeros of ``shape`` with ``g`` placed in the window."""
    out = _np.zeros(shape, dtype=g.dtype)
    out[tuple([slice(s, e) for s, e in bounds])] = g
    return out


_NP_MODES = {"reflect": "reflect", "edge": "edge", "circular": "wrap"}


def _crop(pads):
    """Slices that drop the negative part of each (before, after) pair from a padded array."""
    return tuple([slice(-b if b < 0 else 0, a if a < 0 else None) for b, a in pads])


@allocates(lambda a, pads, *rest: tuple(n + b + e for n, (b, e) in zip(a.shape, pads)))
def mv_pad(a, pads, mode, value, dtype):
    """``a`` padded by ``pads`` (one (before, after) pair per axis; negative amounts crop).

    ``mode`` is "constant" (fill with ``value``), "reflect", "edge" or "circular"; the result has
    ember dtype ``dtype``. Positive parts are padded first, negative parts cropped after.
    """
    dtype = NP[dtype]
    if not any([b or e for b, e in pads]):
        return a.astype(dtype, copy=True)
    if mode == "constant":
        shape = tuple([n + b + e for n, (b, e) in zip(a.shape, pads)])
        out = _np.full(shape, value, dtype=dtype)
        src = tuple([slice(max(-b, 0), n - max(-e, 0)) for n, (b, e) in zip(a.shape, pads)])
        dst = tuple([slice(max(b, 0), max(b, 0) + (n - max(-b, 0) - max(-e, 0)))
                     for n, (b, e) in zip(a.shape, pads)])
        out[dst] = a[src]
        return out
    pos = [(max(b, 0), max(e, 0)) for b, e in pads]
    out = _np.pad(a, pos, mode=_NP_MODES[mode])
    if out.dtype != dtype:
        out = out.astype(dtype)
    if any(b < 0 or e < 0 for b, e in pads):
        out = _np.ascontiguousarray(out[_crop(pads)])
    return out


def _axis_index(ndim, axis, sl):
    idx = [slice(None)] * ndim
    idx[axis] = sl
    return tuple(idx)


def mv_pad_backward(g, shape, pads, mode):
    """The adjoint of ``mv_pad`` (without the fill value): the gradient for the input of ``shape``."""
    nd = g.ndim
    if not any([b or e for b, e in pads]):
        return g
    if mode == "constant":
        src = tuple([slice(max(-b, 0), n - max(-e, 0)) for n, (b, e) in zip(shape, pads)])
        dst = tuple([slice(max(b, 0), max(b, 0) + (n - max(-b, 0) - max(-e, 0)))
                     for n, (b, e) in zip(shape, pads)])
        if all(b >= 0 and e >= 0 for b, e in pads):
            return g[dst]
        out = _np.zeros(shape, dtype=g.dtype)
        out[src] = g[dst]
        return out
    if any(b < 0 or e < 0 for b, e in pads):
        full = tuple([n + max(b, 0) + max(e, 0) for n, (b, e) in zip(shape, pads)])
        big = _np.zeros(full, dtype=g.dtype)
        big[_crop(pads)] = g
        g = big
    for axis, (n, (b, e)) in enumerate(zip(shape, pads)):
        b, e = max(b, 0), max(e, 0)
        if b == 0 and e == 0:
            continue
        gi = _np.array(g[_axis_index(nd, axis, slice(b, b + n))], copy=True)
        left = g[_axis_index(nd, axis, slice(0, b))]
        right = g[_axis_index(nd, axis, slice(b + n, b + n + e))]
        if mode == "reflect":
            if b:
                gi[_axis_index(nd, axis, slice(1, b + 1))] += _np.flip(left, axis)
            if e:
                gi[_axis_index(nd, axis, slice(n - 1 - e, n - 1))] += _np.flip(right, axis)
        elif mode == "edge":
            if b:
                gi[_axis_index(nd, axis, slice(0, 1))] += left.sum(axis=axis, keepdims=True)
            if e:
                gi[_axis_index(nd, axis, slice(n - 1, n))] += right.sum(axis=axis, keepdims=True)
        else:  # circular
            if b:
                gi[_axis_index(nd, axis, slice(n - b, n))] += left
            if e:
                gi[_axis_index(nd, axis, slice(0, e))] += right
        g = gi
    return g


def mv_roll(a, shifts, axes):
    """A copy of ``a`` rolled by ``shifts`` along ``axes`` (NumPy's direction); ``axes=None``
    rolls the flattened array."""
    if axes is not None and not len(axes):
        return a.copy()
    return _np.roll(a, shifts, axes)


def mv_unfold(a, axis, size, step):
    """A read-only strided view of the windows of ``size`` every ``step`` along ``axis``;
    the window index replaces ``axis`` and the window offset is a new last axis."""
    n = a.shape[axis]
    count = 0 if n < size else (n - size) // step + 1
    shape = a.shape[:axis] + (count,) + a.shape[axis + 1:] + (size,)
    st = a.strides
    strides = st[:axis] + (st[axis] * step,) + st[axis + 1:] + (st[axis],)
    return _as_strided(a, shape, strides, writeable=False)


def mv_unfold_backward(g, shape, axis, size, step):
    """The adjoint of ``mv_unfold``: windows summed back into an array of ``shape``."""
    out = _np.zeros(shape, dtype=g.dtype)
    count = g.shape[axis]
    if count == 0 or size == 0:
        return out
    gw = _np.moveaxis(g, -1, 0)  # window offset first: (size, ..., count, ...)
    span = step * (count - 1) + 1
    for k in range(size):  # one vectorized add per window offset, not per element
        out[_axis_index(out.ndim, axis, slice(k, k + span, step))] += gw[k]
    return out


@allocates()
def mv_repeat_interleave(a, repeats, axis):
    """Each element of ``a`` along ``axis`` repeated ``repeats`` times (an int or an int array)."""
    return _np.repeat(a, repeats, axis)


def mv_repeat_interleave_backward(g, shape, repeats, axis):
    """The adjoint of ``mv_repeat_interleave``: the copies of each element summed."""
    n = shape[axis]
    index = _np.repeat(_np.arange(n), repeats)
    out = _np.zeros(shape, dtype=g.dtype)
    _np.add.at(_np.moveaxis(out, axis, 0), index, _np.moveaxis(g, axis, 0))
    return out


def mv_any_negative(a):
    """Whether an int array has a negative element."""
    return bool(a.size) and bool((a < 0).any())


def mv_int_fits(value, dtype):
    """Whether the number ``value`` is an integer that ember int dtype ``dtype`` can hold."""
    info = _np.iinfo(NP[dtype])
    try:
        as_int = int(value)
    except (OverflowError, ValueError):  # inf, nan
        return False
    return as_int == value and info.min <= as_int <= info.max
