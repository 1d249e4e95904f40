"""The registry of backends: each registers its name, the module that implements it (imported
on a device's first use), a parser of its device names and an availability probe. Devices,
dtypes, data and random ask the registry; nothing outside ``ember/backends`` names a backend.

A backend module provides ``for_device(device)`` (its Backend instance for an ember Device),
``available_devices()``, ``instances()`` (the Backend instances made so far), ``owns(data)``,
``adopt(data)`` (``(array, Device)``) and ``ember_dtype(value)``.

>>> parse("cuda:1", None)
('torch', 'cuda', 1, 'torch:cuda:1')
>>> parse("cpu", None)
('numpy', 'cpu', None, 'cpu')
"""

import importlib
import importlib.util
import sys
from typing import Callable, NamedTuple

from ..errors import InvalidParameterError

__all__ = ["Entry", "register", "entries", "names", "array_names", "parse", "module_of", "loaded_modules",
           "owner_of", "ember_dtype", "used_unloaded", "loaded_backends", "available_names", "device_heads",
           "MAX_INDEX"]

MAX_INDEX = 2 ** 63 - 1


class Entry(NamedTuple):
    """One registered backend: ``parse(parts, index, spec)`` gives ``(type, index, name)`` for
    the lower-cased, ``:``-split device name ``parts`` it owns (None for one it does not);
    ``heads`` are the first parts it answers to; ``package`` is the library it needs (it can
    load where that is installed); ``array`` names its array type for messages."""
    name: str
    module: str
    heads: tuple
    parse: Callable
    package: str
    array: str

    def probe(self):
        """Whether the backend's library is installed here (nothing is imported)."""
        return importlib.util.find_spec(self.package) is not None


_entries = {}


def register(name, module, heads, parse, package, array):
    """Register the backend ``name`` (its module is imported on first use).

    >>> register("numpy", "ember.backends.numpy", ("cpu", "numpy"), _parse_numpy, "numpy",
    ...          "numpy.ndarray").name
    'numpy'
    """
    entry = _entries[name] = Entry(name, module, tuple(heads), parse, package, array)
    return entry


def entries():
    """The registered backends, in registration order."""
    return list(_entries.values())


def names():
    """The registered backends' names ("numpy", "torch", ...)."""
    return list(_entries)


def array_names(name=None):
    """The array type of the backend ``name`` (default: of every backend), for messages:
    "a numpy.ndarray or a torch.Tensor"."""
    found = [e.array for e in _entries.values() if name is None or e.name == name]
    return " or ".join(("an " if a[0].lower() in "aeiou" else "a ") + a for a in found)


def device_heads():
    """Every first part of a device name some backend answers to ("cpu", "torch", "cuda" ...)."""
    return tuple(h for e in _entries.values() for h in e.heads)


def parse(spec, index):
    """``(backend name, type, index, canonical name)`` of the device name ``spec`` (with the
    separate ``index``, or None); InvalidParameterError for a name no backend owns."""
    if not isinstance(spec, str):
        raise InvalidParameterError(
            f"device must be a Device or a device name such as 'cpu' or 'torch:cuda:0', got "
            f"{type(spec).__name__} {spec!r}", "device", spec)
    parts = spec.strip().lower().split(":")
    for entry in _entries.values():
        if parts[0] in entry.heads:
            found = entry.parse(parts, index, spec)
            if found is not None:
                return (entry.name, *found)
    raise InvalidParameterError(
        f"device: {spec!r} is not a device name; expected 'cpu', 'torch:cpu', 'torch:cuda', "
        "'torch:cuda:N', 'torch:mps' (or 'cuda', 'cuda:N', 'mps'), 'xp:<library>' ('xp:jax', "
        "'xp:array_api_strict', 'xp:dask')", "device", spec)


def module_of(name):
    """The module of the backend ``name``, imported now if it was not."""
    return importlib.import_module(_entries[name].module)


def loaded_modules():
    """The modules of the backends imported so far."""
    return [sys.modules[e.module] for e in _entries.values() if e.module in sys.modules]


def owner_of(data):
    """The loaded backend module whose arrays include ``data``, or None."""
    for module in loaded_modules():
        if module.owns(data):
            return module
    return None


def ember_dtype(value):
    """The ember DType of a loaded backend's own dtype (``numpy.float32``, ``torch.int8``), or
    None."""
    for module in loaded_modules():
        found = module.ember_dtype(value)
        if found is not None:
            return found
    return None


def used_unloaded():
    """The backends whose library the program has imported but ember has not loaded yet."""
    return [e for e in _entries.values() if e.package in sys.modules and e.module not in sys.modules]


def loaded_backends():
    """Every Backend instance made so far, of every loaded backend."""
    return [b for module in loaded_modules() for b in module.instances()]


def available_names():
    """The device names this machine has, backend by backend (a backend whose probe fails is
    skipped, and importing it is left for later)."""
    names = []
    for entry in _entries.values():
        if entry.probe():
            names += module_of(entry.name).available_devices()
    return names


def _index(spec, digits, index):
    """The device index written after the type (``digits``) or passed separately."""
    if digits is not None:
        if not (digits.isascii() and digits.isdigit() and int(digits) <= MAX_INDEX) or (
                index is not None and index != int(digits)):
            raise InvalidParameterError(
                f"device: {spec!r} has an invalid index; expected a name such as "
                f"'torch:cuda:0' (an index from 0 to {MAX_INDEX})", "device", spec)
        index = int(digits)
    if index is not None and (type(index) is not int or not 0 <= index <= MAX_INDEX):
        raise InvalidParameterError(
            f"device: index {index!r} must be an int from 0 to {MAX_INDEX}", "index", index)
    return index


def _parse_numpy(parts, index, spec):
    """"cpu" (and "cpu:0", as PyTorch writes it; "numpy"): the NumPy backend's one device."""
    if len(parts) <= 2 and index in (None, 0) and (len(parts) == 1 or parts[1] == "0"):
        return "cpu", None, "cpu"
    return None


_TORCH_TYPES = ("cpu", "cuda", "mps")


def _parse_torch(parts, index, spec):
    """"torch:cpu", "torch:cuda[:N]", "torch:mps" and the short forms "cuda[:N]", "mps"."""
    if parts[0] == "torch":
        parts = parts[1:] or ["cpu"]
    if not parts or parts[0] not in _TORCH_TYPES or len(parts) > 2:
        return None
    kind = parts[0]
    index = _index(spec, parts[1] if len(parts) == 2 else None, index)
    if kind == "cuda":
        return kind, index or 0, f"torch:cuda:{index or 0}"
    if index not in (None, 0):
        raise InvalidParameterError(f"device: {kind!r} has no index {index}", "index", index)
    return kind, None, f"torch:{kind}"


register("numpy", "ember.backends.numpy", ("cpu", "numpy"), _parse_numpy, "numpy",
         "numpy.ndarray")
register("torch", "ember.backends.torch", ("torch", "cpu", "cuda", "mps"), _parse_torch, "torch",
         "torch.Tensor")


def _parse_xp(parts, index, spec):
    """"xp:<library>": an Array API library (``xp:jax``, ``xp:array_api_strict``, ``xp:dask``)
    on its default device; the device's type is "cpu" for a library that computes in host
    memory (array-api-strict, Dask), else the library's device's, as PyTorch names it (JAX's
    default device: "cpu" or "cuda"; JAX is imported to tell)."""
    from .xp.libraries import LIBRARIES  # the table only: no library is imported
    if len(parts) != 2 or index not in (None, 0):
        return None
    if parts[1] not in LIBRARIES:
        raise InvalidParameterError(
            f"device: {spec!r} names no Array API library ember runs on; expected one of "
            + ", ".join(f"'xp:{n}'" for n in LIBRARIES), "device", spec)
    return LIBRARIES[parts[1]].device_type(), None, f"xp:{parts[1]}"


register("xp", "ember.backends.xp", ("xp",), _parse_xp, "array_api_compat", "Array API array")
