"""Checks the distribution tests share: one method of one distribution on ember.torch and on
PyTorch (values, shapes, dtypes, gradients), reparameterized-sample gradients by the implicit
function theorem, and seeded two-sample tests of samplers."""

import numpy as np
import scipy.stats
import torch

import ember.torch as et
from math_oracle import check

# the false-alarm rate of each seeded sampler test (the seed makes the outcome fixed; the rate
# says how unlucky a seed would have to be to fail a correct sampler)
ALPHA = 1e-3


def dist_check(name, params, method, value=None, *, kwargs=None, grad=True, rtol=None,
               atol=None):
    """``getattr(Dist(*params), method)`` (called with ``value`` when given; properties when
    ``method`` is a property) agrees between ember.torch and PyTorch, gradients to the params
    included. ``params`` are NumPy arrays (float ones require grad) or Python values."""
    kwargs = kwargs or {}
    arrays = list(params) + ([value] if value is not None else [])

    def f(m, *ins):
        ps, v = (ins[:-1], ins[-1]) if value is not None else (ins, None)
        d = getattr(m.distributions, name)(*ps, **kwargs)
        attr = getattr(d, method)
        if callable(attr):
            return attr(v) if v is not None else attr()
        return attr
    return check(f, *arrays, grad=grad, rtol=rtol, atol=atol)


def rsample_grad_check(make_e, make_t, params, *, n=64, seed=0, rtol=1e-6, atol=1e-8):
    """Reparameterized samples of a univariate distribution move with the parameters as the
    implicit function theorem says: ``dx/dtheta = -(dF/dtheta)(x) / p(x)``, with ``F`` and ``p``
    PyTorch's cdf and density at the sample ember drew. ``make_*(*params)`` build the
    distributions; ``params`` are float64 NumPy arrays."""
    et.manual_seed(seed)
    leaves = [et.tensor(p, requires_grad=True) for p in params]
    x = make_e(*leaves).rsample((n,))
    grads = et.autograd.grad(x.sum(), leaves)
    tl = [torch.tensor(p, requires_grad=True) for p in params]
    xt = torch.tensor(x.detach().numpy())
    dt = make_t(*tl)
    density = dt.log_prob(xt).exp().detach()
    # each sample depends on the parameters only through F(x; theta) = u, so the gradient of
    # the samples' sum is -sum(dF/dtheta / p) over the samples
    expected = torch.autograd.grad((dt.cdf(xt) / density).sum(), tl, allow_unused=True)
    for g, e, leaf_t in zip(grads, expected, tl):
        want = np.zeros(leaf_t.shape) if e is None else -e.numpy()
        np.testing.assert_allclose(g.detach().numpy(), want, rtol=rtol, atol=atol)


def two_sample_check(samples_e, samples_t, alpha=ALPHA):
    """A two-sample Kolmogorov-Smirnov test of ember's samples against PyTorch's (flattened):
    fails when the p-value is below ``alpha``."""
    a = np.asarray(samples_e, dtype=np.float64).ravel()
    b = np.asarray(samples_t, dtype=np.float64).ravel()
    p = scipy.stats.ks_2samp(a, b).pvalue
    assert p > alpha, f"two-sample KS test rejects: p = {p:.3g} < {alpha}"
    return p
