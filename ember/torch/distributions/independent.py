"""``Independent(base_distribution, reinterpreted_batch_ndims)``: batch dims of a distribution
counted as event dims (a diagonal multivariate Normal from a batch of Normals).

>>> import ember.torch as torch
>>> from ember.torch.distributions import Independent, Normal
>>> d = Independent(Normal(torch.zeros(2, 3), 1.0), 1)
>>> d.batch_shape, d.event_shape, d.log_prob(torch.zeros(2, 3)).shape
(torch.Size([2]), torch.Size([3]), torch.Size([2]))
"""

from ...errors import InvalidParameterError, KindError
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from .kl import kl_divergence, register_kl
from .transforms import _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """``base_distribution`` with its ``reinterpreted_batch_ndims`` rightmost batch dims made
    part of each event: log-densities and entropies are summed over them."""

    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if not isinstance(base_distribution, Distribution):
            raise KindError("Independent: base_distribution must be a Distribution, got "
                            f"{type(base_distribution).__name__}")
        n = reinterpreted_batch_ndims
        if not isinstance(n, int) or n < 0:
            raise InvalidParameterError(
                f"Independent: reinterpreted_batch_ndims must be an int >= 0, got {n!r}",
                "reinterpreted_batch_ndims", n)
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_batch = len(base_distribution.batch_shape)
        if n > base_batch:
            raise InvalidParameterError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {n} vs {base_batch}", "reinterpreted_batch_ndims", n)
        cut = base_batch - n
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = Size(batch_shape)
        base_batch = tuple(self.base_dist.batch_shape)
        moved = base_batch[len(base_batch) - self.reinterpreted_batch_ndims:]
        new.base_dist = self.base_dist.expand(tuple(batch_shape) + moved)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
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
        support = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            support = constraints.independent(support, self.reinterpreted_batch_ndims)
        return support

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
        if self.reinterpreted_batch_ndims:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist!r}, {self.reinterpreted_batch_ndims})"


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("KL between Independent distributions with different "
                                  "reinterpreted_batch_ndims")
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)
