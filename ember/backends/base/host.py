"""Kernels only the host backend provides: the one whose arrays ``to_host`` returns (NumPy),
where TensorData keeps its values and Python numbers are checked."""

from .declare import required


class HostKernels:
    @required
    def data_equal(self, a, b):
        """Whether two arrays have the same shape and values (NaN equal to NaN)."""

    @required
    def data_mismatches(self, a, b, rtol, atol, limit=5):
        """Up to ``limit`` mismatching (index, actual, expected) triples and their total count."""

    @required
    def data_array(self, a, dtype=None, copy=None):
        """NumPy's ``__array__`` protocol over a tensor's buffer: a read-only view when possible."""

    @required
    def data_as_dtype(self, value):
        """``value`` as a NumPy dtype, or None if NumPy does not understand it."""

    @required
    def data_is_number(self, value):
        """Whether ``value`` is a Python or NumPy number (complex included) or bool (not a string, not
        an array)."""

    @required
    def data_to_python(self, value):
        """A NumPy scalar as the matching Python number (others unchanged)."""

    @required
    def io_unpickled(self, values, dtype):
        """``values`` (what a pickle gave for a tensor's buffer) as an array of NumPy ``dtype`` in
        native byte order, or None unless it is a plain ndarray of that dtype (either byte
        order): never an object array, a subclass or another dtype (``dtype`` an ember
        DType)."""
