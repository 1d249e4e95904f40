"""``Cauchy(loc, scale)``: the Cauchy (Lorentz) distribution, a ratio of independent normals.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Cauchy
>>> d = Cauchy(torch.tensor(0.0), torch.tensor(1.0))
>>> round(d.cdf(torch.tensor(1.0)).item(), 4), round(d.log_prob(torch.tensor(0.0)).item(), 4)
(0.75, -1.1447)
"""

import math

from ... import torch as _t
from . import constraints
from .distribution import Distribution
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """Density ``1 / (pi scale (1 + ((x - loc) / scale)^2))``; it has no mean or variance
    (``mean`` is NaN, ``variance`` infinite)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Cauchy, ("loc", "scale"), batch_shape, _instance)

    @property
    def mean(self):
        return _t.full(self._extended_shape(), math.nan, dtype=self.loc.dtype,
                       device=self.loc.device)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return _t.full(self._extended_shape(), math.inf, dtype=self.loc.dtype,
                       device=self.loc.device)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + self.scale * _t.tan(math.pi * (u - 0.5))  # the inverse cdf at u

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z * z).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _t.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return self.loc + self.scale * _t.tan(math.pi * (value - 0.5))

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    # closed form (Chyzak & Nielsen 2019): log(((s_p + s_q)^2 + (l_p - l_q)^2) / (4 s_p s_q))
    num = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return (num / (4 * p.scale * q.scale)).log()
