"""ember.torch's reductions, scans and statistics against PyTorch: values, dtypes, shapes and
gradients, as functions and as Tensor methods."""

import warnings

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from math_oracle import check, rand

NAN = float("nan")


def with_nans(shape, seed=0):
    a = rand(shape, seed=seed)
    a[rand(shape, seed=seed + 7) > 0.6] = NAN
    return a


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1), -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_std(dim, keepdim):
    check(lambda m, x: m.std(x, dim, keepdim=keepdim), rand((3, 4)))
    check(lambda m, x: x.T.std(dim, keepdim=keepdim, correction=0), rand((4, 3)))
    check(lambda m, x: tuple(m.std_mean(x, dim, keepdim=keepdim)), rand((3, 4)))
    check(lambda m, x: m.std(x, axis=dim, unbiased=False), rand((3, 4)))


def test_std_forms():
    check(lambda m, x: m.std(x, False), rand((5,)))
    check(lambda m, x: x.std(), rand(()), grad=False)
    check(lambda m, x: m.std(x, 0), rand((0, 3)), grad=False)
    check(lambda m, x: m.std_mean(x, correction=2), rand((6,), "float64"))
    with pytest.raises(KindError):
        et.std(et.tensor([1, 2]))


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "float64"])
def test_sum_prod_mean_with_dtype(dtype):
    x = rand((3, 4), dtype)
    check(lambda m, x: m.sum(x), x)
    check(lambda m, x: x.sum(1, keepdim=True), x)
    check(lambda m, x: m.sum(x, (0, 1), dtype=m.float64), x)
    check(lambda m, x: x.sum(dim=0, dtype=m.int64), x, grad=False)
    check(lambda m, x: m.prod(x, 1, dtype=m.float64), x)
    check(lambda m, x: x.T.prod(0), x)
    check(lambda m, x: m.mean(x, 0, dtype=m.float64), x)
    check(lambda m, x: m.cumsum(x, 1), x)
    check(lambda m, x: x.cumsum(dim=0, dtype=m.float64), x)
    check(lambda m, x: m.cumprod(x, 0, dtype=m.float32), x)
    check(lambda m, x: x.T.cumprod(1), x)


def test_sums_of_0d_and_empty():
    check(lambda m, x: m.sum(x, 0), rand(()))
    check(lambda m, x: x.sum(dtype=m.float64), rand((0, 3)))
    check(lambda m, x: x.prod(1), rand((2, 0)))
    check(lambda m, x: m.cumsum(x, 0), rand(()))
    check(lambda m, x: m.cumsum(x, 1), rand((2, 0)))
    with pytest.raises(KindError):
        et.mean(et.tensor([1, 2]))


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
def test_nansum_nanmean(dim):
    x = with_nans((3, 4))
    check(lambda m, x: m.nansum(x, dim), x)
    check(lambda m, x: x.nansum(dim, keepdim=True), x)
    check(lambda m, x: m.nanmean(x, dim), x)
    check(lambda m, x: x.T.nanmean(dim, keepdim=True), x)
    check(lambda m, x: m.nansum(x, dim, dtype=m.float64), rand((3, 4), "int32"))
    check(lambda m, x: m.nansum(x), rand((3, 4), "int32"))


def test_nanmean_of_all_nan_rows():
    x = np.array([[NAN, NAN], [1.0, NAN]], np.float32)
    check(lambda m, x: m.nanmean(x, 1), x, grad=False)
    with pytest.raises(KindError):
        et.nanmean(et.tensor([1, 2]))


@pytest.mark.parametrize("dim", [(), 0, 1, (0, 2), -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin(dim, keepdim):
    check(lambda m, x: m.amax(x, dim, keepdim), rand((2, 3, 4)))
    check(lambda m, x: x.amin(dim, keepdim=keepdim), rand((2, 3, 4)))
    check(lambda m, x: x.transpose(0, 2).amax(dim, keepdim), rand((4, 3, 2), "int64"))


def test_aminmax():
    for kw in [{}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"keepdim": True}]:
        check(lambda m, x: tuple(m.aminmax(x, **kw)), rand((3, 4)))
        check(lambda m, x: tuple(x.aminmax(**kw)), rand((3, 4), "int32"))
    out = et.aminmax(et.tensor([3, 1, 2]))
    assert (out.min.item(), out.max.item()) == (1, 3)
    check(lambda m, x: tuple(m.aminmax(x)), rand(()))
    with pytest.raises(ShapeMismatchError):
        et.amax(et.ones(0, 3), 0)


@pytest.mark.parametrize("dim", [0, 1, (0, 1), -1])
def test_logsumexp(dim):
    check(lambda m, x: m.logsumexp(x, dim), rand((3, 4)) * 30)
    check(lambda m, x: x.T.logsumexp(dim, keepdim=True), rand((4, 3)))
    check(lambda m, x: m.logsumexp(x, dim), rand((3, 4), "int64"))


def test_logsumexp_edge_cases():
    inf = float("inf")
    x = np.array([[-inf, -inf], [inf, 1.0], [NAN, 0.0]], np.float32)
    check(lambda m, x: m.logsumexp(x, 1), x, grad=False)
    check(lambda m, x: m.logsumexp(x, 0), rand((0, 3)))
    check(lambda m, x: m.logsumexp(x, 0), rand(()))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_logcumsumexp(dim):
    check(lambda m, x: m.logcumsumexp(x, dim), rand((3, 4)) * 5, rtol=1e-5)
    check(lambda m, x: x.T.logcumsumexp(dim), rand((4, 3), "float64"))
    check(lambda m, x: m.logcumsumexp(x, 0), rand(()))
    check(lambda m, x: m.logcumsumexp(x, 0), rand((0, 2)))
    wide = np.array([[-200.0, 0.0, 50.0, -1e4, 3.0], [-90.0, -np.inf, 1.0, -np.inf, 2.0]],
                    np.float32)
    check(lambda m, x: m.logcumsumexp(x, 1), wide)
    leading = np.array([[-np.inf, -np.inf, 1.0, 2.0]], np.float32)  # PyTorch: NaN gradients
    check(lambda m, x: m.logcumsumexp(x, 1), leading, grad=False)
    x = et.tensor(leading, requires_grad=True)
    et.logcumsumexp(x, 1).sum().backward()
    assert x.grad.tolist()[0][:2] == [0.0, 0.0]
    check(lambda m, x: m.logcumsumexp(x, 1), (rand((2, 5)) + 1j * rand((2, 5), seed=1))
          .astype(np.complex64), grad=False)


def test_nanmedian():
    x = with_nans((4, 5))
    check(lambda m, x: m.nanmedian(x), x)
    check(lambda m, x: tuple(m.nanmedian(x, 1)), x)
    check(lambda m, x: tuple(x.T.nanmedian(0, keepdim=True)), x)
    check(lambda m, x: tuple(x.nanmedian(dim=0)), rand((4, 3), "int64"))
    allnan = np.array([[NAN, NAN], [1.0, NAN]], np.float32)
    check(lambda m, x: tuple(m.nanmedian(x, 1)), allnan, grad=False)
    check(lambda m, x: m.nanmedian(x), np.array([NAN], np.float32), grad=False)
    check(lambda m, x: m.nanmedian(x), rand((0,)), grad=False)
    check(lambda m, x: tuple(m.nanmedian(x, 0)), rand(()))
    assert et.nanmedian(et.tensor([[1.0, 2.0]]), 1).indices.tolist() == [0]


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile(interpolation):
    kw = dict(interpolation=interpolation)
    q = np.array([0.0, 0.25, 0.5, 0.9, 1.0], np.float32)
    check(lambda m, x: m.quantile(x, 0.3, **kw), rand((3, 4)))
    check(lambda m, x, q: m.quantile(x, q, 1, **kw), rand((3, 4)), q)
    check(lambda m, x, q: x.T.quantile(q, 0, keepdim=True, **kw), rand((4, 3)), q)
    check(lambda m, x: x.quantile(0.5, dim=-1, keepdim=True, **kw), rand((2, 3, 5), "float64"))
    check(lambda m, x, q: m.quantile(x, q, keepdim=True, **kw), rand((3, 4)), q)
    x = with_nans((4, 6))
    check(lambda m, x: m.quantile(x, 0.4, 1, **kw), x, grad=False)  # NaN rows: no gradient
    check(lambda m, x, q: m.nanquantile(x, q, 1, **kw), x, q)
    check(lambda m, x: x.nanquantile(0.7, **kw), x)


def test_quantile_edge_cases():
    check(lambda m, x: m.quantile(x, 0.5), rand(()))
    check(lambda m, x: m.quantile(x, 0.5, 0), rand(()))
    allnan = np.array([[NAN, NAN], [1.0, NAN]], np.float32)
    check(lambda m, x: m.nanquantile(x, 0.5, 1), allnan, grad=False)
    with pytest.raises(InvalidParameterError):
        et.quantile(et.ones(3), 1.5)
    with pytest.raises(KindError):
        et.quantile(et.tensor([1, 2]), 0.5)
    with pytest.raises(InvalidParameterError):
        et.quantile(et.ones(3), 0.5, interpolation="cubic")


def test_mode():
    x = rand((4, 7), "int64", low=0, high=3)
    check(lambda m, x: tuple(m.mode(x)), x)
    check(lambda m, x: tuple(x.mode(0, keepdim=True)), x)
    check(lambda m, x: tuple(x.T.mode(1)), x)
    f = rand((3, 6), "int64", low=0, high=3).astype(np.float32)
    check(lambda m, x: tuple(m.mode(x, 1)), f)
    check(lambda m, x: tuple(m.mode(x)), rand(()))
    check(lambda m, x: tuple(m.mode(x, 0)), rand((3, 0)))


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_diff(n):
    check(lambda m, x: m.diff(x, n), rand((3, 4)))
    check(lambda m, x: x.T.diff(n, dim=0), rand((3, 4)))
    check(lambda m, x, p, a: m.diff(x, n, 0, p, a), rand((3, 2)), rand((1, 2), seed=1),
          rand((2, 2), seed=2))
    check(lambda m, x: x.diff(n), rand((5,), "bool"))
    check(lambda m, x: m.diff(x, n, axis=0), rand((4, 2), "int32"))


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient(edge_order):
    kw = dict(edge_order=edge_order)
    check(lambda m, x: m.gradient(x, **kw), rand((4, 5)))
    check(lambda m, x: m.gradient(x, spacing=2.0, dim=1, **kw), rand((4, 5)))
    check(lambda m, x: m.gradient(x.T, spacing=[0.5, 3.0], **kw), rand((5, 4)))
    coords = np.cumsum(np.abs(rand((5,), seed=3)) + 0.1).astype(np.float32)
    check(lambda m, x, c: m.gradient(x, spacing=(c,), dim=0, **kw), rand((5, 3)), coords,
          rtol=1e-4, atol=1e-5)
    check(lambda m, x: m.gradient(x, **kw), rand((6,), "int64"))
    with pytest.raises(ShapeMismatchError):
        et.gradient(et.ones(2), edge_order=2)


def test_trapezoid_family():
    check(lambda m, y: m.trapezoid(y), rand((3, 4)))
    check(lambda m, y: m.trapezoid(y, dx=0.5, dim=0), rand((3, 4)))
    check(lambda m, y, x: m.trapezoid(y, x), rand((3, 4)), np.sort(rand((4,), seed=1)))
    check(lambda m, y, x: m.trapezoid(y, x, dim=0), rand((3, 4)), rand((3, 4), seed=1))
    check(lambda m, y: m.trapz(y.T, dx=2.0), rand((3, 4)))
    check(lambda m, y, x: m.trapz(y, x), rand((3, 4)), rand((4,), seed=1))
    check(lambda m, y: m.trapezoid(y), rand((3, 4), "int64"))
    check(lambda m, y: m.trapezoid(y), rand((3, 0)))
    check(lambda m, y: m.trapezoid(y), rand((3, 1)))
    check(lambda m, y: m.cumulative_trapezoid(y), rand((3, 4)))
    check(lambda m, y, x: m.cumulative_trapezoid(y, x, dim=0), rand((3, 4)), rand((3,), seed=1))
    check(lambda m, y: m.cumulative_trapezoid(y, dx=3.0), rand((3, 1)))
    with pytest.raises(ShapeMismatchError):
        et.trapezoid(et.ones(3), et.ones(4))


def test_cov_corrcoef():
    check(lambda m, x: m.cov(x), rand((3, 6)), rtol=1e-5, atol=1e-6)
    check(lambda m, x: x.T.cov(correction=0), rand((6, 3)), rtol=1e-5, atol=1e-6)
    check(lambda m, x: m.cov(x), rand((6,)))
    fw = rand((6,), "int64", low=0, high=4)
    aw = np.abs(rand((6,), seed=5)) + 0.1
    check(lambda m, x, a: m.cov(x, fweights=m.tensor(fw), aweights=a), rand((3, 6)), aw,
          rtol=1e-4, atol=1e-5)
    check(lambda m, x: m.cov(x, fweights=m.tensor(fw), correction=2), rand((2, 6)), rtol=1e-4)
    check(lambda m, x: m.cov(x), rand((2, 6), "int64"))
    check(lambda m, x: m.corrcoef(x), rand((3, 6)), rtol=1e-4, atol=1e-5)
    check(lambda m, x: x.corrcoef(), rand((6,)), grad=False)
    with pytest.raises(ShapeMismatchError):
        et.cov(et.ones(2, 3), fweights=et.ones(2, dtype=et.int64))
    with pytest.raises(KindError):
        et.cov(et.ones(2, 3), fweights=et.ones(3))


def test_argsort_msort():
    x = rand((4, 5), "int64", low=0, high=3)
    for kw in [{}, {"dim": 0}, {"descending": True}, {"stable": True, "dim": 0}]:
        check(lambda m, x: m.argsort(x, **kw), x)
        check(lambda m, x: x.T.argsort(**kw), x)
    check(lambda m, x: m.argsort(x, stable=True, descending=True), x)
    check(lambda m, x: m.msort(x), rand((4, 3)))
    check(lambda m, x: x.T.msort(), rand((4, 3)))
    check(lambda m, x: m.argsort(x, axis=0), rand((3, 2)))


@pytest.mark.parametrize("dtype", ["int64", "float32", "bool"])
def test_unique(dtype):
    x = rand((4, 5), dtype, low=0, high=4)
    if dtype == "float32":
        x = np.round(x)
    for inv in (False, True):
        for cnt in (False, True):
            kw = dict(return_inverse=inv, return_counts=cnt)
            check(lambda m, x: m.unique(x, **kw), x, grad=False)
            check(lambda m, x: x.T.unique(True, inv, cnt), x, grad=False)
            check(lambda m, x: m.unique(x, dim=1, **kw), x, grad=False)
            check(lambda m, x: m.unique_consecutive(x, **kw), x, grad=False)
            check(lambda m, x: x.unique_consecutive(dim=0, **kw), x, grad=False)
    rows = np.array([[1, 2], [0, 5], [1, 2], [0, 1]])
    check(lambda m, x: m.unique(x, dim=0, return_inverse=True, return_counts=True), rows)
    check(lambda m, x: m.unique_consecutive(x.repeat_interleave(2, 0), dim=0), rows)


def test_unique_edge_cases():
    kw = dict(return_inverse=True, return_counts=True)
    check(lambda m, x: m.unique(x, **kw), rand((0,)), grad=False)
    check(lambda m, x: m.unique(x, **kw), rand(()), grad=False)
    check(lambda m, x: m.unique_consecutive(x, **kw), rand((0, 3)), grad=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert sorted(et.unique(et.tensor([3, 1, 3]), sorted=False).tolist()) == [1, 3]
    with pytest.raises(InvalidParameterError):
        et.unique(et.ones(2), return_counts=1)


def test_axis_alias_of_functions():
    check(lambda m, x: tuple(m.std_mean(x, axis=1)), rand((3, 4)))
    check(lambda m, y: m.trapezoid(y, axis=0), rand((3, 4)))
    check(lambda m, y: m.trapz(y, axis=0), rand((3, 4)))
    check(lambda m, y: m.cumulative_trapezoid(y, axis=0), rand((3, 4)))
    check(lambda m, x: m.gradient(x, axis=1), rand((3, 4)))


def test_typed_errors():
    with pytest.raises(InvalidParameterError):
        et.sum(et.ones(2), dim=0, axis=0)
    with pytest.raises(InvalidParameterError):
        et.sum(et.ones(2), dtype="float64")
    with pytest.raises(IndexError):
        et.std(et.ones(2, 3), 2)
    with pytest.raises(KindError):
        et.amax([1, 2])
    assert torch.equal(torch.tensor(et.sum(et.ones(2, 3), axis=1).tolist()),
                       torch.ones(2, 3).sum(axis=1))


@pytest.mark.parametrize("name,call", [
    ("std", lambda m, x: m.std(x, 1).sum()),
    ("logsumexp", lambda m, x: m.logsumexp(x, 1).sum()),
    ("logcumsumexp", lambda m, x: (m.logcumsumexp(x, 1) ** 2).sum()),
    ("nanmean", lambda m, x: (m.nanmean(x, 0) ** 3).sum()),
    ("quantile", lambda m, x: (m.quantile(x, 0.3, 1) ** 2).sum()),
    ("amax", lambda m, x: (m.amax(x, 1) ** 3).sum()),
])
def test_second_order_gradients(name, call):
    from ember.autodiff import grad
    a = rand((3, 4), seed=11)
    second = grad(lambda x: grad(lambda y: call(et, y))(x).sum())(et.tensor(a))
    tx = torch.tensor(a, requires_grad=True)
    (g,) = torch.autograd.grad(call(torch, tx), [tx], create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(np.asarray(second.tolist()), tx.grad.numpy(), rtol=1e-4,
                               atol=1e-5)
