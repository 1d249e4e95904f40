"""MultivariateNormal, LowRankMultivariateNormal, Wishart and LKJCholesky (and the private gamma
sampler) against PyTorch: densities, entropies, moments, KL pairs and gradients in float64, the
samplers by seeded statistical tests, validation errors, expand and batch broadcasting."""

import warnings

import numpy as np
import pytest
import scipy.stats
import torch

import ember.torch as et
from ember.errors import InvalidParameterError
from dist_oracle import ALPHA, two_sample_check
from math_oracle import check

RNG = np.random.default_rng(0)
TOL = {"rtol": 1e-6, "atol": 1e-9}


def _spd(batch, n):
    a = RNG.standard_normal(tuple(batch) + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _tril(batch, n):
    low = np.tril(RNG.standard_normal(tuple(batch) + (n, n)), -1)
    return low + np.eye(n) * RNG.uniform(0.5, 2.0, tuple(batch) + (n, 1))


def _mvn(m, loc, mat, form):
    if form != "scale_tril":  # a symmetric leaf: both libraries' gradients then agree
        mat = (mat + mat.mT) / 2
    # (neither library's constraints check a size-0 batch)
    return m.distributions.MultivariateNormal(loc, **{form: mat},
                                              validate_args=bool(loc.numel()))


def _attr(d, name, value=None):
    a = getattr(d, name)
    if callable(a):
        return a(value) if name in ("log_prob", "cdf") else a()
    return a


# loc batch, matrix batch, value batch: broadcasting of loc against the matrix included
MVN_SHAPES = [((), (), ()), ((2,), (), (5, 2)), ((), (4, 1), (4, 3)), ((2, 1), (3,), (2, 3)),
              ((0,), (), (0,))]
FORMS = ["covariance_matrix", "precision_matrix", "scale_tril"]


def _mvn_params(shapes, form, n=3):
    loc_b, mat_b, val_b = shapes
    mat = _tril(mat_b, n) if form == "scale_tril" else _spd(mat_b, n)
    if form == "precision_matrix":
        mat = np.linalg.inv(mat)
    return RNG.standard_normal(loc_b + (n,)), mat, RNG.standard_normal(val_b + (n,))


@pytest.mark.parametrize("shapes", MVN_SHAPES)
@pytest.mark.parametrize("form", FORMS)
def test_mvn_log_prob_and_properties(shapes, form):
    loc, mat, value = _mvn_params(shapes, form)
    names = ["log_prob", "entropy", "variance", "scale_tril", "covariance_matrix",
             "precision_matrix"]
    if shapes == MVN_SHAPES[3]:
        names += ["mean", "mode", "stddev"]
    for name in names:
        check(lambda m, lo, ma, v: _attr(_mvn(m, lo, ma, form), name, v), loc, mat, value,
              **TOL)


def test_mvn_shapes_follow_torch():
    for shapes in MVN_SHAPES:
        loc, mat, _ = _mvn_params(shapes, "covariance_matrix")
        e = et.distributions.MultivariateNormal(et.tensor(loc), et.tensor(mat),
                                                validate_args=bool(loc.size))
        t = torch.distributions.MultivariateNormal(torch.tensor(loc), torch.tensor(mat),
                                                   validate_args=bool(loc.size))
        assert e.batch_shape == t.batch_shape and e.event_shape == t.event_shape
        assert e.sample((2,)).shape == t.sample((2,)).shape
        assert e.rsample().shape == t.rsample().shape
    assert repr(e) == repr(t)


@pytest.mark.parametrize("form", ["covariance_matrix", "scale_tril"])
def test_mvn_rsample_is_loc_plus_scale_times_noise(form):
    """``rsample = loc + L eps``: recover ``eps`` from ember's draw by a solve, then its
    gradients must be PyTorch's gradients of ``loc + L eps`` with that ``eps``."""
    n = 3
    loc = RNG.standard_normal((2, n))
    mat = _tril((2,), n) if form == "scale_tril" else _spd((2,), n)
    et.manual_seed(3)
    le, me = et.tensor(loc, requires_grad=True), et.tensor(mat, requires_grad=True)
    x = _mvn(et, le, me, form).rsample((7,))
    w = RNG.standard_normal(x.shape)
    grads = et.autograd.grad((x * et.tensor(w)).sum(), [le, me])
    lt, mt = torch.tensor(loc, requires_grad=True), torch.tensor(mat, requires_grad=True)
    tril = _mvn(torch, lt, mt, form).scale_tril
    diff = torch.tensor(x.detach().numpy()) - lt.detach()
    eps = torch.linalg.solve_triangular(tril.detach(), diff.unsqueeze(-1), upper=False)
    xt = lt + (tril @ eps).squeeze(-1)
    np.testing.assert_allclose(xt.detach().numpy(), x.detach().numpy(), rtol=1e-10)
    want = torch.autograd.grad((xt * torch.tensor(w)).sum(), [lt, mt])
    for g, e in zip(grads, want):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-9, atol=1e-12)


def test_mvn_sampler_matches_torch_on_projections():
    loc, cov = RNG.standard_normal(3), _spd((), 3)
    et.manual_seed(0)
    torch.manual_seed(0)
    e = et.distributions.MultivariateNormal(et.tensor(loc), et.tensor(cov)).sample((3000,))
    t = torch.distributions.MultivariateNormal(torch.tensor(loc), torch.tensor(cov)).sample(
        (3000,))
    for direction in (np.array([1.0, 0, 0]), np.array([0.3, -1.0, 0.5])):
        two_sample_check(e.numpy() @ direction, t.numpy() @ direction)
    np.testing.assert_allclose(np.cov(e.numpy().T), cov, rtol=0.15, atol=0.3)


LOWRANK_SHAPES = [((), (), ()), ((2,), (4, 1), (1,)), ((0,), (), ())]


def _lowrank_params(shapes, n=4, k=2):
    loc_b, fac_b, diag_b = shapes
    return (RNG.standard_normal(loc_b + (n,)), RNG.standard_normal(fac_b + (n, k)),
            RNG.uniform(0.5, 2.0, diag_b + (n,)))


@pytest.mark.parametrize("shapes", LOWRANK_SHAPES)
def test_lowrank_log_prob_and_properties(shapes):
    loc, fac, diag = _lowrank_params(shapes)
    value = RNG.standard_normal((3, 1, 1, 4))
    for name in ("log_prob", "entropy", "mean", "mode", "variance", "stddev", "scale_tril",
                 "covariance_matrix", "precision_matrix"):
        check(lambda m, lo, f, d, v: _attr(m.distributions.LowRankMultivariateNormal(
            lo, f, d, validate_args=bool(lo.numel())), name, v), loc, fac, diag, value, **TOL)


def test_lowrank_shapes_sampler_and_rsample_gradient():
    loc, fac, diag = _lowrank_params(((2,), (), ()))
    e = et.distributions.LowRankMultivariateNormal(et.tensor(loc), et.tensor(fac),
                                                   et.tensor(diag))
    t = torch.distributions.LowRankMultivariateNormal(torch.tensor(loc), torch.tensor(fac),
                                                      torch.tensor(diag))
    assert (e.batch_shape, e.event_shape) == (t.batch_shape, t.event_shape)
    assert e.sample((3,)).shape == t.sample((3,)).shape and repr(e) == repr(t)
    et.manual_seed(0)
    torch.manual_seed(0)
    x = e.sample((3000,)).numpy()[:, 0]
    y = t.sample((3000,)).numpy()[:, 0]
    two_sample_check(x @ np.array([1.0, -0.5, 0.2, 0.7]), y @ np.array([1.0, -0.5, 0.2, 0.7]))
    cov = fac @ fac.T + np.diag(diag[0] if diag.ndim > 1 else diag)
    np.testing.assert_allclose(np.cov(x.T), cov, rtol=0.2, atol=0.3)
    # rsample is loc + W eps_W + sqrt(D) eps_D: its gradient to loc counts the draws
    le = et.tensor(loc, requires_grad=True)
    draws = et.distributions.LowRankMultivariateNormal(le, et.tensor(fac),
                                                       et.tensor(diag)).rsample((5,))
    (g,) = et.autograd.grad(draws.sum(), [le])
    np.testing.assert_allclose(g.numpy(), np.full(loc.shape, 5.0), rtol=1e-12)


def _gaussian(m, kind, params):
    if kind == "mvn":
        loc, cov = params
        return m.distributions.MultivariateNormal(loc, (cov + cov.mT) / 2)
    return m.distributions.LowRankMultivariateNormal(*params)


@pytest.mark.parametrize("kinds", [("mvn", "mvn"), ("lowrank", "lowrank"), ("lowrank", "mvn"),
                                   ("mvn", "lowrank")])
def test_gaussian_kl_pairs(kinds):
    def params(kind, batch):
        if kind == "mvn":
            return [RNG.standard_normal(batch + (3,)), _spd(batch, 3)]
        return [RNG.standard_normal(batch + (3,)), RNG.standard_normal(batch + (3, 2)),
                RNG.uniform(0.5, 2.0, batch + (3,))]
    p, q = params(kinds[0], (2,)), params(kinds[1], (4, 1))

    def kl(m, *ins):
        return m.distributions.kl_divergence(_gaussian(m, kinds[0], ins[:len(p)]),
                                             _gaussian(m, kinds[1], ins[len(p):]))
    check(kl, *p, *q, **TOL)


def test_gaussian_kl_refuses_different_event_shapes():
    p = et.distributions.MultivariateNormal(et.zeros(2), et.eye(2))
    q = et.distributions.MultivariateNormal(et.zeros(3), et.eye(3))
    with pytest.raises(ValueError):
        torch.distributions.kl_divergence(
            torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2)),
            torch.distributions.MultivariateNormal(torch.zeros(3), torch.eye(3)))
    with pytest.raises(InvalidParameterError):
        et.distributions.kl_divergence(p, q)


def test_mvn_and_lowrank_validation():
    mvn, low = et.distributions.MultivariateNormal, et.distributions.LowRankMultivariateNormal
    cases = [(lambda: mvn(et.zeros(2), et.ones(2, 2)), "covariance_matrix"),
             (lambda: mvn(et.zeros(2), precision_matrix=-et.eye(2)), "precision_matrix"),
             (lambda: mvn(et.zeros(2), scale_tril=et.ones(2, 2)), "scale_tril"),
             (lambda: mvn(et.zeros(2), scale_tril=-et.eye(2)), "scale_tril"),
             (lambda: mvn(et.tensor(0.0), et.eye(2)), "loc"),
             (lambda: mvn(et.zeros(2), et.ones(2)), "covariance_matrix"),
             (lambda: mvn(et.zeros(2), et.eye(3)), "covariance_matrix"),
             (lambda: mvn(et.zeros(2, 2), et.eye(2).expand(3, 2, 2)), "covariance_matrix"),
             (lambda: mvn(et.zeros(2)), "covariance_matrix"),
             (lambda: mvn(et.zeros(2), et.eye(2), scale_tril=et.eye(2)), "covariance_matrix"),
             (lambda: mvn(et.tensor([0.0, float("nan")]), et.eye(2)), "loc"),
             (lambda: low(et.zeros(2), et.ones(3, 1), et.ones(2)), "cov_factor"),
             (lambda: low(et.zeros(2), et.ones(2), et.ones(2)), "cov_factor"),
             (lambda: low(et.zeros(2), et.ones(2, 1), et.ones(3)), "cov_diag"),
             (lambda: low(et.zeros(2), et.ones(2, 1), -et.ones(2)), "cov_diag"),
             (lambda: mvn(et.zeros(2), et.eye(2)).log_prob(et.zeros(3)), "value")]
    for make, param in cases:
        with pytest.raises(InvalidParameterError) as info:
            make()
        assert info.value.param == param, (param, info.value)
    # no check when asked: a non-positive-definite scale_tril is taken as given
    mvn(et.zeros(2), scale_tril=-et.eye(2), validate_args=False)


def test_mvn_and_lowrank_expand():
    loc, cov = RNG.standard_normal(3), _spd((), 3)
    value = RNG.standard_normal((4, 2, 3))
    for make in (lambda m: m.distributions.MultivariateNormal(m.tensor(loc), m.tensor(cov)),
                 lambda m: m.distributions.MultivariateNormal(
                     m.tensor(loc), precision_matrix=m.tensor(cov)),
                 lambda m: m.distributions.LowRankMultivariateNormal(
                     m.tensor(loc), m.tensor(cov[:, :2]), m.tensor(np.diag(cov)))):
        e, t = make(et), make(torch)
        for d in (e, t):  # lazy properties computed before expand are expanded with it
            d.variance, d.scale_tril, d.precision_matrix
        e, t = e.expand((4, 2)), t.expand((4, 2))
        assert e.batch_shape == t.batch_shape and e.sample().shape == t.sample().shape
        np.testing.assert_allclose(e.log_prob(et.tensor(value)).numpy(),
                                   t.log_prob(torch.tensor(value)).numpy(), rtol=1e-9)
        for name in ("covariance_matrix", "precision_matrix", "scale_tril", "variance"):
            np.testing.assert_allclose(getattr(e, name).numpy(), getattr(t, name).numpy(),
                                       rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(e.entropy().numpy(), t.entropy().numpy(), rtol=1e-9)


# -- Wishart --------------------------------------------------------------------------------

WISHART_CASES = [((), (), 3, [4.5]), ((2,), (), 3, [2.2, 9.0]), ((), (2,), 2, [3.0]),
                 ((3, 1), (2,), 2, [1.5, 40.0, 2.0]), ((0,), (), 2, [])]


def _wishart_params(case, form):
    df_b, mat_b, p, dfs = case
    df = np.resize(np.array(dfs or [3.0]), int(np.prod(df_b, dtype=int))).reshape(df_b)
    mat = _tril(mat_b, p) if form == "scale_tril" else _spd(mat_b, p) / p
    if form == "precision_matrix":
        mat = np.linalg.inv(mat)
    return df, mat


def _wishart(m, df, mat, form):
    if form != "scale_tril":
        mat = (mat + mat.mT) / 2
    return m.distributions.Wishart(df, **{form: mat}, validate_args=bool(df.numel() * mat.numel()))


@pytest.mark.parametrize("case", WISHART_CASES)
@pytest.mark.parametrize("form", FORMS)
def test_wishart_log_prob_entropy_moments(case, form):
    df, mat = _wishart_params(case, form)
    p = mat.shape[-1]
    value = _spd((5,) + tuple(np.broadcast_shapes(df.shape, mat.shape[:-2])), p) / p
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # low df
        for name in ("log_prob", "entropy", "mean", "mode", "variance", "covariance_matrix",
                     "precision_matrix", "scale_tril"):
            check(lambda m, d, ma, v: _attr(_wishart(m, d, ma, form), name, v), df, mat, value,
                  **TOL)


def test_wishart_shapes_expand_and_validation():
    cov = _spd((2,), 3)
    e = et.distributions.Wishart(et.tensor([4.0, 5.0], dtype=et.float64), et.tensor(cov))
    t = torch.distributions.Wishart(torch.tensor([4.0, 5.0], dtype=torch.float64),
                                    torch.tensor(cov))
    assert (e.batch_shape, e.event_shape) == (t.batch_shape, t.event_shape)
    assert e.sample((3,)).shape == t.sample((3,)).shape and repr(e) == repr(t)
    ee, te = e.expand((4, 2)), t.expand((4, 2))
    value = _spd((4, 2), 3)
    assert ee.batch_shape == te.batch_shape and ee.rsample().shape == te.rsample().shape
    np.testing.assert_allclose(ee.log_prob(et.tensor(value)).numpy(),
                               te.log_prob(torch.tensor(value)).numpy(), rtol=1e-9)
    np.testing.assert_allclose(ee.entropy().numpy(), te.entropy().numpy(), rtol=1e-9)
    w = et.distributions.Wishart
    cases = [(lambda: w(et.tensor(1.0), et.eye(3)), "df"),
             (lambda: w(et.tensor(3.0), et.ones(3, 3)), "covariance_matrix"),
             (lambda: w(et.tensor(3.0), scale_tril=et.ones(3, 3)), "scale_tril"),
             (lambda: w(et.tensor(3.0), et.ones(3)), "covariance_matrix"),
             (lambda: w(et.tensor(3.0)), "covariance_matrix"),
             (lambda: w(et.tensor([3.0, 4.0]), et.eye(3).expand(3, 3, 3)), "df"),
             (lambda: w(et.tensor(3.0), et.eye(3)).log_prob(-et.eye(3)), "value")]
    for make, param in cases:
        with pytest.raises(InvalidParameterError) as info:
            make()
        assert info.value.param == param, (param, info.value)
    with pytest.warns(UserWarning):
        w(et.tensor(2.5), et.eye(3))


def test_wishart_sampler_moments_and_projections():
    p, df = 3, 6.5
    cov = _spd((), p) / p
    et.manual_seed(0)
    torch.manual_seed(0)
    e = et.distributions.Wishart(et.tensor(df), et.tensor(cov)).sample((4000,)).numpy()
    t = torch.distributions.Wishart(torch.tensor(df), torch.tensor(cov)).sample((4000,)).numpy()
    assert np.all(np.linalg.eigvalsh(e) > 0)
    for f in (lambda x: x[:, 0, 0], lambda x: x[:, 1, 2], lambda x: np.trace(x, axis1=1, axis2=2)):
        two_sample_check(f(e), f(t))
    mean_se = np.sqrt(df * (cov ** 2 + np.outer(np.diag(cov), np.diag(cov))) / len(e))
    assert np.all(np.abs(e.mean(0) - df * cov) < 5 * mean_se)


def test_wishart_rsample_gradient_follows_the_bartlett_factor():
    """``X = L (A A^T) L^T``: with ``A A^T`` recovered from ember's draw by two solves, the
    gradients to ``scale_tril`` must be PyTorch's gradients of ``L S L^T``."""
    tril = _tril((2,), 3)
    et.manual_seed(5)
    le = et.tensor(tril, requires_grad=True)
    x = et.distributions.Wishart(et.tensor([4.0, 7.5]), scale_tril=le).rsample((3,))
    w = RNG.standard_normal(x.shape)
    (g,) = et.autograd.grad((x * et.tensor(w)).sum(), [le])
    lt = torch.tensor(tril, requires_grad=True)
    xd = torch.tensor(x.detach().numpy())
    half = torch.linalg.solve_triangular(lt.detach(), xd, upper=False)
    s = torch.linalg.solve_triangular(lt.detach(), half.mT, upper=False)
    xt = lt @ s @ lt.mT
    np.testing.assert_allclose(xt.detach().numpy(), xd.numpy(), rtol=1e-9, atol=1e-12)
    (want,) = torch.autograd.grad((xt * torch.tensor(w)).sum(), [lt])
    np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-8, atol=1e-10)


# -- LKJCholesky ----------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 3, 5])
@pytest.mark.parametrize("conc_shape", [(), (3,)])
def test_lkj_log_prob(dim, conc_shape):
    conc = np.resize(np.array([0.05, 1.0, 30.0]), int(np.prod(conc_shape, dtype=int)))
    conc = conc.reshape(conc_shape)
    torch.manual_seed(dim)
    value = torch.distributions.LKJCholesky(dim, torch.tensor(conc)).sample((4,)).numpy()
    check(lambda m, c, v: m.distributions.LKJCholesky(dim, c).log_prob(v), conc, value, **TOL)


@pytest.mark.parametrize("conc", [0.3, 1.0, 4.0])
def test_lkj_sampler_gives_lkj_correlations(conc):
    """Every off-diagonal correlation of an LKJ(eta) matrix of side d is
    ``2 Beta(eta - 1 + d / 2, same) - 1`` (PyTorch's own sampler is not used as reference)."""
    dim = 4
    et.manual_seed(0)
    d = et.distributions.LKJCholesky(dim, et.tensor(conc, dtype=et.float64))
    chol = d.sample((4000,))
    assert bool(et.distributions.constraints.corr_cholesky.check(chol).all())
    corr = (chol @ chol.mT).numpy()
    a = conc - 1 + dim / 2
    reference = scipy.stats.beta(a, a, loc=-1, scale=2).cdf
    pvalues = [scipy.stats.kstest(corr[:, i, j], reference).pvalue
               for i in range(dim) for j in range(i)]
    assert min(pvalues) > ALPHA / len(pvalues), pvalues  # Bonferroni over the entries


def test_lkj_samples_stay_in_the_support_at_tiny_concentration():
    et.manual_seed(0)
    chol = et.distributions.LKJCholesky(3, et.tensor(0.05, dtype=et.float64)).sample((5000,))
    assert bool((chol.diagonal(dim1=-2, dim2=-1) > 0).all())
    assert bool(et.distributions.constraints.corr_cholesky.check(chol).all())


def test_lkj_shapes_expand_and_validation():
    e = et.distributions.LKJCholesky(3, et.tensor([0.5, 2.0]))
    t = torch.distributions.LKJCholesky(3, torch.tensor([0.5, 2.0]))
    assert (e.batch_shape, e.event_shape) == (t.batch_shape, t.event_shape)
    assert e.sample((4,)).shape == t.sample((4,)).shape and not e.has_rsample
    assert repr(et.distributions.LKJCholesky(3, 0.5)) == repr(torch.distributions.LKJCholesky(
        3, 0.5))
    ee, te = e.expand((5, 2)), t.expand((5, 2))
    value = te.sample()
    assert ee.sample().shape == value.shape
    np.testing.assert_allclose(ee.log_prob(et.tensor(value.numpy())).numpy(),
                               te.log_prob(value).numpy(), rtol=1e-6)
    lkj = et.distributions.LKJCholesky
    for make, param in [(lambda: lkj(1), "dim"), (lambda: lkj(2.5), "dim"),
                        (lambda: lkj(3, -1.0), "concentration"),
                        (lambda: lkj(2).log_prob(et.tensor([[1.0, 0.0], [0.5, 1.0]])), "value")]:
        with pytest.raises(InvalidParameterError) as info:
            make()
        assert info.value.param == param


@pytest.mark.parametrize("alpha", [0.01, 0.4, 1.0, 2.5, 50.0])
def test_standard_gamma_draws_follow_the_gamma_cdf(alpha):
    from ember.torch.distributions._gamma_sampling import standard_gamma
    et.manual_seed(0)
    draws = standard_gamma(et.full((4000,), alpha, dtype=et.float64)).numpy()
    assert scipy.stats.kstest(draws, scipy.stats.gamma(alpha).cdf).pvalue > ALPHA
    assert np.all(draws > 0)


def test_non_contiguous_float32_and_number_parameters():
    upper = np.triu(RNG.standard_normal((2, 3, 3)), 1) + np.eye(3) * 1.5
    loc = RNG.standard_normal((3, 4))
    value = RNG.standard_normal((2, 3)).astype(np.float32)

    def f(m, up, lo, v):  # a transposed (non-contiguous) scale_tril and a strided loc
        return m.distributions.MultivariateNormal(lo.mT[1:3],
                                                  scale_tril=up.mT).log_prob(v)
    check(f, upper.astype(np.float32), loc.astype(np.float32), value, rtol=1e-5, atol=1e-5)
    cov = _spd((), 3)
    e = et.distributions.Wishart(5, et.tensor(cov))
    t = torch.distributions.Wishart(5, torch.tensor(cov))
    assert e.df.dtype == et.float64 and e.df.shape == t.df.shape
    np.testing.assert_allclose(e.entropy().numpy(), t.entropy().numpy(), rtol=1e-9)
    e = et.distributions.LKJCholesky(3, 0.5)
    t = torch.distributions.LKJCholesky(3, 0.5)
    value = t.sample((2,))
    assert e.concentration.dtype == et.float32
    np.testing.assert_allclose(e.log_prob(et.tensor(value.numpy())).numpy(),
                               t.log_prob(value).numpy(), rtol=1e-5)
