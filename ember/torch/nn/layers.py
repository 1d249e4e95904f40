"""ember.nn's layers as ``ember.torch.nn`` classes: each is ``torch_class`` of the ember layer,
a subclass of both ``ember.torch.nn.Module`` and the ember layer, so its parameters are
Parameters with PyTorch's names, shapes and state-dict keys, and its results ember.torch
tensors.

>>> import ember, ember.torch as torch
>>> from ember.torch import nn
>>> fc = nn.Linear(3, 2)
>>> fc, isinstance(fc, ember.nn.Linear)
(Linear(in_features=3, out_features=2, bias=True), True)
>>> fc(torch.ones(4, 3)).argmax(1).shape
torch.Size([4])
"""

from ... import nn as _enn
from .module import Module, torch_class

# ember.nn's Module classes that are not PyTorch's (Burn's reparameterizations) or that
# ember/torch/nn/containers.py writes with PyTorch's data layout
_NOT_LAYERS = frozenset(("Module", "Sequential", "ModuleList", "ModuleDict", "Reparameterization",
                         "ParametrizationList", "LoraAdapter"))

__all__ = []
for _name in _enn.__all__:
    _cls = getattr(_enn, _name)
    if (isinstance(_cls, type) and issubclass(_cls, _enn.Module) and _name not in _NOT_LAYERS
            and not issubclass(_cls, Module)):
        globals()[_name] = torch_class(_cls)
        __all__.append(_name)
del _name, _cls
