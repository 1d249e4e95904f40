"""What the elementwise op families share: operand checks, Python numbers as operands, the
result dtype of two operands and the recording of a binary step.

The families: ``arith.py`` (``add`` ... ``pow``, ``neg``, ``abs``, ``sign``, ``square``),
``operators.py`` (Tensor's ``+ - * / // % **`` and their short paths), ``float_math.py`` (exp,
log, trig, erf, sqrt, rounding, relu, atan2, hypot, lerp), ``clamps.py`` (clamps and pairwise
extrema) and ``complex_parts.py`` (real, imag, conj, angle, complex, polar). Their rules:

Operands broadcast like NumPy; dtypes promote like PyTorch (``ember.result_type``: Python
scalars are weak). Operators keep Python's meaning (``/`` is true division, ``//`` floor
division, ``%`` floor modulo); the Burn-named methods keep Burn's (``div`` keeps the kind, so it
is floor division on ints). Float math on int tensors computes in the default float dtype.
Bool tensors have no arithmetic: they raise ``KindError`` (cast them with ``.int()`` or
``.float()`` first). See docs/math.md for the user guide.

Complex tensors (docs/complex.md) take the arithmetic (``+ - * / **``, ``neg``, ``reciprocal``,
``square``), the float math listed there, ``abs``/``angle``/``real``/``imag``/``conj`` and
Python complex scalars (weak, as ``dtypes.result_type``); every other elementwise op raises
``dtypes.complex_error`` for them, and none casts a complex tensor to a real dtype. Special
values (nan, inf, -0.0 parts) of the complex float math follow NumPy's functions, which
implement C99 Annex G as the Array API standard asks, where PyTorch differs only there; both
backends give the same values.
"""

import math as _math

from .. import dtypes as _dt
from ..backends import guard as _guard
from ..backends.guard import check_result, check_shaped
from ..errors import InvalidParameterError, KindError
from ..shapes import broadcast_shapes
from ..autodiff.graph import _mode
from ..autodiff.rules import fit
from .._tensor import Tensor, alias, device_error, record, saved, wrap

_result_type = _dt.result_type
_F32 = _dt.float32
_F64 = _dt.float64
_scalar_kind = _dt._scalar_kind
_REAL = ("int", "float")
_ODD = ("bool", "complex")  # the kinds most ops check for: bool always raises, complex often
_prod = _math.prod  # elements from the shape: a C call, no kernel call on the hot path


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


def _check_tensor(x, op, param="input", cx=False, computes=True):
    """``x`` itself if it is an int or float Tensor (or a complex one, when ``cx``: the op takes
    complex tensors); typed errors otherwise. ``computes``: the op computes a result of ``x``'s
    shape, which must fit in memory (``guard.check_shaped``: ``x`` may be a broadcast view)."""
    if not isinstance(x, Tensor):
        raise InvalidParameterError(
            f"{op}: {param} must be a Tensor, got {type(x).__name__} {x!r}", param, x)
    if x._dtype.kind in _ODD:
        _odd_kind(x, op, param, cx)
    if computes:
        try:  # check_shaped, inline: a hot path
            small = x._data.nbytes <= _guard._SMALL_BYTES
        except AttributeError:  # an array without nbytes (the Array API has none)
            small = False
        if not small:
            check_result(op, tuple(x._data.shape), x._dtype.itemsize)
    return x


def _fits(op, itemsize, *operands):
    """The huge-view guard of an elementwise op: its result, the broadcast of its tensor
    ``operands`` (numbers are skipped) with items of ``itemsize`` bytes, must fit in memory
    (``guard.check_result``; an operand may be a broadcast view of a few bytes)."""
    first = None
    for t in operands:
        if isinstance(t, Tensor):
            if first is None:
                first = t._data
            elif t._data.shape != first.shape:
                shapes = [tuple(t._data.shape) for t in operands if isinstance(t, Tensor)]
                return check_result(op, broadcast_shapes(*shapes, op=op), itemsize)
    if first is not None:
        check_shaped(op, first, itemsize)


def _fits_pair(op, a, b, itemsize):
    """``_fits`` of two backend arrays: their broadcast has at most ``a.size * b.size``
    elements, so one product decides when it surely fits."""
    if a.shape == b.shape:
        check_shaped(op, a, itemsize)
    elif not _guard.surely_fit(a, b):
        check_result(op, broadcast_shapes(a.shape, b.shape, op=op), itemsize)


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
    shape = None  # the result's shape where two tensor operands broadcast
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
                shape = broadcast_shapes(sa, sb, op=op)
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
    if shape is None:
        check_shaped(op, (tb if ta is None else ta)._data, dt.itemsize)
    else:
        check_result(op, shape, dt.itemsize)
    if ta is None:
        xa = _scalar(be, a, dt, op, "self")
    else:
        xa = ta._data if ta._dtype is dt else be.ew_cast(ta._data, dt)
    if tb is None:
        xb = _scalar(be, b, dt, op, "other")
    else:
        xb = tb._data if tb._dtype is dt else be.ew_cast(tb._data, dt)
    return xa, xb, dt, ta, tb, be


def _operands(a, b, ta, tb, dt, div=False):
    """The operands of a binary op as its gradient rule sees them: tensors as Tensors of the
    result dtype ``dt`` (a cast is a recorded step), numbers as they are. An operand is
    ``saved`` (a later in-place write of it makes backward raise, as PyTorch's) when a gradient
    reads it: the other operand's (``a * b``), and for ``div`` b's own too. (None, None) when
    no step will be recorded (no operand tracked, recording off, or not a float result:
    ``record`` words the error of a complex one)."""
    a_tracked = ta is not None and ta._node is not None
    b_tracked = tb is not None and tb._node is not None
    if dt.kind != "float" or not _mode.enabled or not (a_tracked or b_tracked):
        return None, None
    keep_a = saved if b_tracked else alias
    keep_b = saved if a_tracked or div else alias
    return (a if ta is None else keep_a(ta) if ta._dtype is dt else ta.cast(dt),
            b if tb is None else keep_b(tb) if tb._dtype is dt else tb.cast(dt))


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
    mask = be.ew_cast(cond, dt)  # the standard multiplies numbers only
    return record(be.ew_cast(be.ew_mul(t._data, mask), dt), dt, (t,),
                  lambda g, needs, out: (_times_mask(g, cond, name),), name)


def _check_int_divisor(be, xb, b, dt, op):
    """Integer division by zero raises (PyTorch raises; NumPy would warn and give 0)."""
    if dt.kind == "int" and be.ew_any_zero(xb):
        raise InvalidParameterError(
            f"{op}: integer division by zero (other contains 0); expected nonzero divisors for "
            f"{dt.name} operands", "other", b)


def _float_input(be, x, op):
    """The tensor's buffer as a float array and the result dtype (ints compute in default float;
    complex tensors stay as they are, never cast to a real dtype); ``x`` is a checked int, float
    or complex tensor on backend ``be``."""
    dt = x._dtype
    if dt.kind != "float":
        if dt.kind == "complex":
            return x._data, dt
        dt = _dt.default_float
        check_shaped(op, x._data, dt.itemsize)
        return be.ew_cast(x._data, dt), dt
    return x._data, dt
