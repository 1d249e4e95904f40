"""The segments kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class SegmentsKernels:
    @required
    def segments_cat(self, arrays, axis, dtype=None):
        """The arrays joined along ``axis`` into a new array of ember ``dtype`` (each cast to it);
        ``dtype`` None: the arrays all have the result's dtype already (no per-array scan)."""

    @required
    def segments_stack(self, arrays, axis, dtype):
        """The arrays (all of one shape) stacked along a new ``axis``, as ember ``dtype``."""

    @required
    def segments_zeros(self, shape, dtype):
        """``segments_zeros``."""

    @required
    def segments_expand_dims(self, a, axis):
        """A view of ``a`` with a new dim of size 1 at ``axis``."""

    @required
    def segments_token(self):
        """A read-only 0-d array: the placeholder gradient a part of a split passes to its hub."""
