"""ember.linalg on matrices holding NaN or an infinity (ember/ops/decompositions.py, norms.py),
both backends: PyTorch's values where PyTorch returns values (NaN positions equal), a typed
error where it raises, and ember's documented value (docs/linalg.md, "NaN and inf") where
PyTorch's own answer depends on its LAPACK build (which NaN pattern a QR or an SVD of an inf
gives, an LU's arithmetic on inf)."""

import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember
from ember.errors import InvalidParameterError
from oracle import ember_tensor

L = ember.linalg
T = torch.linalg
NAN, INF = float("nan"), float("inf")

# symmetric (complex: Hermitian) positive-definite, distinct eigenvalues and singular values
BASE = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
TWIST = np.array([[0.0, 0.3, 0.0], [-0.3, 0.0, 0.1], [0.0, -0.1, 0.0]])


def _base(dtype):
    return BASE + 1j * TWIST if dtype == "complex128" else BASE.astype(dtype)


def _with(a, i, j, value):
    a = a.copy()
    a[i, j] = value
    return a


CASES = {  # the bad entry; (1, 0) and (2, 1) lie in the lower triangle that cholesky/eigh read
    "nan": lambda a: _with(a, 1, 0, NAN),
    "nan_upper": lambda a: _with(a, 0, 1, NAN),
    "inf": lambda a: _with(a, 1, 0, INF),
    "inf_diag": lambda a: _with(a, 0, 0, INF),
    "-inf": lambda a: _with(a, 2, 1, -INF),
    "all_nan": lambda a: np.full_like(a, NAN),
}

# What each family gives per case: "torch" (PyTorch's values), "error" (InvalidParameterError
# where PyTorch raises its LinAlgError), "nan" (the documented NaN result of the bad matrix).
ELEMENTWISE = {}
LU = {"inf": "nan", "inf_diag": "nan", "-inf": "nan"}
SVD = {"nan": "error", "nan_upper": "error", "all_nan": "error",
       "inf": "nan", "inf_diag": "nan", "-inf": "nan"}
EIGH = {"nan": "error", "all_nan": "error", "inf": "nan", "inf_diag": "nan", "-inf": "nan"}
CHOLESKY = {"nan": "error", "all_nan": "error", "inf": "error", "-inf": "error"}
CHOLESKY_UPPER = {"nan_upper": "error", "all_nan": "error"}  # upper=True reads the upper one
QR = {case: "nan" for case in CASES}

B2 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def _rhs(shape, dtype):
    return np.broadcast_to(B2.astype(dtype), tuple(shape[:-2]) + B2.shape).copy()


# name: (ember function, torch function, family, the form of each output of a bad matrix:
# "all" NaN, "triu" NaN on and above the diagonal and 0 below, "zero", "sign" (0, complex NaN))
FUNCTIONS = {
    "det": (L.det, T.det, LU, ["all"]),
    "slogdet": (L.slogdet, T.slogdet, LU, ["sign", "all"]),
    "inv": (L.inv, T.inv, LU, ["all"]),
    "solve": (lambda a: L.solve(a, ember_tensor(_rhs(a.shape, a.dtype.name))),
              lambda a: T.solve(a, torch.from_numpy(_rhs(a.shape, str(a.dtype)[6:]))),
              LU, ["all"]),
    "matrix_power_-2": (lambda a: L.matrix_power(a, -2), lambda a: T.matrix_power(a, -2), LU,
                        ["all"]),
    "matrix_power_3": (lambda a: L.matrix_power(a, 3), lambda a: T.matrix_power(a, 3),
                       ELEMENTWISE, ["all"]),
    "cholesky": (L.cholesky, T.cholesky, CHOLESKY, ["all"]),
    "cholesky_upper": (lambda a: L.cholesky(a, upper=True), lambda a: T.cholesky(a, upper=True),
                       CHOLESKY_UPPER, ["all"]),
    "qr": (L.qr, T.qr, QR, ["all", "triu"]),
    "qr_r": (lambda a: L.qr(a, mode="r").R, lambda a: T.qr(a, mode="r").R, QR, ["triu"]),
    "svd": (L.svd, T.svd, SVD, ["all", "all", "all"]),
    "svdvals": (L.svdvals, T.svdvals, SVD, ["all"]),
    "eigh": (L.eigh, T.eigh, EIGH, ["all", "all"]),
    "eigvalsh": (L.eigvalsh, T.eigvalsh, EIGH, ["all"]),
    "pinv": (L.pinv, T.pinv, SVD, ["all"]),
    "pinv_hermitian": (lambda a: L.pinv(a, hermitian=True), lambda a: T.pinv(a, hermitian=True),
                       EIGH, ["all"]),
    "matrix_rank": (L.matrix_rank, T.matrix_rank, SVD, ["zero"]),
    "matrix_rank_hermitian": (lambda a: L.matrix_rank(a, hermitian=True),
                              lambda a: T.matrix_rank(a, hermitian=True), EIGH, ["zero"]),
    "vector_norm": (L.vector_norm, T.vector_norm, ELEMENTWISE, ["all"]),
    "vector_norm_-inf": (lambda a: L.vector_norm(a, -INF, dim=-1),
                         lambda a: T.vector_norm(a, -INF, dim=-1), ELEMENTWISE, ["all"]),
    "norm": (L.norm, T.norm, ELEMENTWISE, ["all"]),
    "matrix_norm_fro": (L.matrix_norm, T.matrix_norm, ELEMENTWISE, ["all"]),
    "matrix_norm_1": (lambda a: L.matrix_norm(a, 1), lambda a: T.matrix_norm(a, 1),
                      ELEMENTWISE, ["all"]),
    "matrix_norm_-1": (lambda a: L.matrix_norm(a, -1), lambda a: T.matrix_norm(a, -1),
                       ELEMENTWISE, ["all"]),
    "matrix_norm_inf": (lambda a: L.matrix_norm(a, INF), lambda a: T.matrix_norm(a, INF),
                        ELEMENTWISE, ["all"]),
    "matrix_norm_-inf": (lambda a: L.matrix_norm(a, -INF), lambda a: T.matrix_norm(a, -INF),
                         ELEMENTWISE, ["all"]),
    "matrix_norm_nuc": (lambda a: L.matrix_norm(a, "nuc"), lambda a: T.matrix_norm(a, "nuc"),
                        SVD, ["all"]),
    "matrix_norm_2": (lambda a: L.matrix_norm(a, 2), lambda a: T.matrix_norm(a, 2), SVD,
                      ["all"]),
    "matrix_norm_-2": (lambda a: L.matrix_norm(a, -2), lambda a: T.matrix_norm(a, -2), SVD,
                       ["all"]),
}
VECTORS = {"qr": (0, 1), "qr_r": (0,), "svd": (0, 2), "eigh": (1,)}  # outputs up to sign/phase


def _arrays(out):
    parts = out if isinstance(out, tuple) else (out,)
    return [np.asarray(p.detach().numpy() if isinstance(p, torch.Tensor) else p.numpy())
            for p in parts]


def _canon(v, rows):
    """Columns (rows: rows) of ``v`` scaled by the inverse phase of their largest entry, so that
    vectors determined up to sign (complex: phase) compare."""
    v = np.swapaxes(v, -1, -2) if rows else v
    idx = np.argmax(np.abs(np.nan_to_num(v)), axis=-2)[..., None, :]
    top = np.take_along_axis(v, idx, axis=-2)
    phase = np.where(np.abs(top) > 0, top / np.where(np.abs(top) > 0, np.abs(top), 1), 1)
    v = v / phase
    return np.swapaxes(v, -1, -2) if rows else v


def _comparable(name, arrays):
    for i in VECTORS.get(name, ()):
        arrays[i] = _canon(arrays[i], rows=(name == "svd" and i == 2) or name == "qr_r"
                           or (name == "qr" and i == 1))
    return arrays


def _fill(expected, bad, forms):
    """The documented result: ``expected`` (PyTorch's for finite matrices) with the batch
    elements ``bad`` replaced by each output's NaN form."""
    out = []
    for e, form in zip(expected, forms):
        e = np.array(e, copy=True)
        m = bad.reshape(bad.shape + (1,) * (e.ndim - bad.ndim))
        m = np.broadcast_to(m, e.shape)
        if form == "all":
            e[m] = NAN
        elif form == "triu":
            e[m & np.triu(np.ones(e.shape[-2:], bool))] = NAN
        elif form == "zero" or (form == "sign" and e.dtype.kind != "c"):
            e[m] = 0
        else:
            e[m] = complex(NAN, NAN)
        out.append(e)
    return out


def _assert_same(name, actual, expected):
    actual, expected = _comparable(name, actual), _comparable(name, expected)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape and a.dtype == e.dtype, (a.shape, a.dtype, e.shape, e.dtype)
        if a.dtype.kind in "fc":
            np.testing.assert_allclose(a, e, rtol=1e-9, atol=1e-12, equal_nan=True)
        else:
            np.testing.assert_array_equal(a, e)


INF_SCRIPT = """
import numpy as np, ember
a = np.array([[4.0, 1.0, 0.5], [np.inf, 3.0, 0.2], [0.5, 0.2, 2.0]])
L = ember.linalg
x = ember.tensor(a, dtype="float64").require_grad()
L.det(x).backward()
outs = [*L.svd(x), L.svdvals(x), L.pinv(x), L.matrix_norm(x, "nuc"), x.grad]
print(all(np.isnan(t.numpy()).all() for t in outs), L.matrix_rank(x).item())
"""


def test_svd_of_inf_returns():
    """OpenBLAS's SVD of a matrix holding inf never returns: ember's SVD-based functions (and
    det's gradient, an SVD) do, with NaN (in a child process, which a hang cannot stop)."""
    root = os.path.dirname(os.path.dirname(ember.__file__))
    env = dict(os.environ, PYTHONPATH=root)
    try:
        done = subprocess.run([sys.executable, "-c", INF_SCRIPT], env=env, capture_output=True,
                              text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("ember.linalg on a matrix holding inf did not return in 120 s")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "0"]


@pytest.mark.filterwarnings("error")  # no NumPy warning reaches the user
@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("name", list(FUNCTIONS))
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_nonfinite_table(name, case, batched, dtype):
    """Each function on a matrix with one NaN, +inf or -inf entry, or all NaN, alone and as the
    second matrix of a batch whose first is finite (which keeps PyTorch's values)."""
    ember_fn, torch_fn, family, forms = FUNCTIONS[name]
    base = _base(dtype)
    a = CASES[case](base)
    clean = np.stack([base, base]) if batched else base
    a = np.stack([base, a]) if batched else a
    bad = np.array([False, True]) if batched else np.array(True)
    kind = family.get(case, "torch")
    if kind == "error":
        with pytest.raises(torch.linalg.LinAlgError):
            torch_fn(torch.from_numpy(a))
        with pytest.raises(InvalidParameterError) as info:
            ember_fn(ember_tensor(a))
        assert ("(batch element (1,))" in str(info.value)) == batched
        return
    actual = _arrays(ember_fn(ember_tensor(a)))
    if kind == "torch":
        expected = _arrays(torch_fn(torch.from_numpy(a)))
    else:
        expected = _fill(_arrays(torch_fn(torch.from_numpy(clean))), bad, forms)
    _assert_same(name, actual, expected)


@pytest.mark.filterwarnings("error")
def test_nonfinite_table_float32():
    """float32 takes the same rules (a few functions of each family)."""
    a = np.stack([BASE, _with(BASE, 1, 0, NAN), _with(BASE, 1, 0, INF)]).astype(np.float32)
    t = ember_tensor(a)
    det = L.det(t).numpy()
    assert det.dtype == np.float32 and np.isnan(det[1:]).all()
    np.testing.assert_allclose(det[0], np.linalg.det(BASE), rtol=1e-5)
    assert np.isnan(L.inv(t).numpy()[1:]).all()
    with pytest.raises(InvalidParameterError, match=r"batch element \(1,\)"):
        L.cholesky(t)
    with pytest.raises(InvalidParameterError,
                       match=r"svdvals: A \(batch element \(1,\)\) holds NaN"):
        L.svdvals(t)
    s = L.svdvals(ember_tensor(a[[0, 2]])).numpy()
    assert s.dtype == np.float32 and np.isnan(s[1]).all() and np.isfinite(s[0]).all()


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_reads_one_triangle(uplo):
    """NaN in the triangle eigh does not read changes nothing (PyTorch's values); in the one it
    reads, it raises, naming the triangle."""
    unread = _with(BASE, 0, 1, NAN) if uplo == "L" else _with(BASE, 1, 0, NAN)
    read = _with(BASE, 1, 0, NAN) if uplo == "L" else _with(BASE, 0, 1, NAN)
    np.testing.assert_allclose(L.eigvalsh(ember_tensor(unread), UPLO=uplo).numpy(),
                               T.eigvalsh(torch.from_numpy(unread), UPLO=uplo).numpy(),
                               rtol=1e-12)
    with pytest.raises(torch.linalg.LinAlgError):
        T.eigh(torch.from_numpy(read), UPLO=uplo)
    side = "lower" if uplo == "L" else "upper"
    with pytest.raises(InvalidParameterError, match=f"holds NaN in its {side} triangle"):
        L.eigh(ember_tensor(read), UPLO=uplo)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("left", [True, False])
def test_solve_nonfinite_rhs(left):
    """A column of B (a row, for left=False) holding NaN gives a NaN column (row) of X, as in
    PyTorch; one holding an infinity too (PyTorch's LU arithmetic mixes NaN and inf there); the
    others keep PyTorch's values."""
    b = np.array([[1.0, NAN, 2.0, 1.0], [3.0, 1.0, 4.0, INF], [5.0, 1.0, 6.0, 1.0]])
    b = b if left else b.T.copy()
    x = L.solve(ember_tensor(BASE), ember_tensor(b), left=left).numpy()
    tx = T.solve(torch.from_numpy(BASE), torch.from_numpy(b), left=left).numpy()
    if not left:
        x, tx = x.T, tx.T
    np.testing.assert_allclose(x[:, [0, 2]], tx[:, [0, 2]], rtol=1e-12)
    np.testing.assert_array_equal(tx[:, 1], np.full(3, NAN))
    np.testing.assert_array_equal(x[:, 1:2], np.full((3, 1), NAN))
    np.testing.assert_array_equal(x[:, 3], np.full(3, NAN))


def test_nan_with_a_zero_pivot_is_singular():
    """A NaN matrix whose LU meets an exactly zero pivot (a zero column) is singular for inv and
    solve, as in PyTorch; det is NaN (NumPy's LAPACK wrapper said 0)."""
    a = np.array([[0.0, NAN], [0.0, 1.0]])
    with pytest.raises(torch.linalg.LinAlgError):
        T.inv(torch.from_numpy(a))
    with pytest.raises(InvalidParameterError, match="is singular"):
        L.inv(ember_tensor(a))
    assert np.isnan(T.det(torch.from_numpy(a)).item())
    assert np.isnan(L.det(ember_tensor(a)).item())


def test_cholesky_inf_minus_inf_pivot():
    """inf - inf makes a NaN pivot: not positive-definite, as PyTorch (LAPACK's potrf) says,
    with no NaN in the input."""
    a = np.array([[INF, INF], [INF, INF]])
    with pytest.raises(torch.linalg.LinAlgError):
        T.cholesky(torch.from_numpy(a))
    with pytest.raises(InvalidParameterError, match="cholesky: A is not positive-definite"):
        L.cholesky(ember_tensor(a))


def test_cholesky_names_the_batch_element():
    """Both backends name the first matrix that is not positive-definite."""
    a = np.stack([BASE, BASE, -BASE])
    with pytest.raises(InvalidParameterError, match=r"A \(batch element \(2,\)\) is not"):
        L.cholesky(ember_tensor(a))


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("value", [NAN, INF])
def test_det_slogdet_grads_nonfinite(value):
    """The gradients of det and slogdet: PyTorch's for the finite matrix of the batch, NaN for
    the one holding NaN or inf."""
    a = np.stack([BASE, _with(BASE, 1, 0, value)])
    for ember_fn, torch_fn in [(L.det, T.det), (lambda x: L.slogdet(x)[1],
                                                 lambda x: T.slogdet(x)[1])]:
        x = ember_tensor(a.copy(), requires_grad=True)
        ember_fn(x).sum().backward()
        t = torch.from_numpy(a.copy()).requires_grad_(True)
        torch_fn(t).sum().backward()
        g = x.grad.numpy()
        np.testing.assert_allclose(g[0], t.grad.numpy()[0], rtol=1e-9)
        assert np.isnan(g[1]).all()


