"""Burn's ``ColorConversion`` trait: RGB <-> grayscale and RGB <-> HSV on batches of images.

Layout (N, C, H, W), channels on dim 1 as PyTorch and torchvision keep them, in the order R, G,
B (or H, S, V). The formulas are OpenCV's float conversions (the spec: "formulas derived from
the OpenCV docs"):

- ``rgb2gray``: gray = 0.299 R + 0.587 G + 0.114 B, shape (N, 1, H, W);
- ``gray2rgb``: the gray channel repeated three times, shape (N, 3, H, W);
- ``rgb2hsv``: H in degrees [0, 360), S and V in [0, 1] for input in [0, 1]; H = 0 where
  S = 0 (grey pixels), S = 0 where V = 0;
- ``hsv2rgb``: the inverse; H is taken modulo 360.

``rgb2gray``, ``rgb2hsv`` and ``hsv2rgb`` take float tensors only (an int image raises
``KindError``: cast it with ``.float()`` and scale it to [0, 1] first); ``gray2rgb`` copies
values, so it takes every kind. float16 and bfloat16 compute in float32 and round back. All
four are differentiable (float inputs); see ``docs/vision.md``.

>>> import ember
>>> ember.tensor([[[[1.0]], [[0.0]], [[0.0]]]]).rgb2hsv().flatten().tolist()
[0.0, 1.0, 1.0]
"""

from .. import dtypes as _dt
from ..errors import ShapeMismatchError
from ..ops.indexing import linear_map
from .._tensor import check_kind, check_tensor, record, saved, tensor_method, wrap

__all__ = ["rgb2gray", "gray2rgb", "rgb2hsv", "hsv2rgb"]

_LOW = ("float16", "bfloat16")


def _image(x, op, channels, float_only=True):
    """``x`` checked: a Tensor (of the float kind when ``float_only``), 4-D (N, C, H, W),
    with ``channels`` channels on dim 1."""
    check_tensor(x, op, "self")
    if x._dtype.kind == "complex":  # docs/complex.md: vision takes real tensors only
        raise _dt.complex_error(op, "self", x._dtype)
    if float_only:
        check_kind(x, "float", op)
    shape = tuple(x._data.shape)
    if len(shape) != 4:
        raise ShapeMismatchError(
            f"{op}: self has shape {shape} ({len(shape)}-d); expected a 4-d (N, C, H, W) "
            f"batch of images with C = {channels}", expected=4, actual=shape)
    if shape[1] != channels:
        raise ShapeMismatchError(
            f"{op}: self has shape {shape} with {shape[1]} channels on dim 1; expected "
            f"{channels} (layout (N, C, H, W))", expected=channels, actual=shape)
    return x


def _compute_dtype(x):
    """The dtype a color op computes in: float16/bfloat16 go to float32."""
    return _dt.float32 if x._dtype.name in _LOW else x._dtype


@tensor_method
def rgb2gray(self):
    """RGB (N, 3, H, W) to grayscale (N, 1, H, W): 0.299 R + 0.587 G + 0.114 B (OpenCV).

    Float tensors only; differentiable.

    >>> import ember
    >>> img = ember.tensor([[[[1.0, 0.0]], [[0.0, 1.0]], [[0.0, 0.0]]]])
    >>> img.shape
    (1, 3, 1, 2)
    >>> [round(v, 3) for v in img.rgb2gray().flatten().tolist()]
    [0.299, 0.587]
    """
    _image(self, "rgb2gray", 3)
    be = self._device.backend
    dt = self._dtype
    cdt = _compute_dtype(self)

    def gray(a):
        return be.cast(be.color_rgb2gray(be.cast(a, cdt)), dt)

    def spread(g):
        return be.cast(be.color_rgb2gray_grad(g), dt)

    return linear_map(self, gray, spread, "rgb2gray")


@tensor_method
def gray2rgb(self):
    """Grayscale (N, 1, H, W) to RGB (N, 3, H, W): the channel repeated three times.

    Any kind (the values are copied); differentiable for floats (the gradient is the sum over
    the three channels).

    >>> import ember
    >>> ember.tensor([[[[0.5, 1.0]]]]).gray2rgb().tolist()
    [[[[0.5, 1.0]], [[0.5, 1.0]], [[0.5, 1.0]]]]
    """
    _image(self, "gray2rgb", 1, float_only=False)
    be = self._device.backend
    return linear_map(self, be.color_gray2rgb, be.color_gray2rgb_grad, "gray2rgb")


@tensor_method
def rgb2hsv(self):
    """RGB (N, 3, H, W) to HSV (N, 3, H, W), OpenCV's float convention.

    V = max(R, G, B); S = (V - min) / V (0 where V = 0); H in degrees [0, 360): 60 (G - B) / (V -
    min) where V = R, 120 + 60 (B - R) / (V - min) where V = G, else 240 + 60 (R - G) / (V - min),
    plus 360 when negative, and 0 where V = min. Ties pick R, then G (OpenCV's order). Float
    tensors only; differentiable (at ties the gradient goes to the channel picked).

    >>> import ember
    >>> img = ember.tensor([[[[1.0, 0.5]], [[0.5, 0.5]], [[0.0, 0.5]]]])
    >>> img.rgb2hsv().tolist()
    [[[[30.0, 0.0]], [[1.0, 0.0]], [[1.0, 0.5]]]]
    """
    return _hsv_conversion(self, "rgb2hsv", "color_rgb2hsv", _rgb2hsv_grad)


@tensor_method
def hsv2rgb(self):
    """HSV (N, 3, H, W) to RGB (N, 3, H, W), the inverse of ``rgb2hsv`` (OpenCV's formulas).

    H in degrees, taken modulo 360; S and V in [0, 1] give RGB in [0, 1]. Each channel is
    V - V S clip(min(k, 4 - k), 0, 1) with k = (n + H / 60) mod 6 and n = 5, 3, 1 for R, G, B,
    which is OpenCV's six-sector table. Float tensors only; differentiable.

    >>> import ember
    >>> hsv = ember.tensor([[[[120.0, 0.0]], [[1.0, 0.0]], [[1.0, 0.25]]]])
    >>> hsv.hsv2rgb().tolist()
    [[[[0.0, 0.25]], [[1.0, 0.25]], [[0.0, 0.25]]]]
    """
    return _hsv_conversion(self, "hsv2rgb", "color_hsv2rgb", _hsv2rgb_grad)


def _hsv_conversion(self, op, forward, grad):
    """The kernel ``forward`` of a 3-channel image with the rule ``grad(g, x)`` (ember ops on
    the float32 or float64 values), computed in float32 or float64 and given back in the
    image's dtype."""
    _image(self, op, 3)
    be = self._device.backend
    forward = getattr(be, forward)
    dt = self._dtype
    cdt = _compute_dtype(self)
    out = be.cast(forward(be.cast(self._data, cdt)), dt)
    xs = saved(self)

    def rule(g, needs, out_t):
        x = xs if dt is cdt else xs.cast(cdt)
        gx = grad(g if g._dtype is cdt else g.cast(cdt), x)
        return (gx if gx._dtype is dt else gx.cast(dt),)

    return record(out, dt, (self,), rule, op)


def _channels(t):
    """The three channels of ``t`` (N, 3, H, W), each (N, 1, H, W)."""
    return [t.select(1, [c]) for c in range(3)]


def _join(parts, like):
    """(N, 3, H, W) from three (N, 1, H, W) channels: each times its one-hot channel vector."""
    out = None
    for c, part in enumerate(parts):
        onehot = [0.0, 0.0, 0.0]
        onehot[c] = 1.0
        e = _constant(like, onehot).reshape(1, 3, 1, 1)
        out = part * e if out is None else out + part * e
    return out


def _constant(like, values):
    """An untracked tensor of ``values`` in ``like``'s dtype, on its device."""
    from ..ops.creation import tensor
    return tensor(values, dtype=like.dtype, device=like.device)


def _float(mask, like):
    return mask.cast(like._dtype)


def _rgb2hsv_grad(gout, x):
    """The gradient of rgb2hsv at ``x`` for ``gout`` (the kernel's rule, with ember ops): V's
    goes to the channel OpenCV takes V from (R, then G, then B on ties), min's to the first
    smallest; grey pixels (V == min) pass no H gradient, black ones (V == 0) no S gradient.
    The case masks are constants; the rest is differentiable in ``x`` and ``gout``."""
    r, g, b = _channels(x)
    v = r.maximum(g).maximum(b)
    mn = r.minimum(g).minimum(b)
    d = v - mn
    xc = wrap(x._data, x._dtype)  # the values, untracked: the masks
    rc, gc, bc = _channels(xc)
    vc = rc.maximum(gc).maximum(bc)
    mc = rc.minimum(gc).minimum(bc)
    f0 = _float(vc == rc, x)
    f1 = (1.0 - f0) * _float(vc == gc, x)
    f2 = 1.0 - f0 - f1
    n0 = _float(mc == rc, x)
    n1 = (1.0 - n0) * _float(mc == gc, x)
    n2 = 1.0 - n0 - n1
    vnz = _float(vc != 0.0, x)
    dnz = _float((vc - mc) != 0.0, x)
    gh, gs, gv = _channels(gout)
    sv = v * vnz + (1.0 - vnz)  # V where V != 0, else 1
    sd = d * dnz + (1.0 - dnz)
    # S = 1 - min / V: dS/dV = min / V^2, dS/dmin = -1 / V
    gs = gs * vnz
    g_max = gv + gs * mn / (sv * sv)
    g_min = -(gs / sv)
    # H = offset + 60 (a - c) / d, with (a, c) the two channels after the max one (cyclically)
    a = f0 * g + f1 * b + f2 * r
    c = f0 * b + f1 * r + f2 * g
    g_a = 60.0 * (gh * dnz) / sd
    g_d = -(g_a * (a - c) / sd)  # dH/dd; d = V - min
    g_max = g_max + g_d
    g_min = g_min - g_d
    return _join([f0 * g_max + n0 * g_min + (f2 - f1) * g_a,
                  f1 * g_max + n1 * g_min + (f0 - f2) * g_a,
                  f2 * g_max + n2 * g_min + (f1 - f0) * g_a], x)


def _hsv2rgb_grad(gout, x):
    """The gradient of hsv2rgb at ``x`` for ``gout`` (the kernel's rule, with ember ops).

    Each channel is V - V S m with m = clip(min(k, 4 - k), 0, 1), k = (n + H / 60) mod 6: m
    is piecewise linear in H, so m is written as its value plus its slope (a constant) times
    the change of H, which carries m's derivative and no more."""
    h, s, v = _channels(x)
    hc = wrap(h._data, h._dtype)
    hh = (hc / 60.0).remainder(6.0)
    gh = gs = gv = None
    vs = v * s
    for ch, n in enumerate((5, 3, 1)):
        gc = gout.select(1, [ch])
        k = (hh + float(n)).remainder(6.0)
        inner = k.minimum(4.0 - k)
        mc = inner.clamp(0.0, 1.0)
        inside = _float((inner > 0.0).logical_and(inner < 1.0), x)
        slope = inside * (1.0 - 2.0 * _float(k >= 2.0, x))  # dm / d(H / 60)
        m = mc + (slope / 60.0) * (h - hc)
        th, ts, tv = -(gc * vs * slope / 60.0), -(gc * v * m), gc * (1.0 - s * m)
        gh = th if gh is None else gh + th
        gs = ts if gs is None else gs + ts
        gv = tv if gv is None else gv + tv
    return _join([gh, gs, gv], x)
