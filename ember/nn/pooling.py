"""PyTorch's other pooling modules: MaxPool1d, AvgPool1d, AdaptiveAvgPool1d/2d,
AdaptiveMaxPool1d/2d and LPPool1d/2d, over ember/ops/pool_more.py, with PyTorch's arguments
and repr.

>>> import ember
>>> from ember import nn
>>> nn.AdaptiveAvgPool2d((1, 1))(ember.ones(2, 8, 5, 7)).shape
(2, 8, 1, 1)
"""

from ..errors import InvalidParameterError
from ..ops import pool_more as P
from ..ops.conv_more import _single
from ..ops.volumetric import _triple
from ..ops.nn_args import _int, _pair, _real
from .layers import _bool, _check_input
from .module import Module

__all__ = ["MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d"]


class MaxPool1d(Module):
    """``F.max_pool1d`` as a module (``return_indices=True``: ``(output, indices)``).

    >>> import ember
    >>> from ember import nn
    >>> nn.MaxPool1d(2)
    MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    >>> nn.MaxPool1d(2)(ember.tensor([[1.0, 3.0, 2.0, 5.0]])).tolist()
    [[3.0, 5.0]]
    """

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        name = "MaxPool1d"
        k = _single(kernel_size, name, "kernel_size", 1)
        if stride is not None:
            _single(stride, name, "stride", 1)
        if _single(padding, name, "padding", 0) > k // 2:
            raise InvalidParameterError(f"{name}: padding {padding!r} is more than half of "
                                        f"kernel_size {kernel_size!r}", "padding", padding)
        _single(dilation, name, "dilation", 1)
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices = _bool(return_indices, name, "return_indices")
        self.ceil_mode = _bool(ceil_mode, name, "ceil_mode")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return P.max_pool1d(_check_input(input, "MaxPool1d"), self.kernel_size, self.stride,
                            self.padding, self.dilation, self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool1d(Module):
    """``F.avg_pool1d`` as a module.

    >>> from ember import nn
    >>> nn.AvgPool1d(3, 2)
    AvgPool1d(kernel_size=(3,), stride=(2,), padding=(0,))
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        name = "AvgPool1d"
        self.kernel_size = (_single(kernel_size, name, "kernel_size", 1),)
        self.stride = self.kernel_size if stride is None or stride == () else \
            (_single(stride, name, "stride", 1),)
        self.padding = (_single(padding, name, "padding", 0),)
        if self.padding[0] > self.kernel_size[0] // 2:
            raise InvalidParameterError(f"{name}: padding {padding!r} is more than half of "
                                        f"kernel_size {kernel_size!r}", "padding", padding)
        self.ceil_mode = _bool(ceil_mode, name, "ceil_mode")
        self.count_include_pad = _bool(count_include_pad, name, "count_include_pad")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return P.avg_pool1d(_check_input(input, "AvgPool1d"), self.kernel_size, self.stride,
                            self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _check_size(output_size, nd, name):
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * nd
    if len(sizes) != nd:
        raise InvalidParameterError(f"{name}: output_size {output_size!r} must be an int or "
                                    f"{nd} ints (or None)", "output_size", output_size)
    for s in sizes:
        if s is not None:
            _int(s, name, "output_size", 0)
    return output_size


class _Adaptive(Module):
    _nd = 1
    _fn = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = _check_size(output_size, self._nd, type(self).__name__)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return type(self)._fn(_check_input(input, type(self).__name__), self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    """``F.adaptive_avg_pool1d`` as a module.

    >>> from ember import nn
    >>> nn.AdaptiveAvgPool1d(4)
    AdaptiveAvgPool1d(output_size=4)
    """

    _fn = staticmethod(P.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_Adaptive):
    """``F.adaptive_avg_pool2d`` as a module.

    >>> from ember import nn
    >>> nn.AdaptiveAvgPool2d((None, 7))
    AdaptiveAvgPool2d(output_size=(None, 7))
    """

    _nd = 2
    _fn = staticmethod(P.adaptive_avg_pool2d)


class _AdaptiveMax(_Adaptive):
    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = _bool(return_indices, type(self).__name__, "return_indices")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return type(self)._fn(_check_input(input, type(self).__name__), self.output_size,
                              self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMax):
    """``F.adaptive_max_pool1d`` as a module.

    >>> from ember import nn
    >>> nn.AdaptiveMaxPool1d(3)
    AdaptiveMaxPool1d(output_size=3)
    """

    _fn = staticmethod(P.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMax):
    """``F.adaptive_max_pool2d`` as a module.

    >>> from ember import nn
    >>> nn.AdaptiveMaxPool2d(2, return_indices=True)
    AdaptiveMaxPool2d(output_size=2)
    """

    _nd = 2
    _fn = staticmethod(P.adaptive_max_pool2d)


class _LPPool(Module):
    _nd = 1

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        name = type(self).__name__
        _real(norm_type, name, "norm_type")
        check = {1: lambda v, p: _single(v, name, p, 1), 2: lambda v, p: _pair(v, name, p, 1),
                 3: lambda v, p: _triple(v, name, p, 1)}[self._nd]
        check(kernel_size, "kernel_size")
        if stride is not None:
            check(stride, "stride")
        self.norm_type, self.kernel_size, self.stride = norm_type, kernel_size, stride
        self.ceil_mode = _bool(ceil_mode, name, "ceil_mode")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        fn = P.lp_pool1d if self._nd == 1 else P.lp_pool2d
        return fn(_check_input(input, type(self).__name__), self.norm_type, self.kernel_size,
                  self.stride, self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPool):
    """``F.lp_pool1d`` as a module.

    >>> from ember import nn
    >>> nn.LPPool1d(2, 3)
    LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """


class LPPool2d(_LPPool):
    """``F.lp_pool2d`` as a module.

    >>> from ember import nn
    >>> nn.LPPool2d(1.5, (2, 3), stride=1)
    LPPool2d(norm_type=1.5, kernel_size=(2, 3), stride=1, ceil_mode=False)
    """

    _nd = 2
