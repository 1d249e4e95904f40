"""``Kumaraswamy(concentration1, concentration0)``: a Beta-like distribution on ``(0, 1)`` with
a closed-form cdf ``1 - (1 - x^a)^b``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Kumaraswamy
>>> d = Kumaraswamy(torch.tensor(2.0), torch.tensor(3.0))
>>> round(d.mean.item(), 4), round(d.log_prob(torch.tensor(0.5)).exp().item(), 4)
(0.4571, 1.6875)
"""

import math

from ... import torch as _t
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Kumaraswamy"]

_EULER_GAMMA = 0.57721566490153286060


def _raw_moment(a, b, n):
    """``E[X^n] = b B(1 + n/a, b)`` for ``X ~ Kumaraswamy(a, b)``."""
    shifted = 1 + n / a
    return b * (_t.lgamma(shifted) + _t.lgamma(b) - _t.lgamma(shifted + b)).exp()


class Kumaraswamy(TransformedDistribution):
    """Density ``a b x^(a-1) (1 - x^a)^(b-1)`` with ``a = concentration1``,
    ``b = concentration0``; samples are ``(1 - u^(1/b))^(1/a)`` for uniform ``u``."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        zeros = _t.zeros_like(self.concentration0)
        base = Uniform(zeros, zeros + 1, validate_args=validate_args)
        # u -> u^(1/b) -> 1 - u^(1/b) -> (1 - u^(1/b))^(1/a): the inverse of the cdf
        chain = [PowerTransform(self.concentration0.reciprocal()), AffineTransform(1.0, -1.0),
                 PowerTransform(self.concentration1.reciprocal())]
        super().__init__(base, chain, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _raw_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        """``((a - 1) / (a b - 1))^(1/a)`` where ``a, b >= 1`` (the density's maximum), NaN
        elsewhere (the density is unbounded or peaks at an end)."""
        a, b = self.concentration1, self.concentration0
        mode = ((a - 1) / (a * b - 1)).pow(a.reciprocal())
        return mode.masked_fill((a < 1) | (b < 1), math.nan)

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _raw_moment(a, b, 2) - _raw_moment(a, b, 1).pow(2)

    def entropy(self):
        # (1 - 1/b) + (1 - 1/a) H_b - log(a b), with the harmonic number H_b = psi(b+1) + gamma
        a, b = self.concentration1, self.concentration0
        harmonic = _t.digamma(b + 1) + _EULER_GAMMA
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - a.log() - b.log()
