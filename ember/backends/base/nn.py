"""The nn kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""


class NnKernels:
    def nn_full_like_shape(self, shape, value, dtype):
        """A new array of ``shape`` filled with ``value`` (``dtype`` an ember DType)."""
        return self.xp.full(tuple(shape), value, dtype=self.native_dtype(dtype),
                            device=self.native_device)

    def nn_reshape(self, a, shape):
        """``a`` reshaped (a view where the layout allows)."""
        return self.xp.reshape(a, shape)

    def nn_int_max(self, a):
        """The largest element of a non-empty int array, a Python int."""
        return self.idx_bounds(a)[1]

    def nn_zero_row(self, a, row):
        """A copy of the 2-d ``a`` with row ``row`` set to zero."""
        xp = self.xp
        rows = xp.arange(a.shape[0], device=self.native_device)
        return xp.where(xp.reshape(rows == row, (-1, 1)), xp.zeros((), dtype=a.dtype,
                                                                    device=self.native_device), a)
