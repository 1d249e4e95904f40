"""GELU (exact and tanh) and its gradient through the NumPy backend's compiled kernels
(ember/backends/numpy/jit/activations.py) and through its NumPy path (float32 computed in
float32): both against PyTorch, and against each other."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from ember.backends.numpy import jit
from ember.backends.numpy import activation as bnn
from ember.backends.numpy.jit import activations
from oracle import assert_close, assert_unchanged, ember_tensor, snapshot

pytestmark = pytest.mark.numpy_only

GRAD_TOL = {"float64": (1e-7, 1e-9), "float32": (1e-4, 1e-5)}  # as tests/nn/test_functional.py
SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (64, 33), (4099,)]
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e30, -1e30, 5.0, -5.0, 9.0, -9.0,
           -13.0, 0.5, -0.5]


@pytest.fixture
def compiled(monkeypatch):
    """Compiled kernels from the first call, on every size."""
    if not jit.enabled():
        pytest.skip("no C compiler here (or EMBER_JIT=0): the NumPy path is tested elsewhere")
    monkeypatch.setenv("EMBER_JIT", "sync")
    monkeypatch.setattr(bnn, "JIT_MIN_NUMEL", 1)


@pytest.fixture
def numpy_path(monkeypatch):
    monkeypatch.setenv("EMBER_JIT", "0")


def _values(rng, shape, dtype):
    a = rng.standard_normal(shape) * 3
    if a.size >= len(SPECIAL):
        a.flat[:len(SPECIAL)] = SPECIAL
    return np.asarray(a.astype(dtype))


def _gelu_and_grad(a, approximate, seed):
    x = ember_tensor(np.array(a, copy=True), requires_grad=True)
    before = snapshot(x)
    y = F.gelu(x, approximate)
    y.backward(ember.tensor(seed))
    assert_unchanged([x], before)
    return y, x.grad


def _torch_gelu_and_grad(a, approximate, seed):
    t = torch.tensor(a, requires_grad=True)
    y = TF.gelu(t, approximate=approximate)
    y.backward(torch.from_numpy(seed))
    return y, t.grad


def _check_against_torch(rng, dtype, approximate):
    for shape in SHAPES:
        a = _values(rng, shape, dtype)
        seed = rng.standard_normal(shape).astype(dtype)
        y, gx = _gelu_and_grad(a, approximate, seed)
        ty, tg = _torch_gelu_and_grad(a, approximate, seed)
        # PyTorch's float32 exact GELU of +inf is nan or inf by CPU kernel (AVX-512 or AVX2, the
        # vectorized or the scalar loop); ember documents inf
        ty = ty.detach().masked_fill(torch.from_numpy(np.asarray(a == np.inf)), np.inf)
        assert_close(y, ty)
        assert_close(gx, tg, *GRAD_TOL[dtype])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_compiled_gelu_matches_torch(compiled, jit_launches, rng, dtype, approximate):
    _check_against_torch(rng, dtype, approximate)
    for grad in (False, True):
        name, _ = activations.gelu_source(dtype, approximate, grad)
        assert (name, True) in jit_launches


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numpy_path_gelu_matches_torch(numpy_path, rng, dtype, approximate):
    _check_against_torch(rng, dtype, approximate)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_compiled_gelu_matches_the_numpy_path(monkeypatch, rng, dtype, approximate):
    if not jit.enabled():
        pytest.skip("no C compiler here (or EMBER_JIT=0)")
    a = np.asarray((rng.standard_normal((257, 65)) * 4).astype(dtype))
    a.flat[:len(SPECIAL)] = SPECIAL
    g = np.asarray(rng.standard_normal(a.shape).astype(dtype))
    monkeypatch.setattr(bnn, "JIT_MIN_NUMEL", 1)
    monkeypatch.setenv("EMBER_JIT", "0")
    want = bnn.nn_gelu(a, approximate), bnn.nn_gelu_grad(g, a, approximate)
    monkeypatch.setenv("EMBER_JIT", "sync")
    got = bnn.nn_gelu(a, approximate), bnn.nn_gelu_grad(g, a, approximate)
    for w, v in zip(want, got):
        assert v.dtype == w.dtype and v.shape == w.shape
        assert_close(ember.from_numpy(v), w, *GRAD_TOL[dtype])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("grad", [False, True])
def test_compiled_exact_gelu_gives_the_same_bits_in_vectors_and_elementwise(compiled, rng, grad,
                                                                          threads):
    # float32 exact GELU runs whole pairs of vectors through intrinsics where the compiler targets
    # AVX-512 or AVX2 (32 or 16 elements) and the rest through the portable loop: every element
    # must get the same bits either way (15 elements at a time take the portable loop only);
    # values cover the underflow of exp(-x*x/2) (|x| > 13.2), non-finite inputs and 300,000
    # elements (threads)
    x = np.concatenate([rng.standard_normal(200_000) * 4, np.linspace(-15, 15, 100_003),
                        SPECIAL]).astype(np.float32)
    g = rng.standard_normal(x.size).astype(np.float32)
    name, source = activations.gelu_source("float32", "none", grad)
    kernel = jit.kernel(name, source)
    def run(lo, hi, nt):
        out = np.empty(hi - lo, np.float32)
        arrays = (g[lo:hi], x[lo:hi], out) if grad else (x[lo:hi], out)
        kernel(arrays, (hi - lo, nt), ())
        return out
    whole = run(0, x.size, threads)
    pieces = np.concatenate([run(lo, min(lo + 15, x.size), 1) for lo in range(0, x.size, 15)])
    assert np.array_equal(whole.view(np.int32), pieces.view(np.int32))
    assert whole[x.size - len(SPECIAL) + 2] == np.inf or grad  # GELU(+inf) = inf


def test_compiled_gelu_non_contiguous_and_mixed_inputs_fall_back(compiled, rng):
    base = np.asarray(rng.standard_normal((40, 30)).astype(np.float32))
    for a in (base.T, base[:, ::2], base[::-1]):
        seed = np.ascontiguousarray(rng.standard_normal(a.shape).astype(np.float32))
        y, gx = _gelu_and_grad(a, "none", seed)
        ty, tg = _torch_gelu_and_grad(np.ascontiguousarray(a), "none", seed)
        assert_close(y, ty)
        assert_close(gx, tg, *GRAD_TOL["float32"])
    # the gradient of another dtype than x's takes the NumPy path
    a = np.asarray(rng.standard_normal((8, 8)).astype(np.float32))
    g64 = rng.standard_normal((8, 8))
    got = bnn.nn_gelu_grad(g64, a, "none")
    want = torch.ops.aten.gelu_backward(torch.from_numpy(g64), torch.from_numpy(a).double())
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_gelu_half_types_compute_in_float32(rng, dtype):
    a = rng.standard_normal((50, 7)).astype(np.float32) * 3
    x = ember.tensor(a).cast(dtype)
    t = torch.from_numpy(a).to(getattr(torch, dtype))
    for approximate in ("none", "tanh"):
        assert_close(F.gelu(x, approximate), TF.gelu(t.float(), approximate=approximate).to(t.dtype))


def _exact_phi(v):
    return 0.5 * math.erfc(-v / math.sqrt(2.0))


@pytest.mark.parametrize("path", ["compiled", "numpy_path"])
def test_float32_gelu_is_accurate_in_float32(request, path):
    """The float32 GELU and its gradient have float32 accuracy far in the tails too, where the
    float32 sum 1 + erf(x/sqrt 2) would lose them: relative 1e-6 up to |x| = 4, 1e-5 up to 12
    (the rounding of x*x, times x*x/2, in exp's argument)."""
    request.getfixturevalue(path)
    x = np.linspace(-12, 12, 24001).astype(np.float32)
    xd = x.astype(np.float64)
    phi = np.array([_exact_phi(v) for v in xd])
    want = xd * phi
    want_grad = phi + xd * np.exp(-0.5 * xd * xd) / math.sqrt(2 * math.pi)
    got = bnn.nn_gelu(x, "none")
    got_grad = bnn.nn_gelu_grad(np.ones_like(x), x, "none")
    assert got.dtype == np.float32 and got_grad.dtype == np.float32
    near = np.abs(x) <= 4
    for rtol, part in ((1e-6, near), (1e-5, ~near)):
        np.testing.assert_allclose(got[part], want[part], rtol=rtol, atol=1e-37)
        np.testing.assert_allclose(got_grad[part], want_grad[part], rtol=2 * rtol,
                                   atol=1e-7)                      # a zero at -0.75
