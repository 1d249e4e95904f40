"""The slicing kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class SlicingKernels:
    @required
    def slicing_view(self, a, key):
        """``a[key]`` as a view (a 0-d array, never a NumPy scalar, when every dim is indexed)."""

    @required
    def slicing_grad(self, g, shape, key):
        """The gradient of ``a[key]`` for ``a`` of ``shape``: zeros with ``g`` written at ``key``."""

    @required
    def slicing_assign(self, a, key, v):
        """A copy of ``a`` with ``v`` (broadcastable to ``a[key]``'s shape) written at ``key``."""

    @required
    def slicing_fill(self, a, key, v):
        """A copy of ``a`` with ``v`` (broadcastable to ``a[key]``'s shape) written at ``key``."""

    @required
    def slicing_zero_region(self, g, key):
        """A copy of ``g`` with zeros at ``key``."""

    @required
    def slicing_empty(self, shape, dtype):
        """``slicing_empty``."""

    @required
    def slicing_scalar(self, value, dtype):
        """A 0-d array of ember ``dtype`` holding the number ``value``."""

    @required
    def slicing_is_index_object(self, x):
        """Whether ``x`` is a NumPy array or NumPy bool: an advanced index, never a basic one."""
