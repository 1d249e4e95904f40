"""Creation: tensors from data, filled tensors, ranges, grids and masks."""

from .. import dtypes as _dt
from ..backends import default as be
from ..errors import KindError, InvalidParameterError
from ..tensor import Tensor, wrap

__all__ = ["tensor", "from_numpy"]


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of ``data`` (nested lists, numbers, arrays or a tensor).

    Python floats give float32, ints int64, bools bool, unless ``dtype`` says otherwise.

    >>> tensor([[1, 2], [3, 4]]).dtype
    ember.int64
    """
    return Tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def from_numpy(array):
    """A tensor sharing ``array``'s buffer (zero-copy), with its dtype and layout.

    >>> import numpy as np
    >>> a = np.arange(3.0)
    >>> from_numpy(a).tolist()
    [0.0, 1.0, 2.0]
    """
    if not be.is_array(array):
        raise InvalidParameterError(
            f"from_numpy: array must be a numpy.ndarray, got {type(array).__name__}", "array", array)
    try:
        dtype = _dt.from_backend(array.dtype)
    except KindError:
        raise KindError(f"from_numpy: dtype {array.dtype} has no ember kind") from None
    return wrap(array, dtype)
