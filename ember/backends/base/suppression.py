"""The suppression kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class SuppressionKernels:
    @required
    def nms_keep(self, boxes, scores, iou_threshold, score_threshold, max_output_boxes):
        """Indices (int64) of the boxes kept by non-maximum suppression, in decreasing score order."""
