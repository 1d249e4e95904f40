"""Every converter of ember.onnx on one-node graphs, against onnxruntime (the oracle), plus the
composed ones' gradients against PyTorch."""

import numpy as np
import pytest
import torch

from onnx_cases import ember_outputs, one_node

ort = pytest.importorskip("onnxruntime")

import ember  # noqa: E402

R = np.random.default_rng(0)


def f32(*shape):
    return R.standard_normal(shape).astype(np.float32)


def pos(*shape):
    return (R.random(shape) + 0.5).astype(np.float32)


def i64(*values):
    return np.asarray(values, dtype=np.int64)


X = f32(2, 3, 4)
MASK = np.concatenate([np.ones((3, 1), bool), f32(3, 4) > 0], axis=1)  # no row fully masked
IMG = f32(2, 4, 7, 7)
CASES = [  # (id, op, inputs, attrs, n_out, opset, initializer names)
    ("Add", "Add", [("a", X), ("b", f32(4))], {}),
    ("Sub", "Sub", [("a", X), ("b", f32(3, 1))], {}),
    ("Mul", "Mul", [("a", X), ("b", X)], {}),
    ("Div", "Div", [("a", X), ("b", pos(2, 3, 4))], {}),
    ("Div-int", "Div", [("a", i64(7, -7, 9)), ("b", i64(2, 2, -4))], {}),
    ("Pow", "Pow", [("a", pos(3, 4)), ("b", f32(3, 4))], {}),
    ("Neg", "Neg", [("a", X)], {}),
    ("Abs", "Abs", [("a", X)], {}),
    ("Sqrt", "Sqrt", [("a", pos(5))], {}),
    ("Exp", "Exp", [("a", X)], {}),
    ("Log", "Log", [("a", pos(5))], {}),
    ("Erf", "Erf", [("a", X)], {}),
    ("Reciprocal", "Reciprocal", [("a", pos(5))], {}),
    ("Floor", "Floor", [("a", X)], {}),
    ("Ceil", "Ceil", [("a", X)], {}),
    ("Sign", "Sign", [("a", X)], {}),
    ("Sin", "Sin", [("a", X)], {}),
    ("Cos", "Cos", [("a", X)], {}),
    ("Relu", "Relu", [("a", X)], {}),
    ("LeakyRelu", "LeakyRelu", [("a", X)], {"alpha": 0.2}),
    ("Elu", "Elu", [("a", X)], {"alpha": 0.7}),
    ("Selu", "Selu", [("a", X)], {}),
    ("PRelu", "PRelu", [("a", X), ("s", f32(4))], {}),
    ("HardSigmoid", "HardSigmoid", [("a", X)], {}),
    ("HardSwish", "HardSwish", [("a", X * 4)], {}),
    ("Softplus", "Softplus", [("a", X)], {}),
    ("Sigmoid", "Sigmoid", [("a", X)], {}),
    ("Tanh", "Tanh", [("a", X)], {}),
    ("Softmax", "Softmax", [("a", X)], {"axis": 1}),
    ("Softmax-opset11", "Softmax", [("a", X)], {"axis": 1}, 1, 11),
    ("LogSoftmax", "LogSoftmax", [("a", X)], {}),
    ("Gelu", "Gelu", [("a", X)], {}, 1, 20),
    ("Gelu-tanh", "Gelu", [("a", X)], {"approximate": "tanh"}, 1, 20),
    ("MatMul", "MatMul", [("a", X), ("b", f32(4, 5))], {}),
    ("MatMul-batched", "MatMul", [("a", f32(2, 1, 3, 4)), ("b", f32(5, 4, 2))], {}),
    ("Gemm", "Gemm", [("a", f32(4, 3)), ("b", f32(5, 4)), ("c", f32(5))],
     {"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0}),
    ("Conv", "Conv", [("x", IMG), ("w", f32(6, 4, 3, 3)), ("b", f32(6))],
     {"pads": [1, 1, 1, 1]}),
    ("Conv-groups-strides-dilations", "Conv", [("x", IMG), ("w", f32(4, 2, 3, 2))],
     {"group": 2, "strides": [2, 1], "dilations": [1, 2], "pads": [0, 1, 2, 0]}),
    ("Conv-same", "Conv", [("x", IMG), ("w", f32(3, 4, 4, 4))], {"auto_pad": "SAME_UPPER"}),
    ("Conv-1d", "Conv", [("x", f32(2, 3, 9)), ("w", f32(5, 3, 3))], {"strides": [2]}),
    ("ConvTranspose", "ConvTranspose", [("x", f32(2, 4, 5, 5)), ("w", f32(4, 3, 3, 3)),
                                        ("b", f32(3))],
     {"strides": [2, 2], "pads": [1, 0, 1, 1], "output_padding": [1, 0]}),
    ("ConvTranspose-groups", "ConvTranspose", [("x", f32(1, 4, 4, 4)), ("w", f32(4, 1, 2, 3))],
     {"group": 2, "dilations": [2, 1]}),
    ("MaxPool", "MaxPool", [("x", IMG)], {"kernel_shape": [3, 3], "strides": [2, 2],
                                          "pads": [1, 1, 1, 1]}),
    ("MaxPool-ceil-asym", "MaxPool", [("x", IMG)], {"kernel_shape": [2, 3], "ceil_mode": 1,
                                                    "strides": [2, 2], "pads": [0, 1, 1, 0]}),
    ("AveragePool", "AveragePool", [("x", IMG)], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
    ("AveragePool-incl", "AveragePool", [("x", IMG)],
     {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [1, 1, 1, 1], "count_include_pad": 1}),
    ("GlobalAveragePool", "GlobalAveragePool", [("x", IMG)], {}),
    ("GlobalMaxPool", "GlobalMaxPool", [("x", IMG)], {}),
    ("BatchNormalization", "BatchNormalization",
     [("x", IMG), ("s", f32(4)), ("b", f32(4)), ("m", f32(4)), ("v", pos(4))], {"epsilon": 1e-3}),
    ("LayerNormalization", "LayerNormalization", [("x", X), ("s", f32(4)), ("b", f32(4))], {}),
    ("LayerNormalization-axis", "LayerNormalization", [("x", X), ("s", f32(3, 4))], {"axis": 1}),
    ("InstanceNormalization", "InstanceNormalization", [("x", IMG), ("s", f32(4)),
                                                        ("b", f32(4))], {}),
    ("Flatten", "Flatten", [("x", IMG)], {"axis": 2}),
    ("Reshape", "Reshape", [("x", X), ("s", i64(0, -1, 2))], {}, 1, 18, ("s",)),
    ("Transpose", "Transpose", [("x", X)], {"perm": [2, 0, 1]}),
    ("Squeeze", "Squeeze", [("x", f32(2, 1, 3, 1)), ("a", i64(-1))], {}, 1, 18, ("a",)),
    ("Squeeze-all", "Squeeze", [("x", f32(2, 1, 3, 1))], {}),
    ("Unsqueeze", "Unsqueeze", [("x", X), ("a", i64(0, -1))], {}, 1, 18, ("a",)),
    ("Unsqueeze-opset11", "Unsqueeze", [("x", X)], {"axes": [1]}, 1, 11),
    ("Concat", "Concat", [("a", X), ("b", f32(2, 5, 4))], {"axis": 1}),
    ("Split", "Split", [("x", f32(2, 7)), ("s", i64(3, 4))], {"axis": 1}, 2, 18, ("s",)),
    ("Split-even", "Split", [("x", f32(6, 2))], {"num_outputs": 3}, 3, 18),
    ("Slice", "Slice", [("x", X), ("s", i64(1, -1)), ("e", i64(3, -4)), ("a", i64(1, 2)),
                        ("k", i64(1, -1))], {}, 1, 18, ("s", "e", "a", "k")),
    ("Slice-to-start", "Slice", [("x", X), ("s", i64(-1)), ("e", i64(-(2 ** 63))),
                                 ("a", i64(2)), ("k", i64(-2))], {}, 1, 18, ("s", "e", "a", "k")),
    ("Gather", "Gather", [("x", X), ("i", i64(-1, 0, 2).reshape(1, 3))], {"axis": 1}),
    ("GatherElements", "GatherElements", [("x", X), ("i", np.zeros((2, 3, 2), np.int64))],
     {"axis": 2}),
    ("Shape", "Shape", [("x", X)], {"start": 1}),
    ("Size", "Size", [("x", X)], {}),
    ("ConstantOfShape", "ConstantOfShape", [("s", i64(2, 3))],
     {"value": __import__("onnx").helper.make_tensor("v", 1, [1], [2.5])}, 1, 18, ("s",)),
    ("Cast", "Cast", [("x", X * 3)], {"to": 7}),
    ("Identity", "Identity", [("x", X)], {}),
    ("Dropout", "Dropout", [("x", X)], {}),
    ("ReduceMean", "ReduceMean", [("x", X), ("a", i64(0, 2))], {}, 1, 18, ("a",)),
    ("ReduceSum", "ReduceSum", [("x", X), ("a", i64(1))], {"keepdims": 0}, 1, 18, ("a",)),
    ("ReduceMax", "ReduceMax", [("x", X)], {}),
    ("ReduceMin-opset13", "ReduceMin", [("x", X)], {"axes": [1], "keepdims": 0}, 1, 13),
    ("ReduceProd", "ReduceProd", [("x", X), ("a", i64(2))], {}, 1, 18, ("a",)),
    ("ReduceL2", "ReduceL2", [("x", X), ("a", i64(2))], {}, 1, 18, ("a",)),
    ("ReduceLogSumExp", "ReduceLogSumExp", [("x", X), ("a", i64(1))], {"keepdims": 0}, 1, 18,
     ("a",)),
    ("ArgMax", "ArgMax", [("x", X)], {"axis": 1}),
    ("ArgMin", "ArgMin", [("x", X)], {"axis": -1, "keepdims": 0}),
    ("Where", "Where", [("c", X > 0), ("a", X), ("b", f32(4))], {}),
    ("Equal", "Equal", [("a", i64(1, 2, 3)), ("b", i64(1, 0, 3))], {}),
    ("Less", "Less", [("a", X), ("b", f32(4))], {}),
    ("Greater", "Greater", [("a", X), ("b", f32(4))], {}),
    ("LessOrEqual", "LessOrEqual", [("a", X), ("b", f32(4))], {}),
    ("Not", "Not", [("a", X > 0)], {}),
    ("And", "And", [("a", X > 0), ("b", X < 0.5)], {}),
    ("Or", "Or", [("a", X > 0), ("b", X < -0.5)], {}),
    ("Expand", "Expand", [("x", f32(3, 1)), ("s", i64(2, 1, 4))], {}, 1, 18, ("s",)),
    ("Tile", "Tile", [("x", f32(2, 3)), ("r", i64(2, 1))], {}, 1, 18, ("r",)),
    ("Range", "Range", [("s", np.asarray(1.0, np.float32)), ("l", np.asarray(4.0, np.float32)),
                        ("d", np.asarray(0.5, np.float32))], {}, 1, 18, ("s", "l", "d")),
    ("Clip", "Clip", [("x", X), ("lo", np.asarray(-0.5, np.float32)),
                      ("hi", np.asarray(0.3, np.float32))], {}, 1, 18, ("lo", "hi")),
    ("Min", "Min", [("a", X), ("b", f32(4)), ("c", f32(3, 1))], {}),
    ("Max", "Max", [("a", X), ("b", f32(4))], {}),
    ("Sum", "Sum", [("a", X), ("b", f32(4)), ("c", X)], {}),
    ("Mean", "Mean", [("a", X), ("b", f32(4))], {}),
    ("Pad", "Pad", [("x", X), ("p", i64(0, 1, 2, 0, 2, 1))], {}, 1, 18, ("p",)),
    ("Pad-reflect", "Pad", [("x", X), ("p", i64(0, 1, 2, 0, 1, 1))], {"mode": "reflect"}, 1, 18,
     ("p",)),
    ("Pad-edge-value", "Pad", [("x", X), ("p", i64(1, 0, 0, 0, 0, 2))], {"mode": "edge"}, 1, 18,
     ("p",)),
    ("Pad-crop", "Pad", [("x", X), ("p", i64(0, -1, 1, 0, 0, -1)),
                         ("v", np.asarray(3.0, np.float32))], {}, 1, 18, ("p", "v")),
    ("Resize-nearest", "Resize", [("x", IMG), ("", None), ("s", np.asarray([1, 1, 2, 1.5],
                                                                           np.float32))],
     {"mode": "nearest"}, 1, 18, ("s",)),
    ("Resize-nearest-sizes", "Resize", [("x", IMG), ("", None), ("", None),
                                        ("z", i64(2, 4, 3, 10))],
     {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"},
     1, 18, ("z",)),
    ("Resize-linear", "Resize", [("x", IMG), ("", None), ("s", np.asarray([1, 1, 2, 0.5],
                                                                          np.float32))],
     {"mode": "linear"}, 1, 18, ("s",)),
    ("Resize-linear-align", "Resize", [("x", IMG), ("", None), ("", None),
                                       ("z", i64(2, 4, 11, 5))],
     {"mode": "linear", "coordinate_transformation_mode": "align_corners"}, 1, 18, ("z",)),
    ("Einsum", "Einsum", [("a", f32(2, 3, 4)), ("b", f32(2, 4, 5))],
     {"equation": "bij,bjk->bik"}),
    ("Trilu", "Trilu", [("x", f32(4, 4))], {"upper": 0}),
    ("CumSum", "CumSum", [("x", X), ("a", np.asarray(1, np.int64))], {"reverse": 1}, 1, 18,
     ("a",)),
    ("OneHot", "OneHot", [("i", i64(0, 2, -1)), ("d", np.asarray(4, np.int64)),
                          ("v", np.asarray([0.0, 5.0], np.float32))], {}, 1, 18, ("d", "v")),
    ("Mod", "Mod", [("a", i64(7, -7, 5)), ("b", i64(3, 3, -2))], {}),
    ("Upsample-opset9", "Upsample", [("x", f32(1, 1, 2, 3)),
                                     ("s", np.asarray([1, 1, 2, 3], np.float32))],
     {"mode": "nearest"}, 1, 9, ("s",)),
    ("Acos", "Acos", [("a", np.tanh(X))], {}),
    ("Asinh", "Asinh", [("a", X)], {}),
    ("Cosh", "Cosh", [("a", X)], {}),
    ("Softsign", "Softsign", [("a", X)], {}),
    ("Mish", "Mish", [("a", X)], {}, 1, 18),
    ("Celu", "Celu", [("a", X)], {"alpha": 0.5}),
    ("ThresholdedRelu", "ThresholdedRelu", [("a", X)], {"alpha": 0.3}),
    ("Shrink", "Shrink", [("a", X)], {"lambd": 0.4, "bias": 0.1}),
    ("IsInf", "IsInf", [("a", np.asarray([1.0, np.inf, -np.inf, np.nan], np.float32))],
     {"detect_negative": 0}),
    ("BitShift", "BitShift", [("a", np.asarray([1, 8, 255], np.uint8)),
                              ("b", np.asarray([2, 1, 3], np.uint8))], {"direction": "RIGHT"}),
    ("BitwiseAnd", "BitwiseAnd", [("a", i64(12, 7, -1)), ("b", i64(10, 2, 5))], {}),
    ("CumProd", "CumProd", [("x", pos(2, 4)), ("a", np.asarray(1, np.int64))],
     {"exclusive": 1}, 1, 26, ("a",)),
    ("ReduceLogSum", "ReduceLogSum", [("x", pos(2, 3)), ("a", i64(1))], {}, 1, 18, ("a",)),
    ("Hardmax", "Hardmax", [("x", X)], {"axis": 1}),
    ("LpNormalization", "LpNormalization", [("x", X)], {"axis": 1, "p": 1}),
    ("RMSNormalization", "RMSNormalization", [("x", X), ("s", f32(4))], {}, 1, 23),
    ("NegativeLogLikelihoodLoss", "NegativeLogLikelihoodLoss",
     [("x", f32(3, 5, 2)), ("t", np.asarray([[0, 4], [2, 1], [3, 3]], np.int64)),
      ("w", pos(5))], {"reduction": "mean", "ignore_index": 3}),
    ("SoftmaxCrossEntropyLoss", "SoftmaxCrossEntropyLoss",
     [("x", f32(4, 5)), ("t", i64(0, 4, 2, 2))], {"reduction": "sum"}, 2),
    ("TopK", "TopK", [("x", X), ("k", i64(2))], {"axis": 1, "largest": 0}, 2, 18, ("k",)),
    ("ScatterElements", "ScatterElements", [("x", f32(3, 3)),
                                             ("i", np.asarray([[1, 0, 2]], np.int64)),
                                             ("u", f32(1, 3))], {"axis": 0, "reduction": "add"}),
    ("ScatterND", "ScatterND", [("x", f32(4, 3)), ("i", np.asarray([[1], [3]], np.int64)),
                                ("u", f32(2, 3))], {}),
    ("GatherND", "GatherND", [("x", X), ("i", np.asarray([[0, 1], [1, 2]], np.int64))], {}),
    ("NonZero", "NonZero", [("x", X > 0.3)], {}),
    ("Compress", "Compress", [("x", X), ("c", np.asarray([True, False, True]))], {"axis": 1}),
    ("EyeLike", "EyeLike", [("x", f32(3, 4))], {"k": 1}),
    ("DepthToSpace", "DepthToSpace", [("x", f32(1, 8, 2, 3))], {"blocksize": 2, "mode": "CRD"}),
    ("Conv-3d", "Conv", [("x", f32(1, 2, 5, 6, 6)), ("w", f32(4, 2, 2, 3, 3)), ("b", f32(4))],
     {"strides": [2, 1, 2], "pads": [1, 0, 1, 0, 1, 1], "dilations": [1, 2, 1]}),
    ("MaxPool-3d-ceil", "MaxPool", [("x", f32(1, 2, 5, 6, 7))],
     {"kernel_shape": [2, 3, 2], "strides": [2, 2, 2], "ceil_mode": 1}),
    ("AveragePool-3d-pads", "AveragePool", [("x", f32(1, 2, 5, 6, 6))],
     {"kernel_shape": [3, 3, 3], "strides": [2, 2, 2], "pads": [1, 1, 0, 1, 0, 1]}),
    ("ConvTranspose-output-shape", "ConvTranspose", [("x", f32(1, 2, 3, 3)),
                                                      ("w", f32(2, 3, 3, 3))],
     {"strides": [3, 2], "output_shape": [10, 8]}),
    ("ConvTranspose-same-upper", "ConvTranspose", [("x", f32(1, 2, 3, 4)),
                                                    ("w", f32(2, 3, 3, 3))],
     {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ("MaxPool-uint8", "MaxPool", [("x", np.arange(50, dtype=np.uint8).reshape(1, 2, 5, 5))],
     {"kernel_shape": [2, 2]}),
    ("LRN", "LRN", [("x", IMG)], {"size": 3, "alpha": 0.01, "beta": 0.7, "bias": 1.5}),
    ("SpaceToDepth", "SpaceToDepth", [("x", f32(1, 2, 4, 6))], {"blocksize": 2}),
    ("Attention-gqa-causal", "Attention", [("q", f32(2, 4, 3, 8)), ("k", f32(2, 2, 5, 8)),
                                            ("v", f32(2, 2, 5, 8))], {"is_causal": 1}, 1, 23),
    ("Attention-3d-mask", "Attention", [("q", f32(2, 3, 8)), ("k", f32(2, 5, 8)),
                                         ("v", f32(2, 5, 8)), ("m", MASK)],
     {"q_num_heads": 2, "kv_num_heads": 2}, 1, 23),
    ("LSTM-bidirectional", "LSTM", [("x", f32(4, 2, 3)), ("w", f32(2, 20, 3)),
                                    ("r", f32(2, 20, 5)), ("b", f32(2, 40))],
     {"hidden_size": 5, "direction": "bidirectional"}, 3),
    ("GRU-linear-before-reset", "GRU", [("x", f32(4, 2, 3)), ("w", f32(1, 12, 3)),
                                        ("r", f32(1, 12, 4)), ("b", f32(1, 24))],
     {"hidden_size": 4, "linear_before_reset": 1}, 2),
    ("RNN-reverse", "RNN", [("x", f32(4, 2, 3)), ("w", f32(1, 4, 3)), ("r", f32(1, 4, 4))],
     {"hidden_size": 4, "direction": "reverse"}, 2),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_op_matches_onnxruntime(case):
    _, op, inputs, attrs, *rest = case
    n_out, opset, consts = (rest + [1, 18, ()][len(rest):])[:3]
    model, feeds = one_node(op, inputs, attrs, n_out, opset, consts)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    actual = ember_outputs(model, feeds)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape
        assert a.dtype == e.dtype
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-5)


def _grads(model_inputs, ember_fn, torch_fn):
    xs = [ember.tensor(v, requires_grad=True) for v in model_inputs]
    ts = [torch.tensor(v, requires_grad=True) for v in model_inputs]
    out = ember_fn(*xs)
    ref = torch_fn(*ts)
    seed = np.random.default_rng(1).standard_normal(tuple(ref.shape)).astype(np.float32)
    (out * ember.tensor(seed)).sum().backward()
    (ref * torch.tensor(seed)).sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_conv_transpose_gradients_match_torch():
    x, w, b = f32(2, 4, 5, 5), f32(4, 3, 3, 3), f32(3)
    model, _ = one_node("ConvTranspose", [("x", x), ("w", w), ("b", b)],
                        {"strides": [2, 2], "pads": [1, 0, 1, 1], "output_padding": [1, 0]})
    m = ember.onnx.load(model)
    _grads([x, w, b], lambda x, w, b: m(x, w, b), _torch_conv_transpose)


def _torch_conv_transpose(x, w, b):
    # ONNX pads [1, 0, 1, 1] (begin h, begin w, end h, end w): torch takes symmetric padding,
    # so pad 0 on w and crop the extra end column afterwards
    full = torch.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=(1, 0),
                                                output_padding=(1, 0))
    return full[:, :, :, :-1]


def test_resize_linear_gradients_match_torch():
    x = f32(1, 2, 4, 5)
    model, _ = one_node("Resize", [("x", x), ("", None), ("", None), ("z", i64(1, 2, 7, 9))],
                        {"mode": "linear"}, consts=("z",))
    m = ember.onnx.load(model)
    _grads([x], lambda x: m(x), lambda x: torch.nn.functional.interpolate(
        x, size=(7, 9), mode="bilinear", align_corners=False))


def test_gemm_conv_maxpool_gradients_match_torch():
    x, w = f32(2, 3, 6, 6), f32(4, 3, 3, 3)
    model, _ = one_node("Conv", [("x", x), ("w", w)], {"pads": [1, 1, 1, 1], "strides": [2, 2]})
    m = ember.onnx.load(model)
    _grads([x, w], lambda x, w: m(x, w),
           lambda x, w: torch.nn.functional.conv2d(x, w, padding=1, stride=2))
    model, _ = one_node("MaxPool", [("x", x)], {"kernel_shape": [2, 2], "strides": [2, 2]})
    m = ember.onnx.load(model)
    _grads([x], lambda x: m(x), lambda x: torch.nn.functional.max_pool2d(x, 2))


def test_conv3d_and_pool3d_gradients_match_torch():
    x, w = f32(2, 2, 5, 6, 6), f32(3, 2, 2, 3, 3)
    model, _ = one_node("Conv", [("x", x), ("w", w)],
                        {"strides": [2, 1, 1], "pads": [1, 1, 1, 1, 1, 1], "dilations": [1, 1, 2]})
    m = ember.onnx.load(model)
    _grads([x, w], lambda x, w: m(x, w),
           lambda x, w: torch.nn.functional.conv3d(x, w, stride=(2, 1, 1), padding=1,
                                                   dilation=(1, 1, 2)))
    model, _ = one_node("MaxPool", [("x", x)], {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]})
    m = ember.onnx.load(model)
    _grads([x], lambda x: m(x), lambda x: torch.nn.functional.max_pool3d(x, 2))
    model, _ = one_node("AveragePool", [("x", x)], {"kernel_shape": [3, 3, 3],
                                                    "pads": [1, 1, 1, 1, 1, 1]})
    m = ember.onnx.load(model)
    _grads([x], lambda x: m(x), lambda x: torch.nn.functional.avg_pool3d(
        x, 3, stride=1, padding=1, count_include_pad=False))
