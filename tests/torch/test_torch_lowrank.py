"""ember/torch/lowrank.py against torch 2.13: svd_lowrank, pca_lowrank (reconstruction, shapes,
and with many iterations the singular values and vectors of torch, up to sign) and lobpcg
(the eigen-equation, PyTorch's eigenvalues and order, generalized problems, batches,
gradients)."""

import numpy as np
import pytest
import torch

import ember.torch as et
from ember.errors import InvalidParameterError, KindError, ShapeMismatchError
from oracle import assert_close


def _low_rank(m, n, rank, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))


def _gapped(m, n, values, seed=0):
    """A matrix with the given leading singular values and a small tail (a clear gap)."""
    rng = np.random.default_rng(seed)
    k = min(m, n)
    u, _ = np.linalg.qr(rng.standard_normal((m, k)))
    v, _ = np.linalg.qr(rng.standard_normal((n, k)))
    s = np.concatenate([values, 0.01 * np.ones(k - len(values))])
    return (u * s) @ v.T


@pytest.mark.parametrize("m,n,rank,q", [(12, 5, 3, 3), (5, 12, 2, 4), (10, 10, 6, 6),
                                        (8, 4, 4, 6)])
def test_svd_lowrank_reconstructs_a_low_rank_matrix(m, n, rank, q):
    A = _low_rank(m, n, rank)
    U, S, V = et.svd_lowrank(et.tensor(A), q=q)
    Ut, St, Vt = torch.svd_lowrank(torch.tensor(A), q=q)
    assert tuple(U.shape) == tuple(Ut.shape) and tuple(S.shape) == tuple(St.shape)
    assert tuple(V.shape) == tuple(Vt.shape) and U.dtype.name == "float64"
    np.testing.assert_allclose((U @ et.diag(S) @ V.T).numpy(), A, atol=1e-9)
    np.testing.assert_allclose((U.T @ U).numpy(), np.eye(U.shape[-1]), atol=1e-9)


def test_svd_lowrank_with_many_iterations_matches_torch_up_to_sign():
    A = _gapped(15, 8, [9.0, 5.0, 2.0])
    U, S, V = et.svd_lowrank(et.tensor(A), q=3, niter=20)
    Ut, St, Vt = torch.svd_lowrank(torch.tensor(A), q=3, niter=20)
    assert_close(S, St, rtol=1e-7, atol=1e-7)
    signs = np.sign((U.numpy() * Ut.numpy()).sum(0))
    np.testing.assert_allclose(U.numpy() * signs, Ut.numpy(), atol=1e-6)
    np.testing.assert_allclose(V.numpy() * signs, Vt.numpy(), atol=1e-6)


def test_svd_lowrank_with_M_and_batches():
    A = _low_rank(9, 4, 2) + 3.0
    M = np.full((1, 4), 3.0)
    U, S, V = et.svd_lowrank(et.tensor(A), q=2, M=et.tensor(M))
    np.testing.assert_allclose((U @ et.diag(S) @ V.T).numpy(), A - M, atol=1e-9)
    B = np.stack([_low_rank(8, 5, 2, seed=s) for s in range(3)]).reshape(3, 1, 8, 5)
    U, S, V = et.svd_lowrank(et.tensor(B), q=2)
    assert tuple(U.shape) == (3, 1, 8, 2) and tuple(S.shape) == (3, 1, 2)
    rebuilt = U @ (S.unsqueeze(-1) * V.transpose(-2, -1))
    np.testing.assert_allclose(rebuilt.numpy(), B, atol=1e-9)


def test_svd_lowrank_gradient_of_the_singular_values_matches_torch():
    A = _gapped(10, 6, [7.0, 3.0])
    Ae, At = et.tensor(A, requires_grad=True), torch.tensor(A, requires_grad=True)
    et.svd_lowrank(Ae, q=2, niter=10)[1].sum().backward()
    torch.svd_lowrank(At, q=2, niter=10)[1].sum().backward()
    np.testing.assert_allclose(Ae.grad.numpy(), At.grad.numpy(), atol=1e-5)


@pytest.mark.parametrize("center", [True, False])
def test_pca_lowrank(center):
    A = _gapped(20, 6, [8.0, 4.0, 2.0, 1.0], seed=3) + 1.5
    U, S, V = et.pca_lowrank(et.tensor(A), q=4, center=center, niter=20)
    Ut, St, Vt = torch.pca_lowrank(torch.tensor(A), q=4, center=center, niter=20)
    assert_close(S, St, rtol=1e-6, atol=1e-6)
    C = A - A.mean(0) if center else A
    approx = (U @ et.diag(S) @ V.T).numpy()
    best = (Ut @ torch.diag(St) @ Vt.T).numpy()
    np.testing.assert_allclose(np.linalg.norm(C - approx), np.linalg.norm(C - best), rtol=1e-6)
    U, S, V = et.pca_lowrank(et.tensor(A))
    Ut, St, Vt = torch.pca_lowrank(torch.tensor(A))
    assert tuple(U.shape) == tuple(Ut.shape) and tuple(V.shape) == tuple(Vt.shape)


def test_lowrank_errors():
    A = et.ones(10, 4)
    with pytest.raises(ValueError):
        torch.pca_lowrank(torch.ones(10, 4), q=7)
    with pytest.raises(InvalidParameterError):
        et.pca_lowrank(A, q=7)
    with pytest.raises(InvalidParameterError):
        et.svd_lowrank(A, q=-1)
    with pytest.raises(ShapeMismatchError):
        et.svd_lowrank(et.ones(3))
    with pytest.raises(KindError):
        et.svd_lowrank(et.ones(3, 3, dtype=et.int64))
    with pytest.raises(KindError):
        et.pca_lowrank(A, center=1)


def _spd(m, seed=0):
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((m, m))
    return M @ M.T


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_lobpcg_eigenpairs_as_torch(largest, k):
    A = _spd(12)
    E, X = et.lobpcg(et.tensor(A), k=k, largest=largest, niter=300)
    Et, Xt = torch.lobpcg(torch.tensor(A), k=k, largest=largest, niter=300)
    assert_close(E, Et, rtol=1e-7, atol=1e-7)
    assert tuple(X.shape) == tuple(Xt.shape)
    residual = A @ X.numpy() - X.numpy() * E.numpy()
    assert np.abs(residual).max() < 1e-6 * np.linalg.norm(A, 2)
    np.testing.assert_allclose(np.abs((X.numpy() * Xt.numpy()).sum(0)), 1.0, atol=1e-6)


def test_lobpcg_generalized_with_an_initial_guess_and_preconditioner():
    A = _spd(12)
    B = np.eye(12) * 2 + 0.1 * np.ones((12, 12))
    X0 = np.random.default_rng(4).standard_normal((12, 3))
    E, X = et.lobpcg(et.tensor(A), k=2, B=et.tensor(B), X=et.tensor(X0), niter=300)
    Et, Xt = torch.lobpcg(torch.tensor(A), k=2, B=torch.tensor(B), X=torch.tensor(X0),
                          niter=300)
    assert_close(E, Et, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose((X.T @ et.tensor(B) @ X).numpy(), np.eye(2), atol=1e-8)
    np.testing.assert_allclose(A @ X.numpy(), B @ X.numpy() * E.numpy(), atol=1e-4)
    iK = np.diag(1 / np.diag(A))
    E2, _ = et.lobpcg(et.tensor(A), k=2, iK=et.tensor(iK), niter=300)
    assert_close(E2, torch.linalg.eigvalsh(torch.tensor(A)).flip(0)[:2], rtol=1e-7)


def test_lobpcg_batches_and_float32():
    A = np.stack([_spd(12, s) for s in range(2)])
    E, X = et.lobpcg(et.tensor(A), k=2, niter=300)
    Et, _ = torch.lobpcg(torch.tensor(A), k=2, niter=300)
    assert tuple(X.shape) == (2, 12, 2)
    assert_close(E, Et, rtol=1e-7, atol=1e-7)
    E, X = et.lobpcg(et.tensor(_spd(12).astype("float32")), k=1)
    Et, _ = torch.lobpcg(torch.tensor(_spd(12).astype("float32")), k=1)
    assert_close(E, Et, rtol=1e-3, atol=1e-3)


def test_lobpcg_gradient_of_the_eigenvalues_as_torch():
    A = _spd(12)
    Ae, At = et.tensor(A, requires_grad=True), torch.tensor(A, requires_grad=True)
    et.lobpcg(Ae, k=2, niter=300)[0].sum().backward()
    torch.lobpcg(At, k=2, niter=300)[0].sum().backward()
    np.testing.assert_allclose(Ae.grad.numpy(), At.grad.numpy(), atol=1e-6)


def test_lobpcg_tracker_and_errors():
    steps = []
    et.lobpcg(et.tensor(_spd(12)), k=1, tracker=lambda s: steps.append(s.ivars["istep"]))
    assert steps and steps == list(range(len(steps)))
    with pytest.raises(ValueError):
        torch.lobpcg(torch.tensor(_spd(12)), k=5)
    with pytest.raises(InvalidParameterError, match="3 x"):
        et.lobpcg(et.tensor(_spd(12)), k=5)
    with pytest.raises(ShapeMismatchError):
        et.lobpcg(et.ones(3, 4))
    with pytest.raises(InvalidParameterError):
        et.lobpcg(et.tensor(_spd(12)), method="fast")
    with pytest.raises(InvalidParameterError):
        et.lobpcg(et.tensor(_spd(12)), tol=-1.0)
