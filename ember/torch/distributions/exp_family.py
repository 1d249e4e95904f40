"""``ExponentialFamily``: densities ``exp(<t(x), theta> - F(theta) + k(x))``, whose entropy and
KL divergence follow from the log-normalizer ``F`` by differentiation.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Normal, ExponentialFamily
>>> d = Normal(torch.tensor(0.0), torch.tensor(2.0))
>>> isinstance(d, ExponentialFamily)
True
>>> round(ExponentialFamily.entropy(d).item(), 6) == round(d.entropy().item(), 6)
True
"""

from ... import torch as _t
from .distribution import Distribution
from .kl import register_kl

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of an exponential family. Subclasses give ``_natural_params`` (a tuple of
    tensors), ``_log_normalizer(*natural_params)`` and ``_mean_carrier_measure`` (``E[k(x)]``)."""

    @property
    def _natural_params(self):
        raise NotImplementedError(f"{type(self).__name__}._natural_params")

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError(f"{type(self).__name__}._log_normalizer")

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError(f"{type(self).__name__}._mean_carrier_measure")

    def _normalizer_and_grads(self, natural_params):
        """``F(theta)`` and its gradients ``E[t(x)]`` at the given natural parameters (kept in
        the graph when they require grad, so the results differentiate to any order)."""
        thetas = [t if t.requires_grad else t.detach().requires_grad_() for t in natural_params]
        with _t.enable_grad():
            lognorm = self._log_normalizer(*thetas)
            grads = _t.autograd.grad(lognorm.sum(), thetas, create_graph=True)
        return thetas, lognorm, grads

    def entropy(self):
        """``F(theta) - <theta, grad F(theta)> - E[k(x)]``, by automatic differentiation."""
        thetas, lognorm, grads = self._normalizer_and_grads(self._natural_params)
        result = lognorm - self._mean_carrier_measure
        for theta, grad in zip(thetas, grads):
            result = result - _event_sum(theta * grad, len(self.event_shape))
        return result


def _event_sum(value, event_dims):
    return _t.sum(value, tuple(range(-event_dims, 0))) if event_dims else value


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log-normalizer: ``F(q) - F(p) - <q - p, grad F(p)>``."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot be computed using Bregman divergences")
    p_thetas, p_lognorm, p_grads = p._normalizer_and_grads(p._natural_params)
    q_lognorm = q._log_normalizer(*q._natural_params)
    result = q_lognorm - p_lognorm
    for pt, qt, g in zip(p_thetas, q._natural_params, p_grads):
        result = result - _event_sum((qt - pt) * g, len(p.event_shape))
    return result
