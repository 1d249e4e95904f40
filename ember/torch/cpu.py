"""``ember.torch.cpu``: PyTorch's ``torch.cpu`` device module: the CPU is always there, one
device, nothing to synchronize; ``amp`` is PyTorch's deprecated ``torch.cpu.amp``
(ember/torch/amp/device_amp.py).

>>> import ember.torch as torch
>>> torch.cpu.is_available(), torch.cpu.device_count(), torch.cpu.current_device()
(True, 1, 'cpu')
"""

from .amp.device_amp import cpu_amp as amp

__all__ = ["is_available", "device_count", "current_device", "synchronize", "amp"]


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
