"""``standard_gamma(concentration)``: draws of Gamma(concentration, rate 1) by Marsaglia and
Tsang's squeeze-and-reject method (2000), vectorised: every entry still rejected is redrawn until
none is left.

For ``a >= 1`` with ``d = a - 1/3`` and ``c = 1 / sqrt(9 d)``, a normal ``x`` gives the candidate
``d (1 + c x)^3``, kept when ``log u < x^2 / 2 + d - d v + d log v`` (``v = (1 + c x)^3 > 0``).
For ``a < 1`` a draw of ``Gamma(a + 1)`` times ``u^(1/a)`` is a draw of ``Gamma(a)``.

>>> import ember.torch as torch
>>> from ember.torch.distributions._gamma_sampling import standard_gamma
>>> _ = torch.manual_seed(0)
>>> x = standard_gamma(torch.tensor([0.5, 2.0, 30.0]))
>>> x.shape, bool((x > 0).all())
(torch.Size([3]), True)
"""

from ... import torch as _t

__all__ = ["standard_gamma"]


def standard_gamma(concentration):
    """Samples of ``Gamma(concentration, 1)`` of the shape and dtype of ``concentration`` (no
    gradient: the draw is detached)."""
    with _t.no_grad():
        alpha = concentration.detach().to(_t.float64)
        boost = alpha < 1
        a = _t.where(boost, alpha + 1, alpha)
        d = a - 1.0 / 3.0
        c = 1.0 / (9.0 * d).sqrt()
        pending = ~_t.isnan(alpha)  # no candidate is ever accepted for a nan concentration
        out = _t.where(pending, _t.zeros_like(alpha), alpha)
        while bool(pending.any()):
            x = _t.randn(alpha.shape, dtype=_t.float64, device=alpha.device)
            u = _t.rand(alpha.shape, dtype=_t.float64, device=alpha.device)
            v = (1 + c * x).pow(3)
            positive = v > 0
            log_v = v.clamp(min=1e-300).log()
            squeeze = u < 1 - 0.0331 * x.pow(4)
            accept = positive & (squeeze | (u.log() < 0.5 * x * x + d - d * v + d * log_v))
            out = _t.where(pending & accept, d * v, out)
            pending = pending & ~accept
        u = _t.rand(alpha.shape, dtype=_t.float64, device=alpha.device)
        out = _t.where(boost, out * u.pow(1.0 / alpha), out)
        out = out.to(concentration.dtype)
        return out.clamp(min=_t.finfo(out.dtype).tiny)
