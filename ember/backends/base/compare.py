"""The compare kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py).

Every kernel returns a bool array (never a scalar, also for 0-d inputs); operands are arrays or
Python numbers. Ints compare exactly as NumPy 2: a Python int of any size, and uint64 against a
signed int (which the standard cannot promote); bools order as 0 and 1.
"""

_FN = {"eq": "equal", "ne": "not_equal", "gt": "greater", "ge": "greater_equal", "lt": "less",
       "le": "less_equal"}
_MIRROR = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
# the result where the left side is larger than every value of the right
_BIGGER = {"eq": False, "ne": True, "lt": False, "le": False, "gt": True, "ge": True}


class CompareKernels:
    def _compare(self, name, a, b):
        """``a OP b`` (``OP`` the name ``name``) as a bool array, one side at least an array."""
        xp = self.xp
        if not isinstance(a, self.Array):
            return self._compare(_MIRROR[name], b, a)
        fn = getattr(xp, _FN[name])
        if isinstance(b, self.Array):
            if a.dtype != b.dtype and xp.isdtype(a.dtype, "integral") and \
                    xp.isdtype(b.dtype, "integral"):
                if a.dtype == xp.uint64 and xp.isdtype(b.dtype, "signed integer"):
                    exact = fn(a, xp.astype(xp.where(b < 0, 0, b), xp.uint64))
                    return xp.where(b < 0, xp.asarray(_BIGGER[name]), exact)
                if b.dtype == xp.uint64 and xp.isdtype(a.dtype, "signed integer"):
                    return self._compare(_MIRROR[name], b, a)
            if a.dtype == xp.bool and b.dtype == xp.bool and name not in ("eq", "ne"):
                a, b = xp.astype(a, xp.int8), xp.astype(b, xp.int8)
            return xp.asarray(fn(a, b))
        if xp.isdtype(a.dtype, "bool") and (name not in ("eq", "ne") or type(b) is not bool):
            a = xp.astype(a, xp.int8)
        if xp.isdtype(a.dtype, "integral"):
            if isinstance(b, float):
                a = xp.astype(a, xp.float64)
            elif isinstance(b, int):
                b, info = int(b), xp.iinfo(a.dtype)
                if not info.min <= b <= info.max:
                    value = _BIGGER[name] if b < info.min else not _BIGGER[name] \
                        if name not in ("eq", "ne") else name == "ne"
                    return xp.full(a.shape, value, dtype=xp.bool, device=self.native_device)
        return xp.asarray(fn(a, b))

    def compare_eq(self, a, b):
        """Elementwise ``numpy.equal`` as a bool ndarray."""
        return self._compare("eq", a, b)

    def compare_ne(self, a, b):
        """Elementwise ``numpy.not_equal`` as a bool ndarray."""
        return self._compare("ne", a, b)

    def compare_gt(self, a, b):
        """Elementwise ``numpy.greater`` as a bool ndarray."""
        return self._compare("gt", a, b)

    def compare_ge(self, a, b):
        """Elementwise ``numpy.greater_equal`` as a bool ndarray."""
        return self._compare("ge", a, b)

    def compare_lt(self, a, b):
        """Elementwise ``numpy.less`` as a bool ndarray."""
        return self._compare("lt", a, b)

    def compare_le(self, a, b):
        """Elementwise ``numpy.less_equal`` as a bool ndarray."""
        return self._compare("le", a, b)

    def compare_scalar(self, value, dtype):
        """A 0-d array of ember ``dtype`` (a float or complex dtype) holding the Python float (or
        complex) ``value`` (rounded to the dtype; beyond its range it becomes +-inf,
        silently)."""
        return self.xp.asarray(value, dtype=self.native_dtype(dtype), device=self.native_device)

    def _compare_fill(self, a, value):
        return self.xp.full(a.shape, value, dtype=self.xp.bool, device=self.native_device)

    def compare_isnan(self, a):
        """``compare_isnan``."""
        if self.xp.isdtype(a.dtype, ("bool", "integral")):
            return self._compare_fill(a, False)
        return self.xp.asarray(self.xp.isnan(a))

    def compare_isinf(self, a):
        """``compare_isinf``."""
        if self.xp.isdtype(a.dtype, ("bool", "integral")):
            return self._compare_fill(a, False)
        return self.xp.asarray(self.xp.isinf(a))

    def compare_isfinite(self, a):
        """``compare_isfinite``."""
        if self.xp.isdtype(a.dtype, ("bool", "integral")):
            return self._compare_fill(a, True)
        return self.xp.asarray(self.xp.isfinite(a))

    def compare_contains_nan(self, a):
        """A 0-d bool array: whether any element is NaN."""
        return self.xp.asarray(self.xp.any(self.compare_isnan(a)))

    def compare_isclose(self, a, b, rtol, atol, equal_nan):
        """``a == b`` or ``|a - b| <= atol + rtol * |b|`` with a finite difference (PyTorch's rule).

        ``a`` is a float array and ``b`` an array or a number of its dtype; equal infinities are
        close, a finite value is never close to an infinite one; NaN is close to NaN only when
        ``equal_nan``.
        """
        xp = self.xp
        b = xp.asarray(b, dtype=a.dtype, device=self.native_device)
        close = xp.equal(a, b)
        if equal_nan:
            close = close | (xp.isnan(a) & xp.isnan(b))
        if rtol != 0 or atol != 0:
            diff = xp.abs(a - b)
            allowed = atol + xp.abs(rtol * b)
            close = close | (xp.isfinite(diff) & (diff <= allowed))
        return xp.asarray(close)

    def compare_all(self, a):
        """Whether every element of the bool array ``a`` is true (a Python bool; True when empty)."""
        return bool(self.xp.all(a))
