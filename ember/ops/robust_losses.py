"""Losses composed of ember ops (so every order of gradient comes with them):
``smooth_l1_loss``, ``huber_loss`` and ``binary_cross_entropy`` of probabilities, as PyTorch's
``F.*`` of the same names.

>>> import ember
>>> import ember.nn.functional as F
>>> F.smooth_l1_loss(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0])).item()
1.3125
"""

from ..errors import InvalidParameterError, ShapeMismatchError
from ..shapes import broadcast_shapes
from .._tensor import check_tensor
from .masking import where
from .nn_args import _float_tensor, _opt_float, _real, _reduction, _shape_str

__all__ = ["smooth_l1_loss", "huber_loss", "binary_cross_entropy"]


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _legacy(size_average, reduce, reduction):
    """PyTorch's deprecated ``size_average``/``reduce`` arguments, when given, decide the
    reduction as they do in PyTorch."""
    if size_average is None and reduce is None:
        return reduction
    if reduce is False:
        return "none"
    return "sum" if size_average is False else "mean"


def _pair(op, input, target):
    x = _float_tensor(input, op, "input")
    t = _float_tensor(target, op, "target")
    broadcast_shapes(tuple(x.shape), tuple(t.shape), op=op)
    return x, t


def _threshold(value, op, param):
    value = _real(value, op, param)
    if value < 0:
        raise InvalidParameterError(f"{op}: {param} is {value}; expected a number >= 0", param,
                                    value)
    return value


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """``0.5 d² / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = input - target``;
    ``beta=0``: the L1 loss), reduced.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.smooth_l1_loss(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0]), reduction="none").tolist()
    [0.125, 2.5]
    """
    op = "smooth_l1_loss"
    reduction = _reduction(_legacy(size_average, reduce, reduction), op)
    beta = _threshold(beta, op, "beta")
    x, t = _pair(op, input, target)
    d = x - t
    z = d.abs()
    if beta == 0.0:
        return _reduce(z, reduction)
    return _reduce(where(z < beta, d * d * (0.5 / beta), z - 0.5 * beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """``0.5 d²`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``, reduced.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.huber_loss(ember.tensor([0.5, 3.0]), ember.tensor([0.0, 0.0]), delta=2.0, reduction="none").tolist()
    [0.125, 4.0]
    """
    op = "huber_loss"
    reduction = _reduction(reduction, op)
    delta = _threshold(delta, op, "delta")
    if delta == 0.0:
        raise InvalidParameterError(f"{op}: delta is 0; expected a number > 0", "delta", delta)
    x, t = _pair(op, input, target)
    d = x - t
    z = d.abs()
    return _reduce(where(z < delta, d * d * 0.5, (z - 0.5 * delta) * delta), reduction)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``-weight (t log p + (1 - t) log(1 - p))`` of probabilities ``input`` in [0, 1] against
    ``target`` of the same shape, each log clamped at -100 (PyTorch's rule), reduced.

    >>> import ember
    >>> import ember.nn.functional as F
    >>> round(F.binary_cross_entropy(ember.tensor([0.5, 0.5]), ember.tensor([1.0, 0.0])).item(), 4)
    0.6931
    """
    op = "binary_cross_entropy"
    reduction = _reduction(_legacy(size_average, reduce, reduction), op)
    p = _float_tensor(input, op, "input")
    check_tensor(target, op, "target")
    t = _float_tensor(target, op, "target")
    if tuple(t.shape) != tuple(p.shape):
        raise ShapeMismatchError(
            f"{op}: target has shape {_shape_str(t.shape)}; expected the input's shape "
            f"{_shape_str(p.shape)}", expected=tuple(p.shape), actual=tuple(t.shape))
    w = _opt_float(weight, op, "weight")
    if w is not None and broadcast_shapes(tuple(w.shape), tuple(p.shape), op=op) != tuple(p.shape):
        raise ShapeMismatchError(f"{op}: weight has shape {_shape_str(w.shape)}; expected a shape "
                                 f"that broadcasts to the input's {_shape_str(p.shape)}",
                                 expected=tuple(p.shape), actual=tuple(w.shape))
    if p.numel() and bool(((p < 0) | (p > 1)).any()):
        raise InvalidParameterError(f"{op}: all elements of input should be between 0 and 1",
                                    "input", p)
    loss = -(t * p.log().clamp(min=-100.0) + (1 - t) * (1 - p).log().clamp(min=-100.0))
    if w is not None:
        loss = loss * w
    return _reduce(loss, reduction)
