"""Tests of ember/ops/decompositions.py (ember.linalg inv, det, solve, svd, svdvals, qr, cholesky,
eigh) against torch.linalg: values, shapes, dtypes, gradients, errors."""

import doctest

import numpy as np
import pytest
import torch

import ember
from ember.ops import decompositions
from oracle import assert_close, assert_unchanged, ember_tensor, layouts, snapshot, to_torch

L = ember.linalg
SQUARE = [(3, 3), (1, 1), (2, 4, 4), (2, 1, 3, 3), (0, 3, 3), (0, 0), (3, 0, 0)]
RECT = [(3, 3), (4, 2), (2, 5), (2, 3, 4), (2, 4, 3), (1, 1), (0, 3), (3, 0), (2, 0, 3)]


def _well_conditioned(rng, shape, dtype="float64"):
    """Random square matrices with a dominant diagonal (safely invertible)."""
    a = rng.standard_normal(shape)
    if shape[-1]:
        a = a + 3 * np.eye(shape[-1]) * np.sign(rng.standard_normal(shape[:-1]))[..., None]
    return a.astype(dtype)


def _spd(rng, shape, dtype="float64"):
    a = rng.standard_normal(shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _grads(fn_e, fn_t, arrays, rng, tol=1e-8):
    """ember's gradients of ``sum(seed * fn(*arrays))`` equal torch.autograd's (float64)."""
    xs = [ember_tensor(np.array(a, copy=True), requires_grad=True) for a in arrays]
    ts = [torch.from_numpy(np.array(a, copy=True)).requires_grad_(True) for a in arrays]
    out, tout = fn_e(*xs), fn_t(*ts)
    assert_close(out, tout, rtol=tol, atol=tol)
    seed = rng.standard_normal(tuple(tout.shape))
    out.backward(ember.tensor(seed, dtype="float64"))
    tout.backward(torch.from_numpy(seed))
    for x, t in zip(xs, ts):
        assert x.grad is not None
        assert_close(x.grad, t.grad, rtol=tol, atol=tol)


def _fix_signs(cols):
    """Columns flipped so that each column's entry of largest magnitude is positive (numpy)."""
    cols = np.asarray(cols, dtype=np.float64)
    if cols.size == 0:
        return cols
    idx = np.argmax(np.abs(cols), axis=-2)[..., None, :]
    sign = np.sign(np.take_along_axis(cols, idx, axis=-2))
    return cols * np.where(sign == 0, 1, sign)


# -- inv, det ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SQUARE)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inv_det_values(rng, shape, dtype):
    a = _well_conditioned(rng, shape, dtype)
    for _, arr in layouts(a):
        x = ember_tensor(arr)
        before = snapshot(x)
        assert_close(L.inv(x), torch.linalg.inv(to_torch(x)), rtol=1e-4 if dtype == "float32"
                     else 1e-10, atol=1e-5 if dtype == "float32" else 1e-10)
        assert_close(L.det(x), torch.linalg.det(to_torch(x)), rtol=1e-4 if dtype == "float32"
                     else 1e-10, atol=1e-4 if dtype == "float32" else 1e-10)
        assert_unchanged([x], before)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 2, 2)])
def test_inv_det_grads(rng, shape):
    a = _well_conditioned(rng, shape)
    _grads(L.inv, torch.linalg.inv, [a], rng)
    _grads(L.det, torch.linalg.det, [a], rng)


def _cofactors(a):
    """The cofactor matrix of one square matrix, entry by entry from minors (a test-only slow
    formula)."""
    n = a.shape[-1]
    c = np.zeros_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            c[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return c


def test_det_grad_of_singular_matrices(rng):
    # The derivative of det is the cofactor matrix, also where det is 0. PyTorch returns zeros
    # where its LU finds det exactly 0 (its rule multiplies by det; whether it does depends on
    # the CPU's LAPACK kernels: -6.7e-16 on some); ember returns the cofactors.
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, -1.0]])  # rank 2
    assert np.linalg.det(a) == 0
    x = ember.tensor(a).require_grad()
    L.det(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), _cofactors(a), atol=1e-12)
    assert np.abs(x.grad.numpy()).max() > 1e-3
    # rank n-2: every cofactor is zero, as in PyTorch
    c = rng.standard_normal((4, 2)) @ rng.standard_normal((2, 4))
    _grads(L.det, torch.linalg.det, [c], rng)
    # nearly singular, det not exactly 0: PyTorch's rule and ember's agree
    b = rng.standard_normal((2, 4, 3)) @ rng.standard_normal((2, 3, 4))
    b[:, 0, 0] += 1e-9
    assert (np.linalg.det(b) != 0).all()
    _grads(L.det, torch.linalg.det, [b], rng, tol=1e-6)


def test_det_of_empty_matrix_is_one():
    assert L.det(ember.zeros(0, 0)).item() == 1.0
    assert L.det(ember.zeros(2, 0, 0)).tolist() == [1.0, 1.0]


def test_inv_singular_names_the_batch_element(rng):
    a = _well_conditioned(rng, (3, 2, 2))
    a[1] = [[1.0, 2.0], [2.0, 4.0]]
    x = ember.tensor(a)
    with pytest.raises(ember.InvalidParameterError, match=r"inv: A \(batch element \(1,\)\) is "
                       "singular"):
        L.inv(x)
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv(to_torch(x))
    with pytest.raises(ember.InvalidParameterError, match="singular"):
        L.inv(ember.zeros(2, 2))


# -- solve ------------------------------------------------------------------------------------

SOLVE_CASES = [
    ((3, 3), (3,), True), ((2, 3, 3), (2, 3), True), ((2, 3, 3), (3,), True),
    ((2, 3, 3), (3, 4), True), ((3, 3), (2, 3, 4), True), ((2, 1, 3, 3), (4, 3, 2), True),
    ((3, 3), (5, 3), False), ((2, 3, 3), (2, 4, 3), False), ((0, 3, 3), (0, 3), True),
    ((3, 3), (3, 0), True), ((1, 1), (1,), True),
]


@pytest.mark.parametrize("ashape,bshape,left", SOLVE_CASES)
def test_solve_values_and_grads(rng, ashape, bshape, left):
    a = _well_conditioned(rng, ashape)
    b = rng.standard_normal(bshape)
    for dtype, tol in (("float32", 1e-4), ("float64", 1e-10)):
        xa, xb = ember.tensor(a, dtype=dtype), ember.tensor(b, dtype=dtype)
        out = L.solve(xa, xb, left=left)
        assert_close(out, torch.linalg.solve(to_torch(xa), to_torch(xb), left=left), rtol=tol,
                     atol=tol)
    _grads(lambda p, q: L.solve(p, q, left=left),
           lambda p, q: torch.linalg.solve(p, q, left=left), [a, b], rng)


def test_solve_noncontiguous(rng):
    a = _well_conditioned(rng, (2, 3, 3))
    b = rng.standard_normal((2, 3, 4))
    for (_, la), (_, lb) in zip(layouts(a), layouts(b)):
        xa, xb = ember_tensor(la), ember_tensor(lb)
        assert_close(L.solve(xa, xb), torch.linalg.solve(to_torch(xa), to_torch(xb)))


def test_solve_errors(rng):
    a = ember.tensor(_well_conditioned(rng, (2, 3, 3)))
    with pytest.raises(ember.ShapeMismatchError, match="solve: A of shape"):
        L.solve(a, ember.ones(4, dtype="float64"))
    with pytest.raises(ember.ShapeMismatchError, match="do not broadcast"):
        L.solve(a, ember.ones(3, 3, 2, dtype="float64"))
    with pytest.raises(ember.ShapeMismatchError):
        L.solve(ember.eye(2), ember.ones(2), left=False)
    with pytest.raises(ember.KindError, match="same dtype"):
        L.solve(a, ember.ones(3))
    with pytest.raises(ember.InvalidParameterError, match="solve: A is singular"):
        L.solve(ember.zeros(2, 2), ember.ones(2))
    with pytest.raises(ember.InvalidParameterError, match="left"):
        L.solve(ember.eye(2), ember.ones(2), left=1)
    with pytest.raises(ember.InvalidParameterError, match="B must be a Tensor"):
        L.solve(ember.eye(2), [1.0, 2.0])


# -- svd, svdvals -----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", RECT)
@pytest.mark.parametrize("full", [True, False])
def test_svd_values(rng, shape, full):
    a = rng.standard_normal(shape)
    for _, arr in layouts(a):
        x = ember_tensor(arr)
        U, S, Vh = L.svd(x, full_matrices=full)
        tU, tS, tVh = torch.linalg.svd(to_torch(x), full_matrices=full)
        assert (U.shape, S.shape, Vh.shape) == (tU.shape, tS.shape, tVh.shape)
        assert U.dtype == S.dtype == Vh.dtype == ember.float64
        assert_close(S, tS, rtol=1e-10, atol=1e-10)
        k = S.shape[-1]
        u, s, vh = U.numpy()[..., :k], S.numpy(), Vh.numpy()[..., :k, :]
        np.testing.assert_allclose((u * s[..., None, :]) @ vh, a, atol=1e-10)
        np.testing.assert_allclose(_fix_signs(u), _fix_signs(tU.numpy()[..., :k]), atol=1e-8)
        eye = np.broadcast_to(np.eye(U.shape[-1]), U.shape[:-2] + (U.shape[-1],) * 2)
        np.testing.assert_allclose(np.swapaxes(U.numpy(), -1, -2) @ U.numpy(), eye, atol=1e-10)
        assert_close(L.svdvals(x), torch.linalg.svdvals(to_torch(x)), rtol=1e-10, atol=1e-10)


def test_svd_float32_and_named_fields(rng):
    x = ember.tensor(rng.standard_normal((2, 3, 4)), dtype="float32")
    res = L.svd(x, full_matrices=False)
    assert isinstance(res, L.SVD) and res.S is res[1]
    assert res.U.dtype == ember.float32
    assert_close(res.S, torch.linalg.svd(to_torch(x), full_matrices=False).S)


def _svd_invariant(svd, const, shape, rng):
    """A function of the SVD that does not depend on the signs of the singular vectors: weighted
    sums of ``U diag(S^2) U^T``, ``V diag(S) V^T`` and ``S``."""
    m, n = shape[-2:]
    w1, w2 = const(rng.standard_normal((m, m))), const(rng.standard_normal((n, n)))

    def f(a):
        U, S, Vh = svd(a)
        k = S.shape[-1]
        U, Vh = U[..., :k], Vh[..., :k, :]
        left = (U * S.unsqueeze(-2) ** 2) @ U.transpose(-2, -1)
        right = (Vh.transpose(-2, -1) * S.unsqueeze(-2)) @ Vh
        return (left * w1).sum((-2, -1)) + (right * w2).sum((-2, -1)) + S.sum(-1)
    return f


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 5), (2, 3, 4), (2, 4, 3)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_grads(rng, shape, full):
    a = rng.standard_normal(shape)
    fe = _svd_invariant(lambda t: L.svd(t, full_matrices=full), ember.tensor, shape,
                        np.random.default_rng(1))
    ft = _svd_invariant(lambda t: torch.linalg.svd(t, full_matrices=full), torch.from_numpy,
                        shape, np.random.default_rng(1))
    _grads(fe, ft, [a], rng)
    _grads(lambda t: L.svd(t)[1], lambda t: torch.linalg.svd(t)[1], [a], rng)
    _grads(L.svdvals, torch.linalg.svdvals, [a], rng)


def test_svdvals_untracked_matches_tracked(rng):
    a = rng.standard_normal((3, 5))
    plain = L.svdvals(ember.tensor(a))
    tracked = L.svdvals(ember.tensor(a).require_grad())
    np.testing.assert_allclose(plain.numpy(), tracked.numpy(), rtol=1e-12)
    np.testing.assert_allclose(plain.numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-12)


# -- qr ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", RECT)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr_values(rng, shape, mode):
    a = rng.standard_normal(shape)
    for _, arr in layouts(a):
        x = ember_tensor(arr)
        Q, R = L.qr(x, mode=mode)
        tQ, tR = torch.linalg.qr(to_torch(x), mode=mode)
        assert Q.shape == tuple(tQ.shape) and R.shape == tuple(tR.shape)
        # same Householder convention as LAPACK in torch: the factors agree, signs included
        assert_close(R, tR, rtol=1e-10, atol=1e-10)
        if mode != "r":
            assert_close(Q, tQ, rtol=1e-10, atol=1e-10)
            np.testing.assert_allclose(Q.numpy() @ R.numpy(), a, atol=1e-10)


@pytest.mark.parametrize("shape,mode", [((4, 3), "reduced"), ((3, 3), "reduced"),
                                        ((3, 5), "reduced"), ((2, 4, 3), "reduced"),
                                        ((2, 3, 5), "complete"), ((3, 3), "complete")])
def test_qr_grads(rng, shape, mode):
    a = rng.standard_normal(shape)
    w = rng.standard_normal(shape[:-1] + (min(shape[-2:]) if mode == "reduced" else shape[-2],))

    def fe(t):
        Q, R = L.qr(t, mode=mode)
        return (Q * ember.tensor(w)).sum(-1, keepdim=True) + R
    def ft(t):
        Q, R = torch.linalg.qr(t, mode=mode)
        return (Q * torch.from_numpy(w)).sum(-1, keepdim=True) + R
    if shape[-2] > shape[-1]:  # R has fewer rows than Q: use them separately
        _grads(lambda t: L.qr(t, mode=mode)[0], lambda t: torch.linalg.qr(t, mode=mode)[0],
               [a], rng)
        _grads(lambda t: L.qr(t, mode=mode)[1], lambda t: torch.linalg.qr(t, mode=mode)[1],
               [a], rng)
    else:
        _grads(fe, ft, [a], rng)


def test_qr_not_differentiable_cases(rng):
    x = ember.tensor(rng.standard_normal((4, 3))).require_grad()
    with pytest.raises(ember.GraphError, match="mode='complete'"):
        L.qr(x, mode="complete")[0].sum().backward()
    with pytest.raises(ember.GraphError, match="mode='r'"):
        L.qr(x, mode="r").R.sum().backward()
    Q, _ = L.qr(x, mode="r")
    assert Q.shape == (0,) and Q.dtype == ember.float64


# -- cholesky ---------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SQUARE)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_values(rng, shape, upper):
    a = _spd(rng, shape)
    for dtype, tol in (("float32", 1e-4), ("float64", 1e-10)):
        for _, arr in layouts(a.astype(dtype)):
            x = ember_tensor(arr)
            assert_close(L.cholesky(x, upper=upper),
                         torch.linalg.cholesky(to_torch(x), upper=upper), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1)])
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_grads(rng, shape, upper):
    _grads(lambda t: L.cholesky(t, upper=upper),
           lambda t: torch.linalg.cholesky(t, upper=upper), [_spd(rng, shape)], rng)


def test_cholesky_not_positive_definite(rng):
    a = _spd(rng, (3, 2, 2))
    a[2] = -np.eye(2)
    x = ember.tensor(a)
    before = snapshot(x)
    with pytest.raises(ember.InvalidParameterError,
                       match=r"cholesky: A \(batch element \(2,\)\) is not positive-definite"):
        L.cholesky(x)
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.cholesky(to_torch(x))
    assert_unchanged([x], before)


# -- eigh -------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SQUARE)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_values(rng, shape, uplo):
    a = rng.standard_normal(shape)  # not symmetric: only the named triangle is read
    for _, arr in layouts(a):
        x = ember_tensor(arr)
        lam, vec = L.eigh(x, UPLO=uplo)
        tl, tv = torch.linalg.eigh(to_torch(x), UPLO=uplo)
        assert_close(lam, tl, rtol=1e-10, atol=1e-10)
        assert vec.shape == tuple(tv.shape)
        np.testing.assert_allclose(_fix_signs(vec.numpy()), _fix_signs(tv.numpy()), atol=1e-8)
    res = L.eigh(ember.tensor(a, dtype="float32"))
    assert isinstance(res, L.Eigh) and res.eigenvalues.dtype == ember.float32


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1)])
def test_eigh_grads(rng, shape):
    a = rng.standard_normal(shape)
    a = a + np.swapaxes(a, -1, -2)

    def f(eigh, mm):
        def g(t):
            lam, v = eigh(t)
            return mm(v * lam.unsqueeze(-2) ** 3, v.transpose(-2, -1)) + lam.unsqueeze(-1)
        return g
    _grads(f(L.eigh, lambda p, q: p @ q), f(torch.linalg.eigh, torch.matmul), [a], rng)
    _grads(lambda t: L.eigh(t)[0], lambda t: torch.linalg.eigh(t)[0], [a], rng)


# -- bad input --------------------------------------------------------------------------------

FUNCS = [L.inv, L.det, L.svd, L.svdvals, L.qr, L.cholesky, L.eigh]


@pytest.mark.parametrize("fn", FUNCS)
@pytest.mark.half_precision
def test_kind_and_shape_errors(fn):
    for bad in (ember.tensor([[1, 2], [3, 4]]), ember.tensor([[True]]),
                ember.eye(2, dtype="float16"), ember.eye(2, dtype="bfloat16")):
        with pytest.raises(ember.KindError, match="dtype"):
            fn(bad)
    with pytest.raises(ember.ShapeMismatchError, match="at least 2 dims"):
        fn(ember.ones(3))
    with pytest.raises(ember.InvalidParameterError, match="must be a Tensor"):
        fn([[1.0]])
    if fn in (L.inv, L.det, L.cholesky, L.eigh):
        with pytest.raises(ember.ShapeMismatchError, match="square"):
            fn(ember.ones(2, 3))


def test_parameter_errors():
    with pytest.raises(ember.InvalidParameterError, match="qr: mode is 'x'"):
        L.qr(ember.eye(2), mode="x")
    with pytest.raises(ember.InvalidParameterError, match="UPLO"):
        L.eigh(ember.eye(2), UPLO="X")
    with pytest.raises(ember.InvalidParameterError, match="full_matrices"):
        L.svd(ember.eye(2), full_matrices=1)
    with pytest.raises(ember.InvalidParameterError, match="upper"):
        L.cholesky(ember.eye(2), upper="yes")


def test_no_grad_records_nothing(rng):
    x = ember.tensor(_spd(rng, (3, 3))).require_grad()
    with ember.no_grad():
        outs = [L.inv(x), L.det(x), L.cholesky(x), *L.svd(x), *L.qr(x), *L.eigh(x)]
    assert all(o.is_leaf for o in outs)


def test_module_doctests():
    for mod in (decompositions, ember.linalg):
        result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0 and result.attempted > 0


def test_qr_grad_of_rank_deficient_input_is_nan_not_an_error():
    x = ember.tensor([[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]], dtype="float64").require_grad()
    Q, R = L.qr(x)
    (Q.sum() + R.sum()).backward()
    assert x.grad.shape == (3, 2) and not np.isfinite(x.grad.numpy()).all()
