"""The nn kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class NnKernels:
    @required
    def nn_full_like_shape(self, shape, value, dtype):
        """A new array of ``shape`` filled with ``value`` (``dtype`` an ember DType)."""

    @required
    def nn_reshape(self, a, shape):
        """``a`` reshaped (a view where the layout allows)."""

    @required
    def nn_int_max(self, a):
        """The largest element of a non-empty int array, a Python int."""

    @required
    def nn_zero_row(self, a, row):
        """A copy of the 2-d ``a`` with row ``row`` set to zero."""
