"""Backends: the only code that touches an array library.

A backend is a subclass of ``base.Backend`` (``NumpyBackend``, ``TorchBackend``) registered in
``registry``; its kernels take and return the backend's own arrays and ember DTypes, and never
validate (ops check their arguments above the seam). ``Device.backend`` is the Backend instance
of one device; an op takes it from its inputs (``x._device.backend``). ``adopt`` tells the
device of an array a kernel returned. See docs/internals.md, "Adding a backend".
"""

from . import registry

__all__ = ["adopt", "host_of", "adam_scales"]


_adopters = {}  # array class -> the adopt of the backend module that owns it (found once)


def adopt(data):
    """``(array, device)`` for a kernel's result that is not a plain NumPy array: a NumPy scalar
    becomes a 0-d array on the CPU, a torch tensor stays and names its torch device, a deferred
    chain (``lazy.Chain``) stays on its device."""
    found = _adopters.get(data.__class__)
    if found is None:  # every backend owns arrays by their class: the first owner is kept
        from .lazy.chain import Chain  # (after ember.backends is made: lazy imports the base)
        if data.__class__ is Chain:
            found = _adopters[Chain] = _chain_device
        else:
            module = registry.owner_of(data)
            if module is None:
                raise TypeError(f"no ember backend holds a {type(data).__name__}")  # a kernel bug
            found = _adopters[data.__class__] = module.adopt
    return found(data)


def _chain_device(chain):
    return chain, chain.device


def host_of(data):
    """The Backend of the device that holds the array ``data`` (None when no loaded backend's
    arrays include it)."""
    module = registry.owner_of(data)
    return None if module is None else module.adopt(data)[1].backend


def adam_scales(step, lr, beta1, beta2):
    """Adam's bias corrections at ``step`` (1 on the first), as PyTorch computes them: the step
    size ``lr / (1 - beta1 ** step)`` and ``sqrt(1 - beta2 ** step)``."""
    return lr / (1 - beta1 ** step), (1 - beta2 ** step) ** 0.5
