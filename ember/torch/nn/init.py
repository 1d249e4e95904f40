"""``ember.torch.nn.init``: PyTorch's initializers, which fill the given tensor (rebinding its
value: the Parameter object stays) and return it; ember.nn.init does the work. PyTorch's
deprecated spellings without the underscore (``init.normal(w)``) are the same functions.

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> w = nn.Parameter(torch.empty(2, 3))
>>> nn.init.constant_(w, 0.5) is w, w.tolist()
(True, [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]])
>>> nn.init._calculate_fan_in_and_fan_out(torch.empty(4, 3, 5, 5))
(75, 100)
"""

from ...autodiff.graph import no_grad
from ...errors import KindError, ShapeMismatchError
from ...nn import init as _ei
from ...ops.inplace import rebind
from ..._tensor import Tensor as _EmberTensor
from ... import eye as _eye

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "uniform", "normal", "constant", "xavier_uniform",
           "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal"]

calculate_gain = _ei.calculate_gain
uniform_ = _ei.uniform_
normal_ = _ei.normal_
trunc_normal_ = _ei.trunc_normal_
constant_ = _ei.constant_
ones_ = _ei.ones_
zeros_ = _ei.zeros_
xavier_uniform_ = _ei.xavier_uniform_
xavier_normal_ = _ei.xavier_normal_
kaiming_uniform_ = _ei.kaiming_uniform_
kaiming_normal_ = _ei.kaiming_normal_
orthogonal_ = _ei.orthogonal_

# PyTorch's deprecated names: the same functions
uniform = uniform_
normal = normal_
constant = constant_
xavier_uniform = xavier_uniform_
xavier_normal = xavier_normal_
kaiming_uniform = kaiming_uniform_
kaiming_normal = kaiming_normal_
orthogonal = orthogonal_


def eye_(tensor):
    """Fill the 2-D ``tensor`` with the identity matrix; returns it.

    >>> import ember.torch as torch
    >>> from ember.torch.nn import init
    >>> init.eye_(torch.empty(2, 3)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if not isinstance(tensor, _EmberTensor):
        raise KindError(f"eye_: tensor must be a Tensor, got {type(tensor).__name__}")
    if tensor.ndim != 2:
        raise ShapeMismatchError("Only tensors with 2 dimensions are supported", expected=2,
                                 actual=tensor.ndim)
    with no_grad():
        value = _eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device)
    rebind(tensor, value, "eye_")
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight tensor, as PyTorch's private helper that programs call."""
    if not isinstance(tensor, _EmberTensor):
        raise KindError(f"_calculate_fan_in_and_fan_out: tensor must be a Tensor, got "
                        f"{type(tensor).__name__}")
    return _ei.fan_in_and_fan_out(tuple(tensor.shape))
