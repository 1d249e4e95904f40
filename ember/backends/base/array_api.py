"""The array_api kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class ArrayApiKernels:
    @required
    def dtype_limits(self, dtype):
        """``(bits, min, max, eps, smallest_normal)`` of an ember dtype (eps and smallest_normal are
        None for ints)."""

    @required
    def ew_nextafter(self, a, b):
        """The next representable value after ``a`` towards ``b`` (NumPy's ``nextafter``), for two
        arrays of one float dtype (broadcast)."""

    @required
    def ew_signbit(self, a):
        """Whether the sign bit of each element of a float array is set (-0.0 and NaNs with the sign
        bit included): a bool array."""
