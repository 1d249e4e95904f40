"""``ember.torch.backends``: the flags and queries PyTorch programs read
(``backends.mps.is_available()``, ``backends.cudnn.benchmark = True``).

The cudnn and matmul flags are accepted and kept; they change nothing on ember's CPU engines
and are passed to PyTorch for the torch backend's CUDA devices.

>>> import ember.torch as torch
>>> torch.backends.mps.is_available() in (True, False)
True
>>> torch.backends.cudnn.benchmark = True
"""

from . import cuda, cudnn, mps  # noqa: F401

__all__ = ["cuda", "cudnn", "mps"]
