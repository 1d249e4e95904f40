"""Helpers of the ONNX tests: one-node models built with onnx.helper, and running them."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import ember  # noqa: E402
import ember.onnx  # noqa: E402,F401

NP_TO_ONNX = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
              np.dtype(np.int64): TensorProto.INT64, np.dtype(np.int32): TensorProto.INT32,
              np.dtype(np.bool_): TensorProto.BOOL, np.dtype(np.uint8): TensorProto.UINT8}


def one_node(op, inputs, attrs=None, n_out=1, opset=18, consts=()):
    """A model of one ``op`` node: ``inputs`` a list of (name, array); names in ``consts``
    become initializers; returns (ModelProto, feeds)."""
    graph_inputs, inits, feeds = [], [], {}
    for name, arr in inputs:
        if name == "":
            continue
        if name in consts:
            inits.append(numpy_helper.from_array(np.asarray(arr), name))
        else:
            graph_inputs.append(helper.make_tensor_value_info(name, NP_TO_ONNX[arr.dtype],
                                                              list(arr.shape)))
            feeds[name] = arr
    outs = [f"y{i}" for i in range(n_out)]
    node = helper.make_node(op, [n for n, _ in inputs], outs, **(attrs or {}))
    graph = helper.make_graph([node], op, graph_inputs,
                              [onnx.ValueInfoProto(name=o) for o in outs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return onnx.shape_inference.infer_shapes(model, strict_mode=True), feeds


def ember_outputs(model, feeds):
    out = ember.onnx.run(model, feeds)
    return [out[k].numpy() for k in sorted(out)]
