"""Indexing and manipulation functions of the Array API standard."""

import builtins

from .. import shapes as _shapes
from ..errors import InvalidParameterError
from ..ops import creation as _creation
from ..ops.repeat import repeat_interleave as _repeat_interleave
from ..ops.segments import cat as _cat, stack as _stack
from .._tensor import Tensor
from ._data_types import result_type

_int = builtins.int


# -- indexing, manipulation -------------------------------------------------------

def take(x, indices, /, *, axis=None):
    if axis is None:
        if x.ndim != 1:
            raise InvalidParameterError(
                f"take: axis is needed for a {x.ndim}-d tensor", "axis", axis)
        axis = 0
    return x.take(axis, indices)


def take_along_axis(x, indices, /, *, axis=-1):
    return x.gather(axis, indices)


def broadcast_arrays(*arrays):
    shape = _shapes.broadcast_shapes(*[a.shape for a in arrays])
    return [a.expand(shape) for a in arrays]


def broadcast_to(x, /, shape):
    return x.expand(tuple(shape))


def concat(arrays, /, *, axis=0):
    arrays = list(arrays)
    dt = result_type(*arrays)
    arrays = [a.cast(dt) for a in arrays]
    if axis is None:
        return _cat([a.reshape(-1) for a in arrays], 0)
    return _cat(arrays, axis)


def expand_dims(x, /, axis=0):
    return x.unsqueeze(axis)


def flip(x, /, *, axis=None):
    if axis is None:
        axis = tuple(range(x.ndim))
    return x.flip(axis if isinstance(axis, tuple) else (axis,))


def moveaxis(x, source, destination, /):
    return x.movedim(source, destination)


def permute_dims(x, /, axes):
    return x.permute(tuple(axes))


def repeat(x, repeats, /, *, axis=None):
    if isinstance(repeats, Tensor) and repeats.ndim == 0:
        repeats = int(repeats)
    if axis is None:
        return _repeat_interleave(x.reshape(-1), repeats, 0)
    return _repeat_interleave(x, repeats, axis)


def reshape(x, /, shape, *, copy=None):
    out = x.reshape(tuple(shape))
    return out.clone() if copy else out


def roll(x, /, shift, *, axis=None):
    if axis is None:
        return x.reshape(-1).roll(shift, 0).reshape(x.shape)
    return x.roll(shift, axis)


def squeeze(x, /, axis):
    return x.squeeze_dims(axis if isinstance(axis, tuple) else (axis,))


def stack(arrays, /, *, axis=0):
    arrays = list(arrays)
    dt = result_type(*arrays)
    return _stack([a.cast(dt) for a in arrays], axis)


def tile(x, repetitions, /):
    reps = tuple(repetitions)
    if x.size == 0 or 0 in reps:
        nd = builtins.max(x.ndim, len(reps))
        shape = (1,) * (nd - x.ndim) + x.shape
        reps = (1,) * (nd - len(reps)) + reps
        return _creation.zeros(tuple(a * b for a, b in zip(shape, reps)), dtype=x.dtype,
                        device=x.device)
    return x.repeat((1,) * (x.ndim - len(reps)) + reps)


def unstack(x, /, *, axis=0):
    return tuple(x.unbind(axis))
