"""Torch kernels of ember.distributed (the same names and meanings as the NumPy backend's): the
buffers are torch tensors on the device, handed to torch.distributed as they are."""

import torch

from .core import TORCH

__all__ = ["dist_buffer", "dist_zeros", "dist_copy", "dist_pack", "dist_unpack", "dist_divide",
           "dist_torch", "dist_split", "dist_permutation"]


def dist_buffer(n, dtype, *, device=None):
    """A new flat writable buffer of ``n`` elements of ember ``dtype`` (not initialised)."""
    return torch.empty(n, dtype=TORCH[dtype], device=device)


def dist_zeros(n, dtype, *, device=None):
    """A new flat writable buffer of ``n`` zeros of ember ``dtype``."""
    return torch.zeros(n, dtype=TORCH[dtype], device=device)


def dist_copy(a):
    """A contiguous copy of ``a`` that nothing else refers to."""
    return a.clone(memory_format=torch.contiguous_format)


def dist_pack(buffer, offset, a):
    """Write ``a`` (any layout) flat into ``buffer[offset:offset + a.numel()]``."""
    buffer[offset:offset + a.numel()].copy_(a.reshape(-1))


def dist_unpack(buffer, offset, shape):
    """The view ``buffer[offset:...]`` of ``shape`` (a gradient handed out of a bucket)."""
    n = 1
    for s in shape:
        n *= s
    return buffer[offset:offset + n].view(tuple(shape))


def dist_divide(buffer, divisor):
    """Divide ``buffer`` by ``divisor`` in place (the mean of a sum over ranks); an int buffer
    gets the truncated float64 quotient, as NumPy's unsafe cast gives it."""
    if buffer.dtype.is_floating_point:
        buffer.div_(divisor)
    else:
        buffer.copy_(torch.trunc(buffer.to(torch.float64) / divisor).to(buffer.dtype))


def dist_torch(a):
    """``a`` itself: torch.distributed works on it in place."""
    return a


def dist_split(buffer, parts):
    """``buffer`` (flat) as ``parts`` equal consecutive views."""
    return list(torch.tensor_split(buffer, parts))


def dist_permutation(n, seed, *, device=None):
    """A permutation of ``range(n)`` (int64) on ``device``, drawn from its own generator seeded
    by ``seed``."""
    gen = torch.Generator(device=device if device is not None else "cpu")
    gen.manual_seed(seed)
    return torch.randperm(n, generator=gen, device=device, dtype=torch.int64)
