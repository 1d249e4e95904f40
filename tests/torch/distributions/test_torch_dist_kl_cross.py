"""The KL divergences between the gamma family and the other univariate families
(ember/torch/distributions/_kl_cross_families.py) against PyTorch: values and gradients."""

import numpy as np
import pytest
import torch

import ember.torch as et

PAIRS = [("Beta", "ContinuousBernoulli"), ("Beta", "Pareto"),
         ("ContinuousBernoulli", "Exponential"), ("Exponential", "ContinuousBernoulli"),
         ("Exponential", "Gumbel"), ("Exponential", "Pareto"), ("Gamma", "ContinuousBernoulli"),
         ("Gamma", "Gumbel"), ("Gamma", "Pareto"), ("Gumbel", "Beta"), ("Gumbel", "Exponential"),
         ("Gumbel", "Gamma"), ("Laplace", "Beta"), ("Laplace", "Exponential"),
         ("Laplace", "Gamma"), ("Pareto", "Beta"), ("Pareto", "Exponential"),
         ("Pareto", "Gamma")]

ARGS = {"Beta": 2, "ContinuousBernoulli": 1, "Exponential": 1, "Gamma": 2, "Gumbel": 2,
        "Laplace": 2, "Pareto": 2}


def _params(name, rng, shape):
    if name == "ContinuousBernoulli":
        return [rng.uniform(0.05, 0.95, shape)]
    if name == "Pareto":  # alpha below and above 1 (an infinite mean below)
        return [rng.uniform(0.5, 2.0, shape), rng.uniform(0.6, 3.0, shape)]
    return [rng.uniform(0.5, 3.0, shape) for _ in range(ARGS[name])]


@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
def test_kl_across_families_matches_torch(pair, shape):
    rng = np.random.default_rng(sum(map(ord, "".join(pair))))
    pp, qp = _params(pair[0], rng, shape), _params(pair[1], rng, shape)
    te = [et.tensor(a, requires_grad=True) for a in pp + qp]
    tt = [torch.tensor(a, requires_grad=True) for a in pp + qp]
    n = len(pp)
    ke = et.distributions.kl_divergence(getattr(et.distributions, pair[0])(*te[:n]),
                                        getattr(et.distributions, pair[1])(*te[n:]))
    kt = torch.distributions.kl_divergence(getattr(torch.distributions, pair[0])(*tt[:n]),
                                           getattr(torch.distributions, pair[1])(*tt[n:]))
    assert tuple(ke.shape) == tuple(kt.shape)
    np.testing.assert_allclose(ke.detach().numpy(), kt.detach().numpy(), rtol=1e-9, atol=1e-12)
    finite = np.isfinite(kt.detach().numpy())
    if finite.all() and kt.numel():
        ge = et.autograd.grad(ke.sum(), te, allow_unused=True)
        gt = torch.autograd.grad(kt.sum(), tt, allow_unused=True)
        for a, b in zip(ge, gt):
            if b is None:
                assert a is None or not a.detach().numpy().any()
            else:
                np.testing.assert_allclose(a.detach().numpy(), b.numpy(), rtol=1e-7, atol=1e-10)
