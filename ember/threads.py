"""Thread settings, PyTorch's ``set_num_threads``/``get_num_threads``.

ember computes on NumPy, whose element-wise ops run on one thread; the threads that count are
those of the BLAS library behind matmul, convolutions and linalg (OpenBLAS, MKL, ...). These
functions resize that pool (through threadpoolctl when installed, and the ``OMP_NUM_THREADS``
family of environment variables for libraries loaded later).

>>> import ember
>>> before = ember.get_num_threads()
>>> ember.set_num_threads(1)
>>> ember.get_num_threads()
1
>>> ember.set_num_threads(before)
"""

from .backends import default as be
from .errors import InvalidParameterError

__all__ = ["set_num_threads", "get_num_threads"]


def set_num_threads(num):
    """Use ``num`` (>= 1) threads for BLAS work (matmul, convolutions, linalg)."""
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise InvalidParameterError(f"set_num_threads: num must be an int >= 1, got {num!r}",
                                    "num", num)
    be.threads_set(num)


def get_num_threads():
    """The number of threads BLAS work uses."""
    return be.threads_get()
