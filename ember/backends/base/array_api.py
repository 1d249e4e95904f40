"""The array_api kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py):
the limits of a dtype (``finfo``/``iinfo``), ``nextafter``, ``signbit``."""


class ArrayApiKernels:
    def dtype_limits(self, dtype):
        """``(bits, min, max, eps, smallest_normal)`` of an ember dtype (eps and smallest_normal
        are None for ints)."""
        if dtype.kind == "bool":
            return 8, 0, 1, None, None
        if dtype.kind == "int":
            info = self.xp.iinfo(self.native_dtype(dtype))
            return info.bits, int(info.min), int(info.max), None, None
        info = self.xp.finfo(self.native_dtype(dtype))
        return (info.bits, float(info.min), float(info.max), float(info.eps),
                float(info.smallest_normal))

    def ew_nextafter(self, a, b):
        """The next representable value after ``a`` towards ``b`` (NumPy's ``nextafter``), for two
        arrays of one float dtype (broadcast)."""
        return self.xp.nextafter(a, b)

    def ew_signbit(self, a):
        """Whether the sign bit of each element of a float array is set (-0.0 and NaNs with the
        sign bit included): a bool array."""
        return self.xp.signbit(a)
