"""The linear kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class LinearKernels:
    @required
    def nn_linear(self, x, w, b, dtype):
        """``x @ w.T + b`` (``b`` may be None), as NumPy dtype ``dtype``."""
