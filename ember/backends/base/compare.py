"""The compare kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class CompareKernels:
    @required
    def compare_eq(self, a, b):
        """Elementwise ``numpy.equal`` as a bool ndarray."""

    @required
    def compare_ne(self, a, b):
        """Elementwise ``numpy.not_equal`` as a bool ndarray."""

    @required
    def compare_gt(self, a, b):
        """Elementwise ``numpy.greater`` as a bool ndarray."""

    @required
    def compare_ge(self, a, b):
        """Elementwise ``numpy.greater_equal`` as a bool ndarray."""

    @required
    def compare_lt(self, a, b):
        """Elementwise ``numpy.less`` as a bool ndarray."""

    @required
    def compare_le(self, a, b):
        """Elementwise ``numpy.less_equal`` as a bool ndarray."""

    @required
    def compare_scalar(self, value, dtype):
        """A 0-d array of ember ``dtype`` (a float or complex dtype) holding the Python float (or
        complex) ``value`` (rounded to the dtype; beyond its range it becomes +-inf,
        silently)."""

    @required
    def compare_isnan(self, a):
        """``compare_isnan``."""

    @required
    def compare_isinf(self, a):
        """``compare_isinf``."""

    @required
    def compare_isfinite(self, a):
        """``compare_isfinite``."""

    @required
    def compare_contains_nan(self, a):
        """A 0-d bool array: whether any element is NaN."""

    @required
    def compare_isclose(self, a, b, rtol, atol, equal_nan):
        """``a == b`` or ``|a - b| <= atol + rtol * |b|`` with a finite difference (PyTorch's rule)."""

    @required
    def compare_all(self, a):
        """Whether every element of the bool array ``a`` is true (a Python bool; True when empty)."""
