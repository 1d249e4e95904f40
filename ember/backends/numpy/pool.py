"""The pool kernels of the NumPy backend (see ember/ops/pool.py), and the resampling ones."""

import numpy as np

from .core import _warnings_off
from .activation import _select
from .conv import _col2im, _pad_hw, _windows
from .jit.maxpool import compiled as _compiled, start_index as _start_index
from .jit.resample import nn_resample, nn_resample_grad  # compiled kernels
from .nn import _F64, _out, _work

__all__ = ["nn_max_pool2d", "nn_max_pool2d_grad", "nn_max_pool2d_indices", "nn_max_unpool2d",
           "nn_max_unpool2d_grad", "nn_avg_pool2d", "nn_avg_pool2d_grad", "nn_resample",
           "nn_resample_grad"]


# -- pooling ------------------------------------------------------------------------------------

def _slabs(xp, kernel, stride, dilation, out_hw):
    """The kh*kw strided views (N, C, OH, OW) of ``xp``, one per kernel position (row-major):
    slab k holds element k of every window."""
    (sh, sw), (dh, dw), (OH, OW) = stride, dilation, out_hw
    return [xp[:, :, i * dh:i * dh + sh * (OH - 1) + 1:sh, j * dw:j * dw + sw * (OW - 1) + 1:sw]
            for i in range(kernel[0]) for j in range(kernel[1])]


@_compiled("forward")  # (the compiled scan of jit/maxpool.py where it applies)
@_warnings_off
def nn_max_pool2d(x, kernel, stride, pads, dilation, out_hw):
    """Max pooling of ``x`` (N, C, H, W) or (C, H, W); padding counts as -inf.
    Returns (out, saved).

    A pairwise ``np.maximum`` over the kernel-position slabs (nan propagates): a few
    whole-array passes instead of an argmax over a tiny last axis per window."""
    unb = x.ndim == 3
    dtype = x.dtype
    if unb:
        x = x[None]
    xp = _pad_hw(_work(x), pads, -np.inf)
    slabs = _slabs(xp, kernel, stride, dilation, out_hw)
    out = slabs[0].copy(order="K")         # keeps the input's memory order (as the ufuncs)
    for s in slabs[1:]:
        np.maximum(out, s, out=out)
    return _out(out[0] if unb else out, dtype), (xp, out, x.shape, kernel, stride, pads,
                                                  dilation, out_hw, unb)


def _tap_inside(size, before, offset, stride, n):
    """Whether the tap at padded offset ``offset`` of each of the ``n`` windows along one axis
    lies inside the input (a bool (n,) array), or None when it does for every window."""
    pos = np.arange(n) * stride + offset
    ok = (pos >= before) & (pos < before + size)
    return None if ok.all() else ok


def _max_pool_hits(xp, out, xshape, kernel, stride, pads, dilation, out_hw):
    """Yield ``(k, hit, first)`` per kernel position ``k`` (row-major): ``hit`` (a bool array of
    the output's shape, or broadcastable to it) marks the windows whose selected element is tap
    ``k``; ``first`` is False in the second pass over NaN windows.

    PyTorch's CPU rule, found by experiment (torch 2.13): taps in the padding are skipped; a
    window's element is its first maximum in kernel order, or its last NaN when it has one (its
    scan is ``if val > maxval or isnan(val)``). A window with no tap inside the input (possible
    with dilation) selects nothing. Loops over the kernel positions only (twice with NaNs)."""
    slabs = _slabs(xp, kernel, stride, dilation, out_hw)
    H, W = xshape[2:]
    kh, kw = kernel
    (sh, sw), (dh, dw), (OH, OW) = stride, dilation, out_hw
    rows = [_tap_inside(H, pads[0], i * dh, sh, OH) for i in range(kh)]
    cols = [_tap_inside(W, pads[2], j * dw, sw, OW) for j in range(kw)]

    def inside(k):
        r, c = rows[k // kw], cols[k % kw]
        if r is None and c is None:
            return None
        r = np.ones(OH, bool) if r is None else r
        c = np.ones(OW, bool) if c is None else c
        return np.logical_and.outer(r, c)

    nanwin = np.isnan(out)
    if not nanwin.any():
        nanwin = None
    free = None if nanwin is None else ~nanwin  # windows whose element is not found yet
    last = len(slabs) - 1
    for k, s in enumerate(slabs):
        v = inside(k)
        if k == last:           # the element is here when no earlier tap had it
            hit = np.ones(out.shape, bool) if free is None else free
            if v is not None:
                hit = hit & v
        else:
            hit = np.equal(s, out)
            if v is not None:
                hit &= v
            if free is not None:
                hit &= free
        yield k, hit, True
        if k < last:
            free = ~hit if free is None else np.greater(free, hit, out=free)  # free & ~hit
    if nanwin is not None:      # NaN windows: their last NaN, scanning the taps backwards
        free = nanwin
        for k in range(last, -1, -1):
            hit = np.isnan(slabs[k]) & free
            yield k, hit, False
            if k:
                free = np.greater(free, hit, out=free if free is not nanwin else None)


@_compiled("grad")
@_warnings_off
def nn_max_pool2d_grad(g, saved):
    """The gradient of ``nn_max_pool2d``: each window's gradient goes to the element PyTorch's
    CPU kernel selects (see ``_max_pool_hits``: the first max among the taps inside the input,
    the last NaN when the window has one), found by comparing the slabs with the output."""
    xp, out, xshape, kernel, stride, pads, dilation, out_hw, unb = saved
    gdt = g.dtype
    gw = g[None] if unb else g
    if gw.dtype != xp.dtype or gw.strides != out.strides:
        # one copy into the output's memory order: ufuncs over operands laid out differently
        # cost several times more than this copy
        gw, g_ = np.empty_like(out), gw
        np.copyto(gw, g_, casting="unsafe")
    N, C, Hp, Wp = xp.shape
    # windows that tile the padded input exactly write every element once: no zeros, no sums
    tiled = (tuple(stride) == tuple(kernel) and tuple(dilation) == (1, 1)
             and Hp == kernel[0] * out_hw[0] and Wp == kernel[1] * out_hw[1])
    dxp = (np.empty_like if tiled else np.zeros_like)(xp, gw.dtype)
    dslabs = _slabs(dxp, kernel, stride, dilation, out_hw)
    for k, hit, first in _max_pool_hits(xp, out, xshape, kernel, stride, pads, dilation,
                                        out_hw):
        if tiled and first:
            _select(gw, np.broadcast_to(hit, out.shape), out=dslabs[k])
        else:
            dslabs[k] += _select(gw, hit)
    pt, _, pl, _ = pads
    gx = dxp[:, :, pt:pt + xshape[2], pl:pl + xshape[3]]
    return _out(gx[0] if unb else gx, gdt)


@_compiled("indices")
def nn_max_pool2d_indices(saved):
    """PyTorch's ``return_indices`` of ``nn_max_pool2d``: the flat index (into each H*W input
    plane, int64) of the element each window selects (``_max_pool_hits``). A window with no tap
    inside the input gets PyTorch's start index (its first row and column at or past 0, which
    lies outside the plane)."""
    xp, out, xshape, kernel, stride, pads, dilation, out_hw, unb = saved
    H, W = xshape[2:]
    kw = kernel[1]
    (sh, sw), (dh, dw), (OH, OW) = stride, dilation, out_hw
    r0 = np.arange(OH, dtype=np.int64)[:, None] * sh - pads[0]
    c0 = np.arange(OW, dtype=np.int64)[None, :] * sw - pads[2]
    K = kernel[0] * kw
    kt = np.int16 if K < 32767 else np.int64
    kpos = np.full(out.shape, K, kt)  # each window's selected tap (K: none)
    step = np.empty(out.shape, kt)
    for k, hit, _ in _max_pool_hits(xp, out, xshape, kernel, stride, pads, dilation, out_hw):
        # kpos = where(hit, k, kpos) without a branch per element (np.where or a masked copy
        # over a mask of no pattern costs 10x more): kpos += hit * (k - kpos)
        np.subtract(kt(k), kpos, out=step)
        np.multiply(step, hit, out=step)
        kpos += step
    # each tap's offset from its window's corner (0 for none), then the corners added
    offsets = np.array([k // kw * dh * W + k % kw * dw for k in range(K)] + [0], np.int64)
    idx = np.take(offsets, kpos)
    idx += r0 * W + c0
    empty = kpos == K
    if empty.any():
        np.copyto(idx, np.broadcast_to(_start_index(r0, c0, dh, dw, W), idx.shape), where=empty)
    return idx[0] if unb else idx


def _avg_divisor(size, kernel, stride, pad, out, include_pad):
    """PyTorch's per-output-position divisor along one axis (a 1-D float64 array)."""
    start = np.arange(out) * stride - pad
    end = np.minimum(start + kernel, size + pad)
    if include_pad:
        return (end - start).astype(_F64)
    return (np.minimum(end, size) - np.maximum(start, 0)).astype(_F64)


@_warnings_off
def nn_avg_pool2d(x, kernel, stride, pads, padding, out_hw, count_include_pad, divisor_override):
    """Average pooling of ``x`` (N, C, H, W) or (C, H, W) with PyTorch's divisors.
    Returns (out, saved)."""
    unb = x.ndim == 3
    dtype = x.dtype
    if unb:
        x = x[None]
    work = _work(x)
    H, W = x.shape[2:]
    xp = _pad_hw(work, pads, 0.0)
    win = _windows(xp, kernel, stride, (1, 1), out_hw)
    sums = win.sum(axis=(-2, -1))
    if divisor_override is not None:
        div = np.full(out_hw, float(divisor_override))
    else:
        dh = _avg_divisor(H, kernel[0], stride[0], padding[0], out_hw[0], count_include_pad)
        dw = _avg_divisor(W, kernel[1], stride[1], padding[1], out_hw[1], count_include_pad)
        div = np.multiply.outer(dh, dw)
    out = sums / div
    return _out(out[0] if unb else out, dtype), (div, x.shape, xp.shape, kernel, stride, pads,
                                                  out_hw, unb)


@_warnings_off
def nn_avg_pool2d_grad(g, saved):
    """The gradient of ``nn_avg_pool2d``: each window's gradient, divided, spread over it."""
    div, xshape, pshape, kernel, stride, pads, out_hw, unb = saved
    gdt = g.dtype
    gd = _work(g[None] if unb else g) / div
    kh, kw = kernel
    d = np.broadcast_to(gd, (kh, kw) + gd.shape)
    dxp = _col2im(d, pshape, kernel, stride, (1, 1), out_hw)
    pt, _, pl, _ = pads
    gx = dxp[:, :, pt:pt + xshape[2], pl:pl + xshape[3]]
    return _out(gx[0] if unb else gx, gdt)


# -- max_unpool2d -------------------------------------------------------------------------------

def nn_max_unpool2d(x, idx, out_hw):
    """PyTorch's ``max_unpool2d``: zeros of (N, C) + ``out_hw`` (or (C,) + ``out_hw``) with each
    value of ``x`` written at its flat plane index in ``idx`` (same shape as ``x``); where
    indices repeat, the last value in row-major order wins (PyTorch leaves it unspecified)."""
    lead = x.shape[:-2]
    L = out_hw[0] * out_hw[1]
    n = x.shape[-2] * x.shape[-1]
    out = np.zeros(lead + (L,), dtype=x.dtype)
    np.put_along_axis(out, idx.reshape(lead + (n,)).astype(np.intp), x.reshape(lead + (n,)),
                      axis=-1)
    return out.reshape(lead + tuple(out_hw))


def nn_max_unpool2d_grad(g, idx):
    """The gradient of ``nn_max_unpool2d``: ``g`` read at each index (a gather per plane, as
    PyTorch's, also where indices repeat)."""
    lead = idx.shape[:-2]
    n = idx.shape[-2] * idx.shape[-1]
    gf = g.reshape(lead + (g.shape[-2] * g.shape[-1],))
    return np.take_along_axis(gf, idx.reshape(lead + (n,)).astype(np.intp),
                              axis=-1).reshape(idx.shape)

