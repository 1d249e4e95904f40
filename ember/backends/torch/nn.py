"""What the nn kernel files of the PyTorch backend share (activation.py, linear.py, conv.py,
pool.py, normalization.py, loss.py, dropout.py, attention.py); the small nn kernels are
the defaults of ember/backends/base/nn.py.

Kernels are named ``nn_*``; helpers start with ``_``.
"""


import torch

from .core import TORCH

__all__ = []

_F32 = torch.float32
_F64 = torch.float64
_aten = torch.ops.aten


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
