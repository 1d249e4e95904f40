"""``ember.torch.nn.functional``: ember.nn.functional's ops (which take PyTorch's arguments),
their results as ember.torch tensors.

>>> import ember.torch as torch
>>> import ember.torch.nn.functional as F
>>> F.softmax(torch.tensor([[0.0, 0.0]]), dim=1).argmax(1).shape
torch.Size([1])
"""

from ...nn import functional as _ef
from .._tensor import to_torch

__all__ = list(_ef.__all__)


def _torch_result(fn, name):
    def op(*args, **kwargs):
        return to_torch(fn(*args, **kwargs))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = fn.__doc__
    return op


for _name in __all__:
    globals()[_name] = _torch_result(getattr(_ef, _name), _name)
del _name
