"""``Pareto(scale, alpha)``: the power-law density ``alpha scale^alpha / x^(alpha + 1)`` on
``[scale, inf)``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Pareto
>>> d = Pareto(torch.tensor([1.0]), torch.tensor([3.0]))
>>> d.mean.tolist(), d.cdf(torch.tensor([2.0])).tolist()
([1.5], [0.875])
"""

from ... import torch as _t
from . import constraints
from .distribution import Distribution
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(Distribution):
    """Values ``>= scale`` (> 0) with tail index ``alpha`` (> 0)."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}
    has_rsample = True

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        super().__init__(self.scale.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Pareto, ("scale", "alpha"), batch_shape, _instance)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)  # infinite for alpha <= 1
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)  # infinite for alpha <= 2
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _t.rand(shape, dtype=self.scale.dtype, device=self.scale.device)
        u = u.clamp(min=_t.finfo(u.dtype).tiny)
        # log(x / scale) is exponential of rate alpha
        return self.scale * _t.exp(-_t.log(u) / self.alpha)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (_t.log(self.alpha) + self.alpha * _t.log(self.scale)
                - (self.alpha + 1) * _t.log(value))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -_t.expm1(-self.alpha * _t.log(value / self.scale))

    def icdf(self, value):
        return self.scale * _t.exp(-_t.log1p(-value) / self.alpha)

    def entropy(self):
        return _t.log(self.scale / self.alpha) + 1 / self.alpha + 1


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    # log(a_p / a_q) + a_q log(s_p / s_q) + a_q / a_p - 1 when s_p >= s_q, else infinite
    kl = (_t.log(p.alpha / q.alpha) + q.alpha * _t.log(p.scale / q.scale)
          + q.alpha / p.alpha - 1)
    return kl.masked_fill(p.scale < q.scale, float("inf"))
