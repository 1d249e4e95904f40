"""The Adam/AdamW step through the NumPy backend's compiled kernel (ember/backends/numpy/jit/
optim.py): the NumPy kernel's values bit for bit (NaN's sign bit aside) for every combination
of the settings that choose operations, the buffers updated in place as there, and the NumPy
path kept where the kernel does not apply."""

import itertools

import numpy as np
import pytest
import torch

import ember
from ember.backends.numpy import optim as bopt
from ember.backends.numpy.jit import optim as jopt

pytestmark = pytest.mark.numpy_only


def _step(rng, dtype, shape, compiled_path, monkeypatch, **kw):
    """(new p, m, v, vmax) of one step from the same state, by either path."""
    state = [np.asarray(rng.standard_normal(shape), dtype) for _ in range(2)]
    state += [np.asarray(np.abs(rng.standard_normal(shape)), dtype) for _ in range(2)]
    p, g, v, vmax = state
    m = np.asarray(rng.standard_normal(shape), dtype)
    if g.size > 3:
        g.flat[:4] = [np.nan, np.inf, -0.0, 1e-30]
    out = []
    for use in (True, False):
        with monkeypatch.context() as mp, np.errstate(all="ignore"):
            if not use:
                mp.setattr(jopt, "adam", lambda *a: None)
            bufs = [m.copy(), v.copy(), vmax.copy() if kw["amsgrad"] else None]
            r = bopt.optim_adam(p, g, *bufs, 3, 0.01, kw["beta1"], kw["beta2"], 1e-8, kw["wd"],
                                kw["decoupled"], kw["amsgrad"], kw["maximize"])
            assert r[1] is bufs[0] and r[2] is bufs[1]          # updated in place
            out.append([None if a is None else np.array(a) for a in r])
    return out


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.array_equal(a, b, equal_nan=True)
    known = ~np.isnan(a)
    assert np.array_equal(np.signbit(a[known]), np.signbit(b[known]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (7,), (33, 5), (300_000,)])
def test_the_kernel_is_the_numpy_path_bit_for_bit(compiled_kernels, monkeypatch, dtype,
                                                 shape):
    rng = np.random.default_rng(len(shape))
    for maximize, decoupled, amsgrad, wd, (b1, b2) in itertools.product(
            [False, True], [False, True], [False, True], [0.0, 0.1],
            [(0.9, 0.999), (0.0, 0.0), (0.5, 1.0), (0.3, 0.9)]):
        fast, slow = _step(rng, dtype, shape, True, monkeypatch, maximize=maximize,
                           decoupled=decoupled, amsgrad=amsgrad, wd=wd, beta1=b1, beta2=b2)
        for a, b in zip(fast, slow):
            if a is not None:
                _same(a, b)


def test_the_kernel_is_taken_only_where_it_applies(compiled_kernels):
    f32 = np.ones((4, 3), np.float32)
    args = (3, 0.01, 0.9, 0.999, 1e-8, 0.0, False, False, False)
    assert jopt.adam(f32, f32, f32.copy(), f32.copy(), None, *args) is not None
    half = f32.astype(np.float16)
    assert jopt.adam(half, half, half.copy(), half.copy(), None, *args) is None
    assert jopt.adam(f32, f32.T.copy().T, f32.copy(), f32.copy(), None, *args) is None
    assert jopt.adam(f32, f32.astype(np.float64), f32.copy(), f32.copy(), None,
                     *args) is None


@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
def test_training_with_the_kernel_follows_pytorch(compiled_kernels, cls):
    rng = np.random.default_rng(5)
    w0 = rng.standard_normal((64, 32)).astype(np.float32)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    we = ember.tensor(w0).require_grad()
    wt = torch.tensor(w0, requires_grad=True)
    oe = getattr(ember.optim, cls)([we], lr=0.01, weight_decay=0.1, amsgrad=True)
    ot = getattr(torch.optim, cls)([wt], lr=0.01, weight_decay=0.1, amsgrad=True)
    for _ in range(20):
        oe.zero_grad()
        ot.zero_grad()
        (ember.tensor(x).matmul(we).tanh() ** 2).mean().backward()
        (torch.tensor(x) @ wt).tanh().pow(2).mean().backward()
        oe.step()
        ot.step()
    np.testing.assert_allclose(we.numpy(), wt.detach().numpy(), rtol=1e-4, atol=1e-5)
