"""DLPack: ember tensors to and from other array libraries without a copy.

``torch.from_dlpack(t)``, ``numpy.from_dlpack(t)`` and ``ember.from_dlpack(x)`` share the buffer.
ember's values never change: the exported buffer is marked read-only (DLPack 1.0), which NumPy
honours; PyTorch has no read-only tensors and gets a view that the caller must not write (as with
``torch.from_numpy`` of a read-only array). A legacy consumer (DLPack < 1.0, which cannot be told
"read-only") and ``copy=True`` get a copy. An imported buffer is held read-only, so ember never
writes into it; its owner still can, and ``from_dlpack(x, copy=True)`` takes a private copy.
A tensor on a torch device exports and imports through torch's own DLPack (torch has no
read-only tensors: a consumer must not write what it shares). Every dtype travels, complex64
and complex128 included (DLPack's kDLComplex). See docs/array-api.md.
"""

from ..devices import CPU, Device, as_device
from ..errors import InvalidParameterError, KindError
from .._tensor import Tensor, tensor_method, transfer, wrap

__all__ = ["from_dlpack"]

_CPU = 1  # DLPack's kDLCPU
_CUDA = 2  # DLPack's kDLCUDA


def _check_copy(copy, op):
    if copy is not None and not isinstance(copy, bool):
        raise InvalidParameterError(f"{op}: copy must be None, True or False, got {copy!r}",
                                    "copy", copy)


@tensor_method
def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack capsule of this tensor's buffer (the consumer's side of ``from_dlpack``).

    >>> import ember, numpy
    >>> t = ember.tensor([1.0, 2.0], device="cpu")
    >>> a = numpy.from_dlpack(t)
    >>> a.tolist(), numpy.shares_memory(a, t.numpy()), a.flags.writeable
    ([1.0, 2.0], True, False)
    """
    _check_copy(copy, "__dlpack__")
    device = self._device
    be = device.backend
    on_cpu = device.type == "cpu" or (stream is not None
                                      and int(be.dlpack_device(self._data)[0]) == 1)
    if stream is not None and stream != -1 and on_cpu:
        raise InvalidParameterError(
            f"__dlpack__: stream must be None on the CPU, got {stream!r}", "stream", stream)
    if max_version is not None and not (isinstance(max_version, tuple) and len(max_version) == 2):
        raise InvalidParameterError(
            f"__dlpack__: max_version must be None or a (major, minor) tuple, got "
            f"{max_version!r}", "max_version", max_version)
    if dl_device is not None:
        own = be.dlpack_device(self._data)
        if tuple(int(v) for v in dl_device) != (int(own[0]), int(own[1])):
            raise BufferError(f"__dlpack__: dl_device {tuple(dl_device)!r} is not available; "
                              f"this tensor's buffer lives on {device}, {tuple(own)!r}")
    if stream == -1 and on_cpu:
        stream = None
    return be.dlpack_export(self._data, stream, max_version, dl_device, copy)


@tensor_method
def __dlpack_device__(self):
    """``(device_type, device_id)`` of the buffer as DLPack names it: ``(1, 0)`` for the CPU
    (``"cpu"`` and ``"torch:cpu"``), ``(2, N)`` for ``"torch:cuda:N"``.

    >>> import ember
    >>> ember.tensor([1.0]).__dlpack_device__()
    (1, 0)
    """
    kind, index = self._device.backend.dlpack_device(self._data)
    return (int(kind), int(index))


def from_dlpack(x, /, *, device=None, copy=None):
    """A tensor of ``x``'s buffer (a NumPy array, a torch tensor, anything with ``__dlpack__``),
    shared without a copy unless ``copy=True`` (or ``device`` is elsewhere); ``copy=False`` is
    the default behaviour.

    ``device`` None: a torch tensor stays on its torch device; another CPU buffer goes to the
    default device when that is a CPU device that can share it (not JAX's; else to ``"cpu"``);
    a CUDA buffer to ``"torch:cuda:N"``.

    >>> import ember, numpy
    >>> a = numpy.arange(3.0)
    >>> t = ember.from_dlpack(a)
    >>> t.tolist(), t.dtype, numpy.shares_memory(a, t.numpy())
    ([0.0, 1.0, 2.0], ember.float64, True)
    """
    _check_copy(copy, "from_dlpack")
    if device is not None:
        device = as_device(device, "from_dlpack")
    if isinstance(x, Tensor):
        if device is not None and device is not x._device:
            if copy is False:
                raise InvalidParameterError(
                    f"from_dlpack: x is on {x._device}, not {device}; moving it needs a copy "
                    "but copy=False", "copy", copy)
            return wrap(transfer(x._data, x._dtype, x._device, device), x._dtype)
        return wrap(x._device.backend.copy(x._data, "from_dlpack"), x._dtype) if copy else x
    if not hasattr(x, "__dlpack__"):
        raise KindError(f"from_dlpack: x must support DLPack (have __dlpack__), got "
                        f"{type(x).__name__}")
    if device is None:
        device = _source_device(x)
    be = device.backend
    try:
        arr = be.dlpack_import(x, copy)
    except BufferError as exc:
        raise InvalidParameterError(f"from_dlpack: the buffer of x cannot be imported: {exc}",
                                    "x", type(x).__name__) from None
    except (TypeError, ValueError, RuntimeError) as exc:
        raise KindError(f"from_dlpack: x cannot be imported: {exc}") from None
    try:
        dtype = be.dtype_of(arr)
    except KindError:
        raise KindError(f"from_dlpack: x has dtype {arr.dtype}, which ember has no dtype for")
    return wrap(arr, dtype)


def _source_device(x):
    """The ember Device a DLPack producer's buffer goes to when no device is asked for."""
    if type(x).__module__.split(".")[0] == "torch" and hasattr(x, "device"):
        return as_device(Device(x.device), "from_dlpack")  # a torch tensor: its torch device
    try:
        kind, index = x.__dlpack_device__()
    except (AttributeError, TypeError, ValueError):
        kind, index = _CPU, 0
    if int(kind) == _CUDA:
        return as_device(f"torch:cuda:{int(index)}", "from_dlpack")
    default = as_device(None, "from_dlpack")
    # a library without memory layout (JAX) would hold a copy: the buffer goes to "cpu" then
    return default if default.type == "cpu" and default.backend.has_layout else CPU
