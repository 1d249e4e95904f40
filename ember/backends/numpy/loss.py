"""The loss kernels of the NumPy backend (see ember/ops/loss.py)."""

import numpy as np

from . import jit
from .core import NP, _warnings_off, default_kernel
from .jit import rows as _rows
from .activation import _log_softmax_work
from .indexing import idx_bounds
from .nn import _F32, _F64, _out

__all__ = ["nn_target_bad", "nn_class_loss", "nn_class_loss_grad"]


# -- losses -------------------------------------------------------------------------------------

def _reduce(per, reduction, denom):
    if reduction == "none":
        return per
    total = np.add.reduce(per, axis=None)  # per.sum() without its Python
    return np.asarray(total if reduction == "sum" else total / denom)


def _grad_scale(g, reduction, denom, shape):
    """The output gradient spread over the per-element losses (an array of ``shape``)."""
    if reduction == "none":
        return g
    return np.broadcast_to(g if reduction == "sum" else g / denom, shape)


def _ignores(target, ignore_index):
    """Whether a target is ``ignore_index`` (the targets' bounds, one compiled pass, settle most
    calls)."""
    b = idx_bounds(target)
    return b is not None and b[0] <= ignore_index <= b[1] and bool((target == ignore_index).any())


# override: 0.18 vs the default's 0.7 µs (32 int64 targets): the usual case, no wrappers
def nn_target_bad(target, num_classes, ignore_index):
    """The first class index of ``target`` outside ``[0, num_classes)`` (other than
    ``ignore_index``) as a Python int, or None when all are in range."""
    b = idx_bounds(target)
    if b is None or (b[0] >= 0 and b[1] < num_classes):
        return None
    return _target_bad(target, num_classes, ignore_index)  # the default's search


_target_bad = default_kernel("nn_target_bad")


# override: 171 µs vs the default's 217 µs (cross entropy of (256, 1000) float32 logits, one thread)
@_warnings_off
def nn_class_loss(x, target, weight, ignore_index, smoothing, reduction, from_logits, dtype):
    """Cross entropy (``from_logits``) or NLL (``x`` already log-probabilities) with class-index
    targets. ``x`` is (N, C, *rest), ``target`` (N, *rest). Returns (loss, saved)."""
    dtype = NP[dtype]
    work = _F64 if dtype == _F64 else _F32
    if (x.ndim == 2 and x.size and from_logits and weight is None and not smoothing
            and not _ignores(target, ignore_index)):
        return _cross_entropy_2d(x.astype(work, copy=False), target, reduction, dtype)
    if (x.ndim == 2 and x.shape[1] and not from_logits and weight is None
            and not _ignores(target, ignore_index)):
        return _nll_2d(x.astype(work, copy=False), target, reduction, dtype)
    xl = x.astype(work, copy=False)
    if x.ndim > 2:
        xl = np.moveaxis(xl, 1, -1)                                   # (N, *rest, C)
    C = xl.shape[-1]
    logp = _log_softmax_work(xl, -1) if from_logits else xl
    valid = target != ignore_index
    tt = np.where(valid, target, 0).astype(np.intp)
    if C and logp.ndim == 2:  # (take_along_axis's Python costs several µs)
        picked = logp[np.arange(logp.shape[0]), tt]
    elif C:
        picked = np.take_along_axis(logp, tt[..., None], axis=-1)[..., 0]
    else:
        picked = np.zeros(tt.shape, dtype=work)
    wv = weight.astype(work, copy=False) if weight is not None else None
    w_t = np.where(valid, wv[tt] if wv is not None else 1.0, 0.0).astype(work)
    per = np.where(valid, -w_t * picked, 0.0)  # an ignored row's NaN logits stay out
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


def _nll_2d(logp, target, reduction, dtype):
    """The fast path of ``nn_class_loss`` for NLL: log-probabilities ``logp`` (N, C) in the
    work dtype, C > 0, no class weights, no ignored target; the general path's arithmetic
    (each weight 1.0) without its masks. Saves (shape, rows, targets, reduction, denom), whose
    length tells it apart."""
    rows = np.arange(logp.shape[0])
    tt = target.astype(np.intp, copy=False)
    per = logp.dtype.type(-1.0) * logp[rows, tt]
    denom = logp.dtype.type(logp.shape[0])
    loss = _reduce(per, reduction, denom)
    return _out(loss, dtype), (logp.shape, rows, tt, reduction, denom)


def _cross_entropy_rows(k, x, target, reduction, dtype):
    """``_cross_entropy_2d`` by the compiled row program ``k`` (the launcher's ``class_rows``
    makes the C-contiguous copies and the outputs); saves (x, targets, row max, logsumexp,
    reduction, denom, the kernel's dtype), whose length tells it apart."""
    x, tt, per, mx, lse = jit.compiler.calls["class_rows"](k.args[0], jit.num_threads(), x, target)
    denom = x.dtype.type(x.shape[0])
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


# override: 197 µs vs the default's 1552 µs (cross entropy of (256, 1000) float32 logits, one thread)
@_warnings_off
def nn_class_loss_grad(g, saved, x_dtype):
    """The gradient of ``nn_class_loss`` with respect to ``x``: ``(softmax * sum(q) - q)``
    scaled (or ``-q`` for NLL), where ``q`` are the per-class loss coefficients."""
    x_dtype = NP[x_dtype]
    if len(saved) == 7:  # the compiled fast path's
        return _out(_cross_entropy_grad_rows(g, saved), x_dtype)
    if len(saved) == 5:  # NLL's fast path: minus the scale at the targets, +0.0 elsewhere
        shape, rows, tt, reduction, denom = saved
        dt = denom.dtype
        g = g.astype(dt, copy=False)
        gx = np.zeros(shape, dt)
        gx[rows, tt] = dt.type(-1.0) * (g / denom if reduction == "mean" else g)
        return _out(gx, x_dtype)
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
    at = np.zeros(logp.shape, dtype=bool)  # the targets' places
    if C and q.ndim == 2:
        q[np.arange(q.shape[0]), tt] = (1.0 - smoothing) * w_t
        at[np.arange(q.shape[0]), tt] = True
    elif C:
        np.put_along_axis(q, tt[..., None], ((1.0 - smoothing) * w_t)[..., None], axis=-1)
        np.put_along_axis(at, tt[..., None], True, axis=-1)
    if smoothing:
        base = wv if wv is not None else 1.0
        q = q + (smoothing / C) * np.where(valid[..., None], base, 0.0)
    if from_logits:
        gx = np.exp(logp) * q.sum(axis=-1, keepdims=True) - q
        keep = valid[..., None]
    else:  # NLL: +0.0 off the targets, as PyTorch's (not -0.0 times the scale)
        gx = -q
        keep = valid[..., None] & at
    # ignored targets get no gradient (not 0 * nan when every target is ignored)
    gx = np.where(keep, gx * scale[..., None], 0.0)
    return _out(np.moveaxis(gx, -1, 1) if gx.ndim > 2 else gx, x_dtype)
