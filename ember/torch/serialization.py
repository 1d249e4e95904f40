"""``torch.save`` and ``torch.load`` on ember, in PyTorch's own file format.

``save(obj, f)`` writes the zip archive ``torch.save`` writes (``archive/data.pkl``: the object
pickled with protocol 2, each tensor as ``torch._utils._rebuild_tensor_v2`` of a storage
persisted by id; ``archive/data/<key>``: each storage's little-endian bytes), so
``torch.load(f, weights_only=True)`` reads it, and ``load(f)`` reads the files of
``torch.save``. Neither imports torch.

``load`` with ``weights_only=True`` (the default, as in PyTorch) runs no code from the file: its
pickle is read by ember's own interpreter, which rebuilds only tensors and parameters, dicts
(``OrderedDict``, ``Counter``), lists, tuples, sets, strs, bytes, numbers, None, dtypes,
``torch.Size`` and ``torch.device``: the globals PyTorch's weights-only unpickler allows, and
the objects ``add_safe_globals`` or a ``safe_globals`` block allow (ember/torch/safe_globals.py:
a whole model, its classes listed). Any other global (``os.system``, a class, a NumPy array's
``numpy.core.multiarray._reconstruct``) raises InvalidParameterError naming it, as PyTorch
refuses it. ``weights_only=False`` unpickles whole objects (modules, NumPy arrays, classes of
your own) with Python's pickle: that runs code the file names, so use it only for files you
trust, as PyTorch warns.

Tensors come back as ``ember.torch`` tensors, a copy of their values (views that shared a
storage no longer share it); a tensor or a parameter saved with ``requires_grad`` requires grad.

>>> import io, ember.torch as torch
>>> buf = io.BytesIO()
>>> torch.save({"w": torch.tensor([[1.0, 2.0]]), "step": 3}, buf)
>>> _ = buf.seek(0)
>>> state = torch.load(buf)
>>> state["w"].tolist(), state["step"]
([[1.0, 2.0]], 3)
"""

import collections
import io
import math
import os
import pickle
import struct
import tempfile
import warnings
from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING

import numpy as np

from .. import dtypes as _dt
from .._tensor import Tensor as _Tensor, transfer, wrap
from ..devices import CPU, Device, as_device, get_default_device
from ..errors import DeviceError, EmberError, InvalidParameterError, KindError
from ..io import checkpoint as _checkpoint
from ..io.torch_zip import ZIP_MAGIC, ArchiveReader, opened, save_archive
from ..shapes import MAX_RANK
from ._dtypes import TWINS, TorchDType
from ._tensor import Size, to_torch
from .safe_globals import (add_safe_globals, allowed as _allowed, clear_safe_globals,  # noqa: F401
                           get_safe_globals, safe_globals)

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "safe_globals"]

_host = CPU.backend

# PyTorch's storage classes and dtypes (by their names in a pickle) and ember's dtypes
_STORAGES = {
    "DoubleStorage": _dt.float64, "FloatStorage": _dt.float32, "HalfStorage": _dt.float16,
    "BFloat16Storage": _dt.bfloat16, "LongStorage": _dt.int64, "IntStorage": _dt.int32,
    "ShortStorage": _dt.int16, "CharStorage": _dt.int8, "ByteStorage": _dt.uint8,
    "BoolStorage": _dt.bool_, "ComplexFloatStorage": _dt.complex64,
    "ComplexDoubleStorage": _dt.complex128,
}
_STORAGE_OF = {dtype: name for name, dtype in _STORAGES.items()}
_DTYPES = {d.name: d for d in (*_dt.ALL, _dt.complex64, _dt.complex128)}
_DTYPES.update({"float": _dt.float32, "double": _dt.float64, "half": _dt.float16,
                "long": _dt.int64, "int": _dt.int32, "short": _dt.int16,
                "cfloat": _dt.complex64, "cdouble": _dt.complex128})
# PyTorch's dtypes that ember has no dtype for: a file using one is valid, ember refuses it
_FOREIGN = {"complex32", "chalf", "quint8", "qint8", "qint32", "quint4x2", "quint2x4",
            "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
            "float8_e8m0fnu", "float4_e2m1fn_x2", "bits8", "bits16", "bits1x8", "bits2x4",
            "bits4x2", *(f"uint{n}" for n in range(1, 8)), *(f"int{n}" for n in range(1, 8)),
            "QUInt8Storage", "QInt8Storage", "QInt32Storage", "QUInt4x2Storage",
            "QUInt2x4Storage"}
_MAX_NESTING = 1000  # containers within containers in a loaded object (pickle writes no deeper)
# the bytes a load's tensors may take beyond the file's size: a tensor can repeat its storage's
# elements (stride 0: an expanded tensor), and one storage can back many tensors
_MAX_REPEAT = 1 << 30
_MAX_BYTES = 2 ** 63 - 1
_LEGACY_MAGIC = b"\x8a\x0a" + (0x1950A86A20F9469CFC6C).to_bytes(10, "little")
_HOLDS = ("weights_only=True loads tensors, dicts (OrderedDict, Counter), lists, tuples, sets, "
          "strs, bytes, numbers, None, dtypes, torch.Size and torch.device; load a file you "
          "trust with weights_only=False to unpickle other objects (that runs code the file "
          "names)")


class _Global:
    """A global of torch that ``save`` writes by name (torch need not be importable)."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle asks reduce functions to be callable; never called
        raise InvalidParameterError(f"{self.module}.{self.name} is a name in a PyTorch "
                                    "checkpoint, not a function", "global", self.name)


_REBUILD_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_V3 = _Global("torch._utils", "_rebuild_tensor_v3")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_TORCH_SIZE = _Global("torch", "Size")
_TORCH_DEVICE = _Global("torch", "device")
_UNTYPED = _Global("torch.storage", "UntypedStorage")
_STORAGE_GLOBALS = {dtype: _Global("torch", name) for dtype, name in _STORAGE_OF.items()}


class _PlainTensor:
    """The data of a Parameter, pickled as a plain tensor inside ``_rebuild_parameter``."""
    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor


def _parameter_type():
    from .nn.parameter import Parameter  # ember.torch.nn imports this module's package first
    return Parameter


class _SavedStorage:
    __slots__ = ("pid",)

    def __init__(self, pid):
        self.pid = pid


def _location(device):
    """PyTorch's location tag of an ember device: ``"cpu"``, ``"cuda:N"`` or ``"mps"``; an
    Array API library's device (``xp:<library>``) saves as ``"cpu"``, as its data is written."""
    if device.type == "cuda":
        return f"cuda:{device.index or 0}"
    return "cpu" if device.backend_name == "xp" else device.type


class _Pickler(pickle._Pickler):
    """Python's pickler, writing ember tensors, dtypes, sizes and devices as torch's."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages = []  # (key, host array)

    def persistent_id(self, obj):
        return obj.pid if type(obj) is _SavedStorage else None

    def save(self, obj, save_persistent_id=True):
        cls = type(obj)
        if cls is _Global or cls is _dt.DType or cls is TorchDType:
            self.framer.commit_frame()
            x = self.memo.get(id(obj))
            if x is not None:
                self.write(self.get(x[0]))
                return
            module, name = (obj.module, obj.name) if cls is _Global else ("torch", obj.name)
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
            self.memoize(obj)
            return
        super().save(obj, save_persistent_id)

    def reducer_override(self, obj):
        if isinstance(obj, _Tensor):
            if isinstance(obj, _parameter_type()):  # as PyTorch: a Parameter of its data
                return _REBUILD_PARAMETER, (_PlainTensor(obj), obj.requires_grad,
                                            collections.OrderedDict())
            return self._tensor(obj)
        if type(obj) is _PlainTensor:
            return self._tensor(obj.tensor)
        if isinstance(obj, Size):
            return _TORCH_SIZE, (tuple(obj),)
        if type(obj) is Device:
            return _TORCH_DEVICE, (_location(obj),)
        return NotImplemented

    def _tensor(self, t):
        data, dtype, device = t._data, t._dtype, t._device
        if device is not CPU:
            data = transfer(data, dtype, device, CPU)
        arr = _host.io_buffer(data)[0]
        shape = tuple(t.shape)
        key = str(len(self.storages))
        self.storages.append((key, arr.reshape(-1).view(np.uint8)))
        numel = math.prod(shape)
        strides = tuple(math.prod(shape[i + 1:]) for i in range(len(shape)))
        hooks = collections.OrderedDict()
        location = _location(device)
        if dtype in _STORAGE_GLOBALS:
            storage = _SavedStorage(("storage", _STORAGE_GLOBALS[dtype], key, location, numel))
            return _REBUILD_V2, (storage, 0, shape, strides, t.requires_grad, hooks)
        storage = _SavedStorage(("storage", _UNTYPED, key, location, numel * dtype.itemsize))
        return _REBUILD_V3, (storage, 0, shape, strides, t.requires_grad, hooks, dtype)


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Write ``obj`` to ``f`` (a path, written atomically, or a writable binary file object) in
    PyTorch's zip format, as ``torch.save``; ``torch.load(f, weights_only=True)`` reads it
    when ``obj`` holds only tensors, containers, numbers, strs, dtypes and sizes.

    ``obj`` is pickled (protocol ``pickle_protocol``, 2 as in PyTorch): ember tensors of either
    API and any dtype (their values, contiguous, as torch's tensors), dtypes (as
    ``torch.float32`` ...), ``torch.Size`` and devices become torch's; anything else is
    pickled as Python pickles it (NumPy arrays, modules, your own classes: then only
    ``load(f, weights_only=False)`` reads it back, in PyTorch as in ember). An object that
    cannot be pickled raises InvalidParameterError before anything is written.

    >>> import io, ember.torch as torch
    >>> from ember.torch import nn
    >>> buf = io.BytesIO()
    >>> torch.save(nn.Linear(2, 1).state_dict(), buf)
    >>> _ = buf.seek(0)
    >>> sorted(torch.load(buf))
    ['bias', 'weight']
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise InvalidParameterError("save: pickle_module must be None or the pickle module, got "
                                    f"{pickle_module!r}", "pickle_module", pickle_module)
    if type(pickle_protocol) is not int or not 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise InvalidParameterError(f"save: pickle_protocol must be an int from 2 to "
                                    f"{pickle.HIGHEST_PROTOCOL}, got {pickle_protocol!r}",
                                    "pickle_protocol", pickle_protocol)
    if _use_new_zipfile_serialization is not True:
        raise InvalidParameterError("save: ember writes only PyTorch's zip format "
                                    "(_use_new_zipfile_serialization=True); PyTorch's legacy "
                                    "format is not written", "_use_new_zipfile_serialization",
                                    _use_new_zipfile_serialization)
    buf = io.BytesIO()
    pickler = _Pickler(buf, pickle_protocol)
    try:
        pickler.dump(obj)
    except RecursionError:
        raise InvalidParameterError("save: obj nests too deeply to be pickled", "obj",
                                    type(obj).__name__) from None
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        raise InvalidParameterError(f"save: obj cannot be pickled ({type(exc).__name__}: {exc})",
                                    "obj", type(obj).__name__) from exc
    records = [("data.pkl", buf.getbuffer())]
    if not _disable_byteorder_record:
        records.append(("byteorder", b"little"))
    records += [(f"data/{key}", data) for key, data in pickler.storages]
    save_archive(f, records, "save")


# -- loading ------------------------------------------------------------------------------------

class _StorageType:
    """What a storage class of a pickle (``torch.FloatStorage``, ``torch.UntypedStorage``)
    stands for: the dtype of its elements (None: untyped bytes)."""

    __slots__ = ("dtype", "name")

    def __init__(self, dtype, name):
        self.dtype, self.name = dtype, name


class _Storage:
    """A storage of the file: record ``data/<key>`` of ``numel`` elements of ``dtype`` (None:
    bytes), to be placed on ``device``."""

    __slots__ = ("dtype", "key", "numel", "device")

    def __init__(self, dtype, key, numel, device):
        self.dtype, self.key, self.numel, self.device = dtype, key, numel, device


class _MovableStorage:
    """What a callable ``map_location`` receives for a storage, as PyTorch passes its CPU
    storage: ``cpu()``, ``cuda(device=None)`` and ``to(device)`` say where it goes."""

    __slots__ = ("location",)

    def __init__(self, location="cpu"):
        self.location = location

    @property
    def device(self):
        return self.location

    def cpu(self):
        return _MovableStorage("cpu")

    def cuda(self, device=None, non_blocking=False):
        if device is None:
            return _MovableStorage("cuda")
        if isinstance(device, int) and not isinstance(device, bool):
            return _MovableStorage(f"cuda:{device}")
        return _MovableStorage(device)

    def to(self, device, non_blocking=False):
        return _MovableStorage(device)


def _natural(v):
    return type(v) is int and v >= 0


class _Placement:
    """Where the tensors of each saved location go, as ``map_location`` says."""

    def __init__(self, map_location):
        m = map_location
        ok = m is None or isinstance(m, (str, Device)) or callable(m) or (
            isinstance(m, dict) and all(isinstance(k, str) and isinstance(v, (str, Device))
                                        for k, v in m.items()))
        if not ok:
            raise InvalidParameterError(
                f"load: map_location must be None, a device (a str such as 'cpu' or 'cuda:0', "
                f"or a device), a dict of location -> device, or a callable (storage, location),"
                f" got {type(m).__name__} {m!r}", "map_location", m)
        self.map_location = m
        self.cache = {}

    def device(self, location):
        out = self.cache.get(location)
        if out is None:
            out = self.cache[location] = self._device(location)
        return out

    def _device(self, location):
        m = self.map_location
        target = location
        if isinstance(m, (str, Device)):
            target = m
        elif isinstance(m, dict):
            target = m.get(location, location)
        elif m is not None:
            moved = m(_MovableStorage(), location)
            if moved is None:
                target = location
            elif type(moved) is _MovableStorage:
                target = moved.location
            else:
                raise InvalidParameterError(
                    f"load: map_location returned {type(moved).__name__} {moved!r} for location "
                    f"{location!r}; ember's map_location callables must return the storage they "
                    "got (or storage.cpu(), storage.cuda(i), storage.to(device)) or None",
                    "map_location", m)
        return _device_of(target, location)


def _device_of(target, location):
    """The ember device of PyTorch's location ``target`` (a str or a device); PyTorch's
    ``"cpu"`` (``torch.device("cpu")`` too) is the default device when that is a CPU device or
    an Array API library's (whose tensors save as ``"cpu"``), else ember's ``"cpu"``."""
    if isinstance(target, Device) and target is not CPU:
        return as_device(target, "load", "map_location")
    if target is CPU:
        target = "cpu"
    if not isinstance(target, str):
        raise InvalidParameterError(f"load: {target!r} is not a device (for location "
                                    f"{location!r})", "map_location", target)
    if target.strip().lower() in ("cpu", "cpu:0"):
        default = get_default_device()
        return default if default.type == "cpu" or default.backend_name == "xp" else CPU
    try:
        return as_device(target, "load", "map_location")
    except InvalidParameterError:
        raise InvalidParameterError(
            f"load: the file's tensors saved on {location!r} would go to {target!r}, which is "
            "not a device: expected 'cpu', 'cuda', 'cuda:N', 'mps' or an ember device name; "
            "pass map_location to place them", "map_location", target) from None
    except DeviceError:
        raise DeviceError(f"load: the file's tensors saved on {location!r} would go to "
                          f"{target!r}, which this machine does not have; pass "
                          "map_location='cpu' (or another device) to load them elsewhere",
                          ()) from None


class _Loader:
    """What one load needs: the archive, the placement of storages, the storages' bytes, and
    the globals a pickle may name (``globals``: ``(module, name)`` -> value)."""

    def __init__(self, reader, placement, big_endian):
        self.reader = reader
        self.placement = placement
        self.big_endian = big_endian
        self.bytes = {}  # storage key -> its bytes
        self.budget = reader.file_size + _MAX_REPEAT  # bytes the tensors may still take
        self.globals = {
            ("collections", "OrderedDict"): _ordered_dict,
            ("collections", "Counter"): _counter,
            ("builtins", "set"): _set,
            ("builtins", "frozenset"): _frozenset,
            ("builtins", "complex"): _complex,
            ("builtins", "bytearray"): _bytearray,
            ("_codecs", "encode"): _encode,
            ("torch", "Size"): _size,
            ("torch", "device"): _device,
            ("torch", "Tensor"): _TENSOR,
            ("torch.nn.parameter", "Parameter"): self.parameter,
            ("torch._utils", "_rebuild_tensor"): self.rebuild_tensor,
            ("torch._utils", "_rebuild_tensor_v2"): self.rebuild_tensor_v2,
            ("torch._utils", "_rebuild_tensor_v3"): self.rebuild_tensor_v3,
            ("torch._utils", "_rebuild_parameter"): self.rebuild_parameter,
            ("torch._utils", "_rebuild_parameter_with_state"): self.rebuild_parameter_with_state,
            ("torch._tensor", "_rebuild_from_type_v2"): self.rebuild_from_type_v2,
            ("torch.storage", "UntypedStorage"): _StorageType(None, "UntypedStorage"),
        }
        for name, dtype in _STORAGES.items():
            self.globals["torch", name] = _StorageType(dtype, name)
        for name, dtype in _DTYPES.items():
            self.globals["torch", name] = TWINS[dtype]  # torch.float32 loads as ember.torch's
        # what add_safe_globals / safe_globals allowed; its classes are rebuilt as pickle does
        safe = _allowed()
        self.globals.update(safe)
        self.classes = {id(v): v for v in safe.values() if isinstance(v, type)}
        # the objects in the table, by id (each bound method is made once, here)
        self.callables = {id(v): v for v in self.globals.values() if callable(v)}
        self.rebuilders = {id(self.globals["torch._utils", name]) for name in (
            "_rebuild_tensor", "_rebuild_tensor_v2", "_rebuild_tensor_v3", "_rebuild_parameter",
            "_rebuild_parameter_with_state")}
        self.types = (_TENSOR, self.globals["torch.nn.parameter", "Parameter"])

    def bad(self, reason):
        return self.reader.bad(reason)

    def find(self, module, name, trusted=False):
        """The value of global ``module.name``; an error naming it where it is not allowed
        (``trusted``: None for a global outside torch, which Python's pickle looks up)."""
        if trusted and module != "torch" and not module.startswith("torch."):
            return None  # Python's own classes and functions, not ember's safe stand-ins
        value = self.globals.get((module, name))
        if value is not None:
            return value
        full = f"{module}.{name}"
        if module == "torch" and name in _FOREIGN:
            raise KindError(f"load: {self.reader.where} holds {full}, which ember has no dtype "
                            f"for; expected tensors of "
                            f"{', '.join(sorted(d.name for d in _STORAGE_OF))}, uint16, uint32 "
                            "or uint64")
        if module == "torch" or module.startswith("torch."):
            raise InvalidParameterError(
                f"load: {self.reader.where} names {full}, a PyTorch object that ember does not "
                "rebuild; save tensors and containers of them (a model's state_dict()) instead",
                "f", full)
        hint = (" (a NumPy array: PyTorch's weights-only loading refuses them too)"
                if module.split(".")[0] == "numpy" else "")
        raise InvalidParameterError(
            f"load: {self.reader.where} names the global {full}{hint}, which weights_only=True "
            f"loading refuses (unpickling it could run code); {_HOLDS}", "f", full)

    # -- storages and tensors --

    def persistent_load(self, pid):
        if type(pid) is not tuple or len(pid) != 5:
            raise self.bad(f"a persistent id is {_short(pid)}; expected ('storage', "
                           "storage type, key, location, numel)")
        kind, stype, key, location, numel = pid
        if isinstance(kind, bytes):
            kind = kind.decode("ascii", "replace")
        if kind != "storage" or type(stype) is not _StorageType or type(key) is not str or \
                type(location) is not str or not _natural(numel):
            raise self.bad(f"a persistent id is {_short(pid)}; expected ('storage', a storage "
                           "type, a str key, a str location, an int numel >= 0)")
        name = f"data/{key}"
        itemsize = 1 if stype.dtype is None else stype.dtype.itemsize
        if not self.reader.has(name):
            raise self.bad(f"storage {key!r} has no record {name!r}")
        if self.reader.size(name) != numel * itemsize:
            raise self.bad(f"storage {key!r} of {numel} {stype.name} elements needs "
                           f"{numel * itemsize} bytes; its record holds "
                           f"{self.reader.size(name)}")
        return _Storage(stype.dtype, key, numel, self.placement.device(location))

    def _storage_bytes(self, key):
        data = self.bytes.get(key)
        if data is None:
            data = self.bytes[key] = np.frombuffer(self.reader.read(f"data/{key}"), np.uint8)
        return data

    def tensor(self, storage, offset, size, stride, dtype, requires_grad):
        if type(storage) is not _Storage:
            raise self.bad(f"a tensor's storage is {_short(storage)}; expected a storage of the "
                           "file")
        if isinstance(size, (tuple, list)):
            size = tuple(size)
        if isinstance(stride, (tuple, list)):
            stride = tuple(stride)
        if not _natural(offset) or type(size) is not tuple or type(stride) is not tuple or \
                not all(map(_natural, size)) or not all(map(_natural, stride)) or \
                len(size) != len(stride) or type(requires_grad) is not bool:
            raise self.bad(f"a tensor has storage offset {_short(offset)}, size {_short(size)}, "
                           f"stride {_short(stride)}, requires_grad {_short(requires_grad)}; "
                           "expected ints >= 0, as many strides as sizes, and a bool")
        if len(size) > MAX_RANK:
            raise self.bad(f"a tensor has {len(size)} dims; ember's tensors have at most "
                           f"{MAX_RANK}")
        itemsize = dtype.itemsize
        numel = storage.numel
        if storage.dtype is None:  # bytes, read as elements of dtype
            if numel % itemsize:
                raise self.bad(f"storage {storage.key!r} holds {numel} bytes, not a whole number "
                               f"of {dtype.name} elements")
            numel //= itemsize
        elif storage.dtype is not dtype:
            raise self.bad(f"a {dtype.name} tensor is stored in a {storage.dtype.name} storage")
        count = math.prod(size)
        if math.prod(s or 1 for s in size) * itemsize > _MAX_BYTES:
            raise self.bad(f"a tensor of size {size} is too large (more than 2**63 - 1 bytes)")
        if count:
            last = offset + sum((s - 1) * st for s, st in zip(size, stride))
            if last >= numel:
                raise self.bad(f"a tensor of size {size}, stride {stride} and storage offset "
                               f"{offset} reaches element {last} of storage {storage.key!r}, "
                               f"which has {numel}")
            if count * itemsize > self.budget:
                raise self.bad(
                    f"a tensor of size {size} takes {count * itemsize} bytes, which with the "
                    "tensors before it is more than the file's size plus "
                    f"{_MAX_REPEAT} bytes (for tensors that repeat their storage's elements)")
            self.budget -= count * itemsize
            elems = self._storage_bytes(storage.key).view(np.dtype((np.void, itemsize)))
            view = np.lib.stride_tricks.as_strided(
                elems[offset:], shape=size, strides=tuple(s * itemsize for s in stride),
                writeable=False)
            flat = np.array(view).reshape(-1).view(np.uint8)  # a writable copy
        else:
            flat = np.zeros(0, np.uint8)
        if self.big_endian:
            unit = itemsize // 2 if dtype.kind == "complex" else itemsize
            if unit > 1:
                flat = np.ascontiguousarray(flat.reshape(-1, unit)[:, ::-1]).reshape(-1)
        if dtype is _dt.bool_ and flat.size and flat.max() > 1:
            raise self.bad(f"storage {storage.key!r} of bools holds a byte other than 0 and 1")
        arr = _host.io_from_buffer(flat, dtype, size)
        if storage.device is not CPU:
            arr = transfer(arr, dtype, CPU, storage.device)
        t = to_torch(wrap(arr, dtype))
        if requires_grad:
            t.require_grad()
        return t

    def rebuild_tensor(self, storage, storage_offset, size, stride):
        return self.tensor(storage, storage_offset, size, stride, self._typed(storage), False)

    def rebuild_tensor_v2(self, storage, storage_offset, size, stride, requires_grad,
                          backward_hooks, metadata=None):
        self._no_extras(backward_hooks, metadata)
        return self.tensor(storage, storage_offset, size, stride, self._typed(storage),
                           requires_grad)

    def rebuild_tensor_v3(self, storage, storage_offset, size, stride, requires_grad,
                          backward_hooks, dtype, metadata=None):
        self._no_extras(backward_hooks, metadata)
        if not isinstance(dtype, _dt.DType):
            raise self.bad(f"a tensor's dtype is {_short(dtype)}; expected a dtype")
        return self.tensor(storage, storage_offset, size, stride, _dt.as_dtype(dtype),
                           requires_grad)

    def rebuild_parameter(self, data, requires_grad, backward_hooks):
        self._no_extras(backward_hooks, None)
        if not isinstance(data, _Tensor) or type(requires_grad) is not bool:
            raise self.bad(f"a parameter of {_short(data)} (requires_grad {requires_grad!r}); "
                           "expected a tensor and a bool")
        if requires_grad and data._dtype.kind != "float":
            raise self.bad(f"a parameter of dtype {data._dtype.name} requires grad; only "
                           "floating-point parameters can")
        return _parameter_type()(data.detach(), requires_grad)

    def rebuild_parameter_with_state(self, data, requires_grad, backward_hooks, state):
        if state:
            raise self.bad(f"a parameter carries attributes {_short(state)}, which ember "
                           "tensors do not hold")
        return self.rebuild_parameter(data, requires_grad, backward_hooks)

    def parameter(self, data=None, requires_grad=True):
        if not isinstance(data, _Tensor):
            raise self.bad(f"nn.Parameter of {_short(data)}; expected a tensor")
        return self.rebuild_parameter(data, requires_grad, None)

    def rebuild_from_type_v2(self, func, new_type, args, state):
        if id(func) not in self.rebuilders or type(args) is not tuple or \
                not any(new_type is t for t in self.types):
            raise self.bad(f"a tensor subclass {_short(new_type)} rebuilt by {_short(func)}; "
                           "ember rebuilds plain tensors and parameters")
        if state:
            raise self.bad(f"a tensor carries attributes {_short(state)}, which ember tensors "
                           "do not hold")
        return func(*args)

    def _typed(self, storage):
        if type(storage) is _Storage and storage.dtype is None:
            raise self.bad("a tensor of an untyped storage has no dtype")
        return storage.dtype if type(storage) is _Storage else _dt.uint8

    def _no_extras(self, hooks, metadata):
        if hooks and not isinstance(hooks, dict):
            raise self.bad(f"a tensor's backward hooks are {_short(hooks)}")
        if metadata:
            raise self.bad(f"a tensor carries metadata {_short(metadata)} (a conjugate or "
                           "negative view), which ember does not rebuild")


class _TypeName:
    """``torch.Tensor`` in a pickle: only the type a rebuild names."""

    __slots__ = ()


_TENSOR = _TypeName()


def _short(x):
    text = repr(x)
    return text if len(text) <= 120 else text[:120] + "..."


def _ordered_dict(*args):
    if len(args) > 1 or (args and type(args[0]) not in (list, tuple, dict)):
        raise TypeError("OrderedDict takes a list of pairs")
    return collections.OrderedDict(*args)


def _counter(*args):
    if len(args) > 1 or (args and type(args[0]) not in (list, tuple, dict)):
        raise TypeError("Counter takes a dict")
    return collections.Counter(*args)


def _items(args, what):
    if len(args) > 1 or (args and type(args[0]) not in (list, tuple)):
        raise TypeError(f"{what} takes a list")
    return args[0] if args else ()


def _set(*args):
    return set(_items(args, "set"))


def _frozenset(*args):
    return frozenset(_items(args, "frozenset"))


def _complex(real=0.0, imag=0.0):
    if not all(type(v) in (int, float) for v in (real, imag)):
        raise TypeError("complex takes two numbers")
    return complex(real, imag)


def _bytearray(*args):
    if not args:
        return bytearray()
    if len(args) == 1 and type(args[0]) is bytes:
        return bytearray(args[0])
    if len(args) == 2 and type(args[0]) is str and args[1] in ("latin1", "latin-1"):
        return bytearray(args[0], "latin-1")
    raise TypeError("bytearray takes bytes or a str and 'latin-1'")


def _encode(text, encoding="utf-8"):
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise TypeError("_codecs.encode takes a str and 'latin1'")
    return text.encode("latin-1")


def _size(dims=()):
    if type(dims) not in (tuple, list) or not all(map(_natural, dims)):
        raise TypeError("torch.Size takes a tuple of ints >= 0")
    return Size(dims)


def _device(kind, index=None):
    if type(kind) is not str or not (index is None or _natural(index)):
        raise TypeError("torch.device takes a str and an optional index")
    return Device(kind if index is None else f"{kind}:{index}")


# -- the weights-only unpickler -----------------------------------------------------------------

class _SafeUnpickler:
    """An interpreter of pickle opcodes that calls nothing but the loader's rebuild functions
    and safe constructors, never Python's pickle machinery: a malicious pickle meets a
    typed error, not its code. Iterative (no recursion), nesting bounded by ``_MAX_NESTING``."""

    def __init__(self, data, loader, encoding):
        self.data = data
        self.pos = 0
        self.loader = loader
        self.encoding = encoding
        self.memo = {}
        self.stack = []
        self.marks = []
        self.depth = {}  # id of a container -> how deep it nests
        self.keep = []  # the containers made (their ids stay theirs)

    def bad(self, reason):
        return self.loader.bad(f"data.pkl: {reason}")

    def take(self, n):
        end = self.pos + n
        if end > len(self.data):
            raise self.bad(f"it ends at byte {len(self.data)}, inside an opcode that needs "
                           f"{n} more bytes from byte {self.pos}")
        out = self.data[self.pos:end]
        self.pos = end
        return out

    def uint(self, n):
        return int.from_bytes(self.take(n), "little")

    def line(self):
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            raise self.bad("a global's name has no end of line")
        out = self.data[self.pos:end]
        self.pos = end + 1
        return out.decode("utf-8")

    def pop_mark(self):
        if not self.marks:
            raise self.bad("an opcode needs a MARK that is not there")
        items = self.stack
        self.stack = self.marks.pop()
        return items

    def container(self, obj, items):
        """Record that ``obj`` (a container) holds ``items`` now; too deep raises."""
        d = self.depth.get(id(obj), 1)
        for item in items:
            d = max(d, self.depth.get(id(item), 0) + 1)
        if d > _MAX_NESTING:
            raise self.bad(f"containers nest more than {_MAX_NESTING} deep")
        if id(obj) not in self.depth:
            self.keep.append(obj)
        self.depth[id(obj)] = d
        return obj

    def call(self, func, args):
        if id(func) not in self.loader.callables or self.loader.callables[id(func)] is not func:
            raise self.bad(f"it calls {_short(func)}, which is not a function weights_only=True "
                           "loading allows")
        if type(args) is not tuple:
            raise self.bad(f"the arguments of a call are {_short(args)}; expected a tuple")
        return func(*args)

    def load(self):
        try:
            return self._run()
        except EmberError:
            raise
        except RecursionError:
            raise self.bad("it nests too deeply") from None
        except Exception as exc:  # a malformed pickle: bad operands for an allowed operation
            raise self.bad(f"malformed near byte {self.pos} ({type(exc).__name__}: "
                           f"{_short(str(exc))})") from None

    def _run(self):
        ops = _OPS
        data = self.data
        while True:
            if self.pos >= len(data):
                raise self.bad(f"it ends at byte {len(data)} without a STOP opcode")
            code = data[self.pos]
            self.pos += 1
            op = ops.get(code)
            if op is None:
                name = _OPCODE_NAMES.get(code, hex(code))
                raise self.bad(f"opcode {name} at byte {self.pos - 1} is not one "
                               "weights_only=True loading reads")
            if op(self):
                return self.stack[0]

    # -- the opcodes: each returns True only at STOP --

    def proto(self):
        if self.take(1)[0] > pickle.HIGHEST_PROTOCOL:
            raise self.bad("its pickle protocol is newer than this Python's")

    def frame(self):
        self.take(8)

    def stop(self):
        if len(self.stack) != 1 or self.marks:
            raise self.bad("it stops with a stack that does not hold one object")
        return True

    def mark(self):
        self.marks.append(self.stack)
        self.stack = []

    def pop(self):
        if self.stack:
            self.stack.pop()
        else:
            self.pop_mark()

    def pop_marked(self):
        self.pop_mark()

    def dup(self):
        self.stack.append(self.stack[-1])

    def none(self):
        self.stack.append(None)

    def true(self):
        self.stack.append(True)

    def false(self):
        self.stack.append(False)

    def binint(self):
        self.stack.append(int.from_bytes(self.take(4), "little", signed=True))

    def binint1(self):
        self.stack.append(self.uint(1))

    def binint2(self):
        self.stack.append(self.uint(2))

    def long1(self):
        self.stack.append(int.from_bytes(self.take(self.uint(1)), "little", signed=True))

    def long4(self):
        n = int.from_bytes(self.take(4), "little", signed=True)
        if n < 0:
            raise self.bad("LONG4 has a negative length")
        self.stack.append(int.from_bytes(self.take(n), "little", signed=True))

    def binfloat(self):
        self.stack.append(struct.unpack(">d", self.take(8))[0])

    def _unicode(self, width):
        self.stack.append(str(self.take(self.uint(width)), "utf-8", "surrogatepass"))

    def _string(self, width):  # a Python 2 str
        raw = self.take(self.uint(width))
        self.stack.append(raw if self.encoding == "bytes" else raw.decode(self.encoding))

    def _bytes(self, width):
        self.stack.append(bytes(self.take(self.uint(width))))

    def bytearray8(self):
        self.stack.append(bytearray(self.take(self.uint(8))))

    def empty_tuple(self):
        self.stack.append(())

    def tuple_marked(self):
        items = self.pop_mark()
        self.stack.append(self.container(tuple(items), items))

    def _tuple(self, n):
        stack = self.stack
        if len(stack) < n:
            raise self.bad("a tuple needs more items than the stack holds")
        items = stack[-n:]
        stack[-n:] = [self.container(tuple(items), items)]

    def empty_list(self):
        self.stack.append(self.container([], ()))

    def list_marked(self):
        items = self.pop_mark()
        self.stack.append(self.container(list(items), items))

    def append(self):
        item = self.stack.pop()
        self._target(list).append(item)
        self.container(self.stack[-1], (item,))

    def appends(self):
        items = self.pop_mark()
        self._target(list).extend(items)
        self.container(self.stack[-1], items)

    def empty_dict(self):
        self.stack.append(self.container({}, ()))

    def dict_marked(self):
        items = self.pop_mark()
        d = self.container({}, ())
        self._setitems(d, items)
        self.stack.append(d)

    def setitem(self):
        value = self.stack.pop()
        key = self.stack.pop()
        self._setitems(self._target(dict), [key, value])

    def setitems(self):
        items = self.pop_mark()
        self._setitems(self._target(dict), items)

    def empty_set(self):
        self.stack.append(self.container(set(), ()))

    def additems(self):
        items = self.pop_mark()
        self._target(set).update(items)
        self.container(self.stack[-1], items)

    def frozenset_marked(self):
        items = self.pop_mark()
        self.stack.append(self.container(frozenset(items), items))

    def global_(self):
        module, name = self.line(), self.line()
        if (module, name) in NAME_MAPPING:  # Python 2 names, as protocol 2 writes them
            module, name = NAME_MAPPING[module, name]
        elif module in IMPORT_MAPPING:
            module = IMPORT_MAPPING[module]
        self.stack.append(self.loader.find(module, name))

    def stack_global(self):
        name = self.stack.pop()
        module = self.stack.pop()
        if type(module) is not str or type(name) is not str:
            raise self.bad("STACK_GLOBAL needs two strs")
        self.stack.append(self.loader.find(module, name))

    def reduce(self):
        args = self.stack.pop()
        self.stack[-1] = self._made(self.call(self.stack[-1], args), args)

    def newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        if self.loader.classes.get(id(cls)) is cls:  # an allowed class: pickle's cls.__new__
            if type(args) is not tuple:
                raise self.bad(f"the arguments of {_short(cls)}.__new__ are {_short(args)}; "
                               "expected a tuple")
            self.stack.append(cls.__new__(cls, *args))
            return
        self.stack.append(self._made(self.call(cls, args), args))

    def build(self):
        state = self.stack.pop()
        self._build(self.stack[-1], state)

    def binpersid(self):
        self.stack.append(self.loader.persistent_load(self.stack.pop()))

    def _get(self, width):
        i = self.uint(width)
        if i not in self.memo:
            raise self.bad(f"it reads memo entry {i}, which was never written")
        self.stack.append(self.memo[i])

    def _put(self, width):
        self.memo[self.uint(width)] = self.stack[-1]

    def memoize(self):
        self.memo[len(self.memo)] = self.stack[-1]

    def _target(self, kind):
        target = self.stack[-1]
        if not isinstance(target, kind) or type(target) not in (
                list, dict, set, collections.OrderedDict, collections.Counter):
            raise self.bad(f"it adds items to a {type(target).__name__}; expected a "
                           f"{kind.__name__}")
        return target

    def _setitems(self, d, items):
        if len(items) % 2:
            raise self.bad("a dict's items are not pairs")
        for i in range(0, len(items), 2):
            d[items[i]] = items[i + 1]
        self.container(d, items)

    def _made(self, result, args):
        """``result`` of a call on ``args``, as deep as they are when it is a container."""
        if isinstance(result, (tuple, list, dict, set, frozenset)):
            return self.container(result, args)
        return result

    def _build(self, inst, state):
        if self.loader.classes.get(id(type(inst))) is type(inst):
            _set_state(inst, state)  # an instance of an allowed class, as pickle sets it
            return
        if type(inst) in (collections.OrderedDict, collections.Counter) and \
                type(state) is dict and all(type(k) is str and not k.startswith("__")
                                            for k in state):
            inst.__dict__.update(state)  # a state dict's _metadata, as PyTorch sets it
            return
        if state is None or state == {}:
            return
        raise self.bad(f"it sets the state of a {type(inst).__name__} to {_short(state)}; "
                       "weights_only=True loading sets attributes of OrderedDicts only")


def _set_state(inst, state):
    """What pickle's BUILD does to ``inst``: its ``__setstate__``, else its ``__dict__`` (and
    slots, from a ``(dict, slots)`` pair) updated."""
    setstate = getattr(inst, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    if state:
        inst.__dict__.update(state)
    for name, value in (slots or {}).items():
        setattr(inst, name, value)


def _opcodes():
    """Opcode byte -> handler of ``_SafeUnpickler``."""
    u, P = _SafeUnpickler, pickle
    table = {
        P.PROTO: u.proto, P.FRAME: u.frame, P.STOP: u.stop, P.MARK: u.mark, P.POP: u.pop,
        P.POP_MARK: u.pop_marked, P.DUP: u.dup, P.NONE: u.none, P.NEWTRUE: u.true,
        P.NEWFALSE: u.false, P.BININT: u.binint, P.BININT1: u.binint1, P.BININT2: u.binint2,
        P.LONG1: u.long1, P.LONG4: u.long4, P.BINFLOAT: u.binfloat,
        P.SHORT_BINUNICODE: lambda self: self._unicode(1),
        P.BINUNICODE: lambda self: self._unicode(4),
        P.BINUNICODE8: lambda self: self._unicode(8),
        P.SHORT_BINSTRING: lambda self: self._string(1),
        P.BINSTRING: lambda self: self._string(4),
        P.SHORT_BINBYTES: lambda self: self._bytes(1), P.BINBYTES: lambda self: self._bytes(4),
        P.BINBYTES8: lambda self: self._bytes(8), P.BYTEARRAY8: u.bytearray8,
        P.EMPTY_TUPLE: u.empty_tuple, P.TUPLE: u.tuple_marked,
        P.TUPLE1: lambda self: self._tuple(1), P.TUPLE2: lambda self: self._tuple(2),
        P.TUPLE3: lambda self: self._tuple(3), P.EMPTY_LIST: u.empty_list,
        P.LIST: u.list_marked, P.APPEND: u.append, P.APPENDS: u.appends,
        P.EMPTY_DICT: u.empty_dict, P.DICT: u.dict_marked, P.SETITEM: u.setitem,
        P.SETITEMS: u.setitems, P.EMPTY_SET: u.empty_set, P.ADDITEMS: u.additems,
        P.FROZENSET: u.frozenset_marked, P.GLOBAL: u.global_, P.STACK_GLOBAL: u.stack_global,
        P.REDUCE: u.reduce, P.NEWOBJ: u.newobj, P.BUILD: u.build, P.BINPERSID: u.binpersid,
        P.BINGET: lambda self: self._get(1), P.LONG_BINGET: lambda self: self._get(4),
        P.BINPUT: lambda self: self._put(1), P.LONG_BINPUT: lambda self: self._put(4),
        P.MEMOIZE: u.memoize,
    }
    return {code[0]: f for code, f in table.items()}


_OPS = _opcodes()
_OPCODE_NAMES = {getattr(pickle, n)[0]: n for n in dir(pickle)
                 if n.isupper() and isinstance(getattr(pickle, n), bytes)
                 and len(getattr(pickle, n)) == 1}


class _TrustedUnpickler(pickle.Unpickler):
    """Python's unpickler (it runs what the file names: trusted files only), with torch's
    tensors, storages and dtypes rebuilt as ember's."""

    def __init__(self, file, loader, encoding):
        super().__init__(file, encoding=encoding)
        self.loader = loader

    def find_class(self, module, name):
        if (module, name) in NAME_MAPPING:
            module, name = NAME_MAPPING[module, name]
        elif module in IMPORT_MAPPING:
            module = IMPORT_MAPPING[module]
        value = self.loader.find(module, name, trusted=True)
        return super().find_class(module, name) if value is None else value

    def persistent_load(self, pid):
        return self.loader.persistent_load(pid)


# -- load ---------------------------------------------------------------------------------------

def _format_of(head):
    """Which kind of file starts with the bytes ``head``."""
    if head.startswith(ZIP_MAGIC):
        return "zip"
    if len(head) >= 9 and head[8:9] == b"{" and int.from_bytes(head[:8], "little") > 1:
        return "ember"
    if head[:1] == b"\x80" and head[2:14] == _LEGACY_MAGIC:
        return "legacy"
    if head[257:262] == b"ustar":
        return "legacy tar"
    return None


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """The object ``torch.save`` (PyTorch's or ember's) wrote to ``f`` (a path or a readable
    binary file object), its tensors as ``ember.torch`` tensors; also reads ``ember.save``'s
    checkpoints. Never imports torch.

    ``weights_only`` (None means True, as in PyTorch, and the environment variables
    ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` / ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` act as there) runs
    no code from the file (see the module docstring); ``weights_only=False`` unpickles any
    object, running code the file names: only for files you trust.
    ``map_location`` places the tensors, as in PyTorch: None (where they
    were saved: PyTorch's ``"cpu"``, and ``torch.device("cpu")``, is ember's default device
    when that is a CPU device, else ember's ``"cpu"``; ``"cuda:N"`` is ``"torch:cuda:N"``),
    a device or device name (``"cpu"``, ``"cuda:0"``, ``"torch:cpu"``, ``torch.device("mps")``),
    a dict from saved locations to devices, or a callable ``(storage, location)`` returning
    the storage, ``storage.cpu()``, ``storage.cuda(i)``, ``storage.to(device)`` or None (where
    it was saved). ``mmap`` (a path only, as in PyTorch) changes nothing: tensors are copied
    into ember's buffers.
    ``pickle_load_args`` takes ``encoding`` (for Python 2 strs, as in PyTorch).

    A damaged file, a record missing, a storage too small for its tensors, a global outside
    what weights-only loading allows, PyTorch's legacy (pre-1.6) format: InvalidParameterError
    naming the file and the reason; a dtype ember lacks (float8, quantized): KindError.

    >>> import io, ember.torch as torch
    >>> buf = io.BytesIO()
    >>> torch.save([torch.arange(6).reshape(2, 3).t(), torch.float16, torch.Size([2])], buf)
    >>> _ = buf.seek(0)
    >>> t, dtype, size = torch.load(buf, map_location="cpu")
    >>> t.tolist(), dtype is torch.float16, size
    ([[0, 3], [1, 4], [2, 5]], True, torch.Size([2]))
    """
    weights_only = _weights_only(weights_only)
    if pickle_module is not None and pickle_module is not pickle:
        raise InvalidParameterError("load: pickle_module must be None or the pickle module, got "
                                    f"{pickle_module!r}", "pickle_module", pickle_module)
    encoding = pickle_load_args.pop("encoding", "utf-8")
    if pickle_load_args or type(encoding) is not str:
        raise InvalidParameterError(f"load: unexpected pickle_load_args {pickle_load_args!r} "
                                    "(ember takes encoding=, a str)", "pickle_load_args",
                                    pickle_load_args)
    if mmap not in (None, False, True):
        raise InvalidParameterError(f"load: mmap must be a bool or None, got {mmap!r}", "mmap",
                                    mmap)
    if mmap and not isinstance(f, (str, os.PathLike)):
        raise InvalidParameterError("load: mmap=True needs f to be a path, as in PyTorch", "f",
                                    type(f).__name__)
    placement = _Placement(map_location)
    with opened(f, "load") as (file, where, path):
        start = file.tell()
        head = file.read(512)
        file.seek(start)
        kind = _format_of(head)
        if kind == "zip":
            return _load_zip(file, where, placement, weights_only, encoding)
        if kind == "ember":
            return _load_ember(file, path, placement)
        if kind is not None:
            raise InvalidParameterError(
                f"load: {where} is in PyTorch's {kind} format (torch.save before PyTorch 1.6, "
                "or _use_new_zipfile_serialization=False), which ember does not read; save it "
                "again with a recent torch.save", "f", where)
        raise InvalidParameterError(
            f"load: {where} is {'empty' if not head else 'not a checkpoint'}: expected the zip "
            "archive torch.save writes (or a file of ember.save)", "f", where)


_TRUE = ("1", "y", "yes", "true")


def _weights_only(weights_only):
    """``load``'s ``weights_only``: None means True, as in PyTorch, unless the environment
    variable ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD`` is true (then False, with a warning);
    ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` true makes it True whatever was passed."""
    if weights_only is not None and type(weights_only) is not bool:
        raise InvalidParameterError(f"load: weights_only must be a bool, got {weights_only!r}",
                                    "weights_only", weights_only)
    force = os.environ.get("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE
    force_no = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE
    if force and force_no:
        raise InvalidParameterError(
            "load: only one of the environment variables TORCH_FORCE_WEIGHTS_ONLY_LOAD and "
            "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD should be set, but both were",
            "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", os.environ["TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD"])
    if force:
        return True
    if weights_only is None:
        if force_no:
            warnings.warn("load: the environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD is "
                          "set and weights_only was not passed, so weights_only=False",
                          UserWarning, stacklevel=3)
            return False
        return True
    return weights_only


def _load_zip(file, where, placement, weights_only, encoding):
    reader = ArchiveReader(file, where)
    if not reader.has("data.pkl"):
        raise reader.bad("it has no data.pkl record")
    order = reader.read("byteorder") if reader.has("byteorder") else b"little"
    if order not in (b"little", b"big"):
        raise reader.bad(f"its byteorder record is {_short(order)}; expected 'little' or 'big'")
    data = reader.read("data.pkl")
    loader = _Loader(reader, placement, order == b"big")
    if weights_only:
        return _SafeUnpickler(data, loader, encoding).load()
    try:
        return _TrustedUnpickler(io.BytesIO(data), loader, encoding).load()
    except EmberError:
        raise
    except Exception as exc:  # a damaged pickle, or one naming what is not importable here
        raise reader.bad(f"data.pkl cannot be unpickled ({type(exc).__name__}: "
                         f"{_short(str(exc))})") from exc


def _load_ember(file, path, placement):
    """A checkpoint of ``ember.save`` (a safetensors file), its tensors placed as PyTorch's
    ``"cpu"`` location would be."""
    device = placement.device("cpu")
    if path is not None:
        return to_torch(_checkpoint.load(path, device))
    fd, tmp = tempfile.mkstemp(suffix=".ckpt")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(file.read())
        return to_torch(_checkpoint.load(tmp, device))
    finally:
        os.unlink(tmp)

