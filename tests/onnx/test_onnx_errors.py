"""Typed errors of ember.onnx: every unsupported operator at once, malformed files, unknown
domains, too-new opsets, bad inputs, and a missing onnx package."""

import subprocess
import sys

import numpy as np
import pytest

from onnx_cases import one_node

import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

import ember  # noqa: E402
import ember.onnx  # noqa: E402
from ember.onnx import (OnnxFormatError, OnnxNotInstalledError,  # noqa: E402
                        UnsupportedOperatorError, UnsupportedOpsetError)


def _graph(nodes, domains=()):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    graph = helper.make_graph(nodes, "g", [x], [y])
    imports = [helper.make_opsetid("", 18)] + [helper.make_opsetid(d, 1) for d in domains]
    return helper.make_model(graph, opset_imports=imports)


def test_every_unsupported_operator_is_listed_at_once():
    # (ember runs every operator of the default domain: ai.onnx.ml's Scaler and Normalizer
    # stand for the unsupported ones)
    ml = "ai.onnx.ml"
    model = _graph([helper.make_node("Scaler", ["x"], ["a"], domain=ml),
                    helper.make_node("Relu", ["x"], ["b"]),
                    helper.make_node("Scaler", ["x"], ["c"], domain=ml),
                    helper.make_node("Normalizer", ["x"], ["d"], domain=ml),
                    helper.make_node("MyOp", ["x"], ["y"], domain="com.example")],
                   domains=["com.example", ml])
    with pytest.raises(UnsupportedOperatorError) as info:
        ember.onnx.load(model)
    assert info.value.operators == [(ml, "Scaler", 18, 2), (ml, "Normalizer", 18, 1),
                                    ("com.example", "MyOp", 18, 1)]
    text = str(info.value)
    assert "3 unsupported operators" in text and "ai.onnx.ml.Scaler (opset 18, 2 nodes)" in text
    assert "com.example.MyOp" in text
    assert isinstance(info.value, NotImplementedError) and isinstance(info.value,
                                                                      ember.EmberError)


@pytest.mark.parametrize("bad", [b"not a model at all \x00\xff", 42])
def test_malformed_models_raise_format_errors(bad):
    with pytest.raises(OnnxFormatError) as info:
        ember.onnx.load(bad)
    assert isinstance(info.value, ValueError)


def test_missing_and_corrupt_files(tmp_path):
    with pytest.raises(OnnxFormatError, match="no file"):
        ember.onnx.load(tmp_path / "missing.onnx")
    path = tmp_path / "corrupt.onnx"
    path.write_bytes(b"\x12\x34garbage")
    with pytest.raises(OnnxFormatError):
        ember.onnx.load(str(path))


def test_a_graph_failing_the_checker_is_a_format_error():
    model = _graph([helper.make_node("Relu", ["nowhere"], ["y"])])  # reads an undefined value
    with pytest.raises(OnnxFormatError, match="onnx.checker"):
        ember.onnx.load(model)


def test_too_new_opset():
    model = _graph([helper.make_node("Relu", ["x"], ["y"])])
    model.opset_import[0].version = onnx.defs.onnx_opset_version() + 5
    with pytest.raises(UnsupportedOpsetError, match="newer"):
        ember.onnx.load(model.SerializeToString())


def test_old_opset_is_converted_up():
    model = _graph([helper.make_node("Relu", ["x"], ["y"])])
    model.opset_import[0].version = 8
    model.ir_version = 7
    m = ember.onnx.load(model)
    assert m.opset >= 11
    assert m(ember.tensor([[-1.0, 2.0, -3.0]] * 2)).tolist() == [[0.0, 2.0, 0.0]] * 2


def test_bad_forward_inputs():
    model, _ = one_node("Add", [("a", np.ones(2, np.float32)), ("b", np.ones(2, np.float32))])
    m = ember.onnx.load(model)
    with pytest.raises(ember.InvalidParameterError, match="missing graph inputs"):
        m(ember.ones(2))
    with pytest.raises(ember.InvalidParameterError, match="no graph input named"):
        m(a=ember.ones(2), c=ember.ones(2))
    with pytest.raises(ember.InvalidParameterError, match="takes 2 inputs"):
        m(ember.ones(2), ember.ones(2), ember.ones(2))
    assert m(b=[1.0, 2.0], a=ember.ones(2)).tolist() == [2.0, 3.0]
    with pytest.raises(ember.InvalidParameterError):
        ember.onnx.run(model, 3)


def test_without_onnx_installed_ember_torch_imports_and_export_says_pip_install():
    code = (
        "import sys; sys.modules['onnx'] = None\n"
        "import ember, ember.torch as torch\n"
        "assert 'ember.onnx' not in sys.modules\n"
        "try:\n"
        "    torch.onnx.export(torch.nn.Linear(2, 1), (torch.ones(1, 2),), 'x.onnx')\n"
        "except ember.EmberError as e:\n"
        "    assert isinstance(e, ImportError), type(e)\n"
        "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "pip install onnx" in out.stdout


def test_not_installed_error_type():
    err = OnnxNotInstalledError("load")
    assert isinstance(err, ImportError) and "pip install onnx" in str(err)


def test_an_output_ember_does_not_compute_is_a_typed_error():
    model, feeds = one_node("MaxPool", [("x", np.ones((1, 1, 4, 4, 4), np.float32))],
                            {"kernel_shape": [2, 2, 2]}, n_out=2)
    with pytest.raises(ember.InvalidParameterError, match="Indices output of 1-D and 2-D"):
        ember.onnx.run(model, feeds)
