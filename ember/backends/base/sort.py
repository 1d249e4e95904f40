"""The sort kernels, written once against ``self.xp`` (see ember/backends/base/__init__.py).

Every sort here is stable; NaN sorts as the largest value, and a descending sort keeps equal
elements in their original order, as ``torch.sort(stable=True)``: the reversed array sorted
ascending, reversed back.
"""


class SortKernels:
    def sort_argsort(self, x, axis, descending=False):
        """Stable argsort of ``x`` along ``axis`` (int64 indices); ``x`` has at least one dim."""
        xp = self.xp
        if not descending:
            return xp.astype(xp.argsort(x, axis=axis, stable=True), xp.int64)
        idx = xp.argsort(xp.flip(x, axis=axis), axis=axis, stable=True)
        return xp.astype((x.shape[axis] - 1) - xp.flip(idx, axis=axis), xp.int64)

    def sort_values(self, x, axis, descending=False):
        """The values of the stable sort of ``x`` along ``axis`` (no indices)."""
        return self.sort_take(x, self.sort_argsort(x, axis, descending), axis)

    def sort_topk(self, x, k, axis, largest=True):
        """Indices of the ``k`` largest (smallest) elements along ``axis``, best first, ties to the
        lower index: the first ``k`` of the stable sort, found by partition when ``k`` is
        small."""
        return self.sort_first(self.sort_argsort(x, axis, largest), k, axis)

    def sort_take(self, x, idx, axis):
        """The elements of ``x`` at ``idx`` along ``axis`` (``numpy.take_along_axis``)."""
        return self.xp.take_along_axis(x, idx, axis=axis)

    def sort_first(self, idx, k, axis):
        """The first ``k`` entries of ``idx`` along ``axis`` (a view)."""
        return idx[(slice(None),) * (axis % idx.ndim) + (slice(0, k), Ellipsis)]

    def sort_scatter_grad(self, g, idx, axis, shape):
        """Zeros of ``shape`` with ``g`` put at ``idx`` along ``axis`` (indices distinct per line)."""
        zeros = self.xp.zeros(shape, dtype=g.dtype, device=self.native_device)
        return self.idx_update(zeros, self.idx_along_key(idx, axis), g, "assign")

    def sort_reshape(self, x, shape):
        """``x`` reshaped (a view where the layout allows)."""
        return self.xp.reshape(x, shape)
