"""``ember.torch.nn.utils``: gradient clipping and the parameter/vector conversions of
ember.nn.utils, their results as ember.torch tensors; the total-norm helpers
(clip_grad.py), batch-norm folding (fusion.py), the hook-based weight and spectral
normalizations (weight_norm.py, spectral_norm.py), the weight memory formats
(memory_format.py), ``skip_init`` (module_init.py); ``rnn``: the packed sequences
(ember/torch/nn/utils/rnn.py).

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> nn.utils.parameters_to_vector([torch.ones(2), torch.zeros(1)]).tolist()
[1.0, 1.0, 0.0]
"""

from ....nn import utils as _eu
from ..._tensor import returns_torch
from . import rnn  # noqa: F401
from .clip_grad import clip_grad_norm, clip_grads_with_norm_, get_total_norm
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,
                     fuse_linear_bn_weights)
from .memory_format import (convert_conv2d_weight_memory_format,
                            convert_conv3d_weight_memory_format)
from .module_init import skip_init
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters", "clip_grad_norm", "clip_grads_with_norm_", "get_total_norm",
           "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "weight_norm", "remove_weight_norm", "spectral_norm",
           "remove_spectral_norm", "skip_init"]

clip_grad_norm_ = returns_torch(_eu.clip_grad_norm_)
clip_grad_value_ = returns_torch(_eu.clip_grad_value_)
parameters_to_vector = returns_torch(_eu.parameters_to_vector)
vector_to_parameters = returns_torch(_eu.vector_to_parameters)
