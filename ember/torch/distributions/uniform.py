"""``Uniform(low, high)``: the continuous uniform distribution on ``[low, high)``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Uniform
>>> d = Uniform(torch.tensor(0.0), torch.tensor(4.0))
>>> d.log_prob(torch.tensor(1.0)).exp().item(), d.cdf(torch.tensor(1.0)).item()
(0.25, 0.25)
"""

from ... import torch as _t
from ...errors import InvalidParameterError
from . import constraints
from .distribution import Distribution
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform on ``[low, high)``; ``low < high`` is checked when validation is on."""

    arg_constraints = {"low": constraints.dependent(is_discrete=False, event_dim=0),
                       "high": constraints.dependent(is_discrete=False, event_dim=0)}
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.size(), validate_args=validate_args)
        if self._validate_args and not bool(_t.lt(self.low, self.high).all()):
            raise InvalidParameterError("Uniform is not defined when low >= high", "high",
                                        self.high)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Uniform, ("low", "high"), batch_shape, _instance)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return _t.full_like(self.high, float("nan"))

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low <= value) & (self.high > value)
        return _t.log(inside.to(self.low.dtype)) - _t.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return self.low + value * (self.high - self.low)

    def entropy(self):
        return _t.log(self.high - self.low)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    kl = _t.log((q.high - q.low) / (p.high - p.low))
    outside = (q.low > p.low) | (q.high < p.high)
    return kl.masked_fill(outside, float("inf"))
