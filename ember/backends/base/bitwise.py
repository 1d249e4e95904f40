"""The bitwise kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class BitwiseKernels:
    @required
    def bitwise_and(self, a, b):
        """``a & b`` (logical and on bools)."""

    @required
    def bitwise_or(self, a, b):
        """``a | b`` (logical or on bools)."""

    @required
    def bitwise_xor(self, a, b):
        """``a ^ b`` (logical xor on bools)."""

    @required
    def bitwise_invert(self, a):
        """``~a``: two's complement not on ints, logical not on bools."""

    @required
    def bitwise_lshift(self, a, c):
        """``a << c`` elementwise, both of one int dtype; counts < 0 or >= the bit width give 0."""

    @required
    def bitwise_rshift(self, a, c):
        """``a >> c`` (arithmetic on signed ints); counts < 0 or >= the bit width give the sign fill."""

    @required
    def bitwise_lshift_scalar(self, a, count):
        """``a << count`` for a Python int ``count`` of any size; out of [0, bit width) gives 0."""

    @required
    def bitwise_rshift_scalar(self, a, count):
        """``a >> count`` for a Python int ``count``; out of [0, bit width) gives the sign fill."""

    @required
    def logical_truth(self, a):
        """``a != 0`` as bools (NaN is true); bool arrays themselves."""

    @required
    def logical_and(self, a, b):
        """``logical_and``."""

    @required
    def logical_or(self, a, b):
        """``logical_or``."""

    @required
    def logical_xor(self, a, b):
        """``logical_xor``."""

    @required
    def logical_not(self, a):
        """``logical_not``."""
