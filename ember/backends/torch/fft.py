"""Torch kernels of the fft family: the same names, arguments and results as the NumPy
backend's (``ember/backends/numpy/fft.py``), on ``torch.fft``."""

import torch

from ...shapes import fft_half_shape, fft_result_shape
from .core import TORCH, allocates

__all__ = ["fft_c2c", "fft_r2c", "fft_c2r", "fft_freq"]


def _as(r, dtype):
    # torch's inverse transforms of real inputs may return a lazily conjugated view (its conj
    # bit set), which NumPy and DLPack cannot read: resolve it here, once
    r = r.resolve_conj()
    target = TORCH[dtype]
    return r if r.dtype == target else r.to(target)


@allocates(fft_result_shape)
def fft_c2c(a, s, dims, norm, forward, dtype):
    """The N-D transform (``forward``) or inverse transform of ``a`` over ``dims``."""
    f = torch.fft.fftn if forward else torch.fft.ifftn
    return _as(f(a, s=s, dim=dims, norm=norm), dtype)


@allocates(fft_half_shape)
def fft_r2c(a, s, dims, norm, forward, dtype):
    """rfftn (``forward``) or ihfftn of the real ``a``: the last dim halved."""
    f = torch.fft.rfftn if forward else torch.fft.ihfftn
    return _as(f(a, s=s, dim=dims, norm=norm), dtype)


@allocates(fft_result_shape)
def fft_c2r(a, s, dims, norm, forward, dtype):
    """hfftn (``forward``) or irfftn of ``a`` (half a Hermitian spectrum in the last dim): a
    real result of sizes ``s``."""
    f = torch.fft.hfftn if forward else torch.fft.irfftn
    return _as(f(a, s=s, dim=dims, norm=norm), dtype)


@allocates(lambda n, scale, dtype, half, **kwargs: (n // 2 + 1 if half else n,))
def fft_freq(n, scale, dtype, half, *, device=None):
    """fftfreq (``half``: rfftfreq) of ``n`` points: ``k * scale`` in ``dtype``, as
    ``torch.fft.fftfreq`` computes them."""
    if half:
        out = torch.arange(n // 2 + 1, dtype=TORCH[dtype], device=device)
    else:
        out = torch.arange(n, dtype=TORCH[dtype], device=device)
        out[(n + 1) // 2:] = torch.arange(-(n // 2), 0, dtype=out.dtype, device=device)
    return out.mul_(scale)
