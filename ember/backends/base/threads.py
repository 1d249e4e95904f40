"""The threads kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class ThreadsKernels:
    @required
    def threads_set(self, n):
        """Use ``n`` threads in the BLAS/OpenMP pools; returns whether a loaded pool was resized."""

    @required
    def threads_get(self):
        """The threads of the BLAS pool (the largest loaded pool's), else the last setting, else the
        number of CPUs."""
