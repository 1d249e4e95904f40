"""Matrix decompositions and solvers of ``ember.linalg``: inv, pinv, det, slogdet, solve, svd,
svdvals, qr, cholesky, eigh, eigvalsh, matrix_rank and matrix_power, with PyTorch's semantics and
gradient rules.

Every function works on batches: the last two dims are the matrix, the leading dims batch dims.
Inputs must be float32, float64, complex64 or complex128 (KindError otherwise, as PyTorch raises
for ints and for the half floats). Complex matrices follow torch.linalg: Hermitian where real
ones are symmetric (``cholesky``, ``eigh``, ``eigvalsh``), conjugate transposes where real ones
transpose; singular values, eigenvalues of ``eigh`` and ``slogdet``'s ``logabsdet`` are real.
Complex results carry no gradient (docs/complex.md). A singular matrix (``inv``, ``solve``) or
one that is not positive-definite (``cholesky``) raises InvalidParameterError naming the batch
element, where PyTorch raises its ``LinAlgError``. A matrix holding NaN or an infinity follows
one rule on both backends (docs/linalg.md, "NaN and inf"). These names live in ``ember.linalg``
only: ``torch.svd`` and ``torch.qr`` have older signatures, so ember keeps no top-level
spellings that could mean either.

>>> import ember
>>> ember.linalg.inv(ember.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
[[0.5, 0.0], [0.0, 0.25]]
"""

from collections import namedtuple

from .. import dtypes as _dt
from ..errors import GraphError, InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import as_int, broadcast_shapes
from ..autodiff.graph import _mode
from ..autodiff.rules import sum_to
from .._tensor import Tensor, backend_of, check_tensor, record, saved, wrap
from .views import reshape_exact as _reshape

__all__ = []

SVD = namedtuple("SVD", ["U", "S", "Vh"])
SVD.__doc__ = "The result of ``ember.linalg.svd``: ``U``, ``S``, ``Vh`` (``A = U diag(S) Vh``)."
QR = namedtuple("QR", ["Q", "R"])
QR.__doc__ = "The result of ``ember.linalg.qr``: ``Q``, ``R`` (``A = Q R``)."
Eigh = namedtuple("Eigh", ["eigenvalues", "eigenvectors"])
Eigh.__doc__ = "The result of ``ember.linalg.eigh``: ascending ``eigenvalues``, ``eigenvectors``."
SlogDet = namedtuple("SlogDet", ["sign", "logabsdet"])
SlogDet.__doc__ = ("The result of ``ember.linalg.slogdet``: ``sign`` and ``logabsdet`` "
                   "(``det = sign * exp(logabsdet)``).")

_LINALG_DTYPES = ("float32", "float64", "complex64", "complex128")


def _shape_str(shape):
    return str(tuple(shape))


def matrices(A, op, param="A", square=True):
    """``A`` checked to be a float32/float64/complex64/complex128 Tensor of at least 2 dims
    (square when asked)."""
    check_tensor(A, op, param)
    dt = A._dtype
    if dt.kind != "float" and dt.kind != "complex":
        raise KindError(f"{op}: {param} has dtype {dt.name}; expected a float32, float64, "
                        "complex64 or complex128 tensor (cast it with .float())")
    if dt.name in ("float16", "bfloat16"):
        raise KindError(f"{op}: {param} has dtype {dt.name}; low-precision dtypes are not "
                        "supported (as in PyTorch); expected float32 or float64")
    if A.ndim < 2:
        raise ShapeMismatchError(f"{op}: {param} has shape {_shape_str(A.shape)}; expected at "
                                 "least 2 dims (*, m, n)", expected=2, actual=A.ndim)
    if square and A.shape[-1] != A.shape[-2]:
        raise ShapeMismatchError(
            f"{op}: {param} has shape {_shape_str(A.shape)}; expected batches of square matrices "
            f"(*, n, n)", expected=(A.shape[-2], A.shape[-2]), actual=tuple(A.shape[-2:]))
    return A


def _refuse(op, param, index, failure):
    """InvalidParameterError for the matrix at batch index ``index`` (a tuple; () or None: the
    only one, or unknown) of ``param``."""
    where = f" (batch element {index})" if index else ""
    return InvalidParameterError(f"{op}: {param}{where} {failure}", param, index)


def _run(be, kernel, args, op, param, failure):
    """``kernel(*args)``, a factorization failure (the backend ``be``'s) raised as
    InvalidParameterError."""
    try:
        return kernel(*args)
    except be.LinAlgFailure as exc:
        raise _refuse(op, param, exc.index, failure) from None


# -- NaN and inf (docs/linalg.md, "NaN and inf"): one rule for both backends, above the seam,
# as what LAPACK gives for them depends on its build (OpenBLAS's SVD of an inf never returns).

_NAN = float("nan")
_NAN_SVD = "holds NaN; expected a matrix without NaN (NaN leaves its singular values undefined)"


def _nan_eigh(uplo, reader):
    side = "lower" if uplo == "L" else "upper"
    return (f"holds NaN in its {side} triangle (the one {reader} reads); expected no NaN there "
            "(NaN leaves its eigenvalues undefined)")


def _nan_of(dt):
    """The NaN that fills a result of ember dtype ``dt``."""
    return complex(_NAN, _NAN) if dt.kind == "complex" else _NAN


def _nonfinite(be, a, uplo=None):
    """Which matrices of ``a`` hold NaN or an infinity among the entries a function reads (all,
    or the ``uplo`` "L"/"U" triangle): None when every entry of ``a`` is finite (one pass, the
    common case), else two bool arrays over the batch dims: has a NaN, has a NaN or infinity."""
    finite = be.compare_isfinite(a)
    if be.compare_all(finite):
        return None
    nan, bad = be.compare_isnan(a), be.logical_not(finite)
    if uplo is not None:
        nan = be.creation_tri_keep(nan, 0, uplo == "U")
        bad = be.creation_tri_keep(bad, 0, uplo == "U")
    return be.reduce_any(nan, (-2, -1), False), be.reduce_any(bad, (-2, -1), False)


def _first(be, mask):
    """The index (a tuple) of the first true element of the bool array ``mask``, or None."""
    rows = be.idx_argwhere(mask)
    return tuple(be.data_flat_list(rows[0, ...])) if rows.shape[0] else None


def _fill(be, mask, value, x, tail=0):
    """``x`` with ``value`` in the batch elements where ``mask`` (over the leading dims of ``x``
    before its ``tail`` trailing ones) is true."""
    if tail:
        mask = be.linalg_reshape(mask, tuple(mask.shape) + (1,) * tail)
    return be.ew_where(mask, value, x)


def _screened(be, a, op, uplo=None, nan_failure=None, param="A"):
    """``a`` ready for a kernel whose LAPACK result on NaN or inf is not to be trusted, and the
    batch mask of its matrices to fill with NaN afterwards (None: none): a NaN among the entries
    read raises InvalidParameterError with ``nan_failure`` (when given, as PyTorch raises its
    LinAlgError), and every other non-finite matrix goes in as zeros."""
    flags = _nonfinite(be, a, uplo)
    if flags is None:
        return a, None
    nan, bad = flags
    if nan_failure is not None:
        index = _first(be, nan)
        if index is not None:
            raise _refuse(op, param, index, nan_failure)
    return _fill(be, bad, 0, a, 2), bad


def _nan_where_nonfinite(be, a, dt, out):
    """``out`` (a result with two dims per matrix of ``a``) all NaN for the matrices of ``a``
    that hold NaN or an infinity."""
    flags = _nonfinite(be, a)
    return out if flags is None else _fill(be, flags[1], _nan_of(dt), out, 2)


def _tracked(A):
    return A._node is not None



def _mat(g):
    """``g`` (*) as (*, 1, 1), to scale a batch of matrices."""
    return g.unsqueeze(-1).unsqueeze(-1)


def _diag(d):
    """The batch of diagonal matrices with the last dim of ``d`` on their diagonals."""
    n = d.shape[-1]
    return d.unsqueeze(-1) * Tensor.eye(n, dtype=d._dtype, device=d._device)


def _factors(A, arrays, dtypes, recompute):
    """The factors of a decomposition of ``A`` that a gradient rule reads, as Tensors: the saved
    ``arrays`` as constants for a first-order backward, or, when the rule is recorded
    (``backward(create_graph=True)``), ``recompute(A)``: the same factors as recorded functions
    of ``A``, so that the second derivative flows through them. (A rule cannot hold its own
    step's sibling results: they would hold it back, a reference cycle.)"""
    if _mode.enabled and A._node is not None:
        return recompute(A)
    return tuple(wrap(a, dt) for a, dt in zip(arrays, dtypes))


def _inv_t(A):
    """``A^-T`` for each matrix of ``A``, NaN for a singular one: the backend's kernel, recorded
    with its own rule."""
    be = A._device.backend
    ones = Tensor.ones(*A.shape[:-2], dtype=A._dtype, device=A._device) if A.ndim > 2 else \
        Tensor.full((), 1.0, dtype=A._dtype, device=A._device)
    a, bad = _screened(be, A._data, "inv")
    data = be.linalg_slogdet_grad(ones._data, a)
    if bad is not None:
        data = _fill(be, bad, _nan_of(A._dtype), data, 2)

    def rule(h, needs, W):  # d(A^-T) = -W dA^T W: the gradient is -W h^T W
        return (-(W @ (h.mT @ W)),)
    return record(data, A._dtype, (A,), rule, "inv", keep_out=True)


def inv(A):
    """The inverse of each square matrix of ``A`` (*, n, n).

    A singular matrix raises InvalidParameterError. The gradient is ``-A^-T g A^-T``.

    >>> import ember
    >>> A = ember.linalg.inv(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> [[round(v, 5) for v in row] for row in A.tolist()]
    [[-2.0, 1.0], [1.5, -0.5]]
    """
    A = matrices(A, "inv")
    be = A._device.backend
    out = _run(be, be.linalg_inv, (A._data,), "inv", "A",
               "is singular; expected an invertible matrix")
    out = _nan_where_nonfinite(be, A._data, A._dtype, out)

    def rule(g, needs, X):  # -X^T g X^T
        t = X.mT
        return (-(t @ (g @ t)),)

    return record(out, A._dtype, (A,), rule, "inv", keep_out=True)


def det(A):
    """The determinant of each square matrix of ``A`` (*, n, n): a tensor of shape (*).

    The gradient is ``g * adj(A)^T``, also for singular matrices.

    >>> import ember
    >>> ember.linalg.det(ember.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    -2.0
    """
    A = matrices(A, "det")
    be = A._device.backend
    a, bad = _screened(be, A._data, "det")
    out = be.cast(be.linalg_det(a), A._dtype)
    if bad is not None:
        out = _fill(be, bad, _nan_of(A._dtype), out)
    As = saved(A)

    def rule(g, needs, out):
        return (_det_grad(g, As),)

    return record(out, A._dtype, (A,), rule, "det")


def _det_grad(g, A):
    """``g * adj(A)^T``, the gradient of ``det``: the backend's kernel (an SVD, so that singular
    matrices get the adjugate too), recorded with its own rule (for invertible matrices,
    ``adj(A)^T = det(A) A^-T``)."""
    be = A._device.backend
    a, bad = _screened(be, A._data, "det")
    data = be.cast(be.linalg_det_grad(g._data, a), A._dtype)
    if bad is not None:
        data = _fill(be, bad, _nan_of(A._dtype), data, 2)
    gs, As = saved(g), saved(A)

    def rule(h, needs, out):
        W = _inv_t(As)
        d = _mat(det(As))
        gg = (h * (d * W)).sum((-2, -1)) if needs[0] else None
        ga = None
        if needs[1]:  # d<h, det W> = <h, W> det W - det W h^T W
            ga = _mat(gs) * d * ((h * W).sum((-2, -1), keepdim=True) * W - W @ (h.mT @ W))
        return gg, ga
    return record(data, A._dtype, (g, A), rule, "det")


def _is_vector_rhs(A, B):
    """PyTorch's rule: ``B`` is a (batch of) vector(s) if 1-D or of shape ``A.shape[:-1]``."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve(A, B, *, left=True):
    """The solution X of ``A @ X = B`` (``left=False``: ``X @ A = B``) for square ``A`` (*, n, n).

    ``B`` is a batch of vectors (*, n) when it is 1-D or has shape ``A.shape[:-1]``, else a batch
    of matrices (*, n, k); batch dims broadcast. A singular ``A`` raises InvalidParameterError.

    >>> import ember
    >>> A = ember.tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> ember.linalg.solve(A, ember.tensor([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    op = "solve"
    A = matrices(A, op)
    check_tensor(B, op, "B")
    be = backend_of(A, B, op)
    if left is not True and left is not False:
        raise InvalidParameterError(f"{op}: left must be a bool, got {left!r}", "left", left)
    if B._dtype is not A._dtype:
        raise KindError(f"{op}: A has dtype {A._dtype.name} but B has {B._dtype.name}; expected "
                        "the same dtype")
    n = A.shape[-1]
    vector = _is_vector_rhs(A, B)
    bshape = tuple(B.shape) + (1,) if vector else tuple(B.shape)
    if len(bshape) < 2 or bshape[-2 if left else -1] != n:
        eq = "AX = B" if left else "XA = B"
        raise ShapeMismatchError(
            f"{op}: A of shape {_shape_str(A.shape)} and B of shape {_shape_str(B.shape)} do not "
            f"fit the equation {eq}; expected B of shape (*, {n}) or "
            f"{'(*, ' + str(n) + ', k)' if left else '(*, k, ' + str(n) + ')'}",
            expected=n, actual=tuple(B.shape))
    broadcast_shapes(A.shape[:-2], bshape[:-2], op=f"{op}: the batch dims of A and B")
    a = A._data
    b = be.linalg_reshape(B._data, bshape)
    x = _run(be, be.linalg_solve, (a, b, left), op, "A",
             "is singular; expected an invertible matrix")
    x = _nan_where_nonfinite(be, a, A._dtype, x)
    finite = be.compare_isfinite(b)
    if not be.compare_all(finite):  # a column of B (row, for left=False) with NaN or inf
        cols = be.reduce_any(be.logical_not(finite), (-2,) if left else (-1,), True)
        x = be.ew_where(cols, _nan_of(A._dtype), x)
    out = be.linalg_reshape(x, x.shape[:-1]) if vector else x
    xshape, ashape, bfull = tuple(x.shape), tuple(a.shape), tuple(B.shape)
    As = saved(A)

    def rule(g, needs, out):
        gx = _reshape(g, xshape)
        X = _reshape(out, xshape)
        # left: gB = A^-T g, gA = -gB X^T; right: gB = g A^-T, gA = -X^T gB
        gb = solve(As.mT, gx, left=left)
        ga = None
        if needs[0]:
            ga = sum_to(-(gb @ X.mT) if left else -(X.mT @ gb), ashape)
        gb = _reshape(sum_to(gb, bshape), bfull) if needs[1] else None
        return ga, gb

    return record(out, A._dtype, (A, B), rule, op, keep_out=True)


def _flag(value, op, param):
    if value is True or value is False:
        return value
    raise InvalidParameterError(f"{op}: {param} must be a bool, got {value!r}", param, value)


def svd(A, full_matrices=True):
    """The singular value decomposition ``A = U diag(S) Vh`` of each matrix of ``A`` (*, m, n).

    Returns the named tuple ``SVD(U, S, Vh)``: with k = min(m, n), ``U`` (*, m, m), ``S`` (*, k)
    descending, ``Vh`` (*, n, n); ``full_matrices=False`` gives ``U`` (*, m, k) and ``Vh`` (*, k, n).
    Singular vectors are determined up to sign, so only functions that do not depend on the
    signs (``S``, ``U diag(S) Vh``, ``U U^T`` ...) have meaningful gradients; as in PyTorch the
    gradient assumes distinct singular values and ignores the extra columns of full factors.

    >>> import ember
    >>> U, S, Vh = ember.linalg.svd(ember.tensor([[3.0, 0.0], [0.0, -4.0]]))
    >>> S.tolist()
    [4.0, 3.0]
    """
    op = "svd"
    A = matrices(A, op, square=False)
    be = A._device.backend
    full = _flag(full_matrices, op, "full_matrices")
    a, bad = _screened(be, A._data, op, nan_failure=_NAN_SVD)
    u, s, vh = _run(be, be.linalg_svd, (a, full), op, "A",
                    "has singular values that did not converge")
    dt = A._dtype
    rdt = _dt.real_of(dt)  # singular values are real, also of a complex matrix
    if bad is not None:
        u, s, vh = (_fill(be, bad, _nan_of(dt), u, 2), _fill(be, bad, _NAN, s, 1),
                    _fill(be, bad, _nan_of(dt), vh, 2))

    As = saved(A)

    def factors():
        return _factors(As, (u, s, vh), (dt, rdt, dt), lambda X: svd(X, full))

    def back_u(g, needs, out):
        return (_svd_grad(g, None, None, *factors()),)

    def back_s(g, needs, out):
        return (_svd_grad(None, g, None, *factors()),)

    def back_vh(g, needs, out):
        return (_svd_grad(None, None, g, *factors()),)

    return SVD(record(u, dt, (A,), back_u, op), record(s, rdt, (A,), back_s, op),
               record(vh, dt, (A,), back_vh, op))


def _svd_grad(gu, gs, gvh, u, s, vh):
    """The gradient of the SVD ``a = u diag(s) vh`` for the output gradients ``gu``, ``gs``,
    ``gvh`` (None: zero), PyTorch's ``svd_backward``, with ember ops. Factors of a full SVD are
    narrowed to their first k = min(m, n) columns (rows of ``vh``), as PyTorch does: the extra
    ones are not determined by ``a``."""
    m, n, k = u.shape[-2], vh.shape[-1], s.shape[-1]
    if u.shape[-1] != k:
        u = u.narrow(-1, 0, k)
        gu = None if gu is None else gu.narrow(-1, 0, k)
    if vh.shape[-2] != k:
        vh = vh.narrow(-2, 0, k)
        gvh = None if gvh is None else gvh.narrow(-2, 0, k)
    if gu is None and gvh is None:
        return (u * gs.unsqueeze(-2)) @ vh
    s2 = s * s
    # the differences of the squares, 1 on the diagonal (where they are 0)
    e = s2.unsqueeze(-2) - s2.unsqueeze(-1) + Tensor.eye(k, dtype=s._dtype, device=s._device)
    if gu is not None:
        uhgu = u.mT @ gu
        uhgu = uhgu - uhgu.mT
    if gvh is not None:
        vhgv = vh @ gvh.mT
        vhgv = vhgv - vhgv.mT
    if gu is not None and gvh is not None:
        ga = (uhgu * s.unsqueeze(-2) + s.unsqueeze(-1) * vhgv) / e
    elif gu is not None:
        ga = uhgu * (s.unsqueeze(-2) / e)
    else:
        ga = s.unsqueeze(-1) * (vhgv / e)
    if gs is not None:
        ga = ga + _diag(gs)
    if m > k and gu is not None:
        ga = u @ ga
        gusinv = gu / s.unsqueeze(-2)
        ga = ga + gusinv - u @ (u.mT @ gusinv)
        return ga @ vh
    if n > k and gvh is not None:
        ga = ga @ vh
        sinvgvh = gvh / s.unsqueeze(-1)
        ga = ga + sinvgvh - (sinvgvh @ vh.mT) @ vh
        return u @ ga
    return u @ (ga @ vh)


def svdvals(A):
    """The singular values of each matrix of ``A`` (*, m, n), descending: shape (*, min(m, n)).

    The gradient is ``U diag(g) Vh`` (the singular vectors are computed only when ``A`` is
    tracked).

    >>> import ember
    >>> ember.linalg.svdvals(ember.tensor([[3.0, 0.0], [0.0, -4.0]])).tolist()
    [4.0, 3.0]
    """
    return singular_values(A, "svdvals")


def singular_values(A, op, param="A"):
    """``svdvals(A)`` for the function ``op`` (named in its errors, with ``param``)."""
    A = matrices(A, op, param, square=False)
    be = A._device.backend
    failure = "has singular values that did not converge"
    a, bad = _screened(be, A._data, op, nan_failure=_NAN_SVD, param=param)
    dt, rdt = A._dtype, _dt.real_of(A._dtype)
    if not _tracked(A):
        s = _run(be, be.linalg_svdvals, (a,), op, param, failure)
        return wrap(s if bad is None else _fill(be, bad, _NAN, s, 1), rdt)
    u, s, vh = _run(be, be.linalg_svd, (a, False), op, param, failure)
    if bad is not None:
        u, s, vh = (_fill(be, bad, _nan_of(dt), u, 2), _fill(be, bad, _NAN, s, 1),
                    _fill(be, bad, _nan_of(dt), vh, 2))
    As = saved(A)

    def rule(g, needs, out):
        U, _, Vh = _factors(As, (u, s, vh), (dt, rdt, dt), lambda X: svd(X, False))
        return ((U * g.unsqueeze(-2)) @ Vh,)

    return record(s, rdt, (A,), rule, op)


_QR_MODES = ("reduced", "complete", "r")


def qr(A, mode="reduced"):
    """The QR decomposition ``A = Q R`` of each matrix of ``A`` (*, m, n), Q orthonormal columns,
    R upper triangular. Returns the named tuple ``QR(Q, R)``.

    ``mode``: "reduced" (Q (*, m, k), R (*, k, n), k = min(m, n)), "complete" (Q (*, m, m),
    R (*, m, n)) or "r" (R only; Q is an empty tensor). As in PyTorch, backward raises GraphError
    for mode "r" and for "complete" when m > n.

    >>> import ember
    >>> Q, R = ember.linalg.qr(ember.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> [[round(v, 4) for v in row] for row in (Q @ R).tolist()]
    [[3.0, 1.0], [4.0, 2.0]]
    """
    op = "qr"
    A = matrices(A, op, square=False)
    be = A._device.backend
    if mode not in _QR_MODES:
        raise InvalidParameterError(f"{op}: mode is {mode!r}; expected 'reduced', 'complete' or "
                                    "'r'", "mode", mode)
    a, bad = _screened(be, A._data, op)
    q, r = be.linalg_qr(a, mode)
    dt = A._dtype
    if bad is not None:  # Q all NaN, R NaN on and above its diagonal
        if mode != "r":
            q = _fill(be, bad, _nan_of(dt), q, 2)
        r = be.creation_tri_keep(_fill(be, bad, _nan_of(dt), r, 2), 0, True)
    m, n = A.shape[-2], A.shape[-1]
    if mode == "r" or (mode == "complete" and m > n):
        why = ("mode='r' computes no Q" if mode == "r" else
               f"mode='complete' with more rows ({m}) than columns ({n})")

        def nondiff(g, needs, out):
            raise GraphError(f"{op}: the QR decomposition is not differentiable when {why}; "
                             "use mode='reduced'")

        back_q = back_r = nondiff
    else:
        As = saved(A)

        def factors():
            return _factors(As, (q, r), (dt, dt), lambda X: qr(X, mode))

        def back_q(g, needs, out):
            return (_qr_grad(g, None, *factors()),)

        def back_r(g, needs, out):
            return (_qr_grad(None, g, *factors()),)

    Q = wrap(q, dt) if mode == "r" else record(q, dt, (A,), back_q, op)
    return QR(Q, record(r, dt, (A,), back_r, op))


def _copyltu(m):
    """The symmetric matrix with ``m``'s lower triangle (diagonal included)."""
    return m.tril() + m.tril(-1).mT


def _right_solve_t(b, r):
    """``b @ r^-T`` for square ``r``; NaN where ``r`` is singular (a rank-deficient QR input)."""
    try:
        return solve(r, b.mT).mT
    except InvalidParameterError:
        shape = broadcast_shapes(b.shape[:-2], r.shape[:-2]) + tuple(b.shape[-2:])
        return Tensor.full(shape, float("nan"), dtype=b._dtype, device=b._device)


def _qr_grad(gq, gr, q, r):
    """The gradient of ``a = q @ r`` (``q`` (m, k), ``r`` (k, n), k = min(m, n); reduced, or
    complete with m <= n) for output gradients ``gq``, ``gr`` (None: zero), with ember ops."""
    m, n = q.shape[-2], r.shape[-1]
    gq = q.zeros_like() if gq is None else gq
    gr = r.zeros_like() if gr is None else gr
    if m >= n:
        mm = r @ gr.mT - gq.mT @ q
        return _right_solve_t(gq + q @ _copyltu(mm), r)
    r1, gr1, gr2 = r.narrow(-1, 0, m), gr.narrow(-1, 0, m), gr.narrow(-1, m, n - m)
    y = q @ r.narrow(-1, m, n - m)
    gq1 = gq + y @ gr2.mT
    mm = r1 @ gr1.mT - gq1.mT @ q
    gx = _right_solve_t(gq1 + q @ _copyltu(mm), r1)
    gy = q @ gr2
    return Tensor.cat([gx, gy], dim=-1)


def cholesky(A, *, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix of ``A`` (*, n, n): lower
    triangular L with ``A = L L^T``, or ``upper=True`` for U = L^T with ``A = U^T U``. For a
    complex Hermitian matrix, ``A = L L^H`` and U = L^H.

    A matrix that is not positive-definite raises InvalidParameterError (PyTorch raises its
    LinAlgError), as does one with NaN in the triangle read or an infinity off its diagonal (a
    NaN or -inf pivot). The lower triangle of ``A`` is read (``upper=True``: the upper one, as
    in PyTorch).

    >>> import ember
    >>> ember.linalg.cholesky(ember.tensor([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    op = "cholesky"
    A = matrices(A, op)
    be = A._device.backend
    up = _flag(upper, op, "upper")
    failure = "is not positive-definite; expected a symmetric positive-definite matrix"
    index = _first_without_cholesky(be, A._data, up)
    if index is not None:
        raise _refuse(op, "A", index, failure)
    out = _run(be, be.linalg_cholesky, (A._data, up), op, "A", failure)

    def rule(g, needs, factor):
        # Murray 2016, as PyTorch: L^-T Phi(L^T g) L^-1, Phi: the lower triangle, half diagonal
        low, g = (factor.mT, g.mT) if up else (factor, g)
        phi = (low.mT @ g).tril()
        phi = 0.5 * (phi + phi.tril(-1).mT)
        li = inv(low)
        return (li.mT @ (phi @ li),)

    return record(out, A._dtype, (A,), rule, op, keep_out=True)


def _first_without_cholesky(be, a, upper):
    """The batch index of the first matrix of ``a`` that LAPACK's potrf refuses for a NaN or
    infinite entry, or None: a NaN in the triangle read, or an infinity off its diagonal, makes
    a NaN or -inf pivot. (OpenBLAS's potrf passes a NaN pivot and makes inf / inf 0, so this
    is decided here.) An infinity on the diagonal gives an infinite pivot, and a factor, as in
    LAPACK."""
    finite = be.compare_isfinite(a)
    if be.compare_all(finite):
        return None
    off = be.creation_tri_keep(be.logical_not(finite), 1 if upper else -1, upper)
    bad = be.creation_tri_keep(be.ew_logical_or(be.compare_isnan(a), off), 0, upper)
    return _first(be, be.reduce_any(bad, (-2, -1), False))


def _hermitian(A, UPLO, op):
    """The checked input of eigh and eigvalsh: square matrices, ``UPLO`` "L" or "U"."""
    A = matrices(A, op)
    if UPLO not in ("L", "U"):
        raise InvalidParameterError(f"{op}: UPLO is {UPLO!r}; expected 'L' or 'U'", "UPLO", UPLO)
    return A


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix of ``A``
    (*, n, n), read from its lower (``UPLO="L"``) or upper (``"U"``) triangle. Returns the named
    tuple ``Eigh(eigenvalues, eigenvectors)``. A complex Hermitian matrix has real eigenvalues
    (float32 for complex64, float64 for complex128).

    Eigenvectors are determined up to sign; as in PyTorch the gradient assumes distinct
    eigenvalues and is meaningful for sign-invariant functions of them.

    >>> import ember
    >>> L, Q = ember.linalg.eigh(ember.tensor([[2.0, 1.0], [1.0, 2.0]]))
    >>> [round(v, 4) for v in L.tolist()]
    [1.0, 3.0]
    """
    op = "eigh"
    A = _hermitian(A, UPLO, op)
    be = A._device.backend
    a, bad = _screened(be, A._data, op, UPLO, _nan_eigh(UPLO, f"UPLO={UPLO!r}"))
    lam, v = _run(be, be.linalg_eigh, (a, UPLO), op, "A",
                  "has eigenvalues that did not converge")
    dt = A._dtype
    rdt = _dt.real_of(dt)  # the eigenvalues of a Hermitian matrix are real
    if bad is not None:
        lam, v = _fill(be, bad, _NAN, lam, 1), _fill(be, bad, _nan_of(dt), v, 2)

    As = saved(A)

    def factors():
        return _factors(As, (lam, v), (rdt, dt), lambda X: eigh(X, UPLO))

    def back_l(g, needs, out):
        return (_eigh_grad(g, None, *factors()),)

    def back_v(g, needs, out):
        return (_eigh_grad(None, g, *factors()),)

    return Eigh(record(lam, rdt, (A,), back_l, op), record(v, dt, (A,), back_v, op))


def _eigh_grad(gl, gv, lam, v):
    """The gradient of ``eigh`` for the output gradients ``gl``, ``gv`` (None: zero); PyTorch's
    ``linalg_eig_backward`` for Hermitian input, with ember ops."""
    if gv is None:
        return (v * gl.unsqueeze(-2)) @ v.mT
    vhgv = v.mT @ gv
    vhgv = 0.5 * (vhgv - vhgv.mT)
    k = lam.shape[-1]
    eye = Tensor.eye(k, dtype=lam._dtype, device=lam._device)
    # the differences of the eigenvalues, 1 on the diagonal (where they are 0)
    e = lam.unsqueeze(-2) - lam.unsqueeze(-1) + eye
    ga = vhgv / e  # vhgv is antisymmetric: 0 on the diagonal
    if gl is not None:
        ga = ga + _diag(gl)
    return v @ (ga @ v.mT)


def eigvalsh(A, UPLO="L"):
    """The eigenvalues (ascending) of each symmetric (complex: Hermitian) matrix of ``A``
    (*, n, n), real, as ``torch.linalg.eigvalsh``: ``eigh(A).eigenvalues``, with its gradient.

    >>> import ember
    >>> w = ember.linalg.eigvalsh(ember.tensor([[2.0, 1.0], [1.0, 2.0]]))
    >>> [round(v, 4) for v in w.tolist()]
    [1.0, 3.0]
    """
    op = "eigvalsh"
    A = _hermitian(A, UPLO, op)
    be = A._device.backend
    failure = "has eigenvalues that did not converge"
    rdt = _dt.real_of(A._dtype)
    a, bad = _screened(be, A._data, op, UPLO, _nan_eigh(UPLO, f"UPLO={UPLO!r}"))
    if not _tracked(A):
        lam = _run(be, be.linalg_eigvalsh, (a, UPLO), op, "A", failure)
        return wrap(lam if bad is None else _fill(be, bad, _NAN, lam, 1), rdt)
    lam, v = _run(be, be.linalg_eigh, (a, UPLO), op, "A", failure)
    if bad is not None:
        lam, v = _fill(be, bad, _NAN, lam, 1), _fill(be, bad, _nan_of(A._dtype), v, 2)
    As = saved(A)

    def rule(g, needs, out):
        _, V = _factors(As, (lam, v), (rdt, A._dtype), lambda X: eigh(X, UPLO))
        return ((V * g.unsqueeze(-2)) @ V.mT,)

    return record(lam, rdt, (A,), rule, op)


def slogdet(A):
    """The sign and the log of the absolute value of the determinant of each square matrix of
    ``A`` (*, n, n), as ``torch.linalg.slogdet``: the named tuple ``SlogDet(sign, logabsdet)``
    with ``det = sign * exp(logabsdet)``, both of shape (*). A singular matrix has sign 0 and
    logabsdet -inf. A complex matrix has a complex sign of modulus 1 and a real logabsdet.

    ``logabsdet`` of a real matrix has the gradient ``g * A^-T``; ``sign`` is piecewise constant
    and carries none.

    >>> import ember
    >>> sign, logabsdet = ember.linalg.slogdet(ember.tensor([[-2.0, 0.0], [0.0, 1.0]]))
    >>> sign.item(), round(logabsdet.item(), 4)
    (-1.0, 0.6931)
    """
    op = "slogdet"
    A = matrices(A, op)
    be = A._device.backend
    a, bad = _screened(be, A._data, op)
    sign, logabs = be.linalg_slogdet(a)
    if bad is not None:  # PyTorch's sign of a NaN determinant: 0 (complex: NaN)
        sign = _fill(be, bad, _nan_of(A._dtype) if A._dtype.kind == "complex" else 0, sign)
        logabs = _fill(be, bad, _NAN, logabs)
    As = saved(A)

    def rule(g, needs, out):  # g A^-T (NaN for a singular matrix)
        return (_mat(g) * _inv_t(As),)

    return SlogDet(wrap(sign, A._dtype), record(logabs, _dt.real_of(A._dtype), (A,), rule, op))


def _tolerance(value, A, op, param):
    """An ``atol``/``rtol`` argument: None, a real number, or a real Tensor on ``A``'s device that
    broadcasts against ``A``'s batch dims (its backend array in the dtype of ``A``'s parts)."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        if value._dtype.kind not in ("float", "int"):
            raise KindError(f"{op}: {param} has dtype {value._dtype.name}; expected a real "
                            "(float or int) tensor or number")
        be = backend_of(A, value, op)
        broadcast_shapes(A.shape[:-2], value.shape, op=f"{op}: {param} and the batch dims of A")
        return be.cast(value._data, _dt.real_of(A._dtype))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameterError(f"{op}: {param} is {value!r}; expected None, a real number or "
                                    "a real tensor", param, value)
    return float(value)


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudoinverse of each matrix of ``A`` (*, m, n): shape (*, n, m), as
    ``torch.linalg.pinv``. Singular values (absolute eigenvalues when ``hermitian``) at or below
    ``max(atol, rtol * largest)`` count as zero; ``rtol`` None is ``eps * max(m, n)`` when
    ``atol`` is None or zero, else 0. ``atol``/``rtol`` are numbers or real tensors over the batch
    dims. ``hermitian=True`` takes ``A`` symmetric (complex: Hermitian) and reads its lower
    triangle. The gradient (real ``A``) is PyTorch's, valid where the rank does not change.

    >>> import ember
    >>> ember.linalg.pinv(ember.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    op = "pinv"
    herm = _flag(hermitian, op, "hermitian")
    A = matrices(A, op, square=herm)
    at = _tolerance(atol, A, op, "atol")
    rt = _tolerance(rtol, A, op, "rtol")
    be = A._device.backend
    a, bad = _screened(be, A._data, op, "L" if herm else None,
                       _nan_eigh("L", "hermitian=True") if herm else _NAN_SVD)
    out = _run(be, be.linalg_pinv, (a, at, rt, herm), op, "A",
               "has singular values that did not converge")
    if bad is not None:
        out = _fill(be, bad, _nan_of(A._dtype), out, 2)
    As = saved(A)

    def rule(g, needs, p):
        return (sum_to(_pinv_grad(g, p, As), tuple(As.shape)),)

    return record(out, A._dtype, (A,), rule, op, keep_out=True)


def _pinv_grad(g, p, a):
    """The gradient of ``p = pinv(a)`` (real ``a``), PyTorch's ``pinv_backward``, with ember
    ops."""
    m, n = a.shape[-2], a.shape[-1]
    ph, gh = p.mT, g.mT
    if m <= n:
        k = gh @ p
        kph = k @ ph
        return -(p @ k).mT + kph - (a @ p) @ kph + (ph @ p) @ (gh - k @ a)
    k = p @ gh
    phk = ph @ k
    return -(k @ p).mT + phk - phk @ (p @ a) + (gh - a @ k) @ (p @ ph)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The rank of each matrix of ``A`` (*, m, n), int64 of shape (*), as
    ``torch.linalg.matrix_rank``: the number of singular values (absolute eigenvalues when
    ``hermitian``) above ``max(atol, rtol * largest)``, with ``pinv``'s defaults.

    >>> import ember
    >>> ember.linalg.matrix_rank(ember.tensor([[1.0, 2.0], [2.0, 4.0]])).item()
    1
    """
    op = "matrix_rank"
    herm = _flag(hermitian, op, "hermitian")
    A = matrices(A, op, square=herm)
    at = _tolerance(atol, A, op, "atol")
    rt = _tolerance(rtol, A, op, "rtol")
    be = A._device.backend
    a, bad = _screened(be, A._data, op, "L" if herm else None,
                       _nan_eigh("L", "hermitian=True") if herm else _NAN_SVD)
    out = _run(be, be.linalg_matrix_rank, (a, at, rt, herm), op, "A",
               "has singular values that did not converge")
    if bad is not None:  # its singular values are NaN: none is above the tolerance
        out = _fill(be, bad, 0, out)
    return wrap(out, _dt.int64)


def matrix_power(A, n):
    """``A`` to the integer power ``n`` for each square matrix of ``A`` (*, m, m), as
    ``torch.linalg.matrix_power``: ``n == 0`` gives identities, a negative ``n`` the power of the
    inverse (float and complex tensors only). Float, complex and int tensors; computed by
    repeated squaring with ``matmul`` (and ``inv``), whose gradients it has.

    >>> import ember
    >>> ember.linalg.matrix_power(ember.tensor([[1, 1], [0, 1]]), 3).tolist()
    [[1, 3], [0, 1]]
    """
    op = "matrix_power"
    check_tensor(A, op, "A")
    kind = A._dtype.kind
    if kind == "bool":
        raise KindError(f"{op}: A has dtype bool; expected a float, complex or int tensor")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ShapeMismatchError(
            f"{op}: A has shape {_shape_str(A.shape)}; expected batches of square matrices "
            "(*, m, m)", expected="(*, m, m)", actual=tuple(A.shape))
    if isinstance(n, bool):
        raise InvalidParameterError(f"{op}: n must be an int, got bool {n!r}", "n", n)
    n = as_int(n, op, "n")
    base = A
    if n < 0 and kind == "int":
        raise KindError(f"{op}: n is {n} and A has dtype {A._dtype.name}; a negative power needs "
                        "the inverse: expected a float or complex tensor")
    if n < 0:
        base = inv(A)  # its checks: float or complex matrices only
        n = -n
    if n == 0:
        from .creation import eye
        m = A.shape[-1]
        return eye(m, dtype=A._dtype, device=A.device).expand(tuple(A.shape))
    out = None
    while n:
        if n & 1:
            out = base if out is None else out @ base
        n >>= 1
        if n:
            base = base @ base
    return out
