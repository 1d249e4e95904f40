"""NumPy kernels of grid sampling (grid_sample_2d), PyTorch's ``grid_sample`` for 4-D inputs.

Public names here are kernels (``be.NAME``); helpers start with ``_``. Every kernel is
vectorized over all output points: corner (or tap) values are gathered with one
``take_along_axis`` per corner from the input with a zero appended to each (n, c) plane (the
index of an out-of-range corner points at that zero, so out-of-range corners read exactly 0 even
next to inf or nan values), and input gradients are accumulated with one weighted ``bincount``.
The only Python loops run over the 4 bilinear corners or the 4 x 4 bicubic taps. The coordinate
math and the sampling plan (``ember/backends/grid_coords.py``) are shared with the torch kernel.

Half-precision inputs (float16, bfloat16) are computed in float32 and cast back.
"""

from types import SimpleNamespace

import numpy as np

from ..grid_coords import plan as _plan
from .core import NP, _warnings_off

__all__ = ["grid_sample_2d_forward", "grid_sample_2d_grads"]

# the array namespace of the shared coordinate math (ember/backends/grid_coords.py)
_XP = SimpleNamespace(floor=np.floor, round=np.rint, abs=np.abs, fmod=np.fmod, clip=np.clip,
                      where=np.where, isfinite=np.isfinite, zeros_like=np.zeros_like,
                      ones_like=np.ones_like, astype_like=lambda x, ref: x.astype(ref.dtype),
                      index=lambda x: x.astype(np.intp))


def _work_dtype(dtype):
    """The NumPy dtype the kernels compute in for result (ember) dtype ``dtype``."""
    dtype = np.dtype(NP[dtype])
    return np.dtype(np.float32) if dtype.itemsize < 4 else dtype


def _planes(x):
    """``x`` (N, C, H, W) as (N, C, H*W + 1): each plane followed by one zero."""
    N, C, H, W = x.shape
    out = np.zeros((N, C, H * W + 1), dtype=x.dtype)
    out[:, :, :H * W] = x.reshape(N, C, H * W)
    return out


def _gather(planes, idx):
    """Values (N, C, P) of ``planes`` (N, C, HW + 1) at flat indices ``idx`` (N, 1, P)."""
    return np.take_along_axis(planes, idx, axis=2)


@_warnings_off
def grid_sample_2d_forward(x, grid, mode, padding_mode, align_corners, dtype):
    """Sample ``x`` (N, C, H, W) at ``grid`` (N, Ho, Wo, 2) as PyTorch's ``grid_sample``;
    the result (N, C, Ho, Wo) has ember dtype ``dtype``."""
    wd = _work_dtype(dtype)
    N, C = x.shape[:2]
    Ho, Wo = grid.shape[1:3]
    planes = _planes(x.astype(wd, copy=False))
    plan = _plan(_XP, x.shape, grid.astype(wd, copy=False), mode, padding_mode, align_corners,
                 False)
    out = np.zeros((N, C, Ho * Wo), dtype=wd)
    for idx, w, _, _ in plan:  # the corners / taps (1, 4 or 16)
        v = _gather(planes, idx)
        out += v if mode == "nearest" else v * w
    return out.reshape(N, C, Ho, Wo).astype(NP[dtype], copy=False)


@_warnings_off
def grid_sample_2d_grads(g, x, grid, mode, padding_mode, align_corners, dtype, need_x,
                         need_grid, x_dtype, grid_dtype):
    """The gradients (of ``x`` or None, of ``grid`` or None) of ``grid_sample_2d_forward`` for
    the output gradient ``g`` (N, C, Ho, Wo), computed for result dtype ``dtype`` and returned
    in ember dtypes ``x_dtype`` and ``grid_dtype``. Nearest sampling gives a zero gradient to
    the grid, as PyTorch."""
    wd = _work_dtype(dtype)
    N, C, H, W = x.shape
    HW = H * W
    Ho, Wo = grid.shape[1:3]
    P = Ho * Wo
    gw = g.astype(wd, copy=False).reshape(N, C, P)
    grad_needed = need_grid and mode != "nearest"
    plan = _plan(_XP, x.shape, grid.astype(wd, copy=False), mode, padding_mode, align_corners,
                 grad_needed)
    gx_out = ggrid_out = None
    if need_x:
        base = (np.arange(N * C, dtype=np.intp) * (HW + 1)).reshape(N, C, 1)
        size = N * C * (HW + 1)
        acc = np.zeros(size)
        for idx, w, _, _ in plan:  # the corners / taps (1, 4 or 16): one bincount each
            lin = (base + idx).reshape(-1)
            acc += np.bincount(lin, weights=(gw if mode == "nearest" else gw * w).reshape(-1),
                               minlength=size)
        gx_out = acc.reshape(N, C, HW + 1)[:, :, :HW].reshape(N, C, H, W).astype(
            NP[x_dtype])
    if need_grid:
        ggrid = np.zeros((N, Ho * Wo, 2), dtype=wd)
        if grad_needed:
            planes = _planes(x.astype(wd, copy=False))
            sx = np.zeros((N, C, P), dtype=wd)
            sy = np.zeros((N, C, P), dtype=wd)
            for idx, _, dwx, dwy in plan:  # the corners / taps (4 or 16)
                v = _gather(planes, idx)
                sx += v * dwx
                sy += v * dwy
            ggrid[:, :, 0] = (sx * gw).sum(axis=1)
            ggrid[:, :, 1] = (sy * gw).sum(axis=1)
        ggrid_out = ggrid.reshape(N, Ho, Wo, 2).astype(NP[grid_dtype])
    return gx_out, ggrid_out
