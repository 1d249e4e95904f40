"""``standard_gamma(concentration)``: Gamma(concentration, 1) samples that differentiate in the
concentration by implicit reparameterization (``_gamma_grad.standard_gamma_grad``).

Sampling is Marsaglia and Tsang's squeeze-free rejection method (2000): for ``a >= 1``, with
``d = a - 1/3`` and ``c = 1/sqrt(9d)``, draw ``z ~ N(0, 1)`` and ``u ~ U(0, 1)``; with
``v = (1 + cz)^3 > 0`` accept ``d v`` when ``log u < z^2/2 + d - d v + d log v``. Every entry
still rejected is redrawn (vectorised) until none is left. For ``a < 1`` a Gamma(a + 1) draw
is multiplied by ``u^(1/a)`` (in logs, so tiny values do not underflow early). Draws are made
in float64 and returned in the concentration's dtype, at least its smallest normal number
(PyTorch's Gamma keeps samples positive the same way).

>>> import ember.torch as torch
>>> from ember.torch.distributions._gamma_sampling import standard_gamma
>>> _ = torch.manual_seed(0)
>>> a = torch.tensor([0.5, 2.0, 50.0], requires_grad=True)
>>> x = standard_gamma(a)
>>> x.shape, bool((x > 0).all()), torch.autograd.grad(x.sum(), a)[0].shape
(torch.Size([3]), True, torch.Size([3]))
"""

from ... import torch as _t
from ..autograd.function import Function
from ._gamma_grad import standard_gamma_grad

__all__ = ["standard_gamma"]


def _marsaglia_tsang(a):
    """Gamma(a, 1) draws for a flat float64 tensor ``a >= 1``."""
    d = a - 1.0 / 3.0
    c = 1.0 / _t.sqrt(9.0 * d)
    finite = _t.isfinite(a)  # no candidate is ever accepted for nan or inf: they pass through
    out = _t.where(finite, _t.zeros_like(a), a)
    pending = _t.arange(a.numel(), device=a.device)[finite]
    while pending.numel() > 0:
        dp, cp = d[pending], c[pending]
        z = _t.randn(pending.shape, dtype=a.dtype, device=a.device)
        u = _t.rand(pending.shape, dtype=a.dtype, device=a.device)
        v = (1 + cp * z) ** 3
        positive = v > 0
        v_safe = _t.where(positive, v, _t.ones_like(v))
        accept = positive & (_t.log(u) < 0.5 * z * z + dp - dp * v_safe + dp * _t.log(v_safe))
        out = out.index_put((pending[accept],), (dp * v_safe)[accept])
        pending = pending[~accept]
    return out


def _sample(concentration):
    """Gamma(concentration, 1) draws (no gradient), shaped and typed like ``concentration``."""
    a = concentration.detach().to(_t.float64).reshape(-1)
    boost = a < 1
    x = _marsaglia_tsang(_t.where(boost, a + 1, a))
    if bool(boost.any()):
        u = _t.rand(a.shape, dtype=a.dtype, device=a.device)
        boosted = _t.exp(_t.log(x) + _t.log(u) / a)
        x = _t.where(boost, boosted, x)
    x = x.reshape(concentration.shape).to(concentration.dtype)
    return x.clamp(min=_t.finfo(concentration.dtype).tiny)


class _StandardGamma(Function):
    """The sampler as one recorded step whose backward is ``g * dx/dconcentration``."""

    @staticmethod
    def forward(ctx, concentration):
        x = _sample(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx, grad):
        x, concentration = ctx.saved_tensors
        return grad * standard_gamma_grad(x, concentration)


def standard_gamma(concentration):
    """Samples of Gamma(``concentration``, rate 1), one per entry of ``concentration`` (a
    floating tensor, entries > 0); differentiable in ``concentration`` (implicit
    reparameterization: the sample moves so that its cdf stays fixed)."""
    return _StandardGamma.apply(concentration)
