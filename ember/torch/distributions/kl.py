"""``kl_divergence(p, q)`` and ``register_kl``: the KL divergence looked up by the types of both
distributions, the most specific registered pair winning.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Normal, kl_divergence
>>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0)).item()
0.5
"""

import warnings

from ...errors import KindError

__all__ = ["register_kl", "kl_divergence"]

_REGISTRY = {}  # (type_p, type_q) -> fn
_CACHE = {}


def register_kl(type_p, type_q):
    """A decorator registering ``fn(p, q)`` as the KL divergence for distributions of types
    ``type_p`` and ``type_q`` (and their subclasses, unless a more specific pair is registered).

    >>> from ember.torch.distributions import Distribution, register_kl
    >>> class Point(Distribution):
    ...     pass
    >>> @register_kl(Point, Point)
    ... def _kl_point(p, q):
    ...     return 0.0
    """
    from .distribution import Distribution
    for name, t in (("type_p", type_p), ("type_q", type_q)):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise KindError(f"register_kl: {name} must be a subclass of Distribution, got {t!r}")

    def decorator(fn):
        _REGISTRY[type_p, type_q] = fn
        _CACHE.clear()
        return fn
    return decorator


def _lookup(type_p, type_q):
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    matches = [(mro_p.index(p), mro_q.index(q), p, q)
               for (p, q) in _REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return None
    # the most specific pair: neither side farther up its type's MRO than another match's
    best = min(matches, key=lambda m: (m[0] + m[1], m[0]))
    ties = [m for m in matches if m[0] + m[1] == best[0] + best[1] and m is not best
            and _REGISTRY[m[2], m[3]] is not _REGISTRY[best[2], best[3]]]
    if ties:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). Please "
                      f"register_kl({best[2].__name__}, {ties[0][3].__name__})", RuntimeWarning,
                      stacklevel=3)
    return _REGISTRY[best[2], best[3]]


def kl_divergence(p, q):
    """``KL(p || q)``: the expected log-density ratio ``E_p[log p(x) - log q(x)]``, one value
    per batch entry. Raises ``NotImplementedError`` when no pair is registered for their types."""
    key = (type(p), type(q))
    if key not in _CACHE:
        _CACHE[key] = _lookup(*key)
    fn = _CACHE[key]
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{type(p).__name__} and q type {type(q).__name__}")
    return fn(p, q)
