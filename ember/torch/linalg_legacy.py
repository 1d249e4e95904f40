"""PyTorch's linear algebra of the ``torch`` namespace (and the Tensor methods of the same
names), with their older conventions, on ``ember.torch.linalg``: ``cholesky`` (``upper=``),
``cholesky_inverse``, ``cholesky_solve``, ``lu`` (``(LU, pivots)``), ``lu_solve`` (``b``
first), ``lu_unpack``, ``triangular_solve`` (``b`` first, ``upper=True`` by default,
``transpose=``, ``unitriangular=``; returns the solution and a copy of ``A``), ``qr``
(``some=``), ``svd`` (``some=``, ``compute_uv=``; returns ``V``, not ``Vh``), ``matrix_exp``,
and LAPACK's Householder form: ``geqrf``, ``orgqr``, ``ormqr``. Each is composed of ember ops,
so it is differentiable wherever its parts are (``geqrf`` too, which PyTorch's is not).

>>> import ember.torch as torch
>>> A = torch.tensor([[4.0, 2.0], [2.0, 2.0]], dtype=torch.float64)
>>> U = torch.cholesky(A, upper=True)
>>> U.tolist(), (U.mT @ U).tolist()
([[2.0, 1.0], [0.0, 1.0]], [[4.0, 2.0], [2.0, 2.0]])
>>> torch.cholesky_solve(torch.tensor([[4.0], [2.0]], dtype=A.dtype), U, upper=True).tolist()
[[1.0], [0.0]]
"""

from collections import namedtuple as _namedtuple

import ember as _e

from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..ops.decompositions import matrices as _matrices
from ..ops.masking import where as _where
from . import linalg as _la
from .linalg import _eye, _lu_unpack as _unpack
from ._tensor import torch_function, torch_method

__all__ = ["cholesky", "cholesky_inverse", "cholesky_solve", "lu", "lu_solve", "lu_unpack",
           "triangular_solve", "qr", "svd", "matrix_exp", "geqrf", "orgqr", "ormqr"]

# PyTorch's result types (``torch.return_types.*``)
_geqrf = _namedtuple("geqrf", ["a", "tau"])
_lu_unpack = _namedtuple("lu_unpack", ["P", "L", "U"])
_triangular_solve = _namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
_qr = _namedtuple("qr", ["Q", "R"])
_svd = _namedtuple("svd", ["U", "S", "V"])


def _flag(value, op, param):
    if value is True or value is False:
        return value
    raise InvalidParameterError(f"{op}: {param} must be a bool, got {value!r}", param, value)


def _both(fn):
    """Register ``fn`` as ``ember.torch.<name>`` and as the Tensor method of that name."""
    torch_method(fn)
    return torch_function(fn)


# -- Cholesky -----------------------------------------------------------------------------------

@_both
def cholesky(input, upper=False):  # noqa: A002  (PyTorch's names)
    """The Cholesky factor of each Hermitian positive-definite matrix: ``L`` with
    ``A = L L^H``, or ``U`` with ``A = U^H U`` when ``upper``, as ``torch.cholesky``.

    >>> import ember.torch as torch
    >>> torch.cholesky(torch.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    upper = _flag(upper, "cholesky", "upper")
    return _la.cholesky(input, upper=upper)


def _tri_inverse(T, upper):
    n = T.shape[-1]
    return _la.solve_triangular(T, _eye(n, n, T), upper=upper)


@_both
def cholesky_inverse(input, upper=False):  # noqa: A002
    """The inverse of ``A`` from its Cholesky factor ``input`` (``L``, or ``U`` when ``upper``),
    as ``torch.cholesky_inverse``.

    >>> import ember.torch as torch
    >>> torch.cholesky_inverse(torch.tensor([[2.0, 0.0], [1.0, 1.0]])).tolist()
    [[0.5, -0.5], [-0.5, 1.0]]
    """
    upper = _flag(upper, "cholesky_inverse", "upper")
    T = _matrices(input, "cholesky_inverse")
    Ti = _tri_inverse(T, upper)
    return Ti @ Ti.mH if upper else Ti.mH @ Ti


@_both
def cholesky_solve(input, input2, upper=False):  # noqa: A002
    """The solution ``X`` of ``A X = B`` for ``B = input`` (*, n, k) from ``A``'s Cholesky
    factor ``input2`` (``L``, or ``U`` when ``upper``), as ``torch.cholesky_solve``.

    >>> import ember.torch as torch
    >>> L = torch.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> torch.cholesky_solve(torch.tensor([[4.0], [2.0]]), L).tolist()
    [[1.0], [0.0]]
    """
    op = "cholesky_solve"
    upper = _flag(upper, op, "upper")
    T = _matrices(input2, op)
    if not isinstance(input, _e.Tensor) or input.ndim < 2:
        raise ShapeMismatchError(f"{op}: input must be a tensor of at least 2 dims (*, n, k), "
                                 f"got {getattr(input, 'shape', input)!r}", expected=2,
                                 actual=getattr(input, "ndim", None))
    lower, upper_ = (T.mH, T) if upper else (T, T.mH)
    Y = _la.solve_triangular(lower, input, upper=False)
    return _la.solve_triangular(upper_, Y, upper=True)


# -- LU -----------------------------------------------------------------------------------------

@_both
def lu(A, pivot=True, get_infos=False):
    """``(LU, pivots)`` of each matrix of ``A`` (and ``infos`` when ``get_infos``), as
    ``torch.lu``: ``torch.linalg.lu_factor_ex``'s results.

    >>> import ember.torch as torch
    >>> LU, piv = torch.lu(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> piv.tolist()
    [2, 2]
    """
    get_infos = _flag(get_infos, "lu", "get_infos")
    LU, pivots, info = _la.lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


@_both
def lu_solve(b, LU_data, LU_pivots):  # noqa: N803  (PyTorch's names)
    """The solution of ``A X = b`` from ``torch.lu``'s factorization of ``A``, as
    ``torch.lu_solve``.

    >>> import ember.torch as torch
    >>> LU, piv = torch.lu(torch.tensor([[0.0, 2.0], [1.0, 0.0]]))
    >>> torch.lu_solve(torch.tensor([[2.0], [3.0]]), LU, piv).tolist()
    [[3.0], [1.0]]
    """
    return _la.lu_solve(LU_data, LU_pivots, b)


@torch_function
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    """``(P, L, U)`` from ``torch.lu``'s factorization (``A = P L U``); what is not unpacked
    (``unpack_data``, ``unpack_pivots`` False) comes back empty, as ``torch.lu_unpack``.

    >>> import ember.torch as torch
    >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> P, L, U = torch.lu_unpack(*torch.lu(A))
    >>> (P @ L @ U).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    """
    op = "lu_unpack"
    unpack_data = _flag(unpack_data, op, "unpack_data")
    unpack_pivots = _flag(unpack_pivots, op, "unpack_pivots")
    LU = _matrices(LU_data, op, square=False)
    if not isinstance(LU_pivots, _e.Tensor) or LU_pivots.dtype.kind != "int":
        raise KindError(f"{op}: LU_pivots must be an int tensor, got {LU_pivots!r}")
    k = min(LU.shape[-2], LU.shape[-1])
    if tuple(LU_pivots.shape) != tuple(LU.shape[:-2]) + (k,):
        raise ShapeMismatchError(f"{op}: LU_pivots must have shape {tuple(LU.shape[:-2]) + (k,)}"
                                 f", got {tuple(LU_pivots.shape)}",
                                 expected=tuple(LU.shape[:-2]) + (k,),
                                 actual=tuple(LU_pivots.shape))
    P, L, U = _unpack(LU, LU_pivots)
    empty = _e.zeros(0, dtype=LU.dtype, device=LU.device)
    return _lu_unpack(P if unpack_pivots else empty, L if unpack_data else empty,
                      U if unpack_data else empty)


# -- triangular systems, QR, SVD, exp ------------------------------------------------------------

@_both
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """The solution ``X`` of ``op(A) X = b`` for triangular ``A`` (``op(A)`` is ``A^T`` when
    ``transpose``), and a copy of ``A``, as ``torch.triangular_solve``.

    >>> import ember.torch as torch
    >>> A = torch.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> torch.triangular_solve(torch.tensor([[3.0], [4.0]]), A).solution.tolist()
    [[1.0], [1.0]]
    """
    op = "triangular_solve"
    upper = _flag(upper, op, "upper")
    transpose = _flag(transpose, op, "transpose")
    unitriangular = _flag(unitriangular, op, "unitriangular")
    A = _matrices(A, op)
    T = _e.triu(A) if upper else _e.tril(A)
    if transpose:
        T, upper = T.mT, not upper
    X = _la.solve_triangular(T, b, upper=upper, unitriangular=unitriangular)
    return _triangular_solve(X, A.clone())


@_both
def qr(input, some=True):  # noqa: A002
    """``(Q, R)`` of each matrix: reduced when ``some``, else complete, as ``torch.qr``.

    >>> import ember.torch as torch
    >>> Q, R = torch.qr(torch.tensor([[3.0], [4.0]]))
    >>> [round(v, 6) for v in R.flatten().tolist()]
    [-5.0]
    """
    some = _flag(some, "qr", "some")
    Q, R = _la.qr(input, mode="reduced" if some else "complete")
    return _qr(Q, R)


@_both
def svd(input, some=True, compute_uv=True):  # noqa: A002
    """``(U, S, V)`` with ``input = U diag(S) V^H`` (``V``, not ``V^H``): reduced when ``some``;
    without ``compute_uv`` U and V are full-size zeros, as ``torch.svd``.

    >>> import ember.torch as torch
    >>> U, S, V = torch.svd(torch.tensor([[3.0, 0.0], [0.0, -2.0]]))
    >>> S.tolist()
    [3.0, 2.0]
    """
    some = _flag(some, "svd", "some")
    compute_uv = _flag(compute_uv, "svd", "compute_uv")
    A = _matrices(input, "svd", square=False)
    if not compute_uv:
        m, n = A.shape[-2], A.shape[-1]
        batch = tuple(A.shape[:-2])
        zeros = _e.zeros(*batch, m, m, dtype=A.dtype, device=A.device), \
            _e.zeros(*batch, n, n, dtype=A.dtype, device=A.device)
        return _svd(zeros[0], _la.svdvals(A), zeros[1])
    U, S, Vh = _la.svd(A, full_matrices=not some)
    return _svd(U, S, Vh.mH)


@_both
def matrix_exp(A):
    """The matrix exponential of each square matrix, as ``torch.matrix_exp``.

    >>> import ember.torch as torch
    >>> torch.matrix_exp(torch.zeros(1, 1)).tolist()
    [[1.0]]
    """
    return _la.matrix_exp(A)


# -- Householder form ----------------------------------------------------------------------------

def _reflector(x, cx):
    """LAPACK's ``larfg`` on each vector ``x`` (*, r): ``(beta, tau, v_tail)`` with
    ``(I - tau v v^H)^H x = beta e_1`` and ``v = [1, v_tail]``; ``tau = 0`` when ``x`` is
    already a multiple of ``e_1`` with a real first element."""
    alpha = x[..., 0]
    tail = x[..., 1:]
    sq = (tail.abs() ** 2).sum(-1) if cx else (tail * tail).sum(-1)
    ar = _e.real(alpha) if cx else alpha
    zero = sq == 0
    if cx:
        zero = zero & (_e.imag(alpha) == 0)
    norm = ((alpha.abs() ** 2 if cx else alpha * alpha) + sq).sqrt()
    beta = _where(ar >= 0, -norm, norm)
    safe_beta = _where(zero, 1.0, beta)
    diff = _where(zero, 1.0, alpha - beta)
    tau = _where(zero, 0.0, (beta - alpha) / safe_beta)
    v_tail = tail / diff.unsqueeze(-1)
    v_tail = _where(zero.unsqueeze(-1), 0.0, v_tail)
    return _where(zero, ar, beta), tau, v_tail


@_both
def geqrf(input):  # noqa: A002
    """The QR factorization in LAPACK's form, as ``torch.geqrf``: ``a`` holds ``R`` on and
    above the diagonal and the Householder vectors below it (their leading 1 implied),
    ``tau`` their scale factors; ``orgqr(a, tau)`` is ``Q``.

    >>> import ember.torch as torch
    >>> a, tau = torch.geqrf(torch.tensor([[3.0], [4.0]]))
    >>> a.flatten().tolist(), [round(v, 6) for v in tau.tolist()]
    ([-5.0, 0.5], [1.6])
    """
    op = "geqrf"
    A = _matrices(input, op, square=False)
    cx = A.dtype.kind == "complex"
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    R = A
    taus, cols = [], []
    for j in range(k):
        x = R[..., j:, j]
        beta, tau, v_tail = _reflector(x, cx)
        v = _e.cat([_e.ones_like(x[..., :1]), v_tail], -1)
        rest = R[..., j:, :]
        w = (v.conj() if cx else v).unsqueeze(-2) @ rest
        t = tau.conj() if cx else tau
        rest = rest - (t.unsqueeze(-1) * v).unsqueeze(-1) * w
        R = _e.cat([R[..., :j, :], rest], -2) if j else rest
        taus.append(tau)
        head = _e.zeros_like(v[..., :1]).expand(*v.shape[:-1], j + 1)
        cols.append(_e.cat([head, v_tail], -1) if j + 1 < m else head[..., :m])
    if not k:
        return _geqrf(A + 0, _e.zeros(*A.shape[:-2], 0, dtype=A.dtype, device=A.device))
    lower = _e.stack(cols, -1)
    if n > k:
        pad = _e.zeros(*lower.shape[:-1], n - k, dtype=A.dtype, device=A.device)
        lower = _e.cat([lower, pad], -1)
    return _geqrf(_e.triu(R) + lower, _e.stack(taus, -1))


@_both
def orgqr(input, input2):  # noqa: A002
    """``Q`` of the Householder form ``(input, tau=input2)`` that ``geqrf`` makes: its first
    ``n`` columns, as ``torch.orgqr`` (``torch.linalg.householder_product``).

    >>> import ember.torch as torch
    >>> a, tau = torch.geqrf(torch.tensor([[3.0], [4.0]]))
    >>> [round(v, 6) for v in torch.orgqr(a, tau).flatten().tolist()]
    [-0.6, -0.8]
    """
    return _la.householder_product(input, input2)


@_both
def ormqr(input, input2, input3, left=True, transpose=False):  # noqa: A002
    """``Q @ C`` (``C @ Q`` when not ``left``; ``Q^H`` when ``transpose``) for the full square
    ``Q`` of the Householder form ``(input, tau=input2)`` and ``C = input3``, as
    ``torch.ormqr``.

    >>> import ember.torch as torch
    >>> a, tau = torch.geqrf(torch.tensor([[3.0], [4.0]]))
    >>> [round(v, 6) for v in torch.ormqr(a, tau, torch.eye(2), transpose=True)[0].tolist()]
    [-0.6, -0.8]
    """
    op = "ormqr"
    left = _flag(left, op, "left")
    transpose = _flag(transpose, op, "transpose")
    A = _matrices(input, op, square=False)
    C = _matrices(input3, op, square=False)
    mn, k = A.shape[-2], A.shape[-1]
    want = C.shape[-2] if left else C.shape[-1]
    if mn != want:
        side = "rows" if left else "columns"
        raise ShapeMismatchError(f"{op}: input must have as many rows ({mn}) as input3 has "
                                 f"{side} ({want})", expected=want, actual=mn)
    if k > mn:
        raise ShapeMismatchError(f"{op}: input (*, mn, k) must have k <= mn, got "
                                 f"{tuple(A.shape)}", expected=mn, actual=k)
    if k < mn:
        A = _e.cat([A, _e.zeros(*A.shape[:-1], mn - k, dtype=A.dtype, device=A.device)], -1)
    Q = _la.householder_product(A, input2)
    if transpose:
        Q = Q.mH
    return Q @ C if left else C @ Q
