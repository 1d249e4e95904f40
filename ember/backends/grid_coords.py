"""grid_sample_2d's coordinate math, written once for every array type that computes it.

PyTorch's ``grid_sample`` turns grid coordinates in [-1, 1] into pixel coordinates
(``unnormalize``), applies the padding mode to them (``clip`` for "border", ``reflect`` then
``clip`` for "reflection"), and weighs the 4 bilinear corners or the 4 x 4 bicubic taps
(``cubic``). The NumPy kernel (``backends/numpy/sampling.py``), the torch kernel
(``backends/torch/sampling.py``) and the grid gradient's rule, written with ember ops
(``ops/sampling.py``), all compute these the same way, so they share the functions here; each
passes its array namespace ``xp``, an object with:

- ``floor(x)``, ``abs(x)``, ``fmod(x, s)``, ``clip(x, lo, hi)``, ``zeros_like(x)``;
- ``where(cond, a, b)``, ``a`` and ``b`` arrays or Python numbers (keeping the array's dtype);
- ``astype_like(x, ref)``: ``x`` (bools, or numbers) in ``ref``'s float dtype;

and, for ``plan`` (the kernels' sampling plan), ``isfinite(x)``, ``round(x)`` (half to even),
``ones_like(x)``, ``reshape(x, shape)`` and ``index(x)`` (integral floats to the backend's
index integers).
Arithmetic and comparisons are the arrays' operators; a number meets an array in the array's
dtype (NumPy 2's, torch's and ember's rule for Python scalars).
"""

__all__ = ["A", "INT_LIMIT", "unnormalize", "clip", "reflect", "pad_coords", "source",
           "in_range", "cubic", "plan"]

A = -0.75                 # PyTorch's bicubic convolution coefficient
INT_LIMIT = 2.0 ** 31 - 2  # coordinates beyond this read as out of range (PyTorch's guard)


def unnormalize(c, size, align_corners):
    """Grid coordinates in [-1, 1] to pixel coordinates, and d(pixel)/d(grid) (a number)."""
    if align_corners:
        return ((c + 1) / 2) * (size - 1), (size - 1) / 2
    return ((c + 1) * size - 1) / 2, size / 2


def clip(xp, c, size):
    """Clamp to [0, size - 1]; the slope (in ``c``'s dtype) is 0 on and beyond the borders
    (as PyTorch)."""
    return xp.clip(c, 0, size - 1), xp.astype_like((c > 0) & (c < size - 1), c)


def reflect(xp, c, size, align_corners):
    """Reflect about the borders (PyTorch's reflect_coordinates), with d(out)/d(c) as +-1."""
    twice_low, twice_high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
    if twice_low == twice_high:
        return xp.zeros_like(c), xp.zeros_like(c)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    c = c - low
    sign = xp.astype_like(xp.where(c < 0, -1.0, 1.0), c)
    c = xp.abs(c)
    extra = xp.fmod(c, span)
    flips = xp.floor(c / span)
    even = xp.fmod(flips, 2) == 0
    return xp.where(even, extra + low, span - extra + low), xp.where(even, sign, -sign)


def pad_coords(xp, c, size, padding_mode, align_corners):
    """Apply the padding mode to pixel coordinates: (coordinates, d(out)/d(c) or 1)."""
    if padding_mode == "border":
        return clip(xp, c, size)
    if padding_mode == "reflection":
        r, gr = reflect(xp, c, size, align_corners)
        r, gc = clip(xp, r, size)
        return r, gr * gc
    return c, 1


def source(xp, c, size, padding_mode, align_corners):
    """PyTorch's compute_source_index: pixel coordinates after padding, and their gradient
    multiplier d(pixel)/d(grid). Coordinates too large for an index read as -100 (out of range)."""
    c, factor = unnormalize(c, size, align_corners)
    c, mult = pad_coords(xp, c, size, padding_mode, align_corners)
    return xp.where(xp.abs(c) <= INT_LIMIT, c, -100.0), mult * factor


def in_range(c, size):
    """Whether integral pixel coordinates ``c`` lie in [0, size)."""
    return (c >= 0) & (c < size)


def cubic(t):
    """PyTorch's bicubic coefficients of the 4 taps for fraction ``t`` and their d/dt."""
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


def _index(xp, xc, yc, inb, W, HW):
    """Flat indices ``y * W + x`` into a plane of ``HW`` values plus a zero at index ``HW``;
    ``HW`` where ``inb`` is false. ``xc``, ``yc`` are float arrays of integral values."""
    xi = xp.index(xp.where(inb, xc, 0.0))
    yi = xp.index(xp.where(inb, yc, 0.0))
    return xp.where(inb, yi * W + xi, HW)


def plan(xp, input_shape, grid, mode, padding_mode, align_corners, with_grad):
    """The kernels' sampling plan: a list of (flat index (N, 1, P), weight (N, 1, P),
    dweight/dgrid_x, dweight/dgrid_y) per corner or tap (the derivatives only when
    ``with_grad`` and the mode has them, else None), for a grid of shape (N, Ho, Wo, 2) in the
    work dtype. Indices point into (n, c) planes with a zero appended (``_index``)."""
    N, _, H, W = input_shape
    HW = H * W
    P = grid.shape[1] * grid.shape[2]
    gx = xp.reshape(grid[..., 0], (N, 1, P))
    gy = xp.reshape(grid[..., 1], (N, 1, P))
    valid = xp.isfinite(gx) & xp.isfinite(gy)
    # non-finite coordinates: computed at -100 (harmless), their weights are zeroed below
    gx = xp.where(valid, gx, -100.0)
    gy = xp.where(valid, gy, -100.0)
    taps = []
    if mode in ("bilinear", "nearest"):
        ix, mx = source(xp, gx, W, padding_mode, align_corners)
        iy, my = source(xp, gy, H, padding_mode, align_corners)
        if mode == "nearest":
            xr, yr = xp.round(ix), xp.round(iy)
            inb = in_range(xr, W) & in_range(yr, H) & valid
            taps.append((_index(xp, xr, yr, inb, W, HW), xp.ones_like(xr), None, None))
            return taps
        x0, y0 = xp.floor(ix), xp.floor(iy)
        wx1 = ix - x0
        wy1 = iy - y0
        wx0 = 1 - wx1
        wy0 = 1 - wy1
        # the four corners (a loop of 4): (dx, dy, weight, dweight/dix, dweight/diy)
        corners = ((0, 0, wy0 * wx0, -wy0, -wx0), (1, 0, wy0 * wx1, wy0, -wx1),
                   (0, 1, wy1 * wx0, -wy1, wx0), (1, 1, wy1 * wx1, wy1, wx1))
        for dx, dy, w, dwx, dwy in corners:
            xc, yc = x0 + dx, y0 + dy
            inb = in_range(xc, W) & in_range(yc, H) & valid
            taps.append((_index(xp, xc, yc, inb, W, HW), w,
                         dwx * mx if with_grad else None, dwy * my if with_grad else None))
        return taps
    # bicubic: 4 x 4 taps around floor(pixel); the padding mode applies to each tap's position
    ix, fx = unnormalize(gx, W, align_corners)
    iy, fy = unnormalize(gy, H, align_corners)
    # far-away points: keep the arithmetic finite (the taps are out of range or clamped anyway)
    ix = xp.clip(ix, -INT_LIMIT, INT_LIMIT)
    iy = xp.clip(iy, -INT_LIMIT, INT_LIMIT)
    x0, y0 = xp.floor(ix), xp.floor(iy)
    cx, dcx = cubic(ix - x0)
    cy, dcy = cubic(iy - y0)
    vf = xp.astype_like(valid, ix)
    cx = [c * vf for c in cx]
    cy = [c * vf for c in cy]
    dcx = [d * vf * fx for d in dcx]
    dcy = [d * vf * fy for d in dcy]
    xs, ys = [], []
    for k in range(4):  # the 4 tap positions along each axis
        xk, _ = pad_coords(xp, x0 + (k - 1), W, padding_mode, align_corners)
        yk, _ = pad_coords(xp, y0 + (k - 1), H, padding_mode, align_corners)
        xs.append((xk, in_range(xk, W)))
        ys.append((yk, in_range(yk, H)))
    for j in range(4):      # 16 taps: rows
        yk, iny = ys[j]
        for i in range(4):  # columns
            xk, inx = xs[i]
            inb = inx & iny & valid
            taps.append((_index(xp, xk, yk, inb, W, HW), cx[i] * cy[j],
                         dcx[i] * cy[j] if with_grad else None,
                         cx[i] * dcy[j] if with_grad else None))
    return taps
