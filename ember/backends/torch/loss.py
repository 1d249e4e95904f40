"""The loss kernels of the PyTorch backend (see ember/ops/loss.py)."""

import math as _math

import torch

from .core import TORCH
from .nn import _WIDE_INTS, _long, _out, _work_of

__all__ = [
    "nn_target_bad", "nn_class_loss", "nn_class_loss_grad", "nn_prob_loss",
    "nn_prob_loss_grads", "nn_pair_loss", "nn_pair_loss_grads", "nn_bce_logits",
    "nn_bce_logits_grads", "nn_index_bad",
]


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
