"""The dropout kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class DropoutKernels:
    @required
    def nn_dropout_apply(self, x, mask, scale):
        """``x * mask * scale`` in ``x``'s dtype."""

    @required
    def nn_embedding(self, weight, idx):
        """Rows ``weight[idx]``: shape ``idx.shape + (D,)`` (a new array)."""

    @required
    def nn_embedding_grad(self, g, idx, num, padding_idx, scale_grad_by_freq=False):
        """The gradient of ``nn_embedding``: the output gradient summed into rows (none to
        ``padding_idx``); with ``scale_grad_by_freq`` each row's sum is divided by how often
        its index occurs in ``idx``."""

    @required
    def nn_embedding_renorm(self, weight, idx, max_norm, norm_type):
        """PyTorch's ``embedding_renorm_`` without the in-place write: a new array equal to ``weight``
        (num, dim) except that each row indexed by ``idx`` whose ``norm_type``-norm exceeds
        ``max_norm`` is scaled by ``max_norm / (norm + 1e-7)``; None when no row changes.
        The norms are computed in float64 (PyTorch: in the weight's dtype, then as a
        double)."""

    @required
    def nn_index_bad(self, idx, size):
        """The first element of the int array ``idx`` outside ``[0, size)`` as a Python int, or None
        when all are in range (also when ``idx`` is empty)."""
