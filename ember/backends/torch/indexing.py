"""Torch kernels of the indexing family: the overrides of ember/backends/base/indexing.py's
defaults and its required ``idx_scatter`` and ``idx_one_hot``.

A *key* is a tuple of ints, slices (any nonzero step), None, Ellipsis and int64 tensors, read
with NumPy's rules (torch's advanced indexing follows them). torch has no negative strides, so a
slice with a negative step is read as the positive slice of the same elements, flipped. Update
kernels compute on flat positions (an arange indexed by the key), so every update op accumulates
repeated positions deterministically; for assign the last one wins, as in NumPy. Only
``idx_scatter`` writes, into the fresh tensor its caller gives up.

torch 2.13 on the CPU lacks index_put, flip, scatter_reduce and min/max for uint16/32/64: those
dtypes move as the signed ints of the same width (the same bits) and reduce exactly in int64
(uint64 with its sign bit flipped, which keeps the order).
"""

import torch

from .core import TORCH, allocates, copy as _copy
from .reduce import _ordered, _unordered

__all__ = ["idx_as_intp", "idx_bounds", "idx_bounds_last", "idx_nonzero", "idx_argwhere", "idx_scalar_index",
           "idx_index", "idx_get", "idx_gather", "idx_scatter", "idx_one_hot", "idx_along_key",
           "idx_update", "idx_add_into_zeros"]

_I64 = torch.int64
_SIGNED = {torch.uint16: torch.int16, torch.uint32: torch.int32, torch.uint64: torch.int64}
_MIN64 = -(1 << 63)
_REDUCE = {"add": "sum", "mul": "prod", "min": "amin", "max": "amax"}
_BOOL_REDUCE = {"add": "amax", "mul": "amin", "min": "amin", "max": "amax"}


# -- dtype helpers (the uint gaps) ------------------------------------------------------------------
def _bits(x):
    """``x`` as a dtype torch can move on every device: uints as the signed ints of their width."""
    s = _SIGNED.get(x.dtype)
    return x if s is None else x.view(s)


def _unbits(x, dtype):
    return x if x.dtype == dtype else x.view(dtype)


# -- keys with negative steps -----------------------------------------------------------------------
def _has_negative(key):
    for k in key:
        if k.__class__ is slice and k.step is not None and k.step < 0:
            return True
    return False


def _positive(x, key):
    """``(x', key')`` with ``x'[key'] == x[key]`` and no negative step in ``key'``: ``x`` cut by
    the key's slices (one with a negative step as the positive slice of the same elements),
    flipped along those dims (a copy of the selected elements only)."""
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    cut, rest, flips, d = [], [], [], 0
    for k in key:
        if k.__class__ is slice and k.step is not None and k.step < 0:
            r = range(*k.indices(x.shape[d]))
            k = slice(r[-1], r[0] + 1, -k.step) if len(r) else slice(0, 0)
            flips.append(d)
        n = x.ndim - consumed if k is Ellipsis else int(k is not None)  # the dims k reads
        cut += [k] if k.__class__ is slice else [slice(None)] * n
        rest.append(slice(None) if k.__class__ is slice else k)
        d += n
    return x[tuple(cut)].flip(flips), tuple(rest)


def _get(x, key):
    """``x[key]`` with NumPy's rules (a view for basic keys without negative steps)."""
    if _has_negative(key):
        dt = x.dtype
        y, key = _positive(_bits(x), key)
        return _unbits(y[key], dt)
    if x.dtype in _SIGNED and any(isinstance(k, torch.Tensor) for k in key):
        return _unbits(_bits(x)[key], x.dtype)
    return x[key]


def _check_key(x, key):
    """IndexError for an index tensor out of range (torch's CUDA kernels would assert); whether
    an index is negative (None on the CPU, where torch's kernels check and nothing is read)."""
    if x.device.type == "cpu":
        return None
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    d = 0
    negative = False
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            d += x.ndim - consumed
            continue
        if isinstance(k, torch.Tensor) and k.numel():
            n = x.shape[d]
            lo, hi = (int(v) for v in torch.aminmax(k))
            if lo < -n or hi >= n:
                raise IndexError(f"index out of range for dimension {d} with size {n}")
            negative = negative or lo < 0
        d += 1
    return negative


def _positions(shape, key, device):
    """The flat positions of ``key``'s elements in a contiguous tensor of ``shape``."""
    n = 1
    for s in shape:
        n *= s
    return _get(torch.arange(n, dtype=_I64, device=device).view(tuple(shape)), key)


def _set(out, key, values):
    """``out[key] = values`` in place (``out`` fresh and contiguous); for an advanced key with
    repeated positions the last value wins."""
    adv = any(isinstance(k, torch.Tensor) and k.dtype != torch.bool for k in key)
    if not adv and not _has_negative(key):
        if out.dtype in _SIGNED:
            v = values if isinstance(values, torch.Tensor) else torch.tensor(values,
                                                                           dtype=out.dtype)
            _bits(out)[key] = _bits(v.to(out.device))
        else:
            out[key] = values
        return out
    pos = _positions(out.shape, key, out.device)
    lin = pos.reshape(-1)
    if not isinstance(values, torch.Tensor):
        values = torch.tensor(values, dtype=out.dtype, device=out.device)
    vals = _bits(values).expand(pos.shape).reshape(-1)
    if adv and lin.numel() > 1:
        order = torch.arange(lin.numel(), dtype=_I64, device=out.device)
        last = torch.full((out.numel(),), -1, dtype=_I64, device=out.device)
        last.scatter_reduce_(0, lin, order, "amax")
        keep = last[lin] == order
        lin, vals = lin[keep], vals[keep]
    flat = _bits(out).view(-1)
    flat[lin] = vals
    return out


def _combine(out, key, values, op):
    """``op`` (add, mul, min, max) of ``values`` into ``out`` at ``key`` in place; repeated
    positions accumulate."""
    pos = _positions(out.shape, key, out.device)
    lin = pos.reshape(-1)
    dt = out.dtype
    if not isinstance(values, torch.Tensor):
        values = torch.tensor(values, dtype=dt, device=out.device)
    vals = values.expand(pos.shape).reshape(-1)
    flat = out.view(-1)
    if dt == torch.bool:
        work = flat.to(torch.uint8)
        work.scatter_reduce_(0, lin, vals.to(torch.uint8), _BOOL_REDUCE[op])
        flat.copy_(work.bool())
        return out
    if op in ("add", "mul") and dt in _SIGNED:  # wrapping arithmetic: the same bits signed
        work = _bits(flat)
        work.scatter_reduce_(0, lin, _bits(vals.contiguous()), _REDUCE[op])
        return out
    if dt in _SIGNED:
        work = _ordered(flat)
        work.scatter_reduce_(0, lin, _ordered(vals.contiguous()), _REDUCE[op])
        _bits(flat).copy_(_bits(_unordered(work, dt)))
        return out
    if op in ("min", "max") and dt.is_floating_point:
        # NumPy's minimum/maximum propagate NaN from either side
        nan = torch.zeros(flat.shape, dtype=torch.bool, device=out.device)
        nan.index_put_((lin,), torch.isnan(vals), accumulate=True)
        flat.scatter_reduce_(0, lin, vals, _REDUCE[op])
        flat.masked_fill_(nan, float("nan"))
        return out
    if op == "add":
        flat.index_put_((lin,), vals, accumulate=True)
    else:
        flat.scatter_reduce_(0, lin, vals, _REDUCE[op])
    return out


# -- index arrays -----------------------------------------------------------------------------
def _py_ints(v, dtype):
    """Python ints of a tensor computed by ``_ordered`` from one of ``dtype``."""
    if dtype == torch.uint64:
        return [(i ^ _MIN64) % (1 << 64) for i in v.tolist()]
    return v.tolist()


# override: 0.2 vs the default's 1.9 µs (int64 (16,))
def idx_as_intp(a):
    return a if a.dtype == _I64 else a.to(_I64)


# override: torch's CPU lacks min/max for uint16/32/64 (reduced in int64 here)
def idx_bounds(a):
    """``(min, max)`` of an int tensor as Python ints, or None when it is empty."""
    if a.numel() == 0:
        return None
    lo, hi = torch.aminmax(_ordered(a))
    if a.dtype == torch.uint64 or not a.is_cpu:  # one transfer from a GPU
        return tuple(_py_ints(torch.stack([lo, hi]), a.dtype))
    return lo.item(), hi.item()


# override: torch's CPU lacks min/max for uint16/32/64 (reduced in int64 here)
def idx_bounds_last(a):
    """Per column of the last axis: ``(mins, maxs)`` lists of Python ints, or None when empty."""
    if a.numel() == 0:
        return None
    flat = _ordered(a).reshape(-1, a.shape[-1])
    return _py_ints(flat.amin(dim=0), a.dtype), _py_ints(flat.amax(dim=0), a.dtype)


# override: torch's CPU lacks nonzero for uint16/32/64 (read as the signed ints of the same bits)
def idx_nonzero(a):
    """The indices of the nonzero elements, one int64 tensor per dim."""
    return list(torch.nonzero(_bits(a), as_tuple=True))


# override: torch's CPU lacks nonzero for uint16/32/64 (read as the signed ints of the same bits)
def idx_argwhere(a):
    """The indices of the nonzero elements, one row (int64) per element."""
    return torch.argwhere(_bits(a))


# override: a uint64 above 2**63 read as its unsigned value
def idx_scalar_index(value):
    """A 0-d or one-element int tensor as a Python int."""
    return _py_ints(_ordered(value).reshape(1), value.dtype)[0]


# override: torch has no negative steps and no uint16/32/64 gathers
def idx_index(x, key):
    """``x[key]``: torch's own indexing."""
    return x[key]


def idx_get(x, key):
    """``x[key]``: a view for basic keys, a new tensor for advanced ones."""
    return _get(x, key)


class _Along(tuple):
    """A key of ``idx_along_key`` (the default's tensors), which names its ``axis``."""


# override: the key names its axis, for torch.gather and scatter_add_
def idx_along_key(index, axis):
    """The key of ``take_along_axis``: ``index`` on ``axis``, aranges broadcast on the others."""
    key = _Along(index if d == axis else torch.arange(n, dtype=_I64, device=index.device).view(
        [n if k == d else 1 for k in range(index.ndim)]) for d, n in enumerate(index.shape))
    key.axis = axis
    return key


def _along(key, values=None, dtype=None):
    """The axis of a key of ``idx_along_key`` torch's gather/scatter_add take, else None."""
    return key.axis if key.__class__ is _Along and (values is None or (
        isinstance(values, torch.Tensor) and values.dtype == dtype
        and values.shape == key[key.axis].shape)) else None


# override: torch.gather, 1.5x faster than indexing; IndexError on CUDA (torch's would assert)
def idx_gather(x, key):
    """``x[key]`` for a key of ``idx_along_key``; an index out of range raises IndexError."""
    negative = _check_key(x, key)
    axis = _along(key)
    if axis is not None and not negative and x.dtype not in _SIGNED:
        try:
            return torch.gather(x, axis, key[axis])
        except RuntimeError:  # a negative index (wrapped below) or one out of range
            pass
    return _get(x, key)


def _added(fresh, key, values):
    """``fresh()`` with ``values`` added at ``key``: scatter_add_ on a float ``_Along`` key, else
    (or on a negative index, refused maybe after writing) ``idx_scatter`` on a new ``fresh()``."""
    out = fresh()
    axis = _along(key, values, out.dtype)
    if axis is not None and out.dtype.is_floating_point and not _check_key(out, key):
        try:
            return out.scatter_add_(axis, key[axis], values)
        except RuntimeError:
            out = fresh()
    return idx_scatter(out, key, values, "add")


# override: torch's scatter_add_ for an idx_along_key key
def idx_update(x, key, values, op):
    """A copy of ``x`` with ``values`` combined at ``key`` by ``op`` (``idx_scatter``'s)."""
    def fresh():
        return _copy(x)  # the default's copy (its typed allocation error)
    return _added(fresh, key, values) if op == "add" else idx_scatter(fresh(), key, values, op)


# override: torch's scatter_add_ for an idx_along_key key
def idx_add_into_zeros(shape, key, g):
    """Zeros of ``shape`` with ``g`` added at ``key`` (repeated positions accumulate)."""
    return _added(lambda: torch.zeros(tuple(shape), dtype=g.dtype, device=g.device), key, g)


def idx_scatter(target, key, values, op):
    """``target`` (made contiguous) with ``values`` combined at ``key`` by ``op``, in place."""
    _check_key(target, key)
    out = target.contiguous()
    if op == "assign":
        return _set(out, key, values)
    if op == "add" and out.dtype.is_floating_point and not _has_negative(key):
        tensors = [k for k in key if isinstance(k, torch.Tensor)]
        if not tensors:  # a basic key: no repeats, add in place
            out[key] += values
            return out
        axis = len(key) - 1
        index = key[-1]
        if (len(tensors) == 1 and index is tensors[0] and index.ndim == 1
                and index.dtype != torch.bool and isinstance(values, torch.Tensor)
                and values.dtype == out.dtype and values.ndim == out.ndim
                and values.shape[axis] == index.shape[0]
                and values.shape[:axis] == out.shape[:axis]
                and values.shape[axis + 1:] == out.shape[axis + 1:]
                and all(k == slice(None) for k in key[:-1])):  # idx_dim_key's: index_add
            n = out.shape[axis]
            return out.index_add_(axis, torch.where(index < 0, index + n, index), values)
    return _combine(out, key, values, op)


@allocates(lambda index, n, on, off, axis, dtype: tuple(index.shape[:axis]) + (n,)
           + tuple(index.shape[axis:]))
def idx_one_hot(index, num_classes, on_value, off_value, axis, dtype):
    """One-hot of an int64 tensor (non-negative, in range) with the class axis at ``axis``."""
    target = TORCH[dtype]
    hot = index[..., None] == torch.arange(num_classes, dtype=_I64, device=index.device)
    on = on_value.to(device=index.device, dtype=target)
    off = off_value.to(device=index.device, dtype=target)
    out = _unbits(torch.where(hot, _bits(on), _bits(off)), target)
    return out.movedim(-1, axis)
