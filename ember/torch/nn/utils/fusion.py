"""``torch.nn.utils``'s batch-norm folding for inference: a Conv or Linear layer followed by a
BatchNorm in eval mode is one layer with ``weight * s`` and ``(bias - running_mean) * s + beta``,
where ``s = gamma / sqrt(running_var + eps)`` per channel.

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> conv, bn = nn.Conv2d(2, 3, 3).eval(), nn.BatchNorm2d(3).eval()
>>> fused = nn.utils.fuse_conv_bn_eval(conv, bn)
>>> x = torch.randn(1, 2, 5, 5)
>>> bool(torch.allclose(fused(x), bn(conv(x)), atol=1e-5))
True
"""

import copy

from ....errors import InvalidParameterError, KindError, ShapeMismatchError
from ...._tensor import Tensor
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _check(op, **tensors):
    for name, t in tensors.items():
        if t is not None and not isinstance(t, Tensor):
            raise KindError(f"{op}: {name} must be a Tensor or None, got {type(t).__name__}")


def _eval_pair(op, layer, bn):
    if layer.training or bn.training:
        raise InvalidParameterError(f"{op}: Fusion only for eval! Call .eval() on both modules "
                                    "first", "training", True)
    if bn.running_mean is None or bn.running_var is None:
        raise InvalidParameterError(f"{op}: the BatchNorm has no running statistics "
                                    "(track_running_stats=False); expected them", "bn", bn)


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The (weight, bias) Parameters of a convolution folded with the batch norm after it:
    each output channel scaled by ``bn_w / sqrt(bn_rv + bn_eps)`` (dim 1 of a transposed
    convolution's weight, dim 0 otherwise). A missing ``conv_b`` / ``bn_b`` counts as zeros,
    ``bn_w`` as ones. Each Parameter requires grad as its conv tensor does.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> w, b = nn.utils.fuse_conv_bn_weights(torch.ones(2, 1, 1), None, torch.zeros(2),
    ...                                      torch.full((2,), 3.0), 1.0, None, None)
    >>> w.flatten().tolist(), b.tolist()
    ([0.5, 0.5], [0.0, 0.0])
    """
    op = "fuse_conv_bn_weights"
    _check(op, conv_w=conv_w, conv_b=conv_b, bn_rm=bn_rm, bn_rv=bn_rv, bn_w=bn_w, bn_b=bn_b)
    if None in (conv_w, bn_rm, bn_rv):
        raise KindError(f"{op}: conv_w, bn_rm and bn_rv must be Tensors")
    channels = conv_w.shape[1 if transpose else 0]
    if bn_rm.ndim != 1 or bn_rm.shape[0] not in (channels, 1):
        raise ShapeMismatchError(f"{op}: bn_rm has shape {tuple(bn_rm.shape)}; expected "
                                 f"({channels},), the conv's output channels",
                                 expected=(channels,), actual=tuple(bn_rm.shape))
    conv_b = bn_rm.new_zeros(bn_rm.shape) if conv_b is None else conv_b
    bn_w = bn_rm.new_ones(bn_rm.shape) if bn_w is None else bn_w
    bn_b = bn_rm.new_zeros(bn_rm.shape) if bn_b is None else bn_b
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    shape = [1] * conv_w.ndim
    shape[1 if transpose else 0] = -1
    weight = (conv_w * scale.reshape(shape)).to(conv_w.dtype)
    bias = ((conv_b - bn_rm) * scale + bn_b).to(conv_b.dtype)
    return (Parameter(weight, conv_w.requires_grad), Parameter(bias, conv_b.requires_grad))


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of the eval-mode convolution ``conv`` whose weight and bias fold in the eval-mode
    BatchNorm ``bn`` that follows it (``fuse_conv_bn_weights``); ``transpose`` for a
    ConvTranspose. ``conv`` and ``bn`` are unchanged.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> fused = nn.utils.fuse_conv_bn_eval(nn.Conv1d(1, 2, 1).eval(), nn.BatchNorm1d(2).eval())
    >>> type(fused).__name__, fused.bias.requires_grad
    ('Conv1d', True)
    """
    _eval_pair("fuse_conv_bn_eval", conv, bn)
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The (weight, bias) Parameters of a Linear layer folded with the batch norm after it:
    each output feature's row scaled by ``bn_w / sqrt(bn_rv + bn_eps)``. A missing ``linear_b``
    counts as zeros. Each Parameter requires grad as its linear tensor does.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> w, b = nn.utils.fuse_linear_bn_weights(torch.ones(2, 2), None, torch.ones(2),
    ...                                        torch.full((2,), 4.0), 0.0, torch.ones(2),
    ...                                        torch.zeros(2))
    >>> w.tolist(), b.tolist()
    ([[0.5, 0.5], [0.5, 0.5]], [-0.5, -0.5])
    """
    op = "fuse_linear_bn_weights"
    _check(op, linear_w=linear_w, linear_b=linear_b, bn_rm=bn_rm, bn_rv=bn_rv, bn_w=bn_w,
           bn_b=bn_b)
    if None in (linear_w, bn_rm, bn_rv, bn_w, bn_b):
        raise KindError(f"{op}: linear_w, bn_rm, bn_rv, bn_w and bn_b must be Tensors")
    if bn_rm.ndim != 1 or bn_rm.shape[0] not in (linear_w.shape[0], 1):
        raise ShapeMismatchError(
            f"{op}: To fuse, linear_w.size(0) ({linear_w.shape[0]}) must equal bn_rm.size(0) "
            f"or bn_rm.size(0) must be 1; bn_rm has shape {tuple(bn_rm.shape)}",
            expected=(linear_w.shape[0],), actual=tuple(bn_rm.shape))
    linear_b = bn_rm.new_zeros(bn_rm.shape) if linear_b is None else linear_b
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    weight = linear_w * scale.unsqueeze(-1)
    bias = (linear_b - bn_rm) * scale + bn_b
    return (Parameter(weight, linear_w.requires_grad), Parameter(bias, linear_b.requires_grad))


def fuse_linear_bn_eval(linear, bn):
    """A copy of the eval-mode Linear ``linear`` whose weight and bias fold in the eval-mode
    BatchNorm ``bn`` that follows it (``fuse_linear_bn_weights``). ``bn.num_features`` must be
    ``linear.out_features`` or 1.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> lin, bn = nn.Linear(3, 2).eval(), nn.BatchNorm1d(2).eval()
    >>> x = torch.randn(4, 3)
    >>> bool(torch.allclose(nn.utils.fuse_linear_bn_eval(lin, bn)(x), bn(lin(x)), atol=1e-6))
    True
    """
    op = "fuse_linear_bn_eval"
    _eval_pair(op, linear, bn)
    if bn.num_features not in (linear.out_features, 1):
        raise ShapeMismatchError(f"{op}: To fuse, linear.out_features ({linear.out_features}) "
                                 f"must equal bn.num_features ({bn.num_features}) or "
                                 "bn.num_features must be 1", expected=linear.out_features,
                                 actual=bn.num_features)
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused
