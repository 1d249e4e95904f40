"""The KL divergences between different families, ``KL(p || q) = E_p[log p(X) - log q(X)]``,
written as ``-H(p) - E_p[log q(X)]`` with the expectation in closed form; infinite wherever
``p`` puts mass where ``q`` has none.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Normal, Uniform, kl_divergence
>>> kl_divergence(Normal(0.0, 1.0), Uniform(-1.0, 1.0)).item()
inf
"""

import math

from ... import torch as _t
from .bernoulli import Bernoulli
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .gumbel import Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform

__all__ = []

_INF = float("inf")


def _infinite(like, p, q):
    shape = _t.broadcast_shapes(p.batch_shape, q.batch_shape)
    return _t.full(shape, _INF, dtype=like.dtype, device=like.device)


# -- support of p not inside that of q: always infinite ----------------------------------------
def _register_infinite(type_p, type_q, param):
    @register_kl(type_p, type_q)
    def _kl_infinite(p, q):
        return _infinite(getattr(p, param), p, q)
    _kl_infinite.__name__ = f"_kl_{type_p.__name__.lower()}_{type_q.__name__.lower()}"
    return _kl_infinite


for _p, _q, _param in [
        (ContinuousBernoulli, Pareto, "probs"),  # [0, 1] against [scale, inf), scale > 0
        (Gumbel, Uniform, "loc"), (Gumbel, Pareto, "loc"), (Gumbel, ContinuousBernoulli, "loc"),
        (Laplace, Uniform, "loc"), (Laplace, Pareto, "loc"),
        (Laplace, ContinuousBernoulli, "loc"),
        (Normal, Uniform, "loc"), (Normal, Pareto, "loc"), (Normal, ContinuousBernoulli, "loc"),
        (Pareto, Uniform, "scale"), (Pareto, ContinuousBernoulli, "scale"),  # unbounded above
        (Poisson, Binomial, "rate"), (Poisson, Bernoulli, "rate")]:  # unbounded counts
    _register_infinite(_p, _q, _param)


# -- against a Normal: E_p[(X - m)^2] = Var_p + (E_p X - m)^2 -----------------------------------
def _kl_to_normal(entropy, mean, variance, q):
    var_q = q.scale.pow(2)
    return (-entropy + 0.5 * _t.log(2 * math.pi * var_q)
            + (variance + (mean - q.loc).pow(2)) / (2 * var_q))


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    return _kl_to_normal(p.entropy(), p.mean, p.variance, q)


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    return _kl_to_normal(p.entropy(), p.mean, p.variance, q)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    return _kl_to_normal(p.entropy(), p.mean, p.variance, q)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    # the second moment is infinite for alpha <= 2, and so is the divergence (computed at a
    # finite stand-in there, so that no infinity reaches the gradients)
    heavy = p.alpha <= 2
    finite = Pareto(p.scale, _t.where(heavy, _t.full_like(p.alpha, 3.0), p.alpha),
                    validate_args=False)
    kl = _kl_to_normal(finite.entropy(), finite.mean, finite.variance, q)
    return kl.masked_fill(heavy, _INF)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    return _kl_to_normal(p.entropy(), p.mean, p.variance, q)


# -- a Normal against others ------------------------------------------------------------------
@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    # E[z] and E[exp(-z)] of z = (X - loc_q) / scale_q, X normal (a log-normal mean)
    shift = (p.loc - q.loc) / q.scale
    spread = p.scale / q.scale
    return (-p.entropy() + _t.log(q.scale) + shift + _t.exp(-shift + 0.5 * spread.pow(2)))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # E|X - loc_q| for X normal: the mean of a folded normal
    d = p.loc - q.loc
    folded = (p.scale * math.sqrt(2 / math.pi) * _t.exp(-0.5 * (d / p.scale).pow(2))
              + d * _t.erf(d / (p.scale * math.sqrt(2))))
    return -p.entropy() + _t.log(2 * q.scale) + folded / q.scale


# -- a Uniform against others ------------------------------------------------------------------
@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    width = p.high - p.low
    z_low, z_high = (p.low - q.loc) / q.scale, (p.high - q.loc) / q.scale
    mean_exp = q.scale / width * (_t.exp(-z_low) - _t.exp(-z_high))
    return -_t.log(width) + _t.log(q.scale) + (z_low + z_high) / 2 + mean_exp


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    outside = p.low < q.scale
    # a harmless interval [scale, scale + 1) where the value is infinite anyway
    low = _t.where(outside, q.scale, p.low)
    high = _t.where(outside, q.scale + 1, p.high)
    width = high - low
    # E[log X] over [low, high): the mean of x log x - x between the ends
    mean_log = (_t.xlogy(high, high) - high - _t.xlogy(low, low) + low) / width
    kl = (-_t.log(width) - _t.log(q.alpha) - q.alpha * _t.log(q.scale)
          + (q.alpha + 1) * mean_log)
    return kl.masked_fill(outside, _INF)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    mean = p.mean
    kl = (-_t.log(p.high - p.low) - q._log_norm() - mean * _t.log(q.probs)
          - (1 - mean) * _t.log1p(-q.probs))
    return kl.masked_fill((p.low < 0) | (p.high > 1), _INF)


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    kl = -p.entropy() + _t.log(q.high - q.low)
    return kl.masked_fill((q.low > 0) | (q.high < 1), _INF)


# -- counts ------------------------------------------------------------------------------------
@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    # p log p + (1-p) log(1-p) - [(1-p)(-rate) + p (log rate - rate)]
    pr = p.probs
    return _t.xlogy(pr, pr) + _t.xlogy(1 - pr, 1 - pr) + q.rate - _t.xlogy(pr, q.rate)


del _p, _q, _param
