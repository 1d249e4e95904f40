"""``TransformedDistribution(base_distribution, transforms)``: the distribution of ``t_n(...
t_1(x))`` for ``x`` drawn from the base, its density by the change-of-variables formula.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Normal, TransformedDistribution
>>> from ember.torch.distributions.transforms import ExpTransform
>>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])  # a log-normal
>>> round(d.log_prob(torch.tensor(1.0)).item(), 4), round(d.cdf(torch.tensor(1.0)).item(), 4)
(-0.9189, 0.5)
"""

from ... import torch as _t
from ...errors import InvalidParameterError, KindError
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .transforms import ComposeTransform, Transform, _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (one Transform or a list, applied
    in order). Where the transforms need more event dims than the base has, the base's
    rightmost batch dims become event dims (``Independent``); where they broadcast it to a
    larger shape, the base is expanded."""

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise KindError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise KindError(f"transforms must be a Transform or list, but was {transforms!r}")
        if not isinstance(base_distribution, Distribution):
            raise KindError("TransformedDistribution: base_distribution must be a Distribution, "
                            f"got {type(base_distribution).__name__}")
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        chain = ComposeTransform(self.transforms)
        if len(base_shape) < chain.domain.event_dim:
            raise InvalidParameterError(
                f"base_distribution needs to have shape with size at least "
                f"{chain.domain.event_dim}, but got {Size(base_shape)}.", "base_distribution",
                base_distribution)
        shape = tuple(chain.forward_shape(base_shape))
        wanted = tuple(chain.inverse_shape(shape))
        if wanted != base_shape:  # the transforms broadcast: the base grows to match
            base_distribution = base_distribution.expand(wanted[:len(wanted) - base_event_dim])
        extra = chain.domain.event_dim - base_event_dim
        if extra > 0:
            base_distribution = Independent(base_distribution, extra)
        self.base_dist = base_distribution
        event_dim = chain.codomain.event_dim + max(base_event_dim - chain.domain.event_dim, 0)
        cut = len(shape) - event_dim
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = Size(batch_shape)
        shape = tuple(batch_shape) + tuple(self.event_shape)
        for t in reversed(self.transforms):
            shape = tuple(t.inverse_shape(shape))
        base_event = len(self.base_dist.event_shape)
        new.base_dist = self.base_dist.expand(shape[:len(shape) - base_event])
        new.transforms = self.transforms
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def sample(self, sample_shape=()):
        with _t.no_grad():
            x = self.base_dist.sample(sample_shape)
            for t in self.transforms:
                x = t(x)
            return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for t in self.transforms:
            x = t(x)
        return x

    def log_prob(self, value):
        """``log p(value)``: the base's log-density at the preimage minus each transform's
        log-Jacobian, each summed over the event dims it sees."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        total, y = 0.0, value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            total = total - _sum_rightmost(t.log_abs_det_jacobian(x, y),
                                           event_dim - t.domain.event_dim)
            y = x
        return total + _sum_rightmost(self.base_dist.log_prob(y),
                                      event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """The base's cdf turned into this one's: ``1 - F`` where the chain decreases."""
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        """The cdf, for a chain of monotone univariate transforms (each with a ``sign``)."""
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        """The inverse cdf, for a chain of monotone univariate transforms."""
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for t in self.transforms:
            value = t(value)
        return value

    def __repr__(self):
        return f"{type(self).__name__}()"


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # a bijection changes both densities by the same Jacobian: the KL is the bases'
    if p.transforms != q.transforms:
        raise NotImplementedError("KL between TransformedDistributions with different "
                                  "transforms")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("KL between TransformedDistributions with different "
                                  "event shapes")
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist),
                          len(p.event_shape) - len(p.base_dist.event_shape))
