"""The activation kernels of the PyTorch backend (see ember/ops/activation.py)."""

import torch
import torch.nn.functional as TF

from .elementwise import ew_relu as _ew_relu
from .nn import _F64, _aten, _out, _work

__all__ = [
    "nn_gelu", "nn_gelu_grad", "nn_silu", "nn_silu_grad", "nn_relu",
    "nn_softmax", "nn_softmax_grad", "nn_log_softmax", "nn_log_softmax_grad",
]


# -- activations --------------------------------------------------------------------------------

# override: 2436 µs as the default's 2416 µs (float32 (64, 1000), one thread), bit for bit as NumPy's (torch's own erf in float64)
def nn_gelu(x, approximate):
    if approximate == "tanh":
        return _out(TF.gelu(_work(x), approximate="tanh"), x.dtype)
    return _out(TF.gelu(x.to(_F64)), x.dtype)


# override: 3053 µs vs the default's 7514 µs (float32 (64, 1000), one thread)
def nn_gelu_grad(g, x, approximate):
    if approximate == "tanh":
        w = _work(x)
        return _out(_aten.gelu_backward(_work(g).to(w.dtype), w, approximate="tanh"), g.dtype)
    return _out(_aten.gelu_backward(g.to(_F64), x.to(_F64)), g.dtype)


# override: 28 µs vs the default's 2816 µs (float32 (64, 1000), one thread)
def nn_silu(x):
    return _out(TF.silu(_work(x)), x.dtype)


# override: 37 µs vs the default's 2920 µs (float32 (64, 1000), one thread)
def nn_silu_grad(g, x):
    w = _work(x)
    return _out(_aten.silu_backward(_work(g).to(w.dtype), w), g.dtype)


# override: 40 µs vs the default's 84 µs (float32 (64, 1000), one thread)
def nn_softmax(x, axis):
    return _out(torch.softmax(_work(x), axis), x.dtype)


# override: 16 µs vs the default's 34 µs (float32 (64, 1000), one thread)
def nn_softmax_grad(g, y, axis):
    yw = _work(y)
    gw = _work(g).to(yw.dtype)
    return _out(_aten._softmax_backward_data(gw, yw, axis, yw.dtype), g.dtype)


# override: 38 µs vs the default's 84 µs (float32 (64, 1000), one thread)
def nn_log_softmax(x, axis):
    return _out(torch.log_softmax(_work(x), axis), x.dtype)


# override: 32 µs vs the default's 81 µs (float32 (64, 1000), one thread)
def nn_log_softmax_grad(g, y, axis):
    yw = _work(y)
    gw = _work(g).to(yw.dtype)
    return _out(_aten._log_softmax_backward_data(gw, yw, axis, yw.dtype), g.dtype)


# override: the sign of zero as NumPy's maximum (the default's torch.maximum keeps -0.0)
def nn_relu(x):
    """``max(x, 0)`` of a float tensor, keeping nan; the sign of zero as NumPy's ``maximum``
    (and Tensor.relu): -0.0 gives +0.0, except in float16 where it stays -0.0."""
    return _ew_relu(x)

