"""docs/onnx.md: its examples run, and its operator list is the converter table's."""

import doctest
import os
import re

import onnx_cases  # noqa: F401  (skips without onnx)

import ember.onnx

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "onnx.md")


def test_examples_run():
    result = doctest.testfile(DOC, module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 15 and result.failed == 0


def test_operator_list_is_current():
    text = open(DOC).read()
    listed = re.search(r"<!-- ops -->\n(.*?)\n<!-- /ops -->", text, re.S).group(1)
    assert [s.strip() for s in listed.replace("\n", " ").split(",")] == list(
        ember.onnx.SUPPORTED_OPS)
