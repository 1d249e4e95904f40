"""Devices: where a tensor's buffer lives, and so which backend computes with it.

Every tensor knows its device (``t.device``); every op takes its backend from its inputs'
device. Names:

- ``"cpu"``: the NumPy backend, the default.
- ``"torch:cpu"``, ``"torch:cuda"``, ``"torch:cuda:N"``, ``"torch:mps"``: the PyTorch backend
  (``pip install ember[torch]``); ``"cuda"``, ``"cuda:N"`` and ``"mps"`` are short forms.

The default device of the creation functions is ``"cpu"``, or the environment variable
``EMBER_DEVICE`` when set; ``set_default_device(d)`` changes it, and ``with ember.Device(d):``
changes it for a block (as ``torch.set_default_device`` and ``with torch.device(d):``).

>>> import ember
>>> ember.Device("cpu"), str(ember.Device("cuda:1"))
(Device('cpu'), 'torch:cuda:1')
"""

import importlib
import importlib.util
import os
import threading

from .errors import DeviceError, InvalidParameterError

__all__ = ["Device", "as_device", "get_default_device", "set_default_device", "devices", "CPU"]

_BACKEND_OF = {"cpu": "numpy", "numpy": "numpy"}
_TORCH_TYPES = ("cpu", "cuda", "mps")
_MAX_INDEX = 2 ** 63 - 1
_interned = {}
_lock = threading.Lock()


def _parse(spec, index):
    """(backend name, type, index) of a device name; InvalidParameterError for anything else."""
    if not isinstance(spec, str):
        raise InvalidParameterError(
            f"device must be a Device or a device name such as 'cpu' or 'torch:cuda:0', got "
            f"{type(spec).__name__} {spec!r}", "device", spec)
    parts = spec.strip().lower().split(":")
    if parts[0] in _BACKEND_OF and len(parts) <= 2 and index in (None, 0):
        if len(parts) == 1 or parts[1] == "0":  # "cpu:0", as PyTorch writes it
            return "numpy", "cpu", None
    if parts[0] == "torch":
        parts = parts[1:] or ["cpu"]
    if parts and parts[0] in _TORCH_TYPES and len(parts) <= 2:
        kind = parts[0]
        if len(parts) == 2:
            digits = parts[1]
            if not (digits.isascii() and digits.isdigit() and int(digits) <= _MAX_INDEX) or (
                    index is not None and index != int(digits)):
                raise InvalidParameterError(
                    f"device: {spec!r} has an invalid index; expected a name such as "
                    f"'torch:cuda:0' (an index from 0 to {_MAX_INDEX})", "device", spec)
            index = int(digits)
        if index is not None and (type(index) is not int or not 0 <= index <= _MAX_INDEX):
            raise InvalidParameterError(
                f"device: index {index!r} must be an int from 0 to {_MAX_INDEX}", "index", index)
        if kind == "cuda":
            return "torch", kind, index or 0
        if index not in (None, 0):
            raise InvalidParameterError(f"device: {kind!r} has no index {index}", "index", index)
        return "torch", kind, None
    raise InvalidParameterError(
        f"device: {spec!r} is not a device name; expected 'cpu', 'torch:cpu', 'torch:cuda', "
        "'torch:cuda:N', 'torch:mps' (or 'cuda', 'cuda:N', 'mps')", "device", spec)


class Device:
    """Where a tensor's buffer lives: a backend ("numpy" or "torch"), a type ("cpu", "cuda",
    "mps") and an index (cuda only). One object per device, so ``is`` compares them.

    ``d.backend`` is the backend module that computes on it (torch is imported the first time a
    torch device is used). Used as a context manager, it is the creation functions' default.

    >>> Device("cpu").type, Device("torch:cuda:1").index
    ('cpu', 1)
    >>> Device("cuda") == "torch:cuda:0"
    True
    """

    __slots__ = ("backend_name", "type", "index", "name", "backend", "_saved")

    def __new__(cls, type="cpu", index=None):
        if isinstance(type, Device):
            return type
        if not isinstance(type, str) and getattr(type.__class__, "__module__", "") == "torch":
            type, index = f"torch:{type.type}", type.index  # a torch.device
        key = (type, index)
        found = _interned.get(key) if isinstance(type, str) and index.__hash__ else None
        if found is not None:
            return found
        backend_name, kind, idx = _parse(type, index)
        name = "cpu" if backend_name == "numpy" else \
            f"torch:{kind}" + (f":{idx}" if idx is not None else "")
        with _lock:
            self = _interned.get(name)
            if self is None:
                self = object.__new__(cls)
                self.backend_name, self.type, self.index, self.name = backend_name, kind, idx, name
                self._saved = []
                _interned[name] = self
            _interned[key] = self
        return self

    def __getattr__(self, attr):
        if attr != "backend":
            raise AttributeError(attr)
        # the first use of this device: load its backend (a plain slot read from then on)
        module = importlib.import_module(f"ember.backends.{self.backend_name}")
        backend = module.for_device(self)
        self.backend = backend
        return backend

    def __reduce__(self):
        return (Device, (self.name,))

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = Device(other)
            except InvalidParameterError:
                return False
        return self is other

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"Device({self.name!r})"

    def __str__(self):
        return self.name

    def __call__(self):
        """The device itself, so Burn's ``t.device()`` call and the Array API's ``t.device``
        attribute give the same Device."""
        return self

    def __enter__(self):
        self.backend  # noqa: B018 - an unavailable device fails here, not at the first op
        self._saved.append(_default[0])
        _default[0] = self
        return self

    def __exit__(self, *exc):
        _default[0] = self._saved.pop()
        return False


CPU = Device("cpu")
_default = [CPU]


def as_device(value, op, param="device"):
    """``value`` as an available Device (None: the default device); InvalidParameterError for
    a value that names no device, DeviceError for a device this machine does not have.

    >>> as_device(None, "zeros")
    Device('cpu')
    """
    if value is None:
        return _default[0]
    if value.__class__ is not Device:
        try:
            value = Device(value)
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"{op}: {exc}", param, value) from None
    try:
        value.backend  # noqa: B018 - loads the backend once, raising DeviceError if unavailable
    except DeviceError as exc:
        raise DeviceError(f"{op}: {exc}", (value,)) from None
    return value


def get_default_device():
    """The device the creation functions use when not given one.

    >>> get_default_device()
    Device('cpu')
    """
    return _default[0]


def set_default_device(device):
    """Make ``device`` the creation functions' default (None: back to ``"cpu"``).

    >>> set_default_device("cpu")
    """
    _default[0] = CPU if device is None else as_device(device, "set_default_device")



def devices():
    """The devices available here: ``cpu``, then ``torch:cpu`` and each CUDA or MPS device when
    PyTorch is installed (imports torch only to ask it).

    >>> devices()[0]
    Device('cpu')
    """
    found = [CPU]
    if importlib.util.find_spec("torch") is not None:
        torch_backend = importlib.import_module("ember.backends.torch")
        found += [Device(name) for name in torch_backend.available_devices()]
    return found


def _env_default():
    name = os.environ.get("EMBER_DEVICE", "").strip()
    if not name:
        return
    try:
        _default[0] = as_device(name, "EMBER_DEVICE")
    except (InvalidParameterError, DeviceError) as exc:
        raise DeviceError(f"the environment variable EMBER_DEVICE={name!r}: {exc}") from None
