"""SiLU and its gradient through the NumPy backend's compiled kernels
(ember/backends/numpy/jit/activations.py) and through its NumPy path: against PyTorch on finite
inputs, and against each other everywhere (infinities and NaN included: ember's documented
values are the NumPy path's, ``x * sigmoid(x)``, NaN at ``-inf``)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from ember.backends.numpy import activation as bnn
from oracle import assert_close, ember_tensor

pytestmark = pytest.mark.numpy_only

SHAPES = [(), (0,), (5,), (3, 4), (2, 0, 3), (64, 33), (4099,)]
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e30, -1e30, 20.0, -20.0, 90.0,
           -90.0, -110.0, 0.5, -0.5]
# rtol, atol: the gradient's 1 + x (1 - s) cancels near x = -1.28, where the two paths' roundings
# (the kernel's fused multiply-adds) differ by a few ulps of 1
TOL = {"float32": (2e-6, 1e-6), "float64": (1e-13, 1e-14)}


@pytest.fixture
def compiled(compiled_kernels, jit_launches, monkeypatch):
    """Compiled kernels from the first call, on every size; the kernels asked for."""
    monkeypatch.setattr(bnn, "JIT_MIN_NUMEL", 1)
    return jit_launches


def _ran_both(compiled, dtype):
    """Whether SiLU's compiled forward and gradient kernels of ``dtype`` ran."""
    ran = {name for name, found in compiled if found}
    return {f"ember_silu_fwd_{dtype}", f"ember_silu_bwd_{dtype}"} <= ran


def _values(rng, shape, dtype, special):
    a = rng.standard_normal(shape) * 4
    if special and a.size >= len(SPECIAL):
        a.flat[:len(SPECIAL)] = SPECIAL
    return np.asarray(a.astype(dtype))


def _silu_and_grad(a, seed):
    x = ember_tensor(np.array(a, copy=True), requires_grad=True)
    y = F.silu(x)
    y.backward(ember.tensor(seed))
    return y.numpy(), x.grad.numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_compiled_silu_matches_torch_on_finite_inputs(compiled, rng, dtype):
    for shape in SHAPES:
        a = _values(rng, shape, dtype, special=False)
        seed = rng.standard_normal(shape).astype(dtype)
        y, gx = _silu_and_grad(a, seed)
        t = torch.tensor(a, requires_grad=True)
        ty = TF.silu(t)
        ty.backward(torch.from_numpy(seed))
        assert_close(ember.tensor(y), ty.detach())
        assert_close(ember.tensor(gx), t.grad, *{"float32": (1e-5, 1e-6),
                                                 "float64": (1e-12, 1e-14)}[dtype])
    assert _ran_both(compiled, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_compiled_silu_matches_the_numpy_path(monkeypatch, compiled, rng, dtype):
    rtol, atol = TOL[dtype]
    for shape in SHAPES:
        a = _values(rng, shape, dtype, special=True)
        seed = rng.standard_normal(shape).astype(dtype)
        got = _silu_and_grad(a, seed)
        runs = len(compiled)
        with monkeypatch.context() as m:
            m.setattr(bnn, "JIT_MIN_NUMEL", 1 << 62)  # the NumPy path
            want = _silu_and_grad(a, seed)
        assert len(compiled) == runs
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)  # NaN where it has NaN
            assert (np.signbit(g) == np.signbit(w))[~np.isnan(w)].all()
    assert _ran_both(compiled, dtype)


def test_silu_documented_values():
    """silu(-inf) is NaN (``-inf * 0``), silu(inf) inf, silu(-0.0) -0.0, and far below zero a
    tiny negative number, not 0."""
    y = F.silu(ember.tensor([-np.inf, np.inf, -0.0, -90.0], dtype="float32")).numpy()
    assert np.isnan(y[0]) and y[1] == np.inf and y[2] == 0.0 and np.signbit(y[2])
    assert -1e-36 < y[3] < 0.0
