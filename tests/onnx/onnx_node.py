"""Helpers of the tests of ember.onnx's newer converters: one-node models of any domain and
dtype (strings included), run on ember and on an oracle (onnx's ReferenceEvaluator or
onnxruntime), and the comparison of their outputs."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

import ember  # noqa: E402
import ember.onnx  # noqa: E402,F401

R = np.random.default_rng(0)

NEWEST = onnx.defs.onnx_opset_version()
DOMAIN_OPSETS = {"": 23, "ai.onnx.ml": 5, "ai.onnx.preview.training": 1, "ai.onnx.preview": 1}


def f32(*shape):
    return R.standard_normal(shape).astype(np.float32)


def elem_type(arr):
    if arr.dtype == object or arr.dtype.kind == "U":
        return onnx.TensorProto.STRING
    return helper.np_dtype_to_tensor_dtype(arr.dtype)


def model_of(op, inputs, attrs=None, n_out=1, opset=None, domain="", consts=()):
    """(ModelProto, feeds) of one ``op`` node: ``inputs`` (name, array) pairs ("" skips an
    optional input); names in ``consts`` become initializers."""
    graph_inputs, inits, feeds = [], [], {}
    for name, arr in inputs:
        if name == "":
            continue
        arr = np.asarray(arr)
        if name in consts:
            inits.append(numpy_helper.from_array(arr, name))
        else:
            graph_inputs.append(helper.make_tensor_value_info(name, elem_type(arr),
                                                              list(arr.shape)))
            feeds[name] = arr
    outs = [f"y{i}" for i in range(n_out)]
    node = helper.make_node(op, [n for n, _ in inputs], outs, domain=domain, **(attrs or {}))
    graph = helper.make_graph([node], op, graph_inputs,
                              [onnx.ValueInfoProto(name=o) for o in outs], inits)
    opsets = [helper.make_opsetid("", opset or DOMAIN_OPSETS[""])]
    if domain:
        opsets.append(helper.make_opsetid(domain, DOMAIN_OPSETS[domain]))
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 10
    return onnx.shape_inference.infer_shapes(model), feeds


def ember_run(model, feeds):
    """The model's outputs on ember, as NumPy arrays in output order."""
    out = ember.onnx.run(model, feeds)
    names = [o.name for o in model.graph.output]
    return [out[k].numpy() for k in names]


def reference_run(model, feeds):
    return ReferenceEvaluator(model).run(None, feeds)


def ort_run(model, feeds):
    ort = pytest.importorskip("onnxruntime")
    return ort.InferenceSession(model.SerializeToString()).run(None, feeds)


def assert_same(actual, expected, rtol=1e-5, atol=1e-6):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        e = np.asarray(e)
        assert a.shape == e.shape
        if e.dtype.kind in "UO":  # strings: the reference gives str arrays, onnx objects
            assert a.dtype == object and a.tolist() == e.astype(object).tolist()
            continue
        assert a.dtype == e.dtype
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(a, e)


def complete(model, outputs):
    """Give the model's outputs that shape inference left untyped the types of ``outputs``
    (onnx.checker, which ember.onnx.load runs, wants them)."""
    for o, e in zip(model.graph.output, outputs):
        if not o.type.tensor_type.HasField("shape"):
            o.CopyFrom(helper.make_tensor_value_info(o.name, elem_type(np.asarray(e)),
                                                     list(np.shape(e))))
    return model


def check(op, inputs, attrs=None, n_out=1, opset=None, domain="", consts=(), oracle="ref",
          rtol=1e-5, atol=1e-6):
    """Run one node on ember and on the oracle ("ref": onnx's ReferenceEvaluator, "ort":
    onnxruntime) and compare every output (shape, dtype, values)."""
    if opset is None and oracle == "ref":  # the newest operators need the newest opset
        opset = NEWEST
    model, feeds = model_of(op, inputs, attrs, n_out, opset, domain, consts)
    expected = (reference_run if oracle == "ref" else ort_run)(model, feeds)
    complete(model, expected)
    assert_same(ember_run(model, feeds), expected, rtol, atol)
