"""Core NumPy kernels: conversion in and out, dtype casts, layout and memory queries."""

import functools
import os
import sys

import ml_dtypes
import numpy as np

from ...errors import InvalidParameterError

Array = np.ndarray
_EXTENSION_DTYPES = (np.dtype(ml_dtypes.bfloat16),)


try:  # NumPy >= 2: the error state lives in a context variable that ufuncs read on each call
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRVAR
    from numpy._core.umath import _make_extobj

    _IGNORE = _make_extobj(all="ignore")
except (ImportError, AttributeError, TypeError):  # pragma: no cover - older or changed NumPy
    _ERRVAR = _IGNORE = None


def _warnings_off(fn):
    """Wrap the kernel ``fn`` (positional arguments) so that it runs with NumPy's floating-point
    warnings ignored: inf and nan results are the IEEE answers, not something to warn about.
    One context-variable set and reset (NumPy's own error state), several times cheaper than
    entering ``np.errstate`` on every call; NumPy's error state is unchanged afterwards."""
    if _ERRVAR is None:  # pragma: no cover
        def wrapper(*args):
            with np.errstate(all="ignore"):
                return fn(*args)
    else:
        set_, reset = _ERRVAR.set, _ERRVAR.reset

        def wrapper(*args):
            token = set_(_IGNORE)
            try:
                return fn(*args)
            finally:
                reset(token)
    wrapper.__name__ = fn.__name__
    wrapper.__qualname__ = fn.__qualname__
    wrapper.__doc__ = fn.__doc__
    return wrapper


# -- the allocation guard -------------------------------------------------------------------------

_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep
_BACKENDS = os.path.join(_PACKAGE, "backends") + os.sep
# NumPy's messages for a size that no array can have (more than 2**63 bytes or elements)
_TOO_LARGE = ("array is too big", "iterator is too large", "maximum allowed dimension",
              "too large")


def _physical_bytes():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not a POSIX system
        return 2 ** 63 - 1


_PHYSICAL_BYTES = _physical_bytes()


def _method_names():
    """Tensor's methods by their code objects: the public name of a frame's function."""
    tensor = getattr(sys.modules.get("ember.tensor"), "Tensor", None)
    names = {}
    for name, value in (vars(tensor).items() if tensor is not None else ()):
        code = getattr(getattr(value, "fget", value), "__code__", None)
        if code is not None and (code not in names or names[code].startswith("_")):
            names[code] = name
    return names


def _entry_op(kernel):
    """The name of the ember function the user called: the outermost of the ember frames that
    lead to this kernel (Python frames are only walked when an allocation has failed)."""
    code = None
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_PACKAGE):
            break
        if not path.startswith(_BACKENDS) and not frame.f_code.co_name.startswith("<"):
            code = frame.f_code
        frame = frame.f_back
    if code is None:
        return kernel.__name__
    return _method_names().get(code, code.co_name).strip("_")


def _shape_text(args):
    shapes = [str(tuple(a.shape)) for a in args if isinstance(a, np.ndarray)]
    for a in args:
        if isinstance(a, (list, tuple)):
            shapes += [str(tuple(x.shape)) for x in a if isinstance(x, np.ndarray)]
    return "inputs of shape " + ", ".join(shapes) if shapes else "its arguments"


def allocation_error(op, shape, reason, inputs=()):
    """The typed error of an allocation that cannot succeed: names ``op`` and the result ``shape``
    (None when the kernel cannot tell it; then the inputs' shapes)."""
    what = f"a result of shape {tuple(shape)}" if shape is not None else \
        f"the result for {_shape_text(inputs)}"
    return InvalidParameterError(f"{op}: {what} is too large to allocate ({reason}); expected "
                                 "a result that fits in memory", "shape",
                                 None if shape is None else tuple(shape))


def allocation_failed(exc, kernel, shape=None, inputs=()):
    """The error to raise for ``exc``, caught around an allocation in ``kernel``: the typed error
    naming the op the user called and the result ``shape`` (None: the kernel cannot tell it, the
    message names the ``inputs``' shapes) when NumPy could not make the array, else ``exc``
    itself (a ValueError of another cause is not ours to rename). Kernels on hot paths call it
    from their own ``try`` (free when nothing is raised); the others use ``allocates``."""
    if isinstance(exc, ValueError) and not any(m in str(exc).lower() for m in _TOO_LARGE):
        return exc
    if not isinstance(exc, (MemoryError, ValueError)):
        return exc
    reason = ("not enough memory" if isinstance(exc, MemoryError)
              else "more elements or bytes than an array can address")
    return allocation_error(_entry_op(kernel), shape, reason, inputs)


def allocates(result_shape=None):
    """The allocation guard as a decorator, for a kernel that allocates a buffer whose size the
    caller chose (creation, random, repeat, pad, cat, matmul ...): NumPy's MemoryError, or its
    ValueError for a size past what an array can address, becomes ``InvalidParameterError``
    naming the op the user called and the shape of the result. ``result_shape(*args)`` gives
    that shape for the message (only computed on failure)."""
    def decorate(kernel):
        @functools.wraps(kernel)
        def guarded(*args, **kwargs):
            try:
                return kernel(*args, **kwargs)
            except (MemoryError, ValueError) as exc:
                shape = None
                if result_shape is not None:
                    try:
                        shape = result_shape(*args, **kwargs)
                    except Exception:  # noqa: BLE001 - the message falls back to input shapes
                        shape = None
                raise allocation_failed(exc, kernel, shape, args) from None
        return guarded
    return decorate


def _first(shape, *args, **kwargs):
    return shape


def _same(a, *args, **kwargs):
    return a.shape


def check_items(a, per_item):
    """Raise the allocation guard's error unless ``a.size`` objects of ``per_item`` bytes each
    could fit in the machine's memory: for results that NumPy builds without one allocation
    (Python lists), which would otherwise grow until the process runs out of memory."""
    if a.size * per_item > _PHYSICAL_BYTES:
        raise allocation_error(_entry_op(check_items), a.shape,
                               f"{a.size} Python objects need more than the machine's "
                               f"{_PHYSICAL_BYTES} bytes of memory")


class RaggedError(ValueError):
    """Nested sequences of unequal lengths."""


class RankError(ValueError):
    """Nested sequences deeper than the most dims an array can have."""


def asarray(data, dtype=None):
    """An ndarray from nested sequences, scalars or arrays; ``dtype`` a NumPy dtype or None.

    Raises RaggedError for ragged nesting, RankError for nesting deeper than an array's dims, and
    TypeError for values that are not numbers.
    """
    try:
        arr = np.asarray(data, dtype=dtype)
        if not arr.flags.owndata or arr is data:
            arr = arr.copy()  # never share a buffer the caller can still change
    except ValueError as exc:
        if "maximum number of dimension" in str(exc):
            raise RankError(str(exc)) from None
        if "inhomogeneous" in str(exc) or "sequence" in str(exc):
            raise RaggedError(str(exc)) from None
        raise TypeError(str(exc)) from None
    if arr.dtype == object or arr.dtype.kind in "USMmc" or (
            arr.dtype.kind == "V" and arr.dtype not in _EXTENSION_DTYPES):
        raise TypeError(f"values of type {arr.dtype} are not numbers")
    return arr


def as_array(data):
    """``data`` as an ndarray: NumPy kernels return scalars for 0-d inputs."""
    return np.asarray(data)


def is_array(data):
    """Whether ``data`` is this backend's array type."""
    return isinstance(data, np.ndarray)


def cast(a, dtype):
    """``a`` with elements of NumPy dtype ``dtype``; ``a`` itself when it already has it."""
    return a if a.dtype == dtype else a.astype(dtype)


def readonly(a):
    """A read-only view of ``a`` (same buffer)."""
    v = a.view()
    v.flags.writeable = False
    return v


def copy(a):
    """A fresh, writable, C-contiguous copy."""
    try:
        return np.array(a, copy=True, order="C")
    except (MemoryError, ValueError) as exc:
        raise allocation_failed(exc, copy, a.shape) from None


def contiguous(a):
    """``a`` if it is C-contiguous, else a C-contiguous copy."""
    if a.flags.c_contiguous:
        return a
    try:
        return np.ascontiguousarray(a)
    except (MemoryError, ValueError) as exc:
        raise allocation_failed(exc, contiguous, a.shape) from None


def is_contiguous(a):
    return bool(a.flags.c_contiguous)


def shares_memory(a, b):
    return bool(np.shares_memory(a, b))


@allocates(_same)
def tolist(a):
    check_items(a, 8)  # a list holds at least one pointer per element
    return a.tolist()


def item(a):
    return a.item()


def scalar_array(value, dtype):
    """A 0-d array holding ``value`` as NumPy dtype ``dtype``."""
    return np.asarray(value, dtype=dtype)


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


def broadcast_to(a, shape):
    """A read-only broadcast view."""
    try:
        return np.broadcast_to(a, shape)
    except ValueError as exc:
        raise allocation_failed(exc, broadcast_to, shape) from None


add = np.add
ones_like = np.ones_like
zeros_like = np.zeros_like
