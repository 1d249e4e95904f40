"""``default_collate`` and ``default_convert``: samples into batches of ember.torch tensors.

The rules are PyTorch's (``torch.utils.data.default_collate``): tensors are stacked along a new
first dim; NumPy arrays and NumPy scalars become tensors of their dtype; Python floats become a
float64 tensor, ints an int64 tensor and bools a bool tensor; strings and bytes are kept as the
batch's own sequence; dicts, named tuples and lists are collated field by field, and tuples give
lists (PyTorch's "backwards compatibility" rule). ``collate`` is the general walker:
``collate_fn_map`` maps element types to the functions that batch them.

>>> from ember.torch.utils.data import default_collate
>>> b = default_collate([(1.0, 2), (3.0, 4)])
>>> b[0].dtype, b[1].dtype, b[0].tolist()
(torch.float64, torch.int64, [1.0, 3.0])
"""

import collections.abc
import copy
import functools
import re

import numpy as np

from ... import _tensor as _torch_tensor
from .... import dtypes as _dt
from ...._tensor import Tensor as _EmberTensor
from ....errors import KindError, ShapeMismatchError
from ....ops.creation import from_numpy as _from_numpy, tensor as _tensor
from ....ops.segments import stack as _stack

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map",
           "collate_tensor_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn",
           "collate_float_fn", "collate_int_fn", "collate_str_fn"]

_to_torch = _torch_tensor.to_torch
# NumPy dtypes of strings, bytes and objects, which make no tensor
_STR_OR_OBJECT = re.compile(r"[SaUO]")
_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        "found {}")


def _array_tensor(arr):
    """A fresh NumPy array as an ember.torch tensor on the default device (no copy where the
    device shares host memory)."""
    if not arr.flags.c_contiguous or not arr.dtype.isnative:
        arr = np.array(arr, dtype=arr.dtype.newbyteorder("="), order="C")
    return _to_torch(_from_numpy(arr))


def default_convert(data):
    """Convert each NumPy array (and NumPy scalar) in ``data`` to an ember.torch tensor,
    walking dicts, named tuples, tuples (which become lists) and lists; anything else, Python
    numbers included, is returned unchanged. The ``collate_fn`` of a DataLoader with
    ``batch_size=None``.

    >>> import numpy as np
    >>> from ember.torch.utils.data import default_convert
    >>> out = default_convert((np.array([1, 2]), 3))
    >>> out[0].tolist(), out[1]
    ([1, 2], 3)
    """
    elem_type = type(data)
    if isinstance(data, _EmberTensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_",
                                                                       "bytes_"):
        if elem_type.__name__ in ("ndarray", "memmap") and \
                _STR_OR_OBJECT.search(data.dtype.str) is not None:
            return data
        return _array_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` (a sequence of samples): the function ``collate_fn_map`` gives the
    first sample's type (or a base class of it, in the map's order) batches it; mappings,
    named tuples and sequences are walked; anything else raises KindError (PyTorch's
    TypeError).

    >>> from ember.torch.utils.data import collate, default_collate_fn_map
    >>> collate([{"x": 1}, {"x": 2}], collate_fn_map=default_collate_fn_map)["x"].tolist()
    [1, 2]
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        def fields():
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                    for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(fields())
                return clone
            return elem_type(fields())
        except TypeError:
            return fields()
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map)
                           for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        for i, sample in enumerate(batch):
            if len(sample) != size:
                raise ShapeMismatchError(
                    f"default_collate: sample {i} of the batch has {len(sample)} elements, "
                    f"expected {size} (each element in the batch must be of equal size)",
                    size, len(sample))
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map)
                              for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise KindError(_ERR.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Tensors stacked along a new first dim (``ember.stack``), as an ember.torch tensor;
    tensors of several dtypes are promoted to a common one first, as ``torch.stack`` does."""
    batch = list(batch)
    dtypes = {t._dtype for t in batch if isinstance(t, _EmberTensor)}
    if len(dtypes) > 1:
        common = functools.reduce(_dt.promote_types, dtypes)
        batch = [t.cast(common) if isinstance(t, _EmberTensor) and t._dtype is not common
                 else t for t in batch]
    return _to_torch(_stack(batch, 0))


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """NumPy arrays stacked into one tensor of their dtype; string and object arrays raise
    KindError."""
    elem = batch[0]
    if _STR_OR_OBJECT.search(elem.dtype.str) is not None:
        raise KindError(_ERR.format(elem.dtype))
    shape, dtype = elem.shape, elem.dtype
    if all(type(b) is type(elem) and b.shape == shape and b.dtype == dtype for b in batch):
        return _array_tensor(np.stack(batch))  # one copy instead of one per sample
    return collate([_array_tensor(np.asarray(b)) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """NumPy scalars as a 1-d tensor of their (promoted) dtype."""
    arr = np.asarray(batch)
    if _STR_OR_OBJECT.search(arr.dtype.str) is not None:
        raise KindError(_ERR.format(arr.dtype))
    return _array_tensor(arr)


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats as a float64 tensor (PyTorch's rule, not the default float dtype)."""
    return _to_torch(_tensor(list(batch), dtype=_dt.float64))


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints as an int64 tensor (bools alone as a bool tensor)."""
    return _to_torch(_tensor(list(batch)))


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes: the batch itself."""
    return batch


default_collate_fn_map = {
    _EmberTensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Put a batch of samples together as PyTorch's ``default_collate`` does (see the module
    docstring): tensors and arrays stacked along a new first dim, numbers as tensors, the
    containers walked. The ``collate_fn`` of a DataLoader with a ``batch_size``.

    >>> import numpy as np
    >>> from ember.torch.utils.data import default_collate
    >>> out = default_collate([{"x": np.zeros(3), "y": "a"}, {"x": np.ones(3), "y": "b"}])
    >>> out["x"].shape, out["y"]
    (torch.Size([2, 3]), ['a', 'b'])
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
