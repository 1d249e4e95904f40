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
from . import (ops_attention, ops_control, ops_math, ops_more, ops_nn,  # noqa: F401
               ops_rnn, ops_shape)  # (fill the converter table)
from . import (ops_image, ops_misc, ops_ml, ops_quant, ops_random, ops_signal,  # noqa: F401
               ops_text, ops_training, ops_vision)
from .errors import UnsupportedOperatorError
from .ops_control import Seq
from .narrow import widen
from .proto import attributes, elem_types, ember_dtype, opset_of, require_onnx, to_array
from .registry import CONVERTERS, Context
from .strings import Strings

_STRING = 8  # ONNX's TensorProto.STRING


def _walk(graph):
    """Every node of ``graph`` and of its subgraphs (If's branches, Loop's and Scan's bodies)."""
    for node in graph.node:
        yield node
        for attr in node.attribute:
            for sub in list(attr.graphs) + ([attr.g] if attr.HasField("g") else []):
                yield from _walk(sub)


def _key(node):
    """The converter table's key of ``node``: its op type in the default domain, else
    ``"domain.OpType"`` (``"ai.onnx.preview.training.Gradient"``)."""
    if node.domain in ("", "ai.onnx"):
        return node.op_type
    return f"{node.domain}.{node.op_type}"


def unsupported(graph, opset):
    """(domain, op_type, opset, count) of every node ember cannot run (subgraphs included),
    in first-seen order."""
    counts = OrderedDict()
    for node in _walk(graph):
        if _key(node) not in CONVERTERS:
            key = (node.domain, node.op_type)
            counts[key] = counts.get(key, 0) + 1
    return [(d, op, opset, n) for (d, op), n in counts.items()]


GRADIENT = "ai.onnx.preview.training.Gradient"


class Program:
    """A graph's nodes ready to run: (op key, inputs, outputs, attributes, input element types)
    with subgraph attributes compiled, and the index of the last node reading each value
    (values a subgraph reads from the enclosing scope count as read by the node that holds the
    subgraph; what a Gradient node's ``y`` is computed from, by the Gradient node)."""

    def __init__(self, nodes, device, types=None):
        self.nodes, self.last, types = [], {}, types or {}
        for i, n in enumerate(nodes):
            attrs = attributes(n)
            reads = list(n.input)
            for k, v in attrs.items():
                if hasattr(v, "node") and hasattr(v, "initializer"):  # a GraphProto
                    attrs[k] = sub = Subgraph(v, device, types)
                    reads += sorted(sub.reads)
            self.nodes.append((_key(n), list(n.input), list(n.output), attrs,
                               tuple(types.get(name, 0) for name in n.input)))
            if _key(n) == GRADIENT:
                steps = self._ancestors(i, attrs["y"])
                reads += [name for j in steps for name in self.nodes[j][1] if name]
            for name in reads:
                self.last[name] = i
        self.reads = set(self.last)

    def _ancestors(self, upto, target, given=()):
        """The indices (in order) of the nodes before ``upto`` that ``target`` is computed
        from, stopping at the names in ``given``."""
        want, steps = {target} - set(given), []
        for j in range(upto - 1, -1, -1):
            ins, outs = self.nodes[j][1], self.nodes[j][2]
            if want & set(outs):
                steps.append(j)
                want |= {n for n in ins if n} - set(given)
        return steps[::-1]

    def _step(self, i, values, opset, device, replay=None):
        op_type, ins, outs, attrs, types = self.nodes[i]
        x = [values[n] if n else None for n in ins]
        while x and x[-1] is None:
            x.pop()
        result = CONVERTERS[op_type](x, attrs, Context(opset, device, len(outs), values, types,
                                                       replay))
        if result is None or isinstance(result, (ember.Tensor, Seq, Strings)):
            result = [result]
        if any(outs[len(result):]):
            raise InvalidParameterError(
                f"{op_type}: ember computes its first {len(result)} outputs only; the graph "
                f"reads {[o for o in outs[len(result):] if o]}", "outputs", outs)
        for name, t in zip(outs, result):
            if name:
                values[name] = t

    def replay(self, upto, values, opset, device):
        """A function (target, given) -> the value ``target`` recomputed by the nodes before
        ``upto`` with the values in ``given`` in place of theirs (Gradient's forward pass)."""
        def again(target, given):
            env = dict(values)
            env.update(given)
            for j in self._ancestors(upto, target, given):
                self._step(j, env, opset, device)
            return env[target]
        return again

    def run(self, values, opset, device, keep):
        """Evaluate every node on ``values`` (name -> tensor, updated in place)."""
        last = self.last
        for i, (op_type, ins, _, _, _) in enumerate(self.nodes):
            replay = self.replay(i, values, opset, device) if op_type == GRADIENT else None
            self._step(i, values, opset, device, replay)
            for n in ins:
                if last.get(n) == i and n not in keep:
                    values.pop(n, None)
        return values


class Subgraph:
    """A subgraph attribute (If's branches, Loop's and Scan's bodies): called with the node's
    Context and the body's inputs, it returns the body's outputs; it reads the enclosing scope's
    values by name, as ONNX says."""

    def __init__(self, graph, device, types=None):
        self.inputs = [i.name for i in graph.input]
        self.outputs = [o.name for o in graph.output]
        self.constants = {t.name: _initial(t, device) for t in graph.initializer}
        self.program = Program(graph.node, device, elem_types(graph, types))
        local = set(self.inputs) | set(self.constants) | {o for n in self.program.nodes
                                                          for o in n[2]}
        self.reads = (self.program.reads | set(self.outputs)) - local

    def __call__(self, c, inputs):
        values = dict(c.scope or {})
        values.update(self.constants)
        values.update(zip(self.inputs, inputs))
        self.program.run(values, c.opset, c.device, set(self.outputs))
        return [values[n] for n in self.outputs]


def _initial(init, device):
    """An initializer (TensorProto) as a graph value: a tensor, or Strings for a string one."""
    if init.data_type == _STRING:
        return Strings.of(to_array(init))
    return ember.tensor(to_array(init), device=device)


def _as_value(v, type_proto, device):
    """A forward argument as a graph value of ONNX type ``type_proto``: a tensor, a Seq of
    tensors (sequence types) or None (an empty optional)."""
    if type_proto is not None and type_proto.HasField("optional_type"):
        return None if v is None else _as_value(v, type_proto.optional_type.elem_type, device)
    if type_proto is not None and type_proto.HasField("sequence_type"):
        return Seq(_as_value(e, type_proto.sequence_type.elem_type, device) for e in v)
    if isinstance(v, ember.Tensor):
        return v
    code = type_proto.tensor_type.elem_type if type_proto is not None else 0
    if code == _STRING or isinstance(v, Strings):
        return v if isinstance(v, Strings) else Strings.of(v)
    return ember.tensor(widen(v), dtype=ember_dtype(code) if code else None, device=device)


class GraphModule(Module):
    """An ONNX graph as a module (made by ``ember.onnx.load``): ``forward(*inputs)`` takes the
    graph's inputs in order, ``forward(**named)`` by name; one output comes back as a tensor,
    several as a tuple in the graph's order."""

    def __init__(self, proto, device=None):
        super().__init__()
        graph = proto.graph
        self.opset = opset_of(proto) or 1
        missing = unsupported(graph, self.opset)
        if missing:
            raise UnsupportedOperatorError(missing)
        self._params = OrderedDict()
        self._buffers = OrderedDict()
        self._strings = {}  # string initializers: constants, neither parameters nor buffers
        for init in graph.initializer:
            t = _initial(init, device)
            if isinstance(t, Strings):
                self._strings[init.name] = t
            elif t.kind == "float":
                self._params[init.name] = Parameter(t)
            else:
                self._buffers[init.name] = t
        known = set(self._params) | set(self._buffers) | set(self._strings)
        self.input_names = [i.name for i in graph.input if i.name not in known]
        self._input_types = {i.name: i.type for i in graph.input}
        self.output_names = [o.name for o in graph.output]
        # the ONNX element type of each output (0 if not a tensor): a narrow type (float8, int4
        # ...) comes back in its ember carrier dtype, and EmberRep hands it out in that type
        self.output_types = [o.type.tensor_type.elem_type if o.type.HasField("tensor_type")
                             else 0 for o in graph.output]
        self.graph_name = graph.name
        self._program = Program(graph.node, device, elem_types(graph))
        self._nodes = self._program.nodes

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
            values[name] = _as_value(v, self._input_types.get(name), device)
        return values, device

    def forward(self, *args, **named):
        values, device = self._bind(args, named)
        values.update(self._params)
        values.update(self._buffers)
        values.update(self._strings)
        keep = (set(self.output_names) | set(self._params) | set(self._buffers)
                | set(self._strings))
        self._program.run(values, self.opset, device, keep)
        outs = tuple(values[n] for n in self.output_names)
        return outs[0] if len(outs) == 1 else outs

    def extra_repr(self):
        return (f"name={self.graph_name!r}, opset={self.opset}, nodes={len(self._nodes)}, "
                f"inputs={self.input_names}, outputs={self.output_names}")
