"""Questions a PyTorch program asks ``torch.autograd`` about the runtime: ``is_tensor_like``,
``kineto_available``, ``is_view_replay_enabled``.

>>> import ember.torch as torch
>>> from ember.torch import autograd
>>> autograd.is_tensor_like(torch.ones(1)), autograd.is_tensor_like(1.0)
(True, False)
"""

from ..._tensor import Tensor as _EmberTensor

__all__ = ["is_tensor_like", "kineto_available", "is_view_replay_enabled"]


def is_tensor_like(inp):
    """Whether ``inp`` is a tensor (an ember or ember.torch Tensor) or of a type with a
    ``__torch_function__`` attribute, as PyTorch's ``torch.overrides.is_tensor_like``.

    >>> from ember.torch.autograd import is_tensor_like
    >>> class TensorLike:
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         return -1
    >>> is_tensor_like(TensorLike()), is_tensor_like(None)
    (True, False)
    """
    return isinstance(inp, _EmberTensor) or hasattr(type(inp), "__torch_function__")


def kineto_available():
    """Whether the Kineto profiler library is present: False, ember has none.

    >>> from ember.torch.autograd import kineto_available
    >>> kineto_available()
    False
    """
    return False


def is_view_replay_enabled():
    """Whether view replay is on: False. an ember tensor is never a view that follows its
    base (an in-place op rebinds its tensor to a new buffer; a view taken before keeps the old
    values), so there is no view to replay.

    >>> from ember.torch.autograd import is_view_replay_enabled
    >>> is_view_replay_enabled()
    False
    """
    return False
