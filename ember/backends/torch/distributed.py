"""Torch kernels of ember.distributed (the same names and meanings as the NumPy backend's): the
buffers are torch tensors on the device, handed to torch.distributed as they are."""

import torch

__all__ = ["dist_copy", "dist_pack", "dist_divide", "dist_torch", "dist_permutation"]


def dist_copy(a):
    """A contiguous copy of ``a`` that nothing else refers to."""
    return a.clone(memory_format=torch.contiguous_format)


def dist_pack(buffer, offset, a):
    """Write ``a`` (any layout) flat into ``buffer[offset:offset + a.numel()]``."""
    buffer[offset:offset + a.numel()].copy_(a.reshape(-1))


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


def dist_permutation(n, seed, *, device=None):
    """A permutation of ``range(n)`` (int64) on ``device``, drawn from its own generator seeded
    by ``seed``."""
    gen = torch.Generator(device=device if device is not None else "cpu")
    gen.manual_seed(seed)
    return torch.randperm(n, generator=gen, device=device, dtype=torch.int64)
