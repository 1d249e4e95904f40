"""Comparisons and predicates: ``== != > >= < <=``, Burn's ``equal``/``greater``/``lower`` families,
``is_close``/``all_close`` and the NaN/infinity predicates.

Comparisons return bool tensors and carry no gradient (they work on tracked tensors; the result
is untracked). Tensor operands broadcast; operands of different kinds promote like PyTorch (an
int tensor against a float compares as the default float dtype); a Python int is compared with
an int tensor exactly, so ``int8_tensor < 1000`` is all true.

Complex tensors and Python complex numbers take ``==``/``!=`` (``equal``, ``not_equal``), the
closeness tests and the NaN/infinity predicates (of either part); ordering (``<``, ``>`` ...) is
not defined for complex numbers and raises ``KindError`` (docs/complex.md).

>>> import ember
>>> (ember.tensor([1.0, 2.0, 3.0]) > 2).tolist()
[False, False, True]
>>> ember.tensor([1.0, float("nan")]).is_nan().tolist()
[False, True]
"""

import math
from operator import attrgetter as _kernel

from .. import dtypes as _dt
from ..backends.guard import check_result, check_shaped
from ..errors import InvalidParameterError, KindError
from ..shapes import broadcast_shapes
from .._tensor import Tensor, check_tensor, device_error, tensor_method, wrap
from .elementwise import _fits

__all__ = ["equal", "not_equal", "greater", "greater_equal", "lower", "lower_equal",
           "eq", "ne", "gt", "ge", "lt", "le",
           "is_close", "all_close", "isclose", "allclose",
           "is_nan", "is_inf", "is_finite", "isnan", "isinf", "isfinite", "contains_nan"]

_scalar_kind = _dt._scalar_kind
_BOOL = _dt.bool_
DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-8


# -- the comparison core -----------------------------------------------------------------------

def _as_float(value):
    try:
        return float(value)
    except OverflowError:        # a Python int beyond the float range
        return math.inf if value > 0 else -math.inf


def _cmp_operand(be, x, dt):
    if isinstance(x, Tensor):
        if dt._rank >= 2 or x._dtype.kind != dt.kind:  # floats, complex; a bool meeting an int
            return be.cast(x._data, dt)
        return x._data
    if dt.kind == "float":
        return be.compare_scalar(_as_float(x), dt)
    if dt.kind == "complex":
        return be.compare_scalar(_as_complex(x), dt)
    return int(x) if dt.kind == "int" else bool(x)


def _as_complex(value):
    if _scalar_kind(value) == "complex":
        return complex(value)
    return complex(_as_float(value))


def _complex_operand(op, x, y, xname, yname):
    """The KindError of an ordering comparison with a complex operand."""
    for v, name in ((x, xname), (y, yname)):
        if isinstance(v, Tensor):
            if v._dtype.kind == "complex":
                return _dt.complex_error(op, name, v._dtype)
        elif _scalar_kind(v) == "complex":
            return KindError(f"{op}: not defined for complex numbers ({name} is {v!r}); "
                             "complex numbers have no order (docs/complex.md)")
    return _dt.complex_error(op, xname)


def _compare(op, kernel, x, y, xname="self", yname="other", ordered=False):
    """``kernel`` picks the backend's kernel (an ``attrgetter`` of its name); ``ordered``: an
    ordering comparison, not defined for complex operands."""
    xt = isinstance(x, Tensor)
    ty = type(y)
    if xt and (ty is int or ty is float):                        # fast path: tensor vs number
        check_shaped(op, x._data, 1)
        dt = x._dtype
        kind = dt.kind
        if kind == "float":
            be = x._device.backend
            return wrap(kernel(be)(x._data, be.compare_scalar(
                float(y) if ty is float else _as_float(y), dt)), _BOOL)
        if kind == "int" and ty is int:
            return wrap(kernel(x._device.backend)(x._data, y), _BOOL)
    yt = isinstance(y, Tensor)
    if xt and yt:
        if x._device is not y._device:
            raise device_error(op, x, y)
        if x._data.shape != y._data.shape:
            check_result(op, broadcast_shapes(x._data.shape, y._data.shape, op=op), 1)
        else:
            check_shaped(op, x._data, 1)
        if x._dtype is y._dtype and not (ordered and x._dtype.kind == "complex"):
            return wrap(kernel(x._device.backend)(x._data, y._data), _BOOL)   # the fast path
        if x._dtype.kind == "int" and y._dtype.kind == "int":
            # any two int dtypes compare exactly, also uint64 with a signed int, which have no
            # common dtype (promote_types refuses them)
            return wrap(kernel(x._device.backend)(x._data, y._data), _BOOL)
    else:
        if not (xt or yt):
            raise KindError(f"{op}: expected at least one Tensor, got {type(x).__name__} {x!r} "
                            f"and {type(y).__name__} {y!r}")
        name, s = (yname, y) if xt else (xname, x)
        if _scalar_kind(s) is None:
            raise KindError(f"{op}: {name} must be a Tensor or a number (int, float or bool), "
                            f"got {type(s).__name__} {s!r}")
    be = (x if xt else y)._device.backend
    dt = _dt.result_type(x, y)
    if dt.kind == "complex" and ordered:
        raise _complex_operand(op, x, y, xname, yname)
    if not (xt and yt):  # a number with a tensor (two tensors were checked above)
        _fits(op, 1, x, y)
    return wrap(kernel(be)(_cmp_operand(be, x, dt), _cmp_operand(be, y, dt)), _BOOL)


def _scalar_only(op, other):
    if isinstance(other, Tensor) or _scalar_kind(other) is None:
        base = op.split("_scalar")[0].split("_elem")[0]
        raise KindError(f"{op}: other must be a number (int, float or bool), got "
                        f"{type(other).__name__}; use {base} for tensors")


_EQ, _NE = _kernel("compare_eq"), _kernel("compare_ne")
_GT, _GE = _kernel("compare_gt"), _kernel("compare_ge")
_LT, _LE = _kernel("compare_lt"), _kernel("compare_le")


# -- tensor forms (a tensor or a number) and scalar forms (Burn's *_scalar; *_elem are aliases) --
# Each comparison is made from one row: its name, symbol, kernel, whether it orders its
# operands, the rest of its summary and its examples' operands and results.

_EQ_PAIR = ("[[2.0, 4.9], [2.0, 1.9], [4.0, 5.9]]", "[[3.0, 4.9], [2.0, 1.9], [4.0, 5.9]]")
_ORDER_PAIR = ("[[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]", "[[1.0, 3.0, 4.0], [1.0, 2.0, 3.0]]")


def _comparison(name, symbol, kernel, ordered, note, pair, result, scalar_result):
    """The tensor form ``name`` (a Tensor method too) and the scalar form ``name_scalar`` (a
    Tensor method, also as ``name_elem``) of one comparison; their errors name them."""
    scalar_name = name + "_scalar"

    def tensor_form(self, other):
        return _compare(name, kernel, self, other, ordered=ordered)

    def scalar_form(self, other):
        _scalar_only(scalar_name, other)
        return _compare(scalar_name, kernel, self, other, ordered=ordered)

    tensor_form.__name__ = tensor_form.__qualname__ = name
    tensor_form.__doc__ = (f"Elementwise ``self {symbol} other``{note}\n\n"
                           f">>> import ember\n>>> t1 = ember.tensor({pair[0]})\n"
                           f">>> t2 = ember.tensor({pair[1]})\n"
                           f">>> t1.{name}(t2).tolist()\n{result}\n")
    scalar_form.__name__ = scalar_form.__qualname__ = scalar_name
    scalar_form.__doc__ = (f"Elementwise ``self {symbol} other`` for a number ``other``; "
                           f"``{name}_elem`` is an alias.\n\n>>> import ember\n"
                           f">>> ember.tensor({_ORDER_PAIR[0]}).{scalar_name}(3.0).tolist()\n"
                           f"{scalar_result}\n")
    tensor_method(tensor_form)
    tensor_method(scalar_form)
    tensor_method(scalar_form, name=name + "_elem")
    return tensor_form, scalar_form


equal, equal_scalar = _comparison(
    "equal", "==", _EQ, False, " as a bool tensor; ``other`` a tensor (broadcast) or a number."
    "\n\nUnlike ``torch.equal`` this is elementwise (Burn's ``equal``); reduce it with "
    "``all()``.", _EQ_PAIR, "[[False, True], [True, True], [True, True]]",
    "[[False, False, True], [False, False, False]]")
not_equal, not_equal_scalar = _comparison(
    "not_equal", "!=", _NE, False, " (true where either is NaN).", _EQ_PAIR,
    "[[True, False], [False, False], [False, False]]", "[[True, True, False], [True, True, True]]")
greater, greater_scalar = _comparison(
    "greater", ">", _GT, True, ".", _ORDER_PAIR, "[[False, False, False], [True, True, True]]",
    "[[False, False, False], [True, True, True]]")
greater_equal, greater_equal_scalar = _comparison(
    "greater_equal", ">=", _GE, True, ".", _ORDER_PAIR,
    "[[True, False, False], [True, True, True]]", "[[False, False, True], [True, True, True]]")
lower, lower_scalar = _comparison(
    "lower", "<", _LT, True, ".", _ORDER_PAIR, "[[False, True, True], [False, False, False]]",
    "[[True, True, False], [False, False, False]]")
lower_equal, lower_equal_scalar = _comparison(
    "lower_equal", "<=", _LE, True, ".", _ORDER_PAIR,
    "[[True, True, True], [False, False, False]]", "[[True, True, True], [False, False, False]]")

# PyTorch's short names: the same functions (messages name the long form).
eq, ne, gt, ge, lt, le = equal, not_equal, greater, greater_equal, lower, lower_equal
Tensor.eq, Tensor.ne, Tensor.gt, Tensor.ge, Tensor.lt, Tensor.le = eq, ne, gt, ge, lt, le


# -- operators ---------------------------------------------------------------------------------

def _operator(op, kernel, ordered=False):
    def method(self, other):
        t = type(other)
        if t is not int and t is not float and not isinstance(other, Tensor) \
                and _scalar_kind(other) is None:
            return NotImplemented        # Python falls back (== gives identity, < raises TypeError)
        return _compare(op, kernel, self, other, "self", "other", ordered)
    return method


# Python reflects `3 < t` to `t.__gt__(3)`, so no __r*__ forms are needed. Tensor defines
# __hash__ in its class body, so setting __eq__ here keeps hashing by identity.
Tensor.__eq__ = _operator("equal (==)", _EQ)
Tensor.__ne__ = _operator("not_equal (!=)", _NE)
Tensor.__gt__ = _operator("greater (>)", _GT, True)
Tensor.__ge__ = _operator("greater_equal (>=)", _GE, True)
Tensor.__lt__ = _operator("lower (<)", _LT, True)
Tensor.__le__ = _operator("lower_equal (<=)", _LE, True)


# -- closeness ---------------------------------------------------------------------------------

def _tolerance(value, default, op, param):
    if value is None:
        return default
    if isinstance(value, bool) or _scalar_kind(value) not in ("int", "float"):
        raise InvalidParameterError(f"{op}: {param} must be a number >= 0 or None, got "
                                    f"{type(value).__name__} {value!r}", param, value)
    v = _as_float(value)
    if not v >= 0:           # also NaN
        raise InvalidParameterError(f"{op}: {param} must be >= 0, got {value!r}", param, value)
    return v


def _close(op, x, y, rtol, atol, equal_nan):
    check_tensor(x, op, "self")
    for name, t in (("self", x), ("other", y)):
        if isinstance(t, Tensor):
            if t._dtype.kind == "bool":
                raise KindError(f"{op}: not defined for bool tensors ({name} has dtype bool); "
                                "expected a float or int tensor (use equal for bools)")
        else:
            kind = _scalar_kind(t)
            if kind not in ("int", "float", "complex"):
                raise KindError(f"{op}: other must be a Tensor or a number (int, float or "
                                f"complex), got {type(t).__name__} {t!r}")
    rtol = _tolerance(rtol, DEFAULT_RTOL, op, "rtol")
    atol = _tolerance(atol, DEFAULT_ATOL, op, "atol")
    if not isinstance(equal_nan, bool):
        raise InvalidParameterError(f"{op}: equal_nan must be a bool, got "
                                    f"{type(equal_nan).__name__} {equal_nan!r}", "equal_nan",
                                    equal_nan)
    if isinstance(y, Tensor):
        if x._device is not y._device:
            raise device_error(op, x, y)
        if x._data.shape != y._data.shape:
            broadcast_shapes(x._data.shape, y._data.shape, op=op)
    be = x._device.backend
    if x._dtype.kind == "int" and (y._dtype.kind if isinstance(y, Tensor)
                                   else _scalar_kind(y)) == "int":
        dt = _dt.float64            # ints compare exactly enough in float64
    else:
        dt = _dt.result_type(x, y)
    _fits(op, dt.itemsize, x, y)
    a = be.cast(x._data, dt)
    if isinstance(y, Tensor):
        b = be.cast(y._data, dt)
    else:
        b = be.compare_scalar(_as_complex(y) if dt.kind == "complex" else _as_float(y), dt)
    return be.compare_isclose(a, b, rtol, atol, equal_nan)


@tensor_method
def is_close(self, other, rtol=None, atol=None, equal_nan=False):
    """Elementwise ``|self - other| <= atol + rtol * |other|``, a bool tensor (broadcast).

    ``rtol`` defaults to 1e-5 and ``atol`` to 1e-8 (``None`` means the default). Equal values
    (equal infinities included) are close; NaN is close to nothing unless ``equal_nan=True``;
    a finite value is never close to an infinite one. Ints compare in float64; bools raise.
    Complex values compare by the modulus of the difference, as ``torch.isclose``.

    >>> import ember
    >>> t1 = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> t2 = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> t1.is_close(t2).tolist()
    [[True, True, True], [True, True, True]]
    >>> ember.tensor([1.0, 1.1]).is_close(ember.tensor([1.0, 1.0]), atol=0.2).tolist()
    [True, True]
    """
    return wrap(_close("is_close", self, other, rtol, atol, equal_nan), _BOOL)


@tensor_method
def all_close(self, other, rtol=None, atol=None, equal_nan=False):
    """Whether every element is close to ``other`` (``is_close``): a Python bool.

    >>> import ember
    >>> t1 = ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]])
    >>> t1.all_close(ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]))
    True
    >>> t1.all_close(ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.001]]))
    False
    """
    close = _close("all_close", self, other, rtol, atol, equal_nan)
    return self._device.backend.compare_all(close)


isclose = is_close
allclose = all_close
Tensor.isclose = is_close
Tensor.allclose = all_close


# -- predicates --------------------------------------------------------------------------------

@tensor_method
def is_nan(self):
    """Elementwise whether each element is NaN (all false for int and bool tensors; for complex
    ones, whether either part is NaN).

    >>> import ember
    >>> ember.tensor([[1.0, float("nan"), 3.0], [5.0, 9.0, 6.0]]).is_nan().tolist()
    [[False, True, False], [False, False, False]]
    """
    check_tensor(self, "is_nan", "self")
    check_shaped("is_nan", self._data, 1)
    return wrap(self._device.backend.compare_isnan(self._data), _BOOL)


@tensor_method
def is_inf(self):
    """Elementwise whether each element is +inf or -inf (all false for int and bool tensors; for
    complex ones, whether either part is infinite).

    >>> import ember
    >>> inf, nan = float("inf"), float("nan")
    >>> ember.tensor([[1.0, inf, 3.0], [nan, 9.0, 6.0]]).is_inf().tolist()
    [[False, True, False], [False, False, False]]
    """
    check_tensor(self, "is_inf", "self")
    check_shaped("is_inf", self._data, 1)
    return wrap(self._device.backend.compare_isinf(self._data), _BOOL)


@tensor_method
def is_finite(self):
    """Elementwise whether each element is neither infinite nor NaN (all true for ints and bools).

    >>> import ember
    >>> inf, nan = float("inf"), float("nan")
    >>> ember.tensor([[1.0, inf, 3.0], [nan, 9.0, 6.0]]).is_finite().tolist()
    [[True, False, True], [False, True, True]]
    """
    check_tensor(self, "is_finite", "self")
    check_shaped("is_finite", self._data, 1)
    return wrap(self._device.backend.compare_isfinite(self._data), _BOOL)


@tensor_method
def contains_nan(self):
    """Whether any element is NaN, as a 0-d bool tensor (Burn's rank-one result, API.md rule 2).

    >>> import ember
    >>> ember.tensor([[1.0, -2.0, 3.0], [float("nan"), 9.0, 6.0]]).contains_nan().tolist()
    True
    >>> ember.tensor([[1.0, -2.0, 3.0], [5.0, 9.0, 6.0]]).contains_nan().tolist()
    False
    """
    check_tensor(self, "contains_nan", "self")
    if self._dtype.kind == "complex":
        raise _dt.complex_error("contains_nan", "self", self._dtype)
    return wrap(self._device.backend.compare_contains_nan(self._data), _BOOL)


isnan = is_nan
isinf = is_inf
isfinite = is_finite
Tensor.isnan = is_nan
Tensor.isinf = is_inf
Tensor.isfinite = is_finite
