"""PyTorch's typed-tensor classes (``FloatTensor``, ``LongTensor`` ...) and storages.

``torch.FloatTensor(2, 3)`` makes a float32 tensor of that shape (PyTorch leaves it
uninitialised; ember fills it with zeros), ``torch.FloatTensor([1, 2])`` one of those values,
``torch.FloatTensor()`` an empty one; ``isinstance(x, torch.FloatTensor)`` is true when ``x`` is
an ember.torch tensor of dtype float32 on a CPU device. The classes are not subclasses of
``Tensor`` (nor are PyTorch's); ``x.type(torch.DoubleTensor)`` casts.

A storage (``x.storage()``, ``x.untyped_storage()``, ``torch.FloatStorage([1, 2])``) holds the
tensor's elements in row-major order, one element per tensor element (``x.untyped_storage()``:
their bytes, little-endian). ember's buffers are immutable values, so a storage is a snapshot:
a copy of the values when it was made, read-only (``size()``, ``tolist()``, indexing,
``element_size()``, ``nbytes()``, ``dtype``, ``device``, the dtype conversions); writing into it
raises ``KindError``, and the storage of a view holds the view's elements only (PyTorch's holds
its base's), with ``storage_offset()`` 0.

>>> import ember.torch as torch
>>> x = torch.FloatTensor([1, 2])
>>> isinstance(x, torch.FloatTensor), isinstance(x, torch.LongTensor), x.dtype
(True, False, torch.float32)
>>> s = x.storage()
>>> s.size(), s.tolist(), s.element_size(), type(s) is torch.TypedStorage
(2, [1.0, 2.0], 4, True)
"""


import ember as _e

from .. import dtypes as _dt
from .._tensor import Tensor as _T, transfer, wrap
from ..devices import CPU, get_default_device
from ..errors import DeviceError, DimensionError, InvalidParameterError, KindError
from . import methods as _methods
from ._dtypes import twin
from ._tensor import Size, Tensor, functions, to_torch, torch_function, torch_method

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
           "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
           "TypedStorage", "UntypedStorage", "StorageBase", "Storage", "set_default_tensor_type"]

_NAMES = {"Float": _dt.float32, "Double": _dt.float64, "Half": _dt.float16,
          "BFloat16": _dt.bfloat16, "Long": _dt.int64, "Int": _dt.int32, "Short": _dt.int16,
          "Char": _dt.int8, "Byte": _dt.uint8, "Bool": _dt.bool_,
          "ComplexFloat": _dt.complex64, "ComplexDouble": _dt.complex128}


# -- bytes of a tensor, and a tensor of bytes -----------------------------------------------------

def tensor_bytes(t):
    """The elements of tensor ``t`` as ``bytes`` (row-major, little-endian)."""
    data = t._data if t._device is CPU else transfer(t._data, t._dtype, t._device, CPU)
    return CPU.backend.io_buffer(data)[0].tobytes()


def _is_size(a):
    """Whether ``a`` is an int-like size (a Python or NumPy int, not a bool or a tensor)."""
    return (not isinstance(a, (bool, _T)) and hasattr(type(a), "__index__")
            and getattr(a, "ndim", 0) == 0)


def tensor_of_bytes(buf, dtype, count, op):
    """A 1-d ember.torch tensor of ``count`` elements of ``dtype`` read from the bytes ``buf``,
    on the default device when it is a CPU device, else on ember's CPU."""
    arr = CPU.backend.io_from_buffer(bytearray(buf), dtype, (count,))
    if arr is None:
        raise InvalidParameterError(f"{op}: {len(buf)} bytes do not hold {count} elements of "
                                    f"{dtype.name}", "count", count)
    out = wrap(arr, dtype)
    device = get_default_device()
    if device.type == "cpu" and device is not CPU:
        out = wrap(transfer(out._data, dtype, CPU, device), dtype)
    return to_torch(out)


# -- storages -------------------------------------------------------------------------------------

def _values(data, dtype, op):
    """A 1-d tensor of ``dtype`` for a storage: ``data`` an int (that many zeros), a sequence, or
    None (empty)."""
    if data is None:
        return to_torch(_e.zeros(0, dtype=dtype))
    if isinstance(data, int) and not isinstance(data, bool):
        if data < 0:
            raise InvalidParameterError(f"{op}: size must be >= 0, got {data}", "size", data)
        return to_torch(_e.zeros(data, dtype=dtype))
    if isinstance(data, (list, tuple)):
        return to_torch(_e.tensor(list(data), dtype=dtype)).reshape(-1)
    raise KindError(f"{op}: expected no argument, a size or a sequence, got "
                    f"{type(data).__name__}")


def _index(i, n, what):
    if isinstance(i, bool) or not isinstance(i, int):
        raise KindError(f"{what}: an index must be an int, got {type(i).__name__}")
    if not -n <= i < n:
        raise DimensionError(f"{what}: index {i} out of range for storage of size {n}")
    return i % n


class _Storage:
    """What the storages of this module share: their elements in a 1-d tensor (a snapshot)."""

    __slots__ = ("_values",)

    @property
    def device(self):
        return self._values.device

    @property
    def is_cuda(self):
        return self._values.device.type == "cuda"

    @property
    def is_sparse(self):
        return False

    def size(self):
        return self._values.numel()

    def __len__(self):
        return self.size()

    def element_size(self):
        return self._values.dtype.itemsize

    def nbytes(self):
        return self.size() * self.element_size()

    def tolist(self):
        return self._values.tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __setitem__(self, key, value):
        raise KindError("a storage of ember.torch is a snapshot of a tensor's values (ember's "
                        "buffers are immutable): it cannot be written; update the tensor")

    def is_shared(self):
        return False

    def is_pinned(self):
        return False

    def get_device(self):
        return self._values.get_device()

    def cpu(self):
        return self

    def clone(self):
        out = object.__new__(type(self))
        out._values = self._values
        return out

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()


class StorageBase(_Storage):
    """PyTorch's ``torch.StorageBase``: the base of ``UntypedStorage`` (typed storages are not
    StorageBases, as in PyTorch)."""

    __slots__ = ()


class UntypedStorage(StorageBase):
    """The bytes of a tensor's elements (``x.untyped_storage()``): ``size()`` is the number of
    bytes, an index gives a byte (an int), a slice another storage.

    >>> import ember.torch as torch
    >>> torch.ones(1).untyped_storage().tolist()
    [0, 0, 128, 63]
    """

    __slots__ = ()

    def __init__(self, data=None):
        self._values = _values(data, _dt.uint8, "UntypedStorage")

    @classmethod
    def _of(cls, t):
        out = object.__new__(cls)
        raw = tensor_bytes(t)
        out._values = tensor_of_bytes(raw, _dt.uint8, len(raw), "UntypedStorage")
        return out

    def __getitem__(self, i):
        if isinstance(i, slice):
            out = object.__new__(UntypedStorage)
            out._values = self._values[i]
            return out
        return self._values[_index(i, self.size(), "UntypedStorage")].item()

    def element_size(self):
        return 1

    def type(self):  # noqa: A003
        return "torch.storage.UntypedStorage"

    def untyped(self):
        return self

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return (f"{body}\n[torch.storage.UntypedStorage(device={self.device.type}) of size "
                f"{self.size()}]").lstrip("\n")


class _StorageType(type):
    """The class of ``FloatStorage`` and its siblings: ``isinstance`` by dtype."""

    def __instancecheck__(cls, obj):
        if cls._fixed is None:
            return type.__instancecheck__(cls, obj)
        return type.__instancecheck__(TypedStorage, obj) and obj._values._dtype is cls._fixed

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


class TypedStorage(_Storage, metaclass=_StorageType):
    """A tensor's elements with their dtype (``x.storage()``): ``TypedStorage(size or sequence,
    dtype=...)``; ``FloatStorage([1, 2])`` and the like fix the dtype.

    >>> import ember.torch as torch
    >>> s = torch.LongStorage([3, 4])
    >>> s[1], s.dtype, s.nbytes(), isinstance(s, torch.LongStorage)
    (4, torch.int64, 16, True)
    """

    __slots__ = ()
    _fixed = None  # the dtype of FloatStorage and its siblings

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None):
        op = type(self).__name__
        fixed = type(self)._fixed
        if fixed is not None and dtype is not None:
            raise InvalidParameterError(f"{op}: the keyword argument dtype cannot be given",
                                        "dtype", dtype)
        dtype = fixed or dtype
        if len(args) > 1:
            raise InvalidParameterError(f"{op}: expected no argument, a size or a sequence, got "
                                        f"{len(args)} arguments", "args", args)
        if wrap_storage is not None:
            if args or not isinstance(wrap_storage, UntypedStorage):
                raise KindError(f"{op}: wrap_storage must be an UntypedStorage, given alone")
            from .info import _dtype
            dtype = _dtype(dtype, op)
            n = wrap_storage.size() // dtype.itemsize
            self._values = tensor_of_bytes(tensor_bytes(wrap_storage._values)[:n * dtype.itemsize],
                                           dtype, n, op)
            return
        if dtype is None:
            from .creation import get_default_dtype
            dtype = get_default_dtype()
        self._values = _values(args[0] if args else None, dtype, op)
        if device is not None:
            self._values = self._values.to(device)

    @classmethod
    def _of(cls, t):
        out = object.__new__(TypedStorage)
        out._values = to_torch(wrap(t._data, t._dtype)).reshape(-1)
        return out

    @property
    def dtype(self):
        return self._values.dtype

    def __getitem__(self, i):
        if isinstance(i, slice):
            raise KindError("TypedStorage: slices are only supported in UntypedStorage")
        return self._values[_index(i, self.size(), "TypedStorage")].item()

    def type(self, dtype=None):  # noqa: A003
        """Its class's name (``"torch.FloatStorage"``), or the storage converted to ``dtype``."""
        if dtype is None:
            return f"torch.{_STORAGE_NAMES[self.dtype]}"
        if isinstance(dtype, str):
            name = dtype.rsplit(".", 1)[-1]
            if name not in _STORAGES:
                raise InvalidParameterError(f"type: unknown storage type {dtype!r}", "dtype",
                                            dtype)
            dtype = _STORAGES[name]._fixed
        elif isinstance(dtype, _StorageType):
            dtype = dtype._fixed
        return self._to(dtype)

    def _to(self, dtype):
        out = object.__new__(TypedStorage)
        out._values = self._values.to(dtype)
        return out

    def untyped(self):
        return UntypedStorage._of(self._values)

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return (f"{body}\n[torch.storage.TypedStorage(dtype={self.dtype}, "
                f"device={self.device.type}) of size {self.size()}]").lstrip("\n")


for _short, _dtype in (("bool", _dt.bool_), ("byte", _dt.uint8), ("char", _dt.int8),
                       ("short", _dt.int16), ("int", _dt.int32), ("long", _dt.int64),
                       ("half", _dt.float16), ("bfloat16", _dt.bfloat16), ("float", _dt.float32),
                       ("double", _dt.float64), ("complex_float", _dt.complex64),
                       ("complex_double", _dt.complex128)):
    setattr(TypedStorage, _short, lambda self, _d=_dtype: self._to(_d))

_STORAGES = {}
_STORAGE_NAMES = {}
for _name, _dtype in _NAMES.items():
    _cls = _StorageType(f"{_name}Storage", (TypedStorage,), {"__slots__": (), "_fixed": _dtype,
                                                           "__module__": "ember.torch"})
    _STORAGES[_cls.__name__] = _cls
    _STORAGE_NAMES[_dtype] = _cls.__name__
    functions[_cls.__name__] = _cls
Storage = _STORAGES["FloatStorage"]  # PyTorch's alias
for _cls in (StorageBase, UntypedStorage, TypedStorage):
    _cls.__module__ = "ember.torch"
    functions[_cls.__name__] = _cls
functions["Storage"] = Storage


@torch_method
def storage(self):
    """A ``TypedStorage`` of this tensor's elements (a snapshot; see the module docstring)."""
    return TypedStorage._of(self)


@torch_method
def untyped_storage(self):
    """An ``UntypedStorage`` of the bytes of this tensor's elements (a snapshot)."""
    return UntypedStorage._of(self)


@torch_method
def storage_type(self):
    """The storage class of this tensor's dtype (``FloatStorage`` for float32)."""
    return _STORAGES[_STORAGE_NAMES[self._dtype]]


# -- typed tensor classes -------------------------------------------------------------------------

class _TensorType(type):
    """The class of ``FloatTensor`` and its siblings (PyTorch's ``torch.tensortype``)."""

    def __call__(cls, *args, device=None):
        return to_torch(cls._build(args, device))

    def _build(cls, args, device):
        op = cls.__name__
        dtype = _dt.as_dtype(cls.dtype)
        if device is not None:
            from ..devices import as_device
            device = as_device(device, op)
            if device.type != "cpu":
                raise DeviceError(f"{op}: the legacy constructor expects a CPU device, got "
                                  f"{device}", (device,))
        if len(args) == 1 and isinstance(args[0], _T):
            t = args[0]
            if t._dtype is not dtype:
                raise KindError(f"{op}: expected a tensor of dtype {dtype.name}, got "
                                f"{t._dtype.name}")
            return t if isinstance(t, Tensor) else to_torch(wrap(t._data, t._dtype, t._ad))
        if len(args) == 1 and isinstance(args[0], _Storage):
            values = args[0]._values
            if isinstance(args[0], TypedStorage) and values._dtype is not dtype:
                raise KindError(f"{op}: expected a storage of dtype {dtype.name}, got "
                                f"{values.dtype.name}")
            if isinstance(args[0], UntypedStorage):
                return TypedStorage(wrap_storage=args[0], dtype=dtype)._values
            return wrap(values._data, values._dtype)
        if len(args) == 1 and isinstance(args[0], Size):
            args = tuple(args[0])
        elif len(args) == 1 and not _is_size(args[0]):
            data = args[0]
            return _e.tensor(data, dtype=dtype, device=device)
        for a in args:
            if not _is_size(a):
                raise KindError(f"{op}: expected sizes (ints), a sequence of values, a tensor or "
                                f"a storage, got {type(a).__name__} {a!r}")
            if a < 0:
                raise InvalidParameterError(f"{op}: a size must be >= 0, got {a}", "size", a)
        return _e.zeros(tuple(int(a) for a in args) if args else (0,), dtype=dtype,
                        device=device)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._dtype == cls.dtype and obj._device.type == "cpu"

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


def _typed(name, dtype):
    cls = _TensorType(name, (), {"dtype": twin(dtype), "is_cuda": False, "is_sparse": False,
                                 "__module__": "ember.torch",
                                 "__doc__": f"PyTorch's ``torch.{name}``: tensors of "
                                            f"{dtype.name} on the CPU (see ember/torch/"
                                            "legacy_types.py)."})
    functions[name] = cls
    return cls


FloatTensor = _typed("FloatTensor", _dt.float32)
DoubleTensor = _typed("DoubleTensor", _dt.float64)
HalfTensor = _typed("HalfTensor", _dt.float16)
BFloat16Tensor = _typed("BFloat16Tensor", _dt.bfloat16)
LongTensor = _typed("LongTensor", _dt.int64)
IntTensor = _typed("IntTensor", _dt.int32)
ShortTensor = _typed("ShortTensor", _dt.int16)
CharTensor = _typed("CharTensor", _dt.int8)
ByteTensor = _typed("ByteTensor", _dt.uint8)
BoolTensor = _typed("BoolTensor", _dt.bool_)
_TYPED = {c.__name__: c for c in (FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor,
                                  LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor,
                                  BoolTensor)}

_type_method = _methods.type


@torch_method(name="type")
def _type(self, dtype=None, non_blocking=False, **kwargs):
    """PyTorch's ``type``: the type name with no argument; with a dtype, a type name or a typed
    tensor class (``torch.DoubleTensor``), this tensor cast to it."""
    if isinstance(dtype, _TensorType):
        dtype = dtype.dtype
    return _type_method(self, dtype, non_blocking)


@torch_function
def set_default_tensor_type(t):
    """PyTorch's ``set_default_tensor_type``: the default float dtype from a typed tensor class
    or its name (``torch.DoubleTensor``, ``"torch.DoubleTensor"``); a float type only.

    >>> import ember.torch as torch
    >>> torch.set_default_tensor_type(torch.DoubleTensor); torch.ones(1).dtype
    torch.float64
    >>> torch.set_default_tensor_type("torch.FloatTensor")
    """
    op = "set_default_tensor_type"
    cls = t
    if isinstance(t, str):
        cls = _TYPED.get(t[len("torch."):] if t.startswith("torch.") else None)
        if cls is None:
            raise InvalidParameterError(f"{op}: unknown type name {t!r}; expected one of "
                                        f"{sorted('torch.' + n for n in _TYPED)}", "t", t)
    if not isinstance(cls, _TensorType):
        raise KindError(f"{op}: expected a typed tensor class or its name, got {t!r}")
    if cls.dtype.kind != "float":
        raise KindError(f"{op}: only floating-point types are supported as the default type, "
                        f"got {cls.__name__}")
    from .creation import set_default_dtype
    set_default_dtype(cls.dtype)
