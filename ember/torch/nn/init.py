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

import math

from ...autodiff.graph import no_grad
from ...errors import InvalidParameterError, KindError, ShapeMismatchError
from ...nn import init as _ei
from ...ops.inplace import rebind
from ..._tensor import Tensor as _EmberTensor
from ... import arange as _arange, eye as _eye, rand as _rand, randn as _randn

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "uniform", "normal", "constant", "xavier_uniform",
           "xavier_normal", "kaiming_uniform", "kaiming_normal", "orthogonal",
           "dirac_", "sparse_", "eye", "dirac", "sparse"]

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


def _tensor(tensor, op):
    if not isinstance(tensor, _EmberTensor):
        raise KindError(f"{op}: tensor must be a Tensor, got {type(tensor).__name__}")
    return tensor


def dirac_(tensor, groups=1):
    """Fill the 3-, 4- or 5-D ``tensor`` (a convolution weight, ``(out, in, *kernel)``) with the
    Dirac delta, so the convolution keeps its input channels: in each of the ``groups`` blocks of
    ``out // groups`` output channels, channel ``d`` gets 1 at input channel ``d`` and the kernel's
    centre (for ``d`` below the number of input channels); everything else is 0. Returns it.

    >>> import ember.torch as torch
    >>> from ember.torch.nn import init
    >>> init.dirac_(torch.empty(2, 2, 3))[:, :, 1].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    op = "dirac_"
    _tensor(tensor, op)
    if tensor.ndim not in (3, 4, 5):
        raise ShapeMismatchError("Only tensors with 3, 4, or 5 dimensions are supported",
                                 expected=(3, 4, 5), actual=tensor.ndim)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        raise InvalidParameterError(f"{op}: groups must be an int >= 1, got {groups!r}",
                                    "groups", groups)
    out_ch, in_ch, *kernel = tensor.shape
    if out_ch % groups:
        raise InvalidParameterError(f"{op}: dim 0 must be divisible by groups (dim 0 is "
                                    f"{out_ch}, groups {groups})", "groups", groups)
    per_group = max(out_ch // groups, 1)  # (no output channel: nothing to fill)
    dev = tensor.device
    with no_grad():
        # output channel o feeds from input channel o % per_group
        value = ((_arange(out_ch, device=dev) % per_group).reshape(out_ch, 1)
                 == _arange(in_ch, device=dev).reshape(1, in_ch))
        for k in kernel:  # one factor per spatial dim: 1 at its centre
            value = value.unsqueeze(-1) & (_arange(k, device=dev) == k // 2)
        value = value.to(tensor.dtype)
    rebind(tensor, value, op)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fill the 2-D ``tensor`` with values from ``N(0, std)``, then zero ``ceil(sparsity *
    rows)`` entries of each column, chosen at random (ember's generator: ``manual_seed`` or
    ``generator`` reproduces them). Returns it.

    >>> import ember.torch as torch
    >>> from ember.torch.nn import init
    >>> w = init.sparse_(torch.empty(4, 3), sparsity=0.5)
    >>> (w == 0).sum(0).tolist()
    [2, 2, 2]
    """
    op = "sparse_"
    _tensor(tensor, op)
    if tensor.ndim != 2:
        raise ShapeMismatchError("Only tensors with 2 dimensions are supported", expected=2,
                                 actual=tensor.ndim)
    for name, v in (("sparsity", sparsity), ("std", std)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InvalidParameterError(f"{op}: {name} must be a finite number, got {v!r}",
                                        name, v)
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with no_grad():
        value = _randn(rows, cols, generator=generator, dtype=tensor.dtype,
                       device=tensor.device) * std
        # each column's entries ranked in a random order; the first ``zeros`` ranks become 0
        keys = _rand(rows, cols, generator=generator, device=tensor.device)
        rank = keys.argsort(dim=0).argsort(dim=0)
        value = value * (rank >= zeros).to(tensor.dtype)
    rebind(tensor, value, op)
    return tensor


# PyTorch's deprecated names: the same functions
eye = eye_
dirac = dirac_
sparse = sparse_
