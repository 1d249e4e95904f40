"""ember.onnx's assorted converters (ops_misc, ops_ml, ops_training, ops_random) against onnx's
ReferenceEvaluator and onnxruntime, with gradients against PyTorch where they flow."""

import numpy as np
import pytest
import torch

from onnx_node import NEWEST, R, check, complete, ember_run, f32, model_of, reference_run

import ember  # noqa: E402
from oracle import flush_subnormals  # noqa: E402


def i64(*v):
    return np.asarray(v, dtype=np.int64)


@pytest.mark.parametrize("x,attrs", [
    (np.array([2.0, 1.0, 1.0, 3.0, 4.0, 3.0], np.float32), {}),
    (np.array([2.0, 1.0, 1.0, 3.0, 4.0, 3.0], np.float32), {"sorted": 0}),
    (np.array([[1, 0, 0], [1, 0, 0], [2, 3, 4]], np.int64), {"axis": 0}),
    (np.array([[1, 0, 0], [1, 0, 0], [2, 3, 4]], np.int64), {"axis": -1}),
    (np.array([[[1, 1], [0, 1]], [[1, 1], [0, 1]]], np.int32), {"axis": 1}),
])
def test_unique(x, attrs):
    check("Unique", [("x", x)], attrs, n_out=4, oracle="ref")


def test_det():
    check("Det", [("x", f32(3, 3))], oracle="ort", rtol=1e-4, atol=1e-5)
    check("Det", [("x", f32(2, 4, 4))], oracle="ort", rtol=1e-4, atol=1e-5)


BITS = [
    (np.array([1.0, -2.5, 0.0, -0.0, np.inf, -np.inf, 1e-40, 3.4e38], np.float32), 6),
    (np.array([1065353216, -1071644672, 0, 1, 2139095040, -8388608], np.int32), 1),
    (np.array([1.0, -2.5, 5e-324, -1e300, np.inf, 0.0], np.float64), 7),
    (np.array([4607182418800017408, -4611686018427387904, 1, 9218868437227405312], np.int64),
     11),
    (np.array([4294967295, 2147483648, 2147483647, 0], np.uint32), 6),
    (np.array([-1, -128, 127, 0], np.int8), 2),
    (np.array([1, 32768, 65535], np.uint16), 5),
    (np.array([15360, -17408, 31744, 1], np.int16), 10),
    (np.array([1.0, -2.0, 6.1e-5, 65504.0], np.float16), 5),
    (np.array([True, False], np.bool_), 2),
]


@pytest.mark.parametrize("x,to", BITS)
@pytest.mark.half_precision
def test_bitcast(x, to):
    if x.dtype.kind == "f":  # a device that flushes subnormals (XLA's CPU) reads them as zeros
        x = flush_subnormals(x, ember.tensor(x)).astype(x.dtype)
    check("BitCast", [("x", x)], {"to": to}, oracle="ref")


def test_swiglu():
    check("SwiGLU", [("a", f32(3, 4)), ("b", f32(3, 4))], {"alpha": 1.7}, oracle="ref")


@pytest.mark.parametrize("interleaved", [0, 1])
@pytest.mark.parametrize("rot_dim", [0, 4])
@pytest.mark.parametrize("with_pos", [True, False])
def test_rotary_embedding(interleaved, rot_dim, with_pos):
    half = (rot_dim or 8) // 2
    x = f32(2, 3, 5, 8)                     # (B, H, S, D)
    cache = (7,) if with_pos else (2, 5)    # rows indexed by position, or (B, S) rows
    ins = [("x", x), ("c", f32(*cache, half)), ("s", f32(*cache, half))]
    if with_pos:
        ins.append(("p", R.integers(0, 7, (2, 5)).astype(np.int64)))
    attrs = {"interleaved": interleaved, "rotary_embedding_dim": rot_dim}
    check("RotaryEmbedding", ins, attrs, oracle="ref")
    ins[0] = ("x", f32(2, 5, 24))          # (B, S, H * D)
    check("RotaryEmbedding", ins, dict(attrs, num_heads=3), oracle="ref")


@pytest.mark.parametrize("mode", ["linear", "circular"])
def test_tensor_scatter(mode):
    cache, upd = f32(2, 3, 6, 4), f32(2, 3, 2, 4)
    check("TensorScatter", [("c", cache), ("u", upd), ("i", i64(1, 5 if mode == "circular"
                                                              else 4))],
          {"mode": mode}, oracle="ref")
    check("TensorScatter", [("c", f32(2, 5, 3)), ("u", f32(2, 2, 3))], {"axis": 1},
          oracle="ref")


@pytest.mark.parametrize("act", ["none", "silu"])
def test_causal_conv_with_state(act):
    x, w, b = f32(2, 3, 6), f32(3, 1, 4), f32(3)
    check("CausalConvWithState", [("x", x), ("w", w), ("b", b), ("p", f32(2, 3, 3))],
          {"activation": act}, n_out=2, oracle="ref", atol=1e-5)
    check("CausalConvWithState", [("x", x), ("w", f32(3, 1, 1))], {"activation": act}, n_out=2,
          oracle="ref", atol=1e-5)


@pytest.mark.parametrize("rule", ["linear", "gated", "delta", "gated_delta"])
@pytest.mark.parametrize("heads", [(2, 2), (4, 2)])
def test_linear_attention(rule, heads):
    hq, hkv = heads
    B, T, dk, dv = 2, 4, 3, 5
    ins = [("q", f32(B, T, hq * dk)), ("k", f32(B, T, hkv * dk) * 0.5),
           ("v", f32(B, T, hkv * dv)), ("s", f32(B, hkv, dk, dv))]
    if rule in ("gated", "gated_delta"):
        ins.append(("g", -np.abs(f32(B, T, hkv))))
    else:
        ins.append(("", None))
    if rule in ("delta", "gated_delta"):
        ins.append(("be", R.random((B, T, hkv)).astype(np.float32)))
    check("LinearAttention", ins, {"q_num_heads": hq, "kv_num_heads": hkv, "update_rule": rule},
          n_out=2, oracle="ref", rtol=1e-4, atol=1e-5)


def test_flex_attention():
    q, k, v = f32(2, 4, 3, 5), f32(2, 2, 6, 5), f32(2, 2, 6, 7)
    check("FlexAttention", [("q", q), ("k", k), ("v", v)], {"scale": 0.3},
          domain="ai.onnx.preview", oracle="ref", atol=1e-6)


def test_binarizer_and_array_feature_extractor():
    check("Binarizer", [("x", f32(3, 4))], {"threshold": 0.2}, domain="ai.onnx.ml",
          oracle="ort")
    check("ArrayFeatureExtractor", [("x", f32(3, 4)), ("i", i64(2, 0, 2))],
          domain="ai.onnx.ml", oracle="ort")


@pytest.mark.parametrize("agg", [0, 1, 2, 3])
def test_tree_ensemble(agg):
    from onnx import numpy_helper
    attrs = dict(
        nodes_featureids=[0, 2, 1], nodes_modes=numpy_helper.from_array(np.uint8([0, 1, 6])),
        nodes_splits=numpy_helper.from_array(np.float32([0.1, -0.5, np.nan])),
        nodes_truenodeids=[1, 0, 0], nodes_trueleafs=[0, 1, 1],
        nodes_falsenodeids=[2, 1, 2], nodes_falseleafs=[1, 1, 1],
        leaf_targetids=[0, 1, 0], leaf_weights=numpy_helper.from_array(
            np.float32([1.5, -2.0, 0.25])),
        tree_roots=[0, 2], n_targets=2, aggregate_function=agg,
        membership_values=numpy_helper.from_array(np.float32([1.0, 3.0, np.nan])))
    x = np.float32([[0.0, 1.0, -1.0], [0.5, 3.0, 0.0], [1.0, 2.0, -0.7]])
    check("TreeEnsemble", [("x", x)], attrs, domain="ai.onnx.ml", oracle="ref")


TRAIN = "ai.onnx.preview.training"


def test_adagrad_adam_momentum():
    r, t = np.float32(0.1), np.int64(3)
    x1, g1, x2, g2 = f32(3), f32(3), f32(2, 2), f32(2, 2)
    h1, h2 = np.abs(f32(3)), np.abs(f32(2, 2))
    check("Adagrad", [("r", r), ("t", t), ("x1", x1), ("x2", x2), ("g1", g1), ("g2", g2),
                      ("h1", h1), ("h2", h2)],
          {"decay_factor": 0.1, "epsilon": 1e-6, "norm_coefficient": 0.01}, n_out=4,
          domain=TRAIN, oracle="ref")
    check("Adam", [("r", r), ("t", t), ("x1", x1), ("x2", x2), ("g1", g1), ("g2", g2),
                   ("v1", f32(3)), ("v2", f32(2, 2)), ("h1", h1), ("h2", h2)],
          {"alpha": 0.8, "beta": 0.9, "epsilon": 1e-6, "norm_coefficient": 0.01,
           "norm_coefficient_post": 0.02}, n_out=6, domain=TRAIN, oracle="ref")
    for mode in ("standard", "nesterov"):
        check("Momentum", [("r", r), ("t", t), ("x1", x1), ("g1", g1), ("v1", f32(3))],
              {"alpha": 0.9, "beta": 0.5, "mode": mode, "norm_coefficient": 0.01}, n_out=2,
              domain=TRAIN, oracle="ref")


def test_random_ops_shapes_dtypes_ranges_and_seeds():
    model, _ = model_of("RandomUniform", [], {"shape": [200, 5], "low": -2.0, "high": 3.0,
                                              "dtype": 11, "seed": 3.0})
    a, b = ember_run(model, {})[0], ember_run(model, {})[0]
    assert a.shape == (200, 5) and a.dtype == np.float64
    assert a.min() >= -2.0 and a.max() < 3.0 and abs(a.mean() - 0.5) < 0.2
    np.testing.assert_array_equal(a, b)               # the seed repeats the draw
    model, feeds = model_of("RandomNormalLike", [("x", f32(300, 10))],
                            {"mean": 4.0, "scale": 0.5})
    y = ember_run(model, feeds)[0]
    assert y.shape == (300, 10) and y.dtype == np.float32
    assert abs(y.mean() - 4.0) < 0.05 and abs(y.std() - 0.5) < 0.05
    p = np.float32([[0.0, 1.0, 0.3]] * 400)
    model, feeds = model_of("Bernoulli", [("p", p)], {"seed": 1.0})
    y = ember_run(model, feeds)[0]
    assert y.dtype == np.float32
    assert (y[:, 0] == 0).all() and (y[:, 1] == 1).all() and abs(y[:, 2].mean() - 0.3) < 0.08
    logits = np.log(np.float32([[0.7, 0.2, 0.1], [0.0, 0.0, 1.0]]) + 1e-12)
    model, feeds = model_of("Multinomial", [("l", logits)], {"sample_size": 500, "dtype": 7})
    y = ember_run(model, feeds)[0]
    assert y.shape == (2, 500) and y.dtype == np.int64
    assert abs((y[0] == 0).mean() - 0.7) < 0.08 and (y[1] == 2).all()


def test_gradients_of_swiglu_and_rotary_embedding_match_torch():
    a, b = f32(3, 4), f32(3, 4)
    model, feeds = model_of("SwiGLU", [("a", a), ("b", b)], opset=NEWEST)
    complete(model, reference_run(model, feeds))
    m = ember.onnx.load(model)
    ae, be = ember.tensor(a, requires_grad=True), ember.tensor(b, requires_grad=True)
    at, bt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    m(ae, be).sum().backward()
    (torch.nn.functional.silu(at) * bt).sum().backward()
    np.testing.assert_allclose(ae.grad.numpy(), at.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(be.grad.numpy(), bt.grad.numpy(), rtol=1e-5, atol=1e-6)
    x, cos, sin = f32(1, 2, 3, 4), f32(1, 3, 2), f32(1, 3, 2)   # (B, H, S, D), (B, S, D / 2)
    model, _ = model_of("RotaryEmbedding", [("x", x), ("c", cos), ("s", sin)])
    m = ember.onnx.load(model)
    xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    w = f32(1, 2, 3, 4)
    (m(xe, ember.tensor(cos), ember.tensor(sin)) * ember.tensor(w)).sum().backward()
    c, s = torch.tensor(cos).unsqueeze(1), torch.tensor(sin).unsqueeze(1)
    x1, x2 = xt[..., :2], xt[..., 2:]
    ref = torch.cat([c * x1 - s * x2, s * x1 + c * x2], -1)
    (ref * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_bad_inputs_of_the_new_converters_raise_typed_errors():
    from ember.onnx.registry import CONVERTERS, Context
    from ember.onnx.strings import Strings
    c = Context(23)
    with pytest.raises(ember.errors.InvalidParameterError, match="BitCast"):
        CONVERTERS["BitCast"]([ember.tensor([1.0], dtype="float32")], {"to": 7}, c)
    with pytest.raises(ember.errors.InvalidParameterError, match="quantize"):
        CONVERTERS["QuantizeLinear"]([ember.tensor([1.0]), ember.tensor(1.0)],
                                     {"output_dtype": 1}, c)
    with pytest.raises(ember.errors.InvalidParameterError, match="pattern"):
        CONVERTERS["RegexFullMatch"]([Strings.of(["a"])], {"pattern": "("}, c)
    with pytest.raises(ember.errors.InvalidParameterError, match="cubic"):
        CONVERTERS["GridSample"]([ember.zeros(1, 1, 2, 2, 2), ember.zeros(1, 1, 1, 1, 3)],
                                 {"mode": "cubic"}, c)
    with pytest.raises(ember.errors.InvalidParameterError, match="ImageDecoder"):
        CONVERTERS["ImageDecoder"]([ember.tensor([1, 2, 3], dtype="uint8")], {}, c)
    with pytest.raises(ember.errors.InvalidParameterError, match="DeformConv"):
        CONVERTERS["DeformConv"]([ember.zeros(1, 1, 4), ember.zeros(1, 1, 2),
                                  ember.zeros(1, 2, 3)], {}, c)


def test_gradient_operator_matches_torch_autograd():
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Tanh", ["b"], ["t"]),
             helper.make_node("Mul", ["a", "t"], ["m"]),
             helper.make_node("Add", ["m", "w"], ["y"]),
             helper.make_node("Gradient", ["a", "b"], ["da", "db"], domain=TRAIN,
                              xs=["a", "b"], y="y")]
    vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in "abw"]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3])
            for n in ("y", "da", "db")]
    model = helper.make_model(helper.make_graph(nodes, "g", vi, outs), opset_imports=[
        helper.make_opsetid("", 18), helper.make_opsetid(TRAIN, 1)])
    a, b, w = f32(2, 3), f32(2, 3), f32(2, 3)
    y, da, db = ember_run(model, {"a": a, "b": b, "w": w})
    at, bt = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    ref = at * torch.tanh(bt) + torch.tensor(w)
    ref.sum().backward()
    np.testing.assert_allclose(y, ref.detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(da, at.grad.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(db, bt.grad.numpy(), rtol=1e-6, atol=1e-6)
