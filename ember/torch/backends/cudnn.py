"""``ember.torch.backends.cudnn``: cuDNN's flags as PyTorch programs set them. Setting one
sets PyTorch's too when the torch backend is in use (it matters only on CUDA devices).

>>> import ember.torch as torch
>>> torch.backends.cudnn.deterministic = True
>>> torch.backends.cudnn.deterministic
True
"""

import sys
import types

from ... import cuda as _cuda

__all__ = ["enabled", "benchmark", "deterministic", "allow_tf32", "is_available", "version"]


def is_available():
    """Whether cuDNN can be used (a CUDA device and a PyTorch built with cuDNN)."""
    if not _cuda.is_available():
        return False
    import torch
    return bool(torch.backends.cudnn.is_available())


def version():
    """cuDNN's version, or None without it."""
    if not is_available():
        return None
    import torch
    return torch.backends.cudnn.version()


class _Flags(types.ModuleType):
    enabled = True
    benchmark = False
    deterministic = False
    allow_tf32 = True

    def __setattr__(self, name, value):
        if name in ("enabled", "benchmark", "deterministic", "allow_tf32"):
            if "torch" in sys.modules and sys.modules["torch"] is not None:
                setattr(sys.modules["torch"].backends.cudnn, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Flags
