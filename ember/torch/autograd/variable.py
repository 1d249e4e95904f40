"""``torch.autograd.Variable``: PyTorch's legacy wrapper. Since tensors carry autograd
themselves, ``Variable(t, requires_grad=...)`` returns a tensor sharing ``t``'s buffer (a new
leaf, requiring grad as asked), and every tensor is an instance of ``Variable``.

>>> import ember.torch as torch
>>> from ember.torch.autograd import Variable
>>> v = Variable(torch.ones(2), requires_grad=True)
>>> v.requires_grad, isinstance(torch.zeros(1), Variable), type(v).__name__
(True, True, 'Tensor')
"""

from ...errors import InvalidParameterError, KindError
from ..._tensor import Tensor as _EmberTensor, wrap
from .._tensor import as_torch

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _EmberTensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False, volatile=False)``: a tensor (see the module
    docstring)."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            from ... import empty
            data = empty(0)
        if not isinstance(data, _EmberTensor):
            raise KindError(f"Variable data has to be a tensor, but got "
                            f"{type(data).__name__}")
        if not isinstance(requires_grad, bool):
            raise InvalidParameterError(f"Variable: requires_grad must be a bool, got "
                                        f"{requires_grad!r}", "requires_grad", requires_grad)
        out = as_torch(wrap(data._data, data._dtype, "none" if data._ad is None else data._ad))
        if requires_grad:
            out.requires_grad = True
        return out
