"""``Multinomial(total_count=1, probs=None, logits=None)``: the counts per category of
``total_count`` independent categorical draws.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Multinomial
>>> d = Multinomial(2, torch.tensor([0.5, 0.5]))
>>> d.sample().sum().item(), round(d.log_prob(torch.tensor([1.0, 1.0])).exp().item(), 4)
(2.0, 0.5)
"""

from ... import torch as _t
from ...errors import KindError
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Count vectors over the last dim of ``probs``/``logits`` (the event shape) summing to
    ``total_count`` (a Python int)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if isinstance(total_count, bool) or not isinstance(total_count, int):
            raise KindError("Multinomial: inhomogeneous total_count is not supported; "
                            f"total_count must be a Python int, got {total_count!r}")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits, validate_args=False)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = _t.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        sample_shape = _t.Size(sample_shape)
        probs = self.probs
        with _t.no_grad():
            draws = self._categorical.sample((self.total_count,) + tuple(sample_shape))
            hits = _t.nn.functional.one_hot(draws, probs.shape[-1]).to(probs.dtype)
            return hits.sum(0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = _t.broadcast_tensors(self.logits, value)
        # a category of probability 0 that was never drawn contributes nothing
        logits = _t.where((value == 0) & (logits == float("-inf")), _t.zeros_like(logits),
                          logits)
        log_factorials = _t.lgamma(value.sum(-1) + 1) - _t.lgamma(value + 1).sum(-1)
        return log_factorials + (logits * value).sum(-1)

    def entropy(self):
        # H = n H(categorical) - log n! + sum_i E[log X_i!], each X_i ~ Binomial(n, p_i)
        n = self.total_count
        probs = self.probs
        counts = _t.arange(n + 1, dtype=probs.dtype, device=probs.device)
        counts = counts.view((-1,) + (1,) * probs.dim())
        log_pmf = Binomial(n, probs, validate_args=False).log_prob(counts)
        expected = (_t.exp(log_pmf) * _t.lgamma(counts + 1)).sum([0, -1])
        return n * self._categorical.entropy() - _t.lgamma(_t.tensor(n + 1.0, dtype=probs.dtype,
                                                                     device=probs.device)) \
            + expected
