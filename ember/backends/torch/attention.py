"""The attention kernels of the PyTorch backend (see ember/ops/attention.py)."""

import math as _math

import torch

from .core import sum_to_shape
from .nn import _out, _work

__all__ = [
    "nn_attention", "nn_attention_grads",
]


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
