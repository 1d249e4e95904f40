"""Non-maximum suppression of boxes: Burn's ``Nms`` vision trait, torchvision's ``nms`` semantics.

``boxes.nms(scores, options)`` keeps the best-scoring boxes and drops each box that overlaps a
kept, higher-scored box by an IoU greater than ``iou_threshold``. It returns the int64 indices
of the kept boxes in decreasing score order.

>>> import ember
>>> boxes = ember.tensor([[0.0, 0.0, 10.0, 10.0],
...                       [1.0, 1.0, 11.0, 11.0],
...                       [20.0, 20.0, 30.0, 30.0]])
>>> scores = ember.tensor([0.9, 0.8, 0.7])
>>> boxes.nms(scores).tolist()
[0, 2]
"""

import math
import numbers

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import backend_of, check_tensor, tensor_method, wrap

__all__ = ["NmsOptions", "nms"]

_UNSET = object()


def _iou_threshold(value, op):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{op}: iou_threshold must be a number in [0, 1], got {type(value).__name__} "
            f"{value!r}", "iou_threshold", value)
    v = float(value)
    if not 0.0 <= v <= 1.0:  # NaN fails too
        raise InvalidParameterError(
            f"{op}: iou_threshold must be in [0, 1], got {value!r}", "iou_threshold", value)
    return v


def _score_threshold(value, op):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{op}: score_threshold must be a number, got {type(value).__name__} {value!r}",
            "score_threshold", value)
    v = float(value)
    if math.isnan(v):
        raise InvalidParameterError(
            f"{op}: score_threshold must be a number or -inf, got nan", "score_threshold", value)
    return v


def _max_output_boxes(value, op):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(
            f"{op}: max_output_boxes must be an int >= 0 (0: no limit), got "
            f"{type(value).__name__} {value!r}", "max_output_boxes", value)
    if value < 0:
        raise InvalidParameterError(
            f"{op}: max_output_boxes must be >= 0 (0: no limit), got {value!r}",
            "max_output_boxes", value)
    return int(value)


class NmsOptions:
    """The parameters of ``nms``, as Burn's ``NmsOptions``.

    - ``iou_threshold`` (default 0.5, in [0, 1]): a box whose IoU with a kept, higher-scored box
      is greater than this is suppressed;
    - ``score_threshold`` (default 0.0, Burn's): boxes scoring below it are dropped before the
      suppression (``float("-inf")`` keeps every box, as torchvision's ``nms``);
    - ``max_output_boxes`` (default 0 = no limit): keep at most this many boxes.

    >>> import ember
    >>> ember.vision.NmsOptions(iou_threshold=0.3)
    NmsOptions(iou_threshold=0.3, score_threshold=0.0, max_output_boxes=0)
    """

    __slots__ = ("iou_threshold", "score_threshold", "max_output_boxes")

    def __init__(self, iou_threshold=0.5, score_threshold=0.0, max_output_boxes=0):
        op = "NmsOptions"
        self.iou_threshold = _iou_threshold(iou_threshold, op)
        self.score_threshold = _score_threshold(score_threshold, op)
        self.max_output_boxes = _max_output_boxes(max_output_boxes, op)

    def __eq__(self, other):
        if not isinstance(other, NmsOptions):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None

    def __repr__(self):
        args = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"NmsOptions({args})"


@tensor_method
def nms(self, scores, options=None, *, iou_threshold=_UNSET, score_threshold=_UNSET,
        max_output_boxes=_UNSET):
    """Non-maximum suppression: the int64 indices of the kept boxes, by decreasing score.

    ``self`` is (N, 4) float boxes ``(x1, y1, x2, y2)``, ``scores`` (N,) float. Boxes scoring
    below ``score_threshold`` (and NaN scores) are dropped; the others are visited by
    decreasing score, equal scores by increasing index, and each kept box suppresses the later
    boxes whose IoU with it is greater than ``iou_threshold`` (torchvision's ``nms``). IoU is
    ``inter / (area_a + area_b - inter)`` in the boxes' dtype (float32 for the half floats), so
    boxes of zero area never suppress nor get suppressed. ``max_output_boxes`` > 0 keeps at
    most that many. ``options`` is an :class:`NmsOptions` (default ``NmsOptions()``); keyword
    arguments override its fields. No gradient flows (the result is an int tensor).

    >>> import ember
    >>> boxes = ember.tensor([[0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 2.0, 1.5],
    ...                       [3.0, 3.0, 4.0, 4.0], [0.0, 0.0, 2.0, 1.0]])
    >>> scores = ember.tensor([0.5, 0.9, 0.6, 0.7])
    >>> boxes.nms(scores).tolist()
    [1, 2]
    >>> boxes.nms(scores, iou_threshold=0.8).tolist()
    [1, 3, 2, 0]
    >>> ember.vision.nms(boxes, scores, ember.vision.NmsOptions(0.8, 0.55, 2)).tolist()
    [1, 3]
    """
    op = "nms"
    check_tensor(self, op, "boxes")
    check_tensor(scores, op, "scores")
    for name, t in (("boxes", self), ("scores", scores)):
        if t._dtype.kind != "float":
            if t._dtype.kind == "complex":  # docs/complex.md: vision takes real tensors only
                raise _dt.complex_error(op, name, t._dtype)
            raise KindError(f"{op}: {name} must be a float tensor, got dtype {t._dtype.name}")
    bshape, sshape = tuple(self.shape), tuple(scores.shape)
    if len(bshape) != 2 or bshape[1] != 4:
        raise ShapeMismatchError(
            f"{op}: boxes has shape {bshape}; expected (N, 4) boxes (x1, y1, x2, y2)",
            expected="(N, 4)", actual=bshape)
    if len(sshape) != 1:
        raise ShapeMismatchError(
            f"{op}: scores has shape {sshape}; expected a 1-D tensor of N scores",
            expected=(bshape[0],), actual=sshape)
    if sshape[0] != bshape[0]:
        raise ShapeMismatchError(
            f"{op}: boxes has {bshape[0]} boxes but scores has {sshape[0]} scores; expected "
            "one score per box", expected=(bshape[0],), actual=sshape)
    if options is None:
        options = NmsOptions()
    elif not isinstance(options, NmsOptions):
        raise InvalidParameterError(
            f"{op}: options must be an NmsOptions or None, got {type(options).__name__} "
            f"{options!r}", "options", options)
    iou = _iou_threshold(options.iou_threshold if iou_threshold is _UNSET else iou_threshold, op)
    sth = _score_threshold(
        options.score_threshold if score_threshold is _UNSET else score_threshold, op)
    mob = _max_output_boxes(
        options.max_output_boxes if max_output_boxes is _UNSET else max_output_boxes, op)
    keep = backend_of(self, scores, op).nms_keep(self._data, scores._data, iou, sth, mob)
    return wrap(keep, _dt.int64)
