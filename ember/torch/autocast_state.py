"""PyTorch's autocast state, per thread: for each device type whether autocast is on and its
lower-precision dtype, whether casts of weights are cached, and how deep ``autocast`` regions
nest (``torch.is_autocast_enabled``, ``torch.set_autocast_dtype``, ...). ``torch.autocast``
(ember/torch/amp/autocast_mode.py) sets it; the ops ember/torch/amp/autocast_ops.py lists read
it. The device-specific spellings (``get_autocast_cpu_dtype``, ``set_autocast_xla_enabled``)
are PyTorch's deprecated ones and warn as PyTorch's do.

>>> import ember.torch as torch
>>> torch.is_autocast_enabled("cpu"), str(torch.get_autocast_dtype("cpu"))
(False, 'torch.bfloat16')
>>> with torch.autocast("cpu"):
...     torch.is_autocast_enabled("cpu")
True
"""

import threading
import warnings

from ..compiler import guard_context
from ..dtypes import DType, as_dtype, bfloat16, float16
from ..errors import DeviceError, KindError
from ._tensor import torch_function

__all__ = ["autocast_decrement_nesting", "autocast_increment_nesting", "clear_autocast_cache",
           "get_autocast_cpu_dtype", "get_autocast_dtype", "get_autocast_gpu_dtype",
           "get_autocast_ipu_dtype", "get_autocast_xla_dtype", "is_autocast_cache_enabled",
           "is_autocast_cpu_enabled", "is_autocast_enabled", "is_autocast_ipu_enabled",
           "is_autocast_xla_enabled", "set_autocast_cache_enabled", "set_autocast_cpu_dtype",
           "set_autocast_cpu_enabled", "set_autocast_dtype", "set_autocast_enabled",
           "set_autocast_gpu_dtype", "set_autocast_ipu_dtype", "set_autocast_ipu_enabled",
           "set_autocast_xla_dtype", "set_autocast_xla_enabled"]

# the device types PyTorch keeps autocast state for, and their default lower-precision dtype
DEFAULT_DTYPES = {"cuda": float16, "cpu": bfloat16, "xpu": float16, "mps": float16,
                  "hpu": bfloat16, "xla": bfloat16, "ipu": float16, "privateuseone": float16,
                  "mtia": float16, "maia": bfloat16}


class _State(threading.local):
    """One thread's autocast state (a fresh thread starts with PyTorch's defaults)."""

    def __init__(self):
        self.enabled = set()       # the device types autocast is on for
        self.dtypes = dict(DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}            # id(weight) -> (weight, its cast): see autocast_ops.py


state = _State()
# a compiled step records the casts autocast chose: the state is part of its cache key
guard_context(lambda: (frozenset(state.enabled), tuple(sorted(state.dtypes.items())))
              if state.enabled else ())


def device_type_of(device_type, op):
    """``device_type`` checked (a str naming a device type with autocast state; ``"cuda:0"``
    counts as ``"cuda"``)."""
    if not isinstance(device_type, str):
        raise KindError(f"{op}: device_type must be a str such as 'cpu' or 'cuda', got "
                        f"{type(device_type).__name__}")
    kind = device_type.split(":", 1)[0]
    if kind not in DEFAULT_DTYPES:
        raise DeviceError(f"{op}: device type {device_type!r} has no autocast state; expected "
                          f"one of {', '.join(DEFAULT_DTYPES)}", (device_type,))
    return kind


def _flag(value, op, param="enabled"):
    if not isinstance(value, bool):
        raise KindError(f"{op}: argument '{param}' must be bool, not {type(value).__name__}")
    return value


def _dtype(value, op):
    if not isinstance(value, DType):
        raise KindError(f"{op}: argument 'dtype' must be torch.dtype, not "
                        f"{type(value).__name__}")
    return as_dtype(value)  # ember's own (the state holds ember's dtypes)


def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def _set(device_type, enabled):
    if enabled:
        state.enabled.add(device_type)
    else:
        state.enabled.discard(device_type)


@torch_function
def is_autocast_enabled(device_type=None):
    """Whether autocast is on for ``device_type`` (no argument: ``"cuda"``, as PyTorch).

    >>> import ember.torch as torch
    >>> torch.is_autocast_enabled(), torch.is_autocast_enabled("cpu")
    (False, False)
    """
    kind = "cuda" if device_type is None else device_type_of(device_type, "is_autocast_enabled")
    return kind in state.enabled


@torch_function
def set_autocast_enabled(*args):
    """``set_autocast_enabled(device_type, enabled)``, or ``set_autocast_enabled(enabled)`` for
    ``"cuda"``: turn autocast on or off for the device type (``torch.autocast`` restores it).

    >>> import ember.torch as torch
    >>> torch.set_autocast_enabled("cpu", True); torch.is_autocast_enabled("cpu")
    True
    >>> torch.set_autocast_enabled("cpu", False)
    """
    op = "set_autocast_enabled"
    if len(args) == 1:
        _set("cuda", _flag(args[0], op))
    elif len(args) == 2:
        _set(device_type_of(args[0], op), _flag(args[1], op))
    else:
        raise KindError(f"{op}() takes (device_type, enabled) or (enabled), got {len(args)} "
                        "arguments")


@torch_function
def get_autocast_dtype(device_type):
    """The dtype autocast casts to on ``device_type`` (``bfloat16`` for ``"cpu"``,
    ``float16`` for ``"cuda"`` unless set).

    >>> import ember.torch as torch
    >>> print(torch.get_autocast_dtype("cuda"))
    torch.float16
    """
    return state.dtypes[device_type_of(device_type, "get_autocast_dtype")]


@torch_function
def set_autocast_dtype(device_type, dtype):
    """Set the dtype autocast casts to on ``device_type`` (``torch.autocast`` restores it).

    >>> import ember.torch as torch
    >>> torch.set_autocast_dtype("cpu", torch.float16); print(torch.get_autocast_dtype("cpu"))
    torch.float16
    >>> torch.set_autocast_dtype("cpu", torch.bfloat16)
    """
    op = "set_autocast_dtype"
    state.dtypes[device_type_of(device_type, op)] = _dtype(dtype, op)


@torch_function
def is_autocast_cache_enabled():
    """Whether autocast caches the casts of weights (leaf tensors that require grad) within
    its outermost region; True unless set.

    >>> import ember.torch as torch
    >>> torch.is_autocast_cache_enabled()
    True
    """
    return state.cache_enabled


@torch_function
def set_autocast_cache_enabled(enabled):
    """Turn autocast's weight-cast cache on or off.

    >>> import ember.torch as torch
    >>> torch.set_autocast_cache_enabled(False); torch.is_autocast_cache_enabled()
    False
    >>> torch.set_autocast_cache_enabled(True)
    """
    state.cache_enabled = _flag(enabled, "set_autocast_cache_enabled")


@torch_function
def clear_autocast_cache():
    """Forget every cached weight cast (the outermost ``autocast`` region does it on exit).

    >>> import ember.torch as torch
    >>> torch.clear_autocast_cache()
    """
    state.cache.clear()


@torch_function
def autocast_increment_nesting():
    """Count one more open autocast region; returns the new depth.

    >>> import ember.torch as torch
    >>> torch.autocast_increment_nesting(), torch.autocast_decrement_nesting()
    (1, 0)
    """
    state.nesting += 1
    return state.nesting


@torch_function
def autocast_decrement_nesting():
    """Count one autocast region less; returns the new depth (PyTorch's counter goes below 0
    too).

    >>> import ember.torch as torch
    >>> torch.autocast_decrement_nesting(), torch.autocast_increment_nesting()
    (-1, 0)
    """
    state.nesting -= 1
    return state.nesting


# -- PyTorch's deprecated device-specific spellings --------------------------------------------

def _enabled_getter(kind):
    def getter():
        _deprecated(f"is_autocast_{kind}_enabled()", f"is_autocast_enabled('{kind}')")
        return kind in state.enabled
    return getter


def _enabled_setter(kind):
    def setter(enabled):
        _deprecated(f"set_autocast_{kind}_enabled(enabled)",
                    f"set_autocast_enabled('{kind}', enabled)")
        _set(kind, _flag(enabled, f"set_autocast_{kind}_enabled"))
    return setter


def _dtype_getter(name, kind):
    def getter():
        _deprecated(f"get_autocast_{name}_dtype()", f"get_autocast_dtype('{kind}')")
        return state.dtypes[kind]
    return getter


def _dtype_setter(name, kind):
    def setter(dtype):
        _deprecated(f"set_autocast_{name}_dtype(dtype)", f"set_autocast_dtype('{kind}', dtype)")
        state.dtypes[kind] = _dtype(dtype, f"set_autocast_{name}_dtype")
    return setter


_EXAMPLE = """

    >>> import warnings
    >>> import ember.torch as torch
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     {call}
    {result}"""


def _register(fn, name, doc, call, result=""):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc + _EXAMPLE.format(call=call, result=result).rstrip() + "\n    "
    return torch_function(fn, name=name)


for _kind in ("cpu", "ipu", "xla"):
    is_ = _register(_enabled_getter(_kind), f"is_autocast_{_kind}_enabled",
                    f"Deprecated (a DeprecationWarning): ``is_autocast_enabled('{_kind}')``.",
                    f"torch.is_autocast_{_kind}_enabled()", "False")
    set_ = _register(_enabled_setter(_kind), f"set_autocast_{_kind}_enabled",
                     f"Deprecated (a DeprecationWarning): ``set_autocast_enabled('{_kind}', "
                     "enabled)``.", f"torch.set_autocast_{_kind}_enabled(False)")
    globals()[is_.__qualname__], globals()[set_.__qualname__] = is_, set_
for _name, _kind in (("cpu", "cpu"), ("gpu", "cuda"), ("ipu", "ipu"), ("xla", "xla")):
    _default = DEFAULT_DTYPES[_kind].name
    get_ = _register(_dtype_getter(_name, _kind), f"get_autocast_{_name}_dtype",
                     f"Deprecated (a DeprecationWarning): ``get_autocast_dtype('{_kind}')``.",
                     f"print(torch.get_autocast_{_name}_dtype())", f"torch.{_default}")
    set_ = _register(_dtype_setter(_name, _kind), f"set_autocast_{_name}_dtype",
                     f"Deprecated (a DeprecationWarning): ``set_autocast_dtype('{_kind}', "
                     "dtype)``.", f"torch.set_autocast_{_name}_dtype(torch.{_default})")
    globals()[get_.__qualname__], globals()[set_.__qualname__] = get_, set_
del _kind, _name, _default, is_, set_, get_
