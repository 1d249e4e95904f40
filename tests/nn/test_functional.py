"""Tests of ember/nn/functional.py against torch.nn.functional: values, gradients, bad inputs."""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from hypothesis import given, settings, strategies as st

import ember
import ember.nn.functional as F
from oracle import (SHAPES, assert_close, assert_unchanged, ember_tensor, layouts, on_device,
                    random_array, snapshot, to_torch)

GRAD_TOL = {"float64": (1e-7, 1e-9), "float32": (1e-4, 1e-5)}


def _check(fe, ft, arrays, rng, dtype="float64", grad=True, rtol=None, atol=None, needs=None):
    """Forward of ember's ``fe`` against torch's ``ft`` on ``arrays`` cast to ``dtype``, then the
    gradient of every input (``needs[i]`` False: no gradient) for a random seed."""
    needs = needs or [True] * len(arrays)
    es, ts = [], []
    for a, n in zip(arrays, needs):
        a = np.asarray(a)
        if a.dtype.kind == "f":
            a = np.asarray(a.astype(dtype))
        es.append(ember_tensor(a, requires_grad=grad and n))
        ts.append(torch.tensor(a, requires_grad=grad and n))
    out = fe(*es)
    tout = ft(*ts)
    assert_close(out, tout, rtol=rtol, atol=atol)
    if not grad:
        return out
    seed = rng.standard_normal(tuple(tout.shape)).astype(dtype)
    out.backward(ember.tensor(seed))
    tout.backward(torch.from_numpy(seed))
    grtol, gatol = GRAD_TOL[dtype]
    for e, t, n in zip(es, ts, needs):
        if n:
            assert e.grad is not None
            assert_close(e.grad, t.grad, rtol=grtol, atol=gatol)
    return out


def _fd_check(fe, arrays, rng, eps=1e-6, needs=None):
    """Backward of ember's ``fe`` against central finite differences of its forward."""
    needs = needs or [True] * len(arrays)
    xs = [ember_tensor(np.array(a, copy=True), requires_grad=n) for a, n in zip(arrays, needs)]
    out = fe(*xs)
    seed = rng.standard_normal(out.shape)
    out.backward(ember.tensor(seed))
    for i, a in enumerate(arrays):
        if not needs[i]:
            continue
        num = np.zeros(a.shape)
        for idx in np.ndindex(a.shape):
            vals = []
            for d in (eps, -eps):
                moved = [np.array(b, copy=True) for b in arrays]
                moved[i][idx] += d
                with ember.no_grad():
                    o = fe(*[ember.tensor(m) for m in moved]).numpy()
                vals.append(float((o * seed).sum()))
            num[idx] = (vals[0] - vals[1]) / (2 * eps)
        np.testing.assert_allclose(xs[i].grad.numpy(), num, rtol=1e-5, atol=1e-6)


def _raises(exc, match, fn, *tensors):
    """``fn()`` raises ``exc`` matching ``match`` and leaves ``tensors`` unchanged."""
    copies = [np.array(t.numpy(), copy=True) for t in tensors]
    with pytest.raises(exc, match=match):
        fn()
    for t, c in zip(tensors, copies):
        np.testing.assert_array_equal(t.numpy(), c)


# -- activations --------------------------------------------------------------------------------

ACTS = {
    "relu": (F.relu, torch.relu),
    "gelu": (F.gelu, TF.gelu),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"),
                  lambda x: TF.gelu(x, approximate="tanh")),
    "silu": (F.silu, TF.silu),
    "sigmoid": (F.sigmoid, torch.sigmoid),
    "tanh": (F.tanh, torch.tanh),
}


@pytest.mark.parametrize("name", list(ACTS))
def test_activation_values(rng, name):
    fe, ft = ACTS[name]
    for shape in SHAPES:
        for dtype in on_device(["float64", "float32", "float16", "bfloat16"]):
            a = np.asarray(random_array(rng, shape, dtype) * 3)
            t = to_torch(ember_tensor(a, dtype))
            expected = ft(t.float()).to(t.dtype) if dtype in ("float16", "bfloat16") else ft(t)
            for _, la in layouts(a):
                assert_close(fe(ember_tensor(la, dtype)), expected)


@pytest.mark.parametrize("name", list(ACTS))
def test_activation_grads(rng, name):
    fe, ft = ACTS[name]
    for dtype in ("float64", "float32"):
        for shape in [(), (7,), (3, 4), (2, 0, 3)]:
            _check(fe, ft, [rng.standard_normal(shape) * 4], rng, dtype)


def test_activation_extremes():
    x = ember.tensor([-1e4, -50.0, 0.0, 50.0, 1e4, float("inf"), float("-inf")], dtype="float64")
    t = torch.tensor(x.numpy())
    assert_close(F.gelu(x), TF.gelu(t))
    assert_close(F.gelu(x, "tanh"), TF.gelu(t, approximate="tanh"))
    assert_close(F.silu(x), TF.silu(t))


def test_gelu_exact_matches_erf_definition():
    x = np.linspace(-6, 6, 1001)
    import math
    want = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    np.testing.assert_allclose(F.gelu(ember.tensor(x)).numpy(), want, rtol=1e-14, atol=1e-15)


def test_activations_int_input_compute_in_float():
    x = ember.tensor([-2, 0, 3])
    for fe, ft in (ACTS["gelu"], ACTS["silu"]):
        out = fe(x)
        assert out.dtype == ember.float32
        assert_close(out, ft(torch.tensor([-2.0, 0.0, 3.0])))
    out = F.softmax(x, dim=0)
    assert_close(out, torch.softmax(torch.tensor([-2.0, 0.0, 3.0]), 0))


@pytest.mark.parametrize("fn", [F.gelu, F.silu, lambda x: F.softmax(x, 0),
                                lambda x: F.log_softmax(x, 0)])
def test_activation_bool_is_kind_error(fn):
    x = ember.tensor([True, False])
    _raises(ember.KindError, "bool", lambda: fn(x), x)


def test_gelu_bad_approximate():
    x = ember.tensor([1.0])
    _raises(ember.InvalidParameterError, "gelu: approximate 'fast'", lambda: F.gelu(x, "fast"), x)


def test_activations_not_tensor():
    for fn in (F.relu, F.gelu, F.silu, F.sigmoid, F.tanh, F.softmax):
        with pytest.raises(ember.InvalidParameterError, match="input must be a Tensor"):
            fn([1.0, 2.0])


# -- softmax, log_softmax -----------------------------------------------------------------------

@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_softmax_matches_torch(rng, log, dtype):
    for shape, dim in [((), 0), ((), -1), ((5,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -1),
                       ((2, 3, 4), 1), ((2, 0, 3), 2), ((2, 0, 3), 1), ((0,), 0)]:
        fe = (lambda x: F.log_softmax(x, dim)) if log else (lambda x: F.softmax(x, dim))
        ft = (lambda x: torch.log_softmax(x, dim)) if log else (lambda x: torch.softmax(x, dim))
        _check(fe, ft, [rng.standard_normal(shape) * 5], rng, dtype)
        a = np.asarray(random_array(rng, shape, dtype))
        for _, la in layouts(a):
            assert_close(fe(ember_tensor(la)), ft(torch.tensor(a)))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_softmax_half(rng, dtype):
    a = random_array(rng, (3, 5), dtype)
    t = to_torch(ember_tensor(a, dtype))
    assert_close(F.softmax(ember_tensor(a, dtype), 1), torch.softmax(t.float(), 1).to(t.dtype))
    assert_close(F.log_softmax(ember_tensor(a, dtype), 1),
                 torch.log_softmax(t.float(), 1).to(t.dtype))


def test_softmax_stable_and_implicit_dim():
    x = ember.tensor([[1000.0, 1001.0, -1000.0], [-1e30, 0.0, 1e30]], dtype="float64")
    t = torch.tensor(x.numpy())
    assert_close(F.softmax(x, 1), torch.softmax(t, 1))
    assert_close(F.log_softmax(x, 1), torch.log_softmax(t, 1))
    assert np.isfinite(F.log_softmax(x, 1).numpy()[0]).all()
    # dim=None: PyTorch's implicit choice (1 for 2-d, 0 for 1-d and 3-d)
    assert_close(F.softmax(x), torch.softmax(t, 1))
    y = ember.tensor(np.arange(24.0).reshape(2, 3, 4) / 10)
    assert_close(F.softmax(y), torch.softmax(torch.tensor(y.numpy()), 0))
    # a row of -inf gives nan, as PyTorch
    z = ember.tensor([[float("-inf"), float("-inf")], [0.0, float("-inf")]])
    assert_close(F.softmax(z, 1), torch.softmax(torch.tensor(z.numpy()), 1))


INF, NAN = float("inf"), float("nan")
NONFINITE_ROWS = [[INF, 1.0, 2.0], [INF, INF, 1.0], [INF, -INF, 0.0], [-INF, 1.0, 2.0],
                  [-INF, -INF, -INF], [NAN, 1.0, 0.0], [1.0, 2.0, 3.0]]


def _forward_backward(fn, values, seed, lib):
    """``fn``'s output and the input's gradient for the seed ``seed`` (ember or torch)."""
    if lib == "torch":
        x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        out = fn(x)
        out.backward(torch.tensor(seed, dtype=torch.float64))
        return out.detach().numpy(), x.grad.numpy()
    x = ember.tensor(values, dtype="float64").require_grad()
    out = fn(x)
    out.backward(ember.tensor(seed, dtype="float64"))
    return out.numpy(), x.grad.numpy()


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1])
def test_softmax_with_infinite_logits_matches_torch(rng, name, dim):
    """A +inf logit makes its whole slice NaN, forward and backward, as in PyTorch."""
    values = NONFINITE_ROWS if dim == 1 else [list(r) for r in zip(*NONFINITE_ROWS)]
    seed = rng.standard_normal(np.shape(values))
    out, grad = _forward_backward(lambda x: getattr(F, name)(x, dim), values, seed, "ember")
    tout, tgrad = _forward_backward(lambda x: getattr(torch, name)(x, dim), values, seed,
                                    "torch")
    np.testing.assert_array_equal(np.isnan(out), np.isnan(tout))
    np.testing.assert_allclose(out, tout, rtol=1e-12, atol=1e-15, equal_nan=True)
    np.testing.assert_array_equal(np.isnan(grad), np.isnan(tgrad))
    np.testing.assert_allclose(grad, tgrad, rtol=1e-12, atol=1e-15, equal_nan=True)
    if dim == 1:
        assert np.isnan(out[0]).all() and np.isnan(grad[0]).all()   # the +inf row


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("form", ["indices", "2-d fast path", "smoothing", "probabilities",
                                  "3-d"])
def test_cross_entropy_with_infinite_logits_matches_torch(rng, reduction, form):
    """A +inf logit gives NaN (never inf) in its row's loss and gradient, as in PyTorch."""
    values = np.array(NONFINITE_ROWS)
    target = np.array([1, 2, 0, 1, 0, 2, 1])
    kw = {"reduction": reduction}
    if form == "smoothing":
        kw["label_smoothing"] = 0.1
    if form == "indices":
        kw["weight"] = [0.5, 1.0, 2.0]
    if form == "probabilities":
        target = rng.random(values.shape)
        target /= target.sum(axis=1, keepdims=True)
    if form == "3-d":   # classes in dim 1, one more dim after them
        values = np.stack([values, values[::-1]], axis=-1)
        target = np.stack([target, target[::-1]], axis=-1)
    loss_shape = target.shape if target.dtype.kind == "i" else target.shape[:1] + target.shape[2:]
    seed = rng.standard_normal(loss_shape) if reduction == "none" else 1.0

    def ember_fn(x):
        t = ember.tensor(target)
        w = {"weight": ember.tensor(kw["weight"], dtype="float64")} if "weight" in kw else {}
        return F.cross_entropy(x, t, reduction=reduction, **w,
                               label_smoothing=kw.get("label_smoothing", 0.0))

    def torch_fn(x):
        t = torch.tensor(target)
        w = {"weight": torch.tensor(kw["weight"], dtype=torch.float64)} if "weight" in kw else {}
        return TF.cross_entropy(x, t, reduction=reduction, **w,
                                label_smoothing=kw.get("label_smoothing", 0.0))

    out, grad = _forward_backward(ember_fn, values.tolist(), seed, "ember")
    tout, tgrad = _forward_backward(torch_fn, values.tolist(), seed, "torch")
    np.testing.assert_array_equal(np.isnan(out), np.isnan(tout))
    np.testing.assert_allclose(out, tout, rtol=1e-12, atol=1e-15, equal_nan=True)
    np.testing.assert_array_equal(np.isnan(grad), np.isnan(tgrad))
    np.testing.assert_allclose(grad, tgrad, rtol=1e-12, atol=1e-15, equal_nan=True)
    assert np.isnan(grad[0].reshape(3, -1)[:, 0]).all()     # the row with +inf


def test_softmax_dtype_argument():
    x = ember.tensor([1.0, 2.0])
    assert F.softmax(x, 0, dtype="float64").dtype == ember.float64
    _raises(ember.KindError, "softmax: dtype int32", lambda: F.softmax(x, 0, dtype="int32"), x)


def test_softmax_bad_dim():
    x = ember.tensor([[1.0, 2.0]])
    _raises(ember.DimensionError, "softmax: dim 2 is out of range", lambda: F.softmax(x, 2), x)
    _raises(ember.DimensionError, "log_softmax: dim -3", lambda: F.log_softmax(x, -3), x)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=1, max_size=8))
def test_softmax_laws(values):
    x = ember.tensor(values, dtype="float64")
    s = F.softmax(x, 0).numpy()
    assert abs(s.sum() - 1.0) < 1e-12
    np.testing.assert_allclose(F.log_softmax(x, 0).numpy(), np.log(s), rtol=1e-9, atol=1e-12)
    shifted = ember.tensor(np.asarray(values) + 7.5, dtype="float64")
    np.testing.assert_allclose(F.softmax(shifted, 0).numpy(), s, rtol=1e-9, atol=1e-15)


# -- linear -------------------------------------------------------------------------------------

@pytest.mark.parametrize("xshape", [(4,), (3, 4), (2, 3, 4), (0, 4), (2, 0, 4)])
def test_linear_matches_torch(rng, xshape):
    for bias in (True, False):
        for dtype in ("float64", "float32"):
            arrays = [rng.standard_normal(xshape), rng.standard_normal((5, 4))]
            if bias:
                arrays.append(rng.standard_normal(5))
            _check(lambda *a: F.linear(*a), lambda *a: TF.linear(*a), arrays, rng, dtype)


def test_linear_layouts_and_mixed_dtypes(rng):
    a = rng.standard_normal((3, 4))
    w = rng.standard_normal((2, 4))
    expected = TF.linear(torch.tensor(a), torch.tensor(w))
    for (_, la), (_, lw) in zip(layouts(a), layouts(w)):
        assert_close(F.linear(ember_tensor(la), ember_tensor(lw)), expected)
    # float32 input with float64 weights computes in float64; each gradient in its own dtype
    x = ember_tensor(a.astype("float32"), requires_grad=True)
    wt = ember_tensor(w, requires_grad=True)
    out = F.linear(x, wt)
    assert out.dtype == ember.float64
    out.backward()
    assert x.grad.dtype == ember.float32 and wt.grad.dtype == ember.float64


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_linear_half(rng, dtype):
    a, w = random_array(rng, (3, 4), dtype), random_array(rng, (2, 4), dtype)
    ta, tw = to_torch(ember_tensor(a, dtype)), to_torch(ember_tensor(w, dtype))
    assert_close(F.linear(ember_tensor(a, dtype), ember_tensor(w, dtype)),
                 TF.linear(ta.float(), tw.float()).to(ta.dtype))


def test_linear_bad_inputs():
    x, w, b = ember.ones(3, 4), ember.ones(2, 4), ember.ones(2)
    _raises(ember.ShapeMismatchError, r"linear: input has shape \(3, 5\); expected \(\*, 4\)",
            lambda: F.linear(ember.ones(3, 5), w), w)
    _raises(ember.ShapeMismatchError, r"linear: input has shape \(\)",
            lambda: F.linear(ember.tensor(1.0), w), w)
    _raises(ember.ShapeMismatchError, r"linear: weight has shape \(4,\)",
            lambda: F.linear(x, ember.ones(4)), x)
    _raises(ember.ShapeMismatchError, r"linear: bias has shape \(3,\); expected \(2,\)",
            lambda: F.linear(x, w, ember.ones(3)), x, w)
    _raises(ember.KindError, "linear: input has dtype int64",
            lambda: F.linear(ember.tensor([[1, 2, 3, 4]]), w), w)
    _raises(ember.InvalidParameterError, "linear: weight must be a Tensor",
            lambda: F.linear(x, [[1.0] * 4]), x, b)


# -- conv2d -------------------------------------------------------------------------------------

CONV_CASES = [
    # (N, C, H, W), (O, kh, kw), stride, padding, dilation, groups, bias
    ((2, 3, 7, 6), (4, 3, 3), 1, 0, 1, 1, True),
    ((2, 3, 7, 6), (4, 3, 2), 2, 1, 1, 1, False),
    ((1, 2, 8, 9), (4, 3, 3), (1, 2), (2, 1), 2, 2, True),
    ((3, 4, 6, 6), (6, 1, 3), 2, 2, 1, 2, True),
    ((2, 2, 5, 7), (2, 3, 3), 1, "same", 1, 1, True),
    ((2, 2, 6, 7), (3, 2, 4), 1, "same", (2, 1), 1, False),
    ((2, 2, 5, 5), (3, 3, 3), 1, "valid", 1, 1, True),
    ((0, 2, 5, 5), (3, 3, 3), 1, 1, 1, 1, True),
    ((2, 1, 8, 8), (16, 3, 3), 1, 1, 1, 1, True),
    ((1, 4, 5, 5), (4, 1, 1), 1, 0, 1, 4, True),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("case", CONV_CASES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_conv2d_matches_torch(rng, case, dtype):
    xshape, (O, kh, kw), stride, padding, dilation, groups, bias = case
    C = xshape[1]
    arrays = [rng.standard_normal(xshape), rng.standard_normal((O, C // groups, kh, kw))]
    if bias:
        arrays.append(rng.standard_normal(O))

    def fe(x, w, b=None):
        return F.conv2d(x, w, b, stride, padding, dilation, groups)

    def ft(x, w, b=None):
        return TF.conv2d(x, w, b, stride, padding, dilation, groups)

    _check(fe, ft, arrays, rng, dtype)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 2), st.integers(1, 2), st.integers(1, 2), st.integers(1, 2),
       st.tuples(st.integers(1, 3), st.integers(1, 3)), st.tuples(st.integers(1, 2),
                                                                  st.integers(1, 2)),
       st.tuples(st.integers(0, 2), st.integers(0, 2)), st.tuples(st.integers(1, 2),
                                                                  st.integers(1, 2)),
       st.tuples(st.integers(3, 7), st.integers(3, 7)), st.booleans())
def test_conv2d_random_hyper_parameters_match_torch(n, groups, cg, og, kernel, stride, padding,
                                                    dilation, hw, bias):
    eff = [d * (k - 1) + 1 for d, k in zip(dilation, kernel)]
    if any(s + 2 * p < e for s, p, e in zip(hw, padding, eff)):
        return
    rng = np.random.default_rng(n * 1000 + cg * 100 + og)
    arrays = [rng.standard_normal((n, groups * cg) + hw),
              rng.standard_normal((groups * og, cg) + kernel)]
    if bias:
        arrays.append(rng.standard_normal(groups * og))
    _check(lambda *a: F.conv2d(*a, stride=stride, padding=padding, dilation=dilation,
                               groups=groups) if len(a) == 3 else
           F.conv2d(*a, None, stride, padding, dilation, groups),
           lambda *a: TF.conv2d(*a, stride=stride, padding=padding, dilation=dilation,
                                groups=groups) if len(a) == 3 else
           TF.conv2d(*a, None, stride, padding, dilation, groups), arrays, rng)


def test_conv2d_layouts_and_unbatched(rng):
    x = rng.standard_normal((2, 3, 6, 5))
    w = rng.standard_normal((4, 3, 3, 3))
    expected = TF.conv2d(torch.tensor(x), torch.tensor(w), padding=1)
    for (_, lx), (_, lw) in zip(layouts(x), layouts(w)):
        assert_close(F.conv2d(ember_tensor(lx), ember_tensor(lw), padding=1), expected)
    permuted = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    assert_close(F.conv2d(ember_tensor(permuted), ember_tensor(w), padding=1), expected)
    # an unbatched (C, H, W) input
    _check(lambda a, b: F.conv2d(a, b, stride=2, padding=1),
           lambda a, b: TF.conv2d(a, b, stride=2, padding=1), [x[0], w], rng)


@pytest.mark.parametrize("dtype", ["float16"])
def test_conv2d_half(rng, dtype):
    x, w = random_array(rng, (1, 2, 5, 5), dtype), random_array(rng, (3, 2, 3, 3), dtype)
    got = F.conv2d(ember_tensor(x), ember_tensor(w))
    want = TF.conv2d(torch.tensor(x).float(), torch.tensor(w).float()).half()
    assert_close(got, want, rtol=1e-2, atol=1e-2)


def test_conv2d_finite_differences(rng):
    arrays = [rng.standard_normal((1, 2, 4, 5)), rng.standard_normal((2, 1, 2, 3)),
              rng.standard_normal(2)]
    _fd_check(lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2),
                                       groups=2), arrays, rng)


def test_conv2d_spec_example():
    x = ember.arange(16.0).reshape(1, 1, 4, 4)
    assert F.conv2d(x, ember.ones(1, 1, 2, 2), stride=2).tolist() == [[[[10.0, 18.0],
                                                                        [42.0, 50.0]]]]


def test_conv2d_bad_inputs():
    x, w = ember.ones(2, 3, 5, 5), ember.ones(4, 3, 3, 3)
    _raises(ember.ShapeMismatchError, r"conv2d: input has shape \(2, 2, 5, 5\) with 2 channels; "
            r"expected \(N, 3, H, W\)", lambda: F.conv2d(ember.ones(2, 2, 5, 5), w), w)
    _raises(ember.ShapeMismatchError, r"conv2d: input has shape \(5, 5\) \(2-d\); expected a 3-d "
            r"or 4-d tensor", lambda: F.conv2d(ember.ones(5, 5), w), w)
    _raises(ember.ShapeMismatchError, r"conv2d: weight has shape \(4, 3, 3\)",
            lambda: F.conv2d(x, ember.ones(4, 3, 3)), x)
    _raises(ember.ShapeMismatchError, r"conv2d: bias has shape \(3,\); expected \(4,\)",
            lambda: F.conv2d(x, w, ember.ones(3)), x, w)
    _raises(ember.ShapeMismatchError, "smaller than the effective kernel size",
            lambda: F.conv2d(ember.ones(1, 3, 2, 2), w), w)
    _raises(ember.InvalidParameterError, "conv2d: stride is 0; expected ints >= 1",
            lambda: F.conv2d(x, w, stride=0), x, w)
    _raises(ember.InvalidParameterError, r"conv2d: padding is -1; expected ints >= 0",
            lambda: F.conv2d(x, w, padding=-1), x, w)
    _raises(ember.InvalidParameterError, "conv2d: padding 'full' is unknown",
            lambda: F.conv2d(x, w, padding="full"), x, w)
    _raises(ember.InvalidParameterError, "padding='same' needs stride 1",
            lambda: F.conv2d(x, w, stride=2, padding="same"), x, w)
    _raises(ember.InvalidParameterError, "conv2d: dilation is 0",
            lambda: F.conv2d(x, w, dilation=0), x, w)
    _raises(ember.InvalidParameterError, "conv2d: groups=3 does not divide out_channels=4",
            lambda: F.conv2d(x, ember.ones(4, 1, 3, 3), groups=3), x)
    _raises(ember.InvalidParameterError, r"conv2d: stride \(1, 2, 3\) must be an int or a pair",
            lambda: F.conv2d(x, w, stride=(1, 2, 3)), x, w)
    _raises(ember.KindError, "conv2d: input has dtype int64",
            lambda: F.conv2d(ember.ones(2, 3, 5, 5, dtype="int64"), w), w)


# -- pooling ------------------------------------------------------------------------------------

POOL_CASES = [
    # shape, kernel, stride, padding, dilation, ceil_mode
    ((2, 3, 6, 6), 2, None, 0, 1, False),
    ((2, 3, 7, 5), (3, 2), (2, 1), (1, 1), 1, False),
    ((1, 2, 7, 7), 3, 2, 1, 1, True),
    ((1, 2, 8, 9), 2, 3, 1, 1, True),
    ((2, 1, 9, 9), 3, 2, 1, 2, False),
    ((0, 2, 4, 4), 2, None, 0, 1, False),
    ((3, 5, 5), 2, 1, 0, 1, False),
]


@pytest.mark.parametrize("case", POOL_CASES)
def test_max_pool2d_matches_torch(rng, case):
    shape, k, s, p, d, ceil = case
    for dtype in ("float64", "float32"):
        _check(lambda x: F.max_pool2d(x, k, s, p, d, ceil),
               lambda x: TF.max_pool2d(x, k, s, p, d, ceil), [rng.standard_normal(shape)], rng,
               dtype)


def test_max_pool2d_ties_go_to_the_first_max(rng):
    a = rng.integers(0, 3, size=(2, 2, 6, 6)).astype("float64")
    _check(lambda x: F.max_pool2d(x, 3, 1, 1), lambda x: TF.max_pool2d(x, 3, 1, 1), [a], rng)
    _check(lambda x: F.max_pool2d(x, 2), lambda x: TF.max_pool2d(x, 2), [np.zeros((1, 1, 4, 4))],
           rng)


def _tricky(rng, shape):
    """Small ints (many ties), with NaNs and -infs sprinkled in."""
    a = rng.integers(-2, 3, size=shape).astype("float64")
    a[rng.random(shape) < 0.15] = np.nan
    a[rng.random(shape) < 0.2] = -np.inf
    return a


TRICKY_POOLS = [  # kernel, stride, padding, dilation, ceil_mode
    (2, None, 0, 1, False), (3, 1, 1, 1, False), ((3, 2), (2, 1), (1, 1), 1, True),
    (2, 3, 1, 1, True), (3, 2, 1, 2, False), ((1, 3), 1, (0, 1), (1, 2), True), (1, 1, 0, 1, False),
    (4, 2, 2, 1, True),
]


@pytest.mark.parametrize("cfg", TRICKY_POOLS)
def test_max_pool2d_nans_ties_and_indices_match_torch(rng, cfg):
    """PyTorch's CPU rule: the first max of a window, its last NaN when it has NaNs, taps in
    the padding skipped; values, indices and float64/float32 gradients equal torch's."""
    k, s, p, d, ceil = cfg
    for shape in ((2, 3, 7, 6), (3, 5, 8), (0, 2, 5, 5)):
        a = _tricky(rng, shape)
        for dtype in ("float64", "float32"):
            ad = a.astype(dtype)
            tx = torch.tensor(ad, requires_grad=True)
            tout, tidx = TF.max_pool2d(tx, k, s, p, d, ceil, return_indices=True)
            seed = rng.standard_normal(tuple(tout.shape)).astype(dtype)
            tout.backward(torch.tensor(seed))
            for _, la in layouts(ad):
                x = ember_tensor(la, requires_grad=True)
                before = snapshot(x)
                out, idx = F.max_pool2d(x, k, s, p, d, ceil, return_indices=True)
                assert idx.dtype == ember.int64 and idx.shape == tuple(tidx.shape)
                np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
                assert_close(out, tout)
                out.backward(ember.tensor(seed))
                # overlapping windows sum in another order than torch: to rounding
                assert_close(x.grad, tx.grad, *GRAD_TOL[dtype])
                assert_unchanged((x,), before)


def test_max_pool2d_several_nans_send_the_gradient_to_the_last():
    nan = float("nan")
    for row, want in (([nan, 1.0, nan, 2.0], 2), ([nan, nan, nan, nan], 3),
                      ([float("inf"), nan, float("inf"), 2.0], 1), ([1.0, 3.0, 3.0, 2.0], 1),
                      ([-float("inf")] * 4, 0)):
        x = ember.tensor([[row]]).require_grad()
        out, idx = F.max_pool2d(x, (1, 4), return_indices=True)
        out.backward()
        tx = torch.tensor([[row]], requires_grad=True)
        tout, tidx = TF.max_pool2d(tx, (1, 4), return_indices=True)
        tout.backward(torch.ones_like(tout))
        assert idx.tolist() == tidx.tolist() == [[[want]]]
        assert x.grad.tolist() == tx.grad.tolist()
        assert x.grad.tolist()[0][0][want] == 1.0


def test_max_pool2d_padding_is_never_selected():
    # every tap inside is -inf: the first one inside gets the gradient, as in PyTorch
    a = np.full((1, 1, 3, 3), -np.inf)
    x = ember.tensor(a).require_grad()
    out, idx = F.max_pool2d(x, 3, 1, 1, return_indices=True)
    out.backward()
    tx = torch.tensor(a, requires_grad=True)
    tout, tidx = TF.max_pool2d(tx, 3, 1, 1, return_indices=True)
    tout.backward(torch.ones_like(tout))
    assert idx.tolist() == tidx.tolist()
    assert_close(x.grad, tx.grad, rtol=0, atol=0)
    assert x.grad.tolist()[0][0][0] == [4.0, 2.0, 0.0]


def test_max_pool2d_window_with_no_tap_inside():
    # dilation 2 over one padded column: the window's taps (-1, 1) are both outside. ember's
    # output and index are PyTorch's; its gradient is dropped (PyTorch's lands in the next plane)
    a = np.array([[[[5.0]], [[7.0]]]])
    x = ember.tensor(a).require_grad()
    out, idx = F.max_pool2d(x, 2, 2, 1, (1, 2), True, return_indices=True)
    tout, tidx = TF.max_pool2d(torch.tensor(a), 2, 2, 1, (1, 2), True, return_indices=True)
    assert_close(out, tout)
    assert idx.tolist() == tidx.tolist() == [[[[1]], [[1]]]]
    out.backward()
    assert x.grad.tolist() == [[[[0.0]], [[0.0]]]]


@pytest.mark.parametrize("case", POOL_CASES)
def test_max_pool2d_return_indices_half(rng, case):
    shape, k, s, p, d, ceil = case
    a = rng.integers(-3, 4, size=shape).astype("float32")
    for dtype in on_device(["float16", "bfloat16"]):
        tdt = getattr(torch, dtype)
        out, idx = F.max_pool2d(ember_tensor(a, dtype), k, s, p, d, ceil, True)
        tout, tidx = TF.max_pool2d(torch.tensor(a).to(tdt), k, s, p, d, ceil, return_indices=True)
        assert out.dtype.name == dtype
        assert_close(out, tout)
        np.testing.assert_array_equal(idx.numpy(), tidx.numpy())


def test_max_pool2d_return_indices_bad():
    x = ember.ones(1, 1, 4, 4)
    _raises(ember.InvalidParameterError, "max_pool2d: return_indices must be a bool, got 1",
            lambda: F.max_pool2d(x, 2, return_indices=1), x)


# -- max_unpool2d -------------------------------------------------------------------------------

UNPOOL_CASES = [  # input shape, kernel, stride, padding, output_size
    ((2, 3, 6, 6), 2, None, 0, None), ((2, 2, 7, 5), 3, 2, 1, None),
    ((1, 2, 7, 7), 3, 1, 1, None),      # overlapping windows: repeated indices
    ((2, 2, 7, 7), 2, 2, 0, (7, 7)), ((3, 5, 5), 2, 1, 0, None), ((0, 2, 4, 4), 2, None, 0, None),
    ((1, 1, 5, 5), (2, 3), (2, 1), (1, 0), (1, 1, 5, 5)),
]


def _unpool_reference(vals, idx, out_hw):
    """max_unpool2d by a loop: zeros, then each value written at its index in row-major order
    (the last one wins where indices repeat)."""
    lead = vals.shape[:-2]
    out = np.zeros(lead + (out_hw[0] * out_hw[1],))
    for pos in np.ndindex(vals.shape):
        out[pos[:-2] + (idx[pos],)] = vals[pos]
    return out.reshape(lead + tuple(out_hw))


@pytest.mark.parametrize("case", UNPOOL_CASES)
def test_max_unpool2d_matches_torch(rng, case):
    """Values against a reference loop (and torch where no index repeats: PyTorch leaves the
    winner of a repeated index unspecified); gradients against torch.autograd."""
    shape, k, s, p, size = case
    a = rng.integers(-3, 4, size=shape).astype("float64")
    tv, tidx = TF.max_pool2d(torch.tensor(a), k, s, p, return_indices=True)
    vals = rng.standard_normal(tuple(tv.shape))
    tx = torch.tensor(vals, requires_grad=True)
    tout = TF.max_unpool2d(tx, tidx, k, s, p, size)
    seed = rng.standard_normal(tuple(tout.shape))
    tout.backward(torch.tensor(seed))
    _, idx = F.max_pool2d(ember.tensor(a), k, s, p, return_indices=True)
    flat = tidx.numpy().reshape(-1, tidx.shape[-2] * tidx.shape[-1]) if vals.size else None
    repeats = flat is not None and any(len(set(r)) < len(r) for r in flat)
    ref = _unpool_reference(vals, idx.numpy(), tuple(tout.shape[-2:]))
    for _, lv in layouts(vals):
        x = ember_tensor(lv, requires_grad=True)
        before = snapshot(x, idx)
        out = F.max_unpool2d(x, idx, k, s, p, size)
        assert out.shape == tuple(tout.shape)
        np.testing.assert_array_equal(out.numpy(), ref)
        if not repeats:
            assert_close(out, tout, rtol=0, atol=0)
        out.backward(ember.tensor(seed))
        assert_close(x.grad, tx.grad, rtol=0, atol=0)
        assert_unchanged((x, idx), before)


def test_max_unpool2d_bad_inputs():
    x = ember.ones(1, 1, 2, 2)
    idx = ember.tensor([[[[0, 3], [8, 15]]]])
    _raises(ember.KindError, "max_unpool2d: indices has dtype float32",
            lambda: F.max_unpool2d(x, x, 2), x)
    _raises(ember.KindError, "max_unpool2d: input has dtype int64",
            lambda: F.max_unpool2d(idx, idx, 2), idx)
    _raises(ember.ShapeMismatchError, r"max_unpool2d: indices has shape \(1, 1, 1, 2\); "
            r"expected the input's shape \(1, 1, 2, 2\)",
            lambda: F.max_unpool2d(x, idx[..., :1, :], 2), x, idx)
    _raises(ember.DimensionError, r"max_unpool2d: index 16 is out of range for an output plane "
            r"of 4x4; expected indices in \[0, 15\]",
            lambda: F.max_unpool2d(x, idx + 1, 2), x, idx)
    _raises(ember.InvalidParameterError, r"max_unpool2d: output_size \(6, 4\) is not a possible",
            lambda: F.max_unpool2d(x, idx, 2, output_size=(6, 4)), x, idx)
    _raises(ember.InvalidParameterError, "max_unpool2d: output_size 4 must be a sequence",
            lambda: F.max_unpool2d(x, idx, 2, output_size=4), x, idx)
    _raises(ember.InvalidParameterError, r"max_unpool2d: output_size \(1, 4, 4\) must be a "
            r"sequence of 2 ints \(H, W\) or 4",
            lambda: F.max_unpool2d(x, idx, 2, output_size=(1, 4, 4)), x, idx)
    _raises(ember.InvalidParameterError, "max_unpool2d: kernel_size is 0",
            lambda: F.max_unpool2d(x, idx, 0), x, idx)
    _raises(ember.ShapeMismatchError, r"max_unpool2d: input has shape \(2, 2\) \(2-d\)",
            lambda: F.max_unpool2d(ember.ones(2, 2), idx[0, 0], 2), idx)


@pytest.mark.parametrize("case", POOL_CASES)
def test_avg_pool2d_matches_torch(rng, case):
    shape, k, s, p, _, ceil = case
    for include in (True, False):
        for dtype in ("float64", "float32"):
            _check(lambda x: F.avg_pool2d(x, k, s, p, ceil, include),
                   lambda x: TF.avg_pool2d(x, k, s, p, ceil, include),
                   [rng.standard_normal(shape)], rng, dtype)


def test_avg_pool2d_divisor_override(rng):
    _check(lambda x: F.avg_pool2d(x, 3, 2, 1, divisor_override=4),
           lambda x: TF.avg_pool2d(x, 3, 2, 1, divisor_override=4),
           [rng.standard_normal((2, 2, 7, 6))], rng)


def test_pool_layouts_and_examples(rng):
    a = rng.standard_normal((2, 3, 6, 6))
    for _, la in layouts(a):
        assert_close(F.max_pool2d(ember_tensor(la), 2), TF.max_pool2d(torch.tensor(a), 2))
        assert_close(F.avg_pool2d(ember_tensor(la), 3, 1, 1),
                     TF.avg_pool2d(torch.tensor(a), 3, 1, 1))
    x = ember.arange(16.0).reshape(1, 1, 4, 4)
    assert F.max_pool2d(x, 2).tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert F.avg_pool2d(x, 2).tolist() == [[[[2.5, 4.5], [10.5, 12.5]]]]


def test_pool_finite_differences(rng):
    _fd_check(lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
              [rng.standard_normal((1, 1, 5, 6))], rng)
    _fd_check(lambda x: F.max_pool2d(x, 2, 1), [rng.standard_normal((1, 2, 3, 4))], rng)


def test_pool_nan_propagates():
    x = ember.tensor([[[[1.0, float("nan")], [3.0, 4.0]]]])
    assert np.isnan(F.max_pool2d(x, 2).item())


def test_pool_bad_inputs():
    x = ember.ones(1, 1, 4, 4)
    for fn, name in ((F.max_pool2d, "max_pool2d"), (F.avg_pool2d, "avg_pool2d")):
        _raises(ember.InvalidParameterError, f"{name}: kernel_size is 0",
                lambda: fn(x, 0), x)
        _raises(ember.InvalidParameterError, f"{name}: stride is 0", lambda: fn(x, 2, 0), x)
        _raises(ember.InvalidParameterError, f"{name}: padding 2 is more than half the kernel",
                lambda: fn(x, 3, 1, 2), x)
        _raises(ember.ShapeMismatchError, rf"{name}: input has shape \(4, 4\) \(2-d\)",
                lambda: fn(ember.ones(4, 4), 2), x)
        _raises(ember.ShapeMismatchError, f"{name}: input of spatial size .* too small",
                lambda: fn(ember.ones(1, 1, 2, 2), 3), x)
        _raises(ember.KindError, f"{name}: input has dtype int64",
                lambda: fn(ember.ones(1, 1, 4, 4, dtype="int64"), 2), x)
        _raises(ember.InvalidParameterError, f"{name}: ceil_mode must be a bool",
                lambda: fn(x, 2, ceil_mode=1), x)
    _raises(ember.InvalidParameterError, "avg_pool2d: divisor_override is 0",
            lambda: F.avg_pool2d(x, 2, divisor_override=0), x)


# -- batch_norm, layer_norm ---------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_matches_torch(rng, shape, training):
    for affine in (True, False):
        for dtype in ("float64", "float32"):
            _batch_norm_case(rng, shape, training, affine, dtype)


def _batch_norm_case(rng, shape, training, affine, dtype):
    C = shape[1]
    rm = rng.standard_normal(C).astype(dtype)
    rv = (rng.random(C) + 0.5).astype(dtype)
    arrays = [rng.standard_normal(shape) * 2 + 1]
    if affine:
        arrays += [rng.standard_normal(C), rng.standard_normal(C)]

    def fe(x, w=None, b=None):
        return F.batch_norm(x, ember.tensor(rm), ember.tensor(rv), w, b, training, 0.1, 1e-3)

    def ft(x, w=None, b=None):
        return TF.batch_norm(x, torch.tensor(rm), torch.tensor(rv), w, b, training, 0.1, 1e-3)

    _check(fe, ft, arrays, rng, dtype)


def test_batch_norm_fd_and_no_running_stats(rng):
    _fd_check(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
              [rng.standard_normal((3, 2, 2)), rng.standard_normal(2), rng.standard_normal(2)],
              rng)
    a = rng.standard_normal((5, 3))
    assert_close(F.batch_norm(ember.tensor(a), None, None, training=True),
                 TF.batch_norm(torch.tensor(a), None, None, training=True))


def test_batch_norm_bad_inputs():
    x = ember.ones(4, 3)
    rm, rv = ember.zeros(3), ember.ones(3)
    _raises(ember.ShapeMismatchError, r"batch_norm: running_mean has shape \(2,\); expected "
            r"\(3,\)", lambda: F.batch_norm(x, ember.zeros(2), rv), x, rv)
    _raises(ember.ShapeMismatchError, r"batch_norm: input has shape \(3,\); expected at least 2",
            lambda: F.batch_norm(ember.ones(3), rm, rv), rm, rv)
    _raises(ember.ShapeMismatchError, "expected more than 1 value per channel when training",
            lambda: F.batch_norm(ember.ones(1, 3), rm, rv, training=True), rm, rv)
    _raises(ember.InvalidParameterError, "running_mean and running_var are needed",
            lambda: F.batch_norm(x, None, None), x)
    _raises(ember.InvalidParameterError, "batch_norm: eps is -1.0",
            lambda: F.batch_norm(x, rm, rv, eps=-1), x, rm, rv)
    _raises(ember.KindError, "batch_norm: weight has dtype int64",
            lambda: F.batch_norm(x, rm, rv, ember.tensor([1, 1, 1])), x, rm, rv)


@pytest.mark.parametrize("shape,norm", [((4, 5), (5,)), ((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)),
                                        ((5,), (5,)), ((0, 3), (3,))])
def test_layer_norm_matches_torch(rng, shape, norm):
    for affine in ("both", "weight", "none"):
        for dtype in ("float64", "float32"):
            arrays = [rng.standard_normal(shape) * 3 + 1]
            if affine != "none":
                arrays.append(rng.standard_normal(norm))
            if affine == "both":
                arrays.append(rng.standard_normal(norm))
            _check(lambda x, *wb: F.layer_norm(x, norm, *wb),
                   lambda x, *wb: TF.layer_norm(x, norm, *wb), arrays, rng, dtype)


def test_layer_norm_fd(rng):
    _fd_check(lambda x, w, b: F.layer_norm(x, (2, 3), w, b),
              [rng.standard_normal((2, 2, 3)), rng.standard_normal((2, 3)),
               rng.standard_normal((2, 3))], rng)


def test_layer_norm_bad_inputs():
    x = ember.ones(2, 4)
    _raises(ember.ShapeMismatchError, r"layer_norm: input has shape \(2, 4\); expected \(\*, 3\)",
            lambda: F.layer_norm(x, 3), x)
    _raises(ember.ShapeMismatchError, r"layer_norm: weight has shape \(3,\); expected \(4,\)",
            lambda: F.layer_norm(x, 4, ember.ones(3)), x)
    _raises(ember.InvalidParameterError, "layer_norm: normalized_shape is -1",
            lambda: F.layer_norm(x, -1), x)
    _raises(ember.ShapeMismatchError, r"layer_norm: input has shape \(2, 4\); expected \(\*, 0\)",
            lambda: F.layer_norm(x, 0), x)


# -- dropout ------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_statistics_and_gradient(p):
    ember.manual_seed(1)
    x = ember.ones(200, 100, dtype="float64").require_grad()
    out = F.dropout(x, p)
    vals = out.numpy()
    kept = vals != 0
    assert abs(1 - kept.mean() - p) < 0.02
    np.testing.assert_allclose(vals[kept], 1 / (1 - p))
    assert abs(vals.mean() - 1.0) < 0.05
    out.backward()
    np.testing.assert_array_equal(x.grad.numpy(), vals)


def test_dropout_modes_and_seed():
    x = ember.randn(50, dtype="float64")
    assert F.dropout(x, 0.5, training=False) is x
    assert F.dropout(x, 0.0) is x
    assert (F.dropout(x, 1.0).numpy() == 0).all()
    ember.manual_seed(7)
    a = F.dropout(x, 0.3).numpy()
    ember.manual_seed(7)
    b = F.dropout(x, 0.3).numpy()
    np.testing.assert_array_equal(a, b)
    assert F.dropout(ember.ones(2, 0), 0.5).shape == (2, 0)


def test_dropout_bad_inputs():
    x = ember.ones(3)
    _raises(ember.InvalidParameterError, "dropout: p is 1.5; expected a number in",
            lambda: F.dropout(x, 1.5), x)
    _raises(ember.InvalidParameterError, "dropout: training must be a bool",
            lambda: F.dropout(x, 0.5, "yes"), x)
    _raises(ember.KindError, "dropout: input has dtype int64",
            lambda: F.dropout(ember.tensor([1, 2]), 0.5), x)


# -- embedding ----------------------------------------------------------------------------------

@pytest.mark.parametrize("idx_shape", [(), (5,), (2, 3), (0,)])
@pytest.mark.parametrize("padding_idx", [None, 1, -1])
def test_embedding_matches_torch(rng, idx_shape, padding_idx):
    idx = rng.integers(0, 4, size=idx_shape)
    idx.flat[:1] = 1  # repeated indices and the padding row
    w = rng.standard_normal((4, 3))
    e = ember_tensor(w, requires_grad=True)
    t = torch.tensor(w, requires_grad=True)
    out = F.embedding(ember.tensor(idx), e, padding_idx)
    tout = TF.embedding(torch.tensor(idx), t, padding_idx)
    assert_close(out, tout)
    seed = rng.standard_normal(tuple(tout.shape))
    out.backward(ember.tensor(seed))
    tout.backward(torch.tensor(seed))
    assert_close(e.grad, t.grad)


def test_embedding_bad_inputs():
    w = ember.ones(4, 3)
    _raises(ember.DimensionError, r"embedding: index 4 is out of range for 4 embeddings",
            lambda: F.embedding(ember.tensor([0, 4]), w), w)
    _raises(ember.DimensionError, r"embedding: index -1 is out of range",
            lambda: F.embedding(ember.tensor([-1]), w), w)
    _raises(ember.KindError, "embedding: input has dtype float32",
            lambda: F.embedding(ember.tensor([1.0]), w), w)
    _raises(ember.InvalidParameterError, "embedding: padding_idx 4 is out of range",
            lambda: F.embedding(ember.tensor([1]), w, 4), w)
    _raises(ember.ShapeMismatchError, r"embedding: weight has shape \(4,\)",
            lambda: F.embedding(ember.tensor([1]), ember.ones(4)))


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf"), 0.5])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_embedding_max_norm_matches_torch(rng, norm_type, dtype):
    """The output, the weight afterwards (renormalized rows) and the gradient equal torch's;
    the weight is rebound (same object, still a leaf), views taken before keep old values."""
    for idx_shape, padding_idx, freq in (((2, 3), None, False), ((4,), 1, True),
                                         ((0,), None, False), ((), 2, True)):
        w = (rng.standard_normal((5, 4)) * 2).astype(dtype)
        w[3] = 0.0                                  # a zero row: norm 0, never scaled
        idx = rng.integers(0, 5, size=idx_shape)
        idx.flat[:1] = 3
        for _, lw in layouts(w):
            e = ember_tensor(lw, requires_grad=True)
            old_view = e[1:3]
            old = snapshot(old_view)
            t = torch.tensor(w, requires_grad=True)
            ei = ember.tensor(idx)
            out = F.embedding(ei, e, padding_idx, 1.5, norm_type, freq)
            tout = TF.embedding(torch.tensor(idx), t, padding_idx, 1.5, norm_type, freq)
            assert_close(out, tout, *GRAD_TOL[dtype])
            assert_close(e, t.detach(), *GRAD_TOL[dtype])        # the renormalized weight
            assert e.is_leaf and e.requires_grad
            assert_unchanged((old_view,), old)
            seed = rng.standard_normal(tuple(tout.shape)).astype(dtype)
            out.backward(ember.tensor(seed))
            tout.backward(torch.tensor(seed))
            assert_close(e.grad, t.grad, *GRAD_TOL[dtype])


def test_embedding_max_norm_rows_and_rebinding():
    w = ember.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]]).require_grad()
    before = w
    out = F.embedding(ember.tensor([0, 1, 0]), w, max_norm=1.0)
    assert w is before
    # rows 0 (norm 5 > 1) is scaled by 1 / (5 + 1e-7); row 1 (norm 0.5) and row 2 (not looked
    # up) keep their values
    np.testing.assert_allclose(w.numpy(), [[0.6, 0.8], [0.3, 0.4], [6.0, 8.0]], rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8], [0.3, 0.4], [0.6, 0.8]], rtol=1e-6)
    # no row above max_norm: the weight keeps its buffer
    data = w._data
    F.embedding(ember.tensor([1]), w, max_norm=10.0)
    assert w._data is data


def test_embedding_scale_grad_by_freq_matches_torch(rng):
    idx = np.array([[0, 2, 2], [2, 1, 0]])
    w = rng.standard_normal((4, 3))
    e, t = ember_tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    seed = rng.standard_normal((2, 3, 3))
    F.embedding(ember.tensor(idx), e, scale_grad_by_freq=True).backward(ember.tensor(seed))
    TF.embedding(torch.tensor(idx), t, scale_grad_by_freq=True).backward(torch.tensor(seed))
    assert_close(e.grad, t.grad)


def test_embedding_max_norm_bad_inputs():
    w = ember.tensor([[3.0, 4.0], [1.0, 0.0]])
    i = ember.tensor([0])
    _raises(ember.InvalidParameterError, "embedding: sparse=True is not supported: ember has no "
            "sparse gradients", lambda: F.embedding(i, w, sparse=True), w, i)
    _raises(ember.InvalidParameterError, "embedding: max_norm is -1.0; expected a number >= 0.0",
            lambda: F.embedding(i, w, max_norm=-1.0), w, i)
    _raises(ember.InvalidParameterError, "embedding: max_norm must be a real number, got str",
            lambda: F.embedding(i, w, max_norm="1"), w, i)
    _raises(ember.InvalidParameterError, "embedding: norm_type is nan; expected a number that "
            "is not NaN", lambda: F.embedding(i, w, max_norm=1.0, norm_type=float("nan")), w, i)
    _raises(ember.InvalidParameterError, "embedding: scale_grad_by_freq must be a bool, got 1",
            lambda: F.embedding(i, w, scale_grad_by_freq=1), w, i)
    # an out-of-range index is refused before any row is renormalized
    _raises(ember.DimensionError, "embedding: index 2 is out of range",
            lambda: F.embedding(ember.tensor([0, 2]), w, max_norm=1.0), w)


# -- cross_entropy, nll_loss --------------------------------------------------------------------

CE_SHAPES = [((5, 4), (5,)), ((3, 4, 2, 3), (3, 2, 3)), ((4,), ()), ((0, 3), (0,)),
             ((2, 3, 4), (2, 4))]


@pytest.mark.parametrize("shapes", CE_SHAPES)
@pytest.mark.parametrize("opts", [{}, {"weight": True}, {"ignore": True},
                                  {"label_smoothing": 0.2},
                                  {"weight": True, "ignore": True, "label_smoothing": 0.1}])
def test_cross_entropy_indices_matches_torch(rng, shapes, opts):
    for reduction in ("mean", "sum", "none"):
        for dtype in ("float64", "float32"):
            _cross_entropy_case(rng, shapes, reduction, opts, dtype)


def _cross_entropy_case(rng, shapes, reduction, opts, dtype):
    xshape, tshape = shapes
    C = xshape[0] if len(xshape) == 1 else xshape[1]
    target = rng.integers(0, C, size=tshape)
    ignore = -100
    if opts.get("ignore") and target.size:
        ignore = 1
        target.flat[0] = 1
    weight = rng.random(C) + 0.5 if opts.get("weight") else None
    ls = opts.get("label_smoothing", 0.0)
    wt = None if weight is None else weight.astype(dtype)

    def fe(x):
        return F.cross_entropy(x, ember.tensor(target), None if wt is None else ember.tensor(wt),
                               reduction, ls, ignore)

    def ft(x):
        return TF.cross_entropy(x, torch.tensor(target), None if wt is None else torch.tensor(wt),
                                ignore_index=ignore, reduction=reduction, label_smoothing=ls)

    _check(fe, ft, [rng.standard_normal(xshape) * 3], rng, dtype)


@pytest.mark.parametrize("xshape", [(5, 4), (2, 3, 4), (4,)])
@pytest.mark.parametrize("ls,weighted", [(0.0, False), (0.3, False), (0.0, True), (0.2, True)])
def test_cross_entropy_probabilities_matches_torch(rng, xshape, ls, weighted):
    for reduction in ("mean", "sum", "none"):
        _cross_entropy_probs_case(rng, xshape, reduction, ls, weighted)


def _cross_entropy_probs_case(rng, xshape, reduction, ls, weighted):
    C = xshape[0] if len(xshape) == 1 else xshape[1]
    probs = rng.random(xshape)
    probs = probs / probs.sum(axis=0 if len(xshape) == 1 else 1, keepdims=True)
    weight = rng.random(C) + 0.5 if weighted else None

    def fe(x, t):
        return F.cross_entropy(x, t, None if weight is None else ember.tensor(weight), reduction,
                               ls)

    def ft(x, t):
        return TF.cross_entropy(x, t, None if weight is None else torch.tensor(weight),
                                reduction=reduction, label_smoothing=ls)

    _check(fe, ft, [rng.standard_normal(xshape), probs], rng)


def test_cross_entropy_probabilities_equal_indices(rng):
    x = ember.tensor(rng.standard_normal((6, 4)))
    idx = rng.integers(0, 4, size=6)
    onehot = np.eye(4)[idx]
    a = F.cross_entropy(x, ember.tensor(idx), label_smoothing=0.1).item()
    b = F.cross_entropy(x, ember.tensor(onehot), label_smoothing=0.1).item()
    assert abs(a - b) < 1e-12


def test_cross_entropy_all_ignored_mean_is_nan():
    x = ember.zeros(2, 3).require_grad()
    t = ember.tensor([-100, -100])
    loss = F.cross_entropy(x, t)
    assert np.isnan(loss.item())
    assert np.isnan(TF.cross_entropy(torch.zeros(2, 3), torch.tensor([-100, -100])).item())


def test_cross_entropy_stable_and_fd(rng):
    x = ember.tensor([[1e4, 0.0, -1e4]], dtype="float64")
    assert_close(F.cross_entropy(x, ember.tensor([2])),
                 TF.cross_entropy(torch.tensor(x.numpy()), torch.tensor([2])))
    t = ember.tensor(rng.integers(0, 3, size=(2, 2)))
    w = ember.tensor([0.5, 1.0, 2.0], dtype="float64")
    _fd_check(lambda a: F.cross_entropy(a, t, w, label_smoothing=0.25),
              [rng.standard_normal((2, 3, 2))], rng)


@pytest.mark.parametrize("dtype", ["float16"])
def test_cross_entropy_half(rng, dtype):
    x = random_array(rng, (4, 5), dtype)
    idx = rng.integers(0, 5, size=4)
    got = F.cross_entropy(ember_tensor(x), ember.tensor(idx))
    want = TF.cross_entropy(torch.tensor(x).float(), torch.tensor(idx)).half()
    assert_close(got, want)


@pytest.mark.parametrize("shapes", CE_SHAPES[:3])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_matches_torch(rng, shapes, weighted):
    for reduction in ("mean", "sum", "none"):
        _nll_case(rng, shapes, reduction, weighted)


def _nll_case(rng, shapes, reduction, weighted):
    xshape, tshape = shapes
    C = xshape[0] if len(xshape) == 1 else xshape[1]
    target = rng.integers(0, C, size=tshape)
    if target.size > 1:
        target.flat[1] = -100
    weight = rng.random(C) + 0.5 if weighted else None

    def fe(x):
        return F.nll_loss(x, ember.tensor(target), None if weight is None else ember.tensor(weight),
                          reduction=reduction)

    def ft(x):
        return TF.nll_loss(x, torch.tensor(target),
                           None if weight is None else torch.tensor(weight), reduction=reduction)

    _check(fe, ft, [rng.standard_normal(xshape)], rng)


@pytest.mark.parametrize("xshape,tshape", [((4, 5), (4,)), ((1, 18), (1,)), ((3, 5, 2), (3, 2))])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("variant", ["plain", "ignored", "weighted"])
def test_nll_loss_gradient_zeros_are_positive(rng, xshape, tshape, reduction, variant):
    """PyTorch's NLL gradient is +0.0 off the targets whatever the upstream gradient's sign
    (not -1 * 0.0 times it): values and sign bits, upstream gradients of both signs."""
    C = xshape[1]
    target = rng.integers(0, C, size=tshape)
    if variant == "ignored":
        target.flat[0] = 1
        kw = {"ignore_index": 1}
    else:
        kw = {"weight": (rng.random(C) + 0.5).astype(np.float32)} if variant == "weighted" else {}
    x = rng.standard_normal(xshape).astype(np.float32)
    up = rng.standard_normal(tshape if reduction == "none" else ()).astype(np.float32)
    xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    we = {k: ember.tensor(v) if k == "weight" else v for k, v in kw.items()}
    wt = {k: torch.tensor(v) if k == "weight" else v for k, v in kw.items()}
    le = F.nll_loss(xe, ember.tensor(target), reduction=reduction, **we)
    lt = TF.nll_loss(xt, torch.tensor(target), reduction=reduction, **wt)
    (le * ember.tensor(up)).sum().backward()
    (lt * torch.tensor(up)).sum().backward()
    assert np.allclose(le.numpy(), lt.detach().numpy(), rtol=1e-6, atol=0, equal_nan=True)
    assert np.allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=0, equal_nan=True)
    assert np.array_equal(np.signbit(xe.grad.numpy()), np.signbit(xt.grad.numpy()))


def test_class_losses_bad_inputs():
    x, t = ember.zeros(3, 4), ember.tensor([0, 1, 2])
    for fn, name in ((F.cross_entropy, "cross_entropy"), (F.nll_loss, "nll_loss")):
        _raises(ember.ShapeMismatchError, rf"{name}: target of class indices has shape \(2,\); "
                r"expected \(3,\)", lambda: fn(x, ember.tensor([0, 1])), x)
        _raises(ember.DimensionError, rf"{name}: target class 4 is out of range for 4 classes",
                lambda: fn(x, ember.tensor([0, 4, 1])), x)
        _raises(ember.DimensionError, rf"{name}: target class -3",
                lambda: fn(x, ember.tensor([0, -3, 1])), x)
        _raises(ember.ShapeMismatchError, rf"{name}: weight has shape \(3,\); expected \(4,\)",
                lambda: fn(x, t, ember.ones(3)), x, t)
        _raises(ember.ShapeMismatchError, rf"{name}: input is 0-d",
                lambda: fn(ember.tensor(1.0), ember.tensor(0)))
        _raises(ember.KindError, rf"{name}: input has dtype int64",
                lambda: fn(ember.zeros(3, 4, dtype="int64"), t), t)
        _raises(ember.KindError, rf"{name}: target has dtype bool",
                lambda: fn(x, ember.tensor([True, False, True])), x)
    _raises(ember.InvalidParameterError, "cross_entropy: reduction 'avg' is unknown",
            lambda: F.cross_entropy(x, t, reduction="avg"), x, t)
    _raises(ember.InvalidParameterError, "cross_entropy: label_smoothing is 1.5",
            lambda: F.cross_entropy(x, t, label_smoothing=1.5), x, t)
    _raises(ember.ShapeMismatchError, r"cross_entropy: target of class probabilities has shape "
            r"\(3, 3\); expected the input's shape \(3, 4\)",
            lambda: F.cross_entropy(x, ember.zeros(3, 3)), x)
    _raises(ember.KindError, "nll_loss: target has dtype float32; expected int class indices",
            lambda: F.nll_loss(x, ember.zeros(3, 4)), x)


# -- regression losses --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()), ((2, 0), (2, 0)),
                                    ((5,), (5,))])
def test_regression_losses_match_torch(rng, name, shapes):
    fe, ft = getattr(F, name), getattr(TF, name)
    import warnings
    for reduction in ("mean", "sum", "none"):
        for dtype in ("float64", "float32"):
            a, b = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch warns when the shapes broadcast
                _check(lambda x, y: fe(x, y, reduction), lambda x, y: ft(x, y, reduction=reduction),
                       [a, b], rng, dtype)


def test_l1_gradient_at_zero_and_int_target():
    x = ember.tensor([1.0, 2.0]).require_grad()
    F.l1_loss(x, ember.tensor([1.0, 0.0])).backward()
    assert x.grad.tolist() == [0.0, 0.5]
    assert F.mse_loss(ember.tensor([1.0, 3.0]), ember.tensor([1, 1])).item() == 2.0


def test_regression_losses_bad_inputs():
    x = ember.ones(3)
    _raises(ember.ShapeMismatchError, r"mse_loss: shapes \(3,\) and \(2,\) do not broadcast",
            lambda: F.mse_loss(x, ember.ones(2)), x)
    _raises(ember.InvalidParameterError, "l1_loss: reduction 'max' is unknown",
            lambda: F.l1_loss(x, x, "max"), x)
    _raises(ember.KindError, "mse_loss: target has dtype bool",
            lambda: F.mse_loss(x, ember.tensor([True, False, True])), x)
    _raises(ember.KindError, "l1_loss: input has dtype int64",
            lambda: F.l1_loss(ember.tensor([1, 2, 3]), x), x)


# -- binary_cross_entropy_with_logits -----------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (5,), (), (0, 3)])
@pytest.mark.parametrize("weighted,pos", [(False, False), (True, False), (False, True),
                                          (True, True)])
def test_bce_with_logits_matches_torch(rng, shape, weighted, pos):
    for reduction in ("mean", "sum", "none"):
        for dtype in ("float64", "float32"):
            _bce_case(rng, shape, reduction, weighted, pos, dtype)


def _bce_case(rng, shape, reduction, weighted, pos, dtype):
    last = shape[-1] if shape else 1
    arrays = [rng.standard_normal(shape) * 4, rng.random(shape)]
    if weighted:
        arrays.append(rng.random(shape) + 0.5)
    if pos:
        arrays.append(rng.random((last,) if shape else ()) + 0.5)

    def split(args):
        x, t = args[0], args[1]
        w = args[2] if weighted else None
        p = args[-1] if pos else None
        return x, t, w, p

    def fe(*args):
        x, t, w, p = split(args)
        return F.binary_cross_entropy_with_logits(x, t, w, reduction, p)

    def ft(*args):
        x, t, w, p = split(args)
        return TF.binary_cross_entropy_with_logits(x, t, w, reduction=reduction, pos_weight=p)

    # torch has no gradient for weight and pos_weight; ember's is checked by finite differences
    _check(fe, ft, arrays, rng, dtype, needs=[True, True] + [False] * (len(arrays) - 2))


def test_bce_with_logits_fd(rng):
    arrays = [rng.standard_normal((3, 2)) * 3, rng.random((3, 2)), rng.random((3, 2)) + 0.5,
              rng.random(2) + 0.5]
    _fd_check(lambda x, t, w, p: F.binary_cross_entropy_with_logits(x, t, w, "sum", p), arrays,
              rng)


def test_bce_with_logits_stable():
    x = ember.tensor([-1e4, -100.0, 100.0, 1e4], dtype="float64")
    t = ember.tensor([0.0, 1.0, 0.0, 1.0], dtype="float64")
    got = F.binary_cross_entropy_with_logits(x, t, reduction="none")
    want = TF.binary_cross_entropy_with_logits(torch.tensor(x.numpy()), torch.tensor(t.numpy()),
                                               reduction="none")
    assert_close(got, want)
    assert np.isfinite(got.numpy()).all()


def test_bce_with_logits_bad_inputs():
    x = ember.zeros(2, 3)
    _raises(ember.ShapeMismatchError, r"binary_cross_entropy_with_logits: target has shape "
            r"\(3,\); expected the input's shape \(2, 3\)",
            lambda: F.binary_cross_entropy_with_logits(x, ember.zeros(3)), x)
    _raises(ember.ShapeMismatchError, r"pos_weight has shape \(2,\); expected a shape that "
            "broadcasts",
            lambda: F.binary_cross_entropy_with_logits(x, x, pos_weight=ember.ones(2)), x)
    _raises(ember.ShapeMismatchError, r"weight has shape \(4, 3\)",
            lambda: F.binary_cross_entropy_with_logits(x, x, ember.ones(4, 3)), x)
    _raises(ember.KindError, "target has dtype bool",
            lambda: F.binary_cross_entropy_with_logits(x, ember.zeros(2, 3, dtype="bool")), x)


# -- pad, one_hot -------------------------------------------------------------------------------

@pytest.mark.parametrize("pad,mode", [((1, 2), "constant"), ((1, 0, 0, 2), "constant"),
                                      ((1, 1, 1, 1), "reflect"), ((2, 1, 0, 1), "replicate"),
                                      ((1, 1), "circular")])
def test_pad_matches_torch(rng, pad, mode):
    a = rng.standard_normal((2, 3, 4))
    out = F.pad(ember.tensor(a), pad, mode)
    assert_close(out, TF.pad(torch.tensor(a), pad, mode))
    assert_close(F.pad(ember.tensor(a), pad, value=2.5) if mode == "constant" else out,
                 TF.pad(torch.tensor(a), pad, mode, value=2.5) if mode == "constant" else
                 TF.pad(torch.tensor(a), pad, mode))


def test_pad_and_one_hot_bad_inputs():
    x = ember.ones(2, 2)
    _raises(ember.InvalidParameterError, "pad: pad .* must be a flat tuple",
            lambda: F.pad(x, (1, 2, 3)), x)
    _raises(ember.InvalidParameterError, "pad: pad .* pads 3 dims but the input has 2",
            lambda: F.pad(x, (1, 1, 1, 1, 1, 1)), x)
    _raises(ember.KindError, "one_hot: tensor has dtype float32",
            lambda: F.one_hot(ember.tensor([1.0])))
    _raises(ember.InvalidParameterError, "one_hot: cannot infer num_classes from an empty",
            lambda: F.one_hot(ember.tensor([], dtype="int64")))


def test_one_hot_matches_torch():
    idx = np.array([[0, 3], [2, 1]])
    for n in (-1, 5):
        assert_close(F.one_hot(ember.tensor(idx), n), TF.one_hot(torch.tensor(idx), n))
    assert_close(F.one_hot(ember.tensor(idx, dtype="int32")), TF.one_hot(torch.tensor(idx)))


# -- complex: nn takes real tensors only (docs/complex.md) -------------------------------------
def _complex(shape, dtype=np.complex64):
    rng = np.random.default_rng(6)
    return ember.from_numpy(np.asarray(rng.random(shape) + 1j * rng.random(shape), dtype=dtype))


def _f(*shape):
    return ember.from_numpy(np.full(shape, 0.5, dtype=np.float32))


# op -> (parameter named in the error, call given a complex tensor maker ``c``)
F_COMPLEX_CALLS = {
    "relu": ("input", lambda c: F.relu(c(2, 3))),
    "gelu": ("input", lambda c: F.gelu(c(2, 3))),
    "silu": ("input", lambda c: F.silu(c(2, 3))),
    "sigmoid": ("input", lambda c: F.sigmoid(c(2, 3))),
    "tanh": ("input", lambda c: F.tanh(c(2, 3))),
    "softmax": ("input", lambda c: F.softmax(c(2, 3), 1)),
    "log_softmax": ("input", lambda c: F.log_softmax(c(2, 3), 1)),
    "linear": ("input", lambda c: F.linear(c(2, 3), _f(4, 3))),
    "linear weight": ("weight", lambda c: F.linear(_f(2, 3), c(4, 3))),
    "linear bias": ("bias", lambda c: F.linear(_f(2, 3), _f(4, 3), c(4))),
    "conv2d": ("input", lambda c: F.conv2d(c(1, 1, 4, 4), _f(1, 1, 2, 2))),
    "conv2d weight": ("weight", lambda c: F.conv2d(_f(1, 1, 4, 4), c(1, 1, 2, 2))),
    "max_pool2d": ("input", lambda c: F.max_pool2d(c(1, 1, 4, 4), 2)),
    "avg_pool2d": ("input", lambda c: F.avg_pool2d(c(1, 1, 4, 4), 2)),
    "max_unpool2d": ("input", lambda c: F.max_unpool2d(
        c(1, 1, 2, 2), ember.zeros(1, 1, 2, 2, dtype="int64"), 2)),
    "batch_norm": ("input", lambda c: F.batch_norm(c(2, 3), _f(3), _f(3))),
    "batch_norm running_mean": ("running_mean", lambda c: F.batch_norm(_f(2, 3), c(3), _f(3))),
    "layer_norm": ("input", lambda c: F.layer_norm(c(2, 3), (3,))),
    "layer_norm weight": ("weight", lambda c: F.layer_norm(_f(2, 3), (3,), c(3))),
    "dropout": ("input", lambda c: F.dropout(c(2, 3), 0.5)),
    "dropout eval": ("input", lambda c: F.dropout(c(2, 3), 0.5, training=False)),
    "dropout p": ("p", lambda c: F.dropout(_f(2, 3), c())),
    "embedding": ("weight", lambda c: F.embedding(ember.tensor([0, 1]), c(3, 2))),
    "cross_entropy": ("input", lambda c: F.cross_entropy(c(2, 3), ember.tensor([0, 1]))),
    "cross_entropy target": ("target", lambda c: F.cross_entropy(_f(2, 3), c(2, 3))),
    "nll_loss": ("input", lambda c: F.nll_loss(c(2, 3), ember.tensor([0, 1]))),
    "mse_loss": ("input", lambda c: F.mse_loss(c(2, 3), _f(2, 3))),
    "mse_loss target": ("target", lambda c: F.mse_loss(_f(2, 3), c(2, 3))),
    "l1_loss": ("input", lambda c: F.l1_loss(c(2, 3), _f(2, 3))),
    "l1_loss target": ("target", lambda c: F.l1_loss(_f(2, 3), c(2, 3))),
    "binary_cross_entropy_with_logits": (
        "input", lambda c: F.binary_cross_entropy_with_logits(c(2, 3), _f(2, 3))),
    "binary_cross_entropy_with_logits target": (
        "target", lambda c: F.binary_cross_entropy_with_logits(_f(2, 3), c(2, 3))),
    "scaled_dot_product_attention": ("query", lambda c: F.scaled_dot_product_attention(
        c(1, 2, 4), _f(1, 2, 4), _f(1, 2, 4))),
    "scaled_dot_product_attention value": ("value", lambda c: F.scaled_dot_product_attention(
        _f(1, 2, 4), _f(1, 2, 4), c(1, 2, 4))),
    "one_hot": ("tensor", lambda c: F.one_hot(c(3), 3)),
}


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(F_COMPLEX_CALLS))
def test_complex_refused(name, dtype):
    param, call = F_COMPLEX_CALLS[name]
    made = []

    def c(*shape):
        made.append(_complex(shape, dtype))
        return made[-1]

    op = name.split()[0]
    with pytest.raises(ember.KindError, match=rf"{op}.*{param}.*complex|{op}.*complex.*{param}"):
        call(c)
    # each complex input is left as it was (same dtype and values)
    assert all(t.dtype.name == np.dtype(dtype).name for t in made)


def test_pad_moves_complex_values():
    """``F.pad`` is ``Tensor.pad``, a movement op: complex values pass (docs/complex.md)."""
    z = ember.from_numpy(np.array([[1 + 2j, -3j]], dtype=np.complex64))
    out = F.pad(z, (1, 0))
    assert out.dtype is ember.complex64
    assert np.array_equal(out.numpy(), np.array([[0, 1 + 2j, -3j]], dtype=np.complex64))
