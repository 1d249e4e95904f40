"""The NumPy backend's compiled row programs (ember/backends/numpy/jit/rows.py): softmax,
log_softmax, layer_norm and their gradients through the compiled kernels agree with PyTorch and
with the NumPy path, NaN and infinities included, and leave their inputs unchanged.

PyTorch computes the expected values in float64 from the same inputs, rounded to the dtype at
the end (on rows of 70000 elements its own float32 sums are less accurate than the tolerance).
The float32 gradients of layer_norm's weight and bias are sums over R rows of float32 products,
each rounded: they get an absolute tolerance growing as sqrt(R) (PyTorch's float32 values are
as far from the float64 ones)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from ember.backends.numpy import jit
from ember.backends.numpy.jit import rows
from oracle import assert_close, assert_unchanged, snapshot

pytestmark = pytest.mark.numpy_only

SHAPES = [(1, 1), (3, 7), (4, 5, 33), (37, 1000), (2, 70000)]
DTYPES = ["float32", "float64"]


@pytest.fixture
def compiled(monkeypatch):
    """Compiled kernels for every size (compiled on this thread); the list of the kernels that
    ran, as (op, dtype name)."""
    if not jit.enabled():
        pytest.skip("no C compiler here (or EMBER_JIT=0): the NumPy path is tested elsewhere")
    monkeypatch.setenv("EMBER_JIT", "sync")
    monkeypatch.setattr(rows, "MIN_NUMEL", 0)
    ran = []
    real = rows.kernel

    def spy(op, dtype):
        k = real(op, dtype)
        if k is not None:
            ran.append((op, np.dtype(dtype).name))
        return k

    monkeypatch.setattr(rows, "kernel", spy)
    return ran


def _numpy_path(monkeypatch):
    monkeypatch.setattr(rows, "MIN_NUMEL", 1 << 62)


def _special_rows(x, huge=3e38):
    """Rows with a NaN, a +inf, all -inf, some -inf, and huge and tiny values (where x has
    enough rows), as PyTorch gives them: nan rows, zero probability for -inf."""
    x = x.copy()
    flat = x.reshape(-1, x.shape[-1])
    specials = [(0, np.nan), (1, np.inf), (2, -np.inf), (3, -np.inf), (4, huge), (5, -1e-40)]
    for row, value in specials:
        if row < flat.shape[0]:
            if row in (2,):
                flat[row] = value
            elif row == 3:
                flat[row, ::2] = value
            else:
                flat[row, flat.shape[1] // 2] = value
    return x


def _torch64(fn, arrays, dtype, seed, needs):
    """PyTorch's values and gradients computed in float64, rounded to ``dtype``."""
    ts = [torch.from_numpy(np.array(a, np.float64)).requires_grad_(n)
          for a, n in zip(arrays, needs)]
    out = fn(*ts)
    out.backward(torch.from_numpy(seed.astype(np.float64)))
    cast = getattr(torch, dtype)
    return out.detach().to(cast), [t.grad.to(cast) if n else None for t, n in zip(ts, needs)]


def _ember(fn, arrays, dtype, seed, needs):
    """ember's values and gradients; ``arrays`` keep their layout (already of ``dtype``)."""
    ts = [ember.from_numpy(np.asarray(a, dtype) if a.dtype != dtype else a) for a in arrays]
    ts = [t.require_grad() if n else t for t, n in zip(ts, needs)]
    before = snapshot(*ts)
    out = fn(*ts)
    out.backward(ember.tensor(seed.astype(dtype)))
    assert_unchanged(ts, before)
    return out, [t.grad if n else None for t, n in zip(ts, needs)]


def _check(fn, tfn, arrays, dtype, rng, monkeypatch, compiled, needs=None, norm_dims=None):
    """Compiled against PyTorch (float64) and against the NumPy path, values and gradients;
    ``norm_dims``: layer_norm's normalized dims (its weight and bias gradients sum over rows)."""
    needs = needs or [True] * len(arrays)
    seed = rng.standard_normal(arrays[0].shape)
    ran = len(compiled)
    out, grads = _ember(fn, arrays, dtype, seed, needs)
    assert len(compiled) - ran == 2, compiled[ran:]  # the forward and the backward kernels
    t_out, t_grads = _torch64(tfn, arrays, dtype, seed, needs)
    tols = [{}] * len(arrays)
    if norm_dims is not None and dtype == "float32":
        summed = np.prod(arrays[0].shape[:arrays[0].ndim - norm_dims])
        tols = [{}] + [{"atol": 4e-6 * np.sqrt(summed)}] * (len(arrays) - 1)
    assert_close(out, t_out)
    for g, tg, tol in zip(grads, t_grads, tols):
        if tg is not None:
            assert_close(g, tg, **tol)
    with monkeypatch.context() as m:
        _numpy_path(m)
        n_out, n_grads = _ember(fn, arrays, dtype, seed, needs)
    assert len(compiled) - ran == 2
    # the NumPy path sums float32 in float32, in another order
    loose = {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else {}
    assert_close(out, n_out.numpy(), **loose)
    for g, ng, tol in zip(grads, n_grads, tols):
        if ng is not None:
            assert_close(g, ng.numpy(), **{**loose, **tol})


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("log", [False, True])
def test_softmax_compiled_matches_torch_and_numpy_path(rng, monkeypatch, compiled, dtype, log):
    fn = F.log_softmax if log else F.softmax
    tfn = torch.log_softmax if log else torch.softmax
    for shape in SHAPES:
        x = rng.standard_normal(shape) * 4
        for arr in (x, _special_rows(x)):
            _check(lambda t: fn(t, -1), lambda t: tfn(t, -1), [arr.astype(dtype)], dtype, rng,
                   monkeypatch, compiled)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_non_contiguous_inputs_are_compiled(rng, monkeypatch, compiled, log):
    fn = F.log_softmax if log else F.softmax
    tfn = torch.log_softmax if log else torch.softmax
    x = rng.standard_normal((40, 30)).astype("float32")
    for arr in (x.T, x[::2], x[:, ::3], x[::-1]):
        assert not arr.flags.c_contiguous
        _check(lambda t: fn(t, -1), lambda t: tfn(t, -1), [arr], "float32", rng, monkeypatch,
               compiled)


def test_softmax_other_axes_and_dtypes_take_the_numpy_path(rng, compiled):
    x = rng.standard_normal((6, 50))
    t = ember.tensor(x)
    assert_close(F.softmax(t, 0), torch.softmax(torch.from_numpy(x), 0))
    assert_close(F.log_softmax(t.cast("float16"), 1),
                 torch.log_softmax(torch.from_numpy(x).half(), 1), rtol=2e-3, atol=2e-3)
    assert compiled == []


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_empty_and_one_element_rows(rng, monkeypatch, compiled, dtype):
    for shape in [(0, 5), (5, 0)]:
        for fn, tfn in ((F.softmax, torch.softmax), (F.log_softmax, torch.log_softmax)):
            x = np.zeros(shape, dtype)
            assert_close(fn(ember.tensor(x), -1), tfn(torch.from_numpy(x), -1))
    assert compiled == []  # nothing to compute
    x = rng.standard_normal((7, 1)).astype(dtype)
    _check(lambda t: F.softmax(t, 1), lambda t: torch.softmax(t, 1), [x], dtype, rng,
           monkeypatch, compiled)


def _layer_norm_case(rng, shape, norm, affine, dtype, special=False):
    x = rng.standard_normal(shape) * 3 + 1
    if special:  # huge: its square stays finite in float32 (else PyTorch's float64 differs)
        x = _special_rows(x.reshape(-1, int(np.prod(norm))), 1e18).reshape(shape)
    arrays = [x.astype(dtype)]
    if affine in ("both", "weight"):
        arrays.append(rng.standard_normal(norm).astype(dtype))
    if affine in ("both", "bias"):
        arrays.append(rng.standard_normal(norm).astype(dtype))
    return arrays


def _ln(norm, affine):
    def call(x, *wb):
        w = wb[0] if affine in ("both", "weight") else None
        b = wb[-1] if affine in ("both", "bias") else None
        return F.layer_norm(x, norm, w, b, 1e-5)

    def tcall(x, *wb):
        w = wb[0] if affine in ("both", "weight") else None
        b = wb[-1] if affine in ("both", "bias") else None
        return TF.layer_norm(x, norm, w, b, 1e-5)

    return call, tcall


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("affine", ["both", "weight", "bias", "none"])
def test_layer_norm_compiled_matches_torch_and_numpy_path(rng, monkeypatch, compiled, dtype,
                                                          affine):
    cases = [((1, 1), (1,)), ((3, 7), (7,)), ((4, 5, 33), (33,)), ((4, 5, 33), (5, 33)),
             ((37, 1000), (1000,)), ((2, 70000), (70000,))]
    for shape, norm in cases:
        fn, tfn = _ln(norm, affine)
        for special in (False, True):
            arrays = _layer_norm_case(rng, shape, norm, affine, dtype, special)
            _check(fn, tfn, arrays, dtype, rng, monkeypatch, compiled, norm_dims=len(norm))


def test_layer_norm_some_gradients_only(rng, monkeypatch, compiled):
    fn, tfn = _ln((40,), "both")
    arrays = _layer_norm_case(rng, (9, 40), (40,), "both", "float32")
    for needs in ([False, True, False], [False, False, True], [True, False, False],
                  [False, True, True]):
        _check(fn, tfn, arrays, "float32", rng, monkeypatch, compiled, needs, 1)


def test_layer_norm_non_contiguous_and_mixed_dtypes(rng, monkeypatch, compiled):
    fn, tfn = _ln((30,), "both")
    x, w, b = _layer_norm_case(rng, (40, 30), (30,), "both", "float64")
    for arr in (x[::2], x[:, ::-1], np.repeat(x, 2, axis=1)[:, ::2]):
        _check(fn, tfn, [arr, w, b], "float64", rng, monkeypatch, compiled, norm_dims=1)
    ran = len(compiled)
    t = F.layer_norm(ember.tensor(x.astype("float32")), (30,), ember.tensor(w), ember.tensor(b))
    assert t.dtype.name == "float64" and len(compiled) == ran  # float32 x, float64 w: NumPy path
    assert_close(t, TF.layer_norm(torch.from_numpy(x.astype("float32")).double(), (30,),
                                  torch.from_numpy(w), torch.from_numpy(b)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_layer_norm_half_precision_takes_the_numpy_path(rng, compiled, dtype):
    x = rng.standard_normal((8, 100))
    t = ember.tensor(x).cast(dtype)
    out = F.layer_norm(t, (100,), ember.ones(100, dtype=dtype), ember.zeros(100, dtype=dtype))
    expected = TF.layer_norm(torch.from_numpy(x).to(getattr(torch, dtype)), (100,))
    assert_close(out, expected, rtol=1e-2, atol=1e-2)
    assert compiled == []


def test_layer_norm_backward_without_its_kernel_recomputes_xhat(rng, monkeypatch, compiled):
    """A compiled forward whose backward kernel is not there (still compiling) takes the NumPy
    path from the saved statistics."""
    fn, tfn = _ln((64,), "both")
    arrays = _layer_norm_case(rng, (20, 64), (64,), "both", "float32")
    seed = rng.standard_normal((20, 64))
    real = rows.kernel
    monkeypatch.setattr(rows, "kernel",
                        lambda op, dt: None if op == "layer_norm_grads" else real(op, dt))
    out, grads = _ember(fn, arrays, "float32", seed, [True] * 3)
    t_out, t_grads = _torch64(tfn, arrays, "float32", seed, [True] * 3)
    assert_close(out, t_out)
    assert_close(grads[0], t_grads[0])
    for g, tg in zip(grads[1:], t_grads[1:]):
        assert_close(g, tg, atol=4e-6 * np.sqrt(20))


@pytest.mark.parametrize("dtype", DTYPES)
def test_two_threads_above_the_parallel_size(rng, monkeypatch, compiled, dtype):
    before = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        shape = (600, 500)
        assert np.prod(shape) >= rows.PARALLEL_NUMEL
        x = rng.standard_normal(shape).astype(dtype)
        _check(lambda t: F.softmax(t, -1), lambda t: torch.softmax(t, -1), [x], dtype, rng,
               monkeypatch, compiled)
        _check(lambda t: F.log_softmax(t, 1), lambda t: torch.log_softmax(t, 1), [x], dtype, rng,
               monkeypatch, compiled)
        fn, tfn = _ln((500,), "both")
        _check(fn, tfn, _layer_norm_case(rng, shape, (500,), "both", dtype), dtype, rng,
               monkeypatch, compiled, norm_dims=1)
    finally:
        ember.set_num_threads(before)


def test_sources_are_rendered_once_per_op_and_dtype():
    a = rows.source("softmax", np.float32)
    assert rows.source("softmax", np.dtype("float32")) is a
    assert rows.source("softmax", np.float64) != a
    assert "ember_rows_layer_norm_grads_f64" in rows.source("layer_norm_grads", np.float64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_compiled_matches_torch_and_numpy_path(rng, monkeypatch, compiled, dtype,
                                                             reduction):
    for N, C in ((1, 64), (3, 70), (37, 1000), (2, 70000)):
        x = rng.standard_normal((N, C)) * 4
        t = rng.integers(0, C, N)
        xd = x.astype(dtype)
        for arr in (xd, _special_rows(xd), xd.repeat(2, axis=1)[:, ::2]):
            seed = rng.standard_normal(() if reduction != "none" else (N,))
            ran = len(compiled)
            loss, (gx,) = _ember(lambda a: F.cross_entropy(a, ember.tensor(t),
                                                           reduction=reduction),
                                 [arr], dtype, seed, [True])
            assert [op for op, _ in compiled[ran:]] == ["cross_entropy", "cross_entropy_grad"]
            t_loss, (t_gx,) = _torch64(lambda a: TF.cross_entropy(a, torch.from_numpy(t),
                                                                  reduction=reduction),
                                       [arr], dtype, seed, [True])
            assert_close(loss, t_loss)
            assert_close(gx, t_gx)
            with monkeypatch.context() as m:
                _numpy_path(m)
                n_loss, (n_gx,) = _ember(lambda a: F.cross_entropy(a, ember.tensor(t),
                                                                   reduction=reduction),
                                         [arr], dtype, seed, [True])
            loose = {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else {}
            assert_close(loss, n_loss.numpy(), **loose)
            assert_close(gx, n_gx.numpy(), **loose)


def test_cross_entropy_backward_without_its_kernel(rng, monkeypatch, compiled):
    """A compiled forward whose backward kernel is not there takes the NumPy steps."""
    x = rng.standard_normal((30, 50)).astype("float32")
    t = rng.integers(0, 50, 30)
    real = rows.kernel
    monkeypatch.setattr(rows, "kernel",
                        lambda op, dt: None if op == "cross_entropy_grad" else real(op, dt))
    seed = rng.standard_normal(())
    loss, (gx,) = _ember(lambda a: F.cross_entropy(a, ember.tensor(t)), [x], "float32", seed,
                         [True])
    t_loss, (t_gx,) = _torch64(lambda a: TF.cross_entropy(a, torch.from_numpy(t)), [x],
                               "float32", seed, [True])
    assert_close(loss, t_loss)
    assert_close(gx, t_gx)


def test_cross_entropy_kernel_gives_nan_for_a_target_out_of_range(compiled):
    """The op checks targets first; the kernel itself stays inside the row."""
    k = rows.kernel("cross_entropy", np.float64)
    x = np.zeros((2, 3))
    loss, mx, lse = np.empty(2), np.empty(2), np.empty(2)
    k((x, np.array([3, -1], np.int64), loss, mx, lse), (2, 3, 1), ())
    assert np.isnan(loss).all() and np.allclose(lse, np.log(3.0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("L, S", [(1, 1), (5, 5), (3, 7), (7, 3), (64, 64), (20, 37), (37, 20)])
def test_causal_attention_softmax_matches_torch_and_numpy_path(rng, monkeypatch, compiled, dtype,
                                                               L, S):
    """Attention's causal softmax row program (scale, mask and softmax in one): its weights and
    output equal the NumPy path's (exact zeros above the diagonal, NaN rows where a score is NaN
    or +inf), and its output PyTorch's causal scaled_dot_product_attention on the finite rows."""
    from ember.backends.numpy import attention as batt
    q, k, v = (rng.standard_normal((2, 3, n, 4)).astype(dtype) for n in (L, S, S))
    if L > 2:
        q[0, 0, 1, 0] = np.nan
        q[1, 2, 2, :] = np.inf
        q[0, 1, -1, :] *= 1000.0  # scores far below the row's max: weights exactly 0
    args = (None, None, True, 0.37, 1, 1, None, 1.0)
    got, saved = batt.nn_attention(q, k, v, *args)
    assert ("softmax_causal", dtype) in compiled
    _numpy_path(monkeypatch)
    want, wsaved = batt.nn_attention(q, k, v, *args)
    tol = 1e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(saved[3], wsaved[3], rtol=tol, atol=tol)
    above = ~np.tri(L, S, dtype=bool)
    finite_rows = np.isfinite(wsaved[3]).all(axis=-1)
    assert (saved[3][..., above][finite_rows[..., None].repeat(S, -1)[..., above]] == 0).all()
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)  # NaN where the NumPy path has it
    # PyTorch on the rows without a NaN or inf (its fused kernels word those rows differently)
    tq, tk, tv = (torch.from_numpy(a.astype(np.float64)) for a in (q, k, v))
    ref = TF.scaled_dot_product_attention(tq, tk, tv, is_causal=True, scale=0.37).numpy()
    rows = np.isfinite(got).all(axis=-1)
    np.testing.assert_allclose(got[rows], ref[rows].astype(dtype), rtol=10 * tol, atol=10 * tol)
