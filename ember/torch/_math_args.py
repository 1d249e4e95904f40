"""Argument handling shared by ember.torch's math families (products, reductions, shapes and
grids, histograms, windows): registration as a function and a method at once, tensor and dim
checks with ember's typed errors, and dtype promotion of operands.

Every function of those families first turns its tensor operands into tensors of ember's own API
(``as_ember``, free: the same buffer and graph), so that the ember methods it composes keep
ember's meanings; ``torch_function`` and ``torch_method`` turn the results back.

>>> import ember.torch as torch
>>> torch.std(torch.tensor([1.0, 3.0]), axis=0).item() == torch.tensor([1.0, 3.0]).std(0).item()
True
"""

import math

import ember as _e

from .._tensor import Tensor as _T, alias
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ..ops.views import reshape_exact
from ..shapes import dim_aliases, normalize_dim, normalize_dims
from ._tensor import as_ember, torch_function, torch_method

__all__ = ["function_and_method", "tensor_arg", "tensor_value", "dims_arg", "dim_arg", "promoted", "dim_aliases",
           "float_dtype", "dtype_arg", "reshape"]


def function_and_method(fn=None, *, name=None):
    """Register ``fn`` as ``ember.torch.<name>`` and as the Tensor method of that name (its first
    parameter the tensor); ``axis=``/``keepdims=`` are accepted for ``dim``/``keepdim``."""
    def register(f):
        f = dim_aliases(f)
        torch_method(f, name=name or f.__name__)
        return torch_function(f, name=name)
    return register(fn) if fn is not None else register


def tensor_arg(x, op, param="input"):
    """``x`` (a tensor of either API) as a tensor of ember's API; KindError otherwise."""
    if not isinstance(x, _T):
        raise KindError(f"{op}: {param} must be a Tensor, got {type(x).__name__}")
    return as_ember(x)


def tensor_value(x, op, param="input"):
    """``x`` as ``tensor_arg`` gives it, for a function whose result never aliases ``x`` (a
    reduction): an object of ember's API over the same buffer and graph, not recorded as a view
    of ``x`` (what ``as_ember`` records costs a microsecond)."""
    if x.__class__ is not _T and isinstance(x, _T):
        return alias(x, _T)
    return tensor_arg(x, op, param)


def reshape(x, shape):
    """``x`` (an ember tensor) reshaped to ``shape`` with PyTorch's reading: a 0 is a size of
    0 (ember's ``reshape`` keeps the old size there), one -1 is inferred."""
    shape = tuple(shape)
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        shape = tuple(x.numel() // known if s == -1 and known else 0 if s == -1 else s
                      for s in shape)
    if math.prod(shape) != x.numel():
        raise ShapeMismatchError(f"reshape: shape {list(shape)} is invalid for input of size "
                                 f"{x.numel()}", shape, tuple(x.shape))
    return reshape_exact(x, shape)


def dim_arg(dim, ndim, op, param="dim"):
    """One dim normalized to ``[0, ndim)``; a 0-d tensor accepts 0 and -1 (PyTorch's rule)."""
    return normalize_dim(dim, max(ndim, 1), op, param)


def dims_arg(dim, ndim, op, param="dim"):
    """``dim`` (None, an int or a sequence; None or an empty sequence mean every dim) as a
    sorted tuple of distinct dims in ``[0, ndim)``."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    dims = normalize_dims(dim if isinstance(dim, (tuple, list)) else (dim,), max(ndim, 1), op,
                          param)
    return tuple(sorted(d for d in dims if d < ndim or ndim > 0))


def promoted(op, *tensors):
    """The tensors cast to their promoted dtype (PyTorch's type promotion)."""
    dt = tensors[0]._dtype
    for t in tensors[1:]:
        dt = _e.promote_types(dt, t._dtype)
    return tuple(t if t._dtype is dt else t.to(dt) for t in tensors)


def dtype_arg(dtype, op):
    """``dtype`` as an ember dtype (None stays None); InvalidParameterError otherwise."""
    if dtype is None:
        return None
    if isinstance(dtype, _e.DType):
        return _e.dtypes.as_dtype(dtype)
    raise InvalidParameterError(f"{op}: dtype must be a dtype such as torch.float32, got "
                                f"{dtype!r}", "dtype", dtype)


def float_dtype(x, op):
    """The dtype a float computation on ``x`` gives: its own if float or complex, else the
    default float dtype (PyTorch's rule for ints and bools)."""
    if x.dtype.kind in ("float", "complex"):
        return x.dtype
    return _e.dtypes.default_float
