"""The sampling kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class SamplingKernels:
    @required
    def grid_sample_2d_forward(self, x, grid, mode, padding_mode, align_corners, dtype):
        """Sample ``x`` (N, C, H, W) at ``grid`` (N, Ho, Wo, 2) as PyTorch's ``grid_sample``; the
        result (N, C, Ho, Wo) has ember dtype ``dtype``."""

    @required
    def grid_sample_2d_grads(self, g, x, grid, mode, padding_mode, align_corners, dtype, need_x, need_grid, x_dtype, grid_dtype):
        """The gradients (of ``x`` or None, of ``grid`` or None) of ``grid_sample_2d_forward`` for the
        output gradient ``g`` (N, C, Ho, Wo), computed for result dtype ``dtype`` and
        returned in ember dtypes ``x_dtype`` and ``grid_dtype``. Nearest sampling gives a
        zero gradient to the grid, as PyTorch."""
