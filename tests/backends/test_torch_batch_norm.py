"""Batch norm's gradients (the torch backend runs them through PyTorch's fused backward) against
PyTorch's own ``F.batch_norm``: training and eval, with and without weight and bias, float32
(within float32 rounding), float64, half floats, empty batches and channels, and the running
statistics of ``nn.BatchNorm2d``. These run on every backend; the check that the torch kernel
agrees with the NumPy backend runs where EMBER_DEVICE names a torch device."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn as enn
import ember.nn.functional as F
from oracle import assert_close

TOL = {"float32": 1e-5, "float64": 1e-12, "float16": 4e-3, "bfloat16": 3e-2}


def _case(rng, shape, dtype, training, affine):
    """(ember's output and gradients, PyTorch's) of one batch norm for the same data."""
    c = shape[1]
    data = [rng.standard_normal(shape), rng.standard_normal(c) + 2.0, rng.standard_normal(c),
            rng.standard_normal(c), rng.random(c) + 0.5, rng.standard_normal(shape)]
    x, w, b, rm, rv, g = data
    found = []
    for lib in ("ember", "torch"):
        if lib == "ember":
            make = lambda a: ember.tensor(a).cast(dtype)  # noqa: E731
        else:
            make = lambda a: torch.tensor(a, dtype=getattr(torch, dtype))  # noqa: E731
        xs = make(x).require_grad() if lib == "ember" else make(x).requires_grad_(True)
        ws = bs = None
        if affine:
            ws, bs = make(w), make(b)
            ws, bs = ((t.require_grad() for t in (ws, bs)) if lib == "ember" else
                      (t.requires_grad_(True) for t in (ws, bs)))
        fn = F.batch_norm if lib == "ember" else TF.batch_norm
        out = fn(xs, make(rm), make(rv), ws, bs, training=training, momentum=0.1, eps=1e-5)
        out.backward(make(g))
        found.append([out, xs.grad] + ([ws.grad, bs.grad] if affine else []))
    return found


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape", [(32, 16, 8, 8), (32, 32, 4, 4), (5, 3), (4, 3, 2, 2, 2)])
def test_values_and_gradients_are_pytorchs(rng, shape, dtype, training, affine):
    ours, theirs = _case(rng, shape, dtype, training, affine)
    for a, t in zip(ours, theirs):
        assert a.dtype.name == dtype
        assert_close(a, t.detach(), rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("training", [True, False])
def test_half_floats_compute_in_float32(rng, dtype, training):
    ours, theirs = _case(rng, (8, 4, 3, 3), dtype, training, True)
    for a, t in zip(ours, theirs):
        assert a.dtype.name == dtype
        tol = TOL[dtype] * (1 + float(t.detach().abs().max()))  # the sums of w's and b's grads
        assert_close(a, t.detach(), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(0, 3, 4), (2, 3, 0)])
@pytest.mark.parametrize("training", [True, False])
def test_empty_batches(rng, shape, training):
    x = ember.zeros(*shape).require_grad()
    c = shape[1]
    w, b = ember.ones(c).require_grad(), ember.zeros(c).require_grad()
    out = F.batch_norm(x, ember.zeros(c), ember.ones(c), w, b, training=training)
    out.backward(ember.ones_like(out))
    t = torch.zeros(shape, requires_grad=True)
    tw, tb = torch.ones(c, requires_grad=True), torch.zeros(c, requires_grad=True)
    tout = TF.batch_norm(t, torch.zeros(c), torch.ones(c), tw, tb, training=training)
    tout.backward(torch.ones_like(tout))
    assert tuple(out.shape) == tuple(tout.shape)
    assert_close(x.grad, t.grad)
    assert_close(b.grad, tb.grad)  # the sums of no values: 0
    assert tuple(w.grad.shape) == (c,)


@pytest.mark.parametrize("training", [True, False])
def test_no_channels_give_empty_gradients(training):
    # (PyTorch's F.batch_norm raises IndexError here; ember's values are the empty ones)
    x, w = ember.zeros(2, 0, 4).require_grad(), ember.ones(0).require_grad()
    out = F.batch_norm(x, ember.zeros(0), ember.ones(0), w, None, training=training)
    out.backward(ember.ones_like(out))
    assert out.shape == x.grad.shape == (2, 0, 4) and w.grad.shape == (0,)


def test_batchnorm2d_steps_track_pytorchs_running_statistics(rng):
    bn, tbn = enn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)
    for _ in range(3):
        x = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
        ex, tx = ember.tensor(x).require_grad(), torch.tensor(x, requires_grad=True)
        bn(ex).square().sum().backward()
        tbn(tx).square().sum().backward()
        assert_close(ex.grad, tx.grad, rtol=1e-4, atol=1e-5)
    assert_close(bn.running_mean, tbn.running_mean, rtol=1e-5, atol=1e-6)
    assert_close(bn.running_var, tbn.running_var, rtol=1e-5, atol=1e-6)  # unbiased
    assert_close(bn.weight.grad, tbn.weight.grad, rtol=1e-4, atol=1e-4)
    bn.eval()
    tbn.eval()
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    assert_close(bn(ember.tensor(x)), tbn(torch.tensor(x)).detach(), rtol=1e-5, atol=1e-5)


@pytest.mark.torch_only
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("training", [True, False])
def test_the_backends_agree(rng, dtype, training):
    arrays = [rng.standard_normal(s).astype(dtype) for s in ((6, 4, 3, 3), (4,), (4,), (4,))]
    rv = (rng.random(4) + 0.5).astype(dtype)
    found = []
    for device in ("cpu", "torch:cpu"):
        x, w, b, rm = (ember.tensor(a, device=device) for a in arrays)
        x, w, b = x.require_grad(), w.require_grad(), b.require_grad()
        out = F.batch_norm(x, rm, ember.tensor(rv, device=device), w, b, training=training)
        (out * out).sum().backward()
        found.append([t.numpy() for t in (out, x.grad, w.grad, b.grad)])
    for a, t in zip(*found):
        np.testing.assert_allclose(t, a, rtol=TOL[dtype], atol=TOL[dtype])
