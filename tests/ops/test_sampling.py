"""Tests of ember/ops/sampling.py: grid_sample_2d and GridSampleOptions, and docs/sampling.md.

The oracle is torch.nn.functional.grid_sample (4-D input), values and float64 gradients of the
input and the grid, for every mode x padding_mode x align_corners.
"""

import doctest
import itertools
import os

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import ember
from oracle import (assert_close, assert_unchanged, ember_tensor, has_views, layouts, snapshot,
                    to_torch)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]
COMBOS = list(itertools.product(MODES, PADDINGS, [False, True]))

# (input shape, grid shape): 1x1 and 1-wide inputs, grids larger and smaller than the input
SHAPES = [((2, 3, 4, 5), (2, 3, 4, 2)), ((1, 2, 1, 1), (1, 5, 3, 2)),
          ((2, 1, 3, 1), (2, 2, 6, 2)), ((1, 1, 1, 6), (1, 4, 2, 2))]


def _torch_sample(x, grid, mode, padding_mode, align_corners):
    return F.grid_sample(x, grid, mode=mode, padding_mode=padding_mode,
                         align_corners=align_corners)


def _check_f64(x, grid, mode, padding_mode, align_corners, rng):
    """Values and gradients (input and grid) of ember against torch.autograd, float64."""
    ex = ember_tensor(x, requires_grad=True)
    eg = ember_tensor(grid, requires_grad=True)
    tx = torch.from_numpy(np.array(x, copy=True)).requires_grad_(True)
    tg = torch.from_numpy(np.array(grid, copy=True)).requires_grad_(True)
    before = snapshot(ex, eg)
    out = ex.grid_sample_2d(eg, mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    tout = _torch_sample(tx, tg, mode, padding_mode, align_corners)
    assert_close(out, tout, rtol=1e-12, atol=1e-12)
    seed = rng.standard_normal(tuple(tout.shape))
    out.backward(ember.tensor(seed, dtype="float64"))
    tout.backward(torch.from_numpy(seed))
    assert_close(ex.grad, tx.grad, rtol=1e-10, atol=1e-10)
    assert_close(eg.grad, tg.grad, rtol=1e-10, atol=1e-10)
    assert_unchanged([ex, eg], before)


# -- values and gradients against PyTorch --------------------------------------------------------

@pytest.mark.parametrize("mode,padding_mode,align_corners", COMBOS)
@pytest.mark.parametrize("shapes", SHAPES)
def test_matches_torch_float64_with_grads(rng, mode, padding_mode, align_corners, shapes):
    xs, gs = shapes
    x = rng.standard_normal(xs)
    grid = rng.uniform(-2.5, 2.5, gs)  # many points outside [-1, 1]: every padding rule runs
    _check_f64(x, grid, mode, padding_mode, align_corners, rng)


@pytest.mark.parametrize("mode,padding_mode,align_corners", COMBOS)
def test_matches_torch_on_exact_points(rng, mode, padding_mode, align_corners):
    # dyadic coordinates: pixel centres, pixel edges, half-way points (nearest rounds half to
    # even), the borders and points beyond them, computed exactly by both libraries
    x = rng.standard_normal((1, 2, 4, 4))
    vals = np.arange(-12, 13) / 8.0  # -1.5 ... 1.5 in steps of 1/8
    gx, gy = np.meshgrid(vals, vals[::3])
    grid = np.stack([gx, gy], axis=-1)[None]
    ex, eg = ember.tensor(x), ember.tensor(grid)
    out = ember.grid_sample_2d(ex, eg, mode=mode, padding_mode=padding_mode,
                               align_corners=align_corners)
    assert_close(out, _torch_sample(torch.from_numpy(x), torch.from_numpy(grid), mode,
                                    padding_mode, align_corners), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode,padding_mode,align_corners", COMBOS)
def test_matches_torch_float32(rng, mode, padding_mode, align_corners):
    x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    grid = rng.uniform(-1.6, 1.6, (2, 4, 3, 2)).astype(np.float32)
    ex = ember_tensor(x, requires_grad=True)
    eg = ember_tensor(grid, requires_grad=True)
    tx = torch.from_numpy(x.copy()).requires_grad_(True)
    tg = torch.from_numpy(grid.copy()).requires_grad_(True)
    out = ember.grid_sample_2d(ex, eg, mode=mode, padding_mode=padding_mode,
                               align_corners=align_corners)
    tout = _torch_sample(tx, tg, mode, padding_mode, align_corners)
    assert_close(out, tout)
    seed = rng.standard_normal(tuple(tout.shape)).astype(np.float32)
    out.backward(ember.tensor(seed))
    tout.backward(torch.from_numpy(seed))
    assert ex.grad.dtype.name == "float32" and eg.grad.dtype.name == "float32"
    assert_close(ex.grad, tx.grad, rtol=1e-4, atol=1e-5)
    assert_close(eg.grad, tg.grad, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("mode", MODES)
def test_half_precision_computes_in_float32(rng, dtype, mode):
    # PyTorch's CPU kernel computes half inputs in half precision; ember computes in float32 and
    # rounds once, so it equals PyTorch's float32 result rounded to the half dtype
    x = ember.tensor(rng.standard_normal((2, 2, 5, 4)).astype(np.float32)).cast(dtype)
    grid = ember.tensor(rng.uniform(-1.3, 1.3, (2, 3, 3, 2)).astype(np.float32)).cast(dtype)
    out = x.grid_sample_2d(grid, mode=mode, padding_mode="reflection")
    assert out.dtype.name == dtype
    expected = _torch_sample(to_torch(x).float(), to_torch(grid).float(), mode, "reflection",
                             False).to(to_torch(x).dtype)
    assert_close(out, expected, rtol=0, atol=0)


@pytest.mark.parametrize("mode", MODES)
def test_non_contiguous_inputs(rng, mode):
    x = rng.standard_normal((2, 3, 4, 5))
    grid = rng.uniform(-1.4, 1.4, (2, 3, 2, 2))
    for (name, lx), (_, lg) in zip(layouts(x), layouts(grid)):
        if name != "contiguous":
            assert not (lx.flags.c_contiguous and lg.flags.c_contiguous)
        _check_f64(lx, lg, mode, "border", False, rng)
    # a transposed view of the input: (N, C, W, H) read as (N, C, H, W)
    base = rng.standard_normal((2, 3, 5, 4))
    view = ember.tensor(base).transpose(-2, -1)
    assert view.is_contiguous() is not has_views(view)
    out = view.grid_sample_2d(ember.tensor(grid), mode=mode)
    expected = _torch_sample(torch.from_numpy(base).transpose(-2, -1), torch.from_numpy(grid),
                             mode, "zeros", False)
    assert_close(out, expected)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("xs,gs", [((0, 3, 4, 5), (0, 2, 2, 2)), ((2, 0, 4, 5), (2, 2, 3, 2)),
                                   ((2, 3, 4, 5), (2, 0, 3, 2)), ((2, 3, 4, 5), (2, 3, 0, 2))])
def test_size_zero(rng, mode, xs, gs):
    x = rng.standard_normal(xs)
    grid = rng.uniform(-1, 1, gs)
    ex = ember_tensor(x, requires_grad=True)
    eg = ember_tensor(grid, requires_grad=True)
    out = ember.grid_sample_2d(ex, eg, mode=mode)
    assert_close(out, _torch_sample(torch.from_numpy(x), torch.from_numpy(grid), mode, "zeros",
                                    False))
    out.backward(ember.tensor(np.ones(out.shape)))
    assert_close(ex.grad, np.zeros(xs))
    assert_close(eg.grad, np.zeros(gs))


def test_nearest_grid_gradient_is_zero(rng):
    x = ember.tensor(rng.standard_normal((1, 2, 3, 3))).require_grad()
    grid = ember.tensor(rng.uniform(-1, 1, (1, 2, 2, 2))).require_grad()
    x.grid_sample_2d(grid, mode="nearest").sum().backward()
    assert_close(grid.grad, np.zeros((1, 2, 2, 2)))
    assert float(x.grad.sum().item()) == 8.0  # each of 2 x 2 points x 2 channels passes a 1


def test_gradient_to_one_side_only(rng):
    x = rng.standard_normal((1, 2, 3, 4))
    grid = rng.uniform(-1, 1, (1, 2, 2, 2))
    eg = ember.tensor(grid).require_grad()
    ember.tensor(x).grid_sample_2d(eg, mode="bicubic").sum().backward()
    tg = torch.from_numpy(grid.copy()).requires_grad_(True)
    _torch_sample(torch.from_numpy(x), tg, "bicubic", "zeros", False).sum().backward()
    assert_close(eg.grad, tg.grad, rtol=1e-10, atol=1e-10)
    out = ember.tensor(x).grid_sample_2d(ember.tensor(grid))
    assert not out.requires_grad


def test_mixed_float_dtypes_promote(rng):
    x = ember.tensor(rng.standard_normal((1, 2, 3, 3)).astype(np.float32)).require_grad()
    grid = ember.tensor(rng.uniform(-1, 1, (1, 2, 2, 2))).require_grad()  # float64
    out = x.grid_sample_2d(grid)
    assert out.dtype.name == "float64"
    expected = _torch_sample(to_torch(x).double(), to_torch(grid), "bilinear", "zeros", False)
    assert_close(out, expected)
    out.sum().backward()
    assert x.grad.dtype.name == "float32" and grid.grad.dtype.name == "float64"


def test_out_of_range_corners_read_exact_zero():
    # an inf next to the border must not leak into points whose corners are out of range
    x = np.array([[[[np.inf, 1.0], [2.0, 3.0]]]])
    grid = np.array([[[[-3.0, -3.0], [1.0, 1.0], [5.0, 0.0]]]])
    for mode in MODES:
        out = ember.tensor(x).grid_sample_2d(ember.tensor(grid), mode=mode)
        expected = _torch_sample(torch.from_numpy(x), torch.from_numpy(grid), mode, "zeros", False)
        assert_close(out, expected)
        assert out.tolist()[0][0][0][0] == 0.0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("padding_mode", PADDINGS)
def test_non_finite_grid_points_read_zero(rng, mode, padding_mode):
    # ember's rule (PyTorch's CPU kernels disagree among themselves): a NaN or infinite
    # coordinate reads 0 and passes no gradient; the other points are unaffected
    x = rng.standard_normal((1, 2, 3, 4))
    grid = rng.uniform(-1, 1, (1, 1, 5, 2))
    bad = grid.copy()
    bad[0, 0, 1, 0] = np.nan
    bad[0, 0, 2, 1] = np.inf
    bad[0, 0, 3, 0] = -np.inf
    ex = ember.tensor(x).require_grad()
    eg = ember.tensor(bad).require_grad()
    out = ex.grid_sample_2d(eg, mode=mode, padding_mode=padding_mode)
    vals = out.numpy()
    assert np.all(vals[..., 1:4] == 0)
    good = _torch_sample(torch.from_numpy(x), torch.from_numpy(grid), mode, padding_mode, False)
    np.testing.assert_allclose(vals[..., [0, 4]], good.numpy()[..., [0, 4]], rtol=1e-12)
    out.sum().backward()
    assert np.all(eg.grad.numpy()[0, 0, 1:4] == 0)
    assert np.all(np.isfinite(ex.grad.numpy()))


def test_far_away_points_are_finite(rng):
    x = rng.standard_normal((1, 1, 3, 3))
    grid = np.array([[[[1e30, 0.2], [-1e30, 0.1], [3e9, -4e9]]]])
    for mode, padding_mode in itertools.product(MODES, ["zeros", "border"]):
        out = ember.tensor(x).grid_sample_2d(ember.tensor(grid), mode=mode,
                                             padding_mode=padding_mode)
        expected = _torch_sample(torch.from_numpy(x), torch.from_numpy(grid), mode, padding_mode,
                                 False)
        assert_close(out, expected)


@pytest.mark.parametrize("mode,padding_mode", [("bilinear", "reflection"), ("bicubic", "border"),
                                                ("bicubic", "zeros")])
def test_grads_match_finite_differences(rng, mode, padding_mode, eps=1e-6):
    x = rng.standard_normal((1, 2, 3, 4))
    grid = rng.uniform(-1.3, 1.3, (1, 2, 2, 2))
    ex, eg = ember.tensor(x).require_grad(), ember.tensor(grid).require_grad()
    out = ex.grid_sample_2d(eg, mode=mode, padding_mode=padding_mode)
    seed = rng.standard_normal(out.shape)
    out.backward(ember.tensor(seed))

    def f(a, b):
        return float((ember.tensor(a).grid_sample_2d(ember.tensor(b), mode=mode,
                                                     padding_mode=padding_mode).numpy()
                      * seed).sum())

    for arr, grad, which in ((x, ex.grad, 0), (grid, eg.grad, 1)):
        num = np.zeros(arr.shape)
        for idx in np.ndindex(arr.shape):  # a few dozen entries
            plus, minus = arr.copy(), arr.copy()
            plus[idx] += eps
            minus[idx] -= eps
            args_p = (plus, grid) if which == 0 else (x, plus)
            args_m = (minus, grid) if which == 0 else (x, minus)
            num[idx] = (f(*args_p) - f(*args_m)) / (2 * eps)
        np.testing.assert_allclose(grad.numpy(), num, rtol=1e-5, atol=1e-6)


# -- options --------------------------------------------------------------------------------------

def test_options_spellings_agree(rng):
    x = ember.tensor(rng.standard_normal((1, 2, 4, 4)))
    grid = ember.tensor(rng.uniform(-1.2, 1.2, (1, 3, 3, 2)))
    # Burn's example: the default options, then bilinear with border padding and align_corners
    default = x.grid_sample_2d(grid, ember.GridSampleOptions.default())
    assert_close(default, x.grid_sample_2d(grid).numpy())
    assert_close(default, _torch_sample(to_torch(x), to_torch(grid), "bilinear", "zeros", False))
    options = (ember.GridSampleOptions.new("bilinear").with_padding_mode("border")
               .with_align_corners(True))
    custom = x.grid_sample_2d(grid, options)
    assert_close(custom, _torch_sample(to_torch(x), to_torch(grid), "bilinear", "border", True))
    assert_close(custom, ember.grid_sample_2d(x, grid, padding_mode="border",
                                              align_corners=True).numpy())
    # a mode string as options (Burn's From<InterpolateMode>), case-insensitive names
    assert_close(x.grid_sample_2d(grid, "Bicubic"),
                 _torch_sample(to_torch(x), to_torch(grid), "bicubic", "zeros", False))
    assert_close(x.grid_sample_2d(grid, mode="NEAREST", padding_mode="Reflection"),
                 _torch_sample(to_torch(x), to_torch(grid), "nearest", "reflection", False))


def test_options_object():
    o = ember.GridSampleOptions(mode="bicubic", padding_mode="reflection", align_corners=True)
    assert (o.mode, o.padding_mode, o.align_corners) == ("bicubic", "reflection", True)
    assert repr(o) == ("GridSampleOptions(mode='bicubic', padding_mode='reflection', "
                       "align_corners=True)")
    assert o == ember.GridSampleOptions("bicubic", "reflection", True)
    assert o != ember.GridSampleOptions()
    assert hash(o) == hash(ember.GridSampleOptions("bicubic", "reflection", True))
    changed = o.with_padding_mode("zeros")
    assert changed.padding_mode == "zeros" and o.padding_mode == "reflection"  # a new object
    assert ember.GridSampleOptions.default() == ember.GridSampleOptions("bilinear", "zeros", False)
    with pytest.raises(ember.InvalidParameterError,
                       match="GridSampleOptions: mode must be one of 'bilinear', 'nearest', "
                             "'bicubic', got 'area'"):
        ember.GridSampleOptions("area")
    with pytest.raises(ember.InvalidParameterError, match="padding_mode must be one of .*got 'wrap'"):
        ember.GridSampleOptions().with_padding_mode("wrap")
    with pytest.raises(ember.InvalidParameterError, match="align_corners must be True or False, got 1"):
        ember.GridSampleOptions().with_align_corners(1)


# -- bad input ------------------------------------------------------------------------------------

def _good(rng):
    x = ember.tensor(rng.standard_normal((2, 3, 4, 5)))
    grid = ember.tensor(rng.uniform(-1, 1, (2, 2, 2, 2)))
    return x, grid


@pytest.mark.parametrize("make,error,match", [
    (lambda x, g: (x[0], g), ember.ShapeMismatchError,
     r"grid_sample_2d: input has shape \(3, 4, 5\) \(3-d\); expected a 4-d \(N, C, H, W\)"),
    (lambda x, g: (x.unsqueeze(0), g), ember.ShapeMismatchError, r"input has shape \(1, 2, 3, 4, 5\)"),
    (lambda x, g: (x, g[0]), ember.ShapeMismatchError,
     r"grid_sample_2d: grid has shape \(2, 2, 2\) \(3-d\); expected a 4-d \(N, H_out, W_out, 2\)"),
    (lambda x, g: (x, ember.cat([g, g[..., :1]], dim=-1)), ember.ShapeMismatchError,
     r"grid has shape \(2, 2, 2, 3\); expected \(N, H_out, W_out, 2\) .*got 3"),
    (lambda x, g: (x, g[:1]), ember.ShapeMismatchError,
     r"grid has batch size 1 \(shape \(1, 2, 2, 2\)\), input has 2 .*expected the same batch"),
    (lambda x, g: (x[:, :, :0], g), ember.ShapeMismatchError,
     r"input has shape \(2, 3, 0, 5\) with an empty spatial dim; expected H > 0 and W > 0"),
    (lambda x, g: (x[..., :0], g), ember.ShapeMismatchError, r"\(2, 3, 4, 0\) with an empty"),
    (lambda x, g: (x.cast("int32"), g), ember.KindError,
     "grid_sample_2d: input has dtype int32; expected a float tensor"),
    (lambda x, g: (x.cast("int64"), g), ember.KindError, "input has dtype int64; expected a float"),
    (lambda x, g: (x > 0, g), ember.KindError, "input has dtype bool; expected a float"),
    (lambda x, g: (x, g.cast("int64")), ember.KindError, "grid has dtype int64; expected a float"),
    (lambda x, g: (x, g > 0), ember.KindError, "grid has dtype bool; expected a float"),
    (lambda x, g: (x.numpy(), g), ember.InvalidParameterError,
     "grid_sample_2d: input must be a Tensor, got ndarray"),
    (lambda x, g: (x, [[0.0, 0.0]]), ember.InvalidParameterError, "grid must be a Tensor, got list"),
])
def test_bad_tensors(rng, make, error, match):
    x, g = _good(rng)
    before = snapshot(x, g)
    a, b = make(x, g)
    with pytest.raises(error, match=match):
        ember.grid_sample_2d(a, b)
    assert_unchanged([x, g], before)


@pytest.mark.parametrize("kwargs,error,match", [
    ({"mode": "area"}, ember.InvalidParameterError,
     "grid_sample_2d: mode must be one of 'bilinear', 'nearest', 'bicubic', got 'area'"),
    ({"mode": 1}, ember.InvalidParameterError, "mode must be one of .*got 1"),
    ({"padding_mode": "constant"}, ember.InvalidParameterError,
     "grid_sample_2d: padding_mode must be one of 'zeros', 'border', 'reflection', got 'constant'"),
    ({"align_corners": "yes"}, ember.InvalidParameterError,
     "grid_sample_2d: align_corners must be True or False, got 'yes'"),
    ({"options": 3}, ember.InvalidParameterError,
     "grid_sample_2d: options must be a GridSampleOptions, a mode string or None, got int"),
    ({"options": "linear"}, ember.InvalidParameterError,
     "grid_sample_2d: options must be one of 'bilinear', 'nearest', 'bicubic', got 'linear'"),
    ({"options": ember.GridSampleOptions(), "mode": "nearest"}, ember.InvalidParameterError,
     "grid_sample_2d: got options and the keyword.s. mode; expected one or the other"),
])
def test_bad_options(rng, kwargs, error, match):
    x, g = _good(rng)
    before = snapshot(x, g)
    with pytest.raises(error, match=match):
        x.grid_sample_2d(g, **kwargs)
    assert_unchanged([x, g], before)


def test_errors_are_also_builtin_exceptions(rng):
    x, g = _good(rng)
    with pytest.raises(TypeError):
        x.int().grid_sample_2d(g)
    with pytest.raises(ValueError):
        x.grid_sample_2d(g[:1])
    with pytest.raises(ValueError):
        x.grid_sample_2d(g, mode="area")


# -- the user guide -------------------------------------------------------------------------------

def test_docs_sampling_md():
    path = os.path.join(ROOT, "docs", "sampling.md")
    result = doctest.testfile(path, module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10
    assert result.failed == 0


# -- complex: grid_sample_2d takes real tensors only (docs/complex.md) -------------------------
def _complex(shape, dtype=np.complex64):
    rng = np.random.default_rng(4)
    return ember.from_numpy(np.asarray(rng.random(shape) + 1j * rng.random(shape), dtype=dtype))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("param", ["input", "grid"])
def test_complex_refused(param, dtype):
    x = _complex((1, 2, 3, 3), dtype) if param == "input" else ember.ones(1, 2, 3, 3)
    grid = _complex((1, 2, 2, 2), dtype) if param == "grid" else ember.zeros(1, 2, 2, 2)
    before = snapshot(x, grid)
    with pytest.raises(ember.KindError, match=rf"grid_sample_2d.*complex.*\({param} has"):
        x.grid_sample_2d(grid)
    with pytest.raises(ember.KindError, match="complex"):
        ember.grid_sample_2d(x, grid, mode="nearest")
    assert_unchanged([x, grid], before)
