"""What the nn kernel files of the NumPy backend share (activation.py, linear.py, conv.py,
pool.py, normalization.py, loss.py, dropout.py, attention.py), and a few small nn kernels.

Kernels are named ``nn_*``; helpers start with ``_``. Half-precision inputs (float16, bfloat16) are computed
in float32 and cast back, as PyTorch's CPU kernels accumulate.
"""


import numpy as np

from .core import NP

__all__ = [ "nn_full_like_shape", "nn_reshape", "nn_int_max", "nn_zero_row"]

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


def nn_reshape(a, shape):
    """``a`` reshaped (a view where the layout allows)."""
    return np.reshape(a, shape)


def nn_zero_row(a, row):
    """A copy of the 2-d ``a`` with row ``row`` set to zero."""
    out = np.array(a, copy=True)
    out[row] = 0
    return out


def nn_int_max(a):
    """The largest element of a non-empty int array, a Python int."""
    return int(a.max())


def nn_full_like_shape(shape, value, dtype):
    """A new array of ``shape`` filled with ``value`` (``dtype`` an ember DType)."""
    return np.full(shape, value, dtype=NP[dtype])
