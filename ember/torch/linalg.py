"""``ember.torch.linalg``: PyTorch's ``torch.linalg`` namespace on ember's linear algebra.

The names ``ember.linalg`` has (norms, ``inv``, ``det``, ``solve``, ``svd``, ``qr``,
``cholesky``, ``eigh`` ...; docs/linalg.md) keep their implementation; the others are composed
of ember ops here, so they are differentiable wherever their parts are: the LU family
(``lu``, ``lu_factor``, ``lu_factor_ex``, ``lu_solve``: Doolittle's elimination with partial
pivoting, LAPACK's pivots), ``solve_triangular``, the ``*_ex`` variants with their ``info``,
``lstsq``, ``cond``, ``matrix_exp`` (scaling and squaring with the degree-13 Pade approximant),
``householder_product``, ``multi_dot``, ``tensorinv``, ``tensorsolve``, ``vander``,
``diagonal`` and the general eigensolvers ``eig``/``eigvals`` (complex results, no gradient).
A matrix that cannot be factorized raises ``LinAlgError`` (an ``InvalidParameterError`` and a
``RuntimeError``, as PyTorch's is); results are ember.torch tensors.

>>> import ember.torch as torch
>>> A = torch.tensor([[4.0, 3.0], [6.0, 3.0]], dtype=torch.float64)
>>> LU, pivots = torch.linalg.lu_factor(A)
>>> pivots.tolist(), torch.linalg.lu_solve(LU, pivots, torch.eye(2, dtype=A.dtype)).tolist()
([2, 2], [[-0.5, 0.5], [1.0, -0.6666666666666666]])
"""

import math
from collections import namedtuple as _namedtuple

import ember as _e

from .. import linalg as _la
from ..autodiff.graph import no_grad as _no_grad
from ..errors import (InvalidParameterError as _InvalidParameterError,
                      ShapeMismatchError as _ShapeMismatchError)
from ..ops.decompositions import matrices as _matrices
from ..ops.masking import where as _where
from ._tensor import Tensor, to_torch as _to_torch  # noqa: F401

__all__ = [
    "LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig",
    "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "lstsq", "lu",
    "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "matrix_norm",
    "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve",
    "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander",
    "vecdot", "vector_norm",
]


class LinAlgError(_InvalidParameterError, RuntimeError):
    """A matrix that cannot be factorized or inverted (PyTorch's ``torch.linalg.LinAlgError``,
    a ``RuntimeError``; here also ember's ``InvalidParameterError``)."""


def _torch(fn):
    """``fn`` returning ember.torch tensors, under its own name in this module, with ember's
    factorization failures raised as ``LinAlgError``."""
    def wrapped(*args, **kwargs):
        try:
            return _to_torch(fn(*args, **kwargs))
        except _InvalidParameterError as exc:
            if isinstance(exc, LinAlgError) or not any(
                    s in str(exc) for s in ("singular", "positive-definite", "converge")):
                raise
            raise LinAlgError(str(exc), exc.param, exc.value) from None
    wrapped.__name__ = wrapped.__qualname__ = fn.__name__.lstrip("_")
    wrapped.__doc__ = fn.__doc__
    wrapped.__module__ = __name__
    if fn.__module__ == __name__:
        fn.__doc__ = None  # its examples run once, as the public name's
    return wrapped


for _name in ("cholesky", "cross", "det", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
              "matrix_power", "matrix_rank", "norm", "pinv", "qr", "slogdet", "solve", "svd",
              "svdvals", "vecdot", "vector_norm"):
    _fn = getattr(_la, _name)
    globals()[_name] = _torch(_fn)
    globals()[_name].__name__ = globals()[_name].__qualname__ = _name
del _name, _fn


# PyTorch's result types (``torch.return_types.linalg_*``)
_linalg_lu_factor_ex = _namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_linalg_lu_factor = _namedtuple("linalg_lu_factor", ["LU", "pivots"])
_linalg_lu = _namedtuple("linalg_lu", ["P", "L", "U"])
_linalg_inv_ex = _namedtuple("linalg_inv_ex", ["inverse", "info"])
_linalg_solve_ex = _namedtuple("linalg_solve_ex", ["result", "info"])
_linalg_cholesky_ex = _namedtuple("linalg_cholesky_ex", ["L", "info"])
_linalg_lstsq = _namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
_linalg_eig = _namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])


# -- helpers ------------------------------------------------------------------------------------

def _arange(n, like):
    return _e.arange(n, device=like.device)


def _eye(m, n, like):
    """The (m, n) identity in ``like``'s dtype and device."""
    r = _arange(m, like).reshape(m, 1)
    c = _arange(n, like).reshape(1, n)
    return _where(r == c, 1.0, 0.0).cast(like.dtype)


def _int32(t):
    return t.cast(_e.int32)


def _bool_flag(value, op, param):
    if value is True or value is False:
        return value
    raise _InvalidParameterError(f"{op}: {param} must be a bool, got {value!r}", param, value)


# -- LU -----------------------------------------------------------------------------------------

def _lu(A, pivot, op):
    """``(LU, pivots, info)`` of each matrix of ``A`` (*, m, n): Doolittle's elimination with
    partial pivoting (the first largest ``|entry|`` of the column, as LAPACK's getrf), ember
    ops throughout. ``pivots`` are 1-based int32 row indices; ``info`` is the 1-based index of
    the first zero pivot, 0 if none."""
    A = _matrices(A, op, square=False)
    pivot = _bool_flag(pivot, op, "pivot")
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    batch = tuple(A.shape[:-2])
    rows = _arange(m, A).reshape(m, 1)
    cols = _arange(n, A).reshape(1, n)
    U = A
    pivots, info = [], _e.zeros(*batch, dtype=_e.int64, device=A.device)
    for j in range(k):
        if pivot:
            with _no_grad():
                col = _where(rows >= j, U.detach()[..., :, j:j + 1].abs(), -1.0)
                p = _e.argmax(col, -2, keepdim=True)  # (*, 1, 1)
            swap = _where(rows == j, p, _where(rows == p, j, rows))  # (*, m, 1)
            U = _e.gather(U, -2, swap.expand(*batch, m, n) if batch else swap.expand(m, n))
            pivots.append(p.reshape(batch) + 1)
        else:
            pivots.append(_e.full(batch, j + 1, dtype=_e.int64, device=A.device))
        piv = U[..., j:j + 1, j:j + 1]
        zero = piv == 0
        with _no_grad():
            info = _where((info == 0) & zero.reshape(batch), j + 1, info)
        below = rows > j
        lcol = _where(below, U[..., :, j:j + 1] / _where(zero, 1.0, piv), 0.0)
        lcol = _where(zero, 0.0, lcol)
        update = lcol * U[..., j:j + 1, :]
        U = U - _where(below & (cols > j), update, 0.0)
        U = _where(below & (cols == j), _where(zero, U, lcol), U)
    if pivots:
        piv = _e.stack(pivots, -1)
    else:
        piv = _e.zeros(*batch, 0, dtype=_e.int64, device=A.device)
    return U, _int32(piv), _int32(info)


def _lu_factor_ex(A, *, pivot=True, check_errors=False):
    """The LU factorization with partial pivoting, compact, and ``info`` (the 1-based index of
    the first zero pivot, 0 if none), as ``torch.linalg.lu_factor_ex``.

    >>> import ember.torch as torch
    >>> torch.linalg.lu_factor_ex(torch.tensor([[1.0, 2.0], [2.0, 4.0]])).info.item()
    2
    """
    LU, piv, info = _lu(A, pivot, "lu_factor_ex")
    check_errors = _bool_flag(check_errors, "lu_factor_ex", "check_errors")
    if check_errors and bool((info > 0).any().item()):
        raise LinAlgError("lu_factor_ex: A is singular (a zero pivot); expected an invertible "
                          "matrix", "A", A)
    return _linalg_lu_factor_ex(
        LU, piv, info)


def _lu_factor(A, *, pivot=True):
    """The compact LU factorization ``(LU, pivots)`` of ``A`` (*, m, n), as
    ``torch.linalg.lu_factor``; a zero pivot raises ``LinAlgError``.

    >>> import ember.torch as torch
    >>> torch.linalg.lu_factor(torch.tensor([[1.0, 2.0], [3.0, 4.0]])).pivots.tolist()
    [2, 2]
    """
    LU, piv, info = _lu(A, pivot, "lu_factor")
    if bool((info > 0).any().item()):
        raise LinAlgError("lu_factor: A has a zero pivot (it is singular); use lu or "
                          "lu_factor_ex to factorize it anyway", "A", A)
    return _linalg_lu_factor(LU, piv)


def _perm(pivots, m, like):
    """The row permutation (*, m) int64 that LAPACK's sequential row swaps ``pivots`` make."""
    batch = tuple(pivots.shape[:-1])
    rows = _arange(m, like)
    perm = rows.expand(*batch, m) if batch else rows
    piv = pivots.cast(_e.int64) - 1
    for j in range(pivots.shape[-1]):
        p = piv[..., j:j + 1]
        pj = perm[..., j:j + 1]
        pp = _e.gather(perm, -1, p)
        perm = _where(rows == j, pp, _where(rows == p, pj, perm))
    return perm


def _lu_unpack(LU, pivots):
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L = _e.tril(LU[..., :, :k], -1) + _eye(m, k, LU)
    U = _e.triu(LU[..., :k, :])
    perm = _perm(pivots, m, LU)
    rows = _arange(m, LU).reshape(m, 1)
    P = _where(rows == perm.unsqueeze(-2), 1.0, 0.0).cast(LU.dtype)
    return P, L, U


def _lu_full(A, *, pivot=True):
    """The LU factorization ``A = P L U`` with partial pivoting, as ``torch.linalg.lu``.

    >>> import ember.torch as torch
    >>> P, L, U = torch.linalg.lu(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> (P @ L @ U).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    LU, piv, _ = _lu(A, pivot, "lu")
    P, L, U = _lu_unpack(LU, piv)
    return _linalg_lu(P, L, U)


def _solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """The solution X of ``A X = B`` (``left=False``: ``X A = B``) for triangular ``A``
    (*, n, n): only the triangle ``upper`` names is read (its diagonal taken as ones when
    ``unitriangular``). A zero on the diagonal raises ``LinAlgError``.

    >>> import ember.torch as torch
    >>> A = torch.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> torch.linalg.solve_triangular(A, torch.tensor([[3.0], [4.0]]), upper=True).tolist()
    [[1.0], [1.0]]
    """
    op = "solve_triangular"
    A = _matrices(A, op)
    upper = _bool_flag(upper, op, "upper")
    left = _bool_flag(left, op, "left")
    unitriangular = _bool_flag(unitriangular, op, "unitriangular")
    if not isinstance(B, _e.Tensor) or B.ndim < 2:
        raise _ShapeMismatchError(f"{op}: B must be a tensor of at least 2 dims (*, n, k), got "
                                  f"{getattr(B, 'shape', B)!r}", expected=2,
                                  actual=getattr(B, "ndim", None))
    T = _e.triu(A) if upper else _e.tril(A)
    if unitriangular:
        n = A.shape[-1]
        eye = _eye(n, n, A)
        T = _where(eye == 1, eye, T)
    return _la.solve(T, B, left=left)


def _lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """The solution of ``A X = B`` from ``A``'s LU factorization (``left=False``: ``X A = B``;
    ``adjoint``: with ``A``'s conjugate transpose), as ``torch.linalg.lu_solve``.

    >>> import ember.torch as torch
    >>> LU, piv = torch.linalg.lu_factor(torch.tensor([[0.0, 2.0], [1.0, 0.0]]))
    >>> torch.linalg.lu_solve(LU, piv, torch.tensor([[2.0], [3.0]])).tolist()
    [[3.0], [1.0]]
    """
    op = "lu_solve"
    LU = _matrices(LU, op, "LU")
    left = _bool_flag(left, op, "left")
    adjoint = _bool_flag(adjoint, op, "adjoint")
    n = LU.shape[-1]
    perm = _perm(pivots, n, LU)
    rows = _arange(n, LU).reshape(n, 1)
    P = _where(rows == perm.unsqueeze(-2), 1.0, 0.0).cast(LU.dtype)  # A = P L U

    def tri(M, Y, upper, unit, lft):
        return _solve_triangular(M, Y, upper=upper, left=lft, unitriangular=unit)
    L = LU
    if left and not adjoint:    # X = U^-1 L^-1 P^T B
        return tri(L, tri(L, P.mT @ B, False, True, True), True, False, True)
    if left:                    # A^H X = B: X = P L^-H U^-H B
        LH = LU.mT.conj() if LU.dtype.kind == "complex" else LU.mT
        return P @ tri(LH, tri(LH, B, False, False, True), True, True, True)
    if not adjoint:             # X A = B: X = B U^-1 L^-1 P^T
        return tri(L, tri(L, B, True, False, False), False, True, False) @ P.mT
    LH = LU.mT.conj() if LU.dtype.kind == "complex" else LU.mT
    return tri(LH, tri(LH, B @ P, True, True, False), False, False, False)  # X A^H = B


# -- the *_ex variants ------------------------------------------------------------------------

def _safe(A, bad):
    """``A`` with each matrix flagged ``bad`` (*) replaced by the identity."""
    n = A.shape[-1]
    return _where(bad.reshape(*bad.shape, 1, 1), _eye(n, n, A), A)


def _nan_where(X, bad, tail=2):
    """``X`` (*, ...) NaN in each matrix (``tail`` trailing dims) whose flag in ``bad`` is set;
    the flags broadcast against ``X``'s batch dims from the right."""
    return _where(bad.reshape(*bad.shape, *([1] * tail)), math.nan, X)


def _inv_ex(A, *, check_errors=False):
    """The inverse and ``info`` (the 1-based index of LU's first zero pivot, 0 if invertible),
    as ``torch.linalg.inv_ex``; a singular matrix's inverse is NaN.

    >>> import ember.torch as torch
    >>> torch.linalg.inv_ex(torch.tensor([[2.0, 0.0], [0.0, 4.0]])).inverse.tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    op = "inv_ex"
    A = _matrices(A, op)
    _, _, info = _lu(A.detach(), True, op)
    bad = info > 0
    if _bool_flag(check_errors, op, "check_errors") and bool(bad.any().item()):
        raise LinAlgError(f"{op}: A is singular; expected an invertible matrix", "A", A)
    X = _nan_where(_la.inv(_safe(A, bad)), bad)
    return _linalg_inv_ex(X, info)


def _solve_ex(A, B, *, left=True, check_errors=False):
    """``solve`` with ``info`` (the 1-based index of LU's first zero pivot, 0 if invertible),
    as ``torch.linalg.solve_ex``; a singular matrix's solution is NaN.

    >>> import ember.torch as torch
    >>> r = torch.linalg.solve_ex(torch.tensor([[2.0, 0.0], [0.0, 4.0]]), torch.ones(2))
    >>> r.result.tolist(), r.info.item()
    ([0.5, 0.25], 0)
    """
    op = "solve_ex"
    A = _matrices(A, op)
    _, _, info = _lu(A.detach(), True, op)
    bad = info > 0
    if _bool_flag(check_errors, op, "check_errors") and bool(bad.any().item()):
        raise LinAlgError(f"{op}: A is singular; expected an invertible matrix", "A", A)
    X = _la.solve(_safe(A, bad), B, left=left)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    X = _nan_where(X, bad, 1 if vector else 2)
    return _linalg_solve_ex(X, info)


def _cholesky_ex(A, *, upper=False, check_errors=False):
    """The Cholesky factor and ``info`` (the order of the first leading minor that is not
    positive-definite, 0 if none), as ``torch.linalg.cholesky_ex``; the factor of a matrix
    that is not positive-definite is NaN.

    >>> import ember.torch as torch
    >>> torch.linalg.cholesky_ex(torch.tensor([[4.0, 2.0], [2.0, -3.0]])).info.item()
    2
    """
    op = "cholesky_ex"
    A = _matrices(A, op)
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    info = _e.zeros(*batch, dtype=_e.int32, device=A.device)
    with _no_grad():
        a = A.detach()
        a = (a + (a.mT.conj() if a.dtype.kind == "complex" else a.mT)) / 2
        for k in range(1, n + 1):
            minor = a[..., :k, :k]
            lower = (minor if not upper else minor.mT)
            d = _la.slogdet(lower)
            failed = (d.sign.real if d.sign.dtype.kind == "complex" else d.sign) <= 0
            failed = failed | (d.logabsdet != d.logabsdet)
            info = _where((info == 0) & failed, k, info).cast(_e.int32)
    bad = info > 0
    if _bool_flag(check_errors, op, "check_errors") and bool(bad.any().item()):
        raise LinAlgError(f"{op}: A is not positive-definite; expected a symmetric "
                          "positive-definite matrix", "A", A)
    L = _nan_where(_la.cholesky(_safe(A, bad), upper=upper), bad)
    return _linalg_cholesky_ex(L, info)


# -- least squares, condition number, products ----------------------------------------------

_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B`` (``A`` (*, m, n), ``B`` (*, m, k)) as
    ``torch.linalg.lstsq``: ``(solution, residuals, rank, singular_values)``; ``rank`` is
    computed for the drivers ``gelsy`` (the default), ``gelsd`` and ``gelss``,
    ``singular_values`` for ``gelsd`` and ``gelss``, and ``residuals`` (the squared residual
    norms) when ``m > n``, every matrix has full rank and the driver is not ``gelsy``.

    >>> import ember.torch as torch
    >>> A = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> torch.linalg.lstsq(A, torch.tensor([[1.0], [2.0], [3.0]])).solution.tolist()
    [[1.0], [2.0]]
    """
    op = "lstsq"
    A = _matrices(A, op, square=False)
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise _InvalidParameterError(f"{op}: driver must be one of {_DRIVERS}, got {driver!r}",
                                     "driver", driver)
    if not isinstance(B, _e.Tensor):
        raise _InvalidParameterError(f"{op}: B must be a Tensor, got {type(B).__name__}",
                                     "B", B)
    vector = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    m, n = A.shape[-2], A.shape[-1]
    if Bm.shape[-2] != m:
        raise _ShapeMismatchError(f"{op}: A has {m} rows but B has {Bm.shape[-2]}; expected "
                                  "the same number", expected=m, actual=Bm.shape[-2])
    eps = 2.220446049250313e-16 if A.dtype in (_e.float64, _e.complex128) else \
        1.1920928955078125e-07  # the machine epsilon of A's precision
    rtol = eps * max(m, n) if rcond is None else rcond
    X = _la.pinv(A, rtol=rtol) @ Bm
    empty = _e.zeros(0, dtype=A.dtype if A.dtype.kind == "float" else _e.float64,
                     device=A.device)
    rank = (_la.matrix_rank(A.detach(), rtol=rtol) if driver != "gels"
            else _e.zeros(0, dtype=_e.int64, device=A.device))
    sv = _la.svdvals(A) if driver in ("gelsd", "gelss") else empty
    residuals = empty
    if driver != "gelsy" and m > n:
        full = _la.matrix_rank(A.detach(), rtol=rtol) == n
        if bool(full.all().item()):
            residuals = ((A @ X - Bm).abs() ** 2).sum(-2)
            if vector:
                residuals = residuals.squeeze(-1)
    if vector:
        X = X.squeeze(-1)
    return _linalg_lstsq(X, residuals, rank, sv)


def _cond(A, p=None):
    """The condition number of each matrix of ``A`` in the norm ``p`` (None or 2: the ratio of
    the extreme singular values; -2 its inverse; ``'fro'``, ``'nuc'``, ``inf``, ``-inf``, 1,
    -1: ``norm(A, p) * norm(inv(A), p)``), as ``torch.linalg.cond``.

    >>> import ember.torch as torch
    >>> torch.linalg.cond(torch.tensor([[1.0, 0.0], [0.0, 4.0]])).item()
    4.0
    """
    op = "cond"
    if p is None or p == 2 or p == -2:
        A = _matrices(A, op, square=False)
        s = _la.svdvals(A)
        hi, lo = s[..., :1].squeeze(-1), s[..., -1:].squeeze(-1)
        return hi / lo if p != -2 else lo / hi
    if p not in ("fro", "nuc", math.inf, -math.inf, 1, -1):
        raise _InvalidParameterError(f"{op}: p must be None, 2, -2, 'fro', 'nuc', inf, -inf, 1 "
                                     f"or -1, got {p!r}", "p", p)
    A = _matrices(A, op)
    _, _, info = _lu(A.detach(), True, op)
    bad = info > 0
    out = _la.matrix_norm(A, p) * _la.matrix_norm(_la.inv(_safe(A, bad)), p)
    return _where(bad, math.inf, out)


def _multi_dot(tensors):
    """The product of a chain of matrices (the first may be a row vector and the last a column
    vector, 1-D), as ``torch.linalg.multi_dot``.

    >>> import ember.torch as torch
    >>> torch.linalg.multi_dot([torch.ones(2), torch.eye(2), torch.ones(2)]).item()
    2.0
    """
    op = "multi_dot"
    tensors = list(tensors)
    if len(tensors) < 2:
        raise _InvalidParameterError(f"{op}: expected at least 2 tensors, got {len(tensors)}",
                                     "tensors", len(tensors))
    for i, t in enumerate(tensors):
        if not isinstance(t, _e.Tensor):
            raise _InvalidParameterError(f"{op}: tensor {i} must be a Tensor, got "
                                         f"{type(t).__name__}", "tensors", i)
        ok = t.ndim == 2 or (t.ndim == 1 and i in (0, len(tensors) - 1))
        if not ok:
            raise _ShapeMismatchError(f"{op}: tensor {i} has {t.ndim} dims; expected 2 (the "
                                      "first and last may be 1-D)", expected=2, actual=t.ndim)
    first, last = tensors[0].ndim == 1, tensors[-1].ndim == 1
    ms = [t.unsqueeze(0) if (i == 0 and first) else t for i, t in enumerate(tensors)]
    if last:
        ms[-1] = ms[-1].unsqueeze(-1) if ms[-1].ndim == 1 else ms[-1]
    out = ms[0]
    for t in ms[1:]:
        out = out @ t
    if last:
        out = out.squeeze(-1)
    if first:
        out = out.squeeze(0)
    return out


def _prod(sizes):
    return math.prod(sizes)


def _tensorinv(A, ind=2):
    """The inverse of ``A`` for ``tensordot`` with ``ind`` dims, as ``torch.linalg.tensorinv``:
    the result has shape ``A.shape[ind:] + A.shape[:ind]``.

    >>> import ember.torch as torch
    >>> torch.linalg.tensorinv(torch.eye(4).reshape(4, 2, 2), ind=1).shape
    torch.Size([2, 2, 4])
    """
    op = "tensorinv"
    if isinstance(ind, bool) or not isinstance(ind, int) or ind <= 0:
        raise _InvalidParameterError(f"{op}: ind must be a positive int, got {ind!r}", "ind",
                                     ind)
    shape = tuple(A.shape)
    rows, cols = _prod(shape[:ind]), _prod(shape[ind:])
    if rows != cols:
        raise _ShapeMismatchError(f"{op}: the product of the first {ind} dims of A ({rows}) "
                                  f"must equal that of the others ({cols})", expected=rows,
                                  actual=cols)
    return _la.inv(A.reshape(rows, cols)).reshape(*shape[ind:], *shape[:ind])


def _tensorsolve(A, B, dims=None):
    """The ``X`` with ``tensordot(A, X, X.ndim) == B``, as ``torch.linalg.tensorsolve``
    (``dims``: dims of ``A`` moved to the end first).

    >>> import ember.torch as torch
    >>> torch.linalg.tensorsolve(torch.eye(4).reshape(2, 2, 4), torch.ones(2, 2)).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    op = "tensorsolve"
    if dims is not None:
        dims = [d % A.ndim for d in (dims if isinstance(dims, (tuple, list)) else (dims,))]
        rest = [d for d in range(A.ndim) if d not in dims]
        A = A.permute(*rest, *dims)
    bshape = tuple(B.shape)
    if tuple(A.shape[:len(bshape)]) != bshape:
        raise _ShapeMismatchError(f"{op}: the leading dims of A {tuple(A.shape)} must be B's "
                                  f"shape {bshape}", expected=bshape, actual=tuple(A.shape))
    xshape = tuple(A.shape[len(bshape):])
    rows, cols = _prod(bshape), _prod(xshape)
    if rows != cols:
        raise _ShapeMismatchError(f"{op}: A reshaped to a matrix is {rows} x {cols}; expected a "
                                  "square one", expected=rows, actual=cols)
    return _la.solve(A.reshape(rows, cols), B.reshape(rows)).reshape(*xshape)


def _vander(x, *, N=None):
    """The Vandermonde matrix of ``x`` (*, n) with increasing powers: (*, n, N), ``N`` (at
    least 2) defaulting to n, as ``torch.linalg.vander``.

    >>> import ember.torch as torch
    >>> torch.linalg.vander(torch.tensor([1, 2, 3])).tolist()
    [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    """
    op = "vander"
    if not isinstance(x, _e.Tensor) or x.ndim < 1:
        raise _InvalidParameterError(f"{op}: x must be a tensor of at least 1 dim", "x", x)
    n = x.shape[-1]
    N = n if N is None else N
    if isinstance(N, bool) or not isinstance(N, int) or N < 2:
        raise _InvalidParameterError(f"{op}: N must be an int greater than 1, got {N!r}", "N",
                                     N)
    ones = _e.ones_like(x).unsqueeze(-1)
    reps = x.unsqueeze(-1).expand(*x.shape, N - 1)
    return _e.cumprod(_e.cat([ones, reps], -1), -1)


def _diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of ``A`` over ``dim1`` and ``dim2`` (``offset`` above it when positive),
    appended as the last dim, as ``torch.linalg.diagonal``.

    >>> import ember.torch as torch
    >>> torch.linalg.diagonal(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), offset=1).tolist()
    [2.0]
    """
    op = "diagonal"
    if not isinstance(A, _e.Tensor) or A.ndim < 2:
        raise _InvalidParameterError(f"{op}: A must be a tensor of at least 2 dims", "A", A)
    d1, d2 = dim1 % A.ndim, dim2 % A.ndim
    if d1 == d2:
        raise _InvalidParameterError(f"{op}: dim1 and dim2 must differ, got {dim1} and {dim2}",
                                     "dim2", dim2)
    M = _e.movedim(A, (d1, d2), (-2, -1))
    m, n = M.shape[-2], M.shape[-1]
    r0, c0 = max(-offset, 0), max(offset, 0)
    size = max(0, min(m - r0, n - c0))
    if size == 0:
        return M[..., :0, 0] if n else M.sum(-1)[..., :0]
    rows = _arange(m, M).reshape(m, 1)
    cols = _arange(n, M).reshape(1, n)
    picked = _where(cols - rows == offset, M, 0).sum(-1)
    return picked[..., r0:r0 + size]


def _householder_product(A, tau):
    """The first ``n`` columns of the product of the Householder reflections
    ``H_i = I - tau_i v_i v_i^H`` stored below the diagonal of ``A`` (*, m, n), as
    ``torch.linalg.householder_product``.

    >>> import ember.torch as torch
    >>> torch.linalg.householder_product(torch.zeros(2, 2), torch.zeros(1)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    op = "householder_product"
    A = _matrices(A, op, square=False)
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    if n > m or k > n:
        raise _ShapeMismatchError(f"{op}: expected A (*, m, n) with m >= n and tau (*, k) with "
                                  f"k <= n, got A {tuple(A.shape)} and tau {tuple(tau.shape)}",
                                  expected=(m, n), actual=tuple(tau.shape))
    V = _e.tril(A, -1) + _eye(m, n, A)
    Q = _eye(m, m, A)
    cx = A.dtype.kind == "complex"
    for i in range(k):
        v = V[..., :, i:i + 1]
        vh = v.mT.conj() if cx else v.mT
        t = tau[..., i:i + 1].unsqueeze(-1)
        Q = Q - t * ((Q @ v) @ vh)
    return Q[..., :, :n]


def _pade13():
    """The coefficients of the degree-13 Pade approximant of ``exp`` (Higham 2005)."""
    m = 13
    return [math.factorial(2 * m - k) * math.factorial(m) /
            (math.factorial(2 * m) * math.factorial(k) * math.factorial(m - k))
            for k in range(m + 1)]


_PADE13 = _pade13()
_THETA13 = 5.371920351148152


def _matrix_exp(A):
    """The matrix exponential of each square matrix of ``A``, by scaling and squaring with the
    degree-13 Pade approximant, as ``torch.linalg.matrix_exp``.

    >>> import ember.torch as torch
    >>> torch.linalg.matrix_exp(torch.zeros(2, 2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    A = _matrices(A, "matrix_exp")
    n = A.shape[-1]
    if n == 0 or A.numel() == 0:
        return A + 0
    with _no_grad():
        norm1 = A.detach().abs().sum(-2).max().item() if A.numel() else 0.0
    s = 0 if not norm1 > _THETA13 or norm1 != norm1 else \
        max(0, int(math.ceil(math.log2(norm1 / _THETA13))))
    X = A / (2.0 ** s)
    b = _PADE13
    eye = _eye(n, n, A)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2
             + b[1] * eye)
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 \
        + b[0] * eye
    R = _la.solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R


# -- general eigenproblems -----------------------------------------------------------------------

def _eig_arrays(A, op):
    A = _matrices(A, op)
    return A, A._device.backend


def _eig(A):
    """The eigenvalues and eigenvectors of each square matrix of ``A`` (complex results, no
    gradient), as ``torch.linalg.eig``.

    >>> import ember.torch as torch
    >>> torch.linalg.eig(torch.tensor([[2.0, 0.0], [0.0, 3.0]])).eigenvalues.tolist()
    [(2+0j), (3+0j)]
    """
    from .._tensor import wrap
    A, be = _eig_arrays(A, "eig")
    w, v = be.linalg_eig(A._data, True)
    cdt = _e.complex128 if A.dtype in (_e.float64, _e.complex128) else _e.complex64
    return _linalg_eig(
        wrap(be.cast(w, cdt), cdt), wrap(be.cast(v, cdt), cdt))


def _eigvals(A):
    """The eigenvalues of each square matrix of ``A`` (complex, no gradient), as
    ``torch.linalg.eigvals``.

    >>> import ember.torch as torch
    >>> torch.linalg.eigvals(torch.tensor([[0.0, -1.0], [1.0, 0.0]])).tolist()
    [1j, -1j]
    """
    from .._tensor import wrap
    A, be = _eig_arrays(A, "eigvals")
    w = be.linalg_eig(A._data, False)
    cdt = _e.complex128 if A.dtype in (_e.float64, _e.complex128) else _e.complex64
    return wrap(be.cast(w, cdt), cdt)


for _fn, _name in ((_lu_factor_ex, "lu_factor_ex"), (_lu_factor, "lu_factor"), (_lu_full, "lu"),
                   (_solve_triangular, "solve_triangular"), (_lu_solve, "lu_solve"),
                   (_inv_ex, "inv_ex"), (_solve_ex, "solve_ex"), (_cholesky_ex, "cholesky_ex"),
                   (_lstsq, "lstsq"), (_cond, "cond"), (_multi_dot, "multi_dot"),
                   (_tensorinv, "tensorinv"), (_tensorsolve, "tensorsolve"),
                   (_vander, "vander"), (_diagonal, "diagonal"),
                   (_householder_product, "householder_product"), (_matrix_exp, "matrix_exp"),
                   (_eig, "eig"), (_eigvals, "eigvals")):
    globals()[_name] = _torch(_fn)
    globals()[_name].__name__ = globals()[_name].__qualname__ = _name
del _fn, _name
