"""The scan kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py).

Every kernel takes and returns arrays of at least one dim along ``axis``. Float sums and
products accumulate in float64 (16-bit floats in float32, complex in complex128) and are cast
back to the input dtype, as PyTorch's CPU kernels do; ints and bools give int64.
"""


class ScanKernels:
    def _scan_acc(self, dtype):
        """The accumulation dtype of a float or complex dtype."""
        xp = self.xp
        if xp.isdtype(dtype, "complex floating"):
            return xp.complex128
        return xp.float32 if xp.finfo(dtype).bits <= 16 else xp.float64

    def _scan(self, a, axis, scan):
        """``scan`` (``xp.cumulative_sum``/``_prod``) along ``axis``: ints and bools give
        int64, floats keep their dtype (accumulated wider)."""
        xp = self.xp
        if a.dtype == xp.bool:  # the standard scans numbers only
            return scan(xp.astype(a, xp.int64), axis=axis)
        if xp.isdtype(a.dtype, "integral"):
            return scan(a, axis=axis, dtype=xp.int64)
        return xp.astype(scan(xp.astype(a, self._scan_acc(a.dtype)), axis=axis), a.dtype)

    def scan_cumsum(self, a, axis):
        """Cumulative sum along ``axis``; ints and bools give int64, floats keep their dtype."""
        return self._scan(a, axis, self.xp.cumulative_sum)

    def scan_cumprod(self, a, axis):
        """Cumulative product along ``axis``; ints and bools give int64, floats keep their dtype."""
        return self._scan(a, axis, self.xp.cumulative_prod)

    def scan_cumsum_grad(self, g, axis):
        """Gradient of cumsum: the reversed cumulative sum of ``g``."""
        xp = self.xp
        flipped = xp.flip(xp.astype(g, self._scan_acc(g.dtype)), axis=axis)
        return xp.astype(xp.flip(xp.cumulative_sum(flipped, axis=axis), axis=axis), g.dtype)

    def _scan_running(self, x, axis, op):
        """The running ``op`` (an idempotent binary function: max, min) of ``x`` along ``axis``, in
        log2(n) doubling steps."""
        n = x.shape[axis]
        lead = (slice(None),) * (axis % x.ndim)
        step = 1
        while step < n:
            shifted = self.xp.concat([x[lead + (slice(0, step), ...)],
                                      x[lead + (slice(0, n - step), ...)]], axis=axis)
            x = op(x, shifted)
            step *= 2
        return x

    def scan_cumext(self, a, axis, kind):
        """(values, indices) of the cumulative max (``kind`` "max") or min along ``axis``.

        NaN propagates from its first position on; the index is the last position where the running
        extreme was reached (a tie or a NaN moves it), as PyTorch's cummax/cummin.
        """
        xp = self.xp
        if a.dtype == xp.bool:  # the standard's maximum and minimum take numbers
            op = xp.logical_or if kind == "max" else xp.logical_and
        else:
            op = xp.maximum if kind == "max" else xp.minimum
        vals = self._scan_running(a, axis, op)
        mark = a == vals
        if xp.isdtype(a.dtype, "real floating"):
            mark = mark | xp.isnan(a)
        shape = [1] * a.ndim
        shape[axis] = a.shape[axis]
        pos = xp.reshape(xp.arange(a.shape[axis], dtype=xp.int64, device=self.native_device),
                         tuple(shape))
        idx = self._scan_running(xp.where(mark, pos, xp.zeros_like(pos)), axis, xp.maximum)
        return vals, idx

    def scan_index_grad(self, g, idx, axis):
        """Gradient of a cumulative max/min: each ``g`` element added at its index along ``axis``
        (accumulated in float64)."""
        xp = self.xp
        wide = xp.astype(g, xp.float64)
        out = self.idx_add_into_zeros(g.shape, self.idx_along_key(idx, axis), wide)
        return xp.astype(out, g.dtype)

    def scan_reshape(self, a, shape):
        """``a`` with a new shape of the same size (a view where the layout allows)."""
        return self.xp.reshape(a, shape)
