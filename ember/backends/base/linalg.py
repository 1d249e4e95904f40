"""The linalg kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class LinalgKernels:
    @required
    def linalg_matmul(self, a, b):
        """NumPy's matmul (batched, broadcasting, 1-D operands promoted and removed)."""

    @required
    def linalg_dot(self, a, b):
        """The inner product of two 1-D arrays, as a 0-d array."""

    @required
    def linalg_outer(self, a, b):
        """The outer product of two 1-D arrays."""

    @required
    def linalg_cross(self, a, b, dim):
        """The cross product along ``dim`` (size 3 in both), broadcasting the other dims."""

    @required
    def linalg_reshape(self, a, shape):
        """``a`` with a new shape of the same number of elements (a view where the layout allows)."""

    @required
    def einsum_contract(self, eq, arrays):
        """``numpy.einsum`` of an explicit equation without ellipses, with a cached contraction order."""

    @required
    def linalg_vector_norm(self, x, ord, axes, keepdim, cdt):
        """The ``ord``-norm of ``x`` over ``axes`` (a tuple), computed in the ember dtype ``cdt`` and
        returned in ``x``'s dtype: max/min of |x| for ±inf, the count of nonzeros for 0,
        else ``sum(|x| ** ord) ** (1 / ord)``. A complex ``x`` is the norm of ``|x|``, in
        the dtype of its parts (``cdt`` is then that real dtype)."""

    @required
    def linalg_vector_norm_grad(self, g, x, norm, ord, axes, keepdim, cdt):
        """The gradient of ``linalg_vector_norm`` (PyTorch's rules: zero where the norm is zero, and
        ties of the ±inf norms share the gradient evenly)."""

    @required
    def linalg_abs_sum_extreme(self, a, sum_axis, ext_axis, largest):
        """max (``largest``) or min over ``ext_axis`` of ``sum(|a|, sum_axis)``, both dims kept: the
        matrix 1- and inf-norms. Returns (result, the kept column sums for the gradient)."""

    @required
    def linalg_abs_sum_extreme_grad(self, g, a, s, r, ext_axis):
        """The gradient of ``linalg_abs_sum_extreme`` (``g`` with both dims kept); tied sums share it
        evenly, as PyTorch's ``amax``/``amin``."""

    @required
    def linalg_extreme_last(self, s, largest):
        """max (``largest``; 0 over an empty axis) or min of ``s`` (>= 0) over its last axis, and the
        weights that share a gradient evenly among the tied extremes."""

    @required
    def linalg_inv(self, a):
        """The inverse of each matrix of ``a``; LinAlgFailure for a singular one."""

    @required
    def linalg_det(self, a):
        """The determinant of each matrix of ``a`` (0 for a singular one)."""

    @required
    def linalg_det_grad(self, g, a):
        """The gradient of ``det``: ``g * adj(a)^T``, from an SVD so that singular matrices get the
        adjugate too (``adj(a)^T = det(U) det(Vh) U diag(prod_{j != i} s_j) Vh``)."""

    @required
    def linalg_solve(self, a, b, left):
        """X with ``a @ X = b`` (``left``) or ``X @ a = b``; ``b`` a batch of matrices whose batch dims
        broadcast with ``a``'s; LinAlgFailure for a singular ``a``."""

    @required
    def linalg_svd(self, a, full_matrices):
        """(U, S, Vh) of each matrix of ``a``; LinAlgFailure if it does not converge."""

    @required
    def linalg_svdvals(self, a):
        """The singular values of each matrix of ``a``, in descending order."""

    @required
    def linalg_qr(self, a, mode):
        """(Q, R) of each matrix of ``a``; ``mode`` "reduced", "complete" or "r" (Q is then an empty
        1-D array)."""

    @required
    def linalg_cholesky(self, a, upper):
        """The Cholesky factor of each matrix of ``a``, read from its lower triangle (lower factor), or
        its upper one (the upper factor, LAPACK's and PyTorch's ``upper``); LinAlgFailure
        for one that is not positive-definite."""

    @required
    def linalg_eigh(self, a, uplo):
        """(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix of ``a``, read
        from its lower (``uplo`` "L") or upper triangle."""

    @required
    def linalg_eigvalsh(self, a, uplo):
        """The eigenvalues (ascending, real) of each Hermitian matrix of ``a``, read from its lower
        (``uplo`` "L") or upper triangle."""

    @required
    def linalg_eig(self, a, vectors):
        """The eigenvalues of each square matrix of ``a`` (complex, LAPACK's geev order) and, when
        ``vectors``, its eigenvectors as columns: ``(w, v)``, else ``w``."""

    @required
    def linalg_slogdet(self, a):
        """(sign, log|det|) of each matrix of ``a``: sign 0 and log|det| -inf for a singular one; the
        sign of a complex matrix is a complex number of modulus 1."""

    @required
    def linalg_slogdet_grad(self, g, a):
        """The gradient of log|det(a)| (real ``a``): ``g * a^-T``; NaN for a singular matrix."""

    @required
    def linalg_pinv(self, a, atol, rtol, hermitian):
        """The pseudoinverse of each matrix of ``a`` (*, m, n) -> (*, n, m), as torch.linalg.pinv:
        singular values (|eigenvalues| when ``hermitian``) at or below ``max(atol, rtol *
        largest)`` count as zero; ``atol``/``rtol`` are None, numbers or arrays over the
        batch dims."""

    @required
    def linalg_matrix_rank(self, a, atol, rtol, hermitian):
        """The rank of each matrix of ``a`` (int64 over the batch dims): the number of singular values
        (|eigenvalues| when ``hermitian``) above ``max(atol, rtol * largest)``."""

    @required
    def linalg_vecdot(self, a, b, axis):
        """``sum(conj(a) * b)`` along ``axis`` of the broadcast shape (the first operand conjugated, as
        torch.linalg.vecdot)."""
