"""PyTorch's deprecated per-device spellings, ``torch.cpu.amp`` and ``torch.cuda.amp``: their
``autocast`` and ``GradScaler`` are ``torch.amp``'s with the device type fixed (each warns
with a FutureWarning, as PyTorch's); ``torch.cuda.amp`` also has ``custom_fwd`` /
``custom_bwd`` (device type ``"cuda"``) and ``amp_definitely_not_available``.
``cpu_amp`` and ``cuda_amp`` are the two modules (ember/torch/amp/__init__.py attaches them).

>>> import warnings
>>> import ember.torch as torch
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     with torch.cpu.amp.autocast():
...         torch.is_autocast_enabled("cpu")
True
"""

import types
import warnings

from ... import cuda as _cuda
from ...dtypes import bfloat16, float16
from .autocast_mode import autocast as _autocast
from .custom_functions import custom_bwd as _custom_bwd, custom_fwd as _custom_fwd
from .grad_scaler import GradScaler as _GradScaler

__all__ = ["cpu_amp", "cuda_amp"]


def _deprecated(old, new):
    warnings.warn(f"`{old}(args...)` is deprecated. Please use `{new}(args...)` instead.",
                  FutureWarning, stacklevel=3)


class CpuAutocast(_autocast):
    """``torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16, cache_enabled=True)``."""

    def __init__(self, enabled=True, dtype=bfloat16, cache_enabled=True):
        _deprecated("torch.cpu.amp.autocast", "torch.amp.autocast('cpu', ")
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CudaAutocast(_autocast):
    """``torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)``."""

    def __init__(self, enabled=True, dtype=float16, cache_enabled=True):
        _deprecated("torch.cuda.amp.autocast", "torch.amp.autocast('cuda', ")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CpuGradScaler(_GradScaler):
    """``torch.cpu.amp.GradScaler(init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)``."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        _deprecated("torch.cpu.amp.GradScaler", "torch.amp.GradScaler('cpu', ")
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)


class CudaGradScaler(_GradScaler):
    """``torch.cuda.amp.GradScaler(init_scale=2.0**16, ..., enabled=True)``."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        _deprecated("torch.cuda.amp.GradScaler", "torch.amp.GradScaler('cuda', ")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """``torch.cuda.amp.custom_fwd``: ``torch.amp.custom_fwd(device_type="cuda")``."""
    _deprecated("torch.cuda.amp.custom_fwd", "torch.amp.custom_fwd(device_type='cuda', ")
    return _custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd=None):
    """``torch.cuda.amp.custom_bwd``: ``torch.amp.custom_bwd(device_type="cuda")``."""
    _deprecated("torch.cuda.amp.custom_bwd", "torch.amp.custom_bwd(device_type='cuda', ")
    return _custom_bwd(bwd, device_type="cuda")


def amp_definitely_not_available():
    """Whether CUDA autocast cannot be used here (no CUDA device).

    >>> import ember.torch as torch
    >>> torch.cuda.amp.amp_definitely_not_available() == (not torch.cuda.is_available())
    True
    """
    return not _cuda.is_available()


def _module(name, doc, **names):
    mod = types.ModuleType(name, doc)
    for key, value in names.items():
        value.__name__ = key
        value.__qualname__ = key
        setattr(mod, key, value)
    mod.__all__ = list(names)
    return mod


cpu_amp = _module("ember.torch.cpu.amp", "torch.cpu.amp: deprecated; use torch.amp.",
                  autocast=CpuAutocast, GradScaler=CpuGradScaler)
cuda_amp = _module("ember.torch.cuda.amp", "torch.cuda.amp: deprecated; use torch.amp.",
                   autocast=CudaAutocast, GradScaler=CudaGradScaler, custom_fwd=custom_fwd,
                   custom_bwd=custom_bwd,
                   amp_definitely_not_available=amp_definitely_not_available)
