"""``MixtureSameFamily(mixture_distribution, component_distribution)``: a finite mixture whose
components are the rightmost batch dim of one distribution, weighted by a Categorical.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Categorical, MixtureSameFamily, Normal
>>> d = MixtureSameFamily(Categorical(torch.tensor([0.25, 0.75])),
...                       Normal(torch.tensor([-1.0, 1.0]), torch.ones(2)))
>>> d.mean.item(), round(d.cdf(torch.tensor(0.0)).item(), 4)
(0.5, 0.3293)
"""

from ... import torch as _t
from ...errors import InvalidParameterError
from .._tensor import Size
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """Draw a component index ``i ~ mixture_distribution``, then a value from component ``i``
    of ``component_distribution`` (whose rightmost batch dim lists the components)."""

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise InvalidParameterError(  # a ValueError, as PyTorch raises
                " The Mixture distribution needs to be an instance of "
                f"torch.distributions.Categorical, got {type(mixture_distribution).__name__}",
                "mixture_distribution", mixture_distribution)
        if not isinstance(component_distribution, Distribution):
            raise InvalidParameterError(
                "The Component distribution needs to be an instance of "
                f"torch.distributions.Distribution, got {type(component_distribution).__name__}",
                "component_distribution", component_distribution)
        mixture_batch = tuple(mixture_distribution.batch_shape)
        component_batch = tuple(component_distribution.batch_shape)
        if not component_batch:
            raise InvalidParameterError(
                "component_distribution must have at least one batch dim (the components)",
                "component_distribution", component_batch)
        if len(mixture_batch) > len(component_batch) - 1 or any(
                a != 1 and b != 1 and a != b
                for a, b in zip(reversed(mixture_batch), reversed(component_batch[:-1]))):
            raise InvalidParameterError(
                f"`mixture_distribution.batch_shape` ({mixture_distribution.batch_shape}) is "
                "not compatible with `component_distribution.batch_shape`"
                f"({component_distribution.batch_shape})", "mixture_distribution",
                mixture_batch)
        k = mixture_distribution.logits.shape[-1]
        if k != component_batch[-1]:
            raise InvalidParameterError(
                f"`mixture_distribution component` ({k}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({component_batch[-1]})",
                "mixture_distribution", k)
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = k
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch[:-1], component_distribution.event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        batch_shape = Size(batch_shape)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    def _weights(self):
        """The mixture probabilities with one trailing dim of size 1 per event dim."""
        probs = self._mixture_distribution.probs
        return probs.reshape(tuple(probs.shape) + (1,) * self._event_ndims)

    def _over_components(self, value):
        """``value`` with a size-1 dim where the components sit, so it broadcasts over them."""
        return value.unsqueeze(-1 - self._event_ndims)

    @property
    def mean(self):
        return (self._weights() * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        # the law of total variance: E[Var(X | i)] + Var(E[X | i])
        dim = -1 - self._event_ndims
        weights, component = self._weights(), self._component_distribution
        spread = (component.mean - self._over_components(self.mean)).pow(2)
        return (weights * component.variance).sum(dim) + (weights * spread).sum(dim)

    def cdf(self, x):
        x = self._over_components(x)
        return (self._mixture_distribution.probs * self._component_distribution.cdf(x)).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        per_component = self._component_distribution.log_prob(self._over_components(x))
        log_weights = _t.log_softmax(self._mixture_distribution.logits, -1)
        return _t.logsumexp(per_component + log_weights, -1)

    def sample(self, sample_shape=()):
        sample_shape = Size(sample_shape)
        with _t.no_grad():
            chosen = self._mixture_distribution.sample(sample_shape)
            drawn = self._component_distribution.sample(sample_shape)
            event = tuple(self._event_shape)
            missing = len(self._batch_shape) - len(self._mixture_distribution.batch_shape)
            index = chosen.reshape(sample_shape + (1,) * missing
                                   + tuple(self._mixture_distribution.batch_shape))
            index = index.expand(sample_shape + self._batch_shape)
            index = index.reshape(tuple(index.shape) + (1,) * (1 + len(event)))
            index = index.expand(sample_shape + self._batch_shape + (1,) + event)
            return drawn.gather(len(sample_shape) + len(self._batch_shape), index).squeeze(
                len(sample_shape) + len(self._batch_shape))

    def __repr__(self):
        return (f"{type(self).__name__}(\n  {self._mixture_distribution!r},\n"
                f"  {self._component_distribution!r})")
