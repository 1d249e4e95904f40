"""ember.onnx's sampling and vision converters (ops_vision) against onnx's ReferenceEvaluator
or onnxruntime, and their gradients against PyTorch."""

import numpy as np
import pytest
import torch

from onnx_node import R, check, f32, model_of

import ember  # noqa: E402


def i64(*v):
    return np.asarray(v, dtype=np.int64)


GRID4 = (R.random((2, 3, 4, 2)) * 2.4 - 1.2).astype(np.float32)
GRID5 = (R.random((1, 2, 3, 2, 3)) * 2.4 - 1.2).astype(np.float32)


@pytest.mark.parametrize("mode", ["linear", "nearest", "cubic"])
@pytest.mark.parametrize("pad", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [0, 1])
def test_grid_sample_2d(mode, pad, ac):
    check("GridSample", [("x", f32(2, 3, 5, 6)), ("g", GRID4)],
          {"mode": mode, "padding_mode": pad, "align_corners": ac}, oracle="ort", atol=1e-5)


@pytest.mark.parametrize("mode", ["linear", "nearest"])
@pytest.mark.parametrize("ac", [0, 1])
def test_grid_sample_3d(mode, ac):
    check("GridSample", [("x", f32(1, 2, 3, 4, 5)), ("g", GRID5)],
          {"mode": mode, "align_corners": ac}, oracle="ref", atol=1e-5)


def test_grid_sample_opset16_names():
    check("GridSample", [("x", f32(1, 2, 4, 4)), ("g", GRID4[:1])],
          {"mode": "bilinear"}, opset=16, oracle="ort", atol=1e-5)


@pytest.mark.parametrize("ac", [0, 1])
def test_affine_grid(ac):
    check("AffineGrid", [("t", f32(2, 2, 3)), ("s", i64(2, 3, 4, 5))], {"align_corners": ac},
          consts=("s",), oracle="ort")
    check("AffineGrid", [("t", f32(1, 3, 4)), ("s", i64(1, 1, 2, 3, 4))], {"align_corners": ac},
          consts=("s",), oracle="ort")


@pytest.mark.parametrize("attrs", [
    {"kernel_shape": [2, 2], "p": 2},
    {"kernel_shape": [3, 2], "p": 3, "strides": [2, 1], "pads": [1, 0, 1, 1]},
    {"kernel_shape": [2, 2], "p": 1, "dilations": [2, 1]},
    {"kernel_shape": [3, 3], "p": 2, "auto_pad": "SAME_UPPER", "strides": [2, 2]},
    {"kernel_shape": [3, 3], "p": 2, "auto_pad": "SAME_LOWER"},
])
def test_lp_pool_2d(attrs):
    check("LpPool", [("x", f32(2, 3, 5, 6))], attrs, oracle="ref", rtol=1e-5, atol=1e-5)


def test_lp_pool_ceil_mode():
    # onnx's reference scales partial windows by the full kernel size; onnxruntime sums
    check("LpPool", [("x", f32(2, 3, 5, 6))],
          {"kernel_shape": [2, 2], "p": 2, "strides": [2, 2], "ceil_mode": 1}, oracle="ort",
          atol=1e-5)


def test_lp_pool_1d_and_3d():
    check("LpPool", [("x", f32(2, 3, 7))], {"kernel_shape": [3], "strides": [2]}, oracle="ref",
          atol=1e-5)
    check("LpPool", [("x", f32(1, 2, 4, 4, 4))], {"kernel_shape": [2, 2, 2]}, oracle="ref",
          atol=1e-5)


def test_max_unpool_inverts_max_pool_indices():
    x = f32(2, 3, 4, 6)
    pooled, idx = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    # ONNX indices address the whole tensor (N, C, H, W flattened)
    base = (np.arange(2 * 3).reshape(2, 3, 1, 1) * 4 * 6).astype(np.int64)
    flat = idx.numpy() + base
    check("MaxUnpool", [("x", pooled.numpy()), ("i", flat)],
          {"kernel_shape": [2, 2], "strides": [2, 2]}, oracle="ort")
    check("MaxUnpool", [("x", pooled.numpy()), ("i", flat), ("s", i64(2, 3, 5, 7))],
          {"kernel_shape": [2, 2], "strides": [2, 2]}, consts=("s",), oracle="ref")


@pytest.mark.parametrize("attrs,image,block,L", [
    ({}, [5, 5], [2, 2], 16),
    ({"strides": [2, 1], "pads": [1, 0, 1, 1], "dilations": [1, 2]}, [5, 6], [2, 2], 15),
])
def test_col2im(attrs, image, block, L):
    cols = f32(2, 3 * block[0] * block[1], L)
    check("Col2Im", [("c", cols), ("i", i64(*image)), ("b", i64(*block))], attrs,
          consts=("i", "b"), oracle="ref", atol=1e-5)


def test_col2im_3d():
    check("Col2Im", [("c", f32(1, 2 * 8, 2 * 2 * 3)), ("i", i64(3, 3, 4)), ("b", i64(2, 2, 2))],
          {}, consts=("i", "b"), oracle="ref", atol=1e-5)


ROIS = np.array([[0.0, 0.0, 4.0, 5.0], [1.2, 0.5, 6.6, 3.3], [3.0, 2.0, 9.0, 9.0]], np.float32)


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("ctm", ["half_pixel", "output_half_pixel"])
@pytest.mark.parametrize("ratio", [0, 2])
def test_roi_align(mode, ctm, ratio):
    check("RoiAlign", [("x", f32(2, 3, 8, 9)), ("r", ROIS), ("b", i64(0, 1, 1))],
          {"mode": mode, "coordinate_transformation_mode": ctm, "sampling_ratio": ratio,
           "output_height": 3, "output_width": 2, "spatial_scale": 0.9}, oracle="ref",
          atol=1e-5)


@pytest.mark.parametrize("attrs,with_mask", [
    ({}, False),
    ({"pads": [1, 1, 1, 1], "strides": [2, 1]}, True),
    ({"group": 2, "offset_group": 2, "dilations": [1, 2]}, True),
])
def test_deform_conv(attrs, with_mask):
    x, w = f32(2, 4, 5, 6), f32(6, 4 // attrs.get("group", 1), 2, 2)
    pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
    sh, sw = attrs.get("strides", [1, 1])
    dh, dw = attrs.get("dilations", [1, 1])
    oh, ow = (5 + pt + pb - dh - 1) // sh + 1, (6 + pl + pr - dw - 1) // sw + 1
    og = attrs.get("offset_group", 1)
    inputs = [("x", x), ("w", w), ("o", f32(2, og * 4 * 2, oh, ow)), ("b", f32(6))]
    if with_mask:
        inputs.append(("m", R.random((2, og * 4, oh, ow)).astype(np.float32)))
    check("DeformConv", inputs, attrs, oracle="ref", rtol=1e-4, atol=1e-5)


BOXES = np.array([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.1, 1.0, 1.1], [0.0, -0.1, 1.0, 0.9],
                   [0.0, 10.0, 1.0, 11.0], [1.0, 10.1, 0.0, 11.1], [0.0, 100.0, 1.0, 101.0]]],
                 np.float32)
SCORES = np.array([[[0.9, 0.75, 0.6, 0.95, 0.5, 0.3], [0.1, 0.8, 0.7, 0.2, 0.4, 0.9]]],
                  np.float32)


@pytest.mark.parametrize("limit,iou,thr,center", [
    (3, 0.5, None, 0), (10, 0.5, 0.4, 0), (2, 0.0, None, 0), (5, 0.6, 0.0, 1), (0, 0.5, None, 0),
])
def test_non_max_suppression(limit, iou, thr, center):
    inputs = [("b", BOXES), ("s", SCORES), ("m", i64(limit)), ("i", np.float32(iou))]
    if thr is not None:
        inputs.append(("t", np.float32(thr)))
    check("NonMaxSuppression", inputs, {"center_point_box": center},
          consts=("m", "i", "t"), oracle="ort")


def test_center_crop_pad():
    check("CenterCropPad", [("x", f32(5, 4, 3)), ("s", i64(3, 6))], {"axes": [0, 1]},
          consts=("s",), oracle="ref")
    check("CenterCropPad", [("x", f32(4, 7)), ("s", i64(6, 2))], {}, consts=("s",),
          oracle="ref")


@pytest.mark.parametrize("batch,time", [(1, 0), (0, 1)])
def test_reverse_sequence(batch, time):
    x = f32(4, 3, 2) if time == 0 else f32(3, 4, 2)
    check("ReverseSequence", [("x", x), ("l", i64(4, 1, 2))],
          {"batch_axis": batch, "time_axis": time}, oracle="ort")


def _grads(model, values, torch_fn):
    m = ember.onnx.load(model)
    xs = [ember.tensor(v, requires_grad=True) for v in values]
    ts = [torch.tensor(v, requires_grad=True) for v in values]
    out, ref = m(*xs), torch_fn(*ts)
    weights = R.standard_normal(ref.shape).astype(np.float32)
    (out * ember.tensor(weights)).sum().backward()
    (ref * torch.tensor(weights)).sum().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_grid_sample_gradients_match_torch():
    x, g = f32(2, 3, 5, 6), GRID4
    model, _ = model_of("GridSample", [("x", x), ("g", g)], {"padding_mode": "border"})
    _grads(model, [x, g], lambda x, g: torch.nn.functional.grid_sample(
        x, g, padding_mode="border", align_corners=False))


def test_lp_pool_and_col2im_gradients_match_torch():
    x = f32(2, 3, 6, 6)
    model, _ = model_of("LpPool", [("x", x)], {"kernel_shape": [2, 3], "strides": [2, 1]})
    _grads(model, [x], lambda x: torch.nn.functional.lp_pool2d(x, 2, (2, 3), (2, 1)))
    cols = f32(1, 2 * 4, 16)
    model, _ = model_of("Col2Im", [("c", cols), ("i", i64(5, 5)), ("b", i64(2, 2))],
                        consts=("i", "b"))
    _grads(model, [cols], lambda c: torch.nn.functional.fold(c, (5, 5), (2, 2)))


@pytest.mark.parametrize("p", [1, 2, 3])
def test_global_lp_pool(p):
    check("GlobalLpPool", [("x", f32(2, 3, 4, 5))], {"p": p}, opset=18, oracle="ort", atol=1e-5)


@pytest.mark.parametrize("scale", [1.0, 0.5])
def test_max_roi_pool(scale):
    rois = np.array([[0, 0.0, 0.0, 5.0, 4.0], [1, 1.4, 2.2, 8.0, 6.6], [1, 3.0, 3.0, 3.0, 3.0],
                     [0, -2.0, -1.0, 20.0, 3.0]], np.float32)
    check("MaxRoiPool", [("x", f32(2, 3, 7, 9)), ("r", rois)],
          {"pooled_shape": [2, 3], "spatial_scale": scale}, opset=18, oracle="ort")
