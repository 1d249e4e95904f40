"""Where a module's tensors live and in which dtype: ``Module.to``, ``to_device``, ``fork``,
``cpu``, ``float``/``double``/``half``, ``devices`` and ``collect_devices`` (Burn's and
PyTorch's), attached to Module with ``module_method``.

Each moves or casts by rebinding a module's tensors: a parameter keeps its identity on a move
(an optimizer made before keeps working) and its require-grad flag on a cast.
"""

from .. import dtypes as _dt
from ..backends import registry
from ..devices import as_device
from ..errors import KindError
from .._tensor import Device, transfer, wrap
from .module import module_method

__all__ = []


def _names_device(value):
    """Whether the string ``value`` names a device ("cpu", "torch:cpu", "cuda:1" ...)."""
    head = value.split(":")[0].strip().lower()
    return head in registry.device_heads()


@module_method
def to(self, *args, device=None, dtype=None):
    """Move to ``device`` (as ``to_device``) and/or cast the float parameters and buffers
    to the float ``dtype`` (rebinding them; require-grad kept); returns self.

    >>> import ember
    >>> from ember import nn
    >>> nn.Linear(2, 2).to("cpu").to(ember.float64).weight.dtype
    ember.float64
    """
    for a in args:
        if isinstance(a, Device) or (isinstance(a, str) and _names_device(a)):
            device = a
        else:
            dtype = a
    if device is not None:
        device = as_device(device, "to")
    dt = None
    if dtype is not None:
        dt = _dt.as_dtype(dtype)
        if dt.kind != "float":
            if dt.kind == "complex":
                raise _dt.complex_error("to", "dtype", dt)
            raise KindError(f"to: dtype {dt.name} is not a float dtype; modules cast their "
                            "float tensors only")
    if device is not None:
        self._move(device)
    if dt is not None:
        self._cast_floats(dt)
    return self

@module_method
def _move(self, device):
    """Rebind every parameter and buffer (and a parameter's ``.grad``) to ``device``: each
    tensor object stays (tied weights stay tied, an optimizer keeps its parameters) and a
    parameter stays a leaf with its require-grad flag."""
    seen = set()
    for _, _, _, t in (self._slots("param", dedupe=False)
                       + self._slots("buffer", dedupe=False)):
        if t is None or id(t) in seen or t._device is device:
            continue
        seen.add(id(t))
        t._data = transfer(t._data, t._dtype, t._device, device)
        t._device = device
        g = t._grad
        if g is not None and g._device is not device:
            t._grad = wrap(transfer(g._data, g._dtype, g._device, device), g._dtype)

@module_method
def _cast_floats(self, dt):
    done = {}
    for _, mod, path, t in (self._slots("param", dedupe=False)
                            + self._slots("buffer", dedupe=False)):
        if t._dtype.kind != "float" or t._dtype is dt:
            continue
        new = done.get(id(t))
        if new is None:
            c = t.cast(dt)
            new = wrap(c._data, dt)
            if t.is_require_grad():
                new.require_grad()
            done[id(t)] = new
        mod._rebind(path, new)

@module_method
def cpu(self):
    """The module on the ``"cpu"`` device (the NumPy backend); returns self.

    >>> from ember import nn
    >>> m = nn.ReLU(); m.cpu() is m
    True
    """
    return self.to_device("cpu")

@module_method
def float(self):
    """Cast float parameters and buffers to float32; returns self.

    >>> from ember import nn
    >>> nn.Linear(1, 1, dtype="float64").float().weight.dtype
    ember.float32
    """
    return self.to(dtype=_dt.float32)

@module_method
def double(self):
    """Cast float parameters and buffers to float64; returns self.

    >>> from ember import nn
    >>> nn.Linear(1, 1).double().bias.dtype
    ember.float64
    """
    return self.to(dtype=_dt.float64)

@module_method
def half(self):
    """Cast float parameters and buffers to float16; returns self.

    >>> from ember import nn
    >>> nn.Linear(1, 1).half().weight.dtype
    ember.float16
    """
    return self.to(dtype=_dt.float16)

@module_method
def devices(self):
    """The devices of the module's parameters and buffers, in the order first met (Burn's
    ``devices``); a module without tensors is on the default device.

    >>> from ember import nn
    >>> nn.Linear(1, 1).devices()
    [Device('cpu')]
    """
    out = []
    for _, _, _, t in self._slots("param") + self._slots("buffer"):
        if t is not None and t._device not in out:
            out.append(t._device)
    return out or [as_device(None, "devices")]

@module_method
def to_device(self, device):
    """Burn's ``to_device``: move every parameter and buffer to ``device`` (a Device or a
    name such as ``"torch:cpu"``); parameters stay leaves with their require-grad flag and
    their identity (an optimizer made before keeps working: its state follows). Returns
    self.

    >>> from ember import nn
    >>> m = nn.Linear(2, 2); m.to_device("cpu") is m
    True
    """
    self._move(as_device(device, "to_device"))
    return self

@module_method
def fork(self, device):
    """Burn's ``fork``: the module on ``device`` with fresh parameters: each becomes a new
    leaf tensor (same values, same require-grad flag, no gradient, no graph behind it),
    rebound in the module; buffers move as in ``to_device``. Returns self.

    >>> from ember import nn
    >>> m = nn.Linear(2, 2); w = m.weight
    >>> m.fork("cpu") is m, m.weight is w, m.weight.is_require_grad()
    (True, False, True)
    """
    device = as_device(device, "fork")
    done = {}
    for _, mod, path, t in self._slots("param", dedupe=False):
        new = done.get(id(t))
        if new is None:
            data = t._data if t._device is device else transfer(t._data, t._dtype,
                                                                  t._device, device)
            new = wrap(data, t._dtype)
            if t.is_require_grad():
                new.require_grad()
            done[id(t)] = new
        mod._rebind(path, new)
    self._move(device)
    return self

@module_method
def collect_devices(self, devices):
    """Burn's ``collect_devices``: ``devices`` plus the module's, without duplicates.

    >>> from ember import nn
    >>> nn.Linear(1, 1).collect_devices([])
    [Device('cpu')]
    """
    out = list(devices)
    for d in self.devices():
        if d not in out:
            out.append(d)
    return out
