"""``LogNormal(loc, scale)``: ``exp(X)`` for ``X ~ Normal(loc, scale)``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import LogNormal
>>> d = LogNormal(torch.tensor(0.0), torch.tensor(1.0))
>>> round(d.mean.item(), 4), round(d.log_prob(torch.tensor(1.0)).item(), 4)
(1.6487, -0.9189)
"""

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """The log-normal distribution: its log is normal with mean ``loc`` and standard deviation
    ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self):
        # the entropy changes by E[log |d exp(x)/dx|] = E[x] = loc
        return self.base_dist.entropy() + self.loc
