"""ONNX converters of shapes, views, indexing and constants: Reshape, Transpose, Squeeze,
Unsqueeze, Flatten, Concat, Split, Slice, Gather, Shape, Constant, Expand, Tile, Range, Pad ...

>>> import ember
>>> from ember.onnx.registry import CONVERTERS, Context
>>> x = ember.zeros(2, 3, 4)
>>> CONVERTERS["Reshape"]([x, ember.tensor([0, -1])], {}, Context(18)).shape
(2, 12)
"""

import math

import numpy as np

import ember

from ..errors import InvalidParameterError
from .registry import axes_arg, axis_of, converter, ints, scalar


@converter("Identity")
def identity(x, a, c):
    return x[0]


@converter("Flatten")
def flatten(x, a, c):
    t = x[0]
    axis = axis_of(a.get("axis", 1), t.ndim)
    return t.reshape(math.prod(t.shape[:axis]), math.prod(t.shape[axis:]))


@converter("Reshape")
def reshape(x, a, c):
    t, shape = x[0], ints(x[1])
    if not a.get("allowzero", 0):
        shape = [t.shape[i] if s == 0 else s for i, s in enumerate(shape)]
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        shape[shape.index(-1)] = t.numel() // known if known else 0
    if 0 in shape:  # (allowzero) ember's reshape reads 0 as "keep": an empty tensor is built
        if t.numel():
            raise InvalidParameterError(f"Reshape: shape {shape} has no elements; the input "
                                        f"{tuple(t.shape)} has {t.numel()}", "shape", shape)
        return ember.zeros(tuple(shape), dtype=t.dtype, device=t.device)
    return t.reshape(tuple(shape))


@converter("Transpose")
def transpose(x, a, c):
    t = x[0]
    perm = a.get("perm", list(range(t.ndim))[::-1])
    return t.permute(*perm)


@converter("Squeeze")
def squeeze(x, a, c):
    t = x[0]
    axes = axes_arg(x, a)
    dims = ({axis_of(d, t.ndim) for d in axes} if axes is not None else
            {i for i, n in enumerate(t.shape) if n == 1})
    return t.reshape(tuple(n for i, n in enumerate(t.shape) if i not in dims))


@converter("Unsqueeze")
def unsqueeze(x, a, c):
    t = x[0]
    axes = axes_arg(x, a)
    rank = t.ndim + len(axes)
    new = sorted(axis_of(d, rank) for d in axes)
    shape = list(t.shape)
    for d in new:
        shape.insert(d, 1)
    return t.reshape(tuple(shape))


@converter("Concat")
def concat(x, a, c):
    parts = [t for t in x if t is not None]
    return ember.cat(parts, dim=axis_of(a["axis"], parts[0].ndim))


@converter("Split")
def split(x, a, c):
    t = x[0]
    axis = axis_of(a.get("axis", 0), t.ndim)
    sizes = ints(x[1]) if len(x) > 1 and x[1] is not None else a.get("split")
    if sizes is None:
        n = a.get("num_outputs", c.outputs)
        step = -(-t.shape[axis] // n)
        sizes = [min(step, t.shape[axis] - i * step) for i in range(n)]
    return list(t.split_with_sizes(list(sizes), axis))


@converter("Slice")
def slice_(x, a, c):
    t = x[0]
    if len(x) > 1:  # opset 10+: starts, ends, axes, steps as inputs
        starts, ends = ints(x[1]), ints(x[2])
        axes = ints(x[3]) if len(x) > 3 and x[3] is not None else list(range(len(starts)))
        steps = ints(x[4]) if len(x) > 4 and x[4] is not None else [1] * len(starts)
    else:
        starts, ends = a["starts"], a["ends"]
        axes = a.get("axes", list(range(len(starts))))
        steps = [1] * len(starts)
    index = [slice(None)] * t.ndim
    for s, e, d, k in zip(starts, ends, axes, steps):
        d = axis_of(d, t.ndim)
        n = t.shape[d]
        if k < 0 and e < -n:  # "to the very start", which a Python slice spells None
            e = None
        index[d] = slice(max(min(s, n), -n - 1) if k > 0 else s, e, k)
    return t[tuple(index)]


def _wrap_indices(idx, n):
    return ember.where(idx < 0, idx + n, idx) if idx.numel() else idx


@converter("Gather")
def gather(x, a, c):
    t, idx = x
    axis = axis_of(a.get("axis", 0), t.ndim)
    return t.take(axis, _wrap_indices(idx.cast("int64"), t.shape[axis]))


@converter("GatherElements")
def gather_elements(x, a, c):
    t, idx = x
    axis = axis_of(a.get("axis", 0), t.ndim)
    return t.gather(axis, _wrap_indices(idx.cast("int64"), t.shape[axis]))


@converter("Shape")
def shape(x, a, c):
    dims = list(x[0].shape)
    start, end = a.get("start", 0), a.get("end", len(dims))
    return c.const(dims[start:end], "int64")


@converter("Size")
def size(x, a, c):
    return c.const(x[0].numel(), "int64")


@converter("Constant")
def constant(x, a, c):
    if "value" in a:
        return c.const(a["value"])
    for key, dtype in (("value_float", "float32"), ("value_floats", "float32"),
                       ("value_int", "int64"), ("value_ints", "int64")):
        if key in a:
            return c.const(a[key], dtype)
    raise InvalidParameterError(f"Constant: attributes {sorted(a)} are not supported",
                                "attribute", sorted(a))


@converter("ConstantOfShape")
def constant_of_shape(x, a, c):
    value = a.get("value", np.zeros(1, np.float32))
    return c.const(np.full(ints(x[0]) or [], value.reshape(-1)[0], dtype=value.dtype))


@converter("Expand")
def expand(x, a, c):
    t = x[0]
    target = np.broadcast_shapes(tuple(t.shape), tuple(ints(x[1])))
    return t.expand(*target)


@converter("Tile")
def tile(x, a, c):
    return x[0].repeat(*ints(x[1]))


@converter("Range")
def range_(x, a, c):
    start, limit, delta = (scalar(t) for t in x)
    return ember.arange(start, limit, delta, dtype=x[0].dtype, device=c.device)


@converter("Pad")
def pad(x, a, c):
    t = x[0]
    pads = ints(x[1]) if len(x) > 1 and x[1] is not None else list(a["pads"])
    value = scalar(x[2], 0) if len(x) > 2 and x[2] is not None else a.get("value", 0.0)
    axes = ints(x[3]) if len(x) > 3 and x[3] is not None else list(range(t.ndim))
    mode = a.get("mode", "constant")
    if mode not in ("constant", "reflect", "edge", "wrap"):
        raise InvalidParameterError(f"Pad: mode {mode!r}; expected constant, reflect, edge or "
                                    "wrap", "mode", mode)
    n = len(axes)
    pairs = [(0, 0)] * t.ndim
    for i, d in enumerate(axes):
        pairs[axis_of(d, t.ndim)] = (pads[i], pads[i + n])
    if any(p < 0 for pair in pairs for p in pair):  # negative pads crop
        t = t[tuple(slice(max(-b, 0), t.shape[i] - max(-e, 0)) for i, (b, e) in enumerate(pairs))]
        pairs = [(max(b, 0), max(e, 0)) for b, e in pairs]
    if mode == "wrap":  # each padded dim gathers its positions modulo its size
        for d, (b, e) in enumerate(pairs):
            if b or e:
                where = (np.arange(-b, t.shape[d] + e) % t.shape[d]).astype(np.int64)
                t = t.take(d, c.const(where, "int64"))
        return t
    return t.pad(pairs, mode, value)


@converter("Trilu")
def trilu(x, a, c):
    k = scalar(x[1], 0) if len(x) > 1 and x[1] is not None else 0
    return x[0].triu(k) if a.get("upper", 1) else x[0].tril(k)


@converter("OneHot")
def one_hot(x, a, c):
    idx, depth, values = x
    n = int(scalar(depth))
    axis = a.get("axis", -1)
    idx = idx.cast("int64")
    idx = ember.where(idx < 0, idx + n, idx)
    hot = idx.unsqueeze(-1) == c.const(np.arange(n), "int64")
    out = ember.where(hot, values[1], values[0])
    return out.movedim(-1, axis_of(axis, out.ndim)) if axis != -1 else out
