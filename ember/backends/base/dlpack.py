"""The dlpack kernels (see ember/backends/base/__init__.py). Export and import stay each
library's own: NumPy marks a shared buffer read-only, torch cannot and moves between devices."""

from .declare import required


class DlpackKernels:
    @required
    def dlpack_export(self, a, stream, max_version, dl_device, copy):
        """A DLPack capsule of ``a``: a read-only view when the consumer speaks DLPack >= 1.0 (the flag
        tells it so); a private copy for ``copy=True``, for a legacy consumer (it cannot be
        told) and for a view with negative strides (PyTorch cannot take them). Raises
        BufferError where ``copy=False`` forbids that copy."""

    def dlpack_device(self, a):
        """``(device_type, device_id)`` of ``a``'s buffer as DLPack names it (``(1, 0)``: the CPU,
        ``(2, N)``: CUDA device N)."""
        kind, index = a.__dlpack_device__()
        return int(kind), int(index)

    @required
    def dlpack_import(self, x, copy):
        """An array of ``x``'s buffer (anything with ``__dlpack__``): a read-only view (no copy) unless
        ``copy`` is True. Raises BufferError (device, dtype) or TypeError (no protocol)."""
