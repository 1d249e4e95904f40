"""The conv kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class ConvKernels:
    @required
    def nn_conv2d(self, x, w, b, stride, pads, dilation, groups, out_hw, dtype):
        """2-D cross-correlation of ``x`` (N, C, H, W) with ``w`` (O, C/groups, kh, kw), plus ``b``."""

    @required
    def nn_conv2d_grads(self, g, saved, need_x, need_w, need_b, x_dtype, w_dtype, b_dtype):
        """Gradients of ``nn_conv2d``: (gx, gw, gb), each in its input's dtype or None."""

    @required
    def nn_conv2d_saved(self, x, w, stride, pads, dilation, groups, out_hw, dtype, need_w):
        """What ``nn_conv2d_grads`` needs of a convolution, without computing it: for a backward that
        kept only the inputs (the columns only when the weight's gradient is wanted)."""
