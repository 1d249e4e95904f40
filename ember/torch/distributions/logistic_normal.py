"""``LogisticNormal(loc, scale)``: a point of the simplex from a normal vector by stick
breaking (``StickBreakingTransform``).

>>> import ember.torch as torch
>>> from ember.torch.distributions import LogisticNormal
>>> d = LogisticNormal(torch.zeros(2), torch.ones(2))
>>> d.event_shape, round(d.sample().sum().item(), 4)
(torch.Size([3]), 1.0)
"""

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """``K``-vectors of ``Normal(loc, scale)`` (the last dim of the parameters) stick-broken
    onto the ``K+1``-simplex; scalar parameters make a 2-simplex."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand((1,))
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale
