"""ember.ops.sampling: grid_sample_2d, Burn's ``Tensor::grid_sample_2d``.

Samples an (N, C, H, W) float tensor at the (x, y) locations of a grid (N, H_out, W_out, 2)
given in [-1, 1], with PyTorch's ``torch.nn.functional.grid_sample`` semantics for 4-D inputs:
modes ``"bilinear"``, ``"nearest"`` (round half to even), ``"bicubic"`` (a = -0.75); padding
modes ``"zeros"``, ``"border"``, ``"reflection"``; ``align_corners`` (default False).

>>> import ember
>>> x = ember.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
>>> x.grid_sample_2d(ember.tensor([[[[0.0, 0.0]]]])).tolist()
[[[[1.5]]]]
"""

from types import SimpleNamespace

from .. import dtypes as _dt
from ..backends.grid_coords import INT_LIMIT, cubic, in_range, pad_coords, source, unnormalize
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor, backend_of, record, saved, tensor_method, wrap
from .masking import _masked, where

__all__ = ["grid_sample_2d", "GridSampleOptions"]

_OP = "grid_sample_2d"
MODES = ("bilinear", "nearest", "bicubic")
PADDING_MODES = ("zeros", "border", "reflection")


def _choice(value, choices, param, op=_OP):
    """``value`` as one of the strings ``choices`` (case-insensitive, so Burn's ``"Bilinear"``
    works too); InvalidParameterError otherwise."""
    if isinstance(value, str) and value.lower() in choices:
        return value.lower()
    raise InvalidParameterError(
        f"{op}: {param} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}",
        param, value)


def _flag(value, param, op=_OP):
    if value is True or value is False:
        return value
    raise InvalidParameterError(f"{op}: {param} must be True or False, got {value!r}",
                                param, value)


class GridSampleOptions:
    """Burn's ``GridSampleOptions``: the sampling mode, the padding mode and ``align_corners``.

    ``GridSampleOptions(mode="bilinear", padding_mode="zeros", align_corners=False)``; Burn's
    builder spelling works too: ``GridSampleOptions.new("bilinear").with_padding_mode("border")
    .with_align_corners(True)``, and ``GridSampleOptions.default()``. Modes and padding modes
    are strings (case-insensitive); each ``with_`` method returns a new options object.

    >>> import ember
    >>> o = ember.GridSampleOptions.new("nearest").with_padding_mode("border")
    >>> o
    GridSampleOptions(mode='nearest', padding_mode='border', align_corners=False)
    >>> o.with_align_corners(True).align_corners
    True
    """

    __slots__ = ("mode", "padding_mode", "align_corners")

    def __init__(self, mode="bilinear", padding_mode="zeros", align_corners=False):
        op = "GridSampleOptions"
        self.mode = _choice(mode, MODES, "mode", op)
        self.padding_mode = _choice(padding_mode, PADDING_MODES, "padding_mode", op)
        self.align_corners = _flag(align_corners, "align_corners", op)

    @classmethod
    def new(cls, mode):
        """Options with sampling ``mode`` and the default padding (zeros, align_corners=False).

        >>> import ember
        >>> ember.GridSampleOptions.new("bicubic").mode
        'bicubic'
        """
        return cls(mode)

    @classmethod
    def default(cls):
        """The default options: bilinear, zeros padding, align_corners=False.

        >>> import ember
        >>> ember.GridSampleOptions.default() == ember.GridSampleOptions()
        True
        """
        return cls()

    def with_padding_mode(self, padding_mode):
        """A copy with ``padding_mode`` ("zeros", "border" or "reflection").

        >>> import ember
        >>> ember.GridSampleOptions().with_padding_mode("reflection").padding_mode
        'reflection'
        """
        return GridSampleOptions(self.mode, padding_mode, self.align_corners)

    def with_align_corners(self, align_corners):
        """A copy with ``align_corners`` (True or False).

        >>> import ember
        >>> ember.GridSampleOptions().with_align_corners(True).align_corners
        True
        """
        return GridSampleOptions(self.mode, self.padding_mode, align_corners)

    def __eq__(self, other):
        if not isinstance(other, GridSampleOptions):
            return NotImplemented
        return (self.mode, self.padding_mode, self.align_corners) == (
            other.mode, other.padding_mode, other.align_corners)

    def __hash__(self):
        return hash((self.mode, self.padding_mode, self.align_corners))

    def __repr__(self):
        return (f"GridSampleOptions(mode={self.mode!r}, padding_mode={self.padding_mode!r}, "
                f"align_corners={self.align_corners!r})")


def _options(options, mode, padding_mode, align_corners):
    """The (mode, padding_mode, align_corners) of the call, from ``options`` or the keywords."""
    given = [k for k, v in (("mode", mode), ("padding_mode", padding_mode),
                            ("align_corners", align_corners)) if v is not None]
    if options is None:
        return (_choice("bilinear" if mode is None else mode, MODES, "mode"),
                _choice("zeros" if padding_mode is None else padding_mode, PADDING_MODES,
                        "padding_mode"),
                _flag(False if align_corners is None else align_corners, "align_corners"))
    if isinstance(options, str):  # Burn's From<InterpolateMode>: a mode alone
        options = GridSampleOptions(_choice(options, MODES, "options"))
    if not isinstance(options, GridSampleOptions):
        raise InvalidParameterError(
            f"{_OP}: options must be a GridSampleOptions, a mode string or None, got "
            f"{type(options).__name__}", "options", options)
    if given:
        raise InvalidParameterError(
            f"{_OP}: got options and the keyword(s) {', '.join(given)}; expected one or the other",
            "options", options)
    return options.mode, options.padding_mode, options.align_corners


def _float4d(t, param, layout):
    if not isinstance(t, Tensor):
        raise InvalidParameterError(f"{_OP}: {param} must be a Tensor, got {type(t).__name__}",
                                    param, t)
    if t._dtype.kind != "float":
        if t._dtype.kind == "complex":
            raise _dt.complex_error(_OP, param, t._dtype)
        raise KindError(f"{_OP}: {param} has dtype {t._dtype.name}; expected a float tensor "
                        "(cast it with .float())")
    if t._data.ndim != 4:
        raise ShapeMismatchError(
            f"{_OP}: {param} has shape {tuple(t.shape)} ({t._data.ndim}-d); expected a 4-d "
            f"{layout} tensor", expected=layout, actual=tuple(t.shape))
    return t


@tensor_method
def grid_sample_2d(self, grid, options=None, *, mode=None, padding_mode=None,
                   align_corners=None):
    """Sample ``self`` (N, C, H, W) at the locations ``grid`` (N, H_out, W_out, 2); the result
    has shape (N, C, H_out, W_out).

    ``grid[n, h, w] = (x, y)`` in [-1, 1]: (-1, -1) is the top-left of the input, (1, 1) the
    bottom-right (pixel centres with ``align_corners=True``, pixel corners with False).
    Semantics are PyTorch's ``F.grid_sample`` for 4-D inputs. Give the options as keywords
    (``mode="bilinear" | "nearest" | "bicubic"``, ``padding_mode="zeros" | "border" |
    "reflection"``, ``align_corners=False``), or as Burn's ``GridSampleOptions`` (or a mode
    string) in ``options``, not both. A float input and grid of different dtypes compute in
    their promoted dtype. Gradients flow to ``self`` and ``grid`` (the grid's is zero for
    "nearest", as PyTorch). A grid point with a NaN or infinite coordinate reads 0 and passes
    no gradient.

    >>> import ember
    >>> x = ember.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    >>> grid = ember.tensor([[[[-1.0, -1.0], [1.0, 1.0], [0.5, -0.5]]]])
    >>> ember.grid_sample_2d(x, grid, align_corners=True).tolist()
    [[[[0.0, 3.0, 1.25]]]]
    >>> x.grid_sample_2d(grid, ember.GridSampleOptions.new("nearest")).tolist()
    [[[[0.0, 0.0, 1.0]]]]
    """
    m, p, a = _options(options, mode, padding_mode, align_corners)
    x = _float4d(self, "input", "(N, C, H, W)")
    g = _float4d(grid, "grid", "(N, H_out, W_out, 2)")
    xs, gs = tuple(x.shape), tuple(g.shape)
    if gs[3] != 2:
        raise ShapeMismatchError(
            f"{_OP}: grid has shape {gs}; expected (N, H_out, W_out, 2) (its last dim holds x "
            f"and y, size 2, got {gs[3]})", expected=2, actual=gs[3])
    if gs[0] != xs[0]:
        raise ShapeMismatchError(
            f"{_OP}: grid has batch size {gs[0]} (shape {gs}), input has {xs[0]} (shape {xs}); "
            "expected the same batch size N", expected=xs[0], actual=gs[0])
    if xs[2] == 0 or xs[3] == 0:
        raise ShapeMismatchError(
            f"{_OP}: input has shape {xs} with an empty spatial dim; expected H > 0 and W > 0",
            expected="H > 0 and W > 0", actual=xs)
    be = backend_of(x, g, _OP)
    dtype = _dt.promote_types(x._dtype, g._dtype)
    xd, gd = x._data, g._data
    out = be.grid_sample_2d_forward(xd, gd, m, p, a, dtype)
    xs, gs = saved(x), saved(g)

    def rule(gout, needs, out_t):
        gx = _input_grad(gout, xs, gs, m, p, a) if needs[0] else None
        gg = _grid_grad(gout, xs, gs, m, p, a) if needs[1] else None
        return gx, gg

    return record(out, dtype, (x, g), rule, _OP)


# -- gradients ------------------------------------------------------------------------------------
# The input's gradient is linear in the output's: the fused kernel, recorded as a step of its own
# (of the output's gradient and the grid) whose gradients are the sampling itself and the grid's
# gradient below. The grid's gradient is written with ember ops, mirroring the kernels: the
# sample positions and the padding are piecewise linear in the grid, so each coordinate is its
# value plus its slope (a constant) times the change of the grid, and the interpolation weights
# are polynomials of those; every derivative of them then follows.

def _input_grad(gout, x, grid, mode, padding, align):
    """The gradient of the input (N, C, H, W): the kernel's, a recorded step of (gout, grid)."""
    be = gout._device.backend
    xdt = x._dtype
    data, _ = be.grid_sample_2d_grads(gout._data, x._data, grid._data, mode, padding, align,
                                      gout._dtype, True, False, xdt, grid._dtype)
    gs = saved(grid)

    def rule(h, needs, out):
        gg = gh = None
        if needs[0]:  # linear in gout: the transpose is the sampling of h
            gg = grid_sample_2d(h, gs, mode=mode, padding_mode=padding, align_corners=align)
            gg = gg if gg._dtype is gout._dtype else gg.cast(gout._dtype)
        if needs[1]:  # <gout, sample(h, grid)> differentiated in the grid
            gh = _grid_grad(gout, h, gs, mode, padding, align)
        return gg, gh

    return record(data, xdt, (gout, grid), rule, _OP + "_input_grad")


# the array namespace of the shared coordinate math (ember/backends/grid_coords.py), on
# untracked ember tensors; a reflection's degenerate zeros are ``c * 0.0`` (``c`` is finite there)
_XP = SimpleNamespace(floor=lambda c: c.floor(), abs=lambda c: c.abs(),
                      fmod=lambda c, s: c.fmod(s), clip=lambda c, lo, hi: c.clamp(lo, hi),
                      where=where, zeros_like=lambda c: c * 0.0,
                      astype_like=lambda c, ref: c.cast(ref._dtype))


def _grid_grad(gout, x, grid, mode, padding, align):
    """The gradient of the grid (N, Ho, Wo, 2) for the output's ``gout``, with ember ops."""
    N, C, H, W = tuple(x.shape)
    _, Ho, Wo, _ = tuple(grid.shape)
    P = Ho * Wo
    gdt = grid._dtype
    if mode == "nearest" or N * C * P == 0:  # nearest: a zero gradient, as PyTorch
        from .creation import zeros
        return zeros(tuple(grid.shape), dtype=gdt, device=grid.device)
    be = gout._device.backend
    wd = gout._dtype if gout._dtype.name not in ("float16", "bfloat16") else _dt.float32
    gw = gout.cast(wd).reshape(N, C, P)
    planes = x.cast(wd).reshape(N, C, H * W)
    grd = grid.cast(wd)
    gxt = grd.select(3, [0]).reshape(N, 1, P)
    gyt = grd.select(3, [1]).reshape(N, 1, P)
    gxc, gyc = wrap(gxt._data, wd), wrap(gyt._data, wd)
    valid = gxc.isfinite().logical_and(gyc.isfinite())
    vmask = valid._data
    gxc = where(valid, gxc, -100.0)
    gyc = where(valid, gyc, -100.0)
    dgx = _masked(be, gxt - gxc, vmask, _OP)  # zero valued where finite: carries the grid's change
    dgy = _masked(be, gyt - gyc, vmask, _OP)

    def values(xc, yc, inb):  # (N, C, P) input values at integral (xc, yc); 0 where not inb
        flat = where(inb, yc * float(W) + xc, 0.0).cast(_dt.int64).expand(N, C, P)
        return _masked(be, planes.gather(2, flat), inb._data, _OP)

    def project(xc, yc, inb):  # sum over channels of gout * values: (N, 1, P)
        return (gw * values(xc, yc, inb)).sum(1, keepdim=True)

    sx = sy = None
    if mode == "bilinear":
        ix, mx = source(_XP, gxc, W, padding, align)
        iy, my = source(_XP, gyc, H, padding, align)
        ixt, iyt = ix + mx * dgx, iy + my * dgy
        x0, y0 = ix.floor(), iy.floor()
        wx1, wy1 = ixt - x0, iyt - y0
        wx0, wy0 = 1.0 - wx1, 1.0 - wy1
        for dx, dy, dwx, dwy in ((0, 0, -wy0, -wx0), (1, 0, wy0, -wx1), (0, 1, -wy1, wx0),
                                 (1, 1, wy1, wx1)):  # the four corners
            xc, yc = x0 + float(dx), y0 + float(dy)
            inb = in_range(xc, W) & in_range(yc, H) & valid
            G = project(xc, yc, inb)
            sx = G * dwx if sx is None else sx + G * dwx
            sy = G * dwy if sy is None else sy + G * dwy
        sx, sy = sx * mx, sy * my
    else:  # bicubic: 4 x 4 taps around floor(pixel); the padding applies to each tap
        ix, fx = unnormalize(gxc, W, align)
        iy, fy = unnormalize(gyc, H, align)
        ix = ix.clamp(-INT_LIMIT, INT_LIMIT)
        iy = iy.clamp(-INT_LIMIT, INT_LIMIT)
        x0, y0 = ix.floor(), iy.floor()
        vf = valid.cast(wd)
        cx, dcx = cubic(ix + fx * dgx - x0)
        cy, dcy = cubic(iy + fy * dgy - y0)
        cx = [c * vf for c in cx]
        cy = [c * vf for c in cy]
        dcx = [d * (vf * fx) for d in dcx]
        dcy = [d * (vf * fy) for d in dcy]
        xs = [pad_coords(_XP, x0 + float(k - 1), W, padding, align)[0] for k in range(4)]
        ys = [pad_coords(_XP, y0 + float(k - 1), H, padding, align)[0] for k in range(4)]
        for j in range(4):
            for i in range(4):
                inb = in_range(xs[i], W) & in_range(ys[j], H) & valid
                G = project(xs[i], ys[j], inb)
                tx, ty = G * (dcx[i] * cy[j]), G * (cx[i] * dcy[j])
                sx = tx if sx is None else sx + tx
                sy = ty if sy is None else sy + ty
    from .creation import tensor
    e0 = tensor([1.0, 0.0], dtype=wd, device=grid.device).reshape(1, 1, 1, 2)
    e1 = tensor([0.0, 1.0], dtype=wd, device=grid.device).reshape(1, 1, 1, 2)
    out = sx.reshape(N, Ho, Wo, 1) * e0 + sy.reshape(N, Ho, Wo, 1) * e1
    return out if out._dtype is gdt else out.cast(gdt)
