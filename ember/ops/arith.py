"""Arithmetic: ``add``, ``sub``, ``mul``, the divisions and remainders (``div``, ``true_divide``,
``floor_divide``, ``remainder``, ``fmod``), the powers (``pow``, ``powf``, ``powi``), each with
its ``_scalar`` form where Burn has one, and the unary ops that keep the kind: ``neg``,
``positive``, ``abs``, ``sign``, ``sgn``, ``square``. The operators (``a + b``) are in
``operators.py``; the rules every elementwise family shares are in ``elementwise.py``.
"""

import math as _math

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError
from ..primitives import PRIMITIVES
from .._tensor import Tensor, record, saved, tensor_method, wrap
from .elementwise import (_cast, _check_int_divisor, _check_number, _check_operand,
                          _check_tensor, _is_int_scalar, _is_scalar, _kept, _masked,
                          _operand_error, _operands, _prep2, _record2t, _result_type,
                          _zero_rule, _zeros)

__all__ = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow",
           "powf", "powi", "neg", "positive", "abs", "sign", "square", "sgn"]


def _twins(name, binary, doc, scalar_doc, *args, cx=False):
    """The op ``name(self, other)``, ``binary(self, other, name, *args)``, and its number form
    ``name_scalar(self, other)``, which first checks that ``other`` is a number (a complex one
    too when ``cx``), with their docstrings; both attached to Tensor."""
    scalar_name = name + "_scalar"

    def op(self, other):
        return binary(self, other, name, *args)

    def op_scalar(self, other):
        _check_number(other, scalar_name, "other", cx)
        return binary(self, other, scalar_name, *args)
    for fn, fn_name, fn_doc in ((op, name, doc), (op_scalar, scalar_name, scalar_doc)):
        fn.__name__ = fn.__qualname__ = fn_name
        fn.__doc__ = fn_doc
        tensor_method(fn)
    return op, op_scalar


# -- the gradient rules of + - * /: their rows' (ember/primitives.py), ``rule(g, a, b, need_a,
# need_b)`` the gradients of ``a`` and ``b`` (Tensors or numbers; None where not needed). These
# ops and the operators' short paths (operators.py) both read them.

add_rule, sub_rule, mul_rule, truediv_rule = (PRIMITIVES[name].grad
                                              for name in ("add", "sub", "mul", "div"))


# -- add, sub, mul ----------------------------------------------------------------------------

def _add(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op, cx=True)
    out = be.ew_cast(be.ew_add(xa, xb), dt)

    def rule(g, need_a, need_b, out):
        return add_rule(g, None, None, need_a, need_b)
    return _record2t(out, dt, ta, tb, rule, op)


def _sub(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op, cx=True)
    out = be.ew_cast(be.ew_sub(xa, xb), dt)

    def rule(g, need_a, need_b, out):
        return sub_rule(g, None, None, need_a, need_b)
    return _record2t(out, dt, ta, tb, rule, op)


def _mul(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op, cx=True)
    out = be.ew_cast(be.ew_mul(xa, xb), dt)
    a, b = _operands(a, b, ta, tb, dt)

    def rule(g, need_a, need_b, out):
        return mul_rule(g, a, b, need_a, need_b)
    return _record2t(out, dt, ta, tb, rule, op)


add, add_scalar = _twins(
    "add", _add,
    """``self + other``, broadcast, with PyTorch's type promotion (``other`` a Tensor or number).

    >>> import ember
    >>> a = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> a.add(ember.tensor([2.0, 3.0, 4.0])).tolist()
    [[3.0, 1.0, 7.0], [7.0, 12.0, 10.0]]
    """,
    """``self + other`` for a number ``other`` (Burn's ``add_scalar``).

    >>> import ember
    >>> ember.tensor([1, 2]).add_scalar(3).tolist()
    [4, 5]
    """, cx=True)


sub, sub_scalar = _twins(
    "sub", _sub,
    """``self - other``, broadcast.

    >>> import ember
    >>> ember.tensor([5.0, 1.0]).sub(ember.tensor([2.0, 3.0])).tolist()
    [3.0, -2.0]
    """,
    """``self - other`` for a number ``other``.

    >>> import ember
    >>> ember.tensor([1.0, 2.0]).sub_scalar(2.0).tolist()
    [-1.0, 0.0]
    """, cx=True)


mul, mul_scalar = _twins(
    "mul", _mul,
    """``self * other``, broadcast.

    >>> import ember
    >>> ember.tensor([1.0, -2.0]).mul(ember.tensor([2.0, 3.0])).tolist()
    [2.0, -6.0]
    """,
    """``self * other`` for a number ``other``.

    >>> import ember
    >>> ember.tensor([1.0, -2.0]).mul_scalar(2.0).tolist()
    [2.0, -4.0]
    """, cx=True)


# -- division and remainders ------------------------------------------------------------------

def _truediv(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op, to_float=True, cx=True)
    out = be.ew_cast(be.ew_truediv(xa, xb), dt)
    a, b = _operands(a, b, ta, tb, dt, div=True)

    def rule(g, need_a, need_b, out):
        return truediv_rule(g, a, b, need_a, need_b)
    return _record2t(out, dt, ta, tb, rule, op)


def _floordiv(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op)
    _check_int_divisor(be, xb, b, dt, op)
    out = be.ew_cast(be.ew_floordiv(xa, xb), dt)
    return _record2t(out, dt, ta, tb, _zeros2, op)


def _zeros2(g, need_a, need_b, out):
    z = _zeros(g)
    return (z if need_a else None, z if need_b else None)


def _modulo(kernel, quotient):
    """A modulo op ``a - b * q(a / b)`` by the backend kernel ``kernel``, ``q`` the rounded
    quotient of the kernel ``quotient``: a constant for the gradient rule."""
    def modulo(a, b, op):
        xa, xb, dt, ta, tb, be = _prep2(a, b, op)
        _check_int_divisor(be, xb, b, dt, op)
        out = be.ew_cast(getattr(be, kernel)(xa, xb), dt)

        def rule(g, need_a, need_b, out):
            gb = -g * wrap(be.ew_cast(getattr(be, quotient)(xa, xb), dt), dt) if need_b else None
            return (g if need_a else None), gb
        return _record2t(out, dt, ta, tb, rule, op)
    return modulo


_remainder = _modulo("ew_remainder", "ew_floordiv")  # floor division's remainder (Python's %)
_fmod = _modulo("ew_fmod", "ew_trunc_div")  # truncated division's remainder (C's fmod)


def _burn_div(a, b, op):
    """Burn's ``div``: keeps the kind (floor division on ints, true division on floats and
    complex numbers)."""
    _check_operand(a, op, "self", cx=True)
    _check_operand(b, op, "other", cx=True)
    if _result_type(a, b).kind == "int":
        return _floordiv(a, b, op)
    return _truediv(a, b, op)


div, div_scalar = _twins(
    "div", _burn_div,
    """Division that keeps the kind (Burn's ``div``): true division on floats, floor on ints.

    So ``a == a.div(b) * b + a.remainder(b)`` holds for ints; use ``/`` or ``true_divide`` for a
    float quotient of ints. Integer division by zero raises ``InvalidParameterError``.

    >>> import ember
    >>> ember.tensor([1.0, -2.0]).div(ember.tensor([2.0, 3.0])).tolist()
    [0.5, -0.6666666865348816]
    >>> ember.tensor([7, -7]).div(ember.tensor([2, 2])).tolist()
    [3, -4]
    """,
    """``self.div(other)`` for a number ``other`` (keeps the kind, as ``div``).

    The kind kept is that of the promoted operands: an int tensor with an int gives floor
    division; with a float (weak scalars promote ints to float32, as everywhere in ember) it is
    true division. Burn would first truncate the float to the tensor's int type.

    >>> import ember
    >>> ember.tensor([1.0, -2.0]).div_scalar(2.0).tolist()
    [0.5, -1.0]
    >>> ember.tensor([7, -7]).div_scalar(2).tolist()
    [3, -4]
    """, cx=True)


@tensor_method
def true_divide(self, other):
    """``self / other``: true division, a float result even for ints (PyTorch's ``true_divide``).

    >>> import ember
    >>> ember.tensor([7, -7]).true_divide(2).tolist()
    [3.5, -3.5]
    """
    return _truediv(self, other, "true_divide")


@tensor_method
def floor_divide(self, other):
    """``self // other``: the floor of the quotient, in the promoted dtype (zero gradient).

    >>> import ember
    >>> ember.tensor([7, -7]).floor_divide(2).tolist()
    [3, -4]
    >>> ember.tensor([7.5, -7.5]).floor_divide(2.0).tolist()
    [3.0, -4.0]
    """
    return _floordiv(self, other, "floor_divide")


remainder, remainder_scalar = _twins(
    "remainder", _remainder,
    """``self % other``: floor modulo, a nonzero result has the sign of the divisor.

    >>> import ember
    >>> ember.tensor([5, -5, 5, -5]).remainder(ember.tensor([3, 3, -3, -3])).tolist()
    [2, 1, -1, -2]
    """,
    """``self % other`` for a number ``other`` (floor modulo).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).remainder_scalar(2.0).tolist()
    [[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """)


@tensor_method
def fmod(self, other):
    """C's ``fmod``: the remainder of the quotient truncated toward zero (sign of ``self``).

    Special cases (IEEE): ``fmod(±inf, y)`` and ``fmod(x, ±0)`` are NaN; ``fmod(x, ±inf)`` is
    ``x`` for finite ``x``; NaN in, NaN out. On int tensors the result stays int and a zero
    divisor raises ``InvalidParameterError``.

    >>> import ember
    >>> ember.tensor([5.0, -5.0, 5.0, -5.0]).fmod(ember.tensor([3.0, 3.0, -3.0, -3.0])).tolist()
    [2.0, -2.0, 2.0, -2.0]
    """
    return _fmod(self, other, "fmod")


@tensor_method
def fmod_scalar(self, scalar):
    """``self.fmod(scalar)`` for a number ``scalar``.

    >>> import ember
    >>> ember.tensor([7.5, -7.5]).fmod_scalar(2.0).tolist()
    [1.5, -1.5]
    """
    _check_number(scalar, "fmod_scalar", "scalar")
    return _fmod(self, scalar, "fmod_scalar")


# -- powers -----------------------------------------------------------------------------------

def _pow(a, b, op, mode):
    """Power. ``mode``: "auto" (``**``: int ** int stays int), "float" (always a float result),
    "int" (the exponent must be an int tensor or an int)."""
    if mode == "int":
        if isinstance(b, Tensor):
            if b._dtype.kind != "int":
                raise KindError(f"{op}: other must be an int tensor, got dtype {b._dtype.name}; "
                                "use powf for float exponents")
        elif not _is_int_scalar(b):
            if _is_scalar(b):
                raise InvalidParameterError(
                    f"{op}: other must be an int, got {type(b).__name__} {b!r}; use powf_scalar "
                    "for float exponents", "other", b)
            raise _operand_error(op, "other", b)
    xa, xb, dt, ta, tb, be = _prep2(a, b, op, to_float=(mode == "float"), cx=(mode == "auto"))
    if dt.kind == "int":
        if be.ew_any_negative(xb):  # a scalar past the dtype's range has wrapped (as PyTorch)
            wrapped = "" if tb is not None or b < 0 else f": {b!r} wraps to a negative {dt.name}"
            raise InvalidParameterError(
                f"{op}: integers to negative integer powers are not allowed (other has a "
                f"negative value for {dt.name} operands{wrapped}); use powf or cast to float "
                "first", "other", b)
        return record(be.ew_ipow(xa, xb), dt, tuple([t for t in (ta, tb) if t is not None]), None,
                      op)
    out = be.ew_cast(be.ew_pow(xa, xb), dt)
    a, b = _kept(a, b, ta, tb)

    def rule(g, need_a, need_b, y):  # the masks are constants (xa, xb: the operands' values)
        ga = gb = None
        if need_a:  # b * a ** (b - 1), 0 where b == 0 (PyTorch)
            ea = _cast(a, dt)
            if tb is None:
                ga = _zeros(g) if b == 0 else g * (b * ea ** (b - 1))
            else:
                eb = _cast(b, dt)
                ga = _masked(g * (eb * ea ** (eb - 1)), be.ew_eq(xb, 0), False, "pow_backward")
        if need_b:  # a ** b * log(a), 0 where a == 0 and b >= 0 (PyTorch)
            if ta is None:
                d = y * _log_number(a)
                gb = g * (_masked(d, be.ew_ge(xb, 0), False, "pow_backward") if a == 0 else d)
            else:
                mask = be.ew_logical_and(be.ew_eq(xa, 0), be.ew_ge(xb, 0))
                gb = g * _masked(y * _cast(a, dt).log(), mask, False, "pow_backward")
        return ga, gb
    return _record2t(out, dt, ta, tb, rule, op, keep_out=tb is not None)


def _log_number(v):
    """The natural log of a real number: -inf at 0, NaN below (as the float kernels)."""
    return _math.log(v) if v > 0 else -_math.inf if v == 0 else _math.nan


@tensor_method
def pow(self, exponent):
    """``self ** exponent``, PyTorch's promotion: int ** int stays int, with a float it is float.

    Integers to negative integer powers raise ``InvalidParameterError`` (as PyTorch and NumPy).
    Complex tensors and Python complex numbers take the principal branch (``exp(b * log(a))``).

    >>> import ember
    >>> ember.tensor([1, -2, 3]).pow(2).tolist()
    [1, 4, 9]
    >>> ember.tensor([4.0, 9.0]).pow(0.5).tolist()
    [2.0, 3.0]
    """
    return _pow(self, exponent, "pow", "auto")


powf, powf_scalar = _twins(
    "powf", _pow,
    """Float power with a tensor or number exponent (a float result; ints compute in float32).

    A negative base with an integral exponent keeps its sign: ``(-2.0) ** 3 == -8.0``; with a
    non-integral exponent the result is NaN.

    >>> import ember
    >>> a = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> a.powf(ember.tensor([[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]])).tolist()
    [[1.0, -8.0, 81.0], [5.0, 81.0, 216.0]]
    """,
    """``self.powf(other)`` for a number ``other``.

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).powf_scalar(2.0).tolist()
    [[1.0, 4.0, 9.0], [25.0, 81.0, 36.0]]
    """, "float")


powi, powi_scalar = _twins(
    "powi", _pow,
    """Power with an int tensor (or int) exponent; int tensors stay int, float tensors stay float.

    >>> import ember
    >>> a = ember.tensor([[1, -2, 3], [5, 9, 6]])
    >>> a.powi(ember.tensor([[2, 3, 4], [1, 2, 3]])).tolist()
    [[1, -8, 81], [5, 81, 216]]
    """,
    """``self.powi(other)`` for an int ``other``.

    >>> import ember
    >>> ember.tensor([[1.5, -2.0, 3.0], [5.0, 9.0, 6.0]]).powi_scalar(2).tolist()
    [[2.25, 4.0, 9.0], [25.0, 81.0, 36.0]]
    """, "int")


# -- unary ops that keep the kind -------------------------------------------------------------

@tensor_method
def neg(self):
    """``-self`` (unsigned ints wrap, as PyTorch).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).neg().tolist()
    [[-1.0, 2.0, -3.0], [-5.0, -9.0, -6.0]]
    """
    _check_tensor(self, "neg", cx=True)
    be = self._device.backend
    return record(be.ew_neg(self._data), self._dtype, (self,), _neg_rule, "neg")


_NEG_GRAD = PRIMITIVES["neg"].grad


def _neg_rule(g, needs, out):
    return (_NEG_GRAD(g, None),)


Tensor.__neg__ = neg


@tensor_method
def positive(self):
    """``+self``: the tensor itself (int and float tensors only).

    >>> import ember
    >>> (+ember.tensor([1, -2])).tolist()
    [1, -2]
    """
    _check_tensor(self, "positive", cx=True, computes=False)
    return self


Tensor.__pos__ = positive


@tensor_method
def abs(self):
    """The absolute value; for signed ints the minimum wraps (``abs(-128) == -128`` in int8).

    The gradient at 0 is 0, as PyTorch. Of a complex tensor: the modulus, in its parts' float
    dtype (``complex64`` gives ``float32``).

    >>> import ember
    >>> ember.tensor([[1, -2, 3], [4, -5, 6], [7, -8, 9]]).abs().tolist()
    [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    """
    _check_tensor(self, "abs", cx=True)
    be = self._device.backend
    x = self._data
    if self._dtype.kind == "complex":  # complex tensors carry no gradient (docs/complex.md)
        return wrap(be.ew_abs(x), _dt.real_of(self._dtype), self._ad)
    xs = saved(self)  # its sign is a constant of the rule
    grad = PRIMITIVES["abs"].grad
    return record(be.ew_abs(x), self._dtype, (self,), lambda g, needs, out: (grad(g, xs),),
                  "abs")


Tensor.__abs__ = abs


@tensor_method
def sign(self):
    """-1, 0 or 1 in the tensor's dtype; NaN and ±0 give 0 (as PyTorch and Burn). Zero gradient.

    Of a complex tensor: ``self / abs(self)``, 0 at 0 (PyTorch's ``sgn``, the Array API's
    ``sign``).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).sign().tolist()
    [[1.0, -1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    return _sign(self, "sign")


def _sign(self, op):
    _check_tensor(self, op, cx=True)
    be = self._device.backend
    if self._dtype.kind == "complex":
        return wrap(be.ew_sgn(self._data), self._dtype, self._ad)
    return record(be.ew_sign(self._data), self._dtype, (self,), _zero_rule, op)


@tensor_method
def sgn(self):
    """PyTorch's ``sgn``: ``self / abs(self)`` for complex tensors (0 at 0), ``sign`` for real ones.

    >>> import ember, numpy
    >>> ember.from_numpy(numpy.array([4j, -2 + 0j, 0j])).sgn().tolist()
    [1j, (-1+0j), 0j]
    """
    return _sign(self, "sgn")


@tensor_method
def square(self):
    """``self * self``; int tensors stay int.

    >>> import ember
    >>> ember.tensor([-3, 4]).square().tolist()
    [9, 16]
    """
    _check_tensor(self, "square", cx=True)
    be = self._device.backend
    xs = saved(self)
    return record(be.ew_square(self._data), self._dtype, (self,),
                  lambda g, needs, out: (g * (xs * 2),), "square")

