"""The discrete families (Binomial, Geometric, NegativeBinomial, Poisson, Multinomial,
OneHotCategorical, OneHotCategoricalStraightThrough) and ContinuousBernoulli against PyTorch:
values and gradients of log_prob, cdf/icdf and moments, samplers against the exact laws, KL
divergences, validation and expand."""

import numpy as np
import pytest
import scipy.stats
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError
from dist_oracle import ALPHA, dist_check as _dist_check, rsample_grad_check
from math_oracle import check

RNG = np.random.default_rng(7)
SHAPES = [(), (3,), (2, 0), (2, 3)]


def _arr(x):
    return np.asarray(x) if isinstance(x, (np.ndarray, np.generic)) else x


def dist_check(name, params, method, value=None, **kwargs):
    """``dist_oracle.dist_check`` with 0-d NumPy results kept as arrays."""
    return _dist_check(name, [_arr(p) for p in params], method, _arr(value), **kwargs)


def _counts_pvalue(draws, pmf, support):
    """A chi-square test of integer draws against ``pmf`` on ``support`` (cells with expected
    count under 5 pooled into one)."""
    draws = np.asarray(draws).ravel().astype(np.int64)
    expected = pmf(support) * draws.size
    observed = np.array([(draws == k).sum() for k in support], dtype=np.float64)
    keep = expected >= 5
    obs = np.append(observed[keep], draws.size - observed[keep].sum())
    exp = np.append(expected[keep], draws.size - expected[keep].sum())
    if exp[-1] < 1e-9:
        obs, exp = obs[:-1], exp[:-1]
    return scipy.stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


# -- Binomial -----------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("method", ["log_prob", "mean", "mode", "variance", "stddev"])
def test_binomial_probs(shape, method):
    n = RNG.integers(0, 8, shape).astype(np.float64)
    value = np.floor(RNG.uniform(0, 1, shape) * (n + 1)) if method == "log_prob" else None
    dist_check("Binomial", [n, RNG.uniform(0.05, 0.95, shape)], method, value)


@pytest.mark.parametrize("method", ["log_prob", "entropy", "mean", "probs"])
def test_binomial_logits_and_int_count(method):
    value = np.array([[0.0, 3.0, 5.0], [1.0, 2.0, 4.0]]) if method == "log_prob" else None
    dist_check("Binomial", [5, None, RNG.standard_normal((2, 3)) * 2], method, value)


def test_binomial_edge_probs():
    probs = np.array([0.0, 1.0, 0.0, 1.0, 0.5])
    value = np.array([0.0, 4.0, 2.0, 1.0, 4.0])
    e = et.distributions.Binomial(4, et.tensor(probs))
    t = torch.distributions.Binomial(4, torch.tensor(probs))
    np.testing.assert_allclose(e.log_prob(et.tensor(value)).numpy(),
                               t.log_prob(torch.tensor(value)).numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(e.entropy().numpy(), t.entropy().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(e.mode.numpy(), t.mode.numpy())


def test_binomial_enumerate_support_and_inhomogeneous_count():
    e = et.distributions.Binomial(et.full((2, 3), 3.0), et.full((2, 3), 0.5))
    t = torch.distributions.Binomial(torch.full((2, 3), 3.0), torch.full((2, 3), 0.5))
    for expand in (True, False):
        np.testing.assert_array_equal(e.enumerate_support(expand).numpy(),
                                      t.enumerate_support(expand).numpy())
    mixed = et.distributions.Binomial(et.tensor([2.0, 3.0]), 0.5)
    with pytest.raises(NotImplementedError):
        mixed.enumerate_support()
    with pytest.raises(NotImplementedError):
        mixed.entropy()


@pytest.mark.parametrize("n,p", [(12, 0.3), (9, 0.97), (400, 0.4), (1000, 0.9), (50, 0.0)])
def test_binomial_sampler(n, p):
    et.manual_seed(3)
    draws = et.distributions.Binomial(n, et.tensor(p)).sample((20000,))
    assert draws.shape == (20000,) and draws.dtype == et.float32
    if p == 0.0:
        assert not draws.numpy().any()
        return
    support = np.arange(n + 1)
    assert _counts_pvalue(draws.numpy(), scipy.stats.binom(n, p).pmf, support) > ALPHA


def test_binomial_sampler_batched_counts():
    et.manual_seed(4)
    n = et.tensor([[0.0, 5.0, 80.0]])
    d = et.distributions.Binomial(n, et.tensor([0.2, 0.5, 0.7]))
    draws = d.sample((3000, 2))
    assert draws.shape == (3000, 2, 1, 3)
    x = draws.numpy()
    assert (x[..., 0] == 0).all() and (x <= n.numpy()).all() and (x >= 0).all()
    np.testing.assert_allclose(x.mean((0, 1, 2)), [0.0, 2.5, 56.0], rtol=0.02, atol=0.05)


# -- Geometric ----------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("method", ["log_prob", "mean", "mode", "variance", "entropy"])
def test_geometric(shape, method):
    value = RNG.integers(0, 6, shape).astype(np.float64) if method == "log_prob" else None
    dist_check("Geometric", [RNG.uniform(0.05, 0.95, shape)], method, value)


@pytest.mark.parametrize("method", ["log_prob", "entropy", "probs", "variance"])
def test_geometric_logits(method):
    value = np.array([0.0, 3.0, 7.0]) if method == "log_prob" else None
    dist_check("Geometric", [None, RNG.standard_normal(3) * 2], method, value)


def test_geometric_sure_success_and_sampler():
    e = et.distributions.Geometric(et.tensor([1.0, 0.5], dtype=et.float64))
    t = torch.distributions.Geometric(torch.tensor([1.0, 0.5], dtype=torch.float64))
    v = [0.0, 2.0]
    np.testing.assert_allclose(e.log_prob(et.tensor(v, dtype=et.float64)).numpy(),
                               t.log_prob(torch.tensor(v, dtype=torch.float64)).numpy())
    np.testing.assert_allclose(e.entropy().numpy(), t.entropy().numpy(), atol=1e-12)
    et.manual_seed(5)
    draws = et.distributions.Geometric(et.tensor([0.3, 1.0])).sample((20000,)).numpy()
    assert (draws[:, 1] == 0).all()
    pmf = scipy.stats.geom(0.3, loc=-1).pmf
    assert _counts_pvalue(draws[:, 0], pmf, np.arange(60)) > ALPHA


# -- NegativeBinomial ---------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("method", ["log_prob", "mean", "mode", "variance", "stddev"])
def test_negative_binomial(shape, method):
    value = RNG.integers(0, 9, shape).astype(np.float64) if method == "log_prob" else None
    dist_check("NegativeBinomial", [RNG.uniform(0.2, 6.0, shape),
                                    RNG.uniform(0.05, 0.9, shape)], method, value)


def test_negative_binomial_logits_and_edges():
    dist_check("NegativeBinomial", [RNG.uniform(0.2, 6.0, 4), None, RNG.standard_normal(4)],
               "log_prob", np.array([0.0, 1.0, 5.0, 12.0]))
    r, p, v = [0.0, 0.0, 3.0, 2.5], [0.3, 0.0, 0.0, 0.5], [0.0, 0.0, 0.0, 4.0]
    e = et.distributions.NegativeBinomial(et.tensor(r, dtype=et.float64),
                                          et.tensor(p, dtype=et.float64))
    t = torch.distributions.NegativeBinomial(torch.tensor(r, dtype=torch.float64),
                                             torch.tensor(p, dtype=torch.float64))
    np.testing.assert_allclose(e.log_prob(et.tensor(v, dtype=et.float64)).numpy(),
                               t.log_prob(torch.tensor(v, dtype=torch.float64)).numpy(),
                               atol=1e-12)


@pytest.mark.parametrize("r,p", [(0.7, 0.4), (4.0, 0.8), (30.0, 0.3)])
def test_negative_binomial_sampler(r, p):
    et.manual_seed(6)
    draws = et.distributions.NegativeBinomial(r, et.tensor(p)).sample((20000,)).numpy()
    # scipy counts the failures before r successes; here the successes (probability p) before
    # r failures
    law = scipy.stats.nbinom(r, 1 - p)
    assert _counts_pvalue(draws, law.pmf, np.arange(int(law.ppf(0.9999)) + 1)) > ALPHA


# -- Poisson ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("method", ["log_prob", "mean", "mode", "variance"])
def test_poisson(shape, method):
    value = RNG.integers(0, 9, shape).astype(np.float64) if method == "log_prob" else None
    dist_check("Poisson", [RNG.uniform(0.1, 8.0, shape)], method, value)


def test_poisson_zero_rate_and_no_entropy():
    e = et.distributions.Poisson(et.tensor([0.0, 0.0, 3.0], dtype=et.float64))
    t = torch.distributions.Poisson(torch.tensor([0.0, 0.0, 3.0], dtype=torch.float64))
    v = [0.0, 2.0, 0.0]
    np.testing.assert_allclose(e.log_prob(et.tensor(v, dtype=et.float64)).numpy(),
                               t.log_prob(torch.tensor(v, dtype=torch.float64)).numpy())
    with pytest.raises(NotImplementedError):
        e.entropy()


@pytest.mark.parametrize("rate", [0.4, 6.5, 10.0, 37.0, 900.0])
def test_poisson_sampler(rate):
    et.manual_seed(8)
    draws = et.distributions.Poisson(et.tensor(rate)).sample((20000,))
    assert draws.dtype == et.float32
    law = scipy.stats.poisson(rate)
    support = np.arange(int(law.ppf(0.99999)) + 1)
    assert _counts_pvalue(draws.numpy(), law.pmf, support) > ALPHA


def test_poisson_sampler_mixed_rates():
    et.manual_seed(9)
    rates = et.tensor([0.0, 2.0, 15.0, 200.0], dtype=et.float64)
    draws = et.distributions.Poisson(rates).sample((5000,)).numpy()
    assert draws.dtype == np.float64 and (draws[:, 0] == 0).all()
    np.testing.assert_allclose(draws.mean(0)[1:], [2.0, 15.0, 200.0], rtol=0.03)
    np.testing.assert_allclose(draws.var(0)[1:], [2.0, 15.0, 200.0], rtol=0.1)


# -- Multinomial --------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4,), (2, 3)])
@pytest.mark.parametrize("method", ["log_prob", "mean", "variance", "entropy"])
def test_multinomial(shape, method):
    n = 6
    value = None
    if method == "log_prob":
        value = RNG.multinomial(n, np.full(shape[-1], 1 / shape[-1]), shape[:-1]).astype(
            np.float64)
    dist_check("Multinomial", [n, RNG.uniform(0.1, 1.0, shape)], method, value)


def test_multinomial_logits_zero_probability_and_zero_count():
    logits = np.array([0.0, -np.inf, 1.0])
    v = np.array([2.0, 0.0, 1.0])
    e = et.distributions.Multinomial(3, logits=et.tensor(logits))
    t = torch.distributions.Multinomial(3, logits=torch.tensor(logits))
    np.testing.assert_allclose(e.log_prob(et.tensor(v)).numpy(), t.log_prob(torch.tensor(v)))
    z = et.distributions.Multinomial(0, et.tensor([0.5, 0.5]))
    assert z.sample((3,)).numpy().tolist() == [[0.0, 0.0]] * 3


def test_multinomial_sampler():
    et.manual_seed(10)
    probs = [0.2, 0.5, 0.3]
    d = et.distributions.Multinomial(7, et.tensor(probs))
    draws = d.sample((4000,))
    assert draws.shape == (4000, 3) and (draws.sum(-1).numpy() == 7).all()
    for i, p in enumerate(probs):  # each count is Binomial(7, p_i)
        assert _counts_pvalue(draws.numpy()[:, i], scipy.stats.binom(7, p).pmf,
                              np.arange(8)) > ALPHA
    b = et.distributions.Multinomial(4, et.ones(2, 5)).sample((6,))
    assert b.shape == (6, 2, 5) and (b.sum(-1).numpy() == 4).all()


# -- OneHotCategorical --------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4,), (2, 3)])
@pytest.mark.parametrize("method", ["log_prob", "mean", "mode", "variance", "entropy",
                                    "probs", "logits"])
def test_one_hot_categorical(shape, method):
    value = None
    if method == "log_prob":
        value = np.eye(shape[-1])[RNG.integers(0, shape[-1], shape[:-1])]
    dist_check("OneHotCategorical", [RNG.uniform(0.1, 1.0, shape)], method, value)


def test_one_hot_categorical_support_and_sampler():
    probs = np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
    e = et.distributions.OneHotCategorical(et.tensor(probs))
    t = torch.distributions.OneHotCategorical(torch.tensor(probs))
    for expand in (True, False):
        np.testing.assert_array_equal(e.enumerate_support(expand).numpy(),
                                      t.enumerate_support(expand).numpy())
    assert e.batch_shape == t.batch_shape and e.event_shape == t.event_shape
    et.manual_seed(11)
    draws = e.sample((10000,)).numpy()
    assert draws.shape == (10000, 2, 3) and (draws.sum(-1) == 1).all()
    for row in range(2):
        counts = draws[:, row].sum(0)
        assert scipy.stats.chisquare(counts, probs[row] * 10000).pvalue > ALPHA


def test_one_hot_straight_through_gradient():
    logits = RNG.standard_normal((2, 4))
    w = RNG.standard_normal((5, 2, 4))
    le = et.tensor(logits, requires_grad=True)
    lt = torch.tensor(logits, requires_grad=True)
    se = et.distributions.OneHotCategoricalStraightThrough(logits=le).rsample((5,))
    st = torch.distributions.OneHotCategoricalStraightThrough(logits=lt).rsample((5,))
    assert se.shape == st.shape and (se.detach().numpy().sum(-1) == 1).all()
    (se * et.tensor(w)).sum().backward()
    (st * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(le.grad.numpy(), lt.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert et.distributions.OneHotCategoricalStraightThrough.has_rsample


# -- ContinuousBernoulli ------------------------------------------------------------------------
def _cb_probs(shape):
    p = RNG.uniform(0.03, 0.97, shape)
    if p.size >= 3:
        p.flat[0], p.flat[1], p.flat[2] = 0.5, 0.4996, 0.5008  # inside and outside lims
    return p


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("method", ["log_prob", "cdf", "icdf", "mean", "variance", "stddev",
                                    "entropy"])
def test_continuous_bernoulli(shape, method):
    value = RNG.uniform(0.01, 0.99, shape) if method in ("log_prob", "cdf", "icdf") else None
    dist_check("ContinuousBernoulli", [_cb_probs(shape)], method, value)


@pytest.mark.parametrize("method", ["log_prob", "cdf", "mean", "variance", "entropy", "probs"])
def test_continuous_bernoulli_logits(method):
    value = RNG.uniform(0.01, 0.99, 5) if method in ("log_prob", "cdf") else None
    logits = np.array([-30.0, -2.0, 0.0, 0.001, 5.0])
    dist_check("ContinuousBernoulli", [None, logits], method, value)


def test_continuous_bernoulli_edges():
    probs = np.array([0.0, 1.0, 0.5, 0.2])
    value = np.array([0.0, 1.0, 0.7, 1.0])
    e = et.distributions.ContinuousBernoulli(et.tensor(probs))
    t = torch.distributions.ContinuousBernoulli(torch.tensor(probs))
    for name in ("probs", "logits", "mean", "variance"):
        np.testing.assert_allclose(getattr(e, name).numpy(), getattr(t, name).numpy(),
                                   rtol=1e-6, atol=1e-12)
    for name in ("log_prob", "cdf"):
        np.testing.assert_allclose(getattr(e, name)(et.tensor(value)).numpy(),
                                   getattr(t, name)(torch.tensor(value)).numpy(), rtol=1e-6,
                                   atol=1e-12)
    np.testing.assert_allclose(e.entropy().numpy(), t.entropy().numpy(), rtol=1e-6)
    # the entropy from the log-normaliser (by differentiation) agrees away from the ends
    from_normaliser = et.distributions.ExponentialFamily.entropy(e).detach()
    np.testing.assert_allclose(from_normaliser.numpy()[2:], t.entropy().numpy()[2:], rtol=1e-6,
                               atol=1e-9)


def test_continuous_bernoulli_rsample():
    rsample_grad_check(et.distributions.ContinuousBernoulli,
                       torch.distributions.ContinuousBernoulli, [np.array([0.1, 0.3, 0.8])])
    et.manual_seed(12)
    x = et.distributions.ContinuousBernoulli(et.tensor(0.2)).sample((5000,)).numpy()
    cdf = torch.distributions.ContinuousBernoulli(torch.tensor(0.2, dtype=torch.float64)).cdf
    p = scipy.stats.kstest(x, lambda v: cdf(torch.tensor(v)).numpy()).pvalue
    assert p > ALPHA


# -- KL divergences -----------------------------------------------------------------------------
def _make(m, name, params):
    ps = [m.tensor(p) if isinstance(p, np.ndarray) else p for p in params]
    return getattr(m.distributions, name)(*ps)


_KL_CASES = {
    "Binomial": lambda r: [5, r.uniform(0.05, 0.95, 4)],
    "Geometric": lambda r: [r.uniform(0.05, 0.95, 4)],
    "OneHotCategorical": lambda r: [r.uniform(0.05, 1.0, (4, 3))],
    "Poisson": lambda r: [r.uniform(0.1, 6.0, 4)],
    "Bernoulli": lambda r: [r.uniform(0.05, 0.95, 4)],
    "ContinuousBernoulli": lambda r: [np.array([0.2, 0.5, 0.4997, 0.9])],
}


@pytest.mark.parametrize("pair", [("Binomial", "Binomial"), ("Geometric", "Geometric"),
                                  ("OneHotCategorical", "OneHotCategorical"),
                                  ("Poisson", "Poisson"), ("Bernoulli", "Poisson"),
                                  ("ContinuousBernoulli", "ContinuousBernoulli")])
def test_kl_pairs(pair):
    pp = _KL_CASES[pair[0]](np.random.default_rng(1))
    qp = _KL_CASES[pair[1]](np.random.default_rng(2))
    if pair[1] == "ContinuousBernoulli":
        qp = [np.array([0.7, 0.5004, 0.1, 0.5])]
    n = len(pp)

    def f(m, *ins):
        return m.distributions.kl_divergence(_make(m, pair[0], ins[:n]),
                                             _make(m, pair[1], ins[n:]))
    check(f, *pp, *qp, rtol=1e-6, atol=1e-9)


def test_kl_infinite_where_torch_is():
    def both(fn):
        return fn(et).numpy(), fn(torch).numpy()

    cases = [
        lambda m: m.distributions.kl_divergence(
            m.distributions.Poisson(m.tensor([1.0, 2.0, 3.0])),
            m.distributions.Poisson(m.tensor([0.0, 1.0, 2.0]))),
        lambda m: m.distributions.kl_divergence(
            m.distributions.Geometric(m.tensor([0.5, 1.0])),
            m.distributions.Geometric(m.tensor([1.0, 0.3]))),
        lambda m: m.distributions.kl_divergence(
            m.distributions.Binomial(5, m.tensor([0.5, 0.0, 0.5])),
            m.distributions.Binomial(3, m.tensor([0.5, 0.5, 0.5]))),
        lambda m: m.distributions.kl_divergence(
            m.distributions.Binomial(3, m.tensor([0.0, 0.5, 0.2])),
            m.distributions.Binomial(3, m.tensor([0.5, 1.0, 0.2]))),
        lambda m: m.distributions.kl_divergence(
            m.distributions.Bernoulli(m.tensor([0.5, 1.0])),
            m.distributions.Poisson(m.tensor([0.0, 2.0]))),
        lambda m: m.distributions.kl_divergence(
            m.distributions.Poisson(m.tensor([0.5, 1.0])),
            m.distributions.Binomial(4, m.tensor([0.5, 0.2]))),
        lambda m: m.distributions.kl_divergence(
            m.distributions.Poisson(m.tensor([0.5, 1.0])),
            m.distributions.Bernoulli(m.tensor([0.5, 0.2]))),
    ]
    for fn in cases:
        e, t = both(fn)
        np.testing.assert_allclose(e, t, rtol=1e-6)
    with pytest.raises(NotImplementedError):
        et.distributions.kl_divergence(et.distributions.Binomial(3, 0.5),
                                       et.distributions.Binomial(5, 0.5))


# -- validation, expand, shapes -----------------------------------------------------------------
@pytest.mark.parametrize("make,param", [
    (lambda: et.distributions.Binomial(3, et.tensor(1.5)), "probs"),
    (lambda: et.distributions.Binomial(et.tensor(-1.0), et.tensor(0.5)), "total_count"),
    (lambda: et.distributions.Binomial(et.tensor(1.5), et.tensor(0.5)), "total_count"),
    (lambda: et.distributions.Geometric(et.tensor(0.0)), "probs"),
    (lambda: et.distributions.Geometric(et.tensor(1.2)), "probs"),
    (lambda: et.distributions.NegativeBinomial(et.tensor(-1.0), et.tensor(0.5)), "total_count"),
    (lambda: et.distributions.NegativeBinomial(et.tensor(2.0), et.tensor(1.0)), "probs"),
    (lambda: et.distributions.Poisson(et.tensor(-0.5)), "rate"),
    (lambda: et.distributions.Multinomial(3, et.tensor([-0.5, 1.0])), "probs"),
    (lambda: et.distributions.OneHotCategorical(et.tensor([-0.5, 1.0])), "probs"),
    (lambda: et.distributions.ContinuousBernoulli(et.tensor(1.5)), "probs"),
])
def test_refuses_bad_parameters(make, param):
    with pytest.raises(InvalidParameterError) as info:
        make()
    assert info.value.param == param


@pytest.mark.parametrize("make,value", [
    (lambda: et.distributions.Binomial(3, et.tensor(0.5)), 4.0),
    (lambda: et.distributions.Binomial(3, et.tensor(0.5)), 1.5),
    (lambda: et.distributions.Geometric(et.tensor(0.5)), -1.0),
    (lambda: et.distributions.NegativeBinomial(2.0, et.tensor(0.5)), 0.5),
    (lambda: et.distributions.Poisson(et.tensor(2.0)), -1.0),
    (lambda: et.distributions.ContinuousBernoulli(et.tensor(0.3)), 1.5),
    (lambda: et.distributions.OneHotCategorical(et.tensor([0.5, 0.5])), [1.0, 1.0]),
    (lambda: et.distributions.Multinomial(2, et.tensor([0.5, 0.5])), [2.0, 1.0]),
])
def test_refuses_values_outside_support(make, value):
    with pytest.raises(InvalidParameterError) as info:
        make().log_prob(et.tensor(value))
    assert info.value.param == "value"


def test_multinomial_needs_an_int_count_and_one_parameter():
    with pytest.raises(KindError):
        et.distributions.Multinomial(2.0, et.tensor([0.5, 0.5]))
    with pytest.raises(InvalidParameterError):
        et.distributions.Binomial(2, probs=0.5, logits=0.0)


@pytest.mark.parametrize("name,params", [
    ("Binomial", lambda m: [m.tensor([3.0, 4.0]), m.tensor([0.2, 0.7])]),
    ("Geometric", lambda m: [m.tensor([0.2, 0.7])]),
    ("NegativeBinomial", lambda m: [m.tensor([3.0, 4.0]), m.tensor([0.2, 0.7])]),
    ("Poisson", lambda m: [m.tensor([3.0, 14.0])]),
    ("OneHotCategorical", lambda m: [m.tensor([[0.2, 0.8], [0.5, 0.5]])]),
    ("OneHotCategoricalStraightThrough", lambda m: [m.tensor([[0.2, 0.8], [0.5, 0.5]])]),
    ("Multinomial", lambda m: [3, m.tensor([[0.2, 0.8], [0.5, 0.5]])]),
    ("ContinuousBernoulli", lambda m: [m.tensor([0.2, 0.7])]),
])
def test_expand_shapes_and_repr(name, params):
    e = getattr(et.distributions, name)(*params(et))
    t = getattr(torch.distributions, name)(*params(torch))
    ee, te = e.expand((3, 2)), t.expand((3, 2))
    assert ee.batch_shape == te.batch_shape and ee.event_shape == te.event_shape
    assert type(ee) is type(e)
    assert ee.sample((4,)).shape == te.sample((4,)).shape
    assert e.sample().shape == t.sample().shape
    assert repr(e) == repr(t)
    sample = te.sample()
    np.testing.assert_allclose(ee.log_prob(et.tensor(sample.numpy())).numpy(),
                               te.log_prob(sample).numpy(), rtol=1e-5, atol=1e-6)
    assert (e.has_rsample, e.has_enumerate_support) == (t.has_rsample, t.has_enumerate_support)


def test_samplers_end_on_degenerate_parameters():
    from ember.torch.distributions._gamma_sampling import standard_gamma
    inf, nan = float("inf"), float("nan")
    assert np.isnan(et.poisson(et.tensor([inf, 3.0])).numpy()[0])
    assert np.isnan(et.binomial(et.tensor([inf, 3.0]), et.tensor([0.5, 0.5])).numpy()[0])
    assert np.isnan(standard_gamma(et.tensor([nan, 3.0])).numpy()[0])
    assert np.isinf(standard_gamma(et.tensor([inf, 3.0])).numpy()[0])


def test_kl_of_identical_point_masses_is_zero():
    # PyTorch gives nan for these 0 * log(0 / 0) cases; the divergence of a law from itself is 0
    e = et.distributions.kl_divergence(et.distributions.Poisson(et.tensor([0.0])),
                                       et.distributions.Poisson(et.tensor([0.0])))
    b = et.distributions.kl_divergence(et.distributions.Bernoulli(et.tensor([0.0])),
                                       et.distributions.Poisson(et.tensor([0.0])))
    assert e.tolist() == [0.0] and b.tolist() == [0.0]
