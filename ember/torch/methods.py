"""The methods of ``ember.torch.Tensor`` whose PyTorch meaning differs from ember's own.

Each maps PyTorch's arguments onto ember's ops (the module-level functions of ember, which
already speak PyTorch, where they exist); docs/pytorch.md lists every name here.

>>> import ember.torch as torch
>>> x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
>>> x.argmax(1).tolist(), x.var(1).shape
([1, 2], torch.Size([2]))
>>> v, i = x.max(1)
>>> i.tolist()
[1, 2]
"""

import ember as _e

from .._tensor import Tensor as _Tensor, wrap
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from ._tensor import Size, Tensor, to_torch, torch_method

_T = _Tensor


def _dims(shape, args, op):
    """PyTorch's ``*size`` or ``size`` argument as a tuple of ints."""
    if args:
        return (shape,) + tuple(args)
    if isinstance(shape, (tuple, list)):
        return tuple(shape)
    return (shape,)


# -- metadata ---------------------------------------------------------------------------------

Tensor.shape = property(lambda self: Size(self._data.shape),
                        doc="The sizes of the dims, a ``torch.Size``.")


@torch_method
def size(self, dim=None):
    """PyTorch's ``size()``: the ``torch.Size`` shape, or the size of dim ``dim``."""
    if dim is None:
        return Size(self._data.shape)
    return _T.size.fget(self)(dim)


Tensor.size = size  # a method, as PyTorch's (not ember's int-like attribute)


# -- reductions that drop the dim by default, and (values, indices) pairs ------------------------

@torch_method
def argmax(self, dim=None, keepdim=False):
    """PyTorch's ``argmax``: the reduced dim is dropped unless ``keepdim``."""
    return _e.argmax(self, dim, keepdim)


@torch_method
def argmin(self, dim=None, keepdim=False):
    """PyTorch's ``argmin``: the reduced dim is dropped unless ``keepdim``."""
    return _e.argmin(self, dim, keepdim)


@torch_method
def var(self, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """PyTorch's ``var``: Bessel's correction by default, the dim dropped unless ``keepdim``."""
    return _e.var(self, dim, unbiased, keepdim, correction=correction)


for _name in ("topk", "sort", "max", "min", "median", "kthvalue", "cummax", "cummin", "nonzero"):
    def _pair_method(self, *args, _f=getattr(_e, _name), **kwargs):
        return _f(self, *args, **kwargs)
    _pair_method.__doc__ = f"PyTorch's ``{_name}``: as ``ember.torch.{_name}(self, ...)``."
    torch_method(_pair_method, name=_name)


# -- values, graph and shape ---------------------------------------------------------------------

@torch_method
def detach(self):
    """PyTorch's ``detach``: the same values, not requiring grad (ember's keeps a leaf's)."""
    return wrap(self._data, self._dtype, self._ad)


@torch_method
def reshape(self, shape, *args):
    """PyTorch's ``reshape``: a 0 is a dim of size 0 (ember's reads it as "keep")."""
    dims = _dims(shape, args, "reshape")
    if 0 in dims:
        return _reshape_zero(self, dims, "reshape")
    return _T.reshape(self, dims)


@torch_method
def view(self, *shape):
    """PyTorch's ``view``: the shape (a 0 is a dim of size 0), or a dtype to reinterpret."""
    if len(shape) == 1 and isinstance(shape[0], _e.DType):
        return _T.view(self, shape[0])
    dims = _dims(shape[0], shape[1:], "view") if shape else ()
    if 0 in dims:
        return _reshape_zero(self, dims, "view")
    return _T.view(self, dims)


def _reshape_zero(t, dims, op):
    known = 1
    for d in dims:
        if d != -1:
            known *= d
    if known != 0 and t.numel() % known:
        raise ShapeMismatchError(f"{op}: shape {list(dims)} is invalid for input of size "
                                 f"{t.numel()}", t.shape, dims)
    if dims.count(-1) > 1:
        raise InvalidParameterError(f"{op}: only one dimension can be inferred, got {list(dims)}",
                                    "shape", dims)
    if -1 in dims:
        if known == 0:
            raise ShapeMismatchError(f"{op}: cannot infer the -1 of {list(dims)} for a tensor "
                                     f"of {t.numel()} elements", t.shape, dims)
        dims = tuple(t.numel() // known if d == -1 else d for d in dims)
    if t.numel() != 0:
        raise ShapeMismatchError(f"{op}: shape {list(dims)} is invalid for input of size "
                                 f"{t.numel()}", t.shape, dims)
    return _e.zeros(dims, dtype=t.dtype, device=t.device)


@torch_method
def select(self, dim, index):
    """PyTorch's ``select``: the slice at int ``index`` of ``dim``, that dim removed."""
    key = [slice(None)] * self.ndim
    dim = dim + self.ndim if dim < 0 else dim
    if not 0 <= dim < max(self.ndim, 1):
        _e.shapes.normalize_dim(dim, self.ndim, "select")
    key[dim] = index
    return self[tuple(key)]


@torch_method
def equal(self, other):
    """PyTorch's ``equal``: True when the shapes and every value are the same (a bool)."""
    return tuple(self.shape) == tuple(other.shape) and bool(_T.equal(self, other).all())


@torch_method
def repeat(self, *sizes):
    """PyTorch's ``repeat``: tile the tensor ``sizes`` times along each dim."""
    return _T.repeat(self, _dims(sizes[0], sizes[1:], "repeat") if sizes else ())


@torch_method
def div(self, other, *, rounding_mode=None):
    """PyTorch's ``div``: true division (ints give floats) unless ``rounding_mode`` is
    ``"trunc"`` or ``"floor"``."""
    if rounding_mode is None:
        return self / other
    if rounding_mode == "floor":
        return self // other
    if rounding_mode == "trunc":
        out = (self / other).trunc()
        ints = self.dtype.kind == "int" and (not isinstance(other, _T) or other.dtype.kind == "int")
        return out.to(self.dtype) if ints else out
    raise InvalidParameterError(f"div: rounding_mode {rounding_mode!r} is unknown; expected None, "
                                "'trunc' or 'floor'", "rounding_mode", rounding_mode)


Tensor.divide = Tensor.div
Tensor.true_divide = lambda self, other: self / other


@torch_method
def int(self):  # noqa: A001
    """PyTorch's ``int()``: int32 (ember's is int64)."""
    return self.to(_e.int32)


@torch_method
def mean(self, dim=None, keepdim=False, *, dtype=None):
    """PyTorch's ``mean``: defined for float and complex tensors only."""
    if dtype is not None:
        self = self.to(dtype)
    if self.dtype.kind not in ("float", "complex"):
        raise KindError(f"mean: could not infer output dtype; the input dtype must be a float "
                        f"or complex dtype, got {self.dtype.name} (pass dtype=)")
    return _T.mean(self, dim, keepdim)


@torch_method
def transpose(self, dim0, dim1):
    """PyTorch's ``transpose``: swap dims ``dim0`` and ``dim1`` (both required)."""
    return _T.transpose(self, dim0, dim1)


@torch_method
def scatter(self, dim, index, src=None, *, value=None, reduce=None):
    """PyTorch's ``scatter``: ``src`` (a tensor) or ``value`` (a number) written at ``index``
    along ``dim``; ``reduce`` "add" or "multiply"."""
    if src is None:
        src = value
    if not isinstance(src, _T):
        src = _e.full(index.shape, src, dtype=self.dtype, device=self.device)
    elif tuple(src.shape) != tuple(index.shape):
        src = src[tuple(slice(0, n) for n in index.shape)]
    update = {None: "assign", "add": "add", "multiply": "mul"}.get(reduce)
    if update is None:
        raise InvalidParameterError(f"scatter: reduce {reduce!r} is unknown; expected None, 'add' "
                                    "or 'multiply'", "reduce", reduce)
    return _T.scatter(self, dim, index, src, update)


def _repr(self):
    from .printing import tensor_repr
    return tensor_repr(self)


Tensor.__repr__ = Tensor.__str__ = _repr


def _grad_get(self):
    g = self._grad
    node = self._node
    if g is None and node is not None and node.tensor_ref is not None:
        owner = node.tensor_ref()  # the leaf this tensor aliases (as_torch of a parameter)
        if owner is not None:
            g = owner._grad
    return to_torch(g)


Tensor.grad = property(_grad_get, _T.grad.fset, _T.grad.fdel, _T.grad.__doc__)
Tensor.data = property(lambda self: to_torch(_T.data.fget(self)), _T.data.fset, None,
                       _T.data.__doc__)


_TYPE_NAMES = {"torch.FloatTensor": "float32", "torch.DoubleTensor": "float64",
               "torch.HalfTensor": "float16", "torch.BFloat16Tensor": "bfloat16",
               "torch.LongTensor": "int64", "torch.IntTensor": "int32",
               "torch.ShortTensor": "int16", "torch.CharTensor": "int8",
               "torch.ByteTensor": "uint8", "torch.BoolTensor": "bool"}


@torch_method
def type(self, dtype=None, non_blocking=False):  # noqa: A001
    """PyTorch's ``type``: with no argument the type name (``"torch.FloatTensor"``); with a
    dtype (or such a name) this tensor cast to it."""
    if dtype is None:
        for key, name in _TYPE_NAMES.items():
            if self.dtype.name == name:
                return key
        return f"torch.{self.dtype.name}"
    if isinstance(dtype, str):
        if dtype not in _TYPE_NAMES:
            raise InvalidParameterError(f"type: unknown type name {dtype!r}; expected one of "
                                        f"{sorted(_TYPE_NAMES)} or a dtype", "dtype", dtype)
        dtype = _e.dtypes.as_dtype(_TYPE_NAMES[dtype])
    return self.to(dtype)
