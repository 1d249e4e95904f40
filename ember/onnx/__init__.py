"""ember.onnx: ONNX both ways. ``load`` turns an ONNX model into a trainable, differentiable
``ember.nn.Module``; ``run`` evaluates one once; ``export`` writes an ember module as ONNX.

Needs the ``onnx`` package (``pip install ember[onnx]``); importing ember never imports it.
``SUPPORTED_OPS`` lists the operators that ``load`` runs (other domains as ``domain.OpType``).

>>> import ember.onnx
>>> "Conv" in ember.onnx.SUPPORTED_OPS
True
"""

from .errors import (ExportError, OnnxFormatError, OnnxNotInstalledError,  # noqa: F401
                     UnsupportedOperatorError, UnsupportedOpsetError)
from .export import export  # noqa: F401
from .graph import GraphModule  # noqa: F401
from .load import load, run  # noqa: F401
from .registry import CONVERTERS as _CONVERTERS

SUPPORTED_OPS = tuple(sorted(_CONVERTERS))

__all__ = ["load", "run", "export", "GraphModule", "SUPPORTED_OPS", "ExportError",
           "OnnxFormatError", "OnnxNotInstalledError", "UnsupportedOperatorError",
           "UnsupportedOpsetError"]
