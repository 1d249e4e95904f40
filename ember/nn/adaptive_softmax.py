"""PyTorch's ``nn.AdaptiveLogSoftmaxWithLoss`` (Grave et al.'s efficient softmax for large
vocabularies): a head over the shortlist and one entry per cluster, and a two-layer tail per
cluster, with PyTorch's parameters (names, shapes, initialization), ``forward`` returning
``(output, loss)``, ``log_prob`` and ``predict``.

>>> import ember
>>> from ember import nn
>>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], div_value=2.0)
>>> out = asm(ember.randn(5, 8), ember.tensor([0, 3, 5, 9, 7]))
>>> out.output.shape, out.loss.shape, asm.log_prob(ember.randn(2, 8)).shape
((5,), (), (2, 10))
"""

from collections import namedtuple

from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor
from ..ops.activation import log_softmax
from ..ops.masking import where
from ..ops.nn_args import _int, _real, _shape_str
from ..ops.segments import cat
from .containers import ModuleList, Sequential
from .layers import Linear, _bool
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """PyTorch's ``nn.AdaptiveLogSoftmaxWithLoss``: ``cutoffs`` (increasing, in
    (0, n_classes)) split the classes into a shortlist and clusters; cluster ``i`` has a tail
    ``Linear(in, in // div_value ** (i + 1)) -> Linear(..., cluster size)`` (no biases).
    ``forward(input, target)`` returns ``(output, loss)``: each row's log-probability of its
    target and their negated mean.

    >>> from ember import nn
    >>> nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 10]).head
    Linear(in_features=16, out_features=7, bias=False)
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        name = "AdaptiveLogSoftmaxWithLoss"
        self.in_features = _int(in_features, name, "in_features", 1)
        self.n_classes = _int(n_classes, name, "n_classes", 1)
        cutoffs = [_int(c, name, "cutoffs", 1) for c in cutoffs]
        if (cutoffs != sorted(cutoffs) or not cutoffs or cutoffs[-1] > self.n_classes - 1
                or len(set(cutoffs)) != len(cutoffs)):
            raise InvalidParameterError(
                f"{name}: cutoffs {cutoffs} should be a sequence of unique, positive integers "
                f"sorted in an increasing order, each in [1, n_classes - 1 = "
                f"{self.n_classes - 1}]", "cutoffs", cutoffs)
        self.div_value = _real(div_value, name, "div_value")
        self.head_bias = _bool(head_bias, name, "head_bias")
        self.cutoffs = cutoffs + [self.n_classes]
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = dict(device=device, dtype=dtype)
        self.head = Linear(self.in_features, self.head_size, bias=head_bias, **kw)
        tails = []
        for i in range(self.n_clusters):
            hsz = int(self.in_features // (self.div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            tails.append(Sequential(Linear(self.in_features, hsz, bias=False, **kw),
                                    Linear(hsz, osz, bias=False, **kw)))
        self.tail = ModuleList(tails)

    def _check(self, input, ndims):
        if not isinstance(input, Tensor):
            raise InvalidParameterError(f"AdaptiveLogSoftmaxWithLoss: input must be a Tensor, "
                                        f"got {type(input).__name__}", "input", input)
        if input.ndim not in ndims or input.shape[-1] != self.in_features:
            raise ShapeMismatchError(
                f"AdaptiveLogSoftmaxWithLoss: input has shape {_shape_str(input.shape)}; "
                f"expected (N, {self.in_features}) or ({self.in_features},)",
                expected=self.in_features, actual=tuple(input.shape))

    def forward(self, input, target):
        """``(output, loss)`` of ``input`` (N, in) against int ``target`` (N,) (or unbatched
        (in,) and a 0-d target)."""
        name = "AdaptiveLogSoftmaxWithLoss"
        self._check(input, (1, 2))
        if not isinstance(target, Tensor) or target.dtype.kind != "int":
            raise KindError(f"{name}: target must be an int tensor of class indices")
        if target.ndim != input.ndim - 1 or (target.ndim == 1 and
                                             target.shape[0] != input.shape[0]):
            raise ShapeMismatchError(
                f"{name}: input {_shape_str(input.shape)} and target "
                f"{_shape_str(target.shape)}; expected (N, in) with (N,), or (in,) with ()",
                expected=(input.ndim - 1,), actual=tuple(target.shape))
        batched = target.ndim == 1
        x = input if batched else input.unsqueeze(0)
        t = target if batched else target.unsqueeze(0)
        values = t.tolist()
        if any(not 0 <= v < self.n_classes for v in values):
            raise InvalidParameterError(
                f"{name}: target values should be in [0, {self.n_classes - 1}], got "
                f"[{min(values)}, {max(values)}]", "target", values)
        head_lp = log_softmax(self.head(x), 1)
        short = self.shortlist_size
        gather = t
        output = None
        for i in range(1, len(self.cutoffs)):
            low, high = self.cutoffs[i - 1], self.cutoffs[i]
            if not any(low <= v < high for v in values):
                continue  # an unused tail gets no gradient (None), as PyTorch's
            member = (t >= low) & (t < high)
            gather = where(member, short + i - 1, gather)
            rel = (t - low).clamp(0, high - low - 1).unsqueeze(1)
            local = log_softmax(self.tail[i - 1](x), 1).gather(1, rel).squeeze(1)
            term = where(member, local, 0.0)
            output = term if output is None else output + term
        head_part = head_lp.gather(1, gather.unsqueeze(1)).squeeze(1)
        output = head_part if output is None else output + head_part
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, x, head_lp):
        parts = [head_lp[:, :self.shortlist_size]]
        for i, tail in enumerate(self.tail):
            cluster = log_softmax(tail(x), 1)
            prior = head_lp[:, self.shortlist_size + i:self.shortlist_size + i + 1]
            parts.append(cluster + prior)
        return cat(parts, 1)

    def log_prob(self, input):
        """The log-probabilities of every class, (N, n_classes) (or (n_classes,)).

        >>> import ember
        >>> from ember import nn
        >>> m = nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2])
        >>> round(m.log_prob(ember.randn(3, 4)).exp().sum(1)[0].item(), 4)
        1.0
        """
        self._check(input, (1, 2))
        x = input if input.ndim == 2 else input.unsqueeze(0)
        out = self._full_log_prob(x, log_softmax(self.head(x), 1))
        return out if input.ndim == 2 else out.squeeze(0)

    def predict(self, input):
        """The most likely class of each row, (N,) int64 (or 0-d).

        >>> import ember
        >>> from ember import nn
        >>> nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2]).predict(ember.randn(3, 4)).shape
        (3,)
        """
        return self.log_prob(input).argmax(-1, keepdim=False)
