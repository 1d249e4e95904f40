"""``Geometric(probs=None, logits=None)``: the number of failures before the first success of
independent trials with success probability ``probs`` (in (0, 1]).

>>> import ember.torch as torch
>>> from ember.torch.distributions import Geometric
>>> d = Geometric(torch.tensor([0.25]))
>>> d.mean.tolist(), round(d.log_prob(torch.tensor([1.0])).exp().item(), 4)
([3.0], 0.1875)
"""

from ... import torch as _t
from ...errors import InvalidParameterError
from . import constraints
from .binary_parameters import BinaryProbsLogits, store_probs_or_logits
from .distribution import Distribution
from .kl import register_kl
from .utils import broadcast_all

__all__ = ["Geometric"]


class Geometric(BinaryProbsLogits, Distribution):
    """Values ``0, 1, 2, ...`` with ``P(k) = (1 - p)^k p``; exactly one of ``probs``/``logits``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        store_probs_or_logits(self, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            raise InvalidParameterError(
                f"Expected parameter probs ({type(self.probs).__name__} of shape "
                f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                f"invalid values:\n{self.probs}", "probs", self.probs)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(Geometric, ("probs", "logits"), batch_shape, _instance)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return _t.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = self.probs
        with _t.no_grad():
            u = _t.rand(shape, dtype=probs.dtype, device=probs.device)
            u = u.clamp(min=_t.finfo(probs.dtype).tiny)
            # inversion: P(X >= k) = (1 - p)^k, so floor(log u / log(1 - p)) is geometric
            return (u.log() / (-probs.detach()).log1p()).floor() + 0.0

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # 0 failures of a sure success: the 0 * log(0) term is 0
        safe = _t.where((probs == 1) & (value == 0), _t.zeros_like(probs), probs)
        return value * (-safe).log1p() + probs.log()

    def entropy(self):
        # the entropy of one trial over the success probability
        bernoulli = _t.nn.functional.softplus(self.logits) - self.probs * self.logits
        return bernoulli / self.probs


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # -H(p) - E_p[log q(X)], with E_p[X] = 1/p - 1
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits
