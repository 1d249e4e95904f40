"""ember.ops.grid_sample_3d: PyTorch's ``grid_sample`` of a 5-d (N, C, D, H, W) input, composed of
ember ops (so its gradients, of any order, are theirs).

The grid (N, D_out, H_out, W_out, 3) holds (x, y, z) locations in [-1, 1] (x along W, y along H,
z along D). ``mode`` "bilinear" weighs the 8 corners around each location (trilinear), "nearest"
takes the closest voxel (halves to even); ``padding_mode`` "zeros", "border" or "reflection"
and ``align_corners`` as the 2-d sampler's: the coordinate math is the one
ember/backends/grid_coords.py writes for it.

>>> import ember
>>> from ember.ops.grid_sample_3d import grid_sample_3d
>>> x = ember.arange(8.0).reshape(1, 1, 2, 2, 2)
>>> grid_sample_3d(x, ember.zeros(1, 1, 1, 1, 3), align_corners=True).tolist()
[[[[[3.5]]]]]
"""

from types import SimpleNamespace

from .. import dtypes as _dt
from ..backends.grid_coords import in_range, source
from ..errors import InvalidParameterError, ShapeMismatchError
from .masking import where
from .nn_args import _float_tensor, _shape_str
from .sampling import PADDING_MODES, _choice, _flag

__all__ = ["grid_sample_3d"]

_OP = "grid_sample_3d"

# the array namespace of the shared coordinate math, on (tracked) ember tensors
_XP = SimpleNamespace(floor=lambda c: c.floor(), abs=lambda c: c.abs(),
                      fmod=lambda c, s: c.fmod(s), clip=lambda c, lo, hi: c.clamp(lo, hi),
                      where=where, zeros_like=lambda c: c * 0.0,
                      astype_like=lambda c, ref: c.cast(ref._dtype))


def _check(x, g):
    if x.ndim != 5:
        raise ShapeMismatchError(f"{_OP}: input has shape {_shape_str(x.shape)}; expected a 5-d "
                                 "(N, C, D, H, W) tensor", expected=5, actual=tuple(x.shape))
    if g.ndim != 5 or g.shape[-1] != 3 or g.shape[0] != x.shape[0]:
        raise ShapeMismatchError(f"{_OP}: grid has shape {_shape_str(g.shape)}; expected "
                                 f"({x.shape[0]}, D_out, H_out, W_out, 3)",
                                 expected=(x.shape[0], None, None, None, 3),
                                 actual=tuple(g.shape))


def grid_sample_3d(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """Sample ``input`` (N, C, D, H, W) at the locations of ``grid`` (N, Do, Ho, Wo, 3): an
    (N, C, Do, Ho, Wo) tensor, PyTorch's ``F.grid_sample`` of a 5-d input.

    >>> import ember
    >>> from ember.ops.grid_sample_3d import grid_sample_3d
    >>> x = ember.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> grid = ember.tensor([[[[[1.0, 1.0, 1.0]]]]])
    >>> grid_sample_3d(x, grid, "nearest", align_corners=True).item()
    7.0
    """
    x = _float_tensor(input, _OP)
    g = _float_tensor(grid, _OP, "grid")
    _check(x, g)
    if mode == "bicubic":
        raise InvalidParameterError(f"{_OP}: bicubic interpolation only supports 4-d inputs, "
                                    "got a 5-d one; expected 'bilinear' or 'nearest'", "mode",
                                    mode)
    mode = _choice(mode, ("bilinear", "nearest"), "mode", _OP)
    padding = _choice(padding_mode, PADDING_MODES, "padding_mode", _OP)
    align = _flag(align_corners, "align_corners", _OP)
    N, C, D, H, W = tuple(x.shape)
    Do, Ho, Wo = tuple(g.shape[1:4])
    P = Do * Ho * Wo
    if g._dtype is not x._dtype:
        g = g.cast(x._dtype)
    planes = x.reshape(N, C, D * H * W)
    coords = [source(_XP, g[..., k].reshape(N, 1, P), size, padding, align)[0]
              for k, size in enumerate((W, H, D))]

    def corner(xc, yc, zc):  # the (N, C, P) values at integral coordinates, 0 outside
        inb = in_range(xc, W) & in_range(yc, H) & in_range(zc, D)
        flat = where(inb, (zc * float(H) + yc) * float(W) + xc, 0.0).cast(_dt.int64)
        return planes.gather(2, flat.expand(N, C, P)) * inb.cast(x._dtype)

    if mode == "nearest":
        out = corner(*(c.round() for c in coords))
    else:
        lows = [c.floor() for c in coords]
        highs = [c - lo for c, lo in zip(coords, lows)]        # the weights of the upper corners
        out = None
        for k in range(8):
            picks = [(k >> a) & 1 for a in range(3)]
            weight = None
            for a, up in enumerate(picks):
                w = highs[a] if up else 1.0 - highs[a]
                weight = w if weight is None else weight * w
            term = corner(*(lows[a] + float(picks[a]) for a in range(3))) * weight
            out = term if out is None else out + term
    return out.reshape(N, C, Do, Ho, Wo)

