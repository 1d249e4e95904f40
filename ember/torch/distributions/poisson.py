"""``Poisson(rate)``: counts of events that occur at mean ``rate``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Poisson
>>> d = Poisson(torch.tensor([2.0]))
>>> d.variance.tolist(), round(d.log_prob(torch.tensor([1.0])).exp().item(), 4)
([2.0], 0.2707)
"""

from ... import torch as _t
from . import constraints
from .exp_family import ExponentialFamily
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Values ``0, 1, 2, ...`` with ``P(k) = rate^k e^(-rate) / k!``; ``rate >= 0``."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Poisson, ("rate",), batch_shape, _instance)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return _t.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return _t.xlogy(value, rate) - rate - _t.lgamma(value + 1)

    @property
    def _natural_params(self):
        return (_t.log(self.rate),)

    def _log_normalizer(self, x):
        return _t.exp(x)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    # rate_p log(rate_p / rate_q) - rate_p + rate_q; infinite where q's rate is 0 and p's is not
    kl = _t.xlogy(p.rate, p.rate) - _t.xlogy(p.rate, q.rate) - p.rate + q.rate
    return kl.masked_fill((q.rate == 0) & (p.rate > 0), float("inf"))
