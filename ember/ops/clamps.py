"""Clamps and pairwise extrema: ``clamp``, ``clamp_min``, ``clamp_max`` (number or tensor
bounds) and the elementwise ``max_pair``/``min_pair`` with PyTorch's names ``maximum`` and
``minimum``; NaN propagates. See ``elementwise.py`` for the rules every elementwise family
shares.
"""

from ..errors import InvalidParameterError
from ..shapes import broadcast_shapes
from ..autodiff.rules import fit
from ..primitives import PRIMITIVES
from .._tensor import Tensor, device_error, record, tensor_method, wrap
from .elementwise import (_check_operand, _check_tensor, _fits, _prep2, _record2t, _result_type,
                          _scalar, _scalar_dtype, _times_mask)

__all__ = ["clamp", "clamp_min", "clamp_max", "max_pair", "min_pair", "maximum", "minimum"]


_MAX, _MIN = PRIMITIVES["max"], PRIMITIVES["min"]


def _extremum(a, b, op, row):
    """max_pair/min_pair, the row ``row`` of PRIMITIVES: NaN propagates; on ties each side gets
    half the gradient (PyTorch)."""
    xa, xb, dt, ta, tb, be = _prep2(a, b, op)
    out = be.ew_cast(getattr(be, row.kernel)(xa, xb), dt)
    grad = row.grad

    def rule(g, need_a, need_b, out):  # the masks are constants (xa, xb: the operands' values)
        return grad(g, wrap(xa, dt), wrap(xb, dt), need_a, need_b)
    return _record2t(out, dt, ta, tb, rule, op)


@tensor_method
def max_pair(self, other):
    """The elementwise maximum of two tensors (NaN wins, as PyTorch's ``maximum``).

    >>> import ember
    >>> a = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> a.max_pair(ember.tensor([[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]])).tolist()
    [[2.0, 3.0, 4.0], [5.0, 9.0, 6.0]]
    """
    return _extremum(self, other, "max_pair", _MAX)


@tensor_method
def min_pair(self, other):
    """The elementwise minimum of two tensors (NaN wins, as PyTorch's ``minimum``).

    >>> import ember
    >>> a = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> a.min_pair(ember.tensor([[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]])).tolist()
    [[1.0, -2.0, 3.0], [1.0, 2.0, 3.0]]
    """
    return _extremum(self, other, "min_pair", _MIN)


@tensor_method
def maximum(self, other):
    """PyTorch's name for ``max_pair``.

    >>> import ember
    >>> ember.maximum(ember.tensor([1, 5]), ember.tensor([3, 2])).tolist()
    [3, 5]
    """
    return _extremum(self, other, "maximum", _MAX)


@tensor_method
def minimum(self, other):
    """PyTorch's name for ``min_pair``.

    >>> import ember
    >>> ember.minimum(ember.tensor([1, 5]), ember.tensor([3, 2])).tolist()
    [1, 2]
    """
    return _extremum(self, other, "minimum", _MIN)


def _clamp(self, lo, hi, op):
    _check_tensor(self, op, "self")
    if lo is None and hi is None:
        raise InvalidParameterError(f"{op}: at least one of min and max must be given, got both "
                                    "None", "min", None)
    bounds = [(b, p) for b, p in ((lo, "min"), (hi, "max")) if b is not None]
    for b, p in bounds:
        _check_operand(b, op, p)
    tensors = [b for b, _ in bounds if isinstance(b, Tensor)]
    for t in tensors:
        if t._device is not self._device:
            raise device_error(op, self, t)
    be = self._device.backend
    if tensors:
        shapes = [self._data.shape] + [t._data.shape for t in tensors]
        if any(s != shapes[0] for s in shapes):
            broadcast_shapes(*shapes, op=op)
    if tensors:
        dt = _result_type(self, *[b for b, _ in bounds])
    else:  # numbers only: the weak-scalar rule, without the general promotion
        dt = self._dtype
        for b, p in bounds:
            if dt.kind != "float":
                dt = _scalar_dtype(self, b, op, p)
    _fits(op, dt.itemsize, self, *tensors)
    x = be.ew_cast(self._data, dt)

    def operand(b, p):
        if b is None:
            return None
        return be.ew_cast(b._data, dt) if isinstance(b, Tensor) else _scalar(be, b, dt, op, p)
    xlo, xhi = operand(lo, "min"), operand(hi, "max")
    out = x
    if xlo is not None:
        out = be.ew_maximum(out, xlo)
    if xhi is not None:
        out = be.ew_minimum(out, xhi)
    out = be.ew_cast(out, dt)
    inputs = (self,) + tuple(tensors)
    t_lo = lo if isinstance(lo, Tensor) else None
    t_hi = hi if isinstance(hi, Tensor) else None

    name = op + "_backward"

    def backward(g, needs, out):  # PyTorch's clamp_backward_min_max; constant masks of the
        res = []                  # operands' values x, xlo, xhi
        if needs[0]:
            mask = None
            if xlo is not None:
                mask = be.ew_ge(x, xlo)
            if xhi is not None:
                m = be.ew_le(x, xhi)
                mask = m if mask is None else be.ew_logical_and(mask, m)
            res.append(fit(_times_mask(g, mask, name), self))
        else:
            res.append(None)
        i = 1
        if t_lo is not None:
            if needs[i]:
                mask = be.ew_lt(x, xlo)
                if xhi is not None:
                    mask = be.ew_logical_and(mask, be.ew_lt(xlo, xhi))
                res.append(fit(_times_mask(g, mask, name), t_lo))
            else:
                res.append(None)
            i += 1
        if t_hi is not None:
            if needs[i]:
                mask = be.ew_gt(x, xhi)
                if xlo is not None:
                    mask = be.ew_logical_or(mask, be.ew_lt(xhi, xlo))
                res.append(fit(_times_mask(g, mask, name), t_hi))
            else:
                res.append(None)
        return tuple(res)
    return record(out, dt, inputs, backward, op)


@tensor_method
def clamp(self, min=None, max=None):
    """Limit each element to ``[min, max]`` (numbers or tensors; either may be None, not both).

    As ``min_pair(max_pair(self, min), max)``: when ``min > max`` the result is ``max``; NaN
    propagates. The dtype promotes with the bounds (an int tensor clamped to 2.5 gives floats).
    The gradient flows to ``self`` where ``min <= self <= max`` (bounds included), as PyTorch.

    >>> import ember
    >>> ember.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).clamp(2, 6).tolist()
    [[2, 2, 3], [4, 5, 6], [6, 6, 6]]
    """
    return _clamp(self, min, max, "clamp")


@tensor_method
def clamp_min(self, min):
    """Limit each element from below: ``max_pair(self, min)`` with clamp's gradient.

    >>> import ember
    >>> ember.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).clamp_min(4).tolist()
    [[4, 4, 4], [4, 5, 6], [7, 8, 9]]
    """
    if min is None:
        raise InvalidParameterError("clamp_min: min must be a number or a Tensor, got None",
                                    "min", None)
    return _clamp(self, min, None, "clamp_min")


@tensor_method
def clamp_max(self, max):
    """Limit each element from above: ``min_pair(self, max)`` with clamp's gradient.

    >>> import ember
    >>> ember.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).clamp_max(5).tolist()
    [[1, 2, 3], [4, 5, 5], [5, 5, 5]]
    """
    if max is None:
        raise InvalidParameterError("clamp_max: max must be a number or a Tensor, got None",
                                    "max", None)
    return _clamp(self, None, max, "clamp_max")

