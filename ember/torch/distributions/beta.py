"""``Beta(concentration1, concentration0)``: density ``x^(a-1) (1-x)^(b-1) / B(a, b)`` on
``[0, 1]`` (``a = concentration1``, ``b = concentration0``); reparameterized samples are
``g_a / (g_a + g_b)`` of two gamma draws.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Beta
>>> d = Beta(torch.tensor([2.0]), torch.tensor([6.0]))
>>> d.mean.tolist(), [round(v, 4) for v in d.log_prob(torch.tensor([0.25])).tolist()]
([0.25], [0.913])
"""

from ... import torch as _t
from . import constraints
from ._gamma_sampling import standard_gamma
from .dirichlet import simplex_mode
from .exp_family import ExponentialFamily
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Beta"]


def _betaln(a, b):
    return _t.lgamma(a) + _t.lgamma(b) - _t.lgamma(a + b)


class Beta(ExponentialFamily):
    """The beta distribution of ``concentration1`` (the exponent of ``x``) and
    ``concentration0`` (the exponent of ``1 - x``), both > 0."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        super().__init__(self.concentration1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Beta, ("concentration1", "concentration0"), batch_shape,
                                       _instance)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return simplex_mode(_t.stack([self.concentration1, self.concentration0], -1))[..., 0]

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        # in float64, where the gammas of tiny concentrations do not underflow
        ga = standard_gamma(self.concentration1.expand(shape).to(_t.float64))
        gb = standard_gamma(self.concentration0.expand(shape).to(_t.float64))
        return (ga / (ga + gb)).to(self.concentration1.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        return _t.xlogy(a - 1, value) + _t.xlogy(b - 1, 1 - value) - _betaln(a, b)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        return (_betaln(a, b) - (a - 1) * _t.digamma(a) - (b - 1) * _t.digamma(b)
                + (a + b - 2) * _t.digamma(a + b))

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return _betaln(x, y)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    a1, b1, a2, b2 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    return (_betaln(a2, b2) - _betaln(a1, b1) + (a1 - a2) * _t.digamma(a1)
            + (b1 - b2) * _t.digamma(b1) + (a2 - a1 + b2 - b1) * _t.digamma(a1 + b1))
