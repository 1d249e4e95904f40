"""NumPy kernels of the fft family (``ember/ops/fft.py``): NumPy's pocketfft.

The op has checked every argument and resolved every size: ``s`` holds one signal size per
dim of ``dims`` (the output sizes of a c2r transform), ``norm`` is one of NumPy's three modes,
``dtype`` the ember dtype of the result. Results are cast to it: NumPy before 2.0 computed
complex64 inputs in complex128.
"""

import numpy as np

from ...shapes import fft_half_shape, fft_result_shape
from .core import NP, _warnings_off, allocates

__all__ = ["fft_c2c", "fft_r2c", "fft_c2r", "fft_freq"]

# the inverse-direction norm: hfft is irfft of the conjugate with the scaling swapped
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _as(r, dtype):
    target = NP[dtype]
    return r if r.dtype == target else r.astype(target)


@allocates(fft_result_shape)
@_warnings_off
def fft_c2c(a, s, dims, norm, forward, dtype):
    """The N-D transform (``forward``) or inverse transform of ``a`` over ``dims``."""
    f = np.fft.fftn if forward else np.fft.ifftn
    return _as(f(a, s, dims, norm), dtype)


@allocates(fft_half_shape)
@_warnings_off
def fft_r2c(a, s, dims, norm, forward, dtype):
    """rfftn (``forward``) or ihfftn of the real ``a``: the last dim halved."""
    if forward:
        return _as(np.fft.rfftn(a, s, dims, norm), dtype)
    # ihfftn(x) = conj(rfftn(x)) with the inverse scaling (NumPy's ihfft, in N dims)
    return _as(np.conj(np.fft.rfftn(a, s, dims, _SWAP[norm])), dtype)


@allocates(fft_result_shape)
@_warnings_off
def fft_c2r(a, s, dims, norm, forward, dtype):
    """hfftn (``forward``) or irfftn of ``a`` (half a Hermitian spectrum in the last dim): a
    real result of sizes ``s``."""
    if forward:
        # hfftn(x) = irfftn(conj(x)) with the forward scaling (NumPy's hfft, in N dims)
        return _as(np.fft.irfftn(np.conj(a), s, dims, _SWAP[norm]), dtype)
    return _as(np.fft.irfftn(a, s, dims, norm), dtype)


@allocates(lambda n, scale, dtype, half: (n // 2 + 1 if half else n,))
@_warnings_off
def fft_freq(n, scale, dtype, half):
    """fftfreq (``half``: rfftfreq) of ``n`` points: ``k * scale`` in ``dtype``, as PyTorch
    computes them (half floats in float32, then rounded)."""
    if half:
        k = np.arange(n // 2 + 1)
    else:
        k = np.arange(n)
        k[(n + 1) // 2:] -= n
    target = NP[dtype]
    work = target if target.itemsize >= 4 else np.dtype(np.float32)
    out = k.astype(work) * work.type(scale)
    return _as(out, dtype)
