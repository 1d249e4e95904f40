"""NumPy kernels of the vision suppression ops: non-maximum suppression of boxes (nms).

Public names here are kernels (``be.NAME``); helpers start with ``_``.
"""

import numpy as np

__all__ = ["nms_keep"]

_LOW = ("float16", "bfloat16")


def nms_keep(boxes, scores, iou_threshold, score_threshold, max_output_boxes):
    """Indices (int64) of the boxes kept by non-maximum suppression, in decreasing score order.

    ``boxes`` is (N, 4) float (x1, y1, x2, y2), ``scores`` (N,) float. Boxes scoring below
    ``score_threshold`` (compared exactly, in float64) and NaN scores are dropped first; the
    rest are visited by decreasing score (equal scores: lower index first), and each kept box
    suppresses every later box whose IoU with it is greater than ``iou_threshold``. IoU is
    torchvision's ``inter / (area_a + area_b - inter)`` in the boxes' dtype (float32 for the
    half floats), compared with the threshold in float64. ``max_output_boxes`` > 0 stops after
    that many kept boxes.

    The loop runs once per kept box: each turn computes the IoU of the kept box with all the
    boxes still in play at once and drops those it suppresses, so memory stays O(N) (no N x N
    IoU matrix) and the work is O(N * kept).
    """
    if boxes.dtype.name in _LOW:
        boxes = boxes.astype(np.float32)
    s = scores.astype(np.float64)
    cand = np.flatnonzero(s >= score_threshold)
    order = cand[np.argsort(-s[cand], kind="stable")]
    b = boxes[order]
    x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    area = (x2 - x1) * (y2 - y1)
    zero = b.dtype.type(0)
    thr = np.float64(iou_threshold)  # compared in float64, as torchvision's kernel does
    limit = max_output_boxes if max_output_boxes > 0 else order.size
    keep = []
    rem = np.arange(order.size)  # positions in ``order`` still in play, best first
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        while rem.size and len(keep) < limit:  # one turn per kept box
            i = rem[0]
            keep.append(i)
            rest = rem[1:]
            w = np.maximum(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), zero)
            h = np.maximum(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), zero)
            inter = w * h
            iou = inter / (area[i] + area[rest] - inter)
            rem = rest[~(iou > thr)]  # NaN IoU (empty boxes) never suppresses
    return order[np.asarray(keep, dtype=np.int64)].astype(np.int64)
