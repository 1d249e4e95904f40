"""The standard's ``linalg`` extension over ember's ops.

The factorizations are ``ember.linalg``'s (one implementation); ``eigvalsh``, ``matrix_rank``,
``pinv`` and ``slogdet`` are not provided yet (docs/array-api.md).

>>> import ember
>>> import ember.array_api as xp
>>> xp.linalg.vector_norm(ember.tensor([3.0, 4.0])).item()
5.0
"""

import math

import ember as _e
from .. import linalg as _linalg
from ..linalg import cholesky, det, eigh, inv, qr, solve, svd, svdvals

__all__ = ["cholesky", "det", "eigh", "inv", "qr", "solve", "svd", "svdvals",
           "cross", "diagonal", "matmul", "matrix_norm", "matrix_power", "matrix_transpose",
           "outer", "tensordot", "trace", "vecdot", "vector_norm"]


def _xp():
    import ember.array_api
    return ember.array_api


def cross(x1, x2, /, *, axis=-1):
    x1, x2 = _xp()._binary("cross", lambda a, b: (a, b))(x1, x2)
    shape = _e.shapes.broadcast_shapes(x1.shape, x2.shape)
    return x1.expand(shape).cross(x2.expand(shape), axis)


def matmul(x1, x2, /):
    return _xp().matmul(x1, x2)


def matrix_transpose(x, /):
    return x.mT


def tensordot(x1, x2, /, *, axes=2):
    return _xp().tensordot(x1, x2, axes=axes)


def vecdot(x1, x2, /, *, axis=-1):
    return _xp().vecdot(x1, x2, axis=axis)


def outer(x1, x2, /):
    return _xp()._binary("outer", _e.Tensor.outer)(x1, x2)


def diagonal(x, /, *, offset=0):
    rows, cols = x.shape[-2], x.shape[-1]
    start_r, start_c = (0, offset) if offset >= 0 else (-offset, 0)
    n = max(0, min(rows - start_r, cols - start_c))
    flat = x.reshape(x.shape[:-2] + (rows * cols,))
    idx = _e.arange(n, dtype=_e.int64, device=x.device) * (cols + 1) + (start_r * cols + start_c)
    return flat.take(-1, idx)


def trace(x, /, *, offset=0, dtype=None):
    return _xp().sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    a = x.abs()
    dims = tuple(range(x.ndim)) if axis is None else (
        tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
    if ord == math.inf:
        out = a.max(dim=dims, keepdim=keepdims) if a.numel() else a.sum(dim=dims, keepdim=keepdims)
    elif ord == -math.inf:
        out = a.min(dim=dims, keepdim=keepdims)
    elif ord == 0:
        out = (a != 0).cast(x.dtype).sum(dim=dims, keepdim=keepdims)
    elif ord == 1:
        out = a.sum(dim=dims, keepdim=keepdims)
    elif ord == 2:
        out = (a * a).sum(dim=dims, keepdim=keepdims).sqrt()
    else:
        out = (a ** ord).sum(dim=dims, keepdim=keepdims) ** (1.0 / ord)
    if axis is None and keepdims is False:
        return out.reshape(())
    return out


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return _linalg.matrix_norm(x, ord=ord, keepdim=keepdims)


def matrix_power(x, n, /):
    eye = _e.eye(x.shape[-1], dtype=x.dtype, device=x.device).expand(x.shape)
    out, base = eye, x
    if n < 0:
        n, base = -n, _linalg.inv(x)
    while n:
        if n & 1:
            out = out @ base
        n >>= 1
        if n:
            base = base @ base
    return out
