"""``ember.torch.cpu``: PyTorch's ``torch.cpu`` device module (what ``get_device_module("cpu")``
returns): the CPU is always available, one device, one in-order stream.

>>> import ember.torch as torch
>>> torch.cpu.is_available(), torch.cpu.device_count(), torch.cpu.current_device()
(True, 1, 'cpu')
"""

__all__ = ["is_available", "device_count", "current_device", "synchronize", "current_stream",
           "set_device"]


def is_available():
    """True: there is always a CPU."""
    return True


def device_count():
    """1: ember counts the CPU as one device."""
    return 1


def current_device():
    """``"cpu"``, as PyTorch's ``torch.cpu.current_device()``."""
    return "cpu"


def synchronize(device=None):
    """Nothing to wait for: the CPU's work is done when an op returns."""
    return None


def set_device(device):
    """Accepted and ignored, as PyTorch's ``torch.cpu.set_device``."""
    return None


def current_stream(device=None):
    """The CPU's stream (``ember.torch.Stream("cpu")``)."""
    from .streams import Stream
    return Stream("cpu")
