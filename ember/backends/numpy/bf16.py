"""bfloat16 on the NumPy backend: ml_dtypes' type, imported on first use (importing ml_dtypes
costs about a second, so ``import ember`` does not)."""

import functools

import numpy as np

__all__ = ["is_bf16", "dtype", "finfo"]


def is_bf16(dt):
    """Whether the NumPy dtype ``dt`` is bfloat16 (asked without importing ml_dtypes).

    >>> is_bf16(np.dtype(np.float32))
    False
    """
    return dt.kind == "V" and dt.name == "bfloat16"


@functools.cache
def dtype():
    """NumPy's dtype of bfloat16 (ml_dtypes')."""
    import ml_dtypes
    return np.dtype(ml_dtypes.bfloat16)


def finfo(dt):
    """``numpy.finfo`` of a float dtype, bfloat16 (ml_dtypes' finfo) included."""
    if is_bf16(dt):
        import ml_dtypes
        return ml_dtypes.finfo(dt)
    return np.finfo(dt)
