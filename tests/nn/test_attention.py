"""Tests of F.scaled_dot_product_attention (ember/nn/functional.py) against torch: values,
gradients (query, key, value and a float mask), masks, causal, scale, GQA, dropout, errors."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as F
from oracle import assert_close, assert_unchanged, ember_tensor, layouts, snapshot, to_torch

SDPA = F.scaled_dot_product_attention


def _check(rng, qs, ks, vs, mask=None, dtype="float64", tol=1e-10, **kw):
    """ember's output and gradients equal torch's for random inputs of these shapes; ``mask`` is
    a NumPy array (bool or float) or None."""
    arrays = [rng.standard_normal(s).astype(dtype) for s in (qs, ks, vs)]
    xs = [ember_tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.from_numpy(a.copy()).requires_grad_(True) for a in arrays]
    em = tm = None
    if mask is not None:
        em = ember.tensor(mask) if mask.dtype == bool else ember_tensor(mask.astype(dtype),
                                                                         requires_grad=True)
        tm = torch.from_numpy(mask.copy())
        if mask.dtype != bool:
            tm = tm.to(getattr(torch, dtype)).requires_grad_(True)
    out = SDPA(*xs, attn_mask=em, **kw)
    tout = TF.scaled_dot_product_attention(*ts, attn_mask=tm, **kw)
    assert_close(out, tout, rtol=tol, atol=tol)
    seed = rng.standard_normal(tuple(tout.shape))
    out.backward(ember.tensor(seed, dtype=dtype))
    tout.backward(torch.from_numpy(seed.astype(dtype)))
    pairs = list(zip(xs, ts))
    if mask is not None and mask.dtype != bool:
        pairs.append((em, tm))
    for x, t in pairs:
        assert_close(x.grad, t.grad, rtol=tol, atol=tol)
    return out


SHAPES = [
    ((2, 5, 4), (2, 6, 4), (2, 6, 3)),          # 3-D, Ev != E
    ((2, 3, 5, 4), (2, 3, 5, 4), (2, 3, 5, 4)),  # 4-D
    ((2, 3, 5, 4), (1, 3, 6, 4), (3, 6, 2)),     # broadcast batch dims
    ((1, 4), (3, 4), (3, 2)),                    # 2-D
    ((2, 1, 4), (2, 7, 4), (2, 7, 4)),           # one query
    ((2, 0, 4), (2, 3, 4), (2, 3, 4)),           # no queries
    ((2, 3, 4), (2, 0, 4), (2, 0, 5)),           # no keys: zeros
    ((2, 3, 0), (2, 4, 0), (2, 4, 2)),           # no features: the mean of value
    ((0, 3, 4), (0, 3, 4), (0, 3, 4)),           # empty batch
]


@pytest.mark.parametrize("qs,ks,vs", SHAPES)
@pytest.mark.parametrize("causal", [False, True])
def test_values_and_grads(rng, qs, ks, vs, causal):
    _check(rng, qs, ks, vs, is_causal=causal)
    _check(rng, qs, ks, vs, is_causal=causal, scale=0.3)


@pytest.mark.parametrize("L,S", [(4, 4), (3, 6), (6, 3)])
def test_causal_is_top_left(rng, L, S):
    _check(rng, (2, 2, L, 4), (2, 2, S, 4), (2, 2, S, 3), is_causal=True)


@pytest.mark.parametrize("mshape", [(5, 6), (2, 1, 5, 6), (1, 6), (2, 3, 5, 6), (5, 1)])
def test_bool_and_float_masks(rng, mshape):
    qs, ks, vs = (2, 3, 5, 4), (2, 3, 6, 4), (2, 3, 6, 3)
    bool_mask = rng.random(mshape) < 0.7
    _check(rng, qs, ks, vs, mask=bool_mask)
    float_mask = rng.standard_normal(mshape)
    _check(rng, qs, ks, vs, mask=float_mask)
    float_mask[bool_mask] = -np.inf  # -inf entries mask as False does
    _check(rng, qs, ks, vs, mask=float_mask)


def test_fully_masked_rows_give_zeros(rng):
    mask = np.ones((4, 5), dtype=bool)
    mask[1] = False
    out = _check(rng, (2, 4, 3), (2, 5, 3), (2, 5, 3), mask=mask)
    assert not out.numpy()[:, 1].any()
    fmask = np.zeros((4, 5))
    fmask[2] = -np.inf
    out = _check(rng, (2, 4, 3), (2, 5, 3), (2, 5, 3), mask=fmask)
    assert not out.numpy()[:, 2].any()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nan_row", [False, True])
def test_a_causal_row_that_sees_only_minus_inf_gives_zeros_as_pytorch(dtype, nan_row):
    # query 0 sees key 0 only, and their score overflows to -inf: weights 0, as PyTorch's safe
    # softmax (a plain softmax would give NaN); a NaN score keeps its row NaN
    big = 1e30 if dtype == "float32" else 1e200  # a product that overflows to -inf
    q = np.array([[[big, 0.0], [1.0, 0.0], [2.0, math.nan if nan_row else 1.0]]] * 2, dtype)
    k = np.array([[[-big, 0.0], [1.0, 0.0], [1.0, 1.0]]] * 2, dtype)
    v = np.arange(12, dtype=dtype).reshape(2, 3, 2)
    xs = [ember_tensor(a, requires_grad=True) for a in (q, k, v)]
    ts = [torch.from_numpy(a.copy()).requires_grad_(True) for a in (q, k, v)]
    out, expected = SDPA(*xs, is_causal=True), TF.scaled_dot_product_attention(*ts, is_causal=True)
    assert (out.numpy()[:, 0] == 0).all()  # ember's documented value (docs/training.md)
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert_close(out, expected, atol=tol, equal_nan=True)
    out.sum().backward()
    expected.sum().backward()
    for x, t in zip(xs, ts):
        assert_close(x.grad, t.grad, atol=tol, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_causal_rows_of_huge_scores_keep_pytorchs_weights(dtype):
    # scores of 1e9 (float32) and 1e60 (float64): the max and the exponent's argument must be
    # the same rounded product, or exp overflows (it gave NaN rows)
    big = 3e4 if dtype == "float32" else 1e30
    q = np.array([[[big, 0.0], [big, 1.0], [1.0, big], [2.0, 1.0]]] * 8, dtype)
    k = np.array([[[big, 0.0], [-big, 1.0], [1.0, 0.5], [0.5, big]]] * 8, dtype)
    v = np.arange(64, dtype=dtype).reshape(8, 4, 2)
    out = SDPA(*(ember_tensor(a) for a in (q, k, v)), is_causal=True, scale=0.7)
    expected = TF.scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v)),
                                               is_causal=True, scale=0.7)
    assert not np.isnan(expected.numpy()).any()
    assert_close(out, expected, atol=1e-5 if dtype == "float32" else 1e-12)


def test_grouped_query_attention(rng):
    _check(rng, (2, 6, 5, 4), (2, 2, 5, 4), (2, 3, 5, 4), enable_gqa=True)
    _check(rng, (2, 4, 5, 4), (2, 1, 5, 4), (2, 1, 5, 4), enable_gqa=True, is_causal=True)
    _check(rng, (4, 5, 4), (2, 6, 4), (2, 6, 4), enable_gqa=True)


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("float16", 2e-3)])
def test_low_precision(rng, dtype, tol):
    out = _check(rng, (2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8), dtype=dtype, tol=tol,
                 is_causal=True)
    assert out.dtype.name == dtype


def test_noncontiguous_inputs(rng):
    q = rng.standard_normal((2, 5, 4))
    k = rng.standard_normal((2, 6, 4))
    v = rng.standard_normal((2, 6, 3))
    for (_, lq), (_, lk), (_, lv) in zip(layouts(q), layouts(k), layouts(v)):
        xs = [ember_tensor(a) for a in (lq, lk, lv)]
        before = snapshot(*xs)
        assert_close(SDPA(*xs), TF.scaled_dot_product_attention(*[to_torch(x) for x in xs]))
        assert_unchanged(xs, before)
    # a transposed view, as attention code makes with .transpose(1, 2)
    x = ember.tensor(rng.standard_normal((2, 5, 3, 4))).transpose(1, 2)
    t = to_torch(x)
    assert_close(SDPA(x, x, x, is_causal=True),
                 TF.scaled_dot_product_attention(t, t, t, is_causal=True))


# -- dropout ----------------------------------------------------------------------------------

def test_dropout_zero_matches_torch_and_one_zeroes(rng):
    _check(rng, (2, 3, 4), (2, 5, 4), (2, 5, 4), dropout_p=0.0)
    x = ember.tensor(rng.standard_normal((2, 3, 4))).require_grad()
    out = SDPA(x, x, x, dropout_p=1.0)
    assert not out.numpy().any()
    out.sum().backward()
    assert not x.grad.numpy().any()


def test_dropout_statistics_and_shared_mask():
    n, p = 400, 0.3
    ember.manual_seed(0)
    q = ember.zeros(2, n, 4, dtype="float64").require_grad()  # uniform weights 1/n
    v = ember.eye(n, dtype="float64").unsqueeze(0).expand(2, n, n).require_grad()
    out = SDPA(q, q, v, dropout_p=p)
    w = out.numpy()  # with value = I the output is the dropped-out weight matrix itself
    dropped = np.mean(w == 0)
    assert abs(dropped - p) < 0.01, dropped
    np.testing.assert_allclose(w[w != 0], 1.0 / ((1 - p) * n), rtol=1e-12)
    seed = np.random.default_rng(1).standard_normal(out.shape)
    out.backward(ember.tensor(seed))
    # d(out)/d(value) = weights^T @ seed: the backward used the forward's mask
    np.testing.assert_allclose(v.grad.numpy(), np.swapaxes(w, -1, -2) @ seed,
                               rtol=1e-10, atol=1e-12)
    # and the same seed gives the same mask
    ember.manual_seed(0)
    again = SDPA(q.detach(), q.detach(), v.detach(), dropout_p=p)
    np.testing.assert_array_equal(again.numpy(), w)


def test_dropout_gradient_of_query_uses_the_mask():
    # finite differences of the forward under a fixed seed equal the backward
    rng = np.random.default_rng(3)
    a = [rng.standard_normal(s) for s in ((2, 3, 4), (2, 5, 4), (2, 5, 2))]
    ember.manual_seed(7)
    xs = [ember.tensor(x).require_grad() for x in a]
    out = SDPA(*xs, dropout_p=0.4)
    seed = rng.standard_normal(out.shape)
    out.backward(ember.tensor(seed))
    eps = 1e-6
    num = np.zeros(a[0].shape)
    for idx in np.ndindex(a[0].shape):
        vals = []
        for d in (eps, -eps):
            moved = a[0].copy()
            moved[idx] += d
            ember.manual_seed(7)
            o = SDPA(ember.tensor(moved), ember.tensor(a[1]), ember.tensor(a[2]), dropout_p=0.4)
            vals.append(float((o.numpy() * seed).sum()))
        num[idx] = (vals[0] - vals[1]) / (2 * eps)
    np.testing.assert_allclose(xs[0].grad.numpy(), num, rtol=1e-5, atol=1e-7)


# -- bad input --------------------------------------------------------------------------------

def test_errors():
    q = ember.ones(2, 3, 4)
    with pytest.raises(ember.KindError, match="one dtype"):
        SDPA(q, q.cast("float64"), q)
    with pytest.raises(ember.KindError, match="query has dtype int64"):
        SDPA(ember.ones(3, 4, dtype="int64"), q, q)
    with pytest.raises(ember.ShapeMismatchError, match="at least 2 dims"):
        SDPA(ember.ones(4), ember.ones(4), ember.ones(4))
    with pytest.raises(ember.ShapeMismatchError, match="same last dim"):
        SDPA(q, ember.ones(2, 3, 5), q)
    with pytest.raises(ember.ShapeMismatchError, match="same dim -2"):
        SDPA(q, q, ember.ones(2, 4, 4))
    with pytest.raises(ember.ShapeMismatchError, match="broadcast"):
        SDPA(ember.ones(2, 4, 3, 4), ember.ones(2, 2, 3, 4), ember.ones(2, 2, 3, 4))
    with pytest.raises(ember.InvalidParameterError, match="dropout_p is 1.5"):
        SDPA(q, q, q, dropout_p=1.5)
    with pytest.raises(ember.InvalidParameterError, match="is_causal is True"):
        SDPA(q, q, q, attn_mask=ember.ones(3, 3, dtype="bool"), is_causal=True)
    with pytest.raises(ember.KindError, match="attn_mask has dtype float64"):
        SDPA(q, q, q, attn_mask=ember.zeros(3, 3, dtype="float64"))
    with pytest.raises(ember.KindError, match="attn_mask has dtype int64"):
        SDPA(q, q, q, attn_mask=ember.zeros(3, 3, dtype="int64"))
    with pytest.raises(ember.ShapeMismatchError, match="attn_mask"):
        SDPA(q, q, q, attn_mask=ember.zeros(4, 3, 3))
    with pytest.raises(ember.ShapeMismatchError):
        SDPA(q, q, q, attn_mask=ember.zeros(3, 2))
    with pytest.raises(ember.ShapeMismatchError, match="does not divide"):
        SDPA(ember.ones(2, 4, 3, 4), ember.ones(2, 3, 3, 4), ember.ones(2, 3, 3, 4),
             enable_gqa=True)
    with pytest.raises(ember.InvalidParameterError, match="is_causal must be a bool"):
        SDPA(q, q, q, is_causal=1)
    with pytest.raises(ember.InvalidParameterError, match="scale"):
        SDPA(q, q, q, scale="big")
    with pytest.raises(ember.InvalidParameterError, match="key must be a Tensor"):
        SDPA(q, [[1.0]], q)
    before = snapshot(q)
    SDPA(q, q, q, dropout_p=0.5)
    assert_unchanged([q], before)


def test_scale_default_is_inverse_sqrt_of_features(rng):
    q = ember.tensor(rng.standard_normal((3, 9)))
    k = ember.tensor(rng.standard_normal((4, 9)))
    v = ember.tensor(rng.standard_normal((4, 2)))
    np.testing.assert_allclose(SDPA(q, k, v).numpy(), SDPA(q, k, v, scale=1 / math.sqrt(9)).numpy(),
                               rtol=1e-12)
