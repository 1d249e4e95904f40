"""Torch kernels of the data-out family (creation and display are written once in base)."""

import torch

from .core import allocates

__all__ = ["data_reshape_copy", "data_flat_list", "data_can_mut"]

# -- data out -----------------------------------------------------------------------------------

@allocates(lambda a, shape: shape)
def data_reshape_copy(a, shape):
    """A contiguous copy of ``a`` with a new shape of the same size."""
    return a.reshape(shape).clone(memory_format=torch.contiguous_format)


@allocates(lambda a: (a.numel(),))
def data_flat_list(a):
    """The values of ``a`` as one flat Python list, row-major."""
    return a.reshape(-1).tolist()


def data_can_mut(a):
    """Whether ``a`` provably has its buffer to itself: never shown on torch (False)."""
    return False
