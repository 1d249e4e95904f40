"""PyTorch's LDL factorization of symmetric matrices: ``torch.linalg.ldl_factor``,
``ldl_factor_ex`` and ``ldl_solve``, with LAPACK's (``sytrf``, lower) Bunch-Kaufman pivoting
and compact format, composed of ember ops (so, unlike PyTorch's, they are differentiable).

Only the lower triangle of ``A`` is read. At step ``k`` the trailing matrix's column is
pivoted by Bunch and Kaufman's rule (``alpha = (1 + sqrt(17)) / 8``): a 1x1 pivot, the same
after swapping in the row of the column's largest entry, or a 2x2 pivot with that row. The
swaps reach only the trailing matrix, so ``A = L D L^T`` with ``L = P1 L1 P2 L2 ...`` (the
product of the steps' permutations and unit block-triangular factors). ``LD`` holds ``D``'s
diagonal and 2x2 blocks' sub-diagonal entries and the ``L_k``'s columns below them (its upper
triangle zero); ``pivots`` (int32, 1-based) are ``p`` for a 1x1 step that swapped ``k`` with
``p``, and ``-p`` twice for a 2x2 step that swapped ``k + 1`` with ``p``. A zero column leaves
its ``D`` entry zero: ``info`` is the first such step (1-based), ``ldl_factor`` raises
``LinAlgError`` there. ``hermitian`` is accepted for real matrices, where it changes nothing.

>>> import ember.torch as torch
>>> A = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=torch.float64)
>>> LD, pivots = torch.linalg.ldl_factor(A)
>>> LD.tolist(), pivots.tolist()
([[0.0, 0.0], [1.0, 0.0]], [-2, -2])
>>> torch.linalg.ldl_solve(LD, pivots, torch.tensor([[2.0], [3.0]], dtype=torch.float64)).tolist()
[[3.0], [2.0]]
"""

import math
from collections import namedtuple

import ember as _e

from ..autodiff import no_grad
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor as _T
from . import linalg as _linalg
from ._tensor import as_torch, to_torch

__all__ = ["ldl_factor", "ldl_factor_ex", "ldl_solve"]

_ALPHA = (1 + math.sqrt(17)) / 8

linalg_ldl_factor = namedtuple("linalg_ldl_factor", ["LD", "pivots"])
linalg_ldl_factor_ex = namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])


def _square(A, name, op):
    if not isinstance(A, _T):
        raise KindError(f"{op}: {name} must be a Tensor, got {type(A).__name__}")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ShapeMismatchError(f"{op}: {name} must be a batch of square matrices (*, n, n), "
                                 f"got shape {tuple(A.shape)}", expected="(*, n, n)",
                                 actual=tuple(A.shape))
    if A._dtype.kind != "float":
        raise KindError(f"{op}: {name} must be a float tensor (ember's LDL is real), got "
                        f"{A._dtype.name}")
    return as_torch(A)


def _flag(value, name, op):
    if not isinstance(value, bool):
        raise KindError(f"{op}: {name} must be a bool, got {type(value).__name__}")
    return value


def _batches(batch):
    out = [()]
    for size in batch:
        out = [i + (j,) for i in out for j in range(size)]
    return out


def _swap(T, i, j):
    """T with rows and columns i and j exchanged (a symmetric permutation)."""
    if i == j:
        return T
    order = list(range(T.shape[-1]))
    order[i], order[j] = j, i
    index = as_torch(_e.tensor(order, dtype=_e.int64, device=T.device))
    return T.index_select(0, index).index_select(1, index)


def _choose(T):
    """Bunch-Kaufman's choice for the trailing matrix ``T``: ``(kstep, kp, zero)``."""
    with no_grad():
        col = T[:, 0].detach().abs()
        absakk = col[0].item()
        if T.shape[0] > 1:
            imax = 1 + int(col[1:].argmax().item())
            colmax = col[imax].item()
        else:
            imax, colmax = 0, 0.0
        if max(absakk, colmax) == 0 or math.isnan(absakk):
            return 1, 0, True
        if absakk >= _ALPHA * colmax:
            return 1, 0, False
        row = T[imax].detach().abs()
        rowmax = max(row[j].item() for j in range(T.shape[0]) if j != imax)
        if absakk >= _ALPHA * colmax * (colmax / rowmax):
            return 1, 0, False
        if row[imax].item() >= _ALPHA * rowmax:
            return 1, imax, False
        return 2, imax, False


def _factor_one(A):
    """``(LD, pivots, info)`` of one symmetric matrix (lower triangle read)."""
    n = A.shape[-1]
    low = A.tril()
    T = low + low.tril(-1).transpose(0, 1)
    columns, pivots, info = [], [], 0
    k = 0
    zeros = lambda size: as_torch(_e.zeros(size, dtype=A.dtype, device=A.device))  # noqa: E731
    while k < n:
        kstep, kp, zero = _choose(T)
        if zero:
            info = info or k + 1
        T = _swap(T, kstep - 1, kp)
        if kstep == 1:
            d = T[0, 0]
            below = T[1:, 0]
            l = below * 0 if zero else below / d
            columns.append(as_torch(_e.cat([zeros(k), d.reshape(1), l])))
            T = T[1:, 1:] if zero else T[1:, 1:] - l.unsqueeze(1) * below.unsqueeze(0)
            pivots.append(k + kp + 1)
        else:
            D = T[:2, :2]
            W = T[2:, :2]
            L = W @ _linalg.inv(D)
            columns.append(as_torch(_e.cat([zeros(k), D[:, 0], L[:, 0]])))
            columns.append(as_torch(_e.cat([zeros(k + 1), D[1, 1].reshape(1), L[:, 1]])))
            T = T[2:, 2:] - L @ W.transpose(0, 1)
            pivots += [-(k + kp + 1)] * 2
        k += kstep
    LD = as_torch(_e.stack(columns, 1)) if columns else A * 0
    return LD, pivots, info


def _ldl(A, op):
    A = _square(A, "A", op)
    batch = tuple(A.shape[:-2])
    n = A.shape[-1]
    results = [_factor_one(A[idx] if batch else A) for idx in _batches(batch)]
    LD = as_torch(_e.stack([r[0] for r in results])).reshape(A.shape)
    pivots = as_torch(_e.tensor([r[1] for r in results], dtype=_e.int32,
                                device=A.device)).reshape(batch + (n,))
    info = as_torch(_e.tensor([r[2] for r in results], dtype=_e.int32,
                              device=A.device)).reshape(batch)
    return LD, pivots, info


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """``(LD, pivots, info)``: the compact LDL factorization of the symmetric ``A`` and the
    first step with a zero pivot (0 if none); see the module docstring.

    >>> import ember.torch as torch
    >>> torch.linalg.ldl_factor_ex(torch.zeros(2, 2)).info.item()
    1
    """
    op = "ldl_factor_ex"
    _flag(hermitian, "hermitian", op)
    _flag(check_errors, "check_errors", op)
    if out is not None:
        raise InvalidParameterError(f"{op}: out= is not supported; use the returned tensors",
                                    "out", out)
    LD, pivots, info = _ldl(A, op)
    if check_errors and info.numel() and bool((info > 0).any().item()):
        raise _linalg.LinAlgError(f"{op}: the factorization has a zero pivot (D[{info.max()}] "
                                  "= 0): A is singular", "A", A)
    return to_torch(linalg_ldl_factor_ex(LD, pivots, info))


def ldl_factor(A, *, hermitian=False, out=None):
    """``(LD, pivots)``: the compact LDL factorization of the symmetric ``A`` (see the module
    docstring); a singular ``A`` raises ``LinAlgError``.

    >>> import ember.torch as torch
    >>> LD, piv = torch.linalg.ldl_factor(torch.tensor([[4.0, 2.0], [2.0, 3.0]]))
    >>> LD.tolist(), piv.tolist()
    ([[4.0, 0.0], [0.5, 2.0]], [1, 2])
    """
    op = "ldl_factor"
    _flag(hermitian, "hermitian", op)
    if out is not None:
        raise InvalidParameterError(f"{op}: out= is not supported; use the returned tensors",
                                    "out", out)
    LD, pivots, info = _ldl(A, op)
    if info.numel() and bool((info > 0).any().item()):
        raise _linalg.LinAlgError(f"{op}: the factorization has a zero pivot (D[{info.max()}] "
                                  "= 0): A is singular", "A", A)
    return to_torch(linalg_ldl_factor(LD, pivots))


def _rows_swap(B, i, j):
    if i == j:
        return B
    order = list(range(B.shape[0]))
    order[i], order[j] = j, i
    return B.index_select(0, as_torch(_e.tensor(order, dtype=_e.int64, device=B.device)))


def _set_rows(B, start, rows):
    """B with rows ``start:start + len(rows)`` replaced by ``rows``."""
    return as_torch(_e.cat([B[:start], rows, B[start + rows.shape[0]:]], 0))


def _solve_one(LD, piv, B):
    """X with ``A X = B`` for one factorization (LD (n, n), piv a list, B (n, r))."""
    n = LD.shape[0]
    k = 0
    while k < n:  # L D Y = B
        if piv[k] > 0:
            B = _rows_swap(B, k, piv[k] - 1)
            row = B[k:k + 1]
            tail = B[k + 1:] - LD[k + 1:, k:k + 1] * row
            B = as_torch(_e.cat([B[:k], row / LD[k, k], tail], 0))
            k += 1
        else:
            B = _rows_swap(B, k + 1, -piv[k] - 1)
            rows = B[k:k + 2]
            tail = B[k + 2:] - LD[k + 2:, k:k + 2] @ rows
            D = as_torch(_e.stack([_e.stack([LD[k, k], LD[k + 1, k]]),
                                   _e.stack([LD[k + 1, k], LD[k + 1, k + 1]])]))
            B = as_torch(_e.cat([B[:k], _linalg.solve(D, rows), tail], 0))
            k += 2
    k = n - 1
    while k >= 0:  # L^T X = Y
        if piv[k] > 0:
            B = _set_rows(B, k, B[k:k + 1] - LD[k + 1:, k:k + 1].transpose(0, 1) @ B[k + 1:])
            B = _rows_swap(B, k, piv[k] - 1)
            k -= 1
        else:
            B = _set_rows(B, k - 1, B[k - 1:k + 1]
                          - LD[k + 1:, k - 1:k + 1].transpose(0, 1) @ B[k + 1:])
            B = _rows_swap(B, k, -piv[k] - 1)
            k -= 2
    return B


def _broadcast(a, b, op):
    """The broadcast of batch shapes ``a`` and ``b``."""
    a, b = (1,) * (len(b) - len(a)) + a, (1,) * (len(a) - len(b)) + b
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):
        raise ShapeMismatchError(f"{op}: the batch shapes {a} of LD and {b} of B do not "
                                 "broadcast", expected=a, actual=b)
    return tuple(max(x, y) if 0 not in (x, y) else 0 for x, y in zip(a, b))


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """The solution ``X`` of ``A X = B`` from ``A``'s ``ldl_factor`` (batches broadcast).

    >>> import ember.torch as torch
    >>> A = torch.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=torch.float64)
    >>> LD, piv = torch.linalg.ldl_factor(A)
    >>> torch.linalg.ldl_solve(LD, piv, torch.tensor([[6.0], [5.0]], dtype=torch.float64)).tolist()
    [[1.0], [1.0]]
    """
    op = "ldl_solve"
    _flag(hermitian, "hermitian", op)
    if out is not None:
        raise InvalidParameterError(f"{op}: out= is not supported; use the returned tensor",
                                    "out", out)
    LD = _square(LD, "LD", op)
    n = LD.shape[-1]
    if not isinstance(pivots, _T) or pivots._dtype.kind != "int":
        raise KindError(f"{op}: pivots must be an int tensor, got "
                        f"{getattr(pivots, 'dtype', type(pivots).__name__)}")
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise ShapeMismatchError(f"{op}: pivots has shape {tuple(pivots.shape)}, expected "
                                 f"{tuple(LD.shape[:-1])}", expected=tuple(LD.shape[:-1]),
                                 actual=tuple(pivots.shape))
    if not isinstance(B, _T) or B.ndim < 2 or B.shape[-2] != n:
        raise ShapeMismatchError(f"{op}: B must have shape (*, {n}, k), got "
                                 f"{getattr(B, 'shape', B)!r}", expected=(n, "k"),
                                 actual=tuple(getattr(B, "shape", ())))
    if B._dtype is not LD._dtype:
        raise KindError(f"{op}: B has dtype {B._dtype.name}, expected LD's {LD._dtype.name}")
    B = as_torch(B)
    batch = _broadcast(tuple(LD.shape[:-2]), tuple(B.shape[:-2]), op)
    LDb = LD.expand(batch + (n, n))
    Bb = B.expand(batch + tuple(B.shape[-2:]))
    pivb = as_torch(pivots).expand(batch + (n,))
    flat = [int(v) for v in pivb.reshape(-1).tolist()]
    bad = [v for v in flat if v == 0 or abs(v) > n]
    if bad:
        raise InvalidParameterError(f"{op}: pivots must be in [-{n}, -1] or [1, {n}], got "
                                    f"{bad[0]}", "pivots", pivots)
    results = []
    for i, idx in enumerate(_batches(batch)):
        piv = flat[i * n:(i + 1) * n]
        results.append(_solve_one(LDb[idx] if batch else LDb, piv, Bb[idx] if batch else Bb))
    return as_torch(_e.stack(results)).reshape(batch + tuple(B.shape[-2:]))


for _fn in (ldl_factor, ldl_factor_ex, ldl_solve):
    setattr(_linalg, _fn.__name__, _fn)
    _linalg.__all__.append(_fn.__name__)
del _fn
