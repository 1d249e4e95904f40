"""The layers of ember.nn: PyTorch's modules, arguments, defaults and initialization (the
activation modules are in activations.py, the loss modules in losses.py).

Weights are initialized as PyTorch's (Kaiming-uniform with ``a=sqrt(5)`` for Linear and Conv2d,
biases uniform in ``±1/sqrt(fan_in)``, N(0, 1) for Embedding, ones and zeros for the norms) from
ember's generator, so ``ember.manual_seed`` reproduces a model. Hyper-parameters are checked
when the layer is built (InvalidParameterError); an input of the wrong rank or size raises
ShapeMismatchError naming the layer and the shape it expects.

>>> import ember
>>> from ember import nn
>>> model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
...                       nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 4 * 4, 10))
>>> model(ember.ones(2, 1, 8, 8)).shape
(2, 10)
>>> model[0]
Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
"""

import math

from .. import dtypes as _dt
from ..devices import as_device
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor, wrap
from . import functional as F
from ..ops.conv import _conv2d
from ..ops.linear import _linear
from ..ops.nn_args import _int, _pair, _real, _shape_str
from ..ops.normalization import _batch_norm, _check_bn
from ..ops.pool import _avg_pool2d, _max_pool2d
from . import init
from .module import Module

__all__ = [
    "Identity", "Linear", "Conv2d", "MaxPool2d", "MaxUnpool2d", "AvgPool2d", "BatchNorm1d",
    "BatchNorm2d",
    "LayerNorm", "Dropout", "Embedding", "Flatten",
]


def _prob(p, layer, param="p"):
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise InvalidParameterError(f"{layer}: {param} is {p!r}; expected a probability in "
                                    "[0, 1]", param, p)
    return float(p)


def _positive_real(v, layer, param):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0 or math.isinf(v):
        raise InvalidParameterError(f"{layer}: {param} is {v!r}; expected a finite number >= 0",
                                    param, v)
    return float(v)


def _bool(v, layer, param):
    if not isinstance(v, bool):
        raise InvalidParameterError(f"{layer}: {param} must be a bool, got {v!r}", param, v)
    return v


def _float_dtype(dtype, layer):
    dt = _dt.default_float if dtype is None else _dt.as_dtype(dtype)
    if dt.kind != "float":
        if dt.kind == "complex":  # docs/complex.md: nn takes real tensors only
            raise _dt.complex_error(layer, "dtype", dt)
        raise KindError(f"{layer}: dtype {dt.name} is not a float dtype; expected a float dtype")
    return dt


def _pool_window(layer, name, kernel_size, stride, padding):
    """Check and set a pooling layer's ``kernel_size``, ``stride`` (default the kernel size) and
    ``padding``, at most half the kernel (PyTorch's rule)."""
    k = _pair(kernel_size, name, "kernel_size", 1)
    if stride is not None:
        _pair(stride, name, "stride", 1)
    p = _pair(padding, name, "padding", 0)
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise InvalidParameterError(
            f"{name}: padding {padding!r} is more than half of kernel_size {kernel_size!r}; "
            "expected padding <= kernel_size // 2", "padding", padding)
    layer.kernel_size = kernel_size
    layer.stride = kernel_size if stride is None else stride
    layer.padding = padding


def _check_input(x, layer):
    if not isinstance(x, Tensor):
        raise InvalidParameterError(f"{layer}: input must be a Tensor, got {type(x).__name__}",
                                    "input", x)
    return x


class Identity(Module):
    """Returns its input (any arguments to the constructor are ignored, as PyTorch).

    >>> import ember
    >>> from ember import nn
    >>> nn.Identity()(ember.tensor([1.0])).tolist()
    [1.0]
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return input


class Linear(Module):
    """``y = x @ weight.T + bias``: ``weight`` (out_features, in_features), ``bias``
    (out_features,); the input is (*, in_features).

    >>> import ember
    >>> from ember import nn
    >>> fc = nn.Linear(4, 2)
    >>> fc
    Linear(in_features=4, out_features=2, bias=True)
    >>> fc(ember.ones(3, 4)).shape
    (3, 2)
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        name = "Linear"
        self.in_features = _int(in_features, name, "in_features", 0)
        self.out_features = _int(out_features, name, "out_features", 0)
        _bool(bias, name, "bias")
        dt = _float_dtype(dtype, name)
        dev = as_device(device, name)
        shape = (self.out_features, self.in_features)
        self.weight = init.kaiming_uniform(shape, a=math.sqrt(5), dtype=dt, device=dev)
        if bias:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0
            self.bias = init.uniform((self.out_features,), -bound, bound, dtype=dt, device=dev)
        else:
            self.bias = None

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return _linear(_check_input(input, "Linear"), self.weight, self.bias, "Linear")

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Conv2d(Module):
    """2-D convolution (cross-correlation) over (N, C, H, W) or (C, H, W) inputs, PyTorch's
    ``nn.Conv2d``: ``kernel_size``, ``stride``, ``padding`` (int, pair, ``"same"`` or
    ``"valid"``), ``dilation``, ``groups``, ``bias``, ``padding_mode`` ("zeros", "reflect",
    "replicate", "circular"). ``weight`` is (out, in/groups, kh, kw).

    >>> import ember
    >>> from ember import nn
    >>> conv = nn.Conv2d(3, 8, (3, 5), stride=2, padding="valid", bias=False)
    >>> conv
    Conv2d(3, 8, kernel_size=(3, 5), stride=(2, 2), padding=valid, bias=False)
    >>> conv(ember.ones(1, 3, 9, 9)).shape
    (1, 8, 4, 3)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        name = "Conv2d"
        self.in_channels = _int(in_channels, name, "in_channels", 0)
        self.out_channels = _int(out_channels, name, "out_channels", 1)
        self.kernel_size = _pair(kernel_size, name, "kernel_size", 1)
        self.stride = _pair(stride, name, "stride", 1)
        self.dilation = _pair(dilation, name, "dilation", 1)
        self.groups = _int(groups, name, "groups", 1)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise InvalidParameterError(
                    f"{name}: padding {padding!r} is unknown; expected an int, a pair, 'same' or "
                    "'valid'", "padding", padding)
            if padding == "same" and self.stride != (1, 1):
                raise InvalidParameterError(
                    f"{name}: padding='same' needs stride 1, got stride={self.stride}",
                    "padding", padding)
            self.padding = padding
        else:
            self.padding = _pair(padding, name, "padding", 0)
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise InvalidParameterError(
                f"{name}: padding_mode {padding_mode!r} is unknown; expected 'zeros', 'reflect', "
                "'replicate' or 'circular'", "padding_mode", padding_mode)
        self.padding_mode = padding_mode
        for param, n in (("in_channels", self.in_channels), ("out_channels", self.out_channels)):
            if n % self.groups:
                raise InvalidParameterError(
                    f"{name}: {param}={n} is not divisible by groups={self.groups}", "groups",
                    self.groups)
        _bool(bias, name, "bias")
        dt = _float_dtype(dtype, name)
        dev = as_device(device, name)
        kh, kw = self.kernel_size
        shape = (self.out_channels, self.in_channels // self.groups, kh, kw)
        self.weight = init.kaiming_uniform(shape, a=math.sqrt(5), dtype=dt, device=dev)
        if bias:
            fan_in = shape[1] * kh * kw
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            self.bias = init.uniform((self.out_channels,), -bound, bound, dtype=dt, device=dev)
        else:
            self.bias = None

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return _conv2d("Conv2d", _check_input(input, "Conv2d"), self.weight, self.bias,
                         self.stride, self.padding, self.dilation, self.groups,
                         self.padding_mode)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class MaxPool2d(Module):
    """Max over ``kernel_size`` windows (stride defaults to the kernel size), PyTorch's
    ``nn.MaxPool2d``: ``padding`` (at most half the kernel, counts as -inf), ``dilation``,
    ``ceil_mode``; ``return_indices=True`` returns ``(output, indices)``, the flat int64 index
    of each window's element in its input plane, as PyTorch (see ``F.max_pool2d``).

    >>> import ember
    >>> from ember import nn
    >>> nn.MaxPool2d(2)
    MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    >>> nn.MaxPool2d(2)(ember.arange(16.0).reshape(1, 1, 4, 4)).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    >>> out, idx = nn.MaxPool2d(2, return_indices=True)(ember.arange(16.0).reshape(1, 1, 4, 4))
    >>> idx.tolist()
    [[[[5, 7], [13, 15]]]]
    """

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        name = "MaxPool2d"
        _pool_window(self, name, kernel_size, stride, padding)
        _pair(dilation, name, "dilation", 1)
        _bool(return_indices, name, "return_indices")
        _bool(ceil_mode, name, "ceil_mode")
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return _max_pool2d("MaxPool2d", _check_input(input, "MaxPool2d"), self.kernel_size,
                             self.stride, self.padding, self.dilation, self.ceil_mode,
                             self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxUnpool2d(Module):
    """PyTorch's ``nn.MaxUnpool2d``: the partial inverse of ``MaxPool2d(return_indices=True)``;
    call it with the values and the indices (and optionally ``output_size``), see
    ``F.max_unpool2d``.

    >>> import ember
    >>> from ember import nn
    >>> unpool = nn.MaxUnpool2d(2)
    >>> unpool
    MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
    >>> out, idx = nn.MaxPool2d(2, return_indices=True)(ember.tensor([[[[1.0, 5.0], [3.0, 2.0]]]]))
    >>> unpool(out, idx).tolist()
    [[[[0.0, 5.0], [0.0, 0.0]]]]
    """

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        name = "MaxUnpool2d"
        self.kernel_size = _pair(kernel_size, name, "kernel_size", 1)
        self.stride = self.kernel_size if stride is None else _pair(stride, name, "stride", 1)
        self.padding = _pair(padding, name, "padding", 0)

    def forward(self, input, indices, output_size=None):
        """Apply the layer to ``input`` and ``indices`` (see the class docstring)."""
        return F.max_unpool2d(_check_input(input, "MaxUnpool2d"), indices, self.kernel_size,
                              self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    """Mean over ``kernel_size`` windows (stride defaults to the kernel size), PyTorch's
    ``nn.AvgPool2d``: ``padding``, ``ceil_mode``, ``count_include_pad``, ``divisor_override``.

    >>> from ember import nn
    >>> nn.AvgPool2d(2, stride=1)
    AvgPool2d(kernel_size=2, stride=1, padding=0)
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        name = "AvgPool2d"
        _pool_window(self, name, kernel_size, stride, padding)
        _bool(ceil_mode, name, "ceil_mode")
        _bool(count_include_pad, name, "count_include_pad")
        if divisor_override is not None:
            _int(divisor_override, name, "divisor_override", 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return _avg_pool2d("AvgPool2d", _check_input(input, "AvgPool2d"), self.kernel_size,
                             self.stride, self.padding, self.ceil_mode, self.count_include_pad,
                             self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _BatchNorm(Module):
    _ranks = ()
    _shape_text = ""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        name = type(self).__name__
        self.num_features = _int(num_features, name, "num_features", 1)
        self.eps = _positive_real(eps, name, "eps")
        if momentum is not None:
            momentum = _prob(momentum, name, "momentum")
        self.momentum = momentum
        self.affine = _bool(affine, name, "affine")
        self.track_running_stats = _bool(track_running_stats, name, "track_running_stats")
        _bool(bias, name, "bias")
        dt = _float_dtype(dtype, name)
        dev = as_device(device, name)
        C = self.num_features
        if affine:
            self.weight = init.ones((C,), dtype=dt, device=dev)
            self.bias = init.zeros((C,), dtype=dt, device=dev) if bias else None
        else:
            self.weight = None
            self.bias = None
        if track_running_stats:
            self.register_buffer("running_mean", init.zeros((C,), dtype=dt, device=dev,
                                                            requires_grad=False))
            self.register_buffer("running_var", init.ones((C,), dtype=dt, device=dev,
                                                          requires_grad=False))
            self.register_buffer("num_batches_tracked", Tensor(0, dtype=_dt.int64, device=dev))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self):
        """Running mean 0, running variance 1, no batches tracked.

        >>> import ember
        >>> from ember import nn
        >>> bn = nn.BatchNorm1d(1)
        >>> _ = bn(ember.tensor([[1.0], [3.0]]))
        >>> bn.reset_running_stats(); bn.running_mean.tolist(), bn.num_batches_tracked.item()
        ([0.0], 0)
        """
        if self.track_running_stats:
            dt = self.running_mean.dtype
            dev = self.running_mean._device
            C = self.num_features
            self.running_mean = init.zeros((C,), dtype=dt, device=dev, requires_grad=False)
            self.running_var = init.ones((C,), dtype=dt, device=dev, requires_grad=False)
            self.num_batches_tracked = Tensor(0, dtype=_dt.int64, device=dev)

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        name = type(self).__name__
        x = _check_input(input, name)
        C = self.num_features
        if x.ndim not in self._ranks or x.shape[1] != C:
            raise ShapeMismatchError(
                f"{name}: input has shape {_shape_str(x.shape)}; expected "
                f"{self._shape_text.format(C=C)}", expected=self._shape_text.format(C=C),
                actual=tuple(x.shape))
        rm, rv = self.running_mean, self.running_var
        use_batch = self.training or rm is None
        x, eps = _check_bn(name, x, rm, rv, self.weight, self.bias, use_batch, self.eps)
        out, mean, var = _batch_norm(x, rm, rv, self.weight, self.bias, use_batch, eps, name)
        if self.training and self.track_running_stats:
            be = x._device.backend
            count = self.num_batches_tracked
            if self.momentum is None or count._device is not x._device:
                steps = int(count.item()) + 1  # the cumulative average reads the count
                self.num_batches_tracked = wrap(be.scalar_array(steps, _dt.int64), _dt.int64)
                m = 1.0 / steps if self.momentum is None else self.momentum
            else:  # counted on the device: no read of the count (a GPU would wait for it)
                count = count + 1
                self.num_batches_tracked = count if count._dtype is _dt.int64 else \
                    count.cast(_dt.int64)
                m = self.momentum
            if x.numel():  # an empty batch has no statistics: PyTorch keeps the running ones
                self.running_mean = wrap(be.nn_running_update(rm._data, mean, m, rm._dtype),
                                         rm._dtype)
                self.running_var = wrap(be.nn_running_update(rv._data, var, m, rv._dtype),
                                        rv._dtype)
        return out

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) inputs over N (and L), PyTorch's
    ``nn.BatchNorm1d``: ``eps=1e-5``, ``momentum=0.1`` (None: a cumulative average),
    ``affine``, ``track_running_stats`` and (keyword-only, as PyTorch 2.13) ``bias``. In
    training it normalizes with the batch statistics and
    updates ``running_mean`` and ``running_var`` (the unbiased variance) by rebinding them; in
    eval it uses them.

    >>> import ember
    >>> from ember import nn
    >>> bn = nn.BatchNorm1d(2)
    >>> bn
    BatchNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> _ = bn(ember.tensor([[1.0, 2.0], [3.0, 6.0]]))
    >>> [round(v, 4) for v in bn.running_mean.tolist() + bn.running_var.tolist()]
    [0.2, 0.4, 1.1, 1.7]
    >>> bn.num_batches_tracked.item()
    1
    """

    _ranks = (2, 3)
    _shape_text = "(N, {C}) or (N, {C}, L)"


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) inputs over N, H and W, PyTorch's
    ``nn.BatchNorm2d`` (see ``BatchNorm1d``).

    >>> import ember
    >>> from ember import nn
    >>> nn.BatchNorm2d(3)(ember.ones(2, 3, 4, 4)).shape
    (2, 3, 4, 4)
    """

    _ranks = (4,)
    _shape_text = "(N, {C}, H, W)"


class LayerNorm(Module):
    """Normalization over the last dims ``normalized_shape``, then ``* weight + bias``,
    PyTorch's ``nn.LayerNorm``.

    >>> from ember import nn
    >>> nn.LayerNorm(4)
    LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        name = "LayerNorm"
        if isinstance(normalized_shape, (tuple, list)):
            shape = tuple(_int(s, name, "normalized_shape", 0) for s in normalized_shape)
        else:
            shape = (_int(normalized_shape, name, "normalized_shape", 0),)
        if not shape:
            raise InvalidParameterError(f"{name}: normalized_shape is empty; expected at least "
                                        "one dim", "normalized_shape", normalized_shape)
        self.normalized_shape = shape
        self.eps = _positive_real(eps, name, "eps")
        self.elementwise_affine = _bool(elementwise_affine, name, "elementwise_affine")
        _bool(bias, name, "bias")
        dt = _float_dtype(dtype, name)
        dev = as_device(device, name)
        if elementwise_affine:
            self.weight = init.ones(shape, dtype=dt, device=dev)
            self.bias = init.zeros(shape, dtype=dt, device=dev) if bias else None
        else:
            self.weight = None
            self.bias = None

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        x = _check_input(input, "LayerNorm")
        shape = self.normalized_shape
        if x.ndim < len(shape) or tuple(x.shape[x.ndim - len(shape):]) != shape:
            raise ShapeMismatchError(
                f"LayerNorm: input has shape {_shape_str(x.shape)}; expected (*, "
                f"{', '.join(str(s) for s in shape)})", expected=shape, actual=tuple(x.shape))
        return F.layer_norm(x, shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class Dropout(Module):
    """Zeroes each element with probability ``p`` and scales the rest by ``1/(1-p)`` in
    training; passes the input through in eval. Uses ember's generator (``manual_seed``).
    ``inplace=True`` writes the result into the input tensor (and its views), as PyTorch's.

    >>> import ember
    >>> from ember import nn
    >>> drop = nn.Dropout(0.25)
    >>> drop
    Dropout(p=0.25, inplace=False)
    >>> x = ember.ones(3)
    >>> drop.eval()(x) is x
    True
    """

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        self.p = _prob(p, "Dropout")
        self.inplace = _bool(inplace, "Dropout", "inplace")

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.dropout(_check_input(input, "Dropout"), self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Embedding(Module):
    """A lookup table: ``weight`` (num_embeddings, embedding_dim) initialized N(0, 1), rows
    picked by an int tensor; the ``padding_idx`` row starts at zero and gets no gradient.

    ``max_norm``, ``norm_type`` and ``scale_grad_by_freq`` are PyTorch's (see ``F.embedding``):
    with ``max_norm`` each call renormalizes the rows it looks up and rebinds ``self.weight``
    (the same Parameter object, still a leaf) to the new value, as PyTorch changes it in place.
    ``sparse=True`` raises InvalidParameterError (no sparse gradients in ember).

    >>> import ember
    >>> from ember import nn
    >>> emb = nn.Embedding(10, 3, padding_idx=0)
    >>> emb
    Embedding(10, 3, padding_idx=0)
    >>> emb(ember.tensor([[0, 5]])).shape, emb.weight[0].tolist()
    ((1, 2, 3), [0.0, 0.0, 0.0])
    >>> emb = nn.Embedding(10, 3, max_norm=1.0)
    >>> w = emb.weight
    >>> out = emb(ember.tensor([4]))
    >>> emb.weight is w, (emb.weight[4] ** 2).sum().sqrt().item() <= 1.0
    (True, True)
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, device=None,
                 dtype=None):
        super().__init__()
        name = "Embedding"
        self.num_embeddings = _int(num_embeddings, name, "num_embeddings", 0)
        self.embedding_dim = _int(embedding_dim, name, "embedding_dim", 0)
        if padding_idx is not None:
            n = self.num_embeddings
            padding_idx = _int(padding_idx, name, "padding_idx", -n)
            if padding_idx >= n:
                raise InvalidParameterError(
                    f"{name}: padding_idx {padding_idx} is out of range for {n} embeddings; "
                    f"expected an int in [{-n}, {n - 1}]", "padding_idx", padding_idx)
            padding_idx %= n
        self.padding_idx = padding_idx
        self.max_norm = None if max_norm is None else _real(max_norm, name, "max_norm", 0.0)
        self.norm_type = _real(norm_type, name, "norm_type")
        _bool(scale_grad_by_freq, name, "scale_grad_by_freq")
        _bool(sparse, name, "sparse")
        if sparse:
            raise InvalidParameterError(
                f"{name}: sparse=True is not supported: ember has no sparse gradients; expected "
                "sparse=False (the gradient of the weight is a dense tensor)", "sparse", sparse)
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        dt = _float_dtype(dtype, name)
        dev = as_device(device, name)
        w = init.normal((self.num_embeddings, self.embedding_dim), dtype=dt, device=dev,
                        requires_grad=False)
        if padding_idx is not None:
            w = wrap(dev.backend.nn_zero_row(w._data, padding_idx), dt)
        self.weight = w.require_grad()

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return F.embedding(_check_input(input, "Embedding"), self.weight, self.padding_idx,
                           self.max_norm, self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2.0:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        return s


class Flatten(Module):
    """Merges dims ``start_dim`` to ``end_dim`` (default: all but the batch dim).

    >>> import ember
    >>> from ember import nn
    >>> nn.Flatten()(ember.ones(2, 3, 4)).shape
    (2, 12)
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = _int(start_dim, "Flatten", "start_dim", -(1 << 62))
        self.end_dim = _int(end_dim, "Flatten", "end_dim", -(1 << 62))

    def forward(self, input):
        """Apply the layer to ``input`` (see the class docstring for an example)."""
        return _check_input(input, "Flatten").flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
