"""An ``onnx.backend.base.Backend`` over ember, so onnx's own conformance cases run on ember
(``benchmarks/onnx_conformance.py`` prints the pass counts per category).

>>> import numpy as np
>>> from onnx import TensorProto, helper
>>> from ember.onnx.backend import EmberBackend
>>> g = helper.make_graph([helper.make_node("Neg", ["x"], ["y"])], "neg",
...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
...     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
>>> EmberBackend.run_model(helper.make_model(g), [np.array([1.0, -2.0], np.float32)])[0].tolist()
[-1.0, 2.0]
"""

from ..autodiff import no_grad
from .load import load
from .narrow import narrow
from .proto import require_onnx
from .strings import Strings

require_onnx("ember.onnx.backend")
import onnx.backend.base as _base  # noqa: E402


def _numpy(value):
    if isinstance(value, Strings):
        return value.numpy()
    if value is None or isinstance(value, list):  # an empty optional, a sequence
        return value if value is None else [v.numpy() for v in value]
    return value.numpy()


class EmberRep(_base.BackendRep):
    """A loaded model; ``run(inputs)`` returns the outputs as NumPy arrays."""

    def __init__(self, module):
        self.module = module

    def run(self, inputs, **kwargs):
        with no_grad():
            if isinstance(inputs, dict):
                out = self.module(**inputs)
            else:
                out = self.module(*list(inputs)[:len(self.module.input_names)])
        outs = out if isinstance(out, tuple) else (out,)
        return tuple(narrow(_numpy(o), code) if not isinstance(o, list) else _numpy(o)
                     for o, code in zip(outs, self.module.output_types))


class EmberBackend(_base.Backend):
    """ember as an ONNX backend: ``prepare`` loads (``ember.onnx.load``) the model."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        super().prepare(model, device, **kwargs)
        return EmberRep(load(model))

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def supports_device(cls, device):
        return device in ("CPU", "CUDA")
