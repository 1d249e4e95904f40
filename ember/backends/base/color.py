"""The color kernels every backend provides (declared here; see ember/backends/base/__init__.py)."""

from .declare import required


class ColorKernels:
    @required
    def color_rgb2gray(self, x):
        """(N, 3, H, W) -> (N, 1, H, W): 0.299 R + 0.587 G + 0.114 B, in ``x``'s dtype."""

    @required
    def color_rgb2gray_grad(self, g):
        """The gradient of ``color_rgb2gray`` for the output gradient ``g`` (N, 1, H, W)."""

    @required
    def color_gray2rgb(self, x):
        """(N, 1, H, W) -> (N, 3, H, W): the channel repeated three times (a new buffer)."""

    @required
    def color_gray2rgb_grad(self, g):
        """The gradient of ``color_gray2rgb``: the sum over the three channels, (N, 1, H, W)."""

    @required
    def color_rgb2hsv(self, x):
        """(N, 3, H, W) RGB -> (N, 3, H, W) HSV, OpenCV's float formulas."""

    @required
    def color_hsv2rgb(self, x):
        """(N, 3, H, W) HSV -> (N, 3, H, W) RGB, OpenCV's six sectors written as one formula."""
