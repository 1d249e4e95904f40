"""ember.torch.linalg against torch.linalg: values, dtypes, shapes and gradients of every name
(batched, single and empty matrices; float32 and float64), LinAlgError, and the share of
torch.linalg's names that ember.torch.linalg has."""

import math

import numpy as np
import pytest
import torch

import ember
import ember.torch as et

DTYPES = ["float32", "float64"]
TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-7, atol=1e-9)}


def pair(arr, requires_grad=False):
    a = np.array(arr, copy=True)
    return et.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)


def check(actual, expected, dtype=None, tol=None):
    assert isinstance(actual, et.Tensor), type(actual)
    assert tuple(actual.shape) == tuple(expected.shape), (actual.shape, expected.shape)
    assert actual.dtype.name == str(expected.dtype).replace("torch.", ""), (actual.dtype,
                                                                          expected.dtype)
    kw = dict(TOL[dtype or ("float32" if expected.dtype in (torch.float32, torch.complex64)
                            else "float64")])
    if tol:
        kw.update(tol)
    np.testing.assert_allclose(np.asarray(actual.detach().numpy()), expected.detach().numpy(),
                               equal_nan=True, **kw)


def backward_both(out_e, out_t, weight_seed=0):
    """Backward of a weighted sum (the weights fixed random numbers), on both sides."""
    w = np.random.default_rng(weight_seed).standard_normal(tuple(out_t.shape))
    w = w.astype(out_t.detach().numpy().dtype)
    (out_e * et.tensor(w)).sum().backward()
    (out_t * torch.tensor(w)).sum().backward()


def well_conditioned(rng, shape, dtype):
    n = shape[-1]
    return (rng.standard_normal(shape) + 3 * np.eye(n)).astype(dtype)


# -- the names ember.linalg already has, under ember.torch.linalg ------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_ember_linalg_names_return_torch_tensors(dtype, rng):
    A = well_conditioned(rng, (2, 3, 3), dtype)
    e, t = pair(A)
    S = (A @ A.swapaxes(-1, -2) + 3 * np.eye(3)).astype(dtype)
    es, ts = pair(S)
    check(et.linalg.det(e), torch.linalg.det(t), dtype)
    check(et.linalg.inv(e), torch.linalg.inv(t), dtype)
    check(et.linalg.matrix_norm(e), torch.linalg.matrix_norm(t), dtype)
    check(et.linalg.vector_norm(e, 3, dim=-1), torch.linalg.vector_norm(t, 3, dim=-1), dtype)
    check(et.linalg.norm(e), torch.linalg.norm(t), dtype)
    check(et.linalg.matrix_power(e, 3), torch.linalg.matrix_power(t, 3), dtype)
    check(et.linalg.pinv(e), torch.linalg.pinv(t), dtype)
    check(et.linalg.svdvals(e), torch.linalg.svdvals(t), dtype)
    check(et.linalg.cholesky(es), torch.linalg.cholesky(ts), dtype)
    check(et.linalg.eigvalsh(es), torch.linalg.eigvalsh(ts), dtype)
    check(et.linalg.matmul(e, e), torch.linalg.matmul(t, t), dtype)
    check(et.linalg.vecdot(e, e), torch.linalg.vecdot(t, t), dtype)
    check(et.linalg.cross(e, e.flip(-1)), torch.linalg.cross(t, t.flip(-1)), dtype)
    check(et.linalg.solve(e, e[..., 0]), torch.linalg.solve(t, t[..., 0]), dtype)
    check(et.linalg.slogdet(e).logabsdet, torch.linalg.slogdet(t).logabsdet, dtype)
    assert et.linalg.matrix_rank(e).tolist() == torch.linalg.matrix_rank(t).tolist()
    q = et.linalg.qr(e)
    assert isinstance(q.Q, et.Tensor) and isinstance(q.R, et.Tensor)
    check(q.Q @ q.R, t, dtype)
    u, s, vh = et.linalg.svd(e, full_matrices=False)
    check(u @ (s.unsqueeze(-1) * vh), t, dtype)
    w, v = et.linalg.eigh(es)
    check(w, torch.linalg.eigh(ts).eigenvalues, dtype)


def test_linalg_error():
    singular = et.tensor([[1.0, 2.0], [2.0, 4.0]])
    for fn in (et.linalg.inv, lambda A: et.linalg.solve(A, et.ones(2)),
               lambda A: et.linalg.cholesky(-A), et.linalg.lu_factor):
        with pytest.raises(et.linalg.LinAlgError) as info:
            fn(singular)
        assert isinstance(info.value, RuntimeError)
        assert isinstance(info.value, ember.InvalidParameterError)
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(et.linalg.LinAlgError):
        et.linalg.inv_ex(singular, check_errors=True)
    with pytest.raises(et.linalg.LinAlgError):
        et.linalg.cholesky_ex(-singular, check_errors=True)
    with pytest.raises(ember.ShapeMismatchError):
        et.linalg.multi_dot([et.ones(2, 3), et.ones(2, 3, 3), et.ones(3)])
    with pytest.raises(ember.InvalidParameterError):
        et.linalg.lstsq(et.ones(3, 2), et.ones(3), driver="nope")
    with pytest.raises(ember.InvalidParameterError):
        et.linalg.cond(et.ones(2, 2), p=3)
    with pytest.raises(ember.InvalidParameterError):
        et.linalg.vander(et.ones(3), N=1)
    with pytest.raises(RuntimeError):
        torch.linalg.vander(torch.ones(3), N=1)


# -- LU ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (5, 3), (3, 5), (0, 0), (2, 0, 0)])
def test_lu_family(dtype, shape, rng):
    A = rng.standard_normal(shape).astype(dtype)
    e, t = pair(A, True)
    r, q = et.linalg.lu_factor_ex(e), torch.linalg.lu_factor_ex(t)
    check(r.LU, q.LU, dtype)
    assert r.pivots.dtype.name == "int32" and r.info.dtype.name == "int32"
    assert r.pivots.tolist() == q.pivots.tolist() and r.info.tolist() == q.info.tolist()
    P, L, U = et.linalg.lu(e)
    P2, L2, U2 = torch.linalg.lu(t)
    for a, b in ((P, P2), (L, L2), (U, U2)):
        check(a, b, dtype)
    if q.LU.numel():
        backward_both(r.LU, q.LU)
        check(e.grad, t.grad, dtype, dict(rtol=1e-3, atol=1e-4) if dtype == "float32" else None)


def test_lu_without_pivoting(rng):
    """PyTorch's CPU refuses ``pivot=False``; ember factorizes: ``P`` is the identity and
    ``L U`` the matrix (its LU is the CUDA backend's unpivoted one)."""
    A = well_conditioned(rng, (2, 3, 3), "float64")
    P, L, U = et.linalg.lu(et.tensor(A), pivot=False)
    np.testing.assert_allclose(P.numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)))
    np.testing.assert_allclose((L @ U).numpy(), A, rtol=1e-12, atol=1e-12)
    assert et.linalg.lu_factor(et.tensor(A), pivot=False).pivots.tolist() == [[1, 2, 3]] * 2
    with pytest.raises(RuntimeError):
        torch.linalg.lu(torch.tensor(A), pivot=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lu_solve_and_solve_triangular(dtype, rng):
    A = well_conditioned(rng, (2, 4, 4), dtype)
    B = rng.standard_normal((2, 4, 3)).astype(dtype)
    for left in (True, False):
        for adjoint in (False, True):
            ea, ta = pair(A, True)
            rhs = B if left else B.swapaxes(-1, -2)
            eb, tb = pair(rhs, True)
            r, q = et.linalg.lu_factor(ea), torch.linalg.lu_factor(ta)
            out_e = et.linalg.lu_solve(r.LU, r.pivots, eb, left=left, adjoint=adjoint)
            out_t = torch.linalg.lu_solve(q.LU, q.pivots, tb, left=left, adjoint=adjoint)
            check(out_e, out_t, dtype)
            backward_both(out_e, out_t)
            check(ea.grad, ta.grad, dtype)
            check(eb.grad, tb.grad, dtype)
    for upper in (True, False):
        for left in (True, False):
            for unit in (True, False):
                ea, ta = pair(A, True)
                rhs = B if left else B.swapaxes(-1, -2)
                eb, tb = pair(rhs, True)
                out_e = et.linalg.solve_triangular(ea, eb, upper=upper, left=left,
                                                   unitriangular=unit)
                out_t = torch.linalg.solve_triangular(ta, tb, upper=upper, left=left,
                                                      unitriangular=unit)
                check(out_e, out_t, dtype)
                backward_both(out_e, out_t)
                check(ea.grad, ta.grad, dtype)
                check(eb.grad, tb.grad, dtype)


# -- the *_ex variants -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_ex_variants(dtype, rng):
    A = well_conditioned(rng, (3, 3, 3), dtype)
    A[1] = [[1, 2, 3], [2, 4, 6], [1, 0, 1]]  # singular: a zero pivot at step 2
    e, t = pair(A)
    r, q = et.linalg.inv_ex(e), torch.linalg.inv_ex(t)
    assert r.info.dtype.name == "int32" and r.info.tolist() == q.info.tolist()
    check(r.inverse[0::2], q.inverse[0::2], dtype)
    b = rng.standard_normal((3, 3)).astype(dtype)
    eb, tb = pair(b)
    r, q = et.linalg.solve_ex(e, eb), torch.linalg.solve_ex(t, tb)
    assert r.info.tolist() == q.info.tolist()
    check(r.result[0::2], q.result[0::2], dtype)
    B = rng.standard_normal((2, 1, 3, 2)).astype(dtype)  # matrices, broadcast batch dims
    eb, tb = pair(B)
    r, q = et.linalg.solve_ex(e, eb), torch.linalg.solve_ex(t, tb)
    assert r.info.tolist() == q.info.tolist()
    check(r.result[:, 0::2], q.result[:, 0::2], dtype)
    assert bool(r.result[:, 1].isnan().all())
    S = (A @ A.swapaxes(-1, -2) + np.eye(3)).astype(dtype)
    S[1] = [[1, 0, 0], [0, -1, 0], [0, 0, 1]]
    S[2] = [[2, 1, 0], [1, 2, 0], [0, 0, -3]]
    for upper in (False, True):
        es, ts = pair(S)
        r, q = et.linalg.cholesky_ex(es, upper=upper), torch.linalg.cholesky_ex(ts, upper=upper)
        assert r.info.dtype.name == "int32" and r.info.tolist() == q.info.tolist() == [0, 2, 3]
        check(r.L[:1], q.L[:1], dtype)
    good = well_conditioned(rng, (2, 3, 3), dtype)
    e, t = pair(good, True)
    out_e, out_t = et.linalg.inv_ex(e).inverse, torch.linalg.inv_ex(t).inverse
    backward_both(out_e, out_t)
    check(e.grad, t.grad, dtype)
    S = (good @ good.swapaxes(-1, -2) + np.eye(3)).astype(dtype)
    es, ts = pair(S, True)
    out_e, out_t = et.linalg.cholesky_ex(es).L, torch.linalg.cholesky_ex(ts).L
    check(out_e, out_t, dtype)
    backward_both(out_e, out_t)
    check(es.grad, ts.grad, dtype, dict(rtol=1e-3, atol=1e-4) if dtype == "float32" else None)


# -- least squares, cond, products, tensors ---------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
def test_lstsq(dtype, driver, rng):
    for shape_a, shape_b in (((6, 3), (6, 2)), ((2, 5, 3), (2, 5, 4)), ((3, 5), (3, 2))):
        if driver == "gels" and shape_a[-2] < shape_a[-1]:
            continue
        ea, ta = pair(rng.standard_normal(shape_a).astype(dtype), True)
        eb, tb = pair(rng.standard_normal(shape_b).astype(dtype), True)
        r = et.linalg.lstsq(ea, eb, driver=driver)
        q = torch.linalg.lstsq(ta, tb, driver=driver)
        for field in ("solution", "residuals", "singular_values"):
            check(getattr(r, field), getattr(q, field), dtype, dict(rtol=1e-3, atol=1e-4)
                  if dtype == "float32" else None)
        assert r.rank.dtype.name == "int64" and r.rank.tolist() == q.rank.tolist()
        backward_both(r.solution, q.solution)
        check(ea.grad, ta.grad, dtype, dict(rtol=1e-3, atol=1e-3) if dtype == "float32" else
              dict(rtol=1e-6, atol=1e-8))
        check(eb.grad, tb.grad, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cond(dtype, rng):
    A = well_conditioned(rng, (2, 4, 4), dtype)
    for p in (None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1):
        e, t = pair(A, True)
        out_e, out_t = et.linalg.cond(e, p), torch.linalg.cond(t, p)
        check(out_e, out_t, dtype)
        if p not in (None, 2, -2):
            continue  # torch's backward of these fails (inv_ex's result modified in place)
        backward_both(out_e, out_t)
        check(e.grad, t.grad, dtype, dict(rtol=1e-3, atol=1e-4) if dtype == "float32" else None)
    rect = rng.standard_normal((3, 5)).astype(dtype)
    e, t = pair(rect)
    check(et.linalg.cond(e), torch.linalg.cond(t), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_multi_dot_tensorinv_tensorsolve(dtype, rng):
    mats = [rng.standard_normal(s).astype(dtype) for s in ((3,), (3, 4), (4, 2), (2,))]
    for chain in (mats, mats[1:3], mats[:3], mats[1:]):
        pe = [et.tensor(m, requires_grad=True) for m in chain]
        pt = [torch.tensor(m, requires_grad=True) for m in chain]
        out_e, out_t = et.linalg.multi_dot(pe), torch.linalg.multi_dot(pt)
        check(out_e, out_t, dtype)
        if out_t.ndim:
            backward_both(out_e, out_t)
        else:
            out_e.backward()
            out_t.backward()
        for a, b in zip(pe, pt):
            check(a.grad, b.grad, dtype)
    T = (rng.standard_normal((4, 6, 24)) + np.eye(24).reshape(4, 6, 24) * 4).astype(dtype)
    e, t = pair(T, True)
    out_e, out_t = et.linalg.tensorinv(e, ind=2), torch.linalg.tensorinv(t, ind=2)
    check(out_e, out_t, dtype)
    backward_both(out_e, out_t)
    check(e.grad, t.grad, dtype, dict(rtol=1e-3, atol=1e-4) if dtype == "float32" else None)
    A = (rng.standard_normal((2, 3, 6)) + np.eye(6).reshape(2, 3, 6) * 4).astype(dtype)
    B = rng.standard_normal((2, 3)).astype(dtype)
    ea, ta = pair(A, True)
    eb, tb = pair(B, True)
    out_e, out_t = et.linalg.tensorsolve(ea, eb), torch.linalg.tensorsolve(ta, tb)
    check(out_e, out_t, dtype)
    backward_both(out_e, out_t)
    check(ea.grad, ta.grad, dtype)
    check(eb.grad, tb.grad, dtype)
    Ad = np.ascontiguousarray(np.moveaxis(A, 2, 0))
    check(et.linalg.tensorsolve(et.tensor(Ad), eb.detach(), dims=(0,)),
          torch.linalg.tensorsolve(torch.tensor(Ad), tb.detach(), dims=(0,)), dtype)


@pytest.mark.parametrize("dtype", DTYPES + ["int64"])
def test_vander_and_diagonal(dtype, rng):
    x = rng.integers(-3, 4, size=(2, 4)).astype(dtype) if dtype == "int64" else \
        rng.standard_normal((2, 4)).astype(dtype)
    grad = dtype != "int64"
    for N in (None, 2, 6):
        e, t = pair(x, grad)
        out_e, out_t = et.linalg.vander(e, N=N), torch.linalg.vander(t, N=N)
        if not grad:
            assert out_e.dtype.name == "int64" and out_e.tolist() == out_t.tolist()
            continue
        check(out_e, out_t, dtype)
        backward_both(out_e, out_t)
        check(e.grad, t.grad, dtype)
    if not grad:
        return
    A = rng.standard_normal((2, 3, 5)).astype(dtype)
    for kw in (dict(), dict(offset=1), dict(offset=-2), dict(offset=7), dict(dim1=0, dim2=2),
               dict(offset=1, dim1=2, dim2=1)):
        e, t = pair(A, True)
        out_e, out_t = et.linalg.diagonal(e, **kw), torch.linalg.diagonal(t, **kw)
        check(out_e, out_t, dtype)
        if out_t.numel():
            backward_both(out_e, out_t)
            check(e.grad, t.grad, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_householder_product(dtype, rng):
    for shape, k in (((5, 3), 2), ((2, 4, 4), 4), ((3, 3), 0)):
        ea, ta = pair(rng.standard_normal(shape).astype(dtype), True)
        et_, tt = pair(rng.standard_normal(shape[:-2] + (k,)).astype(dtype), True)
        out_e = et.linalg.householder_product(ea, et_)
        out_t = torch.linalg.householder_product(ta, tt)
        check(out_e, out_t, dtype)
        if k:  # with no reflections the result is the identity, independent of A
            backward_both(out_e, out_t)
            check(ea.grad, ta.grad, dtype)
            check(et_.grad, tt.grad, dtype)
    A = rng.standard_normal((5, 3))
    q = et.linalg.qr(et.tensor(A))
    Q = et.linalg.householder_product(*[et.tensor(v) for v in torch.geqrf(torch.tensor(A))])
    check(Q.abs(), torch.tensor(np.abs(q.Q.numpy())))


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_exp(dtype, rng):
    for scale, shape in ((0.1, (3, 3)), (1.0, (2, 4, 4)), (8.0, (3, 3)), (1.0, (0, 0))):
        e, t = pair((scale * rng.standard_normal(shape)).astype(dtype), True)
        out_e, out_t = et.linalg.matrix_exp(e), torch.linalg.matrix_exp(t)
        check(out_e, out_t, dtype, dict(rtol=1e-6) if dtype == "float64" else dict(rtol=1e-3))
        if out_t.numel():
            backward_both(out_e, out_t)
            check(e.grad, t.grad, dtype, dict(rtol=1e-6, atol=1e-8) if dtype == "float64"
                  else dict(rtol=2e-3, atol=1e-3))


@pytest.mark.parametrize("dtype", DTYPES)
def test_eig_and_eigvals(dtype, rng):
    A = rng.standard_normal((2, 4, 4)).astype(dtype)
    e, t = pair(A)
    w, w2 = et.linalg.eigvals(e), torch.linalg.eigvals(t)
    assert w.dtype.name == str(w2.dtype).replace("torch.", "")
    np.testing.assert_allclose(np.sort_complex(w.numpy()), np.sort_complex(w2.numpy()),
                               **TOL[dtype])
    vals, vecs = et.linalg.eig(e)
    assert isinstance(vals, et.Tensor) and vals.dtype.name == w.dtype.name
    av = A.astype(vecs.numpy().dtype) @ vecs.numpy()
    np.testing.assert_allclose(av, vecs.numpy() * vals.numpy()[..., None, :], **TOL[dtype])
    np.testing.assert_allclose(np.linalg.norm(vecs.numpy(), axis=-2), 1.0, **TOL[dtype])
    sym = et.tensor([[2.0, 0.0], [0.0, 3.0]])
    assert et.linalg.eigvals(sym).tolist() == torch.linalg.eigvals(
        torch.tensor([[2.0, 0.0], [0.0, 3.0]])).tolist()


# -- the surface ---------------------------------------------------------------------------

def test_namespace_covers_torch_linalg():
    names = [n for n in dir(torch.linalg)
             if not n.startswith("_") and callable(getattr(torch.linalg, n))]
    missing = [n for n in names if not hasattr(et.linalg, n)]
    share = 1 - len(missing) / len(names)
    assert share >= 0.9, f"ember.torch.linalg has {share:.0%} of torch.linalg; missing {missing}"
