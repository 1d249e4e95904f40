"""The linear kernels of the PyTorch backend (see ember/ops/linear.py)."""

import torch.nn.functional as TF

from .core import TORCH
from .nn import _out, _work_of

__all__ = ["nn_linear"]


# -- linear -------------------------------------------------------------------------------------

# override: 14523 µs vs the default's 17245 µs ((16, 64, 256) @ (256, 256).T + b, float32, one thread)
def nn_linear(x, w, b, dtype):
    dtype = TORCH[dtype]
    work = _work_of(dtype)
    out = TF.linear(x.to(work), w.to(work), None if b is None else b.to(work))
    return _out(out, dtype)
