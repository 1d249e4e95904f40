"""ember.nn.utils: PyTorch's ``torch.nn.utils`` helpers for training loops: gradient clipping and
flattening parameters into one vector.

``clip_grad_norm_`` and ``clip_grad_value_`` rebind each parameter's ``.grad`` tensor to its
clipped value (the same objects, as PyTorch changes them in place); ``vector_to_parameters``
rebinds each parameter's value, so modules and optimizers holding them see the new values.

>>> import ember
>>> from ember import nn
>>> w = ember.tensor([3.0, 4.0]).require_grad()
>>> _ = (w * w).sum().backward()          # grad: [6, 8], norm 10
>>> round(nn.utils.clip_grad_norm_([w], max_norm=5.0).item(), 4)
10.0
>>> [round(g, 4) for g in w.grad.tolist()]
[3.0, 4.0]
"""

import math

from ..autodiff.graph import no_grad
from ..errors import InvalidParameterError, ShapeMismatchError
from ..ops.creation import zeros
from ..ops.inplace import rebind
from ..ops.segments import cat
from .._tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def _tensors(parameters, op):
    """The parameters as a list of tensors (one tensor, or an iterable of them)."""
    if isinstance(parameters, Tensor):
        return [parameters]
    try:
        params = list(parameters)
    except TypeError:
        raise InvalidParameterError(f"{op}: parameters must be a tensor or an iterable of "
                                    f"tensors, got {type(parameters).__name__}", "parameters",
                                    parameters) from None
    for i, p in enumerate(params):
        if not isinstance(p, Tensor):
            raise InvalidParameterError(f"{op}: parameter {i} is a {type(p).__name__}; expected "
                                        "a Tensor", "parameters", p)
    return params


def _number(value, op, param):
    if isinstance(value, Tensor) and value.ndim == 0:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameterError(f"{op}: {param} must be a number, got {value!r}", param, value)
    return float(value)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients of ``parameters`` so that their total ``norm_type``-norm (the norm of
    every gradient taken together) is at most ``max_norm``; returns that total norm before
    clipping, a 0-d tensor. As PyTorch's: the scale is ``max_norm / (norm + 1e-6)`` capped at 1;
    parameters without a gradient are skipped; ``norm_type`` may be ``inf`` (an empty gradient
    then counts as 0, where PyTorch raises); a non-finite norm
    raises InvalidParameterError when ``error_if_nonfinite``. ``foreach`` is accepted and ignored.

    >>> import ember
    >>> from ember import nn
    >>> w = ember.zeros(3).require_grad()
    >>> _ = (w * ember.tensor([1.0, -2.0, 2.0])).sum().backward()
    >>> nn.utils.clip_grad_norm_([w], 1.0, norm_type=float("inf")).item()
    2.0
    """
    op = "clip_grad_norm_"
    params = _tensors(parameters, op)
    max_norm = _number(max_norm, op, "max_norm")
    norm_type = _number(norm_type, op, "norm_type")
    if not isinstance(error_if_nonfinite, bool):
        raise InvalidParameterError(f"{op}: error_if_nonfinite must be a bool, got "
                                    f"{error_if_nonfinite!r}", "error_if_nonfinite",
                                    error_if_nonfinite)
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return zeros((), device=params[0]._device if params else None)
    with no_grad():
        if math.isinf(norm_type):
            norms = [g.abs().max() for g in grads if g.numel()] or [
                zeros((), dtype=grads[0].dtype, device=grads[0]._device)]
            total = _stack_max(norms)
        else:
            norms = [g.abs().pow(norm_type).sum() for g in grads]
            total = _sum(norms).pow(1.0 / norm_type)
        if error_if_nonfinite and not bool(total.isfinite()):
            raise InvalidParameterError(
                f"{op}: the total norm of order {norm_type} of the gradients is "
                f"{total.item()}; expected a finite norm (error_if_nonfinite=True)",
                "parameters", total.item())
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            rebind(g, g * coef.cast(g.dtype), op)
    return total


def _sum(tensors):
    total = tensors[0]
    for t in tensors[1:]:
        total = total + t
    return total


def _stack_max(tensors):
    total = tensors[0]
    for t in tensors[1:]:
        total = total.maximum(t)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient of ``parameters`` into ``[-clip_value, clip_value]``; returns None.

    >>> import ember
    >>> from ember import nn
    >>> w = ember.zeros(3).require_grad()
    >>> _ = (w * ember.tensor([0.5, -2.0, 3.0])).sum().backward()
    >>> nn.utils.clip_grad_value_([w], 1.0); w.grad.tolist()
    [0.5, -1.0, 1.0]
    """
    op = "clip_grad_value_"
    params = _tensors(parameters, op)
    clip_value = _number(clip_value, op, "clip_value")
    if clip_value < 0:
        raise InvalidParameterError(f"{op}: clip_value is {clip_value}; expected >= 0",
                                    "clip_value", clip_value)
    with no_grad():
        for p in params:
            g = p.grad
            if g is not None:
                rebind(g, g.clamp(-clip_value, clip_value), op)


def parameters_to_vector(parameters):
    """Every parameter flattened and concatenated into one 1-D tensor (differentiable).

    >>> import ember
    >>> from ember import nn
    >>> nn.utils.parameters_to_vector([ember.ones(2, 2), ember.zeros(1)]).tolist()
    [1.0, 1.0, 1.0, 1.0, 0.0]
    """
    params = _tensors(parameters, "parameters_to_vector")
    if not params:
        raise InvalidParameterError("parameters_to_vector: parameters is empty; expected at "
                                    "least one tensor", "parameters", params)
    return cat([p.reshape(-1) for p in params], 0)


def vector_to_parameters(vec, parameters):
    """Rebind each parameter to the next slice of the 1-D ``vec`` (reshaped to the parameter's
    shape, cast to its dtype), without recording; returns None.

    >>> import ember
    >>> from ember import nn
    >>> a, b = ember.zeros(2, 2), ember.zeros(1)
    >>> nn.utils.vector_to_parameters(ember.arange(5.0), [a, b])
    >>> a.tolist(), b.tolist()
    ([[0.0, 1.0], [2.0, 3.0]], [4.0])
    """
    op = "vector_to_parameters"
    if not isinstance(vec, Tensor):
        raise InvalidParameterError(f"{op}: vec must be a Tensor, got {type(vec).__name__}",
                                    "vec", vec)
    if vec.ndim != 1:
        raise ShapeMismatchError(f"{op}: vec has shape {tuple(vec.shape)}; expected a 1-D tensor",
                                 expected="1-D", actual=tuple(vec.shape))
    params = _tensors(parameters, op)
    total = sum(p.numel() for p in params)
    if vec.shape[0] != total:
        raise ShapeMismatchError(f"{op}: vec has {vec.shape[0]} elements; the parameters have "
                                 f"{total}", expected=total, actual=vec.shape[0])
    start = 0
    with no_grad():
        values = []
        for p in params:
            n = p.numel()
            values.append(vec[start:start + n].reshape(p.shape).cast(p.dtype))
            start += n
    for p, v in zip(params, values):
        p.data = v
