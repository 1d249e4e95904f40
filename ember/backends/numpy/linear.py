"""The linear kernels of the NumPy backend (see ember/ops/linear.py)."""

import math as _math

import numpy as np

from .core import NP
from .nn import _F32, _F64, _np, _out, _work

__all__ = [
    "nn_linear", "nn_linear_grads",
]


# -- linear -------------------------------------------------------------------------------------

def nn_linear(x, w, b, dtype):
    """``x @ w.T + b`` (``b`` may be None), as NumPy dtype ``dtype``."""
    dtype = NP[dtype]
    xw = _work(x).astype(_F64 if dtype == _F64 else _F32, copy=False)
    ww = _work(w).astype(xw.dtype, copy=False)
    out = np.matmul(xw, ww.T)
    if b is not None:
        np.add(out, _work(b), out=out)       # in place: ``out`` is the matmul's fresh result
    return _out(out, dtype)


def nn_linear_grads(g, x, w, need_x, need_w, need_b, b_dtype):
    """Gradients of ``nn_linear`` (in each input's dtype): (gx, gw, gb), None where not needed."""
    b_dtype = _np(b_dtype)
    gw_ = _work(g)
    O, I = w.shape
    rows = _math.prod(gw_.shape[:-1])     # not -1: a size-0 layer leaves -1 ambiguous
    g2 = gw_.reshape(rows, O)
    gx = gw = gb = None
    if need_x:
        gx = _out(np.matmul(gw_, _work(w).astype(gw_.dtype, copy=False)), x.dtype)
    if need_w:
        gw = _out(np.matmul(g2.T, _work(x).reshape(rows, I)), w.dtype)
    if need_b:
        gb = _out(g2.sum(axis=0), b_dtype)
    return gx, gw, gb
