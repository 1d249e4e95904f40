"""The backend seam: no NumPy above it, no import-time backend global, no bytecode reading."""

import ast
import os
import re

import pytest

import ember

PACKAGE = os.path.dirname(os.path.abspath(ember.__file__))
NUMPY_BACKEND = os.path.join(PACKAGE, "backends", "numpy") + os.sep


def _modules():
    for root, _, files in os.walk(PACKAGE):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(root, name)
                with open(path) as fh:
                    yield path, ast.parse(fh.read(), path)


def _imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}" if base else alias.name


def _names(tree):
    """Every Name id and attribute name used in code (docstrings are strings, not names)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute):
            yield node.lineno, "." + node.attr


# Modules above the seam where NumPy is a data format of PyTorch's API, not a way to compute:
# PyTorch's collate takes NumPy arrays and scalars as sample types (and its collate_fn_map is
# keyed by them); its DataLoader workers seed NumPy's global generator; PyTorch's checkpoint
# storages are raw host bytes read as arrays (byte order, strides) before a device adopts them.
# ONNX's own API hands out and takes its tensors (initializers, constants, attributes) as NumPy
# arrays (onnx.numpy_helper), so ember.onnx reads and writes them with NumPy before ember ops
# compute; issue 29's note lists the converters that still fold constant shapes with NumPy.
# ONNX's narrow element types (float8, int4 ...) come and go as ml_dtypes arrays: narrow.py
# widens them to dtypes ember has and hands outputs back in the graph's declared type.
NUMPY_AS_DATA = {os.path.join("onnx", name) for name in
                 ("export.py", "ops_attention.py", "ops_more.py", "ops_nn.py", "ops_shape.py",
                  "narrow.py",
                  "strings.py")}  # ONNX's string tensors are NumPy object arrays
NUMPY_AS_DATA |= {os.path.join("torch", "utils", "data", "collate.py"),
                 os.path.join("torch", "utils", "data", "worker.py"),
                 os.path.join("torch", "serialization.py")}


def test_no_numpy_outside_the_numpy_backend():
    found = []
    for path, tree in _modules():
        if path.startswith(NUMPY_BACKEND) or os.path.relpath(path, PACKAGE) in NUMPY_AS_DATA:
            continue
        rel = os.path.relpath(path, PACKAGE)
        for line, name in _imports(tree):
            root = name.split(".")[0]  # a relative import ("..numpy") is ember's own backend
            if root in ("numpy", "ml_dtypes"):
                found.append(f"{rel}:{line} imports {name}")
        for line, name in _names(tree):
            if name in ("np", "ml_dtypes", ".np"):
                found.append(f"{rel}:{line} uses {name}")
    assert not found, "NumPy above the seam:\n" + "\n".join(found)


def test_no_op_uses_an_import_time_backend():
    found = []
    for path, tree in _modules():
        rel = os.path.relpath(path, PACKAGE)
        for line, name in _imports(tree):
            if name.endswith("backends.default") or name.endswith("backends.numpy") and \
                    not path.startswith(os.path.join(PACKAGE, "backends")):
                found.append(f"{rel}:{line} imports {name}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", ["_getframe", "dis", "f_back", "currentframe", "inspect"])
def test_no_bytecode_or_frame_reading(name):
    # ember reads neither its callers' bytecode nor their frames: ops name themselves
    found = []
    for path, tree in _modules():
        rel = os.path.relpath(path, PACKAGE)
        for line, imported in _imports(tree):
            if name in imported.split("."):
                found.append(f"{rel}:{line} imports {imported}")
        for line, used in _names(tree):
            if used in (name, "." + name):
                found.append(f"{rel}:{line} uses {used}")
    assert not found, "\n".join(found)


FUSION_WORDS = {"fusion", "fuse", "fused", "fuses", "pending", "chain", "lazy", "defer",
                "deferred"}


def test_no_op_knows_of_fusion():
    # fusion is the wrapper backend ember.backends.lazy: no op, and not the Tensor, names it
    found = []
    for path, tree in _modules():
        rel = os.path.relpath(path, PACKAGE)
        if not (rel.startswith("ops" + os.sep) or rel == "_tensor.py"):
            continue
        for line, name in list(_imports(tree)) + list(_names(tree)):
            if FUSION_WORDS & set(re.split(r"[._]", name.lower())):
                found.append(f"{rel}:{line} {name}")
    assert not found, "\n".join(found)
    assert not os.path.exists(os.path.join(PACKAGE, "ops", "fusion.py"))
