"""``scalar_tensor`` (a 0-d tensor of a number) and ``unravel_index`` (flat indices as
coordinates of a shape), as PyTorch's.

>>> import ember.torch as torch
>>> torch.scalar_tensor(3)
tensor(3.)
>>> [c.tolist() for c in torch.unravel_index(torch.tensor([4, 1]), (3, 2))]
[[2, 0], [0, 1]]
"""

import numbers

import ember as _e

from .. import dtypes as _dt

from ..errors import InvalidParameterError, KindError
from .._tensor import Tensor as _T
from ._tensor import torch_function

__all__ = ["scalar_tensor", "unravel_index"]


@torch_function
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A 0-d tensor holding the number ``s``, of the default float dtype unless ``dtype`` is
    given (``torch.scalar_tensor``).

    >>> import ember.torch as torch
    >>> torch.scalar_tensor(2, dtype=torch.int32)
    tensor(2, dtype=torch.int32)
    """
    if isinstance(s, _T):
        if s.numel() != 1:
            raise InvalidParameterError(f"scalar_tensor: s must be a number, got a tensor of "
                                        f"shape {tuple(s.shape)}", "s", s)
        s = s.item()
    if not isinstance(s, numbers.Number):
        raise KindError(f"scalar_tensor: s must be a number, got {type(s).__name__}")
    if dtype is None:
        dtype = _dt.default_float
    dtype = _dt.as_dtype(dtype, "dtype", "scalar_tensor")
    if isinstance(s, complex) and dtype.kind != "complex":
        raise InvalidParameterError(f"scalar_tensor: the complex value {s!r} cannot be "
                                    f"converted to {dtype.name} without overflow", "s", s)
    return _e.tensor(s, dtype=dtype, device=device, requires_grad=requires_grad)


def _shape(shape):
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not all(
            isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in shape):
        raise KindError(f"unravel_index: shape must be an int or a sequence of ints, got "
                        f"{shape!r}")
    shape = tuple(int(n) for n in shape)
    if any(n < 0 for n in shape):
        raise InvalidParameterError(f"unravel_index: 'shape' cannot have negative values, but "
                                    f"got {shape}", "shape", shape)
    return shape


@torch_function
def unravel_index(indices, shape):
    """The coordinates in ``shape`` of the flat (row-major) ``indices``: a tuple of int64
    tensors, one per dim, each of ``indices``' shape. As PyTorch's, an index outside the
    shape wraps around (coordinates are floor remainders).

    >>> import ember.torch as torch
    >>> [c.item() for c in torch.unravel_index(torch.tensor(7), (2, 2, 2))]
    [1, 1, 1]
    """
    if not isinstance(indices, _T):
        raise KindError(f"unravel_index: expected 'indices' to be a tensor, got "
                        f"{type(indices).__name__}")
    if indices._dtype.kind != "int":
        raise KindError(f"unravel_index: expected 'indices' to be integer dtype, but got "
                        f"{indices._dtype.name}")
    shape = _shape(shape)
    if 0 in shape and indices.numel():
        raise InvalidParameterError(f"unravel_index: shape {shape} has no elements to index",
                                    "shape", shape)
    rest = indices.to(_e.int64)
    coords = []
    for size in reversed(shape):
        if size == 0:
            coords.append(rest)
            continue
        coords.append(_e.remainder(rest, size))
        rest = _e.floor_divide(rest, size)
    return tuple(reversed(coords))
