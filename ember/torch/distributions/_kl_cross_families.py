"""The KL divergences PyTorch registers between the gamma family (Beta, Exponential, Gamma) and
the other univariate families (ContinuousBernoulli, Gumbel, Laplace, Pareto):
``KL(p || q) = -H(p) - E_p[log q(x)]`` with the expectation in closed form, or ``inf`` where
``p`` puts mass outside ``q``'s support.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Exponential, Pareto, kl_divergence
>>> kl_divergence(Exponential(torch.tensor(1.0)), Pareto(torch.tensor(1.0), torch.tensor(2.0)))
tensor(inf)
"""

from ... import torch as _t
from .beta import Beta
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from ._kl_pairs import _register_infinite
from .kl import register_kl
from .laplace import Laplace
from .pareto import Pareto

__all__ = []


for _p, _q, _param in [
        (Exponential, ContinuousBernoulli, "rate"), (Exponential, Pareto, "rate"),
        (Gamma, ContinuousBernoulli, "rate"), (Gamma, Pareto, "rate"), (Beta, Pareto, "mean"),
        (Gumbel, Beta, "loc"), (Gumbel, Exponential, "loc"), (Gumbel, Gamma, "loc"),
        (Laplace, Beta, "loc"), (Laplace, Exponential, "loc"), (Laplace, Gamma, "loc"),
        (Pareto, Beta, "scale")]:
    _register_infinite(_p, _q, _param)
del _p, _q, _param


def _minus_exponential_log_density(mean_x, q):
    """``-E[log q(x)]`` for ``q`` Exponential(rate): ``rate * E[x] - log rate``."""
    return q.rate * mean_x - _t.log(q.rate)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() + _minus_exponential_log_density(p.mean, q)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    # E[x] is finite only for alpha > 1
    return -p.entropy() + _minus_exponential_log_density(p.mean, q)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    # log q(x) = x log(lambda) + (1 - x) log(1 - lambda) + log C(lambda): linear in x
    return -p.entropy() - q.log_prob(p.mean)


def _minus_gumbel_log_density(mean_x, mean_exp_minus_x_over_scale, q):
    """``-E[log q(x)]`` for ``q`` Gumbel(loc, scale): with z = (x - loc) / scale,
    ``log scale + E[z] + E[exp(-z)]``."""
    return (_t.log(q.scale) + (mean_x - q.loc) / q.scale
            + _t.exp(q.loc / q.scale) * mean_exp_minus_x_over_scale)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    # E[exp(-x / s)] of Exponential(rate) = rate / (rate + 1 / s)
    laplace_transform = p.rate / (p.rate + 1 / q.scale)
    return -p.entropy() + _minus_gumbel_log_density(p.mean, laplace_transform, q)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    # E[exp(-x / s)] of Gamma(a, rate) = (rate / (rate + 1 / s)) ** a
    laplace_transform = (p.rate / (p.rate + 1 / q.scale)).pow(p.concentration)
    return -p.entropy() + _minus_gumbel_log_density(p.mean, laplace_transform, q)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    # -log q(x) = lgamma(a) - a log(rate) - (a - 1) log x + rate x, and for Pareto(scale, alpha)
    # E[log x] = log(scale) + 1 / alpha
    mean_log_x = _t.log(p.scale) + 1 / p.alpha
    minus_log_q = (_t.lgamma(q.concentration) - q.concentration * _t.log(q.rate)
                   - (q.concentration - 1) * mean_log_x + q.rate * p.mean)
    return -p.entropy() + minus_log_q
