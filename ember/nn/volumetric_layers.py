"""PyTorch's 3-D pooling and normalization modules and the 1-D/3-D max unpools
(MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, LPPool3d, MaxUnpool1d, MaxUnpool3d, BatchNorm3d), and
the deprecated NLLLoss2d and Container, with PyTorch's arguments and repr.

>>> import ember
>>> from ember import nn
>>> nn.MaxPool3d(2)(ember.ones(1, 2, 4, 4, 4)).shape
(1, 2, 2, 2, 2)
"""

from ..errors import InvalidParameterError
from ..ops import fractional as FR
from ..ops import volumetric as V
from ..ops.conv_more import _single
from ..ops.nn_args import _int
from .layers import _BatchNorm, _bool, _check_input
from .losses import NLLLoss
from .module import Module
from .pooling import _Adaptive, _AdaptiveMax, _LPPool

__all__ = ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d", "MaxUnpool1d",
           "MaxUnpool3d", "BatchNorm3d", "NLLLoss2d", "Container", "FractionalMaxPool2d",
           "FractionalMaxPool3d"]


class MaxPool3d(Module):
    """``F.max_pool3d`` as a module (``return_indices=True``: ``(output, indices)``).

    >>> from ember import nn
    >>> nn.MaxPool3d(2)
    MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        name = "MaxPool3d"
        for param, v, low in (("kernel_size", kernel_size, 1), ("padding", padding, 0),
                              ("dilation", dilation, 1)):
            V._triple(v, name, param, low)
        if stride is not None:
            V._triple(stride, name, "stride", 1)
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices = _bool(return_indices, name, "return_indices")
        self.ceil_mode = _bool(ceil_mode, name, "ceil_mode")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return V.max_pool3d(_check_input(input, "MaxPool3d"), self.kernel_size, self.stride,
                            self.padding, self.dilation, self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool3d(Module):
    """``F.avg_pool3d`` as a module.

    >>> from ember import nn
    >>> nn.AvgPool3d(2, 1, 1)
    AvgPool3d(kernel_size=2, stride=1, padding=1)
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        name = "AvgPool3d"
        k = V._triple(kernel_size, name, "kernel_size", 1)
        if stride is not None:
            V._triple(stride, name, "stride", 1)
        if any(p > kk // 2 for p, kk in zip(V._triple(padding, name, "padding", 0), k)):
            raise InvalidParameterError(f"{name}: padding {padding!r} is more than half of "
                                        f"kernel_size {kernel_size!r}", "padding", padding)
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding = padding
        self.ceil_mode = _bool(ceil_mode, name, "ceil_mode")
        self.count_include_pad = _bool(count_include_pad, name, "count_include_pad")
        if divisor_override is not None:
            _int(divisor_override, name, "divisor_override", 1)
        self.divisor_override = divisor_override

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return V.avg_pool3d(_check_input(input, "AvgPool3d"), self.kernel_size, self.stride,
                            self.padding, self.ceil_mode, self.count_include_pad,
                            self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool3d(_Adaptive):
    """``F.adaptive_avg_pool3d`` as a module.

    >>> from ember import nn
    >>> nn.AdaptiveAvgPool3d(1)
    AdaptiveAvgPool3d(output_size=1)
    """

    _nd = 3
    _fn = staticmethod(V.adaptive_avg_pool3d)


class AdaptiveMaxPool3d(_AdaptiveMax):
    """``F.adaptive_max_pool3d`` as a module.

    >>> from ember import nn
    >>> nn.AdaptiveMaxPool3d((1, 2, 2))
    AdaptiveMaxPool3d(output_size=(1, 2, 2))
    """

    _nd = 3
    _fn = staticmethod(V.adaptive_max_pool3d)


class LPPool3d(_LPPool):
    """``F.lp_pool3d`` as a module.

    >>> from ember import nn
    >>> nn.LPPool3d(2, 2)
    LPPool3d(norm_type=2, kernel_size=2, stride=None, ceil_mode=False)
    """

    _nd = 3

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return V.lp_pool3d(_check_input(input, "LPPool3d"), self.norm_type, self.kernel_size,
                           self.stride, self.ceil_mode)


class MaxUnpool1d(Module):
    """``F.max_unpool1d`` as a module: ``forward(input, indices, output_size=None)``.

    >>> from ember import nn
    >>> nn.MaxUnpool1d(2)
    MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        name = "MaxUnpool1d"
        self.kernel_size = (_single(kernel_size, name, "kernel_size", 1),)
        self.stride = self.kernel_size if stride is None else (_single(stride, name, "stride",
                                                                       1),)
        self.padding = (_single(padding, name, "padding", 0),)

    def forward(self, input, indices, output_size=None):
        """Unpool ``input`` to the positions ``indices`` (see the class docstring)."""
        return V.max_unpool1d(_check_input(input, "MaxUnpool1d"), indices, self.kernel_size,
                              self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool3d(MaxUnpool1d):
    """``F.max_unpool3d`` as a module.

    >>> from ember import nn
    >>> nn.MaxUnpool3d(2)
    MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))
    """

    def __init__(self, kernel_size, stride=None, padding=0):
        Module.__init__(self)
        name = "MaxUnpool3d"
        self.kernel_size = V._triple(kernel_size, name, "kernel_size", 1)
        self.stride = self.kernel_size if stride is None else V._triple(stride, name, "stride",
                                                                        1)
        self.padding = V._triple(padding, name, "padding", 0)

    def forward(self, input, indices, output_size=None):
        """Unpool ``input`` to the positions ``indices`` (see the class docstring)."""
        return V.max_unpool3d(_check_input(input, "MaxUnpool3d"), indices, self.kernel_size,
                              self.stride, self.padding, output_size)


class BatchNorm3d(_BatchNorm):
    """Batch normalization of (N, C, D, H, W) inputs, PyTorch's ``nn.BatchNorm3d`` (see
    ``BatchNorm1d``).

    >>> import ember
    >>> from ember import nn
    >>> nn.BatchNorm3d(2)(ember.randn(2, 2, 3, 3, 3)).shape
    (2, 2, 3, 3, 3)
    """

    _ranks = (5,)
    _shape_text = "(N, {C}, D, H, W)"


class NLLLoss2d(NLLLoss):
    """PyTorch's deprecated ``nn.NLLLoss2d``: ``NLLLoss`` (which takes (N, C, H, W) inputs).

    >>> from ember import nn
    >>> nn.NLLLoss2d()
    NLLLoss2d()
    """


class Container(Module):
    """PyTorch's deprecated ``nn.Container``: a Module whose keyword arguments become its
    submodules.

    >>> from ember import nn
    >>> list(nn.Container(act=nn.ReLU()).named_children())[0][0]
    'act'
    """

    def __init__(self, **kwargs):
        super().__init__()
        for key, value in kwargs.items():
            setattr(self, key, value)


class FractionalMaxPool2d(Module):
    """``F.fractional_max_pool2d`` as a module; ``_random_samples`` (a buffer) fixes the
    windows, else each call draws them from ember's generator.

    >>> import ember
    >>> from ember import nn
    >>> nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.5))(ember.ones(1, 1, 6, 6)).shape
    (1, 1, 3, 3)
    """

    _fn = staticmethod(FR.fractional_max_pool2d)

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        name = type(self).__name__
        if (output_size is None) == (output_ratio is None):
            raise InvalidParameterError(f"{name}: give exactly one of output_size and "
                                        "output_ratio", "output_size", output_size)
        self.kernel_size, self.output_size = kernel_size, output_size
        if output_ratio is not None and not isinstance(output_ratio, (tuple, list)):
            output_ratio = (output_ratio,) * (3 if "3d" in name else 2)
        self.output_ratio = output_ratio
        self.return_indices = _bool(return_indices, name, "return_indices")
        self.register_buffer("_random_samples", _random_samples)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return type(self)._fn(_check_input(input, type(self).__name__), self.kernel_size,
                              self.output_size, self.output_ratio, self.return_indices,
                              self._random_samples)


class FractionalMaxPool3d(FractionalMaxPool2d):
    """``F.fractional_max_pool3d`` as a module.

    >>> import ember
    >>> from ember import nn
    >>> nn.FractionalMaxPool3d(2, output_size=2)(ember.ones(1, 4, 4, 4)).shape
    (1, 2, 2, 2)
    """

    _fn = staticmethod(FR.fractional_max_pool3d)
