"""The fft kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class FftKernels:
    @required
    def fft_c2c(self, a, s, dims, norm, forward, dtype):
        """The N-D transform (``forward``) or inverse transform of ``a`` over ``dims``."""

    @required
    def fft_r2c(self, a, s, dims, norm, forward, dtype):
        """rfftn (``forward``) or ihfftn of the real ``a``: the last dim halved."""

    @required
    def fft_c2r(self, a, s, dims, norm, forward, dtype):
        """hfftn (``forward``) or irfftn of ``a`` (half a Hermitian spectrum in the last dim): a real
        result of sizes ``s``."""

    @required
    def fft_freq(self, n, scale, dtype, half):
        """fftfreq (``half``: rfftfreq) of ``n`` points: ``k * scale`` in ``dtype``, as PyTorch
        computes them (half floats in float32, then rounded)."""
