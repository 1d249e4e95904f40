"""Searching, sorting and set functions of the Array API standard."""

from .. import dtypes as _dt
from ..errors import InvalidParameterError
from ..ops import creation as _creation
from ..ops.masking import where as _where
from ..ops.segments import cat as _cat
from .._tensor import Tensor
from ._common import _axis, _plain


# -- searching, sorting, sets ---------------------------------------------------------------------

def argmax(x, /, *, axis=None, keepdims=False):
    if axis is None:
        out = x.reshape(-1).argmax(0, keepdim=False)
        return out.reshape((1,) * x.ndim) if keepdims else out
    return x.argmax(axis, keepdim=keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    if axis is None:
        out = x.reshape(-1).argmin(0, keepdim=False)
        return out.reshape((1,) * x.ndim) if keepdims else out
    return x.argmin(axis, keepdim=keepdims)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    return (x != 0).sum(dim=_axis(axis), keepdim=keepdims)


def nonzero(x, /):
    if x.ndim == 0:
        raise InvalidParameterError("nonzero: x is 0-d; the standard defines nonzero for "
                                    "tensors of at least 1 dim", "x", ())
    return tuple(x.nonzero())


def where(condition, x1, x2, /):
    if isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1.dtype is not x2.dtype:
        dt = _dt.promote_types(x1.dtype, x2.dtype)
        x1, x2 = x1.cast(dt), x2.cast(dt)
    return _where(condition, x1, x2)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Where the values of ``x2`` go in the sorted 1-d ``x1`` (NaNs sort last, as in ``sort``).

    >>> import ember.array_api as xp
    >>> xp.searchsorted(xp.asarray([1.0, 2.0, 2.0, xp.nan]), xp.asarray([2.0, xp.nan])).tolist()
    [1, 3]
    """
    if side not in ("left", "right"):
        raise InvalidParameterError(f"searchsorted: side must be 'left' or 'right', got {side!r}",
                                    "side", side)
    if sorter is not None:
        x1 = x1.take(0, sorter)
    flat = x2.reshape(-1, 1)
    hits = (x1 < flat) if side == "left" else (x1 <= flat)
    if flat.dtype.kind == "float" or x1.dtype.kind == "float":
        # a NaN in x2 goes after every number of x1 (left) or after the NaNs too (right)
        nan = flat.isnan()
        hits = hits | (nan & ~x1.isnan() if side == "left" else nan)
    return hits.sum(dim=1).reshape(x2.shape)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    if x.ndim == 0:
        return _creation.zeros((), dtype=_dt.int64, device=x.device)
    return x.argsort(axis, descending=descending)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    if x.ndim == 0:
        return x
    return _plain(x.sort(axis, descending=descending))


def unique_values(x, /):
    return unique_all(x).values


def unique_counts(x, /):
    out = unique_all(x)
    return _UniqueCounts(out.values, out.counts)


def unique_inverse(x, /):
    out = unique_all(x)
    return _UniqueInverse(out.values, out.inverse_indices)


class _UniqueAll(tuple):
    values = property(lambda s: s[0])
    indices = property(lambda s: s[1])
    inverse_indices = property(lambda s: s[2])
    counts = property(lambda s: s[3])


class _UniqueCounts(tuple):
    def __new__(cls, values, counts):
        return tuple.__new__(cls, (values, counts))
    values = property(lambda s: s[0])
    counts = property(lambda s: s[1])


class _UniqueInverse(tuple):
    def __new__(cls, values, inverse):
        return tuple.__new__(cls, (values, inverse))
    values = property(lambda s: s[0])
    inverse_indices = property(lambda s: s[1])


def unique_all(x, /):
    """Sorted unique values, the index of each one's first occurrence, the inverse indices and
    the counts; every NaN is its own value, as the standard asks."""
    flat = x.reshape(-1)
    n = flat.shape[0]
    order = (flat.cast(_dt.uint8) if flat.dtype.kind == "bool" else flat).argsort(0)
    s = flat.take(0, order)
    if n == 0:
        empty_i = _creation.zeros((0,), dtype=_dt.int64, device=x.device)
        return _UniqueAll((s, empty_i, empty_i.reshape(x.shape), empty_i))
    device = x.device
    new = _cat([_creation.ones((1,), dtype=_dt.bool_, device=device), s[1:] != s[:-1]], 0)
    starts = new.nonzero()[0]
    values = s.take(0, starts)
    ends = _cat([starts[1:], _creation.full((1,), n, dtype=_dt.int64, device=device)], 0)
    counts = ends - starts
    group = new.cast(_dt.int64).cumsum(0) - 1
    inverse = _creation.zeros((n,), dtype=_dt.int64, device=device).scatter(0, order, group, "add")
    first = _creation.full((values.shape[0],), n, dtype=_dt.int64, device=device).scatter(
        0, group, order, "min")
    return _UniqueAll((values, first, inverse.reshape(x.shape), counts))
