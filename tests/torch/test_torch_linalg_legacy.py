"""The linear algebra of the torch namespace with PyTorch's older conventions
(ember/torch/linalg_legacy.py) against torch 2.13: values, shapes, dtypes, gradients and errors,
as functions and as Tensor methods."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import EmberError, InvalidParameterError, ShapeMismatchError
from math_oracle import check

DTYPES = ["float32", "float64"]
TOL = {"float32": dict(rtol=2e-4, atol=2e-4), "float64": dict(rtol=1e-7, atol=1e-9)}


def spd(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal(shape)
    n = shape[-1]
    return (X @ np.swapaxes(X, -1, -2) + n * np.eye(n)).astype(dtype)


def tri(shape, dtype, upper, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal(shape) + 3 * np.eye(shape[-1])
    return (np.triu(X) if upper else np.tril(X)).astype(dtype)


def rand(shape, dtype, seed=2):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _sym(m, x):
    # PyTorch's Cholesky gradients are symmetrized: differentiate through a symmetric input
    return x @ x.mT + x.shape[-1] * m.eye(x.shape[-1], dtype=x.dtype)


def _tri(m, t, upper):
    return m.triu(t) if upper else m.tril(t)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 2, 2)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_family(dtype, shape, upper):
    X = rand(shape, dtype)
    check(lambda m, x: m.cholesky(_sym(m, x), upper=upper), X, **TOL[dtype])
    check(lambda m, x: _sym(m, x).cholesky(upper), X, **TOL[dtype])
    T = tri(shape, dtype, upper)
    check(lambda m, t: m.cholesky_inverse(_tri(m, t, upper), upper=upper), T, **TOL[dtype])
    check(lambda m, t: _tri(m, t, upper).cholesky_inverse(upper), T, **TOL[dtype])
    B = rand(shape[:-1] + (2,), dtype)
    check(lambda m, b, t: m.cholesky_solve(b, _tri(m, t, upper), upper=upper), B, T,
          **TOL[dtype])
    check(lambda m, b, t: b.cholesky_solve(_tri(m, t, upper), upper), B, T, **TOL[dtype])


def test_cholesky_solve_broadcasts_batches():
    T = tri((2, 1, 3, 3), "float64", False)
    B = rand((4, 3, 2), "float64")
    check(lambda m, b, t: m.cholesky_solve(b, m.tril(t)), B, T, **TOL["float64"])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 3), (2, 3, 4), (0, 2, 2)])
def test_lu_and_lu_unpack(dtype, shape):
    A = rand(shape, dtype)
    check(lambda m, a: m.lu(a), A, grad=False, **TOL[dtype])
    check(lambda m, a: a.lu(get_infos=True), A, grad=False, **TOL[dtype])
    check(lambda m, a: m.lu_unpack(*m.lu(a)), A, **TOL[dtype])
    check(lambda m, a: m.lu_unpack(*m.lu(a), unpack_data=False), A, grad=False, **TOL[dtype])
    check(lambda m, a: m.lu_unpack(*m.lu(a), unpack_pivots=False), A, grad=False,
          **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_lu_solve(dtype):
    A = rand((2, 3, 3), dtype) + 3 * np.eye(3, dtype=dtype)
    B = rand((2, 3, 2), dtype)
    check(lambda m, b, a: m.lu_solve(b, *m.lu(a)), B, A, **TOL[dtype])
    check(lambda m, b, a: b.lu_solve(*m.lu(a)), B, A, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_triangular_solve(dtype, upper, transpose, unitriangular):
    A = rand((2, 3, 3), dtype) + 3 * np.eye(3, dtype=dtype)  # both triangles filled: only one read
    B = rand((2, 3, 2), dtype)
    out = check(lambda m, b, a: m.triangular_solve(b, a, upper, transpose, unitriangular), B, A,
                **TOL[dtype])
    assert type(out).__name__ == "triangular_solve"
    assert out.solution is out[0] and out.cloned_coefficient is out[1]
    check(lambda m, b, a: b.triangular_solve(a, upper=upper, transpose=transpose), B, A,
          **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4), (3, 3)])
@pytest.mark.parametrize("some", [True, False])
def test_qr(dtype, shape, some):
    A = rand(shape, dtype)
    grad = some or shape[-2] <= shape[-1]  # PyTorch: no gradient of a complete Q of a tall A
    out = check(lambda m, a: m.qr(a, some=some), A, grad=grad, **TOL[dtype])
    assert out._fields == ("Q", "R")
    check(lambda m, a: a.qr(some), A, grad=grad, **TOL[dtype])


def _svd_invariant(m, a, some):
    U, S, V = m.svd(a, some=some)
    k = S.shape[-1]
    # the singular vectors' signs are not unique: compare U S V^H and |U|, |V|
    return U[..., :k] @ m.diag_embed(S) @ V[..., :k].mH, S, U.abs(), V.abs(), U.shape, V.shape


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4)])
@pytest.mark.parametrize("some", [True, False])
def test_svd_returns_v(dtype, shape, some):
    A = rand(shape, dtype)
    check(lambda m, a: _svd_invariant(m, a, some)[:2], A, **TOL[dtype])
    check(lambda m, a: _svd_invariant(m, a, some)[2:], A, grad=False, **TOL[dtype])
    U, S, V = et.svd(et.tensor(A), some=some)
    assert np.allclose((U[..., :S.shape[-1]] * S.unsqueeze(-2) @ V[..., :S.shape[-1]].mT)
                       .numpy(), A, atol=1e-4)
    check(lambda m, a: a.svd(compute_uv=False), A, grad=False, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 2, 2), (0, 3, 3)])
def test_matrix_exp(dtype, shape):
    A = rand(shape, dtype)
    check(lambda m, a: m.matrix_exp(a), A, **TOL[dtype])
    check(lambda m, a: a.matrix_exp(), A, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES + ["complex128"])
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 5, 2), (1, 1), (3, 0), (0, 3)])
def test_geqrf_orgqr(dtype, shape):
    A = rand(shape, dtype)
    if dtype == "complex128":
        A = A + 1j * rand(shape, "float64", seed=5)
    tol = TOL["float64" if dtype == "complex128" else dtype]
    check(lambda m, a: m.geqrf(a), A, grad=False, **tol)
    if shape[-2] >= shape[-1]:
        check(lambda m, a: m.orgqr(*m.geqrf(a)), A, grad=False, **tol)
        check(lambda m, a: a.geqrf()[0].orgqr(a.geqrf()[1]), A, grad=False, **tol)


def test_geqrf_of_columns_already_reduced():
    A = np.array([[2.0, 1.0], [0.0, 3.0], [0.0, 0.0]])  # tau = 0 for both columns
    check(lambda m, a: m.geqrf(a), A, grad=False)


def test_geqrf_gradient_reaches_r():
    # PyTorch has no derivative of geqrf; ember's is the derivative of its ops: R's gradient
    # agrees with torch.linalg.qr's (whose R is geqrf's: the same signs)
    A = rand((2, 4, 3), "float64")
    a = et.tensor(A, requires_grad=True)
    w = rand((2, 4, 3), "float64", seed=9)
    (et.triu(et.geqrf(a).a) * et.tensor(w)).sum().backward()
    t = torch.tensor(A, requires_grad=True)
    _, R = torch.linalg.qr(t)
    assert torch.allclose(R, torch.triu(torch.geqrf(t.detach()).a)[..., :3, :])
    (R * torch.tensor(w[..., :3, :])).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_ormqr(dtype, left, transpose):
    A = rand((2, 4, 3), dtype)
    C = rand((2, 4, 2) if left else (2, 2, 4), dtype)
    check(lambda m, a, c: m.ormqr(*m.geqrf(a), c, left, transpose), A, C, grad=False,
          **TOL[dtype])
    check(lambda m, a, c: m.geqrf(a)[0].ormqr(m.geqrf(a)[1], c, left=left,
                                               transpose=transpose), A, C, grad=False,
          **TOL[dtype])


def test_results_are_torch_tensors_and_namedtuples():
    A = et.tensor(spd((3, 3), "float64"))
    assert type(et.cholesky(A)) is et.Tensor
    assert type(et.svd(A)).__name__ == "svd" and et.svd(A)._fields == ("U", "S", "V")
    assert et.geqrf(A)._fields == ("a", "tau")
    assert et.lu_unpack(*et.lu(A))._fields == ("P", "L", "U")
    assert isinstance(et.lu(A), tuple) and len(et.lu(A)) == 2


def test_errors():
    A = et.tensor(spd((3, 3), "float64"))
    with pytest.raises(InvalidParameterError):
        et.cholesky(A, upper="yes")
    with pytest.raises(InvalidParameterError):
        et.svd(A, some=None)
    with pytest.raises(EmberError):
        et.cholesky(et.ones(3))
    with pytest.raises(ShapeMismatchError):
        et.cholesky_solve(et.ones(3), A)
    with pytest.raises(ShapeMismatchError):
        et.ormqr(A, et.ones(3, dtype=et.float64), et.ones(2, 2, dtype=et.float64))
    with pytest.raises(ShapeMismatchError):
        et.lu_unpack(A, et.tensor([1, 2], dtype=et.int32))
    with pytest.raises(RuntimeError):  # PyTorch raises a RuntimeError too (LinAlgError)
        et.cholesky(-A)
    with pytest.raises(RuntimeError):
        torch.cholesky(-torch.tensor(A.numpy()))
