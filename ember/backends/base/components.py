"""The components kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class ComponentsKernels:
    @required
    def cc_label(self, mask, connectivity):
        """Labels of the connected components of a 2-D bool array (4 or 8 connectivity)."""

    @required
    def cc_stats(self, labels, count, bounds, centroids):
        """Per-label statistics of a label image (label 0, the background, included)."""
