"""A fast subset of onnx's own conformance cases (shipped with the onnx package) through
ember.onnx.backend: every 8th node case and all pytorch-operator cases
(benchmarks/onnx_conformance.py runs all of them and prints onnxruntime's counts beside)."""

import os
import sys

import pytest

import onnx_cases  # noqa: F401  (skips without onnx)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
from onnx_conformance import check, ember_runner, load_case  # noqa: E402
from onnx.backend.test.loader import load_model_tests  # noqa: E402


def _pass_rate(kind, step):
    cases = [c for c in load_model_tests(kind=kind)
             if c.model_dir or getattr(c, "model", None) is not None][::step]
    failures = []
    for case in cases:
        model, sets = load_case(case)
        why = check(ember_runner, model, sets, case.rtol, case.atol)
        if why is not None:
            failures.append((case.name, why))
    return 1 - len(failures) / len(cases), failures


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
