"""``ember.torch.cuda``: PyTorch's ``torch.cuda`` queries, answered for ember's CUDA devices
(``"cuda"`` is the torch backend's ``"torch:cuda"``).

Without CUDA the queries answer as PyTorch's do (``is_available()`` False, ``device_count()``
0, ``manual_seed_all`` silently ignored) and what needs a device raises ``DeviceError``.

>>> import ember.torch as torch
>>> device = "cuda" if torch.cuda.is_available() else "cpu"
>>> torch.zeros(1, device=device).device.type == device
True
"""

from .. import cuda as _cuda
from ..errors import DeviceError

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "seed", "seed_all",
           "synchronize", "current_device", "get_device_name", "empty_cache",
           "is_bf16_supported", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "set_device"]


def _torch_cuda(op):
    if not _cuda.is_available():
        raise DeviceError(f"cuda.{op}: no CUDA device here (torch.cuda.is_available() is "
                          "False); use the 'cpu' device", ("cuda",))
    import torch
    return torch.cuda


def is_available():
    """Whether a CUDA device can be used (as ``torch.cuda.is_available``)."""
    return _cuda.is_available()


def device_count():
    """The number of CUDA devices; 0 without CUDA."""
    return _cuda.device_count()


def manual_seed(seed):
    """Seed the current CUDA device's generator; ignored without CUDA, as PyTorch's."""
    if _cuda.is_available():
        from ..ops.random import _sync
        from ..devices import Device
        _torch_cuda("manual_seed").manual_seed(seed)
        _sync(Device("cuda"))


def manual_seed_all(seed):
    """Seed every CUDA device's generator; ignored without CUDA, as PyTorch's."""
    if _cuda.is_available():
        _torch_cuda("manual_seed_all").manual_seed_all(seed)


def seed():
    """Seed the current CUDA generator with a random number; ignored without CUDA."""
    if _cuda.is_available():
        _torch_cuda("seed").seed()


def seed_all():
    """Seed every CUDA generator with a random number; ignored without CUDA."""
    if _cuda.is_available():
        _torch_cuda("seed_all").seed_all()


def synchronize(device=None):
    """Wait for the CUDA device's work to finish; DeviceError without CUDA."""
    _torch_cuda("synchronize").synchronize(device)


def current_device():
    """The index of the current CUDA device; DeviceError without CUDA."""
    return _torch_cuda("current_device").current_device()


def set_device(device):
    """Make ``device`` (an index or ``"cuda:N"``) the current CUDA device."""
    _torch_cuda("set_device").set_device(device)


def get_device_name(device=None):
    """The name of a CUDA device; DeviceError without CUDA."""
    return _torch_cuda("get_device_name").get_device_name(device)


def empty_cache():
    """Release the CUDA caching allocator's unused memory; nothing to do without CUDA."""
    if _cuda.is_available():
        _torch_cuda("empty_cache").empty_cache()


def is_bf16_supported():
    """Whether the CUDA device computes in bfloat16; False without CUDA."""
    return _cuda.is_available() and _torch_cuda("is_bf16_supported").is_bf16_supported()


def memory_allocated(device=None):
    """Bytes held by tensors on the CUDA device; DeviceError without CUDA."""
    return _torch_cuda("memory_allocated").memory_allocated(device)


def max_memory_allocated(device=None):
    """The peak of ``memory_allocated``; DeviceError without CUDA."""
    return _torch_cuda("max_memory_allocated").max_memory_allocated(device)


def memory_reserved(device=None):
    """Bytes the CUDA caching allocator holds; DeviceError without CUDA."""
    return _torch_cuda("memory_reserved").memory_reserved(device)
