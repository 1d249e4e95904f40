"""Masks and ``where``: mask_where, mask_fill, masked_fill, mask_select, ``where``, nonzero and
argwhere, with their gradients (``g`` through the constant mask).

A mask is a bool tensor (``KindError`` otherwise) on self's device. ``mask_select`` takes a mask
of self's shape; the others broadcast self, the mask and the value as Burn and PyTorch do. Values
are converted to self's dtype (``where`` promotes its two operands as arithmetic does). The
kernels are the indexing family's (``be.idx_*``).
"""

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..backends.guard import check_result
from ..primitives import PRIMITIVES
from ..shapes import broadcast_shapes
from .._tensor import Tensor, backend_of, check_tensor, device_error, record, tensor_method, wrap
from .indexing import _fit, _mask, _number, linear_map

__all__ = ["where", "nonzero", "argwhere", "masked_fill"]


# -- masks and where -------------------------------------------------------------------------------

def _mask_same(self, mask, op):
    check_tensor(self, op, "self")
    m = _mask(mask, op, self=self)
    if tuple(m.shape) != tuple(self.shape):
        raise ShapeMismatchError(f"{op}: mask has shape {tuple(m.shape)}, expected "
                                 f"{tuple(self.shape)} (self's shape; the mask is not broadcast)",
                                 expected=tuple(self.shape), actual=tuple(m.shape))
    return m


def _broadcast_with(shape, t, param, op, against="self's shape"):
    """``shape`` broadcast with tensor ``t``'s shape; the error names ``param``."""
    tshape = tuple(t.shape)
    try:
        return broadcast_shapes(shape, tshape, op=op)
    except ShapeMismatchError:
        raise ShapeMismatchError(f"{op}: {param} has shape {tshape}, which does not broadcast "
                                 f"with {against} {shape}", expected=shape,
                                 actual=tshape) from None


def _mask_broadcast(self, mask, op):
    """The bool mask and the result's shape: self's shape broadcast with the mask's."""
    check_tensor(self, op, "self")
    m = _mask(mask, op, self=self)
    shape = tuple(self.shape)
    if tuple(m.shape) != shape:
        shape = _broadcast_with(shape, m, "mask", op)
    check_result(op, shape, self._dtype.itemsize)
    return m, shape


@tensor_method
def mask_where(self, mask, value):
    """Elements of ``value`` where ``mask`` is true, of self elsewhere (self's dtype).

    ``mask`` is a bool tensor and ``value`` a tensor of self's kind; the three broadcast, as in
    Burn (usually the mask and the value broadcast to self's shape).

    >>> import ember
    >>> t = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> mask = ember.tensor([[True, False, True], [False, True, False]])
    >>> value = ember.tensor([[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]])
    >>> t.mask_where(mask, value).tolist()
    [[2.0, -2.0, 4.0], [5.0, 2.0, 6.0]]
    >>> t.mask_where(ember.tensor([True, False, False]), ember.tensor(0.0)).tolist()
    [[0.0, -2.0, 3.0], [0.0, 9.0, 6.0]]
    """
    op = "mask_where"
    m, shape = _mask_broadcast(self, mask, op)
    check_tensor(value, op, "value")
    if value._dtype.kind != self._dtype.kind:
        raise KindError(f"{op}: value is a {value._dtype.kind} tensor (dtype {value._dtype.name}),"
                        f" expected a {self._dtype.kind} tensor like self")
    be = backend_of(self, value, op)
    check_result(op, _broadcast_with(shape, value, "value", op, "the shape of self and mask"),
                 self._dtype.itemsize)
    return _where_record(be, m._data, self, value, self._dtype, op)


def _where_record(be, cond, a, b_or_value, dtype, op, swap=True):
    """Record ``where(cond, value, self)`` (swap) or ``where(cond, a, b)``; a, b tensors/numbers."""
    if swap:
        t_true, t_false = b_or_value, a
    else:
        t_true, t_false = a, b_or_value

    def data(v):
        if isinstance(v, Tensor):
            return be.cast(v._data, dtype)
        return _number(be, v, dtype, op, "value")

    out = be.idx_where(cond, data(t_true), data(t_false))
    tensors = [v for v in (t_true, t_false) if isinstance(v, Tensor)]

    parts = [(negate, v._data.shape, v._dtype)
             for negate, v in ((False, t_true), (True, t_false)) if isinstance(v, Tensor)]
    grad = PRIMITIVES["where"].grad

    def rule(g, needs, out_t):
        return grad(g, cond, parts, needs, op)

    return record(out, dtype, tuple(tensors), rule, op)


def _masked(be, g, mask, op):
    """``g`` where ``mask`` (a constant bool array) is true, else 0: a linear step."""
    def keep(a):
        return be.idx_masked(a, mask)
    return linear_map(g, keep, keep, op)


def _grad_part(be, g, mask, shape, dtype, op):
    if dtype.kind != "float":
        return None
    return _fit(_masked(be, g, mask, op), shape, dtype)


@tensor_method
def mask_fill(self, mask, value):
    """Self with ``value`` (a number, or a one-element tensor) where ``mask`` is true.

    ``mask`` is a bool tensor that broadcasts with self (usually to self's shape); the value is
    converted to self's dtype.

    >>> import ember
    >>> t = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> mask = ember.tensor([[True, False, True], [False, True, False]])
    >>> t.mask_fill(mask, 3.0).tolist()
    [[3.0, -2.0, 3.0], [5.0, 3.0, 6.0]]
    >>> t.mask_fill(ember.tensor([False, True, False]), 0.0).tolist()
    [[1.0, 0.0, 3.0], [5.0, 0.0, 6.0]]
    """
    op = "mask_fill"
    m, shape = _mask_broadcast(self, mask, op)
    if isinstance(value, Tensor):
        if value._device is not self._device:
            raise device_error(op, self, value)
        if self._device.backend.numel(value._data) != 1:
            raise ShapeMismatchError(f"{op}: value has shape {tuple(value.shape)}, expected a "
                                     "number or a one-element tensor", expected=(),
                                     actual=tuple(value.shape))
        if value._dtype.kind != self._dtype.kind:
            raise KindError(f"{op}: value is a {value._dtype.kind} tensor (dtype "
                            f"{value._dtype.name}), expected a {self._dtype.kind} tensor like self")
        if value._data.ndim > len(shape):
            raise ShapeMismatchError(f"{op}: value has shape {tuple(value.shape)}, more dims "
                                     f"than self's {tuple(self.shape)}", expected=(),
                                     actual=tuple(value.shape))
    return _fill(self, m, value, op)


@tensor_method
def masked_fill(self, mask, value):
    """Self with ``value`` where ``mask`` is true (PyTorch's ``masked_fill``); self's dtype.

    ``mask`` is a bool tensor that broadcasts with self; ``value`` a number or a 0-d tensor,
    converted to self's dtype (a 0-d tensor of another kind is converted as a number and gets
    no gradient).

    >>> import ember
    >>> t = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> t.masked_fill(ember.tensor([True, False]), -1.0).tolist()
    [[-1.0, 2.0], [-1.0, 4.0]]
    >>> ember.masked_fill(ember.tensor([1, 2]), ember.tensor([False, True]), 2.5).tolist()
    [1, 2]
    """
    op = "masked_fill"
    m, _ = _mask_broadcast(self, mask, op)
    if isinstance(value, Tensor):
        if value._device is not self._device:
            raise device_error(op, self, value)
        if value._data.ndim != 0:
            raise ShapeMismatchError(f"{op}: value has shape {tuple(value.shape)}, expected a "
                                     "number or a 0-d tensor", expected=(),
                                     actual=tuple(value.shape))
        if value._dtype.kind != self._dtype.kind:
            value = value.item()  # converted as a number
    return _fill(self, m, value, op)


def _fill(self, m, value, op):
    """Record self with ``value`` (a checked tensor or a number) where mask ``m`` is true."""
    be = self._device.backend
    if isinstance(value, Tensor):
        return _where_record(be, m._data, self, value, self._dtype, op)
    fill = _number(be, value, self._dtype, op, "value")
    cond = m._data
    shape = self._data.shape
    dt = self._dtype

    def rule(g, needs, out):
        return (_grad_part(be, g, be.idx_logical_not(cond), shape, dt, op),)

    return record(be.idx_where(cond, fill, self._data), dt, (self,), rule, op)


@tensor_method
def mask_select(self, mask):
    """The elements where ``mask`` (a bool tensor of self's shape, not broadcast) is true, 1-D.

    >>> import ember
    >>> t = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> t.mask_select(ember.tensor([[True, False, True], [False, True, False]])).tolist()
    [1.0, 3.0, 5.0]
    """
    op = "mask_select"
    m = _mask_same(self, mask, op)
    be = self._device.backend
    cond = m._data
    shape = self._data.shape

    def put(g):
        return be.idx_mask_select_grad(g, cond, shape)

    def get(a):
        return be.idx_mask_select(a, cond)

    return linear_map(self, get, put, op)


def where(condition, input=None, other=None):
    """Elements of ``input`` where ``condition`` is true, of ``other`` elsewhere (PyTorch's where).

    The three broadcast; ``input`` and ``other`` may be numbers and promote as arithmetic does.
    ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``, as PyTorch's.

    >>> import ember
    >>> c = ember.tensor([True, False, True])
    >>> ember.where(c, ember.tensor([1.0, 2.0, 3.0]), 0).tolist()
    [1.0, 0.0, 3.0]
    """
    op = "where"
    if input is None and other is None:
        return tuple(nonzero_method(condition))
    if input is None or other is None:
        raise InvalidParameterError(f"{op}: give both input and other, or neither (got "
                                    f"input={input!r}, other={other!r})", "other", other)
    first = next((v for v in (condition, input, other) if isinstance(v, Tensor)), None)
    cond = _mask(condition, op, "condition", first)
    for name, v in (("input", input), ("other", other)):
        if not isinstance(v, (Tensor, bool, int, float, complex)) and not (
                hasattr(v, "dtype") and getattr(v, "ndim", None) == 0):
            raise KindError(f"{op}: {name} must be a tensor or a number, got "
                            f"{type(v).__name__} {v!r}")
        if isinstance(v, Tensor) and v._device is not cond._device:
            raise device_error(op, cond, v)
    dtype = _dt.result_type(input, other)
    check_result(op, broadcast_shapes(tuple(cond.shape), _shape_of(input), _shape_of(other),
                                      op=op), dtype.itemsize)
    return _where_record(cond._device.backend, cond._data, input, other, dtype, op, swap=False)


def _shape_of(v):
    return tuple(v.shape) if isinstance(v, Tensor) else ()


@tensor_method(name="where")
def _where_method(self, condition, other):
    """Self where ``condition`` is true, ``other`` elsewhere (PyTorch's ``Tensor.where``).

    >>> import ember
    >>> ember.tensor([1, 2, 3]).where(ember.tensor([True, False, True]), -1).tolist()
    [1, -1, 3]
    """
    return where(condition, self, other)

# -- nonzero / argwhere ----------------------------------------------------------------------------
@tensor_method(name="nonzero")
def nonzero_method(self, as_tuple=None):
    """The indices of the nonzero (true) elements: one int64 tensor per dim, in row-major order
    (Burn's ``nonzero``, a list). A 0-d tensor has no dims, so it gives an empty list.

    PyTorch's keyword selects PyTorch's result: ``as_tuple=False`` gives the ``(n, ndim)``
    tensor of ``argwhere``, ``as_tuple=True`` a tuple of the per-dim tensors.

    >>> import ember
    >>> t = ember.tensor([[True, False, True], [False, True, False], [False, True, False]])
    >>> [i.tolist() for i in t.nonzero()]
    [[0, 0, 1, 2], [0, 2, 1, 1]]
    >>> t.nonzero(as_tuple=False).tolist()
    [[0, 0], [0, 2], [1, 1], [2, 1]]
    """
    check_tensor(self, "nonzero", "self")
    if as_tuple is not None:
        return nonzero(self, as_tuple=as_tuple)
    if self._data.ndim == 0:
        return []
    return [wrap(a, _dt.int64) for a in self._device.backend.idx_nonzero(self._data)]


def nonzero(input, *, as_tuple=False):
    """PyTorch's ``torch.nonzero``: the ``(n, ndim)`` int64 tensor of the indices of the nonzero
    elements (as ``argwhere``); ``as_tuple=True``: a tuple of one 1-D tensor per dim.

    >>> import ember
    >>> ember.nonzero(ember.tensor([[0, 3], [4, 0]])).tolist()
    [[0, 1], [1, 0]]
    """
    check_tensor(input, "nonzero", "input")
    if not isinstance(as_tuple, bool):
        raise InvalidParameterError(f"nonzero: as_tuple must be a bool, got {as_tuple!r}",
                                    "as_tuple", as_tuple)
    if not as_tuple:
        return argwhere(input)
    if input._data.ndim == 0:  # PyTorch treats a 0-d tensor as one element here
        return tuple(nonzero_method(input.reshape(1)))
    return tuple(nonzero_method(input))


@tensor_method
def argwhere(self):
    """The indices of the nonzero (true) elements, one row per element: shape ``(n, ndim)``.

    >>> import ember
    >>> t = ember.tensor([[True, False, True], [False, True, False], [False, True, False]])
    >>> t.argwhere().tolist()
    [[0, 0], [0, 2], [1, 1], [2, 1]]
    """
    check_tensor(self, "argwhere", "self")
    return wrap(self._device.backend.idx_argwhere(self._data), _dt.int64)
