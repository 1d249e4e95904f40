"""The segments kernels (see ember/backends/base/__init__.py): defaults written once against
``self.xp`` where a kernel takes no allocation guard."""

from .declare import required


class SegmentsKernels:
    @required
    def segments_cat(self, arrays, axis, dtype=None):
        """The arrays joined along ``axis`` into a new array of ember ``dtype`` (each cast to it);
        ``dtype`` None: the arrays all have the result's dtype already (no per-array scan).
        Required: the ops pass ``op=`` to the backend's allocation guard (``allocates``)."""

    @required
    def segments_stack(self, arrays, axis, dtype):
        """The arrays (all of one shape) stacked along a new ``axis``, as ember ``dtype``.
        Required: guarded by the backend's ``allocates`` (the ops pass ``op=``)."""

    @required
    def segments_zeros(self, shape, dtype):
        """Zeros of ``shape`` and ember ``dtype``. Required: guarded by the backend's
        ``allocates`` (the ops pass ``op=``)."""

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
