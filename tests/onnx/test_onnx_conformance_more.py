"""ember.onnx on what onnx's conformance cases found missing: ONNX's narrow element types
(float8, float4, int4, int2) at the boundary and through Cast/CastLike, Resize's cubic mode,
antialiasing, crops and aspect policies, dilated AveragePool, MaxPool's Indices, training-mode
BatchNormalization, empty reductions, GatherND's batch_dims, 3-D ConvTranspose, the opset-8
Scan, half-precision attention, Pad's wrap mode. The oracles: onnx's ReferenceEvaluator and
onnxruntime; gradients against PyTorch."""

import numpy as np
import pytest
import torch

from onnx_cases import one_node

onnx = pytest.importorskip("onnx")
ml_dtypes = pytest.importorskip("ml_dtypes")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import ember  # noqa: E402
from ember.onnx.backend import EmberBackend  # noqa: E402

R = np.random.default_rng(7)


def f32(*shape):
    return R.standard_normal(shape).astype(np.float32)


def reference(model, feeds):
    return ReferenceEvaluator(model).run(None, feeds)


def ours(model, feeds):
    return list(EmberBackend.run_model(model, [feeds[i.name] for i in model.graph.input
                                                if i.name in feeds]))


def same(got, want, rtol=1e-5, atol=1e-6):
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype,
                                                                  want.shape, want.dtype)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    else:  # narrow types, ints, bools: bit for bit, NaN where NaN
        g, w = got.astype(np.float64), want.astype(np.float64)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_array_equal(g[~np.isnan(g)], w[~np.isnan(w)])


def against_reference(model, feeds, **tol):
    want = reference(model, feeds)
    got = ours(model, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(np.asarray(g), np.asarray(w), **tol)


# -- narrow element types ---------------------------------------------------------------------

SPECIAL = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 448, 464, 470, 480, 240, 248, 57344,
                    61439, 61440, 6.0, 7.0, 2.5, 0.25, 1e-9, -1e-9, 1e6, -1e6], np.float32)
WIDE = np.concatenate([SPECIAL, (R.standard_normal(300) * 10.0 ** R.integers(-9, 6, 300))
                       .astype(np.float32)])
FLOAT8 = [TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ, TensorProto.FLOAT8E5M2,
          TensorProto.FLOAT8E5M2FNUZ]


def cast_model(to, elem_in=TensorProto.FLOAT, shape=(len(WIDE),), **attrs):
    node = helper.make_node("Cast", ["x"], ["y"], to=to, **attrs)
    graph = helper.make_graph([node], "cast", [helper.make_tensor_value_info("x", elem_in, shape)],
                              [helper.make_tensor_value_info("y", to, shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])


@pytest.mark.parametrize("to", FLOAT8)
@pytest.mark.parametrize("saturate", [1, 0])
def test_cast_to_float8_rounds_and_saturates_as_the_reference(to, saturate):
    against_reference(cast_model(to, saturate=saturate), {"x": WIDE})


@pytest.mark.parametrize("source", [np.float16, np.float64])
def test_cast_to_float8_from_other_floats(source):
    x = WIDE[np.abs(WIDE) < 6e4].astype(source)
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(source))
    against_reference(cast_model(TensorProto.FLOAT8E4M3FN, elem, x.shape), {"x": x})


def test_cast_to_float4():
    against_reference(cast_model(TensorProto.FLOAT4E2M1), {"x": WIDE})


@pytest.mark.parametrize("to", [TensorProto.INT4, TensorProto.UINT4, TensorProto.INT2,
                                TensorProto.UINT2])
def test_cast_to_narrow_ints_truncates_and_zeroes_out_of_range(to):
    x = (np.arange(-40, 40) / 2).astype(np.float32)
    against_reference(cast_model(to, shape=x.shape), {"x": x})


@pytest.mark.parametrize("mode", ["up", "down", "nearest"])
def test_cast_to_float8e8m0_rounds_to_powers_of_two(mode):
    x = np.abs(WIDE[np.isfinite(WIDE) & (np.abs(WIDE) > 1e-30)])
    against_reference(cast_model(TensorProto.FLOAT8E8M0, shape=x.shape, saturate=1,
                                 round_mode=mode), {"x": x})


@pytest.mark.parametrize("code,name", [(TensorProto.FLOAT8E4M3FN, "float8_e4m3fn"),
                                       (TensorProto.FLOAT8E5M2FNUZ, "float8_e5m2fnuz"),
                                       (TensorProto.INT4, "int4"), (TensorProto.UINT2, "uint2"),
                                       (TensorProto.FLOAT4E2M1, "float4_e2m1fn")])
def test_narrow_inputs_and_initializers_are_read_widened(code, name):
    dt = getattr(ml_dtypes, name)
    x = np.array([-1.5, 0.5, 1.0, 0.0, 1.5, -1.0], np.float32)
    x = np.clip(x, ml_dtypes.iinfo(dt).min, ml_dtypes.iinfo(dt).max).round() \
        if "int" in name else x
    narrow = x.astype(dt)
    const = numpy_helper.from_array(narrow[::-1].copy(), "c")
    nodes = [helper.make_node("Cast", ["x"], ["a"], to=TensorProto.FLOAT),
             helper.make_node("Cast", ["c"], ["b"], to=TensorProto.FLOAT),
             helper.make_node("Add", ["a", "b"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", code, [6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6])],
                              [const])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    against_reference(model, {"x": narrow})


def test_castlike_takes_a_narrow_target_type_from_the_graph():
    target = np.zeros(3, np.float32).astype(ml_dtypes.float8_e5m2)
    x = np.array([0.3, 70000.0, -1e-7], np.float32)
    node = helper.make_node("CastLike", ["x", "t"], ["y"], saturate=0)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
                      helper.make_tensor_value_info("t", TensorProto.FLOAT8E5M2, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT8E5M2, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    against_reference(model, {"x": x, "t": target})


def test_load_keeps_narrow_values_in_a_wide_dtype():
    x = np.array([0.3, 500.0], np.float32)
    out = ember.onnx.run(cast_model(TensorProto.FLOAT8E4M3FN, shape=(2,)), {"x": x})["y"]
    assert out.dtype == ember.float32
    assert out.tolist() == [0.3125, 448.0]


# -- Resize -----------------------------------------------------------------------------------

def resize(x, attrs, scales=None, sizes=None, roi=None, opset=19):
    inputs = [("x", x), ("roi", roi) if roi is not None else ("", None),
              ("s", np.asarray(scales, np.float32)) if scales is not None else ("", None)]
    if sizes is not None:
        inputs.append(("z", np.asarray(sizes, np.int64)))
    consts = ("roi", "s", "z")
    return one_node("Resize", inputs, attrs, 1, opset, consts)


IMG = f32(2, 3, 6, 7)
RESIZES = [
    ("cubic-up", {"mode": "cubic"}, [1, 1, 1.7, 2.0], None, None),
    ("cubic-down-A", {"mode": "cubic", "cubic_coeff_a": -0.5, "exclude_outside": 1},
     [1, 1, 0.6, 0.5], None, None),
    ("cubic-align", {"mode": "cubic", "coordinate_transformation_mode": "align_corners"},
     [1, 1, 1.5, 0.8], None, None),
    ("cubic-asymmetric-sizes", {"mode": "cubic",
                                "coordinate_transformation_mode": "asymmetric"},
     None, [2, 3, 9, 4], None),
    ("linear-antialias", {"mode": "linear", "antialias": 1}, [1, 1, 0.5, 0.4], None, None),
    ("cubic-antialias", {"mode": "cubic", "antialias": 1}, None, [2, 3, 3, 3], None),
    ("linear-align-scales", {"mode": "linear",
                             "coordinate_transformation_mode": "align_corners"},
     [1, 1, 0.6, 0.7], None, None),
    ("linear-half-pixel-symmetric", {"mode": "linear",
                                     "coordinate_transformation_mode": "half_pixel_symmetric"},
     [1, 1, 1.3, 0.55], None, None),
    ("crop-linear", {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize",
                     "extrapolation_value": 7.0},
     None, [2, 3, 5, 4], np.asarray([0, 0, -0.2, 0.3, 1, 1, 0.9, 1.4], np.float32)),
    ("crop-nearest-axes", {"mode": "nearest", "axes": [3, 2],
                           "coordinate_transformation_mode": "tf_crop_and_resize"},
     None, [4, 5], np.asarray([0.1, 0.2, 0.8, 0.9], np.float32)),
    ("not-larger", {"mode": "nearest", "keep_aspect_ratio_policy": "not_larger",
                    "axes": [2, 3]}, None, [10, 20], None),
    ("not-smaller", {"mode": "linear", "keep_aspect_ratio_policy": "not_smaller",
                     "axes": [2, 3]}, None, [3, 2], None),
]


@pytest.mark.parametrize("attrs,scales,sizes,roi", [c[1:] for c in RESIZES],
                         ids=[c[0] for c in RESIZES])
def test_resize_matches_the_reference(attrs, scales, sizes, roi):
    model, feeds = resize(IMG, attrs, scales, sizes, roi)
    against_reference(model, feeds, rtol=1e-4, atol=1e-5)


def test_resize_cubic_values_and_gradients_match_torch_bicubic():
    x = f32(1, 2, 5, 6)
    model, _ = resize(x, {"mode": "cubic"}, None, [1, 2, 9, 11])
    m = ember.onnx.load(model)
    xe = ember.tensor(x, requires_grad=True)
    ye = m(xe)
    xt = torch.tensor(x, requires_grad=True)
    yt = torch.nn.functional.interpolate(xt, size=(9, 11), mode="bicubic", align_corners=False)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    w = f32(1, 2, 9, 11)
    (ye * ember.tensor(w)).sum().backward()
    (yt * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-5)


# -- pools, normalization, reductions, gathers ------------------------------------------------

@pytest.mark.parametrize("attrs,shape", [
    ({"kernel_shape": [3, 2], "dilations": [2, 3], "strides": [1, 2]}, (2, 3, 9, 10)),
    ({"kernel_shape": [3, 3], "dilations": [2, 2], "pads": [1, 2, 2, 1], "ceil_mode": 1,
      "strides": [2, 2]}, (1, 2, 9, 9)),
    ({"kernel_shape": [2, 3], "dilations": [2, 2], "pads": [1, 1, 1, 1],
      "count_include_pad": 1}, (1, 2, 7, 8)),
    ({"kernel_shape": [3], "dilations": [2], "strides": [2]}, (2, 2, 11)),
    ({"kernel_shape": [2, 2, 2], "dilations": [2, 1, 2], "strides": [1, 2, 1],
      "count_include_pad": 1}, (1, 2, 6, 6, 6)),
    ({"kernel_shape": [3, 3, 3], "dilations": [2, 2, 2], "strides": [3, 3, 3], "ceil_mode": 1,
      "pads": [1, 1, 1, 1, 1, 1]}, (1, 1, 10, 10, 10)),
], ids=["2d", "2d-pads-ceil", "2d-count-pad", "1d", "3d-count-pad", "3d-ceil"])
def test_average_pool_with_dilations(attrs, shape):
    # onnxruntime is the oracle: onnx's reference disagrees with it on dilated windows with
    # both pads and ceil_mode (the reference's windows shift); without them the two agree
    ort = pytest.importorskip("onnxruntime")
    model, feeds = one_node("AveragePool", [("x", f32(*shape))], attrs, 1, 22)
    want = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    same(ours(model, feeds)[0], want[0])
    if not (attrs.get("ceil_mode") and "pads" in attrs):
        against_reference(model, feeds)


@pytest.mark.parametrize("attrs,shape", [
    ({"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "strides": [2, 2]}, (2, 3, 7, 6)),
    ({"kernel_shape": [2, 3], "strides": [2, 2], "storage_order": 1}, (2, 2, 6, 7)),
    ({"kernel_shape": [3, 2], "pads": [0, 1, 2, 0], "dilations": [2, 1]}, (1, 3, 8, 5)),
    ({"kernel_shape": [3], "strides": [2], "pads": [1, 1]}, (2, 2, 9)),
], ids=["pads", "column-major", "asymmetric-dilated", "1d"])
def test_max_pool_indices_match_onnxruntime(attrs, shape):
    ort = pytest.importorskip("onnxruntime")
    model, feeds = one_node("MaxPool", [("x", f32(*shape))], attrs, 2, 12)
    want = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    got = ours(model, feeds)
    same(got[0], want[0])
    same(got[1], want[1])


def test_batch_norm_training_mode_returns_the_running_statistics():
    x, scale, bias, mean, var = f32(4, 3, 5, 2), f32(3), f32(3), f32(3), np.abs(f32(3))
    model, feeds = one_node("BatchNormalization", [("x", x), ("s", scale), ("b", bias),
                                                   ("m", mean), ("v", var)],
                            {"training_mode": 1, "momentum": 0.7, "epsilon": 1e-3}, 3, 15)
    against_reference(model, feeds)


@pytest.mark.parametrize("op,dtype", [(op, dt) for op in ("ReduceMax", "ReduceMin", "ReduceSum",
                                                            "ReduceProd")
                                      for dt in (np.float32, np.int32)]
                         + [("ReduceLogSumExp", np.float32)])
def test_reductions_over_no_elements_give_the_identity(op, dtype):
    x = np.zeros((2, 0, 4), dtype)
    model, feeds = one_node(op, [("x", x), ("a", np.asarray([1], np.int64))],
                            {"keepdims": 1}, 1, 18, ("a",))
    against_reference(model, feeds)


def test_reduce_max_of_no_bools_is_false():
    model, feeds = one_node("ReduceMax", [("x", np.zeros((3, 0), bool)),
                                          ("a", np.asarray([1], np.int64))],
                            {"keepdims": 0}, 1, 20, ("a",))
    against_reference(model, feeds)


@pytest.mark.parametrize("data_shape,idx", [
    ((2, 3, 4), np.asarray([[[1], [2]], [[0], [-1]]], np.int64)),
    ((2, 3, 4), np.asarray([[1, 2], [0, 3]], np.int64)),
    ((2, 2, 3, 4), np.asarray([[[1, 0]], [[2, 3]], [[0, 0]], [[1, 1]]], np.int64).reshape(2, 2,
                                                                                          1, 2)),
], ids=["b1-rows", "b1-elements", "b2"])
def test_gathernd_with_batch_dims(data_shape, idx):
    ort = pytest.importorskip("onnxruntime")
    b = 2 if len(data_shape) == 4 else 1
    model, feeds = one_node("GatherND", [("x", f32(*data_shape)), ("i", idx)],
                            {"batch_dims": b}, 1, 13)
    want = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    same(ours(model, feeds)[0], want[0])


@pytest.mark.parametrize("attrs", [
    {},
    {"strides": [2, 1, 2], "pads": [1, 0, 1, 1, 0, 1], "output_padding": [1, 0, 1]},
    {"dilations": [2, 1, 1], "group": 2},
], ids=["plain", "strided", "dilated-groups"])
def test_conv_transpose_3d_values_and_gradients_match_torch(attrs):
    x, w, b = f32(2, 4, 3, 4, 3), f32(4, 3, 2, 3, 2), f32(6 if attrs.get("group") else 3)
    if attrs.get("group"):
        w = f32(4, 3, 2, 3, 2)
    model, _ = one_node("ConvTranspose", [("x", x), ("w", w), ("b", b)], attrs, 1, 18,
                        ("w", "b"))
    m = ember.onnx.load(model)
    xe = ember.tensor(x, requires_grad=True)
    ye = m(xe)
    n = 3
    pads = attrs.get("pads", [0] * 6)  # symmetric: torch pads both ends alike
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    yt = torch.nn.functional.conv_transpose3d(
        xt, wt, torch.tensor(b), stride=attrs.get("strides", [1] * n), padding=pads[:n],
        output_padding=attrs.get("output_padding", [0] * n), groups=attrs.get("group", 1),
        dilation=attrs.get("dilations", [1] * n))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-4, atol=1e-4)
    g = f32(*yt.shape)
    (ye * ember.tensor(g)).sum().backward()
    (yt * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(m.state_dict()["w"].grad.numpy(), wt.grad.numpy(), rtol=1e-4,
                               atol=1e-4)


def test_opset8_scan_runs_each_batch_element():
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "x"], ["s2"]),
         helper.make_node("Mul", ["s2", "x"], ["y"])], "body",
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("s2", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    node = helper.make_node("Scan", ["", "init", "xs"], ["last", "ys"], body=body,
                            num_scan_inputs=1)
    graph = helper.make_graph(
        [node], "scan8", [helper.make_tensor_value_info("init", TensorProto.FLOAT, [3, 2]),
                          helper.make_tensor_value_info("xs", TensorProto.FLOAT, [3, 4, 2])],
        [helper.make_tensor_value_info("last", TensorProto.FLOAT, [3, 2]),
         helper.make_tensor_value_info("ys", TensorProto.FLOAT, [3, 4, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])
    init, xs = f32(3, 2), f32(3, 4, 2)
    last, ys = ours(model, {"init": init, "xs": xs})
    want_last, want_ys = [], []
    for b in range(3):  # the scan by hand, per batch element
        s, steps = init[b], []
        for t in range(4):
            s = s + xs[b, t]
            steps.append(s * xs[b, t])
        want_last.append(s)
        want_ys.append(np.stack(steps))
    np.testing.assert_allclose(last, np.stack(want_last), rtol=1e-6)
    np.testing.assert_allclose(ys, np.stack(want_ys), rtol=1e-6)


# -- half precision, Pad, SpaceToDepth, Reshape -----------------------------------------------

def half_attention(dtype, elem):
    q, k, v = (f32(2, 3, 6, 8) for _ in range(3))
    model, feeds = one_node("Attention", [("q", q), ("k", k), ("v", v)], {"is_causal": 1},
                            1, 23)
    for t in list(model.graph.input) + list(model.graph.output):
        t.type.tensor_type.elem_type = elem
    return model, {n: a.astype(dtype) for n, a in feeds.items()}


@pytest.mark.parametrize("name,elem", [("float16", TensorProto.FLOAT16),
                                       ("bfloat16", TensorProto.BFLOAT16)])
def test_half_precision_attention_rounds_once(name, elem):
    dtype = np.float16 if name == "float16" else ml_dtypes.bfloat16
    model, feeds = half_attention(dtype, elem)
    wide = {n: a.astype(np.float32) for n, a in feeds.items()}
    f32_model, _ = half_attention(np.float32, TensorProto.FLOAT)
    want = reference(f32_model, wide)[0].astype(dtype)  # exact, rounded once
    got = ours(model, feeds)[0]
    assert got.dtype == want.dtype
    ulp = 2.0 ** -10 if name == "float16" else 2.0 ** -7
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32),
                               rtol=ulp, atol=ulp)


def test_fully_masked_attention_rows_are_zero():
    mask = np.ones((4, 5), bool)
    mask[1] = False
    model, feeds = one_node("Attention", [("q", f32(1, 2, 4, 8)), ("k", f32(1, 2, 5, 8)),
                                          ("v", f32(1, 2, 5, 8)), ("m", mask)], {}, 1, 23)
    out = ours(model, feeds)[0]
    assert np.isfinite(out).all() and (out[:, :, 1] == 0).all()
    against_reference(model, feeds, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("pads", [[1, 2, 0, 3], [0, 1, 2, 1], [5, 0, 4, 7]])
def test_pad_wrap(pads):
    model, feeds = one_node("Pad", [("x", f32(3, 4)), ("p", np.asarray(pads, np.int64))],
                            {"mode": "wrap"}, 1, 19, ("p",))
    against_reference(model, feeds)


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_space_to_depth_modes_invert_depth_to_space(mode):
    x = f32(2, 3, 4, 6)
    model, feeds = one_node("SpaceToDepth", [("x", x)], {"blocksize": 2, "mode": mode}, 1, 28)
    packed = ours(model, feeds)[0]
    np.testing.assert_array_equal(packed, reference(model, feeds)[0])
    back, back_feeds = one_node("DepthToSpace", [("x", packed)], {"blocksize": 2, "mode": mode},
                                1, 28)
    np.testing.assert_array_equal(ours(back, back_feeds)[0], x)


def test_reshape_allowzero_to_an_empty_shape():
    model, feeds = one_node("Reshape", [("x", np.zeros((0, 3, 4), np.float32)),
                                        ("s", np.asarray([3, 4, 0], np.int64))],
                            {"allowzero": 1}, 1, 19, ("s",))
    against_reference(model, feeds)


# -- Gradient (ai.onnx.preview.training) ------------------------------------------------------

def test_gradient_node_matches_torch_autograd():
    a, b, z = f32(3, 4), f32(3, 4), f32(4)
    nodes = [helper.make_node("Mul", ["a", "b"], ["p"]),
             helper.make_node("Tanh", ["p"], ["t"]),
             helper.make_node("Add", ["t", "z"], ["u"]),
             helper.make_node("Mul", ["u", "a"], ["y"]),
             helper.make_node("Gradient", ["a", "b", "z"], ["ga", "gb"], xs=["a", "b"], zs=["z"],
                              y="y", domain="ai.onnx.preview.training")]
    info = [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(v.shape))
            for n, v in (("a", a), ("b", b), ("z", z))]
    graph = helper.make_graph(nodes, "g", info,
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, [3, 4])
                               for n in ("y", "ga", "gb")])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 18), helper.make_opsetid("ai.onnx.preview.training", 1)])
    y, ga, gb = ours(model, {"a": a, "b": b, "z": z})
    at, bt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    yt = ((at * bt).tanh() + torch.tensor(z)) * at
    yt.sum().backward()
    # tanh(a * b) + z may nearly cancel: float32 tanh within 2 ulp (NumPy's and torch's differ
    # by one), at most 2 ** -23 absolute for |tanh| < 1, times a
    np.testing.assert_allclose(y, yt.detach().numpy(), rtol=1e-6, atol=np.abs(a).max() * 2 ** -23)
    np.testing.assert_allclose(ga, at.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb, bt.grad.numpy(), rtol=1e-5, atol=1e-6)
