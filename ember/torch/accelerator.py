"""``ember.torch.accelerator``: PyTorch's device-agnostic accelerator queries. The accelerator
is CUDA when the torch backend has a CUDA device, else MPS when it has one, else none.

>>> import ember.torch as torch
>>> device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
>>> torch.ones(2, device=device).sum().item()
2.0
"""

from ..devices import Device, devices
from ..errors import DeviceError

__all__ = ["is_available", "current_accelerator", "device_count", "synchronize",
           "current_device_index", "set_device_index"]


def _types():
    return [d.type for d in devices() if d.backend_name != "numpy"]


def current_accelerator(check_available=False):
    """The accelerator's device type as a device (``device("cuda")``), or None when there is
    none."""
    kinds = _types()
    for kind in ("cuda", "mps"):
        if kind in kinds:
            return Device(kind)
    return None


def is_available():
    """Whether an accelerator (CUDA or MPS) can be used here."""
    return current_accelerator() is not None


def device_count():
    """The number of accelerator devices; 0 without one."""
    acc = current_accelerator()
    return 0 if acc is None else sum(1 for t in _types() if t == acc.type)


def _require(op):
    acc = current_accelerator()
    if acc is None:
        raise DeviceError(f"accelerator.{op}: no accelerator here (CUDA or MPS); use the 'cpu' "
                          "device", ("accelerator",))
    import torch
    return getattr(torch, acc.type)


def synchronize(device=None):
    """Wait for the accelerator's work to finish; DeviceError without one."""
    _require("synchronize").synchronize()


def current_device_index():
    """The index of the current accelerator device; DeviceError without one."""
    return _require("current_device_index").current_device()


def set_device_index(device):
    """Make the accelerator device of index ``device`` current; DeviceError without one."""
    _require("set_device_index").set_device(device)
