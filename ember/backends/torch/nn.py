"""What the nn kernel files of the PyTorch backend share (activation.py, linear.py, conv.py,
pool.py, normalization.py, loss.py, dropout.py, attention.py), and a few small nn kernels.

Kernels are named ``nn_*``; helpers start with ``_``.
"""


import torch

from .core import TORCH

__all__ = [ "nn_full_like_shape", "nn_reshape", "nn_int_max", "nn_zero_row"]

_F32 = torch.float32
_F64 = torch.float64
_aten = torch.ops.aten
_WIDE_INTS = (torch.uint16, torch.uint32, torch.uint64)


def _td(dtype):
    """The torch dtype of the ember DType ``dtype`` (None stays None)."""
    return None if dtype is None else TORCH[dtype]


def _work(a):
    """``a`` in float32 or float64 (others as float32)."""
    dt = a.dtype
    return a if dt == _F32 or dt == _F64 else a.to(_F32)


def _work_of(dtype):
    """The working dtype of a result of torch dtype ``dtype``."""
    return _F64 if dtype == _F64 else _F32


def _out(a, dtype):
    return a if a.dtype == dtype else a.to(dtype)


def _long(idx):
    """An int tensor as int64 (torch indexes with int64; uint16/32 convert exactly)."""
    return idx if idx.dtype == torch.int64 else idx.to(torch.int64)


def nn_reshape(a, shape):
    return a.reshape(shape)


def nn_zero_row(a, row):
    out = a.clone()
    out[row] = 0
    return out


def nn_int_max(a):
    return int(_long(a).max()) if a.dtype in _WIDE_INTS else int(a.max())


def nn_full_like_shape(shape, value, dtype, *, device=None):
    return torch.full(tuple(shape), value, dtype=TORCH[dtype], device=device)
