"""``ember.cuda``: what PyTorch's CUDA devices this machine has (as ``torch.cuda``).

Asking imports torch when it is installed; without torch there is no CUDA device.

>>> import ember
>>> isinstance(ember.cuda.is_available(), bool)
True
"""

import importlib.util

__all__ = ["is_available", "device_count"]


def _torch():
    if importlib.util.find_spec("torch") is None:
        return None
    import torch
    return torch


def is_available():
    """Whether a ``"torch:cuda"`` device can be used here."""
    torch = _torch()
    return bool(torch is not None and torch.cuda.is_available())


def device_count():
    """The number of CUDA devices (``"torch:cuda:0"`` ...); 0 without torch or CUDA."""
    torch = _torch()
    return torch.cuda.device_count() if torch is not None and torch.cuda.is_available() else 0
