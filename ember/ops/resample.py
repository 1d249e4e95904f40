"""PyTorch's resampling functions: ``interpolate`` (and the deprecated ``upsample``,
``upsample_nearest``, ``upsample_bilinear``), ``pixel_shuffle``, ``pixel_unshuffle``,
``channel_shuffle``, ``affine_grid`` and ``grid_sample``.

Every mode of ``interpolate`` is separable, so each resizes one spatial dim at a time, the
last first, by PyTorch's taps and weights (nearest, nearest-exact, linear, cubic with A =
-0.75, area, and the antialiased filters): the kernel ``nn_resample`` adds each output's few
taps, and its transpose ``nn_resample_grad`` is the gradient (each the other's, so every order
of derivative runs them). Outputs with many or unequal numbers of taps (area and antialias
shrinking much) take a matmul with the dense (out, in) matrix instead.

>>> import ember
>>> import ember.nn.functional as F
>>> F.interpolate(ember.tensor([[[1.0, 2.0]]]), scale_factor=2, mode="linear").tolist()
[[[1.0, 1.25, 1.75, 2.0]]]
"""

import math

from ..dtypes import int64
from ..errors import InvalidParameterError, ShapeMismatchError
from .._tensor import check_tensor
from .creation import ones_like, tensor
from .indexing import linear_map
from .nn_args import _backend, _float_tensor, _int, _rank, _real, _shape_str
from .sampling import grid_sample_2d
from .segments import stack

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
           "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "affine_grid",
           "grid_sample"]

_MODES = {"nearest": None, "nearest-exact": None, "area": None, "linear": 3, "bilinear": 4,
          "bicubic": 4, "trilinear": 5}
_MAX_TAPS = 8  # more taps per output (area and antialias shrinking much) take the dense matrix


def _cubic(t, a):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return 0.0


def _taps(mode, n, o, scale, align_corners, antialias):
    """PyTorch's taps of one dim: for each of the ``o`` outputs, its (input index, weight)
    pairs in PyTorch's order (a clamped index may repeat). ``scale`` is PyTorch's in/out ratio
    for this dim (from scale_factor when given)."""
    if mode == "area":
        rows = []
        for i in range(o):
            a, b = (i * n) // o, -((-(i + 1) * n) // o)
            rows.append([(j, 1.0 / (b - a)) for j in range(a, b)])
        return rows
    if mode in ("nearest", "nearest-exact"):
        shift = 0.5 if mode == "nearest-exact" else 0.0
        return [[(min(int(math.floor((i + shift) * scale)), n - 1), 1.0)] for i in range(o)]
    if align_corners:
        scale = (n - 1) / (o - 1) if o > 1 else 0.0
    cubic = mode == "bicubic"
    if antialias:
        return _aa_taps(n, o, scale, cubic)
    rows = []
    for i in range(o):
        src = i * scale if align_corners else (i + 0.5) * scale - 0.5
        if not cubic and src < 0:
            src = 0.0
        i0 = int(math.floor(src))
        t = src - i0
        if cubic:
            rows.append([(min(max(i0 + k, 0), n - 1), _cubic(t - k, -0.75))
                         for k in range(-1, 3)])
        else:
            rows.append([(min(i0, n - 1), 1.0 - t), (min(i0 + 1, n - 1), t)])
    return rows


def _aa_taps(n, o, scale, cubic):
    """PyTorch's antialiased taps (cubic with A = -0.5): when downsampling, the filter is
    widened by ``scale``."""
    wide = scale >= 1.0
    support = (2.0 if cubic else 1.0) * (scale if wide else 1.0)
    inv = 1.0 / scale if wide else 1.0
    rows = []
    for i in range(o):
        center = scale * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n)
        ws = []
        for j in range(lo, hi):
            x = (j - center + 0.5) * inv
            ws.append(_cubic(x, -0.5) if cubic else max(0.0, 1.0 - abs(x)))
        total = sum(ws)
        rows.append([(j, w / total if total else 0.0) for j, w in zip(range(lo, hi), ws)])
    return rows


def _resample_dim(x, axis, n, taps):
    """``x`` resampled along ``axis`` (of size ``n``) by ``taps``: by the kernel
    ``nn_resample`` where every output has the same few taps, else by a matmul with the dense
    resampling matrix (area and antialias with wide filters)."""
    count = len(taps[0])
    if count <= _MAX_TAPS and all(len(t) == count for t in taps):
        index = tensor([[j for j, _ in t] for t in taps], dtype=int64, device=x.device)._data
        weight = tensor([[w for _, w in t] for t in taps], dtype=x.dtype, device=x.device)._data
        be = _backend((x,), "interpolate")
        return linear_map(x, lambda a: be.nn_resample(a, axis, index, weight),
                          lambda g: be.nn_resample_grad(g, axis, index, weight, n), "interpolate")
    rows = [[0.0] * n for _ in taps]
    for row, t in zip(rows, taps):
        for j, w in t:
            row[j] += w
    m = tensor(rows, dtype=x.dtype, device=x.device).reshape((len(taps), n))
    moved = x.movedim(axis, -1) if axis != x.ndim - 1 else x
    moved = moved.matmul(m.mT)
    return moved.movedim(-1, axis) if axis != x.ndim - 1 else moved


def _sizes(op, x, size, scale_factor, recompute_scale_factor, nd):
    if (size is None) == (scale_factor is None):
        raise InvalidParameterError(f"{op}: give exactly one of size and scale_factor",
                                    "size", size)
    spatial = tuple(x.shape[2:])
    if size is not None:
        sizes = size if isinstance(size, (tuple, list)) else (size,) * nd
        if len(sizes) != nd:
            raise InvalidParameterError(
                f"{op}: size {size!r} has {len(sizes)} entries; the input has {nd} spatial "
                "dims", "size", size)
        out = tuple(_int(s, op, "size", 1) for s in sizes)
        return out, tuple(n / o for n, o in zip(spatial, out))
    factors = scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * nd
    if len(factors) != nd:
        raise InvalidParameterError(
            f"{op}: scale_factor {scale_factor!r} has {len(factors)} entries; the input has "
            f"{nd} spatial dims", "scale_factor", scale_factor)
    factors = tuple(_real(f, op, "scale_factor") for f in factors)
    if any(f <= 0 for f in factors):
        raise InvalidParameterError(f"{op}: scale_factor {scale_factor!r} must be positive",
                                    "scale_factor", scale_factor)
    out = tuple(int(math.floor(n * f)) for n, f in zip(spatial, factors))
    if any(o < 1 for o in out):
        raise ShapeMismatchError(f"{op}: scale_factor {scale_factor!r} gives an empty output "
                                 f"for input {_shape_str(x.shape)}", expected=1, actual=out)
    if recompute_scale_factor:
        return out, tuple(n / o for n, o in zip(spatial, out))
    return out, tuple(1.0 / f for f in factors)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of a (N, C, *spatial) input, PyTorch's ``F.interpolate``:
    ``mode`` "nearest", "nearest-exact", "linear" (3-D), "bilinear"/"bicubic" (4-D),
    "trilinear" (5-D) or "area"; ``align_corners`` for the interpolating modes;
    ``antialias`` for bilinear and bicubic.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.interpolate(ember.tensor([[[1.0, 2.0]]]), size=4).tolist()
    [[[1.0, 1.0, 2.0, 2.0]]]
    """
    op = "interpolate"
    x = _float_tensor(input, op, "input")
    if mode not in _MODES:
        raise InvalidParameterError(f"{op}: mode {mode!r} is unknown; expected one of "
                                    f"{sorted(_MODES)}", "mode", mode)
    _rank(x, (3, 4, 5), op, "(N, C, *spatial) with 1 to 3 spatial dims")
    if _MODES[mode] is not None and x.ndim != _MODES[mode]:
        raise ShapeMismatchError(
            f"{op}: mode {mode!r} takes a {_MODES[mode]}-d input, got shape "
            f"{_shape_str(x.shape)}", expected=_MODES[mode], actual=tuple(x.shape))
    interpolating = mode in ("linear", "bilinear", "bicubic", "trilinear")
    if align_corners is not None:
        if not interpolating:
            raise InvalidParameterError(
                f"{op}: align_corners can only be set with the interpolating modes (linear, "
                f"bilinear, bicubic, trilinear), not {mode!r}", "align_corners", align_corners)
        if not isinstance(align_corners, bool):
            raise InvalidParameterError(f"{op}: align_corners must be a bool, got "
                                        f"{align_corners!r}", "align_corners", align_corners)
    if not isinstance(antialias, bool) or (antialias and mode not in ("bilinear", "bicubic")):
        raise InvalidParameterError(
            f"{op}: antialias={antialias!r}; it can be True only with mode 'bilinear' or "
            "'bicubic'", "antialias", antialias)
    nd = x.ndim - 2
    if any(n == 0 for n in x.shape[2:]):
        raise ShapeMismatchError(f"{op}: input {_shape_str(x.shape)} has an empty spatial dim",
                                 expected="non-empty", actual=tuple(x.shape))
    out, scales = _sizes(op, x, size, scale_factor, recompute_scale_factor, nd)
    if mode == "area":
        scales = tuple(n / o for n, o in zip(x.shape[2:], out))
    for d in reversed(range(nd)):  # the last dim first, as PyTorch's kernels combine the taps
        n, o = x.shape[2 + d], out[d]
        taps = _taps(mode, n, o, scales[d], bool(align_corners), antialias)
        x = _resample_dim(x, 2 + d, n, taps)
    return x


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """PyTorch's deprecated ``F.upsample``: ``interpolate``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.upsample(ember.ones(1, 1, 2), scale_factor=2).shape
    (1, 1, 4)
    """
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """PyTorch's deprecated ``F.upsample_nearest``: ``interpolate(mode="nearest")``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.upsample_nearest(ember.ones(1, 1, 2, 2), 3).shape
    (1, 1, 3, 3)
    """
    return interpolate(input, size, scale_factor, "nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """PyTorch's deprecated ``F.upsample_bilinear``: bilinear with ``align_corners=True``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.upsample_bilinear(ember.ones(1, 1, 2, 2), scale_factor=2).shape
    (1, 1, 4, 4)
    """
    return interpolate(input, size, scale_factor, "bilinear", True)


def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) to (*, C, H*r, W*r), PyTorch's ``F.pixel_shuffle``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.pixel_shuffle(ember.arange(4.0).reshape(1, 4, 1, 1), 2).tolist()
    [[[[0.0, 1.0], [2.0, 3.0]]]]
    """
    op = "pixel_shuffle"
    x = _any_tensor(input, op)
    r = _int(upscale_factor, op, "upscale_factor", 1)
    if x.ndim < 3 or x.shape[-3] % (r * r):
        raise ShapeMismatchError(
            f"{op}: input has shape {_shape_str(x.shape)}; expected (*, C*{r * r}, H, W) (at "
            f"least 3 dims, channels divisible by upscale_factor**2 = {r * r})",
            expected=f"(*, C*{r * r}, H, W)", actual=tuple(x.shape))
    *lead, c, h, w = x.shape
    lead = tuple(lead)
    k = len(lead)
    y = x.reshape(lead + (c // (r * r), r, r, h, w))
    y = y.permute(tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return y.reshape(lead + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) to (*, C*r*r, H, W), PyTorch's ``F.pixel_unshuffle``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.pixel_unshuffle(ember.arange(4.0).reshape(1, 1, 2, 2), 2).flatten().tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    op = "pixel_unshuffle"
    x = _any_tensor(input, op)
    r = _int(downscale_factor, op, "downscale_factor", 1)
    if x.ndim < 3 or x.shape[-1] % r or x.shape[-2] % r:
        raise ShapeMismatchError(
            f"{op}: input has shape {_shape_str(x.shape)}; expected (*, C, H, W) with H and W "
            f"divisible by downscale_factor = {r}", expected=f"H, W divisible by {r}",
            actual=tuple(x.shape))
    *lead, c, h, w = x.shape
    lead = tuple(lead)
    k = len(lead)
    y = x.reshape(lead + (c, h // r, r, w // r, r))
    y = y.permute(tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return y.reshape(lead + (c * r * r, h // r, w // r))


def _any_tensor(x, op):
    check_tensor(x, op, "input")
    return x


def channel_shuffle(input, groups):
    """Shuffle the channels (dim 1) of a (N, C, *) input in ``groups``, PyTorch's
    ``F.channel_shuffle``: channel ``g * (C/groups) + i`` moves to ``i * groups + g``.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.channel_shuffle(ember.arange(4.0).reshape(1, 4, 1), 2).flatten().tolist()
    [0.0, 2.0, 1.0, 3.0]
    """
    op = "channel_shuffle"
    x = _any_tensor(input, op)
    g = _int(groups, op, "groups", 1)
    if x.ndim < 3 or x.shape[1] % g:
        raise ShapeMismatchError(
            f"{op}: input has shape {_shape_str(x.shape)}; expected (N, C, *) with at least 3 "
            f"dims and C divisible by groups = {g}", expected=f"C divisible by {g}",
            actual=tuple(x.shape))
    n, c, *rest = x.shape
    y = x.reshape((n, g, c // g) + tuple(rest)).transpose(1, 2)
    return y.reshape(tuple(x.shape))


native_channel_shuffle = channel_shuffle


def _base(n, align_corners, x):
    if align_corners:
        vals = [-1.0 + 2.0 * i / (n - 1) if n > 1 else 0.0 for i in range(n)]
    else:
        vals = [(2.0 * i + 1) / n - 1 for i in range(n)]
    return tensor(vals, dtype=x.dtype, device=x.device)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine matrices, PyTorch's ``F.affine_grid``: ``theta``
    (N, 2, 3) with ``size`` (N, C, H, W) gives (N, H, W, 2); (N, 3, 4) with (N, C, D, H, W)
    gives (N, D, H, W, 3). ``align_corners`` defaults to False.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> eye = ember.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> F.affine_grid(eye, (1, 1, 1, 2), align_corners=False).tolist()
    [[[[-0.5, 0.0], [0.5, 0.0]]]]
    """
    op = "affine_grid"
    t = _float_tensor(theta, op, "theta")
    size = tuple(_int(s, op, "size", 0) for s in size)
    if len(size) not in (4, 5):
        raise InvalidParameterError(f"{op}: size {size} must be (N, C, H, W) or "
                                    "(N, C, D, H, W)", "size", size)
    k = len(size) - 2
    if tuple(t.shape) != (size[0], k, k + 1):
        raise ShapeMismatchError(
            f"{op}: theta has shape {_shape_str(t.shape)}; expected ({size[0]}, {k}, {k + 1}) "
            f"for size {size}", expected=(size[0], k, k + 1), actual=tuple(t.shape))
    ac = bool(align_corners)
    dims = size[2:]
    axes = [_base(n, ac, t) for n in dims]      # D?, H, W
    grid_shape = tuple(dims)
    coords = []
    for j, axis in enumerate(reversed(axes)):   # x (W), y (H), z (D)
        d = len(dims) - 1 - j
        shape = [1] * len(dims)
        shape[d] = dims[d]
        coords.append(axis.reshape(tuple(shape)).expand(*grid_shape))
    coords.append(ones_like(coords[0]))
    base = stack(coords, -1).reshape((1, -1, k + 1))    # (1, P, k+1)
    grid = base.matmul(t.mT)                             # (N, P, k)
    return grid.reshape((size[0],) + grid_shape + (k,))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """PyTorch's ``F.grid_sample`` for (N, C, H, W) inputs: ``Tensor.grid_sample_2d``
    (``mode`` "bilinear", "nearest" or "bicubic"; ``padding_mode`` "zeros", "border" or
    "reflection"; ``align_corners`` defaults to False).

    >>> import ember
    >>> import ember.nn.functional as F
    >>> x = ember.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    >>> F.grid_sample(x, ember.zeros(1, 1, 1, 2), align_corners=True).tolist()
    [[[[1.5]]]]
    """
    return grid_sample_2d(input, grid, mode=mode, padding_mode=padding_mode,
                          align_corners=bool(align_corners))
