"""Argument helpers shared by the Array API functions."""

from .. import dtypes as _dt
from ..devices import as_device
from ..return_types import ValuesTensor

__all__ = ["_axis", "_check_device", "_dtype", "_plain"]


def _check_device(device, op):
    """``device`` (an ember Device, a device name or a ``torch.device``) as an available Device;
    None stays None (the default device, or the input's)."""
    return None if device is None else as_device(device, op)


def _dtype(dtype):
    if dtype is None or type(dtype) is _dt.DType:
        return dtype
    return _dt.as_dtype(dtype)


def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _plain(t):
    """``t`` as a plain tensor: the standard's functions return arrays, which take integer
    indexing, not the values-only ``ValuesTensor`` of ember's ``max``/``min``/``sort`` methods."""
    return t.values if isinstance(t, ValuesTensor) else t
