"""Torch kernels of ember.nn: activations, linear, conv2d, pooling, norms, losses, attention.

The same names, arguments and results as the NumPy kernels (``ember/backends/numpy/nn.py``);
torch's own kernels where they compute the same thing (conv2d and its backward, max/avg
pooling and their backwards, softmax, gelu, silu), the NumPy kernels' arithmetic elsewhere.
Half-precision inputs (float16, bfloat16) are computed in float32 and cast back; the ``saved``
values are this backend's own (only its ``*_grad(s)`` kernels read them).
"""

import math as _math

import torch
import torch.nn.functional as TF

from .core import TORCH, sum_to_shape
from .elementwise import ew_relu as _ew_relu

__all__ = [
    "nn_gelu", "nn_gelu_grad", "nn_silu", "nn_silu_grad", "nn_relu", "nn_relu_grad",
    "nn_softmax", "nn_softmax_grad",
    "nn_log_softmax", "nn_log_softmax_grad", "nn_linear", "nn_linear_grads",
    "nn_conv2d", "nn_conv2d_grads", "nn_max_pool2d", "nn_max_pool2d_grad",
    "nn_max_pool2d_indices", "nn_max_unpool2d", "nn_max_unpool2d_grad", "nn_avg_pool2d",
    "nn_avg_pool2d_grad", "nn_batch_norm", "nn_batch_norm_grads", "nn_running_update",
    "nn_layer_norm", "nn_layer_norm_grads", "nn_target_bad", "nn_class_loss",
    "nn_class_loss_grad", "nn_prob_loss", "nn_prob_loss_grads", "nn_pair_loss",
    "nn_pair_loss_grads", "nn_bce_logits", "nn_bce_logits_grads", "nn_dropout_apply",
    "nn_embedding", "nn_embedding_grad", "nn_embedding_renorm", "nn_scale", "nn_full_like_shape",
    "nn_reshape", "nn_int_max", "nn_zero_row", "nn_index_bad",
    "nn_attention", "nn_attention_grads",
]

_F32 = torch.float32
_F64 = torch.float64
_aten = torch.ops.aten
_WIDE_INTS = (torch.uint16, torch.uint32, torch.uint64)


def _td(dtype):
    """The torch dtype of the ember DType ``dtype`` (None stays None)."""
    return None if dtype is None else TORCH[dtype]


def _work(a):
    """``a`` in float32 or float64 (others as float32)."""
    dt = a.dtype
    return a if dt == _F32 or dt == _F64 else a.to(_F32)


def _work_of(dtype):
    """The working dtype of a result of torch dtype ``dtype``."""
    return _F64 if dtype == _F64 else _F32


def _out(a, dtype):
    return a if a.dtype == dtype else a.to(dtype)


def _long(idx):
    """An int tensor as int64 (torch indexes with int64; uint16/32 convert exactly)."""
    return idx if idx.dtype == torch.int64 else idx.to(torch.int64)


def nn_scale(a, factor, dtype):
    return _out(_work(a) * factor, TORCH[dtype])


def nn_reshape(a, shape):
    return a.reshape(shape)


def nn_zero_row(a, row):
    out = a.clone()
    out[row] = 0
    return out


def nn_int_max(a):
    return int(_long(a).max()) if a.dtype in _WIDE_INTS else int(a.max())


def nn_full_like_shape(shape, value, dtype, *, device=None):
    return torch.full(tuple(shape), value, dtype=TORCH[dtype], device=device)


# -- activations --------------------------------------------------------------------------------

def nn_gelu(x, approximate):
    if approximate == "tanh":
        return _out(TF.gelu(_work(x), approximate="tanh"), x.dtype)
    return _out(TF.gelu(x.to(_F64)), x.dtype)


def nn_gelu_grad(g, x, approximate):
    if approximate == "tanh":
        w = _work(x)
        return _out(_aten.gelu_backward(_work(g).to(w.dtype), w, approximate="tanh"), g.dtype)
    return _out(_aten.gelu_backward(g.to(_F64), x.to(_F64)), g.dtype)


def nn_silu(x):
    return _out(TF.silu(_work(x)), x.dtype)


def nn_silu_grad(g, x):
    w = _work(x)
    return _out(_aten.silu_backward(_work(g).to(w.dtype), w), g.dtype)


def nn_softmax(x, axis):
    return _out(torch.softmax(_work(x), axis), x.dtype)


def nn_softmax_grad(g, y, axis):
    yw = _work(y)
    gw = _work(g).to(yw.dtype)
    return _out(_aten._softmax_backward_data(gw, yw, axis, yw.dtype), g.dtype)


def nn_log_softmax(x, axis):
    return _out(torch.log_softmax(_work(x), axis), x.dtype)


def nn_log_softmax_grad(g, y, axis):
    yw = _work(y)
    gw = _work(g).to(yw.dtype)
    return _out(_aten._log_softmax_backward_data(gw, yw, axis, yw.dtype), g.dtype)


def nn_relu(x):
    """``max(x, 0)`` of a float tensor, keeping nan; the sign of zero as NumPy's ``maximum``
    (and Tensor.relu): -0.0 gives +0.0, except in float16 where it stays -0.0."""
    return _ew_relu(x)


def nn_relu_grad(g, x):
    """0 where ``x <= 0`` (+0.0, also where ``g`` is inf or nan), else ``g``."""
    return g.masked_fill(x <= 0, 0)


# -- linear -------------------------------------------------------------------------------------

def nn_linear(x, w, b, dtype):
    dtype = TORCH[dtype]
    work = _work_of(dtype)
    out = TF.linear(x.to(work), w.to(work), None if b is None else b.to(work))
    return _out(out, dtype)


def nn_linear_grads(g, x, w, need_x, need_w, need_b, b_dtype):
    gw_ = _work(g)
    work = torch.promote_types(gw_.dtype, torch.promote_types(_work(x).dtype, _work(w).dtype))
    gw_ = gw_.to(work)
    O, I = w.shape
    rows = _math.prod(gw_.shape[:-1])
    g2 = gw_.reshape(rows, O)
    gx = gww = gb = None
    if need_x:
        gx = _out(torch.matmul(gw_, w.to(work)), x.dtype)
    if need_w:
        gww = _out(torch.matmul(g2.T, x.to(work).reshape(rows, I)), w.dtype)
    if need_b:
        gb = _out(g2.sum(0), _td(b_dtype))
    return gx, gww, gb


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
        gb = _out(gb, _td(b_dtype))
    return gx, gw, gb


# -- pooling ------------------------------------------------------------------------------------

def _pool_geometry(pads):
    """(torch's symmetric padding, ceil_mode) of the op's (top, bottom, left, right) pads: the
    op adds bottom/right padding only for ceil_mode, with PyTorch's output sizes."""
    pt, pb, pl, pr = pads
    return (pt, pl), (pb > pt or pr > pl)


def _inside(size, before, kernel, stride, dilation, n, device):
    """Whether each of the ``n`` windows along one axis has a tap inside the input."""
    start = torch.arange(n, device=device) * stride - before
    taps = start[:, None] + torch.arange(kernel, device=device)[None, :] * dilation
    return ((taps >= 0) & (taps < size)).any(1)


def nn_max_pool2d(x, kernel, stride, pads, dilation, out_hw):
    """Max pooling (torch's kernel: padding is skipped, the first max in kernel order or the
    last NaN is selected). Returns (out, saved)."""
    dtype = x.dtype
    xw = _work(x)
    padding, ceil = _pool_geometry(pads)
    out, idx = _aten.max_pool2d_with_indices(xw, list(kernel), list(stride), list(padding),
                                             list(dilation), ceil)
    return _out(out, dtype), (xw, idx, tuple(kernel), tuple(stride), padding, tuple(dilation),
                              ceil, tuple(out_hw))


def nn_max_pool2d_grad(g, saved):
    xw, idx, kernel, stride, padding, dilation, ceil, out_hw = saved
    H, W = xw.shape[-2:]
    rows = _inside(H, padding[0], kernel[0], stride[0], dilation[0], out_hw[0], xw.device)
    cols = _inside(W, padding[1], kernel[1], stride[1], dilation[1], out_hw[1], xw.device)
    gw = g.to(xw.dtype)
    if not (bool(rows.all()) and bool(cols.all())):  # a window with no tap inside: dropped
        gw = gw * (rows[:, None] & cols[None, :]).to(gw.dtype)
    gx = _aten.max_pool2d_with_indices_backward(gw, xw, list(kernel), list(stride),
                                                list(padding), list(dilation), ceil, idx)
    return _out(gx, g.dtype)


def nn_max_pool2d_indices(saved):
    return saved[1]


def nn_max_unpool2d(x, idx, out_hw):
    lead = tuple(x.shape[:-2])
    L = out_hw[0] * out_hw[1]
    n = x.shape[-2] * x.shape[-1]
    out = torch.zeros(lead + (L,), dtype=x.dtype, device=x.device)
    out.scatter_(-1, _long(idx).reshape(lead + (n,)), x.reshape(lead + (n,)))
    return out.reshape(lead + tuple(out_hw))


def nn_max_unpool2d_grad(g, idx):
    lead = tuple(idx.shape[:-2])
    n = idx.shape[-2] * idx.shape[-1]
    gf = g.reshape(lead + (g.shape[-2] * g.shape[-1],))
    return torch.gather(gf, -1, _long(idx).reshape(lead + (n,))).reshape(idx.shape)


def nn_avg_pool2d(x, kernel, stride, pads, padding, out_hw, count_include_pad, divisor_override):
    """Average pooling with PyTorch's divisors (torch's kernel). Returns (out, saved)."""
    dtype = x.dtype
    xw = _work(x)
    pad, ceil = _pool_geometry(pads)
    out = TF.avg_pool2d(xw, tuple(kernel), tuple(stride), pad, ceil, count_include_pad,
                        divisor_override)
    return _out(out, dtype), (xw, tuple(kernel), tuple(stride), pad, ceil, count_include_pad,
                              divisor_override)


def nn_avg_pool2d_grad(g, saved):
    xw, kernel, stride, pad, ceil, include, divisor = saved
    gx = _aten.avg_pool2d_backward(g.to(xw.dtype), xw, list(kernel), list(stride), list(pad),
                                   ceil, include, divisor)
    return _out(gx, g.dtype)


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


# -- losses -------------------------------------------------------------------------------------

def nn_target_bad(target, num_classes, ignore_index):
    if target.numel() == 0:
        return None
    t = _long(target) if target.dtype in _WIDE_INTS else target
    if int(t.min()) >= 0 and int(t.max()) < num_classes:
        return None
    bad = (t < 0) | (t >= num_classes)
    if ignore_index is not None:
        bad &= t != ignore_index
    if not bool(bad.any()):
        return None
    return int(t[bad].reshape(-1)[0])


def nn_index_bad(idx, size):
    return nn_target_bad(idx, size, None)


def _reduce(per, reduction, denom):
    if reduction == "none":
        return per
    total = per.sum()
    if reduction == "sum":
        return total
    return total / denom


def _grad_scale(g, reduction, denom, shape):
    if reduction == "none":
        return g
    if reduction == "sum":
        return g.expand(tuple(shape))
    return (g / denom).expand(tuple(shape))


def nn_class_loss(x, target, weight, ignore_index, smoothing, reduction, from_logits, dtype):
    dtype = TORCH[dtype]
    work = _work_of(dtype)
    xl = x.to(work).movedim(1, -1)
    C = xl.shape[-1]
    if from_logits:
        logp = torch.log_softmax(xl, -1) if xl.numel() else xl.clone()
    else:
        logp = xl
    tl = _long(target)
    valid = tl != ignore_index
    tt = torch.where(valid, tl, 0)
    if C:
        picked = torch.gather(logp, -1, tt[..., None])[..., 0]
    else:
        picked = torch.zeros(tuple(tt.shape), dtype=work, device=x.device)
    wv = weight.to(work) if weight is not None else None
    w_t = torch.where(valid, wv[tt], 0.0) if wv is not None else valid.to(work)
    per = -w_t * picked
    if smoothing:
        smooth = -(logp * wv).sum(-1) if wv is not None else -logp.sum(-1)
        smooth = torch.where(valid, smooth, 0.0)
        per = (1.0 - smoothing) * per + (smoothing / C) * smooth
    denom = w_t.sum()
    loss = _reduce(per, reduction, denom)
    saved = (logp, tt, w_t, valid, wv, smoothing, reduction, denom, from_logits,
             tuple(per.shape))
    return _out(loss, dtype), saved


def nn_class_loss_grad(g, saved, x_dtype):
    logp, tt, w_t, valid, wv, smoothing, reduction, denom, from_logits, pshape = saved
    C = logp.shape[-1]
    scale = _grad_scale(g.to(logp.dtype), reduction, denom, pshape)
    q = torch.zeros_like(logp)
    if C:
        q.scatter_(-1, tt[..., None], ((1.0 - smoothing) * w_t)[..., None])
    if smoothing:
        base = valid[..., None].to(logp.dtype)
        q = q + (smoothing / C) * (base * wv if wv is not None else base)
    if from_logits:
        gx = torch.exp(logp) * q.sum(-1, keepdim=True) - q
    else:
        gx = -q
    gx = torch.where(valid[..., None], gx * scale[..., None], 0.0)
    return _out(gx.movedim(-1, 1), TORCH[x_dtype])


def nn_prob_loss(x, target, weight, smoothing, reduction, dtype):
    dtype = TORCH[dtype]
    work = _work_of(dtype)
    xl = x.to(work).movedim(1, -1)
    tl = target.to(work).movedim(1, -1)
    C = xl.shape[-1]
    logp = torch.log_softmax(xl, -1) if xl.numel() else xl.clone()
    tt = tl * (1.0 - smoothing) + smoothing / C if smoothing else tl
    wv = weight.to(work) if weight is not None else None
    q = tt * wv if wv is not None else tt
    per = -(logp * q).sum(-1)
    denom = float(x.numel() // C) if C else 0.0
    loss = _reduce(per, reduction, denom)
    return _out(loss, dtype), (logp, q, wv, smoothing, reduction, denom, tuple(per.shape))


def nn_prob_loss_grads(g, saved, need_x, need_t, x_dtype, t_dtype):
    logp, q, wv, smoothing, reduction, denom, pshape = saved
    scale = _grad_scale(g.to(logp.dtype), reduction, denom, pshape)[..., None]
    gx = gt = None
    if need_x:
        gx = _out(((torch.exp(logp) * q.sum(-1, keepdim=True) - q) * scale).movedim(-1, 1),
                  TORCH[x_dtype])
    if need_t:
        d = -(1.0 - smoothing) * logp
        if wv is not None:
            d = d * wv
        gt = _out((d * scale).movedim(-1, 1), TORCH[t_dtype])
    return gx, gt


def nn_pair_loss(a, b, kind, reduction, dtype):
    dtype = TORCH[dtype]
    work = _work_of(dtype)
    diff = a.to(work) - b.to(work)
    per = diff * diff if kind == "mse" else torch.abs(diff)
    loss = _reduce(per, reduction, float(per.numel()))
    return _out(loss, dtype), (diff, kind, reduction)


def nn_pair_loss_grads(g, saved):
    diff, kind, reduction = saved
    scale = _grad_scale(g.to(diff.dtype), reduction, float(diff.numel()), tuple(diff.shape))
    d = 2.0 * diff if kind == "mse" else torch.sign(diff)
    return d * scale


def nn_bce_logits(x, t, weight, pos_weight, reduction, dtype):
    dtype = TORCH[dtype]
    work = _work_of(dtype)
    xw = x.to(work)
    tw = t.to(work)
    logsig = torch.clamp(xw, max=0.0) - torch.log1p(torch.exp(-torch.abs(xw)))
    pw = pos_weight.to(work) if pos_weight is not None else None
    lw = 1.0 + (pw - 1.0) * tw if pw is not None else 1.0
    raw = (1.0 - tw) * xw - lw * logsig
    ww = weight.to(work) if weight is not None else None
    per = raw * ww if ww is not None else raw
    per = per.expand(torch.broadcast_shapes(per.shape, xw.shape))
    loss = _reduce(per, reduction, float(per.numel()))
    return _out(loss, dtype), (xw, tw, logsig, pw, lw, raw, ww, reduction, tuple(per.shape))


def nn_bce_logits_grads(g, saved):
    xw, tw, logsig, pw, lw, raw, ww, reduction, pshape = saved
    scale = _grad_scale(g.to(xw.dtype), reduction, float(_math.prod(pshape)), pshape)
    sig_neg = torch.exp(logsig - xw)
    wscale = scale * ww if ww is not None else scale
    gx = ((1.0 - tw) - lw * sig_neg) * wscale
    dt = -xw - ((pw - 1.0) * logsig if pw is not None else 0.0)
    gt = dt * wscale
    gw = raw * scale
    gpw = -tw * logsig * wscale
    return gx, gt, gw, gpw


# -- dropout, embedding -------------------------------------------------------------------------

def nn_dropout_apply(x, mask, scale):
    return _out(_work(x) * _work(mask) * scale, x.dtype)


def nn_embedding(weight, idx):
    return weight[_long(idx)]


def nn_embedding_grad(g, idx, num, padding_idx, scale_grad_by_freq=False):
    D = g.shape[-1]
    gw = _work(g).reshape(idx.numel(), D)
    flat = _long(idx).reshape(-1)
    out = torch.zeros((num, D), dtype=gw.dtype, device=g.device)
    out.index_add_(0, flat, gw)
    if scale_grad_by_freq:
        counts = torch.bincount(flat, minlength=num)
        out /= torch.clamp(counts, min=1).to(out.dtype)[:, None]
    if padding_idx is not None:
        out[padding_idx] = 0.0
    return _out(out, g.dtype)


def nn_embedding_renorm(weight, idx, max_norm, norm_type):
    rows = torch.unique(_long(idx).reshape(-1))
    if rows.numel() == 0 or weight.shape[1] == 0:
        return None
    sel = torch.abs(weight[rows].to(_F64))
    p = norm_type
    if p == _math.inf:
        norms = sel.amax(1)
    elif p == -_math.inf:
        norms = sel.amin(1)
    elif p == 0:
        norms = torch.count_nonzero(sel, 1).to(_F64)
    else:
        norms = torch.sum(sel ** p, 1) ** (1.0 / p)
    big = norms > max_norm
    if not bool(big.any()):
        return None
    rows = rows[big]
    wrows = _work(weight[rows])
    scale = (max_norm / (norms[big] + 1e-7)).to(wrows.dtype)
    out = weight.clone()
    out[rows] = _out(wrows * scale[:, None], weight.dtype)
    return out


# -- scaled dot-product attention ---------------------------------------------------------------

def _heads(a, groups):
    return a if groups == 1 else torch.repeat_interleave(a, groups, dim=-3)


def _unheads(g, groups):
    if groups == 1:
        return g
    shape = tuple(g.shape)
    return g.reshape(shape[:-3] + (shape[-3] // groups, groups) + shape[-2:]).sum(-3)


def nn_attention(q, k, v, bias, allowed, causal, scale, groups_k, groups_v, keep, keep_scale):
    dt = q.dtype
    qw, kw, vw = _work(q), _heads(_work(k), groups_k), _heads(_work(v), groups_v)
    s = torch.matmul(qw, kw.transpose(-1, -2))
    if qw.shape[-1]:
        s = s * scale
    if bias is not None:
        s = s + _work(bias)
    neg = torch.tensor(-_math.inf, dtype=s.dtype, device=s.device)
    if causal:
        tri = torch.ones((s.shape[-2], s.shape[-1]), dtype=torch.bool, device=s.device).tril()
        s = torch.where(tri, s, neg)
    if allowed is not None:
        s = torch.where(allowed, s, neg)
    if s.shape[-1] == 0:
        p = s
    else:
        m = s.amax(-1, keepdim=True)
        m = m.masked_fill(m == -_math.inf, 0.0)
        p = torch.exp(s - m)
        total = p.sum(-1, keepdim=True)
        total = total.masked_fill(total == 0, 1.0)
        p = p / total
    pd = p if keep is None else p * _work(keep) * keep_scale
    out = torch.matmul(pd, vw)
    return _out(out, dt), (qw, kw, vw, p, pd, keep, keep_scale, scale, groups_k, groups_v)


def nn_attention_grads(g, saved, shapes, needs):
    qw, kw, vw, p, pd, keep, keep_scale, scale, groups_k, groups_v = saved
    dt = g.dtype
    gw = _work(g)
    gq = gk = gv = gb = None
    if needs[2]:
        gv = sum_to_shape(torch.matmul(pd.transpose(-1, -2), gw), tuple(vw.shape))
        gv = _out(sum_to_shape(_unheads(gv, groups_v), tuple(shapes[2])), dt)
    if needs[0] or needs[1] or needs[3]:
        gp = torch.matmul(gw, vw.transpose(-1, -2))
        if keep is not None:
            gp = gp * _work(keep) * keep_scale
        gs = p * (gp - torch.sum(gp * p, -1, keepdim=True))
        if needs[3]:
            gb = _out(sum_to_shape(gs, tuple(shapes[3])), dt)
        if qw.shape[-1]:
            gs = gs * scale
        if needs[0]:
            gq = _out(sum_to_shape(torch.matmul(gs, kw), tuple(shapes[0])), dt)
        if needs[1]:
            gk = sum_to_shape(torch.matmul(gs.transpose(-1, -2), qw), tuple(kw.shape))
            gk = _out(sum_to_shape(_unheads(gk, groups_k), tuple(shapes[1])), dt)
    return gq, gk, gv, gb
