"""The dropout kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


def _work(xp, a):
    """``a`` in float32 or float64 (others as float32)."""
    return a if a.dtype == xp.float32 or a.dtype == xp.float64 else xp.astype(a, xp.float32)


class DropoutKernels:
    def nn_dropout_apply(self, x, mask, scale):
        """``x * mask * scale`` in ``x``'s dtype."""
        xp = self.xp
        return xp.astype(_work(xp, x) * _work(xp, mask) * scale, x.dtype, copy=False)

    def nn_embedding(self, weight, idx):
        """Rows ``weight[idx]``: shape ``idx.shape + (D,)`` (a new array)."""
        xp = self.xp
        rows = xp.take(weight, xp.reshape(xp.astype(idx, xp.int64, copy=False), (-1,)), axis=0)
        return xp.reshape(rows, tuple(idx.shape) + tuple(weight.shape[1:]))

    def nn_embedding_grad(self, g, idx, num, padding_idx, scale_grad_by_freq=False):
        """The gradient of ``nn_embedding``: the output gradient summed into rows (none to
        ``padding_idx``); with ``scale_grad_by_freq`` each row's sum is divided by how often
        its index occurs in ``idx``."""
        xp = self.xp
        D = g.shape[-1]
        flat = xp.reshape(xp.astype(idx, xp.int64, copy=False), (-1,))
        gw = xp.reshape(_work(xp, g), (flat.shape[0], D))
        out = self.idx_add_into_zeros((num, D), flat, gw)
        if scale_grad_by_freq:
            ones = xp.ones(flat.shape, dtype=out.dtype, device=self.native_device)
            counts = self.idx_add_into_zeros((num,), flat, ones)
            out = out / xp.reshape(xp.maximum(counts, 1.0), (num, 1))
        if padding_idx is not None:
            out = self.nn_zero_row(out, padding_idx)
        return xp.astype(out, g.dtype, copy=False)

    @required
    def nn_embedding_renorm(self, weight, idx, max_norm, norm_type):
        """PyTorch's ``embedding_renorm_`` without the in-place write: a new array equal to ``weight``
        (num, dim) except that each row indexed by ``idx`` whose ``norm_type``-norm exceeds
        ``max_norm`` is scaled by ``max_norm / (norm + 1e-7)``; None when no row changes.
        The norms are computed in float64 (PyTorch: in the weight's dtype, then as a
        double)."""

    def nn_index_bad(self, idx, size):
        """The first element of the int array ``idx`` outside ``[0, size)`` as a Python int, or None
        when all are in range (also when ``idx`` is empty)."""
        return self.nn_target_bad(idx, size, None)
