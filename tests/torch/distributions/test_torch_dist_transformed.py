"""TransformedDistribution and Independent, and the families built on transforms (LogNormal,
HalfNormal, Cauchy, HalfCauchy, LogisticNormal, Kumaraswamy, RelaxedBernoulli,
RelaxedOneHotCategorical) against PyTorch: densities, cdf/icdf, moments, entropies, KL,
gradients, samplers, validation and shapes (float64)."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError
from dist_oracle import dist_check, rsample_grad_check, two_sample_check
from math_oracle import check

RNG = np.random.default_rng(3)
SHAPES = [(), (3,), (2, 0), (2, 3)]
TOL = {"rtol": 1e-6, "atol": 1e-9}


def _pos(shape, low=0.5, high=2.0):
    return np.asarray(RNG.uniform(low, high, shape))


def _real(shape):
    return np.asarray(RNG.standard_normal(shape))


def _unit(shape):
    return np.asarray(RNG.uniform(0.02, 0.98, shape))


# -- TransformedDistribution -------------------------------------------------------------------

def _chains(m):
    d = m.distributions
    return {
        "affine_exp": (lambda loc, scale: d.TransformedDistribution(
            d.Normal(loc, scale), [d.AffineTransform(0.5, 2.0), d.ExpTransform()])),
        "decreasing": (lambda loc, scale: d.TransformedDistribution(
            d.Normal(loc, scale), [d.AffineTransform(1.0, -3.0), d.SigmoidTransform()])),
        "tensor_sign": (lambda loc, scale: d.TransformedDistribution(
            d.Normal(loc, scale), d.AffineTransform(0.0, m.tensor([1.5, -0.5, 2.0],
                                                                  dtype=m.float64)))),
        "compose": (lambda loc, scale: d.TransformedDistribution(
            d.Normal(loc, scale), d.ComposeTransform([d.TanhTransform(),
                                                       d.AffineTransform(2.0, 3.0)]))),
    }


@pytest.mark.parametrize("chain", ["affine_exp", "decreasing", "tensor_sign", "compose"])
@pytest.mark.parametrize("method", ["log_prob", "cdf", "icdf"])
def test_transformed_univariate(chain, method):
    loc, scale = _real(3), _pos(3)
    base_t = torch.distributions.Normal(torch.tensor(loc), torch.tensor(scale))
    x = base_t.sample((2,))
    if method == "icdf":
        value = _unit((2, 3))
    else:
        value = _chains(torch)[chain](torch.tensor(loc), torch.tensor(scale)).transforms
        for t in value:
            x = t(x)
        value = x.numpy()

    def f(m, loc, scale, value):
        return getattr(_chains(m)[chain](loc, scale), method)(value)
    check(f, loc, scale, value, **TOL)


def test_transformed_shapes_support_and_broadcast():
    d = et.distributions
    base = d.Normal(et.zeros(3, dtype=et.float64), 1.0)
    t = d.TransformedDistribution(base, [d.AffineTransform(et.zeros(2, 3, dtype=et.float64),
                                                            2.0)])
    tt = torch.distributions.TransformedDistribution(
        torch.distributions.Normal(torch.zeros(3, dtype=torch.float64), 1.0),
        [torch.distributions.AffineTransform(torch.zeros(2, 3, dtype=torch.float64), 2.0)])
    assert t.batch_shape == tt.batch_shape and t.base_dist.batch_shape == tt.base_dist.batch_shape
    assert t.sample((4,)).shape == (4, 2, 3) and t.rsample().shape == (2, 3)
    stick = d.TransformedDistribution(base, d.StickBreakingTransform())
    assert isinstance(stick.base_dist, d.Independent)
    assert (stick.batch_shape, stick.event_shape) == ((), (4,))
    assert repr(stick.support) == "Simplex()"
    assert repr(d.TransformedDistribution(base, []).support) == "Real()"
    assert repr(d.TransformedDistribution(base, d.ExpTransform()).support) == \
        "GreaterThan(lower_bound=0.0)"
    assert d.TransformedDistribution(base, []).has_rsample
    assert d.TransformedDistribution.arg_constraints == {}


def test_transformed_event_dims_log_prob():
    loc, scale = _real((2, 3)), _pos((2, 3))
    y = torch.distributions.StickBreakingTransform()(torch.randn(2, 3, dtype=torch.float64))

    def f(m, loc, scale, y):
        d = m.distributions
        return d.TransformedDistribution(d.Normal(loc, scale),
                                         [d.StickBreakingTransform()]).log_prob(y)
    check(f, loc, scale, y.numpy(), **TOL)


def test_transformed_rsample_gradients():
    def make(m):
        return lambda loc, scale: m.distributions.TransformedDistribution(
            m.distributions.Normal(loc, scale),
            [m.distributions.AffineTransform(1.0, -2.0), m.distributions.ExpTransform()])
    rsample_grad_check(make(et), make(torch), [_real(3), _pos(3)])


def test_transformed_expand():
    d = et.distributions
    t = d.TransformedDistribution(d.Normal(et.zeros(3, dtype=et.float64), 1.0),
                                  d.StickBreakingTransform())
    e = t.expand((5,))
    assert (e.batch_shape, e.event_shape) == ((5,), (4,))
    assert e.base_dist.batch_shape == (5,) and e.sample().shape == (5, 4)


def test_transformed_bad_arguments():
    d = et.distributions
    with pytest.raises(KindError):
        d.TransformedDistribution(d.Normal(0.0, 1.0), 3)
    with pytest.raises(KindError):
        d.TransformedDistribution(d.Normal(0.0, 1.0), [3])
    with pytest.raises(InvalidParameterError):
        d.TransformedDistribution(d.Normal(0.0, 1.0), [d.StickBreakingTransform()])
    t = d.TransformedDistribution(d.Normal(0.0, 1.0), [d.ExpTransform()], validate_args=True)
    with pytest.raises(InvalidParameterError):
        t.log_prob(et.tensor(-1.0))


def test_kl_transformed_transformed():
    def f(m, l1, s1, l2, s2):
        d = m.distributions
        out = []
        for chain in (lambda: [d.ExpTransform()], lambda: d.StickBreakingTransform()):
            p = d.TransformedDistribution(d.Normal(l1, s1), chain())
            q = d.TransformedDistribution(d.Normal(l2, s2), chain())
            out.append(d.kl_divergence(p, q))
        return out
    check(f, _real((2, 3)), _pos((2, 3)), _real((2, 3)), _pos((2, 3)), **TOL)
    d = et.distributions
    p = d.TransformedDistribution(d.Normal(0.0, 1.0), [d.ExpTransform()])
    with pytest.raises(NotImplementedError):
        d.kl_divergence(p, d.TransformedDistribution(d.Normal(0.0, 1.0), [d.TanhTransform()]))


def test_independent():
    loc, scale, value = _real((2, 3)), _pos((2, 3)), _real((2, 3))

    def f(m, loc, scale, value):
        d = m.distributions.Independent(m.distributions.Normal(loc, scale), 1)
        return [d.log_prob(value), d.entropy(), d.mean, d.variance, d.mode]
    check(f, loc, scale, value, **TOL)

    def kl(m, a, b, c, e):
        d = m.distributions
        return d.kl_divergence(d.Independent(d.Normal(a, b), 2), d.Independent(d.Normal(c, e), 2))
    check(kl, loc, scale, _real((2, 3)), _pos((2, 3)), **TOL)
    d = et.distributions.Independent(et.distributions.Normal(et.zeros(2, 3), 1.0), 1)
    assert (d.batch_shape, d.event_shape) == ((2,), (3,))
    assert repr(d.support) == "IndependentConstraint(Real(), 1)"
    assert d.expand((4, 2)).batch_shape == (4, 2) and d.expand((4, 2)).sample().shape == (4, 2, 3)
    with pytest.raises(InvalidParameterError):
        et.distributions.Independent(et.distributions.Normal(et.zeros(2), 1.0), 2)
    with pytest.raises(NotImplementedError):
        d.enumerate_support()


# -- the families --------------------------------------------------------------------------------

# name -> (parameter maker(shape), value maker(shape) inside the support)
FAMILIES = {
    "LogNormal": (lambda s: [_real(s), _pos(s)], lambda s: _pos(s, 0.1, 5.0)),
    "HalfNormal": (lambda s: [_pos(s)], lambda s: _pos(s, 0.0, 3.0)),
    "Cauchy": (lambda s: [_real(s), _pos(s)], lambda s: np.asarray(3 * _real(s))),
    "HalfCauchy": (lambda s: [_pos(s)], lambda s: _pos(s, 0.0, 5.0)),
    "Kumaraswamy": (lambda s: [_pos(s, 0.3, 4.0), _pos(s, 0.3, 4.0)], _unit),
}
PROPERTIES = {
    "LogNormal": ["mean", "mode", "variance", "stddev", "entropy"],
    "HalfNormal": ["mean", "mode", "variance", "stddev", "entropy"],
    "Cauchy": ["mean", "mode", "variance", "entropy"],
    "HalfCauchy": ["mean", "mode", "variance", "entropy"],
    "Kumaraswamy": ["mean", "variance", "stddev", "entropy"],
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("method", ["log_prob", "cdf", "icdf"])
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_methods(name, method, shape):
    params, values = FAMILIES[name]
    value = _unit(shape) if method == "icdf" else values(shape)
    dist_check(name, params(shape), method, value, **TOL)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_properties(name, shape):
    params = FAMILIES[name][0](shape)
    for prop in PROPERTIES[name]:
        dist_check(name, params, prop, **TOL)


def test_family_edge_values():
    # tiny and huge scales, values at the ends of the supports
    dist_check("LogNormal", [np.array([0.0, 3.0, -2.0]), np.array([1e-3, 20.0, 1.0])],
               "log_prob", np.array([1.0, 1e-8, 1e8]), **TOL)
    dist_check("HalfNormal", [np.array([1e-3, 1.0, 50.0])], "log_prob",
               np.array([0.0, 0.0, 100.0]), **TOL)
    dist_check("HalfCauchy", [np.array([1e-3, 1.0, 1e4])], "cdf", np.array([0.0, 1e6, 1.0]),
               **TOL)
    dist_check("Kumaraswamy", [np.array([0.05, 40.0, 1.0]), np.array([30.0, 0.1, 1.0])],
               "log_prob", np.array([1e-4, 0.999, 0.5]), **TOL)
    dist_check("Kumaraswamy", [np.array([0.05, 40.0, 1.0]), np.array([30.0, 0.1, 1.0])],
               "entropy", **TOL)
    dist_check("Cauchy", [np.array([0.0, 1e3]), np.array([1e-4, 1e3])], "log_prob",
               np.array([1e5, -1e3]), **TOL)


def test_values_outside_the_support_without_validation():
    for name, params in (("HalfNormal", [np.array([1.0, 2.0])]),
                         ("HalfCauchy", [np.array([1.0, 2.0])])):
        dist_check(name, params, "log_prob", np.array([-1.0, 0.5]), kwargs={
            "validate_args": False}, **TOL)


def test_kumaraswamy_cdf_closed_form():
    # the chain's cdf is 1 - (1 - x^a)^b
    a, b = np.array([0.7, 2.0, 3.5]), np.array([1.5, 0.6, 4.0])
    x = np.array([0.3, 0.6, 0.45])
    got = et.distributions.Kumaraswamy(et.tensor(a), et.tensor(b)).cdf(et.tensor(x)).numpy()
    np.testing.assert_allclose(got, 1 - (1 - x ** a) ** b, rtol=1e-12)


def test_kumaraswamy_mode():
    # PyTorch's Kumaraswamy.mode is NaN everywhere; the mode is checked as the argmax of
    # PyTorch's density on a fine grid (and NaN where a < 1 or b < 1, as PyTorch marks it)
    a, b = np.array([2.0, 5.0, 1.5, 0.5, 3.0]), np.array([3.0, 1.5, 8.0, 2.0, 0.7])
    got = et.distributions.Kumaraswamy(et.tensor(a), et.tensor(b)).mode.numpy()
    grid = torch.linspace(0, 1, 200001, dtype=torch.float64)[1:-1].unsqueeze(-1)
    dens = torch.distributions.Kumaraswamy(torch.tensor(a), torch.tensor(b)).log_prob(
        grid.expand(-1, 5))
    want = grid[dens.argmax(0), 0].numpy()
    np.testing.assert_allclose(got[:3], want[:3], atol=1e-5)
    assert np.isnan(got[3:]).all()


@pytest.mark.parametrize("name", ["LogNormal", "HalfNormal", "Cauchy", "HalfCauchy",
                                  "Kumaraswamy"])
def test_family_rsample_gradients(name):
    params = FAMILIES[name][0]((3,))
    rsample_grad_check(getattr(et.distributions, name), getattr(torch.distributions, name),
                       params, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_sampler_matches(name):
    params = [p.item() for p in FAMILIES[name][0](())]
    et.manual_seed(11)
    torch.manual_seed(11)
    e = getattr(et.distributions, name)(*params).sample((3000,))
    t = getattr(torch.distributions, name)(*params).sample((3000,))
    assert e.shape == t.shape
    two_sample_check(e.numpy(), t.numpy())


def test_kl_pairs():
    def f(m, a, b, c, e):
        d = m.distributions
        return [d.kl_divergence(d.HalfNormal(b), d.HalfNormal(e)),
                d.kl_divergence(d.Cauchy(a, b), d.Cauchy(c, e)),
                d.kl_divergence(d.LogNormal(a, b), d.LogNormal(c, e))]
    check(f, _real((2, 3)), _pos((2, 3)), _real((2, 3)), _pos((2, 3)), **TOL)


@pytest.mark.parametrize("name", ["LogNormal", "HalfNormal", "Cauchy", "HalfCauchy",
                                  "Kumaraswamy", "LogisticNormal", "RelaxedBernoulli",
                                  "RelaxedOneHotCategorical"])
def test_class_structure_matches(name):
    mro_e = [c.__name__ for c in getattr(et.distributions, name).__mro__]
    mro_t = [c.__name__ for c in getattr(torch.distributions, name).__mro__]
    assert mro_e == mro_t
    ce, ct = getattr(et.distributions, name), getattr(torch.distributions, name)
    assert {k: repr(v) for k, v in ce.arg_constraints.items()} == \
        {k: repr(v) for k, v in ct.arg_constraints.items()}
    assert repr(ce.support) == repr(ct.support)
    assert ce.has_rsample == ct.has_rsample


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_validation_and_expand(name):
    params = FAMILIES[name][0]((3,))
    cls = getattr(et.distributions, name)
    bad = [p.copy() for p in params]
    bad[-1][1] = -1.0  # a scale or concentration below 0
    with pytest.raises(InvalidParameterError):
        cls(*[et.tensor(p) for p in bad], validate_args=True)
    d = cls(*[et.tensor(p) for p in params], validate_args=True)
    if name != "Cauchy":
        with pytest.raises(InvalidParameterError):
            d.log_prob(et.tensor([-0.5, 0.5, 0.5], dtype=et.float64))
    e = d.expand((4, 3))
    assert type(e) is cls and e.batch_shape == (4, 3) and e.sample((2,)).shape == (2, 4, 3)
    np.testing.assert_allclose(e.log_prob(et.tensor(FAMILIES[name][1]((4, 3)))).shape, (4, 3))


# -- LogisticNormal ------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_logistic_normal_log_prob(shape):
    loc, scale = _real(shape), _pos(shape)
    k = shape[-1] + 1 if shape else 2
    value = RNG.dirichlet(np.ones(k), shape[:-1] if shape else ())

    def f(m, loc, scale, value):
        d = m.distributions.LogisticNormal(loc, scale)
        return d.log_prob(value), d.batch_shape, d.event_shape
    check(f, loc, scale, np.asarray(value), **TOL)


def test_logistic_normal_samples_and_attributes():
    d = et.distributions.LogisticNormal(et.tensor(_real((2, 3))), et.tensor(_pos((2, 3))))
    x = d.rsample((5,))
    assert x.shape == (5, 2, 4)
    np.testing.assert_allclose(x.sum(-1).detach().numpy(), 1.0, rtol=1e-12)
    assert d.loc.shape == (2, 3) and d.scale.shape == (2, 3)
    assert isinstance(d.base_dist, et.distributions.Independent)
    assert d.expand((3, 2)).sample().shape == (3, 2, 4)
    et.manual_seed(5)
    torch.manual_seed(5)
    e = et.distributions.LogisticNormal(et.tensor([0.3, -1.0]), 1.5).sample((3000,)).numpy()
    t = torch.distributions.LogisticNormal(torch.tensor([0.3, -1.0]), 1.5).sample((3000,))
    for i in range(3):
        two_sample_check(e[:, i], t[:, i].numpy(), alpha=1e-3 / 3)
    with pytest.raises(InvalidParameterError):
        et.distributions.LogisticNormal(0.0, -1.0, validate_args=True)


# -- Relaxed families ----------------------------------------------------------------------------

@pytest.mark.parametrize("form", ["probs", "logits"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_relaxed_bernoulli(form, shape):
    p = _unit(shape)
    param = p if form == "probs" else np.log(p / (1 - p))
    temperature = np.asarray(RNG.uniform(0.2, 2.0))
    value = _unit(shape)

    def f(m, temperature, param, value):
        d = m.distributions.RelaxedBernoulli(temperature, **{form: param})
        base = d.base_dist
        return [d.log_prob(value), base.log_prob(m.logit(value)), d.probs, d.logits]
    check(f, temperature, param, value, **TOL)


@pytest.mark.parametrize("form", ["probs", "logits"])
@pytest.mark.parametrize("shape", [(3,), (2, 4)])
def test_relaxed_one_hot_categorical(form, shape):
    p = RNG.dirichlet(np.ones(shape[-1]), shape[:-1])
    param = np.asarray(p if form == "probs" else np.log(p) + 0.7)
    temperature = np.asarray(RNG.uniform(0.2, 2.0))
    value = np.asarray(RNG.dirichlet(np.ones(shape[-1]), shape[:-1]))

    def f(m, temperature, param, value):
        d = m.distributions.RelaxedOneHotCategorical(temperature, **{form: param})
        return [d.log_prob(value), d.base_dist.log_prob(value.log()), d.probs, d.logits,
                d.batch_shape, d.event_shape]
    check(f, temperature, param, value, **TOL)


def test_relaxed_samplers_match():
    et.manual_seed(2)
    torch.manual_seed(2)
    e = et.distributions.RelaxedBernoulli(et.tensor(0.7), probs=et.tensor(0.3)).sample((3000,))
    t = torch.distributions.RelaxedBernoulli(torch.tensor(0.7), probs=torch.tensor(0.3)).sample(
        (3000,))
    two_sample_check(e.numpy(), t.numpy())
    probs = [0.2, 0.5, 0.3]
    e = et.distributions.RelaxedOneHotCategorical(et.tensor(0.6), probs=et.tensor(probs))
    t = torch.distributions.RelaxedOneHotCategorical(torch.tensor(0.6),
                                                     probs=torch.tensor(probs))
    es, ts = e.sample((3000,)).numpy(), t.sample((3000,)).numpy()
    np.testing.assert_allclose(es.sum(-1), 1.0, rtol=1e-5)
    for i in range(3):
        two_sample_check(es[:, i], ts[:, i], alpha=1e-3 / 3)


def test_relaxed_rsample_gradients_flow():
    # d/dlogits of E[f(x)] by reparameterization: compare ember's sample gradient with the one
    # PyTorch's formula gives at ember's own noise (the sample is a function of logits and u)
    logits = et.tensor([0.3, -0.4], dtype=et.float64, requires_grad=True)
    temperature = et.tensor(0.5, dtype=et.float64, requires_grad=True)
    et.manual_seed(0)
    x = et.distributions.RelaxedBernoulli(temperature, logits=logits).rsample((4,))
    g_logits, g_temp = et.autograd.grad(x.sum(), [logits, temperature])
    # x = sigmoid((logits + noise) / t): recover the noise from x, then differentiate in torch
    xt = torch.tensor(x.detach().numpy())
    lt = torch.tensor([0.3, -0.4], dtype=torch.float64, requires_grad=True)
    tt = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    noise = torch.logit(xt) * 0.5 - lt.detach()
    want = torch.autograd.grad(torch.sigmoid((lt + noise) / tt).sum(), [lt, tt])
    np.testing.assert_allclose(g_logits.numpy(), want[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(g_temp.numpy(), want[1].numpy(), rtol=1e-6)


def test_relaxed_validation_and_expand():
    d = et.distributions
    with pytest.raises(InvalidParameterError):
        d.RelaxedBernoulli(et.tensor(0.5), probs=et.tensor([1.5]), validate_args=True)
    with pytest.raises(InvalidParameterError):
        d.RelaxedBernoulli(et.tensor(0.5))
    with pytest.raises(InvalidParameterError):
        d.RelaxedOneHotCategorical(et.tensor(0.5), probs=et.tensor([-0.5, 1.5]),
                                   validate_args=True)
    r = d.RelaxedBernoulli(et.tensor(0.5), logits=et.zeros(3)).expand((2, 3))
    assert type(r) is d.RelaxedBernoulli and r.sample().shape == (2, 3)
    c = d.RelaxedOneHotCategorical(et.tensor(0.5), logits=et.zeros(3)).expand((2,))
    assert (c.batch_shape, c.event_shape) == ((2,), (3,)) and c.rsample((5,)).shape == (5, 2, 3)
    with pytest.raises(InvalidParameterError):
        d.RelaxedBernoulli(et.tensor(0.5), probs=et.tensor([0.5]), validate_args=True).log_prob(
            et.tensor([1.5]))


def test_second_order_gradients():
    # the transformed densities compose differentiable ops: Hessians match PyTorch's
    loc, scale, value = _real(3), _pos(3), _pos(3, 0.2, 3.0)

    def hess(m, name):
        a = m.tensor(loc, requires_grad=True)
        b = m.tensor(scale, requires_grad=True)
        d = (m.distributions.LogNormal(a, b) if name == "LogNormal"
             else m.distributions.Kumaraswamy(b, a.exp()))
        lp = d.log_prob(m.tensor(np.clip(value, 0, 0.95))).sum()
        ga, gb = m.autograd.grad(lp, [a, b], create_graph=True)
        return [g.detach().numpy() for g in m.autograd.grad((ga * gb).sum(), [a, b])]
    for name in ("LogNormal", "Kumaraswamy"):
        for got, want in zip(hess(et, name), hess(torch, name)):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
