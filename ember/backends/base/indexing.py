"""The indexing kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class IndexingKernels:
    @required
    def idx_bounds(self, a):
        """``(min, max)`` of an int array as Python ints, or None when it is empty."""

    @required
    def idx_bounds_last(self, a):
        """Per column of the last axis: ``(mins, maxs)`` lists of Python ints, or None when empty."""

    @required
    def idx_as_intp(self, a):
        """``a`` as an intp array (no copy when it already is one)."""

    @required
    def idx_is_integral(self, a):
        """Whether every element of a float array is a finite whole number."""

    @required
    def idx_zero_index(self, shape):
        """An intp array of zeros of ``shape`` (no elements for an empty list key)."""

    @required
    def idx_nonzero(self, a):
        """The indices of the nonzero elements, one int64 array per dim."""

    @required
    def idx_argwhere(self, a):
        """The indices of the nonzero elements, one row (int64) per element."""

    @required
    def idx_scalar_index(self, value):
        """A 0-d or one-element int array as a Python int."""

    @required
    def idx_dim_key(self, index, axis):
        """The key selecting ``index`` (any shape) along ``axis``: NumPy's ``take`` layout."""

    @required
    def idx_along_key(self, index, axis):
        """The key of ``take_along_axis``: ``index`` on ``axis``, aranges broadcast on the others."""

    @required
    def idx_nd_key(self, indices):
        """The key of ``gather_nd``: column ``k`` of the last axis indexes dim ``k``."""

    @required
    def idx_lead_key(self, batch_shape):
        """The key that picks index 0 of a leading unit axis once per batch element."""

    @required
    def idx_lead(self, x):
        """``x`` with a leading unit axis (a view)."""

    @required
    def idx_unlead(self, x):
        """``x`` without its leading unit axis (a view)."""

    @required
    def idx_get(self, x, key):
        """``x[key]``: a view for basic keys, a new array for advanced ones (always an array)."""

    @required
    def idx_gather(self, x, key):
        """``x[key]`` for a key of ``idx_along_key``; an index out of range raises IndexError. A 1-D
        ``x`` (its key is the index alone) goes through ``np.take``, ~15% faster than
        ``x[key]``."""

    @required
    def idx_update(self, x, key, values, op):
        """A copy of ``x`` with ``values`` combined at ``key`` by ``op``."""

    @required
    def idx_where(self, cond, a, b):
        """``a`` where ``cond`` else ``b`` (broadcasting)."""

    @required
    def idx_mask_select(self, x, mask):
        """The elements of ``x`` where ``mask`` (same shape) is true, flattened in order."""

    @required
    def idx_one_hot(self, index, num_classes, on_value, off_value, axis, dtype):
        """One-hot of an intp array (non-negative, in range) with the class axis at ``axis``; ember
        ``dtype``."""

    @required
    def idx_wrap_negative(self, index, n):
        """``index`` with negative entries shifted up by ``n`` (Python's wrap)."""

    @required
    def idx_reshape(self, a, shape):
        """``idx_reshape``."""

    @required
    def idx_logical_not(self, a):
        """``idx_logical_not``."""

    @required
    def idx_zero_at(self, g, key):
        """A copy of ``g`` with zeros at ``key``."""

    @required
    def idx_add_into_zeros(self, shape, key, g):
        """Zeros of ``shape`` with ``g`` added at ``key`` (repeated positions accumulate)."""

    @required
    def idx_masked(self, g, mask):
        """``g`` where ``mask`` else 0."""

    @required
    def idx_mask_select_grad(self, g, mask, shape):
        """Zeros of ``shape`` with ``g`` at the true positions of ``mask``."""

    @required
    def idx_mul_grad(self, g, x, values, out, key):
        """Gradients of a mul update (``torch.scatter_reduce``'s "prod" rule, zeros included)."""

    @required
    def idx_expand(self, x, axes):
        """``x`` with unit axes inserted at ``axes`` (positions in the result; a view)."""

    @required
    def idx_adv_get(self, x, int_key, axes, key):
        """``x[int_key]`` (basic), unit axes at ``axes``, then ``[key]`` (NumPy's rules)."""

    @required
    def idx_adv_grad(self, g, shape, int_key, axes, key, advanced):
        """The gradient of ``idx_adv_get``: zeros of ``shape`` with ``g`` added back at the key."""

    @required
    def idx_adv_set(self, x, int_key, axes, key, value):
        """A copy of ``x`` with ``value`` (broadcast) written at the key of ``idx_adv_get``."""

    @required
    def idx_adv_zero(self, g, int_key, axes, key):
        """A copy of ``g`` with zeros at the key of ``idx_adv_get``."""
