"""``load`` (an ONNX model as a trainable ember module) and ``run`` (one-off inference).

>>> import ember
>>> from onnx import helper, TensorProto
>>> g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["c"])], "add",
...     [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1]) for n in "ab"],
...     [helper.make_tensor_value_info("c", TensorProto.FLOAT, [1])])
>>> ember.onnx.run(helper.make_model(g), {"a": [1.0], "b": [2.0]})["c"].tolist()
[3.0]
"""

from ..autodiff import no_grad
from ..devices import as_device
from ..errors import InvalidParameterError
from .graph import GraphModule
from .proto import prepare, read_model


def load(model, device=None):
    """The ONNX model ``model`` (a path, bytes or an ``onnx.ModelProto``) as an
    ``ember.nn.Module`` on ``device`` (default: ember's default device).

    The model is checked with ``onnx.checker``, converted up when its opset is older than 11,
    and every operator is looked up before anything is built: one UnsupportedOperatorError lists
    every operator ember cannot run. Float initializers become parameters, so the module trains
    and differentiates (to any order) like any other.
    """
    proto = prepare(read_model(model, "load"), "load")
    dev = as_device(device, "load") if device is not None else None
    return GraphModule(proto, dev)


def run(model, inputs, device=None):
    """Evaluate ``model`` (a GraphModule, or anything ``load`` takes) once, without gradients,
    on ``inputs`` (a dict name -> array-like, or a sequence in the graph's input order); returns
    a dict output name -> tensor when ``inputs`` is a dict, else the outputs as ``forward``."""
    module = model if isinstance(model, GraphModule) else load(model, device)
    with no_grad():
        if isinstance(inputs, dict):
            outs = module(**inputs)
            outs = outs if isinstance(outs, tuple) else (outs,)
            return dict(zip(module.output_names, outs))
        if isinstance(inputs, (list, tuple)):
            return module(*inputs)
    raise InvalidParameterError(f"run: inputs must be a dict or a sequence, got "
                                f"{type(inputs).__name__}", "inputs", inputs)
