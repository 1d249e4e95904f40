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
from ..tensor import check_kind, check_tensor, record_arrays, tensor_method

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
    out = be.cast(be.color_rgb2gray(be.cast(self._data, _compute_dtype(self))), dt)

    def backward(g, needs):
        return (be.cast(be.color_rgb2gray_grad(g), dt),)

    return record_arrays(out, dt, (self,), backward, "rgb2gray")


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
    out = be.color_gray2rgb(self._data)

    def backward(g, needs):
        return (be.color_gray2rgb_grad(g),)

    return record_arrays(out, self._dtype, (self,), backward, "gray2rgb")


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
    return _hsv_conversion(self, "rgb2hsv", "color_rgb2hsv", "color_rgb2hsv_grad")


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
    return _hsv_conversion(self, "hsv2rgb", "color_hsv2rgb", "color_hsv2rgb_grad")


def _hsv_conversion(self, op, forward, grad):
    """The kernel ``forward`` of a 3-channel image with the kernel ``grad`` as its gradient
    (``grad(g, x)``), computed in float32 or float64 and given back in the image's dtype."""
    _image(self, op, 3)
    be = self._device.backend
    forward, grad = getattr(be, forward), getattr(be, grad)
    dt = self._dtype
    cdt = _compute_dtype(self)
    x = be.cast(self._data, cdt)
    out = be.cast(forward(x), dt)

    def backward(g, needs):
        return (be.cast(grad(be.cast(g, cdt), x), dt),)

    return record_arrays(out, dt, (self,), backward, op)
