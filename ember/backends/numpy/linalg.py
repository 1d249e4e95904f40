"""NumPy kernels of the linalg family. Public names here are kernels (`be.NAME`); helpers start with _.

Complex arrays go through the same kernels (products, einsum, the factorizations): NumPy's
LAPACK routines take them; a Hermitian transpose is written ``_mH``. The gradient kernels are
for real arrays only (ember has no gradients through complex tensors).
"""

import numpy as np
from numpy.lib.stride_tricks import as_strided as _as_strided

from .core import NP, _warnings_off, allocates, sum_to_shape

__all__ = ["linalg_matmul", "linalg_matmul_grads", "linalg_dot", "linalg_outer", "linalg_cross",
           "linalg_reshape", "linalg_mul", "einsum_contract", "einsum_grads",
           "LinAlgFailure", "linalg_vector_norm", "linalg_vector_norm_grad",
           "linalg_abs_sum_extreme", "linalg_abs_sum_extreme_grad", "linalg_extreme_last", "linalg_inv", "linalg_inv_grad",
           "linalg_det", "linalg_det_grad", "linalg_solve", "linalg_solve_grads", "linalg_svd",
           "linalg_svdvals", "linalg_svd_grad", "linalg_qr", "linalg_qr_grad", "linalg_cholesky",
           "linalg_cholesky_grad", "linalg_eigh", "linalg_eigh_grad", "linalg_eigvalsh",
           "linalg_slogdet", "linalg_slogdet_grad", "linalg_pinv", "linalg_pinv_grad",
           "linalg_matrix_rank", "linalg_vecdot"]


def _matmul_shape(a, b):
    sa = (1,) + a.shape if a.ndim == 1 else a.shape
    sb = b.shape + (1,) if b.ndim == 1 else b.shape
    out = np.broadcast_shapes(sa[:-2], sb[:-2]) + (sa[-2], sb[-1])
    return out[:len(out) - (a.ndim == 1) - (b.ndim == 1)] if a.ndim == 1 else \
        out[:len(out) - (b.ndim == 1)]


@allocates(_matmul_shape)
def linalg_matmul(a, b):
    """NumPy's matmul (batched, broadcasting, 1-D operands promoted and removed)."""
    return np.asarray(np.matmul(a, b))


def linalg_matmul_grads(g, a, b, need_a, need_b):
    """The gradients of ``matmul(a, b)`` for the output gradient ``g``: (ga or None, gb or None)."""
    a1, b1 = a.ndim == 1, b.ndim == 1
    A = a[None, :] if a1 else a
    B = b[:, None] if b1 else b
    if a1 and b1:
        G = g.reshape(1, 1)
    elif a1:
        G = g[..., None, :]
    elif b1:
        G = g[..., :, None]
    else:
        G = g
    ga = gb = None
    batch = G.shape[:-2]
    if need_a:
        if A.ndim == 2 and B.ndim > 2 and B.shape[:-2] == batch:
            # sum over the batch of G_b @ B_b^T as one product
            k = B.shape[-2]
            rest = int(np.prod(batch, dtype=np.int64)) * G.shape[-1]
            Gm = np.moveaxis(G, -2, 0).reshape(G.shape[-2], rest)
            Bm = np.moveaxis(B, -2, 0).reshape(k, rest)
            ga = Gm @ Bm.T
        else:
            ga = sum_to_shape(np.matmul(G, np.swapaxes(B, -1, -2)), A.shape)
        ga = ga.reshape(a.shape)
    if need_b:
        if B.ndim == 2 and A.ndim > 2 and A.shape[:-2] == batch:
            rows = int(np.prod(batch, dtype=np.int64)) * A.shape[-2]
            gb = A.reshape(rows, A.shape[-1]).T @ G.reshape(rows, G.shape[-1])
        else:
            gb = sum_to_shape(np.matmul(np.swapaxes(A, -1, -2), G), B.shape)
        gb = gb.reshape(b.shape)
    return ga, gb


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


def linalg_mul(a, b):
    """The elementwise product with broadcasting."""
    return np.multiply(a, b)


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


def einsum_grads(g, arrays, subs, out, needs):
    """Gradients of ``einsum(",".join(subs) + "->" + out, *arrays)`` for output gradient ``g``.

    Each operand's gradient is the einsum of ``g`` with the other operands onto the operand's
    distinct labels; labels summed only inside that operand are broadcast back, and repeated
    labels (diagonals) put the result on the diagonal of a zero array.
    """
    grads = []
    sizes = {}
    for s, x in zip(subs, arrays):
        for lab, n in zip(s, x.shape):
            sizes[lab] = n
    for i, (s, x) in enumerate(zip(subs, arrays)):
        if not needs[i]:
            grads.append(None)
            continue
        uniq = "".join(dict.fromkeys(s))
        others = [subs[j] for j in range(len(subs)) if j != i]
        avail = set(out).union(*others) if others else set(out)
        present = "".join(lab for lab in uniq if lab in avail)
        eq = ",".join([out] + others) + "->" + present
        gi = einsum_contract(eq, [g] + [arrays[j] for j in range(len(arrays)) if j != i],
                            op="einsum")
        if len(present) != len(uniq):
            gi = gi.reshape([sizes[lab] if lab in avail else 1 for lab in uniq])
            gi = np.broadcast_to(gi, [sizes[lab] for lab in uniq])
            if len(uniq) == len(s):
                gi = np.ascontiguousarray(gi)
        if len(uniq) != len(s):
            full = np.zeros(x.shape, dtype=gi.dtype)
            strides = [sum(full.strides[k] for k, lab2 in enumerate(s) if lab2 == lab)
                       for lab in uniq]
            diag = _as_strided(full, shape=gi.shape, strides=strides)
            diag[...] = gi
            gi = full
        grads.append(gi)
    return grads


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


def _first_singular(a):
    """The batch index of the first matrix of ``a`` with an exactly zero LU pivot, or None."""
    bad = np.argwhere(np.linalg.det(a) == 0)
    return tuple(int(i) for i in bad[0]) if len(bad) else None


def _guard(fn, a, what):
    try:
        return fn()
    except np.linalg.LinAlgError as exc:
        index = _first_singular(a) if what == "singular" else None
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


def linalg_inv_grad(g, inv):
    """The gradient of ``inv``: ``-inv^T @ g @ inv^T``."""
    t = _mT(inv)
    return -np.matmul(t, np.matmul(g, t))


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


def linalg_solve_grads(g, a, x, left, need_a, need_b):
    """The gradients (ga, gb) of ``linalg_solve``, each summed back to its operand's batch."""
    if left:
        gb = np.linalg.solve(_mT(a), g)
        ga = -np.matmul(gb, _mT(x)) if need_a else None
    else:
        gb = _mT(np.linalg.solve(a, _mT(g)))
        ga = -np.matmul(_mT(x), gb) if need_a else None
    return ga, gb


def linalg_svd(a, full_matrices):
    """(U, S, Vh) of each matrix of ``a``; LinAlgFailure if it does not converge."""
    u, s, vh = _guard(lambda: np.linalg.svd(a, full_matrices=full_matrices), a, "converge")
    return u, s, vh


def linalg_svdvals(a):
    """The singular values of each matrix of ``a``, in descending order."""
    return _guard(lambda: np.linalg.svd(a, compute_uv=False), a, "converge")


@_warnings_off
def linalg_svd_grad(gu, gs, gvh, u, s, vh):
    """The gradient of the reduced SVD ``a = u diag(s) vh`` (``u`` (m, k), ``vh`` (k, n)) for the
    output gradients ``gu``, ``gs``, ``gvh`` (None: zero); PyTorch's ``svd_backward``. Factors of
    a full SVD are narrowed to their first k columns (rows of ``vh``), as PyTorch does: the extra
    ones are not determined by ``a``."""
    m, n, k = u.shape[-2], vh.shape[-1], s.shape[-1]
    u, vh = u[..., :k], vh[..., :k, :]
    gu = None if gu is None else gu[..., :k]
    gvh = None if gvh is None else gvh[..., :k, :]
    if gu is None and gvh is None:
        return np.matmul(u * gs[..., None, :], vh)
    s2 = s * s
    e = s2[..., None, :] - s2[..., :, None]
    idx = np.arange(k)
    e[..., idx, idx] = 1
    if gu is not None:
        uhgu = np.matmul(_mT(u), gu)
        uhgu = uhgu - _mT(uhgu)
    if gvh is not None:
        vhgv = np.matmul(vh, _mT(gvh))
        vhgv = vhgv - _mT(vhgv)
    if gu is not None and gvh is not None:
        ga = (uhgu * s[..., None, :] + s[..., :, None] * vhgv) / e
    elif gu is not None:
        ga = uhgu * (s[..., None, :] / e)
    else:
        ga = s[..., :, None] * (vhgv / e)
    if gs is not None:
        ga[..., idx, idx] += gs
    if m > k and gu is not None:
        ga = np.matmul(u, ga)
        gusinv = gu / s[..., None, :]
        ga = ga + gusinv - np.matmul(u, np.matmul(_mT(u), gusinv))
        return np.matmul(ga, vh)
    if n > k and gvh is not None:
        ga = np.matmul(ga, vh)
        sinvgvh = gvh / s[..., :, None]
        ga = ga + sinvgvh - np.matmul(np.matmul(sinvgvh, _mT(vh)), vh)
        return np.matmul(u, ga)
    return np.matmul(u, np.matmul(ga, vh))


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


@_warnings_off
def linalg_qr_grad(gq, gr, q, r):
    """The gradient of ``a = q @ r`` (``q`` (m, k), ``r`` (k, n), k = min(m, n); reduced, or
    complete with m <= n) for output gradients ``gq``, ``gr`` (None: zero)."""
    m, n = q.shape[-2], r.shape[-1]
    gq = np.zeros_like(q) if gq is None else gq
    gr = np.zeros_like(r) if gr is None else gr
    if m >= n:
        mm = np.matmul(r, _mT(gr)) - np.matmul(_mT(gq), q)
        return _right_solve_t(gq + np.matmul(q, _copyltu(mm)), r)
    r1, gr1, gr2 = r[..., :, :m], gr[..., :, :m], gr[..., :, m:]
    y = np.matmul(q, r[..., :, m:])
    gq1 = gq + np.matmul(y, _mT(gr2))
    mm = np.matmul(r1, _mT(gr1)) - np.matmul(_mT(gq1), q)
    gx = _right_solve_t(gq1 + np.matmul(q, _copyltu(mm)), r1)
    gy = np.matmul(q, gr2)
    return np.concatenate([gx, gy], axis=-1)


def linalg_cholesky(a, upper):
    """The Cholesky factor of each matrix of ``a`` (lower, or upper = its transpose);
    LinAlgFailure for one that is not positive-definite."""
    low = _guard(lambda: np.linalg.cholesky(a), a, "definite")
    return np.ascontiguousarray(_mH(low)) if upper else low


def linalg_cholesky_grad(g, factor, upper):
    """The gradient of the Cholesky factor ``factor`` (upper: the transpose of the lower one) for
    its output gradient ``g`` (Murray 2016, as PyTorch): ``L^-T Φ(L^T g) L^-1``."""
    low, g = (_mT(factor), _mT(g)) if upper else (factor, g)
    phi = np.tril(np.matmul(_mT(low), g))
    phi = 0.5 * (phi + _mT(np.tril(phi, -1)))
    inv = np.linalg.inv(low)
    return np.matmul(_mT(inv), np.matmul(phi, inv))


def linalg_eigh(a, uplo):
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix of ``a``, read
    from its lower (``uplo`` "L") or upper triangle."""
    w, v = _guard(lambda: np.linalg.eigh(a, UPLO=uplo), a, "converge")
    return w, v


@_warnings_off
def linalg_eigh_grad(gl, gv, lam, v):
    """The gradient of ``eigh`` for the output gradients ``gl``, ``gv`` (None: zero); PyTorch's
    ``linalg_eig_backward`` for Hermitian input."""
    if gv is None:
        return np.matmul(v * gl[..., None, :], _mT(v))
    vhgv = np.matmul(_mT(v), gv)
    vhgv = 0.5 * (vhgv - _mT(vhgv))
    e = lam[..., None, :] - lam[..., :, None]
    k = lam.shape[-1]
    idx = np.arange(k)
    e[..., idx, idx] = 1
    ga = vhgv / e
    ga[..., idx, idx] = 0 if gl is None else gl
    return np.matmul(v, np.matmul(ga, _mT(v)))


def linalg_eigvalsh(a, uplo):
    """The eigenvalues (ascending, real) of each Hermitian matrix of ``a``, read from its lower
    (``uplo`` "L") or upper triangle."""
    return _guard(lambda: np.linalg.eigvalsh(a, UPLO=uplo), a, "converge")


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
    except np.linalg.LinAlgError:
        inv = np.full(a.shape, np.nan, dtype=a.dtype)
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


def linalg_pinv_grad(g, p, a):
    """The gradient of ``p = pinv(a)`` (real ``a``), PyTorch's ``pinv_backward``."""
    m, n = a.shape[-2], a.shape[-1]
    ph, gh = _mT(p), _mT(g)
    if m <= n:
        k = np.matmul(gh, p)
        kph = np.matmul(k, ph)
        return (-_mT(np.matmul(p, k)) + kph - np.matmul(np.matmul(a, p), kph)
                + np.matmul(np.matmul(ph, p), gh - np.matmul(k, a)))
    k = np.matmul(p, gh)
    phk = np.matmul(ph, k)
    return (-_mT(np.matmul(k, p)) + phk - np.matmul(phk, np.matmul(p, a))
            + np.matmul(gh - np.matmul(a, k), np.matmul(p, ph)))


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
