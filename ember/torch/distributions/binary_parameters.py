"""What the distributions of one success probability share: given as exactly one of ``probs``
or ``logits`` (log-odds), the other computed on first use.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Geometric
>>> d = Geometric(logits=torch.tensor([0.0]))
>>> d.probs.tolist()
[0.5]
"""

from ...errors import InvalidParameterError
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["one_of", "store_probs_or_logits", "BinaryProbsLogits"]


def one_of(probs, logits, name):
    """Refuse unless exactly one of ``probs`` and ``logits`` is given."""
    if (probs is None) == (logits is None):
        raise InvalidParameterError(f"{name}: pass either probs or logits, not both and not "
                                    "neither", "probs" if probs is not None else "logits",
                                    probs if probs is not None else logits)


def store_probs_or_logits(dist, probs, logits, *others):
    """Check that exactly one of ``probs``/``logits`` is given, store it on ``dist`` (and as
    ``dist._param``) broadcast with ``others``, and return ``others`` broadcast and cast to its
    dtype."""
    one_of(probs, logits, type(dist).__name__)
    name, given = ("probs", probs) if probs is not None else ("logits", logits)
    *rest, param = broadcast_all(*others, given)
    dist.__dict__[name] = param
    dist._param = param
    return [value.type_as(param) for value in rest]


class BinaryProbsLogits:
    """``probs`` from ``logits`` (a sigmoid) or ``logits`` from ``probs`` (log-odds), whichever
    was not given, computed once; ``param_shape`` is the given one's shape."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()
