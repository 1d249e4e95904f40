"""NumPy kernels of the linalg family. Public names here are kernels (`be.NAME`); helpers start with _.

Complex arrays go through the same kernels (products, einsum, the factorizations): NumPy's
LAPACK routines take them; a Hermitian transpose is written ``_mH``. The gradient kernels are
for real arrays only (ember has no gradients through complex tensors).
"""

import math

import numpy as np

from ..base.linalg import LinAlgFailure
from .core import NP, _warnings_off, allocates
from .jit import outer as _jit_outer

__all__ = ["linalg_reshape", "linalg_vector_norm", "linalg_extreme_last", "linalg_det",
           "linalg_matmul", "linalg_dot", "linalg_outer", "einsum_contract", "LinAlgFailure",
           "linalg_inv", "linalg_solve", "linalg_svd", "linalg_svdvals", "linalg_qr",
           "linalg_cholesky", "linalg_eigh", "linalg_eigvalsh", "linalg_eig"]


def _matmul_shape(a, b):
    sa = (1,) + a.shape if a.ndim == 1 else a.shape
    sb = b.shape + (1,) if b.ndim == 1 else b.shape
    out = np.broadcast_shapes(sa[:-2], sb[:-2]) + (sa[-2], sb[-1])
    return out[:len(out) - (a.ndim == 1) - (b.ndim == 1)] if a.ndim == 1 else \
        out[:len(out) - (b.ndim == 1)]


def _matmul(a, b):
    """``np.matmul(a, b)``; a C-contiguous stack of matrices times one matrix,
    ``(..., m, k) @ (k, n)``, is one ``(... * m, k) @ (k, n)`` BLAS call (NumPy makes one call
    per matrix of the stack: 3x slower on a GPT's (16, 64, 64) @ (64, 192) products). Two
    matrices with ``k == 1`` (an outer product: a batch-of-one weight gradient) give their
    broadcast product: NumPy's matmul takes no BLAS there (27 µs against 7.8 for (128, 1) @
    (1, 185) float32), and a product of one term keeps its sign at zero as PyTorch's ``mm``
    does (NumPy's matmul, like PyTorch's batched ``bmm``, adds it to +0.0)."""
    if a.ndim == 2 and b.ndim == 2 and a.shape[1] == 1:  # (a compiled kernel where it applies)
        out = _jit_outer.product(a, b)
        return out if out is not None else np.multiply(a, b)
    if (a.ndim == 2 and b.ndim == 2 and 2 <= a.shape[0] <= 32 and b.shape[1] >= 256
            and b.dtype.char == "f" and b.flags.f_contiguous and not b.flags.c_contiguous):
        # a few rows times a transposed matrix (an RNN's h @ W^T): OpenBLAS's float32 kernels for
        # a transposed right operand are 1.4-1.8x slower there than the product's transpose,
        # (b^T @ a^T)^T, made contiguous ((20, 256) @ (1024, 256)^T: 156 against 113 µs); in
        # float64 the transpose is the slower one (223 against 311 µs)
        return np.ascontiguousarray(np.matmul(b.T, a.T).T)
    if a.ndim > 2 and b.ndim == 2 and a.flags.c_contiguous:
        rows = a.shape[:-1]
        return np.matmul(a.reshape(math.prod(rows), a.shape[-1]), b).reshape(rows + b.shape[1:])
    return np.matmul(a, b)


# override: the allocation guard (ops pass op=) and one BLAS call for a stack times a matrix
@allocates(_matmul_shape)
@_warnings_off
def linalg_matmul(a, b):
    """NumPy's matmul (batched, broadcasting, 1-D operands promoted and removed)."""
    return np.asarray(_matmul(a, b))


# override: 0.72 µs vs the default's 1.10 µs ((64,) float32)
def linalg_dot(a, b):
    """The inner product of two 1-D arrays, as a 0-d array."""
    return np.asarray(np.dot(a, b))


# override: the allocation guard (ops pass op=; the declaration has no such parameter)
@allocates(lambda a, b: a.shape + b.shape)
def linalg_outer(a, b):
    """The outer product of two 1-D arrays."""
    return np.multiply.outer(a, b)


# -- einsum -----------------------------------------------------------------------------------

_PATHS = {}
_PATHS_MAX = 2048
_SMALL = 1 << 15  # below this many multiply-adds NumPy's plain einsum loop beats a BLAS plan


def _path(eq, arrays):
    """The contraction order for ``eq`` on arrays of these shapes: False (NumPy's plain loop,
    for small problems) or a path of ``numpy.einsum_path``; computed once per equation and shapes."""
    key = (eq, tuple([x.shape for x in arrays]))
    path = _PATHS.get(key)
    if path is None:
        sizes = {}
        for term, x in zip(eq.split("->")[0].split(","), arrays):
            sizes.update(zip(term, x.shape))
        work = 1
        for n in sizes.values():
            work *= n
        if work <= _SMALL:
            path = False
        elif len(arrays) == 2:
            path = ["einsum_path", (0, 1)]
        else:
            path = np.einsum_path(eq, *arrays, optimize="greedy")[0]
        if len(_PATHS) >= _PATHS_MAX:
            _PATHS.clear()
        _PATHS[key] = path
    return path


@allocates()
def einsum_contract(eq, arrays):
    """``numpy.einsum`` of an explicit equation without ellipses, with a cached contraction order.

    Every label must have one size across the operands (no broadcasting left).
    """
    if len(arrays) == 1:
        return np.asarray(np.einsum(eq, arrays[0]))
    return np.asarray(np.einsum(eq, *arrays, optimize=_path(eq, arrays)))


# -- norms and decompositions (ember.linalg) ----------------------------------------------------

def _mT(a):
    return np.swapaxes(a, -1, -2)


def _mH(a):
    """The conjugate transpose of the last two dims (the transpose of a real array)."""
    return np.conj(_mT(a)) if a.dtype.kind == "c" else _mT(a)


@_warnings_off
def _first_singular(a):
    """The batch index of the first matrix of ``a`` with an exactly zero LU pivot, or None."""
    bad = np.argwhere(np.linalg.det(a) == 0)
    return tuple(int(i) for i in bad[0]) if len(bad) else None


def _first_not_definite(a):
    """The batch index of the first matrix of ``a`` without a Cholesky factor, or None."""
    for index in np.ndindex(a.shape[:-2]):
        try:
            np.linalg.cholesky(a[index])
        except np.linalg.LinAlgError:
            return tuple(int(i) for i in index)
    return None


def _guard(fn, a, what):
    try:
        return fn()
    except np.linalg.LinAlgError as exc:
        index = (_first_singular(a) if what == "singular" else
                 _first_not_definite(a) if what == "definite" else None)
        raise LinAlgFailure(str(exc), index) from None


def linalg_inv(a):
    """The inverse of each matrix of ``a``; LinAlgFailure for a singular one."""
    return _guard(lambda: np.linalg.inv(a), a, "singular")


def linalg_solve(a, b, left):
    """X with ``a @ X = b`` (``left``) or ``X @ a = b``; ``b`` a batch of matrices whose batch dims
    broadcast with ``a``'s; LinAlgFailure for a singular ``a``."""
    if left:
        return _guard(lambda: np.linalg.solve(a, b), a, "singular")
    return _mT(_guard(lambda: np.linalg.solve(_mT(a), _mT(b)), a, "singular"))


def linalg_svd(a, full_matrices):
    """(U, S, Vh) of each matrix of ``a``; LinAlgFailure if it does not converge."""
    u, s, vh = _guard(lambda: np.linalg.svd(a, full_matrices=full_matrices), a, "converge")
    return u, s, vh


def linalg_svdvals(a):
    """The singular values of each matrix of ``a``, in descending order."""
    return _guard(lambda: np.linalg.svd(a, compute_uv=False), a, "converge")


def linalg_qr(a, mode):
    """(Q, R) of each matrix of ``a``; ``mode`` "reduced", "complete" or "r" (Q is then an empty
    1-D array)."""
    if mode == "r":
        return np.zeros((0,), dtype=a.dtype), np.linalg.qr(a, mode="r")
    q, r = np.linalg.qr(a, mode=mode)
    return q, r


def linalg_cholesky(a, upper):
    """The Cholesky factor of each matrix of ``a``, read from its lower triangle (lower factor),
    or its upper one (the upper factor, LAPACK's and PyTorch's ``upper``); LinAlgFailure for one
    that is not positive-definite."""
    m = np.ascontiguousarray(_mH(a)) if upper else a
    low = _guard(lambda: np.linalg.cholesky(m), m, "definite")
    return np.ascontiguousarray(_mH(low)) if upper else low


def linalg_eigh(a, uplo):
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix of ``a``, read
    from its lower (``uplo`` "L") or upper triangle."""
    w, v = _guard(lambda: np.linalg.eigh(a, UPLO=uplo), a, "converge")
    return w, v


def linalg_eigvalsh(a, uplo):
    """The eigenvalues (ascending, real) of each Hermitian matrix of ``a``, read from its lower
    (``uplo`` "L") or upper triangle."""
    return _guard(lambda: np.linalg.eigvalsh(a, UPLO=uplo), a, "converge")


def linalg_eig(a, vectors):
    """The eigenvalues of each square matrix of ``a`` (complex, LAPACK's geev order) and, when
    ``vectors``, its eigenvectors as columns: ``(w, v)``, else ``w``."""
    cdt = np.result_type(a.dtype, np.complex64)
    if vectors:
        w, v = _guard(lambda: np.linalg.eig(a), a, "converge")
        return w.astype(cdt, copy=False), v.astype(cdt, copy=False)
    return _guard(lambda: np.linalg.eigvals(a), a, "converge").astype(cdt, copy=False)


# -- overrides: measured faster here than the base's defaults ------------------------------

# override: 0.19 µs vs the default's 1.18 µs ((32, 64) float32)
def linalg_reshape(a, shape):
    """``a`` with a new shape of the same number of elements (a view where the layout allows)."""
    return a.reshape(shape)


# override: 5.1 µs vs the default's 6.4 µs ((32, 64) float32, ord 2, axis 1)
@_warnings_off
def linalg_vector_norm(x, ord, axes, keepdim, cdt):
    """The ``ord``-norm of ``x`` over ``axes`` (a tuple), computed in the ember dtype ``cdt`` and
    returned in ``x``'s dtype: max/min of |x| for ±inf, the count of nonzeros for 0, else
    ``sum(|x| ** ord) ** (1 / ord)``. A complex ``x`` is the norm of ``|x|``, in the dtype of
    its parts (``cdt`` is then that real dtype)."""
    if x.dtype.kind == "c":
        x = np.abs(x)
    w = x.astype(NP[cdt], copy=False)
    if ord == 2:
        r = np.sqrt(np.sum(w * w, axis=axes, keepdims=keepdim))
    elif ord == 1:
        r = np.sum(np.abs(w), axis=axes, keepdims=keepdim)
    elif ord == np.inf:
        r = np.max(np.abs(w), axis=axes, keepdims=keepdim)
    elif ord == -np.inf:
        r = np.min(np.abs(w), axis=axes, keepdims=keepdim)
    elif ord == 0:
        r = np.count_nonzero(w, axis=axes, keepdims=keepdim)
    else:
        r = np.power(np.sum(np.power(np.abs(w), ord), axis=axes, keepdims=keepdim), 1.0 / ord)
    return np.asarray(r).astype(x.dtype, copy=False)


# override: 14.8 µs vs the default's 16.6 µs ((32, 64) float32)
def linalg_extreme_last(s, largest):
    """max (``largest``; 0 over an empty axis) or min of ``s`` (>= 0) over its last axis, and the
    weights that share a gradient evenly among the tied extremes."""
    if largest:
        r = np.max(s, axis=-1, initial=0)
    else:
        r = np.min(s, axis=-1)
    mask = (s == r[..., None]) | np.isnan(s)
    return np.asarray(r), (mask / np.maximum(np.sum(mask, axis=-1, keepdims=True), 1)).astype(s.dtype)


# override: 3.5 µs vs the default's 3.9 µs ((8, 8) float32)
def linalg_det(a):
    """The determinant of each matrix of ``a`` (0 for a singular one)."""
    return np.asarray(np.linalg.det(a))
