"""The PyTorch backend: torch tensors are the buffers, so the same kernels run on the CPU here
and on CUDA or MPS where present. Imported only when a torch device is first used.

``TorchBackend`` gathers the kernels of the family modules (each lists them in ``__all__``; each
is declared in ``ember/backends/base``); a kernel that creates a buffer from nothing takes a
keyword ``device`` (a ``torch.device``), which each device's instance binds, so ops call every
backend's kernels the same way.
"""

import functools
import threading

try:
    import torch
except ImportError:  # pragma: no cover - torch is an optional dependency
    torch = None

from ... import dtypes as _dtypes
from ...errors import DeviceError
from ..base import Backend

if torch is None:  # pragma: no cover
    raise DeviceError("the torch backend needs PyTorch: pip install 'ember[torch]'")

from array_api_compat import torch as _xp  # noqa: E402

from . import (activation, bitwise, compare, components, conv, core, creation, distributed,
               dlpack, dropout, elementwise, indexing, io, linalg, linear, movement, nn, optim,
               pool, random, reduce, sampling, scan, segments, slicing, sort, threads)

FAMILIES = (core, creation, movement, segments, slicing, elementwise, bitwise, compare, reduce,
            scan, sort, indexing, linalg, random, nn, activation, linear, conv, pool, dropout,
            optim, io, threads, sampling, components, distributed, dlpack)
name = "torch"
_lock = threading.Lock()
_instances = {}  # ember Device -> TorchBackend


class TorchBackend(Backend, kernels=FAMILIES):
    """The kernels of one torch device (``torch:cpu``, ``torch:cuda:N``, ``torch:mps``): each
    kernel with a ``device`` parameter has it bound to this device's ``torch.device``."""

    name = "torch"
    xp = _xp
    writes_in_place = True
    Array = torch.Tensor
    RaggedError = core.RaggedError
    RankError = core.RankError

    def __init__(self, device, torch_device):
        self.torch_device = self.native_device = torch_device
        if torch_device.type == "mps":  # MPS has no float64
            self.widest_float = _dtypes.float32
        super().__init__(device)

    def _prepare(self, kernel):
        code = getattr(getattr(kernel, "__wrapped__", kernel), "__code__", None)
        if code is not None and "device" in code.co_varnames[:code.co_argcount
                                                              + code.co_kwonlyargcount]:
            return functools.partial(kernel, device=self.torch_device)
        return kernel


def for_device(device):
    """The TorchBackend of the ember Device ``device``; DeviceError when it is not available."""
    found = _instances.get(device)
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
        found = _instances.get(device)
        if found is None:
            found = _instances[device] = TorchBackend(device, torch_device)
            core.register_device(torch_device, device)
    return found


def instances():
    """The TorchBackends made so far, one per device used."""
    return list(_instances.values())


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
