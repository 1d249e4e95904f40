"""``GeneralizedPareto(loc, scale, concentration)``: the survival function
``(1 + xi z)^(-1/xi)`` of ``z = (x - loc) / scale`` (``exp(-z)`` at ``xi = 0``); values
``>= loc``, and ``<= loc - scale / xi`` when ``xi < 0``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import GeneralizedPareto
>>> d = GeneralizedPareto(torch.tensor([0.0]), torch.tensor([1.0]), torch.tensor([0.0]))
>>> round(d.cdf(torch.tensor([1.0])).item(), 4), d.mean.tolist()
(0.6321, [1.0])
"""

import math

from ... import torch as _t
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]

_SERIES_BELOW = 1e-4  # |w| under which log1p(w)/w and expm1(w)/w are their Taylor series


def _log1p_over(w):
    """``log1p(w) / w``, continuous (value and gradients) through ``w = 0``."""
    small = w.abs() < _SERIES_BELOW
    safe = _t.where(small, _t.ones_like(w), w)
    series = 1 - w * (0.5 - w * (1.0 / 3.0 - w * 0.25))
    return _t.where(small, series, _t.log1p(safe) / safe)


def _expm1_over(w):
    """``expm1(w) / w``, continuous (value and gradients) through ``w = 0``."""
    small = w.abs() < _SERIES_BELOW
    safe = _t.where(small, _t.ones_like(w), w)
    series = 1 + w * (0.5 + w * (1.0 / 6.0 + w / 24.0))
    return _t.where(small, series, _t.expm1(safe) / safe)


class GeneralizedPareto(Distribution):
    """Location ``loc``, scale ``scale`` (> 0) and shape ``concentration`` (real)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(GeneralizedPareto, ("loc", "scale", "concentration"),
                                       batch_shape, _instance)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        xi = self.concentration
        bounded = xi < 0
        safe = _t.where(bounded, xi, -_t.ones_like(xi))
        upper = _t.where(bounded, self.loc - self.scale / safe, _t.full_like(xi, math.inf))
        return constraints.interval(self.loc, upper)

    def _z(self, value):
        return (value - self.loc) / self.scale

    def log_survival_function(self, value):
        """``log P(X > value) = -log1p(xi z) / xi``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        return -z * _log1p_over(self.concentration * z)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        return -_t.log(self.scale) - (1 + self.concentration) * z * _log1p_over(
            self.concentration * z)

    def log_cdf(self, value):
        """``log P(X <= value)``."""
        return _t.log(-_t.expm1(self.log_survival_function(value)))

    def cdf(self, value):
        return -_t.expm1(self.log_survival_function(value))

    def icdf(self, value):
        # the z with survival 1 - value: ((1 - value)^(-xi) - 1) / xi; at value 1 the upper end
        # of the support, -1 / xi for xi < 0 and infinite otherwise
        xi = self.concentration
        top = value == 1
        tail = -_t.log1p(-_t.where(top, _t.zeros_like(value), value))
        z = tail * _expm1_over(xi * tail)
        bounded = xi < 0
        end = _t.where(bounded, -1 / _t.where(bounded, xi, -_t.ones_like(xi)),
                       _t.full_like(xi, math.inf))
        return self.loc + self.scale * _t.where(top, end, z)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    @property
    def mean(self):
        xi = self.concentration
        finite = xi < 1
        safe = _t.where(finite, xi, _t.zeros_like(xi))
        return _t.where(finite, self.loc + self.scale / (1 - safe), _t.full_like(xi, math.nan))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        xi = self.concentration
        finite = xi < 0.5
        safe = _t.where(finite, xi, _t.zeros_like(xi))
        var = self.scale.pow(2) / ((1 - safe).pow(2) * (1 - 2 * safe))
        return _t.where(finite, var, _t.full_like(xi, math.nan))

    def entropy(self):
        return _t.log(self.scale) + self.concentration + 1
