"""Thread settings, PyTorch's ``set_num_threads``/``get_num_threads``.

On the NumPy backend the element-wise ops run on one thread; the threads that count are those
of the BLAS library behind matmul, convolutions and linalg (OpenBLAS, MKL, ...). These
functions resize that pool (through threadpoolctl when installed, and the ``OMP_NUM_THREADS``
family of environment variables for libraries loaded later), and PyTorch's CPU pool when the
torch backend is in use (``torch.set_num_threads``).

>>> import ember
>>> before = ember.get_num_threads()
>>> ember.set_num_threads(1)
>>> ember.get_num_threads()
1
>>> ember.set_num_threads(before)
"""


from .backends import registry
from .devices import CPU, Device, get_default_device
from .errors import InvalidParameterError

__all__ = ["set_num_threads", "get_num_threads"]


def _cpu_backends():
    """The backends of the CPU devices in use: NumPy's, and each loaded backend's CPU device
    (torch's once it is loaded)."""
    found = [CPU.backend]
    for module in registry.loaded_modules():
        for name in module.available_devices():
            device = Device(name)
            if device.type == "cpu" and device.backend not in found:
                found.append(device.backend)
    return found


def set_num_threads(num):
    """Use ``num`` (>= 1) threads for BLAS work (matmul, convolutions, linalg) and, when the
    torch backend is loaded, for PyTorch's CPU ops."""
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise InvalidParameterError(f"set_num_threads: num must be an int >= 1, got {num!r}",
                                    "num", num)
    for be in _cpu_backends():
        be.threads_set(num)


def get_num_threads():
    """The number of threads the default device's CPU work uses (the BLAS pool's on "cpu",
    PyTorch's pool on "torch:cpu")."""
    device = get_default_device()
    if device.type == "cpu":
        return device.backend.threads_get()
    return CPU.backend.threads_get()
