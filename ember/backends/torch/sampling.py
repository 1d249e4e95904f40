"""Torch kernels of grid sampling; the forward is written once in ember/backends/base/sampling.py.

Input gradients accumulate with ``index_add_`` in float64 (float32 on MPS). Half-precision
inputs compute in float32 and are cast back. The coordinate math and the sampling plan are
``ember/backends/grid_coords.py``.
"""

from types import SimpleNamespace

import torch

from ..grid_coords import plan as _plan
from .core import TORCH

__all__ = ["grid_sample_2d_grads"]

# the array namespace of the shared coordinate math (ember/backends/grid_coords.py)
_XP = SimpleNamespace(floor=torch.floor, round=torch.round, abs=torch.abs, fmod=torch.fmod,
                      clip=torch.clamp, where=torch.where, isfinite=torch.isfinite,
                      zeros_like=torch.zeros_like, ones_like=torch.ones_like, reshape=torch.reshape,
                      astype_like=lambda x, ref: x.to(ref.dtype),
                      index=lambda x: x.to(torch.int64))


def _work_dtype(dtype):
    t = TORCH[dtype]
    return torch.float32 if torch.finfo(t).bits < 32 else t


def _planes(x):
    N, C, H, W = x.shape
    out = torch.zeros((N, C, H * W + 1), dtype=x.dtype, device=x.device)
    out[:, :, :H * W] = x.reshape(N, C, H * W)
    return out


def _gather(planes, idx):
    N, C = planes.shape[:2]
    return torch.gather(planes, 2, idx.expand(N, C, idx.shape[2]))


# override: 18.9 vs the default's 37.6 ms (bilinear grads, 4x3x128x128: one index_add_ per corner)
def grid_sample_2d_grads(g, x, grid, mode, padding_mode, align_corners, dtype, need_x,
                         need_grid, x_dtype, grid_dtype):
    """The gradients (of ``x`` or None, of ``grid`` or None) of ``grid_sample_2d_forward``,
    returned in ember dtypes ``x_dtype`` and ``grid_dtype`` (as the NumPy kernel)."""
    wd = _work_dtype(dtype)
    N, C, H, W = x.shape
    HW = H * W
    Ho, Wo = grid.shape[1:3]
    P = Ho * Wo
    dev = x.device
    gw = g.to(wd).reshape(N, C, P)
    grad_needed = need_grid and mode != "nearest"
    plan = _plan(_XP, tuple(x.shape), grid.to(wd), mode, padding_mode, align_corners,
                 grad_needed)
    gx_out = ggrid_out = None
    if need_x:
        acc_dt = torch.float32 if dev.type == "mps" else torch.float64
        base = (torch.arange(N * C, dtype=torch.int64, device=dev) * (HW + 1)).reshape(N, C, 1)
        size = N * C * (HW + 1)
        acc = torch.zeros(size, dtype=acc_dt, device=dev)
        for idx, w, _, _ in plan:
            lin = (base + idx).reshape(-1)
            weights = (gw if mode == "nearest" else gw * w).reshape(-1).to(acc_dt)
            acc.index_add_(0, lin, weights)
        gx_out = acc.reshape(N, C, HW + 1)[:, :, :HW].reshape(N, C, H, W).to(TORCH[x_dtype])
    if need_grid:
        ggrid = torch.zeros((N, Ho * Wo, 2), dtype=wd, device=dev)
        if grad_needed:
            planes = _planes(x.to(wd))
            sx = torch.zeros((N, C, P), dtype=wd, device=dev)
            sy = torch.zeros((N, C, P), dtype=wd, device=dev)
            for idx, _, dwx, dwy in plan:
                v = _gather(planes, idx)
                sx += v * dwx
                sy += v * dwy
            ggrid[:, :, 0] = (sx * gw).sum(dim=1)
            ggrid[:, :, 1] = (sy * gw).sum(dim=1)
        ggrid_out = ggrid.reshape(N, Ho, Wo, 2).to(TORCH[grid_dtype])
    return gx_out, ggrid_out
