"""Tests of ember/vision/color.py: rgb2gray, gray2rgb, rgb2hsv, hsv2rgb, and docs/vision.md."""

import colorsys
import doctest
import os

import numpy as np
import pytest
import torch

import ember
from oracle import (assert_close, assert_unchanged, ember_tensor, engine_devices, layouts,
                    snapshot, to_torch)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SHAPES3 = [(1, 3, 4, 5), (2, 3, 3, 2), (1, 3, 1, 1), (0, 3, 2, 2), (2, 3, 0, 4)]
SHAPES1 = [(1, 1, 4, 5), (2, 1, 3, 2), (0, 1, 2, 2), (2, 1, 3, 0)]
FLOATS = ["float32", "float64", "float16", "bfloat16"]


# -- the oracles: OpenCV's documented formulas written directly with NumPy -------------------

def ref_gray(x):
    x = x.astype(np.float64)
    return (0.299 * x[:, 0] + 0.587 * x[:, 1] + 0.114 * x[:, 2])[:, None]


def ref_rgb2hsv(x):
    """OpenCV's cvtColor RGB2HSV for float images, case by case as its docs write it."""
    x = x.astype(np.float64)
    r, g, b = x[:, 0], x[:, 1], x[:, 2]
    v = np.max(x, axis=1)
    mn = np.min(x, axis=1)
    s = np.zeros_like(v)
    nz = v != 0
    s[nz] = (v[nz] - mn[nz]) / v[nz]
    h = np.zeros_like(v)
    d = v - mn
    case_r = (v == r) & (d != 0)
    case_g = (v == g) & ~(v == r) & (d != 0)
    case_b = ~(v == r) & ~(v == g) & (d != 0)
    h[case_r] = 60 * (g[case_r] - b[case_r]) / d[case_r]
    h[case_g] = 120 + 60 * (b[case_g] - r[case_g]) / d[case_g]
    h[case_b] = 240 + 60 * (r[case_b] - g[case_b]) / d[case_b]
    h[h < 0] += 360
    return np.stack([h, s, v], axis=1)


_SECTORS = [(0, 3, 1), (2, 0, 1), (1, 0, 3), (1, 2, 0), (3, 1, 0), (0, 1, 2)]  # (r, g, b) of tab


def ref_hsv2rgb(x):
    """OpenCV's HSV2RGB for floats: the six-sector table of v, p, q, t."""
    x = x.astype(np.float64)
    h, s, v = x[:, 0], x[:, 1], x[:, 2]
    hh = np.mod(h, 360) / 60
    sector = np.floor(hh).astype(int) % 6
    f = hh - np.floor(hh)
    tab = np.stack([v, v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))])
    out = np.empty(x.shape)
    for sec, idx in enumerate(_SECTORS):
        m = sector == sec
        for ch in range(3):
            out[:, ch][m] = tab[idx[ch]][m]
    return out


def colorsys_rgb2hsv(x):
    """Python's colorsys per pixel, H scaled to degrees."""
    out = np.empty(x.shape)
    for n, i, j in np.ndindex(x.shape[0], x.shape[2], x.shape[3]):
        h, s, v = colorsys.rgb_to_hsv(*(float(c) for c in x[n, :, i, j]))
        out[n, :, i, j] = (h * 360, s, v)
    return out


def colorsys_hsv2rgb(x):
    out = np.empty(x.shape)
    for n, i, j in np.ndindex(x.shape[0], x.shape[2], x.shape[3]):
        h, s, v = (float(c) for c in x[n, :, i, j])
        out[n, :, i, j] = colorsys.hsv_to_rgb(h / 360, s, v)
    return out


def torch_rgb2hsv(x):
    r, g, b = x[:, 0], x[:, 1], x[:, 2]
    v = torch.maximum(torch.maximum(r, g), b)
    mn = torch.minimum(torch.minimum(r, g), b)
    d = v - mn
    s = torch.where(v != 0, d / torch.where(v != 0, v, torch.ones_like(v)), torch.zeros_like(v))
    sd = torch.where(d != 0, d, torch.ones_like(d))
    h = torch.where(v == r, 60 * (g - b) / sd,
                    torch.where(v == g, 120 + 60 * (b - r) / sd, 240 + 60 * (r - g) / sd))
    h = torch.where(d != 0, h, torch.zeros_like(h))
    h = torch.where(h < 0, h + 360, h)
    return torch.stack([h, s, v], dim=1)


def torch_hsv2rgb(x):
    h, s, v = x[:, 0], x[:, 1], x[:, 2]
    hh = torch.remainder(h, 360) / 60
    sector = torch.floor(hh)
    f = hh - sector
    tab = torch.stack([v, v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))])
    sector = sector.long() % 6
    chans = []
    for ch in range(3):
        idx = torch.tensor([sec[ch] for sec in _SECTORS])[sector]
        chans.append(torch.gather(tab, 0, idx.unsqueeze(0)).squeeze(0))
    return torch.stack(chans, dim=1)


def special_pixels():
    """Greys, black, white, primaries, ties of two channels, and the hue wrap near 360."""
    px = [(0, 0, 0), (1, 1, 1), (0.5, 0.5, 0.5), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0),
          (0, 1, 1), (1, 0, 1), (0.8, 0.8, 0.2), (0.2, 0.8, 0.8), (0.8, 0.2, 0.8),
          (1, 0, 1e-7), (0.3, 0.1, 0.2), (0.9, 0.9, 0.9 - 1e-9), (0.25, 0.5, 0.5)]
    arr = np.array(px, dtype=np.float64).T  # (3, 16)
    return arr.reshape(1, 3, 4, 4)


def random_images(rng, shape, dtype="float64"):
    return rng.random(shape).astype(dtype)


# -- rgb2gray, gray2rgb ------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES3)
@pytest.mark.parametrize("dtype", FLOATS)
def test_rgb2gray_matches_opencv_formula(rng, shape, dtype):
    x = random_images(rng, shape, "float32" if dtype == "bfloat16" else dtype)
    for name, lx in layouts(x):
        t = ember_tensor(lx, dtype)
        out = t.rgb2gray()
        assert out.dtype.name == dtype and out.shape == (shape[0], 1) + shape[2:]
        exp = ref_gray(np.asarray(to_torch(t).double().numpy()))
        assert_close(out, exp, rtol={"float16": 2e-3, "bfloat16": 2e-2}.get(dtype, 1e-6),
                     atol={"float16": 2e-3, "bfloat16": 2e-2}.get(dtype, 1e-6))


@pytest.mark.parametrize("shape", SHAPES1)
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "int64", "uint8", "bool"])
def test_gray2rgb_repeats_the_channel(rng, shape, dtype):
    if dtype == "bool":
        x = rng.random(shape) < 0.5
    elif dtype in ("int64", "uint8"):
        x = rng.integers(0, 255, size=shape).astype(dtype)
    else:
        x = random_images(rng, shape, "float32" if dtype == "bfloat16" else dtype)
    for name, lx in layouts(x):
        t = ember_tensor(lx, dtype if dtype == "bfloat16" else None)
        before = snapshot(t)
        out = t.gray2rgb()
        assert_close(out, torch.repeat_interleave(to_torch(t), 3, dim=1))
        assert not np.shares_memory(out.numpy(), t.numpy())
        assert_unchanged([t], before)


def test_gray_round_trip_keeps_gray():
    x = np.random.default_rng(1).random((2, 1, 3, 3))
    t = ember_tensor(x)
    assert_close(t.gray2rgb().rgb2gray(), x, rtol=1e-12, atol=1e-12)


# -- rgb2hsv, hsv2rgb --------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES3)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rgb2hsv_matches_opencv_formula(rng, shape, dtype):
    x = random_images(rng, shape, dtype)
    for name, lx in layouts(x):
        t = ember_tensor(lx)
        before = snapshot(t)
        out = t.rgb2hsv()
        assert out.dtype.name == dtype
        tol = 1e-4 if dtype == "float32" else 1e-10
        assert_close(out, ref_rgb2hsv(x), rtol=tol, atol=tol)
        assert_unchanged([t], before)


def test_rgb2hsv_special_pixels():
    x = special_pixels()
    out = ember_tensor(x).rgb2hsv()
    exp = ref_rgb2hsv(x)
    assert_close(out, exp, rtol=1e-10, atol=1e-10)
    assert_close(out, colorsys_rgb2hsv(x), rtol=1e-9, atol=1e-9)
    h = out.numpy()[:, 0]
    assert (h >= 0).all() and (h < 360).all()
    # greys and black have H = 0 and S = 0; black has V = 0
    flat = out.numpy().reshape(3, 16)
    for col in (0, 1, 2):
        assert flat[0, col] == 0.0 and flat[1, col] == 0.0
    assert flat[:, 3].tolist() == [0.0, 1.0, 1.0]       # red
    assert flat[:, 4].tolist() == [120.0, 1.0, 1.0]     # green
    assert flat[:, 5].tolist() == [240.0, 1.0, 1.0]     # blue
    assert flat[:, 6].tolist() == [60.0, 1.0, 1.0]      # yellow: the R = G tie picks R
    assert flat[:, 8].tolist() == [300.0, 1.0, 1.0]     # magenta


@pytest.mark.parametrize("shape", [(1, 3, 3, 4), (2, 3, 2, 2)])
def test_rgb2hsv_matches_colorsys(rng, shape):
    x = random_images(rng, shape)
    assert_close(ember_tensor(x).rgb2hsv(), colorsys_rgb2hsv(x), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("shape", [(1, 3, 3, 4), (2, 3, 2, 2)])
def test_hsv2rgb_matches_colorsys(rng, shape):
    x = random_images(rng, shape)
    x[:, 0] *= 360
    x[0, :, 0, 0] = (0.0, 0.0, 0.7)      # S = 0: a grey
    x[0, :, 0, 1] = (359.999, 1.0, 1.0)  # near the wrap
    out = ember_tensor(x).hsv2rgb()
    assert_close(out, colorsys_hsv2rgb(x), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("shape", SHAPES3)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hsv2rgb_matches_opencv_table(rng, shape, dtype):
    x = random_images(rng, shape, "float64")
    x[:, 0] = x[:, 0] * 720 - 360  # hues outside [0, 360) wrap
    x = x.astype(dtype)
    for name, lx in layouts(x):
        t = ember_tensor(lx)
        before = snapshot(t)
        tol = 1e-5 if dtype == "float32" else 1e-10
        assert_close(t.hsv2rgb(), ref_hsv2rgb(x), rtol=tol, atol=tol)
        assert_unchanged([t], before)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_hsv_half_floats_compute_in_float32(rng, dtype):
    x = random_images(rng, (2, 3, 3, 3), "float32")
    t = ember_tensor(x, dtype)
    xs = to_torch(t).double().numpy()
    hsv = t.rgb2hsv()
    assert hsv.dtype.name == dtype
    tol = 1e-2 if dtype == "bfloat16" else 2e-3
    np.testing.assert_allclose(to_torch(hsv).double().numpy(), ref_rgb2hsv(xs),
                               rtol=tol, atol=tol * 360)
    rgb = hsv.hsv2rgb()
    assert rgb.dtype.name == dtype
    np.testing.assert_allclose(to_torch(rgb).double().numpy(), xs, atol=4 * tol)


def test_round_trips(rng):
    x = random_images(rng, (3, 3, 5, 4))
    x = np.concatenate([x, special_pixels()[:, :, :, :4].repeat(3, axis=0)[:, :, :4]], axis=2)
    t = ember_tensor(x)
    assert_close(t.rgb2hsv().hsv2rgb(), x, rtol=1e-12, atol=1e-12)
    hsv = random_images(rng, (2, 3, 4, 4))
    hsv[:, 0] *= 360
    hsv[:, 1:] = 0.05 + 0.95 * hsv[:, 1:]  # S > 0 and V > 0: H is then recoverable
    assert_close(ember_tensor(hsv).hsv2rgb().rgb2hsv(), hsv, rtol=1e-9, atol=1e-9)


def test_out_of_range_inputs_follow_the_formulas():
    x = np.array([[[[2.0, -0.5]], [[0.5, -1.0]], [[-1.0, -0.25]]]])
    assert_close(ember_tensor(x).rgb2hsv(), ref_rgb2hsv(x), rtol=1e-12, atol=1e-12)
    nan = np.full((1, 3, 1, 1), np.nan)
    assert np.isnan(ember_tensor(nan).rgb2hsv().numpy()).all()
    assert np.isnan(ember_tensor(nan).hsv2rgb().numpy()).all()


# -- gradients ---------------------------------------------------------------------------------

def _grad_check(op, torch_fn, x, rng):
    t = ember_tensor(np.array(x, copy=True), requires_grad=True)
    tt = torch.from_numpy(np.array(x, copy=True)).requires_grad_(True)
    out = getattr(t, op)()
    tout = torch_fn(tt)
    assert_close(out, tout.detach().numpy(), rtol=1e-9, atol=1e-9)
    seed = rng.standard_normal(tuple(tout.shape))
    out.backward(ember.tensor(seed, dtype="float64", device=out.device))
    tout.backward(torch.from_numpy(seed))
    assert t.grad is not None
    assert_close(t.grad, tt.grad, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("shape", [(2, 3, 3, 4), (1, 3, 1, 1), (0, 3, 2, 2)])
def test_gradients_match_torch(rng, shape):
    x = random_images(rng, shape)
    w = torch.tensor([0.299, 0.587, 0.114], dtype=torch.float64).reshape(1, 3, 1, 1)
    _grad_check("rgb2gray", lambda a: (a * w).sum(1, keepdim=True), x, rng)
    _grad_check("rgb2hsv", torch_rgb2hsv, x, rng)
    hsv = np.array(x, copy=True)
    hsv[:, 0] = hsv[:, 0] * 720 - 360
    _grad_check("hsv2rgb", torch_hsv2rgb, hsv, rng)
    g = x[:, :1]
    _grad_check("gray2rgb", lambda a: a.repeat(1, 3, 1, 1), g, rng)


def test_rgb2hsv_gradient_matches_finite_differences(rng):
    x = random_images(rng, (1, 3, 2, 2))
    for fn in ("rgb2hsv", "hsv2rgb"):
        t = ember_tensor(np.array(x, copy=True), requires_grad=True)
        seed = rng.standard_normal((1, 3, 2, 2))
        getattr(t, fn)().backward(ember.tensor(seed, device=t.device))
        num = np.zeros(x.shape)
        eps = 1e-6
        for idx in np.ndindex(x.shape):
            vals = []
            for d in (eps, -eps):
                moved = np.array(x, copy=True)
                moved[idx] += d
                vals.append(float((getattr(ember_tensor(moved), fn)().numpy() * seed).sum()))
            num[idx] = (vals[0] - vals[1]) / (2 * eps)
        np.testing.assert_allclose(t.grad.numpy(), num, rtol=1e-5, atol=1e-5)


def test_grey_pixels_have_no_hue_gradient():
    x = np.full((1, 3, 1, 1), 0.5)
    t = ember_tensor(x, requires_grad=True)
    seed = np.array([1.0, 0.0, 0.0]).reshape(1, 3, 1, 1)  # only H's gradient
    t.rgb2hsv().backward(ember.tensor(seed, device=t.device))
    assert t.grad.numpy().tolist() == [[[[0.0]], [[0.0]], [[0.0]]]]


def test_float32_gradient_dtype(rng):
    t = ember_tensor(random_images(rng, (1, 3, 2, 2), "float32"), requires_grad=True)
    t.rgb2hsv().hsv2rgb().rgb2gray().sum().backward()
    assert t.grad.dtype.name == "float32"
    np.testing.assert_allclose(t.grad.numpy(), np.broadcast_to(
        np.array([0.299, 0.587, 0.114]).reshape(1, 3, 1, 1), (1, 3, 2, 2)), rtol=1e-4)


# -- bad input ---------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["rgb2gray", "rgb2hsv", "hsv2rgb"])
@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool"])
def test_non_float_kinds_raise(op, dtype):
    t = ember.zeros((1, 3, 2, 2), dtype=dtype)
    before = snapshot(t)
    with pytest.raises(ember.KindError, match=f"{op}: not defined for .* tensors .*{dtype}"):
        getattr(t, op)()
    assert_unchanged([t], before)


@pytest.mark.parametrize("op,channels", [("rgb2gray", 3), ("rgb2hsv", 3), ("hsv2rgb", 3),
                                         ("gray2rgb", 1)])
def test_bad_shapes_raise(op, channels):
    for shape in [(3, 2, 2), (1, 1, 3, 2, 2), ()]:
        t = ember.zeros(shape)
        before = snapshot(t)
        with pytest.raises(ember.ShapeMismatchError, match=f"{op}: self has shape .*expected a "
                           "4-d \\(N, C, H, W\\)") as info:
            getattr(t, op)()
        assert info.value.actual == tuple(shape)
        assert_unchanged([t], before)
    wrong = 1 if channels == 3 else 3
    t = ember.zeros((2, wrong, 2, 2))
    with pytest.raises(ember.ShapeMismatchError,
                       match=f"{op}: .*with {wrong} channels on dim 1; expected {channels}"):
        getattr(t, op)()
    with pytest.raises(ember.InvalidParameterError, match=f"{op}: self must be a Tensor"):
        getattr(ember.vision, op)([[1.0]])


def test_functions_are_exported():
    x = ember.ones((1, 3, 1, 1))
    for name in ("rgb2gray", "gray2rgb", "rgb2hsv", "hsv2rgb"):
        assert name in ember.vision.color.__all__ and hasattr(ember.vision, name)
    assert ember.vision.rgb2hsv(x).tolist() == [[[[0.0]], [[0.0]], [[1.0]]]]


def test_docs_vision_md():
    path = os.path.join(ROOT, "docs", "vision.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


# -- every device computes what the NumPy backend computes ------------------------------------

OTHER_DEVICES = [str(d) for d in engine_devices() if d is not ember.devices()[0]]


def _same_values(a, b, device):
    assert a.dtype is b.dtype and tuple(a.shape) == tuple(b.shape)
    tol = 0 if device.endswith("cpu") else 1e-5
    np.testing.assert_allclose(to_torch(a).double().numpy(), to_torch(b).double().numpy(),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("device", OTHER_DEVICES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_every_device_matches_the_numpy_backend(rng, device, dtype):
    x = special_pixels()
    x = np.concatenate([x, rng.random((1, 3, 4, 4))], axis=0)
    hsv_in = np.concatenate([rng.random((2, 1, 4, 4)) * 720 - 180, x[:, 1:]], axis=1)
    seed = rng.standard_normal(x.shape)
    for op, data, g in (("rgb2gray", x, seed[:, :1]), ("gray2rgb", x[:, :1], seed),
                        ("rgb2hsv", x, seed), ("hsv2rgb", hsv_in, seed)):
        outs, grads = [], []
        for dev in ("cpu", device):
            t = ember.tensor(data, device=dev).cast(dtype).require_grad()
            out = getattr(t, op)()
            assert out.device == dev
            out.backward(ember.tensor(g, device=dev).cast(dtype))
            assert t.grad.device == dev and t.grad.dtype.name == dtype
            outs.append(out)
            grads.append(t.grad)
        _same_values(outs[1], outs[0], device)
        _same_values(grads[1], grads[0], device)
    ints = ember.tensor([[[[1, 2]]]], dtype="uint32", device=device).gray2rgb()
    assert ints.device == device and ints.tolist() == [[[[1, 2]], [[1, 2]], [[1, 2]]]]


# -- complex: vision takes real tensors only (docs/complex.md) ---------------------------------
def _complex(shape, dtype=np.complex64):
    rng = np.random.default_rng(2)
    return ember.from_numpy(np.asarray(rng.random(shape) + 1j * rng.random(shape), dtype=dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name,channels", [("rgb2gray", 3), ("gray2rgb", 1), ("rgb2hsv", 3),
                                           ("hsv2rgb", 3)])
def test_complex_refused(name, channels, dtype):
    z = _complex((1, channels, 2, 2), dtype)
    before = snapshot(z)
    with pytest.raises(ember.KindError, match=rf"{name}.*complex"):
        getattr(z, name)()
    with pytest.raises(ember.KindError, match=rf"{name}.*complex"):
        getattr(ember.vision, name)(z)
    assert_unchanged([z], before)
