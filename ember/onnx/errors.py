"""The typed errors of ember.onnx: each is an ``ember.EmberError`` and the built-in exception a
Python user would catch.

>>> from ember.onnx.errors import UnsupportedOperatorError
>>> err = UnsupportedOperatorError([("", "NonZero", 13, 2)])
>>> str(err)
'ONNX model uses 1 unsupported operator: NonZero (opset 13, 2 nodes)'
>>> err.operators
[('', 'NonZero', 13, 2)]
"""

from ..errors import EmberError, InvalidParameterError

__all__ = ["OnnxNotInstalledError", "OnnxFormatError", "UnsupportedOperatorError",
           "UnsupportedOpsetError", "ExportError"]


class OnnxNotInstalledError(EmberError, ImportError):
    """The ``onnx`` package is missing: ``pip install onnx`` (or ``pip install ember[onnx]``)."""

    def __init__(self, op):
        super().__init__(f"{op}: needs the 'onnx' package; install it with `pip install onnx` "
                         "(or `pip install ember[onnx]`)")


class OnnxFormatError(InvalidParameterError):
    """A file, bytes or ModelProto that is not a valid ONNX model (unreadable protobuf, a graph
    that fails ``onnx.checker``, missing inputs ...)."""


class UnsupportedOperatorError(EmberError, NotImplementedError):
    """The model uses operators ember cannot run; ``operators`` lists every one of them as
    ``(domain, op_type, opset, count)``, so one error tells everything that is missing."""

    def __init__(self, operators):
        self.operators = list(operators)
        parts = []
        for domain, op_type, opset, count in self.operators:
            name = f"{domain}.{op_type}" if domain not in ("", "ai.onnx") else op_type
            parts.append(f"{name} (opset {opset}, {count} node{'s' if count != 1 else ''})")
        n = len(self.operators)
        super().__init__(f"ONNX model uses {n} unsupported operator{'s' if n != 1 else ''}: "
                         + ", ".join(parts))


class UnsupportedOpsetError(InvalidParameterError):
    """The model's opset is newer than the installed ``onnx`` knows, or cannot be converted to
    one ember supports."""


class ExportError(EmberError, NotImplementedError):
    """``ember.onnx.export`` met a computation it cannot write as ONNX (an op without an ONNX
    translation); the message names the op."""
