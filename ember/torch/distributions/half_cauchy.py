"""``HalfCauchy(scale)``: ``|X|`` for ``X ~ Cauchy(0, scale)``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import HalfCauchy
>>> d = HalfCauchy(torch.tensor(1.0))
>>> round(d.cdf(torch.tensor(1.0)).item(), 4), d.mean.item()
(0.5, inf)
"""

import math

from ... import torch as _t
from . import constraints
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    """The half-Cauchy distribution on ``[0, inf)``: twice the Cauchy density there; its mean
    and variance are infinite."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base = Cauchy(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return _t.full(self._extended_shape(), math.inf, dtype=self.scale.dtype,
                       device=self.scale.device)

    @property
    def mode(self):
        return _t.zeros_like(self.scale)

    @property
    def variance(self):
        return self.base_dist.variance

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = _t.as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
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
