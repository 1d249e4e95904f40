"""``ember.torch.nn.utils``: gradient clipping and the parameter/vector conversions of
ember.nn.utils, their results as ember.torch tensors; ``rnn``: the packed sequences
(ember/torch/nn/utils/rnn.py).

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> nn.utils.parameters_to_vector([torch.ones(2), torch.zeros(1)]).tolist()
[1.0, 1.0, 0.0]
"""

from ....nn import utils as _eu
from ..._tensor import to_torch
from . import rnn  # noqa: F401

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters"]


def _torch_result(fn):
    def op(*args, **kwargs):
        return to_torch(fn(*args, **kwargs))
    op.__name__ = op.__qualname__ = fn.__name__
    op.__doc__ = fn.__doc__
    return op


clip_grad_norm_ = _torch_result(_eu.clip_grad_norm_)
clip_grad_value_ = _torch_result(_eu.clip_grad_value_)
parameters_to_vector = _torch_result(_eu.parameters_to_vector)
vector_to_parameters = _torch_result(_eu.vector_to_parameters)
