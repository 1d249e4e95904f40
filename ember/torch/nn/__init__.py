"""``ember.torch.nn``: PyTorch's ``torch.nn`` on ember's layers.

``Module`` has PyTorch's habits (ember/torch/nn/module.py), ``Parameter`` is a class, the
containers keep PyTorch's data layout, and every layer of ember.nn is here as a class that
combines the two (ember/torch/nn/layers.py).

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
>>> [n for n, _ in model.named_parameters()]
['0.weight', '0.bias', '2.weight', '2.bias']
>>> model(torch.ones(3, 4)).shape
torch.Size([3, 2])
"""

from . import functional, init, utils  # noqa: F401
from .containers import (ModuleDict, ModuleList, ParameterDict, ParameterList,  # noqa: F401
                         Sequential)
from .layers import *  # noqa: F401,F403
from .layers import __all__ as _layers_all
from .module import Module  # noqa: F401
from .parameter import Buffer, Parameter  # noqa: F401
from ...nn import LinearCrossEntropyOptions  # noqa: F401 (a plain options class, not a layer)
from ...nn import UninitializedBuffer, UninitializedParameter  # noqa: F401 (placeholders)
from ...nn import factory_kwargs  # noqa: F401
from . import modules  # noqa: F401,E402 (PyTorch's submodule layout of the classes above)
from . import parallel  # noqa: F401,E402

__all__ = (["Module", "Parameter", "Buffer", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
            "ParameterDict", "functional", "init", "utils", "LinearCrossEntropyOptions",
            "UninitializedParameter", "UninitializedBuffer", "factory_kwargs"]
           + list(_layers_all))
