"""PyTorch's other normalization modules: GroupNorm, InstanceNorm1d/2d/3d, RMSNorm and
LocalResponseNorm, over ember/ops/norms_more.py, with PyTorch's arguments, parameters,
buffers (state-dict keys) and repr.

>>> import ember
>>> from ember import nn
>>> gn = nn.GroupNorm(2, 4)
>>> gn, gn(ember.randn(3, 4, 5)).shape
(GroupNorm(2, 4, eps=1e-05, affine=True, bias=True), (3, 4, 5))
"""

from ..devices import as_device
from ..errors import InvalidParameterError, ShapeMismatchError
from ..ops import norms_more as N
from ..ops.nn_args import _int, _real, _shape_str
from . import init
from .layers import _BatchNorm, _bool, _check_input, _float_dtype, _positive_real
from .module import Module

__all__ = ["GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "RMSNorm",
           "LocalResponseNorm"]


class GroupNorm(Module):
    """``F.group_norm`` with a learnt per-channel ``weight`` (ones) and ``bias`` (zeros) when
    ``affine``, PyTorch's ``nn.GroupNorm``.

    >>> from ember import nn
    >>> nn.GroupNorm(1, 3, affine=False)
    GroupNorm(1, 3, eps=1e-05, affine=False, bias=False)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        name = "GroupNorm"
        self.num_groups = _int(num_groups, name, "num_groups", 1)
        self.num_channels = _int(num_channels, name, "num_channels", 0)
        if self.num_channels % self.num_groups:
            raise InvalidParameterError(
                f"{name}: num_channels {num_channels} must be divisible by num_groups "
                f"{num_groups}", "num_groups", num_groups)
        self.eps = _positive_real(eps, name, "eps")
        self.affine = _bool(affine, name, "affine")
        _bool(bias, name, "bias")
        dt, dev = _float_dtype(dtype, name), as_device(device, name)
        c = self.num_channels
        self.weight = init.ones((c,), dtype=dt, device=dev) if affine else None
        self.bias = init.zeros((c,), dtype=dt, device=dev) if affine and bias else None

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        x = _check_input(input, "GroupNorm")
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise ShapeMismatchError(
                f"GroupNorm: input has shape {_shape_str(x.shape)}; expected (N, "
                f"{self.num_channels}, *)", expected=self.num_channels, actual=tuple(x.shape))
        return N.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


class _InstanceNorm(_BatchNorm):
    _nd = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        name, nd = type(self).__name__, self._nd
        x = _check_input(input, name)
        if x.ndim not in (nd + 1, nd + 2):
            raise ShapeMismatchError(
                f"{name}: input has shape {_shape_str(x.shape)}; expected {nd + 1}-d "
                f"(C, *) or {nd + 2}-d (N, C, *)", expected=(nd + 1, nd + 2),
                actual=tuple(x.shape))
        unbatched = x.ndim == nd + 1
        if unbatched:
            x = x.unsqueeze(0)
        if x.shape[1] != self.num_features and (self.affine or self.track_running_stats):
            raise ShapeMismatchError(
                f"{name}: input has {x.shape[1]} channels (shape {_shape_str(x.shape)}); "
                f"expected {self.num_features}", expected=self.num_features,
                actual=tuple(x.shape))
        use_input = self.training or not self.track_running_stats
        rm, rv = (self.running_mean, self.running_var) if self.track_running_stats else \
            (None, None)
        momentum = 0.0 if self.momentum is None else self.momentum  # PyTorch's choice
        out = N.instance_norm(x, rm, rv, self.weight, self.bias, use_input, momentum,
                              self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or (C, L) inputs, PyTorch's ``nn.InstanceNorm1d``
    (``affine`` and ``track_running_stats`` default to False).

    >>> from ember import nn
    >>> nn.InstanceNorm1d(3)
    InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    """


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or (C, H, W) inputs, PyTorch's
    ``nn.InstanceNorm2d``.

    >>> import ember
    >>> from ember import nn
    >>> nn.InstanceNorm2d(2, affine=True)(ember.randn(1, 2, 3, 3)).shape
    (1, 2, 3, 3)
    """

    _nd = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or (C, D, H, W) inputs, PyTorch's
    ``nn.InstanceNorm3d``.

    >>> import ember
    >>> from ember import nn
    >>> nn.InstanceNorm3d(2)(ember.randn(2, 2, 2, 3)).shape
    (2, 2, 2, 3)
    """

    _nd = 3


class RMSNorm(Module):
    """``F.rms_norm`` over the last dims ``normalized_shape`` with a learnt ``weight`` (ones)
    when ``elementwise_affine``, PyTorch's ``nn.RMSNorm`` (``eps`` None: the dtype's machine
    epsilon).

    >>> from ember import nn
    >>> nn.RMSNorm(4)
    RMSNorm((4,), eps=None, elementwise_affine=True)
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        name = "RMSNorm"
        shape = tuple(normalized_shape) if isinstance(normalized_shape, (tuple, list)) else \
            (normalized_shape,)
        self.normalized_shape = tuple(_int(s, name, "normalized_shape", 0) for s in shape)
        self.eps = None if eps is None else _real(eps, name, "eps", 0.0)
        self.elementwise_affine = _bool(elementwise_affine, name, "elementwise_affine")
        dt, dev = _float_dtype(dtype, name), as_device(device, name)
        self.weight = (init.ones(self.normalized_shape, dtype=dt, device=dev)
                       if elementwise_affine else None)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return N.rms_norm(_check_input(input, "RMSNorm"), self.normalized_shape, self.weight,
                          self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """``F.local_response_norm`` as a module.

    >>> from ember import nn
    >>> nn.LocalResponseNorm(2)
    LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        name = "LocalResponseNorm"
        self.size = _int(size, name, "size", 1)
        self.alpha, self.beta, self.k = alpha, beta, k
        for param, v in (("alpha", alpha), ("beta", beta), ("k", k)):
            _real(v, name, param)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return N.local_response_norm(_check_input(input, "LocalResponseNorm"), self.size,
                                     self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
