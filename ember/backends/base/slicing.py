"""The slicing kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py).

A ``key`` here is a normalized basic index: a tuple of Python ints (already in range), slices
(with int or None parts, step not 0) and None (a new axis), never Ellipsis and never an array.
Writes go through the indexing family's ``idx_update``/``idx_zero_at`` (the standard has none).
"""


class SlicingKernels:
    def slicing_view(self, a, key):
        """``a[key]`` as a view (a 0-d array, never a NumPy scalar, when every dim is indexed)."""
        return self.idx_get(a, key)

    def slicing_grad(self, g, shape, key):
        """The gradient of ``a[key]`` for ``a`` of ``shape``: zeros with ``g`` written at ``key``."""
        zeros = self.xp.zeros(shape, dtype=g.dtype, device=self.native_device)
        return self.idx_update(zeros, key, g, "assign")

    def slicing_assign(self, a, key, v):
        """A copy of ``a`` with ``v`` (broadcastable to ``a[key]``'s shape) written at ``key``."""
        return self.idx_update(a, key, v, "assign")

    def slicing_fill(self, a, key, v):
        """A copy of ``a`` with ``v`` (broadcastable to ``a[key]``'s shape) written at ``key``."""
        return self.idx_update(a, key, v, "assign")

    def slicing_zero_region(self, g, key):
        """A copy of ``g`` with zeros at ``key``."""
        return self.idx_zero_at(g, key)

    def slicing_empty(self, shape, dtype):
        """An uninitialised array of ``shape`` and ember ``dtype``."""
        return self.xp.empty(shape, dtype=self.native_dtype(dtype), device=self.native_device)

    def slicing_scalar(self, value, dtype):
        """A 0-d array of ember ``dtype`` holding the number ``value``.

        Raises OverflowError when an integer dtype cannot hold it. Float dtypes round (to inf
        where the value is beyond their range), as NumPy and PyTorch do.
        """
        xp = self.xp
        native = self.native_dtype(dtype)
        if xp.isdtype(native, "integral"):
            info = xp.iinfo(native)
            if not info.min <= int(value) <= info.max:
                raise OverflowError(f"{value!r} does not fit {dtype.name}")
            value = int(value)
        return xp.asarray(value, dtype=native, device=self.native_device)

    def slicing_is_index_object(self, x):
        """Whether ``x`` is an array of this backend: an advanced index, never a basic one."""
        return isinstance(x, self.Array)
