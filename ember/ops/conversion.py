"""Tensors as Python numbers and NumPy arrays: ``item``, ``into_scalar``, ``float(t)``,
``int(t)``, ``bool(t)``, ``complex(t)``, ``operator.index(t)``, ``np.asarray(t)``, and the dtype
shorthands ``int()``, ``float()``, ``long()``, ``double()``, ``half()``, ``short()``, ``bool()``.

The conversions to Python numbers follow PyTorch: ``item()``, ``float(t)``, ``int(t)`` and
``bool(t)`` need exactly one element (any shape) and raise InvalidParameterError otherwise;
``int(t)`` truncates toward zero; ``operator.index(t)`` (``__index__``) takes one-element int
tensors only and raises KindError (a TypeError) for anything else. ``np.asarray(t)`` is a
read-only view of the tensor's buffer (no copy) unless a dtype change or ``copy=True`` asks
for one.

Complex tensors (docs/complex.md): ``item()`` and ``complex(t)`` give Python ``complex``
values; ``bool(t)`` tests ``!= 0``; ``float(t)`` and ``int(t)`` raise KindError, and so do
``into_scalar`` and ``np.asarray(t, dtype=float)`` to a real dtype: take ``.real()``,
``.imag()``, ``.abs()`` or ``.angle()`` first.
"""

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError
from ..devices import CPU
from .._tensor import Tensor, tensor_method
from .data import _complex_array_dtype, _dtype_arg, _host, complex_cast_error


def _one(self, op):
    n = self._device.backend.numel(self._data)
    if n != 1:
        raise InvalidParameterError(
            f"{op}: the tensor has {n} elements (shape {tuple(self.shape)}); expected exactly "
            "one element", "self", tuple(self.shape))


@tensor_method
def item(self):
    """The value of a one-element tensor (any shape) as a Python number or bool.

    >>> import ember
    >>> ember.tensor([[3.0]]).item()
    3.0
    """
    _one(self, "item")
    return self._device.backend.item(self._data)


@tensor_method
def into_scalar(self, dtype=None):
    """Burn's ``into_scalar``: the value of a one-element tensor, converted to ``dtype`` first
    when given (a dtype, its name, or ``float``/``int``/``bool``).

    >>> import ember
    >>> ember.Tensor.from_data([[3.0]]).into_scalar()
    3.0
    >>> ember.tensor([2.7]).into_scalar(int)
    2
    """
    _one(self, "into_scalar")
    be = self._device.backend
    if dtype is None:
        return be.item(self._data)
    dtype = _dtype_arg(dtype, "into_scalar")
    if self._dtype.kind == "complex" and dtype.kind != "complex":
        raise complex_cast_error("into_scalar", self._dtype, dtype)
    return be.item(be.cast(self._data, dtype))


Tensor.try_into_scalar = into_scalar  # Burn's Result: the same method, raising typed errors


@tensor_method(name="int")
def _int_method(self):
    """The values as int64 (floats truncate toward zero; True is 1).

    >>> import ember
    >>> print(ember.Tensor.from_bool([True, False, True]).int())
    [1, 0, 1]
    """
    return self.cast(_dt.int64)


@tensor_method(name="float")
def _float_method(self):
    """The values as float32 (with gradient from float dtypes).

    >>> import ember
    >>> print(ember.Tensor.from_bool([True, False, True]).float())
    [1.0, 0.0, 1.0]
    """
    return self.cast(_dt.float32)


@tensor_method
def long(self):
    """The values as int64 (PyTorch's ``long``).

    >>> import ember
    >>> ember.tensor([1.7, -1.7]).long().tolist()
    [1, -1]
    """
    return self.cast(_dt.int64)


@tensor_method
def double(self):
    """The values as float64 (PyTorch's ``double``).

    >>> import ember
    >>> ember.tensor([1, 2]).double().dtype
    ember.float64
    """
    return self.cast(_dt.float64)


@tensor_method
def half(self):
    """The values as float16 (PyTorch's ``half``).

    >>> import ember
    >>> ember.tensor([1.5]).half().dtype
    ember.float16
    """
    return self.cast(_dt.float16)


@tensor_method
def short(self):
    """The values as int16 (PyTorch's ``short``).

    >>> import ember
    >>> ember.tensor([3.9]).short().tolist()
    [3]
    """
    return self.cast(_dt.int16)


@tensor_method(name="bool")
def _bool_method(self):
    """The values as bool: True where nonzero (NaN is nonzero).

    >>> import ember
    >>> print(ember.tensor([[1.0, -2.0, 3.0], [0.0, 9.0, 6.0]]).bool())
    [[True, True, True], [False, True, True]]
    """
    return self.cast(_dt.bool_)


def __array__(self, dtype=None, copy=None):
    """NumPy's array protocol: ``np.asarray(t)`` is a read-only view of the buffer (no copy);
    ``dtype`` converts (a copy), ``copy=True`` gives a writable copy, ``copy=False`` raises
    InvalidParameterError when a copy is needed; a complex tensor converts to complex dtypes only
    (KindError)."""
    if dtype is not None and self._dtype.kind == "complex":
        _complex_array_dtype(self._dtype, dtype, "__array__")
    out = CPU.backend.data_array(_host(self), dtype, copy)
    if out is None:
        raise InvalidParameterError(
            f"__array__: converting {self._dtype.name} to {dtype} needs a copy, but copy=False",
            "copy", copy)
    return out


def __bool__(self):
    n = self._device.backend.numel(self._data)
    if n != 1:
        raise InvalidParameterError(
            f"bool: the truth value of a tensor with {n} elements (shape {tuple(self.shape)}) is "
            "ambiguous; expected exactly one element (use any() or all())", "self",
            tuple(self.shape))
    return bool(self._device.backend.item(self._data))


def _complex_number(self, op):
    """float() and int() of a complex tensor raise KindError (Python's float(1j) raises too;
    PyTorch raises unless the imaginary part is 0): take .real() or .abs() first."""
    raise KindError(f"{op}: the tensor has dtype {self._dtype.name}; a complex value has no "
                    f"{op} value; expected a real tensor, or take .real() or .abs() first, or "
                    "use complex()")


def __float__(self):
    _one(self, "float")
    if self._dtype.kind == "complex":
        _complex_number(self, "float")
    return float(self._device.backend.item(self._data))


def __complex__(self):
    _one(self, "complex")
    return complex(self._device.backend.item(self._data))


def __int__(self):
    _one(self, "int")
    kind = self._dtype.kind
    if kind == "complex":
        _complex_number(self, "int")
    v = self._device.backend.item(self._data)
    if kind == "float" and not (v - v == 0):
        raise InvalidParameterError(f"int: cannot convert {v!r} to an int; expected a finite "
                                    "value", "self", v)
    return int(v)


def __index__(self):
    if self._dtype.kind != "int" or self._device.backend.numel(self._data) != 1:
        raise KindError(
            f"__index__: only one-element int tensors can be used as an index, got shape "
            f"{tuple(self.shape)} and dtype {self._dtype.name}")
    return int(self._device.backend.item(self._data))


Tensor.__array__ = __array__
Tensor.__bool__ = __bool__
Tensor.__float__ = __float__
Tensor.__int__ = __int__
Tensor.__complex__ = __complex__
Tensor.__index__ = __index__
