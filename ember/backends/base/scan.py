"""The scan kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class ScanKernels:
    @required
    def scan_cumsum(self, a, axis):
        """Cumulative sum along ``axis``; ints and bools give int64, floats keep their dtype."""

    @required
    def scan_cumprod(self, a, axis):
        """Cumulative product along ``axis``; ints and bools give int64, floats keep their dtype."""

    @required
    def scan_cumsum_grad(self, g, axis):
        """Gradient of cumsum: the reversed cumulative sum of ``g``."""

    @required
    def scan_cumext(self, a, axis, kind):
        """(values, indices) of the cumulative max (``kind`` "max") or min along ``axis``."""

    @required
    def scan_index_grad(self, g, idx, axis):
        """Gradient of a cumulative max/min: each ``g`` element added at its index along ``axis``."""

    @required
    def scan_reshape(self, a, shape):
        """``a`` with a new shape of the same size (a view where the layout allows)."""
