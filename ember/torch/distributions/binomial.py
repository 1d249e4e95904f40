"""``Binomial(total_count=1, probs=None, logits=None)``: the number of successes in
``total_count`` independent trials of success probability ``probs``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Binomial
>>> d = Binomial(4, torch.tensor([0.5]))
>>> d.mean.tolist(), round(d.log_prob(torch.tensor([2.0])).exp().item(), 4)
([2.0], 0.375)
"""

from ... import torch as _t
from . import constraints
from .binary_parameters import BinaryProbsLogits, store_probs_or_logits
from .distribution import Distribution
from .kl import register_kl

__all__ = ["Binomial"]


class Binomial(BinaryProbsLogits, Distribution):
    """Counts in ``0 .. total_count``; ``total_count`` a non-negative integer (or a tensor of
    them, broadcast with the probabilities), and exactly one of ``probs``/``logits``."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        (self.total_count,) = store_probs_or_logits(self, probs, logits, total_count)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Binomial, ("total_count", "probs", "logits"), batch_shape,
                                       _instance)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            return _t.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, k = self.total_count, value
        log_choose = _t.lgamma(n + 1) - _t.lgamma(k + 1) - _t.lgamma(n - k + 1)
        # k log p + (n - k) log(1 - p) = k * logits - n * log(1 + exp(logits)), kept exact for
        # large |logits| by splitting off max(logits, 0)
        lg = self.logits
        log_powers = k * lg - n * (lg.clamp(min=0) + _t.log1p(_t.exp(-lg.abs())))
        return log_choose + log_powers

    def _homogeneous_count(self, what):
        count = int(self.total_count.max()) if self.total_count.numel() else 0
        if not bool((self.total_count == count).all()):
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_pmf = self.log_prob(self.enumerate_support(False))
        return -(_t.exp(log_pmf) * log_pmf).sum(0)

    def enumerate_support(self, expand=True):
        count = self._homogeneous_count("enumerate_support")
        values = _t.arange(1 + count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    # n (p log(p/q) + (1-p) log((1-p)/(1-q))) for equal counts; p with more trials than q puts
    # mass where q has none
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is "
                                  "not implemented")
    sp = _t.nn.functional.softplus
    t1 = p.probs * (sp(-q.logits) - sp(-p.logits))
    t1 = t1.masked_fill(q.probs == 0, float("inf")).masked_fill(p.probs == 0, 0.0)
    t2 = (1 - p.probs) * (sp(q.logits) - sp(p.logits))
    t2 = t2.masked_fill(q.probs == 1, float("inf")).masked_fill(p.probs == 1, 0.0)
    kl = p.total_count * (t1 + t2)
    return kl.masked_fill(p.total_count > q.total_count, float("inf"))
