"""``InverseGamma(concentration, rate)``: the law of ``1 / X`` for ``X ~ Gamma(concentration,
rate)``, density ``rate^a x^(-a-1) exp(-rate / x) / Gamma(a)`` on ``x > 0``.

PyTorch builds it as a TransformedDistribution of Gamma by ``PowerTransform(-1)``; here it is a
plain Distribution with the same values (no ``base_dist``/``transforms`` attributes).

>>> import ember.torch as torch
>>> from ember.torch.distributions import InverseGamma
>>> d = InverseGamma(torch.tensor([3.0]), torch.tensor([2.0]))
>>> d.mean.tolist(), d.mode.tolist(), d.variance.tolist()
([1.0], [0.5], [1.0])
"""

import math

from ... import torch as _t
from . import constraints
from .distribution import Distribution
from .gamma import gamma_rsample, kl_gamma_gamma
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["InverseGamma"]


class InverseGamma(Distribution):
    """The inverse gamma distribution of shape ``concentration`` (> 0) and scale ``rate``
    (> 0)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(InverseGamma, ("concentration", "rate"), batch_shape,
                                       _instance)

    @property
    def mean(self):
        a = self.concentration
        return _t.where(a > 1, self.rate / (a - 1), _t.full_like(a, math.inf))

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        a = self.concentration
        return _t.where(a > 2, self.rate.pow(2) / ((a - 1).pow(2) * (a - 2)),
                        _t.full_like(a, math.inf))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return gamma_rsample(self.concentration, self.rate, shape).reciprocal()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, rate = self.concentration, self.rate
        return a * _t.log(rate) - _t.lgamma(a) - (a + 1) * _t.log(value) - rate / value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _t.special.gammaincc(self.concentration, self.rate / value)

    def entropy(self):
        a = self.concentration
        return a + _t.log(self.rate) + _t.lgamma(a) - (1 + a) * _t.digamma(a)


@register_kl(InverseGamma, InverseGamma)
def _kl_inverse_gamma_inverse_gamma(p, q):
    return kl_gamma_gamma(p.concentration, p.rate, q.concentration, q.rate)
