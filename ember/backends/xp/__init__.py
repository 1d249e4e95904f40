"""Any Array API library as an ember device: ``Device("xp:jax")``, ``"xp:array_api_strict"``,
``"xp:dask"``. ``ArrayAPIBackend`` runs the base's defaults on the library's arrays and gives
the few primitives the standard leaves to a library: dtypes, host transfer, allocation errors
(here), and on the host what the standard has no function for (``xp/host.py``). Imported only
when such a device is first used; docs/devices.md lists what each library can and cannot do.

>>> import ember
>>> (ember.ones(3, device="xp:array_api_strict") * 2).tolist()
[2.0, 2.0, 2.0]
"""

import threading

from ... import dtypes as _dtypes
from ...errors import DeviceError, KindError
from ..base import Backend
from ..guard import allocation_error, allocation_guard
from ..numpy.core import quiet as _numpy_quiet
from .host import HostRouted, complex_through_host, through_host
from .libraries import LIBRARIES, installed

name = "xp"
_lock = threading.Lock()
_instances = {}  # ember Device -> ArrayAPIBackend


class ArrayAPIBackend(HostRouted, Backend):
    """The kernels of one Array API library's device: ``xp`` is its namespace, ``Array`` its
    array type; ``host`` is the NumPy backend that computes what the standard lacks."""

    name = "xp"
    writes_in_place = False

    def __init__(self, device, library):
        self.library = library
        self.has_layout = library.has_layout
        self.keeps_subnormals = library.keeps_subnormals
        self.survives_fork = library.survives_fork
        self.xp = xp = library.load()
        self.Array = library.array_type(xp)
        from .. import registry
        self.host = registry.module_of("numpy").for_device(_cpu())
        # what the host's asarray raises for data that is ragged or nested too deep
        self.RaggedError, self.RankError = self.host.RaggedError, self.host.RankError
        self._native = {}
        for dt in _dtypes.ALL + (_dtypes.complex64, _dtypes.complex128):
            found = getattr(xp, dt.name, None) if dt.name not in library.lacks else None
            if found is not None:
                self._native[dt] = found
        self._ember = {library.dtype_key(self.host.xp, v): k for k, v in self._native.items()}
        self._seen = {}  # the library's dtype objects met so far -> ember DType
        self._operators = {}  # ew_operator's kernels
        # the library's own erf, complex, scatter, divide and take_along_axis, or None (the
        # defaults' then)
        self._own = {hook: getattr(library, hook)(xp) for hook in ("erf", "complex", "scatter",
                                                                     "divide", "take_along_axis")}
        for kernel in library.on_host:
            setattr(self, kernel, through_host(kernel).__get__(self))
        for kernel in library.complex_on_host:
            setattr(self, kernel, complex_through_host(kernel, getattr(self, kernel)).__get__(self))
        super().__init__(device)

    def _prepare(self, kernel):
        return self.library.quiet(kernel, _numpy_quiet)

    # -- dtypes ---------------------------------------------------------------------------------

    def native_dtype(self, dtype):
        found = self._native.get(dtype)
        if found is None:
            raise KindError(f"{dtype.name} is not a dtype of device {self.device} (the library "
                            f"{self.library.package} has none); expected one of "
                            + ", ".join(d.name for d in self._native))
        return found

    def dtype_of(self, a):
        try:
            return self._seen[a.dtype]
        except KeyError:
            found = self._ember.get(self.library.dtype_key(self.host.xp, a.dtype))
            if found is None:
                raise KindError(f"dtype {a.dtype} has no ember kind") from None
            self._seen[a.dtype] = found
            return found

    def ember_dtype(self, value):
        return self._ember.get(self.library.dtype_key(self.host.xp, value))

    # -- memory ---------------------------------------------------------------------------------

    def allocation_failed(self, exc, op, shape=None, inputs=()):
        if isinstance(exc, MemoryError) or self.library.out_of_memory(exc):
            return allocation_error(op, shape, "not enough memory", inputs)
        if isinstance(exc, ValueError):  # NumPy's "array is too big" (libraries built on NumPy)
            return self.host.allocation_failed(exc, op, shape, inputs)
        return exc

    def allocates(self, result_shape=None):
        return allocation_guard(self.allocation_failed, (MemoryError, ValueError, RuntimeError))(
            result_shape)

    def asarray(self, data, dtype=None):
        if isinstance(data, self.Array):
            if dtype is not None and self.dtype_of(data).kind == "complex" and dtype.kind != "complex":
                raise TypeError(self.complex_cast_message(dtype))
            return self.xp.asarray(data if dtype is None else self.cast(data, dtype), copy=True)
        arr = self.host.asarray(data, dtype)
        return self.from_host(arr, self.host.dtype_of(arr))

    def cast(self, a, dtype):
        """``a`` as ember ``dtype``. A float becomes an integer narrower than 64 bits through
        int64, so that a value past the narrow type's range wraps as with NumPy and PyTorch
        (-4.0 as uint8 is 252), which the standard leaves undefined (XLA saturates)."""
        source = self.dtype_of(a)
        if source == dtype:
            return a
        if source.kind == "float" and dtype.kind == "int" and dtype.itemsize < 8:
            a = self.xp.astype(a, self.native_dtype(_dtypes.int64))
        return self.xp.astype(a, self.native_dtype(dtype))

    def readonly(self, a):
        """``a`` itself: ember never writes an array it shares."""
        return a

    def copy(self, a, op="copy"):
        return self.xp.asarray(a, copy=True) if self.is_contiguous(a) else self._row_major(a)

    def contiguous(self, a, op="contiguous"):
        """``a`` where the library's layout is row-major (always, where it has none), else a
        row-major copy."""
        return a if self.is_contiguous(a) else self._row_major(a)

    def _row_major(self, a):
        """A row-major copy of ``a`` (the standard cannot ask for one: through the host)."""
        return self.from_host(self.host.contiguous(self.to_host(a)), self.dtype_of(a))

    def is_contiguous(self, a):
        """Whether ``a`` is row-major in memory, where the library's host view can tell (the
        standard has no memory layout: otherwise True)."""
        return self.library.is_contiguous(self.host.xp, a)

    def shares_memory(self, a, b):
        """Whether ``a`` and ``b`` share memory, where the library's host views can tell (the
        standard cannot tell views apart: otherwise only one array shares with itself)."""
        return a is b or self.library.shares_memory(self.host.xp, a, b)

    def layout_strides(self, a):
        view = self.library.host_view(self.host.xp, a)
        return Backend.layout_strides(self, a) if view is None else self.host.layout_strides(view)

    def layout_offset(self, a):
        view = self.library.host_view(self.host.xp, a)
        return 0 if view is None else self.host.layout_offset(view)

    def layout_address(self, a):
        view = self.library.host_view(self.host.xp, a)
        return 0 if view is None else self.host.layout_address(view)

    def data_can_mut(self, a):
        """False: the standard cannot show an array is held only once."""
        return False

    def broadcast_to(self, a, shape, op="broadcast_to"):
        return self.xp.broadcast_to(a, tuple(shape))

    def add(self, a, b):
        return self.xp.add(a, b)

    def to_host(self, a):
        return self.library.to_host(self.host.xp, a)

    def from_host(self, a, dtype):
        native = self.native_dtype(dtype)
        return self.library.from_host(self.host.xp, self.xp, self.host.from_host(a, dtype), native)

    def synchronize(self):
        self.library.synchronize(self.xp)

    # -- distributed buffers: host arrays torch.distributed writes in place -----------------------

    def dist_buffer(self, n, dtype):
        return self.host.dist_buffer(n, dtype)

    def dist_zeros(self, n, dtype):
        return self.host.dist_zeros(n, dtype)

    def dist_copy(self, a):
        return self.host.dist_copy(self.to_host(a))

    def dist_unpack(self, buffer, offset, shape):
        return self.host.dist_unpack(buffer, offset, shape)

    def dist_split(self, buffer, parts):
        return self.host.dist_split(buffer, parts)

    def dist_result(self, a):
        return self._up(a)

    # -- what a library may have of its own -------------------------------------------------------

    def ew_erf(self, a):
        own = self._own["erf"]
        if own is None:
            return HostRouted.ew_erf(self, a)
        dt = self.dtype_of(a)
        wide = self.xp.float32 if dt.itemsize <= 4 else self.xp.float64
        return self.xp.astype(own(self.xp.astype(a, wide)), a.dtype)

    def ew_complex(self, re, im):
        own = self._own["complex"]
        return HostRouted.ew_complex(self, re, im) if own is None else own(re, im)

    def ew_truediv(self, a, b):
        own = self._own["divide"]
        return self.xp.divide(a, b) if own is None else own(a, b)

    def ew_operator(self, kname, dtype):
        """The library's own function for the operators' short path (two arrays of one float or
        integer dtype, or a float array and a Python float: what the defaults compute with it),
        with the library's warnings off as every kernel: no kernel frame between (as
        ``(kernel, kernel, 0)``: see the base's)."""
        found = self._operators.get(kname)
        if found is None:
            xp = self.xp
            fn = {"ew_add": xp.add, "ew_sub": xp.subtract, "ew_mul": xp.multiply,
                  "ew_truediv": self._own["divide"] or xp.divide}[kname]
            found = self._operators[kname] = self._prepare(fn)
        return found, found, 0

    def sort_take(self, x, idx, axis):
        own = self._own["take_along_axis"]
        return self.xp.take_along_axis(x, idx, axis=axis) if own is None else own(x, idx, axis)

    def idx_scatter(self, target, key, values, op):
        own = self._own["scatter"]
        return HostRouted.idx_scatter(self, target, key, values, op) if own is None else \
            own(target, key, values, op)


def _cpu():
    from ...devices import Device
    return Device("cpu")


def for_device(device):
    """The ArrayAPIBackend of the ember Device ``device`` (``xp:<library>``); DeviceError when
    the library is not installed."""
    found = _instances.get(device)
    if found is not None:
        return found
    name = device.name.split(":", 1)[1]
    library = LIBRARIES.get(name)
    if library is None or name not in installed():
        raise DeviceError(f"device {device} is not available: the library {name} is not "
                          "installed (pip install " + name.replace("_", "-") + ")", (device,))
    with _lock:
        found = _instances.get(device)
        if found is None:
            found = _instances[device] = ArrayAPIBackend(device, library)
    return found


def instances():
    """The ArrayAPIBackends made so far, one per library used."""
    return list(_instances.values())


def available_devices():
    """The ``xp:<library>`` devices of the libraries installed here."""
    return [f"xp:{n}" for n in installed()]


def owns(data):
    return any(isinstance(data, b.Array) for b in _instances.values())


def adopt(data):
    """``(array, ember Device)`` of one of the loaded libraries' arrays."""
    for backend in _instances.values():
        if isinstance(data, backend.Array):
            return data, backend.device
    raise TypeError(f"no xp device holds a {type(data).__name__}")


def ember_dtype(value):
    """The ember DType of a loaded library's dtype, or None."""
    for backend in _instances.values():
        found = backend.ember_dtype(value)
        if found is not None:
            return found
    return None
