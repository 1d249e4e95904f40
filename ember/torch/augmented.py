"""Augmented assignment on ember.torch tensors (``x += y``, ``p -= lr * p.grad``), in place as
PyTorch's: the tensor object itself takes the new value (ember rebinds it, see
docs/pytorch.md "Immutability"), so every holder of the object (a module, an optimizer) sees
it, and PyTorch's rules hold: the result must keep the tensor's shape (no broadcasting of the
tensor itself), its dtype must be castable to the tensor's (an int tensor ``+= 0.5`` raises),
and a leaf that requires grad is updated only under ``no_grad``.

>>> import ember.torch as torch
>>> w = torch.ones(2, requires_grad=True)
>>> holder = [w]
>>> with torch.no_grad():
...     w -= 0.5 * torch.ones(2)
>>> holder[0].tolist(), w.is_leaf, w.requires_grad
([0.5, 0.5], True, True)
"""

import operator

from .inplace import apply_inplace
from ._tensor import Tensor

__all__ = []


def _augmented(name, fn):
    def method(self, other):
        return apply_inplace(self, lambda t: fn(t, other), name)
    method.__name__ = name
    method.__doc__ = f"``{name}``: in place, as PyTorch's (see ember.torch.augmented)."
    return method


for _name, _fn in (("__iadd__", operator.add), ("__isub__", operator.sub),
                   ("__imul__", operator.mul), ("__itruediv__", operator.truediv),
                   ("__ifloordiv__", operator.floordiv), ("__imod__", operator.mod),
                   ("__ipow__", operator.pow), ("__iand__", operator.and_),
                   ("__ior__", operator.or_), ("__ixor__", operator.xor),
                   ("__ilshift__", operator.lshift), ("__irshift__", operator.rshift)):
    setattr(Tensor, _name, _augmented(_name, _fn))
