"""PyTorch's resampling modules: ``Upsample``, ``UpsamplingNearest2d``,
``UpsamplingBilinear2d``, ``PixelShuffle``, ``PixelUnshuffle`` and ``ChannelShuffle``, over
ember/ops/resample.py.

>>> import ember
>>> from ember import nn
>>> nn.Upsample(scale_factor=2, mode="bilinear")(ember.ones(1, 3, 4, 5)).shape
(1, 3, 8, 10)
"""

from ..errors import InvalidParameterError
from ..ops import resample as R
from ..ops.nn_args import _int, _real
from .layers import _check_input
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle",
           "PixelUnshuffle", "ChannelShuffle"]


class Upsample(Module):
    """``F.interpolate`` as a module, PyTorch's ``nn.Upsample``.

    >>> from ember import nn
    >>> nn.Upsample(scale_factor=2)
    Upsample(scale_factor=2.0, mode='nearest')
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        name = type(self).__name__
        if mode not in R._MODES:
            raise InvalidParameterError(f"{name}: mode {mode!r} is unknown; expected one of "
                                        f"{sorted(R._MODES)}", "mode", mode)
        if size is not None:
            for s in (size if isinstance(size, (tuple, list)) else (size,)):
                _int(s, name, "size", 1)
        if isinstance(scale_factor, (tuple, list)):
            scale_factor = tuple(_real(f, name, "scale_factor") for f in scale_factor)
        elif scale_factor is not None:
            scale_factor = _real(scale_factor, name, "scale_factor")
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return R.interpolate(_check_input(input, type(self).__name__), self.size,
                             self.scale_factor, self.mode, self.align_corners,
                             self.recompute_scale_factor)

    def extra_repr(self):
        info = (f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None
                else f"size={self.size!r}")
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of (N, C, H, W) inputs, PyTorch's
    ``nn.UpsamplingNearest2d``.

    >>> from ember import nn
    >>> nn.UpsamplingNearest2d(scale_factor=2)
    UpsamplingNearest2d(scale_factor=2.0, mode='nearest')
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling with ``align_corners=True``, PyTorch's ``nn.UpsamplingBilinear2d``.

    >>> from ember import nn
    >>> nn.UpsamplingBilinear2d(size=5)
    UpsamplingBilinear2d(size=5, mode='bilinear')
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """``F.pixel_shuffle`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.PixelShuffle(3)(ember.ones(1, 18, 4, 4)).shape
    (1, 2, 12, 12)
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = _int(upscale_factor, "PixelShuffle", "upscale_factor", 1)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return R.pixel_shuffle(_check_input(input, "PixelShuffle"), self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``F.pixel_unshuffle`` as a module.

    >>> from ember import nn
    >>> nn.PixelUnshuffle(2)
    PixelUnshuffle(downscale_factor=2)
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = _int(downscale_factor, "PixelUnshuffle", "downscale_factor", 1)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return R.pixel_unshuffle(_check_input(input, "PixelUnshuffle"), self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """``F.channel_shuffle`` as a module.

    >>> from ember import nn
    >>> nn.ChannelShuffle(2)
    ChannelShuffle(groups=2)
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = _int(groups, "ChannelShuffle", "groups", 1)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return R.channel_shuffle(_check_input(input, "ChannelShuffle"), self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
