"""Torch kernels of ember.optim: the state buffers (the updates are the defaults of
ember/backends/base/optim.py)."""

import torch

__all__ = ["optim_zeros", "optim_full", "optim_state_copy"]


def optim_zeros(a):
    """A new zero-filled contiguous tensor with the shape, dtype and device of ``a``."""
    return torch.zeros_like(a, memory_format=torch.contiguous_format)


def optim_full(a, value):
    """A new contiguous tensor like ``a`` with every element ``value``."""
    return torch.full_like(a, value, memory_format=torch.contiguous_format)


def optim_state_copy(a, like=None):
    """A fresh contiguous copy of ``a`` (cast to ``like``'s dtype when given)."""
    out = a.clone(memory_format=torch.contiguous_format)
    return out if like is None or out.dtype == like.dtype else out.to(like.dtype)
