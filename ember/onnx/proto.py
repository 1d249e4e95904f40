"""Reading ONNX models with the ``onnx`` package: import it on demand, parse a path, bytes or
ModelProto, validate it (``onnx.checker``), bring an old opset up with ``onnx.version_converter``
and infer shapes (``onnx.shape_inference``); the dtype tables between ONNX and ember.

>>> from ember.onnx.proto import ember_dtype
>>> ember_dtype(1).name, ember_dtype(7).name
('float32', 'int64')
"""

import os

from .. import dtypes as _dt
from .errors import OnnxFormatError, OnnxNotInstalledError, UnsupportedOpsetError
from .narrow import NARROW, widen

# ONNX's TensorProto.DataType numbers (stable across onnx releases) -> ember dtypes
_DTYPES = {1: _dt.float32, 2: _dt.uint8, 3: _dt.int8, 4: _dt.uint16, 5: _dt.int16, 6: _dt.int32,
           7: _dt.int64, 9: _dt.bool_, 10: _dt.float16, 11: _dt.float64, 12: _dt.uint32,
           13: _dt.uint64, 16: _dt.bfloat16}
_ONNX_TYPES = {dt.name: code for code, dt in _DTYPES.items()}

MIN_OPSET = 11  # older models are converted up to CONVERT_TO first
CONVERT_TO = 13


def require_onnx(op):
    """The ``onnx`` module, or OnnxNotInstalledError naming ``op`` and ``pip install onnx``."""
    try:
        import onnx
    except ImportError:
        raise OnnxNotInstalledError(op) from None
    return onnx


def ember_dtype(code, op="load"):
    """The ember dtype of ONNX element type ``code``: for a narrow type ember lacks (float8,
    float4, int4, int2), the wider dtype that carries its values (narrow.py); OnnxFormatError
    if none."""
    dt = _DTYPES.get(code)
    if dt is None and code in NARROW:
        dt = NARROW[code][1]
    if dt is None:
        raise OnnxFormatError(f"{op}: ONNX element type {code} has no ember dtype "
                              f"(supported: {sorted(set(_DTYPES) | set(NARROW))})",
                              "elem_type", code)
    return dt


def elem_types(graph, outer=None):
    """name -> ONNX element type of every tensor value ``graph`` declares (inputs, outputs,
    value_info, initializers), on top of ``outer`` (the enclosing graph's)."""
    types = dict(outer or {})
    for v in list(graph.input) + list(graph.output) + list(graph.value_info):
        if v.type.HasField("tensor_type") and v.type.tensor_type.elem_type:
            types[v.name] = v.type.tensor_type.elem_type
    for t in graph.initializer:
        types[t.name] = t.data_type
    return types


def to_array(tensor):
    """An ONNX TensorProto as a NumPy array ember reads (narrow types widened, narrow.py)."""
    onnx = require_onnx("load")
    return widen(onnx.numpy_helper.to_array(tensor))


def onnx_type(dtype):
    """The ONNX element type number of an ember dtype."""
    code = _ONNX_TYPES.get(dtype.name)
    if code is None:
        raise OnnxFormatError(f"export: dtype {dtype.name} has no ONNX element type", "dtype",
                              dtype.name)
    return code


def read_model(model, op="load"):
    """A checked ModelProto from a path (str or PathLike), bytes or a ModelProto;
    UnsupportedOpsetError for an opset newer than the installed onnx knows."""
    onnx = require_onnx(op)
    if isinstance(model, onnx.ModelProto):
        proto = model
    elif isinstance(model, (bytes, bytearray, memoryview)):
        proto = onnx.ModelProto()
        try:
            proto.ParseFromString(bytes(model))
        except Exception as exc:  # protobuf's DecodeError
            raise OnnxFormatError(f"{op}: the bytes are not an ONNX model ({exc})", "model",
                                  "<bytes>") from None
    elif isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not os.path.isfile(path):
            raise OnnxFormatError(f"{op}: no file {path!r}", "model", path)
        try:
            proto = onnx.load(path)
        except Exception as exc:
            raise OnnxFormatError(f"{op}: {path!r} is not an ONNX model ({exc})", "model",
                                  path) from None
    else:
        raise OnnxFormatError(f"{op}: model must be a path, bytes or an onnx.ModelProto, got "
                              f"{type(model).__name__}", "model", model)
    if not proto.HasField("graph"):
        raise OnnxFormatError(f"{op}: the model has no graph", "model", "<no graph>")
    opset, newest = opset_of(proto), onnx.defs.onnx_opset_version()
    if opset is not None and opset > newest:
        raise UnsupportedOpsetError(f"{op}: the model's opset {opset} is newer than the newest the "
                                    f"installed onnx knows ({newest}); upgrade onnx", "opset",
                                    opset)
    try:
        onnx.checker.check_model(proto)
    except Exception as exc:  # onnx.checker.ValidationError and friends
        raise OnnxFormatError(f"{op}: the model fails onnx.checker: {exc}", "model",
                              proto.graph.name) from None
    return proto


def opset_of(proto, domain=""):
    """The model's opset of ``domain`` (the default domain: "" or "ai.onnx"), or None."""
    for imp in proto.opset_import:
        if imp.domain == domain or (domain == "" and imp.domain == "ai.onnx"):
            return imp.version
    return None


# Scan before opset 9 had a leading batch dim on its states and scan inputs (and scanned
# axis 1); onnx's version converter keeps the body but drops that meaning, so converted Scans
# carry this attribute and the Scan converter runs them once per batch element.
BATCHED_SCAN = "ember_batched_scan"


def _scans(graph):
    for node in graph.node:
        if node.op_type == "Scan" and node.domain in ("", "ai.onnx"):
            yield node
        for attr in node.attribute:
            for sub in list(attr.graphs) + ([attr.g] if attr.HasField("g") else []):
                yield from _scans(sub)


def prepare(proto, op="load"):
    """``proto`` with its default-domain opset in ember's range (converted up when older than
    MIN_OPSET) and shapes inferred."""
    onnx = require_onnx(op)
    opset = opset_of(proto)
    if opset is not None and opset < MIN_OPSET:
        if opset < 9:
            for node in _scans(proto.graph):
                if node.input and node.input[0]:
                    raise UnsupportedOpsetError(f"{op}: a Scan of opset {opset} with "
                                                "sequence_lens (ember runs Scan-8 with all "
                                                "sequences full length)", "opset", opset)
        try:
            proto = onnx.version_converter.convert_version(proto, CONVERT_TO)
        except Exception as exc:
            raise UnsupportedOpsetError(f"{op}: cannot convert the model's opset {opset} to "
                                        f"{CONVERT_TO} ({exc})", "opset", opset) from None
        if opset < 9:
            for node in _scans(proto.graph):
                node.attribute.append(onnx.helper.make_attribute(BATCHED_SCAN, 1))
    try:
        proto = onnx.shape_inference.infer_shapes(proto)
    except Exception:  # shapes are an optimisation only: every op works from run-time shapes
        pass
    return proto


def attributes(node):
    """The node's attributes as a dict of Python values (tensors as NumPy arrays, graphs kept
    as GraphProto)."""
    onnx = require_onnx("load")
    out = {}
    for a in node.attribute:
        value = onnx.helper.get_attribute_value(a)
        if isinstance(value, onnx.TensorProto):
            value = to_array(value)
        elif isinstance(value, bytes):
            value = value.decode()
        elif isinstance(value, list) and value and isinstance(value[0], bytes):
            value = [v.decode() for v in value]
        out[a.name] = value
    return out
