"""What the optimizers that compose ember ops share (Adadelta, Adamax, RAdam, ASGD, Rprop,
Adafactor, LBFGS): backend arrays seen as untracked tensors, PyTorch's ``lerp`` formula, float32
rounding of PyTorch's scalar state, and the checks of PyTorch's implementation flags.

Their updates run ember tensor ops on ``wrap``-ped arrays, with recording off, so every backend
runs them, and store the resulting arrays back as the optimizer's state and the parameter's new
value (a new array; nothing is written in place).
"""

import struct

from ..errors import InvalidParameterError
from .._tensor import wrap
from .optimizer import _check_flag

__all__ = []


def as_tensor(array, like):
    """Backend ``array`` as an untracked tensor of ``like``'s dtype (no copy)."""
    return wrap(array, like._dtype)


def each_step(optimizer, params, grads, maximize, **buffers):
    """``(p, state, param, grad)`` for each parameter ``p`` that has a gradient: its state (the
    named ``buffers`` created as zeros when new) with its step counted, and its value and
    gradient as untracked tensors, the gradient negated under ``maximize``."""
    for p, g in zip(params, grads):
        if g is None:
            continue
        st = optimizer._state_of(p, **buffers)
        st["step"] += 1
        grad = as_tensor(g, p)
        yield p, st, as_tensor(p._data, p), -grad if maximize else grad


def lerp(start, end, weight):
    """``start.lerp(end, weight)`` with PyTorch's two-sided formula (a Python-float weight)."""
    diff = end - start
    if abs(weight) < 0.5:
        return start + diff * weight
    return end - diff * (1 - weight)


def addcmul_sq(buf, grad, beta, value):
    """``buf.mul_(beta).addcmul_(grad, grad, value=value)`` as a new tensor."""
    return buf * beta + grad * value * grad


def float32(x):
    """``x`` rounded to float32, as PyTorch keeps a scalar state in its default dtype."""
    return struct.unpack("f", struct.pack("f", x))[0]


def check_flags(op, group, names):
    """Check PyTorch's implementation flags in ``group``: ``foreach`` and ``fused`` are None or a
    bool, ``capturable`` and ``differentiable`` a bool (none of them changes a result here)."""
    for name in names:
        value = group[name]
        if name in ("foreach", "fused"):
            if value is not None and not isinstance(value, bool):
                raise InvalidParameterError(
                    f"{op}: {name} must be None or a bool, got {value!r}", name, value)
        else:
            _check_flag(op, name, value)
