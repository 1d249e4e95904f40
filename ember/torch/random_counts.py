"""PyTorch's count samplers ``poisson(input, generator=None)`` and
``binomial(count, prob, generator=None)``, drawn from ember's generators (the global one, or
``generator``) with uniform draws composed into exact samplers:

- small means (rate or ``count * min(p, 1 - p)`` below 10) by inversion: walk the cumulative
  probabilities from 0 until they pass a uniform draw;
- larger ones by Hörmann's transformed rejection (PTRS for Poisson, BTRS for the binomial,
  W. Hörmann, 1993), each element redrawn until its proposal is accepted.

Every element is drawn independently, so the samples have the distributions PyTorch's have,
though not PyTorch's numbers for a seed. The result has the dtype and shape of ``input``
(``count`` and ``prob`` broadcast). As PyTorch's, ``poisson``'s gradient is zero (the result
requires grad when the rates do) and ``binomial`` records none; a negative or NaN rate, count
or probability raises ``InvalidParameterError``; a negative count gives 0 and a probability
above 1 counts as 1; an infinite rate or count gives NaN (PyTorch's binomial gives NaN, its
poisson an undefined number).

>>> import ember.torch as torch
>>> g = torch.Generator().manual_seed(0)
>>> s = torch.poisson(torch.full((1000,), 4.0), generator=g)
>>> s.dtype, bool(abs(s.mean().item() - 4.0) < 0.3)
(torch.float32, True)
>>> torch.binomial(torch.tensor([0.0, 5.0]), torch.tensor([0.5, 1.0])).tolist()
[0.0, 5.0]
"""


import math

import ember as _e

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError
from .._tensor import Tensor as _T
from ._tensor import as_torch, torch_function

__all__ = ["poisson", "binomial"]

_SMALL = 10.0  # below this mean, inversion; above, transformed rejection


def _float_tensor(t, name, op):
    if not isinstance(t, _T):
        raise KindError(f"{op}: {name} must be a Tensor, got {type(t).__name__}")
    if t._dtype.kind != "float":
        raise KindError(f"{op}: {name} must be a floating-point tensor, got {t._dtype.name}")
    return t


def _uniform(shape, like, generator):
    return as_torch(_e.rand(*shape, generator=generator, dtype=_dt.float64, device=like.device))


def _lgamma(t):
    return as_torch(t).lgamma()


def _poisson_inversion(lam, generator):
    """Samples for rates ``lam`` (float64, below _SMALL) by sequential inversion."""
    u = _uniform(lam.shape, lam, generator)
    p = (-lam).exp()
    cdf = p.clone()
    k = as_torch(_e.zeros_like(lam))
    active = u > cdf
    step = 0
    while bool(active.any().item()):
        step += 1
        p = p * lam / step
        cdf = cdf + p
        k = k + active.to(lam.dtype)
        # rounding can leave cdf a hair below u: stop where the terms have vanished
        active = active & (u > cdf) & (p > 0)
    return k


def _poisson_ptrs(lam, generator):
    """Samples for rates ``lam`` (float64, at least _SMALL) by transformed rejection (PTRS)."""
    slam, loglam = lam.sqrt(), lam.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    log_invalpha = (1.1239 + 1.1328 / (b - 3.4)).log()
    vr = 0.9277 - 3.6224 / (b - 2)
    out = as_torch(_e.zeros_like(lam))
    pending = as_torch(_e.ones(lam.shape, dtype=_dt.bool_, device=lam.device))
    while bool(pending.any().item()):
        u = _uniform(lam.shape, lam, generator) - 0.5
        v = _uniform(lam.shape, lam, generator)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + lam + 0.43).floor()
        quick = (us >= 0.07) & (v <= vr)
        possible = (k >= 0) & ~((us < 0.013) & (v > us))
        safe_k = k.clamp(min=0)
        log_ratio = v.log() + log_invalpha - (a / (us * us) + b).log()
        exact = log_ratio <= -lam + safe_k * loglam - _lgamma(safe_k + 1)
        accept = pending & (quick | (possible & exact))
        out = as_torch(_e.where(accept, safe_k, out))
        pending = pending & ~accept
    return out


@torch_function
def poisson(input, generator=None):  # noqa: A002  (PyTorch's name)
    """Poisson samples of the rates ``input`` (see the module docstring).

    >>> import ember.torch as torch
    >>> torch.poisson(torch.zeros(3)).tolist()
    [0.0, 0.0, 0.0]
    """
    op = "poisson"
    rates = _float_tensor(input, "input", op)
    lam = as_torch(rates.detach()).to(_dt.float64)
    if lam.numel() and not bool((lam >= 0).all().item()):
        raise InvalidParameterError(f"{op}: invalid Poisson rate, expected rate to be "
                                    "non-negative", "input", input)
    finite = lam.isfinite()
    lam = as_torch(_e.where(finite, lam, 0.0))
    small = lam < _SMALL
    out = _poisson_inversion(as_torch(_e.where(small, lam, 0.0)), generator)
    if lam.numel() and not bool(small.all().item()):
        large = _poisson_ptrs(as_torch(_e.where(small, _SMALL, lam)), generator)
        out = as_torch(_e.where(small, out, large))
    out = as_torch(_e.where(finite, out, math.nan)).to(rates.dtype)
    return out + as_torch(rates) * 0 if rates.requires_grad else out


def _binomial_inversion(n, p, generator):
    """Samples for ``n`` trials of probability ``p`` <= 1/2 with ``n * p`` small (float64)."""
    q = 1 - p
    s = p / q.clamp(min=1e-300)
    a = (n + 1) * s
    r = q ** n
    u = _uniform(n.shape, n, generator)
    k = as_torch(_e.zeros_like(n))
    active = (u > r) & (k < n)
    while bool(active.any().item()):
        u = as_torch(_e.where(active, u - r, u))
        k = k + active.to(n.dtype)
        r = as_torch(_e.where(active, r * (a / k.clamp(min=1) - s), r))
        active = active & (u > r) & (k < n) & (r > 0)
    return k


def _binomial_btrs(n, p, generator):
    """Samples for ``n`` trials of probability ``p`` <= 1/2 with ``n * p`` >= _SMALL (BTRS)."""
    q = 1 - p
    spq = (n * p * q).sqrt()
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    alpha = (2.83 + 5.1 / b) * spq
    vr = 0.92 - 4.2 / b
    m = ((n + 1) * p).floor()
    log_r = (p / q).log()
    log_fm = _lgamma(m + 1) + _lgamma(n - m + 1)
    out = as_torch(_e.zeros_like(n))
    pending = as_torch(_e.ones(n.shape, dtype=_dt.bool_, device=n.device))
    while bool(pending.any().item()):
        u = _uniform(n.shape, n, generator) - 0.5
        v = _uniform(n.shape, n, generator)
        us = 0.5 - u.abs()
        k = ((2 * a / us + b) * u + c).floor()
        inside = (k >= 0) & (k <= n)
        quick = (us >= 0.07) & (v <= vr)
        safe_k = as_torch(_e.where(inside, k, m))
        log_v = (v * alpha / (a / (us * us) + b)).log()
        log_ratio = log_fm - _lgamma(safe_k + 1) - _lgamma(n - safe_k + 1) + (safe_k - m) * log_r
        accept = pending & inside & (quick | (log_v <= log_ratio))
        out = as_torch(_e.where(accept, safe_k, out))
        pending = pending & ~accept
    return out


@torch_function
def binomial(count, prob, generator=None):
    """Binomial samples: successes in ``count`` trials of probability ``prob`` (see the module
    docstring).

    >>> import ember.torch as torch
    >>> torch.binomial(torch.tensor([3.0]), torch.tensor([0.0])).tolist()
    [0.0]
    """
    op = "binomial"
    _float_tensor(count, "count", op)
    _float_tensor(prob, "prob", op)
    if prob._dtype is not count._dtype:
        raise KindError(f"{op}: prob has dtype {prob._dtype.name}, expected count's "
                        f"{count._dtype.name}")
    n, p = (as_torch(t.detach()).to(_dt.float64) for t in (count, prob))
    if p.numel() and bool(p.isnan().any().item()):
        raise InvalidParameterError(f"{op}: prob must not be NaN", "prob", prob)
    if n.numel() and bool(n.isnan().any().item()):
        raise InvalidParameterError(f"{op}: count must not be NaN", "count", count)
    finite = n.isfinite() & (p == p)  # (in the broadcast shape)
    n = as_torch(_e.where(n.isfinite(), n, 0.0)).clamp(min=0).floor()
    p = p.clamp(0, 1)
    n, p = n + p * 0, p + n * 0  # broadcast to one shape
    flip = p > 0.5
    p_low = as_torch(_e.where(flip, 1 - p, p))
    small = n * p_low < _SMALL
    out = _binomial_inversion(as_torch(_e.where(small, n, 0.0)),
                              as_torch(_e.where(small, p_low, 0.0)), generator)
    if n.numel() and not bool(small.all().item()):
        large = _binomial_btrs(as_torch(_e.where(small, 2 * _SMALL, n)),
                               as_torch(_e.where(small, 0.5, p_low)), generator)
        out = as_torch(_e.where(small, out, large))
    out = as_torch(_e.where(flip, n - out, out))
    return as_torch(_e.where(finite, out, math.nan)).to(count._dtype)
