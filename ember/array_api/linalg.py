"""The standard's ``linalg`` extension over ember's ops.

The factorizations are ``ember.linalg``'s (one implementation), with the standard's signatures
(2024.12): ``matrix_rank(x, /, *, rtol=None)``, ``pinv(x, /, *, rtol=None)``, ``slogdet``
(the named tuple ``sign, logabsdet``), ``vecdot(x1, x2, /, *, axis=-1)`` conjugating ``x1``.
Every function takes complex64/complex128 arrays (docs/complex.md).

>>> import ember
>>> import ember.array_api as xp
>>> xp.linalg.vector_norm(ember.tensor([3.0, 4.0])).item()
5.0
"""

import math

from .. import dtypes as _dt
from .. import linalg as _linalg
from .. import shapes as _shapes
from ..dtypes import int64
from ..linalg import cholesky, det, eigh, eigvalsh, inv, qr, slogdet, solve, svd, svdvals
from ..ops.creation import arange
from .._tensor import Tensor
from ._elementwise import _binary
from ._linear_algebra import matmul as _matmul, tensordot as _tensordot, vecdot as _vecdot
from ._statistics import sum as _sum

__all__ = ["cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_rank", "pinv", "qr", "slogdet",
           "solve", "svd", "svdvals",
           "cross", "diagonal", "matmul", "matrix_norm", "matrix_power", "matrix_transpose",
           "outer", "tensordot", "trace", "vecdot", "vector_norm"]



def cross(x1, x2, /, *, axis=-1):
    x1, x2 = _binary("cross", lambda a, b: (a, b))(x1, x2)
    shape = _shapes.broadcast_shapes(x1.shape, x2.shape)
    return x1.expand(shape).cross(x2.expand(shape), axis)


def matmul(x1, x2, /):
    return _matmul(x1, x2)


def matrix_transpose(x, /):
    return x.mT


def tensordot(x1, x2, /, *, axes=2):
    return _tensordot(x1, x2, axes=axes)


def vecdot(x1, x2, /, *, axis=-1):
    """The dot product along ``axis`` with ``x1`` conjugated (the standard's ``vecdot``)."""
    if (isinstance(x1, Tensor) and isinstance(x2, Tensor)
            and "complex" in (x1.dtype.kind, x2.dtype.kind)):
        x1, x2 = _binary("vecdot", lambda a, b: (a, b))(x1, x2)
        return _linalg.vecdot(x1, x2, dim=axis)
    return _vecdot(x1, x2, axis=axis)


def matrix_rank(x, /, *, rtol=None):
    """The rank of each matrix of ``x``: singular values above ``rtol`` times the largest
    (default ``max(M, N) * eps``) count."""
    return _linalg.matrix_rank(x, rtol=rtol)


def pinv(x, /, *, rtol=None):
    """The pseudoinverse of each matrix of ``x``; singular values at or below ``rtol`` times the
    largest (default ``max(M, N) * eps``) count as zero."""
    return _linalg.pinv(x, rtol=rtol)


def outer(x1, x2, /):
    return _binary("outer", Tensor.outer)(x1, x2)


def diagonal(x, /, *, offset=0):
    rows, cols = x.shape[-2], x.shape[-1]
    start_r, start_c = (0, offset) if offset >= 0 else (-offset, 0)
    n = max(0, min(rows - start_r, cols - start_c))
    flat = x.reshape(x.shape[:-2] + (rows * cols,))
    idx = arange(n, dtype=int64, device=x.device) * (cols + 1) + (start_r * cols + start_c)
    return flat.take(-1, idx)


def trace(x, /, *, offset=0, dtype=None):
    d = diagonal(x, offset=offset)
    if x.dtype.kind == "complex":  # a complex sum keeps its dtype (ember's sum)
        out = d.sum(-1)
        return out if dtype is None or _dt.as_dtype(dtype) is out.dtype else out.cast(dtype)
    return _sum(d, axis=-1, dtype=dtype)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    if x.dtype.kind == "complex":  # the norm of |x|, real (ember.linalg's)
        dims = None if axis is None else (tuple(axis) if isinstance(axis, (tuple, list))
                                          else (axis,))
        return _linalg.vector_norm(x, ord, dims, keepdims)
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
    return _linalg.matrix_power(x, n)
