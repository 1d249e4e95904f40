"""PyTorch's questions about types and global settings: ``finfo``, ``iinfo``, ``can_cast``, the
grad-mode and determinism queries, float32 matmul precision, the inter-op thread pool and the
warning switch of the ``torch`` namespace.

The settings are ember.torch's own and apply to PyTorch's engine as well when the torch
backend is loaded (``torch.use_deterministic_algorithms``, ``torch.set_float32_matmul_precision``,
``torch.set_num_interop_threads`` are forwarded to it). On the NumPy backend every op is
deterministic, float32 matmuls always run in full float32 precision (``"highest"``) and ops run
one after another (there is no inter-op pool), so there the settings are recorded and reported
back without changing a result.

>>> import ember.torch as torch
>>> torch.finfo(torch.float32).eps
1.1920928955078125e-07
>>> torch.iinfo(torch.int8).max, torch.can_cast(torch.float32, torch.int32)
(127, False)
"""

import math
import os
import sys
import warnings


from .. import dtypes as _dt
from ..autodiff.graph import grad_enabled as _grad_enabled
from ..devices import CPU as _CPU
from ..errors import InvalidParameterError, KindError
from ._tensor import functions, torch_function

__all__ = ["finfo", "iinfo", "can_cast", "is_grad_enabled", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_deterministic_debug_mode", "get_deterministic_debug_mode",
           "set_float32_matmul_precision", "get_float32_matmul_precision",
           "set_num_interop_threads", "get_num_interop_threads", "init_num_threads",
           "set_warn_always",
           "is_warn_always_enabled", "get_file_path", "is_vulkan_available", "set_flush_denormal"]

_state = {"deterministic": False, "warn_only": False, "precision": "highest",
          "interop": None, "warn_always": False}


def _torch_engine():
    """PyTorch's module when ember's torch backend is loaded, else None."""
    if "ember.backends.torch" in sys.modules:
        import torch
        return torch
    return None


def _dtype(value, op):
    if value is None:
        return _dt.default_float
    if isinstance(value, _dt.DType):
        return _dt.as_dtype(value)
    raise KindError(f"{op}: expected a dtype, got {type(value).__name__} {value!r}")


# -- finfo / iinfo ----------------------------------------------------------------------------


class finfo:
    """The limits of a floating-point dtype, as ``torch.finfo``: ``bits``, ``eps``, ``max``,
    ``min``, ``tiny`` (= ``smallest_normal``), ``resolution`` and ``dtype`` (the name). A complex
    dtype gives its real part's; no argument gives the default dtype's.

    >>> import ember.torch as torch
    >>> f = torch.finfo(torch.float16)
    >>> f.bits, f.max, f.dtype
    (16, 65504.0, 'float16')
    """

    def __init__(self, type=None):  # noqa: A002  (PyTorch's name)
        dt = _dtype(type, "finfo")
        if dt.kind == "complex":
            dt = _dt.float32 if dt is _dt.complex64 else _dt.float64
        if dt.kind != "float":
            raise KindError(f"finfo: requires a floating point input type, got {dt.name}; use "
                            "iinfo for integer types")
        bits, _, top, eps, tiny = _CPU.backend.dtype_limits(dt)
        c = {"bits": int(bits), "eps": float(eps), "max": float(top), "tiny": float(tiny),
             "resolution": 10.0 ** -math.floor(-math.log10(float(eps)))}
        self.bits = c["bits"]
        self.eps = c["eps"]
        self.max = c["max"]
        self.min = -c["max"]
        self.tiny = self.smallest_normal = c["tiny"]
        self.resolution = c["resolution"]
        self.dtype = dt.name

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("finfo", self.dtype))

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``min``, ``max`` and
    ``dtype`` (the name).

    >>> import ember.torch as torch
    >>> i = torch.iinfo(torch.uint8)
    >>> i.bits, i.min, i.max, i.dtype
    (8, 0, 255, 'uint8')
    """

    def __init__(self, type):  # noqa: A002
        dt = _dtype(type, "iinfo")
        if dt.kind != "int":
            raise KindError(f"iinfo: requires an integer input type, got {dt.name}; use finfo "
                            "for floating point types")
        bits, low, high, _, _ = _CPU.backend.dtype_limits(dt)
        self.bits, self.min, self.max = int(bits), int(low), int(high)
        self.dtype = dt.name

    def __eq__(self, other):
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self):
        return hash(("iinfo", self.dtype))

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


finfo.__module__ = iinfo.__module__ = "ember.torch"
functions["finfo"], functions["iinfo"] = finfo, iinfo

_KIND_RANK = {"bool": 0, "int": 1, "float": 2, "complex": 3}


@torch_function
def can_cast(from_, to):
    """Whether PyTorch's casting rules allow ``from_`` to ``to`` without leaving the kind order
    bool < int < float < complex (a cast to a lower kind is refused), as ``torch.can_cast``.

    >>> import ember.torch as torch
    >>> torch.can_cast(torch.int8, torch.uint8), torch.can_cast(torch.int32, torch.bool)
    (True, False)
    """
    a, b = _dtype(from_, "can_cast"), _dtype(to, "can_cast")
    return _KIND_RANK[a.kind] <= _KIND_RANK[b.kind]


# -- grad mode and anomaly mode -----------------------------------------------------------------

@torch_function
def is_grad_enabled():
    """Whether ops record for autodiff now (False inside ``no_grad()``/``inference_mode()``).

    >>> import ember.torch as torch
    >>> with torch.no_grad():
    ...     torch.is_grad_enabled()
    False
    """
    return _grad_enabled()


# -- determinism --------------------------------------------------------------------------------

def _bool(value, op, param):
    if value is True or value is False:
        return value
    raise InvalidParameterError(f"{op}: {param} must be a bool, got {value!r}", param, value)


@torch_function
def use_deterministic_algorithms(mode, *, warn_only=False):
    """Ask for deterministic algorithms (PyTorch's engine is told when the torch backend is
    loaded; the NumPy backend's ops are all deterministic).

    >>> import ember.torch as torch
    >>> torch.use_deterministic_algorithms(True)
    >>> torch.are_deterministic_algorithms_enabled()
    True
    >>> torch.use_deterministic_algorithms(False)
    """
    mode = _bool(mode, "use_deterministic_algorithms", "mode")
    warn_only = _bool(warn_only, "use_deterministic_algorithms", "warn_only")
    engine = _torch_engine()
    if engine is not None:
        engine.use_deterministic_algorithms(mode, warn_only=warn_only)
    _state["deterministic"], _state["warn_only"] = mode, warn_only


@torch_function
def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in effect.

    >>> import ember.torch as torch
    >>> torch.are_deterministic_algorithms_enabled()
    False
    """
    return _state["deterministic"]


@torch_function
def is_deterministic_algorithms_warn_only_enabled():
    """Whether ``use_deterministic_algorithms`` was given ``warn_only=True``.

    >>> import ember.torch as torch
    >>> torch.is_deterministic_algorithms_warn_only_enabled()
    False
    """
    return _state["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


@torch_function
def set_deterministic_debug_mode(debug_mode):
    """PyTorch's spelling of ``use_deterministic_algorithms``: ``0``/``"default"`` off,
    ``1``/``"warn"`` on with warnings, ``2``/``"error"`` on.

    >>> import ember.torch as torch
    >>> torch.set_deterministic_debug_mode("warn")
    >>> torch.get_deterministic_debug_mode()
    1
    >>> torch.set_deterministic_debug_mode(0)
    """
    op = "set_deterministic_debug_mode"
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise InvalidParameterError(f"{op}: debug_mode must be one of 'default', 'warn', "
                                        f"'error', got {debug_mode!r}", "debug_mode", debug_mode)
        level = _DEBUG_MODES[debug_mode]
    elif isinstance(debug_mode, int) and not isinstance(debug_mode, bool) \
            and debug_mode in (0, 1, 2):
        level = debug_mode
    else:
        raise InvalidParameterError(f"{op}: debug_mode must be 0, 1, 2 or their names, got "
                                    f"{debug_mode!r}", "debug_mode", debug_mode)
    use_deterministic_algorithms(level > 0, warn_only=level == 1)


@torch_function
def get_deterministic_debug_mode():
    """The current mode as ``set_deterministic_debug_mode``'s number (0, 1 or 2).

    >>> import ember.torch as torch
    >>> torch.get_deterministic_debug_mode()
    0
    """
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


# -- matmul precision, threads ------------------------------------------------------------------

@torch_function
def set_float32_matmul_precision(precision):
    """``"highest"``, ``"high"`` or ``"medium"``: the internal precision PyTorch's engine may use
    for float32 matmuls (TF32 / bfloat16 on GPUs); ember's NumPy backend always uses float32.

    >>> import ember.torch as torch
    >>> torch.set_float32_matmul_precision("high")
    >>> torch.get_float32_matmul_precision()
    'high'
    >>> torch.set_float32_matmul_precision("highest")
    """
    if precision not in ("highest", "high", "medium"):
        raise InvalidParameterError("set_float32_matmul_precision: precision must be 'highest', "
                                    f"'high' or 'medium', got {precision!r}", "precision",
                                    precision)
    engine = _torch_engine()
    if engine is not None:
        engine.set_float32_matmul_precision(precision)
    _state["precision"] = precision


@torch_function
def get_float32_matmul_precision():
    """The precision ``set_float32_matmul_precision`` set (``"highest"`` by default).

    >>> import ember.torch as torch
    >>> torch.get_float32_matmul_precision()
    'highest'
    """
    return _state["precision"]


@torch_function
def set_num_interop_threads(num):
    """The threads of PyTorch's inter-op pool (the torch backend's; the NumPy backend runs ops
    one after another and records the number). As PyTorch's, it may be set once.

    >>> import ember.torch as torch
    >>> torch.get_num_interop_threads() >= 1
    True
    """
    op = "set_num_interop_threads"
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise InvalidParameterError(f"{op}: num must be an int >= 1, got {num!r}", "num", num)
    if _state["interop"] is not None:
        raise InvalidParameterError(f"{op}: the number of inter-op threads can be set only "
                                    "once", "num", num)
    engine = _torch_engine()
    if engine is not None:
        try:
            engine.set_num_interop_threads(num)
        except RuntimeError as exc:
            raise InvalidParameterError(f"{op}: {exc}", "num", num) from None
    _state["interop"] = num


@torch_function
def get_num_interop_threads():
    """The threads of the inter-op pool (PyTorch's when the torch backend is loaded, else the
    number set, else the number of CPUs, PyTorch's default)."""
    engine = _torch_engine()
    if engine is not None:
        return engine.get_num_interop_threads()
    return _state["interop"] or os.cpu_count() or 1


@torch_function
def init_num_threads():
    """Apply the current thread setting (``set_num_threads``) to the thread pools again, as
    PyTorch's call at the start of a new thread.

    >>> import ember.torch as torch
    >>> torch.init_num_threads()
    """
    from ..threads import get_num_threads, set_num_threads
    set_num_threads(get_num_threads())


# -- warnings and files -------------------------------------------------------------------------

_MODULES = r"ember(\.|$)"  # the module pattern of the filter set_warn_always adds


def _ours(f):
    return f[0] == "always" and f[3] is not None and getattr(f[3], "pattern", f[3]) == _MODULES


@torch_function
def set_warn_always(b):
    """``True``: ember's warnings are shown every time they happen, not once per place.

    >>> import ember.torch as torch
    >>> torch.set_warn_always(True); torch.is_warn_always_enabled()
    True
    >>> torch.set_warn_always(False)
    """
    b = _bool(b, "set_warn_always", "b")
    kept = [f for f in warnings.filters if not _ours(f)]
    warnings.filters[:] = kept
    if b:
        warnings.filterwarnings("always", module=_MODULES)
    else:
        warnings.filterwarnings("ignore", module=r"\Z never")  # refreshes the filter cache
        warnings.filters.pop(0)
    _state["warn_always"] = b


@torch_function
def is_warn_always_enabled():
    """Whether ``set_warn_always(True)`` is in effect.

    >>> import ember.torch as torch
    >>> torch.is_warn_always_enabled()
    False
    """
    return _state["warn_always"]


@torch_function
def get_file_path(*path_components):
    """A path inside the installed ``ember.torch`` package (PyTorch's: inside ``torch``).

    >>> import os, ember.torch as torch
    >>> os.path.basename(torch.get_file_path("info.py"))
    'info.py'
    """
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), *path_components)


@torch_function
def is_vulkan_available():
    """False: ember has no Vulkan backend.

    >>> import ember.torch as torch
    >>> torch.is_vulkan_available()
    False
    """
    return False


@torch_function
def set_flush_denormal(mode):
    """Flush denormal floats to zero on the CPU; returns whether it is supported: PyTorch's
    engine (torch backend loaded) supports it on x86, NumPy does not (returns False).

    >>> import ember.torch as torch
    >>> torch.set_flush_denormal(False) in (True, False)
    True
    """
    mode = _bool(mode, "set_flush_denormal", "mode")
    engine = _torch_engine()
    if engine is not None:
        return bool(engine.set_flush_denormal(mode))
    return False
