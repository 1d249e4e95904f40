"""NumPy kernels of ember.distributed: the writable buffers that ember owns and lends to
torch.distributed (``torch.from_numpy`` shares them, so nothing is copied on the way)."""

import numpy as np

from .bf16 import is_bf16

__all__ = ["dist_copy", "dist_pack", "dist_divide", "dist_torch", "dist_permutation"]


def dist_copy(a):
    """A C-contiguous copy of ``a`` that nothing else refers to."""
    return np.array(a, copy=True, order="C")


def dist_pack(buffer, offset, a):
    """Write ``a`` (any layout) flat into ``buffer[offset:offset + a.size]``."""
    buffer[offset:offset + a.size] = a.reshape(-1)


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


def dist_permutation(n, seed):
    """A permutation of ``range(n)`` (int64) drawn from its own generator seeded by ``seed``."""
    return np.random.default_rng(seed).permutation(n).astype(np.int64)
