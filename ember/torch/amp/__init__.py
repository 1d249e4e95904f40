"""``ember.torch.amp``: PyTorch's automatic mixed precision. ``autocast`` runs the matrix
products and convolutions of a region in bfloat16 / float16 and the accuracy-sensitive ops in
float32 (autocast_mode.py, the op lists in autocast_ops.py, the state in
ember/torch/autocast_state.py); ``GradScaler`` scales losses so float16 gradients do not
underflow (grad_scaler.py); ``custom_fwd`` / ``custom_bwd`` make an ``autograd.Function``
follow autocast (custom_functions.py). ``torch.cpu.amp`` and ``torch.cuda.amp``, PyTorch's
deprecated spellings, are in device_amp.py.

>>> import ember.torch as torch
>>> model = torch.nn.Linear(4, 2)
>>> with torch.autocast("cpu", dtype=torch.bfloat16):
...     out = model(torch.randn(3, 4))
>>> print(out.dtype, model.weight.dtype)
torch.bfloat16 torch.float32
"""

import sys as _sys

from .. import autocast_state as _state  # noqa: F401  (the torch-level state functions)
from .._tensor import Tensor as _Tensor, functions as _functions, to_torch as _to_torch
from . import autocast_ops as _ops
from .autocast_mode import autocast, is_autocast_available
from .custom_functions import custom_bwd, custom_fwd
from .device_amp import cpu_amp as _cpu_amp, cuda_amp as _cuda_amp
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]


def _install():
    """Wrap the ops autocast changes (autocast_ops.py) where ember.torch registers them."""
    from .. import cpu, cuda, linalg  # noqa: F401  (ember.torch.cpu: torch.cpu.amp)
    from .. import nn
    from ..nn import functional
    layers = [getattr(nn, n) for n in _ops.LOWER_LAYERS if hasattr(nn, n)]
    _ops.install(_functions, [functional, linalg], _Tensor, _to_torch, layers)
    cuda.amp = _cuda_amp
    _sys.modules.setdefault("ember.torch.cuda.amp", _cuda_amp)
    _sys.modules.setdefault("ember.torch.cpu.amp", _cpu_amp)


_install()
