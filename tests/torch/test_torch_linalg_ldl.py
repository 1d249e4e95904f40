"""ember/torch/linalg_ldl.py against torch 2.13: ldl_factor, ldl_factor_ex and ldl_solve give
torch's LD, pivots and info exactly (LAPACK's Bunch-Kaufman pivoting) on random symmetric
matrices, batches and singular ones, and ldl_solve torch's solutions; ember's are also
differentiable (torch's are not): their gradients are those of linalg.solve."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from oracle import assert_close


def _matrices(count=60, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(rng.integers(1, 9))
        A = rng.standard_normal((n, n))
        if i % 3 == 0:
            A = A + A.T
        if i % 4 == 0:  # small diagonals force the 2x2 and swapped pivots
            np.fill_diagonal(A, rng.standard_normal(n) * 0.01)
        out.append(A)
    return out


@pytest.mark.parametrize("case", range(60))
def test_ldl_factor_matches_lapack_exactly(case):
    A = _matrices()[case]
    LD, piv = et.linalg.ldl_factor(et.tensor(A))
    LDt, pivt = torch.linalg.ldl_factor(torch.tensor(A))
    assert_close(LD, LDt, rtol=1e-10, atol=1e-10)
    assert_close(piv, pivt)
    B = np.random.default_rng(case).standard_normal((A.shape[0], 3))
    assert_close(et.linalg.ldl_solve(LD, piv, et.tensor(B)),
                 torch.linalg.ldl_solve(LDt, pivt, torch.tensor(B)), rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("n", [0, 1, 2, 70])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sizes_and_dtypes(n, dtype):
    A = np.random.default_rng(n).standard_normal((n, n)).astype(dtype)
    A = A + A.T
    LD, piv = et.linalg.ldl_factor(et.tensor(A))
    LDt, pivt = torch.linalg.ldl_factor(torch.tensor(A))
    tol = 1e-4 if dtype == "float32" else 1e-10
    assert_close(LD, LDt, rtol=tol, atol=tol)
    assert_close(piv, pivt)


def test_batches_and_the_ex_variant():
    A = np.random.default_rng(5).standard_normal((2, 3, 4, 4))
    out, out_t = et.linalg.ldl_factor_ex(et.tensor(A)), torch.linalg.ldl_factor_ex(torch.tensor(A))
    for field in ("LD", "pivots", "info"):
        assert_close(getattr(out, field), getattr(out_t, field), rtol=1e-10, atol=1e-10)
    B = np.random.default_rng(6).standard_normal((3, 4, 2))  # broadcast against the batch
    assert_close(et.linalg.ldl_solve(out.LD, out.pivots, et.tensor(B)),
                 torch.linalg.ldl_solve(out_t.LD, out_t.pivots, torch.tensor(B)),
                 rtol=1e-8, atol=1e-8)
    named, named_t = et.linalg.ldl_factor(et.tensor(A)), torch.linalg.ldl_factor(torch.tensor(A))
    assert_close(named.LD, named_t.LD, rtol=1e-10, atol=1e-10)
    assert_close(named.pivots, named_t.pivots)


def test_singular_matrices():
    Z = np.zeros((3, 3))
    for a, b in zip(et.linalg.ldl_factor_ex(et.tensor(Z)),
                    torch.linalg.ldl_factor_ex(torch.tensor(Z))):
        assert_close(a, b)
    S = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 0.0]])
    for a, b in zip(et.linalg.ldl_factor_ex(et.tensor(S)),
                    torch.linalg.ldl_factor_ex(torch.tensor(S))):
        assert_close(a, b)
    with pytest.raises(et.linalg.LinAlgError):
        et.linalg.ldl_factor(et.tensor(Z))
    with pytest.raises(et.linalg.LinAlgError):
        et.linalg.ldl_factor_ex(et.tensor(Z), check_errors=True)


def test_reconstruction_from_the_factors():
    # A = P1 L1 P2 L2 ... D ... L2^T P2 L1^T P1 (the steps' swaps and unit block columns)
    A = _matrices()[8]
    A = np.tril(A) + np.tril(A, -1).T
    LD, piv = et.linalg.ldl_factor(et.tensor(A))
    n = A.shape[0]
    X = et.linalg.ldl_solve(LD, piv, et.eye(n, dtype=et.float64))
    np.testing.assert_allclose(X.numpy() @ A, np.eye(n), atol=1e-8)


def test_gradients_are_those_of_solve():
    rng = np.random.default_rng(9)
    A = rng.standard_normal((5, 5))
    np.fill_diagonal(A, 0.01)
    A = A + A.T
    B = rng.standard_normal((5, 2))
    Ae, Be = et.tensor(A, requires_grad=True), et.tensor(B, requires_grad=True)
    LD, piv = et.linalg.ldl_factor(Ae)
    et.linalg.ldl_solve(LD, piv, Be).pow(2).sum().backward()
    At, Bt = torch.tensor(A, requires_grad=True), torch.tensor(B, requires_grad=True)
    sym = torch.tril(At) + torch.tril(At, -1).T  # ldl reads the lower triangle
    torch.linalg.solve(sym, Bt).pow(2).sum().backward()
    assert_close(Ae.grad, At.grad, rtol=1e-7, atol=1e-7)
    assert_close(Be.grad, Bt.grad, rtol=1e-7, atol=1e-7)


def test_errors():
    with pytest.raises(ShapeMismatchError):
        et.linalg.ldl_factor(et.ones(2, 3))
    with pytest.raises(KindError):
        et.linalg.ldl_factor(et.ones(2, 2, dtype=et.int64))
    LD, piv = et.linalg.ldl_factor(et.eye(3))
    with pytest.raises(ShapeMismatchError):
        et.linalg.ldl_solve(LD, piv, et.ones(2, 1))
    with pytest.raises(KindError):
        et.linalg.ldl_solve(LD, piv.float(), et.ones(3, 1))
    with pytest.raises(InvalidParameterError):
        et.linalg.ldl_solve(LD, piv * 0, et.ones(3, 1))
    with pytest.raises(KindError):
        et.linalg.ldl_solve(LD, piv, et.ones(3, 1, dtype=et.float64))
    with pytest.raises(KindError):
        et.linalg.ldl_factor(et.eye(2), hermitian=1)
