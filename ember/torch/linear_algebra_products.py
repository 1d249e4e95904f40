"""PyTorch's products of vectors and matrices, and the ``Tensor`` methods that map onto
``ember.linalg``: ``mm``, ``bmm``, the fused ``add*`` products, ``kron``, ``tensordot``,
``cdist``/``pdist``/``dist``, ``block_diag``, ``cartesian_prod``, ``combinations`` ...

Each composes ember's ops (``matmul``, ``einsum``, ``cat``, ``linalg``), so gradients of every
order come from them.

>>> import ember.torch as torch
>>> a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> torch.addmm(torch.ones(2), a, a, beta=2.0).tolist()
[[9.0, 12.0], [17.0, 24.0]]
>>> a.mv(torch.tensor([1.0, 1.0])).tolist()
[3.0, 7.0]
"""

import itertools
from collections import namedtuple

import ember as _e

from .._tensor import Tensor as _T
from ..errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import as_int, broadcast_shapes
from ._math_args import dim_arg, function_and_method, promoted, reshape, tensor_arg
from ._tensor import torch_function

__all__ = ["mm", "bmm", "addmm", "addbmm", "baddbmm", "addmv", "addr", "mv", "vdot", "inner",
           "ger", "chain_matmul", "kron", "tensordot", "cross", "cartesian_prod", "combinations",
           "block_diag", "trace", "tril_indices", "triu_indices", "matrix_power", "det", "logdet",
           "slogdet", "inverse", "pinverse", "cdist", "pdist", "dist", "renorm", "addcmul",
           "addcdiv"]

slogdet_result = namedtuple("slogdet", ["sign", "logabsdet"])


def _rank(t, n, op, param):
    if t.ndim != n:
        raise ShapeMismatchError(f"{op}: {param} must be a {n}-D tensor, got shape "
                                 f"{tuple(t.shape)}", n, t.ndim)


def _inner_sizes(op, a, b, da, db, pa, pb):
    if a.shape[da] != b.shape[db]:
        raise ShapeMismatchError(f"{op}: {pa} and {pb} shapes cannot be multiplied "
                                 f"({'x'.join(map(str, a.shape))} and "
                                 f"{'x'.join(map(str, b.shape))})", a.shape[da], b.shape[db])


@function_and_method
def mm(input, mat2):
    """The matrix product of the 2-D ``input`` (n, m) and ``mat2`` (m, p).

    >>> import ember.torch as torch
    >>> torch.mm(torch.ones(2, 3), torch.ones(3, 1)).tolist()
    [[3.0], [3.0]]
    """
    a, b = tensor_arg(input, "mm"), tensor_arg(mat2, "mm", "mat2")
    _rank(a, 2, "mm", "input")
    _rank(b, 2, "mm", "mat2")
    _inner_sizes("mm", a, b, 1, 0, "input", "mat2")
    return _e.matmul(*promoted("mm", a, b))


@function_and_method
def bmm(input, mat2):
    """The batched matrix product of the 3-D ``input`` (b, n, m) and ``mat2`` (b, m, p).

    >>> import ember.torch as torch
    >>> torch.bmm(torch.ones(2, 1, 3), torch.ones(2, 3, 2)).shape
    torch.Size([2, 1, 2])
    """
    a, b = tensor_arg(input, "bmm"), tensor_arg(mat2, "bmm", "mat2")
    _rank(a, 3, "bmm", "input")
    _rank(b, 3, "bmm", "mat2")
    if a.shape[0] != b.shape[0]:
        raise ShapeMismatchError(f"bmm: batch sizes differ: input {tuple(a.shape)}, mat2 "
                                 f"{tuple(b.shape)}", a.shape[0], b.shape[0])
    _inner_sizes("bmm", a, b, 2, 1, "input", "mat2")
    return _e.matmul(*promoted("bmm", a, b))


@function_and_method
def mv(input, vec):
    """The product of the matrix ``input`` (n, m) and the vector ``vec`` (m,).

    >>> import ember.torch as torch
    >>> torch.mv(torch.eye(2), torch.tensor([1.0, 2.0])).tolist()
    [1.0, 2.0]
    """
    a, v = tensor_arg(input, "mv"), tensor_arg(vec, "mv", "vec")
    _rank(a, 2, "mv", "input")
    _rank(v, 1, "mv", "vec")
    _inner_sizes("mv", a, v, 1, 0, "input", "vec")
    return _e.matmul(*promoted("mv", a, v))


def _scaled_sum(op, input, product, beta, alpha):
    """``beta * input + alpha * product`` with ``input`` broadcast to the product's shape; a
    ``beta`` of 0 ignores ``input`` (NaN and inf in it do not propagate), as PyTorch."""
    x = tensor_arg(input, op)
    try:
        out_shape = broadcast_shapes(tuple(x.shape), tuple(product.shape), op=op)
    except ShapeMismatchError:
        out_shape = None
    if out_shape != tuple(product.shape):
        raise ShapeMismatchError(f"{op}: input of shape {tuple(x.shape)} does not broadcast to "
                                 f"the product's shape {tuple(product.shape)}",
                                 tuple(product.shape), tuple(x.shape))
    for name, v in (("beta", beta), ("alpha", alpha)):
        if isinstance(v, bool) or not isinstance(v, (int, float, complex)):
            raise InvalidParameterError(f"{op}: {name} must be a number, got {v!r}", name, v)
    x, product = promoted(op, x, product)
    out = product if alpha == 1 else product * alpha
    if beta == 0:
        return out if x.shape == out.shape else out + _e.zeros_like(x)
    return (x if beta == 1 else x * beta) + out


@function_and_method
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to (n, p).

    >>> import ember.torch as torch
    >>> torch.addmm(torch.zeros(2, 2), torch.eye(2), torch.eye(2), alpha=3).tolist()
    [[3.0, 0.0], [0.0, 3.0]]
    """
    return _scaled_sum("addmm", input, mm(mat1, mat2), beta, alpha)


@function_and_method
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``.

    >>> import ember.torch as torch
    >>> torch.addmv(torch.ones(2), torch.eye(2), torch.tensor([1.0, 2.0])).tolist()
    [2.0, 3.0]
    """
    return _scaled_sum("addmv", input, mv(mat, vec), beta, alpha)


@function_and_method
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)``.

    >>> import ember.torch as torch
    >>> torch.baddbmm(torch.ones(1), torch.ones(2, 1, 3), torch.ones(2, 3, 1)).flatten().tolist()
    [4.0, 4.0]
    """
    return _scaled_sum("baddbmm", input, bmm(batch1, batch2), beta, alpha)


@function_and_method
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``.

    >>> import ember.torch as torch
    >>> torch.addbmm(torch.zeros(1, 1), torch.ones(2, 1, 3), torch.ones(2, 3, 1)).tolist()
    [[6.0]]
    """
    return _scaled_sum("addbmm", input, tensor_arg(bmm(batch1, batch2), "addbmm").sum(0),
                       beta, alpha)


@function_and_method
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``.

    >>> import ember.torch as torch
    >>> torch.addr(torch.zeros(2, 2), torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0])).tolist()
    [[1.0, 3.0], [2.0, 6.0]]
    """
    return _scaled_sum("addr", input, ger(vec1, vec2), beta, alpha)


@function_and_method
def ger(input, vec2):
    """The outer product of the 1-D ``input`` and ``vec2`` (PyTorch's older name of ``outer``).

    >>> import ember.torch as torch
    >>> torch.ger(torch.tensor([1.0, 2.0]), torch.tensor([3.0])).tolist()
    [[3.0], [6.0]]
    """
    a, b = tensor_arg(input, "ger"), tensor_arg(vec2, "ger", "vec2")
    _rank(a, 1, "ger", "input")
    _rank(b, 1, "ger", "vec2")
    return _e.outer(*promoted("ger", a, b))


@function_and_method
def vdot(input, other):
    """The dot product of two 1-D tensors with ``input`` conjugated.

    >>> import ember.torch as torch
    >>> torch.vdot(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])).item()
    11.0
    """
    a, b = tensor_arg(input, "vdot"), tensor_arg(other, "vdot", "other")
    _rank(a, 1, "vdot", "input")
    _rank(b, 1, "vdot", "other")
    _inner_sizes("vdot", a, b, 0, 0, "input", "other")
    if a._dtype is not b._dtype:
        raise KindError(f"vdot: expected both vectors to have the same dtype, got "
                        f"{a.dtype.name} and {b.dtype.name}")
    return _e.dot(a.conj() if a.dtype.kind == "complex" else a, b)


@function_and_method
def inner(input, other):
    """The sum of products over the last dims of ``input`` and ``other`` (a product with a 0-d
    operand is elementwise): the result has shape ``input.shape[:-1] + other.shape[:-1]``.

    >>> import ember.torch as torch
    >>> torch.inner(torch.tensor([[1.0, 2.0]]), torch.tensor([[3.0, 4.0], [1.0, 0.0]])).tolist()
    [[11.0, 1.0]]
    """
    a, b = tensor_arg(input, "inner"), tensor_arg(other, "inner", "other")
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    _inner_sizes("inner", a, b, -1, -1, "input", "other")
    return tensordot(a, b, dims=([a.ndim - 1], [b.ndim - 1]))


@torch_function
def chain_matmul(*matrices):
    """The product of a chain of 2-D matrices (``torch.linalg.multi_dot``'s older spelling).

    >>> import ember.torch as torch
    >>> torch.chain_matmul(torch.eye(2), torch.ones(2, 3), torch.ones(3, 1)).tolist()
    [[3.0], [3.0]]
    """
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise InvalidParameterError("chain_matmul: expected one or more matrices, got none",
                                    "matrices", ())
    mats = [tensor_arg(m, "chain_matmul", f"matrices[{i}]") for i, m in enumerate(matrices)]
    for i, m in enumerate(mats):
        _rank(m, 2, "chain_matmul", f"matrices[{i}]")
    out = mats[0]
    for i, m in enumerate(mats[1:], 1):
        _inner_sizes("chain_matmul", out, m, 1, 0, f"matrices[{i - 1}]", f"matrices[{i}]")
        out = _e.matmul(*promoted("chain_matmul", out, m))
    return out.clone() if len(mats) == 1 else out


@function_and_method
def kron(input, other):
    """The Kronecker product: the blocks ``input[i] * other`` laid out on a grid (the operands
    are aligned on their last dims).

    >>> import ember.torch as torch
    >>> torch.kron(torch.eye(2), torch.tensor([[1.0, 2.0]])).tolist()
    [[1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0]]
    """
    a, b = promoted("kron", tensor_arg(input, "kron"), tensor_arg(other, "kron", "other"))
    n = max(a.ndim, b.ndim)
    sa = (1,) * (n - a.ndim) + tuple(a.shape)
    sb = (1,) * (n - b.ndim) + tuple(b.shape)
    ia = tuple(itertools.chain.from_iterable((s, 1) for s in sa))
    ib = tuple(itertools.chain.from_iterable((1, s) for s in sb))
    out = reshape(a, ia) * reshape(b, ib)
    return reshape(out, tuple(x * y for x, y in zip(sa, sb)))


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _dim_list(dims, ndim, op, param):
    if isinstance(dims, _T):
        dims = dims.tolist()
    if isinstance(dims, int):
        dims = [dims]
    return [dim_arg(d, ndim, op, param) for d in dims]


@torch_function
def tensordot(a, b, dims=2):
    """The sum of products over ``dims``: an int (the last ``dims`` dims of ``a`` with the first
    of ``b``) or two lists of dims.

    >>> import ember.torch as torch
    >>> torch.tensordot(torch.ones(2, 3), torch.ones(3, 4), dims=1).shape
    torch.Size([2, 4])
    >>> torch.tensordot(torch.ones(2, 3), torch.ones(3, 2), dims=([0, 1], [1, 0])).item()
    6.0
    """
    a, b = promoted("tensordot", tensor_arg(a, "tensordot", "a"),
                    tensor_arg(b, "tensordot", "b"))
    if isinstance(dims, (tuple, list)) and len(dims) == 2:
        da = _dim_list(dims[0], a.ndim, "tensordot", "dims")
        db = _dim_list(dims[1], b.ndim, "tensordot", "dims")
    elif isinstance(dims, (tuple, list)) or (isinstance(dims, _T) and dims.ndim != 0):
        raise InvalidParameterError(f"tensordot: dims must be an int or a pair of dim lists, got "
                                    f"{dims!r}", "dims", dims)
    else:
        k = as_int(dims, "tensordot", "dims")
        if k < 0 or k > min(a.ndim, b.ndim):
            raise InvalidParameterError(f"tensordot: dims {k} must be in [0, "
                                        f"{min(a.ndim, b.ndim)}] for operands of ranks "
                                        f"{a.ndim} and {b.ndim}", "dims", k)
        da, db = list(range(a.ndim - k, a.ndim)), list(range(k))
    if len(da) != len(db):
        raise ShapeMismatchError(f"tensordot: both sides of dims must name as many dims, got "
                                 f"{da} and {db}", len(da), len(db))
    for i, j in zip(da, db):
        if a.shape[i] != b.shape[j]:
            raise ShapeMismatchError(f"tensordot: contracted dims differ in size: a's dim {i} is "
                                     f"{a.shape[i]}, b's dim {j} is {b.shape[j]}",
                                     a.shape[i], b.shape[j])
    sa = list(_LETTERS[:a.ndim])
    sb = list(_LETTERS[a.ndim:a.ndim + b.ndim])
    for i, j in zip(da, db):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in da] + [c for j, c in enumerate(sb)
                                                          if j not in db]
    return _e.einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


@function_and_method
def cross(input, other, dim=None):
    """The cross product of 3-vectors along ``dim``; without ``dim``, along the first dim of
    size 3 (PyTorch's default, which ``torch.linalg.cross``'s ``dim=-1`` replaces).

    >>> import ember.torch as torch
    >>> torch.cross(torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    a, b = tensor_arg(input, "cross"), tensor_arg(other, "cross", "other")
    shape = broadcast_shapes(tuple(a.shape), tuple(b.shape), op="cross")
    if dim is None:
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise ShapeMismatchError(f"cross: no dim of size 3 in the broadcast shape {shape}",
                                     3, shape)
    d = dim_arg(dim, len(shape), "cross")
    if shape[d] != 3:
        raise ShapeMismatchError(f"cross: dim {dim} has size {shape[d]}; expected 3", 3, shape[d])
    a, b = promoted("cross", a.expand(shape), b.expand(shape))
    return _e.cross(a, b, d)


@torch_function
def cartesian_prod(*tensors):
    """Every combination of one element of each 1-D tensor, as rows (a single tensor is
    returned as it is).

    >>> import ember.torch as torch
    >>> torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4])).tolist()
    [[1, 3], [1, 4], [2, 3], [2, 4]]
    """
    ts = [tensor_arg(t, "cartesian_prod", f"tensors[{i}]") for i, t in enumerate(tensors)]
    if not ts:
        raise InvalidParameterError("cartesian_prod: expected one or more tensors, got none",
                                    "tensors", ())
    for i, t in enumerate(ts):
        _rank(t, 1, "cartesian_prod", f"tensors[{i}]")
    if len(ts) == 1:
        return ts[0]
    ts = promoted("cartesian_prod", *ts)
    n = len(ts)
    cols = []
    for i, t in enumerate(ts):
        shape = tuple(t.shape[0] if j == i else 1 for j in range(n))
        full = tuple(u.shape[0] for u in ts)
        cols.append(reshape(reshape(t, shape).expand(full), (-1,)))
    return _e.stack(cols, 1)


@torch_function
def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of the elements of the 1-D ``input`` (as
    ``itertools.combinations``, or ``combinations_with_replacement``), as rows.

    >>> import ember.torch as torch
    >>> torch.combinations(torch.tensor([1, 2, 3])).tolist()
    [[1, 2], [1, 3], [2, 3]]
    """
    x = tensor_arg(input, "combinations")
    _rank(x, 1, "combinations", "input")
    r = as_int(r, "combinations", "r")
    if r < 0:
        raise InvalidParameterError(f"combinations: r must be non-negative, got {r}", "r", r)
    if r == 0:
        return x[:0]
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(make(range(x.shape[0]), r))
    if not rows:
        return _e.zeros((0, r), dtype=x.dtype, device=x.device)
    index = _e.tensor([i for row in rows for i in row], dtype=_e.int64, device=x.device)
    return x[index].reshape(len(rows), r)


@torch_function
def block_diag(*tensors):
    """The tensors (0-, 1- or 2-D; a vector is one row) placed on the diagonal of a 2-D tensor.

    >>> import ember.torch as torch
    >>> torch.block_diag(torch.tensor([[1, 2]]), torch.tensor(3)).tolist()
    [[1, 2, 0], [0, 0, 3]]
    """
    blocks = []
    for i, t in enumerate(tensors):
        t = tensor_arg(t, "block_diag", f"tensors[{i}]")
        if t.ndim > 2:
            raise ShapeMismatchError(f"block_diag: tensors[{i}] has {t.ndim} dims; expected 0, "
                                     "1 or 2", 2, t.ndim)
        if t.ndim < 2:
            t = reshape(t, (1, t.numel()))
        blocks.append(t)
    if not blocks:
        return _e.zeros((0, 0))
    blocks = promoted("block_diag", *blocks)
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        parts = [_e.zeros((r, left), dtype=b.dtype, device=b.device), b,
                 _e.zeros((r, width - left - c), dtype=b.dtype, device=b.device)]
        rows.append(_e.cat(parts, 1))
        left += c
    return _e.cat(rows, 0)


@function_and_method
def trace(input):
    """The sum of the diagonal of the 2-D ``input`` (ints sum to int64).

    >>> import ember.torch as torch
    >>> torch.trace(torch.tensor([[1, 2], [3, 4]])).item()
    5
    """
    x = tensor_arg(input, "trace")
    _rank(x, 2, "trace", "input")
    r, c = x.shape
    n = min(r, c)
    diag = x.reshape(-1)[::c + 1][:n] if n else x.reshape(-1)[:0]
    return diag.sum()


def _tri_indices(op, row, col, offset, dtype, device, upper):
    row = as_int(row, op, "row")
    col = as_int(col, op, "col")
    offset = as_int(offset, op, "offset")
    for name, v in (("row", row), ("col", col)):
        if v < 0:
            raise InvalidParameterError(f"{op}: {name} must be non-negative, got {v}", name, v)
    if dtype is not None and dtype not in (_e.int64, _e.int32):
        raise KindError(f"{op}: dtype must be torch.int64 or torch.int32, got {dtype}")
    pairs = [(i, j) for i in range(row) for j in range(col)
             if (j - i >= offset if upper else j - i <= offset)]
    data = [[p[0] for p in pairs], [p[1] for p in pairs]]
    return reshape(_e.tensor(data, dtype=dtype or _e.int64, device=device), (2, len(pairs)))


@torch_function
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of the lower triangle of a ``row`` x ``col`` matrix,
    ``offset`` diagonals above the main one included.

    >>> import ember.torch as torch
    >>> torch.tril_indices(2, 2).tolist()
    [[0, 1, 1], [0, 0, 1]]
    """
    return _tri_indices("tril_indices", row, col, offset, dtype, device, upper=False)


@torch_function
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of the upper triangle of a ``row`` x ``col`` matrix,
    from the ``offset``-th diagonal on.

    >>> import ember.torch as torch
    >>> torch.triu_indices(2, 2).tolist()
    [[0, 0, 1], [0, 1, 1]]
    """
    return _tri_indices("triu_indices", row, col, offset, dtype, device, upper=True)


@function_and_method
def matrix_power(input, n):
    """The ``n``-th power of each square matrix (a negative ``n`` inverts): ``linalg``'s.

    >>> import ember.torch as torch
    >>> torch.tensor([[1.0, 1.0], [0.0, 1.0]]).matrix_power(3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """
    return _e.linalg.matrix_power(tensor_arg(input, "matrix_power"), n)


@function_and_method
def det(input):
    """The determinant of each square matrix (``torch.linalg.det``).

    >>> import ember.torch as torch
    >>> torch.tensor([[2.0, 0.0], [0.0, 3.0]]).det().item()
    6.0
    """
    return _e.linalg.det(tensor_arg(input, "det"))


@function_and_method
def slogdet(input):
    """``(sign, logabsdet)`` of each determinant (``torch.linalg.slogdet``).

    >>> import ember.torch as torch
    >>> sign, logabsdet = torch.tensor([[-1.0, 0.0], [0.0, 1.0]]).slogdet()
    >>> sign.item(), logabsdet.item()
    (-1.0, 0.0)
    """
    sign, logabs = _e.linalg.slogdet(tensor_arg(input, "slogdet"))
    return slogdet_result(sign, logabs)


@function_and_method
def logdet(input):
    """The log of each determinant: NaN where it is negative, -inf where it is 0.

    >>> import ember.torch as torch
    >>> torch.tensor([[2.0, 0.0], [0.0, 0.5]]).logdet().item()
    0.0
    """
    x = tensor_arg(input, "logdet")
    sign, logabs = _e.linalg.slogdet(x)
    return logabs + sign.log()  # log(1) = 0, log(-1) = NaN, log(0) = -inf


@function_and_method
def inverse(input):
    """The inverse of each square matrix (``torch.linalg.inv``).

    >>> import ember.torch as torch
    >>> torch.tensor([[2.0, 0.0], [0.0, 4.0]]).inverse().tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return _e.linalg.inv(tensor_arg(input, "inverse"))


@function_and_method
def pinverse(input, rcond=1e-15):
    """The pseudo-inverse, singular values below ``rcond`` times the largest dropped.

    >>> import ember.torch as torch
    >>> torch.tensor([[2.0, 0.0], [0.0, 0.0]]).pinverse().tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    return _e.linalg.pinv(tensor_arg(input, "pinverse"), rtol=rcond)


def _p_arg(p, op):
    if isinstance(p, bool) or not isinstance(p, (int, float)) or p < 0:
        raise InvalidParameterError(f"{op}: p must be a non-negative number, got {p!r}", "p", p)
    return float(p)


def _norm_last(diff, p):
    """The p-norm over the last dim (0: the count of non-zeros; inf: the largest magnitude)."""
    if p == 0:
        return (diff != 0).to(diff.dtype).sum(-1)
    return _e.linalg.vector_norm(diff, p, dim=-1)


@torch_function
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distance between each row of ``x1`` (*, P, M) and each row of ``x2``
    (*, R, M): shape (*, P, R).

    >>> import ember.torch as torch
    >>> torch.cdist(torch.tensor([[0.0, 0.0]]), torch.tensor([[3.0, 4.0], [0.0, 1.0]])).tolist()
    [[5.0, 1.0]]
    """
    a, b = tensor_arg(x1, "cdist", "x1"), tensor_arg(x2, "cdist", "x2")
    p = _p_arg(p, "cdist")
    for name, t in (("x1", a), ("x2", b)):
        if t.ndim < 2:
            raise ShapeMismatchError(f"cdist: {name} must have at least 2 dims, got shape "
                                     f"{tuple(t.shape)}", 2, t.ndim)
        if t.dtype.kind != "float":
            raise KindError(f"cdist: only float tensors are supported, {name} is "
                            f"{t.dtype.name}")
    if a.shape[-1] != b.shape[-1]:
        raise ShapeMismatchError(f"cdist: x1 and x2 must have the same number of columns, got "
                                 f"{a.shape[-1]} and {b.shape[-1]}", a.shape[-1], b.shape[-1])
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise InvalidParameterError(f"cdist: unknown compute_mode {compute_mode!r}",
                                    "compute_mode", compute_mode)
    a, b = promoted("cdist", a, b)
    batch = broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]), op="cdist")
    diff = a.unsqueeze(-2) - b.unsqueeze(-3)
    return reshape(_norm_last(diff, p), batch + (a.shape[-2], b.shape[-2]))


@torch_function
def pdist(input, p=2):
    """The p-norm distance between every pair of rows ``i < j`` of the 2-D ``input``, in
    row-major order of the pairs: shape (N * (N - 1) / 2,).

    >>> import ember.torch as torch
    >>> torch.pdist(torch.tensor([[0.0], [1.0], [3.0]])).tolist()
    [1.0, 3.0, 2.0]
    """
    x = tensor_arg(input, "pdist")
    _rank(x, 2, "pdist", "input")
    if x.dtype.kind != "float":
        raise KindError(f"pdist: only float tensors are supported, got {x.dtype.name}")
    p = _p_arg(p, "pdist")
    n = x.shape[0]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    if not pairs:
        return _e.zeros((0,), dtype=x.dtype, device=x.device)
    i = _e.tensor([q[0] for q in pairs], dtype=_e.int64, device=x.device)
    j = _e.tensor([q[1] for q in pairs], dtype=_e.int64, device=x.device)
    return _norm_last(x[i] - x[j], p)


@function_and_method
def dist(input, other, p=2):
    """The p-norm of ``input - other`` (broadcast), over every element.

    >>> import ember.torch as torch
    >>> torch.dist(torch.tensor([0.0, 0.0]), torch.tensor([3.0, 4.0])).item()
    5.0
    """
    a, b = tensor_arg(input, "dist"), tensor_arg(other, "dist", "other")
    p = _p_arg(p, "dist")
    if a.dtype.kind != "float" or b.dtype.kind != "float":
        raise KindError(f"dist: expected float tensors, got {a.dtype.name} and {b.dtype.name}")
    a, b = promoted("dist", a, b)
    return _norm_last((a - b).reshape(-1), p)


@function_and_method
def renorm(input, p, dim, maxnorm):
    """Each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to norm
    ``maxnorm`` (by ``maxnorm / (norm + 1e-7)``, as PyTorch).

    >>> import ember.torch as torch
    >>> torch.renorm(torch.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0).tolist()
    [[0.6000000238418579, 0.800000011920929], [0.30000001192092896, 0.4000000059604645]]
    """
    x = tensor_arg(input, "renorm")
    if x.dtype.kind not in ("float", "complex"):
        raise KindError(f"renorm: expected a float tensor, got {x.dtype.name}")
    p = _p_arg(p, "renorm")
    if p == 0:
        raise InvalidParameterError("renorm: p must be positive, got 0", "p", p)
    if isinstance(maxnorm, bool) or not isinstance(maxnorm, (int, float)) or maxnorm < 0:
        raise InvalidParameterError(f"renorm: maxnorm must be a non-negative number, got "
                                    f"{maxnorm!r}", "maxnorm", maxnorm)
    if x.ndim < 2:
        raise DimensionError(f"renorm: input needs at least 2 dims, got {x.ndim}")
    d = dim_arg(dim, x.ndim, "renorm")
    others = tuple(i for i in range(x.ndim) if i != d)
    norm = _e.linalg.vector_norm(x, p, dim=others, keepdim=True)
    factor = _e.where(norm > maxnorm, maxnorm / (norm + 1e-7), _e.ones_like(norm))
    return x * factor


def _value_arg(value, op):
    if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
        raise InvalidParameterError(f"{op}: value must be a number, got {value!r}", "value",
                                    value)
    return value


@function_and_method
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2`` (broadcast).

    >>> import ember.torch as torch
    >>> torch.addcmul(torch.ones(2), torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]),
    ...               value=0.5).tolist()
    [2.5, 5.0]
    """
    x, t1, t2 = (tensor_arg(input, "addcmul"), tensor_arg(tensor1, "addcmul", "tensor1"),
                 tensor_arg(tensor2, "addcmul", "tensor2"))
    value = _value_arg(value, "addcmul")
    broadcast_shapes(tuple(x.shape), tuple(t1.shape), tuple(t2.shape), op="addcmul")
    prod = t1 * t2
    return x + (prod if value == 1 else prod * value)


@function_and_method
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2`` (broadcast; integer division is refused, as in
    PyTorch).

    >>> import ember.torch as torch
    >>> torch.addcdiv(torch.ones(2), torch.tensor([1.0, 2.0]), torch.tensor([4.0, 4.0])).tolist()
    [1.25, 1.5]
    """
    x, t1, t2 = (tensor_arg(input, "addcdiv"), tensor_arg(tensor1, "addcdiv", "tensor1"),
                 tensor_arg(tensor2, "addcdiv", "tensor2"))
    value = _value_arg(value, "addcdiv")
    if t1.dtype.kind in ("int", "bool") and t2.dtype.kind in ("int", "bool"):
        raise KindError("addcdiv: integer division of tensor1 by tensor2 is not supported; "
                        "use a float tensor or torch.floor_divide")
    broadcast_shapes(tuple(x.shape), tuple(t1.shape), tuple(t2.shape), op="addcdiv")
    quot = t1 / t2
    return x + (quot if value == 1 else quot * value)

