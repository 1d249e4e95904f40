"""The creation kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class CreationKernels:
    @required
    def creation_full(self, shape, value, dtype):
        """A new array of ``shape`` filled with ``value`` (already checked to fit ``dtype``)."""

    @required
    def creation_zeros(self, shape, dtype):
        """A new zero-filled array."""

    @required
    def creation_fill_value_fits(self, value, dtype):
        """Whether the Python number ``value`` converts to NumPy ``dtype`` without loss of its integral
        value or overflow (floats may round; bool takes 0 and 1 only)."""

    @required
    def creation_arange(self, start, end, step, dtype, is_float):
        """``[start, end)`` by ``step`` as NumPy ``dtype``; float ranges are computed in float64 as
        ``start + i * step`` with ``ceil((end - start) / step)`` values (PyTorch's rule)."""

    @required
    def creation_arange_length(self, start, end, step, is_float):
        """The number of values ``creation_arange`` would make."""

    @required
    def creation_linspace(self, start, end, steps, dtype):
        """``steps`` evenly spaced values from ``start`` to ``end`` inclusive, computed in float64 from
        both ends as PyTorch does (complex ends: both parts so), then converted to ``dtype``
        (a complex dtype for complex ends)."""

    @required
    def creation_eye(self, n, m, dtype):
        """An ``n`` by ``m`` array with ones on the main diagonal."""

    @required
    def creation_tri_mask(self, shape, offset, part):
        """Burn's triangle masks over the last two dims of ``shape``, broadcast to ``shape``: True
        marks the elements *outside* the part (``"upper"``, ``"lower"`` or ``"diag"``)."""

    @required
    def creation_tri_keep(self, a, diagonal, upper):
        """``a`` with the elements outside the upper (or lower) triangle set to zero (a new array)."""

    @required
    def creation_cartesian_grid(self, shape):
        """int64 array of shape ``(*shape, len(shape))`` whose entry at each index is that index."""

    @required
    def data_reshape_copy(self, a, shape):
        """A C-contiguous copy of ``a`` with a new shape of the same size."""

    @required
    def data_flat_list(self, a):
        """The values of ``a`` as one flat Python list, row-major."""

    @required
    def data_can_mut(self, a):
        """Whether ``a`` provably has its buffer to itself: it owns its memory, is writable, and
        nothing but the caller's one holder refers to it (no view, no buffer export, no
        other tensor, no saved autodiff step). False when that cannot be shown (no reference
        counts)."""

    @required
    def display_edges(self, a, edge):
        """``a`` reduced to its first and last ``edge`` items along every dim longer than ``2 * edge``,
        and the tuple of dims that were cut."""

    @required
    def display_strings(self, a):
        """The elements of ``a`` as display strings, nested lists like ``a.tolist()`` (a single string
        for a 0-d array): floats always with a decimal point or an exponent, in the shortest
        form that reads back in their dtype; complex numbers ``1.0+2.0j`` (each part as a
        float of the part's dtype); ints plain; bools True/False."""
