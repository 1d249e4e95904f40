"""The sort kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class SortKernels:
    @required
    def sort_argsort(self, x, axis, descending=False):
        """Stable argsort of ``x`` along ``axis`` (int64 indices); ``x`` has at least one dim."""

    @required
    def sort_values(self, x, axis, descending=False):
        """The values of the stable sort of ``x`` along ``axis`` (no indices)."""

    @required
    def sort_topk(self, x, k, axis, largest=True):
        """Indices of the ``k`` largest (smallest) elements along ``axis``, best first, ties to the
        lower index: the first ``k`` of the stable sort, found by partition when ``k`` is
        small."""

    @required
    def sort_take(self, x, idx, axis):
        """The elements of ``x`` at ``idx`` along ``axis`` (``numpy.take_along_axis``)."""

    @required
    def sort_first(self, idx, k, axis):
        """The first ``k`` entries of ``idx`` along ``axis`` (a view)."""

    @required
    def sort_scatter_grad(self, g, idx, axis, shape):
        """Zeros of ``shape`` with ``g`` put at ``idx`` along ``axis`` (indices distinct per line)."""

    @required
    def sort_reshape(self, x, shape):
        """``x`` reshaped (a view where the layout allows)."""
