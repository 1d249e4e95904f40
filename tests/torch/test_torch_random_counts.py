"""ember/torch/random_counts.py against torch 2.13: poisson and binomial samples have the
distributions of PyTorch's (a chi-square test of their frequencies against the exact
probabilities, and their means and variances against PyTorch's samples'), PyTorch's shapes
and dtypes, gradients and errors; the generator makes them reproducible."""

import math

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError

N = 20000


def _chi_square_ok(samples, log_pmf, support):
    """Whether the frequencies of ``samples`` fit the probabilities: the chi-square statistic
    of the cells with at least 5 expected counts is below its 0.999 quantile (Wilson-Hilferty
    approximation)."""
    counts = np.array([(samples == k).sum() for k in support])
    expected = np.exp([log_pmf(k) for k in support]) * len(samples)
    keep = expected >= 5
    stat = (((counts - expected) ** 2 / expected)[keep]).sum()
    df = keep.sum() - 1
    z = 3.09  # the 0.999 quantile of the standard normal
    limit = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
    return stat < limit


def _poisson_log_pmf(lam):
    return lambda k: -lam + k * math.log(lam) - math.lgamma(k + 1)


def _binomial_log_pmf(n, p):
    return lambda k: (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                      + k * math.log(p) + (n - k) * math.log1p(-p))


@pytest.mark.parametrize("lam", [0.3, 3.0, 9.5, 10.0, 25.0, 300.0])
def test_poisson_distribution(lam):
    g = et.Generator().manual_seed(1)
    s = et.poisson(et.full((N,), lam, dtype=et.float64), generator=g).numpy()
    t = torch.poisson(torch.full((N,), lam, dtype=torch.float64),
                      generator=torch.Generator().manual_seed(1)).numpy()
    top = int(lam + 10 * math.sqrt(lam) + 10)
    assert _chi_square_ok(s, _poisson_log_pmf(lam), range(top))
    assert _chi_square_ok(t, _poisson_log_pmf(lam), range(top))  # the same test passes torch's
    se = math.sqrt(lam / N)
    assert abs(s.mean() - t.mean()) < 6 * se
    assert abs(s.var() / t.var() - 1) < 0.1
    assert (s == np.floor(s)).all() and (s >= 0).all()


@pytest.mark.parametrize("n,p", [(5, 0.3), (30, 0.2), (100, 0.5), (1000, 0.05), (1000, 0.9),
                                 (40, 0.7), (25, 0.45)])
def test_binomial_distribution(n, p):
    g = et.Generator().manual_seed(2)
    s = et.binomial(et.full((N,), float(n)), et.full((N,), p), generator=g).numpy()
    t = torch.binomial(torch.full((N,), float(n)), torch.full((N,), p),
                       generator=torch.Generator().manual_seed(2)).numpy()
    assert _chi_square_ok(s, _binomial_log_pmf(n, p), range(n + 1))
    assert _chi_square_ok(t, _binomial_log_pmf(n, p), range(n + 1))
    se = math.sqrt(n * p * (1 - p) / N)
    assert abs(s.mean() - t.mean()) < 6 * se
    assert abs(s.var() / t.var() - 1) < 0.1
    assert (s >= 0).all() and (s <= n).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (0,), (3, 4)])
def test_shapes_and_dtypes_as_torch(dtype, shape):
    rates = np.full(shape, 2.5, dtype=dtype)
    a, b = et.poisson(et.tensor(rates)), torch.poisson(torch.tensor(rates))
    assert tuple(a.shape) == tuple(b.shape) and a.dtype.name == dtype == str(b.dtype)[6:]
    count, prob = np.full(shape, 7.0, dtype=dtype), np.full(shape, 0.4, dtype=dtype)
    a = et.binomial(et.tensor(count), et.tensor(prob))
    b = torch.binomial(torch.tensor(count), torch.tensor(prob))
    assert tuple(a.shape) == tuple(b.shape) and a.dtype.name == dtype


def test_edge_values_as_torch():
    rates = [0.0, 0.0]
    assert et.poisson(et.tensor(rates)).tolist() == torch.poisson(torch.tensor(rates)).tolist()
    count, prob = [0.0, 5.0, 10.0, -10.0, 3.0], [0.5, 1.0, 1.3, 0.3, 0.0]
    assert et.binomial(et.tensor(count), et.tensor(prob)).tolist() == \
        torch.binomial(torch.tensor(count), torch.tensor(prob)).tolist()
    a = et.binomial(et.tensor([10.0, 5.0]), et.tensor(0.3))
    b = torch.binomial(torch.tensor([10.0, 5.0]), torch.tensor(0.3))
    assert tuple(a.shape) == tuple(b.shape)


def test_generator_makes_samples_reproducible():
    draw = lambda seed: et.poisson(et.full((50,), 30.0),  # noqa: E731
                                   generator=et.Generator().manual_seed(seed)).tolist()
    assert draw(3) == draw(3) and draw(3) != draw(4)
    et.manual_seed(5)
    first = et.binomial(et.full((50,), 40.0), et.full((50,), 0.5)).tolist()
    et.manual_seed(5)
    assert et.binomial(et.full((50,), 40.0), et.full((50,), 0.5)).tolist() == first


def test_gradients_as_torch():
    r, rt = et.tensor([1.0, 20.0], requires_grad=True), torch.tensor([1.0, 20.0],
                                                                     requires_grad=True)
    s, st = et.poisson(r), torch.poisson(rt)
    assert s.requires_grad == st.requires_grad is True
    s.sum().backward()
    st.sum().backward()
    assert r.grad.tolist() == rt.grad.tolist() == [0.0, 0.0]
    c = et.tensor([10.0], requires_grad=True)
    assert et.binomial(c, et.tensor([0.5])).requires_grad is False


def test_errors_as_torch():
    with pytest.raises(RuntimeError):
        torch.poisson(torch.tensor([-1.0]))
    with pytest.raises(InvalidParameterError):
        et.poisson(et.tensor([-1.0]))
    with pytest.raises(RuntimeError):
        torch.poisson(torch.tensor([float("nan")]))
    with pytest.raises(InvalidParameterError):
        et.poisson(et.tensor([float("nan")]))
    with pytest.raises(NotImplementedError):
        torch.poisson(torch.tensor([1]))
    with pytest.raises(KindError):
        et.poisson(et.tensor([1]))
    with pytest.raises(ValueError):
        torch.binomial(torch.tensor([10]), torch.tensor([0.3]))
    with pytest.raises(KindError):
        et.binomial(et.tensor([10]), et.tensor([0.3]))
    with pytest.raises(RuntimeError):
        torch.binomial(torch.tensor([3.0]), torch.tensor([0.5], dtype=torch.float64))
    with pytest.raises(KindError):
        et.binomial(et.tensor([3.0]), et.tensor([0.5], dtype=et.float64))
    with pytest.raises(InvalidParameterError):
        et.binomial(et.tensor([3.0]), et.tensor([float("nan")]))


def test_infinite_parameters_give_nan():
    inf = float("inf")
    a = et.binomial(et.tensor([inf, 3.0]), et.tensor([0.5, 0.0]))
    b = torch.binomial(torch.tensor([inf, 3.0]), torch.tensor([0.5, 0.0]))
    # PyTorch's draw for an infinite count is nan or inf, by the state of its generator; ember's
    # is its documented nan
    assert np.isnan(a[0].item()) and not np.isfinite(b[0].item()) and a[1].item() == b[1].item()
    a = et.binomial(et.tensor([5.0, 3.0]), et.tensor([inf, -inf]))
    b = torch.binomial(torch.tensor([5.0, 3.0]), torch.tensor([inf, -inf]))
    assert a.tolist() == b.tolist()
    s = et.poisson(et.tensor([inf, 0.0]))  # PyTorch's is an undefined number here
    assert np.isnan(s[0].item()) and s[1].item() == 0.0
    with pytest.raises(InvalidParameterError):  # PyTorch's never returns for a NaN count
        et.binomial(et.tensor([float("nan")]), et.tensor([0.5]))
