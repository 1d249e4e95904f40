"""``RelaxedOneHotCategorical(temperature, probs=None, logits=None)``: a continuous relaxation
of a one-hot category on the simplex (Concrete / Gumbel-softmax), and
``ExpRelaxedCategorical``, its log.

>>> import ember.torch as torch
>>> from ember.torch.distributions import RelaxedOneHotCategorical
>>> d = RelaxedOneHotCategorical(torch.tensor(0.5), probs=torch.tensor([0.2, 0.8]))
>>> x = d.rsample()
>>> x.shape, round(x.sum().item(), 4)
(torch.Size([2]), 1.0)
"""

import math

from ... import torch as _t
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .relaxed_bernoulli import _as_tensor_like
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """``log_softmax((logits + Gumbel noise) / temperature)``: points of the log-simplex."""

    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.independent(constraints.real, 1)
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = _t.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        logits = self.logits
        u = clamp_probs(_t.rand(shape, dtype=logits.dtype, device=logits.device))
        gumbel = -(-u.log()).log()
        scores = (logits + gumbel) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        k = self._categorical._num_events
        logits, value = broadcast_all(self.logits, value)
        temperature = _as_tensor_like(self.temperature, logits)
        # the Concrete density: (k-1)! t^(k-1) prod(p_i e^(-t y_i)) / (sum p_i e^(-t y_i))^k
        scores = logits - value * temperature
        scores = (scores - scores.logsumexp(-1, keepdim=True)).sum(-1)
        return scores + math.lgamma(k) + (k - 1) * temperature.log()


class RelaxedOneHotCategorical(TransformedDistribution):
    """``exp`` of an ``ExpRelaxedCategorical``: points of the simplex that approach one-hot
    vectors as ``temperature`` goes to 0, with reparameterized samples."""

    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
