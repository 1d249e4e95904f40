"""Bitwise and boolean logic: ``& | ^ ~ << >>``, Burn's ``bitwise_*`` and ``bool_*`` ops,
PyTorch's ``logical_*`` ops.

Bitwise ops take int and bool tensors (on bools ``& | ^ ~`` are the logical ops, as PyTorch);
floats and complex numbers raise ``KindError``. The ``logical_*`` ops take every kind, complex
tensors too (nonzero is true, as PyTorch). Operands are promoted with ``dtypes.result_type`` (Python ints are
weak: ``int8_tensor & 0xFF`` stays int8, the scalar wrapping to the dtype's width as PyTorch;
an int that no 64-bit integer holds raises InvalidParameterError, as for ``+``) and broadcast
with NumPy's rule. Shifts are deterministic: a count below 0 or at least the bit width
gives 0 for ``<<`` and the sign fill (0 or -1) for ``>>``, as PyTorch.

>>> import ember
>>> (ember.tensor([12, 10]) & 6).tolist()
[4, 2]
>>> (~ember.tensor([True, False])).tolist()
[False, True]
"""

from operator import attrgetter as _kernel

from .. import dtypes as _dt
from ..backends.guard import check_shaped
from ..errors import KindError
from ..shapes import broadcast_shapes
from .._tensor import Tensor, check_kind, check_tensor, device_error, tensor_method, wrap
from .elementwise import _fits, _scalar  # _scalar: the conversion and range check of numbers

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
           "bitwise_right_shift", "logical_and", "logical_or", "logical_xor", "logical_not"]

_scalar_kind = _dt._scalar_kind
_BOOL = _dt.bool_
_INT64 = _dt.int64
_COUNT_RANGE = 1 << 63  # counts in [-2**63, 2**63) need no further check


_AND, _OR, _XOR = _kernel("bitwise_and"), _kernel("bitwise_or"), _kernel("bitwise_xor")
_LSHIFT, _LSHIFT_SCALAR = _kernel("bitwise_lshift"), _kernel("bitwise_lshift_scalar")
_RSHIFT, _RSHIFT_SCALAR = _kernel("bitwise_rshift"), _kernel("bitwise_rshift_scalar")
_LAND, _LOR, _LXOR = _kernel("logical_and"), _kernel("logical_or"), _kernel("logical_xor")


# -- shared checks ----------------------------------------------------------------------------

def _check_int_operand(x, op, param):
    """Raise KindError unless ``x`` is an int/bool tensor or an int/bool number."""
    if isinstance(x, Tensor):
        if x._dtype._rank >= 2:  # float or complex
            raise _not_int(op, param, x._dtype)
        return
    kind = _scalar_kind(x)
    if kind is None:
        raise KindError(f"{op}: {param} must be a Tensor, an int or a bool, got "
                        f"{type(x).__name__} {x!r}")
    if kind == "complex":
        raise KindError(f"{op}: {param} {x!r} is a complex number; expected an int or a bool "
                        "(bitwise ops are not defined for complex numbers)")
    if kind == "float":
        raise KindError(f"{op}: {param} {x!r} is a float; expected an int or a bool "
                        "(bitwise ops are not defined for floats)")


def _not_int(op, param, dtype):
    """The KindError of a bitwise op on a float or complex tensor."""
    if dtype.kind == "complex":
        return _dt.complex_error(op, param, dtype)
    return KindError(f"{op}: not defined for float tensors (dtype {dtype.name}); "
                     "expected an int or bool tensor")


def _check_pair(x, y, op, xname, yname):
    """Both operands checked by kind; at least one a Tensor; tensor shapes broadcast. Returns
    the operands' backend (DeviceError for two tensors on different devices)."""
    xt = isinstance(x, Tensor)
    yt = isinstance(y, Tensor)
    if not (xt or yt):
        raise KindError(f"{op}: expected at least one Tensor, got {type(x).__name__} {x!r} "
                        f"and {type(y).__name__} {y!r}")
    if xt and yt:
        if x._device is not y._device:
            raise device_error(op, x, y)
        if x._data.shape != y._data.shape:
            broadcast_shapes(x._data.shape, y._data.shape, op=op)
    return (x if xt else y)._device.backend


def _operand(be, x, dt, op, param):
    """Tensor ``x`` cast to ``dt``, or the number ``x`` as an operand of ``dt`` (an int wraps
    into the dtype's width; one beyond 64 bits raises, as for ``+``)."""
    if isinstance(x, Tensor):
        return be.cast(x._data, dt)
    if dt.kind == "bool":
        return be.scalar_array(bool(x), dt)
    return _scalar(be, x, dt, op, param)


def _count(be, value, op, param):
    """A Python int shift count: any size up to 64 bits (0 or the sign fill outside [0, bit
    width)); beyond 64 bits it raises, as every int operand does."""
    if not -_COUNT_RANGE <= value < _COUNT_RANGE:
        _scalar(be, value, _INT64, op, param)
    return int(value)


def _bitwise(op, kernel, x, y, xname="self", yname="other"):
    """``kernel`` picks the backend's kernel (an ``attrgetter`` of its name)."""
    if isinstance(x, Tensor):                                   # the fast paths
        dt = x._dtype
        if type(y) is int and dt.kind == "int":
            be = x._device.backend
            check_shaped(op, x._data, dt.itemsize)
            return wrap(kernel(be)(x._data, _scalar(be, y, dt, op, yname)), dt)
        if isinstance(y, Tensor) and dt is y._dtype and dt._rank < 2 \
                and x._data.shape == y._data.shape and x._device is y._device:
            check_shaped(op, x._data, dt.itemsize)
            return wrap(kernel(x._device.backend)(x._data, y._data), dt)
    _check_int_operand(x, op, xname)
    _check_int_operand(y, op, yname)
    be = _check_pair(x, y, op, xname, yname)
    dt = _dt.result_type(x, y)
    _fits(op, dt.itemsize, x, y)
    return wrap(kernel(be)(_operand(be, x, dt, op, xname), _operand(be, y, dt, op, yname)), dt)


def _shift(op, kernel, scalar_kernel, x, y, xname="self", yname="other"):
    if type(y) is int and isinstance(x, Tensor) and x._dtype.kind == "int":
        be = x._device.backend                                  # the fast path
        check_shaped(op, x._data, x._dtype.itemsize)
        return wrap(scalar_kernel(be)(x._data, _count(be, y, op, yname)), x._dtype)
    _check_int_operand(x, op, xname)
    _check_int_operand(y, op, yname)
    be = _check_pair(x, y, op, xname, yname)
    dt = _dt.result_type(x, y)
    if dt.kind == "bool":
        raise KindError(f"{op}: not defined for bool tensors; expected an int tensor "
                        "(cast bools to an int dtype first)")
    _fits(op, dt.itemsize, x, y)
    if isinstance(y, Tensor):
        return wrap(kernel(be)(_operand(be, x, dt, op, xname), be.cast(y._data, dt)), dt)
    return wrap(scalar_kernel(be)(be.cast(x._data, dt), _count(be, y, op, yname)), dt)


def _check_scalar_param(other, op, expected="an int or a bool"):
    if isinstance(other, Tensor) or _scalar_kind(other) is None:
        base = op[:-len("_scalar")] if op.endswith("_scalar") else op
        raise KindError(f"{op}: other must be {expected} (a Python number), got "
                        f"{type(other).__name__}; use {base} for tensors")


# -- Burn's bitwise ops -----------------------------------------------------------------------

@tensor_method
def bitwise_and(self, other):
    """Elementwise ``self & other`` on int tensors (logical and on bools); ``other``: tensor or int.

    >>> import ember
    >>> ember.tensor([12, 10, -1]).bitwise_and(ember.tensor([10, 6, 5])).tolist()
    [8, 2, 5]
    """
    return _bitwise("bitwise_and", _AND, self, other)


@tensor_method
def bitwise_or(self, other):
    """Elementwise ``self | other`` on int tensors (logical or on bools).

    >>> import ember
    >>> ember.bitwise_or(ember.tensor([12, 1]), 2).tolist()
    [14, 3]
    """
    return _bitwise("bitwise_or", _OR, self, other)


@tensor_method
def bitwise_xor(self, other):
    """Elementwise ``self ^ other`` on int tensors (logical xor on bools).

    >>> import ember
    >>> ember.tensor([12, 10]).bitwise_xor(ember.tensor([10, 10])).tolist()
    [6, 0]
    """
    return _bitwise("bitwise_xor", _XOR, self, other)


@tensor_method
def bitwise_not(self):
    """Elementwise ``~self``: two's complement not on ints (``-x - 1``), logical not on bools.

    >>> import ember
    >>> ember.tensor([0, 5, -1]).bitwise_not().tolist()
    [-1, -6, 0]
    >>> ember.tensor([3], dtype="uint8").bitwise_not().tolist()
    [252]
    """
    check_tensor(self, "bitwise_not", "self")
    if self._dtype._rank >= 2:  # float or complex
        raise _not_int("bitwise_not", "self", self._dtype)
    check_shaped("bitwise_not", self._data, self._dtype.itemsize)
    return wrap(self._device.backend.bitwise_invert(self._data), self._dtype)


@tensor_method
def bitwise_left_shift(self, other):
    """Elementwise ``self << other``; counts below 0 or at least the bit width give 0.

    The bits shifted out are dropped (two's complement wrap-around, as PyTorch).

    >>> import ember
    >>> ember.tensor([1, 3, 1]).bitwise_left_shift(ember.tensor([2, 1, 64])).tolist()
    [4, 6, 0]
    """
    return _shift("bitwise_left_shift", _LSHIFT, _LSHIFT_SCALAR, self, other)


@tensor_method
def bitwise_right_shift(self, other):
    """Elementwise ``self >> other``, arithmetic (sign-filling) on signed ints.

    Counts below 0 or at least the bit width give the sign fill: 0, or -1 for negative values.

    >>> import ember
    >>> ember.tensor([16, -16, -16]).bitwise_right_shift(ember.tensor([2, 2, 99])).tolist()
    [4, -4, -1]
    """
    return _shift("bitwise_right_shift", _RSHIFT, _RSHIFT_SCALAR, self, other)


@tensor_method
def bitwise_and_scalar(self, other):
    """``self & other`` for a Python int ``other`` (wrapped to the tensor's dtype).

    >>> import ember
    >>> ember.tensor([12, 10]).bitwise_and_scalar(6).tolist()
    [4, 2]
    """
    _check_scalar_param(other, "bitwise_and_scalar")
    return _bitwise("bitwise_and_scalar", _AND, self, other)


@tensor_method
def bitwise_or_scalar(self, other):
    """``self | other`` for a Python int ``other``.

    >>> import ember
    >>> ember.tensor([12, 10]).bitwise_or_scalar(1).tolist()
    [13, 11]
    """
    _check_scalar_param(other, "bitwise_or_scalar")
    return _bitwise("bitwise_or_scalar", _OR, self, other)


@tensor_method
def bitwise_xor_scalar(self, other):
    """``self ^ other`` for a Python int ``other``.

    >>> import ember
    >>> ember.tensor([12, 10]).bitwise_xor_scalar(15).tolist()
    [3, 5]
    """
    _check_scalar_param(other, "bitwise_xor_scalar")
    return _bitwise("bitwise_xor_scalar", _XOR, self, other)


@tensor_method
def bitwise_left_shift_scalar(self, other):
    """``self << other`` for a Python int count (0 outside [0, bit width); beyond 64 bits an
    InvalidParameterError).

    >>> import ember
    >>> ember.tensor([1, 5], dtype="int8").bitwise_left_shift_scalar(4).tolist()
    [16, 80]
    """
    _check_scalar_param(other, "bitwise_left_shift_scalar")
    return _shift("bitwise_left_shift_scalar", _LSHIFT, _LSHIFT_SCALAR,
                  self, other)


@tensor_method
def bitwise_right_shift_scalar(self, other):
    """``self >> other`` for a Python int count (sign fill outside [0, bit width); beyond 64
    bits an InvalidParameterError).

    >>> import ember
    >>> ember.tensor([-8, 8], dtype="int8").bitwise_right_shift_scalar(1).tolist()
    [-4, 4]
    """
    _check_scalar_param(other, "bitwise_right_shift_scalar")
    return _shift("bitwise_right_shift_scalar", _RSHIFT, _RSHIFT_SCALAR,
                  self, other)


# -- Burn's bool ops ---------------------------------------------------------------------------

def _bool_binary(op, kernel, x, y):
    check_tensor(x, op, "self")
    check_kind(x, "bool", op)
    be = x._device.backend
    if isinstance(y, Tensor):
        check_kind(y, "bool", op)
        if x._device is not y._device:
            raise device_error(op, x, y)
        if x._data.shape != y._data.shape:
            broadcast_shapes(x._data.shape, y._data.shape, op=op)
        _fits(op, 1, x, y)
        return wrap(kernel(be)(x._data, y._data), _BOOL)
    if _scalar_kind(y) != "bool":
        raise KindError(f"{op}: rhs must be a bool tensor or a bool, got {type(y).__name__} {y!r}")
    check_shaped(op, x._data, 1)
    return wrap(kernel(be)(x._data, be.scalar_array(bool(y), _BOOL)), _BOOL)


@tensor_method
def bool_not(self):
    """Logical not of a bool tensor.

    >>> import ember
    >>> ember.tensor([[True, False], [False, True]]).bool_not().tolist()
    [[False, True], [True, False]]
    """
    check_tensor(self, "bool_not", "self")
    check_kind(self, "bool", "bool_not")
    check_shaped("bool_not", self._data, 1)
    return wrap(self._device.backend.bitwise_invert(self._data), _BOOL)


@tensor_method
def bool_and(self, rhs):
    """Logical and of two bool tensors (broadcast).

    >>> import ember
    >>> a = ember.tensor([[True, True], [False, False]])
    >>> a.bool_and(ember.tensor([[True, False], [True, False]])).tolist()
    [[True, False], [False, False]]
    """
    return _bool_binary("bool_and", _AND, self, rhs)


@tensor_method
def bool_or(self, rhs):
    """Logical or of two bool tensors (broadcast).

    >>> import ember
    >>> a = ember.tensor([[True, True], [False, False]])
    >>> a.bool_or(ember.tensor([[True, False], [True, False]])).tolist()
    [[True, True], [True, False]]
    """
    return _bool_binary("bool_or", _OR, self, rhs)


@tensor_method
def bool_xor(self, rhs):
    """Logical xor of two bool tensors: true where exactly one is true.

    >>> import ember
    >>> a = ember.tensor([[True, True], [False, False]])
    >>> a.bool_xor(ember.tensor([[True, False], [True, False]])).tolist()
    [[False, True], [True, False]]
    """
    return _bool_binary("bool_xor", _XOR, self, rhs)


# -- PyTorch's logical ops (any kind; nonzero is true) ------------------------------------------

def _truth(be, x):
    if isinstance(x, Tensor):
        return be.logical_truth(x._data)
    return be.scalar_array(bool(x), _BOOL)


def _logical(op, kernel, x, y):
    for v, param in ((x, "self"), (y, "other")):
        if not isinstance(v, Tensor) and _scalar_kind(v) is None:
            raise KindError(f"{op}: {param} must be a Tensor or a number, got "
                            f"{type(v).__name__} {v!r}")
    be = _check_pair(x, y, op, "self", "other")
    _fits(op, 1, x, y)
    return wrap(kernel(be)(_truth(be, x), _truth(be, y)), _BOOL)


@tensor_method
def logical_and(self, other):
    """Elementwise ``bool(self) and bool(other)`` for any kinds (nonzero and NaN are true;
    complex values too, as PyTorch).

    >>> import ember
    >>> ember.tensor([0.0, 2.5, float("nan")]).logical_and(ember.tensor([1, 1, 1])).tolist()
    [False, True, True]
    """
    return _logical("logical_and", _LAND, self, other)


@tensor_method
def logical_or(self, other):
    """Elementwise ``bool(self) or bool(other)`` for any kinds.

    >>> import ember
    >>> ember.logical_or(ember.tensor([0, 0, 3]), ember.tensor([0, 1, 0])).tolist()
    [False, True, True]
    """
    return _logical("logical_or", _LOR, self, other)


@tensor_method
def logical_xor(self, other):
    """Elementwise ``bool(self) != bool(other)`` for any kinds.

    >>> import ember
    >>> ember.tensor([0, 2, 3]).logical_xor(0).tolist()
    [False, True, True]
    """
    return _logical("logical_xor", _LXOR, self, other)


@tensor_method
def logical_not(self):
    """Elementwise ``not bool(self)`` for any kind: a bool tensor.

    >>> import ember
    >>> ember.tensor([0.0, -1.0]).logical_not().tolist()
    [True, False]
    """
    check_tensor(self, "logical_not", "self")
    check_shaped("logical_not", self._data, 1)
    be = self._device.backend
    return wrap(be.logical_not(be.logical_truth(self._data)), _BOOL)


# -- operators ---------------------------------------------------------------------------------

def _not_operand(other):
    return type(other) is not int and not isinstance(other, Tensor) and _scalar_kind(other) is None


def _binary_operator(op, kernel):
    def forward(self, other):
        if _not_operand(other):
            return NotImplemented
        return _bitwise(op, kernel, self, other)

    def reflected(self, other):
        if _not_operand(other):
            return NotImplemented
        return _bitwise(op, kernel, other, self, "other", "self")
    return forward, reflected


def _shift_operator(op, kernel, scalar_kernel):
    def forward(self, other):
        if _not_operand(other):
            return NotImplemented
        return _shift(op, kernel, scalar_kernel, self, other)

    def reflected(self, other):
        if _not_operand(other):
            return NotImplemented
        return _shift(op, kernel, scalar_kernel, other, self, "other", "self")
    return forward, reflected


Tensor.__and__, Tensor.__rand__ = _binary_operator("bitwise_and (&)", _AND)
Tensor.__or__, Tensor.__ror__ = _binary_operator("bitwise_or (|)", _OR)
Tensor.__xor__, Tensor.__rxor__ = _binary_operator("bitwise_xor (^)", _XOR)
Tensor.__lshift__, Tensor.__rlshift__ = _shift_operator(
    "bitwise_left_shift (<<)", _LSHIFT, _LSHIFT_SCALAR)
Tensor.__rshift__, Tensor.__rrshift__ = _shift_operator(
    "bitwise_right_shift (>>)", _RSHIFT, _RSHIFT_SCALAR)


def _invert(self):
    if self._dtype._rank >= 2:  # float or complex
        raise _not_int("bitwise_not (~)", "self", self._dtype)
    check_shaped("bitwise_not (~)", self._data, self._dtype.itemsize)
    return wrap(self._device.backend.bitwise_invert(self._data), self._dtype)


Tensor.__invert__ = _invert
