"""The segments kernels (see ember/backends/base/__init__.py): defaults written once against
``self.xp`` where a kernel takes no allocation guard."""

from .declare import allocates


class SegmentsKernels:
    @allocates()
    def segments_cat(self, arrays, axis, dtype=None, *, op=None):
        """The arrays joined along ``axis`` into a new array of ember ``dtype`` (each cast to it);
        ``dtype`` None: the arrays all have the result's dtype already (no per-array scan).
        The ops pass ``op=`` to the allocation guard."""
        if dtype is not None:
            arrays = [self.ew_cast(a, dtype) for a in arrays]
        return self.xp.concat(list(arrays), axis=axis)

    @allocates()
    def segments_stack(self, arrays, axis, dtype, *, op=None):
        """The arrays (all of one shape) stacked along a new ``axis``, as ember ``dtype``.
        The ops pass ``op=`` to the allocation guard."""
        return self.xp.stack([self.ew_cast(a, dtype) for a in arrays], axis=axis)

    @allocates(lambda shape, dtype: tuple(shape))
    def segments_zeros(self, shape, dtype, *, op=None):
        """Zeros of ``shape`` and ember ``dtype`` (the ops pass ``op=`` to the allocation guard)."""
        return self.xp.zeros(tuple(shape), dtype=self.native_dtype(dtype), device=self.native_device)

    def segments_expand_dims(self, a, axis):
        """A view of ``a`` with a new dim of size 1 at ``axis``."""
        return self.xp.expand_dims(a, axis=axis)

    def segments_token(self):
        """A 0-d float64 array, made once per backend instance: the placeholder gradient a part of
        a split passes to its hub (never written)."""
        token = self.__dict__.get("_segments_token")
        if token is None:
            token = self._segments_token = self.xp.zeros((), dtype=self.xp.float64,
                                                         device=self.native_device)
        return token
