"""PyTorch's elementwise math that ember's own API does not spell: ``float_power``, ``fmax`` /
``fmin``, ``frac``, ``frexp``, ``gcd`` / ``lcm``, ``ldexp``, ``copysign``, ``nextafter``,
``signbit``, ``isneginf`` / ``isposinf`` / ``isreal``, ``isin``, ``logaddexp`` / ``logaddexp2``,
``nan_to_num``, the conjugation views (``conj_physical``, ``resolve_conj``, ``resolve_neg``,
``is_conj``, ``is_neg``), ``Tensor.apply_`` / ``map_`` / ``map2_`` (a Python callable on each
element), and ``add`` / ``sub`` / ``div`` / ``rsub`` with PyTorch's ``alpha``
and ``rounding_mode``. Each is ``ember.torch.<name>`` and, where PyTorch has it,
``Tensor.<name>``; the in-place forms (``frac_``, ``gcd_``, ...) come from
``ember/torch/inplace.py``.

Every one composes ember's ops, so gradients follow PyTorch's rules and reach any order:
``float_power`` computes in float64 (complex128 for complex operands), ``fmax`` / ``fmin`` send
the gradient to the operand they pick (``input`` on ties and where ``other`` is NaN),
``copysign``'s reaches ``input`` only (zero at 0), ``frac``'s is 1, ``frexp``'s mantissa gets
``grad / 2 ** exponent``, ``nan_to_num``'s passes where the input is finite. ``nextafter``,
``signbit`` and the predicates give untracked results. What differs from PyTorch: ember
conjugates eagerly, so ``is_conj`` and ``is_neg`` are always False; ``logaddexp`` of complex
tensors raises KindError.

>>> import ember.torch as torch
>>> torch.fmax(torch.tensor([1.0, float("nan")]), torch.tensor([2.0, 3.0])).tolist()
[2.0, 3.0]
>>> m, e = torch.frexp(torch.tensor([8.0, 0.75]))
>>> m.tolist(), e.tolist()
([0.5, 0.75], [4, 0])
"""

import math
import numbers
from collections import namedtuple

import ember as _e

from .. import dtypes as _dt
from .._tensor import Tensor as _T, wrap
from ..autodiff.graph import no_grad
from ..errors import DeviceError, GraphError, InvalidParameterError, KindError
from ._tensor import Tensor, as_torch, torch_function, torch_method
from .histograms import searchsorted
from .shapes_and_grids import broadcast_tensors, broadcast_to

__all__ = ["float_power", "fmax", "fmin", "frac", "frexp", "gcd", "lcm", "ldexp", "copysign",
           "nextafter", "signbit", "isneginf", "isposinf", "isreal", "isin", "logaddexp",
           "logaddexp2", "nan_to_num", "conj_physical", "resolve_conj", "resolve_neg", "is_conj",
           "is_neg", "add", "sub", "div", "rsub"]

_LN2 = math.log(2.0)

frexp_result = namedtuple("frexp", ["mantissa", "exponent"])  # torch.return_types.frexp


# -- argument checks ---------------------------------------------------------------------------

def _is_number(value):
    return isinstance(value, numbers.Number) and not isinstance(value, _T)


def _tensor(x, op, param="input"):
    """``x`` if it is a tensor, else InvalidParameterError (PyTorch takes only tensors here)."""
    if not isinstance(x, _T):
        raise InvalidParameterError(f"{op}: {param} must be a Tensor, got {type(x).__name__}",
                                    param, x)
    return x


def _kinds(op, dtype, allowed, param="input"):
    """KindError unless ``dtype``'s kind is one of ``allowed``."""
    if dtype.kind not in allowed:
        raise KindError(f"{op}: not defined for {dtype.name} tensors ({param} has dtype "
                        f"{dtype.name}); expected a {' or '.join(allowed)} tensor")


def _pair(op, input, other):
    """The two tensor operands cast to their PyTorch result dtype, and that dtype."""
    _tensor(input, op)
    _tensor(other, op, "other")
    dt = _e.result_type(input, other)
    return input.cast(dt), other.cast(dt), dt


def _float_pair(op, input, other):
    """``_pair`` for ops that compute in float: ints and bools promote to the default float."""
    _tensor(input, op)
    _tensor(other, op, "other")
    dt = _e.result_type(input, other)
    _kinds(op, dt, ("int", "bool", "float"))
    if dt.kind != "float":
        dt = _dt.default_float
    return input.cast(dt), other.cast(dt), dt


def _bools_like(x, value):
    return _e.full_like(x, value, dtype=_dt.bool_)


# -- the functions -----------------------------------------------------------------------------

def float_power(input, exponent):  # noqa: A002
    """``input ** exponent`` computed in float64 (complex128 if either is complex), as
    ``torch.float_power``; the gradient comes back in each input's dtype.

    >>> import ember.torch as torch
    >>> out = torch.float_power(torch.tensor([2, 3]), 2)
    >>> out.tolist(), out.dtype == torch.float64
    ([4.0, 9.0], True)
    """
    if not isinstance(input, _T) and not isinstance(exponent, _T):
        raise InvalidParameterError("float_power: input or exponent must be a Tensor, got "
                                    f"{type(input).__name__} and {type(exponent).__name__}",
                                    "input", input)
    operands = (input, exponent)
    for value, param in zip(operands, ("input", "exponent")):
        if not isinstance(value, _T) and (isinstance(value, bool) or not _is_number(value)):
            raise InvalidParameterError(f"float_power: {param} must be a Tensor or a number, "
                                        f"got {value!r}", param, value)
    complex_ = any(isinstance(v, complex) or (isinstance(v, _T) and v.dtype.kind == "complex")
                   for v in operands)
    dt = _dt.complex128 if complex_ else _dt.float64
    base, power = (v.cast(dt) if isinstance(v, _T) else v for v in operands)
    return _e.pow(base, power)


def _pick(op, input, other, wins):
    """``fmax``/``fmin``: ``input`` where ``wins(input, other)`` or ``other`` is NaN, else
    ``other`` (so a NaN loses to a number, and the gradient follows the pick)."""
    a, b, dt = _pair(op, input, other)
    _kinds(op, dt, ("bool", "int", "float"))
    if dt.kind == "bool":
        return _e.logical_or(a, b) if op == "fmax" else _e.logical_and(a, b)
    keep = wins(a, b)
    if dt.kind == "float":
        keep = keep | _e.isnan(b)
    return _e.where(keep, a, b)


def fmax(input, other):  # noqa: A002
    """The elementwise maximum, NaN ignored where the other element is a number (NaN only where
    both are), as ``torch.fmax``.

    >>> import ember.torch as torch
    >>> nan = float("nan")
    >>> torch.fmax(torch.tensor([1.0, nan, nan]), torch.tensor([0.0, 2.0, nan])).tolist()
    [1.0, 2.0, nan]
    """
    return _pick("fmax", input, other, _e.ge)


def fmin(input, other):  # noqa: A002
    """The elementwise minimum, NaN ignored where the other element is a number, as
    ``torch.fmin``.

    >>> import ember.torch as torch
    >>> torch.fmin(torch.tensor([1.0, float("nan")]), torch.tensor([0.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    return _pick("fmin", input, other, _e.le)


def frac(input):  # noqa: A002
    """The fractional part, ``input - trunc(input)`` (the sign of ``input``; its gradient is 1),
    for float tensors, as ``torch.frac``.

    >>> import ember.torch as torch
    >>> torch.frac(torch.tensor([2.5, -1.25])).tolist()
    [0.5, -0.25]
    """
    _tensor(input, "frac")
    _kinds("frac", input.dtype, ("float",))
    return input - _e.trunc(input)


def _scaled_down(x, e):
    """``x * 2 ** -e`` (float64), in two steps so that neither power of two overflows."""
    half = _e.floor(e / 2)
    return x * _e.pow(2.0, -half) * _e.pow(2.0, half - e)


def frexp(input):  # noqa: A002
    """``(mantissa, exponent)`` with ``input == mantissa * 2 ** exponent`` and
    ``0.5 <= |mantissa| < 1`` (0, inf and NaN keep their value with exponent 0); the exponent
    is int32, as ``torch.frexp``.

    >>> import ember.torch as torch
    >>> m, e = torch.frexp(torch.tensor([1.0, -3.0, 0.0]))
    >>> m.tolist(), e.tolist()
    ([0.5, -0.75, 0.0], [1, 2, 0])
    """
    _tensor(input, "frexp")
    if input.dtype.kind != "float":
        raise KindError(f"frexp: only supports float tensors, got {input.dtype.name}")
    dt = input.dtype
    with no_grad():
        x = input.detach().cast(_dt.float64)
        plain = (x != 0) & _e.isfinite(x)
        size = _e.where(plain, x.abs(), 1.0)
        e = _e.where(plain, _e.floor(_e.log2(size)) + 1, 0.0)
        # log2 may round across a power of two: correct the exponent by one either way
        m = _scaled_down(size, e)
        e = e + ((m >= 1) & plain).cast(_dt.float64) - ((m < 0.5) & plain).cast(_dt.float64)
        half = _e.floor(e / 2)  # 2 ** -e in two steps, as _scaled_down
        scales = (_e.pow(2.0, -half).cast(dt), _e.pow(2.0, half - e).cast(dt))
    mantissa = input * scales[0] * scales[1]
    return frexp_result(mantissa, e.cast(_dt.int32))


def gcd(input, other):  # noqa: A002
    """The greatest common divisor of int tensors (nonnegative; ``gcd(0, 0) == 0``), as
    ``torch.gcd``.

    >>> import ember.torch as torch
    >>> torch.gcd(torch.tensor([12, -9, 0]), torch.tensor([18, 6, 0])).tolist()
    [6, 3, 0]
    """
    a, b, dt = _pair("gcd", input, other)
    _kinds("gcd", dt, ("int",))
    a, b = broadcast_tensors(a.abs(), b.abs())
    while True:  # Euclid's algorithm on every element at once
        live = b != 0
        if not bool(live.any()):
            return a
        a, b = _e.where(live, b, a), _e.where(live, _e.remainder(a, _e.where(live, b, 1)), 0)


def lcm(input, other):  # noqa: A002
    """The least common multiple of int tensors (nonnegative; 0 where either is 0), as
    ``torch.lcm``.

    >>> import ember.torch as torch
    >>> torch.lcm(torch.tensor([4, -6, 0]), torch.tensor([6, 4, 5])).tolist()
    [12, 12, 0]
    """
    a, b, dt = _pair("lcm", input, other)
    _kinds("lcm", dt, ("int",))
    g = gcd(a, b)
    zero = g == 0
    return _e.where(zero, 0, (_e.floor_divide(a, _e.where(zero, 1, g)) * b).abs())


def ldexp(input, other):  # noqa: A002
    """``input * 2 ** other`` in the operands' float dtype (ints compute in the default
    float), as ``torch.ldexp``.

    >>> import ember.torch as torch
    >>> torch.ldexp(torch.tensor([1.0, 3.0]), torch.tensor([2, -1])).tolist()
    [4.0, 1.5]
    """
    _tensor(input, "ldexp")
    _tensor(other, "ldexp", "other")
    for t, param in ((input, "input"), (other, "other")):
        if t.dtype.kind == "complex":
            raise _dt.complex_error("ldexp", param, t.dtype)
    dt = _e.result_type(input, other)
    if dt.kind != "float":
        dt = _dt.default_float
    return input.cast(dt) * _e.pow(2.0, other.cast(dt))


def _signbit_of(value):
    """Whether the sign bit of each element (a tensor) or of a number is set."""
    if isinstance(value, _T):
        return signbit(value)
    return math.copysign(1.0, value.real if isinstance(value, complex) else value) < 0


def copysign(input, other):  # noqa: A002
    """The magnitude of ``input`` with the sign bit of ``other`` (a tensor or a number; -0.0
    and NaNs included), in float (ints promote to the default float), as ``torch.copysign``.
    The gradient reaches ``input`` only, zero where ``input`` is 0.

    >>> import ember.torch as torch
    >>> torch.copysign(torch.tensor([1.5, -2.0, 3.0]), torch.tensor([-1.0, 1.0, -0.0])).tolist()
    [-1.5, 2.0, -3.0]
    """
    _tensor(input, "copysign")
    if not isinstance(other, _T) and (isinstance(other, complex) or not _is_number(other)):
        raise InvalidParameterError(f"copysign: other must be a Tensor or a real number, got "
                                    f"{other!r}", "other", other)
    dt = _e.result_type(input, other)
    _kinds("copysign", dt, ("int", "bool", "float"))
    if dt.kind != "float":
        dt = _dt.default_float
    mag = input.cast(dt).abs()
    negative = _signbit_of(other)
    if isinstance(negative, bool):
        return -mag if negative else mag
    return _e.where(negative, -mag, mag)


def nextafter(input, other):  # noqa: A002
    """The next float after each element of ``input`` towards ``other`` (untracked), as
    ``torch.nextafter``.

    >>> import ember.torch as torch
    >>> x = torch.tensor([1.0], dtype=torch.float64)
    >>> (torch.nextafter(x, torch.tensor(2.0)) - 1).item() == 2.0 ** -52
    True
    """
    a, b, dt = _pair("nextafter", input, other)
    _kinds("nextafter", dt, ("float",))
    if a.device != b.device:
        raise DeviceError(f"nextafter: input is on {a.device} and other on {b.device}; "
                          "expected one device")
    a, b = broadcast_tensors(a.detach(), b.detach())
    return wrap(a._device.backend.ew_nextafter(a._data, b._data), dt)


def signbit(input):  # noqa: A002
    """Whether each element's sign bit is set (negative numbers, -0.0, -inf, NaNs with the bit
    set; False for bools and unsigned ints), as ``torch.signbit``.

    >>> import ember.torch as torch
    >>> torch.signbit(torch.tensor([-0.0, 0.0, -2.0, 3.0])).tolist()
    [True, False, True, False]
    """
    _tensor(input, "signbit")
    kind = input.dtype.kind
    if kind == "complex":
        raise _dt.complex_error("signbit", "input", input.dtype)
    if kind == "float":  # no arithmetic shows a NaN's sign bit: the backend reads it
        return wrap(input._device.backend.ew_signbit(input.detach()._data), _dt.bool_)
    if kind == "bool" or not input.dtype.is_signed:
        return _bools_like(input, False)
    return input.detach() < 0


def _infinity_test(op, input, sign):
    _tensor(input, op)
    if input.dtype.kind == "complex":
        raise _dt.complex_error(op, "input", input.dtype)
    if input.dtype.kind != "float":
        return _bools_like(input, False)
    return input.detach() == sign * math.inf


def isneginf(input):  # noqa: A002
    """Whether each element is -inf, as ``torch.isneginf`` (False for int and bool tensors).

    >>> import ember.torch as torch
    >>> torch.isneginf(torch.tensor([-float("inf"), float("inf"), 1.0])).tolist()
    [True, False, False]
    """
    return _infinity_test("isneginf", input, -1)


def isposinf(input):  # noqa: A002
    """Whether each element is +inf, as ``torch.isposinf`` (False for int and bool tensors).

    >>> import ember.torch as torch
    >>> torch.isposinf(torch.tensor([-float("inf"), float("inf"), 1.0])).tolist()
    [False, True, False]
    """
    return _infinity_test("isposinf", input, 1)


def isreal(input):  # noqa: A002
    """Whether each element is real (a complex one: its imaginary part is 0), as
    ``torch.isreal``.

    >>> import ember.torch as torch
    >>> torch.isreal(torch.tensor([1 + 0j, 1j])).tolist()
    [True, False]
    """
    _tensor(input, "isreal")
    if input.dtype.kind == "complex":
        return _e.imag(input.detach()) == 0
    return _bools_like(input, True)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is among ``test_elements`` (either may be a
    number; compared in their promoted dtype), as ``torch.isin``; ``invert`` negates.
    ``assume_unique`` is accepted (the answer is the same).

    >>> import ember.torch as torch
    >>> torch.isin(torch.tensor([[1, 2], [3, 4]]), torch.tensor([2, 3])).tolist()
    [[False, True], [True, False]]
    """
    if not isinstance(elements, _T) and not isinstance(test_elements, _T):
        raise InvalidParameterError("isin: elements or test_elements must be a Tensor, got "
                                    f"{type(elements).__name__} and "
                                    f"{type(test_elements).__name__}", "elements", elements)
    for value, param in ((elements, "elements"), (test_elements, "test_elements")):
        if not isinstance(value, _T) and (isinstance(value, (bool, complex))
                                          or not _is_number(value)):
            raise InvalidParameterError(f"isin: {param} must be a Tensor or a real number, got "
                                        f"{value!r}", param, value)
        if isinstance(value, _T):
            _kinds("isin", value.dtype, ("int", "float"), param)
    for flag, param in ((assume_unique, "assume_unique"), (invert, "invert")):
        if not isinstance(flag, bool):
            raise InvalidParameterError(f"isin: {param} must be a bool, got {flag!r}", param,
                                        flag)
    dt = _e.result_type(elements, test_elements)
    like = elements if isinstance(elements, _T) else test_elements
    x, pool = (v.detach().cast(dt) if isinstance(v, _T)
               else _e.full((), v, dtype=dt, device=like.device)
               for v in (elements, test_elements))
    pool = _e.sort(pool.reshape(-1)).values
    if pool.shape[0] == 0:
        return _bools_like(x, invert)
    # the position each element would take in the sorted pool holds it, if the pool has it
    at = searchsorted(pool, x.reshape(-1)).clamp(max=pool.shape[0] - 1)
    found = (pool[at] == x.reshape(-1)).reshape(x.shape)
    return ~found if invert else found


def _log_add(op, input, other, exp, log1p):
    """``log(exp(a) + exp(b))`` in ``exp``'s base: the larger plus ``log1p(exp(smaller -
    larger))``, which never overflows; equal infinities give themselves."""
    a, b, dt = _pair(op, input, other)
    if dt.kind == "complex":
        raise _dt.complex_error(op, "input", dt)
    _kinds(op, dt, ("float",))
    first = a >= b
    same_inf = _e.isinf(a) & (a == b)
    gap = _e.where(same_inf, 0.0, _e.where(first, b - a, a - b))  # <= 0, or NaN
    out = _e.where(first, a, b) + log1p(exp(gap))
    return _e.where(same_inf, a, out)


def logaddexp(input, other):  # noqa: A002
    """``log(exp(input) + exp(other))`` without overflow, for float tensors, as
    ``torch.logaddexp``.

    >>> import ember.torch as torch
    >>> x = torch.tensor([0.0, 1000.0], dtype=torch.float64)
    >>> torch.logaddexp(x, x).tolist() == [math.log(2), 1000 + math.log(2)]
    True
    """
    return _log_add("logaddexp", input, other, _e.exp, _e.log1p)


def logaddexp2(input, other):  # noqa: A002
    """``log2(2 ** input + 2 ** other)`` without overflow, for float tensors, as
    ``torch.logaddexp2``.

    >>> import ember.torch as torch
    >>> torch.logaddexp2(torch.tensor([1.0, 3.0]), torch.tensor([1.0, 3.0])).tolist()
    [2.0, 4.0]
    """
    return _log_add("logaddexp2", input, other, lambda g: _e.exp(g * _LN2),
                    lambda v: _e.log1p(v) / _LN2)


def _number_or_none(value, op, param):
    if value is not None and (isinstance(value, (bool, complex)) or not _is_number(value)):
        raise InvalidParameterError(f"{op}: {param} must be a real number or None, got "
                                    f"{value!r}", param, value)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    """``input`` with NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (by
    default 0 and the dtype's largest and lowest finite values; complex tensors: each part),
    as ``torch.nan_to_num``; int and bool tensors come back unchanged (a copy). The gradient
    passes where the input is finite.

    >>> import ember.torch as torch
    >>> x = torch.tensor([float("nan"), float("inf"), -float("inf"), 1.5])
    >>> torch.nan_to_num(x, nan=2.0, posinf=9.0).tolist()
    [2.0, 9.0, -3.4028234663852886e+38, 1.5]
    """
    _tensor(input, "nan_to_num")
    for value, param in ((nan, "nan"), (posinf, "posinf"), (neginf, "neginf")):
        _number_or_none(value, "nan_to_num", param)
    kind = input.dtype.kind
    if kind == "complex":
        re, im = (nan_to_num(part, nan, posinf, neginf)
                  for part in (_e.real(input), _e.imag(input)))
        return _e.complex(re, im)
    if kind != "float":
        return input.clone()
    _, low, high, _, _ = input._device.backend.dtype_limits(input.dtype)
    out = _e.where(input == math.inf, high if posinf is None else posinf, input)
    out = _e.where(input == -math.inf, low if neginf is None else neginf, out)
    return _e.where(_e.isnan(input), 0.0 if nan is None else nan, out)


def conj_physical(input):  # noqa: A002
    """The complex conjugate, computed now (a real tensor: itself), as
    ``torch.conj_physical``.

    >>> import ember.torch as torch
    >>> torch.conj_physical(torch.tensor([1 + 2j])).tolist()
    [(1-2j)]
    """
    _tensor(input, "conj_physical")
    return _e.conj(input) if input.dtype.kind == "complex" else input


def resolve_conj(input):  # noqa: A002
    """``input`` itself: ember conjugates eagerly, so there is no lazy conjugation to resolve
    (``torch.resolve_conj``).

    >>> import ember.torch as torch
    >>> x = torch.ones(2)
    >>> torch.resolve_conj(x) is x
    True
    """
    return _tensor(input, "resolve_conj")


def resolve_neg(input):  # noqa: A002
    """``input`` itself: ember negates eagerly, so there is no lazy negation to resolve
    (``torch.resolve_neg``).

    >>> import ember.torch as torch
    >>> x = torch.ones(2)
    >>> torch.resolve_neg(x) is x
    True
    """
    return _tensor(input, "resolve_neg")


def is_conj(input):  # noqa: A002
    """False: ember has no lazily conjugated tensors (``torch.is_conj``).

    >>> import ember.torch as torch
    >>> torch.is_conj(torch.tensor([1j]).conj())
    False
    """
    _tensor(input, "is_conj")
    return False


def is_neg(input):  # noqa: A002
    """False: ember has no lazily negated tensors (``torch.is_neg``).

    >>> import ember.torch as torch
    >>> torch.is_neg(torch.ones(1))
    False
    """
    _tensor(input, "is_neg")
    return False


# -- add, sub, div and rsub with PyTorch's keyword arguments -----------------------------------

def _first_tensor(op, input, other):  # noqa: A002
    """``input`` as an ember.torch tensor; a number ``input`` becomes a 0-d tensor of the
    result dtype (which the tensor ``other`` decides, as for PyTorch's wrapped numbers)."""
    if isinstance(input, _T):
        return as_torch(input)
    if not isinstance(other, _T):
        raise InvalidParameterError(f"{op}: input or other must be a Tensor, got "
                                    f"{type(input).__name__} and {type(other).__name__}",
                                    "input", input)
    if not _is_number(input):
        raise InvalidParameterError(f"{op}: input must be a Tensor or a number, got "
                                    f"{input!r}", "input", input)
    return as_torch(_e.full((), input, dtype=_e.result_type(input, other), device=other.device))


def _check_alpha(op, input, other, alpha):  # noqa: A002
    if isinstance(alpha, float) and _e.result_type(input, other).kind in ("int", "bool"):
        raise KindError(f"{op}: for integral input tensors, argument alpha must not be a "
                        f"floating point number, got {alpha!r}")


def add(input, other, *, alpha=1):  # noqa: A002
    """``input + alpha * other``, as ``torch.add``.

    >>> import ember.torch as torch
    >>> torch.add(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]), alpha=3).tolist()
    [4.0, 5.0]
    """
    first = _first_tensor("add", input, other)
    _check_alpha("add", first, other, alpha)
    return Tensor.add(first, other, alpha=alpha)


def sub(input, other, *, alpha=1):  # noqa: A002
    """``input - alpha * other``, as ``torch.sub`` (``torch.subtract``).

    >>> import ember.torch as torch
    >>> torch.sub(torch.tensor([5.0]), torch.tensor([1.0]), alpha=2).tolist()
    [3.0]
    """
    first = _first_tensor("sub", input, other)
    _check_alpha("sub", first, other, alpha)
    return Tensor.sub(first, other, alpha=alpha)


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """``input / other`` (ints give floats), or rounded by ``rounding_mode`` (``"trunc"`` or
    ``"floor"``, in the operands' dtype), as ``torch.div`` (``torch.divide``).

    >>> import ember.torch as torch
    >>> torch.div(torch.tensor([7, -7]), 2, rounding_mode="floor").tolist()
    [3, -4]
    """
    return Tensor.div(_first_tensor("div", input, other), other, rounding_mode=rounding_mode)


def rsub(input, other, *, alpha=1):  # noqa: A002
    """``other - alpha * input``, as ``torch.rsub``.

    >>> import ember.torch as torch
    >>> torch.rsub(torch.tensor([1.0, 2.0]), 10.0, alpha=2).tolist()
    [8.0, 6.0]
    """
    _tensor(input, "rsub")
    return sub(other, input, alpha=alpha)


# -- apply_, map_, map2_: a Python callable on each element ---------------------------------

_PYTHON_TYPE = {"bool": bool, "int": int, "float": float, "complex": complex}


def _python_map(self, op, fn, *others):
    """Rebind ``self`` to ``fn`` of each element of ``self`` and of ``others`` (tensors of its
    dtype, broadcast to its shape); the results are cast as a C cast would (ints truncate)."""
    from .inplace import apply_inplace  # inplace.py imports this module
    if self.requires_grad:
        raise GraphError(f"{op}: can't call it on a tensor that requires grad; use "
                         f"x.detach().{op}(...) instead")
    if not callable(fn):
        raise InvalidParameterError(f"{op}: callable must be callable, got {fn!r}", "callable",
                                    fn)
    columns = [self.reshape(-1).tolist()]
    for i, other in enumerate(others):
        param = "other" if len(others) == 1 else ("x", "y")[i]
        _tensor(other, op, param)
        if other._dtype is not self._dtype:
            raise KindError(f"{op}: {param} has dtype {other.dtype.name}; expected "
                            f"{self.dtype.name}, the dtype of the tensor")
        columns.append(broadcast_to(other.detach(), self.shape).reshape(-1).tolist())
    cast = _PYTHON_TYPE[self.dtype.kind]
    values = []
    for args in zip(*columns):
        value = fn(*args)
        if not _is_number(value) or isinstance(value, complex) and cast is not complex:
            raise InvalidParameterError(f"{op}: callable must return a number a "
                                        f"{self.dtype.name} tensor holds, got {value!r}",
                                        "callable", fn)
        values.append(cast(value))
    out = _e.tensor(values, dtype=self.dtype, device=self.device).reshape(self.shape)
    return apply_inplace(self, lambda t: out, op)


def apply_(self, callable):  # noqa: A002
    """``Tensor.apply_``: each element replaced by ``callable(element)``, in place (a Python
    loop; not for tensors that require grad).

    >>> import ember.torch as torch
    >>> torch.tensor([1.0, 2.0]).apply_(lambda v: v * 10).tolist()
    [10.0, 20.0]
    """
    return _python_map(self, "apply_", callable)


def map_(self, tensor, callable):  # noqa: A002
    """``Tensor.map_``: each element replaced by ``callable(element, other_element)``, in
    place (``tensor`` of this dtype, broadcast to this shape).

    >>> import ember.torch as torch
    >>> torch.tensor([1.0, 2.0]).map_(torch.tensor([3.0]), lambda a, b: a * b).tolist()
    [3.0, 6.0]
    """
    return _python_map(self, "map_", callable, tensor)


def map2_(self, x, y, callable):  # noqa: A002
    """``Tensor.map2_``: each element replaced by ``callable(element, x_element,
    y_element)``, in place.

    >>> import ember.torch as torch
    >>> one, two = torch.tensor([1.0]), torch.tensor([2.0])
    >>> torch.tensor([1.0, 2.0]).map2_(one, two, lambda a, b, c: a + b + c).tolist()
    [4.0, 5.0]
    """
    return _python_map(self, "map2_", callable, x, y)


# -- registration ------------------------------------------------------------------------------

_METHODS = ("float_power", "fmax", "fmin", "frac", "frexp", "gcd", "lcm", "ldexp", "copysign",
            "nextafter", "signbit", "isneginf", "isposinf", "isreal", "logaddexp", "logaddexp2",
            "nan_to_num", "conj_physical", "resolve_conj", "resolve_neg", "is_conj", "is_neg")

for _name in __all__:
    torch_function(globals()[_name], name=_name)
for _name in _METHODS + ("apply_", "map_", "map2_"):
    torch_method(globals()[_name], name=_name)
del _name
