"""``ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501))``: the density
``C(p) p^x (1 - p)^(1 - x)`` on ``[0, 1]`` (Loaiza-Ganem and Cunningham, 2019).

The normaliser ``C(p) = 2 artanh(1 - 2p) / (1 - 2p)`` and the moments lose their precision near
``p = 1/2``; for ``p`` inside ``lims`` they are their Taylor expansions about 1/2, and ``cdf``
and ``icdf`` are the identity there (the uniform limit).

>>> import ember.torch as torch
>>> from ember.torch.distributions import ContinuousBernoulli
>>> d = ContinuousBernoulli(torch.tensor([0.5]))
>>> d.mean.tolist(), round(d.log_prob(torch.tensor([0.3])).item(), 4)
([0.5], 0.0)
"""

import math

from ... import torch as _t
from . import constraints
from .binary_parameters import BinaryProbsLogits, store_probs_or_logits
from .exp_family import ExponentialFamily
from .kl import register_kl
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(BinaryProbsLogits, ExponentialFamily):
    """Values in ``[0, 1]``; exactly one of ``probs`` (in [0, 1], kept ``eps`` away from the
    ends) / ``logits``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        store_probs_or_logits(self, probs, logits)
        self._lims = lims
        super().__init__(self._param.size(), validate_args=validate_args)
        if probs is not None:
            self.probs = clamp_probs(self.probs)  # after validation, as given

    def expand(self, batch_shape, _instance=None):
        new = self._expand_parameters(ContinuousBernoulli, ("probs", "logits"), batch_shape,
                                      _instance)
        new._lims = self._lims
        return new

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    # -- p away from 1/2 (exact) or near it (series in x = p - 1/2) --------------------------
    def _outside(self):
        return (self.probs <= self._lims[0]) | (self.probs >= self._lims[1])

    def _split(self):
        """``(outside, p, x)``: where the exact forms apply, ``p`` with the entries near 1/2
        replaced by a harmless value (so both branches stay finite for the gradient), and
        ``x = p - 1/2`` with the far entries replaced by 0."""
        outside = self._outside()
        p = _t.where(outside, self.probs, _t.full_like(self.probs, 0.25))
        x = _t.where(outside, _t.zeros_like(self.probs), self.probs - 0.5)
        return outside, p, x

    def _log_norm(self):
        outside, p, x = self._split()
        exact = _t.log((_t.log1p(-p) - _t.log(p)).abs()) - _t.log((1 - 2 * p).abs())
        x2 = x * x
        series = math.log(2.0) + x2 * (4.0 / 3.0 + x2 * 104.0 / 45.0)
        return _t.where(outside, exact, series)

    @property
    def mean(self):
        outside, p, x = self._split()
        exact = p / (2 * p - 1) + 1 / (_t.log1p(-p) - _t.log(p))
        series = 0.5 + x * (1.0 / 3.0 + x * x * 16.0 / 45.0)
        return _t.where(outside, exact, series)

    @property
    def variance(self):
        outside, p, x = self._split()
        exact = p * (p - 1) / (1 - 2 * p).pow(2) + 1 / (_t.log1p(-p) - _t.log(p)).pow(2)
        x2 = x * x
        series = 1.0 / 12.0 - x2 * (1.0 / 15.0 + x2 * 128.0 / 945.0)
        return _t.where(outside, exact, series)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return value * logits - _t.nn.functional.softplus(logits) + self._log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        outside, p, _ = self._split()
        # (p^v (1 - p)^(1 - v) + p - 1) / (2p - 1)
        powers = _t.exp(value * _t.log(p) + (1 - value) * _t.log1p(-p))
        exact = (powers + p - 1) / (2 * p - 1)
        inner = _t.where(outside, exact, value * _t.ones_like(exact))
        return _t.where(value <= 0, _t.zeros_like(inner),
                        _t.where(value >= 1, _t.ones_like(inner), inner))

    def icdf(self, value):
        outside, p, _ = self._split()
        exact = _t.log1p(value * (2 * p - 1) / (1 - p)) / (_t.log(p) - _t.log1p(-p))
        return _t.where(outside, exact, value * _t.ones_like(exact))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def entropy(self):
        # -E[log density] = mean (log(1-p) - log p) - log C(p) - log(1-p)
        log_q, log_p = _t.log1p(-self.probs), _t.log(self.probs)
        return self.mean * (log_q - log_p) - self._log_norm() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        # log of the integral of exp(x t) over [0, 1], i.e. log((e^x - 1) / x); its series
        # near 0
        small = x.abs() < 1e-2
        safe = _t.where(small, _t.ones_like(x), x)
        exact = safe.clamp(min=0) + _t.log(-_t.expm1(-safe.abs())) - _t.log(safe.abs())
        x2 = x * x
        series = x / 2 + x2 / 24 - x2 * x2 / 2880
        return _t.where(small, series, exact)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    # log C(p) - log C(q) + E_p[x] log(p/q) + (1 - E_p[x]) log((1-p)/(1-q))
    mean = p.mean
    return (p._log_norm() - q._log_norm()
            + mean * (_t.log(p.probs) - _t.log(q.probs))
            + (1 - mean) * (_t.log1p(-p.probs) - _t.log1p(-q.probs)))
