"""NumPy kernels of ember.io: the raw little-endian buffers of safetensors files."""

import numpy as np

from .core import NP

__all__ = ["io_buffer", "io_from_buffer", "io_unpickled"]

def io_buffer(a):
    """``(array, address, nbytes)``: ``a`` as a C-contiguous little-endian array (``a`` itself
    when it already is one) with the address and size of its bytes. Keep the array alive while
    the address is used."""
    if not a.flags.c_contiguous or a.dtype.byteorder == ">":
        a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
    return a, a.ctypes.data, a.nbytes


def io_from_buffer(data, dtype, shape):
    """An array of NumPy ``dtype`` and ``shape`` over the bytes ``data`` (a bytearray the caller
    hands over), or None when the number of bytes does not fit the shape."""
    dtype = np.dtype(NP[dtype]).newbyteorder("<")
    n = 1
    for s in shape:
        n *= s
    if len(data) != n * dtype.itemsize:
        return None
    arr = np.frombuffer(data, dtype=dtype, count=n)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    return arr.reshape(shape)


def io_unpickled(values, dtype):
    """``values`` (what a pickle gave for a tensor's buffer) as an array of NumPy ``dtype`` in
    native byte order, or None unless it is a plain ndarray of that dtype (either byte order):
    never an object array, a subclass or another dtype (``dtype`` an ember DType)."""
    dtype = NP[dtype]
    if type(values) is not np.ndarray:
        return None
    if values.dtype == dtype:
        return values
    if not values.dtype.isnative and values.dtype.newbyteorder("=") == dtype:
        return values.astype(dtype)
    return None
