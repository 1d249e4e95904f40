"""The io kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class IoKernels:
    @required
    def io_buffer(self, a):
        """``(array, address, nbytes)``: ``a`` as a C-contiguous little-endian array (``a`` itself when
        it already is one) with the address and size of its bytes. Keep the array alive
        while the address is used."""

    @required
    def io_from_buffer(self, data, dtype, shape):
        """An array of NumPy ``dtype`` and ``shape`` over the bytes ``data`` (a bytearray the caller
        hands over), or None when the number of bytes does not fit the shape."""
