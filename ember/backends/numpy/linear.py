"""The linear kernels of the NumPy backend (see ember/ops/linear.py)."""

import numpy as np

from .core import NP
from .linalg import _matmul
from .nn import _F32, _F64, _out, _work

__all__ = ["nn_linear"]


# -- linear -------------------------------------------------------------------------------------

# override: 12622 µs vs the default's 19949 µs ((16, 64, 256) @ (256, 256).T + b, float32, one thread)
def nn_linear(x, w, b, dtype):
    """``x @ w.T + b`` (``b`` may be None), as NumPy dtype ``dtype``."""
    dtype = NP[dtype]
    if x.dtype is dtype and w.dtype is dtype and dtype is _F32 and (b is None or b.dtype is dtype):
        out = _matmul(x, w.T)  # (the common case: one float32 dtype throughout)
        if b is not None:
            np.add(out, b, out=out)
        return out
    xw = _work(x).astype(_F64 if dtype == _F64 else _F32, copy=False)
    ww = _work(w).astype(xw.dtype, copy=False)
    out = _matmul(xw, ww.T)
    if b is not None:
        np.add(out, _work(b), out=out)       # in place: ``out`` is the matmul's fresh result
    return _out(out, dtype)
