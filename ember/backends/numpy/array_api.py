"""NumPy kernels of the Array API namespace; the others are written once in
ember/backends/base/array_api.py."""

import numpy as np

from . import bf16
from .core import NP

__all__ = ["dtype_limits"]


# override: NumPy's finfo does not know bfloat16 (ml_dtypes' finfo does)
def dtype_limits(dtype):
    """``(bits, min, max, eps, smallest_normal)`` of an ember dtype (eps and smallest_normal are
    None for ints)."""
    dtype = np.dtype(NP[dtype])
    if dtype.kind in "iub":
        if dtype.kind == "b":
            return 8, 0, 1, None, None
        info = np.iinfo(dtype)
        return info.bits, int(info.min), int(info.max), None, None
    info = bf16.finfo(dtype)
    return (info.bits, float(info.min), float(info.max), float(info.eps),
            float(info.smallest_normal))
