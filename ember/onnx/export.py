"""``export``: write an ember module as an ONNX model by tracing its forward on example inputs.

Tracing runs ``module.forward`` once (in eval mode) while the layers of ``ember.nn`` (and their
``ember.torch.nn`` classes), the
functions of ``ember.nn.functional`` and ``ember`` and the Tensor methods and operators listed
in ``TRANSLATIONS`` are wrapped to write one ONNX node each (a layer is one node or a few: its
own ops inside are not traced again). Parameters and buffers become initializers under their
``state_dict`` names; other tensors the forward meets become ``Constant`` nodes. The example
inputs are traced as tensors that require grad, so a result of an op without a translation is
recognised when it is used, and export raises ExportError naming that op rather than baking a
wrong constant into the graph. The model is checked with ``onnx.checker`` before it is written.

>>> import io, ember, ember.onnx
>>> from ember import nn
>>> net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
>>> f = io.BytesIO()
>>> ember.onnx.export(net, (ember.ones(5, 3),), f, input_names=["x"])
>>> back = ember.onnx.load(f.getvalue())
>>> x = ember.randn(5, 3)
>>> bool((back(x) - net(x)).abs().max() < 1e-6)
True
"""

import contextlib
import math
import os
import sys

import numpy as np

import ember
import ember.nn.functional as F

from .. import nn
from .._tensor import Tensor, wrap
from ..errors import InvalidParameterError
from .errors import ExportError
from .proto import onnx_type, require_onnx

DEFAULT_OPSET = 18


class _Graph:
    """The nodes, initializers and value names of a trace."""

    def __init__(self, onnx, opset, params):
        self.onnx, self.opset = onnx, opset
        self.nodes, self.initializers = [], []
        self.names = {}  # id(tensor) -> value name
        self.alive = []  # every named tensor, so that ids stay unique during the trace
        self.params = params  # id(tensor) -> state_dict name
        self.count = 0
        self.depth = 0

    def fresh(self, hint):
        self.count += 1
        return f"/{hint}_{self.count}"

    def known(self, t):
        return isinstance(t, Tensor) and (id(t) in self.names or id(t) in self.params
                                          or _derived(t))

    def name(self, t):
        """The value name of tensor ``t``: a traced value, an initializer or a new Constant."""
        key = id(t)
        if key in self.names:
            return self.names[key]
        if key in self.params:
            name = self.params[key]
            self.initializers.append(self.onnx.numpy_helper.from_array(_array(t), name))
            return self._bind(t, name)
        if _derived(t):
            raise ExportError(f"export: the forward uses the result of ember op "
                              f"{t._node.name!r}, which has no ONNX translation (translated: "
                              "see ember.onnx.export.TRANSLATIONS)")
        return self.const(_array(t), t)

    def const(self, array, t=None):
        name = self.fresh("Constant")
        self.nodes.append(self.onnx.helper.make_node(
            "Constant", [], [name], value=self.onnx.numpy_helper.from_array(np.asarray(array),
                                                                            name + "_value")))
        return self._bind(t, name) if t is not None else name

    def _bind(self, t, name):
        self.names[id(t)] = name
        self.alive.append(t)
        return name

    def node(self, op, inputs, out, **attrs):
        """Add node ``op`` reading ``inputs`` (tensors, names or None) and producing ``out``
        (a tensor: it is named; or an int: that many fresh names); returns the output names."""
        ins = ["" if v is None else v if isinstance(v, str) else self.name(v) for v in inputs]
        if isinstance(out, Tensor):
            outs = [self._bind(out, self.fresh(op))]
        else:
            outs = [self.fresh(op) for _ in range(out)]
        self.nodes.append(self.onnx.helper.make_node(op, ins, outs, **attrs))
        return outs

    def ints(self, values):
        return self.const(np.asarray(list(values), dtype=np.int64))

    def initializer(self, array, name):
        """Add the initializer ``name`` holding ``array`` (once: a layer may run twice);
        returns its name."""
        if any(i.name == name for i in self.initializers):
            return name
        self.initializers.append(self.onnx.numpy_helper.from_array(np.asarray(array), name))
        return name


def _derived(t):
    """Whether ``t`` is the result of a recorded ember op (not a leaf, not a constant)."""
    node = t._node
    return node is not None and bool(getattr(node, "parents", ()))


def _array(t):
    return t.detach().cast(t.dtype).numpy() if hasattr(t, "detach") else np.asarray(t)


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


# -- translations: fn(g, out, *args, **kwargs) with the traced function's own parameters --------

def _binary(op, swap=False):
    def emit(g, out, a, b):
        names = []
        for v in ((b, a) if swap else (a, b)):
            if isinstance(v, Tensor):
                n = g.name(v)
                if v.dtype != out.dtype and out.dtype.kind != "bool":
                    n = g.node("Cast", [n], 1, to=onnx_type(out.dtype))[0]
                names.append(n)
            else:
                names.append(g.const(np.asarray(v, dtype=_np_dtype(out))))
        g.node(op, names, out)
    return emit


def _np_dtype(t):
    return np.dtype(t.dtype.name) if t.dtype.name != "bool" else np.bool_


def _unary(op, **attrs):
    def emit(g, out, x, *args, **kwargs):
        g.node(op, [x], out, **attrs)
    return emit


def _reshape(g, out, x, *shape, **kwargs):
    dims = list(out.shape)
    if x.ndim and out.ndim and dims[0] == x.shape[0]:
        dims[0] = 0  # copy the leading (batch) dim: the graph keeps working for other batches
    g.node("Reshape", [x, g.ints(dims)], out)


def _permute(g, out, x, *dims, **kwargs):
    perm = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    g.node("Transpose", [x], out, perm=[d % x.ndim for d in perm])


def _transpose(g, out, x, dim0=-2, dim1=-1):
    perm = list(range(x.ndim))
    perm[dim0 % x.ndim], perm[dim1 % x.ndim] = perm[dim1 % x.ndim], perm[dim0 % x.ndim]
    g.node("Transpose", [x], out, perm=perm)


def _unsqueeze(g, out, x, dim):
    g.node("Unsqueeze", [x, g.ints([dim % out.ndim])], out)


def _squeeze(g, out, x, dim=None):
    if dim is None:
        axes = [i for i, n in enumerate(x.shape) if n == 1]
    else:
        dims = dim if isinstance(dim, (tuple, list)) else [dim]
        axes = [d % x.ndim for d in dims if x.shape[d] == 1]
    if not axes:
        g.node("Identity", [x], out)
    else:
        g.node("Squeeze", [x, g.ints(axes)], out)


def _flatten(g, out, x, start_dim=0, end_dim=-1):
    _reshape(g, out, x)


def _softmax_like(op):
    def emit(g, out, x, dim=-1, *args, **kwargs):
        g.node(op, [x], out, axis=-1 if dim is None else dim)
    return emit


def _reduce(op):
    def emit(g, out, x, dim=None, keepdim=False, **kwargs):
        dims = range(x.ndim) if dim is None else (dim if isinstance(dim, (tuple, list))
                                                  else [dim])
        axes = g.ints([d % x.ndim for d in dims]) if x.ndim else None
        g.node(op, [x, axes] if axes else [x], out, keepdims=int(bool(keepdim)))
    return emit


def _cat(g, out, tensors, dim=0, *args, **kwargs):
    g.node("Concat", list(tensors), out, axis=dim % out.ndim)


def _getitem(g, out, x, index):
    index = index if isinstance(index, tuple) else (index,)
    if any(i is Ellipsis for i in index):
        at = index.index(Ellipsis)
        index = index[:at] + (slice(None),) * (x.ndim - len(index) + 1) + index[at + 1:]
    starts, ends, axes, steps, drop = [], [], [], [], []
    for d, i in enumerate(index):
        if isinstance(i, bool) or not isinstance(i, (int, slice)):
            raise ExportError(f"export: indexing with {type(i).__name__} has no ONNX "
                              "translation here (ints and slices do)")
        if isinstance(i, int):
            i = i % x.shape[d]
            starts.append(i), ends.append(i + 1), axes.append(d), steps.append(1), drop.append(d)
            continue
        start, stop, step = i.indices(x.shape[d])
        if (start, stop, step) == (0, x.shape[d], 1):
            continue
        starts.append(start), axes.append(d), steps.append(step)
        ends.append(stop if stop >= 0 else -(1 << 62))
    name = g.name(x)
    if axes:
        name = g.node("Slice", [name, g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps)],
                      1 if drop else out)[0]
    if drop:
        g.node("Squeeze", [name, g.ints(drop)], out)
    elif not axes:
        g.node("Identity", [name], out)


def _gelu(g, out, x, approximate="none"):
    if g.opset >= 20:
        g.node("Gelu", [x], out, approximate=approximate)
        return
    dt = _np_dtype(x)
    if approximate == "tanh":  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = g.node("Mul", [x, g.node("Mul", [x, x], 1)[0]], 1)[0]
        inner = g.node("Add", [x, g.node("Mul", [cube, g.const(np.asarray(0.044715, dt))], 1)[0]],
                       1)[0]
        inner = g.node("Mul", [inner, g.const(np.asarray(math.sqrt(2 / math.pi), dt))], 1)[0]
        core = g.node("Tanh", [inner], 1)[0]
    else:  # 0.5 x (1 + erf(x / sqrt(2)))
        core = g.node("Erf", [g.node("Div", [x, g.const(np.asarray(math.sqrt(2), dt))], 1)[0]],
                      1)[0]
    one = g.node("Add", [core, g.const(np.asarray(1, dt))], 1)[0]
    half = g.node("Mul", [x, g.const(np.asarray(0.5, dt))], 1)[0]
    g.node("Mul", [half, one], out)


def _linear(g, out, x, weight, bias=None):
    if x.ndim == 2:
        g.node("Gemm", [x, weight, bias], out, transB=1)
        return
    wt = g.node("Transpose", [weight], 1, perm=[1, 0])[0]
    if bias is None:
        g.node("MatMul", [x, wt], out)
    else:
        g.node("Add", [g.node("MatMul", [x, wt], 1)[0], bias], out)


def _conv2d(g, out, x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
            padding_mode="zeros"):
    if padding_mode != "zeros":
        raise ExportError(f"export: Conv2d padding_mode {padding_mode!r} has no translation "
                          "(zeros has)")
    dil = _pair(dilation)
    if padding == "same":
        k = weight.shape[2:]
        total = [dil[i] * (k[i] - 1) for i in range(2)]
        pads = [total[0] // 2, total[1] // 2, total[0] - total[0] // 2, total[1] - total[1] // 2]
    else:
        p = (0, 0) if padding == "valid" else _pair(padding)
        pads = [p[0], p[1], p[0], p[1]]
    g.node("Conv", [x, weight, bias], out, strides=list(_pair(stride)), pads=pads,
           dilations=list(dil), group=groups, kernel_shape=list(weight.shape[2:]))


def _pool_attrs(kernel_size, stride, padding, ceil_mode):
    p = _pair(padding)
    return dict(kernel_shape=list(_pair(kernel_size)),
                strides=list(_pair(kernel_size if stride is None else stride)),
                pads=[p[0], p[1], p[0], p[1]], ceil_mode=int(bool(ceil_mode)))


def _max_pool2d(g, out, x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    if return_indices:
        raise ExportError("export: max_pool2d with return_indices has no translation")
    g.node("MaxPool", [x], out, dilations=list(_pair(dilation)),
           **_pool_attrs(kernel_size, stride, padding, ceil_mode))


def _avg_pool2d(g, out, x, kernel_size, stride=None, padding=0, ceil_mode=False,
                count_include_pad=True, divisor_override=None):
    if divisor_override is not None:
        raise ExportError("export: avg_pool2d with divisor_override has no translation")
    g.node("AveragePool", [x], out, count_include_pad=int(bool(count_include_pad)),
           **_pool_attrs(kernel_size, stride, padding, ceil_mode))


def _layer_norm(g, out, x, normalized_shape, weight=None, bias=None, eps=1e-5):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if weight is None:
        weight = g.const(np.ones(shape, _np_dtype(x)))
    g.node("LayerNormalization", [x, weight, bias], out, axis=-len(shape), epsilon=float(eps))


def _batch_norm(g, out, x, running_mean, running_var, weight=None, bias=None, training=False,
                momentum=0.1, eps=1e-5):
    if training:
        raise ExportError("export: batch_norm with batch statistics (training) has no "
                          "translation; export in eval mode")
    c = x.shape[1]
    weight = g.const(np.ones(c, _np_dtype(x))) if weight is None else weight
    bias = g.const(np.zeros(c, _np_dtype(x))) if bias is None else bias
    g.node("BatchNormalization", [x, weight, bias, running_mean, running_var], out,
           epsilon=float(eps))


def _embedding(g, out, input, weight, padding_idx=None, max_norm=None, *args, **kwargs):
    if max_norm is not None:
        raise ExportError("export: embedding with max_norm has no translation")
    g.node("Gather", [weight, input], out, axis=0)


def _dropout(g, out, x, *args, **kwargs):
    g.node("Identity", [x], out)


def _matmul(g, out, a, b):
    g.node("MatMul", [a, b], out)


def _pow(g, out, a, b):
    exponent = g.name(b) if isinstance(b, Tensor) else g.const(np.asarray(b, _np_dtype(out)))
    g.node("Pow", [a, exponent], out)


# -- layers: fn(g, out, module, *args) ---------------------------------------------------------

def _layer_linear(g, out, m, x):
    _linear(g, out, x, m.weight, m.bias)


def _layer_conv(g, out, m, x):
    _conv2d(g, out, x, m.weight, m.bias, m.stride, m.padding, m.dilation, m.groups,
            m.padding_mode)


def _layer_bn(g, out, m, x):
    if m.training or m.running_mean is None:
        raise ExportError(f"export: {type(m).__name__} without running statistics has no "
                          "translation")
    _batch_norm(g, out, x, m.running_mean, m.running_var, m.weight, m.bias, False, 0.1, m.eps)


def _layer_flatten(g, out, m, x):
    _reshape(g, out, x)


# ONNX's gate order as rows of ember's (PyTorch's) stacked gates: LSTM i, f, g, o -> i, o, f, c;
# GRU r, z, n -> z, r, h; RNN one gate.
_ONNX_GATES = {"LSTM": (0, 3, 1, 2), "GRU": (1, 0, 2), "RNN_TANH": (0,), "RNN_RELU": (0,)}
_ONNX_RNN_OP = {"LSTM": "LSTM", "GRU": "GRU", "RNN_TANH": "RNN", "RNN_RELU": "RNN"}


def _gate_rows(array, mode):
    """``array``'s stacked gate blocks (along dim 0) in ONNX's order."""
    parts = np.split(array, len(_ONNX_GATES[mode]), axis=0)
    return np.concatenate([parts[i] for i in _ONNX_GATES[mode]], axis=0)


def _recurrent_weights(g, m, layer, dirs):
    """The initializers W, R and B (None without bias) of ``layer``, ONNX's layouts, named after
    the layer's ``weight_ih_l{layer}`` (``...W_l0`` etc.)."""
    groups = [m._layer_weights(layer * dirs + d) for d in range(dirs)]
    first = m._all_weights[layer * dirs][0]  # "weight_ih_l{layer}"
    base = g.params.get(id(groups[0][0]), first)[:-len(first)]
    names = {k: f"{base}onnx_{k}_l{layer}" for k in "WRB"}
    w = np.stack([_gate_rows(_array(grp[0]), m.mode) for grp in groups])
    r = np.stack([_gate_rows(_array(grp[1]), m.mode) for grp in groups])
    g.initializer(w, names["W"])
    g.initializer(r, names["R"])
    if groups[0][2] is None:
        return names["W"], names["R"], None
    b = np.stack([np.concatenate([_gate_rows(_array(grp[2]), m.mode),
                                  _gate_rows(_array(grp[3]), m.mode)]) for grp in groups])
    return names["W"], names["R"], g.initializer(b, names["B"])


def _layer_recurrent(g, out, m, input, hx=None):
    """An ``RNN``, ``LSTM`` or ``GRU`` as one ONNX ``RNN``/``LSTM``/``GRU`` node per layer: the
    input (seq, batch, features), a Transpose around it for ``batch_first`` and an Unsqueeze for
    an unbatched input; each layer's Y (seq, dirs, batch, hidden) becomes the next layer's
    (seq, batch, dirs * hidden); the final states are the layers' Y_h (Y_c) concatenated."""
    name = type(m).__name__
    if m.proj_size:
        raise ExportError(f"export: {name} with proj_size={m.proj_size} has no translation "
                          "(ONNX's LSTM has no projection)")
    if not isinstance(input, Tensor):
        raise ExportError(f"export: {name} over a {type(input).__name__} has no translation "
                          "(a padded Tensor has)")
    lstm = m.mode == "LSTM"
    dirs = 2 if m.bidirectional else 1
    unbatched = input.ndim == 2
    x = g.name(input)
    if unbatched:
        x = g.node("Unsqueeze", [x, g.ints([1])], 1)[0]
    elif m.batch_first:
        x = g.node("Transpose", [x], 1, perm=[1, 0, 2])[0]
    states = [None, None]
    if hx is not None:
        for i, t in enumerate(hx if lstm else (hx,)):
            states[i] = g.name(t)
            if unbatched:
                states[i] = g.node("Unsqueeze", [states[i], g.ints([1])], 1)[0]
    attrs = dict(hidden_size=m.hidden_size,
                 direction="bidirectional" if dirs == 2 else "forward")
    if m.mode == "GRU":
        attrs["linear_before_reset"] = 1
    elif m.mode != "LSTM":
        attrs["activations"] = ["Relu" if m.mode == "RNN_RELU" else "Tanh"] * dirs
    finals = ([], [])
    for layer in range(m.num_layers):
        w, r, b = _recurrent_weights(g, m, layer, dirs)
        ins = [x, w, r, b, None]
        for s in states if lstm else states[:1]:
            ins.append(None if s is None else g.node(
                "Slice", [s, g.ints([layer * dirs]), g.ints([(layer + 1) * dirs]),
                          g.ints([0])], 1)[0])
        y, *ends = g.node(_ONNX_RNN_OP[m.mode], ins, 3 if lstm else 2, **attrs)
        for got, end in zip(finals, ends):
            got.append(end)
        y = g.node("Transpose", [y], 1, perm=[0, 2, 1, 3])[0]  # (seq, batch, dirs, hidden)
        x = g.node("Reshape", [y, g.ints([0, 0, -1])], 1)[0]
    output, rest = out
    results = [(output, x)] + list(zip(rest if lstm else (rest,), finals))
    for i, (t, value) in enumerate(results):
        if i:
            value = value[0] if len(value) == 1 else g.node("Concat", value, 1, axis=0)[0]
        if unbatched:
            value = g.node("Squeeze", [value, g.ints([1])], 1)[0]
        elif i == 0 and m.batch_first:
            value = g.node("Transpose", [value], 1, perm=[1, 0, 2])[0]
        g.node("Identity", [value], t)


LAYERS = {
    nn.Linear: _layer_linear,
    nn.Conv2d: _layer_conv,
    nn.BatchNorm1d: _layer_bn,
    nn.BatchNorm2d: _layer_bn,
    nn.LayerNorm: lambda g, out, m, x: _layer_norm(g, out, x, m.normalized_shape, m.weight,
                                                   m.bias, m.eps),
    nn.MaxPool2d: lambda g, out, m, x: _max_pool2d(g, out, x, m.kernel_size, m.stride,
                                                   m.padding, m.dilation, m.ceil_mode,
                                                   m.return_indices),
    nn.AvgPool2d: lambda g, out, m, x: _avg_pool2d(g, out, x, m.kernel_size, m.stride,
                                                   m.padding, m.ceil_mode, m.count_include_pad,
                                                   m.divisor_override),
    nn.Embedding: lambda g, out, m, x: _embedding(g, out, x, m.weight, m.padding_idx,
                                                  m.max_norm),
    nn.Flatten: _layer_flatten,
    nn.LSTM: _layer_recurrent,
    nn.GRU: _layer_recurrent,
    nn.RNN: _layer_recurrent,
    nn.Dropout: lambda g, out, m, x: _dropout(g, out, x),
    nn.Identity: lambda g, out, m, x: _dropout(g, out, x),
    nn.ReLU: lambda g, out, m, x: g.node("Relu", [x], out),
    nn.Tanh: lambda g, out, m, x: g.node("Tanh", [x], out),
    nn.Sigmoid: lambda g, out, m, x: g.node("Sigmoid", [x], out),
    nn.GELU: lambda g, out, m, x: _gelu(g, out, x, m.approximate),
    nn.Softmax: lambda g, out, m, x: g.node("Softmax", [x], out,
                                            axis=-1 if m.dim is None else m.dim),
    nn.LogSoftmax: lambda g, out, m, x: g.node("LogSoftmax", [x], out,
                                               axis=-1 if m.dim is None else m.dim),
}

_ELEMENTWISE = {"relu": "Relu", "tanh": "Tanh", "sigmoid": "Sigmoid", "exp": "Exp", "log": "Log",
                "sqrt": "Sqrt", "abs": "Abs", "neg": "Neg", "__neg__": "Neg", "erf": "Erf",
                "sin": "Sin", "cos": "Cos", "reciprocal": "Reciprocal"}
_BINARY = {"__add__": "Add", "__sub__": "Sub", "__mul__": "Mul", "__truediv__": "Div",
           "add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "maximum": "Max",
           "minimum": "Min"}

METHODS = {name: _unary(op) for name, op in _ELEMENTWISE.items()}
METHODS.update({name: _binary(op) for name, op in _BINARY.items()})
METHODS.update({"__radd__": _binary("Add", True), "__rsub__": _binary("Sub", True),
                "__rmul__": _binary("Mul", True), "__rtruediv__": _binary("Div", True),
                "__matmul__": _matmul, "matmul": _matmul, "__pow__": _pow, "pow": _pow,
                "reshape": _reshape, "view": _reshape, "flatten": _flatten,
                "permute": _permute, "transpose": _transpose, "unsqueeze": _unsqueeze,
                "squeeze": _squeeze, "softmax": _softmax_like("Softmax"),
                "log_softmax": _softmax_like("LogSoftmax"), "mean": _reduce("ReduceMean"),
                "sum": _reduce("ReduceSum"), "__getitem__": _getitem, "gelu": _gelu})

FUNCTIONS = {"relu": METHODS["relu"], "tanh": METHODS["tanh"], "sigmoid": METHODS["sigmoid"],
             "gelu": _gelu, "softmax": METHODS["softmax"], "log_softmax": METHODS["log_softmax"],
             "linear": _linear, "conv2d": _conv2d, "max_pool2d": _max_pool2d,
             "avg_pool2d": _avg_pool2d, "layer_norm": _layer_norm, "batch_norm": _batch_norm,
             "embedding": _embedding, "dropout": _dropout}
EMBER_FUNCTIONS = {"cat": _cat, "matmul": _matmul, "exp": METHODS["exp"],
                   "tanh": METHODS["tanh"], "sigmoid": METHODS["sigmoid"],
                   "relu": METHODS["relu"], "reshape": _reshape, "permute": _permute,
                   "transpose": _transpose, "unsqueeze": _unsqueeze, "flatten": _flatten,
                   "maximum": METHODS["maximum"], "minimum": METHODS["minimum"]}

TRANSLATIONS = {"layers": sorted(c.__name__ for c in LAYERS),
                "methods": sorted(METHODS), "nn.functional": sorted(FUNCTIONS),
                "ember": sorted(EMBER_FUNCTIONS)}


def _tensors_in(values):
    for v in values:
        if isinstance(v, Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from _tensors_in(v)


def _traced(g, original, emit, layer=False):
    def traced(*args, **kwargs):
        if g.depth:
            return original(*args, **kwargs)
        g.depth += 1
        try:
            out = original(*args, **kwargs)
        finally:
            g.depth -= 1
        inputs = list(_tensors_in(args[1:] if layer else args)) + list(
            _tensors_in(kwargs.values()))
        if ((isinstance(out, Tensor) or layer and isinstance(out, tuple))
                and any(g.known(t) for t in inputs)):
            emit(g, out, *args, **kwargs)
        return out
    traced.__wrapped__ = original
    return traced


@contextlib.contextmanager
def _patched(g):
    saved = []

    def patch(owner, attr, value):
        saved.append((owner, attr, owner.__dict__.get(attr)))  # None: not the owner's own
        setattr(owner, attr, value)

    classes = [Tensor]
    facade = sys.modules.get("ember.torch")
    if facade is not None:
        classes.append(facade.Tensor)
    try:
        for cls in classes:
            for name, emit in METHODS.items():
                if name in cls.__dict__:
                    patch(cls, name, _traced(g, cls.__dict__[name], emit))
        for name, emit in FUNCTIONS.items():
            patch(F, name, _traced(g, F.__dict__[name], emit))
        for name, emit in EMBER_FUNCTIONS.items():
            if name in ember.__dict__:
                patch(ember, name, _traced(g, ember.__dict__[name], emit))
        facade_layers = getattr(sys.modules.get("ember.torch.nn.module"), "_CLASSES", {})
        for cls, emit in LAYERS.items():
            for owner in (cls, facade_layers.get(cls)):
                if owner is not None:
                    patch(owner, "forward", _traced(g, owner.forward, emit, layer=True))
        yield
    finally:
        for owner, attr, value in reversed(saved):
            if value is None:
                delattr(owner, attr)
            else:
                setattr(owner, attr, value)


def _names(given, n, prefix, what):
    if given is None:
        return [f"{prefix}{i}" if n > 1 or prefix == "input_" else prefix.rstrip("_")
                for i in range(n)]
    given = list(given)
    if len(given) != n or not all(isinstance(s, str) and s for s in given):
        raise InvalidParameterError(f"export: {what} must be {n} non-empty strings, got "
                                    f"{given!r}", what, given)
    return given


def _value_info(onnx, name, t, dynamic):
    dims = [dynamic.get(i, n) for i, n in enumerate(t.shape)]
    return onnx.helper.make_tensor_value_info(name, onnx_type(t.dtype), dims)


def _dynamic(dynamic_axes, name):
    spec = (dynamic_axes or {}).get(name, {})
    if isinstance(spec, (list, tuple)):
        return {d: f"{name}_dim{d}" for d in spec}
    return dict(spec)


def _flat_outputs(out):
    """The tensors of a forward's result in order, nested tuples and lists flattened (an LSTM's
    ``(output, (h, c))`` gives three graph outputs), as torch.onnx.export does."""
    if isinstance(out, (tuple, list)):
        return [t for part in out for t in _flat_outputs(part)]
    return [out]


def export(module, args, f, input_names=None, output_names=None, dynamic_axes=None,
           opset_version=None):
    """Trace ``module`` on the example ``args`` (a tensor or a tuple of them) and write the
    ONNX model to ``f`` (a path or a binary file object); PyTorch's ``torch.onnx.export``
    arguments. ``dynamic_axes`` maps an input or output name to the dims (a list, or a dict
    dim -> symbolic name) that may change size. Returns None; raises ExportError for a
    computation without an ONNX translation."""
    onnx = require_onnx("export")
    if not isinstance(module, nn.Module) and not callable(module):
        raise InvalidParameterError(f"export: module must be an ember.nn.Module, got "
                                    f"{type(module).__name__}", "module", module)
    args = args if isinstance(args, tuple) else (args,)
    opset = DEFAULT_OPSET if opset_version is None else opset_version
    if not isinstance(opset, int) or not 13 <= opset <= onnx.defs.onnx_opset_version():
        raise InvalidParameterError(f"export: opset_version {opset_version!r} must be an int "
                                    f"from 13 to {onnx.defs.onnx_opset_version()}",
                                    "opset_version", opset_version)
    if not (isinstance(f, (str, os.PathLike)) or hasattr(f, "write")):
        raise InvalidParameterError(f"export: f must be a path or a binary file object, got "
                                    f"{type(f).__name__}", "f", f)
    tensors = [a for a in args if isinstance(a, Tensor)]
    in_names = _names(input_names, len(tensors), "input_", "input_names")
    params = {}
    if isinstance(module, nn.Module):
        for name, t in (list(module.named_parameters()) + list(module.named_buffers())
                        + list(module.state_dict().items())):
            params.setdefault(id(t), name)
    g = _Graph(onnx, opset, params)
    traced_args, inputs = [], []
    for a in args:
        if isinstance(a, Tensor):
            t = wrap(a._data, a._dtype)
            if t.kind == "float":
                t.require_grad()
            name = in_names[len(inputs)]
            g._bind(t, name)
            inputs.append(_value_info(onnx, name, t, _dynamic(dynamic_axes, name)))
            a = t
        traced_args.append(a)
    training = getattr(module, "training", False)
    if isinstance(module, nn.Module):
        module.eval()
    try:
        with ember.enable_grad(), _patched(g):
            out = module(*traced_args)
    finally:
        if isinstance(module, nn.Module):
            module.train(training)
    outs = _flat_outputs(out)
    if not all(isinstance(t, Tensor) for t in outs):
        raise ExportError("export: the forward must return a tensor or (nested) tuples of "
                          "tensors")
    out_names = _names(output_names, len(outs), "output_", "output_names")
    outputs = []
    for t, name in zip(outs, out_names):
        g.node("Identity", [g.name(t)], 1)
        g.nodes[-1].output[0] = name
        outputs.append(_value_info(onnx, name, t, _dynamic(dynamic_axes, name)))
    graph = onnx.helper.make_graph(g.nodes, type(module).__name__, inputs, outputs,
                                   g.initializers)
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)],
                                   producer_name="ember")
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception as exc:
        raise ExportError(f"export: the traced graph fails onnx.checker: {exc}") from None
    data = model.SerializeToString()
    if hasattr(f, "write"):
        f.write(data)
    else:
        with open(os.fspath(f), "wb") as fh:
            fh.write(data)
