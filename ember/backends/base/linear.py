"""The linear kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""


class LinearKernels:
    def nn_linear(self, x, w, b, dtype):
        """``x @ w.T + b`` (``b`` may be None), as ember dtype ``dtype``; half floats compute in
        float32."""
        xp = self.xp
        dt = self.native_dtype(dtype)
        work = xp.float64 if dt == xp.float64 else xp.float32
        out = xp.matmul(xp.astype(x, work, copy=False),
                        xp.matrix_transpose(xp.astype(w, work, copy=False)))
        if b is not None:
            out = out + xp.astype(b, work, copy=False)
        return xp.astype(out, dt, copy=False)
