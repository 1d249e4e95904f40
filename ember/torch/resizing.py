"""PyTorch's in-place resizing and re-pointing methods: ``resize_``, ``resize_as_``, ``set_``
and ``as_strided_``, by ember's rebinding rule (ember/torch/inplace.py): the tensor object is
rebound to its new value and returned; a leaf that requires grad refuses (``GraphError``).

- ``resize_(*sizes)`` keeps the first elements in row-major order; elements it adds (PyTorch
  leaves them uninitialised) are zeros.
- ``set_(source, storage_offset=0, size=None, stride=None)`` makes this tensor hold
  ``source``'s values (of the same dtype), read at ``size``/``stride`` from
  ``storage_offset`` when given (``as_strided``); ``set_()`` makes it empty. PyTorch's
  tensor then shares ``source``'s storage; ember's holds the same values (a later in-place
  update of one is not seen by the other); no gradient flows through it (PyTorch records
  none it can run either).
- ``as_strided_(size, stride, storage_offset=0)`` reads the values at those strides from
  this tensor's row-major values (see ember/torch/strided.py).

>>> import ember.torch as torch
>>> x = torch.arange(4.0)
>>> x.resize_(2, 3).tolist()
[[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]]
>>> x.set_(torch.ones(2)).tolist()
[1.0, 1.0]
"""

import math
import numbers

import ember as _e

from ..errors import InvalidParameterError, KindError
from .._tensor import Tensor as _T
from ._tensor import torch_function, torch_method
from .inplace import apply_inplace
from .strided import as_strided

__all__ = ["resize_", "resize_as_", "set_", "as_strided_"]


def _sizes(sizes, op):
    if not sizes:
        raise InvalidParameterError(f"{op}: missing the size (ints, or one tuple; () for 0-d)",
                                    "size", sizes)
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    if not all(isinstance(n, numbers.Integral) and not isinstance(n, bool) for n in sizes):
        raise KindError(f"{op}: sizes must be ints, got {sizes!r}")
    if any(n < 0 for n in sizes):
        raise InvalidParameterError(f"{op}: sizes must be non-negative, got {tuple(sizes)}",
                                    "size", tuple(sizes))
    return tuple(int(n) for n in sizes)


def _resized(t, sizes):
    n = math.prod(sizes)
    flat = t.reshape(-1)
    if n <= flat.numel():
        return flat[:n].reshape(sizes)
    fill = _e.zeros(n - flat.numel(), dtype=t._dtype, device=t._device)
    return _e.cat([flat, fill]).reshape(sizes)


@torch_method
def resize_(self, *sizes, memory_format=None):
    """This tensor resized in place to ``sizes`` (see the module docstring); returns it.

    >>> import ember.torch as torch
    >>> torch.arange(6).resize_(2, 2).tolist()
    [[0, 1], [2, 3]]
    """
    sizes = _sizes(sizes, "resize_")
    return apply_inplace(self, lambda t: _resized(t, sizes), "resize_", reshaping=True)


@torch_method
@torch_function
def resize_as_(input, the_template, *, memory_format=None):  # noqa: A002  (PyTorch's names)
    """``input.resize_(the_template.shape)``; returns ``input``.

    >>> import ember.torch as torch
    >>> torch.resize_as_(torch.arange(3.0), torch.zeros(1, 2)).tolist()
    [[0.0, 1.0]]
    """
    if not isinstance(input, _T) or not isinstance(the_template, _T):
        raise KindError("resize_as_: input and the_template must be tensors, got "
                        f"{type(input).__name__} and {type(the_template).__name__}")
    return resize_(input, tuple(the_template.shape))


@torch_method
def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """This tensor made to hold ``source``'s values (see the module docstring); returns it.

    >>> import ember.torch as torch
    >>> torch.zeros(1).set_(torch.arange(6.0), 1, (2, 2), (1, 2)).tolist()
    [[1.0, 3.0], [2.0, 4.0]]
    """
    op = "set_"
    if source is None:
        if size is not None or stride is not None or storage_offset != 0:
            raise InvalidParameterError("set_: size, stride and storage_offset need a source",
                                        "source", source)
        return apply_inplace(self, lambda t: t.reshape(-1)[:0], op, reshaping=True)
    if not isinstance(source, _T):
        raise KindError(f"set_: source must be a Tensor, got {type(source).__name__}")
    if source._dtype is not self._dtype:
        raise KindError(f"set_: Could not set tensor of type {source._dtype.name} to a tensor of "
                        f"type {self._dtype.name}")
    if size is None:
        if stride is not None or storage_offset != 0:
            raise InvalidParameterError("set_: stride and storage_offset need a size", "size",
                                        size)
        value = source.detach()
    else:
        if stride is None:
            stride = [math.prod(size[i + 1:]) for i in range(len(size))]
        value = as_strided(source.detach(), size, stride, storage_offset)
    if value._device != self._device:
        value = value.to(self._device)
    return apply_inplace(self, lambda t: value, op, reshaping=True)


@torch_method
@torch_function
def as_strided_(input, size, stride, storage_offset=0):  # noqa: A002
    """``input`` rebound in place to ``as_strided(input, size, stride, storage_offset)``.

    >>> import ember.torch as torch
    >>> torch.as_strided_(torch.arange(6.0), (2, 2), (1, 2), 1).tolist()
    [[1.0, 3.0], [2.0, 4.0]]
    """
    if not isinstance(input, _T):
        raise KindError(f"as_strided_: input must be a Tensor, got {type(input).__name__}")
    return apply_inplace(input, lambda t: as_strided(t, size, stride, storage_offset),
                         "as_strided_", reshaping=True)
