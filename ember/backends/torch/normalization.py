"""The normalization kernels of the PyTorch backend (see ember/ops/normalization.py)."""

import math as _math

import torch

from .core import TORCH
from .nn import _F64, _out, _td, _work_of

__all__ = [
    "nn_batch_norm", "nn_batch_norm_grads", "nn_running_update", "nn_layer_norm",
    "nn_layer_norm_grads",
]


# -- normalization ------------------------------------------------------------------------------

def _per_channel(a):
    return a.reshape(tuple(a.shape[:2]) + (_math.prod(a.shape[2:]),))


def nn_batch_norm(x, w, b, running_mean, running_var, use_batch, eps, dtype):
    """Batch norm over every dim but dim 1. Returns (out, saved, batch_mean,
    batch_var_unbiased); the batch statistics are None when the running ones are used."""
    dtype = TORCH[dtype]
    work = _work_of(dtype)
    x3 = _per_channel(x.to(work))
    count = x3.shape[0] * x3.shape[2]
    if use_batch:
        mean = x3.sum((0, 2)) / count
        xhat = x3 - mean[:, None]
        var = (xhat * xhat).sum((0, 2)) / count
    else:
        mean = running_mean.to(work)
        var = running_var.to(work)
        xhat = x3 - mean[:, None]
    invstd = 1.0 / torch.sqrt(var + eps)
    xhat = xhat * invstd[:, None]
    ww = None
    if w is not None:
        ww = w.to(work)
        out = xhat * ww[:, None]
    else:
        out = xhat.clone()
    if b is not None:
        out = out + b.to(work)[:, None]
    unbiased = var * (count / (count - 1)) if use_batch and count > 1 else var
    saved = (xhat, invstd, ww, tuple(x.shape), use_batch)
    return _out(out.reshape(x.shape), dtype), saved, (mean if use_batch else None), (
        unbiased if use_batch else None)


def nn_batch_norm_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    xhat, invstd, ww, shape, use_batch = saved
    g3 = _per_channel(g.to(xhat.dtype))
    count = g3.shape[0] * g3.shape[2]
    gx = gw = gb = None
    gsum = g3.sum((0, 2)) if need_b or (need_x and use_batch) else None
    gxsum = (g3 * xhat).sum((0, 2)) if need_w or (need_x and use_batch) else None
    if need_b:
        gb = _out(gsum, _td(b_dtype))
    if need_w:
        gw = _out(gxsum, _td(w_dtype))
    if need_x:
        k = invstd * ww if ww is not None else invstd
        if use_batch:
            t = xhat * (gxsum / count)[:, None] + (gsum / count)[:, None]
            t = (g3 - t) * k[:, None]
        else:
            t = g3 * k[:, None]
        gx = _out(t.reshape(shape), TORCH[x_dtype])
    return gx, gw, gb


def nn_running_update(running, batch, momentum, dtype):
    return _out((1.0 - momentum) * running.to(_F64) + momentum * batch.to(_F64), TORCH[dtype])


def nn_layer_norm(x, w, b, ndims, eps, dtype):
    dtype = TORCH[dtype]
    work = _work_of(dtype)
    xw = x.to(work)
    axes = tuple(range(x.ndim - ndims, x.ndim))
    if xw.numel():
        mean = xw.mean(axes, keepdim=True)
        var = xw.var(axes, unbiased=False, keepdim=True)
    else:
        mean = var = torch.zeros(tuple(x.shape[:x.ndim - ndims]) + (1,) * ndims, dtype=work,
                                 device=x.device)
    invstd = 1.0 / torch.sqrt(var + eps)
    xhat = (xw - mean) * invstd
    out = xhat
    ww = None
    if w is not None:
        ww = w.to(work)
        out = out * ww
    if b is not None:
        out = out + b.to(work)
    return _out(out, dtype), (xhat, invstd, ww, axes)


def nn_layer_norm_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    xhat, invstd, ww, axes = saved
    gw_ = g.to(xhat.dtype)
    lead = tuple(range(g.ndim - len(axes)))
    gx = gw = gb = None
    if need_b:
        gb = _out(gw_.sum(lead) if lead else gw_, _td(b_dtype))
    if need_w:
        gw = _out((gw_ * xhat).sum(lead) if lead else gw_ * xhat, _td(w_dtype))
    if need_x and not xhat.numel():
        gx = _out(gw_, TORCH[x_dtype])
    elif need_x:
        dxhat = gw_ * ww if ww is not None else gw_
        gx = invstd * (dxhat - dxhat.mean(axes, keepdim=True)
                       - xhat * (dxhat * xhat).mean(axes, keepdim=True))
        gx = _out(gx, TORCH[x_dtype])
    return gx, gw, gb
