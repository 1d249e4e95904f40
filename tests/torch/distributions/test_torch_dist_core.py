"""The distributions core (Distribution, constraints, kl registry, ExponentialFamily) and its
first families (Normal, Uniform, Bernoulli, Categorical) against PyTorch."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError
from dist_oracle import dist_check, rsample_grad_check, two_sample_check

RNG = np.random.default_rng(0)
SHAPES = [(), (3,), (2, 0), (2, 3)]


def _pos(shape):
    return RNG.uniform(0.5, 2.0, shape)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("method", ["log_prob", "cdf"])
def test_normal_methods(shape, method):
    dist_check("Normal", [RNG.standard_normal(shape), _pos(shape)], method,
               RNG.standard_normal(shape))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("prop", ["mean", "mode", "variance", "stddev", "entropy"])
def test_normal_moments(shape, prop):
    dist_check("Normal", [RNG.standard_normal(shape), _pos(shape)], prop)


def test_normal_icdf_and_broadcast():
    dist_check("Normal", [RNG.standard_normal((2, 1)), _pos((3,))], "icdf",
               RNG.uniform(0.01, 0.99, (2, 3)))


def test_normal_rsample_gradients():
    rsample_grad_check(et.distributions.Normal, torch.distributions.Normal,
                       [RNG.standard_normal(3), _pos(3)])


def test_normal_sampler_matches():
    et.manual_seed(1)
    torch.manual_seed(1)
    e = et.distributions.Normal(1.5, 2.0).sample((4000,)).numpy()
    t = torch.distributions.Normal(1.5, 2.0).sample((4000,)).numpy()
    two_sample_check(e, t)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("method", ["log_prob", "cdf", "icdf"])
def test_uniform_methods(shape, method):
    low = RNG.standard_normal(shape)
    high = low + _pos(shape)
    value = np.asarray(low + (high - low) * RNG.uniform(0, 1, shape))
    if method == "icdf":
        value = np.asarray(RNG.uniform(0, 1, shape))
    dist_check("Uniform", [low, high], method, value)


@pytest.mark.parametrize("prop", ["mean", "variance", "stddev", "entropy"])
def test_uniform_moments(prop):
    low = RNG.standard_normal(4)
    dist_check("Uniform", [low, low + _pos(4)], prop)


def test_uniform_rsample_gradients():
    low = RNG.standard_normal(3)
    rsample_grad_check(et.distributions.Uniform, torch.distributions.Uniform,
                       [low, low + _pos(3)])


@pytest.mark.parametrize("form", ["probs", "logits"])
@pytest.mark.parametrize("method", ["log_prob", "entropy", "mean", "variance", "mode"])
def test_bernoulli(form, method):
    p = RNG.uniform(0.05, 0.95, (2, 3))
    p[0, 0] = 0.5
    param = p if form == "probs" else np.log(p / (1 - p))
    value = (RNG.uniform(0, 1, (2, 3)) < 0.5).astype(np.float64)
    e = getattr(et.distributions.Bernoulli(**{form: et.tensor(param, requires_grad=True)}),
                method)
    t = getattr(torch.distributions.Bernoulli(**{form: torch.tensor(param)}), method)
    if callable(t):
        e, t = (e(et.tensor(value)), t(torch.tensor(value))) if method == "log_prob" else (e(), t())
    np.testing.assert_allclose(e.detach().numpy(), t.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("form", ["probs", "logits"])
@pytest.mark.parametrize("shape", [(4,), (2, 3, 4)])
def test_categorical(form, shape):
    raw = RNG.uniform(0.1, 1.0, shape)
    param = raw if form == "probs" else np.log(raw)
    value = RNG.integers(0, shape[-1], shape[:-1])
    e = et.distributions.Categorical(**{form: et.tensor(param)})
    t = torch.distributions.Categorical(**{form: torch.tensor(param)})
    for name in ("probs", "logits", "mode"):
        np.testing.assert_allclose(getattr(e, name).numpy(), getattr(t, name).numpy(),
                                   rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(e.log_prob(et.tensor(value)).numpy(),
                               t.log_prob(torch.tensor(value)).numpy(), rtol=1e-12)
    np.testing.assert_allclose(e.entropy().numpy(), t.entropy().numpy(), rtol=1e-12)
    np.testing.assert_array_equal(e.enumerate_support().numpy(), t.enumerate_support().numpy())
    assert e.batch_shape == t.batch_shape and e.sample((5,)).shape == t.sample((5,)).shape


def test_categorical_log_prob_gradient():
    logits = RNG.standard_normal((2, 4))
    le = et.tensor(logits, requires_grad=True)
    lt = torch.tensor(logits, requires_grad=True)
    v = [1, 3]
    et.distributions.Categorical(logits=le).log_prob(et.tensor(v)).sum().backward()
    torch.distributions.Categorical(logits=lt).log_prob(torch.tensor(v)).sum().backward()
    np.testing.assert_allclose(le.grad.numpy(), lt.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_categorical_sampler_frequencies():
    et.manual_seed(0)
    probs = [0.1, 0.2, 0.7]
    draws = et.distributions.Categorical(et.tensor(probs)).sample((20000,)).numpy()
    counts = np.bincount(draws, minlength=3)
    p = __import__("scipy").stats.chisquare(counts, np.array(probs) * draws.size).pvalue
    assert p > 1e-3


@pytest.mark.parametrize("pair", [("Normal", "Normal"), ("Uniform", "Uniform"),
                                  ("Bernoulli", "Bernoulli"), ("Categorical", "Categorical")])
def test_kl_pairs(pair):
    def make(m, name, k):
        r = np.random.default_rng(k)
        if name == "Normal":
            return m.distributions.Normal(m.tensor(r.standard_normal(3)),
                                          m.tensor(r.uniform(0.5, 2, 3)))
        if name == "Uniform":
            lo = r.standard_normal(3) - 2 * k
            return m.distributions.Uniform(m.tensor(lo), m.tensor(lo + 3 + 4 * k))
        if name == "Bernoulli":
            return m.distributions.Bernoulli(m.tensor(r.uniform(0.1, 0.9, 3)))
        return m.distributions.Categorical(m.tensor(r.uniform(0.1, 1, (3, 4))))
    e = et.distributions.kl_divergence(make(et, pair[0], 0), make(et, pair[1], 1))
    t = torch.distributions.kl_divergence(make(torch, pair[0], 0), make(torch, pair[1], 1))
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-12)


def test_expfamily_bregman_kl_and_entropy_match_closed_forms():
    p = et.distributions.Normal(et.tensor([0.0, 1.0]), et.tensor([1.0, 2.0]))
    q = et.distributions.Normal(et.tensor([1.0, -1.0]), et.tensor([2.0, 0.5]))
    from ember.torch.distributions.exp_family import ExponentialFamily, _kl_expfamily_expfamily
    np.testing.assert_allclose(_kl_expfamily_expfamily(p, q).detach().numpy(),
                               torch.distributions.kl_divergence(
                                   torch.distributions.Normal(torch.tensor([0.0, 1.0]),
                                                              torch.tensor([1.0, 2.0])),
                                   torch.distributions.Normal(torch.tensor([1.0, -1.0]),
                                                              torch.tensor([2.0, 0.5]))).numpy(),
                               rtol=1e-5)
    np.testing.assert_allclose(ExponentialFamily.entropy(p).detach().numpy(),
                               p.entropy().numpy(), rtol=1e-6)


def test_validation_refuses_bad_parameters_and_values():
    with pytest.raises(InvalidParameterError) as info:
        et.distributions.Normal(0.0, -1.0)
    assert info.value.param == "scale"
    with pytest.raises(ValueError):
        et.distributions.Uniform(1.0, 0.0)
    with pytest.raises(InvalidParameterError) as info:
        et.distributions.Bernoulli(probs=et.tensor(0.5)).log_prob(et.tensor(0.5))
    assert info.value.param == "value"
    with pytest.raises(InvalidParameterError):
        et.distributions.Bernoulli(probs=0.5, logits=0.0)
    et.distributions.Normal(0.0, -1.0, validate_args=False)  # no check when asked


def test_expand_and_repr():
    d = et.distributions.Normal(et.tensor([0.0, 1.0]), 1.0).expand((3, 2))
    t = torch.distributions.Normal(torch.tensor([0.0, 1.0]), 1.0).expand((3, 2))
    assert d.batch_shape == t.batch_shape == (3, 2)
    assert repr(et.distributions.Normal(0.0, 1.0)) == repr(torch.distributions.Normal(0.0, 1.0))
    c = et.distributions.Categorical(logits=et.zeros(2, 5)).expand((4, 2))
    assert c.sample().shape == (4, 2) and c.log_prob(et.zeros(4, 2)).shape == (4, 2)


def test_results_are_torch_tensors():
    d = et.distributions.Normal(et.zeros(2), 1.0)
    assert type(d.sample()) is et.Tensor and type(d.log_prob(et.zeros(2))) is et.Tensor


@pytest.mark.parametrize("name", ["positive", "real", "unit_interval", "simplex", "boolean",
                                  "nonnegative_integer", "lower_cholesky", "positive_definite",
                                  "corr_cholesky", "real_vector", "one_hot"])
def test_constraints_check_like_torch(name):
    vals = [np.array([0.5, -1.0, 0.0, 1.0, np.nan]), np.array([[0.25, 0.75], [0.5, 0.6]]),
            np.array([[[1.0, 0.0], [0.5, 2.0]], [[1.0, 0.0], [0.6, 0.8]],
                      [[2.0, 1.0], [1.0, 2.0]]]), np.array([[0.0, 1.0], [1.0, 1.0]])]
    ce, ct = getattr(et.distributions.constraints, name), getattr(
        torch.distributions.constraints, name)
    assert repr(ce) == repr(ct)
    for v in vals:
        if v.ndim < ct.event_dim:
            continue
        np.testing.assert_array_equal(ce.check(et.tensor(v)).numpy(),
                                      ct.check(torch.tensor(v)).numpy())
