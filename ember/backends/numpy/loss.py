"""The loss kernels of the NumPy backend (see ember/ops/loss.py)."""

import numpy as np

from . import jit
from .core import NP, _warnings_off
from .jit import rows as _rows
from .activation import _log_softmax_work
from .nn import _F32, _F64, _np, _out

__all__ = [
    "nn_target_bad", "nn_class_loss", "nn_class_loss_grad", "nn_prob_loss",
    "nn_prob_loss_grads", "nn_pair_loss", "nn_pair_loss_grads", "nn_bce_logits",
    "nn_bce_logits_grads",
]


# -- losses -------------------------------------------------------------------------------------

def nn_target_bad(target, num_classes, ignore_index):
    """The first class index of ``target`` outside ``[0, num_classes)`` (other than
    ``ignore_index``) as a Python int, or None when all are in range."""
    if target.size == 0:
        return None
    if target.min() >= 0 and target.max() < num_classes:    # the usual case: two reductions
        return None
    bad = (target < 0) | (target >= num_classes)
    if ignore_index is not None:
        bad &= target != ignore_index
    if not bad.any():
        return None
    return int(target[bad].ravel()[0])


def _reduce(per, reduction, denom):
    if reduction == "none":
        return per
    total = per.sum()
    if reduction == "sum":
        return np.asarray(total)
    return np.asarray(total / denom)


def _grad_scale(g, reduction, denom, shape):
    """The output gradient spread over the per-element losses (an array of ``shape``)."""
    if reduction == "none":
        return g
    if reduction == "sum":
        return np.broadcast_to(g, shape)
    return np.broadcast_to(g / denom, shape)


@_warnings_off
def nn_class_loss(x, target, weight, ignore_index, smoothing, reduction, from_logits, dtype):
    """Cross entropy (``from_logits``) or NLL (``x`` already log-probabilities) with class-index
    targets. ``x`` is (N, C, *rest), ``target`` (N, *rest). Returns (loss, saved)."""
    dtype = NP[dtype]
    work = _F64 if dtype == _F64 else _F32
    if (x.ndim == 2 and x.size and from_logits and weight is None and not smoothing
            and not (target == ignore_index).any()):
        return _cross_entropy_2d(x.astype(work, copy=False), target, reduction, dtype)
    xl = np.moveaxis(x.astype(work, copy=False), 1, -1)               # (N, *rest, C)
    C = xl.shape[-1]
    logp = _log_softmax_work(xl, -1) if from_logits else xl
    valid = target != ignore_index
    tt = np.where(valid, target, 0).astype(np.intp)
    if C:
        picked = np.take_along_axis(logp, tt[..., None], axis=-1)[..., 0]
    else:
        picked = np.zeros(tt.shape, dtype=work)
    wv = weight.astype(work, copy=False) if weight is not None else None
    w_t = np.where(valid, wv[tt] if wv is not None else 1.0, 0.0).astype(work)
    per = -w_t * picked
    if smoothing:
        smooth = -(logp * wv).sum(axis=-1) if wv is not None else -logp.sum(axis=-1)
        smooth = np.where(valid, smooth, 0.0)
        per = (1.0 - smoothing) * per + (smoothing / C) * smooth
    denom = w_t.sum()
    loss = _reduce(per, reduction, denom)
    saved = (logp, tt, w_t, valid, wv, smoothing, reduction, denom, from_logits, per.shape)
    return _out(loss, dtype), saved


def _cross_entropy_2d(x, target, reduction, dtype):
    """The fast path of ``nn_class_loss``: cross entropy of logits ``x`` (N, C) in the work
    dtype, N, C > 0, no class weights, no smoothing, no ignored target. The same arithmetic as
    the general path (same values, bit for bit) without its moveaxis, take_along_axis and
    masks; ``nn_class_loss_grad`` recognizes the saved tuple by its length."""
    if x.size >= _rows.MIN_NUMEL:
        k = _rows.kernel("cross_entropy", x.dtype)
        if k is not None:
            return _cross_entropy_rows(k, x, target, reduction, dtype)
    rows = np.arange(x.shape[0])
    tt = target.astype(np.intp, copy=False)
    z = x - x.max(axis=1, keepdims=True)                         # as _log_softmax_work
    lse = np.log(np.exp(z).sum(axis=1))                          # (N,)
    per = lse - z[rows, tt]                                      # -log_softmax at the targets
    denom = x.dtype.type(x.shape[0])
    loss = _reduce(per, reduction, denom)
    return _out(loss, dtype), (z, lse, rows, tt, reduction, denom)


def _cross_entropy_rows(k, x, target, reduction, dtype):
    """``_cross_entropy_2d`` by the compiled row program ``k``; saves (x, targets, row max,
    logsumexp, reduction, denom, the kernel's dtype), whose length tells it apart."""
    x = np.ascontiguousarray(x)
    N, C = x.shape
    tt = np.ascontiguousarray(target, dtype=np.int64)
    per, mx, lse = np.empty(N, x.dtype), np.empty(N, x.dtype), np.empty(N, x.dtype)
    k((x, tt, per, mx, lse), (N, C, jit.num_threads()), ())
    denom = x.dtype.type(N)
    loss = _reduce(per, reduction, denom)
    return _out(loss, dtype), (x, tt, mx, lse, reduction, denom, x.dtype)


def _cross_entropy_grad_rows(g, saved):
    """The input gradient of ``_cross_entropy_rows``'s loss, in the saved dtype."""
    x, tt, mx, lse, reduction, denom, _ = saved
    g = g.astype(x.dtype, copy=False)
    N = x.shape[0]
    scale = g if reduction == "none" else g / denom if reduction == "mean" else g
    scale = np.ascontiguousarray(np.broadcast_to(scale, (N,)), dtype=x.dtype)
    k = _rows.kernel("cross_entropy_grad", x.dtype)
    if k is not None:
        gx = np.empty(x.shape, x.dtype)
        k((x, tt, mx, lse, scale, gx), (N, x.shape[1], jit.num_threads()), ())
        return gx
    gx = np.subtract(x, mx[:, None])                             # the NumPy fast path's steps
    gx -= lse[:, None]
    np.exp(gx, out=gx)
    gx[np.arange(N), tt] -= 1.0
    gx *= scale[:, None]
    return gx


@_warnings_off
def nn_class_loss_grad(g, saved, x_dtype):
    """The gradient of ``nn_class_loss`` with respect to ``x``: ``(softmax * sum(q) - q)``
    scaled (or ``-q`` for NLL), where ``q`` are the per-class loss coefficients."""
    x_dtype = NP[x_dtype]
    if len(saved) == 7:  # the compiled fast path's
        return _out(_cross_entropy_grad_rows(g, saved), x_dtype)
    if len(saved) == 6:  # the fast path's: softmax minus the one-hot targets, scaled
        z, lse, rows, tt, reduction, denom = saved
        g = g.astype(z.dtype, copy=False)
        gx = np.subtract(z, lse[:, None])
        np.exp(gx, out=gx)
        gx[rows, tt] -= 1.0
        gx *= g[:, None] if reduction == "none" else g / denom if reduction == "mean" else g
        return _out(gx, x_dtype)
    logp, tt, w_t, valid, wv, smoothing, reduction, denom, from_logits, pshape = saved
    C = logp.shape[-1]
    scale = _grad_scale(g.astype(logp.dtype, copy=False), reduction, denom, pshape)
    q = np.zeros(logp.shape, dtype=logp.dtype)
    if C:
        np.put_along_axis(q, tt[..., None], ((1.0 - smoothing) * w_t)[..., None], axis=-1)
    if smoothing:
        base = wv if wv is not None else 1.0
        q = q + (smoothing / C) * np.where(valid[..., None], base, 0.0)
    if from_logits:
        gx = np.exp(logp) * q.sum(axis=-1, keepdims=True) - q
    else:
        gx = -q
    # ignored targets get no gradient (not 0 * nan when every target is ignored)
    gx = np.where(valid[..., None], gx * scale[..., None], 0.0)
    return _out(np.moveaxis(gx, -1, 1), x_dtype)


@_warnings_off
def nn_prob_loss(x, target, weight, smoothing, reduction, dtype):
    """Cross entropy with class-probability targets (same shape as ``x``, classes in dim 1)."""
    dtype = NP[dtype]
    work = _F64 if dtype == _F64 else _F32
    xl = np.moveaxis(x.astype(work, copy=False), 1, -1)
    tl = np.moveaxis(target.astype(work, copy=False), 1, -1)
    C = xl.shape[-1]
    logp = _log_softmax_work(xl, -1)
    tt = tl * (1.0 - smoothing) + smoothing / C if smoothing else tl
    wv = weight.astype(work, copy=False) if weight is not None else None
    q = tt * wv if wv is not None else tt
    per = -(logp * q).sum(axis=-1)
    denom = float(x.size // C) if C else 0.0
    loss = _reduce(per, reduction, denom)
    return _out(loss, dtype), (logp, q, wv, smoothing, reduction, denom, per.shape)


@_warnings_off
def nn_prob_loss_grads(g, saved, need_x, need_t, x_dtype, t_dtype):
    """Gradients of ``nn_prob_loss`` with respect to the logits and the target probabilities."""
    x_dtype = NP[x_dtype]
    t_dtype = _np(t_dtype)
    logp, q, wv, smoothing, reduction, denom, pshape = saved
    scale = _grad_scale(g.astype(logp.dtype, copy=False), reduction, denom, pshape)[..., None]
    gx = gt = None
    if need_x:
        gx = _out(np.moveaxis((np.exp(logp) * q.sum(axis=-1, keepdims=True) - q) * scale,
                              -1, 1), x_dtype)
    if need_t:
        d = -(1.0 - smoothing) * logp
        if wv is not None:
            d = d * wv
        gt = _out(np.moveaxis(d * scale, -1, 1), t_dtype)
    return gx, gt


@_warnings_off
def nn_pair_loss(a, b, kind, reduction, dtype):
    """Elementwise regression losses of broadcast ``a`` and ``b``: ``"mse"`` or ``"l1"``."""
    dtype = NP[dtype]
    work = _F64 if dtype == _F64 else _F32
    diff = a.astype(work, copy=False) - b.astype(work, copy=False)
    per = diff * diff if kind == "mse" else np.abs(diff)
    loss = _reduce(per, reduction, float(per.size))
    return _out(loss, dtype), (diff, kind, reduction)


@_warnings_off
def nn_pair_loss_grads(g, saved):
    """The gradient of ``nn_pair_loss`` with respect to ``a`` at the broadcast shape (that of
    ``b`` is its negation)."""
    diff, kind, reduction = saved
    scale = _grad_scale(g.astype(diff.dtype, copy=False), reduction, float(diff.size), diff.shape)
    d = 2.0 * diff if kind == "mse" else np.sign(diff)
    return d * scale


@_warnings_off
def nn_bce_logits(x, t, weight, pos_weight, reduction, dtype):
    """Binary cross entropy on logits, stable: ``(1 - t) x - lw * logsigmoid(x)`` with
    ``lw = 1 + (pos_weight - 1) t``, times ``weight``. Returns (loss, saved)."""
    dtype = NP[dtype]
    work = _F64 if dtype == _F64 else _F32
    xw = x.astype(work, copy=False)
    tw = t.astype(work, copy=False)
    logsig = np.minimum(xw, 0.0) - np.log1p(np.exp(-np.abs(xw)))
    pw = pos_weight.astype(work, copy=False) if pos_weight is not None else None
    lw = 1.0 + (pw - 1.0) * tw if pw is not None else 1.0
    raw = (1.0 - tw) * xw - lw * logsig
    ww = weight.astype(work, copy=False) if weight is not None else None
    per = raw * ww if ww is not None else raw
    per = np.broadcast_to(per, np.broadcast_shapes(per.shape, xw.shape))
    loss = _reduce(per, reduction, float(per.size))
    return _out(loss, dtype), (xw, tw, logsig, pw, lw, raw, ww, reduction, per.shape)


@_warnings_off
def nn_bce_logits_grads(g, saved):
    """Gradients of ``nn_bce_logits`` at the broadcast shape: (gx, gt, gweight, gpos_weight)."""
    xw, tw, logsig, pw, lw, raw, ww, reduction, pshape = saved
    scale = _grad_scale(g.astype(xw.dtype, copy=False), reduction, float(np.prod(pshape)), pshape)
    sig_neg = np.exp(logsig - xw)                                  # sigmoid(-x)
    wscale = scale * ww if ww is not None else scale
    gx = ((1.0 - tw) - lw * sig_neg) * wscale
    dt = -xw - ((pw - 1.0) * logsig if pw is not None else 0.0)
    gt = dt * wscale
    gw = raw * scale
    gpw = -tw * logsig * wscale
    return gx, gt, gw, gpw
