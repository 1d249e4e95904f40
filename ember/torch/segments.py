"""PyTorch's ``segment_reduce``: reductions over consecutive segments of a dim.

``segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
unsafe=False, initial=None)``: the segments of ``data``'s dim ``axis`` have the sizes
``lengths`` (or lie between consecutive ``offsets``), given per segment along the last dim of
``lengths``, whose leading dims are ``data``'s dims before ``axis``. ``reduce`` is ``"sum"``,
``"prod"``, ``"mean"``, ``"max"``/``"amax"`` or ``"min"``/``"amin"``. An empty segment gives
``initial`` when given, else the reduction's identity (0, 1, -inf, inf; NaN for the mean);
with ``initial`` each segment's reduction includes it (the mean divides by the segment's
size). Composed of ``index_reduce``, so gradients flow (ties of max and min share theirs).

>>> import ember.torch as torch
>>> torch.segment_reduce(torch.arange(6.0), "sum", lengths=torch.tensor([2, 0, 4])).tolist()
[1.0, 0.0, 14.0]
"""

import math

import ember as _e

from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor as _T
from ._tensor import as_torch, torch_function

__all__ = ["segment_reduce"]

_REDUCE = {"sum": "sum", "prod": "prod", "mean": "mean", "max": "amax", "amax": "amax",
           "min": "amin", "amin": "amin"}
_IDENTITY = {"sum": 0.0, "prod": 1.0, "mean": 0.0, "amax": -math.inf, "amin": math.inf}


def _int_tensor(t, name):
    if not isinstance(t, _T) or t._dtype.kind != "int":
        raise KindError(f"segment_reduce: {name} must be an int tensor, got "
                        f"{getattr(t, 'dtype', type(t).__name__)}")
    return t


@torch_function
def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """The reduction ``reduce`` of each segment of ``data``'s dim ``axis`` (see the module
    docstring).

    >>> import ember.torch as torch
    >>> torch.segment_reduce(torch.arange(6.0), "max", offsets=torch.tensor([0, 2, 6])).tolist()
    [1.0, 5.0]
    """
    op = "segment_reduce"
    if not isinstance(data, _T):
        raise KindError(f"{op}: data must be a Tensor, got {type(data).__name__}")
    if data._dtype.kind != "float":
        raise KindError(f"{op}: data must be a float tensor, got {data._dtype.name}")
    if reduce not in _REDUCE:
        raise InvalidParameterError(f"{op}: reduce argument must be either sum, prod, mean, amax "
                                    f"or amin, got {reduce!r}", "reduce", reduce)
    if indices is not None:
        raise InvalidParameterError(f"{op}: indices based reduction is not supported (as "
                                    "PyTorch's); give lengths or offsets", "indices", indices)
    if lengths is None and offsets is None:
        raise InvalidParameterError(f"{op}: Either lengths or offsets must be defined.",
                                    "lengths", lengths)
    if lengths is not None:
        lengths = _int_tensor(lengths, "lengths")
    else:
        offsets = _int_tensor(offsets, "offsets")
        if offsets.ndim == 0 or offsets.shape[-1] == 0:
            raise ShapeMismatchError(f"{op}: offsets must have at least one entry along its last "
                                     "dim", expected=1, actual=tuple(offsets.shape))
        lengths = offsets[..., 1:] - offsets[..., :-1]
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise KindError(f"{op}: axis must be an int, got {type(axis).__name__}")
    if not -data.ndim <= axis < max(data.ndim, 1):
        raise InvalidParameterError(f"{op}: axis {axis} is out of range for data of {data.ndim} "
                                    "dims", "axis", axis)
    axis %= max(data.ndim, 1)
    if lengths.ndim != axis + 1 or tuple(lengths.shape[:-1]) != tuple(data.shape[:axis]):
        raise ShapeMismatchError(f"{op}: lengths has shape {tuple(lengths.shape)}, expected the "
                                 f"dims of data before axis {axis} and one of segments",
                                 expected=tuple(data.shape[:axis]) + ("S",),
                                 actual=tuple(lengths.shape))
    if lengths.numel() and bool((lengths < 0).any().item()):
        raise InvalidParameterError(f"{op}: lengths contains negative value!", "lengths",
                                    lengths)
    size = data.shape[axis]
    if not unsafe and lengths.numel() and bool((lengths.sum(-1) != size).any().item()):
        raise InvalidParameterError(f"{op}: Expected all rows of lengths along axis to sum to "
                                    f"data.size({axis}) = {size} when !unsafe.", "lengths",
                                    lengths)
    kind = _REDUCE[reduce]
    lead = math.prod(data.shape[:axis])
    segments = lengths.shape[-1]
    rest = tuple(data.shape[axis + 1:])
    flat = as_torch(data).reshape((lead * size,) + rest)
    ends = lengths.reshape(lead, segments).to(_e.int64).cumsum(-1)  # (lead, S)
    pos = _e.arange(size, device=data.device).reshape(1, size, 1)
    seg = (pos >= ends.unsqueeze(1)).sum(-1)  # (lead, size): each element's segment
    rows = _e.arange(lead, device=data.device).reshape(lead, 1) * segments
    index = (rows + seg).reshape(-1)
    keep = seg.reshape(-1) < segments  # elements past the last segment (unsafe) are dropped
    if not bool(keep.all().item()):
        flat, index = flat[keep], index[keep]
    start = _IDENTITY[kind] if initial is None else float(initial)
    base = as_torch(_e.full((lead * segments,) + rest, start, dtype=data.dtype, device=data.device))
    counts = lengths.reshape((lead * segments,) + (1,) * len(rest)).to(data.dtype)
    if kind in ("sum", "mean"):
        out = total = base.index_add(0, index, flat)
    if kind == "mean":
        out = _e.where(counts > 0, total / counts.clamp(min=1),
                       _e.full_like(total, math.nan if initial is None else float(initial)))
    elif kind != "sum":
        out = base.index_reduce(0, index, flat, kind, include_self=True)
    return out.reshape(tuple(data.shape[:axis]) + (segments,) + rest)
