"""Core NumPy kernels: conversion in and out, dtype casts, layout and memory queries."""

import ml_dtypes
import numpy as np

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


class RaggedError(ValueError):
    """Nested sequences of unequal lengths."""


def asarray(data, dtype=None):
    """An ndarray from nested sequences, scalars or arrays; ``dtype`` a NumPy dtype or None.

    Raises RaggedError for ragged nesting and TypeError for values that are not numbers.
    """
    try:
        arr = np.asarray(data, dtype=dtype)
        if not arr.flags.owndata or arr is data:
            arr = arr.copy()  # never share a buffer the caller can still change
    except ValueError as exc:
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
    return np.array(a, copy=True, order="C")


def contiguous(a):
    """``a`` if it is C-contiguous, else a C-contiguous copy."""
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def is_contiguous(a):
    return bool(a.flags.c_contiguous)


def shares_memory(a, b):
    return bool(np.shares_memory(a, b))


def tolist(a):
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
    return np.broadcast_to(a, shape)


add = np.add
ones_like = np.ones_like
zeros_like = np.zeros_like
