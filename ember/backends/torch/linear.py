"""The linear kernels of the PyTorch backend (see ember/ops/linear.py)."""

import math as _math

import torch
import torch.nn.functional as TF

from .core import TORCH
from .nn import _out, _td, _work, _work_of

__all__ = [
    "nn_linear", "nn_linear_grads",
]


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
