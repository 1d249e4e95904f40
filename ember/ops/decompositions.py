"""Matrix decompositions and solvers of ``ember.linalg``: inv, det, solve, svd, svdvals, qr,
cholesky and eigh, with PyTorch's semantics and gradient rules.

Every function works on batches: the last two dims are the matrix, the leading dims batch dims.
Inputs must be float32 or float64 (KindError otherwise, as PyTorch raises for ints and for the
half floats). A singular matrix (``inv``, ``solve``) or one that is not positive-definite
(``cholesky``) raises InvalidParameterError naming the batch element, where PyTorch raises its
``LinAlgError``. These names live in ``ember.linalg`` only: ``torch.svd`` and ``torch.qr`` have
older signatures, so ember keeps no top-level spellings that could mean either.

>>> import ember
>>> ember.linalg.inv(ember.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
[[0.5, 0.0], [0.0, 0.25]]
"""

from collections import namedtuple

from ..errors import GraphError, InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import broadcast_shapes
from ..tensor import backend_of, check_tensor, record, wrap

__all__ = []

SVD = namedtuple("SVD", ["U", "S", "Vh"])
SVD.__doc__ = "The result of ``ember.linalg.svd``: ``U``, ``S``, ``Vh`` (``A = U diag(S) Vh``)."
QR = namedtuple("QR", ["Q", "R"])
QR.__doc__ = "The result of ``ember.linalg.qr``: ``Q``, ``R`` (``A = Q R``)."
Eigh = namedtuple("Eigh", ["eigenvalues", "eigenvectors"])
Eigh.__doc__ = "The result of ``ember.linalg.eigh``: ascending ``eigenvalues``, ``eigenvectors``."


def _shape_str(shape):
    return str(tuple(shape))


def matrices(A, op, param="A", square=True):
    """``A`` checked to be a float32/float64 Tensor of at least 2 dims (square when asked)."""
    check_tensor(A, op, param)
    dt = A._dtype
    if dt.kind != "float":
        raise KindError(f"{op}: {param} has dtype {dt.name}; expected a float32 or float64 tensor "
                        "(cast it with .float())")
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


def _run(be, kernel, args, op, param, failure):
    """``kernel(*args)``, a factorization failure (the backend ``be``'s) raised as
    InvalidParameterError."""
    try:
        return kernel(*args)
    except be.LinAlgFailure as exc:
        where = f" (batch element {exc.index})" if exc.index else ""
        raise InvalidParameterError(f"{op}: {param}{where} {failure}", param,
                                    exc.index) from None


def _tracked(A):
    return A._node is not None


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

    def backward(g, needs):
        return (be.linalg_inv_grad(g, out),)

    return record(out, A._dtype, (A,), backward, "inv")


def det(A):
    """The determinant of each square matrix of ``A`` (*, n, n): a tensor of shape (*).

    The gradient is ``g * adj(A)^T``, also for singular matrices.

    >>> import ember
    >>> ember.linalg.det(ember.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    -2.0
    """
    A = matrices(A, "det")
    be = A._device.backend
    a = A._data
    out = be.cast(be.linalg_det(a), A._dtype)

    def backward(g, needs):
        return (be.cast(be.linalg_det_grad(g, a), A._dtype),)

    return record(out, A._dtype, (A,), backward, "det")


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
    out = be.linalg_reshape(x, x.shape[:-1]) if vector else x

    def backward(g, needs):
        gx = be.linalg_reshape(g, x.shape)
        ga, gb = be.linalg_solve_grads(gx, a, x, left, needs[0], needs[1])
        if ga is not None:
            ga = be.sum_to_shape(ga, a.shape)
        gb = be.linalg_reshape(be.sum_to_shape(gb, bshape), B.shape) if needs[1] else None
        return ga, gb

    return record(out, A._dtype, (A, B), backward, op)


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
    u, s, vh = _run(be, be.linalg_svd, (A._data, full), op, "A",
                    "has singular values that did not converge")
    dt = A._dtype

    def back_u(g, needs):
        return (be.linalg_svd_grad(g, None, None, u, s, vh),)

    def back_s(g, needs):
        return (be.linalg_svd_grad(None, g, None, u, s, vh),)

    def back_vh(g, needs):
        return (be.linalg_svd_grad(None, None, g, u, s, vh),)

    return SVD(record(u, dt, (A,), back_u, op), record(s, dt, (A,), back_s, op),
               record(vh, dt, (A,), back_vh, op))


def svdvals(A):
    """The singular values of each matrix of ``A`` (*, m, n), descending: shape (*, min(m, n)).

    The gradient is ``U diag(g) Vh`` (the singular vectors are computed only when ``A`` is
    tracked).

    >>> import ember
    >>> ember.linalg.svdvals(ember.tensor([[3.0, 0.0], [0.0, -4.0]])).tolist()
    [4.0, 3.0]
    """
    op = "svdvals"
    A = matrices(A, op, square=False)
    be = A._device.backend
    failure = "has singular values that did not converge"
    if not _tracked(A):
        return wrap(_run(be, be.linalg_svdvals, (A._data,), op, "A", failure), A._dtype)
    u, s, vh = _run(be, be.linalg_svd, (A._data, False), op, "A", failure)

    def backward(g, needs):
        return (be.linalg_svd_grad(None, g, None, u, s, vh),)

    return record(s, A._dtype, (A,), backward, op)


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
    q, r = be.linalg_qr(A._data, mode)
    dt = A._dtype
    m, n = A.shape[-2], A.shape[-1]
    if mode == "r" or (mode == "complete" and m > n):
        why = ("mode='r' computes no Q" if mode == "r" else
               f"mode='complete' with more rows ({m}) than columns ({n})")

        def nondiff(g, needs):
            raise GraphError(f"{op}: the QR decomposition is not differentiable when {why}; "
                             "use mode='reduced'")

        back_q = back_r = nondiff
    else:
        def back_q(g, needs):
            return (be.linalg_qr_grad(g, None, q, r),)

        def back_r(g, needs):
            return (be.linalg_qr_grad(None, g, q, r),)

    Q = wrap(q, dt) if mode == "r" else record(q, dt, (A,), back_q, op)
    return QR(Q, record(r, dt, (A,), back_r, op))


def cholesky(A, *, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix of ``A`` (*, n, n): lower
    triangular L with ``A = L L^T``, or ``upper=True`` for U = L^T with ``A = U^T U``.

    A matrix that is not positive-definite raises InvalidParameterError (PyTorch raises its
    LinAlgError). The lower triangle of ``A`` is read.

    >>> import ember
    >>> ember.linalg.cholesky(ember.tensor([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    op = "cholesky"
    A = matrices(A, op)
    be = A._device.backend
    up = _flag(upper, op, "upper")
    out = _run(be, be.linalg_cholesky, (A._data, up), op, "A",
               "is not positive-definite; expected a symmetric positive-definite matrix")

    def backward(g, needs):
        return (be.linalg_cholesky_grad(g, out, up),)

    return record(out, A._dtype, (A,), backward, op)


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix of ``A``
    (*, n, n), read from its lower (``UPLO="L"``) or upper (``"U"``) triangle. Returns the named
    tuple ``Eigh(eigenvalues, eigenvectors)``.

    Eigenvectors are determined up to sign; as in PyTorch the gradient assumes distinct
    eigenvalues and is meaningful for sign-invariant functions of them.

    >>> import ember
    >>> L, Q = ember.linalg.eigh(ember.tensor([[2.0, 1.0], [1.0, 2.0]]))
    >>> [round(v, 4) for v in L.tolist()]
    [1.0, 3.0]
    """
    op = "eigh"
    A = matrices(A, op)
    be = A._device.backend
    if UPLO not in ("L", "U"):
        raise InvalidParameterError(f"{op}: UPLO is {UPLO!r}; expected 'L' or 'U'", "UPLO", UPLO)
    lam, v = _run(be, be.linalg_eigh, (A._data, UPLO), op, "A",
                  "has eigenvalues that did not converge")
    dt = A._dtype

    def back_l(g, needs):
        return (be.linalg_eigh_grad(g, None, lam, v),)

    def back_v(g, needs):
        return (be.linalg_eigh_grad(None, g, lam, v),)

    return Eigh(record(lam, dt, (A,), back_l, op), record(v, dt, (A,), back_v, op))
