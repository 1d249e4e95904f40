"""``ember.torch.cpu``: PyTorch's ``torch.cpu`` device module: the CPU is always there, one
device, nothing to synchronize; ``amp`` is PyTorch's deprecated ``torch.cpu.amp``
(ember/torch/amp/device_amp.py).

>>> import ember.torch as torch
>>> torch.cpu.is_available(), torch.cpu.device_count(), torch.cpu.current_device()
(True, 1, 'cpu')
"""

from .amp.device_amp import cpu_amp as amp

__all__ = ["is_available", "device_count", "current_device", "synchronize", "current_stream",
           "set_device", "amp"]


def is_available():
    """True: the CPU device is always available.

    >>> import ember.torch as torch
    >>> torch.cpu.is_available()
    True
    """
    return True


def device_count():
    """1: ember counts the CPU as one device.

    >>> import ember.torch as torch
    >>> torch.cpu.device_count()
    1
    """
    return 1


def current_device():
    """``"cpu"``, as PyTorch's.

    >>> import ember.torch as torch
    >>> torch.cpu.current_device()
    'cpu'
    """
    return "cpu"


def synchronize(device=None):
    """Nothing to wait for: CPU ops finish before they return.

    >>> import ember.torch as torch
    >>> torch.cpu.synchronize()
    """


def set_device(device):
    """Accepted and ignored, as PyTorch's ``torch.cpu.set_device``.

    >>> import ember.torch as torch
    >>> torch.cpu.set_device("cpu")
    """
    return None


def current_stream(device=None):
    """The CPU's stream (``ember.torch.Stream("cpu")``).

    >>> import ember.torch as torch
    >>> torch.cpu.current_stream().device.type
    'cpu'
    """
    from .streams import Stream
    return Stream("cpu")
