"""``torch.nn.utils``'s gradient-norm helpers in two steps: ``get_total_norm`` (the norm of
many tensors taken together) and ``clip_grads_with_norm_`` (scale gradients by a given total
norm); ``clip_grad_norm_`` (ember.nn.utils) does both. ``clip_grad_norm`` is PyTorch's
deprecated spelling of ``clip_grad_norm_``, the same function.

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> w = torch.zeros(2, requires_grad=True)
>>> (w * torch.tensor([3.0, 4.0])).sum().backward()
>>> total = nn.utils.get_total_norm([w.grad])
>>> nn.utils.clip_grads_with_norm_([w], 1.0, total)
>>> total.item(), [round(g, 4) for g in w.grad.tolist()]
(5.0, [0.6, 0.8])
"""

import functools

from ....autodiff.graph import no_grad
from ....dtypes import promote_types
from ....errors import InvalidParameterError
from ....nn import utils as _eu
from ....ops.creation import tensor, zeros
from ....ops.inplace import rebind
from ....ops.norms import vector_norm
from ....ops.segments import stack
from ...._tensor import Tensor
from ..._tensor import returns_torch

__all__ = ["clip_grad_norm", "get_total_norm", "clip_grads_with_norm_"]

clip_grad_norm = returns_torch(_eu.clip_grad_norm_)


@returns_torch
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of ``tensors`` (a tensor or an iterable of them) taken as one vector: the norm of their norms, a 0-d tensor (0 for none).
    ``error_if_nonfinite``: a non-finite norm raises InvalidParameterError. ``foreach`` is
    accepted and ignored.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> nn.utils.get_total_norm([torch.ones(2), 2 * torch.ones(3)], norm_type=1.0).item()
    8.0
    """
    op = "get_total_norm"
    norm_type = _eu._number(norm_type, op, "norm_type")
    if not isinstance(error_if_nonfinite, bool):
        raise InvalidParameterError(f"{op}: error_if_nonfinite must be a bool, got "
                                    f"{error_if_nonfinite!r}", "error_if_nonfinite",
                                    error_if_nonfinite)
    tensors = _eu._tensors(tensors, op)
    if not tensors:
        return zeros(())
    with no_grad():
        norms = [vector_norm(t, norm_type) for t in tensors]
        dtype = functools.reduce(promote_types, (n.dtype for n in norms))  # as torch.stack
        total = vector_norm(stack([n.cast(dtype) for n in norms]), norm_type)
    if error_if_nonfinite and not bool(total.isfinite()):
        raise InvalidParameterError(
            f"{op}: the total norm of order {norm_type} for gradients from `parameters` is "
            f"{total.item()}, non-finite, so it cannot be clipped; set error_if_nonfinite=False "
            "to scale the gradients by the non-finite norm anyway", "tensors", total.item())
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradient of each of ``parameters`` by ``max_norm / (total_norm + 1e-6)``
    capped at 1 (``total_norm``: from ``get_total_norm``); parameters without a gradient are
    skipped. Returns None.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> w = torch.zeros(2, requires_grad=True)
    >>> (w * 4).sum().backward()
    >>> nn.utils.clip_grads_with_norm_(w, 2.0, torch.tensor(8.0))
    >>> [round(g, 4) for g in w.grad.tolist()]
    [1.0, 1.0]
    """
    op = "clip_grads_with_norm_"
    params = _eu._tensors(parameters, op)
    max_norm = _eu._number(max_norm, op, "max_norm")
    if isinstance(total_norm, Tensor):
        if total_norm.numel() != 1:
            raise InvalidParameterError(f"{op}: total_norm must be a number or a one-element "
                                        f"tensor, got shape {tuple(total_norm.shape)}",
                                        "total_norm", total_norm)
        total_norm = total_norm.detach().reshape(())
    else:
        total_norm = tensor(_eu._number(total_norm, op, "total_norm"))
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return
    with no_grad():
        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
        for g in grads:
            rebind(g, g * coef.cast(g.dtype), op)
