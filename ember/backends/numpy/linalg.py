"""NumPy kernels of the linalg family. Public names here are kernels (`be.NAME`); helpers start with _.

Complex arrays go through the same kernels (products, einsum, the factorizations): NumPy's
LAPACK routines take them; a Hermitian transpose is written ``_mH``. The gradient kernels are
for real arrays only (ember has no gradients through complex tensors).
"""

import math

import numpy as np

from .core import NP, _warnings_off, allocates

__all__ = ["linalg_matmul", "linalg_dot", "linalg_outer", "linalg_cross",
           "linalg_reshape", "einsum_contract",
           "LinAlgFailure", "linalg_vector_norm", "linalg_vector_norm_grad",
           "linalg_abs_sum_extreme", "linalg_abs_sum_extreme_grad", "linalg_extreme_last", "linalg_inv",
           "linalg_det", "linalg_det_grad", "linalg_solve", "linalg_svd",
           "linalg_svdvals", "linalg_qr", "linalg_cholesky", "linalg_eigh", "linalg_eigvalsh", "linalg_eig",
           "linalg_slogdet", "linalg_slogdet_grad", "linalg_pinv",
           "linalg_matrix_rank", "linalg_vecdot"]


def _matmul_shape(a, b):
    sa = (1,) + a.shape if a.ndim == 1 else a.shape
    sb = b.shape + (1,) if b.ndim == 1 else b.shape
    out = np.broadcast_shapes(sa[:-2], sb[:-2]) + (sa[-2], sb[-1])
    return out[:len(out) - (a.ndim == 1) - (b.ndim == 1)] if a.ndim == 1 else \
        out[:len(out) - (b.ndim == 1)]


def _matmul(a, b):
    """``np.matmul(a, b)``; a C-contiguous stack of matrices times one matrix,
    ``(..., m, k) @ (k, n)``, is one ``(... * m, k) @ (k, n)`` BLAS call (NumPy makes one call
    per matrix of the stack: 3x slower on a GPT's (16, 64, 64) @ (64, 192) products)."""
    if a.ndim > 2 and b.ndim == 2 and a.flags.c_contiguous:
        rows = a.shape[:-1]
        return np.matmul(a.reshape(math.prod(rows), a.shape[-1]), b).reshape(rows + b.shape[1:])
    return np.matmul(a, b)


@allocates(_matmul_shape)
@_warnings_off
def linalg_matmul(a, b):
    """NumPy's matmul (batched, broadcasting, 1-D operands promoted and removed)."""
    return np.asarray(_matmul(a, b))


def linalg_dot(a, b):
    """The inner product of two 1-D arrays, as a 0-d array."""
    return np.asarray(np.dot(a, b))


@allocates(lambda a, b: a.shape + b.shape)
def linalg_outer(a, b):
    """The outer product of two 1-D arrays."""
    return np.multiply.outer(a, b)


def linalg_cross(a, b, dim):
    """The cross product along ``dim`` (size 3 in both), broadcasting the other dims."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    a = np.broadcast_to(a, shape)
    b = np.broadcast_to(b, shape)
    a0, a1, a2 = (np.take(a, i, axis=dim) for i in range(3))
    b0, b1, b2 = (np.take(b, i, axis=dim) for i in range(3))
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=dim)


def linalg_reshape(a, shape):
    """``a`` with a new shape of the same number of elements (a view where the layout allows)."""
    return a.reshape(shape)


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

class LinAlgFailure(Exception):
    """A factorization failed: a singular matrix (inv, solve) or one that is not positive-definite
    (cholesky) or whose eigen/singular values did not converge. ``index`` is the batch index (a
    tuple) of the first such matrix, or None when it cannot be told."""

    def __init__(self, message, index=None):
        super().__init__(message)
        self.index = index


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


@_warnings_off
def linalg_vector_norm_grad(g, x, norm, ord, axes, keepdim, cdt):
    """The gradient of ``linalg_vector_norm`` (PyTorch's rules: zero where the norm is zero, and
    ties of the ±inf norms share the gradient evenly)."""
    cdt = NP[cdt]
    w = x.astype(cdt, copy=False)
    g = g.astype(cdt, copy=False)
    n = norm.astype(cdt, copy=False)
    if not keepdim:
        g = np.expand_dims(g, axes)
        n = np.expand_dims(n, axes)
    if ord == 0:
        out = np.zeros_like(w)
    elif ord == 1:
        out = np.sign(w) * g
    elif ord == 2:
        out = w * np.where(n == 0, 0, g / n)
    elif ord in (np.inf, -np.inf):
        a = np.abs(w)
        mask = (a == n) | np.isnan(a)
        out = np.sign(w) * (g / np.sum(mask, axis=axes, keepdims=True)) * mask
    elif ord < 1:
        a = np.abs(w)
        out = np.sign(w) * np.where(w == 0, 0, np.power(a, ord - 1)) * g * np.power(n, 1 - ord)
    elif ord < 2:
        out = np.sign(w) * np.power(np.abs(w), ord - 1) * np.where(n == 0, 0, g / n ** (ord - 1))
    else:
        out = w * np.power(np.abs(w), ord - 2) * np.where(n == 0, 0, g / n ** (ord - 1))
    return np.ascontiguousarray(np.broadcast_to(out, w.shape)).astype(x.dtype, copy=False)


@_warnings_off
def linalg_abs_sum_extreme(a, sum_axis, ext_axis, largest):
    """max (``largest``) or min over ``ext_axis`` of ``sum(|a|, sum_axis)``, both dims kept: the
    matrix 1- and inf-norms. Returns (result, the kept column sums for the gradient)."""
    s = np.sum(np.abs(a), axis=sum_axis, keepdims=True)
    if largest:  # sums are >= 0, so 0 is the max of none (PyTorch's value for empty matrices)
        r = np.max(s, axis=ext_axis, keepdims=True, initial=0)
    else:
        r = np.min(s, axis=ext_axis, keepdims=True)
    return np.asarray(r), s


def linalg_abs_sum_extreme_grad(g, a, s, r, ext_axis):
    """The gradient of ``linalg_abs_sum_extreme`` (``g`` with both dims kept); tied sums share it
    evenly, as PyTorch's ``amax``/``amin``."""
    mask = (s == r) | np.isnan(s)
    share = g * mask / np.sum(mask, axis=ext_axis, keepdims=True)
    return (np.sign(a) * share).astype(a.dtype, copy=False)


def linalg_extreme_last(s, largest):
    """max (``largest``; 0 over an empty axis) or min of ``s`` (>= 0) over its last axis, and the
    weights that share a gradient evenly among the tied extremes."""
    if largest:
        r = np.max(s, axis=-1, initial=0)
    else:
        r = np.min(s, axis=-1)
    mask = (s == r[..., None]) | np.isnan(s)
    return np.asarray(r), (mask / np.maximum(np.sum(mask, axis=-1, keepdims=True), 1)).astype(s.dtype)


def linalg_inv(a):
    """The inverse of each matrix of ``a``; LinAlgFailure for a singular one."""
    return _guard(lambda: np.linalg.inv(a), a, "singular")


def linalg_det(a):
    """The determinant of each matrix of ``a`` (0 for a singular one)."""
    return np.asarray(np.linalg.det(a))


def _prod_others(s):
    """For each i along the last axis, the product of the other entries (no division)."""
    ones = np.ones_like(s[..., :1])
    before = np.cumprod(np.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = np.flip(np.cumprod(np.flip(np.concatenate([s[..., 1:], ones], axis=-1), -1), -1), -1)
    return before * after


def linalg_det_grad(g, a):
    """The gradient of ``det``: ``g * adj(a)^T``, from an SVD so that singular matrices get the
    adjugate too (``adj(a)^T = det(U) det(Vh) U diag(prod_{j != i} s_j) Vh``)."""
    if a.shape[-1] == 0:
        return np.zeros_like(a)
    u, s, vh = np.linalg.svd(a)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    cof = np.matmul(u * _prod_others(s)[..., None, :], vh)
    return (g * sign)[..., None, None] * cof


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


def _right_solve_t(b, r):
    """``b @ r^-T`` for square ``r``; NaN where ``r`` is singular (a rank-deficient QR input),
    as a triangular solve gives non-finite values there rather than failing."""
    try:
        return _mT(np.linalg.solve(r, _mT(b)))
    except np.linalg.LinAlgError:
        return np.full(np.broadcast_shapes(b.shape[:-2], r.shape[:-2]) + b.shape[-2:], np.nan,
                       dtype=b.dtype)


def _copyltu(m):
    """The symmetric matrix with ``m``'s lower triangle (diagonal included)."""
    low = np.tril(m)
    return low + _mT(np.tril(m, -1))


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


@_warnings_off
def linalg_slogdet(a):
    """(sign, log|det|) of each matrix of ``a``: sign 0 and log|det| -inf for a singular one;
    the sign of a complex matrix is a complex number of modulus 1."""
    sign, logabs = np.linalg.slogdet(a)
    return np.asarray(sign), np.asarray(logabs)


@_warnings_off
def linalg_slogdet_grad(g, a):
    """The gradient of log|det(a)| (real ``a``): ``g * a^-T``; NaN for a singular matrix."""
    try:
        inv = np.linalg.inv(a)
    except np.linalg.LinAlgError:  # NaN for the singular matrices alone
        inv = np.empty_like(a)
        for index in np.ndindex(a.shape[:-2]):
            try:
                inv[index] = np.linalg.inv(a[index])
            except np.linalg.LinAlgError:
                inv[index] = np.nan
    return np.asarray(g)[..., None, None] * _mT(inv)


def _real_dtype(a):
    return np.abs(np.zeros((), dtype=a.dtype)).dtype


def _tolerance(smax, atol, rtol, m, n, real):
    """``max(atol, rtol * smax)`` as torch.linalg.pinv/matrix_rank: ``rtol`` None is
    ``eps * max(m, n)`` where ``atol`` is None or not positive, else 0."""
    if rtol is None:
        default = np.finfo(real).eps * max(m, n)
        rtol = default if atol is None else np.where(np.asarray(atol) > 0, 0.0, default)
    tol = np.asarray(rtol, dtype=real) * smax
    if atol is not None:
        tol = np.maximum(np.asarray(atol, dtype=real), tol)
    return tol


@_warnings_off
def linalg_pinv(a, atol, rtol, hermitian):
    """The pseudoinverse of each matrix of ``a`` (*, m, n) -> (*, n, m), as torch.linalg.pinv:
    singular values (|eigenvalues| when ``hermitian``) at or below ``max(atol, rtol * largest)``
    count as zero; ``atol``/``rtol`` are None, numbers or arrays over the batch dims."""
    m, n = a.shape[-2], a.shape[-1]
    real = _real_dtype(a)
    if m == 0 or n == 0:
        return np.zeros(a.shape[:-2] + (n, m), dtype=a.dtype)
    if hermitian:
        w, v = _guard(lambda: np.linalg.eigh(a), a, "converge")
        s = np.abs(w)
        tol = _tolerance(np.max(s, axis=-1), atol, rtol, m, n, real)
        winv = np.where(s > tol[..., None], 1 / np.where(s > 0, w, 1), 0).astype(real)
        return np.matmul(v * winv[..., None, :], _mH(v))
    u, s, vh = _guard(lambda: np.linalg.svd(a, full_matrices=False), a, "converge")
    tol = _tolerance(s[..., 0], atol, rtol, m, n, real)
    sinv = np.where(s > tol[..., None], 1 / np.where(s > 0, s, 1), 0).astype(real)
    return np.matmul(_mH(vh) * sinv[..., None, :], _mH(u))


def linalg_matrix_rank(a, atol, rtol, hermitian):
    """The rank of each matrix of ``a`` (int64 over the batch dims): the number of singular
    values (|eigenvalues| when ``hermitian``) above ``max(atol, rtol * largest)``."""
    m, n = a.shape[-2], a.shape[-1]
    real = _real_dtype(a)
    if m == 0 or n == 0:
        shape = np.broadcast_shapes(a.shape[:-2], np.shape(atol) if atol is not None else (),
                                    np.shape(rtol) if rtol is not None else ())
        return np.zeros(shape, dtype=np.int64)
    if hermitian:
        s = np.abs(_guard(lambda: np.linalg.eigvalsh(a), a, "converge"))
        smax = np.max(s, axis=-1)
    else:
        s = _guard(lambda: np.linalg.svd(a, compute_uv=False), a, "converge")
        smax = s[..., 0]
    tol = _tolerance(smax, atol, rtol, m, n, real)
    return np.asarray(np.count_nonzero(s > tol[..., None], axis=-1), dtype=np.int64)


def linalg_vecdot(a, b, axis):
    """``sum(conj(a) * b)`` along ``axis`` of the broadcast shape (the first operand
    conjugated, as torch.linalg.vecdot)."""
    if a.dtype.kind == "c":
        a = np.conj(a)
    return np.asarray(np.sum(np.multiply(a, b), axis=axis))
