"""Independent and MixtureSameFamily against PyTorch: log_prob, cdf, entropy, moments and their
gradients in float64, KL of Independent pairs, samplers, shapes, expand and validation."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError
from dist_oracle import two_sample_check
from math_oracle import check

RNG = np.random.default_rng(1)
TOL = {"rtol": 1e-6, "atol": 1e-9}


def _pos(shape):
    return RNG.uniform(0.5, 2.0, shape)


def _call(d, name, value):
    a = getattr(d, name)
    if not callable(a):
        return a
    return a(value) if name in ("log_prob", "cdf") else a()


# -- Independent ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape,k", [((3,), 1), ((2, 3), 1), ((2, 3), 2), ((2, 3), 0),
                                     ((2, 0), 1)])
@pytest.mark.parametrize("name", ["log_prob", "entropy", "mean", "mode", "variance", "stddev"])
def test_independent_normal(shape, k, name):
    loc, scale = RNG.standard_normal(shape), _pos(shape)
    value = RNG.standard_normal((4,) + shape)
    check(lambda m, lo, sc, v: _call(m.distributions.Independent(m.distributions.Normal(lo, sc),
                                                                 k), name, v),
          loc, scale, value, **TOL)


def test_independent_of_multivariate_normal_and_shapes():
    loc = RNG.standard_normal((4, 2, 3))
    a = RNG.standard_normal((3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    value = RNG.standard_normal((5, 4, 2, 3))
    check(lambda m, lo, c, v: m.distributions.Independent(
        m.distributions.MultivariateNormal(lo, (c + c.mT) / 2), 1).log_prob(v),
        loc, cov, value, **TOL)

    def both(m):
        return m.distributions.Independent(m.distributions.MultivariateNormal(
            m.tensor(loc), m.tensor(cov)), 1)
    e, t = both(et), both(torch)
    assert (e.batch_shape, e.event_shape) == (t.batch_shape, t.event_shape) == ((4,), (2, 3))
    assert e.sample((6,)).shape == t.sample((6,)).shape and e.rsample().shape == t.rsample().shape
    assert repr(e) == repr(t) and e.has_rsample and not e.has_enumerate_support
    assert repr(e.support) == repr(t.support)


def test_independent_support_enumerate_and_expand():
    base = et.distributions.Bernoulli(et.tensor([[0.2, 0.7, 0.5]], dtype=et.float64))
    tbase = torch.distributions.Bernoulli(torch.tensor([[0.2, 0.7, 0.5]], dtype=torch.float64))
    for k in (0, 1, 2):
        e, t = et.distributions.Independent(base, k), torch.distributions.Independent(tbase, k)
        assert repr(e.support) == repr(t.support)
        assert e.has_enumerate_support == t.has_enumerate_support
        assert not e.has_rsample
        value = np.array([[1.0, 0.0, 1.0]])
        np.testing.assert_allclose(e.log_prob(et.tensor(value)).numpy(),
                                   t.log_prob(torch.tensor(value)).numpy(), rtol=1e-12)
        np.testing.assert_array_equal(e.support.check(et.tensor([[1.0, 0.5, 0.0]])).numpy(),
                                      t.support.check(torch.tensor([[1.0, 0.5, 0.0]])).numpy())
    np.testing.assert_array_equal(
        et.distributions.Independent(base, 0).enumerate_support().numpy(),
        torch.distributions.Independent(tbase, 0).enumerate_support().numpy())
    with pytest.raises(NotImplementedError):
        et.distributions.Independent(base, 1).enumerate_support()
    e = et.distributions.Independent(et.distributions.Normal(et.zeros(3), 1.0), 1).expand((4, 2))
    t = torch.distributions.Independent(torch.distributions.Normal(torch.zeros(3), 1.0),
                                        1).expand((4, 2))
    assert (e.batch_shape, e.event_shape) == (t.batch_shape, t.event_shape)
    assert e.base_dist.batch_shape == t.base_dist.batch_shape == (4, 2, 3)
    assert e.sample().shape == t.sample().shape
    value = RNG.standard_normal((4, 2, 3))
    np.testing.assert_allclose(e.log_prob(et.tensor(value)).numpy(),
                               t.log_prob(torch.tensor(value, dtype=torch.float32)).numpy(),
                               rtol=1e-6)


def test_independent_validation():
    normal = et.distributions.Normal(et.zeros(2), 1.0)
    with pytest.raises(InvalidParameterError) as info:
        et.distributions.Independent(normal, 2)
    assert info.value.param == "reinterpreted_batch_ndims"
    with pytest.raises(InvalidParameterError):
        et.distributions.Independent(normal, -1)
    with pytest.raises(KindError):
        et.distributions.Independent(et.zeros(2), 1)
    with pytest.raises(InvalidParameterError) as info:  # a value off the support
        et.distributions.Independent(et.distributions.Bernoulli(et.tensor([0.5, 0.5])),
                                     1).log_prob(et.tensor([0.5, 1.0]))
    assert info.value.param == "value"


@pytest.mark.parametrize("k", [0, 1, 2])
def test_independent_kl(k):
    params = [RNG.standard_normal((2, 3)), _pos((2, 3)), RNG.standard_normal((2, 3)),
              _pos((2, 3))]

    def kl(m, a, b, c, d):
        n = m.distributions.Normal
        return m.distributions.kl_divergence(m.distributions.Independent(n(a, b), k),
                                             m.distributions.Independent(n(c, d), k))
    check(kl, *params, **TOL)


def test_independent_kl_needs_equal_reinterpreted_dims():
    n = et.distributions.Normal(et.zeros(2, 2), 1.0)
    with pytest.raises(NotImplementedError):
        et.distributions.kl_divergence(et.distributions.Independent(n, 1),
                                       et.distributions.Independent(n, 2))


def test_independent_rsample_gradient_is_the_base_ones():
    loc, scale = RNG.standard_normal(3), _pos(3)
    le, se = et.tensor(loc, requires_grad=True), et.tensor(scale, requires_grad=True)
    et.manual_seed(2)
    x = et.distributions.Independent(et.distributions.Normal(le, se), 1).rsample((5,))
    gl, gs = et.autograd.grad(x.sum(), [le, se])
    eps = (x.detach().numpy() - loc) / scale  # x = loc + scale * eps
    np.testing.assert_allclose(gl.numpy(), np.full(3, 5.0), rtol=1e-12)
    np.testing.assert_allclose(gs.numpy(), eps.sum(0), rtol=1e-9, atol=1e-12)


# -- MixtureSameFamily ----------------------------------------------------------------------

def _normal_mixture(m, logits, loc, scale):
    return m.distributions.MixtureSameFamily(m.distributions.Categorical(logits=logits),
                                             m.distributions.Normal(loc, scale))


@pytest.mark.parametrize("mix_batch,comp_batch", [((), ()), ((2,), (2,)), ((), (2,)),
                                                  ((1, 3), (4, 3))])
@pytest.mark.parametrize("name", ["log_prob", "cdf", "mean", "variance", "stddev"])
def test_mixture_of_normals(mix_batch, comp_batch, name):
    k = 3
    logits = RNG.standard_normal(mix_batch + (k,))
    loc, scale = RNG.standard_normal(comp_batch + (k,)), _pos(comp_batch + (k,))
    value = 2 * RNG.standard_normal((5,) + comp_batch)
    check(lambda m, lg, lo, sc, v: _call(_normal_mixture(m, lg, lo, sc), name, v),
          logits, loc, scale, value, **TOL)


@pytest.mark.parametrize("name", ["log_prob", "mean", "variance"])
def test_mixture_of_multivariate_components(name):
    logits = RNG.standard_normal((2, 3))
    loc = RNG.standard_normal((2, 3, 4))
    a = RNG.standard_normal((3, 4, 4))
    cov = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    value = RNG.standard_normal((5, 2, 4))

    def f(m, lg, lo, c, v):
        mvn = m.distributions.MultivariateNormal(lo, (c + c.mT) / 2)
        d = m.distributions.MixtureSameFamily(m.distributions.Categorical(logits=lg), mvn)
        return _call(d, name, v)
    check(f, logits, loc, cov, value, **TOL)
    scale = _pos((2, 3, 4))

    def g(m, lg, lo, sc, v):
        comp = m.distributions.Independent(m.distributions.Normal(lo, sc), 1)
        d = m.distributions.MixtureSameFamily(m.distributions.Categorical(logits=lg), comp)
        return _call(d, name, v)
    check(g, logits, loc, scale, value, **TOL)


def test_mixture_shapes_support_repr_and_expand():
    def make(m):
        return _normal_mixture(m, m.tensor(np.zeros((2, 3))), m.tensor(np.zeros((2, 3))),
                               m.tensor(np.ones((2, 3))))
    e, t = make(et), make(torch)
    assert (e.batch_shape, e.event_shape) == (t.batch_shape, t.event_shape)
    assert e.sample((4, 5)).shape == t.sample((4, 5)).shape == (4, 5, 2)
    assert not e.has_rsample and repr(e) == repr(t) and repr(e.support) == repr(t.support)
    assert e.mixture_distribution.batch_shape == (2,)
    assert e.component_distribution.batch_shape == (2, 3)
    ee, te = e.expand((6, 2)), t.expand((6, 2))
    assert ee.batch_shape == te.batch_shape and ee.sample((3,)).shape == te.sample((3,)).shape
    value = RNG.standard_normal((6, 2))
    np.testing.assert_allclose(ee.log_prob(et.tensor(value)).numpy(),
                               te.log_prob(torch.tensor(value)).numpy(), rtol=1e-12)


def test_mixture_sampler_matches_torch():
    logits, loc, scale = np.log([0.2, 0.5, 0.3]), np.array([-3.0, 0.0, 4.0]), np.array(
        [0.5, 1.0, 2.0])
    et.manual_seed(0)
    torch.manual_seed(0)
    e = _normal_mixture(et, et.tensor(logits), et.tensor(loc), et.tensor(scale)).sample((4000,))
    t = _normal_mixture(torch, torch.tensor(logits), torch.tensor(loc),
                        torch.tensor(scale)).sample((4000,))
    two_sample_check(e.numpy(), t.numpy())
    # a mixture of 2-d components: each coordinate and a projection
    mloc = RNG.standard_normal((3, 2)) * 3
    et.manual_seed(1)
    torch.manual_seed(1)

    def mvn_mix(m):
        comp = m.distributions.MultivariateNormal(m.tensor(mloc), m.tensor(np.eye(2)))
        return m.distributions.MixtureSameFamily(m.distributions.Categorical(
            logits=m.tensor(logits)), comp)
    e, t = mvn_mix(et).sample((3000,)).numpy(), mvn_mix(torch).sample((3000,)).numpy()
    for direction in (np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([0.6, -0.8])):
        two_sample_check(e @ direction, t @ direction)


def test_mixture_validation():
    cat, normal = et.distributions.Categorical, et.distributions.Normal
    mixture = et.distributions.MixtureSameFamily
    with pytest.raises(InvalidParameterError) as info:  # ValueErrors, as PyTorch's
        mixture(normal(0.0, 1.0), normal(et.zeros(2), 1.0))
    assert info.value.param == "mixture_distribution"
    with pytest.raises(InvalidParameterError) as info:
        mixture(cat(et.ones(2)), 1.0)
    assert info.value.param == "component_distribution"
    with pytest.raises(InvalidParameterError) as info:
        mixture(cat(et.ones(3)), normal(et.zeros(2), 1.0))
    assert info.value.param == "mixture_distribution"
    with pytest.raises(InvalidParameterError) as info:
        mixture(cat(et.ones(4, 2)), normal(et.zeros(3, 2), 1.0))
    assert info.value.param == "mixture_distribution"
    with pytest.raises(InvalidParameterError) as info:
        mixture(cat(et.ones(2)), normal(0.0, 1.0))
    assert info.value.param == "component_distribution"
    d = mixture(cat(et.ones(2)), et.distributions.Uniform(et.zeros(2), et.ones(2)))
    with pytest.raises(InvalidParameterError) as info:
        d.log_prob(et.tensor(2.0))
    assert info.value.param == "value"
