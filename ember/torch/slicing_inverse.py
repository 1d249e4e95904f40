"""PyTorch's ``slice_inverse``: the inverse of taking a slice.

``slice_inverse(input, src, dim=0, start=None, end=None, step=1)`` gives the tensor of which
``input`` is the slice ``src.slice(dim, start, end, step)``: PyTorch returns a view of the
storage ``input`` shares with ``src``, with ``src``'s shape, so its values are ``src``'s with
``input`` in the sliced positions. ember's tensors share no storage, so it composes that
tensor: ``slice_scatter(src, input, dim, start, end, step)`` (gradients flow to both).

>>> import ember.torch as torch
>>> base = torch.arange(6.0).reshape(3, 2)
>>> torch.slice_inverse(base[1:], base, 0, 1).tolist()
[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
"""

from ..errors import KindError
from .._tensor import Tensor as _T
from ._tensor import torch_function, torch_method
from .indexing import slice_scatter

__all__ = ["slice_inverse"]


@torch_method
@torch_function
def slice_inverse(input, src, dim=0, start=None, end=None, step=1):  # noqa: A002
    """``src`` with ``input`` written into its slice ``dim``, ``start:end:step`` (see the
    module docstring).

    >>> import ember.torch as torch
    >>> torch.slice_inverse(torch.ones(2, 2), torch.zeros(2, 3), 1, 0, 3, 2).tolist()
    [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]]
    """
    for name, t in (("input", input), ("src", src)):
        if not isinstance(t, _T):
            raise KindError(f"slice_inverse: {name} must be a Tensor, got {type(t).__name__}")
    return slice_scatter(src, input, dim, start, end, step)
