"""The suppression kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py):
non-maximum suppression of boxes (nms)."""

from ... import dtypes


class SuppressionKernels:
    def nms_keep(self, boxes, scores, iou_threshold, score_threshold, max_output_boxes):
        """Indices (int64) of the boxes kept by non-maximum suppression, in decreasing score order.

        ``boxes`` is (N, 4) float (x1, y1, x2, y2), ``scores`` (N,) float. Boxes scoring below
        ``score_threshold`` (compared exactly, in float64) and NaN scores are dropped first; the
        rest are visited by decreasing score (equal scores: lower index first), and each kept
        box suppresses every later box whose IoU with it is greater than ``iou_threshold``. IoU
        is torchvision's ``inter / (area_a + area_b - inter)`` in the boxes' dtype (float32 for
        the half floats), compared with the threshold in float64. ``max_output_boxes`` > 0
        stops after that many kept boxes.

        The loop runs once per kept box: each turn computes the IoU of the kept box with all
        the boxes still in play at once and drops those it suppresses, so memory stays O(N) (no
        N x N IoU matrix) and the work is O(N * kept).
        """
        xp = self.xp
        f64, i64 = self.native_dtype(dtypes.float64), self.native_dtype(dtypes.int64)
        if self.dtype_of(boxes) in (dtypes.float16, dtypes.bfloat16):
            boxes = xp.astype(boxes, self.native_dtype(dtypes.float32))
        s = xp.astype(scores, f64)
        cand = xp.nonzero(s >= score_threshold)[0]
        order = xp.take(cand, xp.argsort(-xp.take(s, cand), stable=True))
        b = xp.take(boxes, order, axis=0)
        x1, y1, x2, y2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
        area = (x2 - x1) * (y2 - y1)
        zero = xp.zeros((), dtype=b.dtype, device=self.native_device)
        n = order.shape[0]
        limit = max_output_boxes if max_output_boxes > 0 else n
        keep = []
        rem = xp.arange(n, dtype=i64, device=self.native_device)  # positions in ``order`` in play
        while rem.shape[0] and len(keep) < limit:  # one turn per kept box
            i = int(rem[0])
            keep.append(i)
            rest = rem[1:]
            def at(a):
                return xp.take(a, rest)
            w = xp.maximum(xp.minimum(x2[i], at(x2)) - xp.maximum(x1[i], at(x1)), zero)
            h = xp.maximum(xp.minimum(y2[i], at(y2)) - xp.maximum(y1[i], at(y1)), zero)
            inter = w * h
            iou = inter / (area[i] + at(area) - inter)
            rem = rest[~(xp.astype(iou, f64) > iou_threshold)]  # NaN IoU never suppresses
        return xp.take(order, xp.asarray(keep, dtype=i64, device=self.native_device))
