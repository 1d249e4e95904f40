"""KL divergences between different families among Beta, Exponential, Gamma, Normal and
Uniform (the pairs PyTorch registers). Each finite one is ``-H(p) - E_p[log q(x)]`` with the
expectation in closed form from p's moments (``E[x]``, ``E[x^2]``, ``E[log x]``,
``E[log(1 - x)]``); a pair is infinite where p puts mass outside q's support.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Exponential, Gamma, kl_divergence
>>> one = torch.tensor(1.0)
>>> kl_divergence(Exponential(one), Gamma(one, one)).item()
0.0
"""

import math

from ... import torch as _t
from .beta import Beta
from .exponential import Exponential
from .gamma import Gamma
from .kl import register_kl
from .normal import Normal
from .uniform import Uniform

__all__ = []

_EULER = 0.5772156649015329
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _infinite(like):
    return _t.full_like(like, math.inf)


# -- E_p[log q(x)] for each q, from p's moments ---------------------------------------------

def _expected_log_exponential(q, mean):
    return _t.log(q.rate) - q.rate * mean


def _expected_log_gamma(q, mean, mean_log):
    a, rate = q.concentration, q.rate
    return a * _t.log(rate) - _t.lgamma(a) + (a - 1) * mean_log - rate * mean


def _expected_log_normal(q, mean, variance):
    return (-_t.log(q.scale) - _LOG_SQRT_2PI
            - (variance + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2)))


def _beta_mean_logs(p):
    """``E[log x]`` and ``E[log(1 - x)]`` of a Beta."""
    total = _t.digamma(p.concentration1 + p.concentration0)
    return _t.digamma(p.concentration1) - total, _t.digamma(p.concentration0) - total


def _uniform_mean_log(low, high):
    """``E[log x]`` of Uniform(low, high) with ``0 <= low``: ``[x log x - x]`` over the width."""
    def antiderivative(x):
        return _t.xlogy(x, x) - x
    return (antiderivative(high) - antiderivative(low)) / (high - low)


# -- p = Beta ------------------------------------------------------------------------------

@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() - _expected_log_exponential(q, p.mean)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    return -p.entropy() - _expected_log_gamma(q, p.mean, _beta_mean_logs(p)[0])


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    return -p.entropy() - _expected_log_normal(q, p.mean, p.variance)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    kl = -p.entropy() + _t.log(q.high - q.low)
    return _t.where((q.low > 0) | (q.high < 1), _infinite(kl), kl)


# -- p = Exponential -----------------------------------------------------------------------

@register_kl(Exponential, Beta)
@register_kl(Exponential, Uniform)
def _kl_exponential_bounded(p, q):
    return _infinite(p.rate)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    mean_log = -_EULER - _t.log(p.rate)
    return -p.entropy() - _expected_log_gamma(q, p.mean, mean_log)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    return -p.entropy() - _expected_log_normal(q, p.mean, p.variance)


# -- p = Gamma -----------------------------------------------------------------------------

@register_kl(Gamma, Beta)
@register_kl(Gamma, Uniform)
def _kl_gamma_bounded(p, q):
    return _infinite(p.concentration)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - _expected_log_exponential(q, p.mean)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    return -p.entropy() - _expected_log_normal(q, p.mean, p.variance)


# -- p = Normal (support: the whole line) --------------------------------------------------

@register_kl(Normal, Beta)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
def _kl_normal_half_line_or_bounded(p, q):
    return _infinite(p.loc)


# -- p = Uniform ---------------------------------------------------------------------------

@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    low, high = p.low, p.high
    inside = (low >= 0) & (high <= 1)
    lo, hi = _t.where(inside, low, _t.zeros_like(low)), _t.where(inside, high, _t.ones_like(high))
    mean_log = _uniform_mean_log(lo, hi)
    mean_log1m = _uniform_mean_log(1 - hi, 1 - lo)
    a, b = q.concentration1, q.concentration0
    expected = ((a - 1) * mean_log + (b - 1) * mean_log1m
                - (_t.lgamma(a) + _t.lgamma(b) - _t.lgamma(a + b)))
    kl = -_t.log(high - low) - expected
    return _t.where(inside, kl, _infinite(kl))


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    kl = -_t.log(p.high - p.low) - _expected_log_exponential(q, p.mean)
    return _t.where(p.low < 0, _infinite(kl), kl)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    inside = p.low >= 0
    low = _t.where(inside, p.low, _t.zeros_like(p.low))
    high = _t.where(inside, p.high, _t.ones_like(p.high))
    expected = _expected_log_gamma(q, p.mean, _uniform_mean_log(low, high))
    kl = -_t.log(p.high - p.low) - expected
    return _t.where(inside, kl, _infinite(kl))


