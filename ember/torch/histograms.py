"""PyTorch's counting and bucketing functions: ``histc``, ``histogram``, ``histogramdd``,
``bincount``, ``bucketize`` and ``searchsorted``.

Counts are sums of one-hot scatters (ember's ``scatter`` with ``"add"``); buckets are counts of
comparisons against the boundaries. None of them is differentiable, as in PyTorch.

>>> import ember.torch as torch
>>> torch.bincount(torch.tensor([0, 2, 2])).tolist()
[1, 0, 2]
>>> torch.bucketize(torch.tensor([0.5, 2.0, 9.0]), torch.tensor([1.0, 2.0, 3.0])).tolist()
[0, 1, 3]
"""

import builtins
from collections import namedtuple

import ember as _e

from .._tensor import Tensor as _T
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import as_int
from ._math_args import function_and_method, reshape, tensor_arg
from ._tensor import torch_function

__all__ = ["histc", "histogram", "histogramdd", "bincount", "bucketize", "searchsorted"]

histogram_result = namedtuple("histogram", ["hist", "bin_edges"])
histogramdd_result = namedtuple("histogramdd", ["hist", "bin_edges"])

_float = builtins.float


def _number(v, op, param):
    if isinstance(v, bool) or not isinstance(v, (int, _float)):
        raise InvalidParameterError(f"{op}: {param} must be a number, got {v!r}", param, v)
    return _float(v)


def _count(index, valid, size, weights, dtype, device):
    """The sum of ``weights`` (or of ones) of the valid entries of the flat ``index`` into
    ``size`` bins."""
    index = _e.where(valid, index, _e.zeros_like(index))
    values = _e.ones(tuple(index.shape), dtype=dtype, device=device) if weights is None else \
        weights.to(dtype)
    values = _e.where(valid, values, _e.zeros_like(values))
    return _e.zeros((size,), dtype=dtype, device=device).scatter(0, index, values, "add")


def _searchsorted(seq, values, right):
    """The insertion points of ``values`` into the sorted last dim of ``seq``: the count of
    boundaries below (``right``: at or below) each value; a NaN value goes last."""
    if seq.ndim == 1:
        cmp_seq = seq
        vals = values.unsqueeze(-1)
    else:
        cmp_seq = seq.unsqueeze(-2)  # (..., 1, M) against (..., N, 1)
        vals = values.unsqueeze(-1)
    hits = (cmp_seq <= vals) if right else (cmp_seq < vals)
    count = hits.to(_e.int64).sum(-1)
    if values.dtype.kind == "float":
        count = _e.where(values.isnan(), _e.full_like(count, seq.shape[-1]), count)
    return count


def _bounds_and_values(op, boundaries, values, param_b, param_v):
    seq = tensor_arg(boundaries, op, param_b)
    scalar = not isinstance(values, _T)
    if scalar:
        if isinstance(values, bool) or not isinstance(values, (int, _float)):
            raise InvalidParameterError(f"{op}: {param_v} must be a tensor or a number, got "
                                        f"{values!r}", param_v, values)
        vals = _e.tensor(values, dtype=seq.dtype, device=seq.device)
    else:
        vals = tensor_arg(values, op, param_v)
    if seq.dtype.kind == "complex" or vals.dtype.kind == "complex":
        raise KindError(f"{op}: complex tensors cannot be ordered")
    return seq, vals, scalar


@torch_function
def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The index of the bucket of each value of ``input`` between the sorted 1-D
    ``boundaries``: ``boundaries[i-1] < x <= boundaries[i]`` (``right``: ``<= x <``).

    >>> import ember.torch as torch
    >>> torch.bucketize(torch.tensor([1, 5]), torch.tensor([1, 3, 5]), right=True).tolist()
    [1, 3]
    """
    seq, vals, _ = _bounds_and_values("bucketize", boundaries, input, "boundaries", "input")
    if seq.ndim != 1:
        raise ShapeMismatchError(f"bucketize: boundaries must be 1-D, got shape "
                                 f"{tuple(seq.shape)}", 1, seq.ndim)
    out = _searchsorted(seq, vals, right)
    return out.to(_e.int32) if out_int32 else out


@torch_function
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where the values of ``input`` go into ``sorted_sequence`` (sorted along its last dim,
    1-D or with ``input``'s leading dims) to keep it sorted: the first such place, or the last
    with ``right=True`` / ``side="right"``; ``sorter`` sorts an unsorted sequence.

    >>> import ember.torch as torch
    >>> torch.searchsorted(torch.tensor([1, 3, 5, 7]), torch.tensor([3, 6])).tolist()
    [1, 3]
    """
    op = "searchsorted"
    seq, vals, scalar = _bounds_and_values(op, sorted_sequence, input, "sorted_sequence",
                                           "input")
    if side is not None:
        if side not in ("left", "right"):
            raise InvalidParameterError(f"{op}: side must be 'left' or 'right', got {side!r}",
                                        "side", side)
        if right and side == "left":
            raise InvalidParameterError(f"{op}: side='left' contradicts right=True", "side", side)
        right = side == "right"
    if seq.ndim == 0:
        raise ShapeMismatchError(f"{op}: sorted_sequence must have at least 1 dim", 1, 0)
    if sorter is not None:
        order = tensor_arg(sorter, op, "sorter")
        if tuple(order.shape) != tuple(seq.shape) or order.dtype.kind != "int":
            raise ShapeMismatchError(f"{op}: sorter must be an int tensor of the sequence's "
                                     f"shape {tuple(seq.shape)}", tuple(seq.shape),
                                     tuple(order.shape))
        seq = seq.gather(seq.ndim - 1, order.to(_e.int64))
    if seq.ndim > 1:
        if scalar or tuple(vals.shape[:-1]) != tuple(seq.shape[:-1]):
            raise ShapeMismatchError(f"{op}: the leading dims of sorted_sequence "
                                     f"{tuple(seq.shape[:-1])} and input "
                                     f"{tuple(vals.shape[:-1])} must match", tuple(seq.shape[:-1]),
                                     tuple(vals.shape[:-1]))
    out = _searchsorted(seq, vals, right)
    return out.to(_e.int32) if out_int32 else out


@function_and_method
def bincount(input, weights=None, minlength=0):
    """The count of each value of the 1-D non-negative int ``input`` (or the sum of its
    ``weights``): length ``max(input) + 1``, at least ``minlength``.

    >>> import ember.torch as torch
    >>> torch.tensor([1, 1, 3]).bincount(minlength=5).tolist()
    [0, 2, 0, 1, 0]
    """
    x = tensor_arg(input, "bincount")
    if x.ndim != 1:
        raise ShapeMismatchError(f"bincount: input must be 1-D, got shape {tuple(x.shape)}", 1,
                                 x.ndim)
    if x.dtype.kind != "int":
        raise KindError(f"bincount: input must be an int tensor, got {x.dtype.name}")
    minlength = as_int(minlength, "bincount", "minlength")
    if minlength < 0:
        raise InvalidParameterError(f"bincount: minlength must be non-negative, got {minlength}",
                                    "minlength", minlength)
    if x.numel() and bool((x < 0).any()):
        raise InvalidParameterError("bincount: input must be non-negative", "input", x)
    if weights is None:
        w, dtype = None, _e.int64
    else:
        w = tensor_arg(weights, "bincount", "weights")
        if tuple(w.shape) != tuple(x.shape):
            raise ShapeMismatchError(f"bincount: weights must have input's shape "
                                     f"{tuple(x.shape)}, got {tuple(w.shape)}", tuple(x.shape),
                                     tuple(w.shape))
        dtype = w.dtype if w.dtype.kind == "float" else _e.float64
    size = max(int(x.max().item()) + 1 if x.numel() else 0, minlength)
    return _count(x.to(_e.int64), _e.ones(tuple(x.shape), dtype=_e.bool_, device=x.device),
                  size, w, dtype, x.device)


def _bin_index(x, edges):
    """The bin of each value between the sorted ``edges`` (the last bin includes its right
    edge) and whether it falls inside them."""
    n = edges.shape[0] - 1
    index = _searchsorted(edges, x, True) - 1
    index = _e.where(x == edges[n], _e.full_like(index, n - 1), index)
    valid = (index >= 0) & (index < n) & ~x.isnan()
    return index.clamp(0, max(n - 1, 0)), valid


def _edges(op, x, bins, lo, hi, d):
    """The bin edges of dim ``d``: ``bins`` (a 1-D tensor of edges) or ``bins`` equal bins from
    ``lo`` to ``hi`` (the data's extremes when not given; widened by 0.5 when equal)."""
    if isinstance(bins, _T):
        e = tensor_arg(bins, op, "bins")
        if e.ndim != 1 or e.shape[0] < 1:
            raise ShapeMismatchError(f"{op}: bins must be a 1-D tensor of at least one edge, "
                                     f"got shape {tuple(e.shape)}", 1, tuple(e.shape))
        return e.to(x.dtype)
    n = as_int(bins, op, "bins")
    if n <= 0:
        raise InvalidParameterError(f"{op}: bins must be positive, got {n}", "bins", n)
    col = x[:, d]
    if lo is None:
        lo, hi = (_float(col.min().item()), _float(col.max().item())) if col.numel() else \
            (0.0, 1.0)
    if lo > hi:
        raise InvalidParameterError(f"{op}: range must be increasing, got ({lo}, {hi})",
                                    "range", (lo, hi))
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _e.linspace(lo, hi, n + 1, dtype=x.dtype, device=x.device)


def _histdd(op, points, bins, rng, weight, density):
    """The histogram of the rows of ``points`` (N, D) and the edges of each dim."""
    n, dims = points.shape
    if isinstance(bins, (list, tuple)):
        if len(bins) != dims:
            raise ShapeMismatchError(f"{op}: bins must give one entry per dim ({dims}), got "
                                     f"{len(bins)}", dims, len(bins))
        per_dim = list(bins)
    else:
        per_dim = [bins] * dims
    if rng is not None:
        rng = [_number(v, op, "range") for v in rng]
        if len(rng) != 2 * dims:
            raise ShapeMismatchError(f"{op}: range must give a (min, max) pair per dim, got "
                                     f"{len(rng)} numbers", 2 * dims, len(rng))
    edges = [_edges(op, points, b, rng[2 * d] if rng else None,
                    rng[2 * d + 1] if rng else None, d) for d, b in enumerate(per_dim)]
    w = None
    if weight is not None:
        w = tensor_arg(weight, op, "weight")
        if w.numel() != n:
            raise ShapeMismatchError(f"{op}: weight must hold one value per sample ({n}), got "
                                     f"shape {tuple(w.shape)}", n, tuple(w.shape))
        w = reshape(w, (n,))
    sizes = [e.shape[0] - 1 for e in edges]
    flat = _e.zeros((n,), dtype=_e.int64, device=points.device)
    valid = _e.ones((n,), dtype=_e.bool_, device=points.device)
    for d, e in enumerate(edges):
        index, ok = _bin_index(points[:, d], e)
        flat = flat * sizes[d] + index
        valid = valid & ok
    total = 1
    for s in sizes:
        total *= s
    hist = reshape(_count(flat, valid, total, w, points.dtype, points.device), tuple(sizes))
    if density:
        volume = None
        for d, e in enumerate(edges):
            width = reshape(e[1:] - e[:-1], tuple(sizes[d] if i == d else 1
                                                  for i in range(dims)))
            volume = width if volume is None else volume * width
        hist = hist / (hist.sum() * volume)
    return hist, edges


def _float_input(x, op):
    if x.dtype.kind != "float":
        raise KindError(f"{op}: input must be a float tensor, got {x.dtype.name}")


@function_and_method
def histogram(input, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """The histogram of the values of ``input``: ``bins`` equal bins over ``range`` (the
    data's extremes by default) or the given edges; ``(hist, bin_edges)``. The last bin
    includes its right edge; values outside are not counted.

    >>> import ember.torch as torch
    >>> hist, edges = torch.histogram(torch.tensor([1.0, 2.0, 2.0, 4.0]), 3)
    >>> hist.tolist(), edges.tolist()
    ([1.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0])
    """
    x = tensor_arg(input, "histogram")
    _float_input(x, "histogram")
    if weight is not None and tuple(weight.shape) != tuple(x.shape):
        raise ShapeMismatchError(f"histogram: weight must have input's shape {tuple(x.shape)}, "
                                 f"got {tuple(weight.shape)}", tuple(x.shape),
                                 tuple(weight.shape))
    hist, edges = _histdd("histogram", reshape(x, (x.numel(), 1)), bins, range, weight, density)
    return histogram_result(hist, edges[0])


@torch_function
def histogramdd(input, bins, *, range=None, weight=None, density=False):  # noqa: A002
    """The D-dimensional histogram of the rows of ``input`` (..., D): ``bins`` an int, one int
    per dim or one edge tensor per dim; ``(hist, bin_edges)`` with a tuple of edges (one per dim).

    >>> import ember.torch as torch
    >>> hist, edges = torch.histogramdd(torch.tensor([[0.0, 0.0], [1.0, 1.0]]), [2, 1])
    >>> hist.tolist()
    [[1.0], [1.0]]
    """
    x = tensor_arg(input, "histogramdd")
    _float_input(x, "histogramdd")
    if x.ndim < 1:
        raise ShapeMismatchError("histogramdd: input must have at least 1 dim", 1, 0)
    points = reshape(x, (-1, x.shape[-1])) if x.numel() else reshape(x, (0, x.shape[-1]))
    hist, edges = _histdd("histogramdd", points, bins, range, weight, density)
    return histogramdd_result(hist, tuple(edges))  # PyTorch: a tuple of edges


@function_and_method
def histc(input, bins=100, min=0, max=0):  # noqa: A002
    """The histogram of ``input`` in ``bins`` equal bins from ``min`` to ``max`` (the data's
    extremes when both are 0 or equal; widened by 1 when those are equal too); values outside
    are not counted. A float tensor of counts.

    >>> import ember.torch as torch
    >>> torch.tensor([1.0, 2.0, 1.0]).histc(bins=4, min=0, max=3).tolist()
    [0.0, 2.0, 1.0, 0.0]
    """
    x = tensor_arg(input, "histc")
    _float_input(x, "histc")
    n = as_int(bins, "histc", "bins")
    if n <= 0:
        raise InvalidParameterError(f"histc: bins must be positive, got {n}", "bins", n)
    lo, hi = _number(min, "histc", "min"), _number(max, "histc", "max")
    if lo > hi:
        raise InvalidParameterError(f"histc: max ({hi}) must not be less than min ({lo})", "max",
                                    hi)
    if lo == hi and x.numel():
        lo, hi = _float(x.min().item()), _float(x.max().item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    edges = _e.linspace(lo, hi, n + 1, dtype=x.dtype, device=x.device)
    index, valid = _bin_index(reshape(x, (-1,)), edges)
    return _count(index, valid, n, None, x.dtype, x.device)

