"""The elementwise op family: arithmetic, float math, clamps and pairwise extrema.

Operands broadcast like NumPy; dtypes promote like PyTorch (``ember.result_type``: Python
scalars are weak). Operators keep Python's meaning (``/`` is true division, ``//`` floor
division, ``%`` floor modulo); the Burn-named methods keep Burn's (``div`` keeps the kind, so it
is floor division on ints). Float math on int tensors computes in the default float dtype.
Bool tensors have no arithmetic: they raise ``KindError`` (cast them with ``.int()`` or
``.float()`` first). See docs/math.md for the user guide.

Complex tensors (docs/complex.md) take the arithmetic (``+ - * / **``, ``neg``, ``reciprocal``,
``square``), the float math listed there, ``abs``/``angle``/``real``/``imag``/``conj`` and
Python complex scalars (weak, as ``dtypes.result_type``); every other op here raises
``dtypes.complex_error`` for them, and none casts a complex tensor to a real dtype. Special
values (nan, inf, -0.0 parts) of the complex float math follow NumPy's functions, which
implement C99 Annex G as the Array API standard asks, where PyTorch differs only there; both
backends give the same values.
"""

import math as _math
from operator import attrgetter as _kernel

from .. import dtypes as _dt
from ..errors import InvalidParameterError, KindError
from ..shapes import as_int, broadcast_shapes
from ..autodiff.graph import _mode
from ..autodiff.rules import array_rule, fit
from .._tensor import (Pending, Tensor, device_error, record, record_arrays, saved,
                      tensor_method, wrap)
from . import fusion as _fusion

__all__ = [
    "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow",
    "powf", "powi", "neg", "positive", "abs", "sign", "square", "exp", "log", "log1p", "expm1",
    "sqrt", "rsqrt", "recip", "reciprocal", "erf", "sin", "cos", "tan", "sinh", "cosh", "tanh",
    "asin", "acos", "atan", "asinh", "acosh", "atanh", "atan2", "hypot", "deg2rad", "rad2deg",
    "round", "floor", "ceil", "trunc", "sigmoid", "relu", "clamp", "clamp_min", "clamp_max",
    "max_pair", "min_pair", "maximum", "minimum", "lerp",
    "sgn", "log2", "log10", "real", "imag", "conj", "angle", "complex", "polar",
]

_result_type = _dt.result_type
_BOOL = _dt.bool_
_F32 = _dt.float32
_F64 = _dt.float64
_EXACT = 1 << 53  # Python ints below this are exact as floats
_scalar_kind = _dt._scalar_kind
_REAL = ("int", "float")
_ODD = ("bool", "complex")  # the kinds most ops check for: bool always raises, complex often


# -- operand checks ---------------------------------------------------------------------------

def _is_scalar(value):
    """Whether ``value`` is a real number an op takes as a scalar operand: a Python int or float
    or a backend's int or float scalar (bools excluded)."""
    t = type(value)
    if t is int or t is float:
        return True
    return (isinstance(value, (int, float)) or hasattr(value, "dtype")) and \
        _scalar_kind(value) in _REAL


def _is_int_scalar(value):
    """Whether ``value`` is a Python or a backend's integer (bools excluded)."""
    if type(value) is int:
        return True
    return (isinstance(value, int) or hasattr(value, "dtype")) and _scalar_kind(value) == "int"


def _bool_error(op, param, t):
    return KindError(f"{op}: not defined for bool tensors ({param} has dtype bool); expected an "
                     f"int or float tensor (cast it first: {param}.int() or {param}.float())")


def _operand_error(op, param, value, want="a Tensor or a number"):
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return KindError(f"{op}: {param} is the bool {value!r}; expected an int or float number")
    if _scalar_kind(value) == "complex":
        return KindError(f"{op}: not defined for complex numbers ({param} is {value!r}); "
                         "expected an int or float number (the ops that take complex values "
                         "are listed in docs/complex.md)")
    return KindError(f"{op}: {param} must be {want}, got {type(value).__name__} {value!r}")


def _odd_kind(x, op, param, cx):
    """The check of a bool or complex tensor ``x``: bool raises; complex raises unless the op
    takes complex tensors (``cx``)."""
    if x._dtype.kind == "bool":
        raise _bool_error(op, param, x)
    if not cx:
        raise _dt.complex_error(op, param, x._dtype)


def _check_tensor(x, op, param="input", cx=False):
    """``x`` itself if it is an int or float Tensor (or a complex one, when ``cx``: the op takes
    complex tensors); typed errors otherwise."""
    if not isinstance(x, Tensor):
        raise InvalidParameterError(
            f"{op}: {param} must be a Tensor, got {type(x).__name__} {x!r}", param, x)
    if x._dtype.kind in _ODD:
        _odd_kind(x, op, param, cx)
    return x


def _is_complex_scalar(value):
    """Whether ``value`` is a Python or a backend's complex number (not a real one)."""
    return _scalar_kind(value) == "complex"


def _check_operand(x, op, param, cx=False):
    """Tensor operands must not be bool (nor complex unless ``cx``); other operands must be real
    numbers (or complex ones when ``cx``)."""
    if isinstance(x, Tensor):
        if x._dtype.kind in _ODD:
            _odd_kind(x, op, param, cx)
    elif not _is_scalar(x) and not (cx and _is_complex_scalar(x)):
        raise _operand_error(op, param, x)


def _check_number(value, op, param, cx=False):
    """``value`` must be a real number (not a Tensor, not a bool), or a complex one when ``cx``."""
    if isinstance(value, Tensor):
        raise KindError(f"{op}: {param} must be a number, got a Tensor; use the tensor form "
                        f"{op.replace('_scalar', '')}() for tensors")
    if not _is_scalar(value) and not (cx and _is_complex_scalar(value)):
        raise _operand_error(op, param, value, "a number")


def _scalar(be, value, dtype, op, param):
    """A Python number as an operand for ``be``'s arrays of ember ``dtype`` (ints wrap into an
    int dtype); InvalidParameterError for an int that no 64-bit integer (or, for floats, no
    float) holds. Every op that takes Python numbers converts them here (bitwise ops and shifts
    too)."""
    try:
        return be.ew_scalar(value, dtype)
    except OverflowError:
        what = "or a float" if dtype._rank >= 2 else \
            "(from -2**63 to 2**64 - 1)"
        raise InvalidParameterError(
            f"{op}: {param} {value!r} is out of range; expected a value that fits a 64-bit "
            f"integer {what}", param, value) from None


def _scalar_dtype(t, s, op, param, cx=False):
    """The result dtype of tensor ``t`` with the scalar ``s`` (PyTorch: the scalar is weak);
    ``cx``: the op takes complex tensors and Python complex numbers."""
    d = t._dtype
    if d.kind in _ODD:
        _odd_kind(t, op, "self" if param == "other" else "other", cx)
    ts = type(s)
    if ts is float:
        return d if d._rank >= 2 else _dt.default_float  # float and complex keep their dtype
    if ts is int:
        return d
    if not _is_scalar(s):
        if cx and _is_complex_scalar(s):
            return _result_type(t, s)  # complex_of a float dtype; complex64 for ints
        raise _operand_error(op, param, s)
    return _result_type(t, s)


def _prep2(a, b, op, to_float=False, cx=False):
    """Checked operands of a binary op as backend arrays of the result dtype (``cx``: the op
    takes complex tensors and numbers; ``to_float`` keeps a complex result complex).

    Returns ``(xa, xb, dt, ta, tb, be)``: ``xa``/``xb`` the operands (0-d arrays or Python
    floats for scalars), ``dt`` the result dtype, ``ta``/``tb`` the operands that are tensors
    (None for scalars), ``be`` their backend (DeviceError for tensors on two devices).
    """
    ta = a if isinstance(a, Tensor) else None
    tb = b if isinstance(b, Tensor) else None
    if ta is not None:
        if tb is not None:
            if ta._device is not tb._device:
                raise device_error(op, ta, tb)
            dt = ta._dtype
            if dt.kind in _ODD:
                _odd_kind(ta, op, "self", cx)
            if tb._dtype is not dt:
                if tb._dtype.kind in _ODD:
                    _odd_kind(tb, op, "other", cx)
                dt = _result_type(ta, tb)
            sa, sb = ta._data.shape, tb._data.shape
            if sa != sb:
                broadcast_shapes(sa, sb, op=op)
        else:
            dt = _scalar_dtype(ta, b, op, "other", cx)
        be = ta._device.backend
    elif tb is not None:
        dt = _scalar_dtype(tb, a, op, "self", cx)
        be = tb._device.backend
    else:
        _check_operand(a, op, "self", cx)
        _check_operand(b, op, "other", cx)
        raise KindError(f"{op}: expected at least one Tensor operand, got {type(a).__name__} and "
                        f"{type(b).__name__}")
    if to_float and dt._rank < 2:  # int (bool raised): the default float; complex stays
        dt = _dt.default_float
    if ta is None:
        xa = _scalar(be, a, dt, op, "self")
    else:
        xa = ta._data if ta._dtype is dt else be.ew_cast(ta._data, dt)
    if tb is None:
        xb = _scalar(be, b, dt, op, "other")
    else:
        xb = tb._data if tb._dtype is dt else be.ew_cast(tb._data, dt)
    return xa, xb, dt, ta, tb, be


def _operands(a, b, ta, tb, dt):
    """The operands of a binary op as its gradient rule sees them: tensors as ``saved`` Tensors
    of the result dtype ``dt`` (a cast is a recorded step), numbers as they are. (None, None)
    when no step will be recorded (no operand tracked, recording off, or not a float result:
    ``record`` words the error of a complex one)."""
    if dt.kind != "float" or not _mode.enabled or \
            (ta is None or ta._node is None) and (tb is None or tb._node is None):
        return None, None
    return (a if ta is None else saved(ta) if ta._dtype is dt else ta.cast(dt),
            b if tb is None else saved(tb) if tb._dtype is dt else tb.cast(dt))


def _record2t(out, dt, ta, tb, rule, name, keep_out=False):
    """Record a binary op whose ``rule(g, need_a, need_b, out)`` (ember ops) gives the
    full-shape gradients; each is summed to its operand's shape and cast to its dtype. ``out``
    is the result (a Tensor) when ``keep_out``, else None."""
    if ta is not None and tb is not None:
        def backward(g, needs, out):
            ga, gb = rule(g, needs[0], needs[1], out)
            return (None if ga is None else fit(ga, ta), None if gb is None else fit(gb, tb))
        return record(out, dt, (ta, tb), backward, name, keep_out)
    if ta is not None:
        return record(out, dt, (ta,),
                      lambda g, needs, out: (fit(rule(g, True, False, out)[0], ta),), name,
                      keep_out)
    return record(out, dt, (tb,), lambda g, needs, out: (fit(rule(g, False, True, out)[1], tb),),
                  name, keep_out)


def _kept(a, b, ta, tb):
    """The operands of a binary op as its rule keeps them: tensors as ``saved`` Tensors (of
    their own dtype: a rule casts them with ``_cast``, when it runs), numbers as they are."""
    return (a if ta is None else saved(ta), b if tb is None else saved(tb))


def _cast(v, dt):
    """Operand ``v`` (a Tensor or a number) in dtype ``dt``: a Tensor is cast (a recorded
    step), a number stays a number."""
    return v.cast(dt) if isinstance(v, Tensor) and v._dtype is not dt else v


def _zeros(g):
    """Zeros of ``g``'s shape and dtype (an untracked constant): the gradient of a piecewise
    constant op."""
    return wrap(g._device.backend.zeros_like(g._data), g._dtype)


def _zero_rule(g, needs, out):
    return (_zeros(g),)


def _masked(t, cond, keep, name):
    """``t`` where the bool array ``cond`` is true (``keep``) or false (not ``keep``), 0
    elsewhere (``cond`` broadcasts to ``t``'s shape). A recorded step: linear in ``t`` with a
    constant mask, so its rule is the step itself, and the gradients of relu, clamps, extrema
    and the guarded rules (pow, atan2) differentiate again."""
    be = t._device.backend
    dt = t._dtype
    x = t._data
    data = be.ew_cast(be.ew_where(cond, x, 0) if keep else be.ew_where(cond, 0, x), dt)
    return record(data, dt, (t,), lambda g, needs, out: (_masked(g, cond, keep, name),), name)


def _times_mask(t, cond, name):
    """``t * cond`` for a bool array ``cond``: ``_masked(t, cond, True, name)`` at the speed of a
    product (a select over a mixed mask is several times slower), but an inf or NaN of ``t``
    where ``cond`` is false gives NaN, not 0 (clamp's gradient)."""
    be = t._device.backend
    dt = t._dtype
    return record(be.ew_cast(be.ew_mul(t._data, cond), dt), dt, (t,),
                  lambda g, needs, out: (_times_mask(g, cond, name),), name)


def _check_int_divisor(be, xb, b, dt, op):
    """Integer division by zero raises (PyTorch raises; NumPy would warn and give 0)."""
    if dt.kind == "int" and be.ew_any_zero(xb):
        raise InvalidParameterError(
            f"{op}: integer division by zero (other contains 0); expected nonzero divisors for "
            f"{dt.name} operands", "other", b)


# -- add, sub, mul ----------------------------------------------------------------------------

def _add(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op, cx=True)
    out = be.ew_cast(be.ew_add(xa, xb), dt)

    def rule(g, need_a, need_b, out):
        return (g if need_a else None, g if need_b else None)
    return _record2t(out, dt, ta, tb, rule, op)


def _sub(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op, cx=True)
    out = be.ew_cast(be.ew_sub(xa, xb), dt)

    def rule(g, need_a, need_b, out):
        return (g if need_a else None, -g if need_b else None)
    return _record2t(out, dt, ta, tb, rule, op)


def _mul(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op, cx=True)
    out = be.ew_cast(be.ew_mul(xa, xb), dt)
    a, b = _operands(a, b, ta, tb, dt)

    def rule(g, need_a, need_b, out):
        return (g * b if need_a else None, g * a if need_b else None)
    return _record2t(out, dt, ta, tb, rule, op)


@tensor_method
def add(self, other):
    """``self + other``, broadcast, with PyTorch's type promotion (``other`` a Tensor or number).

    >>> import ember
    >>> a = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> a.add(ember.tensor([2.0, 3.0, 4.0])).tolist()
    [[3.0, 1.0, 7.0], [7.0, 12.0, 10.0]]
    """
    return _add(self, other, "add")


@tensor_method
def add_scalar(self, other):
    """``self + other`` for a number ``other`` (Burn's ``add_scalar``).

    >>> import ember
    >>> ember.tensor([1, 2]).add_scalar(3).tolist()
    [4, 5]
    """
    _check_number(other, "add_scalar", "other", cx=True)
    return _add(self, other, "add_scalar")


@tensor_method
def sub(self, other):
    """``self - other``, broadcast.

    >>> import ember
    >>> ember.tensor([5.0, 1.0]).sub(ember.tensor([2.0, 3.0])).tolist()
    [3.0, -2.0]
    """
    return _sub(self, other, "sub")


@tensor_method
def sub_scalar(self, other):
    """``self - other`` for a number ``other``.

    >>> import ember
    >>> ember.tensor([1.0, 2.0]).sub_scalar(2.0).tolist()
    [-1.0, 0.0]
    """
    _check_number(other, "sub_scalar", "other", cx=True)
    return _sub(self, other, "sub_scalar")


@tensor_method
def mul(self, other):
    """``self * other``, broadcast.

    >>> import ember
    >>> ember.tensor([1.0, -2.0]).mul(ember.tensor([2.0, 3.0])).tolist()
    [2.0, -6.0]
    """
    return _mul(self, other, "mul")


@tensor_method
def mul_scalar(self, other):
    """``self * other`` for a number ``other``.

    >>> import ember
    >>> ember.tensor([1.0, -2.0]).mul_scalar(2.0).tolist()
    [2.0, -4.0]
    """
    _check_number(other, "mul_scalar", "other", cx=True)
    return _mul(self, other, "mul_scalar")


# -- division and remainders ------------------------------------------------------------------

def _truediv(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op, to_float=True, cx=True)
    out = be.ew_cast(be.ew_truediv(xa, xb), dt)
    a, b = _operands(a, b, ta, tb, dt)

    def rule(g, need_a, need_b, out):  # -g * a / (b * b) for b, as PyTorch
        return (g / b if need_a else None, -g * a / (b * b) if need_b else None)
    return _record2t(out, dt, ta, tb, rule, op)


def _floordiv(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op)
    _check_int_divisor(be, xb, b, dt, op)
    out = be.ew_cast(be.ew_floordiv(xa, xb), dt)
    return _record2t(out, dt, ta, tb, _zeros2, op)


def _zeros2(g, need_a, need_b, out):
    z = _zeros(g)
    return (z if need_a else None, z if need_b else None)


def _remainder(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op)
    _check_int_divisor(be, xb, b, dt, op)
    out = be.ew_cast(be.ew_remainder(xa, xb), dt)

    def rule(g, need_a, need_b, out):  # a - b * floor(a / b); the quotient is a constant
        gb = -g * wrap(be.ew_cast(be.ew_floordiv(xa, xb), dt), dt) if need_b else None
        return (g if need_a else None), gb
    return _record2t(out, dt, ta, tb, rule, op)


def _fmod(a, b, op):
    xa, xb, dt, ta, tb, be = _prep2(a, b, op)
    _check_int_divisor(be, xb, b, dt, op)
    out = be.ew_cast(be.ew_fmod(xa, xb), dt)

    def rule(g, need_a, need_b, out):  # a - b * trunc(a / b); the quotient is a constant
        gb = -g * wrap(be.ew_cast(be.ew_trunc_div(xa, xb), dt), dt) if need_b else None
        return (g if need_a else None), gb
    return _record2t(out, dt, ta, tb, rule, op)


def _burn_div(a, b, op):
    """Burn's ``div``: keeps the kind (floor division on ints, true division on floats and
    complex numbers)."""
    _check_operand(a, op, "self", cx=True)
    _check_operand(b, op, "other", cx=True)
    if _result_type(a, b).kind == "int":
        return _floordiv(a, b, op)
    return _truediv(a, b, op)


@tensor_method
def div(self, other):
    """Division that keeps the kind (Burn's ``div``): true division on floats, floor on ints.

    So ``a == a.div(b) * b + a.remainder(b)`` holds for ints; use ``/`` or ``true_divide`` for a
    float quotient of ints. Integer division by zero raises ``InvalidParameterError``.

    >>> import ember
    >>> ember.tensor([1.0, -2.0]).div(ember.tensor([2.0, 3.0])).tolist()
    [0.5, -0.6666666865348816]
    >>> ember.tensor([7, -7]).div(ember.tensor([2, 2])).tolist()
    [3, -4]
    """
    return _burn_div(self, other, "div")


@tensor_method
def div_scalar(self, other):
    """``self.div(other)`` for a number ``other`` (keeps the kind, as ``div``).

    The kind kept is that of the promoted operands: an int tensor with an int gives floor
    division; with a float (weak scalars promote ints to float32, as everywhere in ember) it is
    true division. Burn would first truncate the float to the tensor's int type.

    >>> import ember
    >>> ember.tensor([1.0, -2.0]).div_scalar(2.0).tolist()
    [0.5, -1.0]
    >>> ember.tensor([7, -7]).div_scalar(2).tolist()
    [3, -4]
    """
    _check_number(other, "div_scalar", "other", cx=True)
    return _burn_div(self, other, "div_scalar")


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


@tensor_method
def remainder(self, other):
    """``self % other``: floor modulo, a nonzero result has the sign of the divisor.

    >>> import ember
    >>> ember.tensor([5, -5, 5, -5]).remainder(ember.tensor([3, 3, -3, -3])).tolist()
    [2, 1, -1, -2]
    """
    return _remainder(self, other, "remainder")


@tensor_method
def remainder_scalar(self, other):
    """``self % other`` for a number ``other`` (floor modulo).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).remainder_scalar(2.0).tolist()
    [[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """
    _check_number(other, "remainder_scalar", "other")
    return _remainder(self, other, "remainder_scalar")


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


@tensor_method
def powf(self, other):
    """Float power with a tensor or number exponent (a float result; ints compute in float32).

    A negative base with an integral exponent keeps its sign: ``(-2.0) ** 3 == -8.0``; with a
    non-integral exponent the result is NaN.

    >>> import ember
    >>> a = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> a.powf(ember.tensor([[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]])).tolist()
    [[1.0, -8.0, 81.0], [5.0, 81.0, 216.0]]
    """
    return _pow(self, other, "powf", "float")


@tensor_method
def powf_scalar(self, other):
    """``self.powf(other)`` for a number ``other``.

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).powf_scalar(2.0).tolist()
    [[1.0, 4.0, 9.0], [25.0, 81.0, 36.0]]
    """
    _check_number(other, "powf_scalar", "other")
    return _pow(self, other, "powf_scalar", "float")


@tensor_method
def powi(self, other):
    """Power with an int tensor (or int) exponent; int tensors stay int, float tensors stay float.

    >>> import ember
    >>> a = ember.tensor([[1, -2, 3], [5, 9, 6]])
    >>> a.powi(ember.tensor([[2, 3, 4], [1, 2, 3]])).tolist()
    [[1, -8, 81], [5, 81, 216]]
    """
    return _pow(self, other, "powi", "int")


@tensor_method
def powi_scalar(self, other):
    """``self.powi(other)`` for an int ``other``.

    >>> import ember
    >>> ember.tensor([[1.5, -2.0, 3.0], [5.0, 9.0, 6.0]]).powi_scalar(2).tolist()
    [[2.25, 4.0, 9.0], [25.0, 81.0, 36.0]]
    """
    _check_number(other, "powi_scalar", "other")
    return _pow(self, other, "powi_scalar", "int")


# -- operators --------------------------------------------------------------------------------

def _dunder(binary, name, symbol, reverse=False):
    """An operator that always takes the general path of ``binary``."""
    if reverse:
        def method(self, other):
            return binary(other, self, name)
        method.__doc__ = f"``other {symbol} self`` for a number ``other`` (see ``{name}``)."
    else:
        def method(self, other):
            return binary(self, other, name)
        method.__doc__ = f"``self {symbol} other`` (see ``{name}``)."
    return method


_new = object.__new__
_prod = _math.prod  # elements from the shape: a C call, no kernel call on the hot path


def _kernel_of(memo, device, dtype, kname):
    """``(device, dtype, kernel, eager)`` for an operator's short path: the kernel ``kname`` of
    ``device``'s backend for operands of ``dtype`` (its ``ew_operator``: torch's own operator,
    where it computes the same, skips a Python frame) and whether the backend computes at once
    (it does not defer: see ``fusion``), remembered in ``memo[0]`` as one tuple (replaced whole,
    so a thread never sees one device with another's kernel): an operator's next call on the
    same device and dtype finds it with two identity checks."""
    be = device.backend
    last = memo[0] = (device, dtype, be.ew_operator(kname, dtype), not _fusion.defers(be))
    return last


def _short(kname, slow, name, symbol, grad_tt, grad_ts, float_only=False):
    """An operator with the short path of DESIGN.md: two tensors of one dtype, shape and device,
    or a float32/float64 tensor with a Python float (or small int), go straight to the kernel
    ``kname`` of the operand's backend (no promotion, no broadcasting checks); everything else
    takes ``slow``. ``grad_tt(be, a, b)`` and ``grad_ts(be, a, s)`` build the backward rule of
    each case. When no operand is tracked (and both carry the same checkpointing strategy) the
    result is built directly: what ``record`` would return, without building a rule it would
    drop; from ``fusion.MIN_NUMEL`` elements on, ``fusion.start`` defers it (a Pending). On a
    backend that computes at once (torch), two untracked tensors need no equal shapes: its
    operator broadcasts as ember does, and shapes it cannot broadcast take ``slow``, which
    words the error."""
    kinds = ("float",) if float_only else ("float", "int")
    memo = [(None, None, None, None)]

    def method(self, other):
        dt = self._dtype
        if type(other) is Tensor:
            a, b = self._data, other._data
            if other._dtype is dt:
                device = self._device
                last = memo[0]  # the kernel of the device and dtype of the last call
                if last[0] is not device or last[1] is not dt:  # (memo holds kinds it takes)
                    if dt.kind not in kinds:
                        return slow(self, other, name)
                    last = _kernel_of(memo, device, dt, kname)
                if other._device is not device:
                    raise device_error(name, self, other)
                kernel = last[2]
                ad = self._ad
                untracked = self._node is None and other._node is None and ad is other._ad
                if last[3] and untracked:
                    try:
                        out = kernel(a, b)
                    except RuntimeError:
                        return slow(self, other, name)
                    t = _new(Tensor)  # nothing to record: what ``wrap`` gives, inline
                    t._data = out
                    t._dtype = dt
                    t._device = device
                    t._node = None
                    t._ad = ad
                    t._grad = None
                    return t
                if (shape := a.shape) == b.shape:
                    if untracked:
                        if _prod(shape) >= _fusion.MIN_NUMEL:
                            return _fusion.start(device.backend, kernel, a, b, dt, ad, device)
                        t = _new(Tensor)
                        t._data = kernel(a, b)
                        t._dtype = dt
                        t._device = device
                        t._node = None
                        t._ad = ad
                        t._grad = None
                        return t
                    if ad == "balanced" or other._ad == "balanced":
                        return record_arrays(
                            kernel(a, b), dt, (self, other),
                            array_rule(grad_tt(wrap(a, dt), wrap(b, dt)), dt), name,
                            (kernel, lambda arrays, out: array_rule(grad_tt(
                                wrap(arrays[0], dt), wrap(arrays[1], dt)), dt)))
                    return record(kernel(a, b), dt, (self, other),
                                  grad_tt(saved(self), saved(other)), name)
        elif dt is _F32 or dt is _F64:
            t = type(other)
            if t is float or (t is int and -_EXACT < other < _EXACT):
                a, other = self._data, float(other)
                device = self._device
                last = memo[0]  # the kernel of the device and dtype of the last call
                if last[0] is not device or last[1] is not dt:
                    last = _kernel_of(memo, device, dt, kname)
                kernel = last[2]
                if self._node is None:
                    if not last[3] and _prod(a.shape) >= _fusion.MIN_NUMEL:
                        return _fusion.start(device.backend, kernel, a, other, dt, self._ad,
                                             device)
                    return wrap(kernel(a, other), dt, self._ad)
                return _scalar_step(self, kernel, other, grad_ts, name, False)
        return slow(self, other, name)
    method.__name__ = name
    method.__doc__ = f"``self {symbol} other`` (see ``{name}``)."
    return method


def _short_reverse(kname, slow, name, symbol, grad_st):
    """The reflected operator (``other OP self`` for a number ``other``), with the short path for
    a Python float and a float32/float64 tensor. ``grad_st(be, s, a)`` builds the backward rule."""
    memo = [(None, None, None, None)]

    def method(self, other):
        dt = self._dtype
        if dt is _F32 or dt is _F64:
            t = type(other)
            if t is float or (t is int and -_EXACT < other < _EXACT):
                a, other = self._data, float(other)
                device = self._device
                last = memo[0]  # the kernel of the device and dtype of the last call
                if last[0] is not device or last[1] is not dt:
                    last = _kernel_of(memo, device, dt, kname)
                kernel = last[2]
                if self._node is None:
                    if not last[3] and _prod(a.shape) >= _fusion.MIN_NUMEL:
                        return _fusion.start(device.backend, kernel, other, a, dt, self._ad,
                                             device)
                    return wrap(kernel(other, a), dt, self._ad)
                return _scalar_step(self, kernel, other, grad_st, name, True)
        return slow(other, self, name)
    method.__name__ = "r" + name
    method.__doc__ = f"``other {symbol} self`` for a number ``other`` (see ``{name}``)."
    return method


def _scalar_step(x, kernel, s, grad, name, reverse):
    """The recorded step of a tracked float tensor ``x`` with the number ``s`` (``s OP x`` when
    ``reverse``): ``grad(x, s)`` (``grad(s, x)``) builds its rule; under the "balanced"
    strategy it recomputes on arrays with the same rule."""
    a, dt = x._data, x._dtype
    out = kernel(s, a) if reverse else kernel(a, s)
    if x._ad == "balanced":
        rule = grad(s, wrap(a, dt)) if reverse else grad(wrap(a, dt), s)
        return record_arrays(out, dt, (x,), array_rule(rule, dt), name,
                             _scalar_recompute(kernel, grad, s, dt, reverse))
    return record(out, dt, (x,), grad(s, saved(x)) if reverse else grad(saved(x), s), name)


def _scalar_recompute(kernel, grad, s, dt, reverse):
    """The "balanced" recompute recipe of a tensor-with-number op (see ``record_arrays``)."""
    if reverse:
        return (lambda a: kernel(s, a),
                lambda arrays, out: array_rule(grad(s, wrap(arrays[0], dt)), dt))
    return (lambda a: kernel(a, s), lambda arrays, out: array_rule(grad(wrap(arrays[0], dt), s), dt))


# The rules of the short paths: ``grad_tt(a, b)``, ``grad_ts(a, s)`` and ``grad_st(s, a)`` of
# the saved operands (``a``, ``b`` Tensors of one shape and dtype, ``s`` a number).

def _add_tt(a, b):
    return _pass2


def _add_ts(a, s):
    return _pass1


def _pass1(g, needs, out):
    return (g,)


def _pass2(g, needs, out):
    return (g, g)


def _sub_tt(a, b):
    return lambda g, needs, out: (g, -g if needs[1] else None)


def _mul_tt(a, b):
    return lambda g, needs, out: (g * b if needs[0] else None, g * a if needs[1] else None)


def _mul_ts(a, s):
    return lambda g, needs, out: (g * s,)


def _mul_st(s, a):
    return lambda g, needs, out: (g * s,)


def _div_tt(a, b):
    return lambda g, needs, out: (g / b if needs[0] else None,
                                  -g * a / (b * b) if needs[1] else None)


def _div_ts(a, s):
    return lambda g, needs, out: (g / s,)


def _rsub_st(s, a):
    return lambda g, needs, out: (-g,)


def _rdiv_st(s, a):  # d(s / a)/da = -s / a**2
    return lambda g, needs, out: (-g * s / (a * a),)


Tensor.__add__ = _short("ew_add", _add, "add", "+", _add_tt, _add_ts)
Tensor.__radd__ = _short_reverse("ew_add", _add, "add", "+", _add_ts)
Tensor.__sub__ = _short("ew_sub", _sub, "sub", "-", _sub_tt, _add_ts)
Tensor.__rsub__ = _short_reverse("ew_sub", _sub, "sub", "-", _rsub_st)
Tensor.__mul__ = _short("ew_mul", _mul, "mul", "*", _mul_tt, _mul_ts)
Tensor.__rmul__ = _short_reverse("ew_mul", _mul, "mul", "*", _mul_st)
Tensor.__truediv__ = _short("ew_truediv", _truediv, "true_divide", "/", _div_tt, _div_ts,
                            float_only=True)
Tensor.__rtruediv__ = _short_reverse("ew_truediv", _truediv, "true_divide", "/", _rdiv_st)
Tensor.__floordiv__ = _dunder(_floordiv, "floor_divide", "//")
Tensor.__rfloordiv__ = _dunder(_floordiv, "floor_divide", "//", reverse=True)
Tensor.__mod__ = _dunder(_remainder, "remainder", "%")
Tensor.__rmod__ = _dunder(_remainder, "remainder", "%", reverse=True)
_fusion.attach_operators()


def _pow_dunder(self, other, modulo=None):
    """``self ** other`` (see ``pow``)."""
    if modulo is not None:
        raise InvalidParameterError(f"pow: the three-argument pow is not supported, got modulo "
                                    f"{modulo!r}", "modulo", modulo)
    return _pow(self, other, "pow", "auto")


def _rpow_dunder(self, other):
    """``other ** self`` for a number ``other`` (see ``pow``)."""
    return _pow(other, self, "pow", "auto")


Tensor.__pow__ = _pow_dunder
Tensor.__rpow__ = _rpow_dunder


def _deferred(t, kname):
    """``fusion.unary(t, kname)``, a Pending, where ``t`` is a Pending or an untracked Tensor
    of at least ``fusion.MIN_NUMEL`` elements (the cheap tests here, first); else None."""
    cls = t.__class__
    if cls is Tensor:
        if t._node is not None or _prod(t._data.shape) < _fusion.MIN_NUMEL:
            return None
    elif cls is not Pending:
        return None
    return _fusion.unary(t, kname)


# -- unary ops that keep the kind -------------------------------------------------------------

@tensor_method
def neg(self):
    """``-self`` (unsigned ints wrap, as PyTorch).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).neg().tolist()
    [[-1.0, 2.0, -3.0], [-5.0, -9.0, -6.0]]
    """
    if (out := _deferred(self, "ew_neg")) is not None:
        return out  # deferred (fusion.py)
    _check_tensor(self, "neg", cx=True)
    be = self._device.backend
    return record(be.ew_neg(self._data), self._dtype, (self,), _neg_rule, "neg")


def _neg_rule(g, needs, out):
    return (-g,)


Tensor.__neg__ = neg


@tensor_method
def positive(self):
    """``+self``: the tensor itself (int and float tensors only).

    >>> import ember
    >>> (+ember.tensor([1, -2])).tolist()
    [1, -2]
    """
    _check_tensor(self, "positive", cx=True)
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
    if (out := _deferred(self, "ew_abs")) is not None:
        return out  # deferred (fusion.py)
    _check_tensor(self, "abs", cx=True)
    be = self._device.backend
    x = self._data
    if self._dtype.kind == "complex":  # complex tensors carry no gradient (docs/complex.md)
        return wrap(be.ew_abs(x), _dt.real_of(self._dtype), self._ad)
    xs = saved(self)  # its sign is a constant of the rule
    return record(be.ew_abs(x), self._dtype, (self,),
                  lambda g, needs, out: (g * wrap(be.ew_sign(xs._data), xs._dtype),), "abs")


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


@tensor_method
def relu(self):
    """``max(self, 0)``; NaN stays NaN; the gradient is 0 where ``self <= 0``, else 1 (at NaN
    the incoming gradient passes, as PyTorch's).

    >>> import ember
    >>> ember.tensor([-1.0, 0.0, 2.0]).relu().tolist()
    [0.0, 0.0, 2.0]
    """
    _check_tensor(self, "relu")
    if self._node is None:
        if (out := _deferred(self, "ew_relu")) is not None:
            return out  # deferred (fusion.py)
        be = self._device.backend
        return wrap(be.ew_relu(self._data), self._dtype, self._ad)  # nothing to record
    be = self._device.backend
    x = self._data
    dt = self._dtype
    if self._ad == "balanced":  # recomputed in backward (record_arrays), the same rule
        make = _relu_recompute(dt)
        return record_arrays(be.ew_relu(x), dt, (self,), make((x,), None), "relu",
                             (be.ew_relu, make))
    return record(be.ew_relu(x), dt, (self,), _relu_rule(saved(self)), "relu")


def _relu_rule(x):
    """relu's rule: the gradient where ``x > 0`` (or NaN), 0 where ``x <= 0`` (a constant
    mask of the saved input ``x``)."""
    return lambda g, needs, out: (
        _masked(g, x._device.backend.ew_le(x._data, 0), False, "relu_backward"),)


def _relu_recompute(dt):
    """The ``make_backward(arrays, out)`` of relu for dtype ``dt``: ``_relu_rule`` on arrays."""
    return lambda arrays, out: array_rule(_relu_rule(wrap(arrays[0], dt)), dt)


def _rounding(kernel, name, doc):
    """round/floor/ceil/trunc (``kernel`` the name of its backend kernel): zero gradient; int
    tensors are returned unchanged (as PyTorch)."""
    kernel = _kernel(kernel)

    def op(self):
        _check_tensor(self, name)
        if self._dtype.kind == "int":
            return wrap(self._data, self._dtype, self._ad)
        be = self._device.backend
        return record(kernel(be)(self._data), self._dtype, (self,), _zero_rule, name)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return tensor_method(op)


floor = _rounding("ew_floor", "floor", """Round down to an integral value (floats); ints unchanged.

    >>> import ember
    >>> ember.tensor([1.5, -1.5]).floor().tolist()
    [1.0, -2.0]
    """)
ceil = _rounding("ew_ceil", "ceil", """Round up to an integral value (floats); ints unchanged.

    >>> import ember
    >>> ember.tensor([1.5, -1.5]).ceil().tolist()
    [2.0, -1.0]
    """)
trunc = _rounding("ew_trunc", "trunc", """Round toward zero, keeping the sign of zero.

    ``trunc(-0.5) == -0.0``; ``trunc(±inf) == ±inf``; NaN stays NaN.

    >>> import ember
    >>> ember.tensor([2.3, -1.7, 0.5, -0.5, 3.9]).trunc().tolist()
    [2.0, -1.0, 0.0, -0.0, 3.0]
    """)
_round0 = _rounding("ew_round", "round", "")


@tensor_method
def round(self, decimals=0):
    """Round half to even (``2.5 -> 2.0``, ``-0.5 -> -0.0``), optionally at ``decimals`` digits.

    Int tensors are returned unchanged (``decimals`` must then be 0). Zero gradient.

    >>> import ember
    >>> ember.tensor([0.5, 1.5, 2.5, -2.5, 2.7]).round().tolist()
    [0.0, 2.0, 2.0, -2.0, 3.0]
    >>> ember.tensor([1.2345], dtype="float64").round(2).tolist()
    [1.23]

    A complex tensor has each part rounded (the Array API's rule).
    """
    _check_tensor(self, "round", cx=True)
    decimals = as_int(decimals, "round", "decimals")
    if self._dtype.kind == "complex":
        be = self._device.backend
        x = self._data

        def part(p):
            return be.ew_round(p) if decimals == 0 else be.ew_round_decimals(p, decimals)
        return wrap(be.ew_complex(part(be.ew_real(x)), part(be.ew_imag(x))), self._dtype,
                    self._ad)
    if decimals == 0:
        return _round0(self)
    if self._dtype.kind == "int":
        raise KindError(f"round: decimals={decimals} is only defined for float tensors, this one "
                        f"is {self._dtype.name}")
    be = self._device.backend
    return record(be.ew_round_decimals(self._data, decimals), self._dtype, (self,), _zero_rule,
                  "round")


# -- float math -------------------------------------------------------------------------------

def _float_input(be, x, op):
    """The tensor's buffer as a float array and the result dtype (ints compute in default float;
    complex tensors stay as they are, never cast to a real dtype); ``x`` is a checked int, float
    or complex tensor on backend ``be``."""
    dt = x._dtype
    if dt.kind != "float":
        if dt.kind == "complex":
            return x._data, dt
        dt = _dt.default_float
        return be.ew_cast(x._data, dt), dt
    return x._data, dt


_FUSED = ("ew_exp", "ew_log", "ew_tanh", "ew_sqrt", "ew_rsqrt", "ew_sigmoid")  # fusion.unary


def _float_unary(kernel, name, grad, doc, cx=True, reads="x"):
    """A float-math op (``kernel`` the name of its backend kernel): ``grad(g, v)`` is its
    gradient rule (ember ops), where ``v`` is what it ``reads``: the input ("x"), the result
    ("y") or nothing (None); ``cx``: it takes complex tensors (a complex result, no
    gradient)."""
    kname, kernel = kernel, _kernel(kernel)
    fused = kname in _FUSED
    keep_out = reads == "y"
    if reads == "x":
        def rule_of(x):
            return lambda g, needs, out: (grad(g, x),)
    else:
        def rule(g, needs, out):
            return (grad(g, out),)

        def rule_of(x):
            return rule

    def op(self):
        if fused and (out := _deferred(self, kname)) is not None:
            return out  # deferred (fusion.py)
        _check_tensor(self, name, "input", cx)
        be = self._device.backend
        x, dt = _float_input(be, self, name)
        fn = kernel(be)
        out = fn(x)
        if self._node is None:
            return wrap(out, dt, self._ad)  # nothing to record
        if self._ad == "balanced":  # recomputed in backward (record_arrays), the same rule
            def make_backward(arrays, out):
                return array_rule(rule_of(wrap(arrays[0], dt)), dt, out if keep_out else None)
            return record_arrays(out, dt, (self,), make_backward((x,), out), name,
                                 (fn, make_backward))
        return record(out, dt, (self,), rule_of(saved(self)), name, keep_out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return tensor_method(op)


def _erf_grad(g, x):
    """``g * 2/sqrt(pi) * exp(-x**2)``, erf's gradient: the backend's fused kernel, recorded
    with its own rule (so that it differentiates again)."""
    be = g._device.backend
    gs, xs = saved(g), saved(x)

    def rule(gg, needs, out):
        return (_erf_grad(gg, xs) if needs[0] else None,
                _erf_grad(gg * gs, xs) * (xs * -2.0) if needs[1] else None)
    return record(be.ew_erf_grad(g._data, x._data), g._dtype, (g, x), rule, "erf_backward")


exp = _float_unary("ew_exp", "exp", lambda g, y: g * y,
                   """``e ** self``. Int tensors compute in float32; bool tensors raise KindError.

    >>> import ember
    >>> ember.tensor([0.0, 1.0], dtype="float64").exp().tolist()
    [1.0, 2.718281828459045]
    """, reads="y")
log = _float_unary("ew_log", "log", lambda g, x: g / x,
                   """The natural logarithm (``log(0) == -inf``, negative inputs give NaN).

    >>> import ember
    >>> ember.tensor([1.0, 0.0, -1.0]).log().tolist()
    [0.0, -inf, nan]
    """)
log1p = _float_unary("ew_log1p", "log1p", lambda g, x: g / (x + 1),
                     """``log(1 + self)``, accurate near 0.

    >>> import ember
    >>> ember.tensor([0.0, 1e-10], dtype="float64").log1p().tolist()
    [0.0, 9.999999999500001e-11]
    """)
log2 = _float_unary("ew_log2", "log2", lambda g, x: g / (x * _math.log(2.0)),
                    """The base-2 logarithm (``log2(0) == -inf``, negative inputs give NaN).

    >>> import ember
    >>> ember.tensor([1.0, 8.0, 0.5]).log2().tolist()
    [0.0, 3.0, -1.0]
    """)
log10 = _float_unary("ew_log10", "log10", lambda g, x: g / (x * _math.log(10.0)),
                     """The base-10 logarithm (``log10(0) == -inf``, negative inputs give NaN).

    >>> import ember
    >>> ember.tensor([1.0, 100.0], dtype="float64").log10().tolist()
    [0.0, 2.0]
    """)
expm1 = _float_unary("ew_expm1", "expm1", lambda g, y: g * (y + 1),
                     """``exp(self) - 1``, accurate near 0.

    >>> import ember
    >>> ember.tensor([0.0, 1e-10], dtype="float64").expm1().tolist()
    [0.0, 1.00000000005e-10]
    """, reads="y")
sqrt = _float_unary("ew_sqrt", "sqrt", lambda g, y: g / (y * 2),
                    """The square root (NaN below 0; the gradient at 0 is inf, as PyTorch).

    >>> import ember
    >>> ember.tensor([4.0, 0.0, 2.25]).sqrt().tolist()
    [2.0, 0.0, 1.5]
    """, reads="y")
rsqrt = _float_unary("ew_rsqrt", "rsqrt", lambda g, y: (g * -0.5) * (y * (y * y)),
                     """``1 / sqrt(self)``.

    >>> import ember
    >>> ember.tensor([4.0, 0.25]).rsqrt().tolist()
    [0.5, 2.0]
    """, reads="y")
recip = _float_unary("ew_recip", "recip", lambda g, y: -g * (y * y),
                     """``1 / self`` (Burn's ``recip``; ``reciprocal`` is the same op).

    >>> import ember
    >>> ember.tensor([2.0, -4.0, 0.0]).recip().tolist()
    [0.5, -0.25, inf]
    """, reads="y")
reciprocal = recip
Tensor.reciprocal = recip
erf = _float_unary("ew_erf", "erf", _erf_grad,
                   """The error function ``2/sqrt(pi) * integral of exp(-t**2) from 0 to self``.

    >>> import ember
    >>> ember.tensor([0.0, 1.0, -2.0], dtype="float64").erf().round(6).tolist()
    [0.0, 0.842701, -0.995322]
    """, cx=False)
sin = _float_unary("ew_sin", "sin", lambda g, x: g * x.cos(),
                   """The sine (radians).

    >>> import ember
    >>> ember.tensor([0.0]).sin().tolist()
    [0.0]
    """)
cos = _float_unary("ew_cos", "cos", lambda g, x: g * -x.sin(),
                   """The cosine (radians).

    >>> import ember
    >>> ember.tensor([0.0]).cos().tolist()
    [1.0]
    """)
tan = _float_unary("ew_tan", "tan", lambda g, y: g * (y * y + 1),
                   """The tangent (radians).

    >>> import ember
    >>> ember.tensor([0.0, 1.0], dtype="float64").tan().tolist()
    [0.0, 1.5574077246549023]
    """, reads="y")
sinh = _float_unary("ew_sinh", "sinh", lambda g, x: g * x.cosh(),
                    """The hyperbolic sine.

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 2.0], dtype="float64").sinh().round(4).tolist()
    [0.0, -1.1752, 3.6269]
    """)
cosh = _float_unary("ew_cosh", "cosh", lambda g, x: g * x.sinh(),
                    """The hyperbolic cosine.

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 2.0], dtype="float64").cosh().round(4).tolist()
    [1.0, 1.5431, 3.7622]
    """)
tanh = _float_unary("ew_tanh", "tanh", lambda g, y: g * (1 - y * y),
                    """The hyperbolic tangent.

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 2.0], dtype="float64").tanh().round(4).tolist()
    [0.0, -0.7616, 0.964]
    """, reads="y")
asin = _float_unary("ew_asin", "asin", lambda g, x: g * (1 - x * x).rsqrt(),
                    """The inverse sine (NaN outside [-1, 1]).

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 1.0], dtype="float64").asin().round(4).tolist()
    [0.0, -1.5708, 1.5708]
    """)
acos = _float_unary("ew_acos", "acos", lambda g, x: -g * (1 - x * x).rsqrt(),
                    """The inverse cosine (NaN outside [-1, 1]).

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 1.0], dtype="float64").acos().round(4).tolist()
    [1.5708, 3.1416, 0.0]
    """)
atan = _float_unary("ew_atan", "atan", lambda g, x: g / (x * x + 1),
                    """The inverse tangent.

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 2.0], dtype="float64").atan().round(4).tolist()
    [0.0, -0.7854, 1.1071]
    """)
asinh = _float_unary("ew_asinh", "asinh", lambda g, x: g * (x * x + 1).rsqrt(),
                     """The inverse hyperbolic sine.

    >>> import ember
    >>> ember.tensor([0.0, -1.0, 1.0], dtype="float64").asinh().round(4).tolist()
    [0.0, -0.8814, 0.8814]
    """)
acosh = _float_unary("ew_acosh", "acosh", lambda g, x: g * (x * x - 1).rsqrt(),
                     """The inverse hyperbolic cosine (NaN below 1).

    >>> import ember
    >>> ember.tensor([1.0, 2.0, 3.0], dtype="float64").acosh().round(4).tolist()
    [0.0, 1.317, 1.7627]
    """)
atanh = _float_unary("ew_atanh", "atanh", lambda g, x: g / (1 - x * x),
                     """The inverse hyperbolic tangent (±inf at ±1, NaN outside).

    >>> import ember
    >>> ember.tensor([0.0, -0.5, 0.5], dtype="float64").atanh().round(4).tolist()
    [0.0, -0.5493, 0.5493]
    """)
deg2rad = _float_unary("ew_deg2rad", "deg2rad", lambda g, v: g * (_math.pi / 180.0),
                       """Degrees to radians.

    >>> import ember
    >>> ember.tensor([180.0, -90.0], dtype="float64").deg2rad().tolist()
    [3.141592653589793, -1.5707963267948966]
    """, cx=False, reads=None)
rad2deg = _float_unary("ew_rad2deg", "rad2deg", lambda g, v: g * (180.0 / _math.pi),
                       """Radians to degrees.

    >>> import ember
    >>> ember.tensor([3.141592653589793], dtype="float64").rad2deg().tolist()
    [180.0]
    """, cx=False, reads=None)
sigmoid = _float_unary("ew_sigmoid", "sigmoid", lambda g, y: g * (1 - y) * y,
                       """The logistic ``1 / (1 + exp(-self))``, stable for large ``|self|``.

    >>> import ember
    >>> ember.tensor([0.0, -1000.0, 1000.0]).sigmoid().tolist()
    [0.5, 0.0, 1.0]
    """, cx=False, reads="y")


def _float_binary(a, b, op, kernel, grad, keep_out=False):
    """A float-math op of two operands: ``grad(g, need_a, need_b, a, b, out)`` is its rule, with
    the operands (Tensors or numbers) in the result's dtype."""
    xa, xb, dt, ta, tb, be = _prep2(a, b, op, to_float=True)
    out = be.ew_cast(kernel(be)(xa, xb), dt)
    a, b = _kept(a, b, ta, tb)

    def rule(g, need_a, need_b, out):
        return grad(g, need_a, need_b, _cast(a, dt), _cast(b, dt), out)
    return _record2t(out, dt, ta, tb, rule, op, keep_out)


def _atan2_grad(g, need_a, need_b, y, x, out):
    denom = x * x + y * y
    # at (0, 0) the gradient is 0, as PyTorch's, rather than 0/0 (a constant mask)
    r = _masked(g / denom, g._device.backend.ew_eq(denom._data, 0), False, "atan2_backward")
    return (r * x if need_a else None, r * -y if need_b else None)


def _hypot_grad(g, need_a, need_b, a, b, out):
    r = g / out
    return (r * a if need_a else None, r * b if need_b else None)


@tensor_method
def atan2(self, other):
    """The angle of the point (``other``, ``self``): ``atan(self / other)`` in the right quadrant.

    >>> import ember
    >>> y, x = ember.tensor([-2.0, 2.0, -2.0]), ember.tensor([1.0, -1.0, -1.0])
    >>> y.atan2(x).cast("float64").round(4).tolist()
    [-1.1071, 2.0344, -2.0344]
    """
    return _float_binary(self, other, "atan2", _ATAN2, _atan2_grad)


@tensor_method
def hypot(self, other):
    """``sqrt(self ** 2 + other ** 2)`` without overflow.

    >>> import ember
    >>> ember.tensor([3.0, 5.0]).hypot(ember.tensor([4.0, 12.0])).tolist()
    [5.0, 13.0]
    """
    return _float_binary(self, other, "hypot", _HYPOT, _hypot_grad, keep_out=True)


_ATAN2, _HYPOT = _kernel("ew_atan2"), _kernel("ew_hypot")


# -- clamps and pairwise extrema --------------------------------------------------------------

_MAXIMUM, _MINIMUM = _kernel("ew_maximum"), _kernel("ew_minimum")
_LT, _GT = _kernel("ew_lt"), _kernel("ew_gt")
_EXTREMA = {_MAXIMUM: "ew_maximum", _MINIMUM: "ew_minimum"}  # the kernels' names, for fusion


def _extremum(a, b, op, kernel, loses):
    """max_pair/min_pair: NaN propagates; on ties each side gets half the gradient (PyTorch).
    ``kernel`` and ``loses`` pick the backend's kernels (``attrgetter``s)."""
    if (out := _fusion.binary(a, b, _EXTREMA[kernel])) is not None:
        return out  # deferred (fusion.py)
    xa, xb, dt, ta, tb, be = _prep2(a, b, op)
    out = be.ew_cast(kernel(be)(xa, xb), dt)
    loses = loses(be)

    def rule(g, need_a, need_b, out):  # the masks are constants (xa, xb: the operands' values)
        half = g * wrap(be.ew_cast(be.ew_where(be.ew_eq(xa, xb), 0.5, 1.0), dt), dt)
        name = op + "_backward"
        return (_masked(half, loses(xa, xb), False, name) if need_a else None,
                _masked(half, loses(xb, xa), False, name) if need_b else None)
    return _record2t(out, dt, ta, tb, rule, op)


@tensor_method
def max_pair(self, other):
    """The elementwise maximum of two tensors (NaN wins, as PyTorch's ``maximum``).

    >>> import ember
    >>> a = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> a.max_pair(ember.tensor([[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]])).tolist()
    [[2.0, 3.0, 4.0], [5.0, 9.0, 6.0]]
    """
    return _extremum(self, other, "max_pair", _MAXIMUM, _LT)


@tensor_method
def min_pair(self, other):
    """The elementwise minimum of two tensors (NaN wins, as PyTorch's ``minimum``).

    >>> import ember
    >>> a = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> a.min_pair(ember.tensor([[2.0, 3.0, 4.0], [1.0, 2.0, 3.0]])).tolist()
    [[1.0, -2.0, 3.0], [1.0, 2.0, 3.0]]
    """
    return _extremum(self, other, "min_pair", _MINIMUM, _GT)


@tensor_method
def maximum(self, other):
    """PyTorch's name for ``max_pair``.

    >>> import ember
    >>> ember.maximum(ember.tensor([1, 5]), ember.tensor([3, 2])).tolist()
    [3, 5]
    """
    return _extremum(self, other, "maximum", _MAXIMUM, _LT)


@tensor_method
def minimum(self, other):
    """PyTorch's name for ``min_pair``.

    >>> import ember
    >>> ember.minimum(ember.tensor([1, 5]), ember.tensor([3, 2])).tolist()
    [1, 2]
    """
    return _extremum(self, other, "minimum", _MINIMUM, _GT)


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


@tensor_method
def lerp(self, end, weight):
    """Linear interpolation ``self + weight * (end - self)`` (float result; tensors or numbers).

    >>> import ember
    >>> ember.tensor([0.0, 10.0]).lerp(ember.tensor([10.0, 20.0]), 0.25).tolist()
    [2.5, 12.5]
    """
    op = "lerp"
    _check_tensor(self, op, "self")
    _check_operand(end, op, "end")
    _check_operand(weight, op, "weight")
    tensors = [t for t in (self, end, weight) if isinstance(t, Tensor)]
    for t in tensors:
        if t._device is not self._device:
            raise device_error(op, self, t)
    be = self._device.backend
    shapes = [t._data.shape for t in tensors]
    if any(s != shapes[0] for s in shapes):
        broadcast_shapes(*shapes, op=op)
    dt = _result_type(self, end, weight)
    if dt.kind != "float":
        dt = _dt.default_float
    x = be.ew_cast(self._data, dt)
    e = be.ew_cast(end._data, dt) if isinstance(end, Tensor) else _scalar(be, end, dt, op, "end")
    w = (be.ew_cast(weight._data, dt) if isinstance(weight, Tensor)
         else _scalar(be, weight, dt, op, "weight"))
    out = be.ew_cast(be.ew_lerp(x, e, w), dt)
    owners = [self] + [t for t in (end, weight) if isinstance(t, Tensor)]
    xs = saved(self)
    es = saved(end) if isinstance(end, Tensor) else end
    ws = saved(weight) if isinstance(weight, Tensor) else weight

    rules = [lambda g: g * (1 - _cast(ws, dt))]  # one per owner, in order
    if isinstance(end, Tensor):
        rules.append(lambda g: g * _cast(ws, dt))
    if isinstance(weight, Tensor):
        rules.append(lambda g: g * (_cast(es, dt) - _cast(xs, dt)))

    def backward(g, needs, out):
        return tuple([fit(rule(g), t) if need else None
                      for t, rule, need in zip(owners, rules, needs)])
    return record(out, dt, tuple(owners), backward, op)


# -- complex parts ----------------------------------------------------------------------------

@tensor_method
def real(self):
    """The real part: a float tensor of a complex tensor's parts' dtype; a real tensor itself
    (as PyTorch). May be a view of ``self``'s buffer.

    >>> import ember, numpy
    >>> ember.from_numpy(numpy.array([1 + 2j, -1j], "complex64")).real().tolist()
    [1.0, -0.0]
    """
    _check_tensor(self, "real", "self", cx=True)
    dt = self._dtype
    if dt.kind != "complex":
        return self
    return wrap(self._device.backend.ew_real(self._data), _dt.real_of(dt), self._ad)


@tensor_method
def imag(self):
    """The imaginary part of a complex tensor, a float tensor (PyTorch's ``imag``; a real tensor
    raises ``KindError``, as in PyTorch). May be a view of ``self``'s buffer.

    >>> import ember, numpy
    >>> ember.from_numpy(numpy.array([1 + 2j, -1j], "complex64")).imag().tolist()
    [2.0, -1.0]
    """
    _check_tensor(self, "imag", "self", cx=True)
    dt = self._dtype
    if dt.kind != "complex":
        raise KindError(f"imag: not defined for real tensors (self has dtype {dt.name}); "
                        "expected a complex tensor (a real tensor's imaginary part is 0)")
    return wrap(self._device.backend.ew_imag(self._data), _dt.real_of(dt), self._ad)


@tensor_method
def conj(self):
    """The complex conjugate (the imaginary part negated); a real tensor itself (as PyTorch).

    >>> import ember, numpy
    >>> ember.from_numpy(numpy.array([1 + 2j], "complex64")).conj().tolist()
    [(1-2j)]
    """
    _check_tensor(self, "conj", "self", cx=True)
    if self._dtype.kind != "complex":
        return self
    return wrap(self._device.backend.ew_conj(self._data), self._dtype, self._ad)


@tensor_method
def angle(self):
    """The argument ``atan2(imag, real)`` in ``[-pi, pi]``, a float tensor (complex64 gives
    float32). Of a real tensor, as PyTorch: ``pi`` below 0, else 0 (``-0.0`` gives 0), NaN for
    NaN; int tensors give the default float. Zero gradient for real tensors.

    >>> import ember, numpy
    >>> ember.from_numpy(numpy.array([1j, -1 + 0j])).angle().tolist()
    [1.5707963267948966, 3.141592653589793]
    >>> ember.tensor([-2.0, 0.0, 3.0]).angle().tolist()
    [3.1415927410125732, 0.0, 0.0]
    """
    _check_tensor(self, "angle", "self", cx=True)
    be = self._device.backend
    dt = self._dtype
    if dt.kind == "complex":
        return wrap(be.ew_angle(self._data), _dt.real_of(dt), self._ad)
    x, dt = _float_input(be, self, "angle")
    return record(be.ew_angle(x), dt, (self,), _zero_rule, "angle")


def _parts_pair(a, b, op, pa, pb):
    """Checked float32/float64 tensors ``a`` and ``b`` of one dtype on one device, broadcast:
    their buffers, the complex result dtype and the backend."""
    for t, p in ((a, pa), (b, pb)):
        if not isinstance(t, Tensor):
            raise InvalidParameterError(
                f"{op}: {p} must be a Tensor, got {type(t).__name__} {t!r}", p, t)
        if t._dtype is not _F32 and t._dtype is not _F64:
            raise KindError(f"{op}: {p} has dtype {t._dtype.name}; expected a float32 or "
                            "float64 tensor (as torch." + op + ")")
    if a._dtype is not b._dtype:
        raise KindError(f"{op}: {pa} has dtype {a._dtype.name} and {pb} has dtype "
                        f"{b._dtype.name}; expected the same dtype (float32 or float64)")
    if a._device is not b._device:
        raise device_error(op, a, b)
    if a._data.shape != b._data.shape:
        broadcast_shapes(a._data.shape, b._data.shape, op=op)
    return a._data, b._data, _dt.complex_of(a._dtype), a._device.backend


def _complex(real, imag):
    """A complex tensor from its real and imaginary parts (PyTorch's ``torch.complex``): two
    float32 tensors give complex64, two float64 tensors complex128; they broadcast.

    >>> import ember
    >>> ember.complex(ember.tensor([1.0, 0.0]), ember.tensor([2.0, -1.0])).tolist()
    [(1+2j), -1j]
    """
    re, im, dt, be = _parts_pair(real, imag, "complex", "real", "imag")
    return record(be.ew_complex(re, im), dt, (real, imag), None, "complex")


def polar(abs, angle):
    """The complex tensor ``abs * (cos(angle) + 1j * sin(angle))`` (PyTorch's ``torch.polar``):
    two float32 tensors give complex64, two float64 tensors complex128; they broadcast.

    >>> import ember
    >>> ember.polar(ember.tensor([2.0], dtype="float64"), ember.tensor([0.0], dtype="float64")).tolist()
    [(2+0j)]
    """
    r, t, dt, be = _parts_pair(abs, angle, "polar", "abs", "angle")
    return record(be.ew_polar(r, t), dt, (abs, angle), None, "polar")


complex = _complex  # noqa: A001 (ember.complex, as torch.complex)
complex.__name__ = complex.__qualname__ = "complex"
