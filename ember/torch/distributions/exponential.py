"""``Exponential(rate)``: waiting times of a Poisson process, density ``rate * exp(-rate x)``
on ``x >= 0``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Exponential
>>> d = Exponential(torch.tensor([2.0]))
>>> d.mean.tolist(), [round(v, 4) for v in d.cdf(torch.tensor([1.0])).tolist()]
([0.5], [0.8647])
"""

from ... import torch as _t
from . import constraints
from .exp_family import ExponentialFamily
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """The exponential distribution of ``rate`` (> 0): mean ``1 / rate``."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Exponential, ("rate",), batch_shape, _instance)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return _t.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.rate.dtype, device=self.rate.device)
        return -_t.log1p(-u) / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _t.log(self.rate) - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -_t.expm1(-self.rate * value)

    def icdf(self, value):
        return -_t.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - _t.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -_t.log(-x)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - 1 - _t.log(ratio)
