"""The movement kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class MovementKernels:
    @required
    def mv_reshape(self, a, shape, op='reshape'):
        """``a`` with a new shape: a view when the layout allows, else a copy (``op``: the op named if
        the copy cannot be allocated; a transposed layout is copied by the compiled tiled
        transpose)."""

    @required
    def mv_expand(self, a, shape, op='expand'):
        """A read-only broadcast view of ``a`` with ``shape`` (leading dims added as needed; ``op``:
        the op named if its size cannot be addressed)."""

    @required
    def mv_permute(self, a, order):
        """A view of ``a`` with its axes in ``order``."""

    @required
    def mv_flip(self, a, axes):
        """A view of ``a`` reversed along ``axes`` (non-negative): one basic-indexing step, which costs
        a fraction of ``np.flip``'s argument handling (a 0-d ``a`` gives a 0-d view)."""

    @required
    def mv_slice(self, a, bounds):
        """A view of ``a`` restricted to ``[start, end)`` on each axis; ``bounds`` one pair per axis."""

    @required
    def mv_slice_backward(self, g, shape, bounds):
        """The adjoint of ``mv_slice``: zeros of ``shape`` with ``g`` placed in the window."""

    @required
    def mv_pad(self, a, pads, mode, value, dtype):
        """``a`` padded by ``pads`` (one (before, after) pair per axis; negative amounts crop)."""

    @required
    def mv_pad_backward(self, g, shape, pads, mode):
        """The adjoint of ``mv_pad`` (without the fill value): the gradient for the input of ``shape``."""

    @required
    def mv_roll(self, a, shifts, axes):
        """A copy of ``a`` rolled by ``shifts`` along ``axes`` (NumPy's direction); ``axes=None`` rolls
        the flattened array."""

    @required
    def mv_unfold(self, a, axis, size, step):
        """A read-only strided view of the windows of ``size`` every ``step`` along ``axis``; the
        window index replaces ``axis`` and the window offset is a new last axis."""

    @required
    def mv_unfold_backward(self, g, shape, axis, size, step):
        """The adjoint of ``mv_unfold``: windows summed back into an array of ``shape``."""

    @required
    def mv_repeat_interleave(self, a, repeats, axis):
        """Each element of ``a`` along ``axis`` repeated ``repeats`` times (an int or an int array)."""

    @required
    def mv_repeat_interleave_backward(self, g, shape, repeats, axis):
        """The adjoint of ``mv_repeat_interleave``: the copies of each element summed."""

    @required
    def mv_any_negative(self, a):
        """Whether an int array has a negative element."""

    @required
    def mv_int_fits(self, value, dtype):
        """Whether the number ``value`` is an integer that ember int dtype ``dtype`` can hold."""
