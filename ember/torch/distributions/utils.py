"""Helpers the distributions share: broadcasting parameters, probabilities and logits, and the
cached ``lazy_property``.

>>> import ember.torch as torch
>>> from ember.torch.distributions.utils import broadcast_all, probs_to_logits
>>> loc, scale = broadcast_all(torch.zeros(2, dtype=torch.float64), 1.0)
>>> scale.dtype == torch.float64, tuple(scale.shape)
(True, (2,))
>>> probs_to_logits(torch.tensor([0.5]), is_binary=True).tolist()
[0.0]
"""

import numbers

from ... import torch as _t
from ..._tensor import Tensor as _AnyTensor
from ...errors import KindError
from .._tensor import as_torch

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]


def _is_tensor(value):
    return isinstance(value, _AnyTensor)  # either API's tensor


def broadcast_all(*values):
    """``values`` (tensors or numbers) as ember.torch tensors of one broadcast shape; numbers take
    the dtype and device of the first tensor, or the default dtype when there is none."""
    tensors = [as_torch(v) for v in values if _is_tensor(v)]
    for v in values:
        if not (_is_tensor(v) or isinstance(v, numbers.Number)):
            raise KindError(f"broadcast_all: expected tensors or numbers, got {type(v).__name__}")
    if tensors:
        like = {"dtype": tensors[0].dtype, "device": tensors[0].device}
        if not tensors[0].is_floating_point():
            like["dtype"] = _t.get_default_dtype()
    else:
        like = {"dtype": _t.get_default_dtype()}
    made = [as_torch(v) if _is_tensor(v) else _t.tensor(v, **like) for v in values]
    return _t.broadcast_tensors(*made)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: ``sigmoid`` when binary, else ``softmax`` over the last dim."""
    return _t.sigmoid(logits) if is_binary else _t.softmax(logits, -1)


def clamp_probs(probs):
    """``probs`` kept ``eps`` away from 0 and 1 (``eps`` of its dtype), so logs stay finite."""
    eps = _t.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities: ``log p - log(1 - p)`` when binary, else ``log p``."""
    p = clamp_probs(probs)
    return _t.log(p) - _t.log1p(-p) if is_binary else _t.log(p)


class lazy_property:
    """A property computed once per instance on first access (with gradients enabled) and then
    stored in the instance's ``__dict__``; Distribution's validation skips parameters that
    were never computed."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, owner=None):
        if instance is None:
            return _LazyOnClass(self.wrapped)
        with _t.enable_grad():
            value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value


class _LazyOnClass(lazy_property, property):
    """What a ``lazy_property`` looks like on its class: a property, so documentation tools
    and ``isinstance(..., property)`` see one."""

    def __init__(self, wrapped):
        lazy_property.__init__(self, wrapped)
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The entries of the lower triangle of the last two dims (offset ``diag``), row by row."""
    n = mat.shape[-1]
    rows, cols = _t.tril_indices(n, n, offset=diag, device=mat.device)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of ``tril_matrix_to_vec``: a square matrix whose lower triangle holds ``vec``."""
    size = vec.shape[-1]
    # the side n solves n (n + 1) / 2 + n * diag = size
    n = round(((1 + 2 * diag) ** 2 + 8 * size) ** 0.5 / 2 - (1 + 2 * diag) / 2)
    if n * (n + 1) // 2 + n * diag != size:
        raise ValueError(f"vec_to_tril_matrix: the last dim {size} is not the size of a lower "
                         f"triangle with diag={diag}")
    rows, cols = _t.tril_indices(n, n, offset=diag, device=vec.device)
    flat = rows * n + cols
    out = _t.zeros(vec.shape[:-1] + (n * n,), dtype=vec.dtype, device=vec.device)
    out = out.index_add(-1, flat, vec)
    return out.reshape(vec.shape[:-1] + (n, n))
