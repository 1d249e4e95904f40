"""``ember.torch.nn.utils``: gradient clipping and the parameter/vector conversions of
ember.nn.utils, their results as ember.torch tensors; ``rnn``: the packed sequences
(ember/torch/nn/utils/rnn.py).

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> nn.utils.parameters_to_vector([torch.ones(2), torch.zeros(1)]).tolist()
[1.0, 1.0, 0.0]
"""

from ....nn import utils as _eu
from ..._tensor import returns_torch
from . import rnn  # noqa: F401

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters"]



clip_grad_norm_ = returns_torch(_eu.clip_grad_norm_)
clip_grad_value_ = returns_torch(_eu.clip_grad_value_)
parameters_to_vector = returns_torch(_eu.parameters_to_vector)
vector_to_parameters = returns_torch(_eu.vector_to_parameters)
