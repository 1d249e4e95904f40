"""If, Loop, Scan and sequence operators against onnxruntime, and gradients through a loop."""

import numpy as np
import pytest
import torch

import onnx_cases  # noqa: F401  (skips without onnx)
from onnx import TensorProto, helper

ort = pytest.importorskip("onnxruntime")

import ember  # noqa: E402
import ember.onnx  # noqa: E402

F = TensorProto.FLOAT


def _vi(name, elem=F, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def _model(nodes, inputs, outputs, opset=18):
    m = helper.make_model(helper.make_graph(nodes, "g", inputs, outputs),
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def _compare(model, feeds):
    expected = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    got = ember.onnx.run(model, feeds)
    for name, e in zip([o.name for o in model.graph.output], expected):
        np.testing.assert_allclose(got[name].numpy(), e, rtol=1e-5, atol=1e-6)


def _if_model():
    then = helper.make_graph([helper.make_node("Mul", ["x", "x"], ["t"])], "then", [],
                             [_vi("t", F, [3])])
    other = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [],
                              [_vi("e", F, [3])])
    return _model([helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
                   helper.make_node("Constant", [], ["zero"], value_float=0.0),
                   helper.make_node("Greater", ["s", "zero"], ["c"]),
                   helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)],
                  [_vi("x", F, [3])], [_vi("y", F, [3])])


@pytest.mark.parametrize("x", [[1.0, 2.0, -0.5], [-1.0, -2.0, 0.5]])
def test_if_takes_the_branch_and_reads_the_outer_scope(x):
    _compare(_if_model(), {"x": np.asarray(x, np.float32)})


def _loop_model():
    # carried a <- a * w + 1 for M steps; scan output: each a
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Mul", ["a_in", "w"], ["aw"]),
         helper.make_node("Constant", [], ["one"], value_float=1.0),
         helper.make_node("Add", ["aw", "one"], ["a_out"]),
         helper.make_node("Identity", ["a_out"], ["scan"])],
        "body", [_vi("i", TensorProto.INT64, []), _vi("cond_in", TensorProto.BOOL, []),
                 _vi("a_in", F, [2])],
        [_vi("cond_out", TensorProto.BOOL, []), _vi("a_out", F, [2]), _vi("scan", F, [2])])
    return _model([helper.make_node("Loop", ["M", "", "a0"], ["a", "all"], body=body)],
                  [_vi("M", TensorProto.INT64, []), _vi("a0", F, [2]), _vi("w", F, [2])],
                  [_vi("a", F, [2]), _vi("all", F, [None, 2])])


def test_loop_matches_onnxruntime_and_differentiates():
    model = _loop_model()
    a0, w = np.asarray([0.5, -1.0], np.float32), np.asarray([0.9, 1.1], np.float32)
    _compare(model, {"M": np.asarray(4, np.int64), "a0": a0, "w": w})
    m = ember.onnx.load(model)
    ea, ew = ember.tensor(a0, requires_grad=True), ember.tensor(w, requires_grad=True)
    ta, tw = torch.tensor(a0, requires_grad=True), torch.tensor(w, requires_grad=True)
    final, steps = m(M=ember.tensor(4), a0=ea, w=ew)
    (final.sum() + steps.sum()).backward()
    a, acc = ta, 0
    for _ in range(4):
        a = a * tw + 1
        acc = acc + a.sum()
    (a.sum() + acc).backward()
    np.testing.assert_allclose(ea.grad.numpy(), ta.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(ew.grad.numpy(), tw.grad.numpy(), rtol=1e-5)


def test_scan_cumulative_sum_both_directions():
    body = helper.make_graph([helper.make_node("Add", ["s_in", "x_t"], ["s_out"]),
                              helper.make_node("Identity", ["s_out"], ["y_t"])], "body",
                             [_vi("s_in", F, [2]), _vi("x_t", F, [2])],
                             [_vi("s_out", F, [2]), _vi("y_t", F, [2])])
    for directions in ([0], [1]):
        model = _model([helper.make_node("Scan", ["s0", "xs"], ["s", "ys"], body=body,
                                         num_scan_inputs=1, scan_input_directions=directions,
                                         scan_output_axes=[1])],
                       [_vi("s0", F, [2]), _vi("xs", F, [4, 2])],
                       [_vi("s", F, [2]), _vi("ys", F, [2, 4])])
        _compare(model, {"s0": np.zeros(2, np.float32),
                         "xs": np.arange(8, dtype=np.float32).reshape(4, 2)})


def test_sequences():
    nodes = [helper.make_node("SplitToSequence", ["x"], ["seq"], axis=1),
             helper.make_node("SequenceErase", ["seq", "first"], ["rest"]),
             helper.make_node("SequenceInsert", ["rest", "x0"], ["more"]),
             helper.make_node("SequenceLength", ["more"], ["n"]),
             helper.make_node("SequenceAt", ["more", "last"], ["tail"]),
             helper.make_node("ConcatFromSequence", ["more"], ["y"], axis=0, new_axis=1)]
    inits = [helper.make_tensor("first", TensorProto.INT64, [], [0]),
             helper.make_tensor("last", TensorProto.INT64, [], [-1])]
    graph = helper.make_graph(nodes, "g", [_vi("x", F, [2, 3]), _vi("x0", F, [2, 1])],
                              [_vi("y", F, [2, 3]), _vi("n", TensorProto.INT64, []),
                               _vi("tail", F, [2, 1])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    _compare(model, {"x": np.arange(6, dtype=np.float32).reshape(2, 3),
                     "x0": np.asarray([[9.0], [8.0]], np.float32)})


def test_unsupported_operators_inside_subgraphs_are_listed():
    then = helper.make_graph([helper.make_node("Scaler", ["x"], ["t"], domain="ai.onnx.ml")],
                             "then", [], [_vi("t", F, [3])])
    model = _model([helper.make_node("Constant", [], ["c"], value=helper.make_tensor(
        "v", TensorProto.BOOL, [], [True])),
        helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=then)],
        [_vi("x", F, [3])], [_vi("y", F, [3])])
    model.opset_import.append(helper.make_opsetid("ai.onnx.ml", 1))
    with pytest.raises(ember.onnx.UnsupportedOperatorError,
                       match="ai.onnx.ml.Scaler .opset 18, 2 nodes"):
        ember.onnx.load(model)
