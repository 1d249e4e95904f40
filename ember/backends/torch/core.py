"""Core torch kernels: conversion in and out, dtype casts, layout and memory queries, the
allocation guard and host transfer."""


import torch

from ... import dtypes as _d
from ...errors import KindError
from ..base.core import complex_cast_message
from ..guard import _PHYSICAL_BYTES, allocation_error, allocation_guard

__all__ = ["Array", "RaggedError", "RankError", "allocates", "allocation_failed", "asarray",
           "cast", "readonly", "copy", "contiguous", "is_contiguous", "shares_memory", "tolist",
           "item", "scalar_array", "broadcast_to", "add", "native_dtype", "dtype_of",
           "ember_dtype", "to_host", "from_host", "move", "synchronize", "layout_strides",
           "layout_offset", "layout_address"]

Array = torch.Tensor

TORCH = {_d.float64: torch.float64, _d.float32: torch.float32, _d.float16: torch.float16,
         _d.bfloat16: torch.bfloat16, _d.int64: torch.int64, _d.int32: torch.int32,
         _d.int16: torch.int16, _d.int8: torch.int8, _d.uint8: torch.uint8,
         _d.uint16: torch.uint16, _d.uint32: torch.uint32, _d.uint64: torch.uint64,
         _d.bool_: torch.bool, _d.complex64: torch.complex64, _d.complex128: torch.complex128}
_EMBER = {v: k for k, v in TORCH.items()}
_devices = {}  # torch.device -> ember Device


def register_device(torch_device, device):
    _devices[torch_device] = device
    if torch_device.type == "cuda":
        _devices[torch.device("cuda")] = _devices.get(torch.device("cuda"), device)


# -- the allocation guard ---------------------------------------------------------------------

_TOO_LARGE = ("can't allocate memory", "out of memory", "too large", "overflow",
              "invalid number of elements", "exceeds")


def allocation_failed(exc, op, shape=None, inputs=()):
    """The typed error naming the op ``op`` for ``exc`` caught around its allocation (torch raises
    RuntimeError, MemoryError or ``torch.OutOfMemoryError``), else ``exc`` itself."""
    if not isinstance(exc, (MemoryError, RuntimeError, ValueError)):
        return exc
    text = str(exc).lower()
    if not isinstance(exc, MemoryError) and not any(m in text for m in _TOO_LARGE):
        return exc
    return allocation_error(op, shape, "not enough memory" if "memory" in text
                            else "more elements or bytes than an array can address", inputs)


# torch raises RuntimeError (and its OutOfMemoryError), MemoryError or ValueError
allocates = allocation_guard(allocation_failed, (MemoryError, RuntimeError, ValueError))


# -- conversion -------------------------------------------------------------------------------

class RaggedError(ValueError):
    """Nested sequences of unequal lengths."""


class RankError(ValueError):
    """Nested sequences deeper than the most dims a tensor can have."""


def _host_array(data):
    """``data`` (nested sequences, numbers, a host array) as a host array, through the NumPy
    backend's ``asarray``, which reads Python data with exactly ember's rules."""
    from ..numpy import core as host
    try:
        return host.asarray(data)
    except host.RaggedError as exc:
        raise RaggedError(str(exc)) from None
    except host.RankError as exc:
        raise RankError(str(exc)) from None


def asarray(data, dtype=None, *, device=None):
    """A tensor on ``device`` from nested sequences, numbers, host arrays or torch tensors
    (always a new buffer); ``dtype`` an ember DType or None."""
    if isinstance(data, torch.Tensor):
        if dtype is not None and data.is_complex() and dtype.kind != "complex":
            raise TypeError(complex_cast_message(dtype))
        out = data.to(device=device, dtype=TORCH[dtype] if dtype is not None else None, copy=True)
        if out.dtype not in _EMBER:
            raise TypeError(f"values of type {out.dtype} are not numbers")
        return out
    from ..numpy import core as host
    arr = _host_array(data)
    src = host.dtype_of(arr)
    if dtype is not None and dtype is not src:
        if src.kind == "complex" and dtype.kind != "complex":
            raise TypeError(complex_cast_message(dtype))
        out = cast(_from_host(arr, src, device), dtype)
    else:
        out = _from_host(arr, src, device)  # arr is a new buffer: no view
    return out






def cast(a, dtype):
    """``a`` with elements of ember ``dtype``; ``a`` itself when it already has it."""
    target = TORCH[dtype]
    return a if a.dtype == target else a.to(target)


def readonly(a):
    """``a`` itself: torch has no read-only buffers; ember never writes a shared one."""
    return a


def copy(a, op="copy"):
    """A fresh contiguous copy (``op``: the op named if it cannot be allocated)."""
    try:
        return a.clone(memory_format=torch.contiguous_format)
    except (MemoryError, RuntimeError) as exc:
        raise allocation_failed(exc, op, tuple(a.shape)) from None


def _check_bytes(a, per_item, op, what):
    """Raise the allocation guard's error naming the op ``op`` unless ``a.numel()`` items of
    ``per_item`` bytes each fit in the machine's memory: checked before a CPU allocation, which
    torch would otherwise attempt (terabytes of an expanded view) instead of failing at once as
    NumPy does."""
    if a.numel() * per_item > _PHYSICAL_BYTES:
        raise allocation_error(op, tuple(a.shape),
                               f"{a.numel()} {what} need more than the machine's "
                               f"{_PHYSICAL_BYTES} bytes of memory")


def contiguous(a, op="contiguous"):
    """``a`` if it is contiguous, else a contiguous copy (``op``: the op named if it cannot be
    allocated)."""
    if a.is_contiguous():
        return a
    if a.device.type == "cpu":
        _check_bytes(a, a.element_size(), op, "elements")
    try:
        return a.contiguous()
    except (MemoryError, RuntimeError) as exc:
        raise allocation_failed(exc, op, tuple(a.shape)) from None


def is_contiguous(a):
    return a.is_contiguous()


def shares_memory(a, b):
    if a.device != b.device or a.numel() == 0 or b.numel() == 0:
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    return sa.data_ptr() == sb.data_ptr()


def tolist(a, op="tolist"):
    """``a``'s elements as nested Python lists (``op``: the op named if they cannot fit)."""
    _check_bytes(a, 8, op, "Python objects")  # a list holds at least one pointer per element
    return a.tolist()


def item(a):
    return a.item()


def scalar_array(value, dtype, *, device=None):
    """A 0-d tensor holding ``value`` as ember ``dtype``."""
    return torch.tensor(value, dtype=TORCH[dtype], device=device)



def broadcast_to(a, shape, op="broadcast_to"):
    """A broadcast view (torch's ``expand``; ``op`` is the NumPy backend's, which can fail)."""
    return a.expand(shape)


add = torch.add


# -- the backend protocol: dtypes, devices, host transfer ---------------------------------------

def dtype_of(a):
    """The ember DType of the tensor ``a``."""
    found = _EMBER.get(a.dtype)
    if found is None:
        raise KindError(f"dtype {a.dtype} has no ember kind")
    return found


def native_dtype(dtype):
    """torch's dtype for the ember DType ``dtype``."""
    return TORCH[dtype]


def ember_dtype(value):
    """The ember DType of a ``torch.dtype``, or None."""
    return _EMBER.get(value) if isinstance(value, torch.dtype) else None


def owns(data):
    return isinstance(data, torch.Tensor)


def adopt(data):
    """``(tensor, ember Device)`` of a torch tensor."""
    device = _devices.get(data.device)
    if device is None:
        from ...devices import Device
        device = Device(data.device)
        device.backend  # noqa: B018 - registers the device
        device = _devices[data.device]
    return data, device




def to_host(a):
    """``a`` as a host (NumPy) array: the same memory for a CPU tensor; bfloat16 as its uint16
    bits, which the NumPy backend views as bfloat16 again."""
    a = a.detach()
    if a.device.type != "cpu":
        a = a.cpu()
    if a.dtype == torch.bfloat16:
        a = a.view(torch.uint16)  # same element size: a view for any strides
    return a.resolve_conj().numpy()


def from_host(a, dtype, *, device=None):
    """A tensor of ember ``dtype`` on ``device`` from a host array (bfloat16 arrives as its
    uint16 bits); shares ``a``'s memory on the CPU when it can, as a view (which ew_inplace
    never writes: the host array's owner may still read it)."""
    return _from_host(a, dtype, device)[...]


def _from_host(a, dtype, device):
    if any(s < 0 for s in a.strides):  # torch has no negative strides: copy a flipped view
        a = a.copy()
    if dtype is _d.bfloat16:
        bits = a.view(_host_dtype(_d.uint16)) if a.dtype.itemsize == 2 else None
        if bits is None:
            raise KindError(f"from_host: bfloat16 data arrived as {a.dtype}")
        out = torch.from_numpy(bits).view(torch.bfloat16)
    else:
        canon = _host_dtype(dtype)
        if a.dtype.num != canon.num and a.dtype.kind == canon.kind and \
                a.dtype.itemsize == canon.itemsize:
            a = a.view(canon)  # e.g. ulonglong, which torch.from_numpy does not take, as uint64
        out = torch.from_numpy(a if a.flags.writeable else a.copy())
    if out.dtype != TORCH[dtype]:
        out = out.to(TORCH[dtype])
    return out if device is None or out.device == device else out.to(device)


def _host_dtype(dtype):
    from ..numpy import core as host
    return host.NP[dtype]


def move(a, *, device=None):
    """``a`` on another torch device."""
    return a.to(device)


def synchronize(*, device=None):
    """Wait for the device's queued work (CUDA runs asynchronously)."""
    if device is not None and device.type == "cuda":
        torch.cuda.synchronize(device)


def layout_strides(a):
    """The step in elements between neighbours along each dim of ``a``'s storage."""
    return tuple(a.stride())


def layout_offset(a):
    """The offset in elements of ``a``'s first element in its storage."""
    return a.storage_offset()


def layout_address(a):
    """The address of ``a``'s first element."""
    return a.data_ptr()
