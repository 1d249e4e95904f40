"""PyTorch's lazy modules (``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyConvTranspose1d/2d/3d``,
``LazyBatchNorm1d/2d/3d``, ``LazyInstanceNorm1d/2d/3d``) and the ``UninitializedParameter``
and ``UninitializedBuffer`` placeholders.

A lazy module infers its input size (features or channels) from the first input it is called
with, then becomes the regular module (``cls_to_become``), as PyTorch's does: the object's
class changes to that module's class and its parameters are created and initialized as that
module's. Until then its parameters are empty (0,) placeholders. Hooks registered on the
module before its first call, and optimizers built before it, do not carry over (PyTorch
advises building optimizers after a dry run too).

>>> import ember
>>> from ember import nn
>>> fc = nn.LazyLinear(3)
>>> fc
LazyLinear(in_features=0, out_features=3, bias=True)
>>> fc(ember.ones(2, 5)).shape, fc
((2, 3), Linear(in_features=5, out_features=3, bias=True))
"""

import sys

from ..errors import InvalidParameterError, ShapeMismatchError
from .._tensor import Tensor
from ..ops.creation import zeros
from ..ops.nn_args import _shape_str
from .conv_layers import Conv1d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .layers import BatchNorm1d, BatchNorm2d, Conv2d, Linear, _check_input, _float_dtype
from .module import Module
from .norms import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .volumetric_layers import BatchNorm3d

__all__ = ["UninitializedParameter", "UninitializedBuffer", "LazyLinear", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
           "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d", "factory_kwargs"]


class UninitializedParameter(Tensor):
    """A parameter whose shape is not known yet: an empty (0,) float tensor that requires
    grad, until a lazy module materializes it.

    >>> from ember import nn
    >>> p = nn.UninitializedParameter()
    >>> p.shape, p.is_require_grad()
    ((0,), True)
    """

    __slots__ = ()

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        t = zeros(0, dtype=_float_dtype(dtype, cls.__name__), device=device)
        if requires_grad:
            t.require_grad()
        t.__class__ = cls
        return t

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedParameter):
    """A buffer whose shape is not known yet: an empty (0,) tensor.

    >>> from ember import nn
    >>> nn.UninitializedBuffer().shape
    (0,)
    """

    __slots__ = ()

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return UninitializedParameter.__new__(cls, requires_grad, device, dtype)


def _target_class(module, cls):
    """``cls``, or its ember.torch.nn class when ``module`` is an ember.torch.nn module."""
    facade = sys.modules.get("ember.torch.nn.module")
    if facade is not None and isinstance(module, facade.Module):
        return facade.torch_class(cls)
    return cls


class _Lazy(Module):
    """The lazy machinery: ``_args``/``_kwargs`` of the module to become, the input size put
    first at the first call."""

    cls_to_become = None
    _spatial = 1      # the input's spatial dims (conv, norms); None: Linear
    _batch_dim_only = False

    def _lazy_init(self, *args, **kwargs):
        self._lazy_args, self._lazy_kwargs = args, kwargs

    def has_uninitialized_params(self):
        """True until the first call has created the parameters.

        >>> from ember import nn
        >>> nn.LazyConv2d(4, 3).has_uninitialized_params()
        True
        """
        return True

    def _in_size(self, x):
        name = type(self).__name__
        if self._spatial is None:
            if x.ndim < 1:
                raise ShapeMismatchError(f"{name}: input is 0-d; expected (*, in_features)",
                                         expected=1, actual=())
            return x.shape[-1]
        ranks = (self._spatial + 1, self._spatial + 2)
        if x.ndim not in ranks:
            raise ShapeMismatchError(
                f"{name}: input has shape {_shape_str(x.shape)}; expected {ranks[0]} or "
                f"{ranks[1]} dims", expected=ranks, actual=tuple(x.shape))
        if self._batch_dim_only or x.ndim == ranks[1]:
            return x.shape[1]
        return x.shape[0]

    def initialize_parameters(self, input):
        """Become ``cls_to_become`` with the input size of ``input`` (the first call does
        this)."""
        x = _check_input(input, type(self).__name__)
        target = _target_class(self, self.cls_to_become)
        kwargs = dict(self._lazy_kwargs)
        # a placeholder moved since construction (.double(), .to(device)) moves the result too
        placed = next((t for t in list(self.parameters()) + list(self.buffers())
                       if t._dtype.kind == "float"), None)
        if placed is not None:
            kwargs.update(dtype=placed._dtype, device=placed._device)
        fresh = target(self._in_size(x), *self._lazy_args, **kwargs)
        if (issubclass(self.cls_to_become, (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d))
                and not (self.affine or self.track_running_stats)):
            fresh.num_features = 0  # nothing was created: PyTorch leaves num_features at 0
        training = self.training
        self.__dict__.clear()
        self.__dict__.update(fresh.__dict__)
        self.__class__ = type(fresh)
        self.train(training)

    def forward(self, input, *args, **kwargs):
        """Create the parameters from ``input``'s size, then run the regular module."""
        self.initialize_parameters(input)
        return self.forward(input, *args, **kwargs)


def _placeholders(module, names, buffers=()):
    for n in names:
        setattr(module, n, UninitializedParameter(dtype=module._lazy_kwargs.get("dtype")))
    for n in buffers:
        module.register_buffer(n, UninitializedBuffer(dtype=module._lazy_kwargs.get("dtype")))


class LazyLinear(_Lazy, Linear):
    """``Linear`` whose ``in_features`` is the last dim of the first input.

    >>> from ember import nn
    >>> nn.LazyLinear(4, bias=False)
    LazyLinear(in_features=0, out_features=4, bias=False)
    """

    cls_to_become = Linear
    _spatial = None

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self._lazy_init(out_features, bias, device=device, dtype=dtype)
        self.in_features, self.out_features = 0, out_features
        _placeholders(self, ["weight"] + (["bias"] if bias else []))
        if not bias:
            self.bias = None


def _conv_lazy(name, base, nd):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, *rest, **kwargs):
        Module.__init__(self)
        args = (out_channels, kernel_size, stride, padding) + rest
        self._lazy_init(*args, **kwargs)
        groups = rest[1] if len(rest) > 1 else kwargs.get("groups", 1)
        probe = base(groups, out_channels, kernel_size, stride, padding, *rest, **kwargs)
        for k, v in probe.__dict__.items():
            if not isinstance(v, Tensor):
                self.__dict__[k] = v
        self.in_channels = 0
        has_bias = probe.bias is not None
        _placeholders(self, ["weight"] + (["bias"] if has_bias else []))
        if not has_bias:
            self.bias = None

    doc = (f"``{base.__name__}`` whose ``in_channels`` is the channel dim of the first input."
           f"\n\n    >>> from ember import nn\n    >>> nn.{name}(4, 3).in_channels\n    0\n    ")
    return type(name, (_Lazy, base), {"__init__": __init__, "cls_to_become": base,
                                       "_spatial": nd, "__doc__": doc, "__module__": __name__})


def _norm_lazy(name, base, nd, batch_dim_only):
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None):
        Module.__init__(self)
        self._lazy_init(eps, momentum, affine, track_running_stats, device=device, dtype=dtype)
        probe = base(1, eps, momentum, affine, track_running_stats, device=device, dtype=dtype)
        for k, v in probe.__dict__.items():
            if not isinstance(v, Tensor):
                self.__dict__[k] = v
        self.num_features = 0
        _placeholders(self, ["weight", "bias"] if affine else [],
                      ["running_mean", "running_var"] if track_running_stats else [])
        if track_running_stats:  # (untracked: the probe's None buffers were copied above)
            self.register_buffer("num_batches_tracked", probe.num_batches_tracked)
        if not affine:
            self.weight = self.bias = None

    doc = (f"``{base.__name__}`` whose ``num_features`` is the channel dim of the first input "
           "(``affine`` and ``track_running_stats`` default to True, as PyTorch's)."
           f"\n\n    >>> from ember import nn\n    >>> nn.{name}().num_features\n    0\n    ")
    return type(name, (_Lazy, base), {"__init__": __init__, "cls_to_become": base,
                                       "_spatial": nd, "_batch_dim_only": batch_dim_only,
                                       "__doc__": doc, "__module__": __name__})


LazyConv1d = _conv_lazy("LazyConv1d", Conv1d, 1)
LazyConv2d = _conv_lazy("LazyConv2d", Conv2d, 2)
LazyConv3d = _conv_lazy("LazyConv3d", Conv3d, 3)
LazyConvTranspose1d = _conv_lazy("LazyConvTranspose1d", ConvTranspose1d, 1)
LazyConvTranspose2d = _conv_lazy("LazyConvTranspose2d", ConvTranspose2d, 2)
LazyConvTranspose3d = _conv_lazy("LazyConvTranspose3d", ConvTranspose3d, 3)
LazyBatchNorm1d = _norm_lazy("LazyBatchNorm1d", BatchNorm1d, 1, True)
LazyBatchNorm2d = _norm_lazy("LazyBatchNorm2d", BatchNorm2d, 2, True)
LazyBatchNorm3d = _norm_lazy("LazyBatchNorm3d", BatchNorm3d, 3, True)
LazyInstanceNorm1d = _norm_lazy("LazyInstanceNorm1d", InstanceNorm1d, 1, True)
LazyInstanceNorm2d = _norm_lazy("LazyInstanceNorm2d", InstanceNorm2d, 2, True)
LazyInstanceNorm3d = _norm_lazy("LazyInstanceNorm3d", InstanceNorm3d, 3, True)


def factory_kwargs(kwargs):
    """PyTorch's ``nn.factory_kwargs``: the ``device``, ``dtype`` and ``memory_format`` of
    ``kwargs`` (and of its ``factory_kwargs`` dict) as one dict, for a module's factory calls;
    InvalidParameterError for any other key or one given twice.

    >>> from ember import nn
    >>> nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"dtype": None}})
    {'dtype': None, 'device': 'cpu'}
    """
    if kwargs is None:
        return {}
    simple = ("device", "dtype", "memory_format")
    unexpected = set(kwargs) - set(simple) - {"factory_kwargs"}
    if unexpected:
        raise InvalidParameterError(f"factory_kwargs: unexpected kwargs {sorted(unexpected)}; "
                                    f"expected {simple} or factory_kwargs", "kwargs",
                                    sorted(unexpected))
    out = dict(kwargs.get("factory_kwargs") or {})
    for key in simple:
        if key in kwargs:
            if key in out:
                raise InvalidParameterError(f"factory_kwargs: {key} specified twice, in "
                                            "**kwargs and in factory_kwargs", key, kwargs[key])
            out[key] = kwargs[key]
    return out
