"""ONNX converters of control flow, sequences and optionals: If, Loop, Scan (their bodies run as
ember ops, so gradients flow through them), SequenceConstruct/At/Insert/Erase/Length/Empty/Map,
ConcatFromSequence, SplitToSequence, Optional, OptionalHasElement, OptionalGetElement.

A sequence value is a ``Seq`` (a list of tensors); an empty optional is None.

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> seq = CONVERTERS["SequenceConstruct"]([ember.ones(2), ember.zeros(2)], {}, Context(18))
>>> CONVERTERS["ConcatFromSequence"]([seq], {"axis": 0, "new_axis": 1}, Context(18)).shape
(2, 2)
"""

import ember

from ..autodiff import enable_grad, grad
from ..errors import InvalidParameterError
from .proto import BATCHED_SCAN
from .registry import axis_of, converter, ints, scalar


class Seq(list):
    """An ONNX sequence value: a list of tensors."""


@converter("If")
def if_(x, a, c):
    branch = a["then_branch"] if bool(scalar(x[0])) else a["else_branch"]
    return list(branch(c, []))


@converter("Loop")
def loop(x, a, c):
    """``for i in range(M) while cond``: the body gets (i, cond, carried...) and returns
    (cond, carried..., scan outputs...); scan outputs are stacked along a new first dim."""
    x = list(x) + [None] * (2 - len(x))
    trips = scalar(x[0]) if x[0] is not None else None
    going = bool(scalar(x[1])) if x[1] is not None else True
    carried = list(x[2:])
    body, n = a["body"], len(x) - 2
    i, scans = 0, []
    while going and (trips is None or i < trips):
        outs = body(c, [c.const(i, "int64"), c.const(going, "bool")] + carried)
        going = bool(scalar(outs[0]))
        carried, scans = list(outs[1:1 + n]), scans + [outs[1 + n:]]
        i += 1
    n_scan = len(body.outputs) - 1 - n
    if n_scan and not scans:
        raise InvalidParameterError("Loop: scan outputs of a loop that ran zero times have no "
                                    "shape", "body", n_scan)
    stacked = [ember.stack([s[k] for s in scans], dim=0) for k in range(n_scan)]
    return carried + stacked


@converter("Scan")
def scan(x, a, c):
    """Scan (opset 9+): the body runs once per slice of the scan inputs along their axes,
    carrying the states; per-step outputs are stacked along the output axes. A Scan converted
    from opset 8 (proto.BATCHED_SCAN) runs once per element of its leading batch dim."""
    if a.get(BATCHED_SCAN):
        a = {k: v for k, v in a.items() if k != BATCHED_SCAN}
        if "directions" in a:
            a["scan_input_directions"] = a.pop("directions")
        runs = [scan([t[b] for t in x], a, c) for b in range(x[-1].shape[0])]
        return [ember.stack([r[j] for r in runs], dim=0) for j in range(len(runs[0]))]
    m = a["num_scan_inputs"]
    states, inputs = list(x[:len(x) - m]), list(x[len(x) - m:])
    in_axes = [axis_of(d, t.ndim) for d, t in zip(a.get("scan_input_axes", [0] * m), inputs)]
    in_dirs = a.get("scan_input_directions", [0] * m)
    body, n = a["body"], len(states)
    k = len(body.outputs) - n
    out_axes = a.get("scan_output_axes", [0] * k)
    out_dirs = a.get("scan_output_directions", [0] * k)
    steps = inputs[0].shape[in_axes[0]]
    per_step = []
    for t in range(steps):
        slices = [s.narrow(d, steps - 1 - t if r else t, 1).squeeze(d)
                  for s, d, r in zip(inputs, in_axes, in_dirs)]
        outs = body(c, states + slices)
        states, per_step = list(outs[:n]), per_step + [outs[n:]]
    stacked = []
    for j in range(k):
        parts = [p[j] for p in per_step]
        if out_dirs[j]:
            parts = parts[::-1]
        stacked.append(ember.stack(parts, dim=axis_of(out_axes[j], parts[0].ndim + 1)))
    return states + stacked


@converter("ai.onnx.preview.training.Gradient")
def gradient(x, a, c):
    """The gradients of the graph's value ``y`` (summed, when not a scalar) with respect to
    the node's first inputs, named ``xs``: the part of the graph that computes ``y`` runs
    again from them with gradients on (ember's reverse mode); ``zs`` stay constant."""
    names = list(a["xs"])
    xs = x[:len(names)]
    bad = [n for n, t in zip(names, xs) if t.kind != "float"]
    if bad:
        raise InvalidParameterError(f"Gradient: xs {bad} are not float tensors; expected float "
                                    "inputs to differentiate with respect to", "xs", bad)

    def value(*leaves):
        return c.replay(a["y"], dict(zip(names, leaves))).sum()

    with enable_grad():
        grads = grad(value, argnums=tuple(range(len(xs))))(*xs)
    return list(grads)


@converter("SequenceConstruct")
def sequence_construct(x, a, c):
    return Seq(x)


@converter("SequenceEmpty")
def sequence_empty(x, a, c):
    return Seq()


def _position(seq, p, default, insert=False):
    i = default if p is None else int(scalar(p))
    n = len(seq) + (1 if insert else 0)
    i = i + n - (1 if insert else 0) if i < 0 else i
    if not 0 <= i <= len(seq) - (0 if insert else 1):
        raise InvalidParameterError(f"sequence position {i} is out of range for a sequence of "
                                    f"{len(seq)}", "position", i)
    return i


@converter("SequenceInsert")
def sequence_insert(x, a, c):
    seq = Seq(x[0])
    seq.insert(_position(seq, x[2] if len(x) > 2 else None, len(seq), True), x[1])
    return seq


@converter("SequenceAt")
def sequence_at(x, a, c):
    return x[0][_position(x[0], x[1], 0)]


@converter("SequenceErase")
def sequence_erase(x, a, c):
    seq = Seq(x[0])
    del seq[_position(seq, x[1] if len(x) > 1 else None, len(seq) - 1)]
    return seq


@converter("SequenceLength")
def sequence_length(x, a, c):
    return c.const(len(x[0]), "int64")


@converter("ConcatFromSequence")
def concat_from_sequence(x, a, c):
    seq = list(x[0])
    if a.get("new_axis", 0):
        return ember.stack(seq, dim=axis_of(a["axis"], seq[0].ndim + 1))
    return ember.cat(seq, dim=axis_of(a["axis"], seq[0].ndim))


@converter("SplitToSequence")
def split_to_sequence(x, a, c):
    t = x[0]
    axis = axis_of(a.get("axis", 0), t.ndim)
    split = x[1] if len(x) > 1 else None
    n = t.shape[axis]
    if split is None:
        parts = t.split_with_sizes([1] * n, axis)
        if not a.get("keepdims", 1):
            parts = [p.squeeze(axis) for p in parts]
        return Seq(parts)
    sizes = ints(split)
    if split.ndim == 0:
        size = sizes[0]
        sizes = [size] * (n // size) + ([n % size] if n % size else [])
    return Seq(t.split_with_sizes(sizes, axis))


@converter("SequenceMap")
def sequence_map(x, a, c):
    body = a["body"]
    length = len(x[0])
    outs = [body(c, [v[i] if isinstance(v, Seq) else v for v in x]) for i in range(length)]
    return [Seq([o[j] for o in outs]) for j in range(len(body.outputs))]


@converter("Optional")
def optional(x, a, c):
    return [x[0] if x else None]


@converter("OptionalHasElement")
def optional_has_element(x, a, c):
    return c.const(bool(x) and x[0] is not None, "bool")


@converter("OptionalGetElement")
def optional_get_element(x, a, c):
    if not x or x[0] is None:
        raise InvalidParameterError("OptionalGetElement: the optional is empty", "input", None)
    return x[0]
