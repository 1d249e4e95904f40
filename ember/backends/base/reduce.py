"""The reduce kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class ReduceKernels:
    @required
    def reduce_sum(self, a, axes, keepdims, dtype):
        """Sum over ``axes`` (a tuple); ints and bools accumulate in int64; the result has ember
        ``dtype``. A float32/float64 sum over every axis, the leading or the trailing axes
        of a large contiguous array runs compiled (accumulating in float64)."""

    @required
    def reduce_prod(self, a, axes, keepdims, dtype):
        """Product over ``axes``; ints and bools accumulate in int64; result in ember ``dtype``."""

    @required
    def reduce_mean(self, a, axes, keepdims):
        """Float mean over ``axes``; nan where nothing is reduced."""

    @required
    def reduce_mean_int(self, a, axes, keepdims):
        """Integer mean over ``axes``: the floor of the exact mean, in ``a``'s dtype (count > 0)."""

    @required
    def reduce_max(self, a, axes, keepdims):
        """Maximum over ``axes`` (NaN propagates)."""

    @required
    def reduce_min(self, a, axes, keepdims):
        """Minimum over ``axes`` (NaN propagates)."""

    @required
    def reduce_abs(self, a):
        """Elementwise absolute value (the reduce family's own, for max_abs)."""

    @required
    def reduce_argmax(self, a, axis, keepdims):
        """Index of the maximum along ``axis`` (None: flat); NaN wins; lowest index on ties."""

    @required
    def reduce_argmin(self, a, axis, keepdims):
        """Index of the minimum along ``axis`` (None: flat); NaN wins; lowest index on ties."""

    @required
    def reduce_index_grad(self, g, idx, shape, axis):
        """Zeros of ``shape`` with ``g`` put at ``idx`` along ``axis`` (both with ``axis`` kept)."""

    @required
    def reduce_select_grad(self, g, a, axes, keepdims, kind):
        """Gradient of a max/min over ``axes``: all of ``g`` to the first extreme position of each
        slice (row-major over ``axes``; NaN wins). ``kind``: "max", "min" or "absmax" (max
        of |a|, times the sign of ``a``)."""

    @required
    def reduce_even_grad(self, g, a, value, kind):
        """Gradient of a whole-tensor max/min/median: ``g`` shared evenly among the elements equal to
        ``value`` (NaN elements when ``value`` is NaN), as PyTorch. ``kind`` "absmax"
        compares |a| and multiplies by the sign of ``a``."""

    @required
    def reduce_any(self, a, axes, keepdims):
        """Whether any element over ``axes`` is nonzero (NaN counts as nonzero)."""

    @required
    def reduce_all(self, a, axes, keepdims):
        """Whether every element over ``axes`` is nonzero (NaN counts as nonzero)."""

    @required
    def reduce_count_nonzero(self, a, axes):
        """The number of nonzero elements over ``axes``, int64, the dims removed."""

    @required
    def reduce_var_mean(self, a, axes, correction, keepdims):
        """(variance, mean) over ``axes``; the variance divides by max(n - correction, 0)."""

    @required
    def reduce_var_grad(self, g, a, mean, axes, correction, keepdims):
        """Gradient of the variance: 2 (a - mean) / (n - correction) times ``g``."""

    @required
    def reduce_median(self, a, axis):
        """(lower median, index) along ``axis``, the dim kept; a slice holding NaN gives NaN and the
        index of its first NaN, as PyTorch. The slice must be non-empty."""

    @required
    def reduce_nan_like(self, shape, dtype):
        """An array of ``shape`` filled with NaN in ember float dtype ``dtype``."""

    @required
    def reduce_argtopk(self, a, k, axis):
        """Indices of the ``k`` largest elements along ``axis``, largest first; NaN counts as the
        largest; equal elements in ascending index order."""

    @required
    def reduce_cov(self, a, axis, correction):
        """Covariance matrices (batch..., V, V) of an array whose observations lie along ``axis``."""

    @required
    def reduce_reshape(self, a, shape):
        """``a`` with a new shape of the same size (a view where the layout allows)."""

    @required
    def reduce_prod_grad(self, g, a, out, axes, keepdims):
        """Gradient of a product over ``axes``, exact with zeros (as PyTorch): g * out / a where a
        slice has no zero; the product of the others at a slice's only zero; 0 elsewhere."""

    @required
    def reduce_zeros(self, shape, dtype):
        """Zeros of ``shape`` and ember ``dtype``."""
