"""``Weibull(scale, concentration)``: the density
``(k / s) (x / s)^(k - 1) exp(-(x / s)^k)`` on ``(0, inf)``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Weibull
>>> d = Weibull(torch.tensor([2.0]), torch.tensor([1.0]))
>>> d.mean.tolist(), round(d.cdf(torch.tensor([2.0])).item(), 4)
([2.0], 0.6321)
"""

from ... import torch as _t
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Weibull"]

_EULER_GAMMA = 0.57721566490153286060


class Weibull(Distribution):
    """Positive values of scale ``scale`` (> 0) and shape ``concentration`` (> 0)."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        super().__init__(self.scale.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Weibull, ("scale", "concentration"), batch_shape,
                                       _instance)

    @property
    def mean(self):
        return self.scale * _t.exp(_t.lgamma(1 + self.concentration.reciprocal()))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k).clamp(min=0).pow(k.reciprocal())

    @property
    def variance(self):
        k = self.concentration
        return self.scale.pow(2) * (_t.exp(_t.lgamma(1 + 2 / k))
                                    - _t.exp(2 * _t.lgamma(1 + 1 / k)))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.scale.dtype, device=self.scale.device)
        # (x / s)^k is a standard exponential draw, -log u
        e = -_t.log(u.clamp(min=_t.finfo(u.dtype).tiny))
        return self.scale * e.pow(self.concentration.reciprocal())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        log_z = _t.log(value / self.scale)
        return _t.log(k / self.scale) + (k - 1) * log_z - _t.exp(k * log_z)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -_t.expm1(-(value / self.scale).pow(self.concentration))

    def icdf(self, value):
        return self.scale * (-_t.log1p(-value)).pow(self.concentration.reciprocal())

    def entropy(self):
        k = self.concentration
        return _EULER_GAMMA * (1 - k.reciprocal()) + _t.log(self.scale / k) + 1


