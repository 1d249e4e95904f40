"""The continuous univariate families (Laplace, Gumbel, Pareto, Weibull, GeneralizedPareto)
against PyTorch: values and gradients of log_prob, cdf/icdf, moments and entropy,
reparameterized-sample gradients, samplers, the KL divergences among them and the core's, validation
and expand."""

import math

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError
from dist_oracle import dist_check as _dist_check
from dist_oracle import rsample_grad_check, two_sample_check
from math_oracle import check

RNG = np.random.default_rng(11)
SHAPES = [(), (3,), (2, 0), (2, 3)]


def _arr(x):
    return np.asarray(x) if isinstance(x, (np.ndarray, np.generic)) else x


def dist_check(name, params, method, value=None, **kwargs):
    """``dist_oracle.dist_check`` with 0-d NumPy values kept as arrays."""
    return _dist_check(name, [_arr(p) for p in params], method, _arr(value), **kwargs)


@pytest.fixture(autouse=True)
def _torch_float64_for_generalized_pareto(request):
    # PyTorch's GeneralizedPareto compares its float64 parameters with a default-dtype zero,
    # which fails unless the default dtype is float64
    if not any(k in request.node.name for k in ("GeneralizedPareto", "generalized_pareto")):
        yield
        return
    saved = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(saved)


def _pos(shape, low=0.5, high=2.0):
    return np.asarray(RNG.uniform(low, high, shape))


def _gp_params(shape):
    xi = np.asarray(RNG.uniform(-0.4, 0.45, shape))
    if xi.size >= 2:
        xi.flat[0], xi.flat[1] = 1e-7, 3e-5  # the series branch near the exponential limit
    return [np.asarray(RNG.standard_normal(shape)), _pos(shape), xi]


# parameters and a value inside the support, per family
FAMILIES = {
    "Laplace": (lambda s: [np.asarray(RNG.standard_normal(s)), _pos(s)],
                lambda ps: np.asarray(RNG.standard_normal(ps[0].shape) * 2)),
    "Gumbel": (lambda s: [np.asarray(RNG.standard_normal(s)), _pos(s)],
               lambda ps: np.asarray(RNG.standard_normal(ps[0].shape) * 2)),
    "Pareto": (lambda s: [_pos(s), _pos(s, 2.5, 4.0)],
               lambda ps: ps[0] * _pos(ps[0].shape, 1.0, 3.0)),
    "Weibull": (lambda s: [_pos(s), _pos(s, 1.2, 3.0)],
                lambda ps: _pos(ps[0].shape, 0.1, 3.0)),
    "GeneralizedPareto": (_gp_params,
                          # inside [loc, loc - scale / xi) for xi < 0 too: z in (0, 1)
                          lambda ps: ps[0] + ps[1] * _pos(ps[0].shape, 0.05, 1.0)),
}


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("method", ["log_prob", "cdf", "icdf"])
def test_methods(name, shape, method):
    make_params, make_value = FAMILIES[name]
    params = make_params(shape)
    value = np.asarray(RNG.uniform(0.02, 0.98, shape)) if method == "icdf" else make_value(
        params)
    dist_check(name, params, method, value)


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("shape", [(), (2, 3)])
@pytest.mark.parametrize("prop", ["mean", "mode", "variance", "stddev", "entropy"])
def test_moments(name, shape, prop):
    dist_check(name, FAMILIES[name][0](shape), prop)


@pytest.mark.parametrize("method", ["log_cdf", "log_survival_function"])
def test_generalized_pareto_log_tails(method):
    params = _gp_params((2, 3))
    dist_check("GeneralizedPareto", params, method, FAMILIES["GeneralizedPareto"][1](params))


@pytest.mark.parametrize("method", ["log_prob", "cdf", "icdf", "log_survival_function"])
def test_generalized_pareto_at_zero_concentration(method):
    # xi = 0 is the exponential law; the value is PyTorch's, the gradient in xi the limit of
    # PyTorch's as xi -> 0 (PyTorch itself gives 0 for |xi| <= 1e-8)
    value = np.array([0.3, 1.0, 2.5]) if method != "icdf" else np.array([0.1, 0.5, 0.9])
    loc, scale = np.array([0.1, -0.2, 0.0]), np.array([0.7, 1.0, 1.5])

    def run(m, xi, grad):
        xi_t = m.tensor(np.full(3, xi), requires_grad=True)
        d = m.distributions.GeneralizedPareto(m.tensor(loc), m.tensor(scale), xi_t)
        out = getattr(d, method)(m.tensor(value))
        (g,) = (m.autograd.grad(out.sum(), [xi_t]) if grad else (None,))
        return out.detach().numpy(), g.numpy()
    e_val, e_grad = run(et, 0.0, True)
    t_val, _ = run(torch, 0.0, True)
    _, t_grad = run(torch, 1e-7, True)
    np.testing.assert_allclose(e_val, t_val, rtol=1e-12)
    np.testing.assert_allclose(e_grad, t_grad, rtol=1e-6, atol=1e-9)


def test_generalized_pareto_undefined_moments_and_bounded_support():
    xi = np.array([-0.5, 0.0, 0.4, 0.6, 1.0, 1.5])
    e = et.distributions.GeneralizedPareto(et.tensor(0.5), et.tensor(2.0), et.tensor(xi))
    t = torch.distributions.GeneralizedPareto(torch.tensor(0.5, dtype=torch.float64),
                                              torch.tensor(2.0, dtype=torch.float64),
                                              torch.tensor(xi))
    for name in ("mean", "variance", "mode"):
        np.testing.assert_allclose(getattr(e, name).numpy(), getattr(t, name).numpy(),
                                   rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(e.support.upper_bound.numpy(), t.support.upper_bound.numpy())
    np.testing.assert_allclose(e.icdf(et.tensor([0.0, 1.0, 0.0, 1.0, 0.5, 0.5])).numpy(),
                               t.icdf(torch.tensor([0.0, 1.0, 0.0, 1.0, 0.5, 0.5])).numpy())
    with pytest.raises(InvalidParameterError):
        e.log_prob(et.tensor(5.0))  # beyond loc - scale / xi = 4.5 for xi = -0.5


def test_weibull_mode_below_concentration_one_is_zero():
    # the density of concentration <= 1 is largest at 0 (PyTorch's formula gives other values
    # there, so only concentration > 1 is compared with it above)
    d = et.distributions.Weibull(et.tensor(2.0), et.tensor([0.3, 0.5, 1.0]))
    assert d.mode.tolist() == [0.0, 0.0, 0.0]


def test_pareto_infinite_moments():
    alpha = np.array([0.5, 1.0, 1.5, 2.0, 3.0])
    e = et.distributions.Pareto(et.tensor(1.5), et.tensor(alpha))
    t = torch.distributions.Pareto(torch.tensor(1.5, dtype=torch.float64), torch.tensor(alpha))
    np.testing.assert_allclose(e.mean.numpy(), t.mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(e.variance.numpy(), t.variance.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_rsample_gradients(name):
    params = FAMILIES[name][0]((4,))
    if name == "GeneralizedPareto":
        params[2] = np.array([-0.3, 1e-7, 0.2, 0.4])
    rsample_grad_check(getattr(et.distributions, name), getattr(torch.distributions, name),
                       params, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name,params", [
    ("Laplace", (0.5, 1.5)), ("Gumbel", (-1.0, 2.0)), ("Pareto", (1.5, 2.5)),
    ("Weibull", (2.0, 0.7)), ("GeneralizedPareto", (0.5, 2.0, 0.3)),
    ("GeneralizedPareto", (0.0, 1.0, -0.4))])
def test_sampler_matches_torch(name, params):
    et.manual_seed(2)
    torch.manual_seed(2)
    e = getattr(et.distributions, name)(*[et.tensor(p) for p in params]).sample((4000,))
    t = getattr(torch.distributions, name)(*[torch.tensor(p) for p in params]).sample((4000,))
    assert e.dtype == et.float32 and e.shape == t.shape
    two_sample_check(e.numpy(), t.numpy())


# -- KL divergences -----------------------------------------------------------------------------
def _kl_params(name, k):
    r = np.random.default_rng(k)
    n = 5
    if name in ("Normal", "Laplace", "Gumbel"):
        return [r.standard_normal(n) * 0.5 + 0.5, r.uniform(0.5, 2.0, n)]
    if name == "Uniform":
        if k == 0:  # inside [0, 1], then straddling it, then above it
            low = np.array([0.05, 0.3, 0.01, -0.5, 1.5])
        else:
            low = np.array([-0.5, -0.2, 0.1, -1.0, 2.0])
        return [low, low + np.array([0.5, 0.6, 0.8, 2.5, 1.0])]
    if name == "Pareto":
        return [r.uniform(0.5, 1.5, n), np.array([0.8, 1.5, 1.9, 2.5, 4.0])]
    return [np.array([0.2, 0.5, 0.4997, 0.9, 0.65])]  # ContinuousBernoulli


KL_PAIRS = [
    ("Laplace", "Laplace"), ("Gumbel", "Gumbel"), ("Pareto", "Pareto"),
    ("ContinuousBernoulli", "Pareto"), ("ContinuousBernoulli", "Normal"),
    ("ContinuousBernoulli", "Uniform"), ("Gumbel", "Uniform"), ("Gumbel", "Pareto"),
    ("Gumbel", "ContinuousBernoulli"), ("Gumbel", "Normal"), ("Laplace", "Uniform"),
    ("Laplace", "Pareto"), ("Laplace", "ContinuousBernoulli"), ("Laplace", "Normal"),
    ("Normal", "Uniform"), ("Normal", "Pareto"), ("Normal", "ContinuousBernoulli"),
    ("Normal", "Gumbel"), ("Normal", "Laplace"), ("Pareto", "Uniform"),
    ("Pareto", "ContinuousBernoulli"), ("Pareto", "Normal"), ("Uniform", "ContinuousBernoulli"),
    ("Uniform", "Gumbel"), ("Uniform", "Normal"), ("Uniform", "Pareto"),
]


@pytest.mark.parametrize("pair", KL_PAIRS)
def test_kl_pairs(pair):
    pp, qp = _kl_params(pair[0], 0), _kl_params(pair[1], 1)
    if pair == ("Uniform", "Pareto"):  # Pareto's support [scale, inf) holding some of them
        pp = [np.array([0.5, 1.2, 2.0, 1.0, 3.0]), np.array([1.0, 2.0, 2.5, 4.0, 3.5])]
    if pair == ("ContinuousBernoulli", "Uniform"):
        qp = [np.array([-0.5, -1e-6, 0.1, -1.0, 0.0]), np.array([1.5, 1.2, 1.1, 0.9, 0.5])]
    n = len(pp)

    def f(m, *ins):
        p = getattr(m.distributions, pair[0])(*ins[:n])
        q = getattr(m.distributions, pair[1])(*ins[n:])
        return m.distributions.kl_divergence(p, q)
    out = check(f, *pp, *qp, rtol=1e-6, atol=1e-9, grad=not _always_infinite(pair))
    assert out.shape == (5,)


def test_kl_uniform_continuous_bernoulli_at_the_ends_of_the_support():
    # an interval that reaches 0 or 1 lies inside [0, 1]: the divergence is finite (PyTorch
    # gives inf when an end touches 0 or 1), and equals its limit from inside
    q = et.distributions.ContinuousBernoulli(et.tensor([0.3, 0.3]))
    at = et.distributions.kl_divergence(
        et.distributions.Uniform(et.tensor([0.0, 0.2]), et.tensor([0.5, 1.0])), q)
    near = torch.distributions.kl_divergence(
        torch.distributions.Uniform(torch.tensor([1e-9, 0.2], dtype=torch.float64),
                                    torch.tensor([0.5, 1 - 1e-9], dtype=torch.float64)),
        torch.distributions.ContinuousBernoulli(torch.tensor([0.3, 0.3], dtype=torch.float64)))
    np.testing.assert_allclose(at.numpy(), near.numpy(), rtol=1e-6)


def _always_infinite(pair):
    return pair in {("ContinuousBernoulli", "Pareto"), ("Gumbel", "Uniform"),
                    ("Gumbel", "Pareto"), ("Gumbel", "ContinuousBernoulli"),
                    ("Laplace", "Uniform"), ("Laplace", "Pareto"),
                    ("Laplace", "ContinuousBernoulli"), ("Normal", "Uniform"),
                    ("Normal", "Pareto"), ("Normal", "ContinuousBernoulli"),
                    ("Pareto", "Uniform"), ("Pareto", "ContinuousBernoulli")}


def test_kl_pairs_are_all_registered():
    from torch.distributions.kl import _KL_REGISTRY
    ours = {"Bernoulli", "Binomial", "Categorical", "ContinuousBernoulli", "Geometric", "Gumbel",
            "Laplace", "Normal", "OneHotCategorical", "Pareto", "Poisson", "Uniform"}
    from ember.torch.distributions.kl import _REGISTRY
    registered = {(p.__name__, q.__name__) for p, q in _REGISTRY}
    for p, q in _KL_REGISTRY:
        if p.__name__ in ours and q.__name__ in ours:
            assert (p.__name__, q.__name__) in registered, (p.__name__, q.__name__)


# -- validation, expand, shapes -----------------------------------------------------------------
@pytest.mark.parametrize("name,params,param", [
    ("Laplace", (0.0, -1.0), "scale"), ("Gumbel", (0.0, 0.0), "scale"),
    ("Pareto", (-1.0, 2.0), "scale"), ("Pareto", (1.0, 0.0), "alpha"),
    ("Weibull", (0.0, 1.0), "scale"), ("Weibull", (1.0, -2.0), "concentration"),
    ("GeneralizedPareto", (0.0, -1.0, 0.5), "scale"),
    ("GeneralizedPareto", (0.0, 1.0, math.nan), "concentration")])
def test_refuses_bad_parameters(name, params, param):
    with pytest.raises(InvalidParameterError) as info:
        getattr(et.distributions, name)(*[et.tensor(p) for p in params])
    assert info.value.param == param
    getattr(et.distributions, name)(*[et.tensor(p) for p in params], validate_args=False)


@pytest.mark.parametrize("name,params,value", [
    ("Pareto", (1.0, 2.0), 0.5), ("Weibull", (1.0, 2.0), -0.5),
    ("GeneralizedPareto", (1.0, 1.0, 0.5), 0.5), ("Laplace", (0.0, 1.0), math.nan)])
def test_refuses_values_outside_support(name, params, value):
    d = getattr(et.distributions, name)(*[et.tensor(p) for p in params])
    with pytest.raises(InvalidParameterError) as info:
        d.log_prob(et.tensor(value))
    assert info.value.param == "value"


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_expand_shapes_and_repr(name):
    params = FAMILIES[name][0]((2,))
    e = getattr(et.distributions, name)(*[et.tensor(p) for p in params])
    t = getattr(torch.distributions, name)(*[torch.tensor(p) for p in params])
    ee, te = e.expand((3, 2)), t.expand((3, 2))
    assert ee.batch_shape == te.batch_shape == (3, 2) and type(ee) is type(e)
    assert ee.rsample((4,)).shape == te.rsample((4,)).shape == (4, 3, 2)
    assert repr(e) == repr(t)
    v = FAMILIES[name][1](params)
    np.testing.assert_allclose(ee.log_prob(et.tensor(v)).numpy(),
                               te.log_prob(torch.tensor(v)).numpy(), rtol=1e-10)
    assert (e.has_rsample, e.has_enumerate_support) == (t.has_rsample, t.has_enumerate_support)
    assert repr(e.support).split("(")[0] == repr(t.support).split("(")[0]
