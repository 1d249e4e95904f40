"""PyTorch's in-place resizing and re-pointing methods: ``resize_``, ``resize_as_``, ``set_``
and ``as_strided_``; each returns the tensor; a leaf that requires grad refuses (``GraphError``).

- ``resize_(*sizes)`` keeps the first elements in row-major order. Shrinking a contiguous
  tensor keeps its memory (its views still see its writes, as PyTorch's); growing gives it new
  memory whose added elements (PyTorch leaves them uninitialised) are zeros.
- ``set_(source, storage_offset=0, size=None, stride=None)`` makes this tensor share
  ``source``'s memory (of the same dtype), read at ``size``/``stride`` from
  ``storage_offset`` when given (``as_strided``): a later write to one is seen by the other,
  as in PyTorch; ``set_()`` makes it empty. No gradient flows through it (PyTorch records
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
from ..ops.aliasing import _take, join, leave_family, review
from ..ops.inplace import _check_update
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
    _check_update(self, "resize_")
    if math.prod(sizes) <= self.numel() and self.is_contiguous():
        return review(self, "resize", _resized, (sizes,))  # the same memory, as PyTorch's
    return _renewed(self, _resized(self, sizes))


def _renewed(t, value):
    """``t`` holding ``value`` in new memory: its views keep the old."""
    leave_family(t)
    _take(t, value)
    return t


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
        _check_update(self, op)
        return _renewed(self, self.reshape(-1)[:0])
    if not isinstance(source, _T):
        raise KindError(f"set_: source must be a Tensor, got {type(source).__name__}")
    if source._dtype is not self._dtype:
        raise KindError(f"set_: Could not set tensor of type {source._dtype.name} to a tensor of "
                        f"type {self._dtype.name}")
    if size is None:
        if stride is not None or storage_offset != 0:
            raise InvalidParameterError("set_: stride and storage_offset need a size", "size",
                                        size)
    elif stride is None:
        stride = [math.prod(size[i + 1:]) for i in range(len(size))]
    _check_update(self, op)
    if source._device != self._device:
        value = source.detach().to(self._device)
        if size is not None:
            value = as_strided(value, size, stride, storage_offset)
        return _renewed(self, value)
    # this tensor shares source's memory from now on, as PyTorch's
    _take(self, source.detach())
    join(self, source)
    if size is not None:
        review(self, "as_strided", as_strided, (size, stride, storage_offset))
    return self


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
    _check_update(input, "as_strided_")
    as_strided(input, size, stride, storage_offset)  # the checks, before anything changes
    return review(input, "as_strided", as_strided, (size, stride, storage_offset))
