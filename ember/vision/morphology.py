"""Burn's ``Morphology`` trait: ``erode`` and ``dilate`` of (H, W, C) images by a bool kernel.

The image is a 3-D tensor laid out (H, W, C) (the spec: "Assumes NHWC layout" for a
``Tensor<3>``); each channel is filtered on its own. The kernel (the structuring element) is a
2-D bool tensor: erosion takes the minimum, dilation the maximum, over the cells where it is
True, placed with its ``anchor`` on the output pixel, as OpenCV's ``erode``/``dilate`` (the
element is not reflected for dilation):

    out[y, x, c] = min/max over kernel[i, j] of src[y + i - anchor[0], x + j - anchor[1], c]

Float, int and bool images (for bool, erode is "all" and dilate is "any" over the True cells).
``MorphOptions`` carries the anchor, the number of iterations and the border handling; the
same names are accepted as keyword arguments. The results carry no autodiff graph.

>>> import ember
>>> img = ember.tensor([[0, 0, 0], [0, 1, 0], [0, 0, 0]]).unsqueeze(-1)
>>> cross = ember.tensor([[False, True, False], [True, True, True], [False, True, False]])
>>> img.dilate(cross).squeeze(-1).tolist()
[[0, 1, 0], [1, 1, 1], [0, 1, 0]]
"""

import numbers

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import backend_of, check_tensor, tensor_method, wrap

__all__ = ["MorphOptions", "BorderType", "erode", "dilate"]


class BorderType:
    """The border modes of ``MorphOptions.border_type`` (OpenCV's, by name); plain strings work.

    ``"constant"`` ``iiiiii|abcdefgh|iiiiiii`` (the border value ``i``), ``"replicate"``
    ``aaaaaa|abcdefgh|hhhhhhh``, ``"reflect"`` ``fedcba|abcdefgh|hgfedcb``, ``"reflect101"``
    ``gfedcb|abcdefgh|gfedcba``, ``"wrap"`` ``cdefgh|abcdefgh|abcdefg``.

    >>> BorderType.REPLICATE
    'replicate'
    """

    CONSTANT = "constant"
    REPLICATE = "replicate"
    REFLECT = "reflect"
    REFLECT101 = "reflect101"
    WRAP = "wrap"


_BORDERS = ("constant", "replicate", "reflect", "reflect101", "wrap")
_BORDER_ALIASES = {"reflect_101": "reflect101", "default": "reflect101"}
_UNSET = object()


def _check_anchor(anchor, op):
    if anchor is None:
        return None
    if (not isinstance(anchor, (tuple, list)) or len(anchor) != 2
            or not all(isinstance(a, numbers.Integral) and not isinstance(a, bool)
                       for a in anchor)):
        raise InvalidParameterError(
            f"{op}: anchor {anchor!r} is not a pair of ints; expected (row, col) inside the "
            "kernel, or None for its centre", "anchor", anchor)
    return (int(anchor[0]), int(anchor[1]))


def _check_iterations(iterations, op):
    if (not isinstance(iterations, numbers.Integral) or isinstance(iterations, bool)
            or iterations < 0):
        raise InvalidParameterError(
            f"{op}: iterations {iterations!r} is not allowed; expected an int >= 0",
            "iterations", iterations)
    return int(iterations)


def _check_border_type(border_type, op):
    name = border_type.lower() if isinstance(border_type, str) else border_type
    name = _BORDER_ALIASES.get(name, name) if isinstance(name, str) else name
    if name not in _BORDERS:
        raise InvalidParameterError(
            f"{op}: border_type {border_type!r} is not a border mode; expected one of "
            + ", ".join(repr(b) for b in _BORDERS), "border_type", border_type)
    return name


def _check_border_value(value, op):
    if value is None:
        return None
    if not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{op}: border_value {value!r} is not a number; expected a real number or None "
            "(the value that never wins)", "border_value", value)
    return value


class MorphOptions:
    """The options of ``erode`` and ``dilate`` (Burn's ``MorphOptions``).

    - ``anchor``: (row, col) of the kernel cell placed on the output pixel; None (default)
      means the kernel's centre (kh // 2, kw // 2), as OpenCV's (-1, -1).
    - ``iterations``: how many times the operation is applied (default 1; 0 returns a copy).
    - ``border_type``: how pixels outside the image are read: "constant" (default),
      "replicate", "reflect", "reflect101" or "wrap" (see ``BorderType``).
    - ``border_value``: the value outside the image for "constant" borders; None (default) is
      OpenCV's rule: +inf (the dtype's max, True for bool) for erode and -inf (the dtype's min,
      False) for dilate, so the border never wins. Ignored for other border types.

    >>> MorphOptions(iterations=2)
    MorphOptions(anchor=None, iterations=2, border_type='constant', border_value=None)
    """

    __slots__ = ("anchor", "iterations", "border_type", "border_value")

    def __init__(self, anchor=None, iterations=1, border_type="constant", border_value=None):
        op = "MorphOptions"
        self.anchor = _check_anchor(anchor, op)
        self.iterations = _check_iterations(iterations, op)
        self.border_type = _check_border_type(border_type, op)
        self.border_value = _check_border_value(border_value, op)

    def __repr__(self):
        return (f"MorphOptions(anchor={self.anchor!r}, iterations={self.iterations!r}, "
                f"border_type={self.border_type!r}, border_value={self.border_value!r})")

    def __eq__(self, other):
        if not isinstance(other, MorphOptions):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self.__slots__)

    __hash__ = None


def _morph(self, kernel, opts, overrides, op):
    """Validate everything, then erode or dilate (``op``)."""
    check_tensor(self, op, "self")
    if self._dtype.kind == "complex":  # docs/complex.md: vision takes real tensors only
        raise _dt.complex_error(op, "self", self._dtype)
    shape = tuple(self._data.shape)
    if len(shape) != 3:
        raise ShapeMismatchError(
            f"{op}: self has shape {shape} ({len(shape)}-d); expected a 3-d (H, W, C) image",
            expected=3, actual=shape)
    check_tensor(kernel, op, "kernel")
    if kernel._dtype.kind != "bool":
        raise KindError(f"{op}: kernel has dtype {kernel._dtype.name}; expected a bool tensor "
                        "(the structuring element)")
    kshape = tuple(kernel._data.shape)
    if len(kshape) != 2:
        raise ShapeMismatchError(
            f"{op}: kernel has shape {kshape} ({len(kshape)}-d); expected a 2-d (kh, kw) bool "
            "tensor", expected=2, actual=kshape)
    be = backend_of(self, kernel, op)
    if not be.morph_has_true(kernel._data):
        raise InvalidParameterError(
            f"{op}: kernel of shape {kshape} has no True cell; expected at least one",
            "kernel", kshape)
    if opts is None:
        opts = MorphOptions()
    elif not isinstance(opts, MorphOptions):
        raise InvalidParameterError(
            f"{op}: opts must be a MorphOptions or None, got {type(opts).__name__}", "opts", opts)
    anchor, iterations, border_type, border_value = (
        opts.anchor, opts.iterations, opts.border_type, opts.border_value)
    if overrides[0] is not _UNSET:
        anchor = overrides[0]
    if overrides[1] is not _UNSET:
        iterations = overrides[1]
    if overrides[2] is not _UNSET:
        border_type = overrides[2]
    if overrides[3] is not _UNSET:
        border_value = overrides[3]
    # re-checked here: the fields of a MorphOptions can be reassigned after it was built
    anchor = _check_anchor(anchor, op)
    iterations = _check_iterations(iterations, op)
    border_type = _check_border_type(border_type, op)
    border_value = _check_border_value(border_value, op)
    kh, kw = kshape
    if anchor is None:
        anchor = (kh // 2, kw // 2)
    elif not (0 <= anchor[0] < kh and 0 <= anchor[1] < kw):
        raise InvalidParameterError(
            f"{op}: anchor {anchor} is outside the kernel of shape {kshape}; expected "
            f"0 <= row < {kh} and 0 <= col < {kw}", "anchor", anchor)
    dt = self._dtype
    if border_type == "constant" and border_value is not None:
        border_value = _border_value_for(border_value, dt, op, be)
    out = be.morph_apply(self._data, kernel._data, anchor, iterations, op, border_type,
                         border_value)
    return wrap(out, dt)


def _border_value_for(value, dt, op, be):
    """``value`` checked to fit the image's dtype ``dt``."""
    if dt.kind == "bool":
        if isinstance(value, bool) or value in (0, 1):
            return bool(value)
        raise InvalidParameterError(
            f"{op}: border_value {value!r} does not fit a bool image; expected True, False, "
            "0 or 1", "border_value", value)
    if dt.kind == "int":
        lo, hi = be.morph_int_range(dt)
        if (not isinstance(value, numbers.Integral) or isinstance(value, bool)
                or not lo <= value <= hi):
            raise InvalidParameterError(
                f"{op}: border_value {value!r} does not fit a {dt.name} image; expected an int "
                f"in [{lo}, {hi}]", "border_value", value)
        return int(value)
    if isinstance(value, bool):
        raise InvalidParameterError(
            f"{op}: border_value {value!r} is a bool; expected a number for a {dt.name} image",
            "border_value", value)
    return float(value)


@tensor_method
def erode(self, kernel, opts=None, *, anchor=_UNSET, iterations=_UNSET, border_type=_UNSET,
          border_value=_UNSET):
    """Erode the (H, W, C) image by the 2-D bool ``kernel``: the minimum over its True cells.

    ``opts`` is a ``MorphOptions`` (None: the defaults); the keywords ``anchor``,
    ``iterations``, ``border_type`` and ``border_value`` override its fields. Float, int and
    bool images (bool: "all" over the cells); the result has the image's dtype and no graph.
    NaN propagates. A kernel with no True cell raises ``InvalidParameterError``.

    >>> import ember
    >>> img = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).unsqueeze(-1)
    >>> k = ember.ones((1, 3), dtype="bool")
    >>> img.erode(k).squeeze(-1).tolist()
    [[1.0, 1.0, 2.0], [4.0, 4.0, 5.0]]
    >>> img.erode(k, border_type="constant", border_value=0.0).squeeze(-1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 4.0, 0.0]]
    """
    return _morph(self, kernel, opts, (anchor, iterations, border_type, border_value), "erode")


@tensor_method
def dilate(self, kernel, opts=None, *, anchor=_UNSET, iterations=_UNSET, border_type=_UNSET,
           border_value=_UNSET):
    """Dilate the (H, W, C) image by the 2-D bool ``kernel``: the maximum over its True cells.

    As ``erode`` with the maximum (bool: "any"); the kernel is not reflected (OpenCV's
    convention), so an off-centre anchor shifts the other way than a mathematical dilation.

    >>> import ember
    >>> img = ember.tensor([[1, 0, 0, 0]], dtype="int32").unsqueeze(-1)
    >>> k = ember.ones((1, 2), dtype="bool")
    >>> img.dilate(k, ember.vision.MorphOptions(anchor=(0, 1))).squeeze(-1).tolist()
    [[1, 1, 0, 0]]
    >>> img.dilate(k, iterations=2, anchor=(0, 1)).squeeze(-1).tolist()
    [[1, 1, 1, 0]]
    """
    return _morph(self, kernel, opts, (anchor, iterations, border_type, border_value), "dilate")
