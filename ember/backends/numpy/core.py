"""Core NumPy kernels: conversion in and out, dtype casts, layout and memory queries."""

import sys
import warnings

import numpy as np

from . import bf16 as _bf16
from . import jit as _jit
from .jit import transpose as _jit_transpose
from ..base.core import complex_cast_message
from ..guard import _PHYSICAL_BYTES, allocation_error, allocation_guard  # noqa: F401

Array = np.ndarray


__all__ = [
    "Array", "allocation_failed", "allocates",
    "RaggedError", "RankError", "asarray",
    "cast", "readonly", "copy", "contiguous", "is_contiguous", "shares_memory", "tolist", "item",
    "scalar_array", "sum_to_shape", "broadcast_to", "add", "native_dtype", "dtype_of",
    "ember_dtype", "to_host", "from_host", "synchronize", "settle", "array_types",
    "replay_scope",
    "layout_strides", "layout_offset", "layout_address",
]

try:  # NumPy >= 2: the error state lives in a context variable that ufuncs read on each call
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRVAR
    from numpy._core.umath import _make_extobj

    _IGNORE = _make_extobj(all="ignore")
except (ImportError, AttributeError, TypeError):  # pragma: no cover - older or changed NumPy
    _ERRVAR = _IGNORE = None


def _warnings_off(fn, keywords=False):
    """Wrap the kernel ``fn`` (positional arguments; ``keywords``: keyword ones too) so that it
    runs with NumPy's floating-point warnings ignored: inf and nan results are the IEEE answers,
    not something to warn about. One context-variable set and reset (NumPy's own error state),
    several times cheaper than entering ``np.errstate`` on every call; NumPy's error state is
    unchanged afterwards."""
    if _ERRVAR is None:  # pragma: no cover
        def wrapper(*args, **kwargs):
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)
    elif keywords:
        set_, reset = _ERRVAR.set, _ERRVAR.reset

        def wrapper(*args, **kwargs):
            token = set_(_IGNORE)
            try:
                return fn(*args, **kwargs)
            finally:
                reset(token)
    else:
        set_, reset = _ERRVAR.set, _ERRVAR.reset

        def wrapper(*args):
            token = set_(_IGNORE)
            try:
                return fn(*args)
            finally:
                reset(token)
    wrapper.__name__ = fn.__name__
    wrapper.__qualname__ = getattr(fn, "__qualname__", fn.__name__)  # JAX's ufuncs have none
    wrapper.__doc__ = fn.__doc__
    wrapper.__wrapped__ = fn
    # all it adds (a replay calls fn itself, in replay_scope); itself, not a wrapper that copied
    # its attributes (functools.wraps)
    wrapper.quiets = wrapper
    return wrapper


def quiet(fn):
    """``fn`` (any arguments) with NumPy's floating-point warnings off (for other backends whose
    library computes with NumPy underneath, such as array-api-strict)."""
    return _warnings_off(fn, keywords=True)


def as_kernel(fn):
    """``fn`` (any arguments) with NumPy's floating-point warnings off and a NumPy scalar result
    given as a 0-d array, as every kernel returns arrays: how the base's defaults run here."""
    quiet = _warnings_off(fn, keywords=True)

    def kernel(*args, **kwargs):
        r = quiet(*args, **kwargs)
        return np.asarray(r) if isinstance(r, np.generic) else r
    kernel.__name__, kernel.__doc__, kernel.__wrapped__ = fn.__name__, fn.__doc__, fn
    return kernel


def default_kernel(name):
    """The base's default of the kernel ``name`` on the CPU's backend (as the backend runs it:
    quiet, giving arrays), for the overrides that hand it the inputs they do not take."""
    from ..base import Backend
    fn = getattr(Backend, name)
    default = as_kernel(fn)

    def kernel(*args):
        from ...devices import CPU  # the NumpyBackend (made on the CPU's first use)
        return default(CPU.backend, *args)
    kernel.__name__, kernel.__doc__, kernel.__wrapped__ = name, fn.__doc__, fn
    return kernel


# -- the allocation guard -------------------------------------------------------------------------

_TOO_LARGE = ("array is too big", "iterator is too large", "maximum allowed dimension",
              "too large")


def allocation_failed(exc, op, shape=None, inputs=()):
    """The error to raise for ``exc``, caught around an allocation for the op named ``op`` (the
    one the user called): the typed error naming it and the result ``shape`` (None: the kernel
    cannot tell it, the message names the ``inputs``' shapes) when NumPy could not make the
    array, else ``exc`` itself (a ValueError of another cause is not ours to rename). Kernels on
    hot paths call it from their own ``try`` (free when nothing is raised); the others use
    ``allocates``."""
    if isinstance(exc, ValueError) and not any(m in str(exc).lower() for m in _TOO_LARGE):
        return exc
    if not isinstance(exc, (MemoryError, ValueError)):
        return exc
    reason = ("not enough memory" if isinstance(exc, MemoryError)
              else "more elements or bytes than an array can address")
    return allocation_error(op, shape, reason, inputs)


# NumPy raises MemoryError, or ValueError for a size past what an array can address
allocates = allocation_guard(allocation_failed, (MemoryError, ValueError))


_NAMES = {}


def _name_of(dt):
    """``dt.name`` of a NumPy dtype, remembered (NumPy computes a dtype's name in Python code:
    1.8 µs a call; a dict lookup takes 0.03)."""
    try:
        return _NAMES[dt]
    except KeyError:
        name = _NAMES[dt] = dt.name
        return name


def _first(shape, *args, **kwargs):
    return shape


def _same(a, *args, **kwargs):
    return a.shape


def check_items(a, per_item, op):
    """Raise the allocation guard's error, naming the op ``op``, unless ``a.size`` objects of
    ``per_item`` bytes each could fit in the machine's memory: for results that NumPy builds
    without one allocation (Python lists), which would otherwise grow until the process runs out
    of memory."""
    if a.size * per_item > _PHYSICAL_BYTES:
        raise allocation_error(op, a.shape,
                               f"{a.size} Python objects need more than the machine's "
                               f"{_PHYSICAL_BYTES} bytes of memory")


# NumPy complex scalars converted to a real dtype in this module's asarray would only warn and
# drop their imaginary part: here that warning is an error, which asarray turns into ember's.
warnings.filterwarnings("error", category=np.exceptions.ComplexWarning, module=__name__)


class RaggedError(ValueError):
    """Nested sequences of unequal lengths."""


class RankError(ValueError):
    """Nested sequences deeper than the most dims an array can have."""


def asarray(data, dtype=None):
    """An ndarray from nested sequences, scalars or arrays; ``dtype`` an ember DType or None.

    Raises RaggedError for ragged nesting, RankError for nesting deeper than an array's dims, and
    TypeError for values that are not numbers.
    """
    probe = False
    if dtype is not None:
        target = dtype
        dtype = NP[dtype]
        if dtype.kind != "c":  # complex values never become real ones on their own
            src = getattr(data, "dtype", None)  # an array's: NumPy's, or torch's (is_complex)
            if src is not None and (src.kind == "c" if isinstance(src, np.dtype)
                                    else getattr(src, "is_complex", False) is True):
                raise TypeError(complex_cast_message(target))
            # NumPy would read a Python complex as its nonzero test for bool: look first
            probe = dtype.kind == "b" and isinstance(data, (list, tuple, complex))
    try:
        if probe and np.asarray(data).dtype.kind == "c":
            probe = None  # raised below, outside this block
        else:
            arr = np.asarray(data, dtype=dtype)
            if not arr.flags.owndata or arr is data:
                arr = arr.copy()  # never share a buffer the caller can still change
    except ValueError as exc:
        if "maximum number of dimension" in str(exc):
            raise RankError(str(exc)) from None
        if "inhomogeneous" in str(exc) or "sequence" in str(exc):
            raise RaggedError(str(exc)) from None
        raise TypeError(str(exc)) from None
    except np.exceptions.ComplexWarning:  # NumPy complex scalars into a real dtype
        raise TypeError(complex_cast_message(target)) from None
    except TypeError as exc:
        if dtype is not None and "'complex'" in str(exc):  # a Python complex into a real dtype
            raise TypeError(complex_cast_message(target)) from None
        raise
    if probe is None:
        raise TypeError(complex_cast_message(target))
    if arr.dtype == object or arr.dtype.kind in "USMm" or (
            arr.dtype.kind == "V" and not _bf16.is_bf16(arr.dtype)):
        raise TypeError(f"values of type {arr.dtype} are not numbers")
    return arr






def cast(a, dtype):
    """``a`` with elements of ember ``dtype``; ``a`` itself when it already has it (values out
    of a float dtype's range become inf, quietly, as PyTorch's casts)."""
    dtype = NP[dtype]
    return a if a.dtype == dtype else _astype(a, dtype)


@_warnings_off
def _astype(a, dtype):
    return a.astype(dtype)


def readonly(a):
    """A read-only view of ``a`` (same buffer)."""
    v = a.view()
    v.flags.writeable = False
    return v


TRANSPOSE_MIN_NUMEL = 16384  # below it NumPy's copy is as fast as a compiled one


def _transposed_copy(a):
    """A C-contiguous copy of the view ``a`` by a compiled tiled transpose, or None (too small,
    not 4 or 8 bytes an element, no transpose layout, the kernel not compiled yet)."""
    if a.size < TRANSPOSE_MIN_NUMEL or a.itemsize not in (4, 8) or a.dtype.hasobject:
        return None
    plan = _jit_transpose.plan(a)
    if plan is None:
        return None
    k = _jit.kernel(*_jit_transpose.source(a.itemsize))
    if k is None:
        return None
    batch, rows, cols, src_ld, out_ld, src_off, out_off = plan
    out = np.empty(a.shape, dtype=a.dtype)
    k((a, out, src_off, out_off), (batch, rows, cols, src_ld, out_ld, _jit.num_threads()), ())
    return out


def copy(a, op="copy"):
    """A fresh, writable, C-contiguous copy (``op``: the op named if it cannot be allocated)."""
    try:
        if not a.flags.c_contiguous:
            out = _transposed_copy(a)
            if out is not None:
                return out
        return np.array(a, copy=True, order="C")
    except (MemoryError, ValueError) as exc:
        raise allocation_failed(exc, op, a.shape) from None


def contiguous(a, op="contiguous"):
    """``a`` if it is C-contiguous, else a C-contiguous copy (``op``: the op named if it cannot
    be allocated)."""
    if a.flags.c_contiguous:
        return a
    try:
        out = _transposed_copy(a)
        return np.ascontiguousarray(a) if out is None else out
    except (MemoryError, ValueError) as exc:
        raise allocation_failed(exc, op, a.shape) from None


def is_contiguous(a):
    return bool(a.flags.c_contiguous)


def shares_memory(a, b):
    return bool(np.shares_memory(a, b))


def tolist(a, op="tolist"):
    """``a``'s elements as nested Python lists (``op``: the op named if they cannot fit)."""
    check_items(a, 8, op)  # a list holds at least one pointer per element
    try:
        return a.tolist()
    except MemoryError as exc:
        raise allocation_failed(exc, op, a.shape) from None


def item(a):
    return a.item()


def scalar_array(value, dtype):
    """A 0-d array holding ``value`` as ember ``dtype``."""
    return np.asarray(value, dtype=NP[dtype])


# override: 4.3 µs vs the default's 7.9 µs (a (32, 64) float32 gradient; ndarray.sum skips np.sum's dispatch)
def sum_to_shape(g, shape):
    """Sum ``g`` over the dims that broadcasting added or expanded, to get back ``shape``."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and g.shape[i + lead] != 1)
    out = g.sum(axis=axes, keepdims=True) if axes else g
    if lead:
        out = out.reshape(shape)
    return out


def broadcast_to(a, shape, op="broadcast_to"):
    """A read-only broadcast view (``op``: the op named if the view's size cannot be
    addressed)."""
    try:
        return np.broadcast_to(a, shape)
    except ValueError as exc:
        raise allocation_failed(exc, op, shape) from None


add = np.add


# -- the backend protocol: dtypes, devices, host transfer -------------------------------------

class _DtypeTable(dict):
    """ember DType -> NumPy dtype, whose bfloat16 entry is added on its first look-up."""

    def __missing__(self, key):
        if getattr(key, "name", None) == "bfloat16" and _add_bf16():
            return self[key]
        raise KeyError(key)


def _add_bf16():
    """Enter bfloat16 (ml_dtypes', imported now) in both dtype tables; whether it was new."""
    from ...dtypes import bfloat16
    if bfloat16 in NP:
        return False
    NP[bfloat16] = _bf16.dtype()
    _EMBER[_bf16.dtype()] = bfloat16
    return True


def _dtype_tables():
    from ... import dtypes as d
    pairs = [(d.float64, np.float64), (d.float32, np.float32), (d.float16, np.float16),
             (d.int64, np.int64), (d.int32, np.int32),
             (d.int16, np.int16), (d.int8, np.int8), (d.uint8, np.uint8), (d.uint16, np.uint16),
             (d.uint32, np.uint32), (d.uint64, np.uint64), (d.bool_, np.bool_),
             (d.complex64, np.complex64), (d.complex128, np.complex128)]
    to_np = {e: np.dtype(n) for e, n in pairs}
    return _DtypeTable(to_np), {v: k for k, v in to_np.items()}


NP, _EMBER = _dtype_tables()


def native_dtype(dtype):
    """NumPy's dtype for the ember DType ``dtype``."""
    return NP[dtype]


def dtype_of(a):
    """The ember DType of the array ``a`` (KindError for a dtype ember has no kind for)."""
    found = _EMBER.get(a.dtype)
    if found is None and _bf16.is_bf16(a.dtype) and _add_bf16():
        found = _EMBER[a.dtype]
    if found is None:
        from ...dtypes import ALL
        from ...errors import KindError
        raise KindError(f"dtype {a.dtype} has no ember kind; expected one of "
                        + ", ".join(d.name for d in ALL))
    return found


def ember_dtype(value):
    """The ember DType of a NumPy dtype or scalar type (``np.float32``), or None."""
    if value is None or isinstance(value, (str, int, float)):
        return None
    try:
        value = np.dtype(value)
        if _bf16.is_bf16(value):
            _add_bf16()
        return _EMBER.get(value)
    except Exception:  # noqa: BLE001 - NumPy raises TypeError, ValueError, KeyError ...
        return None


def owns(data):
    """Whether ``data`` is a NumPy array or scalar."""
    return isinstance(data, (np.ndarray, np.generic))


def adopt(data):
    """``(array, device)`` of a NumPy array or scalar."""
    from ...devices import CPU
    return np.asarray(data), CPU


def for_device(device):
    """The kernel table of ``device``: this module (NumPy has one device, the CPU). Its first use
    installs the buffer pool (``buffers.start``)."""
    from . import buffers
    buffers.start()
    return sys.modules[__name__.rsplit(".", 1)[0]]




def to_host(a):
    """``a`` as a NumPy array, for another backend or for TensorData (the array itself)."""
    return a


def from_host(a, dtype):
    """A NumPy array of ember ``dtype`` from a host array another backend produced (bfloat16
    arrives as its uint16 bits); shares ``a``'s memory where it can."""
    target = NP[dtype]
    if a.dtype != target:
        a = a.view(target) if a.dtype.itemsize == target.itemsize and dtype.name == "bfloat16" \
            else a.astype(target)
    return a


def synchronize():
    """Wait for queued work (nothing is queued on NumPy)."""


def array_types():
    """The types of the kernels' arrays: NumPy's arrays, and its scalars (some NumPy functions
    give them for 0-d results)."""
    return (np.ndarray, np.generic)


def unquiet(kernel):
    """``kernel`` without its warnings wrapper (for a replay, which runs in ``replay_scope``)."""
    while getattr(kernel, "quiets", None) is kernel:
        kernel = kernel.__wrapped__
    return kernel


class _Quiet:
    """NumPy's floating-point warnings off while a replay runs (one set and reset)."""

    __slots__ = ("token",)

    def __enter__(self):
        self.token = _ERRVAR.set(_IGNORE)

    def __exit__(self, *exc):
        _ERRVAR.reset(self.token)
        return False


def replay_scope():
    """NumPy's floating-point warnings off for a whole replay of ember.compile, whose kernels
    are ``unquiet``."""
    return _Quiet() if _ERRVAR is not None else np.errstate(all="ignore")


def settle():
    """Wait for the kernels compiling in the background (a call takes its compiled kernel from
    then on)."""
    _jit.wait()


# -- memory layout (NumPy's own; the base's defaults assume none) -----------------------------

def layout_strides(a):
    """The step in elements between neighbours along each dim of ``a``'s buffer."""
    return tuple(s // a.itemsize for s in a.strides)


def layout_offset(a):
    """The offset in elements of ``a``'s first element in the buffer it views."""
    base = a
    while isinstance(base.base, np.ndarray):
        base = base.base
    return (a.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // a.itemsize


def layout_address(a):
    """The address of ``a``'s first element."""
    return a.__array_interface__["data"][0]
