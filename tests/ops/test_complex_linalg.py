"""Complex tensors in linear algebra (ember/ops/linalg.py, decompositions.py, norms.py,
ember.linalg) against PyTorch, and the functions added to ember.linalg (eigvalsh, slogdet, pinv,
matrix_rank, matrix_power, vecdot) on real float64 inputs with their gradients."""

import math

import numpy as np
import pytest
import torch

import ember
import ember.array_api as xp
from oracle import assert_unchanged, snapshot

L = ember.linalg
CDTYPES = ["complex64", "complex128"]
TOL = {"complex64": 2e-4, "complex128": 1e-10, "float32": 2e-4, "float64": 1e-10}
SQUARE = [(3, 3), (1, 1), (2, 4, 4), (2, 1, 3, 3), (0, 3, 3), (0, 0)]
RECT = [(3, 3), (4, 2), (2, 5), (2, 3, 4), (1, 1), (0, 3), (3, 0), (2, 0, 3)]


def crand(rng, shape, dtype="complex128"):
    return np.asarray(rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _layouts(arr):
    """The values of ``arr`` in a contiguous and a non-contiguous (transposed-back) layout."""
    yield arr
    if arr.ndim >= 2:
        yield np.ascontiguousarray(np.swapaxes(arr, -1, -2)).swapaxes(-1, -2)
    elif arr.ndim == 1:
        yield np.repeat(arr, 2)[::2]


def em(arr):
    return ember.from_numpy(arr)


def tt(arr):
    return torch.from_numpy(np.array(arr, copy=True))


def check(actual, expected, tol=None):
    """``actual`` (ember) equals ``expected`` (torch): dtype, shape, values."""
    exp = expected.detach().resolve_conj().resolve_neg()
    assert actual.dtype.name == str(exp.dtype).replace("torch.", ""), (actual.dtype, exp.dtype)
    act = np.asarray(actual.numpy())
    e = exp.numpy()
    assert act.shape == e.shape, (act.shape, e.shape)
    if act.dtype.kind in "fc":
        t = tol if tol is not None else TOL.get(actual.dtype.name, 1e-10)
        np.testing.assert_allclose(act, e, rtol=t, atol=t, equal_nan=True)
    else:
        np.testing.assert_array_equal(act, e)


def well_conditioned(rng, shape, dtype):
    a = crand(rng, shape, "complex128")
    if shape[-1]:
        a = a + 4 * np.eye(shape[-1])
    return a.astype(dtype)


def hpd(rng, shape, dtype):
    """Hermitian positive-definite matrices."""
    a = crand(rng, shape, "complex128")
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dtype)


# -- products -----------------------------------------------------------------------------------

MATMUL = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3, 4), (4, 5)),
          ((2, 1, 3, 4), (5, 4, 2)), ((0, 3), (3, 2)), ((2, 0), (0, 3)), ((4, 1), (1, 4))]


@pytest.mark.parametrize("sa,sb", MATMUL)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_matmul_matches_torch(rng, sa, sb, dtype):
    a0, b0 = crand(rng, sa, dtype), crand(rng, sb, dtype)
    for a in _layouts(a0):
        for b in _layouts(b0):
            x, y = em(a), em(b)
            before = snapshot(x, y)
            check(x @ y, tt(a) @ tt(b))
            check(ember.matmul(x, y), torch.matmul(tt(a), tt(b)))
            assert_unchanged([x, y], before)


@pytest.mark.parametrize("real", ["float32", "float64"])
@pytest.mark.parametrize("dtype", CDTYPES)
def test_matmul_promotes_real_and_complex(rng, real, dtype):
    a = crand(rng, (2, 3), dtype)
    b = rng.standard_normal((3, 2)).astype(real)
    to = torch.promote_types(getattr(torch, dtype), getattr(torch, real))
    check(em(a) @ em(b), tt(a).to(to) @ tt(b).to(to))
    check(em(b.T.copy()) @ em(a.T.copy()), tt(b.T).to(to) @ tt(a.T).to(to))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_dot_outer_do_not_conjugate(rng, dtype):
    for n in (0, 1, 4):
        a, b = crand(rng, (n,), dtype), crand(rng, (n,), dtype)
        for la in _layouts(a):
            check(em(la).dot(em(b)), torch.dot(tt(la), tt(b)))
            check(em(la).outer(em(b)), torch.outer(tt(la), tt(b)))
    a = np.array([1j, 2.0], dtype=dtype)
    assert complex(em(a).dot(em(a)).numpy()) == -1 + 4  # 1j*1j + 2*2, no conjugate


EINSUM = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]),
          ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("i,i", [(4,), (4,)]),
          ("...ij->...ji", [(2, 3, 4)]), ("ij,ij->", [(0, 3), (0, 3)]), ("i,j->ij", [(2,), (3,)])]


@pytest.mark.parametrize("eq,shapes", EINSUM)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_einsum_matches_torch(rng, eq, shapes, dtype):
    arrs = [crand(rng, s, dtype) for s in shapes]
    check(ember.einsum(eq, *[em(a) for a in arrs]), torch.einsum(eq, *[tt(a) for a in arrs]))
    nc = [next(iter(list(_layouts(a))[::-1])) for a in arrs]
    check(ember.einsum(eq, [em(a) for a in nc]), torch.einsum(eq, *[tt(a) for a in nc]))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_cross_matches_torch(rng, dtype):
    a, b = crand(rng, (4, 3), dtype), crand(rng, (1, 3), dtype)
    check(em(a).cross(em(b)), torch.linalg.cross(tt(a), tt(b)))
    check(L.cross(em(a.T.copy()), em(np.repeat(b.T, 4, 1)), dim=0),
          torch.linalg.cross(tt(a.T), tt(np.repeat(b.T, 4, 1)), dim=0))


VECDOT = [((3,), (3,), -1), ((2, 3), (3,), -1), ((2, 3), (4, 1, 3), -1), ((3, 2), (3, 2), 0),
          ((0, 3), (3,), -1), ((2, 0), (2, 0), -1), ((2, 3, 4), (2, 3, 4), 1)]


@pytest.mark.parametrize("sa,sb,dim", VECDOT)
@pytest.mark.parametrize("dtype", CDTYPES + ["float64"])
def test_vecdot_conjugates_the_first_argument(rng, sa, sb, dim, dtype):
    mk = crand if dtype.startswith("complex") else (
        lambda r, s, d: np.asarray(r.standard_normal(s)).astype(d))
    a, b = mk(rng, sa, dtype), mk(rng, sb, dtype)
    for la in _layouts(a):
        x, y = em(la), em(b)
        before = snapshot(x, y)
        check(L.vecdot(x, y, dim=dim), torch.linalg.vecdot(tt(la), tt(b), dim=dim))
        assert_unchanged([x, y], before)
    if dtype.startswith("complex"):
        z = em(np.array([1j, 2.0], dtype=dtype))
        assert complex(L.vecdot(z, z).numpy()) == 5  # conj(1j)*1j + 2*2


def test_vecdot_gradients_match_torch(rng):
    for sa, sb, dim in [((2, 3), (3,), -1), ((2, 3), (4, 1, 3), -1), ((3, 2), (3, 2), 0)]:
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
        _grads(lambda x, y: L.vecdot(x, y, dim=dim),
               lambda x, y: torch.linalg.vecdot(x, y, dim=dim), [a, b], rng)


def test_vecdot_errors():
    x = em(np.ones((2, 3)))
    with pytest.raises(ember.KindError, match="vecdot"):
        L.vecdot(em(np.ones(3, dtype=np.int64)), em(np.ones(3, dtype=np.int64)))
    with pytest.raises(ember.ShapeMismatchError, match="vecdot"):
        L.vecdot(x, em(np.ones((2, 1))))
    with pytest.raises(ember.ShapeMismatchError, match="vecdot"):
        L.vecdot(em(np.ones(())), em(np.ones(())))
    with pytest.raises(ember.DimensionError):
        L.vecdot(x, x, dim=2)
    with pytest.raises(ember.InvalidParameterError, match="vecdot"):
        L.vecdot(x, [1.0, 2.0, 3.0])


# -- factorizations -----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SQUARE)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_det_inv_slogdet_match_torch(rng, shape, dtype):
    a0 = well_conditioned(rng, shape, dtype)
    for a in _layouts(a0):
        x = em(a)
        before = snapshot(x)
        check(L.det(x), torch.linalg.det(tt(a)))
        check(L.inv(x), torch.linalg.inv(tt(a)))
        s, ts = L.slogdet(x), torch.linalg.slogdet(tt(a))
        check(s.sign, ts.sign)
        check(s.logabsdet, ts.logabsdet)
        assert isinstance(s, L.SlogDet) and s[0] is s.sign
        assert_unchanged([x], before)


@pytest.mark.parametrize("dtype", CDTYPES)
def test_slogdet_of_a_singular_matrix(dtype):
    a = np.array([[1 + 1j, 2 + 2j], [1 + 1j, 2 + 2j]], dtype=dtype)
    s, ts = L.slogdet(em(a)), torch.linalg.slogdet(tt(a))
    check(s.sign, ts.sign)
    assert s.logabsdet.item() == -math.inf == ts.logabsdet.item()


SOLVE = [((3, 3), (3,), True), ((3, 3), (3, 2), True), ((2, 3, 3), (2, 3), True),
         ((2, 3, 3), (3, 4), True), ((3, 3), (2, 3), False), ((0, 2, 2), (0, 2), True)]


@pytest.mark.parametrize("sa,sb,left", SOLVE)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_solve_matches_torch(rng, sa, sb, left, dtype):
    a0, b = well_conditioned(rng, sa, dtype), crand(rng, sb, dtype)
    for a in _layouts(a0):
        check(L.solve(em(a), em(b), left=left), torch.linalg.solve(tt(a), tt(b), left=left))


@pytest.mark.parametrize("shape", SQUARE)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_cholesky_eigh_eigvalsh_of_hermitian_matrices(rng, shape, dtype):
    a0 = hpd(rng, shape, dtype)
    for a in _layouts(a0):
        x = em(a)
        for upper in (False, True):
            check(L.cholesky(x, upper=upper), torch.linalg.cholesky(tt(a), upper=upper))
        for uplo in ("L", "U"):
            lam, vec = L.eigh(x, UPLO=uplo)
            tl = torch.linalg.eigvalsh(tt(a), UPLO=uplo)
            check(lam, tl)                           # real eigenvalues
            check(L.eigvalsh(x, UPLO=uplo), tl)
            check(xp.linalg.eigvalsh(x), torch.linalg.eigvalsh(tt(a)))
            assert vec.dtype.name == dtype
            v = vec.numpy()                          # A V = V diag(L), V unitary
            tol = TOL[dtype] * 100
            np.testing.assert_allclose(a @ v, v * lam.numpy()[..., None, :], atol=tol, rtol=tol)


def test_cholesky_reads_the_lower_triangle_only(rng):
    a = hpd(rng, (3, 3), "complex128")
    junk = a + np.triu(crand(rng, (3, 3)), 1)
    check(L.cholesky(em(junk)), torch.linalg.cholesky(tt(a)))


@pytest.mark.parametrize("shape", RECT)
@pytest.mark.parametrize("dtype", CDTYPES)
def test_svd_svdvals_qr(rng, shape, dtype):
    a0 = crand(rng, shape, dtype)
    tol = TOL[dtype] * 100
    for a in _layouts(a0):
        x = em(a)
        check(L.svdvals(x), torch.linalg.svdvals(tt(a)))
        for full in (False, True):
            u, s, vh = L.svd(x, full_matrices=full)
            check(s, torch.linalg.svdvals(tt(a)))
            k = s.shape[-1]
            un, vn = u.numpy()[..., :k], vh.numpy()[..., :k, :]
            np.testing.assert_allclose((un * s.numpy()[..., None, :]) @ vn, a, atol=tol, rtol=tol)
        for mode in ("reduced", "complete", "r"):
            q, r = L.qr(x, mode=mode)
            tq, tr = torch.linalg.qr(tt(a), mode=mode)
            check(r, tr, tol)
            if mode != "r":
                check(q, tq, tol)


# -- pinv, matrix_rank, matrix_power ------------------------------------------------------------

def _low_rank(rng, shape, rank, dtype):
    m, n = shape[-2:]
    mk = crand if dtype.startswith("complex") else (
        lambda r, s, d: np.asarray(r.standard_normal(s)).astype(d))
    return (mk(rng, shape[:-2] + (m, rank), "complex128" if "complex" in dtype else "float64")
            @ mk(rng, shape[:-2] + (rank, n), "complex128" if "complex" in dtype else "float64")
            ).astype(dtype)


@pytest.mark.parametrize("shape", RECT)
@pytest.mark.parametrize("dtype", CDTYPES + ["float32", "float64"])
def test_pinv_matrix_rank_match_torch(rng, shape, dtype):
    mk = crand if dtype.startswith("complex") else (
        lambda r, s, d: np.asarray(r.standard_normal(s)).astype(d))
    a0 = mk(rng, shape, dtype)
    for a in _layouts(a0):
        x = em(a)
        before = snapshot(x)
        check(L.pinv(x), torch.linalg.pinv(tt(a)))
        check(L.matrix_rank(x), torch.linalg.matrix_rank(tt(a)))
        check(xp.linalg.pinv(x), torch.linalg.pinv(tt(a)))
        check(xp.linalg.matrix_rank(x), torch.linalg.matrix_rank(tt(a)))
        assert_unchanged([x], before)
    if min(shape[-2:]) >= 2:
        low = _low_rank(rng, shape, 1, dtype)
        check(L.matrix_rank(em(low)), torch.linalg.matrix_rank(tt(low)))
        assert (L.matrix_rank(em(low)).numpy() == 1).all()
        check(L.pinv(em(low)), torch.linalg.pinv(tt(low)), TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", CDTYPES + ["float64"])
def test_pinv_matrix_rank_tolerances_and_hermitian(rng, dtype):
    a = hpd(rng, (2, 3, 3), "complex128")
    if dtype == "float64":
        a = a.real.copy()
    a = a.astype(dtype)
    # singular values spread so that the tolerances cut between them
    u, s, vh = np.linalg.svd(a)
    s = np.array([[10.0, 1.0, 1e-3], [5.0, 0.5, 0.02]])      # none on a tolerance's edge
    b = ((u * s[..., None, :]) @ vh).astype(dtype)
    b = (b + np.conj(np.swapaxes(b, -1, -2))) / 2        # Hermitian
    tb = tt(b)
    tol = 2e-3 if dtype == "complex64" else 1e-8             # pinv amplifies by 1 / 1e-3
    for kw in ({}, {"rtol": 0.01}, {"atol": 0.1}, {"atol": 0.1, "rtol": 0.2}, {"rtol": 0.0},
               {"hermitian": True}, {"hermitian": True, "rtol": 0.01}):
        check(L.pinv(em(b), **kw), torch.linalg.pinv(tb, **kw), tol)
        check(L.matrix_rank(em(b), **kw), torch.linalg.matrix_rank(tb, **kw))
    rt = np.array([0.01, 0.2])
    check(L.matrix_rank(em(b), rtol=em(rt)), torch.linalg.matrix_rank(tb, rtol=tt(rt)))
    check(L.pinv(em(b), atol=em(rt)), torch.linalg.pinv(tb, atol=tt(rt)), tol)
    check(xp.linalg.matrix_rank(em(b), rtol=0.01), torch.linalg.matrix_rank(tb, rtol=0.01))
    check(xp.linalg.pinv(em(b), rtol=em(rt)), torch.linalg.pinv(tb, rtol=tt(rt)), tol)


def test_pinv_matrix_rank_errors():
    x = em(np.ones((2, 3)))
    for fn in (L.pinv, L.matrix_rank):
        name = fn.__name__
        with pytest.raises(ember.KindError, match=name):
            fn(em(np.ones((2, 2), dtype=np.int64)))
        with pytest.raises(ember.InvalidParameterError, match=f"{name}: atol"):
            fn(x, atol="big")
        with pytest.raises(ember.InvalidParameterError, match=f"{name}: hermitian"):
            fn(x, hermitian=1)
        with pytest.raises(ember.ShapeMismatchError, match=name):
            fn(x, hermitian=True)
        with pytest.raises(ember.KindError, match=f"{name}: rtol"):
            fn(x, rtol=em(np.array([True])))
        with pytest.raises(ember.ShapeMismatchError, match=name):
            fn(em(np.ones((2, 2, 2))), rtol=em(np.ones(3)))
        with pytest.raises(ember.ShapeMismatchError, match=name):
            fn(em(np.ones(3)))


@pytest.mark.parametrize("dtype", CDTYPES + ["float64", "int64"])
def test_matrix_power_matches_torch(rng, dtype):
    if dtype == "int64":
        a = rng.integers(-3, 3, size=(2, 3, 3)).astype(dtype)
        powers = (0, 1, 2, 5)
    else:
        a = (well_conditioned(rng, (2, 3, 3), "complex128") / 4)
        a = (a if dtype.startswith("complex") else a.real.copy()).astype(dtype)
        powers = (-3, -1, 0, 1, 2, 3, 6)
    for la in _layouts(a):
        for n in powers:
            check(L.matrix_power(em(la), n), torch.linalg.matrix_power(tt(la), n))
            check(xp.linalg.matrix_power(em(la), n), torch.linalg.matrix_power(tt(la), n))
    e = np.zeros((0, 2, 2), dtype=dtype)
    check(L.matrix_power(em(e), 3), torch.linalg.matrix_power(tt(e), 3))


def test_matrix_power_errors():
    with pytest.raises(ember.KindError, match="matrix_power"):
        L.matrix_power(em(np.eye(2, dtype=bool)), 2)
    with pytest.raises(ember.KindError, match="matrix_power: n is -1"):
        L.matrix_power(em(np.eye(2, dtype=np.int64)), -1)
    with pytest.raises(ember.ShapeMismatchError, match="matrix_power"):
        L.matrix_power(em(np.ones((2, 3))), 2)
    with pytest.raises(ember.InvalidParameterError, match="matrix_power: n"):
        L.matrix_power(em(np.eye(2)), 1.5)
    with pytest.raises(ember.InvalidParameterError, match="matrix_power: n"):
        L.matrix_power(em(np.eye(2)), True)


# -- norms --------------------------------------------------------------------------------------

# torch.linalg.vector_norm(ord=0) of a 0-d complex tensor warns inside torch (the oracle)
@pytest.mark.filterwarnings("ignore:Casting complex values to real")
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3, 4)])
@pytest.mark.parametrize("dtype", CDTYPES)
def test_vector_norm_is_the_real_norm_of_the_modulus(rng, shape, dtype):
    a0 = crand(rng, shape, dtype)
    for a in _layouts(a0):
        x = em(a)
        for ord in (2, 1, 0, 3, 0.5, math.inf, -math.inf, -1):
            if (ord == math.inf or ord < 0) and a.size == 0:
                continue
            for dim in ((None, -1) if shape else (None,)):
                for keep in (False, True):
                    check(L.vector_norm(x, ord, dim, keep),
                          torch.linalg.vector_norm(tt(a), ord, dim, keep))
        check(x.norm(), tt(a).norm())
        check(xp.linalg.vector_norm(x), torch.linalg.vector_norm(tt(a)))
    with pytest.raises(ember.InvalidParameterError, match="vector_norm: dtype"):
        L.vector_norm(em(a0), dtype=ember.float64)
    if dtype == "complex64":
        check(L.vector_norm(em(a0), dtype=ember.complex128),
              torch.linalg.vector_norm(tt(a0), dtype=torch.complex128))


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 4), (0, 3), (2, 0, 0)])
@pytest.mark.parametrize("dtype", CDTYPES)
def test_matrix_norm_of_complex_matrices(rng, shape, dtype):
    a = crand(rng, shape, dtype)
    for ord in ("fro", "nuc", 1, math.inf, 2, -1, -2, -math.inf):
        if ord in (-1, -2, -math.inf) and 0 in shape[-2:]:
            continue
        for keep in (False, True):
            check(L.matrix_norm(em(a), ord, keepdim=keep),
                  torch.linalg.matrix_norm(tt(a), ord, keepdim=keep))
        check(xp.linalg.matrix_norm(em(a), ord=ord), torch.linalg.matrix_norm(tt(a), ord))
    check(L.norm(em(a)), torch.linalg.norm(tt(a)))


def test_special_values_in_norms():
    # |inf + nan j| is inf (C99 Annex G, as PyTorch and NumPy)
    a = np.array([complex(np.inf, np.nan), 1 + 1j], dtype=np.complex128)
    check(L.vector_norm(em(a)), torch.linalg.vector_norm(tt(a)))
    b = np.array([complex(np.nan, 0.0), 1 + 1j], dtype=np.complex64)
    check(L.vector_norm(em(b), 1), torch.linalg.vector_norm(tt(b), 1))


# -- the array API's linalg ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", CDTYPES)
def test_array_api_linalg_takes_complex(rng, dtype):
    a = well_conditioned(rng, (2, 3, 3), dtype)
    x, t = em(a), tt(a)
    check(xp.linalg.det(x), torch.linalg.det(t))
    check(xp.linalg.inv(x), torch.linalg.inv(t))
    s, ts = xp.linalg.slogdet(x), torch.linalg.slogdet(t)
    check(s.sign, ts.sign)
    check(s.logabsdet, ts.logabsdet)
    check(xp.linalg.trace(x), torch.diagonal(t, dim1=-2, dim2=-1).sum(-1))
    check(xp.linalg.trace(x, offset=1), torch.diagonal(t, 1, dim1=-2, dim2=-1).sum(-1))
    check(xp.linalg.diagonal(x), torch.diagonal(t, dim1=-2, dim2=-1))
    check(xp.linalg.matmul(x, x), t @ t)
    check(xp.linalg.tensordot(x, x, axes=([1, 2], [1, 2])),
          torch.tensordot(t, t, dims=([1, 2], [1, 2])))
    check(xp.linalg.outer(x[0, 0], x[0, 1]), torch.outer(t[0, 0], t[0, 1]))
    check(xp.linalg.cross(x, x.flip(-1)), torch.linalg.cross(t, t.flip(-1)))
    v = crand(rng, (2, 3), dtype)
    check(xp.linalg.vecdot(em(v[:, None, :]), x), torch.linalg.vecdot(tt(v)[:, None, :], t))
    check(xp.linalg.vecdot(em(v), em(v), axis=0), torch.linalg.vecdot(tt(v), tt(v), dim=0))
    check(xp.linalg.svdvals(x), torch.linalg.svdvals(t))
    check(xp.linalg.matrix_norm(x, ord="nuc"), torch.linalg.matrix_norm(t, "nuc"))
    check(xp.linalg.vector_norm(x, axis=(0, 2), keepdims=True, ord=1),
          torch.linalg.vector_norm(t, 1, (0, 2), True))


# -- real float64 inputs of the new functions, with gradients ------------------------------------

def _grads(fn_e, fn_t, arrays, rng, tol=1e-8):
    """ember's gradients of ``sum(seed * fn(*arrays))`` equal torch.autograd's (float64)."""
    xs = [ember.from_numpy(np.array(a, copy=True)).require_grad() for a in arrays]
    ts = [torch.from_numpy(np.array(a, copy=True)).requires_grad_(True) for a in arrays]
    out, tout = fn_e(*xs), fn_t(*ts)
    check(out, tout, tol)
    seed = rng.standard_normal(tuple(tout.shape))
    out.backward(ember.from_numpy(seed))
    tout.backward(torch.from_numpy(seed))
    for x, t in zip(xs, ts):
        assert x.grad is not None
        check(x.grad, t.grad, tol)


def _sym(rng, shape):
    a = rng.standard_normal(shape)
    return a + np.swapaxes(a, -1, -2)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1)])
def test_eigvalsh_values_and_grads(rng, shape):
    a = _sym(rng, shape)
    for uplo in ("L", "U"):
        _grads(lambda x: L.eigvalsh(x, uplo), lambda x: torch.linalg.eigvalsh(x, uplo), [a], rng)
    check(L.eigvalsh(em(a.astype(np.float32))), torch.linalg.eigvalsh(tt(a.astype(np.float32))))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 2, 2)])
def test_slogdet_values_and_grads(rng, shape):
    a = rng.standard_normal(shape)
    if shape[-1]:
        a = a + 3 * np.eye(shape[-1]) * np.sign(rng.standard_normal(shape[:-1]))[..., None]
    _grads(lambda x: L.slogdet(x).logabsdet, lambda x: torch.linalg.slogdet(x).logabsdet,
           [a], rng)
    check(L.slogdet(em(a)).sign, torch.linalg.slogdet(tt(a)).sign)
    x = em(a).require_grad()
    assert L.slogdet(x).sign.requires_grad is False      # piecewise constant: no gradient


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 5), (2, 3, 4), (2, 4, 3)])
def test_pinv_values_and_grads(rng, shape):
    a = rng.standard_normal(shape)
    _grads(L.pinv, torch.linalg.pinv, [a], rng)
    if shape[-1] == shape[-2]:
        s = _sym(rng, shape)
        _grads(lambda x: L.pinv(x, hermitian=True),
               lambda x: torch.linalg.pinv(x, hermitian=True), [s], rng)


def test_matrix_rank_of_real_matrices(rng):
    for shape, rank in [((4, 4), 2), ((2, 5, 3), 1), ((3, 6), 3)]:
        a = _low_rank(rng, shape, rank, "float64")
        check(L.matrix_rank(em(a)), torch.linalg.matrix_rank(tt(a)))
        s = a @ np.swapaxes(a, -1, -2)
        check(L.matrix_rank(em(s), hermitian=True), torch.linalg.matrix_rank(tt(s), hermitian=True))


@pytest.mark.parametrize("n", [-2, -1, 0, 1, 2, 5])
def test_matrix_power_grads(rng, n):
    a = rng.standard_normal((2, 3, 3)) / 2 + np.eye(3)
    if n == 0:
        out = L.matrix_power(em(a), 0)
        check(out, torch.linalg.matrix_power(tt(a), 0))
        return
    _grads(lambda x: L.matrix_power(x, n), lambda x: torch.linalg.matrix_power(x, n), [a], rng)


# -- no gradients through complex tensors -------------------------------------------------------

def test_complex_result_of_a_tracked_tensor_raises(rng):
    x = em(rng.standard_normal((2, 2))).require_grad()
    z = em(crand(rng, (2, 2)))
    for fn, op in ((lambda: x @ z, "matmul"), (lambda: ember.einsum("ij,jk", x, z), "einsum"),
                   (lambda: x[0].dot(z[0]), "dot"), (lambda: x[0].outer(z[0]), "outer"),
                   (lambda: L.vecdot(x, z), "vecdot")):
        with pytest.raises(ember.KindError, match=op):
            fn()
    with ember.no_grad():
        check(x @ z, tt(x.numpy()).to(torch.complex128) @ tt(z.numpy()))


def test_new_functions_are_documented():
    for fn in (L.eigvalsh, L.slogdet, L.pinv, L.matrix_rank, L.matrix_power, L.vecdot):
        assert fn.__doc__ and ">>>" in fn.__doc__
    for name in ("eigvalsh", "slogdet", "pinv", "matrix_rank", "vecdot", "matrix_power"):
        assert name in L.__all__ and name in xp.linalg.__all__
