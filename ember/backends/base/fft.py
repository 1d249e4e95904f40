"""The fft kernels, written once against ``self.xp``'s ``fft`` extension (see
ember/backends/base/__init__.py).

The op has checked every argument and resolved every size: ``s`` holds one signal size per
dim of ``dims`` (the output sizes of a c2r transform), ``norm`` is one of the standard's three
modes, ``dtype`` the ember dtype of the result (results are cast to it). ``op`` names the op a
result too large to allocate is reported for. hfftn and ihfftn, which the standard has in one
dim only, are irfftn and rfftn with the conjugate and the inverse scaling.
"""

from ... import dtypes
from ...shapes import fft_half_shape, fft_result_shape
from ..guard import check_result

# the inverse-direction norm: hfft is irfft of the conjugate with the scaling swapped
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


class FftKernels:
    def _fft_complex(self, a):
        """``a`` as a complex array (complex64 from float32 and narrower, else complex128): the
        standard's fftn, ifftn and irfftn take complex input only."""
        xp = self.xp
        if xp.isdtype(a.dtype, "complex floating"):
            return a
        narrow = xp.isdtype(a.dtype, "real floating") and xp.finfo(a.dtype).bits <= 32
        return xp.astype(a, xp.complex64 if narrow else xp.complex128)

    def _fft_run(self, transform, a, s, dims, norm, dtype, op, shape, conj_in=False,
                 conj_out=False):
        """``transform`` of ``a`` (conjugated before and/or after) cast to ember ``dtype``; an
        allocation failure becomes the typed error naming ``op``."""
        xp = self.xp
        # before the library sees it: XLA aborts the process on a size no memory holds
        check_result(op, shape(a, s, dims, norm, True, dtype), dtype.itemsize)
        try:
            r = transform(xp.conj(a) if conj_in else a, s=s, axes=dims, norm=norm)
            r = xp.conj(r) if conj_out else r
            return xp.astype(r, self.native_dtype(dtype), copy=False)
        except Exception as exc:  # noqa: BLE001 - allocation_failed keeps what is not ours
            raise self.allocation_failed(exc, op, shape(a, s, dims, norm, True, dtype)) from None

    def fft_c2c(self, a, s, dims, norm, forward, dtype, op="fft_c2c"):
        """The N-D transform (``forward``) or inverse transform of ``a`` over ``dims``."""
        f = self.xp.fft.fftn if forward else self.xp.fft.ifftn
        return self._fft_run(f, self._fft_complex(a), s, dims, norm, dtype, op, fft_result_shape)

    def fft_r2c(self, a, s, dims, norm, forward, dtype, op="fft_r2c"):
        """rfftn (``forward``) or ihfftn of the real ``a``: the last dim halved."""
        # ihfftn(x) = conj(rfftn(x)) with the inverse scaling
        return self._fft_run(self.xp.fft.rfftn, a, s, dims, norm if forward else _SWAP[norm],
                             dtype, op, fft_half_shape, conj_out=not forward)

    def fft_c2r(self, a, s, dims, norm, forward, dtype, op="fft_c2r"):
        """hfftn (``forward``) or irfftn of ``a`` (half a Hermitian spectrum in the last dim): a
        real result of sizes ``s``."""
        # hfftn(x) = irfftn(conj(x)) with the forward scaling
        return self._fft_run(self.xp.fft.irfftn, self._fft_complex(a), s, dims,
                             _SWAP[norm] if forward else norm,
                             dtype, op, fft_result_shape, conj_in=forward)

    def fft_freq(self, n, scale, dtype, half, op="fft_freq"):
        """fftfreq (``half``: rfftfreq) of ``n`` points: ``k * scale`` in ``dtype``, as PyTorch
        computes them (half floats in float32, then rounded)."""
        xp = self.xp
        target = self.native_dtype(dtype)
        work = target if dtype.itemsize >= 4 else self.native_dtype(dtypes.float32)
        check_result(op, (n // 2 + 1 if half else n,), 8)
        try:
            k = xp.arange(n // 2 + 1 if half else n, dtype=self.native_dtype(dtypes.int64),
                          device=self.native_device)
            if not half:
                k = xp.where(k >= (n + 1) // 2, k - n, k)
            return xp.astype(xp.astype(k, work) * scale, target, copy=False)
        except Exception as exc:  # noqa: BLE001 - allocation_failed keeps what is not ours
            raise self.allocation_failed(exc, op, (n // 2 + 1 if half else n,)) from None
