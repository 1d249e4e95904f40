"""``ember.torch.backends.mps``: whether Apple's MPS device can be used (through the torch
backend).

>>> import ember.torch as torch
>>> torch.backends.mps.is_built() in (True, False)
True
"""

from ...devices import devices

__all__ = ["is_available", "is_built"]


def is_available():
    """Whether an MPS device can be used here."""
    return any(d.type == "mps" for d in devices())


def is_built():
    """Whether the installed PyTorch was built with MPS (False without PyTorch)."""
    import importlib.util
    if importlib.util.find_spec("torch") is None:
        return False
    import torch
    return bool(torch.backends.mps.is_built())
