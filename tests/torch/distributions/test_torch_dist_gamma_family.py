"""The gamma family of ember.torch.distributions (Exponential, Gamma, Chi2, Beta, Dirichlet,
InverseGamma, FisherSnedecor, StudentT, VonMises) and their KL pairs against PyTorch: values,
gradients of the densities, moments, validation, shapes, samplers (seeded two-sample and
exact-cdf KS tests, false-alarm rate ALPHA each) and reparameterized gradients."""

import math

import numpy as np
import pytest
import scipy.stats
import torch

import ember.torch as et
from ember.errors import InvalidParameterError
from dist_oracle import ALPHA, dist_check, rsample_grad_check, two_sample_check

RNG = np.random.default_rng(0)
SHAPES = [(), (3,), (2, 0), (2, 3)]
N_SAMPLES = 4000


def _pos(shape, low=0.5, high=3.0):
    return np.asarray(RNG.uniform(low, high, shape))


def _params(name, shape):
    """Random float64 parameters of ``name`` with batch ``shape``."""
    if name == "Exponential":
        return [_pos(shape)]
    if name in ("Gamma", "InverseGamma", "Beta", "FisherSnedecor"):
        return [_pos(shape), _pos(shape)]
    if name == "Chi2":
        return [_pos(shape, 0.5, 6)]
    if name == "Dirichlet":
        return [_pos(shape + (4,))]
    if name == "StudentT":
        return [_pos(shape, 0.5, 6), np.asarray(RNG.standard_normal(shape)), _pos(shape)]
    if name == "VonMises":
        return [np.asarray(RNG.uniform(-3, 3, shape)), _pos(shape, 0.1, 20)]
    raise KeyError(name)


def _value(name, shape):
    """Random float64 values inside the support of ``name`` for batch ``shape``."""
    if name == "Beta":
        return np.asarray(RNG.uniform(0.01, 0.99, shape))
    if name == "Dirichlet":
        raw = _pos(shape + (4,))
        return raw / raw.sum(-1, keepdims=True)
    if name in ("StudentT", "VonMises"):
        return np.asarray(RNG.uniform(-4, 4, shape))
    return _pos(shape, 0.05, 5)


NAMES = ["Exponential", "Gamma", "Chi2", "Beta", "Dirichlet", "InverseGamma",
         "FisherSnedecor", "StudentT", "VonMises"]
PROPERTIES = {
    "Exponential": ["mean", "mode", "variance", "stddev", "entropy"],
    "Gamma": ["mean", "mode", "variance", "stddev", "entropy"],
    "Chi2": ["mean", "mode", "variance", "entropy", "df"],
    "Beta": ["mean", "mode", "variance", "entropy", "concentration1", "concentration0"],
    "Dirichlet": ["mean", "mode", "variance", "entropy"],
    "InverseGamma": ["mean", "mode", "variance", "entropy"],
    "FisherSnedecor": ["mean", "mode", "variance"],
    "StudentT": ["mean", "mode", "variance", "entropy"],
    "VonMises": ["mean", "mode", "variance"],
}


# -- densities, cdfs and moments against PyTorch -----------------------------------------------

def _no_check_if_empty(shape):
    """PyTorch's Beta and Dirichlet cannot validate an empty batch (its simplex check fails to
    reshape), so empty batches are compared with validation off."""
    return {"validate_args": False} if 0 in shape else None


# PyTorch's VonMises approximates log I0 and I1/I0 by polynomials: its log_prob is within
# about 3e-8 (relative) of SciPy's, its variance within about 1e-4; ember's agree with SciPy's
# to 1e-10 (test_von_mises_against_scipy)
VON_MISES_RTOL = {"log_prob": 1e-6, "variance": 1e-3}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", NAMES)
def test_log_prob(name, shape):
    rtol = VON_MISES_RTOL["log_prob"] if name == "VonMises" else None
    dist_check(name, _params(name, shape), "log_prob", _value(name, shape),
               kwargs=_no_check_if_empty(shape), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", NAMES)
def test_moments(name, shape):
    for prop in PROPERTIES[name]:
        rtol = VON_MISES_RTOL.get(prop) if name == "VonMises" else None
        dist_check(name, _params(name, shape), prop, kwargs=_no_check_if_empty(shape),
                   rtol=rtol, atol=rtol)


def test_von_mises_against_scipy():
    loc, k = RNG.uniform(-3, 3, 9), np.array([1e-6, 0.1, 1, 3, 3.75, 10, 50, 500, 5e4])
    x = RNG.uniform(-np.pi, np.pi, 9)
    d = et.distributions.VonMises(et.tensor(loc), et.tensor(k))
    np.testing.assert_allclose(d.log_prob(et.tensor(x)).numpy(),
                               scipy.stats.vonmises.logpdf(x, k, loc=loc), rtol=1e-10)
    np.testing.assert_allclose(d.variance.numpy(),
                               1 - scipy.special.i1e(k) / scipy.special.i0e(k), rtol=1e-10)


@pytest.mark.parametrize("shape", SHAPES)
def test_exponential_cdf_icdf(shape):
    dist_check("Exponential", _params("Exponential", shape), "cdf", _value("Exponential", shape))
    dist_check("Exponential", _params("Exponential", shape), "icdf",
               np.asarray(RNG.uniform(0, 1, shape)))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", ["Gamma", "Chi2", "InverseGamma"])
def test_gamma_cdfs(name, shape):
    # PyTorch's incomplete gamma function is not differentiable in its first argument: compare
    # values, then the gradient in the rate alone
    dist_check(name, _params(name, shape), "cdf", _value(name, shape), grad=False)
    if name != "Chi2":
        a, rate = _params(name, shape)
        x = _value(name, shape)
        re, rt = et.tensor(rate, requires_grad=True), torch.tensor(rate, requires_grad=True)
        e = getattr(et.distributions, name)(et.tensor(a), re).cdf(et.tensor(x))
        t = getattr(torch.distributions, name)(torch.tensor(a), rt).cdf(torch.tensor(x))
        e.sum().backward()
        t.sum().backward()
        np.testing.assert_allclose(re.grad.numpy(), rt.grad.numpy(), rtol=1e-6, atol=1e-12)


def test_edge_values():
    """Tiny and huge concentrations, values at the ends of the supports, moments that are
    infinite or undefined for small degrees of freedom."""
    conc = np.array([1e-3, 0.3, 1.0, 2.5, 1e3])
    grid = np.array([0.0, 1e-300, 1e-5, 0.5, 1.0, 40.0])
    ce, xe = conc[:, None], grid[None, :]
    for name in ("Gamma", "InverseGamma"):
        # (PyTorch's InverseGamma overflows its Jacobian below about 1e-154)
        values = xe if name == "Gamma" else xe[:, 2:]
        dist_check(name, [ce, np.full_like(ce, 2.0)], "log_prob",
                   np.broadcast_to(values, (5, values.shape[1])).copy(), grad=False)
        for prop in PROPERTIES[name]:
            dist_check(name, [conc, np.full_like(conc, 2.0)], prop, grad=False)
    dist_check("Exponential", [np.array([1e-3, 1.0, 1e3])], "log_prob",
               np.array([0.0, 0.0, 5.0]), grad=False)
    dist_check("Exponential", [np.array([1e-3, 1.0, 1e3])], "icdf", np.array([0.0, 1.0, 0.5]),
               grad=False)
    b = np.array([0.01, 0.5, 1.0, 3.0, 100.0])
    for value in (0.0, 1.0, 1e-12, 1 - 1e-12):
        dist_check("Beta", [b[:, None], b[None, :]], "log_prob", np.full((5, 5), value),
                   grad=False)
    for prop in PROPERTIES["Beta"]:
        dist_check("Beta", [b[:, None], b[None, :]], prop, grad=False)
    dirichlet = np.array([[0.5, 0.3, 0.2], [0.5, 0.9, 1.0], [1, 1, 1], [0.2, 0.5, 1.5],
                          [0.01, 50, 3], [1, 2, 0.5]])
    for prop in PROPERTIES["Dirichlet"]:
        dist_check("Dirichlet", [dirichlet], prop, grad=False)
    dist_check("Dirichlet", [dirichlet], "log_prob", np.array([1.0, 0.0, 0.0]), grad=False)
    dfs = np.array([0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 4.5, 30.0, 1e4])
    for prop in PROPERTIES["StudentT"]:
        dist_check("StudentT", [dfs], prop, grad=False)
    dist_check("StudentT", [dfs], "log_prob", np.full(9, 1e3), grad=False)
    for prop in PROPERTIES["FisherSnedecor"]:
        dist_check("FisherSnedecor", [dfs[:, None], dfs[None, :]], prop, grad=False)
    dist_check("VonMises", [np.zeros(4), np.array([1e-6, 0.1, 50.0, 500.0])], "log_prob",
               np.array([3.0, -1.0, 0.1, 7.0]), grad=False, rtol=VON_MISES_RTOL["log_prob"])
    dist_check("VonMises", [np.zeros(3), np.array([1e-6, 50.0, 500.0])], "variance",
               grad=False, rtol=VON_MISES_RTOL["variance"])


def test_float32_and_number_parameters():
    for name in NAMES:
        params = [p.astype(np.float32) for p in _params(name, (3,))]
        value = _value(name, (3,)).astype(np.float32)
        dist_check(name, params, "log_prob", value, rtol=1e-5, atol=1e-5)
    e = et.distributions.Gamma(2.0, 3.0)
    t = torch.distributions.Gamma(2.0, 3.0)
    assert e.mean.dtype == et.float32 and e.batch_shape == t.batch_shape
    np.testing.assert_allclose(e.entropy().numpy(), t.entropy().numpy(), rtol=1e-6)
    e = et.distributions.StudentT(et.tensor([3.0, 4.0], dtype=et.float64))
    assert e.loc.dtype == et.float64 and tuple(e.scale.shape) == (2,)


# -- the exponential-family structure -----------------------------------------------------------

@pytest.mark.parametrize("name", ["Exponential", "Gamma", "Beta", "Dirichlet"])
def test_exponential_family_entropy_and_bregman_kl(name):
    from ember.torch.distributions.exp_family import ExponentialFamily, _kl_expfamily_expfamily
    p_params, q_params = _params(name, (3,)), _params(name, (3,))
    p = getattr(et.distributions, name)(*[et.tensor(v) for v in p_params])
    q = getattr(et.distributions, name)(*[et.tensor(v) for v in q_params])
    pt = getattr(torch.distributions, name)(*[torch.tensor(v) for v in p_params])
    qt = getattr(torch.distributions, name)(*[torch.tensor(v) for v in q_params])
    assert isinstance(p, ExponentialFamily)
    np.testing.assert_allclose(_kl_expfamily_expfamily(p, q).detach().numpy(),
                               torch.distributions.kl_divergence(pt, qt).numpy(), rtol=1e-9)
    if name != "Beta" and name != "Dirichlet":  # no mean carrier measure in PyTorch either
        np.testing.assert_allclose(ExponentialFamily.entropy(p).detach().numpy(),
                                   pt.entropy().numpy(), rtol=1e-9)


# -- KL divergences ---------------------------------------------------------------------------

def _make(m, name, r):
    """A distribution of ``name`` in module ``m`` with batch (4,) from generator ``r``."""
    D, T = m.distributions, m.tensor
    if name == "Normal":
        return D.Normal(T(r.standard_normal(4)), T(r.uniform(0.5, 2, 4)))
    if name == "Uniform":  # some inside [0, 1], one straddling 0, one beyond 1
        low = np.array([0.0, 0.2, -0.5, 0.4])
        return D.Uniform(T(low), T(low + np.array([1.0, 0.5, 1.0, 0.7])))
    if name == "Exponential":
        return D.Exponential(T(r.uniform(0.5, 3, 4)))
    if name == "Gamma":
        return D.Gamma(T(r.uniform(0.3, 4, 4)), T(r.uniform(0.5, 3, 4)))
    if name == "Chi2":
        return D.Chi2(T(r.uniform(0.5, 6, 4)))
    if name == "Beta":
        return D.Beta(T(r.uniform(0.3, 4, 4)), T(r.uniform(0.3, 4, 4)))
    if name == "Dirichlet":
        return D.Dirichlet(T(r.uniform(0.3, 4, (4, 3))))
    if name == "InverseGamma":
        return D.InverseGamma(T(r.uniform(0.3, 4, 4)), T(r.uniform(0.5, 3, 4)))
    raise KeyError(name)


KL_PAIRS = [("Beta", "Beta"), ("Dirichlet", "Dirichlet"), ("Exponential", "Exponential"),
            ("Gamma", "Gamma"), ("Chi2", "Gamma"), ("Gamma", "Chi2"),
            ("InverseGamma", "InverseGamma"),
            ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "Uniform"),
            ("Exponential", "Uniform"), ("Exponential", "Beta"), ("Exponential", "Gamma"),
            ("Exponential", "Normal"), ("Gamma", "Uniform"), ("Gamma", "Beta"),
            ("Gamma", "Exponential"), ("Gamma", "Normal"), ("Normal", "Uniform"),
            ("Normal", "Gamma"), ("Normal", "Exponential"), ("Normal", "Beta"),
            ("Uniform", "Beta"), ("Uniform", "Exponential"), ("Uniform", "Gamma"),
            ("Uniform", "Normal")]


@pytest.mark.parametrize("pair", KL_PAIRS)
def test_kl_pairs(pair):
    def kl(m):
        return m.distributions.kl_divergence(_make(m, pair[0], np.random.default_rng(1)),
                                             _make(m, pair[1], np.random.default_rng(2)))
    e, t = kl(et), kl(torch)
    assert e.shape == t.shape
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-9, atol=1e-12)


def test_kl_registry_covers_every_torch_pair_among_these_families():
    from ember.torch.distributions.kl import _REGISTRY
    ours = {"Normal", "Uniform", "Bernoulli", "Categorical", *NAMES}
    want = {(p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY
            if p.__name__ in ours and q.__name__ in ours}
    have = {(p.__name__, q.__name__) for p, q in _REGISTRY}
    assert want <= have, sorted(want - have)


def test_kl_gradients():
    """The closed forms differentiate like PyTorch's in every parameter."""
    for pair in [("Gamma", "Gamma"), ("Beta", "Beta"), ("Dirichlet", "Dirichlet"),
                 ("Beta", "Normal"), ("Uniform", "Gamma"), ("Exponential", "Gamma"),
                 ("Uniform", "Beta"), ("Gamma", "Normal"), ("Exponential", "Normal")]:
        arrays = []
        for name, seed in zip(pair, (3, 4)):
            made = _make(torch, name, np.random.default_rng(seed))
            names = {"Gamma": ("concentration", "rate"), "Beta": ("concentration1",
                     "concentration0"), "Dirichlet": ("concentration",), "Normal": ("loc",
                     "scale"), "Exponential": ("rate",), "Uniform": ("low", "high")}[name]
            arrays.append([getattr(made, n).numpy() for n in names])
        grads = []
        for m in (et, torch):
            leaves = [[m.tensor(a, requires_grad=True) for a in arrs] for arrs in arrays]
            p = getattr(m.distributions, pair[0])(*leaves[0])
            q = getattr(m.distributions, pair[1])(*leaves[1])
            out = m.distributions.kl_divergence(p, q)
            finite = out < math.inf
            grads.append(m.autograd.grad(out[finite].sum(), leaves[0] + leaves[1]))
        # the parameters of entries whose KL is infinite get no gradient from the finite ones:
        # ember's is 0 there, PyTorch's nan (an artefact of its masking); those are skipped
        keep = finite.numpy()
        for ge, gt in zip(*grads):
            ge, gt = ge.numpy(), gt.numpy()
            if ge.shape == keep.shape:
                assert not ge[~keep].any()
                ge, gt = ge[keep], gt[keep]
            np.testing.assert_allclose(ge, gt, rtol=1e-6, atol=1e-12)


# -- validation ---------------------------------------------------------------------------------

BAD_PARAMS = [("Exponential", {"rate": [1.0, 0.0]}, "rate"),
              ("Gamma", {"concentration": [-1.0], "rate": [1.0]}, "concentration"),
              ("Gamma", {"concentration": [1.0], "rate": [0.0]}, "rate"),
              ("Chi2", {"df": [0.0]}, "df"),
              ("Beta", {"concentration1": [0.0], "concentration0": [1.0]}, "concentration1"),
              ("Beta", {"concentration1": [1.0], "concentration0": [-2.0]}, "concentration0"),
              ("Dirichlet", {"concentration": [1.0, 0.0]}, "concentration"),
              ("InverseGamma", {"concentration": [1.0], "rate": [-1.0]}, "rate"),
              ("FisherSnedecor", {"df1": [1.0], "df2": [0.0]}, "df2"),
              ("StudentT", {"df": [1.0], "scale": [0.0]}, "scale"),
              ("StudentT", {"df": [math.nan]}, "df"),
              ("VonMises", {"loc": [0.0], "concentration": [0.0]}, "concentration")]


@pytest.mark.parametrize("name,kwargs,param", BAD_PARAMS)
def test_validation_refuses_bad_parameters(name, kwargs, param):
    with pytest.raises(ValueError):
        getattr(torch.distributions, name)(**{k: torch.tensor(v) for k, v in kwargs.items()},
                                           validate_args=True)
    with pytest.raises(InvalidParameterError) as info:
        getattr(et.distributions, name)(**{k: et.tensor(v) for k, v in kwargs.items()},
                                        validate_args=True)
    assert info.value.param == param
    # off: no check
    getattr(et.distributions, name)(**{k: et.tensor(v) for k, v in kwargs.items()},
                                    validate_args=False)


BAD_VALUES = [("Exponential", [1.0], -0.5), ("Gamma", [1.0, 1.0], -1.0),
              ("Beta", [1.0, 2.0], 1.5), ("InverseGamma", [1.0, 1.0], 0.0),
              ("FisherSnedecor", [1.0, 2.0], 0.0), ("StudentT", [2.0], math.nan)]


@pytest.mark.parametrize("name,params,value", BAD_VALUES)
def test_validation_refuses_values_outside_the_support(name, params, value):
    d = getattr(et.distributions, name)(*[et.tensor(p) for p in params], validate_args=True)
    t = getattr(torch.distributions, name)(*[torch.tensor(p) for p in params],
                                           validate_args=True)
    with pytest.raises(ValueError):
        t.log_prob(torch.tensor(value))
    with pytest.raises(InvalidParameterError) as info:
        d.log_prob(et.tensor(value))
    assert info.value.param == "value"


def test_dirichlet_validation():
    with pytest.raises(ValueError):
        torch.distributions.Dirichlet(torch.tensor(1.0))
    with pytest.raises(InvalidParameterError) as info:
        et.distributions.Dirichlet(et.tensor(1.0))
    assert info.value.param == "concentration"
    d = et.distributions.Dirichlet(et.tensor([1.0, 2.0, 3.0]), validate_args=True)
    for bad in ([0.5, 0.5, 0.5], [1.5, -0.5, 0.0], [0.5, 0.5]):
        with pytest.raises(InvalidParameterError):
            d.log_prob(et.tensor(bad))


# -- shapes ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_expand_and_sample_shapes(name):
    params = _params(name, (3,))
    e = getattr(et.distributions, name)(*[et.tensor(p) for p in params])
    t = getattr(torch.distributions, name)(*[torch.tensor(p) for p in params])
    ee, te = e.expand((2, 3)), t.expand((2, 3))
    assert type(ee) is type(e)
    assert ee.batch_shape == te.batch_shape and ee.event_shape == te.event_shape
    assert ee.sample((5,)).shape == te.sample((5,)).shape
    assert ee.sample((5,)).dtype == et.float64
    value = _value(name, (2, 3))
    np.testing.assert_allclose(ee.log_prob(et.tensor(value)).numpy(),
                               te.log_prob(torch.tensor(value)).numpy(),
                               rtol=VON_MISES_RTOL["log_prob"] if name == "VonMises" else 1e-9)
    if t.has_rsample:
        assert e.has_rsample and e.rsample((4, 1)).shape == t.rsample((4, 1)).shape
    else:
        assert not e.has_rsample
    assert e.support.__class__.__name__ == t.support.__class__.__name__
    assert sorted(e.arg_constraints) == sorted(t.arg_constraints)
    for key, c in t.arg_constraints.items():
        assert type(e.arg_constraints[key]).__name__ == type(c).__name__
    float32 = getattr(et.distributions, name)(*[et.tensor(p.astype(np.float32)) for p in params])
    assert float32.sample((2,)).dtype == et.float32


def test_chi2_expand_keeps_its_type():
    d = et.distributions.Chi2(et.tensor([2.0, 3.0])).expand((4, 2))
    assert type(d) is et.distributions.Chi2 and d.df.shape == (4, 2)
    np.testing.assert_allclose(d.df.numpy(), np.broadcast_to([2.0, 3.0], (4, 2)))


# -- samplers ----------------------------------------------------------------------------------

SAMPLERS = [("Exponential", [0.7], scipy.stats.expon(scale=1 / 0.7)),
            ("Gamma", [0.1, 2.0], scipy.stats.gamma(0.1, scale=0.5)),
            ("Gamma", [1.0, 0.5], scipy.stats.gamma(1.0, scale=2.0)),
            ("Gamma", [50.0, 3.0], scipy.stats.gamma(50.0, scale=1 / 3)),
            ("Chi2", [3.0], scipy.stats.chi2(3.0)),
            ("Beta", [0.1, 0.5], scipy.stats.beta(0.1, 0.5)),
            ("Beta", [1.0, 1.0], scipy.stats.beta(1.0, 1.0)),
            ("Beta", [50.0, 2.0], scipy.stats.beta(50.0, 2.0)),
            ("InverseGamma", [2.5, 1.5], scipy.stats.invgamma(2.5, scale=1.5)),
            ("FisherSnedecor", [3.0, 7.0], scipy.stats.f(3.0, 7.0)),
            ("FisherSnedecor", [0.5, 50.0], scipy.stats.f(0.5, 50.0)),
            ("StudentT", [0.8, 1.0, 2.0], scipy.stats.t(0.8, loc=1.0, scale=2.0)),
            ("StudentT", [10.0], scipy.stats.t(10.0)),
            ("VonMises", [0.5, 0.05], scipy.stats.vonmises(0.05, loc=0.5)),
            ("VonMises", [3.0, 2.0], scipy.stats.vonmises(2.0, loc=3.0)),
            ("VonMises", [-1.0, 500.0], scipy.stats.vonmises(500.0, loc=-1.0))]


def _vonmises_cdf(frozen):
    """scipy's von Mises cdf on [-pi, pi), the interval ember's and PyTorch's samples lie in."""
    def cdf(x):
        def unwrapped(y):
            return frozen.cdf(y + 2 * np.pi * np.round((frozen.mean() - y) / (2 * np.pi)))
        below = unwrapped(-np.pi)
        return np.mod(unwrapped(x) - below, 1.0)
    return cdf


@pytest.mark.parametrize("index", range(len(SAMPLERS)))
def test_sampler_matches_pytorch_and_the_exact_cdf(index):
    name, params, frozen = SAMPLERS[index]
    et.manual_seed(10 + index)
    torch.manual_seed(10 + index)
    e = getattr(et.distributions, name)(*[et.tensor(p) for p in params]).sample((N_SAMPLES,))
    t = getattr(torch.distributions, name)(*[torch.tensor(p) for p in params]).sample(
        (N_SAMPLES,))
    e = e.numpy()
    two_sample_check(e, t.numpy())
    cdf = _vonmises_cdf(frozen) if name == "VonMises" else frozen.cdf
    assert scipy.stats.kstest(e, cdf).pvalue > ALPHA
    if name == "VonMises":
        assert e.min() >= -np.pi and e.max() < np.pi


def test_dirichlet_sampler():
    conc = np.array([0.1, 1.0, 50.0])
    et.manual_seed(3)
    torch.manual_seed(3)
    e = et.distributions.Dirichlet(et.tensor(conc)).sample((N_SAMPLES,)).numpy()
    t = torch.distributions.Dirichlet(torch.tensor(conc)).sample((N_SAMPLES,)).numpy()
    np.testing.assert_allclose(e.sum(-1), 1.0, rtol=1e-12)
    total = sum(conc)
    for i, a in enumerate(conc):  # each marginal is Beta(a_i, total - a_i)
        two_sample_check(e[:, i], t[:, i])
        assert scipy.stats.kstest(e[:, i], scipy.stats.beta(a, total - a).cdf).pvalue > ALPHA


def test_tiny_concentrations_stay_in_the_support():
    et.manual_seed(0)
    for dtype in (et.float32, et.float64):
        g = et.distributions.Gamma(et.tensor([1e-3, 1e-2], dtype=dtype), 1.0).sample((2000,))
        assert bool((g > 0).all()) and bool(g.isfinite().all())
        b = et.distributions.Beta(et.tensor([0.05], dtype=dtype), 0.05).sample((4000,))
        assert bool(((b >= 0) & (b <= 1)).all()) and b.dtype == dtype
        # the gammas are normalised in float64: none underflows to a spurious 1/2
        assert not bool((b == 0.5).any())
        # (a symmetric tiny Beta puts mass within rounding of 1, where SciPy's cdf is not
        # accurate: the exact-cdf test uses one with its mass near 0)
        b = et.distributions.Beta(et.tensor([0.05], dtype=dtype), 0.5).sample((4000,))
        assert scipy.stats.kstest(b.numpy().ravel().astype(np.float64),
                                  scipy.stats.beta(0.05, 0.5).cdf).pvalue > ALPHA


# -- reparameterized gradients ------------------------------------------------------------------

def test_exponential_rsample_gradients():
    rsample_grad_check(et.distributions.Exponential, torch.distributions.Exponential,
                       [_pos(3)])


def _rsample_with_grads(make, params, n=64, seed=0):
    et.manual_seed(seed)
    leaves = [et.tensor(p, requires_grad=True) for p in params]
    x = make(*leaves).rsample((n,))
    return x.detach().numpy(), [g.numpy() for g in et.autograd.grad(x.sum(), leaves)]


# PyTorch's _standard_gamma_grad is an approximation: over many samples its relative error
# against a high-precision reference stays below 1e-3 (about 7e-4 at worst), ember's below
# 1e-12 (test_torch_dist_gamma_sampling.py checks it against mpmath)
TORCH_GRAD_RTOL = 2e-3


@pytest.mark.parametrize("conc", [0.1, 1.0, 50.0])
def test_gamma_rsample_gradients(conc):
    a, rate = np.array([conc, conc * 1.5]), np.array([0.7, 2.0])
    x, (ga, gr) = _rsample_with_grads(et.distributions.Gamma, [a, rate])
    # x = z / rate with z ~ Gamma(a, 1): dx/da = dz/da / rate, dx/drate = -x / rate
    dz = torch._standard_gamma_grad(torch.tensor(a).expand(x.shape),
                                    torch.tensor(x * rate)).numpy()
    np.testing.assert_allclose(ga, (dz / rate).sum(0), rtol=TORCH_GRAD_RTOL)
    np.testing.assert_allclose(gr, (-x / rate).sum(0), rtol=1e-10)


def test_chi2_and_inverse_gamma_rsample_gradients():
    df = np.array([0.5, 3.0, 40.0])
    x, (gd,) = _rsample_with_grads(et.distributions.Chi2, [df])
    dz = torch._standard_gamma_grad(torch.tensor(df / 2).expand(x.shape),
                                    torch.tensor(x / 2)).numpy()
    np.testing.assert_allclose(gd, dz.sum(0), rtol=TORCH_GRAD_RTOL)  # x = 2 z, a = df / 2
    a, rate = np.array([0.5, 3.0, 40.0]), np.array([1.0, 0.5, 4.0])
    x, (ga, gr) = _rsample_with_grads(et.distributions.InverseGamma, [a, rate])
    z = rate / x  # x = rate / z with z ~ Gamma(a, 1)
    dz = torch._standard_gamma_grad(torch.tensor(a).expand(x.shape), torch.tensor(z)).numpy()
    np.testing.assert_allclose(ga, (-x / z * dz).sum(0), rtol=TORCH_GRAD_RTOL)
    np.testing.assert_allclose(gr, (x / rate).sum(0), rtol=1e-10)


def _expectation_gradient_check(name, params, f, n=4000, seed=0, z_max=4.5):
    """Unbiasedness of the reparameterized gradients: the mean over ``n`` samples of
    ``d f(x) / d theta`` (one independent sample per copy of the parameters) agrees with
    PyTorch's gradient of ``E[f(x)]`` (``f`` of PyTorch's moments, by autograd) within
    ``z_max`` standard errors (a false alarm about once in 1e5 per parameter)."""
    et.manual_seed(seed)
    leaves = [et.tensor(np.broadcast_to(p, (n,) + p.shape).copy(), requires_grad=True)
              for p in params]
    x = getattr(et.distributions, name)(*leaves).rsample()
    per_sample = et.autograd.grad(f(x, et).sum(), leaves)
    tleaves = [torch.tensor(p, requires_grad=True) for p in params]
    expectation = f(getattr(torch.distributions, name)(*tleaves), None)
    expected = torch.autograd.grad(expectation.sum(), tleaves, allow_unused=True)
    for g, want, p in zip(per_sample, expected, params):
        g = g.numpy()
        want = np.zeros(p.shape) if want is None else want.numpy()
        mean, se = g.mean(0), g.std(0) / math.sqrt(n)
        z = np.abs(mean - want) / np.maximum(se, 1e-12)
        assert (z < z_max).all(), (mean, want, se)


def _second_moment(x, m):
    if m is None:  # x is PyTorch's distribution: E[x^2] = Var + E[x]^2
        return x.variance + x.mean.pow(2)
    return x * x


def _mean(x, m):
    return x.mean if m is None else x


def test_beta_rsample_gradient_of_expectations():
    params = [np.array([0.3, 2.0, 20.0]), np.array([1.5, 0.7, 5.0])]
    _expectation_gradient_check("Beta", params, _mean)
    _expectation_gradient_check("Beta", params, _second_moment, seed=1)


def test_dirichlet_rsample_gradient_of_expectations():
    params = [np.array([[0.3, 2.0, 5.0], [1.0, 1.0, 1.0]])]
    weights = np.array([1.0, -2.0, 0.5])

    def f(x, m):
        mean = x.mean if m is None else x
        w = torch.tensor(weights) if m is None else et.tensor(weights)
        return (mean * w).sum(-1)
    _expectation_gradient_check("Dirichlet", params, f)
    _expectation_gradient_check("Dirichlet", params, lambda x, m: _second_moment(x, m)[..., 0],
                                seed=2)


def test_student_t_rsample_gradients():
    params = [np.array([9.0, 20.0]), np.array([0.5, -1.0]), np.array([2.0, 0.5])]
    _expectation_gradient_check("StudentT", params, _second_moment)
    # per sample: x = loc + scale * t, so dx/dloc = 1 and dx/dscale = (x - loc) / scale
    x, (_, gl, gs) = _rsample_with_grads(et.distributions.StudentT, params)
    np.testing.assert_allclose(gl, np.full(2, 64.0), rtol=1e-12)
    np.testing.assert_allclose(gs, ((x - params[1]) / params[2]).sum(0), rtol=1e-10)


def test_fisher_snedecor_rsample_gradient_of_expectations():
    params = [np.array([6.0, 9.0]), np.array([14.0, 20.0])]
    _expectation_gradient_check("FisherSnedecor", params, _mean)
    _expectation_gradient_check("FisherSnedecor", params, _second_moment, seed=3)


def test_gamma_rsample_gradient_of_expectations():
    params = [np.array([0.1, 1.0, 50.0]), np.array([1.0, 2.0, 0.5])]
    _expectation_gradient_check("Gamma", params, _second_moment)


def test_rsample_gradients_reach_the_leaves_through_expand():
    a = et.tensor([0.5, 2.0], requires_grad=True)
    x = et.distributions.Gamma(a, 1.0).expand((3, 2)).rsample((4,))
    (g,) = et.autograd.grad(x.sum(), a)
    assert tuple(g.shape) == (2,) and bool(g.isfinite().all())
