"""``Gamma(concentration, rate)``: density ``rate^a x^(a-1) exp(-rate x) / Gamma(a)`` on
``x >= 0`` (``a`` the concentration), with reparameterized samples.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Gamma
>>> d = Gamma(torch.tensor([2.0]), torch.tensor([4.0]))
>>> d.mean.tolist(), d.variance.tolist(), [round(v, 4) for v in d.cdf(torch.tensor([0.5])).tolist()]
([0.5], [0.125], [0.594])
"""

from ... import torch as _t
from . import constraints
from ._gamma_sampling import standard_gamma
from .exp_family import ExponentialFamily
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Gamma"]


def _keep_positive(x):
    """``x`` raised to its dtype's smallest normal number where it underflowed, with the
    gradient passing through unchanged."""
    return x + (x.clamp(min=_t.finfo(x.dtype).tiny) - x).detach()


def gamma_rsample(concentration, rate, shape):
    """Gamma(``concentration``, ``rate``) samples of ``shape`` (parameters broadcast to it),
    differentiable in both parameters."""
    return _keep_positive(standard_gamma(concentration.expand(shape)) / rate.expand(shape))


class Gamma(ExponentialFamily):
    """The gamma distribution of shape ``concentration`` (> 0) and ``rate`` (> 0)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Gamma, ("concentration", "rate"), batch_shape, _instance)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        return gamma_rsample(self.concentration, self.rate, self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, rate = self.concentration, self.rate
        return _t.xlogy(a, rate) + _t.xlogy(a - 1, value) - rate * value - _t.lgamma(a)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _t.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        a = self.concentration
        return a - _t.log(self.rate) + _t.lgamma(a) + (1 - a) * _t.digamma(a)

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return _t.lgamma(x + 1) + (x + 1) * _t.log(-y.reciprocal())


def kl_gamma_gamma(p_concentration, p_rate, q_concentration, q_rate):
    """KL(Gamma(p) || Gamma(q)) from the four parameters (also InverseGamma's: KL does not
    change under the map x -> 1/x applied to both)."""
    return ((p_concentration - q_concentration) * _t.digamma(p_concentration)
            - _t.lgamma(p_concentration) + _t.lgamma(q_concentration)
            + q_concentration * (_t.log(p_rate) - _t.log(q_rate))
            + p_concentration * (q_rate - p_rate) / p_rate)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    return kl_gamma_gamma(p.concentration, p.rate, q.concentration, q.rate)
