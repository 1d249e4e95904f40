"""NumPy kernels of the movement family: the overrides of ember/backends/base/movement.py's
defaults (and its required kernels). Public names here are kernels (`be.NAME`)."""

import numpy as _np
from numpy.lib.stride_tricks import as_strided as _as_strided

from ..base.movement import pad_crop, pad_windows
from .core import NP, _transposed_copy, allocates, allocation_failed

__all__ = ["mv_reshape", "mv_expand", "mv_permute", "mv_flip", "mv_pad", "mv_pad_backward",
           "mv_unfold", "mv_repeat_interleave"]

_RESHAPE_NO_COPY = _np.lib.NumpyVersion(_np.__version__) >= "2.1.0"  # reshape(copy=False)


# override: the compiled tiled transpose for a transposed layout; the typed allocation error
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


# override: the typed allocation error for a size NumPy cannot address
def mv_expand(a, shape, op="expand"):
    """A read-only broadcast view of ``a`` with ``shape`` (leading dims added as needed;
    ``op``: the op named if its size cannot be addressed). A C-contiguous ``a`` is viewed
    directly (1.0 µs for (1, 128) to (4, 128), against 1.8 for ``np.broadcast_to``, which
    builds an iterator)."""
    lead = len(shape) - a.ndim
    try:
        if a.flags.c_contiguous and lead >= 0:
            strides = [0] * lead
            for n, m, st in zip(a.shape, shape[lead:], a.strides):
                if n != m and n != 1:
                    break
                strides.append(st if n == m else 0)
            else:
                view = _np.ndarray(shape, a.dtype, a, 0, strides)
                view.flags.writeable = False
                return view
        return _np.broadcast_to(a, shape)
    except ValueError as exc:
        raise allocation_failed(exc, op, shape) from None


# override: 0.10 vs the default's 0.82 µs (a.transpose against np.permute_dims, 32x16)
def mv_permute(a, order):
    """A view of ``a`` with its axes in ``order``."""
    return a.transpose(order)


_FULL = slice(None)
_REVERSED = slice(None, None, -1)


# override: one basic-indexing step, a fraction of np.flip's argument handling
def mv_flip(a, axes):
    """A view of ``a`` reversed along ``axes`` (non-negative); a 0-d ``a`` gives a 0-d view."""
    return a[tuple([_REVERSED if i in axes else _FULL for i in range(a.ndim)]) + (Ellipsis,)]


_NP_MODES = {"reflect": "reflect", "edge": "edge", "circular": "wrap"}


@allocates(lambda a, pads, *rest: tuple(n + b + e for n, (b, e) in zip(a.shape, pads)))
def mv_pad(a, pads, mode, value, dtype):
    """``a`` padded by ``pads`` (one (before, after) pair per axis; negative amounts crop);
    ``mode`` constant (``value``), reflect, edge or circular; ember ``dtype``."""
    dtype = NP[dtype]
    if not any([b or e for b, e in pads]):
        return a.astype(dtype, copy=True)
    if mode == "constant":
        out = _np.full(tuple([n + b + e for n, (b, e) in zip(a.shape, pads)]), value, dtype=dtype)
        src, dst = pad_windows(a.shape, pads)
        out[dst] = a[src]
        return out
    out = _np.pad(a, [(max(b, 0), max(e, 0)) for b, e in pads], mode=_NP_MODES[mode])
    if out.dtype != dtype:
        out = out.astype(dtype)
    if any(b < 0 or e < 0 for b, e in pads):
        out = _np.ascontiguousarray(out[pad_crop(pads)])
    return out


def _axis_index(ndim, axis, sl):
    return (slice(None),) * axis + (sl,) + (slice(None),) * (ndim - axis - 1)


# override: slice adds in place, 164 vs the default's 4008 µs (reflect, 16x3x64x64 padded by 2)
def mv_pad_backward(g, shape, pads, mode):
    """The adjoint of ``mv_pad`` (without the fill value): the gradient for the input of
    ``shape``."""
    if not any([b or e for b, e in pads]):
        return g
    if mode == "constant":
        src, dst = pad_windows(shape, pads)
        if all(b >= 0 and e >= 0 for b, e in pads):
            return g[dst]
        out = _np.zeros(shape, dtype=g.dtype)
        out[src] = g[dst]
        return out
    nd = g.ndim
    if any(b < 0 or e < 0 for b, e in pads):
        big = _np.zeros([n + max(b, 0) + max(e, 0) for n, (b, e) in zip(shape, pads)], g.dtype)
        big[pad_crop(pads)] = g
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


def mv_unfold(a, axis, size, step):
    """A read-only strided view of the windows of ``size`` every ``step`` along ``axis``;
    the window index replaces ``axis`` and the window offset is a new last axis."""
    n = a.shape[axis]
    count = 0 if n < size else (n - size) // step + 1
    shape = a.shape[:axis] + (count,) + a.shape[axis + 1:] + (size,)
    st = a.strides
    strides = st[:axis] + (st[axis] * step,) + st[axis + 1:] + (st[axis],)
    return _as_strided(a, shape, strides, writeable=False)


@allocates()
def mv_repeat_interleave(a, repeats, axis):
    """Each element of ``a`` along ``axis`` repeated ``repeats`` times (an int or an int array)."""
    return _np.repeat(a, repeats, axis)
