"""Data out: NumPy arrays, Python lists, TensorData, casts between dtypes, devices, clones,
pickling. The conversions to Python numbers (``item``, ``float(t)``, ``int(t)``, ``bool(t)``,
``np.asarray(t)``, ``long()``/``double()``/...) are in ops/conversion.py.

Pickling keeps the values (through host memory), the dtype, the device and whether the tensor
requires grad; a tensor that requires grad comes back as a leaf (as PyTorch, the graph that
produced it does not travel). ``TensorData`` always holds host (NumPy) values.

Complex tensors (docs/complex.md): ``tolist()`` gives Python ``complex`` values; every cast of
complex values to a real dtype (``cast``, ``convert``, ``to_data_as``, ``np.asarray(t,
dtype=float)``) raises KindError: take ``.real()``, ``.imag()``, ``.abs()`` or ``.angle()``
first.
"""

from .. import dtypes as _dt
from ..backends import registry
from ..backends.guard import check_shaped
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..primitives import PRIMITIVES
from ..shapes import argfix
from ..devices import CPU, as_device
from .._tensor import Device, Tensor, _data_from, record, tensor_method, transfer, wrap

_hostbe = CPU.backend  # TensorData's values, pickles and Python numbers live on the host

__all__ = ["TensorData"]


@tensor_method
def numpy(self, copy=False):
    """The values as a NumPy array: the tensor's own buffer, read-only (``copy=True``: a writable copy).

    >>> import ember
    >>> ember.tensor([1, 2]).numpy()
    array([1, 2])
    """
    host = CPU.backend
    data = _host(self)
    if copy:
        return host.copy(data, "numpy")
    return host.readonly(data)


def _host(t):
    """The tensor's values as a host (NumPy backend) array: its own buffer on the CPU, the
    same memory where the backend shares it, else a copy."""
    if t._device is CPU:
        return t._data
    return transfer(t._data, t._dtype, t._device, CPU)


def _host_copy(data, dtype, device, op):
    """A private host copy of the array ``data`` (of ``dtype``, on ``device``), for the op
    ``op``."""
    if device is CPU:
        return _hostbe.copy(data, op)
    arr = transfer(data, dtype, device, CPU)
    # a transfer from a device's own memory is a fresh copy; from host memory (a CPU device, or
    # a library's arrays that wrap NumPy's) it may be shared
    shared = device.type == "cpu" or int(device.backend.dlpack_device(data)[0]) == 1
    return _hostbe.copy(arr, op) if shared else arr


@tensor_method
def tolist(self):
    """The values as nested Python lists (a Python number for a 0-d tensor).

    >>> import ember
    >>> ember.tensor([[1, 2], [3, 4]]).tolist()
    [[1, 2], [3, 4]]
    """
    return self._device.backend.tolist(self._data, "tolist")


@tensor_method
def cast(self, dtype):
    """The values converted to ``dtype`` (any kind); the same tensor when it already has it.

    Casts between float dtypes carry gradients; casts to int or bool do not. Real values cast
    to a complex dtype (no gradient: a tracked tensor raises KindError); complex values cast to
    a complex dtype only, a real dtype raises KindError (take ``.real()``, ``.imag()``,
    ``.abs()`` or ``.angle()`` first).

    >>> import ember
    >>> ember.tensor([1.7, -1.7]).cast("int32").tolist()
    [1, -1]
    """
    dtype = _dt.as_dtype(dtype)
    src = self._dtype
    if dtype is src:
        return self
    rule = None
    if src.kind == "float":
        if dtype.kind == "float":
            rule = _cast_rule(src)
    elif src.kind == "complex" and dtype.kind != "complex":
        raise complex_cast_error("cast", src, dtype)
    check_shaped("cast", self._data, dtype.itemsize)
    out = self._device.backend.cast(self._data, dtype)
    return record(out, dtype, (self,), rule, "cast")


def _cast_rule(src):
    """The rule of a cast from the float dtype ``src`` (its row's: the gradient cast back)."""
    grad = PRIMITIVES["cast_float32"].grad
    return lambda g, needs, out: (grad(g, src),)


def complex_cast_error(op, src, dtype, param="self"):
    """The KindError of a cast of complex values (``src``) to a real dtype: no op drops the
    imaginary part on its own (docs/complex.md; PyTorch drops it with a warning)."""
    return KindError(f"{op}: {param} has dtype {src.name}; casting complex values to "
                     f"{dtype.name} would drop the imaginary part; expected a complex dtype, or "
                     "take .real(), .imag(), .abs() or .angle() first")


def _complex_array_dtype(src, dtype, op):
    """Raise KindError when NumPy's array protocol asks for complex values as a real dtype."""
    target = _hostbe.ember_dtype(dtype)
    if target is not None and target.kind != "complex":
        raise complex_cast_error(op, src, target)



# -- devices, clones, buffer ownership ----------------------------------------------------------

_DEVICE_NAMES = registry.device_heads() + ("xpu", "meta", "wgpu", "vulkan", "metal", "rocm")


def _is_device(value):
    """Whether ``value`` names a device (a Device, or a string such as ``"cpu"``, ``"cuda:0"`` or
    ``"torch:cpu"``), as opposed to a dtype where Burn's ``options`` may be either."""
    return isinstance(value, Device) or (
        isinstance(value, str) and value.strip().lower().split(":")[0] in _DEVICE_NAMES)


def _check_device(device, op):
    """``device`` as an available Device: InvalidParameterError for a value that names no
    device, DeviceError for a device this machine does not have."""
    if device is None:
        raise InvalidParameterError(f"{op}: device must be a Device or a device name such as "
                                    "'cpu', got None", "device", device)
    return as_device(device, op)


def _identity_rule(g, needs, out):
    return (g,)


@tensor_method
def to_device(self, device, /, *, stream=None):
    """Burn's ``to_device`` (and the Array API's): this tensor on ``device``; the values move
    through host memory, or zero-copy where the two backends share it.

    An untracked tensor comes back moved (as itself when already there). For a tracked float
    tensor the move is a recorded step, as in Burn: the result is a non-leaf (``require_grad()``
    on it raises GraphError) and backward brings its gradient back to this tensor's device.

    >>> import ember
    >>> t = ember.tensor([1.0, 2.0], device="cpu")
    >>> t.to_device("cpu") is t
    True
    >>> t.to_device(ember.Device("cpu")).device
    Device('cpu')
    """
    target = _check_device(device, "to_device")
    if stream is not None:
        raise InvalidParameterError(f"to_device: stream must be None, got {stream!r}",
                                    "stream", stream)
    source = self._device
    if target is source:
        if self._node is None:
            return self
        return record(self._data, self._dtype, (self,), _identity_rule, "to_device")
    dtype = self._dtype
    data = transfer(self._data, dtype, source, target)
    if self._node is None:
        return wrap(data, dtype, self._ad)

    def rule(g, needs, out):  # the gradient goes back to where the input lives
        return (g.to_device(source),)

    return record(data, dtype, (self,), rule, "to_device")


@tensor_method
def load_to_device(self, device):
    """Burn's Parameter ``load_to_device``: this tensor on ``device``, prepared as a parameter
    being loaded: a tracked tensor comes back detached, a new leaf with the same require-grad
    flag (no graph behind it); an untracked one as itself.

    >>> import ember
    >>> w = ember.tensor([1.0, 2.0]).require_grad()
    >>> p = w.load_to_device("cpu")
    >>> p.is_leaf, p.is_require_grad(), p is w
    (True, True, False)
    >>> (w * 2).load_to_device("cpu").is_require_grad()  # a non-leaf does not require grad
    False
    """
    target = _check_device(device, "load_to_device")
    if self._node is None:
        return self if target is self._device else self.to_device(target)
    if target is self._device:
        out = self.detach()
    else:
        out = wrap(transfer(self._data, self._dtype, self._device, target), self._dtype, self._ad)
    return out.require_grad() if self.is_require_grad() else out


@tensor_method
def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None):
    """PyTorch's ``to``: ``t.to(dtype)`` casts (as ``cast``), ``t.to("cpu")`` moves (as
    ``to_device``), ``t.to(other)`` takes ``other``'s dtype; a device and a dtype may both be
    given, positionally or by keyword, and PyTorch's ``non_blocking`` and ``copy`` may follow
    them positionally or by keyword. ``non_blocking`` changes nothing (every transfer is
    synchronous); ``copy=True`` returns a new tensor object even when nothing changes (values are
    immutable, so it shares the buffer, as ``clone``). ``memory_format`` must be None.

    >>> import ember
    >>> t = ember.tensor([1.5, 2.5], device="cpu")
    >>> t.to("int64").tolist()
    [1, 2]
    >>> t.to("cpu", ember.float64).dtype
    ember.float64
    >>> t.to(device="cpu", dtype=ember.float32, non_blocking=True) is t
    True
    """
    flags = []
    for a in args:
        if a is True or a is False:
            flags.append(a)
            continue
        if flags:
            raise InvalidParameterError(f"to: {a!r} comes after non_blocking/copy; expected the "
                                        "device and dtype first", "args", a)
        if isinstance(a, Tensor):
            a = a._dtype
        if _is_device(a):
            if device is not None:
                raise InvalidParameterError(f"to: two devices given ({device!r} and {a!r}); "
                                            "expected at most one", "device", a)
            device = a
        else:
            if dtype is not None:
                raise InvalidParameterError(f"to: two dtypes given ({dtype!r} and {a!r}); "
                                            "expected at most one", "dtype", a)
            dtype = a
    if len(flags) > 2:
        raise InvalidParameterError(f"to: {len(flags)} bools given; expected at most "
                                    "non_blocking and copy", "args", args)
    if flags:
        non_blocking = flags[0]
        if len(flags) == 2:
            copy = flags[1]
    for name, v in (("non_blocking", non_blocking), ("copy", copy)):
        if not isinstance(v, bool):
            raise InvalidParameterError(f"to: {name} must be a bool, got {v!r}", name, v)
    if memory_format is not None:
        raise InvalidParameterError(f"to: memory_format {memory_format!r} is not supported; "
                                    "expected None (ember tensors have one layout)",
                                    "memory_format", memory_format)
    if device is not None:
        _check_device(device, "to")
    if dtype is not None:
        dtype = _dtype_arg(dtype, "to")
    out = self if dtype is None else self.cast(dtype)
    if device is not None:
        out = out.to_device(device)
    return out.clone() if copy and out is self else out


@tensor_method
def clone(self):
    """A tensor equal to this one (the same dtype and values), sharing its buffer: tensors are
    immutable, so nothing needs copying. Gradients flow through it as through an identity op
    (Burn's ``Clone``, PyTorch's ``clone``); use ``numpy(copy=True)`` for a private copy.

    >>> import ember
    >>> t = ember.tensor([1.0, 2.0])
    >>> c = t.clone()
    >>> c is t, c.tolist()
    (False, [1.0, 2.0])
    """
    return record(self._data, self._dtype, (self,), _identity_rule, "clone")


@tensor_method
def clone_from(self, source):
    """Rust's ``Clone::clone_from``: rebind this tensor to a clone of ``source`` (any shape and
    dtype); returns None. Only this Python object changes, as with ``inplace``.

    >>> import ember
    >>> t = ember.tensor([1, 2])
    >>> t.clone_from(ember.tensor([[3.0]]))
    >>> t.tolist()
    [[3.0]]
    """
    if not isinstance(source, Tensor):
        raise InvalidParameterError(
            f"clone_from: source must be a Tensor, got {type(source).__name__}", "source", source)
    from .slicing import _rebind  # the rebinding that inplace and __setitem__ use
    _rebind(self, source.clone(), "clone_from")


@tensor_method
def can_mut(self):
    """Burn's ``can_mut``: whether this tensor provably has its buffer to itself, so that an
    in-place write could not be seen by anything else.

    The NumPy backend answers from NumPy's ownership flag and Python's reference count: True
    only when the tensor owns a writable buffer that no view, other tensor, NumPy array the
    user holds, or saved autodiff step refers to; False (conservatively) otherwise, and always
    False where reference counts are unavailable. The torch backend always answers False. ember never writes into a buffer in place,
    so this is a query only.

    >>> import ember
    >>> t = ember.zeros(3, device="cpu")
    >>> t.can_mut()
    True
    >>> view = t[1:]
    >>> t.can_mut()
    False
    """
    return self._device.backend.data_can_mut(self._data)


# -- TensorData ---------------------------------------------------------------------------------

def _dtype_arg(dtype, op):
    return _dt.as_dtype(dtype, op=op)


def _read(data, dtype, op, device=None):
    """A detached tensor of ``data`` (a TensorData, a tensor, lists, numbers or arrays) on
    ``device`` (None: a tensor's own device, else the default device), converted to ``dtype``
    when given, as ``cast`` converts. Never aliases a buffer that someone else could write (a
    tensor's or a TensorData's buffer may be shared)."""
    if isinstance(data, Tensor):
        t = wrap(data._data, data._dtype)
        if device is not None and device is not data._device:
            t = wrap(transfer(data._data, data._dtype, data._device, device), data._dtype)
    elif isinstance(data, TensorData):  # its values are a private read-only copy: share them
        if device is None:
            device = as_device(None, op)
        values = data._values
        t = wrap(values if device is CPU else transfer(values, data.dtype, CPU, device),
                 data.dtype)
    else:
        t = wrap(*_data_from(data, None, op, device))
        if dtype is not None and dtype is not _dt.float32 and t._dtype is _dt.float32 \
                and not hasattr(data, "dtype"):
            # Python floats: read them as float64 so that the conversion loses nothing
            t = wrap(*_data_from(data, _dt.float64, op, device))
        if not isinstance(data, (list, tuple, int, float, complex)) and not _hostbe.is_array(data):
            # other array-likes (a torch tensor, a buffer) may share their memory with us
            t = wrap(t._device.backend.copy(t._data, op), t._dtype)
    if dtype is None or t._dtype is dtype:
        return t
    if t._dtype.kind == "complex" and dtype.kind != "complex":
        raise complex_cast_error(op, t._dtype, dtype, "data")
    return wrap(t._device.backend.cast(t._data, dtype), dtype)


_TOLERANCE = {"float64": (1e-7, 1e-9), "float32": (1e-5, 1e-6), "float16": (1e-3, 1e-3),
              "bfloat16": (1e-2, 1e-2)}


class TensorData:
    """A tensor's values read out of it (Burn's ``TensorData``): a private host (NumPy) copy of
    the values (whatever the tensor's device), their ``shape`` and ``dtype``. Immutable; converting makes a new one.

    ``TensorData(values, shape=None, dtype=None)`` takes what ``ember.tensor`` takes (and a
    TensorData); ``shape`` reshapes flat values (Burn's ``TensorData::new(vec, shape)``).

    >>> import ember
    >>> data = ember.tensor([[1.0, 2.0], [3.0, 4.0]]).to_data()
    >>> data
    TensorData([[1.0, 2.0], [3.0, 4.0]], shape=(2, 2), dtype=float32)
    >>> data.to_list()
    [[1.0, 2.0], [3.0, 4.0]]
    >>> data.assert_eq(ember.TensorData([[1.0, 2.0], [3.0, 4.0]]))
    >>> data.convert("int32")
    TensorData([[1, 2], [3, 4]], shape=(2, 2), dtype=int32)
    """

    __slots__ = ("_values", "dtype")

    def __init__(self, values, shape=None, dtype=None):
        op = "TensorData"
        if dtype is not None:
            dtype = _dtype_arg(dtype, op)
        t = _read(values, dtype, op, CPU)
        arr, dt = t._data, t._dtype
        if isinstance(values, Tensor) and (arr is values._data or values._device.type == "cpu"):
            arr = _hostbe.copy(arr, op)  # a tensor's buffer may be a view of a writable array
        if shape is not None:
            shape = tuple(argfix((shape,), op))
            for s in shape:
                if isinstance(s, bool) or not isinstance(s, int) or s < 0:
                    raise InvalidParameterError(
                        f"{op}: shape {shape} has a size {s!r}; expected ints >= 0", "shape", shape)
            n = 1
            for s in shape:
                n *= s
            size = _hostbe.numel(arr)
            if n != size:
                raise ShapeMismatchError(
                    f"{op}: shape {shape} has {n} elements but the values have {size}",
                    expected=size, actual=shape)
            arr = _hostbe.data_reshape_copy(arr, shape, op=op)
        self._values = _hostbe.readonly(arr)
        self.dtype = dt

    @classmethod
    def _own(cls, arr, dtype):
        """A TensorData around ``arr``, which the caller hands over (no copy)."""
        d = object.__new__(cls)
        d._values = _hostbe.readonly(arr)
        d.dtype = dtype
        return d

    # -- metadata
    @property
    def values(self):
        """The values, a read-only NumPy array.

        >>> import ember
        >>> ember.TensorData([1.5]).values.flags.writeable
        False
        """
        return self._values

    @property
    def shape(self):
        """The sizes of the dims, a tuple.

        >>> import ember
        >>> ember.TensorData([1, 2, 3, 4], shape=(2, 2)).shape
        (2, 2)
        """
        return tuple(self._values.shape)

    @property
    def kind(self):
        """``"float"``, ``"int"``, ``"bool"`` or ``"complex"``."""
        return self.dtype.kind

    @property
    def ndim(self):
        """The number of dims."""
        return self._values.ndim

    rank = ndim

    def num_elements(self):
        """The number of elements (Burn's ``num_elements``).

        >>> import ember
        >>> ember.TensorData([[1, 2, 3]]).num_elements()
        3
        """
        return _hostbe.numel(self._values)

    # -- out
    def to_list(self):
        """The values as nested Python lists (a number for 0-d data).

        >>> import ember
        >>> ember.TensorData([1, 2]).to_list()
        [1, 2]
        """
        return _hostbe.tolist(self._values, "to_list")

    tolist = to_list

    def to_vec(self):
        """The values flattened into one Python list, row-major (Burn's ``to_vec``).

        >>> import ember
        >>> ember.TensorData([[1, 2], [3, 4]]).to_vec()
        [1, 2, 3, 4]
        """
        return _hostbe.data_flat_list(self._values, op="to_vec")

    def numpy(self, copy=False):
        """The values as a NumPy array (read-only unless ``copy=True``).

        >>> import ember
        >>> ember.TensorData([1, 2]).numpy()
        array([1, 2])
        """
        return _hostbe.copy(self._values, "numpy") if copy else self._values

    def __array__(self, dtype=None, copy=None):
        if dtype is not None and self.dtype.kind == "complex":
            _complex_array_dtype(self.dtype, dtype, "TensorData.__array__")
        out = _hostbe.data_array(self._values, dtype, copy)
        if out is None:
            raise InvalidParameterError(
                f"TensorData.__array__: dtype {dtype} needs a copy but copy=False",
                "copy", copy)
        return out

    def convert(self, dtype):
        """The values converted to ``dtype``, as ``Tensor.cast`` converts (floats to ints
        truncate toward zero; numbers to bool test ``!= 0``); itself when already ``dtype``.

        >>> import ember
        >>> ember.TensorData([1.5, -2.5]).convert("int64").to_list()
        [1, -2]
        """
        dtype = _dtype_arg(dtype, "convert")
        if dtype is self.dtype:
            return self
        if self.dtype.kind == "complex" and dtype.kind != "complex":
            raise complex_cast_error("convert", self.dtype, dtype)
        return TensorData._own(_hostbe.cast(self._values, dtype), dtype)

    to_data_as = convert
    convert_dtype = convert

    # -- comparisons
    def _other(self, other, op):
        if isinstance(other, TensorData):
            return other
        if isinstance(other, Tensor):
            return other.to_data()
        try:
            return TensorData(other)
        except (InvalidParameterError, KindError) as exc:
            raise InvalidParameterError(
                f"{op}: other must be a TensorData, a Tensor or tensor-like data: {exc}",
                "other", other) from None

    def assert_eq(self, other, strict=True):
        """Raise AssertionError unless ``other`` has the same shape and values (NaN matches
        NaN); ``strict`` also requires the same dtype, else ``other`` is first converted to
        this dtype (Burn's ``assert_eq``).

        >>> import ember
        >>> ember.TensorData([2.0, 5.0]).assert_eq(ember.TensorData([2, 5]), strict=False)
        """
        other = self._other(other, "assert_eq")
        if strict and other.dtype is not self.dtype:
            raise AssertionError(f"assert_eq: dtype {self.dtype.name} != {other.dtype.name}")
        if self.shape != other.shape:
            raise AssertionError(f"assert_eq: shape {self.shape} != {other.shape}")
        other = other.convert(self.dtype)
        self._report("assert_eq", other, None, None)

    def assert_approx_eq(self, other, tolerance=None):
        """Raise AssertionError unless ``other`` has the same shape and values within
        ``|a - b| <= atol + rtol * |b|`` (NaN matches NaN), comparing in float64.

        ``tolerance``: a number (used as rtol and atol), an ``(rtol, atol)`` pair, or None for
        the looser of the two dtypes' defaults (float64 1e-7/1e-9, float32 1e-5/1e-6, float16
        1e-3, bfloat16 1e-2; ints and bools as float32).

        >>> import ember
        >>> ember.TensorData([1.0, 2.0]).assert_approx_eq([1.000001, 2.0])
        """
        other = self._other(other, "assert_approx_eq")
        if tolerance is None:
            pairs = [_TOLERANCE.get(d.name, _TOLERANCE["float32"])
                     for d in (self.dtype, other.dtype)]
            rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
        elif isinstance(tolerance, (tuple, list)) and len(tolerance) == 2:
            rtol, atol = tolerance
        else:
            rtol = atol = tolerance
        for name, v in (("rtol", rtol), ("atol", atol)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
                raise InvalidParameterError(
                    f"assert_approx_eq: tolerance {tolerance!r} has {name} {v!r}; expected a "
                    "number >= 0 or an (rtol, atol) pair of them", "tolerance", tolerance)
        if self.shape != other.shape:
            raise AssertionError(f"assert_approx_eq: shape {self.shape} != {other.shape}")
        self._report("assert_approx_eq", other, float(rtol), float(atol))

    def _report(self, op, other, rtol, atol):
        bad, count = _hostbe.data_mismatches(self._values, other._values, rtol, atol)
        if count:
            shown = "; ".join(f"at {idx}: {a!r} != {b!r}" for idx, a, b in bad)
            more = f" (first {len(bad)} shown)" if count > len(bad) else ""
            raise AssertionError(f"{op}: {count} of {self.num_elements()} elements differ"
                                 f"{more}: {shown}")

    def __eq__(self, other):
        if not isinstance(other, TensorData):
            return NotImplemented
        return other.dtype is self.dtype and _hostbe.data_equal(self._values, other._values)

    __hash__ = None

    def __repr__(self):
        from .display import format_values
        text = format_values(self._values, indent=len("TensorData("), be=_hostbe)
        return f"TensorData({text}, shape={self.shape}, dtype={self.dtype.name})"

    def __reduce__(self):
        return (_rebuild_data, (_hostbe.copy(self._values, "pickle"), self.dtype.name))


def _rebuild_data(values, dtype_name):
    data, dtype = _unpickled(values, dtype_name, "unpickle TensorData")
    return TensorData._own(data, dtype)


def _unpickled(values, dtype_name, op):
    """(array, dtype) of a pickle's values and dtype name, checked: a pickle can hold anything,
    and an object array or one of another dtype must not pass for ember values."""
    if not isinstance(dtype_name, str):
        raise InvalidParameterError(f"{op}: the pickled dtype is {dtype_name!r}; expected the "
                                    "name of an ember dtype", "dtype", dtype_name)
    dtype = _dt.as_dtype(dtype_name, op=op)
    data = _hostbe.io_unpickled(values, dtype)
    if data is None:
        got = getattr(values, "dtype", None)
        raise KindError(f"{op}: the pickled values are {type(values).__name__}"
                        f"{'' if got is None else f' of dtype {got}'}; expected an array of "
                        f"dtype {dtype.name}")
    return data, dtype


# -- Tensor methods -----------------------------------------------------------------------------

@tensor_method
def to_data(self):
    """The values as a ``TensorData`` (a copy, so it outlives nothing).

    >>> import ember
    >>> ember.tensor([[1, 2]]).to_data().to_list()
    [[1, 2]]
    """
    return TensorData._own(_host_copy(self._data, self._dtype, self._device, "to_data"),
                           self._dtype)


Tensor.into_data = to_data


@tensor_method
def to_data_as(self, dtype):
    """The values converted to ``dtype`` (as ``cast``) as a ``TensorData`` (Burn's
    ``to_data_as``/``to_data_dtype``).

    >>> import ember
    >>> ember.tensor([1.5, 2.5]).to_data_as("int64").to_list()
    [1, 2]
    """
    dtype = _dtype_arg(dtype, "to_data_as")
    if self._dtype.kind == "complex" and dtype.kind != "complex":
        raise complex_cast_error("to_data_as", self._dtype, dtype)
    data = self._device.backend.cast(self._data, dtype)
    return TensorData._own(_host_copy(data, dtype, self._device, "to_data_as"), dtype)


@tensor_method
def to_vec_as(self, dtype=None):
    """The values, converted to ``dtype`` when given, as one flat Python list in row-major
    order (Burn's ``to_vec_as``/``into_vec_as``; ``try_`` variants are these methods).

    >>> import ember
    >>> ember.tensor([[1.5, 2.5]]).to_vec_as("int32")
    [1, 2]
    """
    be = self._device.backend
    if dtype is None:
        return be.data_flat_list(self._data, op="to_vec_as")
    dtype = _dtype_arg(dtype, "to_vec_as")
    if self._dtype.kind == "complex" and dtype.kind != "complex":
        raise complex_cast_error("to_vec_as", self._dtype, dtype)
    return be.data_flat_list(be.cast(self._data, dtype), op="to_vec_as")


Tensor.into_vec_as = to_vec_as
Tensor.to_data_dtype = to_data_as
Tensor.into_data_as = to_data_as
Tensor.into_data_dtype = to_data_as
# Burn's fallible readers return a Result; in Python they are the same methods, which raise
# ember's typed errors (a bad dtype, a tensor of more than one element for into_scalar).
Tensor.try_to_data = Tensor.try_into_data = to_data
Tensor.try_to_data_as = Tensor.try_into_data_as = to_data_as
Tensor.try_to_data_dtype = Tensor.try_into_data_dtype = to_data_as
Tensor.try_to_vec_as = Tensor.try_into_vec_as = to_vec_as


@tensor_method
async def to_data_async(self):
    """Burn's ``to_data_async`` (and ``into_data_async``): an awaitable of ``to_data()``. The
    NumPy backend reads synchronously, so the data is ready when awaited.

    >>> import asyncio, ember
    >>> asyncio.run(ember.tensor([1, 2]).to_data_async()).to_list()
    [1, 2]
    """
    return to_data(self)


Tensor.into_data_async = to_data_async


def check_backend(backend, op, device=None):
    """Raise InvalidParameterError unless ``backend`` names a registered backend, and,
    when ``device`` is given, the backend of that device."""
    if device is not None:
        if backend != device.backend_name:
            raise InvalidParameterError(
                f"{op}: the tensor lives on {device} (the {device.backend_name!r} backend), not "
                f"the {backend!r} backend; expected backend={device.backend_name!r}",
                "backend", backend)
    elif backend not in registry.names():
        raise InvalidParameterError(
            f"{op}: backend {backend!r} is not an ember backend; expected one of "
            + ", ".join(repr(b) for b in registry.names()), "backend", backend)


@tensor_method
def try_into_primitive(self, backend=None):
    """Burn's ``try_into_primitive``: the backend's own array under this tensor, for backend
    extensions: a read-only NumPy view on ``"cpu"`` (values are immutable), the torch tensor
    itself on a torch device (which the caller must not write), no copy. ``backend`` names the
    backend expected (None: the tensor's own); another name raises InvalidParameterError
    (Burn's PrimitiveConversionError).

    >>> import ember
    >>> ember.tensor([1.0, 2.0], device="cpu").try_into_primitive("numpy")
    array([1., 2.], dtype=float32)
    """
    device = self._device
    check_backend(device.backend_name if backend is None else backend, "try_into_primitive",
                  device)
    return device.backend.readonly(self._data)


Tensor.into_primitive = try_into_primitive


# -- pickling -----------------------------------------------------------------------------------

def __reduce__(self):
    device = self._device
    return (_rebuild_tensor,
            (_host_copy(self._data, self._dtype, device, "pickle"), self._dtype.name,
             self._node is not None, self._ad, device.name))


def _rebuild_tensor(values, dtype_name, requires_grad, ad="none", device="cpu"):
    """The tensor of a pickle (``Tensor.__reduce__``), its parts checked first: a pickle can hold
    anything, and an object or mismatched array must not become a tensor. Checks cannot make
    untrusted pickles safe (unpickling runs code); safetensors files are the safe format."""
    op = "unpickle"
    data, dtype = _unpickled(values, dtype_name, op)
    if not isinstance(requires_grad, bool) or ad not in (None, "none", "balanced"):
        raise InvalidParameterError(f"{op}: the pickled autodiff state ({requires_grad!r}, "
                                    f"{ad!r}) is not one ember writes; expected a bool and "
                                    "None, 'none' or 'balanced'", "requires_grad", requires_grad)
    if not isinstance(device, str):
        raise InvalidParameterError(f"{op}: the pickled device is {device!r}; expected a "
                                    "device name", "device", device)
    device = as_device(device, op)
    if device is not CPU:
        data = transfer(data, dtype, CPU, device)
    t = wrap(data, dtype, ad)
    if requires_grad and ad is not None:
        t.require_grad()
    return t


Tensor.__reduce__ = __reduce__
