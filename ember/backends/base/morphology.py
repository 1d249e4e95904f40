"""The morphology kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class MorphologyKernels:
    @required
    def morph_apply(self, x, kernel, anchor, iterations, op, border, value):
        """Erode (``op == "erode"``, the minimum) or dilate (the maximum) ``x`` (H, W, C)."""

    @required
    def morph_int_range(self, dtype):
        """(min, max) of the ember int dtype ``dtype``, as Python ints."""

    @required
    def morph_has_true(self, kernel):
        """Whether the bool array ``kernel`` has at least one True cell."""
