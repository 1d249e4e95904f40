"""How a Gamma(alpha, 1) sample moves with ``alpha`` when its quantile is held fixed (implicit
reparameterization): ``dx/dalpha = -(dP(alpha, x)/dalpha) / p(x; alpha)``, with ``P`` the
regularized lower incomplete gamma function and ``p`` the density.

``dP/dalpha`` has no closed form; it is summed here to float64 accuracy from two expansions,
each differentiated term by term in ``alpha`` (``x < alpha + 1``: the power series; otherwise
Legendre's continued fraction for the upper function ``Q = 1 - P``). The ratio to the density
is taken analytically, so nothing underflows for tiny or huge samples:

- series: ``P = x^a e^-x S / Gamma(a+1)`` with ``S = sum_n x^n / ((a+1)...(a+n))``, so
  ``dx/da = -(x / a) (S (log x - digamma(a+1)) + dS/da)``;
- continued fraction: ``Q = x^a e^-x C / Gamma(a)`` with ``C = 1/(x+1-a- 1(1-a)/(x+3-a-
  2(2-a)/(x+5-a- ...)))``, so ``dx/da = x (C (log x - digamma(a)) + dC/da)``, ``dC/da``
  following the convergents' three-term recurrences differentiated in ``a``.

Both sums stop when every entry has converged; near the peak of a large ``alpha`` they need
about ``sqrt(alpha)`` terms (checked against mpmath to 1e-12 up to ``alpha = 1e7``). Composed
of ember.torch ops, so it differentiates again (second derivatives of samples).

>>> import ember.torch as torch
>>> from ember.torch.distributions._gamma_grad import standard_gamma_grad
>>> x = torch.tensor([0.5, 3.0], dtype=torch.float64)
>>> alpha = torch.tensor([1.0, 2.0], dtype=torch.float64)
>>> [round(v, 6) for v in standard_gamma_grad(x, alpha).tolist()]
[0.806979, 1.321799]
"""

from ... import torch as _t

__all__ = ["standard_gamma_grad"]

_EPS = 2.0 ** -53
_TOL = 1e-15  # the continued fraction's convergents settle to within rounding, not exactly
_MIN_TERMS = 2000  # at most this many terms, or 40 sqrt(alpha) for large alpha: beyond the
# peak the terms of both expansions fall like exp(-n^2 / (2 alpha))
_CHECK_EVERY = 8  # convergence is tested every few terms (each test syncs on a scalar)


def _limit(a):
    return max(_MIN_TERMS, int(40 * float(a.max()) ** 0.5)) if a.numel() else 0


def _series(a, x):
    """``S * (log x - digamma(a+1)) + dS/da`` of the power series (``x < a + 1``)."""
    term = _t.ones_like(x)
    dterm = _t.zeros_like(x)
    s, ds = term, dterm
    done = _t.zeros_like(x, dtype=_t.bool)
    n, limit = 0, _limit(a)
    while n < limit:
        n += 1
        k = a + n
        # t_n = t_{n-1} x / (a + n); dt_n/da = (dt_{n-1}/da - t_{n-1} / (a + n)) x / (a + n)
        dterm = (dterm - term / k) * x / k
        term = term * x / k
        s, ds = _t.where(done, s, s + term), _t.where(done, ds, ds + dterm)
        done = done | ((term <= _EPS * s) & (dterm.abs() <= _EPS * ds.abs()))
        if n % _CHECK_EVERY == 0 and bool(done.all()):
            break
    return s * (_t.log(x) - _t.digamma(a + 1)) + ds


def _fraction(a, x):
    """``C * (log x - digamma(a)) + dC/da`` of the continued fraction (``x >= a + 1``)."""
    # convergents A_k / B_k with A_k = b_k A_{k-1} + c_k A_{k-2} (same for B), partial
    # numerators c_1 = 1, c_k = -(k-1)(k-1-a) and denominators b_k = x + 2k - 1 - a; the
    # derivatives follow by the product rule (dc_k/da = k - 1, db_k/da = -1); every level is
    # divided by B_k after each step, which keeps the ratios and avoids overflow
    one, zero = _t.ones_like(x), _t.zeros_like(x)
    b = x + 1 - a
    # level 0 (A = 0, B = 1) and level 1 (A = 1, B = b, dA = 0, dB = -1), both divided by b
    a_prev, b_prev, da_prev, db_prev = zero, one / b, zero, zero
    a_cur, b_cur, da_cur, db_cur = one / b, one, zero, -one / b
    c_val = a_cur
    dc_val = da_cur - a_cur * db_cur
    done = _t.zeros_like(x, dtype=_t.bool)
    k, limit = 1, _limit(a)
    while k < limit:
        k += 1
        b = b + 2
        num = -(k - 1) * (k - 1 - a)
        dnum = k - 1
        a_new = b * a_cur + num * a_prev
        b_new = b * b_cur + num * b_prev
        da_new = -a_cur + b * da_cur + dnum * a_prev + num * da_prev
        db_new = -b_cur + b * db_cur + dnum * b_prev + num * db_prev
        scale = 1 / b_new
        a_prev, b_prev, da_prev, db_prev = (a_cur * scale, b_cur * scale, da_cur * scale,
                                            db_cur * scale)
        a_cur, b_cur, da_cur, db_cur = a_new * scale, one, da_new * scale, db_new * scale
        c_new = a_cur
        dc_new = da_cur - a_cur * db_cur
        size = _t.maximum(c_new.abs(), dc_new.abs())
        done = done | (((c_new - c_val).abs() <= _TOL * size)
                       & ((dc_new - dc_val).abs() <= _TOL * size))
        c_val, dc_val = _t.where(done, c_val, c_new), _t.where(done, dc_val, dc_new)
        if k % _CHECK_EVERY == 0 and bool(done.all()):
            break
    return c_val * (_t.log(x) - _t.digamma(a)) + dc_val


def standard_gamma_grad(x, alpha):
    """``dx/dalpha`` for samples ``x`` of Gamma(``alpha``, 1) at a fixed quantile (the gradient
    of PyTorch's ``torch._standard_gamma``), elementwise, broadcasting; computed in float64 and
    returned in the inputs' dtype. Zero where ``x`` is 0."""
    x, alpha = _t.broadcast_tensors(x, alpha)
    dtype = x.dtype
    x64, a64 = x.to(_t.float64), alpha.to(_t.float64)
    positive = x64 > 0
    x64 = _t.where(positive, x64, _t.ones_like(x64))
    use_series = x64 < a64 + 1
    result = _t.zeros_like(x64)
    if bool(use_series.any()):
        xs, as_ = x64[use_series], a64[use_series]
        result = result.masked_scatter(use_series, -(xs / as_) * _series(as_, xs))
    use_fraction = ~use_series
    if bool(use_fraction.any()):
        xf, af = x64[use_fraction], a64[use_fraction]
        result = result.masked_scatter(use_fraction, xf * _fraction(af, xf))
    result = _t.where(positive, result, _t.zeros_like(result))
    return result.to(dtype)
