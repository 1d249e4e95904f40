"""The linalg kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

import math

from ... import dtypes
from .declare import allocates, required


class LinAlgFailure(Exception):
    """A factorization failed: a singular matrix (inv, solve) or one that is not positive-definite
    (cholesky) or whose eigen/singular values did not converge. ``index`` is the batch index (a
    tuple) of the first such matrix, or None when it cannot be told."""

    def __init__(self, message, index=None):
        super().__init__(message)
        self.index = index


def _over(fn, w, axes, keepdims):
    """``fn`` (``xp.sum``, ``xp.max``, ``xp.min``) over ``axes``; ``()`` reduces nothing."""
    return fn(w, axis=axes, keepdims=keepdims) if axes else w


def _mH(self, a):
    """The conjugate transpose of the last two dims (the transpose of a real array)."""
    t = self.xp.matrix_transpose(a)
    return self.xp.conj(t) if self.dtype_of(a).kind == "complex" else t


def _tolerance(self, smax, atol, rtol, m, n, real):
    """``max(atol, rtol * smax)`` as torch.linalg.pinv/matrix_rank: ``rtol`` None is
    ``eps * max(m, n)`` where ``atol`` is None or not positive, else 0."""
    xp, dev = self.xp, self.native_device
    if rtol is None:
        default = xp.finfo(real).eps * max(m, n)
        rtol = default if atol is None else xp.where(xp.asarray(atol) > 0, 0.0,
                                                      xp.asarray(default, device=dev))
    tol = xp.asarray(rtol, dtype=real, device=dev) * smax
    if atol is not None:
        tol = xp.maximum(xp.asarray(atol, dtype=real, device=dev), tol)
    return tol


def _matmul_shape(sa, sb):
    """The shape of ``matmul`` of arrays of shapes ``sa`` and ``sb`` (for an error message)."""
    if len(sa) == 1 or len(sb) == 1:
        return sb[:-2] + sb[-1:] if len(sa) == 1 else sa[:-1]
    lead = max(len(sa), len(sb)) - 2
    pa, pb = (1,) * (lead - len(sa) + 2) + sa[:-2], (1,) * (lead - len(sb) + 2) + sb[:-2]
    return tuple(max(x, y) for x, y in zip(pa, pb)) + (sa[-2], sb[-1])


class LinalgKernels:
    @allocates(lambda a, b: _matmul_shape(tuple(a.shape), tuple(b.shape)))
    def linalg_matmul(self, a, b, *, op=None):
        """NumPy's matmul (batched, broadcasting, 1-D operands promoted and removed)."""
        return self.xp.matmul(a, b)

    def linalg_dot(self, a, b):
        """The inner product of two 1-D arrays, as a 0-d array."""
        return self.xp.asarray(self.xp.matmul(a, b))

    @allocates(lambda a, b: (a.shape[0], b.shape[0]))
    def linalg_outer(self, a, b, *, op=None):
        """The outer product of two 1-D arrays."""
        return a[:, None] * b[None, :]

    def linalg_cross(self, a, b, dim):
        """The cross product along ``dim`` (size 3 in both), broadcasting the other dims."""
        xp = self.xp
        a, b = xp.broadcast_arrays(a, b)
        dim %= a.ndim
        head = (slice(None),) * dim
        a0, a1, a2 = (a[head + (i, ...)] for i in range(3))
        b0, b1, b2 = (b[head + (i, ...)] for i in range(3))
        return xp.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=dim)

    def linalg_reshape(self, a, shape):
        """``a`` with a new shape of the same number of elements (a view where the layout allows)."""
        return self.xp.reshape(a, shape)

    @required
    def einsum_contract(self, eq, arrays):
        """``numpy.einsum`` of an explicit equation without ellipses, with a cached contraction order.

        Required: the standard has no einsum (each library's own, with its contraction
        order, is the fast one).
        """

    def linalg_vector_norm(self, x, ord, axes, keepdim, cdt):
        """The ``ord``-norm of ``x`` over ``axes`` (a tuple), computed in the ember dtype ``cdt`` and
        returned in ``x``'s dtype: max/min of |x| for ±inf, the count of nonzeros for 0,
        else ``sum(|x| ** ord) ** (1 / ord)``. A complex ``x`` is the norm of ``|x|``, in
        the dtype of its parts (``cdt`` is then that real dtype)."""
        xp = self.xp
        if self.dtype_of(x).kind == "complex":
            x = self.ew_abs(x)  # |inf + nan j| is inf (C99 Annex G)
        w = xp.astype(x, self.native_dtype(cdt), copy=False)
        if ord == 2:
            r = xp.sqrt(_over(xp.sum, w * w, axes, keepdim))
        elif ord == 1:
            r = _over(xp.sum, xp.abs(w), axes, keepdim)
        elif ord == math.inf:
            r = _over(xp.max, xp.abs(w), axes, keepdim)
        elif ord == -math.inf:
            r = _over(xp.min, xp.abs(w), axes, keepdim)
        elif ord == 0:
            r = _over(xp.sum, xp.astype(w != 0, w.dtype), axes, keepdim)
        else:
            r = xp.pow(_over(xp.sum, xp.pow(xp.abs(w), ord), axes, keepdim), 1.0 / ord)
        return xp.astype(xp.asarray(r), x.dtype, copy=False)

    def linalg_vector_norm_grad(self, g, x, norm, ord, axes, keepdim, cdt):
        """The gradient of ``linalg_vector_norm`` (PyTorch's rules: zero where the norm is zero, and
        ties of the ±inf norms share the gradient evenly)."""
        xp = self.xp
        cdt = self.native_dtype(cdt)
        w = xp.astype(x, cdt, copy=False)
        g = xp.astype(g, cdt, copy=False)
        n = xp.astype(norm, cdt, copy=False)
        if not keepdim:
            kept = tuple(1 if i in axes else s for i, s in enumerate(w.shape))
            g = xp.reshape(g, kept)
            n = xp.reshape(n, kept)
        if ord == 0:
            out = xp.zeros_like(w)
        elif ord == 1:
            out = xp.sign(w) * g
        elif ord == 2:
            out = w * xp.where(n == 0, 0.0, g / n)
        elif ord in (math.inf, -math.inf):
            a = xp.abs(w)
            mask = xp.astype((a == n) | xp.isnan(a), cdt)
            out = xp.sign(w) * (g / _over(xp.sum, mask, axes, True)) * mask
        elif ord < 1:
            out = (xp.sign(w) * xp.where(w == 0, 0.0, xp.pow(xp.abs(w), ord - 1)) * g
                   * xp.pow(n, 1 - ord))
        elif ord < 2:
            out = (xp.sign(w) * xp.pow(xp.abs(w), ord - 1)
                   * xp.where(n == 0, 0.0, g / n ** (ord - 1)))
        else:
            out = w * xp.pow(xp.abs(w), ord - 2) * xp.where(n == 0, 0.0, g / n ** (ord - 1))
        return xp.astype(out, x.dtype, copy=False)

    def linalg_abs_sum_extreme(self, a, sum_axis, ext_axis, largest):
        """max (``largest``) or min over ``ext_axis`` of ``sum(|a|, sum_axis)``, both dims kept: the
        matrix 1- and inf-norms. Returns (result, the kept column sums for the gradient)."""
        xp = self.xp
        s = xp.sum(xp.abs(a), axis=sum_axis, keepdims=True)
        if not largest:
            return xp.min(s, axis=ext_axis, keepdims=True), s
        if s.shape[ext_axis] == 0:  # 0 is the max of no sums (PyTorch's value)
            shape = tuple(1 if i == ext_axis % s.ndim else n for i, n in enumerate(s.shape))
            return xp.zeros(shape, dtype=s.dtype, device=self.native_device), s
        return xp.max(s, axis=ext_axis, keepdims=True), s

    def linalg_abs_sum_extreme_grad(self, g, a, s, r, ext_axis):
        """The gradient of ``linalg_abs_sum_extreme`` (``g`` with both dims kept); tied sums share it
        evenly, as PyTorch's ``amax``/``amin``."""
        xp = self.xp
        mask = xp.astype((s == r) | xp.isnan(s), g.dtype)
        share = g * mask / xp.sum(mask, axis=ext_axis, keepdims=True)
        return xp.astype(xp.sign(a) * share, a.dtype, copy=False)

    def linalg_extreme_last(self, s, largest):
        """max (``largest``; 0 over an empty axis) or min of ``s`` (>= 0) over its last axis, and the
        weights that share a gradient evenly among the tied extremes."""
        xp = self.xp
        if s.shape[-1] == 0:
            r = xp.zeros(s.shape[:-1], dtype=s.dtype, device=self.native_device)
        else:
            r = xp.asarray((xp.max if largest else xp.min)(s, axis=-1))
        mask = xp.astype((s == r[..., None]) | xp.isnan(s), s.dtype)
        return r, mask / xp.clip(xp.sum(mask, axis=-1, keepdims=True), 1.0, None)

    @required
    def linalg_inv(self, a):
        """The inverse of each matrix of ``a``; LinAlgFailure for a singular one.

        Required: the failure and its batch index come from each library's own error
        (LinAlgError, an info array), which the standard does not define.
        """

    def linalg_det(self, a):
        """The determinant of each matrix of ``a`` (0 for a singular one)."""
        return self.xp.asarray(self.xp.linalg.det(a))

    def linalg_det_grad(self, g, a):
        """The gradient of ``det``: ``g * adj(a)^T``, from an SVD so that singular matrices get the
        adjugate too (``adj(a)^T = det(U) det(Vh) U diag(prod_{j != i} s_j) Vh``)."""
        xp = self.xp
        if a.shape[-1] == 0:
            return xp.zeros_like(a)
        u, s, vh = xp.linalg.svd(a)
        sign = xp.linalg.det(u) * xp.linalg.det(vh)
        before = xp.cumulative_prod(s[..., :-1], axis=-1, include_initial=True)
        after = xp.flip(xp.cumulative_prod(xp.flip(s[..., 1:], axis=-1), axis=-1,
                                           include_initial=True), axis=-1)
        cof = xp.matmul(u * (before * after)[..., None, :], vh)
        return (g * sign)[..., None, None] * cof

    @required
    def linalg_solve(self, a, b, left):
        """X with ``a @ X = b`` (``left``) or ``X @ a = b``; ``b`` a batch of matrices whose batch dims
        broadcast with ``a``'s; LinAlgFailure for a singular ``a``.

        Required: the failure and its batch index come from each library's own error
        (LinAlgError, an info array), which the standard does not define.
        """

    @required
    def linalg_svd(self, a, full_matrices):
        """(U, S, Vh) of each matrix of ``a``; LinAlgFailure if it does not converge.

        Required: a convergence failure is each library's own error (LinAlgError, an info
        array), which the standard does not define.
        """

    @required
    def linalg_svdvals(self, a):
        """The singular values of each matrix of ``a``, in descending order.

        Required: a convergence failure is each library's own error (LinAlgError, an info
        array), which the standard does not define.
        """

    @required
    def linalg_qr(self, a, mode):
        """(Q, R) of each matrix of ``a``; ``mode`` "reduced", "complete" or "r" (Q is then an empty
        1-D array).

        Required: mode "r" (no Q computed) is each library's own; the standard has only
        "reduced" and "complete".
        """

    @required
    def linalg_cholesky(self, a, upper):
        """The Cholesky factor of each matrix of ``a``, read from its lower triangle (lower factor), or
        its upper one (the upper factor, LAPACK's and PyTorch's ``upper``); LinAlgFailure
        for one that is not positive-definite.

        Required: the failure and its batch index come from each library's own error
        (LinAlgError, an info array), which the standard does not define.
        """

    @required
    def linalg_eigh(self, a, uplo):
        """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix of ``a``, read
        from its lower (``uplo`` "L") or upper triangle.

        Required: the standard has no ``uplo``, and a convergence failure is each library's
        own error (LinAlgError, an info array), which the standard does not define.
        """

    @required
    def linalg_eigvalsh(self, a, uplo):
        """The eigenvalues (ascending, real) of each Hermitian matrix of ``a``, read from its lower
        (``uplo`` "L") or upper triangle.

        Required: the standard has no ``uplo``, and a convergence failure is each library's
        own error (LinAlgError, an info array), which the standard does not define.
        """

    @required
    def linalg_eig(self, a, vectors):
        """The eigenvalues of each square matrix of ``a`` (complex, LAPACK's geev order) and, when
        ``vectors``, its eigenvectors as columns: ``(w, v)``, else ``w``.

        Required: the standard's linalg extension has no eig.
        """

    def linalg_slogdet(self, a):
        """(sign, log|det|) of each matrix of ``a``: sign 0 and log|det| -inf for a singular one; the
        sign of a complex matrix is a complex number of modulus 1."""
        sign, logabs = self.xp.linalg.slogdet(a)
        return self.xp.asarray(sign), self.xp.asarray(logabs)

    def linalg_slogdet_grad(self, g, a):
        """The gradient of log|det(a)| (real ``a``): ``g * a^-T``; NaN for a singular matrix."""
        xp = self.xp
        try:
            inv = self.linalg_inv(a)
        except self.LinAlgFailure:  # NaN for the singular matrices alone
            singular = (xp.linalg.det(a) == 0)[..., None, None]
            eye = xp.eye(a.shape[-1], dtype=a.dtype, device=self.native_device)
            inv = xp.where(singular, math.nan, self.linalg_inv(xp.where(singular, eye, a)))
        return xp.asarray(g)[..., None, None] * xp.matrix_transpose(inv)

    def linalg_pinv(self, a, atol, rtol, hermitian):
        """The pseudoinverse of each matrix of ``a`` (*, m, n) -> (*, n, m), as torch.linalg.pinv:
        singular values (|eigenvalues| when ``hermitian``) at or below ``max(atol, rtol *
        largest)`` count as zero; ``atol``/``rtol`` are None, numbers or arrays over the
        batch dims."""
        xp = self.xp
        m, n = a.shape[-2], a.shape[-1]
        real = self.native_dtype(dtypes.real_of(self.dtype_of(a)))
        if m == 0 or n == 0:
            return xp.zeros(tuple(a.shape[:-2]) + (n, m), dtype=a.dtype, device=self.native_device)
        if hermitian:
            w, v = self.linalg_eigh(a, "L")
            s = xp.abs(w)
            tol = _tolerance(self, xp.max(s, axis=-1), atol, rtol, m, n, real)
            winv = xp.where(s > tol[..., None], 1 / xp.where(s > 0, w, 1.0), 0.0)
            return xp.matmul(v * winv[..., None, :], _mH(self, v))
        u, s, vh = self.linalg_svd(a, False)
        tol = _tolerance(self, s[..., 0], atol, rtol, m, n, real)
        sinv = xp.where(s > tol[..., None], 1 / xp.where(s > 0, s, 1.0), 0.0)
        return xp.matmul(_mH(self, vh) * sinv[..., None, :], _mH(self, u))

    def linalg_matrix_rank(self, a, atol, rtol, hermitian):
        """The rank of each matrix of ``a`` (int64 over the batch dims): the number of singular values
        (|eigenvalues| when ``hermitian``) above ``max(atol, rtol * largest)``."""
        xp = self.xp
        m, n = a.shape[-2], a.shape[-1]
        if m == 0 or n == 0:
            out = xp.zeros(tuple(a.shape[:-2]), dtype=xp.int64, device=self.native_device)
            for t in (atol, rtol):
                if t is not None:
                    out = out + xp.astype(xp.zeros_like(xp.asarray(t)), xp.int64)
            return out
        if hermitian:
            s = xp.abs(self.linalg_eigvalsh(a, "L"))
            smax = xp.max(s, axis=-1)
        else:
            s = self.linalg_svdvals(a)
            smax = s[..., 0]
        real = self.native_dtype(dtypes.real_of(self.dtype_of(a)))
        tol = _tolerance(self, smax, atol, rtol, m, n, real)
        return xp.astype(xp.asarray(xp.count_nonzero(s > tol[..., None], axis=-1)), xp.int64)

    def linalg_vecdot(self, a, b, axis):
        """``sum(conj(a) * b)`` along ``axis`` of the broadcast shape (the first operand conjugated, as
        torch.linalg.vecdot)."""
        xp = self.xp
        if axis >= 0:  # the standard counts it from the end, within both operands
            axis -= max(a.ndim, b.ndim)
        if -axis > min(a.ndim, b.ndim):
            a, b = xp.broadcast_arrays(a, b)
        return xp.asarray(xp.vecdot(a, b, axis=axis))
