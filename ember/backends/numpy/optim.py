"""NumPy kernels of ember.optim: the state buffers (the updates are the defaults of
ember/backends/base/optim.py)."""

import numpy as np

__all__ = ["optim_zeros", "optim_full", "optim_state_copy"]


def optim_zeros(a):
    """A new zero-filled, C-contiguous array with the shape and dtype of ``a`` (a state buffer)."""
    return np.zeros(a.shape, dtype=a.dtype)


def optim_full(a, value):
    """A new C-contiguous array with the shape and dtype of ``a``, every element ``value``."""
    return np.full(a.shape, value, dtype=a.dtype)


def optim_state_copy(a, like=None):
    """A fresh, writable, C-contiguous copy of ``a`` (cast to ``like``'s dtype when given)."""
    dtype = a.dtype if like is None else like.dtype
    return np.array(a, dtype=dtype, copy=True, order="C")
