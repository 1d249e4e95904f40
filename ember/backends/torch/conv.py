"""The conv kernels of the PyTorch backend (see ember/ops/conv.py)."""

import torch
import torch.nn.functional as TF

from .core import TORCH
from .nn import _aten, _out, _work_of

__all__ = ["nn_conv2d", "nn_conv2d_grads", "nn_conv2d_saved"]


# -- conv2d -------------------------------------------------------------------------------------

def _sym(pads):
    """(padding, explicit): torch's symmetric padding, or None and the pads to apply first."""
    pt, pb, pl, pr = pads
    if pt == pb and pl == pr:
        return (pt, pl), None
    return (0, 0), (pl, pr, pt, pb)


def nn_conv2d(x, w, b, stride, pads, dilation, groups, out_hw, dtype):
    """2-D cross-correlation (torch's conv2d). Returns (out, saved)."""
    dtype = TORCH[dtype]
    work = _work_of(dtype)
    unbatched = x.ndim == 3
    xw = x.to(work)
    if unbatched:
        xw = xw[None]
    ww = w.to(work)
    bw = None if b is None else b.to(work)
    padding, explicit = _sym(pads)
    if explicit is not None:
        xw = TF.pad(xw, explicit)
    N = xw.shape[0]
    O = ww.shape[0]
    if xw.numel() == 0 or ww.numel() == 0:
        out = torch.zeros((N, O) + tuple(out_hw), dtype=work, device=xw.device)
        if bw is not None:
            out = out + bw[:, None, None]
    else:
        out = TF.conv2d(xw, ww, bw, tuple(stride), padding, tuple(dilation), groups)
    saved = (xw, ww, b is not None, tuple(stride), padding, tuple(dilation), groups, explicit,
             unbatched)
    return _out(out[0] if unbatched else out, dtype), saved


def nn_conv2d_saved(x, w, stride, pads, dilation, groups, out_hw, dtype, need_w):
    """What ``nn_conv2d_grads`` needs of a convolution, without computing it."""
    work = _work_of(TORCH[dtype])
    unbatched = x.ndim == 3
    xw = x.to(work)
    if unbatched:
        xw = xw[None]
    padding, explicit = _sym(pads)
    if explicit is not None:
        xw = TF.pad(xw, explicit)
    return (xw, w.to(work), False, tuple(stride), padding, tuple(dilation), groups, explicit,
            unbatched)


def nn_conv2d_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    xw, ww, has_b, stride, padding, dilation, groups, explicit, unb = saved
    gm = g.to(xw.dtype)
    if unb:
        gm = gm[None]
    gx = gw = gb = None
    if xw.numel() == 0 or ww.numel() == 0:
        if need_x:
            gx = torch.zeros_like(xw)
        if need_w:
            gw = torch.zeros_like(ww)
        if need_b:
            gb = gm.sum((0, 2, 3))
    else:
        gx, gw, gb = _aten.convolution_backward(
            gm, xw, ww, [ww.shape[0]] if has_b else None, list(stride), list(padding),
            list(dilation), False, [0, 0], groups, [need_x, need_w, need_b and has_b])
    if need_x:
        if explicit is not None:
            pl, pr, pt, pb = explicit
            gx = gx[:, :, pt:gx.shape[2] - pb, pl:gx.shape[3] - pr]
        gx = _out(gx[0] if unb else gx, TORCH[x_dtype])
    if need_w:
        gw = _out(gw, TORCH[w_dtype])
    if need_b:
        gb = _out(gb, TORCH[b_dtype])
    return gx, gw, gb
