"""Torch kernels of grid sampling (grid_sample_2d): the NumPy backend's algorithm
(``ember/backends/numpy/sampling.py``) written against torch, so both give PyTorch's
``grid_sample`` values for 4-D inputs, NaN/inf grid points and gradients included.

Corner (or tap) values are gathered from the input with a zero appended to each (n, c) plane
(out-of-range corners point at that zero); input gradients are accumulated with ``index_add_``
in float64 (float32 on MPS). Half-precision inputs compute in float32 and are cast back.
"""

import torch

from .core import TORCH

__all__ = ["grid_sample_2d_forward", "grid_sample_2d_grads"]

_A = -0.75          # PyTorch's bicubic convolution coefficient
_INT_LIMIT = 2.0 ** 31 - 2  # coordinates beyond this read as out of range (PyTorch's guard)


def _work_dtype(dtype):
    t = TORCH[dtype]
    return torch.float32 if torch.finfo(t).bits < 32 else t


def _unnormalize(c, size, align_corners):
    if align_corners:
        return ((c + 1) / 2) * (size - 1), (size - 1) / 2
    return ((c + 1) * size - 1) / 2, size / 2


def _clip(c, size):
    out = torch.clamp(c, min=0, max=size - 1)
    return out, (c > 0) & (c < size - 1)


def _reflect(c, size, align_corners):
    twice_low, twice_high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
    if twice_low == twice_high:
        return torch.zeros_like(c), torch.zeros_like(c)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = c - low
    sign = torch.where(c < 0, -1.0, 1.0).to(c.dtype)
    c = torch.abs(c)
    extra = torch.fmod(c, span)
    flips = torch.floor(c / span)
    even = torch.fmod(flips, 2) == 0
    out = torch.where(even, extra + low, span - extra + low)
    return out, torch.where(even, sign, -sign)


def _pad_coords(c, size, padding_mode, align_corners):
    if padding_mode == "border":
        return _clip(c, size)
    if padding_mode == "reflection":
        r, gr = _reflect(c, size, align_corners)
        r, gc = _clip(r, size)
        return r, gr * gc
    return c, 1


def _source(c, size, padding_mode, align_corners):
    c, factor = _unnormalize(c, size, align_corners)
    c, mult = _pad_coords(c, size, padding_mode, align_corners)
    c = torch.where(torch.abs(c) <= _INT_LIMIT, c, torch.full_like(c, -100))
    return c, mult * factor


def _index(xc, yc, inb, W, HW):
    zero = torch.zeros_like(xc)
    xi = torch.where(inb, xc, zero).to(torch.int64)
    yi = torch.where(inb, yc, zero).to(torch.int64)
    return torch.where(inb, yi * W + xi, torch.full_like(xi, HW))


def _in_range(c, size):
    return (c >= 0) & (c < size)


def _cubic(t):
    A = _A

    def c1(x):
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def c2(x):
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A

    def d1(x):
        return (3 * (A + 2) * x - 2 * (A + 3)) * x

    def d2(x):
        return (3 * A * x - 10 * A) * x + 8 * A

    coeffs = [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]
    grads = [d2(t + 1), d1(t), -d1(1 - t), -d2(2 - t)]
    return coeffs, grads


def _taps(input_shape, grid, mode, padding_mode, align_corners, with_grad):
    """The sampling plan (as the NumPy kernel's): (flat index (N, 1, P), weight, dweight/dgx,
    dweight/dgy) per corner or tap."""
    N, _, H, W = input_shape
    HW = H * W
    P = grid.shape[1] * grid.shape[2]
    gx = grid[..., 0].reshape(N, 1, P)
    gy = grid[..., 1].reshape(N, 1, P)
    valid = torch.isfinite(gx) & torch.isfinite(gy)
    gx = torch.where(valid, gx, torch.full_like(gx, -100))
    gy = torch.where(valid, gy, torch.full_like(gy, -100))
    dt = grid.dtype
    plan = []
    if mode in ("bilinear", "nearest"):
        ix, mx = _source(gx, W, padding_mode, align_corners)
        iy, my = _source(gy, H, padding_mode, align_corners)
        if mode == "nearest":
            xr, yr = torch.round(ix), torch.round(iy)
            inb = _in_range(xr, W) & _in_range(yr, H) & valid
            plan.append((_index(xr, yr, inb, W, HW), torch.ones(inb.shape, dtype=dt,
                                                                device=grid.device), None, None))
            return plan
        x0, y0 = torch.floor(ix), torch.floor(iy)
        wx1 = ix - x0
        wy1 = iy - y0
        wx0 = 1 - wx1
        wy0 = 1 - wy1
        corners = ((0, 0, wy0 * wx0, -wy0, -wx0), (1, 0, wy0 * wx1, wy0, -wx1),
                   (0, 1, wy1 * wx0, -wy1, wx0), (1, 1, wy1 * wx1, wy1, wx1))
        for dx, dy, w, dwx, dwy in corners:
            xc, yc = x0 + dx, y0 + dy
            inb = _in_range(xc, W) & _in_range(yc, H) & valid
            plan.append((_index(xc, yc, inb, W, HW), w,
                         dwx * mx if with_grad else None, dwy * my if with_grad else None))
        return plan
    ix, fx = _unnormalize(gx, W, align_corners)
    iy, fy = _unnormalize(gy, H, align_corners)
    ix = torch.clamp(ix, -_INT_LIMIT, _INT_LIMIT)
    iy = torch.clamp(iy, -_INT_LIMIT, _INT_LIMIT)
    x0, y0 = torch.floor(ix), torch.floor(iy)
    cx, dcx = _cubic(ix - x0)
    cy, dcy = _cubic(iy - y0)
    vf = valid.to(dt)
    cx = [c * vf for c in cx]
    cy = [c * vf for c in cy]
    dcx = [d * vf * fx for d in dcx]
    dcy = [d * vf * fy for d in dcy]
    xs, ys = [], []
    for k in range(4):
        xk, _ = _pad_coords(x0 + (k - 1), W, padding_mode, align_corners)
        yk, _ = _pad_coords(y0 + (k - 1), H, padding_mode, align_corners)
        xs.append((xk, _in_range(xk, W)))
        ys.append((yk, _in_range(yk, H)))
    for j in range(4):
        yk, iny = ys[j]
        for i in range(4):
            xk, inx = xs[i]
            inb = inx & iny & valid
            plan.append((_index(xk, yk, inb, W, HW), cx[i] * cy[j],
                         dcx[i] * cy[j] if with_grad else None,
                         cx[i] * dcy[j] if with_grad else None))
    return plan


def _planes(x):
    N, C, H, W = x.shape
    out = torch.zeros((N, C, H * W + 1), dtype=x.dtype, device=x.device)
    out[:, :, :H * W] = x.reshape(N, C, H * W)
    return out


def _gather(planes, idx):
    N, C = planes.shape[:2]
    return torch.gather(planes, 2, idx.expand(N, C, idx.shape[2]))


def grid_sample_2d_forward(x, grid, mode, padding_mode, align_corners, dtype):
    """Sample ``x`` (N, C, H, W) at ``grid`` (N, Ho, Wo, 2) as PyTorch's ``grid_sample``;
    the result (N, C, Ho, Wo) has ember dtype ``dtype``."""
    wd = _work_dtype(dtype)
    N, C = x.shape[:2]
    Ho, Wo = grid.shape[1:3]
    planes = _planes(x.to(wd))
    plan = _taps(tuple(x.shape), grid.to(wd), mode, padding_mode, align_corners, False)
    out = torch.zeros((N, C, Ho * Wo), dtype=wd, device=x.device)
    for idx, w, _, _ in plan:
        v = _gather(planes, idx)
        out += v if mode == "nearest" else v * w
    return out.reshape(N, C, Ho, Wo).to(TORCH[dtype])


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
    plan = _taps(tuple(x.shape), grid.to(wd), mode, padding_mode, align_corners, grad_needed)
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
