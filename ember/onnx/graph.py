"""GraphModule: an ONNX graph as an ``ember.nn.Module`` whose forward evaluates the graph's
nodes with ember ops.

Initializers keep their ONNX names exactly, dots and all (``"conv1.weight"``, ``"onnx::Add_7"``):
float ones are parameters (trainable leaves), int and bool ones are buffers, and
``state_dict``/``named_parameters`` list them under those names in the graph's order. No name
is rewritten, so a state dict of the model that was exported maps key for key.

>>> import ember, onnx
>>> from onnx import helper, TensorProto
>>> g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
...     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
>>> m = ember.onnx.load(helper.make_model(g))
>>> m(ember.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""

from collections import OrderedDict

import ember

from ..errors import InvalidParameterError
from ..nn.module import Module, Parameter
from . import ops_attention, ops_math, ops_more, ops_nn, ops_shape  # noqa: F401  (fill the converter table)
from .errors import UnsupportedOperatorError
from .proto import attributes, ember_dtype, opset_of, require_onnx
from .registry import CONVERTERS, Context


def unsupported(graph, opset):
    """(domain, op_type, opset, count) of every node ember cannot run, in first-seen order."""
    counts = OrderedDict()
    for node in graph.node:
        if node.domain not in ("", "ai.onnx") or node.op_type not in CONVERTERS:
            key = (node.domain, node.op_type)
            counts[key] = counts.get(key, 0) + 1
    return [(d, op, opset, n) for (d, op), n in counts.items()]


class GraphModule(Module):
    """An ONNX graph as a module (made by ``ember.onnx.load``): ``forward(*inputs)`` takes the
    graph's inputs in order, ``forward(**named)`` by name; one output comes back as a tensor,
    several as a tuple in the graph's order."""

    def __init__(self, proto, device=None):
        super().__init__()
        onnx = require_onnx("load")
        graph = proto.graph
        self.opset = opset_of(proto) or 1
        missing = unsupported(graph, self.opset)
        if missing:
            raise UnsupportedOperatorError(missing)
        self._params = OrderedDict()
        self._buffers = OrderedDict()
        for init in graph.initializer:
            t = ember.tensor(onnx.numpy_helper.to_array(init), device=device)
            if t.kind == "float":
                self._params[init.name] = Parameter(t)
            else:
                self._buffers[init.name] = t
        known = set(self._params) | set(self._buffers)
        self.input_names = [i.name for i in graph.input if i.name not in known]
        self._input_types = {i.name: i.type.tensor_type.elem_type for i in graph.input}
        self.output_names = [o.name for o in graph.output]
        self.graph_name = graph.name
        self._nodes = [(n.op_type, list(n.input), list(n.output), attributes(n))
                       for n in graph.node]
        last = {}  # value name -> index of the last node reading it (to free values early)
        for i, (_, ins, _, _) in enumerate(self._nodes):
            for name in ins:
                last[name] = i
        self._last_use = last

    def _local_split(self):
        params = [(n, ("_params", n), t) for n, t in self._params.items()]
        buffers = [(n, ("_buffers", n), t) for n, t in self._buffers.items()]
        return params, buffers, []

    def _device(self, values):
        for t in values:
            if isinstance(t, ember.Tensor):
                return t.device
        for t in list(self._params.values()) + list(self._buffers.values()):
            return t.device
        return None

    def _bind(self, args, named):
        names = self.input_names
        if len(args) > len(names):
            raise InvalidParameterError(f"forward: the graph takes {len(names)} inputs "
                                        f"{names}, got {len(args)}", "inputs", len(args))
        given = dict(zip(names, args))
        for k, v in named.items():
            if k not in names:
                raise InvalidParameterError(f"forward: no graph input named {k!r}; the inputs "
                                            f"are {names}", "inputs", k)
            if k in given:
                raise InvalidParameterError(f"forward: input {k!r} given twice", "inputs", k)
            given[k] = v
        absent = [n for n in names if n not in given]
        if absent:
            raise InvalidParameterError(f"forward: missing graph inputs {absent}", "inputs",
                                        absent)
        device = self._device(given.values())
        values = {}
        for name, v in given.items():
            if not isinstance(v, ember.Tensor):
                code = self._input_types.get(name)
                v = ember.tensor(v, dtype=ember_dtype(code) if code else None, device=device)
            values[name] = v
        return values, device

    def forward(self, *args, **named):
        values, device = self._bind(args, named)
        values.update(self._params)
        values.update(self._buffers)
        last, keep = self._last_use, set(self.output_names)
        for i, (op_type, ins, outs, attrs) in enumerate(self._nodes):
            x = [values[n] if n else None for n in ins]
            while x and x[-1] is None:
                x.pop()
            result = CONVERTERS[op_type](x, attrs, Context(self.opset, device, len(outs)))
            if isinstance(result, ember.Tensor):
                result = [result]
            for name, t in zip(outs, result):
                if name:
                    values[name] = t
            for n in ins:
                if last.get(n) == i and n not in keep and n not in self._params \
                        and n not in self._buffers:
                    values.pop(n, None)
        outs = tuple(values[n] for n in self.output_names)
        return outs[0] if len(outs) == 1 else outs

    def extra_repr(self):
        return (f"name={self.graph_name!r}, opset={self.opset}, nodes={len(self._nodes)}, "
                f"inputs={self.input_names}, outputs={self.output_names}")
