"""NumPy kernels of ember.distributed: the writable buffers that ember owns and lends to
torch.distributed (``torch.from_numpy`` shares them, so nothing is copied on the way)."""

import numpy as np

from .bf16 import is_bf16
from .core import NP

__all__ = ["dist_buffer", "dist_zeros", "dist_copy", "dist_pack", "dist_unpack", "dist_divide",
           "dist_torch", "dist_split", "dist_permutation"]



def dist_buffer(n, dtype):
    """A new flat writable buffer of ``n`` elements of ember ``dtype`` (not initialised)."""
    return np.empty(n, dtype=NP[dtype])


def dist_zeros(n, dtype):
    """A new flat writable buffer of ``n`` zeros of ember ``dtype``."""
    return np.zeros(n, dtype=NP[dtype])


def dist_copy(a):
    """A C-contiguous copy of ``a`` that nothing else refers to."""
    return np.array(a, copy=True, order="C")


def dist_pack(buffer, offset, a):
    """Write ``a`` (any layout) flat into ``buffer[offset:offset + a.size]``."""
    buffer[offset:offset + a.size] = a.reshape(-1)


def dist_unpack(buffer, offset, shape):
    """The view ``buffer[offset:...]`` of ``shape`` (a gradient handed out of a bucket)."""
    n = 1
    for s in shape:
        n *= s
    return buffer[offset:offset + n].reshape(shape)


def dist_divide(buffer, divisor):
    """Divide ``buffer`` by ``divisor`` in place (the mean of a sum over ranks)."""
    np.divide(buffer, divisor, out=buffer, casting="unsafe")


def dist_torch(a):
    """``a`` as a torch tensor sharing its memory, for torch.distributed to work on in place
    (bfloat16, which NumPy lacks, through its 16 bits)."""
    import torch
    if is_bf16(a.dtype):
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def dist_split(buffer, parts):
    """``buffer`` (flat) as ``parts`` equal consecutive views."""
    return np.split(buffer, parts)


def dist_permutation(n, seed):
    """A permutation of ``range(n)`` (int64) drawn from its own generator seeded by ``seed``."""
    return np.random.default_rng(seed).permutation(n).astype(np.int64)
