"""``Categorical(probs=None, logits=None)``: one of ``K`` categories, with the probabilities of
the last dim of ``probs`` (normalised to sum to 1) or ``logits`` (unnormalised log-probs).

>>> import ember.torch as torch
>>> from ember.torch.distributions import Categorical
>>> d = Categorical(probs=torch.tensor([1.0, 3.0]))
>>> d.probs.tolist(), round(d.log_prob(torch.tensor(1)).exp().item(), 4)
([0.25, 0.75], 0.75)
"""

import math

from ... import torch as _t
from . import constraints
from .binary_parameters import one_of
from .distribution import Distribution
from .kl import register_kl
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Indices ``0 .. K-1`` of the last dim of ``probs``/``logits``; the dims before it are the
    batch."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(
        constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        one_of(probs, logits, type(self).__name__)
        if probs is not None:
            probs = _param(probs, "probs", type(self).__name__)
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            logits = _param(logits, "logits", type(self).__name__)
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else ()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_parameters(Categorical, ("probs", "logits"), batch_shape, _instance)
        new._num_events = self._num_events
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return _t.full(self._extended_shape(), math.nan, dtype=self.probs.dtype,
                       device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return self.mean

    def sample(self, sample_shape=()):
        sample_shape = _t.Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        with _t.no_grad():
            drawn = _t.multinomial(probs_2d, max(sample_shape.numel(), 1), True)
        if sample_shape.numel() == 0:
            drawn = drawn[:, :0]
        return drawn.T.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = _t.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=_t.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = _t.arange(self._num_events, dtype=_t.long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


def _param(value, name, owner):
    from ...errors import InvalidParameterError
    from .utils import broadcast_all
    (value,) = broadcast_all(value)
    if value.dim() < 1:
        raise InvalidParameterError(f"{owner}: `{name}` parameter must be at least "
                                    "one-dimensional.", name, value)
    return value


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    terms = p.probs * (p.logits - q.logits)
    terms = terms.masked_fill(q.probs == 0, float("inf")).masked_fill(p.probs == 0, 0.0)
    return terms.sum(-1)
