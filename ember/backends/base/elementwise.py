"""The elementwise kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

import math as _math

from ... import dtypes as _dtypes
from .declare import required

_TWO_OVER_SQRT_PI = 2.0 / _math.sqrt(_math.pi)
_INT_RANGE = (-(1 << 63), 1 << 64)


def wrap_int(value, dtype):
    """The Python int ``value`` wrapped into the int (or bool) ember ``dtype``, two's complement
    as PyTorch; OverflowError outside the 64-bit range."""
    v = int(value)
    if not _INT_RANGE[0] <= v < _INT_RANGE[1]:
        raise OverflowError(f"{value!r} is outside the 64-bit integer range")
    bits = dtype.itemsize * 8
    v %= 1 << bits
    if dtype.is_signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _is_single(dt):
    """float32 or a half type (which compute in float32)."""
    return dt.kind == "float" and dt.itemsize <= 4


class ElementwiseKernels:
    def ew_scalar(self, value, dtype):
        """A Python or NumPy number as an operand for arrays of ember ``dtype``."""
        kind = dtype.kind
        if kind in ("int", "bool"):
            return wrap_int(value, dtype)
        exact = type(value) is float and dtype.itemsize >= 4  # a weak Python float: kept
        if isinstance(value, int) or getattr(getattr(value, "dtype", None), "kind", "f") in "iu":
            value = int(value)
            try:
                value = float(value)
            except OverflowError:
                raise OverflowError(f"{value!r} is too large for a float") from None
        if kind == "complex":
            value = complex(value)
            if dtype.itemsize == 16:
                return value
            return complex(self.xp.asarray(value, dtype=self.native_dtype(dtype)))
        value = float(value)
        if exact or dtype.itemsize == 8 or not _math.isfinite(value):
            return value
        return float(self.xp.asarray(value, dtype=self.native_dtype(dtype)))

    def ew_cast(self, a, dtype):
        """``a`` as ember ``dtype`` (``a`` itself when it has it); overflow gives inf, quietly."""
        return self.cast(a, dtype)

    def ew_any_zero(self, a):
        """Whether any element of ``a`` is zero."""
        if not isinstance(a, self.Array):
            return a == 0
        return not bool(self.xp.all(a))

    def ew_any_negative(self, a):
        """Whether any element of a signed integer array is negative."""
        if not isinstance(a, self.Array):
            return a < 0
        dt = self.dtype_of(a)
        return dt.kind == "int" and dt.is_signed and bool(self.xp.any(a < 0))

    def ew_add(self, a, b):
        """Element-wise ``add`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.add(a, b)

    def ew_sub(self, a, b):
        """Element-wise ``subtract`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.subtract(a, b)

    def ew_mul(self, a, b):
        """Element-wise ``multiply`` (IEEE results: inf and nan, never a warning); a bool array
        times a number array multiplies as 0 and 1 of its dtype."""
        xp = self.xp
        if isinstance(a, self.Array) and isinstance(b, self.Array) and \
                (a.dtype == xp.bool) != (b.dtype == xp.bool):
            a, b = (xp.astype(a, b.dtype), b) if a.dtype == xp.bool else (a, xp.astype(b, a.dtype))
        return xp.multiply(a, b)

    def ew_truediv(self, a, b):
        """Element-wise ``divide`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.divide(a, b)

    def ew_floordiv(self, a, b):
        """Floor division. Floats with an infinite operand give ``floor(a / b)``, the IEEE special
        cases of the Array API standard (``1 // -inf`` is -0.0, ``inf // 2`` is inf), where
        NumPy and PyTorch give Python's -1.0 and nan. (``a * b`` is finite when neither is
        infinite.) A zero result has the quotient's sign, as the standard asks (XLA's
        ``floor_divide`` gives ``-0.0 // 1`` as 0.0)."""
        xp = self.xp
        out = self._int_safe(a, b, xp.floor_divide, lambda: xp.floor(a / b))
        if self._dtype_of_either(a, b).kind != "float":
            return out
        one = xp.ones_like(out)
        sign = xp.copysign(one, self._array_like(a, out)) * xp.copysign(
            one, self._array_like(b, out))
        return xp.where(out == 0, xp.copysign(out, sign), out)

    def ew_remainder(self, a, b):
        """Element-wise ``remainder`` (IEEE results: inf and nan, never a warning)."""
        return self._int_safe(a, b, self._remainder)

    def ew_fmod(self, a, b):
        """Element-wise ``fmod`` (IEEE results: inf and nan, never a warning)."""
        return self._int_safe(a, b, self._fmod)

    def ew_neg(self, a):
        """Element-wise ``negative`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.negative(a)

    def ew_abs(self, a):
        """Element-wise ``absolute`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.abs(a)

    def ew_square(self, a):
        """Element-wise ``square`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.square(a)

    def ew_maximum(self, a, b):
        """Element-wise ``maximum`` (IEEE results: inf and nan, never a warning); NaN on either
        side wins, and on a tie of floats (the sign of zero) NumPy's choice: ``b``, ``a`` for
        float16 (the standard leaves it to the library)."""
        return self._extreme(a, b, self.xp.maximum, self.xp.greater, self.xp.greater_equal)

    def ew_minimum(self, a, b):
        """Element-wise ``minimum``, as ``ew_maximum``."""
        return self._extreme(a, b, self.xp.minimum, self.xp.less, self.xp.less_equal)

    def ew_where(self, cond, x, y):
        """``x`` where ``cond`` holds, else ``y`` (broadcasting; two Python numbers give an array
        of their default dtype)."""
        if not isinstance(x, self.Array) and not isinstance(y, self.Array):
            x = self.xp.asarray(x, device=self.native_device)
        return self.xp.where(cond, x, y)

    def ew_eq(self, a, b):
        """Element-wise ``equal`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.equal(a, b)

    def ew_lt(self, a, b):
        """Element-wise ``less`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.less(a, b)

    def ew_le(self, a, b):
        """Element-wise ``less_equal`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.less_equal(a, b)

    def ew_gt(self, a, b):
        """Element-wise ``greater`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.greater(a, b)

    def ew_ge(self, a, b):
        """Element-wise ``greater_equal`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.greater_equal(a, b)

    def ew_logical_and(self, a, b):
        """Element-wise ``a and b`` as a bool array."""
        return self.xp.logical_and(a, b)

    def ew_logical_or(self, a, b):
        """Element-wise ``a or b`` as a bool array."""
        return self.xp.logical_or(a, b)

    def ew_ipow(self, a, b):
        """Element-wise ``power`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.pow(a, b)

    def ew_pow(self, a, b):
        """Float power; a negative base with an integral exponent keeps its sign ((-2) ** 3 == -8)."""
        return self.xp.pow(a, b)

    def ew_sign(self, a):
        """-1, 0 or 1 in ``a``'s dtype; NaN and both zeros give +0 (as PyTorch and Burn)."""
        xp = self.xp
        dt = a.dtype
        if not self.dtype_of(a).is_signed:  # (torch compares unsigned ints for equality only)
            return self._array(xp.astype(a != 0, dt))
        return self._array(xp.astype(a > 0, dt) - xp.astype(a < 0, dt))

    def ew_trunc_div(self, a, b):
        """Division rounded toward zero (``fmod``'s quotient), in ``a``'s dtype."""
        dt = self._dtype_of_either(a, b)
        if dt.kind != "int":
            return self.ew_trunc(self.ew_truediv(a, b))
        if not dt.is_signed:
            return self.ew_floordiv(a, b)  # unsigned: the same
        q = self.ew_floordiv(a, b)
        r = self.ew_remainder(a, b)
        return self.ew_where((r != 0) & ((a < 0) != (b < 0)), q + 1, q)

    def ew_exp(self, a):
        """Element-wise ``exp`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.exp(a)

    def ew_log(self, a):
        """Element-wise ``log`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.log(a)

    def ew_log1p(self, a):
        """``log(1 + a)``, accurate near 0. NumPy's complex ``log1p`` is ``log(1 + a)`` (C99 Annex G
        special values, kept), which loses the real part for small ``|a|`` (``log1p(1e-5j)``
        has real part 5e-11, not 0): there it is ``0.5 * log1p(x * (2 + x) + y * y) + 1j *
        atan2(y, 1 + x)``, as PyTorch's."""
        xp = self.xp
        out = xp.log1p(a)
        if self.dtype_of(a).kind != "complex":
            return out
        small = xp.abs(a) < 0.5  # NaN and infinities are not small
        if bool(xp.any(small)):
            x, y = xp.real(a), xp.imag(a)
            near = self.ew_complex(0.5 * xp.log1p(x * (2 + x) + y * y), xp.atan2(y, 1 + x))
            out = xp.where(small, near, out)
        return out

    def ew_expm1(self, a):
        """``exp(a) - 1``; complex values follow the Array API standard's special cases (C99's for
        ``cexp``, less one), where NumPy gives nan parts."""
        out = self.xp.expm1(a)
        if self.dtype_of(a).kind != "complex":
            return out
        xp = self.xp
        re, im = xp.real(a), xp.imag(a)
        fix = (xp.isinf(re) | xp.isnan(re) | (re == 0)) & ~(xp.isfinite(im) & (im != 0))
        if not bool(xp.any(fix)):
            return out
        zero_im = im == 0
        nan, inf = _math.nan, _math.inf
        real = xp.where(xp.isnan(re), nan, xp.where(re == inf, inf, xp.where(
            re == -inf, -1.0, xp.where(zero_im, xp.zeros_like(re), nan))))
        imag = xp.where(zero_im | (re == -inf), xp.copysign(xp.zeros_like(im), im), nan)
        return xp.where(fix, self.ew_complex(xp.astype(real, re.dtype), xp.astype(imag, re.dtype)),
                        out)

    def ew_sqrt(self, a):
        """Element-wise ``sqrt`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.sqrt(a)

    def ew_recip(self, a):
        """``1 / a``; of complex arrays as ``1 / a`` (NumPy's ``reciprocal`` differs from PyTorch's in
        the sign of zero parts, its ``true_divide`` does not)."""
        return self.ew_truediv(1, a)

    def ew_sin(self, a):
        """Element-wise ``sin`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.sin(a)

    def ew_cos(self, a):
        """Element-wise ``cos`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.cos(a)

    def ew_tan(self, a):
        """Element-wise ``tan`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.tan(a)

    def ew_sinh(self, a):
        """Element-wise ``sinh`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.sinh(a)

    def ew_cosh(self, a):
        """Element-wise ``cosh`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.cosh(a)

    def ew_tanh(self, a):
        """tanh. A complex value with an infinite real part and a finite imaginary part ``b`` gives ±1
        + 0j with the zero signed as ``b`` (the Array API standard; C99 signs it as
        sin(2b))."""
        out = self.xp.tanh(a)
        if self.dtype_of(a).kind != "complex":
            return out
        xp = self.xp
        re, im = xp.real(a), xp.imag(a)
        fix = xp.isinf(re) & xp.isfinite(im)
        if not bool(xp.any(fix)):
            return out
        return xp.where(fix, self.ew_complex(xp.sign(re), xp.copysign(xp.zeros_like(im), im)), out)

    def ew_asin(self, a):
        """Element-wise ``arcsin`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.asin(a)

    def ew_acos(self, a):
        """Element-wise ``arccos`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.acos(a)

    def ew_atan(self, a):
        """Element-wise ``arctan`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.atan(a)

    def ew_asinh(self, a):
        """Element-wise ``arcsinh`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.asinh(a)

    def ew_acosh(self, a):
        """Element-wise ``arccosh`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.acosh(a)

    def ew_atanh(self, a):
        """Element-wise ``arctanh`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.atanh(a)

    def ew_atan2(self, a, b):
        """Element-wise ``arctan2`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.atan2(a, b)

    def ew_hypot(self, a, b):
        """Element-wise ``hypot`` (IEEE results: inf and nan, never a warning); float32 and
        narrower in the widest float, whose result rounds to the correctly rounded one (XLA's
        float32 ``hypot`` is off by an ulp in a third of the values)."""
        xp = self.xp
        Array = self.Array
        dt = self.dtype_of(a if isinstance(a, Array) else b)
        if not _is_single(dt) or self.widest_float.itemsize < 8:
            return xp.hypot(a, b)
        wide = self.native_dtype(self.widest_float)
        a, b = (xp.astype(v, wide) if isinstance(v, Array) else v for v in (a, b))
        return xp.astype(xp.hypot(a, b), self.native_dtype(dt))

    def ew_deg2rad(self, a):
        """Element-wise ``deg2rad`` (IEEE results: inf and nan, never a warning)."""
        return self._scaled(a, _math.pi / 180.0)

    def ew_rad2deg(self, a):
        """Element-wise ``rad2deg`` (IEEE results: inf and nan, never a warning)."""
        return self._scaled(a, 180.0 / _math.pi)

    def ew_round(self, a):
        """Element-wise ``rint`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.round(a)

    def ew_floor(self, a):
        """Element-wise ``floor`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.floor(a)

    def ew_ceil(self, a):
        """Element-wise ``ceil`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.ceil(a)

    def ew_trunc(self, a):
        """Element-wise ``trunc`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.trunc(a)

    def ew_round_decimals(self, a, decimals):
        """Round half to even at ``decimals`` digits (negative: left of the point). Past 10**±4000
        every float gives the same result as PyTorch's (NaN from inf * 0), so huge
        ``decimals`` are clipped there to fit NumPy's C int."""
        xp = self.xp
        decimals = max(-4000, min(decimals, 4000))
        scale = 10.0 ** abs(decimals) if abs(decimals) <= 308 else _math.inf
        scale = xp.asarray(scale, dtype=a.dtype, device=self.native_device)
        if decimals >= 0:  # numpy.round's steps: multiply, round half to even, divide
            return self.ew_truediv(xp.round(a * scale), scale)
        return xp.round(self.ew_truediv(a, scale)) * scale

    def ew_rsqrt(self, a):
        """1 / sqrt(a) (of complex arrays by true division, as PyTorch's: NumPy's ``reciprocal``
        differs in the sign of zero parts)."""
        return self.ew_recip(self.ew_sqrt(a))

    def ew_sigmoid(self, a):
        """1 / (1 + exp(-a)), stable for large |a| (no overflow, no 0/0)."""
        xp = self.xp
        x = xp.astype(a, xp.float32) if self.dtype_of(a).itemsize == 2 else a
        e = xp.exp(-xp.abs(x))
        return xp.astype(xp.where(x >= 0, 1 / (1 + e), e / (1 + e)), a.dtype, copy=False)

    def ew_relu(self, a):
        """max(a, 0), keeping NaN."""
        return self.ew_maximum(a, self.xp.zeros((), dtype=a.dtype, device=self.native_device))

    def ew_lerp(self, start, end, weight):
        """start + weight * (end - start), computed from the nearer end (as PyTorch)."""
        xp = self.xp
        diff = end - start
        if not isinstance(weight, self.Array):
            weight = xp.asarray(weight, dtype=diff.dtype, device=self.native_device)
        return xp.where(xp.abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))

    @required
    def ew_erf(self, a):
        """The error function: float32 (and half types) computed in float32, others in float64 to
        float64 rounding, cast back."""

    def ew_erf_grad(self, g, a):
        """g * 2/sqrt(pi) * exp(-a**2), in ``g``'s dtype (float32 and half types in float32)."""
        xp = self.xp
        dt = self.dtype_of(g)
        single = _is_single(self.dtype_of(a)) and _is_single(dt)
        x = xp.astype(a, xp.float32 if single else xp.float64, copy=False)
        return xp.astype(xp.exp(-(x * x)) * _TWO_OVER_SQRT_PI * g, g.dtype, copy=False)

    def ew_sgn(self, a):
        """``a / abs(a)`` of a complex array, 0 where ``a`` is 0 (PyTorch's ``sgn``: NaN where a part
        is NaN or infinite, the Array API's rule; NumPy's ``sign`` gives ±1 at infinities)."""
        xp = self.xp
        m = xp.abs(a)
        zero = m == 0
        m = xp.where(zero, xp.ones((), dtype=m.dtype, device=self.native_device), m)
        out = self.ew_complex(xp.real(a) / m, xp.imag(a) / m)  # each part by the real modulus
        return xp.where(zero, xp.zeros((), dtype=out.dtype, device=self.native_device), out)

    def ew_log2(self, a):
        """Element-wise ``log2`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.log2(a)

    def ew_log10(self, a):
        """Element-wise ``log10`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.log10(a)

    def ew_real(self, a):
        """The real part of a complex array (a view)."""
        return self.xp.real(a)

    def ew_imag(self, a):
        """The imaginary part of a complex array (a view)."""
        return self.xp.imag(a)

    def ew_conj(self, a):
        """Element-wise ``conjugate`` (IEEE results: inf and nan, never a warning)."""
        return self.xp.conj(a)

    def ew_angle(self, a):
        """The argument of a complex array (``atan2(imag, real)``); of a float array PyTorch's
        ``angle``: pi below 0, else 0 (also at -0.0), NaN at NaN."""
        xp = self.xp
        if self.dtype_of(a).kind == "complex":
            return self._array(xp.atan2(xp.imag(a), xp.real(a)))
        zero = xp.zeros((), dtype=a.dtype, device=self.native_device)
        return xp.where(a < 0, xp.full((), _math.pi, dtype=a.dtype, device=self.native_device),
                        xp.where(a != a, a, zero))

    @required
    def ew_complex(self, re, im):
        """The complex array ``re + 1j * im`` of two float32 or two float64 arrays (broadcast); each
        part exactly as given (no arithmetic: -0.0, inf and NaN parts are kept)."""

    def ew_polar(self, r, theta):
        """``r * cos(theta) + 1j * r * sin(theta)`` (PyTorch's ``polar``) of two float32 or two float64
        arrays, broadcast."""
        return self.ew_complex(r * self.xp.cos(theta), r * self.xp.sin(theta))

    def ew_operator(self, kname, dtype):
        """``(kernel, eager, below)``: the kernels of the operators' short path for ``kname``
        (``"ew_add"``, ``"ew_sub"``, ``"ew_mul"``, ``"ew_truediv"``) on operands of ember
        ``dtype``: ``kernel`` (the kernel itself; the torch backend gives its own operator where
        that computes the same), and ``eager``, the same computation that the path may call
        instead when every array operand has fewer than ``below`` bytes (``0``: never; a
        wrapper backend such as ``Lazy`` gives its inner kernel there, one frame fewer)."""
        kernel = getattr(self, kname)
        return kernel, kernel, 0

    # -- helpers of the defaults (not kernels) ----------------------------------------------------

    def _extreme(self, a, b, fn, strict, tie_a):
        """``fn(a, b)`` (maximum or minimum), with NaN and ties of two float arrays as NumPy's:
        ``a`` where ``strict(a, b)`` (``tie_a`` for float16) or ``a`` is NaN, else ``b``."""
        xp = self.xp
        if not (isinstance(a, self.Array) and isinstance(b, self.Array)
                and xp.isdtype(a.dtype, "real floating") and a.dtype == b.dtype):
            return fn(a, b)
        pick = tie_a if self.dtype_of(a) == _dtypes.float16 else strict
        return xp.where(pick(a, b) | xp.isnan(a), a, b)

    def _array(self, x):
        """``x`` as an array (NumPy gives a scalar for an operation on 0-d arrays)."""
        return x if isinstance(x, self.Array) else self.xp.asarray(x)

    def _dtype_of_either(self, a, b):
        """The ember DType of the array among the operands ``a`` and ``b`` (one may be a number)."""
        return self.dtype_of(a if isinstance(a, self.Array) else b)

    def _int_safe(self, a, b, fn, at_inf=None):
        """``fn(a, b)`` of a division-like kernel: integers divided by 0 give 0 (as NumPy and
        PyTorch's CPU kernels); floats with an infinite operand give ``at_inf()`` where given."""
        xp = self.xp
        if self._dtype_of_either(a, b).kind in ("int", "bool"):
            if not isinstance(b, self.Array):
                return fn(a, b) if b != 0 else xp.zeros_like(a)
            zero = b == 0
            out = fn(a, xp.where(zero, xp.ones_like(b), b))
            return xp.where(zero, xp.zeros_like(out), out)
        out = fn(a, b)
        if at_inf is None:
            return out
        inf = xp.isinf(self._array_like(a, out)) | xp.isinf(self._array_like(b, out))
        return xp.where(inf, at_inf(), out) if bool(xp.any(inf)) else out

    def _array_like(self, x, like):
        """``x`` (an array or a number) as an array of ``like``'s dtype and device."""
        if isinstance(x, self.Array):
            return x
        return self.xp.asarray(x, dtype=like.dtype, device=self.native_device)

    def _remainder(self, a, b):
        """The standard's ``remainder``, a zero result of floats signed as the divisor (NumPy's
        and Python's ``-2.0 % 2.0 == 0.0``; the standard leaves it open)."""
        xp = self.xp
        r = xp.remainder(a, b)
        if self.dtype_of(r).kind != "float":
            return r
        return xp.where(r == 0, xp.copysign(xp.zeros_like(r), self._array_like(b, r)), r)

    def _fmod(self, a, b):
        """C's ``fmod`` (the sign of ``a``) from the standard's floor ``remainder`` (the sign of
        ``b``). Floats: the remainder of ``|a|`` by ``|b|`` (exact, and ``|a|`` itself for an
        infinite ``b``) with the sign of ``a``; ints: the two differ by ``b`` where the signs
        differ."""
        xp = self.xp
        if self._dtype_of_either(a, b).kind == "float":
            ref = a if isinstance(a, self.Array) else b
            ra, rb = self._array_like(a, ref), self._array_like(b, ref)
            return xp.copysign(xp.remainder(xp.abs(ra), xp.abs(rb)), ra)
        r = xp.remainder(a, b)
        ra = self._array_like(a, r)
        return xp.where((r != 0) & ((r < 0) != (ra < 0)), r - b, r)

    def _scaled(self, a, factor):
        """``a * factor``, of half types computed in float32 (as NumPy's and PyTorch's deg2rad).
        (NumPy runs the defaults that call it with its warnings off: numpy/elementwise.py.)"""
        xp = self.xp
        if self.dtype_of(a).itemsize == 2:
            return xp.astype(xp.astype(a, xp.float32) * factor, a.dtype)
        return a * factor
