"""A fast subset of onnx's own conformance cases (shipped with the onnx package) through
ember.onnx.backend: every 8th node case and all pytorch-operator cases
(benchmarks/onnx_conformance.py runs all of them and prints onnxruntime's counts beside)."""

import os
import sys

import pytest

import onnx_cases  # noqa: F401  (skips without onnx)
from oracle import DEVICE_LACKS

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
from onnx_conformance import check, ember_runner, load_case  # noqa: E402
from onnx.backend.test.loader import load_model_tests  # noqa: E402


def _dtypes(model, sets):
    """The dtype names (``float16``, ``bfloat16``...) a case's model and data use: its arrays',
    its initializers' and constants', and those its casts and generators produce."""
    from onnx import AttributeProto, TensorProto
    names = {a.dtype.name for inputs, outputs in sets for a in inputs + outputs
             if hasattr(a, "dtype")}
    graphs = [model.graph]
    while graphs:
        graph = graphs.pop()
        codes = [t.data_type for t in graph.initializer]
        for node in graph.node:
            for attr in node.attribute:
                if attr.type == AttributeProto.INT and attr.name in ("to", "dtype", "output_dtype"):
                    codes.append(attr.i)
                elif attr.type == AttributeProto.TENSOR:
                    codes.append(attr.t.data_type)
                elif attr.type == AttributeProto.GRAPH:
                    graphs.append(attr.g)
                elif attr.type == AttributeProto.GRAPHS:
                    graphs.extend(attr.graphs)
        names.update(TensorProto.DataType.Name(c).lower() for c in codes
                     if c in TensorProto.DataType.values())
    return names


def _pass_rate(kind, step):
    cases = [c for c in load_model_tests(kind=kind)
             if c.model_dir or getattr(c, "model", None) is not None][::step]
    failures, run = [], 0
    for case in cases:
        model, sets = load_case(case)
        if DEVICE_LACKS & _dtypes(model, sets):  # as the conftest leaves such tests out
            continue
        run += 1
        why = check(ember_runner, model, sets, case.rtol, case.atol)
        if why is not None:
            failures.append((case.name, why))
    return 1 - len(failures) / run, failures


@pytest.mark.filterwarnings("ignore")
def test_node_cases_subset():
    rate, failures = _pass_rate("node", 8)
    assert rate >= 0.95, failures


@pytest.mark.filterwarnings("ignore")
def test_pytorch_operator_cases():
    rate, failures = _pass_rate("pytorch-operator", 1)
    assert rate == 1.0, failures


def test_backend_supports_cpu():
    from ember.onnx.backend import EmberBackend
    assert EmberBackend.supports_device("CPU")
