"""``Independent(base_distribution, reinterpreted_batch_ndims)``: the same distribution with its
rightmost ``reinterpreted_batch_ndims`` batch dims read as event dims, so ``log_prob`` and
``entropy`` sum over them (a diagonal Normal as one distribution on vectors).

>>> import ember.torch as torch
>>> from ember.torch.distributions import Independent, Normal
>>> d = Independent(Normal(torch.zeros(3), torch.ones(3)), 1)
>>> d.batch_shape, d.event_shape, round(d.log_prob(torch.zeros(3)).item(), 4)
(torch.Size([]), torch.Size([3]), -2.7568)
"""

from ...errors import InvalidParameterError, KindError
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .kl import kl_divergence, register_kl

__all__ = ["Independent"]


def _sum_rightmost(value, n):
    """``value`` summed over its ``n`` rightmost dims."""
    return value.sum(tuple(range(-n, 0))) if n else value


class Independent(Distribution):
    """``base_distribution`` with its ``reinterpreted_batch_ndims`` rightmost batch dims moved
    into the event."""

    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if not isinstance(base_distribution, Distribution):
            raise KindError("Independent: base_distribution must be a Distribution, got "
                            f"{type(base_distribution).__name__}")
        k = reinterpreted_batch_ndims
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise InvalidParameterError(
                f"Independent: reinterpreted_batch_ndims must be an int >= 0, got {k!r}",
                "reinterpreted_batch_ndims", k)
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        n_batch = len(base_distribution.batch_shape)
        if k > n_batch:
            raise InvalidParameterError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {k} vs {n_batch}", "reinterpreted_batch_ndims", k)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = k
        event_start = n_batch - k
        super().__init__(shape[:event_start], shape[event_start:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = Size(batch_shape)
        moved = tuple(self._event_shape)[:self.reinterpreted_batch_ndims]
        new.base_dist = self.base_dist.expand(batch_shape + moved)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        return self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        base = self.base_dist.support
        k = self.reinterpreted_batch_ndims
        return constraints.independent(base, k) if k else base

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist!r}, {self.reinterpreted_batch_ndims})"


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("KL(Independent || Independent) needs the same "
                                  "reinterpreted_batch_ndims on both sides, got "
                                  f"{p.reinterpreted_batch_ndims} and "
                                  f"{q.reinterpreted_batch_ndims}")
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)
