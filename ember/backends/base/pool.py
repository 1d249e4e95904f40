"""The pool kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class PoolKernels:
    @required
    def nn_max_pool2d(self, x, kernel, stride, pads, dilation, out_hw):
        """Max pooling of ``x`` (N, C, H, W) or (C, H, W); padding counts as -inf. Returns (out,
        saved)."""

    @required
    def nn_max_pool2d_grad(self, g, saved):
        """The gradient of ``nn_max_pool2d``: each window's gradient goes to the element PyTorch's CPU
        kernel selects (see ``_max_pool_hits``: the first max among the taps inside the
        input, the last NaN when the window has one), found by comparing the slabs with the
        output."""

    @required
    def nn_max_pool2d_indices(self, saved):
        """PyTorch's ``return_indices`` of ``nn_max_pool2d``: the flat index (into each H*W input
        plane, int64) of the element each window selects (``_max_pool_hits``). A window with
        no tap inside the input gets PyTorch's start index (its first row and column at or
        past 0, which lies outside the plane)."""

    @required
    def nn_max_unpool2d(self, x, idx, out_hw):
        """PyTorch's ``max_unpool2d``: zeros of (N, C) + ``out_hw`` (or (C,) + ``out_hw``) with each
        value of ``x`` written at its flat plane index in ``idx`` (same shape as ``x``);
        where indices repeat, the last value in row-major order wins (PyTorch leaves it
        unspecified)."""

    @required
    def nn_max_unpool2d_grad(self, g, idx):
        """The gradient of ``nn_max_unpool2d``: ``g`` read at each index (a gather per plane, as
        PyTorch's, also where indices repeat)."""

    @required
    def nn_avg_pool2d(self, x, kernel, stride, pads, padding, out_hw, count_include_pad, divisor_override):
        """Average pooling of ``x`` (N, C, H, W) or (C, H, W) with PyTorch's divisors. Returns (out,
        saved)."""

    @required
    def nn_avg_pool2d_grad(self, g, saved):
        """The gradient of ``nn_avg_pool2d``: each window's gradient, divided, spread over it."""
