"""The movement op family: reshape, expand, permute, flip, shrink, pad and the ops built on them.

Every op here returns a view of its input's buffer where the layout allows (reshape, view,
expand, permute, flip, shrink, transpose, squeeze, unsqueeze, movedim, flatten, unfold) and a new
buffer otherwise (pad, roll, repeat, repeat_interleave, a reshape of a non-contiguous view).
Nothing ever writes into an input. Float results record their gradient rule.

See docs/movement.md for a guide.
"""

import numbers

from .. import dtypes as _dt
from ..autodiff.rules import sum_to
from ..errors import DimensionError, InvalidParameterError, KindError, ShapeMismatchError
from ..shapes import (MAX_RANK, argfix, as_int, check_rank, infer_shape, is_permutation,
                      is_plain_shape, normalize_dim, normalize_dims, prod)
from .._tensor import Tensor, _data_from, backend_of, check_tensor, record, tensor_method, wrap

__all__ = ["PadMode", "reshape", "permute", "flip", "transpose", "t", "movedim", "flatten",
           "unflatten", "squeeze", "unsqueeze", "roll", "repeat_interleave"]


def _method(name, prop=False):
    """Attach the decorated function to Tensor as ``name`` (a property when ``prop``)."""
    def attach(fn):
        fn.__name__ = name
        fn.__qualname__ = "Tensor." + name
        return tensor_method(fn, name=name, prop=prop)
    return attach


def _is_seq(value):
    return isinstance(value, (tuple, list))


# -- the primitives ------------------------------------------------------------------------------

def _reshape_to(x, shape, op):
    """``x`` with ``shape`` (already resolved and checked): a view when the layout allows."""
    in_shape = x._data.shape
    be = x._device.backend
    out = be.mv_reshape(x._data, shape, op)
    if x._node is None:  # untracked: no gradient rule to build (what record would give)
        return wrap(out, x._dtype, x._ad)

    def rule(g, needs, out):
        return (_reshape_to(g, in_shape, op),)

    return record(out, x._dtype, (x,), rule, op)


def reshape_exact(x, shape):
    """``x`` reshaped to exactly ``shape`` (``Tensor.reshape`` reads a 0 as "keep this size",
    Burn's rule; gradient rules reshape to computed shapes, where a 0 is a size)."""
    shape = tuple(shape)
    return x if tuple(x.shape) == shape else _reshape_to(x, shape, "reshape")


def _permute_to(x, order, op):
    """``x`` with its dims in ``order`` (already normalized and checked), a view."""
    be = x._device.backend
    out = be.mv_permute(x._data, order)
    if x._node is None:  # untracked: no gradient rule to build (what record would give)
        return wrap(out, x._dtype, x._ad)
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i

    def rule(g, needs, out):
        return (_permute_to(g, inverse, op),)

    return record(out, x._dtype, (x,), rule, op)


@_method("reshape")
def _reshape(self, shape, *args):
    """The same elements with a new shape, given as varargs or one tuple.

    One ``-1`` is inferred; ``0`` and ``None`` keep the size of the dim at that position.
    A view of the input when its layout allows, a copy otherwise.

    >>> import ember
    >>> ember.tensor([0, 1, 2, 3, 4, 5]).reshape(2, 3).tolist()
    [[0, 1, 2], [3, 4, 5]]
    >>> ember.tensor([[0, 1, 2], [3, 4, 5]]).reshape((0, -1, 1)).shape
    (2, 3, 1)
    """
    sizes = (shape,) + args if args or type(shape) is not tuple else shape
    # fast path: nothing to infer or check
    if is_plain_shape(sizes, self._device.backend.numel(self._data)):
        return _reshape_to(self, sizes, "reshape")
    new = infer_shape(argfix((shape,) + args, "reshape"), self._data.shape, "reshape")
    return _reshape_to(self, new, "reshape")


@_method("view")
def _view(self, shape, *args):
    """An alias of ``reshape`` (tinygrad's ``view``): a view when the layout allows, else a copy.

    >>> import ember
    >>> ember.tensor([1, 2, 3, 4]).view(2, -1).tolist()
    [[1, 2], [3, 4]]
    """
    new = infer_shape(argfix((shape,) + args, "view"), self._data.shape, "view")
    return _reshape_to(self, new, "view")


@_method("reshape_as")
def _reshape_as(self, other):
    """``self.reshape(other.shape)``.

    >>> import ember
    >>> ember.tensor([1, 2, 3, 4]).reshape_as(ember.tensor([[0, 0], [0, 0]])).tolist()
    [[1, 2], [3, 4]]
    """
    check_tensor(other, "reshape_as", "other")
    return _reshape_to(self, infer_shape(other.shape, self._data.shape, "reshape_as"),
                       "reshape_as")


@_method("view_as")
def _view_as(self, other):
    """``self.view(other.shape)``.

    >>> import ember
    >>> ember.tensor([1, 2, 3, 4]).view_as(ember.tensor([[0], [0], [0], [0]])).shape
    (4, 1)
    """
    check_tensor(other, "view_as", "other")
    return _reshape_to(self, infer_shape(other.shape, self._data.shape, "view_as"), "view_as")


def _expand_shape(shape, sizes, op):
    nd = len(shape)
    if len(sizes) < nd:
        raise ShapeMismatchError(
            f"{op}: shape {tuple(sizes)} has {len(sizes)} dims, fewer than the tensor's {nd} "
            f"(shape {tuple(shape)}); expected at least {nd}", expected=tuple(shape),
            actual=tuple(sizes))
    lead = len(sizes) - nd
    src = (1,) * lead + tuple(shape)
    out = []
    for i, (s, to) in enumerate(zip(src, sizes)):
        if to is None:
            out.append(s)
            continue
        to = as_int(to, op, "shape")
        if to == -1:
            out.append(s)
        elif to < 0:
            raise InvalidParameterError(
                f"{op}: shape {tuple(sizes)} has size {to} at position {i}; expected a size "
                ">= 0, or -1 / None to keep the size", "shape", tuple(sizes))
        elif s != to and s != 1:
            raise ShapeMismatchError(
                f"{op}: cannot expand dim {i - lead} of size {s} to {to} (shape "
                f"{tuple(shape)} to {tuple(sizes)}); only size-1 dims can be expanded",
                expected=tuple(shape), actual=tuple(sizes))
        else:
            out.append(to)
    return tuple(out)


def _expand_to(x, shape, op):
    in_shape = x._data.shape
    be = x._device.backend
    out = be.mv_expand(x._data, shape, op)

    def rule(g, needs, out):
        return (sum_to(g, in_shape),)

    return record(out, x._dtype, (x,), rule, op)


@_method("expand")
def _expand(self, shape, *args):
    """A read-only broadcast view with the given shape (varargs or one tuple).

    Size-1 dims grow to any size; ``-1`` or ``None`` keeps a size; extra sizes in front add
    leading dims (``-1`` there keeps size 1). No data is copied.

    >>> import ember
    >>> ember.tensor([1, 2, 3]).expand(2, -1).tolist()
    [[1, 2, 3], [1, 2, 3]]
    """
    sizes = argfix((shape,) + args, "expand")
    return _expand_to(self, _expand_shape(self._data.shape, sizes, "expand"), "expand")


@_method("expand_as")
def _expand_as(self, other):
    """``self.expand(other.shape)``.

    >>> import ember
    >>> ember.tensor([[1], [2]]).expand_as(ember.tensor([[0, 0, 0], [0, 0, 0]])).tolist()
    [[1, 1, 1], [2, 2, 2]]
    """
    check_tensor(other, "expand_as", "other")
    return _expand_to(self, _expand_shape(self._data.shape, other.shape, "expand_as"),
                      "expand_as")


@_method("permute")
def _permute(self, order, *args):
    """The dims reordered: dim ``i`` of the result is dim ``order[i]`` of the input; a view.

    ``order`` is varargs or one sequence, negative dims count from the end.

    >>> import ember
    >>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
    >>> t.permute(1, 0).tolist()
    [[0, 3], [1, 4], [2, 5]]
    """
    dims = (order,) + args if args or type(order) is not tuple else order
    if is_permutation(dims, self._data.ndim):  # fast path: already a normalized order
        return _permute_to(self, dims, "permute")
    order = argfix((order,) + args, "permute", "order")
    nd = self._data.ndim
    if len(order) != nd:
        raise InvalidParameterError(
            f"permute: order {tuple(order)} has {len(order)} entries, expected {nd} (one per dim "
            f"of shape {self.shape})", "order", tuple(order))
    order = normalize_dims(list(order), nd, "permute", "order")
    return _permute_to(self, order, "permute")


@_method("flip")
def _flip(self, axis, *args):
    """The elements in reverse order along the given dims (varargs or one sequence); a view.

    >>> import ember
    >>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
    >>> t.flip(0).tolist()
    [[3, 4, 5], [0, 1, 2]]
    >>> t.flip((0, 1)).tolist()
    [[5, 4, 3], [2, 1, 0]]
    """
    axes = normalize_dims(list(argfix((axis,) + args, "flip", "dims")), self._data.ndim, "flip",
                          "dims")
    return _flip_to(self, axes, "flip")


def _flip_to(x, axes, op):
    """``x`` reversed along ``axes`` (normalized), a view; its rule is the same flip."""
    def rule(g, needs, out):
        return (_flip_to(g, axes, op),)

    return record(x._device.backend.mv_flip(x._data, axes), x._dtype, (x,), rule, op)


def _bound(value, size, dim, op, what, default):
    if value is None:
        return default
    v = as_int(value, op, "arg")
    r = v + size if v < 0 else v
    if not 0 <= r <= size:
        raise DimensionError(f"{op}: {what} {v} of dim {dim} is out of range for size {size}; "
                             f"expected a value in [{-size}, {size}]")
    return r


@_method("shrink")
def _shrink(self, arg):
    """A view keeping ``[start, end)`` of each dim: ``arg`` has one entry per dim, ``None``
    (keep the dim) or a pair ``(start, end)`` read as a Python slice (negatives count from the
    end, ``None`` is the start or the end); a bound outside the dim is a ``DimensionError``.

    >>> import ember
    >>> t = ember.tensor([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
    >>> t.shrink((None, (1, 3))).tolist()
    [[1, 2], [4, 5], [7, 8]]
    """
    shape = self._data.shape
    if not _is_seq(arg) or len(arg) != len(shape):
        raise InvalidParameterError(
            f"shrink: arg must be a sequence with one entry per dim ({len(shape)} for shape "
            f"{tuple(shape)}), each None or (start, end); got {arg!r}", "arg", arg)
    bounds = []
    for d, (entry, n) in enumerate(zip(arg, shape)):
        if entry is None:
            bounds.append((0, n))
            continue
        if not _is_seq(entry) or len(entry) != 2:
            raise InvalidParameterError(
                f"shrink: entry {d} of arg is {entry!r}; expected None or a pair (start, end)",
                "arg", arg)
        s = _bound(entry[0], n, d, "shrink", "start", 0)
        e = _bound(entry[1], n, d, "shrink", "end", n)
        if s > e:
            raise InvalidParameterError(
                f"shrink: entry {d} of arg is {tuple(entry)}: start {s} is after end {e}; "
                "expected start <= end", "arg", arg)
        bounds.append((s, e))
    return _shrink_to(self, bounds, "shrink")


def _shrink_to(x, bounds, op):
    """The view of ``x`` in ``bounds`` (one checked ``(start, end)`` per dim); its rule puts the
    gradient back in a zero tensor of ``x``'s shape (``_unshrink``)."""
    shape = x._data.shape

    def rule(g, needs, out):
        return (_unshrink(g, shape, bounds, op),)

    return record(x._device.backend.mv_slice(x._data, bounds), x._dtype, (x,), rule, op)


def _unshrink(g, shape, bounds, op):
    """The adjoint of ``_shrink_to``: zeros of ``shape`` with ``g`` at ``bounds``; its rule is
    that shrink again."""
    def rule(gg, needs, out):
        return (_shrink_to(gg, bounds, op),)

    return record(g._device.backend.mv_slice_backward(g._data, shape, bounds), g._dtype, (g,),
                  rule, op)


# -- pad -----------------------------------------------------------------------------------------

_MODES = {"constant": "constant", "reflect": "reflect", "edge": "edge", "replicate": "edge",
          "circular": "circular"}


class PadMode:
    """A padding mode for ``pad`` (Burn's ``PadMode``); plain strings work as well.

    >>> import ember
    >>> ember.PadMode.constant(-1.0)
    PadMode.constant(-1.0)
    >>> ember.tensor([1.0, 2.0, 3.0]).pad([(2, 0)], ember.PadMode.reflect()).tolist()
    [3.0, 2.0, 1.0, 2.0, 3.0]
    """

    __slots__ = ("mode", "value")
    _is_pad_mode = True

    def __init__(self, mode, value=0.0):
        if not isinstance(mode, str) or mode not in _MODES:
            raise InvalidParameterError(
                f"PadMode: mode {mode!r} is unknown; expected one of {tuple(_MODES)}", "mode", mode)
        self.mode = _MODES[mode]
        self.value = value

    @classmethod
    def constant(cls, value=0.0):
        """Fill with ``value``."""
        return cls("constant", value)

    @classmethod
    def reflect(cls):
        """Mirror the values next to the border, the border itself excluded."""
        return cls("reflect")

    @classmethod
    def edge(cls):
        """Repeat the border value (PyTorch's "replicate")."""
        return cls("edge")

    @classmethod
    def circular(cls):
        """Wrap around: the values from the other end."""
        return cls("circular")

    def __eq__(self, other):
        return getattr(other, "_is_pad_mode", False) and (self.mode, self.value) == (other.mode, other.value)

    def __hash__(self):
        return hash((self.mode, self.value))

    def __repr__(self):
        return f"PadMode.constant({self.value!r})" if self.mode == "constant" else \
            f"PadMode.{self.mode}()"


def _pad_pairs(padding, ndim, op):
    """Padding in any accepted form as one (before, after) pair per dim."""
    if not _is_seq(padding):
        raise InvalidParameterError(
            f"{op}: padding must be a sequence of (before, after) pairs or None per dim, or a flat "
            f"(left, right, top, bottom, ...) tuple of ints; got {padding!r}", "padding", padding)
    flat = [p for p in padding if not (p is None or _is_seq(p))]
    if flat and len(flat) != len(padding):
        raise InvalidParameterError(
            f"{op}: padding {padding!r} mixes numbers with pairs; expected either a flat tuple of "
            "ints or one (before, after) pair (or None) per dim", "padding", padding)
    if flat:  # flat, PyTorch's and Burn's order: the last dim first
        if len(padding) % 2:
            raise InvalidParameterError(
                f"{op}: flat padding {tuple(padding)} has odd length {len(padding)}; expected "
                "(before, after) amounts for the last dim, then the one before it, ...",
                "padding", padding)
        amounts = [as_int(p, op, "padding") for p in padding]
        pairs = [(amounts[i], amounts[i + 1]) for i in range(0, len(amounts), 2)][::-1]
    else:
        pairs = []
        for i, p in enumerate(padding):
            if p is None:
                pairs.append((0, 0))
            elif len(p) != 2:
                raise InvalidParameterError(
                    f"{op}: entry {i} of padding is {tuple(p)}; expected None or a pair "
                    "(before, after)", "padding", padding)
            else:
                pairs.append((as_int(p[0], op, "padding"), as_int(p[1], op, "padding")))
    if len(pairs) > ndim:
        raise InvalidParameterError(
            f"{op}: padding {tuple(padding)} covers {len(pairs)} dims, but the tensor has only "
            f"{ndim}; expected at most {ndim} (before, after) pairs", "padding", padding)
    return [(0, 0)] * (ndim - len(pairs)) + pairs


def _pad_impl(x, padding, mode, value, op):
    shape = x._data.shape
    pads = _pad_pairs(padding, len(shape), op)
    for d, ((b, e), n) in enumerate(zip(pads, shape)):
        pb, pe = max(b, 0), max(e, 0)
        if max(-b, 0) + max(-e, 0) > n:
            raise InvalidParameterError(
                f"{op}: padding ({b}, {e}) of dim {d} crops more than its size {n}; expected the "
                "negative amounts to remove at most the dim's size together", "padding", padding)
        if mode == "reflect" and (pb >= n or pe >= n) and (pb or pe):
            raise InvalidParameterError(
                f"{op}: reflect padding ({b}, {e}) of dim {d} needs amounts < the dim's size {n}",
                "padding", padding)
        if mode == "edge" and n == 0 and (pb or pe):
            raise InvalidParameterError(
                f"{op}: edge padding ({b}, {e}) of dim {d} has no edge to repeat (size 0)",
                "padding", padding)
        if mode == "circular" and (pb > n or pe > n):
            raise InvalidParameterError(
                f"{op}: circular padding ({b}, {e}) of dim {d} needs amounts <= the dim's size {n}",
                "padding", padding)
    dtype = x._dtype
    be = x._device.backend
    if mode == "constant" and value != 0:
        dtype = _dt.result_type(x, value)
        if dtype.kind == "int" and not be.mv_int_fits(value, dtype):
            raise InvalidParameterError(
                f"{op}: value {value!r} does not fit the result dtype {dtype.name}; expected an "
                f"integer in the range of {dtype.name}", "value", value)
    return _pad_to(x, pads, mode, value, dtype, op)


def _pad_to(x, pads, mode, value, dtype, op):
    """``x`` padded by ``pads`` (checked pairs, one per dim) as ``dtype``; its rule is the
    adjoint ``_unpad``."""
    shape = x._data.shape
    src = x._dtype

    def rule(g, needs, out):
        gx = _unpad(g, shape, pads, mode, op)
        return (gx if gx._dtype is src else gx.cast(src),)

    return record(x._device.backend.mv_pad(x._data, pads, mode, value, dtype, op=op), dtype,
                  (x,), rule, op)


def _unpad(g, shape, pads, mode, op):
    """The adjoint of ``_pad_to`` (the fill value left out): the gradient for the input of
    ``shape``; its rule is that pad again, with zeros."""
    def rule(gg, needs, out):
        return (_pad_to(gg, pads, mode, 0, gg._dtype, op),)

    return record(g._device.backend.mv_pad_backward(g._data, shape, pads, mode), g._dtype, (g,),
                  rule, op)


def _check_value(value, op):
    if not isinstance(value, numbers.Number):
        raise InvalidParameterError(
            f"{op}: value must be a number, got {type(value).__name__} {value!r}",
            "value", value)


@_method("pad")
def _pad(self, padding, mode="constant", value=0.0):
    """A new tensor with ``padding`` added around the values.

    ``padding`` is one ``(before, after)`` pair or ``None`` per dim, aligned to the last dims
    when shorter, or a flat ``(left, right, top, bottom, ...)`` tuple (PyTorch's order: the last
    dim first). ``mode`` is ``"constant"`` (fill with ``value``), ``"reflect"``, ``"edge"`` (alias
    ``"replicate"``), ``"circular"``, or a ``PadMode``; a number in its place is the constant
    ``value`` (tinygrad's ``t.pad(arg, -2)``). Negative amounts crop. A fill value of another
    kind promotes the result as arithmetic would (an int tensor padded with ``-inf`` is float,
    a float32 tensor padded with ``1j`` is complex64).

    >>> import ember
    >>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
    >>> t.pad((None, (1, 2)), -2).tolist()
    [[-2, 0, 1, 2, -2, -2], [-2, 3, 4, 5, -2, -2]]
    >>> t.pad([(1, 1)], "reflect").tolist()
    [[1, 0, 1, 2, 1], [4, 3, 4, 5, 4]]
    """
    if getattr(mode, "_is_pad_mode", False):  # a PadMode (duck-typed: survives module reloads)
        mode, value = mode.mode, (mode.value if mode.mode == "constant" else value)
    elif isinstance(mode, numbers.Number):
        if value != 0.0:
            raise InvalidParameterError(
                f"pad: got the fill value twice ({mode!r} in place of mode and value={value!r}); "
                "expected one", "value", value)
        mode, value = "constant", mode
    elif isinstance(mode, str) and mode in _MODES:
        mode = _MODES[mode]
    else:
        raise InvalidParameterError(
            f"pad: mode {mode!r} is unknown; expected one of {tuple(_MODES)}, a PadMode or a "
            "number (the constant value)", "mode", mode)
    _check_value(value, "pad")
    return _pad_impl(self, padding, mode, value, "pad")


@_method("pad2d")
def _pad2d(self, padding, value=0.0):
    """Pad the last two dims by ``(left, right, top, bottom)`` with ``value``; negative amounts
    crop (tinygrad's ``pad2d``). A shorter or longer even-length tuple covers fewer or more dims.

    >>> import ember
    >>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
    >>> t.pad2d((1, -1, 0, 1)).tolist()
    [[0, 0, 1], [0, 3, 4], [0, 0, 0]]
    """
    if not _is_seq(padding) or any(p is None or _is_seq(p) for p in padding):
        raise InvalidParameterError(
            f"pad2d: padding must be a flat sequence of ints (left, right, top, bottom); got "
            f"{padding!r}", "padding", padding)
    _check_value(value, "pad2d")
    return _pad_impl(self, padding, "constant", value, "pad2d")


# -- transposes ----------------------------------------------------------------------------------

def _swap(x, d0, d1, op, p0="dim0", p1="dim1"):
    nd = x._data.ndim
    a = normalize_dim(d0, nd, op, p0)
    b = normalize_dim(d1, nd, op, p1)
    order = list(range(nd))
    order[a], order[b] = b, a
    return _permute_to(x, order, op)


@_method("transpose")
def _transpose(self, dim0=-2, dim1=-1):
    """Dims ``dim0`` and ``dim1`` swapped, by default the last two (a matrix transpose); a view.

    >>> import ember
    >>> ember.tensor([[1, 2, 3], [4, 5, 6]]).transpose().tolist()
    [[1, 4], [2, 5], [3, 6]]
    >>> ember.tensor([[[1, 2]]]).transpose(0, 2).shape
    (2, 1, 1)
    """
    return _swap(self, dim0, dim1, "transpose")


@_method("t")
def _t(self):
    """``transpose()``: the last two dims swapped; a 0-d or 1-d tensor comes back as it is.

    >>> import ember
    >>> ember.tensor([[1, 2, 3]]).t().tolist()
    [[1], [2], [3]]
    """
    if self._data.ndim < 2:
        return _permute_to(self, tuple(range(self._data.ndim)), "t")
    return _swap(self, -2, -1, "t")


def T(self):
    """``transpose()`` as a property: the last two dims swapped (0-d and 1-d: unchanged).

    >>> import ember
    >>> ember.tensor([[1, 2], [3, 4]]).T.tolist()
    [[1, 3], [2, 4]]
    """
    return _t(self)


tensor_method(T, prop=True)


def mT(self):
    """The Array API's matrix transpose: the last two dims swapped, a view; a tensor of fewer
    than 2 dims raises DimensionError (it has no matrices).

    >>> import ember
    >>> ember.zeros(4, 2, 3).mT.shape
    (4, 3, 2)
    """
    if self._data.ndim < 2:
        raise DimensionError(f"mT: the tensor has {self._data.ndim} dims (shape "
                             f"{tuple(self.shape)}); expected at least 2")
    return _swap(self, -2, -1, "mT")


tensor_method(mT, prop=True)


@_method("swap_dims")
def _swap_dims(self, dim1, dim2):
    """Dims ``dim1`` and ``dim2`` swapped (Burn's ``swap_dims``; negatives count from the end).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).swap_dims(0, -1).tolist()
    [[1.0, 5.0], [-2.0, 9.0], [3.0, 6.0]]
    """
    return _swap(self, dim1, dim2, "swap_dims", "dim1", "dim2")


@_method("movedim")
def _movedim(self, source, destination):
    """The dims at ``source`` moved to ``destination`` (ints or equal-length sequences); the
    other dims keep their order. A view.

    >>> import ember
    >>> ember.tensor([[[1.0], [5.0]], [[-2.0], [9.0]], [[3.0], [6.0]]]).movedim(1, 0).tolist()
    [[[1.0], [-2.0], [3.0]], [[5.0], [9.0], [6.0]]]
    """
    nd = self._data.ndim
    src_seq, dst_seq = _is_seq(source), _is_seq(destination)
    src = list(source) if src_seq else [source]
    dst = list(destination) if dst_seq else [destination]
    if len(src) != len(dst):
        raise InvalidParameterError(
            f"movedim: source {source!r} has {len(src)} dims but destination {destination!r} has "
            f"{len(dst)}; expected the same number", "destination", destination)
    src = normalize_dims(src, nd, "movedim", "source")
    dst = normalize_dims(dst, nd, "movedim", "destination")
    order = [None] * nd
    for s, d in zip(src, dst):
        order[d] = s
    moved = set(src)
    rest = iter([d for d in range(nd) if d not in moved])
    order = [next(rest) if o is None else o for o in order]
    return _permute_to(self, order, "movedim")


# -- flatten, squeeze, unsqueeze -----------------------------------------------------------------

@_method("flatten")
def _flatten(self, start_dim=0, end_dim=-1):
    """Dims ``start_dim`` to ``end_dim`` (inclusive) merged into one; a view when possible.
    A 0-d tensor becomes 1-d.

    >>> import ember
    >>> t = ember.tensor([[[0, 1], [2, 3]], [[4, 5], [6, 7]]])
    >>> t.flatten().tolist()
    [0, 1, 2, 3, 4, 5, 6, 7]
    >>> t.flatten(start_dim=1).tolist()
    [[0, 1, 2, 3], [4, 5, 6, 7]]
    """
    shape = self._data.shape
    nd = len(shape)
    s = normalize_dim(start_dim, max(nd, 1), "flatten", "start_dim")
    e = normalize_dim(end_dim, max(nd, 1), "flatten", "end_dim")
    if nd == 0:
        return _reshape_to(self, (1,), "flatten")
    if s > e:
        raise InvalidParameterError(
            f"flatten: start_dim {start_dim} (dim {s}) comes after end_dim {end_dim} (dim {e}); "
            "expected start_dim <= end_dim", "start_dim", start_dim)
    new = shape[:s] + (prod(shape[s:e + 1]),) + shape[e + 1:]
    return _reshape_to(self, new, "flatten")


@_method("unflatten")
def _unflatten(self, dim, sizes):
    """Dim ``dim`` split into dims of ``sizes`` (one may be ``-1``); the inverse of ``flatten``.

    >>> import ember
    >>> ember.tensor([[1, 2, 3, 4]]).unflatten(1, (2, -1)).tolist()
    [[[1, 2], [3, 4]]]
    """
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "unflatten")
    if not _is_seq(sizes) or not sizes:
        raise InvalidParameterError(
            f"unflatten: sizes must be a non-empty sequence of ints, got {sizes!r}", "sizes", sizes)
    check_rank(len(shape) - 1 + len(sizes), "unflatten", "sizes", sizes)
    sizes = tuple([as_int(s, "unflatten", "sizes") for s in sizes])
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise InvalidParameterError(
            f"unflatten: sizes {sizes} must be sizes >= 0 with at most one -1", "sizes", sizes)
    n = shape[d]
    known = prod([s for s in sizes if s != -1])
    if -1 in sizes:
        if known == 0 or n % known:
            raise ShapeMismatchError(
                f"unflatten: cannot infer the -1 in sizes {sizes} for dim {d} of size {n}",
                expected=n, actual=sizes)
        sizes = tuple([n // known if s == -1 else s for s in sizes])
    elif known != n:
        raise ShapeMismatchError(
            f"unflatten: sizes {sizes} multiply to {known}, expected the size {n} of dim {d}",
            expected=n, actual=sizes)
    return _reshape_to(self, shape[:d] + sizes + shape[d + 1:], "unflatten")


@_method("squeeze")
def _squeeze(self, dim=None):
    """Size-1 dims removed: all of them (``dim=None``), or ``dim`` (an int or a sequence) where
    its size is 1; a dim of another size is left as it is (tinygrad and PyTorch). A view.

    >>> import ember
    >>> t = ember.tensor([[[1, 2]]])
    >>> t.squeeze().shape, t.squeeze(0).shape, t.squeeze(2).shape
    ((2,), (1, 2), (1, 1, 2))
    """
    shape = self._data.shape
    nd = len(shape)
    if dim is None:
        keep = [s for s in shape if s != 1]
    else:
        dims = normalize_dims(list(dim) if _is_seq(dim) else [dim], max(nd, 1), "squeeze", "dim")
        if nd == 0:
            keep = []
        else:
            drop = set(d for d in dims if shape[d] == 1)
            keep = [s for i, s in enumerate(shape) if i not in drop]
    return _reshape_to(self, tuple(keep), "squeeze")


@_method("squeeze_dim")
def _squeeze_dim(self, dim):
    """Dim ``dim`` removed; ``ShapeMismatchError`` if its size is not 1 (Burn's ``squeeze_dim``).

    >>> import ember
    >>> ember.tensor([[1, 2, 3]]).squeeze_dim(0).tolist()
    [1, 2, 3]
    """
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "squeeze_dim")
    if shape[d] != 1:
        raise ShapeMismatchError(
            f"squeeze_dim: dim {dim} has size {shape[d]} (shape {tuple(shape)}); expected size 1",
            expected=1, actual=shape[d])
    return _reshape_to(self, shape[:d] + shape[d + 1:], "squeeze_dim")


@_method("squeeze_dims")
def _squeeze_dims(self, dims):
    """The size-1 dims ``dims`` removed (all size-1 dims when ``dims`` is empty);
    ``ShapeMismatchError`` if one of them has another size.

    >>> import ember
    >>> ember.tensor([[[1], [2]]]).squeeze_dims([0, -1]).tolist()
    [1, 2]
    """
    shape = self._data.shape
    if not _is_seq(dims):
        dims = [dims]
    ds = normalize_dims(list(dims), len(shape), "squeeze_dims", "dims")
    if not ds:
        return _reshape_to(self, tuple([s for s in shape if s != 1]), "squeeze_dims")
    for d, raw in zip(ds, dims):
        if shape[d] != 1:
            raise ShapeMismatchError(
                f"squeeze_dims: dim {raw} has size {shape[d]} (shape {tuple(shape)}); expected "
                "size 1",
                expected=1, actual=shape[d])
    drop = set(ds)
    return _reshape_to(self, tuple([s for i, s in enumerate(shape) if i not in drop]),
                       "squeeze_dims")


def _insert_dim(dim, ndim, op):
    """A position for a new dim, in [-(ndim + 1), ndim], made non-negative."""
    if ndim >= MAX_RANK:
        check_rank(ndim + 1, op, "dim", dim)
    d = as_int(dim, op, "dim")
    if not -ndim - 1 <= d <= ndim:
        raise DimensionError(
            f"{op}: dim {d} is out of range for inserting a dim into a tensor of rank {ndim}; "
            f"expected a dim in [{-ndim - 1}, {ndim}]")
    return d + ndim + 1 if d < 0 else d


@_method("unsqueeze")
def _unsqueeze(self, dim):
    """A new size-1 dim at position ``dim`` of the result (negatives count from its end). A view.

    >>> import ember
    >>> t = ember.tensor([1, 2, 3, 4])
    >>> t.unsqueeze(0).tolist()
    [[1, 2, 3, 4]]
    >>> t.unsqueeze(-1).shape
    (4, 1)
    """
    shape = self._data.shape
    d = _insert_dim(dim, len(shape), "unsqueeze")
    return _reshape_to(self, shape[:d] + (1,) + shape[d:], "unsqueeze")


@_method("unsqueeze_dim")
def _unsqueeze_dim(self, dim):
    """Burn's name for ``unsqueeze(dim)``.

    >>> import ember
    >>> ember.tensor([[1, 2], [3, 4]]).unsqueeze_dim(1).shape
    (2, 1, 2)
    """
    shape = self._data.shape
    d = _insert_dim(dim, len(shape), "unsqueeze_dim")
    return _reshape_to(self, shape[:d] + (1,) + shape[d:], "unsqueeze_dim")


@_method("unsqueeze_dims")
def _unsqueeze_dims(self, axes):
    """New size-1 dims at the positions ``axes`` of the result (Burn's ``unsqueeze_dims``).

    The result has ``ndim + len(axes)`` dims; a negative position counts from its end. A position
    named ``k`` times gets ``k`` new dims: forward from a non-negative position, backward from a
    negative one, so ``[0, -1, -1]`` adds one leading and two trailing dims.

    >>> import ember
    >>> ember.tensor([[1, 2]]).unsqueeze_dims([0, -1, -1]).shape
    (1, 1, 2, 1, 1)
    """
    shape = self._data.shape
    if not _is_seq(axes):
        axes = [axes]
    rank = check_rank(len(shape) + len(axes), "unsqueeze_dims", "axes", axes)
    taken = [False] * rank
    raw = [as_int(a, "unsqueeze_dims", "axes") for a in axes]
    for a in raw:
        if not -rank <= a < rank:
            raise DimensionError(
                f"unsqueeze_dims: axis {a} is out of range for a result of rank {rank}; expected "
                f"a position in [{-rank}, {rank - 1}]")
    for a in sorted([a for a in raw if a >= 0]):
        while a < rank and taken[a]:
            a += 1
        if a == rank:
            raise DimensionError(f"unsqueeze_dims: axes {tuple(raw)} need more positions than "
                                 f"the result's {rank} dims")
        taken[a] = True
    for a in sorted([a + rank for a in raw if a < 0], reverse=True):
        while a >= 0 and taken[a]:
            a -= 1
        if a < 0:
            raise DimensionError(f"unsqueeze_dims: axes {tuple(raw)} need more positions than "
                                 f"the result's {rank} dims")
        taken[a] = True
    rest = iter(shape)
    new = tuple([1 if t else next(rest) for t in taken])
    return _reshape_to(self, new, "unsqueeze_dims")


@_method("unsqueeze_to")
def _unsqueeze_to(self, rank):
    """New leading size-1 dims up to ``rank`` dims (Burn's ``unsqueeze::<D2>()``).

    >>> import ember
    >>> ember.tensor([[1, 2], [3, 4]]).unsqueeze_to(4).shape
    (1, 1, 2, 2)
    """
    shape = self._data.shape
    r = as_int(rank, "unsqueeze_to", "rank")
    check_rank(r, "unsqueeze_to", "rank", rank)
    if r < len(shape):
        raise InvalidParameterError(
            f"unsqueeze_to: rank {r} is smaller than the tensor's rank {len(shape)} (shape "
            f"{tuple(shape)}); expected rank >= {len(shape)}", "rank", rank)
    return _reshape_to(self, (1,) * (r - len(shape)) + shape, "unsqueeze_to")


# -- roll, repeat, unfold ------------------------------------------------------------------------

def _roll_to(x, shifts, axes, op):
    out = x._device.backend.mv_roll(x._data, shifts, axes)
    back = tuple([-s for s in shifts]) if isinstance(shifts, tuple) else -shifts

    def rule(g, needs, out):
        return (_roll_to(g, back, axes, op),)

    return record(out, x._dtype, (x,), rule, op)


@_method("roll")
def _roll(self, shifts, dims=None):
    """The elements shifted along ``dims`` by ``shifts`` with wrap-around; a positive shift
    moves elements to higher indices (NumPy and PyTorch). ``shifts`` and ``dims`` are ints or
    sequences of the same length (a dim may repeat: its shifts add up); with ``dims=None`` the
    flattened tensor is rolled and the shape restored.

    >>> import ember
    >>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
    >>> t.roll(1, 1).tolist()
    [[2, 0, 1], [5, 3, 4]]
    >>> t.roll(1).tolist()
    [[5, 0, 1], [2, 3, 4]]
    """
    if dims is None:
        if _is_seq(shifts):
            if len(shifts) != 1:
                raise InvalidParameterError(
                    f"roll: shifts {tuple(shifts)} needs dims of the same length; with dims=None "
                    "expected a single shift", "shifts", shifts)
            shifts = shifts[0]
        return _roll_to(self, as_int(shifts, "roll", "shifts", wide=True), None, "roll")
    s_list = list(shifts) if _is_seq(shifts) else [shifts]
    d_list = list(dims) if _is_seq(dims) else [dims]
    if len(s_list) != len(d_list):
        raise InvalidParameterError(
            f"roll: shifts {shifts!r} and dims {dims!r} have different lengths ({len(s_list)} "
            f"and {len(d_list)}); expected one shift per dim", "shifts", shifts)
    s_list = tuple([as_int(s, "roll", "shifts", wide=True) for s in s_list])
    axes = normalize_dims(d_list, self._data.ndim, "roll", "dims", allow_duplicates=True)
    return _roll_to(self, s_list, axes, "roll")


@_method("roll_dim")
def _roll_dim(self, shift, dim):
    """The elements shifted by ``shift`` along ``dim`` with wrap-around (Burn's ``roll_dim``,
    NumPy's direction: ``[0, 1, 2, 3, 4]`` rolled by 2 is ``[3, 4, 0, 1, 2]``).

    >>> import ember
    >>> ember.tensor([0, 1, 2, 3, 4]).roll_dim(2, 0).tolist()
    [3, 4, 0, 1, 2]
    """
    s = as_int(shift, "roll_dim", "shift", wide=True)
    d = normalize_dim(dim, self._data.ndim, "roll_dim")
    return _roll_to(self, (s,), (d,), "roll_dim")


def _repeat_impl(x, reps, op):
    shape = x._data.shape
    nd = len(shape)
    reps = [as_int(r, op, "repeats") for r in reps]
    for r in reps:
        if r < 0:
            raise InvalidParameterError(
                f"{op}: repeats {tuple(reps)} has negative count {r}; expected counts >= 0",
                "repeats", tuple(reps))
    if len(reps) < nd:
        reps = reps + [1] * (nd - len(reps))
    base = (1,) * (len(reps) - nd) + shape
    y = _reshape_to(x, tuple([v for b in base for v in (1, b)]), op)
    y = _expand_to(y, tuple([v for r, b in zip(reps, base) for v in (r, b)]), op)
    return _reshape_to(y, tuple([r * b for r, b in zip(reps, base)]), op)


@_method("repeat")
def _repeat(self, repeats, *args):
    """The tensor tiled ``repeats[i]`` times along dim ``i`` (varargs or one sequence).

    More counts than dims add leading dims (tinygrad, PyTorch); fewer apply to the leading dims
    (Burn). Always a new buffer.

    >>> import ember
    >>> ember.tensor([1, 2, 3]).repeat(2, 2).tolist()
    [[1, 2, 3, 1, 2, 3], [1, 2, 3, 1, 2, 3]]
    """
    return _repeat_impl(self, argfix((repeats,) + args, "repeat", "repeats"), "repeat")


@_method("repeat_dim")
def _repeat_dim(self, dim, times):
    """The tensor tiled ``times`` times along ``dim`` (Burn's ``repeat_dim``).

    >>> import ember
    >>> ember.tensor([[1, 2]]).repeat_dim(0, 3).tolist()
    [[1, 2], [1, 2], [1, 2]]
    """
    d = normalize_dim(dim, self._data.ndim, "repeat_dim")
    times = as_int(times, "repeat_dim", "times")
    if times < 0:
        raise InvalidParameterError(f"repeat_dim: times {times} is negative; expected >= 0",
                                    "times", times)
    reps = [1] * self._data.ndim
    reps[d] = times
    return _repeat_impl(self, reps, "repeat_dim")


@_method("repeat_interleave")
def _repeat_interleave(self, repeats, dim=None):
    """Each element repeated ``repeats`` times along ``dim`` (``None``: of the flattened tensor).

    ``repeats`` is an int, or an int tensor (or sequence) with one count per element along
    ``dim`` (or a single count).

    >>> import ember
    >>> ember.tensor([1, 2, 3]).repeat_interleave(2).tolist()
    [1, 1, 2, 2, 3, 3]
    >>> ember.tensor([[1, 2], [3, 4]]).repeat_interleave([1, 2], dim=0).tolist()
    [[1, 2], [3, 4], [3, 4]]
    """
    op = "repeat_interleave"
    if dim is None:
        x, d = _flatten(self), 0
    else:
        x, d = self, normalize_dim(dim, self._data.ndim, op)
    shape = x._data.shape
    if isinstance(repeats, Tensor) or _is_seq(repeats):
        if isinstance(repeats, Tensor):
            reps = repeats
        else:
            try:
                reps = wrap(*_data_from(list(repeats), None, op, x._device))
            except (KindError, InvalidParameterError):
                raise InvalidParameterError(
                    f"{op}: repeats {repeats!r} must be ints", "repeats", repeats) from None
            if not repeats:
                reps = reps.cast(_dt.int64)
        if reps.kind != "int":
            raise KindError(f"{op}: repeats must be an int tensor, got {reps.dtype.name}")
        if reps.ndim > 1 or reps.numel() not in (1, shape[d]):
            raise ShapeMismatchError(
                f"{op}: repeats has shape {tuple(reps.shape)}; expected a single count or one "
                f"count per element along dim {d} (size {shape[d]})", expected=(shape[d],),
                actual=tuple(reps.shape))
        be = backend_of(x, reps, op)
        if be.mv_any_negative(reps._data):
            raise InvalidParameterError(f"{op}: repeats has a negative count; expected >= 0",
                                        "repeats", repeats)
        counts = be.mv_reshape(reps._data, (-1,), op) if reps.ndim else reps._data
        return _repeat_counts(x, counts, d, op)
    r = as_int(repeats, op, "repeats")
    if r < 0:
        raise InvalidParameterError(f"{op}: repeats {r} is negative; expected >= 0",
                                    "repeats", repeats)
    y = _reshape_to(x, shape[:d + 1] + (1,) + shape[d + 1:], op)
    y = _expand_to(y, shape[:d + 1] + (r,) + shape[d + 1:], op)
    return _reshape_to(y, shape[:d] + (shape[d] * r,) + shape[d + 1:], op)


def _repeat_counts(x, counts, d, op):
    """Each entry of ``x`` along ``d`` repeated by the int array ``counts`` (constants); its
    rule sums the copies back (``_unrepeat_counts``)."""
    shape = x._data.shape

    def rule(g, needs, out):
        return (_unrepeat_counts(g, shape, counts, d, op),)

    return record(x._device.backend.mv_repeat_interleave(x._data, counts, d, op=op), x._dtype,
                  (x,), rule, op)


def _unrepeat_counts(g, shape, counts, d, op):
    """The adjoint of ``_repeat_counts``: the copies summed into ``shape``; its rule repeats
    again."""
    def rule(gg, needs, out):
        return (_repeat_counts(gg, counts, d, op),)

    return record(g._device.backend.mv_repeat_interleave_backward(g._data, shape, counts, d),
                  g._dtype, (g,), rule, op)


@_method("unfold")
def _unfold(self, dim, size, step):
    """The windows of ``size`` elements every ``step`` along ``dim``, as a read-only view.

    Dim ``dim`` becomes the window index (``(n - size) // step + 1`` windows, 0 when
    ``n < size``) and a new last dim of ``size`` holds each window's elements.

    >>> import ember
    >>> ember.tensor([1, 2, 3, 4, 5]).unfold(0, 2, 2).tolist()
    [[1, 2], [3, 4]]
    """
    shape = self._data.shape
    d = normalize_dim(dim, len(shape), "unfold")
    size = as_int(size, "unfold", "size")
    step = as_int(step, "unfold", "step")
    if size < 0:
        raise InvalidParameterError(f"unfold: size {size} is negative; expected >= 0",
                                    "size", size)
    if step < 1:
        raise InvalidParameterError(f"unfold: step {step} must be >= 1", "step", step)
    check_rank(len(shape) + 1, "unfold", "self", shape)
    return _unfold_to(self, d, size, step, "unfold")


def _unfold_to(x, d, size, step, op):
    """The windows of ``x`` along ``d`` (checked arguments), a view; its rule is the fold
    ``_fold``."""
    shape = x._data.shape

    def rule(g, needs, out):
        return (_fold(g, shape, d, size, step, op),)

    return record(x._device.backend.mv_unfold(x._data, d, size, step), x._dtype, (x,), rule, op)


def _fold(g, shape, d, size, step, op):
    """The adjoint of ``_unfold_to``: the windows summed back into ``shape``; its rule unfolds
    again."""
    def rule(gg, needs, out):
        return (_unfold_to(gg, d, size, step, op),)

    return record(g._device.backend.mv_unfold_backward(g._data, shape, d, size, step), g._dtype,
                  (g,), rule, op)


# -- module functions (PyTorch's spellings) -------------------------------------------------------

def _input(x, op):
    return check_tensor(x, op, "input")


def reshape(input, shape, *args):
    """``ember.reshape(x, shape)`` is ``x.reshape(shape)``.

    >>> import ember
    >>> ember.reshape(ember.tensor([1, 2, 3, 4]), (2, 2)).tolist()
    [[1, 2], [3, 4]]
    """
    return _reshape(_input(input, "reshape"), shape, *args)


def permute(input, dims, *args):
    """``ember.permute(x, dims)`` is ``x.permute(dims)``.

    >>> import ember
    >>> ember.permute(ember.tensor([[1, 2]]), (1, 0)).tolist()
    [[1], [2]]
    """
    return _permute(_input(input, "permute"), dims, *args)


def flip(input, dims, *args):
    """``ember.flip(x, dims)`` is ``x.flip(dims)``.

    >>> import ember
    >>> ember.flip(ember.tensor([1, 2, 3]), 0).tolist()
    [3, 2, 1]
    """
    return _flip(_input(input, "flip"), dims, *args)


def transpose(input, dim0=-2, dim1=-1):
    """``ember.transpose(x, dim0, dim1)`` is ``x.transpose(dim0, dim1)``.

    >>> import ember
    >>> ember.transpose(ember.tensor([[1, 2]]), 0, 1).tolist()
    [[1], [2]]
    """
    return _transpose(_input(input, "transpose"), dim0, dim1)


def t(input):
    """``ember.t(x)`` is ``x.t()``.

    >>> import ember
    >>> ember.t(ember.tensor([[1, 2]])).tolist()
    [[1], [2]]
    """
    return _t(_input(input, "t"))


def movedim(input, source, destination):
    """``ember.movedim(x, source, destination)`` is ``x.movedim(source, destination)``.

    >>> import ember
    >>> ember.movedim(ember.tensor([[[1, 2, 3]]]), 2, 0).shape
    (3, 1, 1)
    """
    return _movedim(_input(input, "movedim"), source, destination)


def flatten(input, start_dim=0, end_dim=-1):
    """``ember.flatten(x, start_dim, end_dim)`` is ``x.flatten(start_dim, end_dim)``.

    >>> import ember
    >>> ember.flatten(ember.tensor([[1, 2], [3, 4]])).tolist()
    [1, 2, 3, 4]
    """
    return _flatten(_input(input, "flatten"), start_dim, end_dim)


def unflatten(input, dim, sizes):
    """``ember.unflatten(x, dim, sizes)`` is ``x.unflatten(dim, sizes)``.

    >>> import ember
    >>> ember.unflatten(ember.tensor([1, 2, 3, 4]), 0, (2, 2)).tolist()
    [[1, 2], [3, 4]]
    """
    return _unflatten(_input(input, "unflatten"), dim, sizes)


def squeeze(input, dim=None):
    """``ember.squeeze(x, dim)`` is ``x.squeeze(dim)``.

    >>> import ember
    >>> ember.squeeze(ember.tensor([[1, 2]])).tolist()
    [1, 2]
    """
    return _squeeze(_input(input, "squeeze"), dim)


def unsqueeze(input, dim):
    """``ember.unsqueeze(x, dim)`` is ``x.unsqueeze(dim)``.

    >>> import ember
    >>> ember.unsqueeze(ember.tensor([1, 2]), 1).tolist()
    [[1], [2]]
    """
    return _unsqueeze(_input(input, "unsqueeze"), dim)


def roll(input, shifts, dims=None):
    """``ember.roll(x, shifts, dims)`` is ``x.roll(shifts, dims)``.

    >>> import ember
    >>> ember.roll(ember.tensor([1, 2, 3]), 1).tolist()
    [3, 1, 2]
    """
    return _roll(_input(input, "roll"), shifts, dims)


def repeat_interleave(input, repeats, dim=None):
    """``ember.repeat_interleave(x, repeats, dim)`` is ``x.repeat_interleave(repeats, dim)``.

    >>> import ember
    >>> ember.repeat_interleave(ember.tensor([1, 2]), 3).tolist()
    [1, 1, 1, 2, 2, 2]
    """
    return _repeat_interleave(_input(input, "repeat_interleave"), repeats, dim)
