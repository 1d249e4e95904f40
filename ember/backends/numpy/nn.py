"""What the nn kernel files of the NumPy backend share (activation.py, linear.py, conv.py,
pool.py, normalization.py, loss.py, dropout.py, attention.py); the small nn kernels are
the defaults of ember/backends/base/nn.py.

Kernels are named ``nn_*``; helpers start with ``_``. Half-precision inputs (float16, bfloat16) are computed
in float32 and cast back, as PyTorch's CPU kernels accumulate.
"""


import numpy as np

from .core import NP

__all__ = []

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _np(dtype):
    """The NumPy dtype of the ember DType ``dtype`` (None stays None)."""
    return None if dtype is None else NP[dtype]


def _work(a):
    """``a`` in a dtype NumPy computes well: float32/float64 as they are, others as float32."""
    dt = a.dtype
    if dt == _F32 or dt == _F64:
        return a
    return a.astype(_F32)


def _out(a, dtype):
    """``a`` as NumPy dtype ``dtype``, an ndarray (never a NumPy scalar)."""
    return np.asarray(a.astype(dtype, copy=False) if a.dtype != dtype else a)
