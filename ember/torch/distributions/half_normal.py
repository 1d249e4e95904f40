"""``HalfNormal(scale)``: ``|X|`` for ``X ~ Normal(0, scale)``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import HalfNormal
>>> d = HalfNormal(torch.tensor(1.0))
>>> round(d.mean.item(), 4), round(d.cdf(torch.tensor(1.0)).item(), 4)
(0.7979, 0.6827)
"""

import math

from ... import torch as _t
from . import constraints
from .kl import register_kl
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(TransformedDistribution):
    """The half-normal distribution on ``[0, inf)``: twice the normal density there."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base = Normal(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return _t.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_p = self.base_dist.log_prob(value) + math.log(2)
        return _t.where(value >= 0, log_p, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    # both fold a centred normal: the ratio of densities is the same on either half
    ratio = (p.scale / q.scale).pow(2)
    return 0.5 * (ratio - 1 - ratio.log())
