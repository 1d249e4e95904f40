"""The bitwise kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py).

Operands of the binary kernels already have the result dtype (the ops promote first); every
kernel returns an array (never a scalar, also for 0-d inputs) and writes into no input.
"""


class BitwiseKernels:
    def bitwise_and(self, a, b):
        """``a & b`` (logical and on bools)."""
        return self.xp.asarray(self.xp.bitwise_and(a, b))

    def bitwise_or(self, a, b):
        """``a | b`` (logical or on bools)."""
        return self.xp.asarray(self.xp.bitwise_or(a, b))

    def bitwise_xor(self, a, b):
        """``a ^ b`` (logical xor on bools)."""
        return self.xp.asarray(self.xp.bitwise_xor(a, b))

    def bitwise_invert(self, a):
        """``~a``: two's complement not on ints, logical not on bools."""
        return self.xp.asarray(self.xp.bitwise_invert(a))

    def bitwise_lshift(self, a, c):
        """``a << c`` elementwise, both of one int dtype; counts < 0 or >= the bit width give 0."""
        xp = self.xp
        if not hasattr(a, "dtype"):  # a Python int shifted by an array
            a = xp.asarray(a, dtype=c.dtype, device=self.native_device)
        bits = xp.iinfo(a.dtype).bits
        out = xp.bitwise_left_shift(a, xp.clip(c, 0, bits - 1))
        return xp.where((c >= 0) & (c < bits), out, xp.zeros_like(out))

    def bitwise_rshift(self, a, c):
        """``a >> c`` (arithmetic on signed ints); counts < 0 or >= the bit width give the sign fill."""
        xp = self.xp
        if not hasattr(a, "dtype"):  # a Python int shifted by an array
            a = xp.asarray(a, dtype=c.dtype, device=self.native_device)
        bits = xp.iinfo(a.dtype).bits
        ok = (c >= 0) & (c < bits)
        if xp.isdtype(a.dtype, "signed integer"):
            # shifting by bits - 1 is the sign fill (0 or -1), as for any count out of range
            return xp.bitwise_right_shift(a, xp.where(ok, c, xp.full_like(c, bits - 1)))
        out = xp.bitwise_right_shift(a, xp.clip(c, 0, bits - 1))
        return xp.where(ok, out, xp.zeros_like(out))

    def bitwise_lshift_scalar(self, a, count):
        """``a << count`` for a Python int ``count`` of any size; out of [0, bit width) gives 0."""
        xp = self.xp
        if 0 <= count < xp.iinfo(a.dtype).bits:
            return xp.asarray(xp.bitwise_left_shift(a, count))
        return xp.zeros_like(a)

    def bitwise_rshift_scalar(self, a, count):
        """``a >> count`` for a Python int ``count``; out of [0, bit width) gives the sign fill."""
        xp = self.xp
        bits = xp.iinfo(a.dtype).bits
        if not 0 <= count < bits:
            if not xp.isdtype(a.dtype, "signed integer"):
                return xp.zeros_like(a)
            count = bits - 1
        return xp.asarray(xp.bitwise_right_shift(a, count))

    def logical_truth(self, a):
        """``a != 0`` as bools (NaN is true); bool arrays themselves."""
        if a.dtype == self.xp.bool:
            return a
        return self.xp.asarray(a != 0)

    def logical_and(self, a, b):
        """``logical_and``."""
        return self.xp.asarray(self.xp.logical_and(a, b))

    def logical_or(self, a, b):
        """``logical_or``."""
        return self.xp.asarray(self.xp.logical_or(a, b))

    def logical_xor(self, a, b):
        """``logical_xor``."""
        return self.xp.asarray(self.xp.logical_xor(a, b))

    def logical_not(self, a):
        """``logical_not``."""
        return self.xp.asarray(self.xp.logical_not(a))
