"""``Laplace(loc, scale)``: the double-exponential density ``exp(-|x - loc| / scale) / (2 scale)``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Laplace
>>> d = Laplace(torch.tensor([0.0]), torch.tensor([1.0]))
>>> d.variance.tolist(), d.cdf(torch.tensor([0.0])).tolist()
([2.0], [0.5])
"""

import math

from ... import torch as _t
from . import constraints
from .distribution import Distribution
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Real values around ``loc`` with spread ``scale`` (> 0)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Laplace, ("loc", "scale"), batch_shape, _instance)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        dtype = self.loc.dtype
        # u uniform on (-1, 1): |u| sets the exponential magnitude, its sign the side
        u = _t.rand(shape, dtype=dtype, device=self.loc.device) * 2 - 1
        u = u.clamp(min=_t.finfo(dtype).eps - 1)
        return self.loc - self.scale * u.sign() * _t.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -_t.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * _t.expm1(-d.abs() / self.scale)

    def icdf(self, value):
        c = value - 0.5
        return self.loc - self.scale * c.sign() * _t.log1p(-2 * c.abs())

    def entropy(self):
        return 1 + _t.log(2 * self.scale)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    # log(b_q / b_p) + |m_p - m_q| / b_q + (b_p / b_q) exp(-|m_p - m_q| / b_p) - 1
    ratio = p.scale / q.scale
    gap = (p.loc - q.loc).abs()
    return -_t.log(ratio) + gap / q.scale + ratio * _t.exp(-gap / p.scale) - 1
