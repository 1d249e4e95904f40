"""``Gumbel(loc, scale)``: the type-I extreme value distribution, with cdf
``exp(-exp(-(x - loc) / scale))``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Gumbel
>>> d = Gumbel(torch.tensor([0.0]), torch.tensor([1.0]))
>>> round(d.cdf(torch.tensor([0.0])).item(), 4), d.mode.tolist()
(0.3679, [0.0])
"""

import math

from ... import torch as _t
from . import constraints
from .distribution import Distribution
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Gumbel"]

_EULER_GAMMA = 0.57721566490153286060


class Gumbel(Distribution):
    """Real values; location ``loc``, scale ``scale`` (> 0)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Gumbel, ("loc", "scale"), batch_shape, _instance)

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        finfo = _t.finfo(self.loc.dtype)
        u = _t.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u.clamp(min=finfo.tiny, max=1 - finfo.eps))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -(z + _t.exp(-z)) - _t.log(self.scale)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _t.exp(-_t.exp(-(value - self.loc) / self.scale))

    def icdf(self, value):
        return self.loc - self.scale * _t.log(-_t.log(value))

    def entropy(self):
        return _t.log(self.scale) + 1 + _EULER_GAMMA


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # -H(p) - E_p[log q]: with G standard Gumbel, E[G] = gamma and E[exp(-t G)] = Gamma(1 + t)
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    return (_t.log(q.scale / p.scale) + shift + ratio * _EULER_GAMMA
            + _t.exp(-shift + _t.lgamma(1 + ratio)) - 1 - _EULER_GAMMA)
