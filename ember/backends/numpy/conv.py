"""The conv kernels of the NumPy backend (see ember/ops/conv.py)."""

import numpy as np
from numpy.lib.stride_tricks import as_strided as _as_strided

from .core import NP
from .nn import _F32, _F64, _np, _out

__all__ = [
    "nn_conv2d", "nn_conv2d_grads", "nn_conv2d_saved",
]


# -- conv2d through im2col ----------------------------------------------------------------------

def _pad_hw(x, pads, value=0.0):
    """``x`` (N, C, H, W) padded by (top, bottom, left, right) with ``value`` (a new array)."""
    pt, pb, pl, pr = pads
    if not (pt or pb or pl or pr):
        return x
    N, C, H, W = x.shape
    out = np.full((N, C, H + pt + pb, W + pl + pr), value, dtype=x.dtype)
    out[:, :, pt:pt + H, pl:pl + W] = x
    return out


def _windows(xp, kernel, stride, dilation, out_hw):
    """A read-only view (N, C, OH, OW, kh, kw) of the sliding windows of ``xp`` (no copy)."""
    N, C = xp.shape[:2]
    kh, kw = kernel
    sN, sC, sH, sW = xp.strides
    return _as_strided(xp, (N, C, out_hw[0], out_hw[1], kh, kw),
                       (sN, sC, sH * stride[0], sW * stride[1], sH * dilation[0],
                        sW * dilation[1]), writeable=False)


def _col2im(d, shape, kernel, stride, dilation, out_hw):
    """Sum window gradients ``d`` (kh, kw, N, C, OH, OW) back into a zero array of ``shape``.

    Loops over the kh*kw kernel positions only; each step adds a whole strided slab.
    """
    out = np.zeros(shape, dtype=d.dtype)
    kh, kw = kernel
    sh, sw = stride
    dh, dw = dilation
    OH, OW = out_hw
    for i in range(kh):
        r0 = i * dh
        rs = slice(r0, r0 + sh * (OH - 1) + 1, sh)
        for j in range(kw):
            c0 = j * dw
            out[:, :, rs, c0:c0 + sw * (OW - 1) + 1:sw] += d[i, j]
    return out


def _kernel_slices(kernel, stride, dilation, out_hw):
    """(i, j, row slice, column slice) of the padded input that kernel position (i, j) reads."""
    (kh, kw), (sh, sw), (dh, dw), (OH, OW) = kernel, stride, dilation, out_hw
    return [(i, j, slice(i * dh, i * dh + sh * (OH - 1) + 1, sh),
             slice(j * dw, j * dw + sw * (OW - 1) + 1, sw)) for i in range(kh) for j in range(kw)]


def _columns(x, w, stride, pads, dilation, groups, out_hw, dtype, columns=True):
    """The im2col of ``nn_conv2d``: ``saved`` (what ``nn_conv2d_grads`` needs), and ``x``
    batched. The columns are gathered (one copy) only when ``columns``; else ``saved`` holds an
    empty array of their dtype (the input's gradient reads only the weights and shapes)."""
    unbatched = x.ndim == 3
    if unbatched:
        x = x[None]
    work = _F64 if NP[dtype] == _F64 else _F32
    N, C, H, W = x.shape
    O, Cg, kh, kw = w.shape
    G = groups
    Og = O // G
    OH, OW = out_hw
    M, K = N * OH * OW, Cg * kh * kw
    (sh, sw), (dh, dw) = stride, dilation
    pt, pb, pl, pr = pads
    Hp, Wp = H + pt + pb, W + pl + pr
    ww = w.astype(work, copy=False)
    last = Cg * kw > OW
    if last:
        pshape = (N, Hp, Wp, C)                                        # padded, channels last
        wm = ww.reshape(G, Og, Cg, kh, kw).transpose(0, 1, 3, 4, 2).reshape(G, Og, K)
    else:
        pshape = (C, N, Hp, Wp)                                        # channels, batch first
        wm = ww.reshape(G, Og, K)
    cols = np.empty((0,), dtype=work)
    if columns:
        xp = np.zeros(pshape, dtype=work)
        if last:
            xp[:, pt:pt + H, pl:pl + W, :] = x.transpose(0, 2, 3, 1)
            sN, sH, sW, sC = xp.strides
            win = _as_strided(xp, (G, N, OH, OW, kh, kw, Cg),
                              (Cg * sC, sN, sH * sh, sW * sw, sH * dh, sW * dw, sC),
                              writeable=False)
            cols = win.reshape(G, M, K)                                # the one copy
        else:
            xp[:, :, pt:pt + H, pl:pl + W] = x.transpose(1, 0, 2, 3)
            sC, sN, sH, sW = xp.strides
            win = _as_strided(xp, (G, Cg, kh, kw, N, OH, OW),
                              (Cg * sC, sC, sH * dh, sW * dw, sN, sH * sh, sW * sw),
                              writeable=False)
            cols = win.reshape(G, K, M)                                # the one copy
    return (last, cols, wm, x.shape, pshape, (kh, kw), stride, pads, dilation, G, out_hw,
            unbatched)


def nn_conv2d(x, w, b, stride, pads, dilation, groups, out_hw, dtype):
    """2-D cross-correlation of ``x`` (N, C, H, W) with ``w`` (O, C/groups, kh, kw), plus ``b``.

    im2col: the windows of a padded copy of the input are gathered into columns (one copy)
    that one matmul per group contracts with the weights. The padded copy is laid out so that
    the gather reads long contiguous runs: channels last (a window row is kw * C contiguous
    values) when kw * C/groups exceeds the output width, else channels first (a window row
    is an output row, OW values). Either way the result is (O, N * OH * OW), bias added in
    place, and the output a (N, O, OH, OW) view of it: every (OH, OW) plane contiguous,
    which the per-channel reductions of batch norm read fastest. Returns (out, saved) where
    ``saved`` is what ``nn_conv2d_grads`` needs.
    """
    saved = _columns(x, w, stride, pads, dilation, groups, out_hw, dtype)
    last, cols, wm = saved[:3]
    work = cols.dtype
    G, Og = wm.shape[:2]
    N = saved[3][0]
    OH, OW = out_hw
    if last:
        mm = np.matmul(cols, wm.transpose(0, 2, 1)).transpose(0, 2, 1)   # (G, Og, M)
        out = np.empty((G, Og, N * OH * OW), dtype=work)
        if b is not None:   # one pass adds the bias and transposes
            np.add(mm, b.astype(work, copy=False).reshape(G, Og, 1), out=out)
        else:
            np.copyto(out, mm)
    else:
        out = np.matmul(wm, cols)                                      # (G, Og, M)
        if b is not None:
            out += b.astype(work, copy=False).reshape(G, Og, 1)
    out = out.reshape(G * Og, N, OH, OW).transpose(1, 0, 2, 3)
    return _out(out[0] if saved[-1] else out, NP[dtype]), saved


def nn_conv2d_saved(x, w, stride, pads, dilation, groups, out_hw, dtype, need_w):
    """What ``nn_conv2d_grads`` needs of a convolution, without computing it: for a backward
    that kept only the inputs (the columns only when the weight's gradient is wanted)."""
    return _columns(x, w, stride, pads, dilation, groups, out_hw, dtype, columns=need_w)


def nn_conv2d_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    """Gradients of ``nn_conv2d``: (gx, gw, gb), each in its input's dtype or None.

    gw is one matmul per group of the output gradient with the saved columns; gx is a matmul
    back to columns, laid out kernel position first, and a col2im: one add of a contiguous
    slab into the padded layout of the forward per kernel position.
    """
    x_dtype = NP[x_dtype]
    w_dtype = _np(w_dtype)
    b_dtype = _np(b_dtype)
    last, cols, wm, xshape, pshape, kernel, stride, pads, dilation, G, out_hw, unb = saved
    if unb:
        g = g[None]
    N, C, H, W = xshape
    (kh, kw), (OH, OW) = kernel, out_hw
    Og, K = wm.shape[1:]
    O, M, Cg = G * Og, N * OH * OW, C // G
    gm = g.astype(cols.dtype, copy=False).transpose(1, 0, 2, 3).reshape(O, M)
    gx = gw = gb = None
    if need_b:
        gb = _out(gm.sum(axis=1), b_dtype)
    gm = gm.reshape(G, Og, M)
    if need_w:
        if last:
            gw = np.matmul(gm, cols).reshape(G, Og, kh, kw, Cg).transpose(0, 1, 4, 2, 3)
        else:
            gw = np.matmul(gm, cols.transpose(0, 2, 1))
        gw = _out(gw.reshape(O, Cg, kh, kw), w_dtype)
    if need_x:
        dxp = np.zeros(pshape, dtype=cols.dtype)
        pt, _, pl, _ = pads
        if last:                                                      # dxp: (N, Hp, Wp, C)
            wk = wm.reshape(G, Og, kh * kw, Cg).transpose(0, 2, 1, 3)     # (G, kh*kw, Og, Cg)
            dcols = np.matmul(gm.transpose(0, 2, 1)[:, None], wk)      # (G, kh*kw, M, Cg)
            d = dcols.reshape(G, kh, kw, N, OH, OW, Cg).transpose(1, 2, 3, 4, 5, 0, 6)
            d5 = dxp.reshape(pshape[:3] + (G, Cg))
            for i, j, rs, cs in _kernel_slices(kernel, stride, dilation, out_hw):
                d5[:, rs, cs] += d[i, j]
            gx = dxp[:, pt:pt + H, pl:pl + W, :].transpose(0, 3, 1, 2)
        else:                                                         # dxp: (C, N, Hp, Wp)
            dcols = np.matmul(wm.transpose(0, 2, 1), gm)              # (G, K, M)
            d = dcols.reshape(C, kh, kw, N, OH, OW)
            for i, j, rs, cs in _kernel_slices(kernel, stride, dilation, out_hw):
                dxp[:, :, rs, cs] += d[:, i, j]
            gx = dxp[:, :, pt:pt + H, pl:pl + W].transpose(1, 0, 2, 3)
        gx = _out(gx[0] if unb else gx, x_dtype)
    return gx, gw, gb
