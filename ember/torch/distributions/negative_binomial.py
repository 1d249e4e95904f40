"""``NegativeBinomial(total_count, probs=None, logits=None)``: the number of successes before
``total_count`` failures, each trial succeeding with probability ``probs``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import NegativeBinomial
>>> d = NegativeBinomial(2.0, torch.tensor([0.5]))
>>> d.mean.tolist(), round(d.log_prob(torch.tensor([1.0])).exp().item(), 4)
([2.0], 0.25)
"""

from ... import torch as _t
from . import constraints
from ._gamma_sampling import standard_gamma
from .binary_parameters import BinaryProbsLogits, store_probs_or_logits
from .distribution import Distribution

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbsLogits, Distribution):
    """Values ``0, 1, 2, ...``; ``total_count`` (> = 0, real) and exactly one of ``probs``
    (in [0, 1)) / ``logits``."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        (self.total_count,) = store_probs_or_logits(self, probs, logits, total_count)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(NegativeBinomial, ("total_count", "probs", "logits"),
                                       batch_shape, _instance)

    @property
    def mean(self):
        return self.total_count * _t.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * _t.exp(self.logits)).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / _t.sigmoid(-self.logits)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            # a Poisson whose rate is Gamma(total_count, scale = p / (1 - p)) distributed
            rate = standard_gamma(self.total_count.expand(shape)) * _t.exp(self.logits)
            return _t.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        r, lg = self.total_count, self.logits
        logsig = _t.nn.functional.logsigmoid
        log_powers = r * logsig(-lg) + value * logsig(lg)
        # log C(k + r - 1, k) = lgamma(k + r) - lgamma(k + 1) - lgamma(r); 0 when k + r = 0
        none = (r + value) == 0
        one = _t.ones_like(log_powers)
        total = _t.where(none, one, (r + value) * one)
        count = _t.where(none, one, r * one)
        log_choose = _t.lgamma(total) - _t.lgamma(value + 1.0) - _t.lgamma(count)
        return log_powers + _t.where(none, _t.zeros_like(log_choose), log_choose)
