"""``RelaxedBernoulli(temperature, probs=None, logits=None)``: a continuous relaxation of a coin
on ``(0, 1)`` (binary Concrete / Gumbel-softmax), and ``LogitRelaxedBernoulli``, its logit.

>>> import ember.torch as torch
>>> from ember.torch.distributions import RelaxedBernoulli
>>> d = RelaxedBernoulli(torch.tensor(0.5), probs=torch.tensor([0.3]))
>>> d.rsample().shape, round(d.log_prob(torch.tensor([0.5])).item(), 4)
(torch.Size([1]), -0.8675)
"""

from ... import torch as _t
from ..._tensor import Tensor as _AnyTensor
from .._tensor import Size, as_torch
from . import constraints
from .binary_parameters import BinaryProbsLogits, store_probs_or_logits
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


def _as_tensor_like(value, like):
    """``value`` (a tensor or a number) as an ember.torch tensor, numbers in ``like``'s dtype."""
    if isinstance(value, _AnyTensor):
        return as_torch(value)
    return _t.tensor(value, dtype=like.dtype, device=like.device)


class LogitRelaxedBernoulli(BinaryProbsLogits, Distribution):
    """``(logits + logistic noise) / temperature``: a logistic distribution of location
    ``logits / temperature`` and scale ``1 / temperature``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        store_probs_or_logits(self, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_parameters(LogitRelaxedBernoulli, ("probs", "logits"), batch_shape,
                                      _instance)
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(_t.rand(shape, dtype=probs.dtype, device=probs.device))
        # logit(u) is standard logistic noise
        noise = u.log() - (-u).log1p()
        return (noise + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        temperature = _as_tensor_like(self.temperature, logits)
        # logistic density of t y with location logits, times the Jacobian t
        shift = logits - value * temperature
        return temperature.log() + shift - 2 * shift.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """``sigmoid`` of a ``LogitRelaxedBernoulli``: values in ``(0, 1)`` that approach a coin's
    0 and 1 as ``temperature`` goes to 0, with reparameterized samples."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(Size(batch_shape), _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
