"""PyTorch's index family, as ``torch.*`` functions and ``Tensor`` methods: ``index_select``,
``index_add``/``index_copy``/``index_fill``/``index_reduce``/``index_put``, ``masked_select``,
``masked_scatter``, ``scatter_add``/``scatter_reduce``, ``take``/``put``, the diagonals
(``diag``, ``diag_embed``, ``diagflat``, ``diagonal``) and the ``*_scatter`` inverses of
``diagonal``, ``select`` and slicing, and ``nonzero_static``.

Each is a composition of ember's indexing ops (``select``, ``select_assign``, ``scatter``,
``scatter_nd``, masks and slicing), so gradients flow to the tensor and to the values to any
order on both backends. As PyTorch's, a 0-d tensor counts as one element along dim 0 or -1,
and the values must have the tensor's dtype (``KindError`` otherwise). For the
``amax``/``amin`` reductions, values tied with the result share its gradient evenly, as
PyTorch's do.

>>> import ember.torch as torch
>>> x = torch.zeros(3, 2)
>>> x.index_add(0, torch.tensor([0, 2, 0]), torch.ones(3, 2)).tolist()
[[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]
>>> torch.diagonal(torch.arange(9).reshape(3, 3), 1).tolist()
[1, 5]
"""

import ember as _e

from .. import dtypes as _dt
from .._tensor import Tensor as _T
from ..errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import broadcast_shapes, normalize_dim
from ._tensor import as_torch, torch_function, torch_method

__all__ = []


def _both(fn):
    """Register ``fn`` as ``torch.<name>`` and as the method ``Tensor.<name>``."""
    torch_method(fn)
    return torch_function(fn)


def _tensor(t, op, param):
    if not isinstance(t, _T):
        raise KindError(f"{op}: {param} must be a Tensor, got {type(t).__name__}")
    return t


def _index(index, op, param="index", ndim=1):
    """An int index tensor of at most ``ndim`` dims."""
    _tensor(index, op, param)
    if index._dtype.kind != "int":
        raise KindError(f"{op}: {param} must be an int tensor, got dtype {index._dtype.name}")
    if index._data.ndim > ndim:
        raise ShapeMismatchError(f"{op}: {param} must have at most {ndim} dim(s), got shape "
                                 f"{tuple(index.shape)}", expected=ndim, actual=tuple(index.shape))
    return index.reshape(-1) if ndim == 1 else index


def _same_dtype(self, source, op, param="source"):
    if isinstance(source, _T) and source._dtype is not self._dtype:
        raise KindError(f"{op}: self ({self._dtype.name}) and {param} ({source._dtype.name}) "
                        "must have the same dtype")


def _lifted(self, dim, op):
    """(self as at least 1-D, its dim, whether it was 0-d)."""
    if self._data.ndim == 0:
        if dim not in (0, -1):
            raise DimensionError(f"{op}: dim {dim} is out of range for a 0-d tensor; expected "
                                 "0 or -1")
        return self.reshape(1), 0, True
    return self, normalize_dim(dim, self._data.ndim, op), False


def _source(source, shape, lifted):
    return source.reshape(shape) if lifted and isinstance(source, _T) else source


# -- index_* ----------------------------------------------------------------------------------

@_both
def index_select(input, dim, index):  # noqa: A002
    """``torch.index_select``: the slices of ``input`` at ``index`` (a 1-D or 0-d int tensor)
    along ``dim``.

    >>> import ember.torch as torch
    >>> torch.tensor([[1, 2], [3, 4]]).index_select(1, torch.tensor([1, 1, 0])).tolist()
    [[2, 2, 1], [4, 4, 3]]
    """
    op = "index_select"
    _tensor(input, op, "input")
    idx = _index(index, op)
    x, d, lifted = _lifted(input, dim, op)
    out = _T.select(x, d, idx)
    return out.reshape(()) if lifted and idx.numel() == 1 else out


def _index_update(input, dim, index, source, update, op):
    _tensor(input, op, "input")
    _same_dtype(input, source, op)
    idx = _index(index, op)
    x, d, lifted = _lifted(input, dim, op)
    shape = list(x.shape)
    shape[d] = idx.numel()
    if isinstance(source, _T):
        source = _source(source, shape, lifted)
    out = _T.select_assign(x, d, idx, source, update)
    return out.reshape(()) if lifted else out


@_both
def index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    """``torch.index_add``: ``alpha * source`` added into the slices at ``index`` along ``dim``
    (repeated indices accumulate).

    >>> import ember.torch as torch
    >>> x = torch.zeros(3)
    >>> x.index_add(0, torch.tensor([2, 2]), torch.tensor([1.0, 2.0]), alpha=2).tolist()
    [0.0, 0.0, 6.0]
    """
    _tensor(source, "index_add", "source")
    return _index_update(input, dim, index, source if alpha == 1 else source * alpha, "add",
                         "index_add")


@_both
def index_copy(input, dim, index, source):  # noqa: A002
    """``torch.index_copy``: the slices at ``index`` along ``dim`` replaced by ``source``'s.

    >>> import ember.torch as torch
    >>> torch.zeros(3).index_copy(0, torch.tensor([2, 0]), torch.tensor([1.0, 2.0])).tolist()
    [2.0, 0.0, 1.0]
    """
    _tensor(source, "index_copy", "source")
    return _index_update(input, dim, index, source, "assign", "index_copy")


@_both
def index_fill(input, dim, index, value):  # noqa: A002
    """``torch.index_fill``: the slices at ``index`` along ``dim`` set to ``value`` (a number
    or a 0-d tensor).

    >>> import ember.torch as torch
    >>> torch.zeros(2, 3).index_fill(1, torch.tensor([0, 2]), -1.0).tolist()
    [[-1.0, 0.0, -1.0], [-1.0, 0.0, -1.0]]
    """
    op = "index_fill"
    _tensor(input, op, "input")
    idx = _index(index, op)
    x, d, lifted = _lifted(input, dim, op)
    shape = list(x.shape)
    shape[d] = idx.numel()
    if isinstance(value, _T):
        if value._data.ndim:
            raise ShapeMismatchError(f"{op}: value must be a 0-d tensor or a number, got shape "
                                     f"{tuple(value.shape)}", expected=(),
                                     actual=tuple(value.shape))
        if _RANK[value._dtype.kind] > _RANK[x._dtype.kind]:
            raise KindError(f"{op}: value of dtype {value._dtype.name} can't be written into a "
                            f"{x._dtype.name} tensor")
        fill = value.to(x._dtype).expand(tuple(shape))
    else:
        from .creation import fill_for
        fill = _e.full(tuple(shape), fill_for(value, x._dtype, op), dtype=x._dtype,
                       device=x._device)
    out = _T.select_assign(x, d, idx, fill, "assign")
    return out.reshape(()) if lifted else out


_RANK = {"bool": 0, "int": 1, "float": 2, "complex": 3}


def _extreme(dtype, largest):
    """The value that never wins a max (``largest=False``) or a min, in ``dtype``."""
    if dtype.kind == "float":
        return float("-inf") if not largest else float("inf")
    if dtype.kind == "bool":
        return largest
    bits = 8 * dtype.itemsize
    unsigned = dtype.name.startswith("uint")
    low, high = (0, 2 ** bits - 1) if unsigned else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
    return high if largest else low


_REDUCE_UPDATE = {"sum": "add", "prod": "mul", "amax": "max", "amin": "min"}
_REDUCE_NEUTRAL = {"sum": 0, "prod": 1}


def _reduce(x, put, take, count_into, src, reduce, include_self, op, reduces):
    """The reduction ``reduce`` of ``src`` into ``x`` by ``put(x, values, update)``;
    ``take(r)`` reads ``r`` where each value of ``src`` lands, ``count_into(zeros)`` counts
    the values landing at each position (for "mean")."""
    if reduce not in reduces:
        raise InvalidParameterError(f"{op}: reduce {reduce!r} is unknown; expected one of "
                                    f"{', '.join(map(repr, reduces))}", "reduce", reduce)
    if not isinstance(include_self, bool):
        raise InvalidParameterError(f"{op}: include_self must be a bool, got {include_self!r}",
                                    "include_self", include_self)
    if reduce == "mean":
        counts = count_into(_e.zeros(tuple(x.shape), dtype=x._dtype, device=x._device))
        if include_self:
            total, counts = put(x, src, "add"), counts + 1
        else:
            total = put(put(x, 0, "assign"), src, "add")
        hit = counts > 0
        counts = counts.masked_fill(~hit, 1)
        mean = total // counts if x._dtype.kind == "int" else total / counts
        return _e.where(hit, mean, x) if not include_self else mean
    update = _REDUCE_UPDATE[reduce]
    if not include_self:
        neutral = _REDUCE_NEUTRAL.get(reduce)
        if neutral is None:
            neutral = _extreme(x._dtype, largest=(reduce == "amin"))
        x = put(x, neutral, "assign")
    out = put(x, src, update)
    if update in ("max", "min") and x._dtype.kind == "float":
        out = _split_ties(x, out, src, put, take)
    return out


def _split_ties(x, r, src, put, take):
    """``r``, the amax/amin of ``x`` and ``src``, with PyTorch's gradient: the values tied
    with the result share its gradient evenly (ember's own rule gives each the whole). Where
    the result is not finite, ember's rule stays."""
    rv = r.detach()
    on_self = (x.detach() == rv).to(x._dtype)
    on_src = (src.detach() == take(rv)).to(x._dtype)
    ties = put(on_self, on_src, "add").clamp(min=1)
    share_self, share_src = on_self / ties, on_src / take(ties)
    zero = _e.zeros((), dtype=x._dtype, device=x._device)
    mix = put(_e.where(on_self > 0, x * share_self, zero),
              _e.where(on_src > 0, src * share_src, zero), "add")
    exact = mix + (rv - mix).detach()  # the value of r, the gradient of the shares
    return _e.where(rv.isfinite(), exact, r)


@_both
def index_reduce(input, dim, index, source, reduce, *, include_self=True):  # noqa: A002
    """``torch.index_reduce``: ``source``'s slices reduced into the slices at ``index`` along
    ``dim`` by ``reduce`` ("prod", "mean", "amax" or "amin"), with the tensor's own values
    when ``include_self``.

    >>> import ember.torch as torch
    >>> x = torch.tensor([1.0, 5.0, 2.0])
    >>> x.index_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([3.0, 4.0, 6.0]), "amax").tolist()
    [4.0, 5.0, 6.0]
    >>> x.index_reduce(0, torch.tensor([0, 0]), torch.tensor([3.0, 4.0]), "mean",
    ...                include_self=False).tolist()
    [3.5, 5.0, 2.0]
    """
    op = "index_reduce"
    _tensor(input, op, "input")
    _tensor(source, op, "source")
    _same_dtype(input, source, op)
    idx = _index(index, op)
    x, d, lifted = _lifted(input, dim, op)
    shape = list(x.shape)
    shape[d] = idx.numel()
    src = _source(source, shape, lifted)
    if tuple(src.shape) != tuple(shape):
        raise ShapeMismatchError(f"{op}: source has shape {tuple(src.shape)}, expected "
                                 f"{tuple(shape)}", expected=tuple(shape), actual=tuple(src.shape))

    def put(t, values, update):
        return _T.select_assign(t, d, idx, values, update)

    def take(r):
        return _T.select(r, d, idx)

    def count_into(zeros):
        return put(zeros, _e.ones(tuple(shape), dtype=x._dtype, device=x._device), "add")

    out = _reduce(x, put, take, count_into, src, reduce, include_self, op,
                  ("prod", "mean", "amax", "amin"))
    return out.reshape(()) if lifted else out


def _broadcast(*tensors, op):
    """The tensors expanded to their common broadcast shape."""
    shape = broadcast_shapes(*(tuple(t.shape) for t in tensors), op=op)
    return [t if tuple(t.shape) == shape else t.expand(shape) for t in tensors]


def _mask_indices(mask):
    """The index tensors a bool mask stands for in an index tuple (one per mask dim)."""
    return list(_e.nonzero(mask, as_tuple=True))


@_both
def index_put(input, indices, values, accumulate=False):  # noqa: A002
    """``torch.index_put``: ``values`` written at ``input[indices]`` (a tuple of int or bool
    tensors), or added there when ``accumulate`` (repeated positions accumulate).

    >>> import ember.torch as torch
    >>> x = torch.zeros(2, 2)
    >>> x.index_put((torch.tensor([0, 0]), torch.tensor([1, 1])), torch.tensor(1.0), True).tolist()
    [[0.0, 2.0], [0.0, 0.0]]
    """
    op = "index_put"
    _tensor(input, op, "input")
    if not isinstance(indices, (tuple, list)):
        raise InvalidParameterError(f"{op}: indices must be a tuple of tensors, got "
                                    f"{type(indices).__name__}", "indices", indices)
    _tensor(values, op, "values")
    _same_dtype(input, values, op, "values")
    parts = []
    for k, t in enumerate(indices):
        _tensor(t, op, f"indices[{k}]")
        if t._dtype.kind == "bool":
            parts.extend(_mask_indices(t))
        elif t._dtype.kind == "int":
            parts.append(t)
        else:
            raise KindError(f"{op}: indices[{k}] must be an int or bool tensor, got dtype "
                            f"{t._dtype.name}")
    if len(parts) > input._data.ndim:
        raise DimensionError(f"{op}: too many indices ({len(parts)}) for a tensor of "
                             f"{input._data.ndim} dims")
    if not accumulate:
        out = input.clone()
        out[tuple(parts)] = values
        return out
    parts = _broadcast(*parts, op=op) if parts else parts
    batch = tuple(parts[0].shape) if parts else ()
    stacked = _e.stack([p.to(_dt.int64) for p in parts], -1)
    target = batch + tuple(input.shape[len(parts):])
    return _T.scatter_nd(input, stacked, values.expand(target), "add")


# -- masks ------------------------------------------------------------------------------------

def _bool_mask(mask, op):
    _tensor(mask, op, "mask")
    if mask._dtype.kind != "bool":
        raise KindError(f"{op}: expected a bool tensor for mask, got dtype {mask._dtype.name}")
    return mask


@_both
def masked_select(input, mask):  # noqa: A002
    """``torch.masked_select``: the 1-D tensor of the elements where ``mask`` (broadcast with
    ``input``) is True.

    >>> import ember.torch as torch
    >>> x = torch.tensor([[1, 2], [3, 4]])
    >>> x.masked_select(torch.tensor([True, False])).tolist()
    [1, 3]
    """
    op = "masked_select"
    _tensor(input, op, "input")
    mask = _bool_mask(mask, op)
    x, m = _broadcast(input, mask, op=op)
    return x.reshape(-1)[m.reshape(-1)]


@_both
def masked_scatter(input, mask, source):  # noqa: A002
    """``torch.masked_scatter``: the elements where ``mask`` is True replaced, in row-major
    order, by the leading elements of ``source``.

    >>> import ember.torch as torch
    >>> torch.zeros(2, 2).masked_scatter(torch.tensor([[True, False], [True, True]]),
    ...                                  torch.tensor([1.0, 2.0, 3.0, 4.0])).tolist()
    [[1.0, 0.0], [2.0, 3.0]]
    """
    op = "masked_scatter"
    _tensor(input, op, "input")
    mask = _bool_mask(mask, op)
    _tensor(source, op, "source")
    _same_dtype(input, source, op)
    x, m = _broadcast(input, mask, op=op)
    flat = m.reshape(-1)
    where = _e.nonzero(flat, as_tuple=True)[0]
    k = where.numel()
    if source.numel() < k:
        raise ShapeMismatchError(f"{op}: source has {source.numel()} elements, fewer than the "
                                 f"{k} True elements of mask", expected=k, actual=source.numel())
    out = _T.select_assign(x.reshape(-1), 0, where, source.reshape(-1)[:k], "assign")
    return out.reshape(tuple(x.shape))


# -- scatter ----------------------------------------------------------------------------------

def _scatter_src(input, dim, index, src, op):
    _tensor(input, op, "input")
    _tensor(index, op, "index")
    _tensor(src, op, "src")
    _same_dtype(input, src, op, "src")
    if index._dtype.kind != "int":
        raise KindError(f"{op}: index must be an int tensor, got dtype {index._dtype.name}")
    if src._data.ndim != index._data.ndim:
        raise ShapeMismatchError(f"{op}: index and src must have the same number of dims, got "
                                 f"{index._data.ndim} and {src._data.ndim}",
                                 expected=index._data.ndim, actual=src._data.ndim)
    d = normalize_dim(dim, max(input._data.ndim, 1), op)
    for k, (i, s) in enumerate(zip(index.shape, src.shape)):
        if i > s:
            raise ShapeMismatchError(f"{op}: index has shape {tuple(index.shape)}, larger than "
                                     f"src's {tuple(src.shape)} at dim {k}",
                                     expected=tuple(src.shape), actual=tuple(index.shape))
    if tuple(src.shape) != tuple(index.shape):
        src = src[tuple(slice(0, n) for n in index.shape)]
    return d, src


@_both
def scatter_add(input, dim, index, src):  # noqa: A002
    """``torch.scatter_add``: ``src``'s values added in at ``index`` along ``dim``
    (``out[index[i][j]][j] += src[i][j]`` for dim 0).

    >>> import ember.torch as torch
    >>> src = torch.tensor([1.0, 2.0, 3.0])
    >>> torch.zeros(3).scatter_add(0, torch.tensor([0, 2, 0]), src).tolist()
    [4.0, 0.0, 2.0]
    """
    op = "scatter_add"
    d, src = _scatter_src(input, dim, index, src, op)
    return _T.scatter(input, d, index, src, "add")


@_both
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):  # noqa: A002
    """``torch.scatter_reduce``: ``src``'s values reduced in at ``index`` along ``dim`` by
    ``reduce`` ("sum", "prod", "mean", "amax" or "amin"), with the tensor's own values when
    ``include_self``.

    >>> import ember.torch as torch
    >>> x = torch.tensor([1.0, 2.0, 3.0])
    >>> x.scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([5.0, 1.0, 7.0]), "amin").tolist()
    [1.0, 2.0, 3.0]
    >>> x.scatter_reduce(0, torch.tensor([0, 0]), torch.tensor([5.0, 1.0]), "sum",
    ...                  include_self=False).tolist()
    [6.0, 2.0, 3.0]
    """
    op = "scatter_reduce"
    d, src = _scatter_src(input, dim, index, src, op)

    def put(t, values, update):
        if not isinstance(values, _T):
            values = _e.full(tuple(index.shape), values, dtype=t._dtype, device=t._device)
        return _T.scatter(t, d, index, values, update)

    def take(r):
        return _T.gather(r, d, index)

    def count_into(zeros):
        return put(zeros, 1, "add")

    return _reduce(input, put, take, count_into, src, reduce, include_self, op,
                   ("sum", "prod", "mean", "amax", "amin"))


# -- take / put -------------------------------------------------------------------------------

@_both
def take(input, index):  # noqa: A002
    """``torch.take``: the elements of ``input`` read as 1-D at ``index`` (any shape; the
    result has its shape).

    >>> import ember.torch as torch
    >>> torch.tensor([[4, 3], [5, 7]]).take(torch.tensor([[0, 3], [-1, 1]])).tolist()
    [[4, 7], [7, 3]]
    """
    op = "take"
    _tensor(input, op, "input")
    idx = _index(index, op, ndim=64)
    return _T.take(input.reshape(-1), 0, idx)


@_both
def put(input, index, source, accumulate=False):  # noqa: A002
    """``torch.put``: ``source``'s elements written at ``index`` of ``input`` read as 1-D
    (added when ``accumulate``).

    >>> import ember.torch as torch
    >>> torch.zeros(2, 2).put(torch.tensor([3, 0]), torch.tensor([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 1.0]]
    """
    op = "put"
    _tensor(input, op, "input")
    _tensor(source, op, "source")
    _same_dtype(input, source, op)
    idx = _index(index, op, ndim=64)
    if idx.numel() != source.numel():
        raise ShapeMismatchError(f"{op}: index has {idx.numel()} elements and source "
                                 f"{source.numel()}; expected as many", expected=idx.numel(),
                                 actual=source.numel())
    out = _T.select_assign(input.reshape(-1), 0, idx.reshape(-1), source.reshape(-1),
                           "add" if accumulate else "assign")
    return out.reshape(tuple(input.shape))


# -- diagonals --------------------------------------------------------------------------------

def _diagonal_positions(n, m, offset, device):
    """The flat positions in an (n, m) matrix of its diagonal ``offset``."""
    if offset >= 0:
        length, start = max(0, min(n, m - offset)), offset
    else:
        length, start = max(0, min(n + offset, m)), -offset * m
    return _e.arange(length, device=device) * (m + 1) + start, length


def _to_end(input, dim1, dim2, op):
    nd = input._data.ndim
    if nd < 2:
        raise DimensionError(f"{op}: expected a tensor of at least 2 dims, got {nd}")
    d1, d2 = normalize_dim(dim1, nd, op), normalize_dim(dim2, nd, op)
    if d1 == d2:
        raise DimensionError(f"{op}: dim1 and dim2 cannot be the same dim, got {d1} and {d2}")
    return input.movedim((d1, d2), (-2, -1)), d1, d2


@_both
def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """``torch.diagonal``: the diagonal ``offset`` of the matrices in dims ``dim1``, ``dim2``,
    as the last dim (a copy, not a view).

    >>> import ember.torch as torch
    >>> torch.arange(6).reshape(2, 3).diagonal(-1).tolist()
    [3]
    """
    op = "diagonal"
    _tensor(input, op, "input")
    x, _, _ = _to_end(input, dim1, dim2, op)
    n, m = x.shape[-2], x.shape[-1]
    where, _ = _diagonal_positions(n, m, offset, x._device)
    return _T.select(x.reshape(tuple(x.shape[:-2]) + (n * m,)), -1, where)


@_both
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    """``torch.diagonal_scatter``: ``input`` with its ``diagonal(offset, dim1, dim2)``
    replaced by ``src``.

    >>> import ember.torch as torch
    >>> torch.zeros(2, 2).diagonal_scatter(torch.tensor([1.0, 2.0])).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    op = "diagonal_scatter"
    _tensor(input, op, "input")
    _tensor(src, op, "src")
    _same_dtype(input, src, op, "src")
    x, d1, d2 = _to_end(input, dim1, dim2, op)
    n, m = x.shape[-2], x.shape[-1]
    where, length = _diagonal_positions(n, m, offset, x._device)
    want = tuple(x.shape[:-2]) + (length,)
    if tuple(src.shape) != want:
        raise ShapeMismatchError(f"{op}: src has shape {tuple(src.shape)}, expected {want} (the "
                                 "diagonal's shape)", expected=want, actual=tuple(src.shape))
    flat = _T.select_assign(x.reshape(tuple(x.shape[:-2]) + (n * m,)), -1, where, src, "assign")
    return flat.reshape(tuple(x.shape)).movedim((-2, -1), (d1, d2))


@_both
def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """``torch.diag_embed``: matrices (in the new dims ``dim1``, ``dim2`` of the result) with
    the last dim of ``input`` on their diagonal ``offset``, zeros elsewhere.

    >>> import ember.torch as torch
    >>> torch.tensor([1, 2]).diag_embed(1).tolist()
    [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    """
    op = "diag_embed"
    _tensor(input, op, "input")
    nd = input._data.ndim + 1
    if nd < 2:
        raise DimensionError(f"{op}: expected a tensor of at least 1 dim, got a 0-d tensor")
    d1, d2 = normalize_dim(dim1, nd, op), normalize_dim(dim2, nd, op)
    if d1 == d2:
        raise DimensionError(f"{op}: dim1 and dim2 cannot be the same dim, got {d1} and {d2}")
    n = input.shape[-1]
    m = n + abs(offset)
    lead = tuple(input.shape[:-1])
    zeros = _e.zeros(lead + (m * m,), dtype=input._dtype, device=input._device)
    where, _ = _diagonal_positions(m, m, offset, input._device)
    flat = _T.select_assign(zeros, -1, where, input, "assign")
    return flat.reshape(lead + (m, m)).movedim((-2, -1), (d1, d2))


@_both
def diag(input, diagonal=0):  # noqa: A002
    """``torch.diag``: a vector's square matrix with it on the diagonal ``diagonal``, or a
    matrix's diagonal ``diagonal`` as a vector.

    >>> import ember.torch as torch
    >>> torch.diag(torch.tensor([1, 2])).tolist(), torch.tensor([[1, 2], [3, 4]]).diag(1).tolist()
    ([[1, 0], [0, 2]], [2])
    """
    op = "diag"
    _tensor(input, op, "input")
    nd = input._data.ndim
    if nd == 1:
        return diag_embed(input, diagonal)
    if nd == 2:
        return globals()["diagonal"](input, diagonal)
    raise DimensionError(f"{op}: supports 1-D or 2-D tensors, got a {nd}-D tensor")


@_both
def diagflat(input, offset=0):  # noqa: A002
    """``torch.diagflat``: the square matrix with ``input`` (flattened) on the diagonal
    ``offset``.

    >>> import ember.torch as torch
    >>> torch.tensor([[1, 2]]).diagflat().tolist()
    [[1, 0], [0, 2]]
    """
    _tensor(input, "diagflat", "input")
    return diag_embed(input.reshape(-1), offset)


# -- select / slice scatter -------------------------------------------------------------------

def _check_src(input, src, src_shape, op):
    _tensor(input, op, "input")
    _tensor(src, op, "src")
    _same_dtype(input, src, op, "src")
    if tuple(src.shape) != tuple(src_shape):
        raise ShapeMismatchError(f"{op}: src has shape {tuple(src.shape)}, expected "
                                 f"{tuple(src_shape)}", expected=tuple(src_shape),
                                 actual=tuple(src.shape))


@_both
def select_scatter(input, src, dim, index):  # noqa: A002
    """``torch.select_scatter``: ``input`` with its ``select(dim, index)`` replaced by ``src``.

    >>> import ember.torch as torch
    >>> torch.zeros(2, 2).select_scatter(torch.tensor([1.0, 2.0]), 0, -1).tolist()
    [[0.0, 0.0], [1.0, 2.0]]
    """
    op = "select_scatter"
    _tensor(input, op, "input")
    nd = input._data.ndim
    if nd == 0:
        raise DimensionError(f"{op}: cannot select from a 0-d tensor")
    d = normalize_dim(dim, nd, op)
    size = input.shape[d]
    if isinstance(index, bool) or not isinstance(index, int) or not -size <= index < size:
        raise DimensionError(f"{op}: index {index!r} is out of range for dim {d} of size {size}")
    shape = tuple(input.shape[:d]) + tuple(input.shape[d + 1:])
    _check_src(input, src, shape, op)
    idx = _e.tensor([index % size], device=input._device)
    return _T.select_assign(input, d, idx, src.unsqueeze(d), "assign")


@_both
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):  # noqa: A002
    """``torch.slice_scatter``: ``input`` with the slice ``start:end:step`` of ``dim``
    replaced by ``src``.

    >>> import ember.torch as torch
    >>> torch.zeros(4).slice_scatter(torch.tensor([1.0, 2.0]), 0, 1, None, 2).tolist()
    [0.0, 1.0, 0.0, 2.0]
    """
    op = "slice_scatter"
    _tensor(input, op, "input")
    nd = input._data.ndim
    d = normalize_dim(dim, max(nd, 1), op)
    if isinstance(step, bool) or not isinstance(step, int) or step <= 0:
        raise InvalidParameterError(f"{op}: step must be a positive int, got {step!r}",
                                    "step", step)
    positions = list(range(*slice(start, end, step).indices(input.shape[d])))
    shape = list(input.shape)
    shape[d] = len(positions)
    _check_src(input, src, shape, op)
    idx = _e.tensor(positions, dtype=_dt.int64, device=input._device)
    return _T.select_assign(input, d, idx, src, "assign")


# -- nonzero_static ---------------------------------------------------------------------------

@_both
def nonzero_static(input, *, size, fill_value=-1):  # noqa: A002
    """``torch.nonzero_static``: ``nonzero(input)`` cut or padded with ``fill_value`` rows to
    ``size`` rows.

    >>> import ember.torch as torch
    >>> torch.tensor([0, 3, 4]).nonzero_static(size=3).tolist()
    [[1], [2], [-1]]
    """
    op = "nonzero_static"
    _tensor(input, op, "input")
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise InvalidParameterError(f"{op}: size must be an int >= 0, got {size!r}", "size", size)
    found = _e.argwhere(input)
    n = found.shape[0]
    if n >= size:
        return found[:size]
    pad = _e.full((size - n, input._data.ndim), fill_value, dtype=_dt.int64,
                  device=input._device)
    return _e.cat([found, pad], 0)



# -- scatter / gather with PyTorch's keywords ---------------------------------------------------

@torch_function
def scatter(input, dim, index, src=None, *, value=None, reduce=None):  # noqa: A002
    """``torch.scatter``: ``input.scatter(dim, index, src)`` (or ``value=``, ``reduce=``).

    >>> import ember.torch as torch
    >>> torch.scatter(torch.zeros(3), 0, torch.tensor([2]), value=5.0).tolist()
    [0.0, 0.0, 5.0]
    """
    _tensor(input, "scatter", "input")
    return as_torch(input).scatter(dim, index, src, value=value, reduce=reduce)


def gather(input, dim, index, *, sparse_grad=False):  # noqa: A002
    """``torch.gather``: the elements along ``dim`` at ``index`` (``out[i][j] =
    input[index[i][j]][j]`` for dim 0); ``sparse_grad`` is accepted (gradients are dense).

    >>> import ember.torch as torch
    >>> torch.gather(torch.tensor([[1, 2], [3, 4]]), 1, torch.tensor([[1], [0]]),
    ...              sparse_grad=True).tolist()
    [[2], [3]]
    """
    _tensor(input, "gather", "input")
    return _T.gather(input, dim, index)


_both(gather)
