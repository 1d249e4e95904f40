"""The PyTorch backend: torch tensors are the buffers, so the same kernels run on the CPU here
and on CUDA or MPS where present. Imported only when a torch device is first used.

The kernel table is explicit: each family module lists its kernels in ``__all__``; a kernel that
creates a buffer from nothing takes a keyword ``device`` (a ``torch.device``), which
``for_device`` binds, so ops call every backend's kernels the same way.
"""

import functools
import threading

try:
    import torch
except ImportError:  # pragma: no cover - torch is an optional dependency
    torch = None

from ...errors import DeviceError
from .. import kernel_table

if torch is None:  # pragma: no cover
    raise DeviceError("the torch backend needs PyTorch: pip install 'ember[torch]'")

from . import (activation, array_api, attention, bitwise, color, compare, components, conv,  # noqa: E402
               core, creation, distributed, dlpack, dropout, elementwise, fft, indexing, io,
               linalg, linear, loss, morphology, movement, nn, normalization, optim, pool,
               quantization, random, reduce, sampling, scan, segments, slicing, sort,
               suppression, threads)

FAMILIES = (core, creation, movement, segments, slicing, elementwise, bitwise, compare, reduce,
            scan, sort, indexing, linalg, random, nn, activation, linear, conv, pool,
            normalization, loss, dropout, attention, optim, io, threads, sampling,
            quantization, color, morphology, components, suppression, distributed,
            dlpack, array_api, fft)
name = "torch"
_tables = {}
_lock = threading.Lock()


KERNELS = kernel_table(FAMILIES, name)


class Kernels:
    """The kernel table of one torch device: attribute access, as a module."""

    def __init__(self, table, device, torch_device):
        self.__dict__.update(table)
        self.device = device
        self.torch_device = torch_device

    def __repr__(self):
        return f"<torch kernels on {self.device}>"


def _bind(fn, torch_device):
    """``fn`` with its parameter ``device`` bound to ``torch_device``, if it has one (a guarded
    kernel's parameters are those of the kernel it wraps)."""
    code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
    if code is not None and "device" in code.co_varnames[:code.co_argcount
                                                          + code.co_kwonlyargcount]:
        return functools.partial(fn, device=torch_device)
    return fn


def for_device(device):
    """The kernel table of the ember Device ``device``; DeviceError when it is not available."""
    found = _tables.get(device)
    if found is not None:
        return found
    if device.type == "cuda" and (not torch.cuda.is_available()
                                  or device.index >= torch.cuda.device_count()):
        raise DeviceError(f"device {device} is not available: this machine has "
                          f"{torch.cuda.device_count() if torch.cuda.is_available() else 0} "
                          "CUDA devices", (device,))
    if device.type == "mps" and not (hasattr(torch.backends, "mps")
                                     and torch.backends.mps.is_available()):
        raise DeviceError(f"device {device} is not available: PyTorch has no MPS here", (device,))
    # after the checks: torch keeps a device index in 8 bits (cuda:128 would be cuda:-128)
    torch_device = torch.device(device.type, device.index)
    with _lock:
        found = _tables.get(device)
        if found is None:
            found = _tables[device] = Kernels(
                {k: _bind(fn, torch_device) for k, fn in KERNELS.items()}, device, torch_device)
            core.register_device(torch_device, device)
    return found


def available_devices():
    """Names of the torch devices this machine has."""
    names = ["torch:cpu"]
    if torch.cuda.is_available():
        names += [f"torch:cuda:{i}" for i in range(torch.cuda.device_count())]
    if hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
        names.append("torch:mps")
    return names


owns = core.owns
adopt = core.adopt
ember_dtype = core.ember_dtype
