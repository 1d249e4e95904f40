"""ember.onnx's quantization converters (ops_quant) against onnxruntime and onnx's
ReferenceEvaluator."""

import numpy as np
import pytest

from onnx_node import R, check, f32


def u8(*shape):
    return R.integers(0, 256, shape).astype(np.uint8)


def s8(*shape):
    return R.integers(-128, 128, shape).astype(np.int8)


X = (f32(3, 4, 5) * 60).astype(np.float32)


@pytest.mark.parametrize("zp", [None, np.uint8(128), np.int8(-3), np.uint16(1000),
                                np.int16(-7)])
def test_quantize_per_tensor(zp):
    inputs = [("x", X), ("s", np.float32(0.7))] + ([("z", zp)] if zp is not None else [])
    check("QuantizeLinear", inputs, consts=("s", "z"), oracle="ref")


def test_quantize_per_axis_and_blocked():
    check("QuantizeLinear", [("x", X), ("s", np.float32([0.5, 1.0, 2.0, 0.25])),
                             ("z", np.uint8([1, 2, 3, 4]))], {"axis": 1}, consts=("s", "z"),
          oracle="ort")
    check("QuantizeLinear", [("x", X), ("s", (R.random((3, 4, 3)) + 0.2).astype(np.float32)),
                             ("z", s8(3, 4, 3))], {"axis": 2, "block_size": 2},
          consts=("s", "z"), oracle="ref")
    check("QuantizeLinear", [("x", X), ("s", np.float32(0.3))],
          {"output_dtype": 5}, consts=("s",), oracle="ref")


@pytest.mark.parametrize("q", [u8(3, 4, 5), s8(3, 4, 5),
                               R.integers(-999, 999, (3, 4, 5)).astype(np.int32)])
def test_dequantize(q):
    zp = [("z", np.zeros((), q.dtype) + 3)] if q.dtype != np.int32 else []
    check("DequantizeLinear", [("q", q), ("s", np.float32(0.05))] + zp, consts=("s", "z"),
          oracle="ort")


def test_dequantize_per_axis_and_blocked():
    q = u8(3, 4, 5)
    check("DequantizeLinear", [("q", q), ("s", np.float32([0.5, 1.0, 2.0, 0.25])),
                               ("z", np.uint8([1, 2, 3, 4]))], {"axis": 1}, consts=("s", "z"),
          oracle="ort")
    check("DequantizeLinear", [("q", q), ("s", (R.random((3, 2, 5)) + 0.1).astype(np.float32))],
          {"axis": 1, "block_size": 2}, consts=("s",), oracle="ref")


@pytest.mark.parametrize("x", [f32(3, 4) * 5, np.abs(f32(2, 5)), -np.abs(f32(6))])
def test_dynamic_quantize(x):
    check("DynamicQuantizeLinear", [("x", x)], n_out=3, oracle="ref")


def test_matmul_integer():
    check("MatMulInteger", [("a", u8(2, 3, 4)), ("b", u8(4, 5)), ("za", np.uint8(12)),
                            ("zb", np.uint8(200))], consts=("za", "zb"), oracle="ort")


def test_conv_integer():
    check("ConvInteger", [("x", u8(1, 2, 5, 5)), ("w", u8(3, 2, 3, 3)), ("zx", np.uint8(7))],
          {"pads": [1, 1, 1, 1]}, consts=("zx",), oracle="ort")


@pytest.mark.parametrize("qa,scale_dt", [(u8, np.float32), (s8, np.float32),
                                         (u8, np.float16)])
def test_qlinear_matmul(qa, scale_dt):
    a, b = qa(2, 3, 4), qa(4, 5)
    zp = a.dtype.type
    inputs = [("a", a), ("sa", scale_dt(0.05)), ("za", zp(3)), ("b", b), ("sb", scale_dt(0.02)),
              ("zb", zp(1)), ("sy", scale_dt(0.3)), ("zy", zp(5))]
    check("QLinearMatMul", inputs, consts=("sa", "za", "sb", "zb", "sy", "zy"), oracle="ort")


def test_qlinear_conv():
    inputs = [("x", u8(1, 2, 5, 5)), ("sx", np.float32(0.02)), ("zx", np.uint8(100)),
              ("w", u8(3, 2, 3, 3)), ("sw", np.float32([0.01, 0.02, 0.03])),
              ("zw", np.uint8([0, 0, 0])), ("sy", np.float32(0.5)), ("zy", np.uint8(10)),
              ("b", np.int32([5, -100, 300]))]
    check("QLinearConv", inputs, {"pads": [1, 1, 1, 1]},
          consts=("sx", "zx", "sw", "zw", "sy", "zy", "b"), oracle="ort")
