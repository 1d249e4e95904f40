"""ember.torch's products (mm, bmm, add*, kron, tensordot, cdist ...) against PyTorch: values,
dtypes, shapes and gradients, as functions and as Tensor methods."""

import warnings

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from math_oracle import check, rand


@pytest.mark.parametrize("a,b", [((2, 3), (3, 4)), ((0, 3), (3, 2)), ((2, 0), (0, 3))])
def test_mm(a, b):
    check(lambda m, x, y: m.mm(x, y), rand(a), rand(b, seed=1))
    check(lambda m, x, y: x.mm(y), rand(a), rand(b, seed=1))
    check(lambda m, x, y: m.mm(x.T, y.T), rand(a[::-1]), rand(b[::-1], seed=1))


def test_mm_ints_and_mixed_dtypes():
    check(lambda m, x, y: m.mm(x, y), rand((2, 3), "int64"), rand((3, 2), "int64"))
    check(lambda m, x, y: m.mm(x, y), rand((2, 3), "float64"), rand((3, 2), "float64"))


def test_mm_bad_shapes():
    with pytest.raises(ShapeMismatchError):
        et.mm(et.ones(2, 3), et.ones(2, 3))
    with pytest.raises(ShapeMismatchError):
        et.mm(et.ones(3), et.ones(3, 2))
    with pytest.raises(KindError):
        et.mm([[1.0]], et.ones(1, 1))


def test_bmm_mv():
    check(lambda m, x, y: m.bmm(x, y), rand((2, 3, 4)), rand((2, 4, 5), seed=1))
    check(lambda m, x, y: x.bmm(y.transpose(1, 2)), rand((2, 3, 4)), rand((2, 5, 4), seed=1))
    check(lambda m, x, y: m.mv(x, y), rand((3, 4)), rand((4,), seed=1))
    check(lambda m, x, y: x.T.mv(y), rand((4, 3)), rand((4,), seed=1))
    with pytest.raises(ShapeMismatchError):
        et.bmm(et.ones(2, 3, 4), et.ones(3, 4, 5))
    with pytest.raises(ShapeMismatchError):
        et.mv(et.ones(2, 3), et.ones(2))


@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 1.5)])
def test_add_products(beta, alpha):
    kw = dict(beta=beta, alpha=alpha)
    check(lambda m, i, x, y: m.addmm(i, x, y, **kw), rand((4,)), rand((3, 2), seed=1),
          rand((2, 4), seed=2))
    check(lambda m, i, x, y: i.addmm(x, y, **kw), rand((3, 4)), rand((3, 2), seed=1),
          rand((2, 4), seed=2))
    check(lambda m, i, x, y: m.addmv(i, x, y, **kw), rand((3,)), rand((3, 2), seed=1),
          rand((2,), seed=2))
    check(lambda m, i, x, y: m.baddbmm(i, x, y, **kw), rand((1, 4)), rand((2, 3, 2), seed=1),
          rand((2, 2, 4), seed=2))
    check(lambda m, i, x, y: i.addbmm(x, y, **kw), rand((3, 4)), rand((2, 3, 2), seed=1),
          rand((2, 2, 4), seed=2))
    check(lambda m, i, x, y: m.addr(i, x, y, **kw), rand((3, 2)), rand((3,), seed=1),
          rand((2,), seed=2))


def test_addmm_beta_zero_ignores_nan():
    i = np.full((2, 2), np.nan, np.float32)
    check(lambda m, i, x, y: m.addmm(i, x, y, beta=0), i, rand((2, 3)), rand((3, 2), seed=1))
    with pytest.raises(ShapeMismatchError):
        et.addmm(et.ones(3, 3), et.ones(2, 2), et.ones(2, 2))


def test_vector_products():
    check(lambda m, x, y: m.vdot(x, y), rand((5,)), rand((5,), seed=1))
    check(lambda m, x, y: x.vdot(y), rand((0,)), rand((0,), seed=1))
    check(lambda m, x, y: m.ger(x, y), rand((3,)), rand((2,), seed=1))
    check(lambda m, x, y: x.ger(y), rand((3,)), rand((0,), seed=1))
    for a, b in [((2, 3), (4, 3)), ((3,), (3,)), ((), (2, 3)), ((2, 1, 3), (3,))]:
        check(lambda m, x, y: m.inner(x, y), rand(a), rand(b, seed=1))
        check(lambda m, x, y: x.inner(y), rand(a), rand(b, seed=1))
    with pytest.raises(ShapeMismatchError):
        et.inner(et.ones(2, 3), et.ones(2))
    with pytest.raises(KindError):
        et.vdot(et.ones(2), et.ones(2, dtype=et.float64))


def test_chain_matmul_kron_tensordot():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda m, a, b, c: m.chain_matmul(a, b, c), rand((2, 3)), rand((3, 4), seed=1),
              rand((4, 2), seed=2))
        check(lambda m, a: m.chain_matmul(a), rand((2, 3)))
    for a, b in [((2, 3), (2, 2)), ((2,), (3, 2)), ((), (2,)), ((2, 0), (1, 2))]:
        check(lambda m, x, y: m.kron(x, y), rand(a), rand(b, seed=1))
    check(lambda m, x, y: x.kron(y), rand((2, 2), "int64"), rand((2,), "int64"))
    check(lambda m, x, y: m.tensordot(x, y, dims=2), rand((2, 3, 4)), rand((3, 4, 5), seed=1))
    check(lambda m, x, y: m.tensordot(x, y, 0), rand((2,)), rand((3,), seed=1))
    check(lambda m, x, y: m.tensordot(x, y, dims=([0, 2], [2, 0])), rand((2, 3, 4)),
          rand((4, 5, 2), seed=1))
    check(lambda m, x, y: m.tensordot(x.T, y, dims=1), rand((3, 2)), rand((3, 2), seed=1))
    with pytest.raises(ShapeMismatchError):
        et.tensordot(et.ones(2, 3), et.ones(2, 3), dims=1)
    with pytest.raises(InvalidParameterError):
        et.tensordot(et.ones(2, 3), et.ones(3), dims=3)


def test_cross():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda m, x, y: m.cross(x, y), rand((3, 3)), rand((3, 3), seed=1))
        check(lambda m, x, y: x.cross(y), rand((2, 3, 4)), rand((2, 3, 4), seed=1))
    check(lambda m, x, y: m.cross(x, y, dim=0), rand((3, 3)), rand((3, 3), seed=1))
    check(lambda m, x, y: x.cross(y, dim=-1), rand((2, 3)), rand((1, 3), seed=1))
    with pytest.raises(ShapeMismatchError):
        et.cross(et.ones(2, 3), et.ones(2, 3), dim=0)


def test_grids_of_elements():
    check(lambda m, x, y, z: m.cartesian_prod(x, y, z), rand((2,)), rand((3,), seed=1),
          rand((2,), seed=2))
    check(lambda m, x: m.cartesian_prod(x), rand((3,)))
    check(lambda m, x, y: m.cartesian_prod(x, y), rand((2,), "int64"), rand((0,), "int64"))
    for r in (0, 1, 2, 3, 5):
        for rep in (False, True):
            check(lambda m, x: m.combinations(x, r, rep), rand((4,)))
    check(lambda m, x: m.combinations(x), rand((1,), "int64"))
    check(lambda m, a, b, c: m.block_diag(a, b, c), rand((2, 3)), rand((), seed=1),
          rand((2,), seed=2))
    check(lambda m, a, b: m.block_diag(a, b.T), rand((2, 0)), rand((3, 1), seed=1))
    check(lambda m, a, b: m.block_diag(a, b), rand((1, 2), "int64"), rand((2, 1), "float64"))
    with pytest.raises(ShapeMismatchError):
        et.block_diag(et.ones(1, 1, 1))


def test_trace_and_triangle_indices():
    for shape in [(3, 3), (2, 4), (4, 2), (0, 3)]:
        check(lambda m, x: m.trace(x), rand(shape))
        check(lambda m, x: x.T.trace(), rand(shape))
    check(lambda m, x: x.trace(), rand((3, 3), "int32"))
    with pytest.raises(ShapeMismatchError):
        et.trace(et.ones(3))
    for args in [(3, 3), (3, 4, 1), (4, 3, -1), (0, 2), (3, 3, 5), (3, 3, -5)]:
        for f in ("tril_indices", "triu_indices"):
            check(lambda m: getattr(m, f)(*args))
            check(lambda m: getattr(m, f)(*args, dtype=m.int32))
    with pytest.raises(InvalidParameterError):
        et.tril_indices(-1, 2)


def test_linalg_methods():
    a = rand((2, 3, 3)) + 3 * np.eye(3, dtype=np.float32)
    for f in ("det", "logdet", "inverse", "pinverse"):
        check(lambda m, x: getattr(m, f)(x), a, rtol=1e-4, atol=1e-5)
        check(lambda m, x: getattr(x.mT, f)(), a, rtol=1e-4, atol=1e-5)
    check(lambda m, x: tuple(m.slogdet(x)), a, rtol=1e-4, atol=1e-5)
    check(lambda m, x: tuple(x.slogdet()), rand((3, 3)), rtol=1e-4, atol=1e-5)
    check(lambda m, x: m.logdet(x), -np.eye(2, dtype=np.float32)[::-1].copy(), grad=False)
    for n in (0, 1, 3, -2):
        check(lambda m, x: x.matrix_power(n), a, rtol=1e-4, atol=1e-4)
    check(lambda m, x: m.matrix_power(x, 2), rand((3, 3), "int64"))
    out = et.slogdet(et.eye(2))
    assert out.sign.item() == 1.0 and out.logabsdet.item() == 0.0


@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, 3, float("inf")])
def test_distances(p):
    check(lambda m, x, y: m.cdist(x, y, p), rand((3, 4)), rand((5, 4), seed=1), rtol=1e-4)
    check(lambda m, x, y: m.cdist(x, y, p=p), rand((2, 3, 4)), rand((1, 5, 4), seed=1),
          rtol=1e-4)
    check(lambda m, x: m.pdist(x, p), rand((4, 3)), rtol=1e-4)
    check(lambda m, x, y: m.dist(x, y, p), rand((3, 4)), rand((4,), seed=1), rtol=1e-4)
    check(lambda m, x, y: x.T.dist(y, p), rand((4, 3)), rand((3, 4), seed=1), rtol=1e-4)


def test_distances_edge_cases():
    check(lambda m, x, y: m.cdist(x, y, 0), rand((3, 4)), rand((5, 4), seed=1), grad=False)
    check(lambda m, x: m.pdist(x), rand((1, 3)))
    check(lambda m, x, y: m.cdist(x, y), rand((0, 4)), rand((2, 4), seed=1))
    with pytest.raises(ShapeMismatchError):
        et.cdist(et.ones(2, 3), et.ones(2, 4))
    with pytest.raises(InvalidParameterError):
        et.pdist(et.ones(2, 3), -1)
    with pytest.raises(KindError):
        et.cdist(et.ones(2, 3, dtype=et.int64), et.ones(2, 3, dtype=et.int64))


@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 1.0), (1, 1, 2.0), (3, -1, 0.5), (2, 1, 100.0)])
def test_renorm(p, dim, maxnorm):
    check(lambda m, x: m.renorm(x, p, dim, maxnorm), rand((3, 4)), rtol=1e-4, atol=1e-5)
    check(lambda m, x: x.transpose(0, 1).renorm(p, dim, maxnorm), rand((2, 3, 4)), rtol=1e-4,
          atol=1e-5)
    with pytest.raises(DimensionError):
        et.renorm(et.ones(3), p, 0, maxnorm)
    with pytest.raises(InvalidParameterError):
        et.renorm(et.ones(3, 3), p, 0, -1.0)


def test_addcmul_addcdiv():
    for value in (1, 0.5, -2):
        check(lambda m, i, a, b: m.addcmul(i, a, b, value=value), rand((3, 1)),
              rand((4,), seed=1), rand((3, 4), seed=2))
        check(lambda m, i, a, b: i.addcdiv(a, b, value=value), rand((3, 4)),
              rand((4,), seed=1), rand((3, 4), seed=2) + 5)
    check(lambda m, i, a, b: m.addcmul(i, a, b, value=2), rand((3,), "int64"),
          rand((3,), "int64"), rand((3,), "int64"))
    with pytest.raises(KindError):
        et.addcdiv(et.ones(2), et.ones(2, dtype=et.int64), et.ones(2, dtype=et.int64))
    with pytest.raises(ShapeMismatchError):
        et.addcmul(et.ones(2), et.ones(3), et.ones(2))


def test_second_order_gradient_through_mm():
    from ember.autodiff import grad
    f = lambda x: (et.mm(x, x) ** 2).sum()  # noqa: E731
    hess_diag = grad(lambda x: grad(f)(x).sum())(et.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tx = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (tg,) = torch.autograd.grad((torch.mm(tx, tx) ** 2).sum(), [tx], create_graph=True)
    tg.sum().backward()
    np.testing.assert_allclose(np.asarray(hess_diag.tolist()), tx.grad.numpy(), rtol=1e-5)


@pytest.mark.parametrize("call", [
    # PyTorch's cdist has a second derivative only on its matmul path
    lambda m, x: (m.cdist(x, x.flip(0) + 1.0, compute_mode="use_mm_for_euclid_dist") ** 3).sum(),
    lambda m, x: (m.renorm(x, 2, 0, 1.0) ** 3).sum(),
    lambda m, x: (m.addcdiv(x, x, x * x + 2.0, value=0.5) ** 2).sum(),
    lambda m, x: m.kron(x, x).pow(2).sum(),
    lambda m, x: m.logdet(m.mm(x.T, x) + m.eye(4)),
])
def test_second_order_gradients(call):
    from ember.autodiff import grad
    a = rand((3, 4), seed=5)
    second = grad(lambda x: grad(lambda y: call(et, y))(x).sum())(et.tensor(a))
    tx = torch.tensor(a, requires_grad=True)
    (g,) = torch.autograd.grad(call(torch, tx), [tx], create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(np.asarray(second.tolist()), tx.grad.numpy(), rtol=1e-4,
                               atol=1e-4)
