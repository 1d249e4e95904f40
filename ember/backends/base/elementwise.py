"""The elementwise kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class ElementwiseKernels:
    @required
    def ew_scalar(self, value, dtype):
        """A Python or NumPy number as an operand for arrays of ember ``dtype``."""

    @required
    def ew_cast(self, a, dtype):
        """``a`` as ember ``dtype`` (``a`` itself when it has it); overflow gives inf, quietly."""

    @required
    def ew_any_zero(self, a):
        """Whether any element of ``a`` is zero."""

    @required
    def ew_any_negative(self, a):
        """Whether any element of a signed integer array is negative."""

    @required
    def ew_add(self, a, b):
        """Element-wise ``add`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_sub(self, a, b):
        """Element-wise ``subtract`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_mul(self, a, b):
        """Element-wise ``multiply`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_truediv(self, a, b):
        """Element-wise ``divide`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_floordiv(self, a, b):
        """Floor division. Floats with an infinite operand give ``floor(a / b)``, the IEEE special
        cases of the Array API standard (``1 // -inf`` is -0.0, ``inf // 2`` is inf), where
        NumPy and PyTorch give Python's -1.0 and nan. (``a * b`` is finite when neither is
        infinite.)"""

    @required
    def ew_remainder(self, a, b):
        """Element-wise ``remainder`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_fmod(self, a, b):
        """Element-wise ``fmod`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_neg(self, a):
        """Element-wise ``negative`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_abs(self, a):
        """Element-wise ``absolute`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_square(self, a):
        """Element-wise ``square`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_maximum(self, a, b):
        """Element-wise ``maximum`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_minimum(self, a, b):
        """Element-wise ``minimum`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_where(self, cond, x, y):
        """``x`` where ``cond`` holds, else ``y`` (broadcasting)."""

    @required
    def ew_eq(self, a, b):
        """Element-wise ``equal`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_lt(self, a, b):
        """Element-wise ``less`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_le(self, a, b):
        """Element-wise ``less_equal`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_gt(self, a, b):
        """Element-wise ``greater`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_ge(self, a, b):
        """Element-wise ``greater_equal`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_logical_and(self, a, b):
        """Element-wise ``a and b`` as a bool array."""

    @required
    def ew_logical_or(self, a, b):
        """Element-wise ``a or b`` as a bool array."""

    @required
    def ew_ipow(self, a, b):
        """Element-wise ``power`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_pow(self, a, b):
        """Float power; a negative base with an integral exponent keeps its sign ((-2) ** 3 == -8)."""

    @required
    def ew_sign(self, a):
        """-1, 0 or 1 in ``a``'s dtype; NaN and both zeros give +0 (as PyTorch and Burn)."""

    @required
    def ew_trunc_div(self, a, b):
        """Division rounded toward zero (``fmod``'s quotient), in ``a``'s dtype."""

    @required
    def ew_exp(self, a):
        """Element-wise ``exp`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_log(self, a):
        """Element-wise ``log`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_log1p(self, a):
        """``log(1 + a)``, accurate near 0. NumPy's complex ``log1p`` is ``log(1 + a)`` (C99 Annex G
        special values, kept), which loses the real part for small ``|a|`` (``log1p(1e-5j)``
        has real part 5e-11, not 0): there it is ``0.5 * log1p(x * (2 + x) + y * y) + 1j *
        atan2(y, 1 + x)``, as PyTorch's."""

    @required
    def ew_expm1(self, a):
        """``exp(a) - 1``; complex values follow the Array API standard's special cases (C99's for
        ``cexp``, less one), where NumPy gives nan parts."""

    @required
    def ew_sqrt(self, a):
        """Element-wise ``sqrt`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_recip(self, a):
        """``1 / a``; of complex arrays as ``1 / a`` (NumPy's ``reciprocal`` differs from PyTorch's in
        the sign of zero parts, its ``true_divide`` does not)."""

    @required
    def ew_sin(self, a):
        """Element-wise ``sin`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_cos(self, a):
        """Element-wise ``cos`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_tan(self, a):
        """Element-wise ``tan`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_sinh(self, a):
        """Element-wise ``sinh`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_cosh(self, a):
        """Element-wise ``cosh`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_tanh(self, a):
        """tanh. A complex value with an infinite real part and a finite imaginary part ``b`` gives ±1
        + 0j with the zero signed as ``b`` (the Array API standard; C99 signs it as
        sin(2b))."""

    @required
    def ew_asin(self, a):
        """Element-wise ``arcsin`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_acos(self, a):
        """Element-wise ``arccos`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_atan(self, a):
        """Element-wise ``arctan`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_asinh(self, a):
        """Element-wise ``arcsinh`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_acosh(self, a):
        """Element-wise ``arccosh`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_atanh(self, a):
        """Element-wise ``arctanh`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_atan2(self, a, b):
        """Element-wise ``arctan2`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_hypot(self, a, b):
        """Element-wise ``hypot`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_deg2rad(self, a):
        """Element-wise ``deg2rad`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_rad2deg(self, a):
        """Element-wise ``rad2deg`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_round(self, a):
        """Element-wise ``rint`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_floor(self, a):
        """Element-wise ``floor`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_ceil(self, a):
        """Element-wise ``ceil`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_trunc(self, a):
        """Element-wise ``trunc`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_round_decimals(self, a, decimals):
        """Round half to even at ``decimals`` digits (negative: left of the point). Past 10**±4000
        every float gives the same result as PyTorch's (NaN from inf * 0), so huge
        ``decimals`` are clipped there to fit NumPy's C int."""

    @required
    def ew_rsqrt(self, a):
        """1 / sqrt(a) (of complex arrays by true division, as PyTorch's: NumPy's ``reciprocal``
        differs in the sign of zero parts)."""

    @required
    def ew_sigmoid(self, a):
        """1 / (1 + exp(-a)), stable for large |a| (no overflow, no 0/0)."""

    @required
    def ew_relu(self, a):
        """max(a, 0), keeping NaN."""

    @required
    def ew_lerp(self, start, end, weight):
        """start + weight * (end - start), computed from the nearer end (as PyTorch)."""

    @required
    def ew_erf(self, a):
        """The error function: float32 (and half types) computed in float32, others in float64 to
        float64 rounding, cast back."""

    @required
    def ew_erf_grad(self, g, a):
        """g * 2/sqrt(pi) * exp(-a**2), in ``g``'s dtype (float32 and half types in float32)."""

    @required
    def ew_sgn(self, a):
        """``a / abs(a)`` of a complex array, 0 where ``a`` is 0 (PyTorch's ``sgn``: NaN where a part
        is NaN or infinite, the Array API's rule; NumPy's ``sign`` gives ±1 at infinities)."""

    @required
    def ew_log2(self, a):
        """Element-wise ``log2`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_log10(self, a):
        """Element-wise ``log10`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_real(self, a):
        """The real part of a complex array (a view)."""

    @required
    def ew_imag(self, a):
        """The imaginary part of a complex array (a view)."""

    @required
    def ew_conj(self, a):
        """Element-wise ``conjugate`` (IEEE results: inf and nan, never a warning)."""

    @required
    def ew_angle(self, a):
        """The argument of a complex array (``atan2(imag, real)``); of a float array PyTorch's
        ``angle``: pi below 0, else 0 (also at -0.0), NaN at NaN."""

    @required
    def ew_complex(self, re, im):
        """The complex array ``re + 1j * im`` of two float32 or two float64 arrays (broadcast); each
        part exactly as given (no arithmetic: -0.0, inf and NaN parts are kept)."""

    @required
    def ew_polar(self, r, theta):
        """``r * cos(theta) + 1j * r * sin(theta)`` (PyTorch's ``polar``) of two float32 or two float64
        arrays, broadcast."""

    @required
    def ew_operator(self, kname, dtype):
        """The kernel of the operators' short path for ``kname`` (``"ew_add"``, ``"ew_sub"``,
        ``"ew_mul"``, ``"ew_truediv"``) on operands of ember ``dtype``: the kernel itself
        (the torch backend gives its own operator where that computes the same)."""
