"""PyTorch's runtime queries and switches under ``ember.torch``: the exception classes, the
``__torch_function__`` guards, devices of tensors, inference and anomaly mode, DLPack export
and the build and process-environment queries.

- ``AcceleratorError`` and ``OutOfMemoryError`` are ``RuntimeError``s, ``FatalError`` and
  ``JITException`` plain ``Exception``s, as PyTorch's (each is also an ``ember.EmberError``).
- ``DisableTorchFunction`` / ``DisableTorchFunctionSubclass``: context managers inside which
  ``__torch_function__`` overrides are not consulted. ember's ops never dispatch through
  ``__torch_function__``, so inside and outside behave the same; the managers nest and report
  their state through ``ember.torch.runtime.is_torch_function_enabled()``.
- ``compiled_with_cxx11_abi()`` is True (ember's native code, NumPy and PyTorch's wheels, is
  built with the C++11 ABI); ``profiler_allow_cudagraph_cupti_lazy_reinit_cuda12()`` is True,
  as PyTorch's; ``prepare_multiprocessing_environment(path)`` does nothing, as PyTorch's.

>>> import ember.torch as torch
>>> torch.get_device(torch.ones(1)), torch.is_inference_mode_enabled()
(-1, False)
>>> with torch.inference_mode():
...     torch.is_inference_mode_enabled()
True
"""

import functools
import threading

from ..autodiff.graph import inference_mode as _ember_inference_mode
from ..errors import EmberError, InvalidParameterError, KindError
from .._tensor import Tensor as _T
from ._tensor import functions, torch_function

__all__ = ["AcceleratorError", "OutOfMemoryError", "FatalError", "JITException",
           "DisableTorchFunction", "DisableTorchFunctionSubclass", "classproperty",
           "compiled_with_cxx11_abi", "prepare_multiprocessing_environment",
           "thread_safe_generator", "profiler_allow_cudagraph_cupti_lazy_reinit_cuda12",
           "get_device", "get_device_module", "is_distributed", "is_inference",
           "is_inference_mode_enabled", "inference_mode", "set_anomaly_enabled", "to_dlpack",
           "is_torch_function_enabled"]


def _tensor(t, op, param="input"):
    if not isinstance(t, _T):
        raise KindError(f"{op}: {param} must be a Tensor, got {type(t).__name__}")
    return t


# -- exceptions ---------------------------------------------------------------------------------

class AcceleratorError(EmberError, RuntimeError):
    """An accelerator reported an error (PyTorch's ``torch.AcceleratorError``)."""


class OutOfMemoryError(EmberError, RuntimeError):
    """A device ran out of memory (PyTorch's ``torch.OutOfMemoryError``)."""


class FatalError(EmberError, Exception):
    """An unrecoverable runtime error (PyTorch's ``torch.FatalError``)."""


class JITException(EmberError, Exception):
    """An error raised by scripted code (PyTorch's ``torch.JITException``, ``torch.jit.Error``)."""


# -- __torch_function__ guards -------------------------------------------------------------------

_guard = threading.local()


def _depth(kind):
    return getattr(_guard, kind, 0)


class DisableTorchFunctionSubclass:
    """Context manager: ``__torch_function__`` overrides of Tensor subclasses are not consulted
    inside (ember dispatches none, so the code inside runs as outside).

    >>> import ember.torch as torch
    >>> with torch.DisableTorchFunctionSubclass():
    ...     torch.runtime.is_torch_function_enabled()
    False
    >>> torch.runtime.is_torch_function_enabled()
    True
    """

    _kind = "subclass"

    def __enter__(self):
        setattr(_guard, self._kind, _depth(self._kind) + 1)
        return self

    def __exit__(self, *exc):
        setattr(_guard, self._kind, _depth(self._kind) - 1)
        return False


class DisableTorchFunction(DisableTorchFunctionSubclass):
    """Context manager: no ``__torch_function__`` override (of subclasses or modes) is
    consulted inside.

    >>> import ember.torch as torch
    >>> with torch.DisableTorchFunction():
    ...     torch.runtime.is_torch_function_enabled()
    False
    """

    _kind = "all"


def is_torch_function_enabled():
    """Whether ``__torch_function__`` overrides are consulted here (False inside a
    ``DisableTorchFunction`` or ``DisableTorchFunctionSubclass`` block).

    >>> import ember.torch as torch
    >>> torch.runtime.is_torch_function_enabled()
    True
    """
    return _depth("subclass") == 0 and _depth("all") == 0


class _ClassProperty:
    def __init__(self, getter):
        self.getter = getter

    def __get__(self, obj, owner=None):
        return self.getter.__get__(obj, owner if owner is not None else type(obj))()


def classproperty(func):
    """A property read on the class (and its instances): ``func(cls)``, as
    ``torch.classproperty``.

    >>> import ember.torch as torch
    >>> class Box:
    ...     @torch.classproperty
    ...     def kind(cls):
    ...         return cls.__name__.lower()
    >>> Box.kind, Box().kind
    ('box', 'box')
    """
    if not isinstance(func, (classmethod, staticmethod)):
        func = classmethod(func)
    return _ClassProperty(func)


# -- build and environment -----------------------------------------------------------------------

@torch_function
def compiled_with_cxx11_abi():
    """Whether the native code was built with ``_GLIBCXX_USE_CXX11_ABI=1``: True.

    >>> import ember.torch as torch
    >>> torch.compiled_with_cxx11_abi()
    True
    """
    return True


@torch_function
def prepare_multiprocessing_environment(path):
    """Prepare the environment of worker processes sharing ``path``: nothing to do (as
    PyTorch's); returns None.

    >>> import ember.torch as torch
    >>> torch.prepare_multiprocessing_environment("/tmp") is None
    True
    """
    if not isinstance(path, str):
        raise InvalidParameterError(f"prepare_multiprocessing_environment: path must be a str, "
                                    f"got {type(path).__name__}", "path", path)
    return None


@torch_function
def profiler_allow_cudagraph_cupti_lazy_reinit_cuda12():
    """Whether the profiler may re-initialise CUPTI lazily with CUDA graphs: True, as PyTorch's.

    >>> import ember.torch as torch
    >>> torch.profiler_allow_cudagraph_cupti_lazy_reinit_cuda12()
    True
    """
    return True


@torch_function
def thread_safe_generator():
    """The worker's own ``Generator`` inside a DataLoader thread worker, else None (the global
    generator is then used), as ``torch.thread_safe_generator``. ember's DataLoader workers
    are processes, so this is None unless a thread worker reports a generator.

    >>> import ember.torch as torch
    >>> torch.thread_safe_generator() is None
    True
    """
    from .utils.data import get_worker_info
    info = get_worker_info()
    if info is not None and getattr(info, "worker_method", None) == "thread":
        rng = getattr(info, "rng", None)
        if rng is not None:
            return getattr(rng, "torch_generator", rng)
    return None


# -- devices, modes ----------------------------------------------------------------------------

@torch_function
def get_device(input):  # noqa: A002  (PyTorch's name)
    """The device index of ``input``: -1 on a CPU device, as ``torch.get_device``.

    >>> import ember.torch as torch
    >>> torch.get_device(torch.zeros(2))
    -1
    """
    t = _tensor(input, "get_device")
    return -1 if t._device.type == "cpu" else (t._device.index or 0)


@torch_function
def get_device_module(device=None):
    """The module of ``device``'s type (``ember.torch.cuda`` for ``"cuda"``, ``ember.torch.cpu``
    for ``"cpu"``); the accelerator's, or the CPU's without one, when None.

    >>> import ember.torch as torch
    >>> torch.get_device_module("cpu").device_count()
    1
    """
    from . import accelerator, cpu, cuda
    from ..devices import Device
    if device is None:
        acc = accelerator.current_accelerator()
        kind = acc.type if acc is not None else "cpu"
    elif isinstance(device, Device):
        kind = device.type
    elif isinstance(device, str):
        kind = device.split(":")[0]
        if kind == "torch":
            kind = device.split(":")[1] if ":" in device else "cpu"
    else:
        raise InvalidParameterError(f"get_device_module: device must be a device, a str or "
                                    f"None, got {type(device).__name__}", "device", device)
    modules = {"cpu": cpu, "cuda": cuda}
    if kind not in modules:
        raise InvalidParameterError(f"get_device_module: device type {kind!r} has no module; "
                                    "expected 'cpu' or 'cuda'", "device", device)
    return modules[kind]


@torch_function
def is_distributed(input):  # noqa: A002
    """Whether ``input`` is marked as distributed (``torch.is_distributed``).

    >>> import ember.torch as torch
    >>> torch.is_distributed(torch.ones(1))
    False
    """
    return _tensor(input, "is_distributed").is_distributed()


@torch_function
def is_inference(input):  # noqa: A002
    """Whether ``input`` is an inference tensor: False (ember's ``inference_mode`` records no
    steps, as ``no_grad``, and makes no separate inference tensors).

    >>> import ember.torch as torch
    >>> torch.is_inference(torch.ones(1))
    False
    """
    _tensor(input, "is_inference")
    return False


_inference = threading.local()


class inference_mode(_ember_inference_mode):
    """PyTorch's ``inference_mode`` (ember's, which records no steps inside), tracking whether
    it is on for ``is_inference_mode_enabled``.

    >>> import ember.torch as torch
    >>> with torch.inference_mode():
    ...     torch.ones(1, requires_grad=True).mul(2).requires_grad
    False
    """

    def __enter__(self):
        self.prev_inference = getattr(_inference, "on", False)
        _inference.on = self.mode
        return super().__enter__()

    def __exit__(self, *exc):
        _inference.on = self.prev_inference
        return super().__exit__(*exc)

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)
        return wrapper


functions["inference_mode"] = inference_mode


@torch_function
def is_inference_mode_enabled():
    """Whether an ``inference_mode()`` block is active here.

    >>> import ember.torch as torch
    >>> torch.is_inference_mode_enabled()
    False
    """
    return getattr(_inference, "on", False)


@torch_function
def set_anomaly_enabled(enabled, check_nan=True):
    """Turn anomaly mode on or off (``torch.set_anomaly_enabled``); see
    ``ember.torch.autograd.detect_anomaly``.

    >>> import ember.torch as torch
    >>> torch.set_anomaly_enabled(True); torch.is_anomaly_enabled()
    True
    >>> torch.set_anomaly_enabled(False); torch.is_anomaly_enabled()
    False
    """
    from .autograd import anomaly_mode
    for name, value in (("enabled", enabled), ("check_nan", check_nan)):
        if not isinstance(value, bool):
            raise InvalidParameterError(f"set_anomaly_enabled: {name} must be a bool, got "
                                        f"{value!r}", name, value)
    anomaly_mode._set(enabled, check_nan)


@torch_function
def to_dlpack(tensor):
    """A DLPack capsule of ``tensor``'s buffer (``torch.to_dlpack``), to hand to another
    library's ``from_dlpack``.

    >>> import ember.torch as torch
    >>> type(torch.to_dlpack(torch.tensor([1.0, 2.0]))).__name__
    'PyCapsule'
    """
    return _tensor(tensor, "to_dlpack", "tensor").__dlpack__()


for _cls in (AcceleratorError, OutOfMemoryError, FatalError, JITException, DisableTorchFunction,
             DisableTorchFunctionSubclass):
    _cls.__module__ = "ember.torch"
    functions[_cls.__name__] = _cls
functions["classproperty"] = classproperty
