"""``VonMises(loc, concentration)``: the circular normal distribution, density
``exp(k cos(x - loc)) / (2 pi I0(k))`` on the circle (``k`` the concentration).

Samples are drawn by Best and Fisher's rejection method (1979, a wrapped-Cauchy envelope) in
float64, returned in ``loc``'s dtype and wrapped to ``[-pi, pi)``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import VonMises
>>> d = VonMises(torch.tensor([0.0]), torch.tensor([2.0]))
>>> [round(v, 4) for v in d.log_prob(torch.tensor([0.0])).tolist()], d.sample((5,)).shape
([-0.6619], torch.Size([5, 1]))
"""

import math

from ... import torch as _t
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["VonMises"]

_LOG_2PI = math.log(2 * math.pi)


def _best_fisher(concentration):
    """Angles in [-pi, pi] of VonMises(0, k) for a flat float64 tensor ``k > 0``."""
    k = concentration
    tau = 1 + _t.sqrt(1 + 4 * k * k)
    rho = 2 * k / (tau + _t.sqrt(2 * tau))  # (tau - sqrt(2 tau)) / (2 k), without cancellation
    r = (1 + rho * rho) / (2 * rho)
    out = _t.zeros_like(k)
    pending = _t.arange(k.numel(), device=k.device)
    while pending.numel() > 0:
        kp, rp = k[pending], r[pending]
        u1, u2, u3 = (_t.rand(pending.shape, dtype=k.dtype, device=k.device) for _ in range(3))
        z = _t.cos(math.pi * u1)
        f = ((1 + rp * z) / (rp + z)).clamp(min=-1, max=1)
        c = kp * (rp - f)
        accept = (c * (2 - c) > u2) | (_t.log(c / u2) + 1 - c >= 0)
        angle = _t.sign(u3 - 0.5) * _t.acos(f)
        out = out.index_put((pending[accept],), angle[accept])
        pending = pending[~accept]
    return out


class VonMises(Distribution):
    """The von Mises distribution of mean direction ``loc`` and ``concentration`` (> 0)."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(VonMises, ("loc", "concentration"), batch_shape,
                                       _instance)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        # log I0(k) = log(i0e(k)) + k
        return k * (_t.cos(value - self.loc) - 1) - _LOG_2PI - _t.log(_t.special.i0e(k))

    def sample(self, sample_shape=()):
        """Angles in ``[-pi, pi)`` of shape ``sample_shape + batch_shape`` (no gradients)."""
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            k = self.concentration.expand(shape).to(_t.float64).reshape(-1)
            angle = _best_fisher(k).reshape(shape)
            loc = self.loc.expand(shape).to(_t.float64)
            wrapped = _t.remainder(angle + loc + math.pi, 2 * math.pi) - math.pi
            return wrapped.to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """The circular variance ``1 - I1(k) / I0(k)``."""
        k = self.concentration
        return 1 - _t.special.i1e(k) / _t.special.i0e(k)
