"""The standard-gamma sampler of ember.torch.distributions and its implicit reparameterized
gradient: seeded KS tests against SciPy's exact cdf and two-sample tests against PyTorch's
sampler (false-alarm rate ALPHA each), ``dx/dalpha`` against a high-precision mpmath reference
and against PyTorch's ``_standard_gamma_grad``, second derivatives by finite differences of
SciPy's inverse incomplete gamma function."""

import mpmath
import numpy as np
import pytest
import scipy.special
import scipy.stats
import torch

import ember.torch as et
from dist_oracle import ALPHA, two_sample_check
from ember.torch.distributions._gamma_grad import standard_gamma_grad
from ember.torch.distributions._gamma_sampling import standard_gamma

CONCENTRATIONS = [0.01, 0.1, 0.5, 1.0, 2.5, 50.0, 1e4]


@pytest.mark.parametrize("a", CONCENTRATIONS)
def test_sampler_against_the_exact_cdf(a):
    et.manual_seed(int(a * 1000) % 9973)
    x = standard_gamma(et.full((4000,), a, dtype=et.float64)).numpy()
    assert scipy.stats.kstest(x, scipy.stats.gamma(a).cdf).pvalue > ALPHA
    # the mean within 4.5 standard errors (variance a)
    assert abs(x.mean() - a) < 4.5 * np.sqrt(a / x.size)


@pytest.mark.parametrize("a", [0.1, 1.0, 50.0])
def test_sampler_against_pytorch(a):
    et.manual_seed(7)
    torch.manual_seed(7)
    e = standard_gamma(et.full((4000,), a, dtype=et.float64)).numpy()
    t = torch._standard_gamma(torch.full((4000,), a, dtype=torch.float64)).numpy()
    two_sample_check(e, t)


def test_mixed_concentrations_in_one_call():
    """The vectorised rejection loop keeps each entry's own concentration."""
    conc = np.array([0.05, 0.7, 1.0, 3.0, 200.0])
    et.manual_seed(11)
    x = standard_gamma(et.tensor(np.tile(conc, (3000, 1)))).numpy()
    for j, a in enumerate(conc):
        assert scipy.stats.kstest(x[:, j], scipy.stats.gamma(a).cdf).pvalue > ALPHA


def test_shapes_dtypes_and_seeding():
    for shape in [(), (0,), (2, 0), (3, 4)]:
        for dtype in (et.float32, et.float64):
            x = standard_gamma(et.full(shape, 0.3, dtype=dtype))
            assert tuple(x.shape) == shape and x.dtype == dtype
            assert bool((x > 0).all())
    et.manual_seed(5)
    a = standard_gamma(et.full((10,), 2.0)).numpy()
    et.manual_seed(5)
    np.testing.assert_array_equal(a, standard_gamma(et.full((10,), 2.0)).numpy())
    # tiny concentrations underflow to the dtype's smallest normal number, not to 0
    et.manual_seed(0)
    x = standard_gamma(et.full((1000,), 1e-3, dtype=et.float32))
    assert float(x.min()) >= np.finfo(np.float32).tiny


# -- dx/dalpha ---------------------------------------------------------------------------------

mpmath.mp.dps = 30


def _reference_grad(x, a):
    """``-(dP/da) / p(x; a)`` with mpmath at 30 digits (numerical derivative of the exact
    regularized incomplete gamma function)."""
    x, a = mpmath.mpf(x), mpmath.mpf(a)
    dp = mpmath.diff(lambda s: mpmath.gammainc(s, 0, x, regularized=True), a)
    density = mpmath.exp((a - 1) * mpmath.log(x) - x - mpmath.loggamma(a))
    return float(-dp / density)


def _grid():
    """Concentrations from 1e-3 to 1e4 at quantiles from 1e-6 to 1 - 1e-6."""
    points = []
    for a in [1e-3, 0.1, 0.5, 1.0, 1.7, 8.0, 50.0, 1e3, 1e4]:
        for q in [1e-6, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-6]:
            x = scipy.special.gammaincinv(a, q)
            if x > 1e-300:
                points.append((x, a))
    return np.array(points)


def test_grad_against_high_precision_reference():
    points = _grid()
    x, a = points[:, 0], points[:, 1]
    mine = standard_gamma_grad(et.tensor(x), et.tensor(a)).numpy()
    want = np.array([_reference_grad(xi, ai) for xi, ai in points])
    np.testing.assert_allclose(mine, want, rtol=1e-8, atol=0)


# PyTorch's _standard_gamma_grad is an approximation (series for small x, an asymptotic
# expansion for large alpha, a fitted rational function between): over these samples its
# relative error is at most about 7e-4, so it is compared at 2e-3
TORCH_RTOL = 2e-3


@pytest.mark.parametrize("a", CONCENTRATIONS)
def test_grad_against_pytorch(a):
    x = np.maximum(np.random.default_rng(1).gamma(a, size=500), 1e-300)
    mine = standard_gamma_grad(et.tensor(x), et.full((500,), a, dtype=et.float64)).numpy()
    theirs = torch._standard_gamma_grad(torch.full((500,), a, dtype=torch.float64),
                                        torch.tensor(x)).numpy()
    np.testing.assert_allclose(mine, theirs, rtol=TORCH_RTOL)


def test_grad_of_the_sampler_is_dx_dalpha_at_the_sample():
    a = et.tensor([[0.1, 1.0, 50.0]] * 4, dtype=et.float64, requires_grad=True)
    et.manual_seed(2)
    x = standard_gamma(a)
    (g,) = et.autograd.grad(x.sum(), a)
    want = torch._standard_gamma_grad(torch.tensor(a.detach().numpy()),
                                      torch.tensor(x.detach().numpy())).numpy()
    np.testing.assert_allclose(g.numpy(), want, rtol=TORCH_RTOL)
    np.testing.assert_allclose(g.numpy(), standard_gamma_grad(x, a).detach().numpy(),
                               rtol=1e-15)


def test_grad_edge_cases_and_dtypes():
    g = standard_gamma_grad(et.tensor([0.0, 1e-300, 5.0]), et.tensor([0.5, 0.5, 0.5]))
    assert g.dtype == et.float32
    g = standard_gamma_grad(et.tensor([0.0, 1e-300, 1e300], dtype=et.float64),
                            et.tensor([0.5, 0.5, 2.0], dtype=et.float64)).numpy()
    assert g[0] == 0 and np.isfinite(g).all()
    # broadcasting: one concentration for many samples
    x = np.array([[0.2, 1.0, 3.0]])
    g = standard_gamma_grad(et.tensor(x), et.tensor([[2.0], [3.0]])).numpy()
    want = torch._standard_gamma_grad(torch.tensor([[2.0], [3.0]]).expand(2, 3).double(),
                                      torch.tensor(x).expand(2, 3)).numpy()
    np.testing.assert_allclose(g, want, rtol=TORCH_RTOL)


def test_second_derivative_of_samples():
    """``d2x/da2`` at a fixed quantile u (x = P^-1(a, u)), differentiating the sampler's
    backward again, against central differences of SciPy's gammaincinv."""
    a = et.tensor([0.3, 1.0, 2.0, 20.0], dtype=et.float64, requires_grad=True)
    et.manual_seed(4)
    x = standard_gamma(a)
    (g,) = et.autograd.grad(x.sum(), a, create_graph=True)
    (h,) = et.autograd.grad(g.sum(), a)
    a0, x0 = a.detach().numpy(), x.detach().numpy()
    u = scipy.special.gammainc(a0, x0)
    step = 1e-4 * a0
    plus = scipy.special.gammaincinv(a0 + step, u)
    minus = scipy.special.gammaincinv(a0 - step, u)
    np.testing.assert_allclose(g.detach().numpy(), (plus - minus) / (2 * step), rtol=1e-6)
    second = (plus - 2 * x0 + minus) / step ** 2
    np.testing.assert_allclose(h.numpy(), second, rtol=1e-4)
