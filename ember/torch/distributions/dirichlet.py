"""``Dirichlet(concentration)``: distributions on the probability simplex, density
``prod x_i^(a_i - 1) / B(a)``; reparameterized samples are normalised gamma draws.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Dirichlet
>>> d = Dirichlet(torch.tensor([1.0, 2.0, 5.0]))
>>> d.mean.tolist(), d.event_shape, d.sample().shape
([0.125, 0.25, 0.625], torch.Size([3]), torch.Size([3]))
"""

from ... import torch as _t
from ...errors import InvalidParameterError
from . import constraints
from ._gamma_sampling import standard_gamma
from .exp_family import ExponentialFamily
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Dirichlet"]


def simplex_mode(concentration):
    """The mode over the last dim: ``(a - 1)+ / sum (a - 1)+``; undefined (nan) where the
    positive parts are all 0, except that when every ``a < 1`` the first vertex is given (the
    density is unbounded at each vertex), as PyTorch does."""
    excess = (concentration - 1).clamp(min=0)
    mode = excess / excess.sum(-1, keepdim=True)
    all_below = (concentration < 1).all(-1, keepdim=True)
    first = _t.zeros_like(concentration)
    first[..., 0] = 1
    return _t.where(all_below, first, mode)


def log_beta(concentration):
    """``log B(a) = sum lgamma(a_i) - lgamma(sum a_i)`` over the last dim."""
    return _t.lgamma(concentration).sum(-1) - _t.lgamma(concentration.sum(-1))


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution of ``concentration`` (last dim: the categories, each > 0)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        (concentration,) = broadcast_all(concentration)
        if concentration.dim() < 1:
            raise InvalidParameterError("`concentration` parameter must be at least "
                                        "one-dimensional.", "concentration", concentration)
        self.concentration = concentration
        shape = concentration.shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Dirichlet, ("concentration",), batch_shape, _instance)

    def rsample(self, sample_shape=()):
        # normalised in float64, where the gammas of tiny concentrations do not underflow
        a = self.concentration.expand(self._extended_shape(sample_shape))
        g = standard_gamma(a.to(_t.float64))
        return (g / g.sum(-1, keepdim=True)).to(a.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return _t.xlogy(self.concentration - 1, value).sum(-1) - log_beta(self.concentration)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        return simplex_mode(self.concentration)

    @property
    def variance(self):
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        a = self.concentration
        total = a.sum(-1)
        k = a.shape[-1]
        return (log_beta(a) + (total - k) * _t.digamma(total)
                - ((a - 1) * _t.digamma(a)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return log_beta(x)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    total = a.sum(-1, keepdim=True)
    return (log_beta(b) - log_beta(a)
            + ((a - b) * (_t.digamma(a) - _t.digamma(total))).sum(-1))
