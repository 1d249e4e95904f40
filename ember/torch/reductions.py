"""PyTorch's reductions, scans and statistics: ``std``, the ``nan*`` family, ``quantile``,
``logsumexp``, ``amax``/``amin``/``aminmax``, ``mode``, ``sum``/``prod`` with ``dtype=``,
``diff``, ``gradient``, the trapezoid rules, ``cov``/``corrcoef``, ``argsort``, ``msort`` and
``unique``.

Each composes ember's ops (sums, sorts, gathers), so the differentiable ones have gradients of
every order.

>>> import ember.torch as torch
>>> x = torch.tensor([[1.0, float("nan"), 3.0], [4.0, 5.0, 6.0]])
>>> torch.nansum(x, 1).tolist(), x.nanmean(dim=1).tolist()
([4.0, 15.0], [2.0, 5.0])
>>> torch.quantile(torch.tensor([1.0, 2.0, 3.0, 4.0]), 0.5).item()
2.5
"""

import math
from collections import namedtuple

import ember as _e

from .._tensor import Tensor as _T
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import as_int
from ._math_args import (dim_aliases, dim_arg, dims_arg, dtype_arg, float_dtype,
                         function_and_method, promoted, reshape, tensor_arg, tensor_value)
from ._tensor import as_torch, torch_function
from .methods import sort_args

__all__ = ["std", "std_mean", "sum", "prod", "mean", "cumsum", "cumprod", "nansum", "nanmean",
           "amax", "amin", "aminmax", "logsumexp", "logcumsumexp", "nanmedian", "quantile",
           "nanquantile", "mode", "diff", "gradient", "trapezoid", "trapz",
           "cumulative_trapezoid", "cov", "corrcoef", "msort", "argsort", "unique",
           "unique_consecutive"]

aminmax_result = namedtuple("aminmax", ["min", "max"])
mode_result = namedtuple("mode", ["values", "indices"])
nanmedian_result = namedtuple("nanmedian", ["values", "indices"])

def _float_only(x, op):
    if x.dtype.kind not in ("float", "complex"):
        raise KindError(f"{op}: expected a float or complex tensor, got {x.dtype.name}")


def _squeeze(x, dims, keepdim):
    """``x`` (reduced with the dims kept) with ``dims`` removed unless ``keepdim``."""
    if keepdim or not dims:
        return x
    return reshape(x, tuple(s for i, s in enumerate(x.shape) if i not in dims))


def _bool_or_dim(dim, unbiased):
    # PyTorch's std(x, True): a bool in dim's place is unbiased
    return (None, dim) if isinstance(dim, bool) else (dim, unbiased)


# -- moments ------------------------------------------------------------------------------------

@function_and_method
def std(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """The standard deviation over ``dim`` (every dim by default), with Bessel's correction
    unless ``unbiased=False`` or another ``correction``; the dims are dropped unless
    ``keepdim``.

    >>> import ember.torch as torch
    >>> torch.std(torch.tensor([1.0, 3.0])).item()
    1.4142135381698608
    """
    x = tensor_arg(input, "std")
    _float_only(x, "std")
    dim, unbiased = _bool_or_dim(dim, unbiased)
    return _e.var(x, dim, unbiased, keepdim, correction=correction).sqrt()


@torch_function
@dim_aliases
def std_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim``, as ``std`` and ``mean``.

    >>> import ember.torch as torch
    >>> s, m = torch.std_mean(torch.tensor([1.0, 3.0]))
    >>> round(s.item(), 4), m.item()
    (1.4142, 2.0)
    """
    x = tensor_arg(input, "std_mean")
    _float_only(x, "std_mean")
    dim, unbiased = _bool_or_dim(dim, unbiased)
    var, mean = _e.var_mean(x, dim, unbiased, keepdim, correction=correction)
    return var.sqrt(), mean


# -- sums and products with dtype= ---------------------------------------------------------------

def _cast(x, dtype, op):
    dtype = dtype_arg(dtype, op)
    return x if dtype is None or dtype is x._dtype else x.to(dtype)


def _reduce(op, method, input, dim, keepdim, dtype):
    x = tensor_value(input, op)
    if dtype is not None:
        x = _cast(x, dtype, op)
    if (dim is None or type(dim) is int) and x.ndim:  # ember's own checks (the hot path)
        # (ember's method without its axis=/keepdims= renaming: the call passes no keywords)
        return _UNALIASED.get(method, method)(x, dim, keepdim)
    dims = dims_arg(dim, x.ndim, op) if dim is not None else None
    if dims is not None and x.ndim == 0:
        return method(x)
    return method(x, dims, keepdim)


# ember's reductions without the wrapper that renames axis=/keepdims= (shapes.dim_aliases)
_UNALIASED = {m: m.dim_aliases_of[0] for m in (_T.sum, _T.prod, _T.mean)
              if hasattr(m, "dim_aliases_of")}


@function_and_method
def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    """The sum over ``dim`` (every dim by default), computed in ``dtype`` if given (bools and
    ints sum to int64).

    >>> import ember.torch as torch
    >>> torch.tensor([[1, 2], [3, 4]]).sum(1, dtype=torch.float64).tolist()
    [3.0, 7.0]
    """
    return _reduce("sum", _T.sum, input, dim, keepdim, dtype)


@function_and_method
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """The product over ``dim`` (one dim or, with ``dim=None``, all), in ``dtype`` if given.

    >>> import ember.torch as torch
    >>> torch.prod(torch.tensor([[1, 2], [3, 4]]), 0).tolist()
    [3, 8]
    """
    x = tensor_arg(input, "prod")
    if dim is not None and not isinstance(dim, bool):
        dim = as_int(dim, "prod", "dim")  # PyTorch's prod takes one dim
    return _reduce("prod", _T.prod, x, dim, keepdim, dtype)


@torch_function
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean over ``dim`` (every dim by default) of a float or complex tensor (or of any
    tensor cast to ``dtype``).

    >>> import ember.torch as torch
    >>> torch.mean(torch.tensor([1, 2]), dtype=torch.float32).item()
    1.5
    """
    x = _cast(tensor_value(input, "mean"), dtype, "mean")
    _float_only(x, "mean")
    return _reduce("mean", _T.mean, x, dim, keepdim, None)


def _scan(op, method, input, dim, dtype):
    x = _cast(tensor_arg(input, op), dtype, op)
    d = dim_arg(dim, x.ndim, op)
    if x.ndim == 0:
        return method(reshape(x, (1,)), 0).reshape(())
    return method(x, d)


@function_and_method
def cumsum(input, dim, *, dtype=None):
    """The running sum along ``dim``, in ``dtype`` if given (bools and ints give int64).

    >>> import ember.torch as torch
    >>> torch.tensor([1, 2, 3]).cumsum(0, dtype=torch.float32).tolist()
    [1.0, 3.0, 6.0]
    """
    return _scan("cumsum", _T.cumsum, input, dim, dtype)


@function_and_method
def cumprod(input, dim, *, dtype=None):
    """The running product along ``dim``, in ``dtype`` if given.

    >>> import ember.torch as torch
    >>> torch.cumprod(torch.tensor([1.0, 2.0, 3.0]), 0).tolist()
    [1.0, 2.0, 6.0]
    """
    return _scan("cumprod", _T.cumprod, input, dim, dtype)


@function_and_method
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum over ``dim`` with NaNs counted as zero.

    >>> import ember.torch as torch
    >>> torch.tensor([1.0, float("nan"), 2.0]).nansum().item()
    3.0
    """
    x = _cast(tensor_arg(input, "nansum"), dtype, "nansum")
    if x.dtype.kind == "float":
        x = _e.where(x.isnan(), _e.zeros_like(x), x)
    return _reduce("nansum", _T.sum, x, dim, keepdim, None)


@function_and_method
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean over ``dim`` of the values that are not NaN (NaN where there are none).

    >>> import ember.torch as torch
    >>> torch.tensor([1.0, float("nan"), 2.0]).nanmean().item()
    1.5
    """
    x = _cast(tensor_arg(input, "nanmean"), dtype, "nanmean")
    if x.dtype.kind != "float":
        raise KindError(f"nanmean: expected a float tensor, got {x.dtype.name} (pass dtype=)")
    nan = x.isnan()
    total = _reduce("nanmean", _T.sum, _e.where(nan, _e.zeros_like(x), x), dim, keepdim, None)
    count = _reduce("nanmean", _T.sum, (~nan).to(x.dtype), dim, keepdim, None)
    return total / count


# -- extremes -----------------------------------------------------------------------------------

def _extreme(op, input, dim, keepdim, largest):
    x = tensor_arg(input, op)
    dims = dims_arg(dim, x.ndim, op)
    for d in dims:
        if x.shape[d] == 0:
            raise ShapeMismatchError(f"{op}: cannot reduce over dim {d} of size 0 (shape "
                                     f"{tuple(x.shape)}); expected a non-empty dim", 1, 0)
    if x.ndim == 0:
        return x.clone()
    kept = x.max_dims(list(dims)) if largest else x.min_dims(list(dims))
    return _squeeze(kept, dims, keepdim)


@function_and_method
def amax(input, dim=(), keepdim=False):
    """The largest value over ``dim`` (an int or a tuple; every dim when empty).

    >>> import ember.torch as torch
    >>> torch.amax(torch.tensor([[1, 5], [4, 2]]), 0).tolist()
    [4, 5]
    """
    return _extreme("amax", input, dim, keepdim, True)


@function_and_method
def amin(input, dim=(), keepdim=False):
    """The smallest value over ``dim`` (an int or a tuple; every dim when empty).

    >>> import ember.torch as torch
    >>> torch.tensor([[1, 5], [4, 2]]).amin(1).tolist()
    [1, 2]
    """
    return _extreme("amin", input, dim, keepdim, False)


@function_and_method
def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` over ``dim`` (every dim by default), a named tuple.

    >>> import ember.torch as torch
    >>> lo, hi = torch.aminmax(torch.tensor([3, 1, 2]))
    >>> lo.item(), hi.item()
    (1, 3)
    """
    if dim is not None:
        dim = as_int(dim, "aminmax", "dim")
    x = tensor_arg(input, "aminmax")
    lo = _extreme("aminmax", x, dim, keepdim, False)
    hi = _extreme("aminmax", x, dim, keepdim, True)
    if dim is None and keepdim:
        lo, hi = reshape(lo, (1,) * x.ndim), reshape(hi, (1,) * x.ndim)
    return aminmax_result(lo, hi)


def _shift(x, dims):
    """The largest finite-safe shift of a log-sum-exp: the max over ``dims`` (kept), detached,
    0 where it is infinite or the dims are empty."""
    if x.numel() == 0 or any(x.shape[d] == 0 for d in dims):
        shape = tuple(1 if i in dims else s for i, s in enumerate(x.shape))
        return _e.zeros(shape, dtype=x.dtype, device=x.device)
    m = x.detach().max_dims(list(dims)) if dims else x.detach()
    return _e.where(m.isinf(), _e.zeros_like(m), m)


@function_and_method
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input)))`` over ``dim`` (an int or a tuple), computed stably; ints and
    bools give the default float dtype.

    >>> import ember.torch as torch
    >>> round(torch.logsumexp(torch.tensor([0.0, 0.0]), 0).item(), 4)
    0.6931
    """
    x = tensor_arg(input, "logsumexp")
    x = x.to(float_dtype(x, "logsumexp")) if x.dtype.kind in ("int", "bool") else x
    dims = dims_arg(dim, x.ndim, "logsumexp")
    if x.ndim == 0:
        return x.clone()
    m = _shift(x, dims)
    out = (x - m).exp().sum_dims(list(dims)).log() + m if dims else x.clone()
    return _squeeze(out, dims, keepdim)


@function_and_method
def logcumsumexp(input, dim):
    """``log(cumsum(exp(input)))`` along ``dim``: a scan of pairwise log-add-exps over
    doubling strides, so values far apart in magnitude keep their precision.

    >>> import ember.torch as torch
    >>> [round(v, 4) for v in torch.tensor([-200.0, 0.0, 0.0]).logcumsumexp(0).tolist()]
    [-200.0, 0.0, 0.6931]
    """
    x = tensor_arg(input, "logcumsumexp")
    _float_only(x, "logcumsumexp")
    d = dim_arg(dim, x.ndim, "logcumsumexp")
    if x.ndim == 0:
        return x.clone()
    if x.dtype.kind == "complex":
        m = _shift(_e.real(x), (d,))
        return (x - m).exp().cumsum(d).log() + m
    n = x.shape[d]
    out, step = x, 1
    while step < n:
        pad = tuple(step if i == d else s for i, s in enumerate(x.shape))
        earlier = _e.cat([_e.full(pad, -math.inf, dtype=x.dtype, device=x.device),
                          out.narrow(d, 0, n - step)], d)
        out = _log_add_exp(out, earlier)
        step *= 2
    return out


def _log_add_exp(a, b):
    """``log(exp(a) + exp(b))``, stable; -inf with a zero gradient where both are -inf."""
    top = _e.maximum(a, b)
    gap = _e.where(top.isinf(), _e.zeros_like(a), a - b)
    out = top + (-gap.abs()).exp().log1p()
    both = top.detach() == -math.inf
    return _e.where(both, _e.full_like(out, -math.inf), out)


# -- order statistics ---------------------------------------------------------------------------

def _sorted_with_nan_count(x, d):
    """``x`` sorted along ``d`` (NaN last), the sorting indices and the count of non-NaN
    values per slice (kept dim)."""
    values, indices = _e.sort(x, d)
    valid = (~x.isnan()).to(_e.int64).sum(d, keepdim=True) if x.dtype.kind == "float" else \
        _e.full(tuple(1 if i == d else s for i, s in enumerate(x.shape)), x.shape[d],
                dtype=_e.int64, device=x.device)
    return values, indices, valid


@function_and_method
def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the values that are not NaN (NaN where there are none); with
    ``dim``, the named tuple ``(values, indices)``.

    >>> import ember.torch as torch
    >>> torch.tensor([1.0, float("nan"), 3.0, 2.0]).nanmedian().item()
    2.0
    """
    x = tensor_arg(input, "nanmedian")
    if dim is None:
        flat = reshape(x, (-1,))
        if flat.numel() == 0:
            return _e.full((), math.nan, dtype=x.dtype, device=x.device)
        values, _, valid = _sorted_with_nan_count(flat, 0)
        pos = ((valid - 1) // 2).clamp_min(0)
        return reshape(values.gather(0, pos), ())
    d = dim_arg(dim, x.ndim, "nanmedian")
    if x.ndim == 0:
        return nanmedian_result(x.clone(), _e.zeros((), dtype=_e.int64, device=x.device))
    if x.shape[d] == 0:
        raise ShapeMismatchError(f"nanmedian: cannot reduce over dim {d} of size 0 (shape "
                                 f"{tuple(x.shape)})", 1, 0)
    values, indices, valid = _sorted_with_nan_count(x, d)
    pos = ((valid - 1) // 2).clamp_min(0)
    return nanmedian_result(_squeeze(values.gather(d, pos), (d,), keepdim),
                            _squeeze(indices.gather(d, pos), (d,), keepdim))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op, input, q, dim, keepdim, interpolation, ignore_nan):
    x = tensor_arg(input, op)
    if x.dtype.kind != "float":
        raise KindError(f"{op}: input must be a float tensor, got {x.dtype.name}")
    if interpolation not in _INTERPOLATIONS:
        raise InvalidParameterError(f"{op}: interpolation must be one of {_INTERPOLATIONS}, got "
                                    f"{interpolation!r}", "interpolation", interpolation)
    scalar_q = not isinstance(q, _T)
    if scalar_q:
        if isinstance(q, bool) or not isinstance(q, (int, float)):
            raise InvalidParameterError(f"{op}: q must be a number or a tensor, got {q!r}", "q", q)
        qs = _e.tensor([float(q)], dtype=x.dtype, device=x.device)
    else:
        qs = tensor_arg(q, op, "q")
        if qs.ndim > 1:
            raise ShapeMismatchError(f"{op}: q must be a scalar or a 1-D tensor, got shape "
                                     f"{tuple(qs.shape)}", 1, qs.ndim)
        if qs._dtype is not x._dtype:
            raise KindError(f"{op}: q must have input's dtype {x.dtype.name}, got "
                            f"{qs.dtype.name}")
        qs = reshape(qs, (-1,))
    if qs.numel() and bool(((qs < 0) | (qs > 1)).any()):
        raise InvalidParameterError(f"{op}: q values must be in [0, 1]", "q", q)
    if dim is None:
        x = reshape(x, (-1,))
        d = 0
    else:
        d = dim_arg(dim, x.ndim, op)
        if x.ndim == 0:
            x = reshape(x, (1,))
    if x.shape[d] == 0:
        raise ShapeMismatchError(f"{op}: input must not be empty along the reduced dim", 1, 0)
    x = x.movedim(d, -1)
    values, _, valid = _sorted_with_nan_count(x, -1)  # (..., n), (..., 1)
    n = x.shape[-1]
    if ignore_nan:
        count = valid.to(x.dtype)
    else:
        count = _e.full(tuple(valid.shape), n, dtype=x.dtype, device=x.device)
    rank = qs * (count - 1)  # (..., nq)
    rank = rank.clamp_min(0)
    lower = rank.floor()
    if interpolation == "lower":
        rank = lower
    elif interpolation == "higher":
        rank = rank.ceil()
    elif interpolation == "nearest":
        rank = rank.round()
    lo_i = rank.floor().to(_e.int64).clamp(0, n - 1)
    hi_i = rank.ceil().to(_e.int64).clamp(0, n - 1)
    lo_v, hi_v = values.gather(-1, lo_i), values.gather(-1, hi_i)
    if interpolation == "midpoint":
        out = lo_v + (hi_v - lo_v) * 0.5
        out = _e.where(rank == lower, lo_v, out)
    elif interpolation == "linear":
        out = lo_v + (hi_v - lo_v) * (rank - lower)
    else:
        out = lo_v
    # a NaN in the slice (quantile), or no values at all (nanquantile), gives NaN
    missing = (valid < n) if not ignore_nan else (valid == 0)
    out = _e.where(missing.expand(tuple(out.shape)), _e.full_like(out, math.nan), out)
    out = out.movedim(-1, 0)  # (nq, ...)
    if keepdim:
        shape = list(input.shape) if dim is not None else [1] * input.ndim
        if dim is not None and input.ndim:
            shape[d] = 1
        out = reshape(out, (out.shape[0],) + tuple(shape))
    return reshape(out, tuple(out.shape[1:])) if scalar_q else out


@function_and_method
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles (``q`` a number or a 1-D tensor, its dim first in the result)
    over ``dim`` (all values by default); NaN where a slice holds a NaN.

    >>> import ember.torch as torch
    >>> torch.tensor([[1.0, 2.0, 4.0]]).quantile(torch.tensor([0.0, 0.75]), dim=1).tolist()
    [[1.0], [3.0]]
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@function_and_method
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``quantile`` of the values that are not NaN (NaN where there are none).

    >>> import ember.torch as torch
    >>> torch.tensor([1.0, float("nan"), 3.0]).nanquantile(0.5).item()
    2.0
    """
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


@function_and_method
def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest of equally frequent ones) and the
    index of its last occurrence, a named tuple ``(values, indices)``.

    >>> import ember.torch as torch
    >>> v, i = torch.tensor([2, 1, 1, 2, 3]).mode()
    >>> v.item(), i.item()
    (1, 2)
    """
    x = tensor_arg(input, "mode")
    d = dim_arg(dim, x.ndim, "mode")
    if x.ndim == 0:
        return mode_result(x.clone(), _e.zeros((), dtype=_e.int64, device=x.device))
    if x.shape[d] == 0:
        raise ShapeMismatchError(f"mode: cannot reduce over dim {d} of size 0", 1, 0)
    v = x.detach().movedim(d, -1)  # (..., n)
    n = v.shape[-1]
    s = _e.sort(v, -1).values
    counts = (s.unsqueeze(-1) == v.unsqueeze(-2)).to(_e.int64).sum(-1)  # per sorted value
    best = _e.argmax(counts, -1, True)  # the first: the smallest of the most frequent
    value = s.gather(-1, best)  # (..., 1)
    positions = _e.arange(n, device=x.device).expand(tuple(v.shape))
    last = _e.where(v == value, positions, _e.full_like(positions, -1)).max_dims([v.ndim - 1])
    index = last.movedim(-1, d)
    return mode_result(_squeeze(x.gather(d, index), (d,), keepdim),
                       _squeeze(index, (d,), keepdim))


# -- differences and integrals -------------------------------------------------------------------

@function_and_method
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``xor`` of neighbours for bools), after
    ``prepend`` and ``append`` are joined on.

    >>> import ember.torch as torch
    >>> torch.tensor([1, 4, 9, 16]).diff().tolist()
    [3, 5, 7]
    """
    x = tensor_arg(input, "diff")
    if x.ndim == 0:
        raise ShapeMismatchError("diff: expected at least a 1-D tensor, got a 0-d one", 1, 0)
    n = as_int(n, "diff", "n")
    if n < 0:
        raise InvalidParameterError(f"diff: n must be non-negative, got {n}", "n", n)
    d = dim_arg(dim, x.ndim, "diff")
    if n == 0:  # PyTorch joins nothing on then
        return x.clone()
    parts = []
    for name, extra in (("prepend", prepend), (None, x), ("append", append)):
        if extra is None:
            continue
        if name is not None:
            extra = tensor_arg(extra, "diff", name)
            if extra.ndim != x.ndim:
                raise ShapeMismatchError(f"diff: {name} must have as many dims as input "
                                         f"({x.ndim}), got {extra.ndim}", x.ndim, extra.ndim)
        parts.append(extra)
    if len(parts) > 1:
        x = _e.cat(promoted("diff", *parts), d)
    for _ in range(n):
        if x.shape[d] == 0:
            break
        hi = x.narrow(d, 1, x.shape[d] - 1)
        lo = x.narrow(d, 0, x.shape[d] - 1)
        x = hi.logical_xor(lo) if x.dtype.kind == "bool" else hi - lo
    return x


def _spacing(spacing, dims, x, op):
    """Per dim: ("uniform", h) or ("coords", 1-D tensor of coordinates)."""
    if isinstance(spacing, (int, float)) and not isinstance(spacing, bool):
        return [("uniform", float(spacing))] * len(dims)
    if isinstance(spacing, _T):
        spacing = [spacing]
    if not isinstance(spacing, (list, tuple)) or len(spacing) != len(dims):
        raise InvalidParameterError(f"{op}: spacing must be a number or a sequence of one "
                                    f"entry per dim ({len(dims)}), got {spacing!r}", "spacing",
                                    spacing)
    out = []
    for d, s in zip(dims, spacing):
        if isinstance(s, _T):
            s = tensor_arg(s, op, "spacing")
            if s.ndim == 0:
                out.append(("uniform", float(s.item())))
                continue
            if s.ndim != 1 or s.shape[0] != x.shape[d]:
                raise ShapeMismatchError(f"{op}: the coordinates of dim {d} must be a 1-D tensor "
                                         f"of size {x.shape[d]}, got shape {tuple(s.shape)}",
                                         x.shape[d], tuple(s.shape))
            out.append(("coords", s))
        elif isinstance(s, (int, float)) and not isinstance(s, bool):
            out.append(("uniform", float(s)))
        else:
            raise InvalidParameterError(f"{op}: spacing entries must be numbers or tensors, got "
                                        f"{s!r}", "spacing", s)
    return out


def _along(t, d, ndim):
    """A 1-D tensor shaped to broadcast along dim ``d`` of a rank-``ndim`` tensor."""
    return reshape(t, tuple(t.shape[0] if i == d else 1 for i in range(ndim)))


def _gradient_1d(f, d, kind, h, edge_order):
    """The central-difference gradient of ``f`` along ``d``, NumPy's and PyTorch's formulas."""
    n = f.shape[d]
    nd = f.ndim

    def sl(start, stop):
        return f.narrow(d, start, stop - start)

    if kind == "uniform":
        interior = (sl(2, n) - sl(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (sl(1, 2) - sl(0, 1)) / h
            last = (sl(n - 1, n) - sl(n - 2, n - 1)) / h
        else:
            first = (-1.5 * sl(0, 1) + 2 * sl(1, 2) - 0.5 * sl(2, 3)) / h
            last = (0.5 * sl(n - 3, n - 2) - 2 * sl(n - 2, n - 1) + 1.5 * sl(n - 1, n)) / h
        return _e.cat([first, interior, last], d)
    c = h.to(f.dtype) if h._dtype is not f._dtype else h
    dx = c[1:] - c[:-1]  # (n - 1,)
    dx1, dx2 = _along(dx[:-1], d, nd), _along(dx[1:], d, nd)
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    cc = dx1 / (dx2 * (dx1 + dx2))
    interior = a * sl(0, n - 2) + b * sl(1, n - 1) + cc * sl(2, n)
    if edge_order == 1:
        first = (sl(1, 2) - sl(0, 1)) / dx[0:1].reshape(())
        last = (sl(n - 1, n) - sl(n - 2, n - 1)) / dx[n - 2:n - 1].reshape(())
    else:
        h1, h2 = dx[0], dx[1]
        a0 = -(2 * h1 + h2) / (h1 * (h1 + h2))
        b0 = (h1 + h2) / (h1 * h2)
        c0 = -h1 / (h2 * (h1 + h2))
        first = a0 * sl(0, 1) + b0 * sl(1, 2) + c0 * sl(2, 3)
        h1, h2 = dx[n - 3], dx[n - 2]
        a1 = h2 / (h1 * (h1 + h2))
        b1 = -(h2 + h1) / (h1 * h2)
        c1 = (2 * h2 + h1) / (h2 * (h1 + h2))
        last = a1 * sl(n - 3, n - 2) + b1 * sl(n - 2, n - 1) + c1 * sl(n - 1, n)
    return _e.cat([first, interior, last], d)


@torch_function
@dim_aliases
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The gradient of ``input`` sampled on a grid, one tensor per dim in ``dim`` (every dim
    by default): central differences inside, one-sided ones of ``edge_order`` (1 or 2) at the
    edges. ``spacing`` is a number, one number per dim, or one coordinate tensor per dim.

    >>> import ember.torch as torch
    >>> torch.gradient(torch.tensor([1.0, 4.0, 9.0, 16.0]))[0].tolist()
    [3.0, 4.0, 6.0, 7.0]
    """
    x = tensor_arg(input, "gradient")
    if edge_order not in (1, 2):
        raise InvalidParameterError(f"gradient: edge_order must be 1 or 2, got {edge_order!r}",
                                    "edge_order", edge_order)
    if x.ndim == 0:
        raise ShapeMismatchError("gradient: expected at least a 1-D tensor", 1, 0)
    if dim is None:
        dims = list(range(x.ndim))
    elif isinstance(dim, (list, tuple)):
        dims = [dim_arg(d, x.ndim, "gradient") for d in dim]
    else:
        dims = [dim_arg(dim, x.ndim, "gradient")]
    spaces = _spacing(spacing, dims, x, "gradient")
    if x.dtype.kind in ("int", "bool"):
        x = x.to(_e.dtypes.default_float)
    out = []
    for d, (kind, h) in zip(dims, spaces):
        if x.shape[d] < edge_order + 1:
            raise ShapeMismatchError(f"gradient: dim {d} has {x.shape[d]} samples; expected at "
                                     f"least edge_order + 1 = {edge_order + 1}",
                                     edge_order + 1, x.shape[d])
        out.append(_gradient_1d(x, d, kind, h, edge_order))
    return tuple(out)


def _trapezoid_parts(op, y, x, dx, dim):
    """The widths of the intervals along ``dim`` (broadcastable) and ``y``, ready for the
    trapezoid rule."""
    y = tensor_arg(y, op, "y")
    if y.ndim == 0:
        raise ShapeMismatchError(f"{op}: y must have at least one dim, got a 0-d tensor", 1, 0)
    d = dim_arg(dim, y.ndim, op)
    if x is not None and dx is not None:
        raise InvalidParameterError(f"{op}: give x or dx, not both", "dx", dx)
    if y.dtype.kind in ("int", "bool"):
        y = y.to(_e.dtypes.default_float)
    if x is None:
        width = 1.0 if dx is None else dx
        if isinstance(width, bool) or not isinstance(width, (int, float)):
            raise InvalidParameterError(f"{op}: dx must be a number, got {dx!r}", "dx", dx)
        return y, d, float(width)
    x = tensor_arg(x, op, "x")
    n = y.shape[d]
    if x.ndim == 1:
        if x.shape[0] != n:
            raise ShapeMismatchError(f"{op}: x has {x.shape[0]} samples, y has {n} along dim "
                                     f"{dim}", n, x.shape[0])
        w = x[1:] - x[:-1]
        return y, d, _along(w, d, y.ndim)
    xd = dim_arg(dim, x.ndim, op)
    w = x.narrow(xd, 1, max(x.shape[xd] - 1, 0)) - x.narrow(xd, 0, max(x.shape[xd] - 1, 0))
    return y, d, w


@torch_function
@dim_aliases
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of ``y`` along ``dim`` by the trapezoid rule, at the sample points ``x``
    (or with the spacing ``dx``, 1 by default).

    >>> import ember.torch as torch
    >>> torch.trapezoid(torch.tensor([1.0, 2.0, 3.0])).item()
    4.0
    """
    y, d, w = _trapezoid_parts("trapezoid", y, x, dx, dim)
    n = y.shape[d]
    if n == 0:
        return _squeeze(y.sum(d, keepdim=True), (d,), False)
    mid = y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)
    return (mid * w).sum(d) / 2


@torch_function
@dim_aliases
def trapz(y, x=None, *, dx=None, dim=-1):
    """``trapezoid``'s older name.

    >>> import ember.torch as torch
    >>> torch.trapz(torch.tensor([1.0, 2.0, 3.0]), dx=2.0).item()
    8.0
    """
    return trapezoid(y, x, dx=dx, dim=dim)


@torch_function
@dim_aliases
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral of ``y`` along ``dim`` by the trapezoid rule (one value fewer than
    ``y`` has samples).

    >>> import ember.torch as torch
    >>> torch.cumulative_trapezoid(torch.tensor([1.0, 2.0, 3.0])).tolist()
    [1.5, 4.0]
    """
    y, d, w = _trapezoid_parts("cumulative_trapezoid", y, x, dx, dim)
    n = y.shape[d]
    if n == 0:
        return y
    mid = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) * w / 2
    return mid.cumsum(d) if n > 1 else mid


# -- covariance ---------------------------------------------------------------------------------

@function_and_method
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in the
    columns), with frequency and observation weights, as ``numpy.cov``.

    >>> import ember.torch as torch
    >>> torch.cov(torch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    x = tensor_arg(input, "cov")
    if x.ndim > 2:
        raise ShapeMismatchError(f"cov: expected input with at most 2 dims, got {x.ndim}", 2,
                                 x.ndim)
    if x.ndim < 2:
        x = reshape(x, (1, -1))
    if x.dtype.kind in ("int", "bool"):
        x = x.to(_e.dtypes.default_float)
    n = x.shape[1]
    w = None
    for name, weights, kinds in (("fweights", fweights, ("int",)),
                                 ("aweights", aweights, ("float",))):
        if weights is None:
            continue
        weights = tensor_arg(weights, "cov", name)
        if weights.ndim > 1 or weights.numel() != n:
            raise ShapeMismatchError(f"cov: {name} must be a 1-D tensor of {n} weights, got "
                                     f"shape {tuple(weights.shape)}", n, tuple(weights.shape))
        if weights.dtype.kind not in kinds:
            raise KindError(f"cov: {name} must be an {kinds[0]} tensor, got "
                            f"{weights.dtype.name}")
        if bool((weights < 0).any()):
            raise InvalidParameterError(f"cov: {name} must be non-negative", name, weights)
        weights = reshape(weights, (n,)).to(x.dtype)
        w = weights if w is None else w * weights
    if w is None:
        w_sum = float(n)
        avg = x.mean(1, keepdim=True)
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1, keepdim=True) / w_sum
    if correction == 0:
        norm = w_sum
    elif w is None:
        norm = w_sum - correction
    elif aweights is None:
        norm = w_sum - correction
    else:
        norm = w_sum - correction * (w * tensor_arg(aweights, "cov").to(x.dtype)).sum() / w_sum
    if isinstance(norm, float):
        norm = max(norm, 0.0)
    else:
        norm = norm.clamp_min(0)
    xc = x - avg
    xw = xc if w is None else xc * w
    c = _e.matmul(xw, xc.conj().transpose(0, 1) if x.dtype.kind == "complex" else
                  xc.transpose(0, 1)) / norm
    return reshape(c, ()) if c.shape == (1, 1) else c


@function_and_method
def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of ``input``,
    clipped to [-1, 1].

    >>> import ember.torch as torch
    >>> torch.corrcoef(torch.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    c = tensor_arg(cov(input), "corrcoef")
    if c.ndim == 0:
        return c / c
    n = c.shape[0]
    d = reshape(c, (-1,))[::n + 1]
    std = d.sqrt()
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return c.clamp(-1, 1) if c.dtype.kind == "float" else c


# -- sorting and sets ---------------------------------------------------------------------------

@function_and_method
def argsort(input, *args, stable=None, **kwargs):
    """The int64 indices that sort ``input`` along ``dim`` (every sort of ember is stable, so
    ``stable`` only has to be a bool; given, ``dim`` and ``descending`` are keywords).

    >>> import ember.torch as torch
    >>> torch.tensor([3, 1, 2]).argsort(descending=True).tolist()
    [0, 2, 1]
    """
    dim, descending = sort_args(args, kwargs, stable, "argsort")
    x = as_torch(tensor_arg(input, "argsort"))
    return x.sort(dim=dim, descending=descending, stable=bool(stable)).indices


@function_and_method
def msort(input):
    """``input`` sorted along its first dim.

    >>> import ember.torch as torch
    >>> torch.msort(torch.tensor([[3, 1], [1, 2]])).tolist()
    [[1, 1], [3, 2]]
    """
    return as_torch(tensor_arg(input, "msort")).sort(0).values  # PyTorch's sort: bools too


def _lex_order(rows):
    """The stable order that sorts the rows of the 2-D int/float ``rows`` lexicographically."""
    n, m = rows.shape
    order = _e.arange(n, device=rows.device)
    for j in range(m - 1, -1, -1):  # a stable sort by each column, the last column first
        key = rows[:, j][order]
        order = order[_e.sort(key, 0).indices]
    return order


def _unique_rows(x, d, consecutive, return_inverse, return_counts, op):
    """The unique slices of ``x`` along ``d``: values, inverse indices and counts."""
    moved = x.movedim(d, 0)
    n = moved.shape[0]
    rows = reshape(moved, (n, -1)) if n else reshape(moved, (0, math.prod(moved.shape[1:])))
    keys = rows.to(_e.uint8) if rows.dtype.kind == "bool" else rows
    if consecutive:
        order = _e.arange(n, device=x.device)
    else:
        order = _lex_order(keys) if keys.shape[1] else _e.arange(n, device=x.device)
    s = keys[order]
    if n == 0:
        starts = _e.zeros((0,), dtype=_e.int64, device=x.device)
        group = starts
    else:
        differs = (s[1:] != s[:-1])
        differs = differs.any(1) if differs.shape[1] else _e.zeros((n - 1,), dtype=_e.bool_,
                                                                       device=x.device)
        new = _e.cat([_e.ones((1,), dtype=_e.bool_, device=x.device), differs], 0)
        starts = new.nonzero()[0]
        group = new.to(_e.int64).cumsum(0) - 1
    values = moved[order][starts] if n else moved
    values = values.movedim(0, d)
    out = [values]
    if return_inverse:
        inverse = _e.zeros((n,), dtype=_e.int64, device=x.device)
        if n:
            inverse = inverse.scatter(0, order, group, "assign")
        out.append(inverse)
    if return_counts:
        ends = _e.cat([starts[1:], _e.full((1,), n, dtype=_e.int64, device=x.device)], 0) \
            if n else starts
        out.append(ends - starts)
    return out


def _unique(op, input, consecutive, return_inverse, return_counts, dim):
    x = tensor_arg(input, op)
    for name, flag in (("return_inverse", return_inverse), ("return_counts", return_counts)):
        if not isinstance(flag, bool):
            raise InvalidParameterError(f"{op}: {name} must be a bool, got {flag!r}", name, flag)
    if dim is None:
        flat = reshape(x, (-1,))
        out = _unique_rows(reshape(flat, (flat.shape[0], 1)), 0, consecutive, return_inverse,
                           return_counts, op)
        out[0] = reshape(out[0], (-1,))
        if return_inverse:
            out[1] = reshape(out[1], tuple(x.shape))
    else:
        if x.ndim == 0:
            raise ShapeMismatchError(f"{op}: dim {dim} given for a 0-d tensor", 1, 0)
        out = _unique_rows(x, dim_arg(dim, x.ndim, op), consecutive, return_inverse,
                           return_counts, op)
    return out[0] if len(out) == 1 else tuple(out)


@function_and_method
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct values of ``input`` (or its distinct slices along ``dim``), sorted; with
    the inverse indices (where each element went) and the counts if asked.

    ember always sorts (PyTorch's ``sorted=False`` leaves the order unspecified).

    >>> import ember.torch as torch
    >>> values, counts = torch.unique(torch.tensor([3, 1, 3, 2]), return_counts=True)
    >>> values.tolist(), counts.tolist()
    ([1, 2, 3], [1, 1, 2])
    """
    if not isinstance(sorted, bool):
        raise InvalidParameterError(f"unique: sorted must be a bool, got {sorted!r}", "sorted",
                                    sorted)
    return _unique("unique", input, False, return_inverse, return_counts, dim)


@function_and_method
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """``input`` with each run of equal consecutive values (or slices along ``dim``) reduced
    to one; with the inverse indices and the run lengths if asked.

    >>> import ember.torch as torch
    >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 1])).tolist()
    [1, 2, 1]
    """
    return _unique("unique_consecutive", input, True, return_inverse, return_counts, dim)

