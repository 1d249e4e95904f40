"""``standard_gamma(concentration)``: Gamma(concentration, rate=1) draws, one per entry, by
Marsaglia and Tsang's squeeze-rejection method (boosted by a uniform power below 1).

The draws carry no gradient (the samplers built on them are not reparameterized through it).

>>> import ember.torch as torch
>>> from ember.torch.distributions._gamma_sampling import standard_gamma
>>> _ = torch.manual_seed(0)
>>> x = standard_gamma(torch.tensor([0.5, 2.0, 30.0], dtype=torch.float64))
>>> tuple(x.shape), bool((x > 0).all())
((3,), True)
"""

from ... import torch as _t

__all__ = ["standard_gamma"]


def standard_gamma(concentration):
    """Independent Gamma(alpha, 1) draws of the shape, dtype and device of ``concentration``
    (every entry > 0)."""
    with _t.no_grad():
        alpha = concentration.detach()
        boosted = alpha < 1
        # alpha < 1: a Gamma(alpha + 1) draw times U^(1 / alpha) is a Gamma(alpha) draw
        shape = _t.where(boosted, alpha + 1, alpha)
        d = shape - 1.0 / 3.0
        c = 1.0 / _t.sqrt(9.0 * d)
        result = _t.zeros_like(alpha)
        done = _t.zeros_like(alpha, dtype=_t.bool)
        while not bool(done.all()):
            x = _t.randn_like(alpha)
            v = (1.0 + c * x) ** 3
            u = _t.rand_like(alpha)
            positive = v > 0
            log_v = _t.log(_t.where(positive, v, _t.ones_like(v)))
            accept = positive & (_t.log(u) < 0.5 * x * x + d - d * v + d * log_v)
            fresh = accept & ~done
            result = _t.where(fresh, d * v, result)
            done = done | accept
        u = _t.rand_like(alpha)
        power = _t.log(u) / _t.where(boosted, alpha, _t.ones_like(alpha))
        result = _t.where(boosted, result * _t.exp(power), result)
        return result.clamp(min=_t.finfo(alpha.dtype).tiny)
