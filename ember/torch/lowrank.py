"""PyTorch's randomized low-rank factorizations and iterative eigensolver: ``svd_lowrank``,
``pca_lowrank`` and ``lobpcg``, composed of ember's ``randn``, ``linalg.qr``, ``linalg.svd``
and ``linalg.eigh``.

- ``svd_lowrank(A, q=6, niter=2, M=None)``: the randomized range finder of Halko, Martinsson
  and Tropp (2011): ``Q`` an orthonormal basis of ``(A - M) G`` for a Gaussian ``G`` with
  ``q`` columns, refined by ``niter`` subspace iterations, then the SVD of ``Q^H (A - M)``.
  Returns ``U (*, m, k)``, ``S (*, k)``, ``V (*, n, k)`` with ``k = min(q, m, n)``, so that
  ``A - M ~ U diag(S) V^H``, exact when the rank is at most ``q``.
- ``pca_lowrank(A, q=None, center=True, niter=2)``: ``svd_lowrank`` of ``A`` less its column
  means (when ``center``); ``q`` defaults to ``min(6, m, n)``.
- ``lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
  method=None, tracker=None, ...)``: the ``k`` largest (or smallest) eigenpairs of the
  symmetric ``A`` (of ``A x = lambda B x`` with ``B``) by Knyazev's locally optimal block
  preconditioned conjugate gradient: Rayleigh-Ritz on the span of the current vectors, their
  (preconditioned by ``iK``) residuals and the previous step, made ``B``-orthonormal by an
  eigendecomposition of its Gram matrix, until each residual is below ``tol`` (relative to
  its eigenvalue) or ``niter`` steps (default 1000; -1 without limit). ``method`` ("ortho" or
  "basic") is accepted: both name this one scheme. ``tracker``, when given, is called with the
  solver's state (``E``, ``X``, ``R``, ``ivars["istep"]``) after each step. The eigenvalues'
  gradient is exact at convergence (``x x^T`` for each pair); the eigenvectors' only follows
  the found subspace.

The random draws come from ember's global generator.

>>> import ember.torch as torch
>>> A = torch.tensor([[4.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, 1.0]], dtype=torch.float64)
>>> U, S, V = torch.svd_lowrank(A, q=3)
>>> bool(torch.dist(U @ torch.diag(S) @ V.T, A) < 1e-10)
True
"""

import numbers

import ember as _e

from .. import dtypes as _dt
from ..autodiff import no_grad
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor as _T
from . import linalg as _linalg
from ._tensor import as_torch, torch_function

__all__ = ["svd_lowrank", "pca_lowrank", "lobpcg"]


def _matrix(A, name, op):
    if not isinstance(A, _T):
        raise KindError(f"{op}: {name} must be a Tensor, got {type(A).__name__}")
    if A.ndim < 2:
        raise ShapeMismatchError(f"{op}: {name} must have at least 2 dims (*, m, n), got shape "
                                 f"{tuple(A.shape)}", expected="(*, m, n)",
                                 actual=tuple(A.shape))
    if A._dtype.kind != "float":
        raise KindError(f"{op}: {name} must be a float tensor, got {A._dtype.name}")
    return as_torch(A)


def _int(value, name, op, low=0):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise KindError(f"{op}: {name} must be an int, got {type(value).__name__}")
    if value < low:
        raise InvalidParameterError(f"{op}: {name} must be >= {low}, got {value}", name, value)
    return int(value)


def _h(t):
    return t.transpose(-2, -1)


def _randn(shape, like):
    return as_torch(_e.randn(*shape, dtype=like.dtype, device=like.device))


def _basis(A, q, niter):
    """An orthonormal ``(*, m, q')`` basis of A's range, by randomized subspace iteration."""
    G = _randn(tuple(A.shape[:-2]) + (A.shape[-1], q), A)
    Q = _linalg.qr(A @ G).Q
    for _ in range(niter):
        Q = _linalg.qr(_h(A) @ Q).Q
        Q = _linalg.qr(A @ Q).Q
    return Q


@torch_function
def svd_lowrank(A, q=6, niter=2, M=None):
    """The randomized rank-``q`` SVD of ``A - M`` (see the module docstring).

    >>> import ember.torch as torch
    >>> A = torch.outer(torch.arange(1.0, 5.0), torch.arange(1.0, 4.0))
    >>> U, S, V = torch.svd_lowrank(A, q=1)
    >>> round(S.item(), 4)
    20.4939
    """
    op = "svd_lowrank"
    A = _matrix(A, "A", op)
    q = _int(6 if q is None else q, "q", op)
    niter = _int(2 if niter is None else niter, "niter", op)
    if M is not None:
        if not isinstance(M, _T):
            raise KindError(f"{op}: M must be a Tensor or None, got {type(M).__name__}")
        A = A - M
    Q = _basis(A, q, niter)
    U, S, Vh = _linalg.svd(_h(Q) @ A, full_matrices=False)
    return Q @ U, S, _h(Vh)


@torch_function
def pca_lowrank(A, q=None, center=True, niter=2):
    """The principal components of ``A``'s rows: ``svd_lowrank`` of ``A`` centred (see the
    module docstring).

    >>> import ember.torch as torch
    >>> A = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64)
    >>> U, S, V = torch.pca_lowrank(A, q=1)
    >>> round(S.item(), 6)
    4.0
    """
    op = "pca_lowrank"
    A = _matrix(A, "A", op)
    m, n = A.shape[-2], A.shape[-1]
    q = min(6, m, n) if q is None else _int(q, "q", op)
    if q > min(m, n):
        raise InvalidParameterError(f"{op}: q(={q}) must be non-negative integer and not greater "
                                    f"than min(m, n)={min(m, n)}", "q", q)
    if not isinstance(center, bool):
        raise KindError(f"{op}: center must be a bool, got {type(center).__name__}")
    niter = _int(niter, "niter", op)
    M = A.mean(-2, keepdim=True) if center else None
    return svd_lowrank.implementation(A, q, niter, M)


def _eps(dtype):
    """The machine epsilon of float ``dtype`` (float64's, else float32's)."""
    return 2.0 ** -52 if dtype == _dt.float64 else 2.0 ** -23


class _State:
    """What ``lobpcg``'s ``tracker`` sees after each step."""

    def __init__(self, A, B, iK, k, n, niter, tol, largest):
        self.A, self.B, self.iK = A, B, iK
        self.iparams = {"k": k, "n": n, "niter": niter}
        self.fparams = {"tol": tol}
        self.bparams = {"largest": largest}
        self.ivars = {"istep": 0, "converged_count": 0}
        self.fvars, self.bvars, self.tvars = {}, {"force_stop": False}, {}
        self.E = self.X = self.S = self.R = None


def _b_orthonormal(S, B, eps):
    """A basis of span(S), orthonormal in B's inner product (near-dependent directions
    dropped)."""
    BS = S if B is None else B @ S
    gram = _h(S) @ BS
    gram = (gram + _h(gram)) / 2
    w, W = _linalg.eigh(gram)
    keep = w > w.max() * eps * S.shape[-2]
    W, w = W[:, keep], w[keep]
    return S @ (W / w.sqrt())


def _ritz(A, S, n, largest):
    """The ``n`` Ritz pairs of A on the orthonormal basis S, in PyTorch's order (descending
    for the largest, ascending for the smallest)."""
    T = _h(S) @ A @ S
    T = (T + _h(T)) / 2
    w, C = _linalg.eigh(T)
    if largest:
        w, C = w.flip(0), C.flip(1)
    return w[:n], C[:, :n], C


def _lobpcg_one(A, B, X, iK, k, n, niter, tol, largest, tracker):
    """lobpcg of one (m, m) problem: eigenvalues (k,) and eigenvectors (m, k)."""
    eps = _eps(A.dtype)
    state = _State(A, B, iK, k, n, niter, tol, largest)
    with no_grad():
        Ad, Bd = A.detach(), (None if B is None else B.detach())
        S = _b_orthonormal(X.detach(), Bd, eps)
        E, C, _ = _ritz(Ad, S, n, largest)
        Xc = S @ C
        P = None
        step = 0
        while niter < 0 or step < niter:
            BX = Xc if Bd is None else Bd @ Xc
            R = Ad @ Xc - BX * E
            norms = R.norm(dim=0)
            scale = E.abs().clamp(min=1e-30)
            rerr = norms / scale
            converged = int((rerr[:k] < tol).sum().item())
            state.E, state.X, state.R, state.S = E, Xc, R, S
            state.ivars["istep"], state.ivars["converged_count"] = step, converged
            state.tvars["rerr"] = rerr
            if tracker is not None:
                tracker(state)
            if converged >= k or state.bvars["force_stop"]:
                break
            if iK is not None:
                R = iK.detach() @ R
            parts = [Xc, R] if P is None else [Xc, R, P]
            S = _b_orthonormal(as_torch(_e.cat(parts, -1)), Bd, eps)
            E, C, _ = _ritz(Ad, S, n, largest)
            new_X = S @ C
            P = new_X - Xc @ (_h(Xc) @ (new_X if Bd is None else Bd @ new_X))
            Xc = new_X
            step += 1
        basis = Xc
    # the last Rayleigh-Ritz step recorded, so the eigenvalues carry A's (and B's) gradient
    if B is not None:
        gram = _h(basis) @ B @ basis
        L = _linalg.cholesky((gram + _h(gram)) / 2)
        Linv = _linalg.inv(L)
        basis = basis @ _h(Linv)
    E, C, _ = _ritz(A, basis, n, largest)
    return E[:k], (basis @ C)[:, :k]


@torch_function
def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """The ``k`` largest (or smallest) eigenpairs of the symmetric ``A`` (see the module
    docstring).

    >>> import ember.torch as torch
    >>> A = torch.diag(torch.arange(1.0, 11.0, dtype=torch.float64))
    >>> E, X = torch.lobpcg(A, k=2)
    >>> [round(e, 6) for e in E.tolist()]
    [10.0, 9.0]
    """
    op = "lobpcg"
    A = _matrix(A, "A", op)
    m = A.shape[-1]
    if A.shape[-2] != m:
        raise ShapeMismatchError(f"{op}: A must be square (*, m, m), got shape "
                                 f"{tuple(A.shape)}", expected=(m, m),
                                 actual=tuple(A.shape[-2:]))
    batch = tuple(A.shape[:-2])
    if B is not None:
        B = _matrix(B, "B", op)
        if tuple(B.shape) != tuple(A.shape):
            raise ShapeMismatchError(f"{op}: B has shape {tuple(B.shape)}, expected A's "
                                     f"{tuple(A.shape)}", expected=tuple(A.shape),
                                     actual=tuple(B.shape))
    if iK is not None:
        iK = _matrix(iK, "iK", op)
    if X is not None:
        X = _matrix(X, "X", op)
        if X.shape[-2] != m:
            raise ShapeMismatchError(f"{op}: X has shape {tuple(X.shape)}, expected (*, {m}, n)",
                                     expected=m, actual=X.shape[-2])
        n = X.shape[-1]
    k = (1 if X is None else n) if k is None else _int(k, "k", op, 1)
    n = k if n is None else _int(n, "n", op, 1)
    if not k <= n <= m:
        raise InvalidParameterError(f"{op}: expected k <= n <= m, got k={k}, n={n}, m={m}", "n",
                                    n)
    if m < 3 * n:
        raise InvalidParameterError(f"{op}: LPBPCG algorithm is not applicable when the number "
                                    f"of A rows (={m}) is smaller than 3 x the number of "
                                    f"requested eigenpairs (={n})", "k", k)
    niter = 1000 if niter is None else _int(niter, "niter", op, -1)
    if tol is None:
        tol = _eps(A.dtype) ** 0.5
    elif not isinstance(tol, numbers.Real) or tol <= 0:
        raise InvalidParameterError(f"{op}: tol must be a positive number, got {tol!r}", "tol",
                                    tol)
    largest = True if largest is None else largest
    if not isinstance(largest, bool):
        raise KindError(f"{op}: largest must be a bool, got {type(largest).__name__}")
    if method not in (None, "ortho", "basic"):
        raise InvalidParameterError(f"{op}: method must be 'ortho' or 'basic', got {method!r}",
                                    "method", method)
    if tracker is not None and not callable(tracker):
        raise KindError(f"{op}: tracker must be callable, got {type(tracker).__name__}")
    if X is None:
        X = _randn(batch + (m, n), A)
    items = []
    for idx in _indices(batch):
        pick = (lambda t: t if t is None else t[idx]) if batch else (lambda t: t)
        items.append(_lobpcg_one(pick(A), pick(B), pick(X), pick(iK), k, n, niter, float(tol),
                                 largest, tracker))
    if not batch:
        return items[0]
    E = as_torch(_e.stack([e for e, _ in items])).reshape(batch + (k,))
    V = as_torch(_e.stack([v for _, v in items])).reshape(batch + (m, k))
    return E, V


def _indices(batch):
    """Every index tuple of a batch shape, in row-major order."""
    out = [()]
    for size in batch:
        out = [i + (j,) for i in out for j in range(size)]
    return out
