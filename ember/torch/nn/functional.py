"""``ember.torch.nn.functional``: ember.nn.functional's ops (which take PyTorch's arguments),
their results as ember.torch tensors.

>>> import ember.torch as torch
>>> import ember.torch.nn.functional as F
>>> F.softmax(torch.tensor([[0.0, 0.0]]), dim=1).argmax(1).shape
torch.Size([1])
"""

from ...nn import functional as _ef
from .._tensor import returns_torch

__all__ = list(_ef.__all__)

for _name in __all__:
    globals()[_name] = _fn = returns_torch(getattr(_ef, _name))
    _fn.__module__ = __name__  # found here by pickle (a layer holding F.relu is saved)
del _name, _fn
