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

import os
import threading

from .backends import registry
from .errors import DeviceError, InvalidParameterError

__all__ = ["Device", "as_device", "get_default_device", "set_default_device", "devices", "CPU"]

_interned = {}
_lock = threading.Lock()


class Device:
    """Where a tensor's buffer lives: a backend (a name in ``ember.backends.registry``), a type
    ("cpu", "cuda", "mps") and an index (cuda only). One object per device, so ``is`` compares
    them.

    ``d.backend`` is the Backend instance that computes on it (torch is imported the first time a
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
        backend_name, kind, idx, name = registry.parse(type, index)
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
        backend = registry.module_of(self.backend_name).for_device(self)
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
    """The devices available here, backend by backend: ``cpu``, then ``torch:cpu`` and each
    CUDA or MPS device when PyTorch is installed (imports torch only to ask it).

    >>> devices()[0]
    Device('cpu')
    """
    return [Device(name) for name in registry.available_names()]


def _env_default():
    name = os.environ.get("EMBER_DEVICE", "").strip()
    if not name:
        return
    try:
        _default[0] = as_device(name, "EMBER_DEVICE")
    except (InvalidParameterError, DeviceError) as exc:
        raise DeviceError(f"the environment variable EMBER_DEVICE={name!r}: {exc}") from None
