"""NumPy kernels of grid sampling (grid_sample_2d), PyTorch's ``grid_sample`` for 4-D inputs.

Public names here are kernels (``be.NAME``); helpers start with ``_``. Every kernel is
vectorized over all output points: corner (or tap) values are gathered with one
``take_along_axis`` per corner from the input with a zero appended to each (n, c) plane (the
index of an out-of-range corner points at that zero, so out-of-range corners read exactly 0 even
next to inf or nan values), and input gradients are accumulated with one weighted ``bincount``.
The only Python loops run over the 4 bilinear corners or the 4 x 4 bicubic taps.

Half-precision inputs (float16, bfloat16) are computed in float32 and cast back.
"""

import numpy as np

from .core import NP, _warnings_off

__all__ = ["grid_sample_2d_forward", "grid_sample_2d_grads"]

_A = -0.75          # PyTorch's bicubic convolution coefficient
_INT_LIMIT = 2.0 ** 31 - 2  # coordinates beyond this read as out of range (PyTorch's guard)


def _work_dtype(dtype):
    """The NumPy dtype the kernels compute in for result (ember) dtype ``dtype``."""
    dtype = np.dtype(NP[dtype])
    return np.dtype(np.float32) if dtype.itemsize < 4 else dtype


def _unnormalize(c, size, align_corners):
    """Grid coordinates in [-1, 1] to pixel coordinates, and d(pixel)/d(grid)."""
    if align_corners:
        return ((c + 1) / 2) * (size - 1), (size - 1) / 2
    return ((c + 1) * size - 1) / 2, size / 2


def _clip(c, size):
    """Clamp to [0, size - 1]; the gradient is 0 on and beyond the borders (as PyTorch)."""
    out = np.minimum(size - 1, np.maximum(c, 0))
    return out, (c > 0) & (c < size - 1)


def _reflect(c, size, align_corners):
    """Reflect about the borders (PyTorch's reflect_coordinates), with d(out)/d(c) as +-1."""
    twice_low, twice_high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
    if twice_low == twice_high:
        return np.zeros_like(c), np.zeros(c.shape, dtype=c.dtype)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = c - low
    sign = np.where(c < 0, -1, 1).astype(c.dtype)
    c = np.abs(c)
    extra = np.fmod(c, span)
    flips = np.floor(c / span)
    even = np.fmod(flips, 2) == 0
    out = np.where(even, extra + low, span - extra + low)
    return out, np.where(even, sign, -sign)


def _pad_coords(c, size, padding_mode, align_corners):
    """Apply the padding mode to pixel coordinates: (coordinates, d(out)/d(c) or 1)."""
    if padding_mode == "border":
        return _clip(c, size)
    if padding_mode == "reflection":
        r, gr = _reflect(c, size, align_corners)
        r, gc = _clip(r, size)
        return r, gr * gc
    return c, 1


def _source(c, size, padding_mode, align_corners):
    """PyTorch's compute_source_index: pixel coordinates after padding, and their gradient
    multiplier d(pixel)/d(grid). Coordinates too large for an index read as -100 (out of range)."""
    c, factor = _unnormalize(c, size, align_corners)
    c, mult = _pad_coords(c, size, padding_mode, align_corners)
    c = np.where(np.abs(c) <= _INT_LIMIT, c, -100)
    return c, mult * np.asarray(factor, dtype=c.dtype)


def _index(xc, yc, inb, W, HW):
    """Flat indices ``y * W + x`` into a plane of ``HW`` values plus a zero at index ``HW``;
    ``HW`` where ``inb`` is false. ``xc``, ``yc`` are float arrays of integral values."""
    xi = np.where(inb, xc, 0).astype(np.intp)
    yi = np.where(inb, yc, 0).astype(np.intp)
    return np.where(inb, yi * W + xi, HW)


def _in_range(c, size):
    return (c >= 0) & (c < size)


def _cubic(t):
    """PyTorch's bicubic coefficients of the 4 taps for fraction ``t`` and their d/dt."""
    A = _A

    def c1(x):  # |x| <= 1
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def c2(x):  # 1 < |x| < 2
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A

    def d1(x):
        return (3 * (A + 2) * x - 2 * (A + 3)) * x

    def d2(x):
        return (3 * A * x - 10 * A) * x + 8 * A

    coeffs = [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]
    grads = [d2(t + 1), d1(t), -d1(1 - t), -d2(2 - t)]
    return coeffs, grads


def _taps(input_shape, grid, mode, padding_mode, align_corners, with_grad):
    """The sampling plan: a list of (flat index (N, 1, P), weight (N, 1, P), dweight/dgrid_x,
    dweight/dgrid_y) per corner or tap (the derivatives only when ``with_grad`` and the mode
    has them, else None), for a grid of shape (N, Ho, Wo, 2) in the work dtype."""
    N, _, H, W = input_shape
    HW = H * W
    P = grid.shape[1] * grid.shape[2]
    gx = grid[..., 0].reshape(N, 1, P)
    gy = grid[..., 1].reshape(N, 1, P)
    valid = np.isfinite(gx) & np.isfinite(gy)
    # non-finite coordinates: computed at -100 (harmless), their weights are zeroed below
    gx = np.where(valid, gx, -100).astype(grid.dtype)
    gy = np.where(valid, gy, -100).astype(grid.dtype)
    dt = grid.dtype
    plan = []
    if mode in ("bilinear", "nearest"):
        ix, mx = _source(gx, W, padding_mode, align_corners)
        iy, my = _source(gy, H, padding_mode, align_corners)
        if mode == "nearest":
            xr, yr = np.rint(ix), np.rint(iy)
            inb = _in_range(xr, W) & _in_range(yr, H) & valid
            plan.append((_index(xr, yr, inb, W, HW), np.ones(inb.shape, dt), None, None))
            return plan
        x0, y0 = np.floor(ix), np.floor(iy)
        wx1 = ix - x0
        wy1 = iy - y0
        wx0 = 1 - wx1
        wy0 = 1 - wy1
        # the four corners (a loop of 4): (dx, dy, weight, dweight/dix, dweight/diy)
        one = np.ones((), dt)
        corners = ((0, 0, wy0 * wx0, -wy0, -wx0), (1, 0, wy0 * wx1, wy0, -wx1),
                   (0, 1, wy1 * wx0, -wy1, wx0), (1, 1, wy1 * wx1, wy1, wx1))
        for dx, dy, w, dwx, dwy in corners:
            xc, yc = x0 + dx * one, y0 + dy * one
            inb = _in_range(xc, W) & _in_range(yc, H) & valid
            plan.append((_index(xc, yc, inb, W, HW), w,
                         dwx * mx if with_grad else None, dwy * my if with_grad else None))
        return plan
    # bicubic: 4 x 4 taps around floor(pixel); the padding mode applies to each tap's position
    ix, fx = _unnormalize(gx, W, align_corners)
    iy, fy = _unnormalize(gy, H, align_corners)
    # far-away points: keep the arithmetic finite (the taps are out of range or clamped anyway)
    ix = np.clip(ix, -_INT_LIMIT, _INT_LIMIT)
    iy = np.clip(iy, -_INT_LIMIT, _INT_LIMIT)
    x0, y0 = np.floor(ix), np.floor(iy)
    cx, dcx = _cubic(ix - x0)
    cy, dcy = _cubic(iy - y0)
    vf = valid.astype(dt)
    cx = [c * vf for c in cx]
    cy = [c * vf for c in cy]
    fx = np.asarray(fx, dtype=dt)
    fy = np.asarray(fy, dtype=dt)
    dcx = [d * vf * fx for d in dcx]
    dcy = [d * vf * fy for d in dcy]
    one = np.ones((), dt)
    xs, ys = [], []
    for k in range(4):  # the 4 tap positions along each axis
        xk, _ = _pad_coords(x0 + (k - 1) * one, W, padding_mode, align_corners)
        yk, _ = _pad_coords(y0 + (k - 1) * one, H, padding_mode, align_corners)
        xs.append((xk, _in_range(xk, W)))
        ys.append((yk, _in_range(yk, H)))
    for j in range(4):      # 16 taps: rows
        yk, iny = ys[j]
        for i in range(4):  # columns
            xk, inx = xs[i]
            inb = inx & iny & valid
            plan.append((_index(xk, yk, inb, W, HW), cx[i] * cy[j],
                         dcx[i] * cy[j] if with_grad else None,
                         cx[i] * dcy[j] if with_grad else None))
    return plan


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
    plan = _taps(x.shape, grid.astype(wd, copy=False), mode, padding_mode, align_corners,
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
    plan = _taps(x.shape, grid.astype(wd, copy=False), mode, padding_mode, align_corners,
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
