"""Data out: NumPy arrays, Python values, TensorData, casts between dtypes."""

from .. import dtypes as _dt
from ..backends import default as be
from ..tensor import Tensor, record, tensor_method

__all__ = []


@tensor_method
def numpy(self, copy=False):
    """The values as a NumPy array: the tensor's own buffer, read-only (``copy=True``: a writable copy).

    >>> import ember
    >>> ember.tensor([1, 2]).numpy()
    array([1, 2])
    """
    if copy:
        return be.copy(self._data)
    return be.readonly(self._data)


@tensor_method
def tolist(self):
    """The values as nested Python lists (a Python number for a 0-d tensor)."""
    return be.tolist(self._data)


@tensor_method
def cast(self, dtype):
    """The values converted to ``dtype`` (any kind); the same tensor when it already has it.

    Casts between float dtypes carry gradients; casts to int or bool do not.

    >>> import ember
    >>> ember.tensor([1.7, -1.7]).cast("int32").tolist()
    [1, -1]
    """
    dtype = _dt.as_dtype(dtype)
    src = self._dtype
    if dtype is src:
        return self
    out = be.cast(self._data, dtype.np)
    backward = None
    if src.kind == "float" and dtype.kind == "float":
        src_np = src.np

        def backward(g, needs):
            return (be.cast(g, src_np),)
    return record(out, dtype, (self,), backward, "cast")


Tensor.to = cast
