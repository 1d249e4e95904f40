"""Creation: tensors from data, filled tensors, ranges and grids (the triangle masks and
``triu``/``tril`` are in ``triangles.py``).

Every function here is also a static method of Tensor with Burn's spelling
(``Tensor.zeros((2, 3))``, ``Tensor.from_floats([1.0])``), and the ``*_like`` functions are
methods too (``t.zeros_like()``).

Shapes are varargs or one sequence (``zeros(2, 3)`` or ``zeros((2, 3))``); sizes must be ints
>= 0 (InvalidParameterError otherwise). ``dtype`` takes an ember dtype, its name or a NumPy
dtype. Filled tensors default to float32, as PyTorch; ``full`` takes its dtype from the fill
value (int64 for an int, float32 for a float, bool for a bool), and ``arange`` gives int64 unless
an argument is a float (then float32).

Burn's ``options`` argument (a device or a dtype) works in Burn's place too: after a shape
sequence (``Tensor.zeros([2, 3], device)``, ``Tensor.ones((2, 3), "int32")``), after the data
(``Tensor.from_data(data, device)``), the fill value, the range (``Tensor.arange(range(5),
device)``) or the size (``Tensor.eye(3, device)``). Only ``"cpu"`` exists; ``"cpu:0"`` is it too.
"""

import math

from .. import dtypes as _dt
from ..backends import host_of, registry
from ..devices import CPU, Device, as_device
from ..errors import InvalidParameterError, KindError
from ..shapes import MAX_RANK, argfix, check_rank
from .._tensor import Tensor, check_tensor, tensor_method, wrap
from .data import _is_device, _read, check_backend

_host = CPU.backend  # Python-number checks (NumPy scalars count as numbers) run on the host

__all__ = ["tensor", "from_numpy", "from_data", "from_floats", "from_ints", "from_bool",
           "empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
           "arange", "arange_step", "linspace", "eye", "cartesian_grid"]


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of ``data`` (nested lists, numbers, arrays or a tensor).

    Python floats give float32, ints int64, bools bool, complex numbers complex64 (as PyTorch),
    unless ``dtype`` says otherwise; arrays keep their dtype. Complex values for a real ``dtype``
    raise KindError (the imaginary part would be lost).

    >>> tensor([[1, 2], [3, 4]]).dtype
    ember.int64
    >>> tensor([1 + 2j, 3]).dtype
    ember.complex64
    """
    return Tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def from_numpy(array):
    """A tensor sharing ``array``'s buffer (zero-copy), with its dtype and layout.

    >>> import numpy as np
    >>> a = np.arange(3.0)
    >>> from_numpy(a).tolist()
    [0.0, 1.0, 2.0]
    """
    if not _host.is_array(array):
        raise InvalidParameterError(
            f"from_numpy: array must be a numpy.ndarray, got {type(array).__name__}", "array", array)
    try:
        dtype = _host.dtype_of(array)
    except KindError:
        raise KindError(f"from_numpy: dtype {array.dtype} has no ember kind") from None
    device = as_device(None, "from_numpy")
    if device is CPU:  # a view: the owner can still write it, so no op defers reading it
        return wrap(_host.ew_shared_view(array), dtype)
    try:  # zero-copy where the device can share host memory
        data = device.backend.from_host(array, dtype)
    except ValueError:  # a layout the device cannot share (negative strides): a copy
        data = device.backend.from_host(_host.contiguous(array), dtype)
    return wrap(data, dtype)


def _new_from_primitive(primitive, op="new", backend=None):
    """Burn's ``Tensor::new(primitive)``: a tensor around a backend primitive, a backend's own
    array (a NumPy ndarray, or a torch tensor for the torch backend), taken as it is: no copy,
    its dtype, layout and device kept (as ``from_numpy``). Also a static method only:
    ``ember.Tensor.new(array)``.

    >>> import numpy as np
    >>> import ember
    >>> ember.Tensor.new(np.array([1, 2], dtype=np.int32)).dtype
    ember.int32
    """
    be = host_of(primitive)
    if be is None or not be.is_array(primitive) or (backend is not None
                                                   and be.name != backend):
        raise InvalidParameterError(
            f"{op}: primitive must be the backend's array ({registry.array_names(backend)}), "
            f"got {type(primitive).__name__}; use "
            "ember.tensor or Tensor.from_data for other data",
            "primitive", primitive)
    try:
        dtype = be.dtype_of(primitive)
    except KindError:
        raise KindError(f"{op}: primitive of dtype {primitive.dtype} has no ember kind") from None
    return wrap(primitive, dtype)


def _from_primitive(primitive, backend="numpy"):
    """Burn's ``from_primitive``, the inverse of ``try_into_primitive``: ``Tensor.new`` for the
    backend named ``backend`` (a name of ``ember.backends.registry``: "numpy", "torch"; another
    name raises InvalidParameterError).
    A static method.

    >>> import numpy as np
    >>> import ember
    >>> ember.Tensor.from_primitive(np.arange(3)).tolist()
    [0, 1, 2]
    """
    check_backend(backend, "from_primitive")
    return _new_from_primitive(primitive, "from_primitive", backend)


Tensor.new = staticmethod(_new_from_primitive)
Tensor.from_primitive = staticmethod(_from_primitive)


# -- argument checks ----------------------------------------------------------------------------

def _int_arg(value, op, param):
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise InvalidParameterError(
            f"{op}: {param} must be an int, got {type(value).__name__} {value!r}", param, value)
    try:
        return value.__index__()
    except TypeError:
        raise InvalidParameterError(
            f"{op}: {param} must be an int, got {type(value).__name__} {value!r}",
            param, value) from None


def _size_arg(value, op, param):
    n = _int_arg(value, op, param)
    if n < 0:
        raise InvalidParameterError(f"{op}: {param} is {n}; expected an int >= 0", param, value)
    return n


def _shape_arg(args, op, param="shape"):
    """A shape from varargs or one sequence, each size an int >= 0."""
    for size in args:  # the common case: Python ints >= 0, checked in one pass
        if size.__class__ is not int or size < 0:
            break
    else:
        if len(args) <= MAX_RANK:
            return args
    if len(args) == 1 and not isinstance(args[0], (tuple, list)) and hasattr(args[0], "tolist") \
            and not isinstance(args[0], Tensor):
        args = (args[0].tolist(),)
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].kind != "int" or args[0].ndim > 1:
            raise InvalidParameterError(
                f"{op}: {param} given as a tensor must be a 1-d int tensor, got shape "
                f"{tuple(args[0].shape)} and dtype {args[0].dtype.name}", param, args[0])
    shape = argfix(args, op, param)
    out = []
    for size in shape:
        if isinstance(size, bool) or not hasattr(size, "__index__"):
            raise InvalidParameterError(
                f"{op}: {param} {tuple(shape)} has a size {size!r} of type "
                f"{type(size).__name__}; expected ints >= 0", param, tuple(shape))
        try:
            size = size.__index__()
        except TypeError:
            raise InvalidParameterError(
                f"{op}: {param} {tuple(shape)} has a size {size!r} that is not an int; "
                "expected ints >= 0", param, tuple(shape)) from None
        if size < 0:
            raise InvalidParameterError(
                f"{op}: {param} {tuple(shape)} has a negative size {size}; expected sizes >= 0",
                param, tuple(shape))
        out.append(size)
    return tuple(out)


def _dtype_arg(dtype, op, default=None):
    return default if dtype is None else _dt.as_dtype(dtype, op=op)


def _device_arg(device, op):
    """``device`` as an available Device (None: the default device)."""
    return as_device(device, op)


def _options(dtype, device, op):
    """Burn's ``options`` argument, a device or a dtype, given where ember takes ``dtype``
    (``Tensor.from_data(data, "cpu")``): a device there is the device."""
    if dtype is not None and _is_device(dtype):
        if device is not None:
            raise InvalidParameterError(
                f"{op}: two devices given ({dtype!r} and {device!r}); expected at most one",
                "device", dtype)
        return None, dtype
    return dtype, device


def _shape_options(args, dtype, device, op):
    """Varargs shape, or Burn's ``(shape, options)``: a shape sequence followed by one device or
    dtype (``Tensor.zeros([2, 3], "cpu")``, ``Tensor.ones((2, 3), "int32")``)."""
    if len(args) == 2 and isinstance(args[0], (tuple, list)):
        option = args[1]
        args = args[:1]
        if _is_device(option):
            if device is not None:
                raise InvalidParameterError(
                    f"{op}: two devices given ({option!r} and {device!r}); expected at most one",
                    "device", option)
            device = option
        else:
            if dtype is not None:
                raise InvalidParameterError(
                    f"{op}: two dtypes given ({option!r} and {dtype!r}); expected at most one",
                    "dtype", option)
            dtype = option
    return args, dtype, device


def _grad_arg(requires_grad, dtype, op):
    if not isinstance(requires_grad, bool):
        raise InvalidParameterError(
            f"{op}: requires_grad must be a bool, got {requires_grad!r}", "requires_grad",
            requires_grad)
    if requires_grad and dtype.kind != "float":
        why = " (ember has no gradients through complex tensors, docs/complex.md)" \
            if dtype.kind == "complex" else ""
        raise KindError(f"{op}: only float tensors can require grad, dtype {dtype.name} is "
                        f"{dtype.kind}{why}; expected a float dtype")
    return requires_grad


_MAX_BYTES = 2 ** 63 - 1


def _check_nbytes(shape, dtype, op):
    n = dtype.itemsize
    for size in shape:
        n *= size
    if n > _MAX_BYTES:
        raise InvalidParameterError(
            f"{op}: shape {shape} of {dtype.name} is too large to allocate", "shape", shape)


def _new(data, dtype, requires_grad):
    t = wrap(data, dtype)
    if requires_grad:
        t.require_grad()
    return t


_NUMBER_KIND = {bool: "bool", int: "int", float: "float", complex: "complex"}


def _number_kind(value):
    """``"bool"``, ``"int"``, ``"float"`` or ``"complex"`` for Python and NumPy numbers, else
    None."""
    if not _host.data_is_number(value):
        return None
    value = _host.data_to_python(value)
    return _NUMBER_KIND.get(type(value))


def _fill_arg(value, dtype, op, param="fill_value"):
    """The fill value as a Python number, and the dtype (inferred from it when ``dtype`` is None)."""
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise InvalidParameterError(
                f"{op}: {param} is a tensor of shape {tuple(value.shape)}; expected a number or a "
                "one-element tensor", param, value)
        kind_dtype = value.dtype
        value = value._device.backend.item(value._data)
    else:
        kind = _number_kind(value)
        if kind is None:
            raise InvalidParameterError(
                f"{op}: {param} must be a number or a bool, got {type(value).__name__} "
                f"{value!r}", param, value)
        value = _host.data_to_python(value)
        kind_dtype = _dt.default_of_kind(kind)
    if dtype is None:
        dtype = kind_dtype
    if dtype.kind == "complex" or kind_dtype.kind == "complex":
        return _complex_fill(value, dtype, op, param)
    if not _host.creation_fill_value_fits(value, dtype):
        expected = {"bool": "a bool (or 0 or 1)",
                    "int": "an integral value in the dtype's range",
                    "float": "a value in the dtype's finite range (or nan or inf)"}[dtype.kind]
        raise InvalidParameterError(
            f"{op}: {param} {value!r} does not fit dtype {dtype.name}; expected {expected}",
            param, value)
    if dtype.kind == "bool":
        value = bool(value)
    elif dtype.kind == "int":
        value = int(value)
    return value, dtype


def _complex_fill(value, dtype, op, param):
    """The fill value and dtype when either is complex: a complex value needs a complex dtype
    (InvalidParameterError: PyTorch refuses it too), and each part must fit the dtype's parts."""
    if dtype.kind != "complex":
        raise InvalidParameterError(
            f"{op}: {param} {value!r} is complex and does not fit dtype {dtype.name}; expected a "
            "complex dtype (complex64 or complex128) or a real fill value", param, value)
    value = complex(value)
    part = _dt.real_of(dtype)
    if not (_host.creation_fill_value_fits(value.real, part)
            and _host.creation_fill_value_fits(value.imag, part)):
        raise InvalidParameterError(
            f"{op}: {param} {value!r} does not fit dtype {dtype.name}; expected real and "
            f"imaginary parts in the finite range of {part.name} (or nan or inf)", param, value)
    return value, dtype


# -- from data ----------------------------------------------------------------------------------

def from_data(data, dtype=None, device=None, requires_grad=False):
    """A tensor from ``data``: a ``TensorData``, nested lists, numbers, an array or a tensor
    (Burn's ``from_data``; a tensor is detached, its buffer shared since tensors are immutable).

    The dtype is inferred as for ``ember.tensor`` unless ``dtype`` is given (then the values are
    converted as ``cast`` does).

    >>> import ember
    >>> ember.from_data([[1.0, 2.0], [3.0, 4.0]]).dtype
    ember.float32
    >>> ember.Tensor.from_data(ember.tensor([1, 2]).to_data(), dtype="float64").tolist()
    [1.0, 2.0]
    """
    dtype, device = _options(dtype, device, "from_data")
    dtype = _dtype_arg(dtype, "from_data")
    device = _device_arg(device, "from_data")
    t = _read(data, dtype, "from_data", device)
    _grad_arg(requires_grad, t._dtype, "from_data")
    if requires_grad:
        t.require_grad()
    return t


def from_floats(data, device=None):
    """A float32 tensor from ``data`` (Burn's ``from_floats``); ints and bools are converted.

    >>> import ember
    >>> ember.Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]]).dtype
    ember.float32
    >>> ember.from_floats([1, 2]).tolist()
    [1.0, 2.0]
    """
    return _read(data, _dt.float32, "from_floats", _device_arg(device, "from_floats"))


def from_ints(data, device=None):
    """An int64 tensor from ``data`` (Burn's ``from_ints``); floats are truncated toward zero
    and bools become 0 and 1, as ``cast`` does.

    >>> import ember
    >>> ember.Tensor.from_ints([[1, 2], [3, 4]]).dtype
    ember.int64
    """
    return _read(data, _dt.int64, "from_ints", _device_arg(device, "from_ints"))


def from_bool(data, device=None):
    """A bool tensor from ``data`` (Burn's ``from_bool``); numbers become ``x != 0``.

    >>> import ember
    >>> ember.Tensor.from_bool([[True, False], [False, True]]).tolist()
    [[True, False], [False, True]]
    """
    return _read(data, _dt.bool_, "from_bool", _device_arg(device, "from_bool"))


# -- filled -------------------------------------------------------------------------------------

def _filled(op, shape, value, dtype, device, requires_grad):
    be = (device if device.__class__ is Device else _device_arg(device, op)).backend
    _grad_arg(requires_grad, dtype, op)
    _check_nbytes(shape, dtype, op)
    if value is None:
        data = be.creation_zeros(shape, dtype, op=op)
    else:
        data = be.creation_full(shape, value, dtype, op=op)
    return _new(data, dtype, requires_grad)


def empty(*shape, dtype=None, device=None, requires_grad=False):
    """A new tensor of ``shape`` whose values are unspecified (ember gives zeros); float32 by
    default (Burn's ``empty``).

    >>> import ember
    >>> ember.Tensor.empty((2, 3, 4)).shape
    (2, 3, 4)
    """
    shape, dtype, device = _shape_options(shape, dtype, device, "empty")
    shape = _shape_arg(shape, "empty")
    dtype = _dtype_arg(dtype, "empty", _dt.default_float)
    return _filled("empty", shape, None, dtype, device, requires_grad)


def zeros(*shape, dtype=None, device=None, requires_grad=False):
    """A new tensor of ``shape`` filled with zeros; float32 by default.

    >>> import ember
    >>> print(ember.Tensor.zeros((2, 3)))
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    >>> ember.zeros(2, dtype="int32").tolist()
    [0, 0]
    """
    shape, dtype, device = _shape_options(shape, dtype, device, "zeros")
    shape = _shape_arg(shape, "zeros")
    dtype = _dtype_arg(dtype, "zeros", _dt.default_float)
    return _filled("zeros", shape, None, dtype, device, requires_grad)


def ones(*shape, dtype=None, device=None, requires_grad=False):
    """A new tensor of ``shape`` filled with ones; float32 by default.

    >>> import ember
    >>> print(ember.Tensor.ones((2, 3)))
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    shape, dtype, device = _shape_options(shape, dtype, device, "ones")
    shape = _shape_arg(shape, "ones")
    dtype = _dtype_arg(dtype, "ones", _dt.default_float)
    return _filled("ones", shape, True if dtype.kind == "bool" else 1, dtype, device,
                   requires_grad)


def full(shape, fill_value, dtype=None, device=None, requires_grad=False):
    """A new tensor of ``shape`` (an int or a sequence) filled with ``fill_value``.

    Without ``dtype``, the value decides: int64 for an int, float32 for a float, bool for a
    bool, complex64 for a complex (PyTorch). A value that does not fit ``dtype`` raises
    InvalidParameterError: a complex value for a real dtype, a non-integral, infinite or NaN
    float or an out-of-range int for an int dtype, anything but 0/1 for bool, a finite value
    (or part of a complex value) that overflows a float dtype.

    >>> import ember
    >>> print(ember.Tensor.full((2, 3), 5.0))
    [[5.0, 5.0, 5.0], [5.0, 5.0, 5.0]]
    >>> ember.full(2, 5).dtype
    ember.int64
    >>> ember.full(2, 1 + 2j).tolist()
    [(1+2j), (1+2j)]
    """
    dtype, device = _options(dtype, device, "full")
    shape = _shape_arg((shape,), "full")
    dtype = _dtype_arg(dtype, "full")
    value, dtype = _fill_arg(fill_value, dtype, "full")
    return _filled("full", shape, value, dtype, device, requires_grad)


def _like(op, self, dtype, device, requires_grad):
    check_tensor(self, op, "self")
    if getattr(self, "is_quantized", False):  # Burn: quantized tensor creation is unsupported
        raise KindError(f"{op}: the tensor is quantized; quantized tensor creation is not "
                        "supported (call dequantize() first)")
    dtype = _dtype_arg(dtype, op, self._dtype)
    return tuple(self._data.shape), dtype, (self._device if device is None
                                            else _device_arg(device, op))


def empty_like(self, dtype=None, device=None, requires_grad=False):
    """A new tensor with ``self``'s shape and dtype (or ``dtype``), values unspecified (zeros).

    >>> import ember
    >>> ember.zeros(2, 3, 4).empty_like().shape
    (2, 3, 4)
    """
    shape, dtype, device = _like("empty_like", self, dtype, device, requires_grad)
    return _filled("empty_like", shape, None, dtype, device, requires_grad)


def zeros_like(self, dtype=None, device=None, requires_grad=False):
    """A new tensor of zeros with ``self``'s shape and dtype (or ``dtype``).

    >>> import ember
    >>> print(ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).zeros_like())
    [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    shape, dtype, device = _like("zeros_like", self, dtype, device, requires_grad)
    return _filled("zeros_like", shape, None, dtype, device, requires_grad)


def ones_like(self, dtype=None, device=None, requires_grad=False):
    """A new tensor of ones with ``self``'s shape and dtype (or ``dtype``).

    >>> import ember
    >>> print(ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).ones_like())
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    shape, dtype, device = _like("ones_like", self, dtype, device, requires_grad)
    return _filled("ones_like", shape, True if dtype.kind == "bool" else 1, dtype, device,
                   requires_grad)


def full_like(self, fill_value, dtype=None, device=None, requires_grad=False):
    """A new tensor with ``self``'s shape and dtype (or ``dtype``) filled with ``fill_value``,
    which must fit that dtype (see ``full``).

    >>> import ember
    >>> print(ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).full_like(5.0))
    [[5.0, 5.0, 5.0], [5.0, 5.0, 5.0]]
    """
    shape, dtype, device = _like("full_like", self, dtype, device, requires_grad)
    value, dtype = _fill_arg(fill_value, dtype, "full_like")
    return _filled("full_like", shape, value, dtype, device, requires_grad)


# -- ranges -------------------------------------------------------------------------------------

def _range_number(value, op, param):
    kind = _number_kind(value)
    if kind not in ("int", "float"):
        raise InvalidParameterError(
            f"{op}: {param} must be an int or a float, got {type(value).__name__} {value!r}",
            param, value)
    value = _host.data_to_python(value)
    if kind == "float" and not math.isfinite(value):
        raise InvalidParameterError(f"{op}: {param} is {value!r}; expected a finite number",
                                    param, value)
    return value


_INT64_MAX = 2 ** 63 - 1


def _arange_args(op, start, end, step):
    """``arange``'s checked ``start``, ``end`` and ``step``, whether it is a float range, and
    its length (float ranges: ``ceil((end - start) / step)``, computed in float64)."""
    start = _range_number(start, op, "start")
    end = _range_number(end, op, "end")
    step = _range_number(step, op, "step")
    if step == 0:
        raise InvalidParameterError(f"{op}: step is 0; expected a nonzero step", "step", step)
    is_float = any(isinstance(v, float) for v in (start, end, step))
    if is_float:
        quotient = (end - start) / step
        n = max(0, math.ceil(quotient)) if math.isfinite(quotient) else math.inf
    else:
        n = max(0, -((start - end) // step))
    if n > _INT64_MAX:
        raise InvalidParameterError(
            f"{op}: start {start!r}, end {end!r} and step {step!r} make more than 2**63 - 1 "
            "values; expected a range of at most 2**63 - 1 values", "step", step)
    return start, end, step, is_float, n


def _arange(op, start, end, step, dtype, device, requires_grad):
    start, end, step, is_float, n = _arange_args(op, start, end, step)
    dtype = _dtype_arg(dtype, op, _dt.default_float if is_float else _dt.default_int)
    if dtype.kind == "bool":
        raise KindError(f"{op}: not defined for dtype bool; expected an int or float dtype")
    if dtype.kind == "complex":  # as PyTorch: a range walks a real line
        raise _dt.complex_error(op, "dtype", dtype)
    be = _device_arg(device, op).backend
    _grad_arg(requires_grad, dtype, op)
    _check_nbytes((n,), dtype, op)
    if n == 0:
        return _new(be.creation_zeros((0,), dtype), dtype, requires_grad)
    if not is_float:
        for value, param in ((start, "start"), (start + (n - 1) * step, "end")):
            if not -2 ** 63 <= value < 2 ** 63:
                raise InvalidParameterError(
                    f"{op}: the range reaches {value}, outside int64; expected values from "
                    "-2**63 to 2**63 - 1", param, value)
    data = be.creation_arange(start, end, step, dtype, is_float, op=op)
    return _new(data, dtype, requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """Values from ``start`` up to (not including) ``end`` by ``step``: ``arange(5)`` is
    ``[0, 1, 2, 3, 4]``. A Python ``range`` works as ``start`` (Burn's ``arange(0..5)``).

    int64 unless an argument is a float (then float32), or ``dtype``. A range that ``step``
    cannot walk (``arange(5, 0)``) is empty, as Python's ``range``; a zero step, a non-finite
    argument or more than ``2**63 - 1`` values raise InvalidParameterError. Float ranges have
    ``ceil((end - start) / step)`` values ``start + i * step``, computed in float64, as
    PyTorch; int ranges are exact up to int64's ends.

    >>> import ember
    >>> ember.arange(5).tolist()
    [0, 1, 2, 3, 4]
    >>> ember.Tensor.arange(range(2, 5)).tolist()
    [2, 3, 4]
    >>> ember.arange(0, 1, 0.25).tolist()
    [0.0, 0.25, 0.5, 0.75]
    """
    if isinstance(start, range):
        if end is not None and step == 1 and not _host.data_is_number(end):
            end, (dtype, device) = None, _options(end, device, "arange")  # Burn's options
        if end is not None or step != 1:
            raise InvalidParameterError(
                "arange: a range as start carries its own end and step; expected end=None "
                f"and step=1, got end={end!r}, step={step!r}", "end", end)
        start, end, step = start.start, start.stop, start.step
    elif end is None:
        start, end = 0, start
    return _arange("arange", start, end, step, dtype, device, requires_grad)


def arange_step(range_, step, dtype=None, device=None, requires_grad=False):
    """Burn's ``arange_step(start..end, step)``: ``range_`` is a Python ``range`` (step 1), a
    ``slice`` or a ``(start, end)`` pair; ``step`` an int >= 1. int64 by default.

    >>> import ember
    >>> ember.arange_step(range(0, 10), 3).tolist()
    [0, 3, 6, 9]
    >>> ember.Tensor.arange_step((1, 6), 2).tolist()
    [1, 3, 5]
    """
    op = "arange_step"
    if isinstance(range_, range):
        if range_.step != 1:
            raise InvalidParameterError(
                f"{op}: range {range_!r} has its own step {range_.step}; expected a range "
                "with step 1 and the step as the second argument", "range", range_)
        start, end = range_.start, range_.stop
    elif isinstance(range_, slice):
        if range_.step is not None or range_.start is None or range_.stop is None:
            raise InvalidParameterError(
                f"{op}: slice {range_!r} must have a start and a stop and no step", "range",
                range_)
        start, end = range_.start, range_.stop
    elif isinstance(range_, (tuple, list)) and len(range_) == 2:
        start, end = range_
    else:
        raise InvalidParameterError(
            f"{op}: range must be a range, a slice or a (start, end) pair, got "
            f"{type(range_).__name__} {range_!r}", "range", range_)
    dtype, device = _options(dtype, device, op)
    step = _int_arg(step, op, "step")
    if step < 1:
        raise InvalidParameterError(f"{op}: step is {step}; expected an int >= 1", "step", step)
    return _arange(op, start, end, step, dtype, device, requires_grad)


def _linspace_end(value, op, param):
    """A linspace end: an int, a float or a complex (each part finite)."""
    if _number_kind(value) == "complex":
        value = complex(_host.data_to_python(value))
        if not (math.isfinite(value.real) and math.isfinite(value.imag)):
            raise InvalidParameterError(f"{op}: {param} is {value!r}; expected a finite number",
                                        param, value)
        return value
    return _range_number(value, op, param)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end``, both included; float32 by
    default, complex64 when an end is complex (as PyTorch). Computed in float64 (each part of a
    complex) from both ends (as PyTorch), then converted to ``dtype``; complex ends need a
    complex dtype (KindError). Each end must lie in the dtype's range (InvalidParameterError,
    where PyTorch raises its overflow error); an int dtype takes the ends toward zero first.

    >>> import ember
    >>> ember.linspace(-2.5, 127, 5, dtype="int8").tolist()
    [-2, 30, 62, 94, 127]
    >>> ember.linspace(0, 1, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> ember.linspace(0, 2 + 2j, 3).tolist()
    [0j, (1+1j), (2+2j)]
    """
    op = "linspace"
    start = _linspace_end(start, op, "start")
    end = _linspace_end(end, op, "end")
    steps = _size_arg(steps, op, "steps")
    is_complex = isinstance(start, complex) or isinstance(end, complex)
    dtype = _dtype_arg(dtype, op, _dt.complex64 if is_complex else _dt.default_float)
    if dtype.kind == "bool":
        raise KindError(f"{op}: not defined for dtype bool; expected an int or float dtype")
    if is_complex and dtype.kind != "complex":
        raise KindError(f"{op}: start {start!r} and end {end!r} are complex, dtype {dtype.name} "
                        "is not (the imaginary parts would be lost); expected a complex dtype")
    part = _dt.real_of(dtype) if dtype.kind == "complex" else dtype
    for param, value in (("start", start), ("end", end)):
        for v in (value.real, value.imag) if isinstance(value, complex) else (value,):
            if part.kind == "int":  # in the int range as a real number: away from zero
                v = math.floor(v) if v < 0 else math.ceil(v)
            if not _host.creation_fill_value_fits(v, part):
                raise InvalidParameterError(
                    f"{op}: {param} {value!r} does not fit dtype {dtype.name}; expected a value "
                    f"in the range of {part.name}", param, value)
    if dtype.kind == "int":  # PyTorch converts the ends to the dtype first (toward zero)
        start, end = int(start), int(end)
    be = _device_arg(device, op).backend
    _grad_arg(requires_grad, dtype, op)
    _check_nbytes((steps,), dtype, op)
    if steps:
        data = be.creation_linspace(start, end, steps, dtype, op=op)
    else:
        data = be.creation_zeros((0,), dtype)
    return _new(data, dtype, requires_grad)


# -- matrices, grids ----------------------------------------------------------------------------

def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    """An ``n`` by ``m`` (default ``n``) matrix with ones on the diagonal; float32 by default.

    >>> import ember
    >>> print(ember.Tensor.eye(2))
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if m is not None and _is_device(m):  # Burn's eye(size, device)
        if device is not None:
            raise InvalidParameterError(
                f"eye: two devices given ({m!r} and {device!r}); expected at most one",
                "device", m)
        m, device = None, m
    dtype, device = _options(dtype, device, "eye")
    n = _size_arg(n, "eye", "n")
    m = n if m is None else _size_arg(m, "eye", "m")
    dtype = _dtype_arg(dtype, "eye", _dt.default_float)
    be = _device_arg(device, "eye").backend
    _grad_arg(requires_grad, dtype, "eye")
    _check_nbytes((n, m), dtype, "eye")
    return _new(be.creation_eye(n, m, dtype, op="eye"), dtype, requires_grad)


def cartesian_grid(*shape, device=None):
    """Burn's ``cartesian_grid``: an int64 tensor of shape ``(*shape, len(shape))`` whose entry
    at each index is that index's coordinates.

    >>> import ember
    >>> ember.Tensor.cartesian_grid((2, 3)).tolist()
    [[[0, 0], [0, 1], [0, 2]], [[1, 0], [1, 1], [1, 2]]]
    """
    shape, dtype, device = _shape_options(shape, None, device, "cartesian_grid")
    if dtype is not None:
        raise InvalidParameterError(
            f"cartesian_grid: options {dtype!r} is not a device; expected a device such as "
            "'cpu' (the grid is int64)", "device", dtype)
    shape = _shape_arg(shape, "cartesian_grid")
    check_rank(len(shape) + 1, "cartesian_grid", "shape", shape)
    be = _device_arg(device, "cartesian_grid").backend
    _check_nbytes(shape + (len(shape),), _dt.int64, "cartesian_grid")
    data = be.creation_cartesian_grid(shape, op="cartesian_grid")
    return wrap(data, _dt.int64)


for _f in (from_data, from_floats, from_ints, from_bool, empty, zeros, ones, full, arange,
           arange_step, linspace, eye, cartesian_grid):
    tensor_method(_f, static=True)
for _f in (empty_like, zeros_like, ones_like, full_like):
    tensor_method(_f)
del _f
