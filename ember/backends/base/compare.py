"""The compare kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py).

Every kernel returns a bool array (never a scalar, also for 0-d inputs); operands are arrays or
Python numbers.
"""


# the result of each comparison of an int array with a Python int above (below) its dtype's range
_BEYOND = {"equal": (False, False), "not_equal": (True, True), "greater": (False, True),
           "greater_equal": (False, True), "less": (True, False), "less_equal": (True, False)}


def _compare(self, name, a, b):
    """``xp.<name>(a, b)`` as a bool array: bools ordered as 0 and 1, and a Python int beyond an
    int array's range compared by its sign (the standard takes neither)."""
    xp = self.xp
    flags = [getattr(v, "dtype", None) == xp.bool or isinstance(v, bool) for v in (a, b)]
    if name not in ("equal", "not_equal") or flags[0] != flags[1]:
        a, b = (xp.astype(v, xp.uint8) if getattr(v, "dtype", None) == xp.bool else
                int(v) if isinstance(v, bool) else v for v in (a, b))
    for num, arr, right in ((b, a, True), (a, b, False)):
        if type(num) is int and hasattr(arr, "dtype") and xp.isdtype(arr.dtype, "integral"):
            info = xp.iinfo(arr.dtype)
            if not info.min <= num <= info.max:
                above, below = _BEYOND[name]
                if not right and name not in ("equal", "not_equal"):
                    above, below = below, above
                return xp.full(arr.shape, above if num > info.max else below, dtype=xp.bool,
                               device=self.native_device)
    return xp.asarray(getattr(xp, name)(a, b))


class CompareKernels:
    def compare_eq(self, a, b):
        """Elementwise ``numpy.equal`` as a bool ndarray."""
        return _compare(self, "equal", a, b)

    def compare_ne(self, a, b):
        """Elementwise ``numpy.not_equal`` as a bool ndarray."""
        return _compare(self, "not_equal", a, b)

    def compare_gt(self, a, b):
        """Elementwise ``numpy.greater`` as a bool ndarray."""
        return _compare(self, "greater", a, b)

    def compare_ge(self, a, b):
        """Elementwise ``numpy.greater_equal`` as a bool ndarray."""
        return _compare(self, "greater_equal", a, b)

    def compare_lt(self, a, b):
        """Elementwise ``numpy.less`` as a bool ndarray."""
        return _compare(self, "less", a, b)

    def compare_le(self, a, b):
        """Elementwise ``numpy.less_equal`` as a bool ndarray."""
        return _compare(self, "less_equal", a, b)

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
