"""Torch kernels of ember.io (the same names and meanings as the NumPy backend's). ember.io reads
and writes files through host memory (the NumPy backend's kernels); these serve a torch tensor
already in CPU memory."""

import torch

from .core import TORCH

__all__ = ["io_buffer", "io_from_buffer"]


def io_buffer(a):
    """``(tensor, address, nbytes)``: ``a`` as a contiguous CPU tensor (``a`` itself when it
    already is one; torch is little-endian on every platform it runs on) with the address and
    size of its bytes. Keep the tensor alive while the address is used."""
    if a.device.type != "cpu":
        a = a.cpu()
    a = a.detach().contiguous()
    return a, a.data_ptr(), a.numel() * a.element_size()


def io_from_buffer(data, dtype, shape, *, device=None):
    """A tensor of ember ``dtype`` and ``shape`` on ``device`` over the bytes ``data`` (a
    bytearray the caller hands over), or None when the number of bytes does not fit the shape."""
    target = TORCH[dtype]
    n = 1
    for s in shape:
        n *= s
    if len(data) != n * dtype.itemsize:
        return None
    if n == 0:
        return torch.zeros(shape, dtype=target, device=device)
    out = torch.frombuffer(data, dtype=target, count=n).reshape(shape)
    return out if device is None or out.device == device else out.to(device)
