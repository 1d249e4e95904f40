"""``torch.nn.utils.skip_init``: a module built without running its parameter initialization.
PyTorch builds it on the "meta" device and then allocates uninitialized memory, so its
parameters hold whatever the memory held. ember has no uninitialized memory: the module is
built directly on its device, and its parameters hold the layer's ordinary initial values,
which are among the values PyTorch leaves unspecified. Programs that call ``skip_init``
overwrite the parameters afterwards.

>>> from ember.torch import nn
>>> m = nn.utils.skip_init(nn.Linear, 4, 3)
>>> tuple(m.weight.shape), m.weight.requires_grad
((3, 4), True)
"""

from ....errors import DeviceError, KindError

__all__ = ["skip_init"]


def _takes_device(cls):
    """Whether ``cls(..., device=...)`` is accepted: a ``device`` parameter or ``**kwargs``."""
    code = getattr(cls.__init__, "__code__", None)
    if code is None:
        return False
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return "device" in names or bool(code.co_flags & 0x08)  # 0x08: CO_VARKEYWORDS


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` (an ember.torch.nn.Module class that takes ``device``)
    without PyTorch's initialization pass (see the module docstring); ``device`` places it.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> nn.utils.skip_init(nn.Conv1d, 2, 3, 1, device="cpu").weight.device.type
    'cpu'
    """
    from ..module import Module
    if not isinstance(module_cls, type) or not issubclass(module_cls, Module):
        raise KindError(f"skip_init: module_cls must be an ember.torch.nn.Module subclass, got "
                        f"{module_cls!r}")
    if not _takes_device(module_cls):
        raise DeviceError(f"Module must support a 'device' arg to skip initialization "
                          f"({module_cls.__name__}.__init__ takes no device)")
    return module_cls(*args, **kwargs)
