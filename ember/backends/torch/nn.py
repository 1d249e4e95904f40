"""What the nn kernel files of the PyTorch backend share, the norms, the class-index losses and
attention: torch's fused kernels in the working dtype, within float32 rounding of the defaults;
the small nn kernels are the defaults of base/nn.py.

Kernels are named ``nn_*``; helpers start with ``_``.
"""


import functools
import math

import torch

from ..base import Backend
from .core import TORCH, adopt

__all__ = ["nn_layer_norm", "nn_layer_norm_grads", "nn_group_norm", "nn_group_norm_grads",
           "nn_class_loss", "nn_class_loss_grad", "nn_attention", "nn_attention_grads",
           "nn_batch_norm_grads"]

_F32 = torch.float32
_F64 = torch.float64
_aten = torch.ops.aten


def _work(a):
    """``a`` in float32 or float64 (others as float32)."""
    dt = a.dtype
    return a if dt == _F32 or dt == _F64 else a.to(_F32)


def _work_of(dtype):
    """The working dtype of a result of torch dtype ``dtype``."""
    return _F64 if dtype == _F64 else _F32


def _out(a, dtype):
    return a if a.dtype == dtype else a.to(dtype)


def _default(name, *args):
    """The base's default of the kernel ``name`` on the backend of ``args[0]``'s device."""
    return getattr(Backend, name)(adopt(args[0])[1].backend, *args)


def _long(idx):
    """An int tensor as int64 (torch indexes with int64; uint16/32 convert exactly)."""
    return idx if idx.dtype == torch.int64 else idx.to(torch.int64)


# override: 1.3 ms vs the default's 30 ms (float32 (4096, 1024), weight and bias, one thread)
def nn_layer_norm(x, w, b, ndims, eps, dtype):
    xw, ww, bw = (None if a is None else _out(a, _work_of(TORCH[dtype])) for a in (x, w, b))
    shape = tuple(x.shape[x.ndim - ndims:])
    out, mean, rstd = torch.native_layer_norm(xw, shape, ww, bw, eps)
    return _out(out, TORCH[dtype]), (xw, ww, bw, mean, rstd, shape)


# override: 3.3 ms vs the default's 47 ms (float32 (4096, 1024), the input's gradient)
def nn_layer_norm_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    xw, ww, bw, mean, rstd, shape = saved
    return _grads(_aten.native_layer_norm_backward, g, (xw, shape, mean, rstd, ww, bw), ww, bw,
                  (need_x, need_w, need_b), (x_dtype, w_dtype, b_dtype))


def _grads(kernel, g, args, ww, bw, needs, dts):
    """(gx, gw, gb) of torch's fused backward ``kernel(g, *args, mask)``, as ember dtypes."""
    mask = [needs[0], needs[1] and ww is not None, needs[2] and bw is not None]
    grads = kernel(_out(g, args[0].dtype).reshape(args[0].shape).contiguous(), *args, mask)
    return tuple(_out(a, TORCH[dt]) if m else None for a, m, dt in zip(grads, mask, dts))


# override: 2.0 vs the default's 42 ms (float32 (16, 256, 32, 32) in 32 groups, one thread)
def nn_group_norm(x, w, b, groups, eps, dtype):
    # a weight of ones stands for none: torch's backward fails on a bias gradient without one
    xw, ww, bw = (None if a is None else _out(a, _work_of(TORCH[dtype])).contiguous()
                  for a in (x, x.new_ones(x.shape[1]) if w is None else w, b))
    dims = (x.shape[0], x.shape[1], x.numel() // max(x.shape[0] * x.shape[1], 1), groups)
    out, mean, rstd = torch.native_group_norm(xw, ww, bw, *dims, eps)
    return _out(out, TORCH[dtype]), (xw, ww, bw, mean, rstd, dims)


def nn_group_norm_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    xw, ww, bw, mean, rstd, dims = saved
    return _grads(_aten.native_group_norm_backward, g, (xw, mean, rstd, ww) + dims, ww, bw,
                  (need_x, need_w, need_b), (x_dtype, w_dtype, b_dtype))


_REDUCE = {"none": 0, "mean": 1, "sum": 2}


# override: 6 vs the default's 40 µs (cross entropy of (32, 64) float32, one thread): torch's NLL
# kernel, within float32 rounding of the default; label smoothing and empty inputs: the default
def nn_class_loss(x, target, weight, ignore_index, smoothing, reduction, from_logits, dtype):
    if smoothing or not x.numel():
        return _default("nn_class_loss", x, target, weight, ignore_index, smoothing, reduction,
                        from_logits, dtype)
    dt = TORCH[dtype]
    rows, t = _out(x, _work_of(dt)), _long(target)
    if x.ndim > 2:  # (N, C, *rest) as rows (N * rest, C)
        rows, t = rows.movedim(1, -1).reshape(-1, x.shape[1]), t.reshape(-1)
    if from_logits:
        rows = torch.log_softmax(rows, 1)
    w = None if weight is None else _out(weight, rows.dtype)
    loss = torch._C._nn.nll_loss(rows, t, w, _REDUCE[reduction], ignore_index)
    return _out(loss.reshape(target.shape) if reduction == "none" else loss, dt), \
        (rows, t, w, ignore_index, _REDUCE[reduction], from_logits, tuple(x.shape))


# override: 9 vs the default's 60 µs (cross entropy of (32, 64) float32 logits, one thread)
def nn_class_loss_grad(g, saved, x_dtype):
    if len(saved) != 7:  # the default's
        return _default("nn_class_loss_grad", g, saved, x_dtype)
    rows, t, w, ignore, red, from_logits, shape = saved
    total = _aten.nll_loss_forward(rows, t, w, 1, ignore)[1] if red == 1 else rows.new_ones(())
    gx = _aten.nll_loss_backward(_out(g, rows.dtype).reshape(-1) if red == 0 else
                                 _out(g, rows.dtype), rows, t, w, red, ignore, total)
    if from_logits:  # ignored targets get no gradient (not 0 * nan of non-finite logits)
        gx = torch._log_softmax_backward_data(gx, rows, 1, rows.dtype).masked_fill_(
            (t == ignore).unsqueeze(1), 0.0)
    if len(shape) > 2:
        gx = gx.reshape((shape[0],) + shape[2:] + (shape[1],)).movedim(-1, 1)
    return _out(gx, TORCH[x_dtype])


@functools.lru_cache(maxsize=16)
def _above_diagonal(rows, cols, dtype, device):
    """The causal mask of (*, rows, cols) scores: -inf above the diagonal, 0 elsewhere, added to
    the scores once ``tril_`` has zeroed what it masks (a NaN there too, as the default's)."""
    return torch.full((rows, cols), -math.inf, dtype=dtype, device=device).triu_(1)


# override: 0.10 vs the default's 0.27 ms (causal, float32 (32, 4, 16, 16), one thread)
def nn_attention(q, k, v, bias, allowed, causal, scale, groups_k, groups_v, keep, keep_scale):
    """``softmax(q @ k^T * scale + bias) @ v`` over the last dim, ``-inf`` where ``allowed`` is
    False or above the diagonal when ``causal`` (``tril_`` and a cached mask's add: 35 µs, where
    ``masked_fill_`` took 200 at (16, 4, 64, 64)); a row of only ``-inf`` gets weights 0, as
    PyTorch's safe softmax. ``keep``: the weights' dropout mask, scaled by ``keep_scale``; the
    heads of key and value repeated ``groups_k``/``groups_v`` times. Half floats compute in
    float32. Returns (out in ``q``'s dtype, saved arrays as the default's). On the CPU without
    a mask, dropout or grouped heads: torch's fused kernel (no weights kept: saved[3] None)."""
    qw, kw, vw = _work(q), _work(k), _work(v)
    if (keep is None and bias is None and allowed is None and groups_k == groups_v == 1
            and q.device.type == "cpu" and qw is q and q.ndim == 4 and q.shape[-1]
            and q.shape[:-2] == k.shape[:-2] == v.shape[:-2] and v.shape[-1] == q.shape[-1]):
        fused = _fused_attention(q, k, v, causal, scale)
        if fused is not None:
            return fused[0].detach(), fused[1] + (None, fused[0])
    kw, vw = (a if n == 1 else a.repeat_interleave(n, -3)
              for a, n in ((kw, groups_k), (vw, groups_v)))
    scale = scale if qw.shape[-1] else 1.0  # with no features every score is 0, whatever the scale
    s = torch.matmul(qw, kw.transpose(-2, -1)).mul_(scale)  # fresh: the steps below work in place
    if bias is not None:
        s = s + _work(bias)
    if causal:
        s.tril_().add_(_above_diagonal(*s.shape[-2:], s.dtype, s.device))
    if allowed is not None:
        s = s.masked_fill(allowed.logical_not(), -math.inf)
    p = torch.softmax(s, -1)
    if s.device.type != "cpu" or math.isnan(p.sum()):  # (on the CPU: where the sum says so)
        p = torch.where(s.amax(-1, keepdim=True) == -math.inf, 0.0, p)
    pd = p if keep is None else torch.mul(p, _work(keep)).mul_(keep_scale)
    out = _out(torch.matmul(pd, vw), q.dtype)
    return out, (qw, kw, vw, p, pd, keep, keep_scale, scale, groups_k, groups_v)


def _fused_attention(q, k, v, causal, scale):
    """(out, (q, k, v)) of torch's fused attention on leaves that require grad, or None: a NaN
    output (a row of only ``-inf`` scores: weights 0 on the explicit path), inference mode."""
    if torch.is_inference_mode_enabled():  # (its results have no graph to differentiate)
        return None
    with torch.enable_grad():
        leaves = tuple(a.detach().requires_grad_() for a in (q, k, v))
        out = torch.nn.functional.scaled_dot_product_attention(*leaves, is_causal=causal,
                                                               scale=scale)
    return None if math.isnan(out.detach().sum()) else (out, leaves)


# override: torch's fused backward where ``nn_attention`` took its fused kernel (saved[3] None)
def nn_attention_grads(g, saved, shapes, needs):
    if saved[3] is not None:
        return _default("nn_attention_grads", g, saved, shapes, needs)
    wanted = [a for a, need in zip(saved[:3], needs) if need]
    got = iter(torch.autograd.grad(saved[4], wanted, _out(g, saved[0].dtype), retain_graph=True))
    return tuple(next(got) if need else None for need in needs[:3]) + (None,)


# override: 28 vs the default's 49 µs (float32 (32, 32, 4, 4), one thread)
def nn_batch_norm_grads(g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
    """torch's fused backward of a batch norm of the saved ``xhat`` with mean 0, invstd 1 and
    weight ``invstd * w``: the default's ``gx = invstd * w * (g - mean(g) - xhat * mean(g *
    xhat))`` with batch statistics (``g * invstd * w`` without), ``gw``, ``gb`` per channel."""
    xhat, invstd, ww, shape, use_batch = saved
    if not xhat.numel():  # (torch's kernel divides by zero: a crash, not an error)
        return _default("nn_batch_norm_grads", g, saved, need_x, need_w, need_b, x_dtype,
                        w_dtype, b_dtype)
    stats = (torch.zeros_like(invstd), torch.ones_like(invstd))  # mean 0, invstd (or var) 1
    args = (xhat, invstd if ww is None else invstd * ww) + (
        (None, None) + stats if use_batch else stats + (None, None)) + (use_batch, 0.0)
    gx, gw, gb = _grads(_aten.native_batch_norm_backward, g, args, ww, True,  # (gb: where a bias)
                        (need_x, need_w, need_b), (x_dtype, w_dtype, b_dtype))
    return None if gx is None else gx.reshape(shape), gw, gb
