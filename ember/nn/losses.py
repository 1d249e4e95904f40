"""The loss modules of ember.nn: CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, BCEWithLogitsLoss,
BCELoss, SmoothL1Loss and HuberLoss, PyTorch's modules over ``ember.nn.functional``; ``weight`` and
``pos_weight`` are buffers. The reduction is checked when the loss is built.

>>> import ember
>>> from ember import nn
>>> nn.MSELoss(reduction="sum")(ember.tensor([1.0, 3.0]), ember.tensor([1.0, 1.0])).item()
4.0
"""

from ..errors import InvalidParameterError
from .._tensor import Tensor
from ..ops.nn_args import _int, _reduction
from ..ops.robust_losses import _legacy
from . import functional as F
from .layers import _prob
from .module import Module

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "BCEWithLogitsLoss", "BCELoss",
           "SmoothL1Loss", "HuberLoss"]


def _opt_weight(weight, layer, param="weight"):
    if weight is not None and not isinstance(weight, Tensor):
        raise InvalidParameterError(f"{layer}: {param} must be a Tensor or None, got "
                                    f"{type(weight).__name__}", param, weight)
    return weight


class CrossEntropyLoss(Module):
    """``F.cross_entropy`` as a module; ``weight`` is a buffer.

    >>> import ember
    >>> from ember import nn
    >>> loss = nn.CrossEntropyLoss(label_smoothing=0.1)
    >>> round(loss(ember.zeros(2, 3), ember.tensor([0, 2])).item(), 4)
    1.0986
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__()
        name = "CrossEntropyLoss"
        self.register_buffer("weight", _opt_weight(weight, name))
        self.ignore_index = _int(ignore_index, name, "ignore_index", -(1 << 62))
        self.reduction = _reduction(reduction, name)
        self.label_smoothing = _prob(label_smoothing, name, "label_smoothing")

    def forward(self, input, target):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.cross_entropy(input, target, self.weight, self.reduction, self.label_smoothing,
                               self.ignore_index)


class NLLLoss(Module):
    """``F.nll_loss`` as a module; ``weight`` is a buffer.

    >>> import ember
    >>> from ember import nn
    >>> nn.NLLLoss(reduction="sum")(ember.tensor([[-1.0, -2.0]]), ember.tensor([1])).item()
    2.0
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__()
        name = "NLLLoss"
        self.register_buffer("weight", _opt_weight(weight, name))
        self.ignore_index = _int(ignore_index, name, "ignore_index", -(1 << 62))
        self.reduction = _reduction(reduction, name)

    def forward(self, input, target):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class MSELoss(Module):
    """``F.mse_loss`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.MSELoss()(ember.tensor([1.0, 3.0]), ember.tensor([1.0, 1.0])).item()
    2.0
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _reduction(reduction, "MSELoss")

    def forward(self, input, target):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.mse_loss(input, target, self.reduction)


class L1Loss(Module):
    """``F.l1_loss`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.L1Loss()(ember.tensor([1.0, 3.0]), ember.tensor([2.0, 2.0])).item()
    1.0
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _reduction(reduction, "L1Loss")

    def forward(self, input, target):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.l1_loss(input, target, self.reduction)


class BCEWithLogitsLoss(Module):
    """``F.binary_cross_entropy_with_logits`` as a module; ``weight`` and ``pos_weight`` are
    buffers.

    >>> import ember
    >>> from ember import nn
    >>> round(nn.BCEWithLogitsLoss()(ember.tensor([0.0]), ember.tensor([1.0])).item(), 4)
    0.6931
    """

    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__()
        name = "BCEWithLogitsLoss"
        self.register_buffer("weight", _opt_weight(weight, name))
        self.register_buffer("pos_weight", _opt_weight(pos_weight, name, "pos_weight"))
        self.reduction = _reduction(reduction, name)

    def forward(self, input, target):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                  self.pos_weight)


class BCELoss(Module):
    """``F.binary_cross_entropy`` (of probabilities) as a module; ``weight`` is a buffer.

    >>> import ember
    >>> from ember import nn
    >>> round(nn.BCELoss()(ember.tensor([0.5]), ember.tensor([1.0])).item(), 4)
    0.6931
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.register_buffer("weight", _opt_weight(weight, "BCELoss"))
        self.reduction = _reduction(_legacy(size_average, reduce, reduction), "BCELoss")

    def forward(self, input, target):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class SmoothL1Loss(Module):
    """``F.smooth_l1_loss`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.SmoothL1Loss(beta=0.5)(ember.tensor([0.25, 2.0]), ember.tensor([0.0, 0.0])).item()
    0.90625
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__()
        self.reduction = _reduction(_legacy(size_average, reduce, reduction), "SmoothL1Loss")
        self.beta = beta

    def forward(self, input, target):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(Module):
    """``F.huber_loss`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.HuberLoss(delta=2.0)(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0])).item()
    2.0625
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__()
        self.reduction = _reduction(reduction, "HuberLoss")
        self.delta = delta

    def forward(self, input, target):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)
