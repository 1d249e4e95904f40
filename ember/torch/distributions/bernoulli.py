"""``Bernoulli(probs=None, logits=None)``: a coin that gives 1 with probability ``probs``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Bernoulli
>>> d = Bernoulli(probs=torch.tensor([0.25]))
>>> d.mean.tolist(), [round(v, 4) for v in d.log_prob(torch.tensor([1.0])).tolist()]
([0.25], [-1.3863])
"""

from ... import torch as _t
from . import constraints
from .exp_family import ExponentialFamily
from .kl import register_kl
from .binary_parameters import BinaryProbsLogits, store_probs_or_logits

__all__ = ["Bernoulli"]


class Bernoulli(BinaryProbsLogits, ExponentialFamily):
    """Values in {0, 1}; ``probs`` in [0, 1] or ``logits`` (log-odds), exactly one of them."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        store_probs_or_logits(self, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Bernoulli, ("probs", "logits"), batch_shape, _instance)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return mode.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return _t.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = _t.broadcast_tensors(self.logits, value.to(self.logits.dtype))
        # log p(v) = v * logits - log(1 + exp(logits)), written stably
        return value * logits - _t.nn.functional.softplus(logits)

    def entropy(self):
        return _t.nn.functional.softplus(self.logits) - self.probs * self.logits

    def enumerate_support(self, expand=True):
        values = _t.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values

    @property
    def _natural_params(self):
        return (_t.logit(self.probs),)

    def _log_normalizer(self, x):
        return _t.log1p(_t.exp(x))


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # p log(p/q) + (1-p) log((1-p)/(1-q)), with 0 log 0 = 0 and an infinite value where p puts
    # mass that q does not
    sp, sq = _t.nn.functional.softplus, _t.nn.functional.softplus
    t1 = p.probs * (sp(-q.logits) - sp(-p.logits))
    t1 = t1.masked_fill(q.probs == 0, float("inf")).masked_fill(p.probs == 0, 0.0)
    t2 = (1 - p.probs) * (sq(q.logits) - sp(p.logits))
    t2 = t2.masked_fill(q.probs == 1, float("inf")).masked_fill(p.probs == 1, 0.0)
    return t1 + t2
