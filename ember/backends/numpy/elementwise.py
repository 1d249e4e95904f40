"""NumPy kernels of the elementwise family: public names are kernels (`be.NAME`), helpers _private.

Every kernel runs with NumPy's floating-point warnings off: inf and nan results are the IEEE
answer, not something to warn about. The switch is one context-variable set and reset (NumPy's
own ``errstate`` state), much cheaper than entering ``np.errstate`` on each call.
"""

import math as _math

import numpy as np

__all__ = [
    "ew_scalar", "ew_cast", "ew_chain_sum", "ew_shared_view", "ew_deferrable",
    "ew_evaluate", "ew_add", "ew_sub", "ew_mul", "ew_truediv", "ew_floordiv", "ew_remainder",
    "ew_fmod", "ew_neg", "ew_abs", "ew_square", "ew_maximum", "ew_minimum", "ew_where", "ew_eq",
    "ew_lt", "ew_le", "ew_gt", "ew_ge", "ew_logical_and", "ew_logical_or", "ew_ipow", "ew_pow",
    "ew_exp", "ew_log", "ew_log1p", "ew_expm1", "ew_sqrt", "ew_recip", "ew_sin", "ew_cos", "ew_tan",
    "ew_sinh", "ew_cosh", "ew_tanh", "ew_asin", "ew_acos", "ew_atan", "ew_asinh", "ew_acosh",
    "ew_atanh", "ew_atan2", "ew_hypot", "ew_round", "ew_floor", "ew_ceil", "ew_trunc",
    "ew_rsqrt", "ew_sigmoid", "ew_relu", "ew_erf", "ew_log2", "ew_log10", "ew_conj",
    "ew_complex", "ew_inplace",
]

from . import jit as _jit
from ..base.elementwise import wrap_int
from ..lazy.chain import Chain
from .core import _ERRVAR, _EMBER, _IGNORE, NP, _name_of, default_kernel
from .jit import activations as _jit_activations
from .jit import maps as _maps

if _ERRVAR is not None:
    _set = _ERRVAR.set
    _reset = _ERRVAR.reset


_ndarray = np.ndarray
_asarray = np.asarray


def _quiet(fn):
    """Wrap ``fn`` so that it runs with NumPy's floating-point warnings ignored and always
    returns an ndarray (a ufunc on 0-d operands returns a NumPy scalar)."""
    if _ERRVAR is None:  # pragma: no cover
        def wrapper(*args):
            with np.errstate(all="ignore"):
                r = fn(*args)
            return r if type(r) is _ndarray else _asarray(r)
    elif getattr(fn, "nin", 0) == 1 and fn.nout == 1:  # a unary ufunc: no *args packing
        def wrapper(a):
            token = _set(_IGNORE)
            try:
                r = fn(a)
            finally:
                _reset(token)
            return r if type(r) is _ndarray else _asarray(r)
    elif getattr(fn, "nin", 0) == 2 and fn.nout == 1:  # a binary ufunc
        def wrapper(a, b):
            token = _set(_IGNORE)
            try:
                r = fn(a, b)
            finally:
                _reset(token)
            return r if type(r) is _ndarray else _asarray(r)
    else:
        def wrapper(*args):
            token = _set(_IGNORE)
            try:
                r = fn(*args)
            finally:
                _reset(token)
            return r if type(r) is _ndarray else _asarray(r)
    name = getattr(fn, "__name__", "kernel")
    wrapper.__name__ = name
    wrapper.ufunc = fn if isinstance(fn, np.ufunc) else None
    if isinstance(fn, np.ufunc):  # not NumPy's docstring: its examples are not ember doctests
        wrapper.__doc__ = f"``numpy.{name}`` with floating-point warnings off."
    else:
        wrapper.__doc__ = fn.__doc__
        wrapper.__wrapped__ = fn
    return wrapper


_expm1 = _quiet(np.expm1)
_complex_expm1 = default_kernel("ew_expm1")


# override: 1.50 µs vs the default's 2.01 µs ((32, 64) float32); complex arrays take the default
def ew_expm1(a):
    """``exp(a) - 1`` (of complex arrays the base's default: the Array API's special cases)."""
    return _complex_expm1(a) if a.dtype.kind == "c" else _expm1(a)


# -- operands ---------------------------------------------------------------------------------

# override: 0.15 µs vs the default's 0.29 µs (a float32 scalar: the operators' hot path)
def ew_scalar(value, dtype):
    """A Python or NumPy number as an operand for arrays of ember ``dtype``.

    Integers wrap into the dtype (base's ``wrap_int``), as 0-d arrays. Floats are rounded to
    the dtype first (the Array API's rule for weak scalars; a float too large for float16 becomes inf). A Python float meeting float32 or
    float64 stays a Python float, which NumPy treats as weak: the same result, without a copy.
    """
    dtype = NP[dtype]
    kind = dtype.kind
    if kind == "f" and type(value) is float and dtype.itemsize > 2:
        return value
    if kind in "iu":
        return np.asarray(wrap_int(value, _EMBER[dtype]), dtype)
    if isinstance(value, (int, np.integer)):
        value = int(value)
        try:
            value = float(value)
        except OverflowError:
            raise OverflowError(f"{value!r} is too large for a float") from None
    return _asarray_quiet(value, dtype)


_asarray_quiet = _quiet(np.asarray)


def ew_cast(a, dtype):
    """``a`` as ember ``dtype`` (``a`` itself when it has it); overflow gives inf, quietly."""
    dtype = NP[dtype]
    return a if a.dtype == dtype else _astype_quiet(a, dtype)


@_quiet
def _astype_quiet(a, dtype):
    return a.astype(dtype)


def ew_shared_view(a):
    """A view of ``a``, an array someone else owns and may still write (``from_numpy``)."""
    return a.view()


def ew_deferrable(a):
    """Whether the operand ``a`` may wait in a Chain: a number, or an array that owns its buffer.
    A view may be of an array its owner can still write (``from_numpy``), which a deferred
    result must not see; deferring it would change the values, so it is computed now."""
    return a.__class__ is not _ndarray or a.flags.owndata


def ew_evaluate(chain):
    """The array a Chain computes, computed once. With the compiler (``jit``) a float32/float64
    chain of contiguous arrays runs as one compiled loop that writes one new buffer; otherwise
    its innermost step allocates the one buffer and every later step writes into it (NumPy's
    ``out=``), so ``x * y + z`` makes one array, not two. The result is published on the Chain
    (``value`` first, then the operands are dropped, so that the Chain releases their buffers);
    a computed Chain gives its array again."""
    if chain.operands is None:
        return chain.value
    out = _maps.evaluate(chain) if _jit.enabled() else None
    if out is None:
        if _ERRVAR is None:  # pragma: no cover
            with np.errstate(all="ignore"):
                out = _evaluate(chain)[0]
        else:
            token = _set(_IGNORE)
            try:
                out = _evaluate(chain)[0]
            finally:
                _reset(token)
    chain.value = out
    chain.operands = None
    return out


def ew_chain_sum(chain, last):
    """The sum of a Chain's values: over every element (a 0-d array) or, ``last``, over its
    last dim; computed by one compiled pass that keeps no buffer of the values. None when that
    is not possible now (no compiler, a kernel compiling, an int chain...): the caller then
    computes the Chain and sums its array."""
    shape = chain.shape
    if not shape or chain.operands is None or not _jit.enabled():
        return None
    out = _maps.sum_rows(chain, _math.prod(shape[:-1]) if last else 1)
    if out is None:
        return None
    return out.reshape(shape[:-1] if last else ())


def _evaluate(chain):
    """(array, scratch): the array of ``chain`` and whether it is a new buffer that the step
    above may write into (a computed Chain's array is a tensor's buffer: never written)."""
    operands = chain.operands
    if operands is None:
        return chain.value, False
    args = []
    scratch = None
    for x in operands:
        if x.__class__ is Chain:
            x, new = _evaluate(x)
            if new and scratch is None and x.dtype == chain.dtype:
                scratch = x
        args.append(x)
    ufunc = chain.ufunc
    if ufunc is not None:
        if scratch is not None:
            return ufunc(*args, out=scratch), True
        out = ufunc(*args)
    else:
        out = chain.kernel(*args)
    return (out if type(out) is _ndarray else _asarray(out)), True  # 0-d gives a NumPy scalar


# -- arithmetic -------------------------------------------------------------------------------

ew_add = _quiet(np.add)
ew_sub = _quiet(np.subtract)
ew_mul = _quiet(np.multiply)
ew_truediv = _quiet(np.true_divide)
def _floordiv(a, b):
    """Floor division. Floats with an infinite operand give ``floor(a / b)``, the IEEE special
    cases of the Array API standard (``1 // -inf`` is -0.0, ``inf // 2`` is inf), where NumPy
    and PyTorch give Python's -1.0 and nan. (``a * b`` is finite when neither is infinite.)"""
    out = np.floor_divide(a, b)
    if out.dtype.kind not in "iub" and out.size and not np.isfinite(np.multiply(a, b)).all():
        inf = np.isinf(a) | np.isinf(b)  # floats, bfloat16 (kind "V") included
        out = np.where(inf, np.floor(np.true_divide(a, b)), out).astype(out.dtype, copy=False)
    return out


ew_floordiv = _quiet(_floordiv)
ew_remainder = _quiet(np.remainder)
ew_fmod = _quiet(np.fmod)
ew_neg = _quiet(np.negative)
ew_abs = _quiet(np.absolute)
ew_square = _quiet(np.square)
ew_maximum = _quiet(np.maximum)
ew_minimum = _quiet(np.minimum)
ew_where = np.where
ew_eq = _quiet(np.equal)
ew_lt = _quiet(np.less)
ew_le = _quiet(np.less_equal)
ew_gt = _quiet(np.greater)
ew_ge = _quiet(np.greater_equal)
ew_logical_and = np.logical_and
ew_logical_or = np.logical_or
ew_ipow = _quiet(np.power)


@_quiet
def ew_pow(a, b):
    """Float power; a negative base with an integral exponent keeps its sign ((-2) ** 3 == -8)."""
    return np.power(a, b)


# -- float math -------------------------------------------------------------------------------

ew_exp = _quiet(np.exp)
ew_log = _quiet(np.log)


@_quiet
def ew_log1p(a):
    """``log(1 + a)``, accurate near 0. NumPy's complex ``log1p`` is ``log(1 + a)`` (C99 Annex G
    special values, kept), which loses the real part for small ``|a|`` (``log1p(1e-5j)`` has
    real part 5e-11, not 0): there it is ``0.5 * log1p(x * (2 + x) + y * y) + 1j * atan2(y,
    1 + x)``, as PyTorch's."""
    out = np.log1p(a)
    if a.dtype.kind != "c":
        return out
    small = np.abs(a) < 0.5                 # NaN and infinities are not small
    if small.any():
        x, y = a.real, a.imag
        near = ew_complex(0.5 * np.log1p(x * (2 + x) + y * y), np.arctan2(y, 1 + x))
        out = np.where(small, near, out)
    return out
ew_sqrt = _quiet(np.sqrt)
ew_log2 = _quiet(np.log2)
ew_log10 = _quiet(np.log10)


# override: 1.33 µs vs the default's 2.48 µs ((32, 64) float32)
@_quiet
def ew_recip(a):
    """``1 / a``; of complex arrays as ``1 / a`` (NumPy's ``reciprocal`` differs from PyTorch's
    in the sign of zero parts, its ``true_divide`` does not)."""
    if a.dtype.kind == "c":
        return np.true_divide(1, a)
    return np.reciprocal(a)


ew_conj = _quiet(np.conjugate)


_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}


@_quiet
def ew_complex(re, im):
    """The complex array ``re + 1j * im`` of two float32 or two float64 arrays (broadcast);
    each part exactly as given (no arithmetic: -0.0, inf and NaN parts are kept)."""
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, _COMPLEX_OF[re.dtype])
    out.real = re
    out.imag = im
    return out


ew_sin = _quiet(np.sin)
ew_cos = _quiet(np.cos)
ew_tan = _quiet(np.tan)
ew_sinh = _quiet(np.sinh)
ew_cosh = _quiet(np.cosh)
_tanh = _quiet(np.tanh)
_complex_tanh = default_kernel("ew_tanh")


# override: 1.51 µs vs the default's 1.96 µs ((32, 64) float32); complex arrays take the default
def ew_tanh(a):
    """tanh (of complex arrays the base's default: the Array API's special cases)."""
    return _complex_tanh(a) if a.dtype.kind == "c" else _tanh(a)


ew_tanh.ufunc = np.tanh  # a chain of real arrays writes NumPy's tanh into its buffer
ew_asin = _quiet(np.arcsin)
ew_acos = _quiet(np.arccos)
ew_atan = _quiet(np.arctan)
ew_asinh = _quiet(np.arcsinh)
ew_acosh = _quiet(np.arccosh)
ew_atanh = _quiet(np.arctanh)
ew_atan2 = _quiet(np.arctan2)
ew_hypot = _quiet(np.hypot)
ew_round = _quiet(np.rint)
ew_floor = _quiet(np.floor)
ew_ceil = _quiet(np.ceil)
ew_trunc = _quiet(np.trunc)


# override: 2.43 µs vs the default's 2.97 µs ((32, 64) float32); also a Chain op
@_quiet
def ew_rsqrt(a):
    """1 / sqrt(a) (of complex arrays by true division, as PyTorch's: NumPy's ``reciprocal``
    differs in the sign of zero parts)."""
    if a.dtype.kind == "c":
        return np.true_divide(1, np.sqrt(a))
    return np.reciprocal(np.sqrt(a))


# override: 10.1 µs vs the default's 11.0 µs ((32, 64) float32); also a Chain op
@_quiet
def ew_sigmoid(a):
    """1 / (1 + exp(-a)), stable for large |a| (no overflow, no 0/0); float32/float64 by the
    fused path's compiled loop at every size (``maps.unary``)."""
    out = _maps.unary("sigmoid", a)
    if out is not None:
        return out
    x = a.astype(np.float32) if a.dtype.itemsize == 2 else a
    e = np.exp(-np.abs(x))
    one = np.ones((), x.dtype)
    return np.where(x >= 0, one / (one + e), e / (one + e)).astype(a.dtype, copy=False)


# override: 0.97 µs vs the default's 2.02 µs ((32, 64) float32); also a Chain op
def ew_relu(a):
    """max(a, 0), keeping NaN (``maximum`` sets no floating-point flag: no error-state switch)."""
    r = np.maximum(a, np.zeros((), a.dtype))
    return r if type(r) is np.ndarray else np.asarray(r)


# erf: W. J. Cody's rational approximations as used by Cephes (ndtr.c), in float64.
_ERF_T = (9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
          7.00332514112805075473E3, 5.55923013010394962768E4)
_ERF_U = (3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
          2.26290000613890934246E4, 4.92673942608635921086E4)
_ERFC_P = (2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
           4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
           9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2)
_ERFC_Q = (1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
           9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3,
           1.65666309194161350182E3, 5.57535340817727675546E2)


def _polevl(x, coefs, leading_one=False):
    y = np.ones_like(x) if leading_one else np.full_like(x, coefs[0])
    for c in (coefs if leading_one else coefs[1:]):
        y = y * x + c
    return y


# float32 erf, computed in float32: x * P(x*x) for |x| < 0.5 (relative error 2e-7), else
# sign(x) * (1 - erfc(|x|)) with erfc(a) = exp(-a*a) * t * R(t), t = 1 / (1 + a/2), the erfc of
# the compiled GELU kernels (ember/backends/numpy/jit/activations.py)
_ERF32_P = (0.0047175674173665465, -0.026756971905545934, 0.11282819468843899,
            -0.37612608404054815, 1.1283791655539255)


def _horner32(x, coefs):
    y = np.full_like(x, np.float32(coefs[0]))
    for c in coefs[1:]:
        y *= x
        y += np.float32(c)
    return y


def _is_single(dt):
    """float32, or a half type (computed in float32)."""
    return dt == np.float32 or (dt.itemsize == 2 and (dt.kind == "f" or _name_of(dt) == "bfloat16"))


def _erf32(x):
    ax = np.abs(x, out=np.empty_like(x))            # out=: a 0-d array stays an array
    t = np.multiply(ax, np.float32(_jit_activations.ERFC_T_SCALE), out=np.empty_like(x))
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    erfc = _horner32(t, _jit_activations.ERFC_R)
    erfc *= t
    e = np.multiply(ax, ax, out=np.empty_like(x))
    np.negative(e, out=e)
    np.exp(e, out=e)
    erfc *= e
    big = np.subtract(np.float32(1.0), erfc, out=erfc)
    np.copysign(big, x, out=big)
    small = _horner32(np.multiply(x, x, out=np.empty_like(x)), _ERF32_P)
    small *= x
    return np.where(ax < np.float32(0.5), small, big)


@_quiet
def ew_erf(a):
    """The error function: float32 (and half types) computed in float32, others in float64 to
    float64 rounding, cast back."""
    if _is_single(a.dtype):
        return _erf32(a.astype(np.float32, copy=False)).astype(a.dtype, copy=False)
    x = a.astype(np.float64)
    ax = np.minimum(np.abs(x), 6.0)  # erf(6) == 1 in float64; keeps inf out of the polynomials
    z = x * x
    small = x * _polevl(z, _ERF_T) / _polevl(z, _ERF_U, True)
    erfc = np.exp(-ax * ax) * _polevl(ax, _ERFC_P) / _polevl(ax, _ERFC_Q, True)
    big = np.copysign(1.0 - erfc, x)
    out = np.where(np.abs(x) <= 1.0, small, big)
    return out.astype(a.dtype, copy=False)


_INPLACE = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}
_INPLACE_TYPES = frozenset(map(np.dtype, ("float16 float32 float64 int8 int16 int32 int64 uint8 "
                                           "complex64 complex128").split()))


def ew_inplace(name, holder, b, holders=1):
    """Write ``holder.a <name> b`` into ``holder.a``'s memory ("add", "sub", "mul", "div") when
    that array provably has its buffer to itself (the ``holders`` tensors the caller knows of,
    ``holder`` among them, are the only ones holding it: no view, export, saved step or other
    tensor) and ``b`` (an array or a Python number) keeps its dtype; returns whether it did
    (else the caller computes a new array).
    ``holder`` is the tensor, so that its own reference is the only one counted."""
    a = holder._data
    if (a.__class__ is not _ndarray or _getrefcount(a) > _SOLE + holders - 1
            or a.dtype not in _INPLACE_TYPES or not a.flags.owndata or not a.flags.writeable):
        return False
    if b.__class__ is _ndarray:
        if b.dtype != a.dtype or b.ndim > a.ndim:  # (b cannot view a: nothing else holds a)
            return False
    elif b.__class__ not in (int, float) or (b.__class__ is float and a.dtype.kind in "iu"):
        return False
    if name == "div" and a.dtype.kind in "iu":
        return False
    if a.size >= _maps.MIN_PARALLEL and _maps.into(name, a, b):  # (on the kernels' threads)
        return True
    token = _set(_IGNORE) if _ERRVAR is not None else None
    try:
        _INPLACE[name](a, b, out=a)
    except (ValueError, TypeError):  # b does not broadcast to a: the caller reports it
        return False
    finally:
        if token is not None:
            _reset(token)
    return True


_getrefcount = __import__("sys").getrefcount


def _sole():
    class _Holder:
        __slots__ = ("_data",)
    h = _Holder()
    h._data = np.empty(1)

    def probe(holder):
        a = holder._data
        return _getrefcount(a)
    return probe(h)


_SOLE = _sole()
