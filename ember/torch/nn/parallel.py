"""``ember.torch.nn.parallel``: ``DataParallel`` (``ember.torch.nn``'s) and ``data_parallel``.

PyTorch splits a batch along ``dim`` over several GPUs, runs a replica of the module on each
part and joins the outputs; with one device it calls the module itself. ember runs a module on
the device of its tensors, so both call the module once on the whole batch: the values and
gradients of the split run (batch norm aside, whose per-replica statistics differ).

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> fc = nn.Linear(3, 2)
>>> x = torch.ones(4, 3)
>>> bool((nn.parallel.data_parallel(fc, x) == fc(x)).all())
True
"""

from .layers import DataParallel

__all__ = ["DataParallel", "data_parallel"]


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """PyTorch's ``nn.parallel.data_parallel``: ``DataParallel(module, device_ids,
    output_device, dim)`` called on ``inputs`` (a tensor or a tuple of them) and
    ``module_kwargs``; a module that is not an nn.Module raises InvalidParameterError."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,)
    return DataParallel(module, device_ids, output_device, dim)(*inputs, **(module_kwargs or {}))
