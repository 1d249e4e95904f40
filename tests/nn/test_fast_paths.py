"""The fast paths of ember.nn's kernels (the training-step performance work): each gives the
values and gradients of the general path (or of PyTorch, or of a plain reference), and leaves
its inputs and every other tensor unchanged."""

import warnings

import ml_dtypes
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings, strategies as st

import ember
import ember.nn.functional as F
be = ember.Device("cpu").backend
from oracle import assert_close, ember_tensor, layouts, on_device
from oracle import assert_unchanged, snapshot
from ember.autodiff.engine import run_backward


def _same(a, b):
    """Equal values, nan where nan and the same signs of zero (compared in float64, exact for
    every float dtype, so that bfloat16 works too)."""
    a = np.asarray(a.numpy() if hasattr(a, "numpy") else a).astype(np.float64)
    b = np.asarray(b.numpy() if hasattr(b, "numpy") else b).astype(np.float64)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


def _seed(rng, shape, dtype):
    return ember.tensor(rng.standard_normal(shape).astype(np.float64)).cast(dtype)


# -- cross entropy: the 2-D fast path ------------------------------------------------------------

def _ce_pair(x, t, dtype, reduction, seed):
    """Loss and input gradient through the 2-D fast path (x is (N, C)) and through the general
    path (the same values, in the same memory order, as (N, C, 1) with targets (N, 1))."""
    N, C = x.shape
    a = ember_tensor(x, dtype, requires_grad=True)
    b = ember_tensor(x[:, :, None], dtype, requires_grad=True)
    ta, tb = ember.tensor(t), ember.tensor(t.reshape(N, 1))
    la = F.cross_entropy(a, ta, reduction=reduction)
    lb = F.cross_entropy(b, tb, reduction=reduction)
    la.backward(ember.tensor(seed).cast(dtype))
    lb.backward(ember.tensor(seed.reshape(lb.shape)).cast(dtype))
    return la, lb, a, b


def _numpy_fast_path(monkeypatch):
    """The NumPy 2-D fast path rather than its compiled row program (tests/nn/test_compiled_rows
    checks that one against PyTorch and this path)."""
    from ember.backends.numpy.jit import rows
    monkeypatch.setattr(rows, "MIN_NUMEL", 1 << 62)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_2d_equals_general_path_bit_for_bit(rng, monkeypatch, dtype, reduction):
    _numpy_fast_path(monkeypatch)
    for N, C in ((1, 1), (5, 3), (128, 10)):
        x = rng.standard_normal((N, C)) * 4
        t = rng.integers(0, C, N)
        seed = rng.standard_normal(() if reduction != "none" else (N,))
        for _, lx in layouts(x):
            la, lb, a, b = _ce_pair(lx, t, dtype, reduction, seed)
            assert la.dtype == lb.dtype and la.shape == (() if reduction != "none" else (N,))
            np.testing.assert_array_equal(la.numpy().reshape(-1), lb.numpy().reshape(-1))
            np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy().reshape(N, C))
            assert_close(la, TF.cross_entropy(torch.tensor(x).to(getattr(torch, dtype)),
                                              torch.tensor(t), reduction=reduction),
                         rtol=1e-2 if dtype == "float16" else None,
                         atol=1e-2 if dtype == "float16" else None)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 40), st.integers(1, 20), st.integers(0, 2**31 - 1),
       st.sampled_from(["mean", "sum", "none"]))
def test_cross_entropy_2d_equals_general_path_property(n, c, seed, reduction):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c)) * 10
    t = rng.integers(0, c, n)
    with pytest.MonkeyPatch.context() as m:
        _numpy_fast_path(m)
        la, lb, a, b = _ce_pair(x, t, "float32", reduction, rng.standard_normal(
            () if reduction != "none" else (n,)))
    np.testing.assert_array_equal(la.numpy().reshape(-1), lb.numpy().reshape(-1))
    np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy().reshape(n, c))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_2d_equals_general_path_bit_for_bit(rng, dtype, reduction):
    """NLL of (N, C) log-probabilities (no weights, no ignored target) against the same values
    as (N, C, 1): losses and gradients equal, signs of zero included, and PyTorch's values."""
    for N, C in ((1, 1), (5, 3), (64, 18)):
        x = rng.standard_normal((N, C)) * 4
        t = rng.integers(0, C, N)
        seed = rng.standard_normal(() if reduction != "none" else (N,))
        for _, lx in layouts(x):
            a = ember_tensor(lx, dtype, requires_grad=True)
            b = ember_tensor(lx[:, :, None], dtype, requires_grad=True)
            la = F.nll_loss(a, ember.tensor(t), reduction=reduction)
            lb = F.nll_loss(b, ember.tensor(t.reshape(N, 1)), reduction=reduction)
            la.backward(ember.tensor(seed).cast(dtype))
            lb.backward(ember.tensor(seed.reshape(lb.shape)).cast(dtype))
            _same(la.numpy().reshape(-1), lb.numpy().reshape(-1))
            _same(a.grad, b.grad.numpy().reshape(N, C))
            tx = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
            lt = TF.nll_loss(tx, torch.tensor(t), reduction=reduction)
            lt.backward(torch.tensor(seed).to(getattr(torch, dtype)))
            assert_close(la, lt, rtol=1e-2 if dtype == "float16" else None,
                         atol=1e-2 if dtype == "float16" else None)
            _same(a.grad, tx.grad.double().numpy())


@pytest.mark.numpy_only
def test_cross_entropy_fast_path_taken_only_when_it_applies(rng):
    x = rng.standard_normal((4, 3)).astype(np.float32)
    f32 = ember.float32

    def saved_len(xx, t, weight=None, ignore=-100, smoothing=0.0, logits=True):
        return len(be.nn_class_loss(xx, t, weight, ignore, smoothing, "mean", logits, f32)[1])

    t = np.array([0, 1, 2, 0])
    assert saved_len(x, t) in (6, 7)       # the fast path (7: its compiled row program's)
    assert saved_len(x, np.array([0, -100, 2, 0])) == 10           # an ignored target
    assert saved_len(x, np.array([0, 1, 2, 1]), ignore=1) == 10    # an ignored class index
    assert saved_len(x, t, weight=np.ones(3, np.float32)) == 10
    assert saved_len(x, t, smoothing=0.1) == 10
    assert saved_len(x, t, logits=False) == 5                      # nll_loss's fast path
    assert saved_len(x, np.array([0, -100, 2, 0]), logits=False) == 10
    assert saved_len(x, t, weight=np.ones(3, np.float32), logits=False) == 10
    assert saved_len(x.reshape(4, 3, 1), t.reshape(4, 1), logits=False) == 10
    assert saved_len(x.reshape(4, 3, 1), t.reshape(4, 1)) == 10
    assert saved_len(x[:0], t[:0]) == 10


def test_cross_entropy_2d_ignored_and_extreme_logits_match_torch(rng):
    x = rng.standard_normal((6, 4))
    x[1] = -np.inf                      # a row of -inf: nan, as PyTorch
    x[2, 0] = -np.inf
    x[3] = [1e30, -1e30, 0.0, 5.0]
    t = np.array([0, 1, 0, 3, 2, 1])
    for tt in (t, np.where(np.arange(6) == 4, -100, t)):
        e = ember.tensor(x).require_grad()
        tx = torch.tensor(x, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            le = F.cross_entropy(e, ember.tensor(tt), reduction="none")
            le.backward(ember.ones(6, dtype="float64"))
        lt = TF.cross_entropy(tx, torch.tensor(tt), reduction="none")
        lt.backward(torch.ones(6, dtype=torch.float64))
        assert_close(le, lt)
        assert_close(e.grad, tx.grad)


def test_cross_entropy_fast_path_leaves_inputs_unchanged(rng):
    x = ember.tensor(rng.standard_normal((8, 5)).astype(np.float32)).require_grad()
    t = ember.tensor(rng.integers(0, 5, 8))
    snaps = snapshot(x, t)
    loss = F.cross_entropy(x, t)
    before = loss.item()
    loss.backward()
    assert_unchanged((x, t), snaps)
    assert loss.item() == before


@pytest.mark.numpy_only
def test_target_check_fast_path_finds_the_first_bad_target():
    for dtype in (np.int64, np.int32, np.uint8):
        assert be.nn_target_bad(np.array([0, 2, 1], dtype), 3, -100) is None
        assert be.nn_target_bad(np.array([0, 3, 1, 7], dtype), 3, -100) == 3
    assert be.nn_target_bad(np.array([0, -100, 1]), 3, -100) is None
    assert be.nn_target_bad(np.array([0, -100, -2]), 3, -100) == -2
    assert be.nn_target_bad(np.array([0, -100, 1]), 3, None) == -100


# -- relu: F.relu's own kernels --------------------------------------------------------------------

SPECIAL = np.array([np.nan, -np.inf, np.inf, -1.0, 0.0, -0.0, 2.0, 1e-30, -1e-30])
SEED_SPECIAL = np.array([np.inf, np.nan, 1.0, -np.inf, np.inf, 3.0, -2.0, np.nan, -np.inf])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_relu_equals_tensor_relu(rng, dtype):
    """F.relu (nn kernels) against Tensor.relu (the elementwise family's): values, gradients
    bit for bit (an inf or nan gradient where x <= 0 still gives 0), inputs unchanged."""
    cases = [(SPECIAL, SEED_SPECIAL)]
    for shape in ((), (0,), (7,), (3, 4), (2, 3, 4)):
        cases += [(lx, rng.standard_normal(shape)) for _, lx in layouts(rng.standard_normal(shape))]
    for xv, gv in cases:
        a = ember_tensor(np.asarray(xv), dtype, requires_grad=True)
        b = ember_tensor(np.asarray(xv), dtype, requires_grad=True)
        snaps = snapshot(a)
        ya, yb = F.relu(a), b.relu()
        assert ya.dtype == yb.dtype
        _same(ya, yb)
        seed = ember.tensor(np.asarray(gv)).cast(dtype)
        for _, lg in layouts(np.asarray(seed.numpy())):      # seeds of any layout
            a.grad = b.grad = None
            F.relu(a).backward(ember.from_numpy(lg))
            b.relu().backward(ember.from_numpy(lg))
            _same(a.grad, b.grad)
        assert_unchanged((a,), snaps)


def test_relu_matches_torch_gradient_with_infinite_seed():
    x = ember.tensor([-1.0, 0.0, 2.0]).require_grad()
    tx = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    F.relu(x).backward(ember.tensor([np.inf, np.nan, 5.0]))
    torch.relu(tx).backward(torch.tensor([np.inf, np.nan, 5.0]))
    assert_close(x.grad, tx.grad)


def test_relu_int_and_bool_inputs_keep_tensor_relu_behaviour():
    out = F.relu(ember.tensor([-2, 3], dtype="int32"))
    assert out.dtype == ember.int32 and out.tolist() == [0, 3]
    with pytest.raises(ember.KindError, match="relu: not defined for bool tensors"):
        F.relu(ember.tensor([True]))


def test_relu_under_balanced_checkpointing(rng):
    a = rng.standard_normal((4, 5))
    grads = []
    for strategy in ("none", "balanced"):
        x = ember.tensor(a).autodiff().with_gradient_checkpointing_strategy(strategy)
        x = x.require_grad()
        y = F.relu(F.relu(x * 2.0) - 0.5)
        (y * y).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    np.testing.assert_allclose(grads[0], np.where(2 * a > 0.5, 4 * (2 * a - 0.5), 0.0))


# -- softmax, log_softmax: one buffer ------------------------------------------------------------

@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_softmax_buffers_leave_inputs_and_outputs_unchanged(rng, log, dtype):
    fe, ft = (F.log_softmax, torch.log_softmax) if log else (F.softmax, torch.softmax)
    a = rng.standard_normal((3, 4, 5))
    for dim in (0, 1, -1):
        for _, la in layouts(a):
            x = ember_tensor(la, dtype, requires_grad=True)
            snaps = snapshot(x)
            y = fe(x, dim=dim)
            y_snap = snapshot(y)
            g = _seed(rng, y.shape, dtype)
            g_snap = snapshot(g)
            y.backward(g)
            assert_unchanged((x, y, g), snaps + y_snap + g_snap)
            tx = torch.tensor(np.array(x.numpy()), requires_grad=True)
            ty = ft(tx, dim=dim)
            ty.backward(torch.tensor(np.array(g.numpy())))
            assert_close(y, ty)
            assert_close(x.grad, tx.grad, rtol=1e-2 if dtype == "float16" else 1e-5,
                         atol=1e-2 if dtype == "float16" else 1e-6)


def test_softmax_of_infinities_is_quiet_and_matches_torch():
    a = np.array([[-np.inf, 1.0, 0.0], [-np.inf, -np.inf, -np.inf], [np.nan, 0.0, 1.0],
                  [1e30, -1e30, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fe, ft in ((F.softmax, torch.softmax), (F.log_softmax, torch.log_softmax)):
            assert_close(fe(ember.tensor(a), dim=1), ft(torch.tensor(a), dim=1))


# -- linear: the bias added in place -------------------------------------------------------------

def test_linear_bias_in_place_leaves_inputs_unchanged(rng):
    for xs in ((5, 3), (3,), (2, 4, 3), (0, 3)):
        x = ember.tensor(rng.standard_normal(xs).astype(np.float32)).require_grad()
        w = ember.tensor(rng.standard_normal((2, 3)).astype(np.float32)).require_grad()
        b = ember.tensor(rng.standard_normal(2).astype(np.float32)).require_grad()
        snaps = snapshot(x, w, b)
        out = F.linear(x, w, b)
        for t in (x, w, b):
            assert not np.shares_memory(out.numpy(), t.numpy())
        expect = np.asarray(x.numpy()) @ np.asarray(w.numpy()).T + np.asarray(b.numpy())
        np.testing.assert_allclose(out.numpy(), expect, rtol=1e-5, atol=1e-6)
        out.backward(_seed(rng, out.shape, "float32"))
        assert_unchanged((x, w, b), snaps)


# -- batch_norm: einsum statistics ---------------------------------------------------------------

def _conv_layout(a):
    """``a`` (N, C, H, W) laid out as ember's conv2d returns it: (C, N, H, W) in memory."""
    return np.ascontiguousarray(a.swapaxes(0, 1)).swapaxes(0, 1)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_batch_norm_layouts_match_torch(rng, training, dtype):
    C = 3
    rm = rng.standard_normal(C)
    rv = rng.random(C) + 0.5
    for shape in ((6, C), (4, C, 5), (2, C, 4, 4)):
        a = rng.standard_normal(shape) * 3 + 2
        lays = list(layouts(a)) + ([("conv", _conv_layout(a))] if a.ndim == 4 else [])
        for _, la in lays:
            x = ember_tensor(la, dtype, requires_grad=True)
            w = ember.tensor(rng.standard_normal(C), dtype=dtype).require_grad()
            b = ember.tensor(rng.standard_normal(C), dtype=dtype).require_grad()
            erm, erv = ember.tensor(rm, dtype=dtype), ember.tensor(rv, dtype=dtype)
            snaps = snapshot(x, w, b, erm, erv)
            out = F.batch_norm(x, erm, erv, w, b, training=training, eps=1e-3)
            seed = rng.standard_normal(shape).astype(dtype)
            out.backward(ember.tensor(seed))
            tx, tw, tb = (torch.tensor(np.array(t.numpy()), requires_grad=True)
                          for t in (x, w, b))
            tout = TF.batch_norm(tx, torch.tensor(rm.astype(dtype)),
                                 torch.tensor(rv.astype(dtype)), tw, tb, training, 0.1, 1e-3)
            tout.backward(torch.tensor(seed))
            tol = (1e-4, 1e-5) if dtype == "float32" else (1e-7, 1e-9)
            assert_close(out, tout, rtol=tol[0], atol=tol[1])
            for e, t in ((x, tx), (w, tw), (b, tb)):
                assert_close(e.grad, t.grad, rtol=tol[0], atol=tol[1])
            assert_unchanged((x, w, b, erm, erv), snaps)


def test_batch_norm_layer_tracks_like_torch(rng):
    bn = ember.nn.BatchNorm2d(3)
    tbn = torch.nn.BatchNorm2d(3).double()
    for _ in range(3):
        a = rng.standard_normal((4, 3, 2, 2))
        assert_close(bn(ember.tensor(a).float()), tbn(torch.tensor(a)).float(), rtol=1e-4,
                     atol=1e-5)
    assert bn.num_batches_tracked.dtype == ember.int64 and bn.num_batches_tracked.item() == 3
    assert_close(bn.running_mean, tbn.running_mean.float(), rtol=1e-5, atol=1e-6)
    assert_close(bn.running_var, tbn.running_var.float(), rtol=1e-5, atol=1e-6)


# -- max_pool2d: slabs ---------------------------------------------------------------------------

def _max_pool_reference(x, g, k, s, p, d, out_hw):
    """Output and input gradient of max pooling by looping over the windows as PyTorch's CPU
    kernel does: taps in the padding are skipped, and the scan ``if v > best or isnan(v)``
    selects the first maximum, or the last nan when the window has one."""
    N, C, H, W = x.shape
    OH, OW = out_hw
    out = np.empty((N, C, OH, OW))
    gx = np.zeros(x.shape)
    for n in range(N):
        for c in range(C):
            for oh in range(OH):
                for ow in range(OW):
                    best, where = -np.inf, None
                    for i in range(k[0]):
                        for j in range(k[1]):
                            r, q = oh * s[0] - p[0] + i * d[0], ow * s[1] - p[1] + j * d[1]
                            if not (0 <= r < H and 0 <= q < W):
                                continue
                            v = x[n, c, r, q]
                            if where is None or v > best or np.isnan(v):
                                best, where = v, (r, q)
                    out[n, c, oh, ow] = best
                    if where is not None:
                        gx[n, c, where[0], where[1]] += g[n, c, oh, ow]
    return out, gx


POOL_CONFIGS = [((2, 2), (2, 2), (0, 0), (1, 1), False), ((2, 2), (2, 2), (1, 1), (1, 1), False),
                ((3, 3), (1, 1), (1, 1), (1, 1), False), ((3, 2), (2, 1), (1, 0), (1, 2), True),
                ((2, 2), (3, 3), (0, 0), (1, 1), True), ((1, 1), (1, 1), (0, 0), (1, 1), False),
                ((2, 3), (2, 3), (0, 1), (1, 1), True)]


@pytest.mark.parametrize("config", POOL_CONFIGS)
def test_max_pool2d_slabs_match_reference(rng, config):
    k, s, p, d, ceil = config
    for trial in range(3):
        x = rng.integers(-2, 3, size=(2, 2, 7, 6)).astype(np.float64)    # many ties
        if trial == 1:
            x[rng.random(x.shape) < 0.15] = np.nan
        if trial == 2:
            x[rng.random(x.shape) < 0.3] = -np.inf
        for _, lx in list(layouts(x)) + [("conv", _conv_layout(x))]:
            e = ember_tensor(lx, requires_grad=True)
            snaps = snapshot(e)
            out = F.max_pool2d(e, k, s, p, d, ceil)
            g = rng.standard_normal(out.shape)
            ref_out, ref_gx = _max_pool_reference(x, g, k, s, p, d, out.shape[2:])
            np.testing.assert_array_equal(out.numpy(), ref_out)
            for _, lg in layouts(g):                              # seeds of any layout
                e.grad = None
                F.max_pool2d(e, k, s, p, d, ceil).backward(ember.from_numpy(lg))
                # overlapping windows sum in another order than the loop: to rounding
                np.testing.assert_allclose(e.grad.numpy(), ref_gx, rtol=1e-12, atol=1e-15)
            assert_unchanged((e,), snaps)
            if trial == 0:
                tx = torch.tensor(x, requires_grad=True)
                tout = TF.max_pool2d(tx, k, s, p, d, ceil)
                tout.backward(torch.tensor(g))
                assert_close(out, tout)
                assert_close(e.grad, tx.grad)


def test_max_pool2d_unbatched_half_and_quiet(rng):
    a = rng.standard_normal((3, 6, 6))
    a[0, 0, 0] = np.nan
    for dtype in on_device(["float16", "bfloat16", "float32"]):
        x = ember_tensor(a, dtype, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = F.max_pool2d(x, 2)
            out.backward(ember.ones(*out.shape, dtype=dtype))
        assert out.dtype.name == dtype and x.grad.dtype.name == dtype
        xf = np.asarray(x.numpy()).astype(np.float64)
        ref_out, ref_gx = _max_pool_reference(xf[None], np.ones((1,) + out.shape), (2, 2),
                                              (2, 2), (0, 0), (1, 1), (3, 3))
        np.testing.assert_array_equal(np.asarray(out.numpy()).astype(np.float64), ref_out[0])
        np.testing.assert_array_equal(np.asarray(x.grad.numpy()).astype(np.float64), ref_gx[0])


# -- conv2d: channels-last im2col ----------------------------------------------------------------

# (x shape, w shape, stride, padding, dilation, groups): kw * C/groups > OW takes the
# channels-last im2col, the others the channels-first one
CONV_CASES = [((2, 4, 5, 6), (6, 4, 3, 2), (1, 2), (1, 0), (2, 1), 1),     # channels last
              ((2, 4, 5, 6), (6, 2, 3, 2), (1, 2), (1, 0), (2, 1), 2),     # channels last
              ((2, 1, 5, 12), (3, 1, 3, 3), (1, 1), (1, 1), (1, 1), 1),    # channels first
              ((2, 4, 7, 11), (4, 1, 2, 3), (2, 1), (0, 2), (1, 2), 4)]    # channels first


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_im2col_layouts_match_torch(rng, case):
    xs, ws, stride, padding, dilation, groups = case
    a, wv, bv = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
    tx = torch.tensor(a, requires_grad=True)
    tw = torch.tensor(wv, requires_grad=True)
    tb = torch.tensor(bv, requires_grad=True)
    tout = TF.conv2d(tx, tw, tb, stride, padding, dilation, groups)
    g = rng.standard_normal(tuple(tout.shape))
    tout.backward(torch.tensor(g))
    for (_, la), (_, lw) in zip(list(layouts(a)) + [("conv", _conv_layout(a))],
                                list(layouts(wv)) * 2):
        x = ember_tensor(la, requires_grad=True)
        w = ember_tensor(lw, requires_grad=True)
        b = ember.tensor(bv).require_grad()
        snaps = snapshot(x, w, b)
        out = F.conv2d(x, w, b, stride, padding, dilation, groups)
        assert_close(out, tout)
        for _, lg in list(layouts(g)) + [("conv", _conv_layout(g))]:
            x.grad = w.grad = b.grad = None
            F.conv2d(x, w, b, stride, padding, dilation, groups).backward(ember.from_numpy(lg))
            assert_close(x.grad, tx.grad)
            assert_close(w.grad, tw.grad)
            assert_close(b.grad, tb.grad)
        assert_unchanged((x, w, b), snaps)


@pytest.mark.numpy_only
def test_conv2d_takes_both_im2col_layouts(rng):
    """The layout choice of the docstring: channels last when kw * C/groups > OW."""
    f64 = ember.float64
    seen = []
    for xs, ws, stride, padding, dilation, groups in CONV_CASES:
        x, w = rng.standard_normal(xs), rng.standard_normal(ws)
        eff = dilation[1] * (ws[3] - 1) + 1
        ow = (xs[3] + 2 * padding[1] - eff) // stride[1] + 1
        oh = (xs[2] + 2 * padding[0] - dilation[0] * (ws[2] - 1) - 1) // stride[0] + 1
        pads = (padding[0], padding[0], padding[1], padding[1])
        _, saved = be.nn_conv2d(x, w, None, stride, pads, dilation, groups, (oh, ow), f64)
        assert saved[0] == (ws[1] * ws[3] > ow)
        seen.append(saved[0])
    assert seen == [True, True, False, False]


def test_conv2d_output_planes_are_contiguous(rng):
    """The documented layout: each (OH, OW) plane of the output is contiguous (what batch
    norm's per-channel sums read fastest); the values are the same whatever the layout."""
    x = ember.tensor(rng.standard_normal((3, 2, 5, 5)).astype(np.float32))
    w = ember.tensor(rng.standard_normal((4, 2, 3, 3)).astype(np.float32))
    out = np.asarray(F.conv2d(x, w, padding=1).numpy())
    assert out.strides[2:] == (5 * 4, 4)
    ref = TF.conv2d(torch.tensor(np.array(x.numpy())), torch.tensor(np.array(w.numpy())),
                    padding=1).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


# -- no floating-point warnings from the quiet kernels -------------------------------------------

def test_kernels_are_quiet_on_nan_and_inf():
    a = np.array([[np.nan, np.inf, -np.inf, 1.0], [0.0, 1.0, 2.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for dtype in on_device(["float32", "bfloat16"]):
            x = ember.tensor(a).cast(dtype).require_grad()
            F.cross_entropy(x, ember.tensor([0, 1])).backward()
            F.cross_entropy(x, ember.tensor([0, -100])).backward()
            F.log_softmax(x, 1).backward(ember.ones(2, 4, dtype=dtype))
            F.relu(x).backward(ember.ones(2, 4, dtype=dtype))
            F.batch_norm(x, None, None, training=True).backward(ember.ones(2, 4, dtype=dtype))
            F.max_pool2d(x.reshape(1, 1, 2, 4), 2).backward(ember.ones(1, 1, 1, 2, dtype=dtype))
        if ember.get_default_device() == "cpu":  # the NumPy kernel itself
            assert be.nn_relu_grad(np.ones(2, ml_dtypes.bfloat16),
                                   np.array([np.nan, 1.0], ml_dtypes.bfloat16)).tolist() == [1, 1]


# -- linear: the first-order backward on arrays ------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows", [(0,), (1,), (7,), (), (2, 0), (3, 4)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_first_order_backward_gives_the_general_paths_bits(dtype, rows, bias,
                                                                    monkeypatch):
    import ember.ops.linear as linear
    taken = []
    fast_path = linear._linear_grads
    monkeypatch.setattr(linear, "_linear_grads", lambda *a: taken.append(1) or fast_path(*a))
    rng = np.random.default_rng(len(rows))
    x = _seed(rng, rows + (5,), dtype).require_grad()
    w = _seed(rng, (3, 5), dtype).require_grad()
    b = _seed(rng, (3,), dtype).require_grad() if bias else None
    g = _seed(rng, rows + (3,), dtype)
    tensors = (x, w) + ((b,) if bias else ())
    fast = run_backward(F.linear(x, w, b), g, targets=tensors)           # the array path
    general = run_backward(F.linear(x, w, b), g, create_graph=True, targets=tensors)
    assert taken == [1]
    for got, want in zip(fast, general):
        assert got.dtype == want.dtype and got._node is None
        _same(got, want.detach())
    tx, tw = (torch.tensor(t.numpy(), requires_grad=True) for t in (x, w))
    tb = torch.tensor(b.numpy(), requires_grad=True) if bias else None
    expected = torch.autograd.grad(TF.linear(tx, tw, tb), (tx, tw) + ((tb,) if bias else ()),
                                   torch.tensor(g.numpy()))
    for got, want in zip(fast, expected):
        assert_close(got, want)


def test_linear_first_order_backward_of_a_strided_input_gives_the_general_paths_bits():
    rng = np.random.default_rng(3)
    x = _seed(rng, (5, 4, 3), "float32").permute(2, 1, 0).require_grad()  # (3, 4, 5), strided
    w = _seed(rng, (6, 5), "float32").require_grad()
    g = _seed(rng, (3, 4, 6), "float32").transpose(0, 1).contiguous().transpose(0, 1)
    fast = run_backward(F.linear(x, w), g, targets=(x, w))
    general = run_backward(F.linear(x, w), g, create_graph=True, targets=(x, w))
    for got, want in zip(fast, general):
        _same(got, want.detach())
    tx, tw = (torch.tensor(t.numpy(), requires_grad=True) for t in (x, w))
    expected = torch.autograd.grad(TF.linear(tx, tw), (tx, tw), torch.tensor(g.numpy()))
    for got, want in zip(fast, expected):
        assert_close(got, want)
