"""``torch.nn.utils.convert_conv2d_weight_memory_format`` and ``..._conv3d_...``: PyTorch
re-lays the weights of every Conv2d / ConvTranspose2d (Conv3d / ConvTranspose3d) under a module
in ``memory_format`` (``torch.channels_last``), keeping each Parameter object and its values.
ember's buffers have one layout (row-major), so the weights keep their layout too: the module
comes back with the same Parameters and values, as PyTorch's does, and ``memory_format`` is
checked.

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> m = nn.Sequential(nn.Conv2d(1, 2, 3))
>>> nn.utils.convert_conv2d_weight_memory_format(m, torch.channels_last) is m
True
"""

from ....errors import KindError
from ...conversion import _check_format

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, op):
    from ..module import Module
    if not isinstance(module, Module):
        raise KindError(f"{op}: module must be an ember.torch.nn.Module, got "
                        f"{type(module).__name__}")
    _check_format(memory_format, op)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """``module`` with its Conv2d / ConvTranspose2d weights in ``memory_format`` (ember's one
    layout: values and Parameter objects unchanged); returns ``module``.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> conv = nn.Conv2d(1, 1, 1)
    >>> w = conv.weight
    >>> nn.utils.convert_conv2d_weight_memory_format(conv, torch.channels_last).weight is w
    True
    """
    return _convert(module, memory_format, "convert_conv2d_weight_memory_format")


def convert_conv3d_weight_memory_format(module, memory_format):
    """``module`` with its Conv3d / ConvTranspose3d weights in ``memory_format`` (ember's one
    layout: values and Parameter objects unchanged); returns ``module``.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> conv = nn.Conv3d(1, 1, 1)
    >>> nn.utils.convert_conv3d_weight_memory_format(conv, torch.channels_last_3d) is conv
    True
    """
    return _convert(module, memory_format, "convert_conv3d_weight_memory_format")
