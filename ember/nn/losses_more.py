"""PyTorch's other loss modules (KLDivLoss, PoissonNLLLoss, GaussianNLLLoss,
CosineEmbeddingLoss, MarginRankingLoss, HingeEmbeddingLoss, SoftMarginLoss,
MultiLabelSoftMarginLoss, MultiMarginLoss, MultiLabelMarginLoss, TripletMarginLoss,
TripletMarginWithDistanceLoss) over ember/ops/losses_more.py; ``weight`` is a buffer and the
reduction is checked when the loss is built.

>>> import ember
>>> from ember import nn
>>> nn.KLDivLoss(reduction="batchmean")(ember.zeros(2, 2), ember.full((2, 2), 0.5)).item() < 0
True
"""

from ..errors import InvalidParameterError
from ..ops import losses_more as L
from ..ops.ctc import ctc_loss
from ..ops.linear_ce import LinearCrossEntropyOptions, linear_cross_entropy
from ..ops.nn_args import _int, _real, _reduction
from ..ops.robust_losses import _legacy
from .layers import _bool
from .losses import _opt_weight
from .module import Module

__all__ = ["KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss", "CosineEmbeddingLoss",
           "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss",
           "TripletMarginLoss", "TripletMarginWithDistanceLoss", "CosineSimilarity",
           "PairwiseDistance", "CTCLoss", "LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


def _red(layer, size_average, reduce, reduction, extra=()):
    r = _legacy(size_average, reduce, reduction)
    return r if r in extra else _reduction(r, type(layer).__name__)


class KLDivLoss(Module):
    """``F.kl_div`` as a module (``reduction`` also "batchmean").

    >>> from ember import nn
    >>> nn.KLDivLoss(log_target=True)
    KLDivLoss()
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__()
        self.reduction = _red(self, size_average, reduce, reduction, ("batchmean",))
        self.log_target = _bool(log_target, "KLDivLoss", "log_target")

    def forward(self, input, target):
        """The loss of ``input`` against ``target`` (see the class docstring)."""
        return L.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(Module):
    """``F.poisson_nll_loss`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.PoissonNLLLoss()(ember.tensor([0.0]), ember.tensor([1.0])).item()
    1.0
    """

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__()
        self.log_input = _bool(log_input, "PoissonNLLLoss", "log_input")
        self.full = _bool(full, "PoissonNLLLoss", "full")
        self.eps = _real(eps, "PoissonNLLLoss", "eps")
        self.reduction = _red(self, size_average, reduce, reduction)

    def forward(self, log_input, target):
        """The loss of ``log_input`` against ``target`` (see the class docstring)."""
        return L.poisson_nll_loss(log_input, target, self.log_input, self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(Module):
    """``F.gaussian_nll_loss`` as a module: ``forward(input, target, var)``.

    >>> from ember import nn
    >>> nn.GaussianNLLLoss(full=True)
    GaussianNLLLoss()
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__()
        self.full = _bool(full, "GaussianNLLLoss", "full")
        self.eps = _real(eps, "GaussianNLLLoss", "eps")
        self.reduction = _reduction(reduction, "GaussianNLLLoss")

    def forward(self, input, target, var):
        """The loss of ``input`` against ``target`` with variance ``var``."""
        return L.gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


class _MarginLoss(Module):
    _fn = None
    _default = 0.0

    def __init__(self, margin=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.margin = _real(self._default if margin is None else margin, type(self).__name__,
                            "margin")
        self.reduction = _red(self, size_average, reduce, reduction)

    def forward(self, *inputs):
        """The loss of the inputs and target (see the class docstring)."""
        return type(self)._fn(*inputs, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_MarginLoss):
    """``F.cosine_embedding_loss`` as a module: ``forward(input1, input2, target)``.

    >>> from ember import nn
    >>> nn.CosineEmbeddingLoss(margin=0.5).margin
    0.5
    """

    _fn = staticmethod(L.cosine_embedding_loss)

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)


class MarginRankingLoss(_MarginLoss):
    """``F.margin_ranking_loss`` as a module: ``forward(input1, input2, target)``.

    >>> from ember import nn
    >>> nn.MarginRankingLoss()
    MarginRankingLoss()
    """

    _fn = staticmethod(L.margin_ranking_loss)

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """``F.hinge_embedding_loss`` as a module.

    >>> from ember import nn
    >>> nn.HingeEmbeddingLoss().margin
    1.0
    """

    _fn = staticmethod(L.hinge_embedding_loss)

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)


class SoftMarginLoss(Module):
    """``F.soft_margin_loss`` as a module.

    >>> from ember import nn
    >>> nn.SoftMarginLoss(reduction="sum").reduction
    'sum'
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _red(self, size_average, reduce, reduction)

    def forward(self, input, target):
        """The loss of ``input`` against ``target`` (see the class docstring)."""
        return L.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(Module):
    """``F.multilabel_soft_margin_loss`` as a module; ``weight`` is a buffer.

    >>> from ember import nn
    >>> nn.MultiLabelSoftMarginLoss()
    MultiLabelSoftMarginLoss()
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.register_buffer("weight", _opt_weight(weight, "MultiLabelSoftMarginLoss"))
        self.reduction = _red(self, size_average, reduce, reduction)

    def forward(self, input, target):
        """The loss of ``input`` against ``target`` (see the class docstring)."""
        return L.multilabel_soft_margin_loss(input, target, self.weight,
                                             reduction=self.reduction)


class MultiMarginLoss(Module):
    """``F.multi_margin_loss`` as a module; ``weight`` is a buffer.

    >>> from ember import nn
    >>> nn.MultiMarginLoss(p=2).p
    2
    """

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__()
        name = "MultiMarginLoss"
        self.p = _int(p, name, "p")
        if self.p not in (1, 2):
            raise InvalidParameterError(f"{name}: p is {p}; only 1 and 2 are supported", "p", p)
        self.margin = _real(margin, name, "margin")
        self.register_buffer("weight", _opt_weight(weight, name))
        self.reduction = _red(self, size_average, reduce, reduction)

    def forward(self, input, target):
        """The loss of ``input`` against ``target`` (see the class docstring)."""
        return L.multi_margin_loss(input, target, self.p, self.margin, self.weight,
                                   reduction=self.reduction)


class MultiLabelMarginLoss(Module):
    """``F.multilabel_margin_loss`` as a module.

    >>> from ember import nn
    >>> nn.MultiLabelMarginLoss()
    MultiLabelMarginLoss()
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _red(self, size_average, reduce, reduction)

    def forward(self, input, target):
        """The loss of ``input`` against ``target`` (see the class docstring)."""
        return L.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginLoss(Module):
    """``F.triplet_margin_loss`` as a module: ``forward(anchor, positive, negative)``.

    >>> from ember import nn
    >>> nn.TripletMarginLoss(margin=0.5).margin
    0.5
    """

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None,
                 reduce=None, reduction="mean"):
        super().__init__()
        name = "TripletMarginLoss"
        self.margin = _real(margin, name, "margin")
        self.p = _real(p, name, "p")
        self.eps = _real(eps, name, "eps")
        self.swap = _bool(swap, name, "swap")
        self.reduction = _red(self, size_average, reduce, reduction)

    def forward(self, anchor, positive, negative):
        """The loss of the triplet (see the class docstring)."""
        return L.triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps,
                                     self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(Module):
    """``F.triplet_margin_with_distance_loss`` as a module.

    >>> from ember import nn
    >>> nn.TripletMarginWithDistanceLoss(margin=2.0).margin
    2.0
    """

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__()
        name = "TripletMarginWithDistanceLoss"
        self.margin = _real(margin, name, "margin")
        if self.margin <= 0:
            raise InvalidParameterError(f"{name}: margin must be greater than 0, got {margin}",
                                        "margin", margin)
        if distance_function is not None and not callable(distance_function):
            raise InvalidParameterError(f"{name}: distance_function must be callable",
                                        "distance_function", distance_function)
        self.distance_function = PairwiseDistance() if distance_function is None else \
            distance_function
        self.swap = _bool(swap, name, "swap")
        self.reduction = _reduction(reduction, name)

    def forward(self, anchor, positive, negative):
        """The loss of the triplet (see the class docstring)."""
        return L.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class CosineSimilarity(Module):
    """``F.cosine_similarity`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.CosineSimilarity(dim=0)(ember.tensor([1.0, 0.0]), ember.tensor([2.0, 0.0])).item()
    1.0
    """

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = _int(dim, "CosineSimilarity", "dim", -(1 << 62))
        self.eps = _real(eps, "CosineSimilarity", "eps")

    def forward(self, x1, x2):
        """The cosine similarity of ``x1`` and ``x2`` along ``dim``."""
        return L.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``F.pairwise_distance`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.PairwiseDistance(eps=0.0)(ember.tensor([[3.0, 4.0]]), ember.zeros(1, 2)).tolist()
    [5.0]
    """

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = _real(p, "PairwiseDistance", "p")
        self.eps = _real(eps, "PairwiseDistance", "eps")
        self.keepdim = _bool(keepdim, "PairwiseDistance", "keepdim")

    def forward(self, x1, x2):
        """The p-norm distance of ``x1`` and ``x2`` along the last dim."""
        return L.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CTCLoss(Module):
    """``F.ctc_loss`` as a module: ``forward(log_probs, targets, input_lengths,
    target_lengths)``.

    >>> from ember import nn
    >>> nn.CTCLoss(blank=1).blank
    1
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank = _int(blank, "CTCLoss", "blank", 0)
        self.reduction = _reduction(reduction, "CTCLoss")
        self.zero_infinity = _bool(zero_infinity, "CTCLoss", "zero_infinity")

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        """The CTC loss of ``log_probs`` against ``targets`` (see ``F.ctc_loss``)."""
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)


class LinearCrossEntropyLoss(Module):
    """PyTorch's ``nn.LinearCrossEntropyLoss``: a ``Linear(in_features, num_classes *
    prod(out_features))`` (its ``linear`` submodule) followed by the cross-entropy
    (``F.linear_cross_entropy``); ``weight`` is a buffer.

    >>> import ember
    >>> from ember import nn
    >>> loss = nn.LinearCrossEntropyLoss(4, 10)
    >>> loss(ember.randn(3, 4), ember.tensor([1, 2, 9])).shape
    ()
    """

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        super().__init__()
        from .layers import Linear, _prob  # noqa: PLC0415 (layers imports this module's peers)
        name = "LinearCrossEntropyLoss"
        self.num_classes = _int(num_classes, name, "num_classes", 1)
        self.out_features = tuple(_int(v, name, "out_features", 1) for v in out_features)
        if weight is not None and tuple(weight.shape) != (self.num_classes,):
            raise InvalidParameterError(f"{name}: weight has shape {tuple(weight.shape)}; "
                                        f"expected ({self.num_classes},)", "weight", weight)
        self.register_buffer("weight", _opt_weight(weight, name))
        self.reduction = _reduction(reduction, name)
        self.ignore_index = None if ignore_index is None else _int(ignore_index, name,
                                                                    "ignore_index", -(1 << 62))
        self.label_smoothing = _prob(label_smoothing, name, "label_smoothing")
        size = self.num_classes
        for v in self.out_features:
            size *= v
        self.linear = Linear(in_features, size, bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        """The loss of ``input`` (projected) against ``target``."""
        shape = (self.num_classes,) + self.out_features
        w = self.linear.weight.reshape(shape + (self.linear.in_features,))
        b = None if self.linear.bias is None else self.linear.bias.reshape(shape)
        return linear_cross_entropy(input, w, target, linear_bias=b, weight=self.weight,
                                    reduction=self.reduction, ignore_index=self.ignore_index,
                                    label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
