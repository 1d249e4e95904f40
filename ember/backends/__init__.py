"""Backends: the only code that touches an array library.

A backend is a module (``ember.backends.numpy``, ``ember.backends.torch``) whose public functions
are kernels: they take and return the backend's own arrays and ember DTypes, and never validate
(ops check their arguments above the seam). ``Device.backend`` is the kernel table for one device;
an op takes it from its inputs (``x._device.backend``). ``adopt`` tells the device of an array a
kernel returned. See docs/devices.md for the protocol and how to add a backend.
"""

import sys

__all__ = ["adopt", "host_of", "kernel_table", "along_key", "adam_scales"]


def kernel_table(families, backend):
    """``{name: kernel}`` of a backend, gathered from each family module's ``__all__``; a name
    that two families define differently is an error (a backend has one kernel per name)."""
    table = {}
    for module in families:
        for name in module.__all__:
            kernel = getattr(module, name)
            if table.get(name, kernel) is not kernel:
                raise RuntimeError(f"{backend} backend: kernel {name!r} is defined twice")
            table[name] = kernel
    return table


def adopt(data):
    """``(array, device)`` for a kernel's result that is not a plain NumPy array: a NumPy scalar
    becomes a 0-d array on the CPU, a torch tensor stays and names its torch device."""
    for name in ("numpy", "torch"):
        module = sys.modules.get(f"ember.backends.{name}")
        if module is not None and module.owns(data):
            return module.adopt(data)
    raise TypeError(f"no ember backend holds a {type(data).__name__}")  # a kernel bug, not user input


def host_of(data):
    """The backend module that holds the array ``data`` (None when no loaded backend does)."""
    for name in ("numpy", "torch"):
        module = sys.modules.get(f"ember.backends.{name}")
        if module is not None and module.owns(data):
            return module
    return None


def along_key(index, axis, arange):
    """The advanced-indexing key of ``take_along_axis``, for every backend: ``index`` on
    ``axis`` and, on each other dim ``d``, ``arange(n)`` (the backend's int range of the size
    ``n`` of dim ``d``) shaped to broadcast along ``d``."""
    nd = index.ndim
    key = []
    for d, n in enumerate(index.shape):
        if d == axis:
            key.append(index)
        else:
            shape = [1] * nd
            shape[d] = n
            key.append(arange(n).reshape(shape))
    return tuple(key)


def adam_scales(step, lr, beta1, beta2):
    """Adam's bias corrections at ``step`` (1 on the first), as PyTorch computes them: the step
    size ``lr / (1 - beta1 ** step)`` and ``sqrt(1 - beta2 ** step)``."""
    return lr / (1 - beta1 ** step), (1 - beta2 ** step) ** 0.5
