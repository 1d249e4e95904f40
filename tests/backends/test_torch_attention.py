"""The torch backend's attention kernel (issue 31: PyTorch's matrix products and softmax, a cached
causal mask) against PyTorch's own ``F.scaled_dot_product_attention``: values and gradients in
float32 (within float32 rounding) and float64, bool, float and causal masks, fully masked rows
(zeros, not NaN), grouped-query attention, dropout, empty dims and half floats. These run on
every backend; the checks of the torch kernel itself (its saved weights, its mask cache, its
agreement with the NumPy backend) run where EMBER_DEVICE names a torch device."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from oracle import assert_close, ember_tensor

SDPA = F.scaled_dot_product_attention
TOL = {"float32": 1e-5, "float64": 1e-12}


def _check(rng, qs, ks, vs, mask=None, dtype="float32", **kw):
    """ember's output and gradients equal PyTorch's for random inputs of these shapes."""
    tol = TOL[dtype]
    arrays = [rng.standard_normal(s).astype(dtype) for s in (qs, ks, vs)]
    xs = [ember_tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
    em = tm = None
    if mask is not None:
        mask = mask if mask.dtype == bool else mask.astype(dtype)
        em = ember.tensor(mask) if mask.dtype == bool else ember_tensor(mask, requires_grad=True)
        tm = torch.from_numpy(mask.copy())
        if mask.dtype != bool:
            tm.requires_grad_(True)
    out = SDPA(*xs, attn_mask=em, **kw)
    tout = TF.scaled_dot_product_attention(*ts, attn_mask=tm, **kw)
    assert_close(out, tout, rtol=tol, atol=tol)
    seed = rng.standard_normal(tuple(tout.shape)).astype(dtype)
    out.backward(ember.tensor(seed))
    tout.backward(torch.from_numpy(seed))
    pairs = list(zip(xs, ts)) + ([(em, tm)] if tm is not None and tm.requires_grad else [])
    for x, t in pairs:
        assert_close(x.grad, t.grad, rtol=tol, atol=tol)
    return out, [x.grad for x, _ in pairs]


CASES = [
    ((32, 4, 16, 16), (32, 4, 16, 16), (32, 4, 16, 16), {"is_causal": True}),  # the GPT's shape
    ((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 4), {"is_causal": True}),           # L < S
    ((2, 3, 7, 8), (2, 3, 5, 8), (2, 3, 5, 4), {"is_causal": True, "scale": 0.3}),  # L > S
    ((2, 3, 5, 4), (1, 3, 6, 4), (3, 6, 2), {}),                                # broadcast batch
    ((2, 6, 5, 4), (2, 2, 5, 4), (2, 3, 5, 4), {"enable_gqa": True}),           # GQA
    ((2, 4, 5, 4), (2, 1, 5, 4), (2, 1, 5, 4), {"enable_gqa": True, "is_causal": True}),
    ((2, 0, 4), (2, 3, 4), (2, 3, 4), {"is_causal": True}),                     # no queries
    ((2, 3, 4), (2, 0, 4), (2, 0, 5), {}),                                      # no keys
    ((2, 3, 0), (2, 4, 0), (2, 4, 2), {"is_causal": True}),                     # no features
    ((0, 3, 4), (0, 3, 4), (0, 3, 4), {"is_causal": True}),                     # empty batch
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("qs,ks,vs,kw", CASES)
def test_values_and_gradients_are_pytorchs(rng, qs, ks, vs, kw, dtype):
    _check(rng, qs, ks, vs, dtype=dtype, **kw)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mshape", [(5, 6), (2, 1, 5, 6), (1, 6), (2, 3, 5, 6)])
def test_bool_and_float_masks_are_pytorchs(rng, mshape, dtype):
    qs, ks, vs = (2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 3)
    allowed = rng.random(mshape) < 0.7
    _check(rng, qs, ks, vs, mask=allowed, dtype=dtype)
    bias = rng.standard_normal(mshape)
    _check(rng, qs, ks, vs, mask=bias, dtype=dtype)
    bias[~allowed] = -np.inf
    _check(rng, qs, ks, vs, mask=bias, dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fully_masked_rows_give_zeros_and_zero_gradients(rng, dtype):
    allowed = np.ones((4, 5), dtype=bool)
    allowed[1] = False
    out, grads = _check(rng, (2, 4, 3), (2, 5, 3), (2, 5, 3), mask=allowed, dtype=dtype)
    assert not out.numpy()[:, 1].any()
    assert not grads[0].numpy()[:, 1].any()  # the masked query has no gradient
    bias = np.zeros((4, 5))
    bias[2] = -np.inf
    out, grads = _check(rng, (2, 4, 3), (2, 5, 3), (2, 5, 3), mask=bias, dtype=dtype)
    assert not out.numpy()[:, 2].any()
    assert np.isfinite(grads[3].numpy()).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_non_finite_keys_past_the_diagonal_stay_masked(rng, dtype):
    # a NaN or an infinite key reaches only the queries at or after it, as in PyTorch
    q, k, v = (rng.standard_normal((2, 3, 5, 4)).astype(dtype) for _ in range(3))
    k[..., 4, :] = np.nan
    k[..., 3, 0] = np.inf
    out = SDPA(*(ember.tensor(a) for a in (q, k, v)), is_causal=True)
    want = TF.scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v)),
                                           is_causal=True)
    assert np.isfinite(want[..., :3, :].numpy()).all()
    assert_close(out, want, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("dtype,tol", [("float16", 2e-3), ("bfloat16", 2e-2)])
@pytest.mark.parametrize("causal", [False, True])
def test_half_floats_compute_in_float32_and_give_their_dtype(rng, dtype, tol, causal):
    arrays = [rng.standard_normal(s) for s in ((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 4))]
    xs = [ember.tensor(a).cast(dtype).require_grad() for a in arrays]
    ts = [torch.tensor(a, dtype=getattr(torch, dtype)).requires_grad_(True) for a in arrays]
    out = SDPA(*xs, is_causal=causal)
    tout = TF.scaled_dot_product_attention(*ts, is_causal=causal)
    assert out.dtype.name == dtype
    assert_close(out, tout, rtol=tol, atol=tol)
    seed = rng.standard_normal(tuple(tout.shape))
    out.backward(ember.tensor(seed).cast(dtype))
    tout.backward(torch.tensor(seed, dtype=getattr(torch, dtype)))
    for x, t in zip(xs, ts):
        assert x.grad.dtype.name == dtype
        assert_close(x.grad, t.grad, rtol=4 * tol, atol=4 * tol)


@pytest.mark.parametrize("causal", [False, True])
def test_dropout_scales_pytorchs_weights_and_its_gradient_uses_the_mask(rng, causal):
    # with value = I the output is the dropped-out weight matrix itself
    p, n = 0.25, 12
    q, k = rng.standard_normal((2, 3, n, 4)), rng.standard_normal((2, 3, n, 4))
    v = np.broadcast_to(np.eye(n), (2, 3, n, n)).astype(np.float32)
    ember.manual_seed(3)
    xs = [ember.tensor(a.astype(np.float32)).require_grad() for a in (q, k, v)]
    out = SDPA(*xs, dropout_p=p, is_causal=causal)
    got = out.numpy()
    kept = got != 0
    tq, tk = torch.tensor(q, dtype=torch.float32), torch.tensor(k, dtype=torch.float32)
    weights = TF.scaled_dot_product_attention(tq, tk, torch.tensor(v), is_causal=causal)
    want = torch.where(torch.from_numpy(kept), weights / (1 - p), 0.0).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert 0.1 < 1 - kept[weights.numpy() > 0].mean() < 0.45
    seed = rng.standard_normal(got.shape).astype(np.float32)
    out.backward(ember.tensor(seed))
    want_gv = torch.from_numpy(want).mT @ torch.from_numpy(seed)  # d(out)/d(value): Pd^T @ g
    assert_close(xs[2].grad, want_gv, rtol=1e-5, atol=1e-5)


# -- the torch kernel itself ------------------------------------------------------------------

def _torch_backend():
    return ember.zeros(1, device="torch:cpu")._device.backend


@pytest.mark.torch_only
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("qs,ks,vs,kw", CASES + [((2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 3),
                                                  {"mask": True})])
def test_the_backends_agree(rng, qs, ks, vs, kw, dtype):
    kw = dict(kw)
    arrays = [rng.standard_normal(s).astype(dtype) for s in (qs, ks, vs)]
    mask = rng.random((5, 6)) < 0.6 if kw.pop("mask", False) else None
    if mask is not None:
        mask[2] = False  # a fully masked row
    found = []
    for device in ("cpu", "torch:cpu"):
        xs = [ember.tensor(a, device=device).require_grad() for a in arrays]
        m = None if mask is None else ember.tensor(mask, device=device)
        out = SDPA(*xs, attn_mask=m, **kw)
        out.backward(ember.ones_like(out))
        found.append([out.numpy()] + [x.grad.numpy() for x in xs])
    for a, b in zip(*found):
        np.testing.assert_allclose(b, a, rtol=TOL[dtype], atol=TOL[dtype])
        assert not np.isnan(b).any()


@pytest.mark.torch_only
@pytest.mark.parametrize("causal", [False, True])
def test_the_kernel_saves_pytorchs_weights(rng, causal):
    be = _torch_backend()
    q, k, v = (torch.tensor(rng.standard_normal((2, 3, 6, 4)), dtype=torch.float16)
               for _ in range(3))
    keep = (torch.rand(2, 3, 6, 6, generator=torch.Generator().manual_seed(0)) < 0.5).float()
    out, saved = be.nn_attention(q, k, v, None, None, causal, 0.5, 1, 1, keep, 2.0)
    scores = (q.float() @ k.float().mT) * 0.5
    if causal:
        scores = scores.masked_fill(torch.ones(6, 6, dtype=torch.bool).triu(1), -math.inf)
    weights = torch.softmax(scores, -1)
    assert out.dtype == torch.float16 and saved[3].dtype == torch.float32
    torch.testing.assert_close(saved[3], weights, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(saved[4], weights * keep * 2.0, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(out, (saved[4] @ v.float()).half(), rtol=0, atol=0)
    assert saved[5:] == (keep, 2.0, 0.5, 1, 1)


@pytest.mark.torch_only
def test_the_causal_mask_cache_stays_small(rng):
    from ember.backends.torch import nn
    be = _torch_backend()
    for n in range(1, 40):
        q = torch.randn(1, n, 2)
        out, _ = be.nn_attention(q, q, q, None, None, True, 1.0, 1, 1, None, 1.0)
        want = TF.scaled_dot_product_attention(q, q, q, is_causal=True, scale=1.0)
        torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-6)
        assert nn._above_diagonal.cache_info().currsize <= 16


def _fused_calls(monkeypatch):
    """The list of the torch kernel's fused attentions taken (True) or declined (False)."""
    from ember.backends.torch import nn
    calls, real = [], nn._fused_attention

    def spy(*args):
        found = real(*args)
        calls.append(found is not None)
        return found
    monkeypatch.setattr(nn, "_fused_attention", spy)
    return calls


@pytest.mark.torch_only
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("causal", [False, True])
def test_the_fused_kernel_gives_pytorchs_values_and_first_order_gradients(rng, monkeypatch,
                                                                          dtype, causal):
    calls = _fused_calls(monkeypatch)
    _check(rng, (2, 3, 6, 4), (2, 3, 5, 4), (2, 3, 5, 4), dtype=dtype, is_causal=causal)
    assert calls == [True]
    _check(rng, (2, 3, 6, 4), (2, 3, 5, 4), (2, 3, 5, 4), mask=rng.random((6, 5)) < 0.7,
           dtype=dtype)  # a mask: the explicit kernel
    assert calls == [True]


def _second_order(arrays, device, causal):
    """d/d(q, k, v) of sum(grad(sum(out * seed), q, k, v, create_graph) ** 2)."""
    from ember.autodiff.engine import run_backward
    xs = [ember.tensor(a, device=device).require_grad() for a in arrays[:3]]
    out = SDPA(*xs, is_causal=causal)
    grads = run_backward((out * ember.tensor(arrays[3], device=device)).sum(), create_graph=True,
                         targets=xs)
    total = sum((g * g).sum() for g in grads)
    return [g.numpy() for g in grads] + [g.numpy() for g in run_backward(total, targets=xs)]


@pytest.mark.torch_only
@pytest.mark.parametrize("causal", [False, True])
def test_second_order_gradients_through_the_fused_kernel_are_pytorchs(rng, monkeypatch, causal):
    # create_graph recomputes the weights with ember ops; PyTorch's math kernel differentiates
    # twice (its fused CPU kernel does not)
    arrays = [rng.standard_normal(s) for s in ((2, 3, 6, 4), (2, 3, 5, 4), (2, 3, 5, 4),
                                               (2, 3, 6, 4))]
    calls = _fused_calls(monkeypatch)
    got = _second_order(arrays, "torch:cpu", causal)
    assert calls == [True]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays[:3]]
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
        tout = TF.scaled_dot_product_attention(*ts, is_causal=causal)
    grads = torch.autograd.grad((tout * torch.tensor(arrays[3])).sum(), ts, create_graph=True)
    want = [g.detach().numpy() for g in grads] + [
        g.numpy() for g in torch.autograd.grad(sum((g * g).sum() for g in grads), ts)]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.torch_only
def test_a_write_to_an_input_after_the_fused_kernel_fails_backward(rng, monkeypatch):
    calls = _fused_calls(monkeypatch)
    xs = [ember.tensor(rng.standard_normal((1, 2, 3, 4)), device="torch:cpu").require_grad()
          for _ in range(3)]
    q = xs[0] * 1.0
    out = SDPA(q, xs[1], xs[2])
    q += 1.0
    with pytest.raises(ember.GraphError):
        out.sum().backward()
    assert calls == [True]


@pytest.mark.torch_only
def test_under_torchs_inference_mode_the_explicit_kernel_runs(rng, monkeypatch):
    calls = _fused_calls(monkeypatch)
    arrays = [rng.standard_normal((1, 2, 3, 4)).astype(np.float32) for _ in range(3)]
    with torch.inference_mode():
        out = SDPA(*(ember.tensor(a, device="torch:cpu") for a in arrays), is_causal=True)
        want = TF.scaled_dot_product_attention(*map(torch.from_numpy, arrays), is_causal=True)
    assert_close(out, want, rtol=1e-5, atol=1e-6)
    assert calls == [False]
