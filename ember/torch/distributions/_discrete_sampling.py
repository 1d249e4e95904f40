"""Samplers of Poisson and binomial counts (behind ``Poisson``, ``Binomial`` and
``NegativeBinomial``): inversion by sequential search for small means, and Hörmann's
transformed rejection with squeeze (PTRS for Poisson, BTRS for binomial; W. Hörmann, 1993) for
large ones. Rejection is vectorised: entries still rejected are redrawn until none is left.

>>> import ember.torch as torch
>>> from ember.torch.distributions._discrete_sampling import binomial_sample, poisson_sample
>>> _ = torch.manual_seed(0)
>>> poisson_sample(torch.tensor([0.0, 3.0, 50.0])).shape
torch.Size([3])
>>> binomial_sample(torch.tensor([5.0, 0.0]), torch.tensor([1.0, 0.5])).tolist()
[5.0, 0.0]
"""

import math

from ... import torch as _t

__all__ = ["poisson_sample", "binomial_sample"]

_SMALL_MEAN = 10.0  # below this mean, inversion; at or above it, transformed rejection


def _uniform(like):
    return _t.rand(like.shape, dtype=_t.float64, device=like.device)


def _invert(first_pmf, next_ratio):
    """The smallest ``k`` with ``u <= P(X <= k)``, walking up from ``k = 0``;
    ``next_ratio(k)`` is ``pmf(k) / pmf(k - 1)``. A pmf that underflows to 0 ends the walk."""
    u = _uniform(first_pmf)
    k = _t.zeros_like(first_pmf)
    pmf, cdf = first_pmf, first_pmf
    active = (u > cdf) & (pmf > 0)
    while bool(active.any()):
        k = k + active.to(k.dtype)
        pmf = _t.where(active, pmf * next_ratio(k), pmf)
        cdf = _t.where(active, cdf + pmf, cdf)
        active = active & (u > cdf) & (pmf > 0)
    return k


def _hormann_candidates(b, a, shift, like):
    """One round of the transformed-rejection proposal: ``u`` centred, ``us = 0.5 - |u|``,
    ``v`` uniform and the candidate ``k = floor((2a / us + b) u + shift)``."""
    u = _uniform(like) - 0.5
    v = _uniform(like)
    us = 0.5 - u.abs()
    k = ((2 * a / us + b) * u + shift).floor()
    return us, v, k


def _ptrs(lam):
    slam, log_lam = lam.sqrt(), lam.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    log_inv_alpha = (1.1239 + 1.1328 / (b - 3.4)).log()
    v_r = 0.9277 - 3.6224 / (b - 2)
    pending = _t.isfinite(lam)  # no candidate is ever accepted for an infinite mean
    out = _t.where(pending, _t.zeros_like(lam), _t.full_like(lam, math.nan))
    while bool(pending.any()):
        us, v, k = _hormann_candidates(b, a, lam + 0.43, lam)
        quick = (us >= 0.07) & (v <= v_r)
        refused = (k < 0) | ((us < 0.013) & (v > us))
        k0 = k.clamp(min=0)
        log_ratio = v.log() + log_inv_alpha - (a / (us * us) + b).log()
        exact = log_ratio <= -lam + k0 * log_lam - _t.lgamma(k0 + 1)
        accept = quick | (~refused & exact)
        out = _t.where(pending & accept, k, out)
        pending = pending & ~accept
    return out


def _btrs(n, p):
    q = 1 - p
    spq = (n * p * q).sqrt()
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    alpha = (2.83 + 5.1 / b) * spq
    v_r = 0.92 - 4.2 / b
    m = ((n + 1) * p).floor()
    h = _t.lgamma(m + 1) + _t.lgamma(n - m + 1)
    log_odds = (p / q).log()
    pending = _t.isfinite(n) & _t.isfinite(p)  # no candidate is ever accepted for these
    out = _t.where(pending, _t.zeros_like(n), _t.full_like(n, math.nan))
    while bool(pending.any()):
        us, v, k = _hormann_candidates(b, a, n * p + 0.5, n)
        inside = (k >= 0) & (k <= n)
        quick = (us >= 0.07) & (v <= v_r)
        kc = _t.minimum(k.clamp(min=0), n)
        log_v = (v * alpha / (a / (us * us) + b)).log()
        exact = log_v <= h - _t.lgamma(kc + 1) - _t.lgamma(n - kc + 1) + (kc - m) * log_odds
        accept = inside & (quick | exact)
        out = _t.where(pending & accept, k, out)
        pending = pending & ~accept
    return out


def poisson_sample(rate):
    """Poisson draws with the given ``rate`` (>= 0), of its shape and dtype, without gradient.

    >>> import ember.torch as torch
    >>> poisson_sample(torch.zeros(2)).tolist()
    [0.0, 0.0]
    """
    with _t.no_grad():
        lam = rate.detach().to(_t.float64)
        large = lam >= _SMALL_MEAN
        small_lam = _t.where(large, _t.zeros_like(lam), lam)
        counts = _invert((-small_lam).exp(), lambda k: small_lam / k)
        if bool(large.any()):
            counts = _t.where(large, _ptrs(_t.where(large, lam, _t.full_like(lam, 100.0))),
                              counts)
        return counts.to(rate.dtype)


def binomial_sample(count, prob):
    """Binomial draws: successes in ``count`` trials of success probability ``prob`` (broadcast
    together), of their dtype, without gradient.

    >>> import ember.torch as torch
    >>> binomial_sample(torch.tensor(3.0), torch.tensor(0.0)).item()
    0.0
    """
    with _t.no_grad():
        n, p = _t.broadcast_tensors(count.detach(), prob.detach())
        dtype = p.dtype if p.is_floating_point() else _t.get_default_dtype()
        n, p = n.to(_t.float64), p.to(_t.float64)
        flip = p > 0.5
        p = _t.where(flip, 1 - p, p)  # draw failures when success is the likelier outcome
        large = n * p >= _SMALL_MEAN
        small_n = _t.where(large, _t.zeros_like(n), n)
        small_p = _t.where(large, _t.zeros_like(p), p)
        ratio_base = small_p / (1 - small_p)
        counts = _invert((small_n * (-small_p).log1p()).exp(),
                         lambda k: (small_n - k + 1) / k * ratio_base)
        if bool(large.any()):
            big_n = _t.where(large, n, _t.full_like(n, 100.0))
            big_p = _t.where(large, p, _t.full_like(p, 0.3))
            counts = _t.where(large, _btrs(big_n, big_p), counts)
        counts = _t.where(flip, n - counts, counts)
        return counts.to(dtype)
