"""PyTorch's other convolution modules: ``Conv1d``, ``ConvTranspose1d``, ``ConvTranspose2d``,
``Unfold`` and ``Fold``, over ember/ops/conv_more.py, with PyTorch's arguments, weight shapes,
initialization (Kaiming-uniform with ``a=sqrt(5)``, bias uniform in ``±1/sqrt(fan_in)``) and
repr.

>>> import ember
>>> from ember import nn
>>> up = nn.ConvTranspose2d(8, 4, 4, stride=2, padding=1)
>>> up
ConvTranspose2d(8, 4, kernel_size=(4, 4), stride=(2, 2), padding=(1, 1))
>>> up(ember.ones(1, 8, 5, 5)).shape
(1, 4, 10, 10)
"""

import math

from ..devices import as_device
from ..errors import InvalidParameterError
from ..ops import conv_more as C
from ..ops import volumetric as V
from ..ops.nn_args import _int, _pair
from . import init
from .layers import _bool, _check_input, _float_dtype
from .module import Module

__all__ = ["Conv1d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Unfold",
           "Fold"]

_MODES = ("zeros", "reflect", "replicate", "circular")


def _tuple(value, nd, layer, param, low):
    if nd == 3:
        return V._triple(value, layer, param, low)
    if nd == 2:
        return _pair(value, layer, param, low)
    return (C._single(value, layer, param, low),)


class _ConvNd(Module):
    _nd = 1
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None,
                 output_padding=0):
        super().__init__()
        name, nd = type(self).__name__, self._nd
        self.in_channels = _int(in_channels, name, "in_channels", 1)
        self.out_channels = _int(out_channels, name, "out_channels", 1)
        self.kernel_size = _tuple(kernel_size, nd, name, "kernel_size", 1)
        self.stride = _tuple(stride, nd, name, "stride", 1)
        self.dilation = _tuple(dilation, nd, name, "dilation", 1)
        self.groups = _int(groups, name, "groups", 1)
        self.output_padding = _tuple(output_padding, nd, name, "output_padding", 0)
        if isinstance(padding, str) and not self._transposed:
            if padding not in ("same", "valid"):
                raise InvalidParameterError(
                    f"{name}: padding {padding!r} is unknown; expected an int, a tuple, 'same' "
                    "or 'valid'", "padding", padding)
            if padding == "same" and any(s != 1 for s in self.stride):
                raise InvalidParameterError(
                    f"{name}: padding='same' needs stride 1, got stride={self.stride}",
                    "padding", padding)
            self.padding = padding
        else:
            self.padding = _tuple(padding, nd, name, "padding", 0)
        if padding_mode not in _MODES:
            raise InvalidParameterError(
                f"{name}: padding_mode {padding_mode!r} is unknown; expected one of {_MODES}",
                "padding_mode", padding_mode)
        if self._transposed and padding_mode != "zeros":
            raise InvalidParameterError(
                f"{name}: only padding_mode 'zeros' is supported for a transposed convolution, "
                f"got {padding_mode!r}", "padding_mode", padding_mode)
        self.padding_mode = padding_mode
        for param, n in (("in_channels", self.in_channels), ("out_channels", self.out_channels)):
            if n % self.groups:
                raise InvalidParameterError(
                    f"{name}: {param}={n} is not divisible by groups={self.groups}", "groups",
                    self.groups)
        _bool(bias, name, "bias")
        dt = _float_dtype(dtype, name)
        dev = as_device(device, name)
        if self._transposed:
            shape = (self.in_channels, self.out_channels // self.groups) + self.kernel_size
        else:
            shape = (self.out_channels, self.in_channels // self.groups) + self.kernel_size
        self.weight = init.kaiming_uniform(shape, a=math.sqrt(5), dtype=dt, device=dev)
        if bias:
            fan_in = shape[1] * math.prod(self.kernel_size)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            self.bias = init.uniform((self.out_channels,), -bound, bound, dtype=dt, device=dev)
        else:
            self.bias = None

    def extra_repr(self):
        nd = self._nd
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over (N, C, L) or (C, L) inputs, PyTorch's ``nn.Conv1d``: ``weight``
    (out, in/groups, k); ``padding`` an int, ``"same"`` or ``"valid"``; ``padding_mode``
    "zeros", "reflect", "replicate" or "circular".

    >>> import ember
    >>> from ember import nn
    >>> conv = nn.Conv1d(2, 4, 3, padding=1)
    >>> conv
    Conv1d(2, 4, kernel_size=(3,), stride=(1,), padding=(1,))
    >>> conv(ember.ones(5, 2, 7)).shape
    (5, 4, 7)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        p = self.padding if isinstance(self.padding, str) else self.padding[0]
        return C._conv1d("Conv1d", _check_input(input, "Conv1d"), self.weight, self.bias,
                         self.stride, p, self.dilation, self.groups, self.padding_mode)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C, D, H, W) or (C, D, H, W) inputs, PyTorch's ``nn.Conv3d``:
    ``weight`` (out, in/groups, kd, kh, kw); ``padding`` an int, a triple, ``"same"`` or
    ``"valid"``; every ``padding_mode``.

    >>> import ember
    >>> from ember import nn
    >>> conv = nn.Conv3d(2, 4, 3)
    >>> conv
    Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1))
    >>> conv(ember.ones(1, 2, 5, 5, 5)).shape
    (1, 4, 3, 3, 3)
    """

    _nd = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return V._conv3d("Conv3d", _check_input(input, "Conv3d"), self.weight, self.bias,
                         self.stride, self.padding, self.dilation, self.groups,
                         self.padding_mode)


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size):
        """PyTorch's rule: the output_padding that gives ``output_size`` (its last dims)."""
        name, nd = type(self).__name__, self._nd
        if output_size is None:
            return self.output_padding
        size = tuple(_int(s, name, "output_size", 0) for s in output_size)
        if len(size) == nd + 2 or (len(size) == nd + 1 and input.ndim == nd + 1):
            size = size[-nd:]
        if len(size) != nd:
            raise InvalidParameterError(
                f"{name}: output_size {tuple(output_size)} must have {nd} or {nd + 2} entries",
                "output_size", output_size)
        pad = []
        for a in range(nd):
            lo = ((input.shape[-nd + a] - 1) * self.stride[a] - 2 * self.padding[a]
                  + self.dilation[a] * (self.kernel_size[a] - 1) + 1)
            hi = lo + self.stride[a] - 1
            if not lo <= size[a] <= hi:
                raise InvalidParameterError(
                    f"{name}: requested an output size of {size}, but valid sizes range from "
                    f"{lo} to {hi} (for an input of {tuple(input.shape[-nd:])})",
                    "output_size", output_size)
            pad.append(size[a] - lo)
        return tuple(pad)

    def forward(self, input, output_size=None):
        """Apply the layer to ``input``; ``output_size`` picks the output padding."""
        name = type(self).__name__
        x = _check_input(input, name)
        op = self._output_padding(x, output_size)
        fn = {1: C.conv_transpose1d, 2: C.conv_transpose2d, 3: V.conv_transpose3d}[self._nd]
        return fn(x, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                  self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution, PyTorch's ``nn.ConvTranspose1d``: ``weight``
    (in, out/groups, k).

    >>> import ember
    >>> from ember import nn
    >>> nn.ConvTranspose1d(4, 2, 3, stride=2)(ember.ones(1, 4, 5)).shape
    (1, 2, 11)
    """

    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution, PyTorch's ``nn.ConvTranspose2d``: ``weight``
    (in, out/groups, kh, kw); ``forward(input, output_size=None)``.

    >>> import ember
    >>> from ember import nn
    >>> nn.ConvTranspose2d(4, 2, 3, stride=2)(ember.ones(1, 4, 5, 5), output_size=(12, 12)).shape
    (1, 2, 12, 12)
    """

    _nd = 2


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution, PyTorch's ``nn.ConvTranspose3d``: ``weight``
    (in, out/groups, kd, kh, kw).

    >>> import ember
    >>> from ember import nn
    >>> nn.ConvTranspose3d(4, 2, 2, stride=2)(ember.ones(1, 4, 2, 3, 3)).shape
    (1, 2, 4, 6, 6)
    """

    _nd = 3


class Unfold(Module):
    """``F.unfold`` as a module.

    >>> from ember import nn
    >>> nn.Unfold(3)
    Unfold(kernel_size=3, dilation=1, padding=0, stride=1)
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        for param, v, low in (("kernel_size", kernel_size, 1), ("dilation", dilation, 1),
                              ("padding", padding, 0), ("stride", stride, 1)):
            _pair(tuple(v) if isinstance(v, list) else v, "Unfold", param, low)
        self.kernel_size, self.dilation, self.padding, self.stride = (kernel_size, dilation,
                                                                      padding, stride)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return C.unfold(_check_input(input, "Unfold"), self.kernel_size, self.dilation,
                        self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """``F.fold`` as a module.

    >>> from ember import nn
    >>> nn.Fold((4, 5), 2)
    Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        for param, v, low in (("output_size", output_size, 1), ("kernel_size", kernel_size, 1),
                              ("dilation", dilation, 1), ("padding", padding, 0),
                              ("stride", stride, 1)):
            _pair(tuple(v) if isinstance(v, list) else v, "Fold", param, low)
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return C.fold(_check_input(input, "Fold"), self.output_size, self.kernel_size,
                      self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")
