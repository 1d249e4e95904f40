"""Pad and shrink, the movement ops that add or remove a border: PadMode, pad, pad2d and shrink.

``shrink`` keeps ``[start, end)`` of each dim as a view; ``pad`` adds a border (negative
amounts crop) in a new buffer. Each is the other's adjoint in the gradient rules
(``_unshrink`` pads with zeros, ``_unpad`` cuts the border away).

See docs/movement.md for a guide.
"""

import numbers

from .. import dtypes as _dt
from ..errors import DimensionError, InvalidParameterError
from ..shapes import as_int
from .._tensor import record
from .views import _is_seq, _method

__all__ = ["PadMode"]


# -- shrink --------------------------------------------------------------------------------------

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
