"""The dropout kernels of the NumPy backend (see ember/ops/dropout.py)."""

import numpy as np

from . import jit
from .core import _name_of, _warnings_off
from .jit import scatter as _jit_scatter
from .jit.bags import nn_embedding_bag  # compiled kernel
from .nn import _F32, _F64, _out, _work

__all__ = ["nn_embedding", "nn_embedding_grad", "nn_embedding_renorm", "nn_embedding_bag"]


# -- embedding -------------------------------------------------------------------------

# override: the per-call case call_embedding (32 rows of (100, 64) float32): NumPy's take in one
# call, where the default's Array API steps (astype, reshape, take, reshape) are four
def nn_embedding(weight, idx):
    """Rows ``weight[idx]``: shape ``idx.shape + (D,)`` (a new array)."""
    return np.take(weight, idx, axis=0)


def _add_rows(out, flat, gw):
    """``np.add.at(out, flat, gw)``: compiled for float32/float64 rows (the same sums, in the
    same order)."""
    if gw.size >= 4096 and (gw.dtype == _F32 or gw.dtype == _F64) and out.dtype == gw.dtype:
        k = jit.kernel(*_jit_scatter.source(_name_of(gw.dtype)))
        if k is not None:
            k((np.ascontiguousarray(gw), flat.astype(np.int64, copy=False), out),
              (flat.size, gw.shape[1]), ())
            return
    np.add.at(out, flat, gw)


# override: 253 µs vs the default's 63036 µs ((64, 128) indices into 1000 rows of 256 float32, one thread)
def nn_embedding_grad(g, idx, num, padding_idx, scale_grad_by_freq=False):
    """The gradient of ``nn_embedding``: the output gradient summed into rows (none to
    ``padding_idx``); with ``scale_grad_by_freq`` each row's sum is divided by how often its
    index occurs in ``idx``."""
    D = g.shape[-1]
    gw = _work(g).reshape(idx.size, D)
    flat = idx.reshape(-1).astype(np.intp)
    out = np.zeros((num, D), dtype=gw.dtype)
    _add_rows(out, flat, gw)
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=num)
        out /= np.maximum(counts, 1).astype(out.dtype)[:, None]
    if padding_idx is not None:
        out[padding_idx] = 0.0
    return _out(out, g.dtype)


@_warnings_off
def nn_embedding_renorm(weight, idx, max_norm, norm_type):
    """PyTorch's ``embedding_renorm_`` without the in-place write: a new array equal to
    ``weight`` (num, dim) except that each row indexed by ``idx`` whose ``norm_type``-norm
    exceeds ``max_norm`` is scaled by ``max_norm / (norm + 1e-7)``; None when no row changes.
    The norms are computed in float64 (PyTorch: in the weight's dtype, then as a double)."""
    rows = np.unique(idx.reshape(-1).astype(np.intp))
    if rows.size == 0 or weight.shape[1] == 0:
        return None
    sel = np.abs(weight[rows].astype(_F64))
    p = norm_type
    if p == np.inf:
        norms = sel.max(axis=1)
    elif p == -np.inf:
        norms = sel.min(axis=1)
    elif p == 0:
        norms = np.count_nonzero(sel, axis=1).astype(_F64)
    else:
        norms = np.sum(sel ** p, axis=1) ** (1.0 / p)
    big = norms > max_norm
    if not big.any():
        return None
    rows = rows[big]
    scale = max_norm / (norms[big] + 1e-7)
    out = np.array(weight, copy=True)
    out[rows] = _out(_work(weight[rows]) * scale.astype(_work(weight[:0]).dtype)[:, None],
                     weight.dtype)
    return out
