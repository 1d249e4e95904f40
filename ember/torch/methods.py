"""The methods of ``ember.torch.Tensor`` whose PyTorch meaning differs from ember's own.

Each maps PyTorch's arguments onto ember's ops (the module-level functions of ember, which
already speak PyTorch, where they exist); docs/pytorch.md lists every name here.
tests/torch/test_method_meanings.py audits every method the two APIs share against PyTorch
(structure, shape, dtype, values, errors and gradients); a difference it finds is fixed here.

>>> import ember.torch as torch
>>> x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
>>> x.argmax(1).tolist(), x.var(1).shape
([1, 2], torch.Size([2]))
>>> v, i = x.max(1)
>>> i.tolist()
[1, 2]
"""

import builtins as _b


import ember as _e

from .._tensor import Tensor as _Tensor, wrap
from ..errors import (DimensionError, GraphError, InvalidParameterError, KindError,
                      ShapeMismatchError)
from ._tensor import Size, Tensor, to_torch, torch_method

_T = _Tensor


def _unregistered(name):
    """ember's view method ``name`` without its view record: for the methods below whose own
    wrapper (ember.torch's, ops/aliasing.py) records the result as a view of ``self``."""
    fn = getattr(_T, name)
    return getattr(fn, "view_of", fn)


_view, _reshape, _transpose, _permute, _expand = map(
    _unregistered, ("view", "reshape", "transpose", "permute", "expand"))


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
    """PyTorch's ``argmax``: the reduced dim is dropped unless ``keepdim`` (no bool tensor)."""
    _no_bool(self, "argmax")
    return _e.argmax(self, dim, keepdim)


@torch_method
def argmin(self, dim=None, keepdim=False):
    """PyTorch's ``argmin``: the reduced dim is dropped unless ``keepdim`` (no bool tensor)."""
    _no_bool(self, "argmin")
    return _e.argmin(self, dim, keepdim)


def _no_bool(t, op):
    if t._dtype is _e.bool_:
        raise KindError(f"{op}: does not support bool input (cast it first: .int())")


@torch_method
def var(self, dim=None, unbiased=True, keepdim=False, *, correction=None):
    """PyTorch's ``var``: Bessel's correction by default, the dim dropped unless ``keepdim``."""
    return _e.var(self, dim, unbiased, keepdim, correction=correction)


for _name in ("topk", "median", "kthvalue", "cummax", "cummin", "nonzero"):
    def _pair_method(self, *args, _f=getattr(_e, _name), **kwargs):
        return _f(self, *args, **kwargs)
    _pair_method.__doc__ = f"PyTorch's ``{_name}``: as ``ember.torch.{_name}(self, ...)``."
    torch_method(_pair_method, name=_name)


@torch_method(name="max")
def _max(self, dim=None, keepdim=False, *, other=None):
    """PyTorch's ``max``: the largest value; ``(values, indices)`` along ``dim``; the element-wise
    maximum with a tensor ``other`` (also passed as ``dim``)."""
    return _e.max(self, dim, keepdim) if other is None else _e.maximum(self, other)


@torch_method(name="min")
def _min(self, dim=None, keepdim=False, *, other=None):
    """PyTorch's ``min``: the smallest value; ``(values, indices)`` along ``dim``; the element-wise
    minimum with a tensor ``other`` (also passed as ``dim``)."""
    return _e.min(self, dim, keepdim) if other is None else _e.minimum(self, other)


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
    return _reshape(self, dims)


@torch_method
def view(self, *shape, size=None):
    """PyTorch's ``view``: the shape (a 0 is a dim of size 0), or a dtype to reinterpret."""
    if size is None and len(shape) > 1:  # view(64, 32): the sizes are the varargs' tuple
        dims = shape
    else:
        if size is not None:
            shape = (size,)
        if len(shape) == 1 and isinstance(shape[0], _e.DType):
            return _T.view(self, shape[0])
        dims = _dims(shape[0], shape[1:], "view") if shape else ()
    if 0 in dims:
        return _reshape_zero(self, dims, "view")
    if not self._device.backend.is_contiguous(self._data):  # (Tensor.is_contiguous, inline)
        _check_view_strides(self, dims)
    return _view(self, dims)


def _check_view_strides(t, dims):
    """Raise PyTorch's refusal when ``t`` (not contiguous) cannot be viewed as ``dims`` without a
    copy: a new dim would span two of its non-adjacent chunks (PyTorch's ``computeStride``)."""
    n = t.numel()
    if dims.count(-1) == 1:
        known = 1
        for d in dims:
            known *= d if d != -1 else 1
        if known == 0 or n % known:
            return  # _T.view reports the bad shape
        dims = tuple(n // known if d == -1 else d for d in dims)
    size = 1
    for d in dims:
        size *= d
    if size != n or n == 0:
        return
    old, stride = tuple(t.shape), t.stride()
    view_d, chunk, tensor_n, view_n = len(dims) - 1, stride[-1], 1, 1
    for d in range(len(old) - 1, -1, -1):
        tensor_n *= old[d]
        if d == 0 or (old[d - 1] != 1 and stride[d - 1] != tensor_n * chunk):
            while view_d >= 0 and (view_n < tensor_n or dims[view_d] == 1):
                view_n *= dims[view_d]
                view_d -= 1
            if view_n != tensor_n:
                break
            if d > 0:
                chunk, tensor_n, view_n = stride[d - 1], 1, 1
    else:
        if view_d == -1:
            return
    raise ShapeMismatchError(f"view: view size {list(dims)} is not compatible with input tensor's "
                             f"size {list(old)} and stride {list(stride)} (at least one dimension "
                             "spans across two contiguous subspaces); use .reshape(...) instead",
                             tuple(old), dims)


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
def repeat(self, *sizes, repeats=None):
    """PyTorch's ``repeat``: tile the tensor ``sizes`` times along each dim (at least one size
    per dim; more add leading dims)."""
    if repeats is not None:
        sizes = (repeats,)
    dims = _dims(sizes[0], sizes[1:], "repeat") if sizes else ()
    if len(dims) < self.ndim:
        raise InvalidParameterError(f"repeat: {len(dims)} sizes {list(dims)} for a tensor of "
                                    f"{self.ndim} dims; expected at least one size per dim",
                                    "sizes", dims)
    return _T.repeat(self, dims)


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
               "torch.ByteTensor": "uint8", "torch.BoolTensor": "bool",
               "torch.UInt16Tensor": "uint16", "torch.UInt32Tensor": "uint32",
               "torch.UInt64Tensor": "uint64", "torch.ComplexFloatTensor": "complex64",
               "torch.ComplexDoubleTensor": "complex128"}


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


# -- keyword arguments of PyTorch's that ember's methods lack -------------------------------------

@torch_method
def add(self, other, *, alpha=1):
    """PyTorch's ``add``: ``self + alpha * other``, bools promoted as PyTorch promotes them."""
    if (self._dtype is _BOOL and _is_bool(other) and isinstance(alpha, _b.int)
            and alpha is not True and alpha is not False):
        return _arith(self, other, "add") if alpha else self.clone()  # bools stay bools
    return _arith(self, _scaled(other, alpha, "add"), "add")


def _is_bool(value):
    return value.__class__ is bool or (isinstance(value, _T) and value._dtype is _BOOL)


@torch_method
def sub(self, other, *, alpha=1):
    """PyTorch's ``sub``: ``self - alpha * other`` (no bool tensor is subtracted)."""
    if _is_bool(self) or _is_bool(other):
        return _arith(self, other, "sub")  # raises PyTorch's refusal
    return _arith(self, _scaled(other, alpha, "sub"), "sub")


Tensor.subtract = Tensor.sub


def _scaled(other, alpha, op):
    if alpha is True or alpha is False or not isinstance(alpha, (_b.int, _b.float, complex)):
        raise InvalidParameterError(f"{op}: alpha must be a number, got {alpha!r}", "alpha", alpha)
    return other if alpha == 1 else other * alpha


@torch_method(name="sum")
def _sum(self, dim=None, keepdim=False, *, dtype=None):
    """PyTorch's ``sum``: ``dtype`` casts the input first (ints and bools sum to int64)."""
    return _T.sum(_cast(self, dtype), dim, keepdim)


@torch_method
def prod(self, dim=None, keepdim=False, *, dtype=None):
    """PyTorch's ``prod``: ``dtype`` casts the input first."""
    return _T.prod(_cast(self, dtype), dim, keepdim)


@torch_method
def cumsum(self, dim, *, dtype=None):
    """PyTorch's ``cumsum``: ``dtype`` casts the input first (ints and bools give int64)."""
    return _T.cumsum(_cast(self, dtype), dim)


@torch_method
def cumprod(self, dim, *, dtype=None):
    """PyTorch's ``cumprod``: ``dtype`` casts the input first (ints and bools give int64)."""
    return _T.cumprod(_cast(self, dtype), dim)


def _cast(t, dtype):
    return t if dtype is None else t.to(dtype)


@torch_method
def sort(self, *args, stable=None, **kwargs):
    """PyTorch's ``sort``: the ``(values, indices)`` named tuple along ``dim`` (default -1);
    with ``stable=`` given, ``dim`` and ``descending`` by keyword only (as PyTorch's two
    signatures); a bool tensor sorts False before True."""
    dim, descending = sort_args(args, kwargs, stable, "sort")
    if self._dtype is _BOOL:
        out = _e.sort(self.to(_e.uint8), dim, descending, stable=_b.bool(stable))
        return out._replace(values=out.values.to(_BOOL))
    return _e.sort(self, dim, descending, stable=_b.bool(stable))


# argsort and msort (ember/torch/reductions.py) read their arguments with sort_args too


def sort_args(args, kwargs, stable, op):
    """``(dim, descending)`` of PyTorch's ``sort(dim=-1, descending=False)`` or
    ``sort(*, stable, dim=-1, descending=False)`` (and ``argsort``'s) from the positional
    ``args`` and keyword ``kwargs``; ``op`` names the function in errors.

    >>> sort_args((0,), {}, None, "sort"), sort_args((), {"dim": 1}, True, "sort")
    ((0, False), (1, False))
    """
    if "axis" in kwargs:  # NumPy's name, which PyTorch accepts for dim
        if "dim" in kwargs:
            raise InvalidParameterError(f"{op}: dim and axis are one parameter; give one of them",
                                        "axis", kwargs["axis"])
        kwargs = dict(kwargs, dim=kwargs.pop("axis"))
    unknown = set(kwargs) - {"dim", "descending"}
    if unknown:
        raise InvalidParameterError(f"{op}: unexpected keyword argument {sorted(unknown)[0]!r}",
                                    sorted(unknown)[0], kwargs[sorted(unknown)[0]])
    if stable is not None and args:
        raise InvalidParameterError(f"{op}: with stable= given, dim and descending must be "
                                    f"passed by keyword (got {len(args)} positional)",
                                    "stable", stable)
    if stable is not None and not isinstance(stable, _b.bool):
        raise InvalidParameterError(f"{op}: stable must be a bool, got {stable!r}", "stable",
                                    stable)
    if len(args) > 2:
        raise InvalidParameterError(f"{op}: takes at most 2 positional arguments (dim, "
                                    f"descending), got {len(args)}", "args", args)
    named = dict(zip(("dim", "descending"), args))
    for key in named:
        if key in kwargs:
            raise InvalidParameterError(f"{op}: got multiple values for argument {key!r}", key,
                                        kwargs[key])
    named.update(kwargs)
    return named.get("dim", -1), named.get("descending", False)


@torch_method
def softmax(self, dim=None, dtype=None):
    """PyTorch's ``softmax``: ``dim`` required; an int tensor needs ``dtype``."""
    return _softmax(self, dim, dtype, _T.softmax, "softmax")


@torch_method
def log_softmax(self, dim=None, dtype=None):
    """PyTorch's ``log_softmax``: ``dim`` required; an int tensor needs ``dtype``."""
    return _softmax(self, dim, dtype, _T.log_softmax, "log_softmax")


def _softmax(t, dim, dtype, f, op):
    if dim is None:
        raise InvalidParameterError(f"{op}: dim is required (PyTorch's Tensor.{op} has no "
                                    "implicit dim)", "dim", dim)
    t = _cast(t, dtype)
    if t.dtype.kind not in ("float", "complex"):
        raise KindError(f"{op}: not defined for {t.dtype.name} tensors; expected a float tensor "
                        "(pass dtype=torch.float32)")
    return f(t, dim)


# -- PyTorch's meanings of names ember's methods give another ----------------------------------

@torch_method
def take(self, index):
    """PyTorch's ``take``: the elements of the flattened tensor at ``index`` (any shape; negative
    indices count from the end). ember's ``take(dim, indices)`` is Burn's."""
    if not isinstance(index, _T) or index.dtype.kind != "int":
        raise KindError(f"take: index must be an int tensor, got {_what(index)}")
    return self.reshape(-1)[index]


@torch_method
def inner(self, other):
    """PyTorch's ``inner``: the sum of products over the last dims of both (a number times a
    tensor when either is 0-d). ember's ``inner()`` is Burn's tensor without autodiff."""
    if not isinstance(other, _T):
        raise KindError(f"inner: other must be a tensor, got {_what(other)}")
    if self.ndim == 0 or other.ndim == 0:
        return self * other
    k = self.shape[-1]
    if other.shape[-1] != k:
        raise ShapeMismatchError(f"inner: the last dims of self {tuple(self.shape)} and other "
                                 f"{tuple(other.shape)} must match", self.shape, other.shape)
    flat = self.reshape(-1, k) @ other.reshape(-1, k).transpose(0, 1)
    return flat.reshape(tuple(self.shape[:-1]) + tuple(other.shape[:-1]))


@torch_method
def cov(self, *, correction=1, fweights=None, aweights=None):
    """PyTorch's ``cov``: the covariance of the rows (variables) over the columns (observations)
    of a 1-d or 2-d tensor, with frequency and importance weights. ember's ``cov(dim, ...)`` is
    Burn's."""
    if self.ndim > 2:
        raise ShapeMismatchError(f"cov: expected a 1-d or 2-d tensor, got {self.ndim} dims",
                                 "1-d or 2-d", tuple(self.shape))
    x = self.reshape(1, -1) if self.ndim < 2 else self
    if x.dtype.kind not in ("float", "complex"):
        x = x.to(_e.float32)
    n = x.shape[1]
    w = None
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is None:
            continue
        if not isinstance(weights, _T) or tuple(weights.shape) != (n,):
            raise ShapeMismatchError(f"cov: {name} must be a 1-d tensor of {n} weights (one per "
                                     f"observation), got {_what(weights)}", (n,), weights)
        w = weights if w is None else w * weights
    if w is None:
        avg = x.mean(1)
        fact = n - correction
    else:
        total = w.sum()
        avg = (x * w).sum(1) / total
        fact = total - correction * ((w * aweights).sum() / total if aweights is not None else 1)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    out = (xw @ xm.transpose(0, 1).conj()) / fact
    return out.reshape(()) if self.ndim < 2 else out


@torch_method
def t(self):
    """PyTorch's ``t``: the transpose of a matrix; a 0-d or 1-d tensor as it is."""
    if self.ndim > 2:
        raise DimensionError(f"t: expects a tensor with <= 2 dims, but self has {self.ndim}")
    return _T.transpose(self, 0, 1) if self.ndim == 2 else self


@torch_method
def unbind(self, dim=0):
    """PyTorch's ``unbind``: a tuple of the slices along ``dim`` (ember's gives a list)."""
    return tuple(_T.unbind(self, dim))


@torch_method
def split_with_sizes(self, split_sizes, dim=0):
    """PyTorch's ``split_with_sizes``: a tuple of the pieces (ember's gives a list)."""
    return tuple(_T.split_with_sizes(self, split_sizes, dim))


Tensor.real = property(lambda self: self if self._dtype is _e.bool_ else to_torch(_T.real(self)),
                       doc="PyTorch's ``real``: the real part (a real tensor itself), a property.")


@torch_method
def conj(self):
    """PyTorch's ``conj``: the complex conjugate (a real or bool tensor itself)."""
    return self if self._dtype is _e.bool_ else _T.conj(self)
Tensor.imag = property(lambda self: to_torch(_T.imag(self)),
                       doc="PyTorch's ``imag``: the imaginary part of a complex tensor (a "
                           "property).")


def _contains(self, element):
    if isinstance(element, (_T, _b.int, _b.float, complex)):
        return bool((self == element).any())
    raise KindError(f"Tensor.__contains__ only supports a tensor or a number, got {_what(element)}")


Tensor.__contains__ = _contains


def _what(value):
    if isinstance(value, _T):
        return f"a {value.dtype.name} tensor of shape {tuple(value.shape)}"
    return f"{_b.type(value).__name__} {value!r}"


# -- PyTorch's promotion of bool operands (ember's arithmetic takes no bools) -------------------

_BOOL = _e.bool_
_OPS = {"add": (_T.__add__, _T.logical_or), "mul": (_T.__mul__, _T.logical_and),
        "sub": (_T.__sub__, None), "rsub": (_T.__rsub__, None),
        "truediv": (_T.__truediv__, None), "rtruediv": (_T.__rtruediv__, None)}


def _arith(self, other, op):
    """``self <op> other`` where a bool operand is promoted as PyTorch promotes it: two bools
    add as ``or`` and multiply as ``and``; a bool meets a number as that number's kind (int64,
    the default float) and a tensor as that tensor's dtype; no bool is subtracted."""
    f, both = _OPS[op]
    self_bool = self._dtype is _BOOL
    other_bool = _is_bool(other)
    if not (self_bool or other_bool):
        return f(self, other)
    if op in ("sub", "rsub"):
        raise KindError("sub: subtraction with a bool tensor is not supported; use ^ or "
                        "logical_xor() (or ~ and logical_not() to invert a mask)")
    if self_bool and other_bool:
        if both is not None:
            return both(self, _e.tensor(other, device=self.device) if other.__class__ is bool
                        else other)
        self = self.to(_e.float32)
        other = _b.float(other) if other.__class__ is bool else other.to(_e.float32)
    elif other.__class__ is bool:
        other = _b.int(other)
    elif other_bool:
        other = other.to(self.dtype)
    elif isinstance(other, _T):
        self = self.to(other.dtype)
    else:
        kind = _e.int64 if isinstance(other, _b.int) else (
            _e.complex64 if isinstance(other, complex) else _e.float32)
        self = self.to(kind)
    return f(self, other)


def _arith_method(name, op):
    f = _OPS[op][0]

    def method(self, other):  # on the hot path: one test when no operand is a bool
        cls = other.__class__
        if cls is Tensor or cls is _T:  # the common operands, told by class: no NumPy test
            if self._dtype is _BOOL or other._dtype is _BOOL:
                return to_torch(_arith(self, other, op))
            return to_torch(f(self, other))
        if cls is float or cls is int:
            if self._dtype is _BOOL:
                return to_torch(_arith(self, other, op))
            return to_torch(f(self, other))
        if _is_numpy(other):
            other = numpy_operand(other, self, name)
        if self._dtype is _BOOL or other.__class__ is bool or \
                getattr(other, "_dtype", None) is _BOOL:
            return to_torch(_arith(self, other, op))
        return to_torch(f(self, other))
    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = f"PyTorch's ``{name}``, bool operands promoted as PyTorch does."
    return method


def _is_numpy(value):
    """Whether ``value`` is a NumPy array or scalar (told by its type's module, so that ember
    reads NumPy's values here without importing NumPy above the backend seam)."""
    return _b.type(value).__module__ == "numpy"


# the operators PyTorch's tensors apply to a NumPy array (the others raise in PyTorch)
_ARRAY_OPERATORS = frozenset(("__add__", "__sub__", "__mul__", "__truediv__", "__rtruediv__",
                              "__floordiv__", "__mod__", "__pow__", "__matmul__", "__eq__"))


def numpy_operand(value, like, op):
    """A NumPy operand of the operator ``op`` as PyTorch takes it: an array as a tensor of its
    dtype (on ``like``'s device), a NumPy scalar as the Python number it holds (a NumPy bool as
    a float, as PyTorch reads it).

    >>> import numpy as np, ember.torch as torch
    >>> (torch.ones(2) + np.ones(2)).dtype.name, (torch.tensor([1]) + np.bool_(True)).tolist()
    ('float64', [2.0])
    """
    kind = _b.type(value).__name__
    if kind in ("bool", "bool_"):
        return _b.float(value)  # PyTorch reads a NumPy bool as the float 0.0 or 1.0
    if kind != "ndarray":
        return value.item()
    if op not in _ARRAY_OPERATORS:
        raise KindError(f"{op}: a NumPy array operand is not supported here (PyTorch refuses "
                        "it); convert it first with torch.from_numpy()")
    return to_torch(_e.tensor(value, device=like.device))


def _numpy_operands(name, f):
    def method(self, other):
        if _is_numpy(other):
            other = numpy_operand(other, self, name)
        return to_torch(f(self, other))
    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = f"PyTorch's ``{name}``, NumPy operands taken as PyTorch takes them."
    return method


for _name, _op in (("__add__", "add"), ("__radd__", "add"), ("__mul__", "mul"),
                   ("__rmul__", "mul"), ("__sub__", "sub"), ("__rsub__", "rsub"),
                   ("__truediv__", "truediv"), ("__rtruediv__", "rtruediv"),
                   ("mul", "mul"), ("multiply", "mul")):
    setattr(Tensor, _name, _arith_method(_name, _op))

for _name in ("__matmul__", "__rmatmul__", "__and__", "__rand__", "__or__", "__ror__",
              "__xor__", "__rxor__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
    setattr(Tensor, _name, _numpy_operands(_name, Tensor.__dict__.get(_name, getattr(_T, _name))))


# -- PyTorch's operand rules of the binary element-wise methods ember's relax -------------------

_TENSOR_OTHER = frozenset(("atan2", "hypot", "maximum", "minimum", "igamma", "igammac",
                           "logical_and", "logical_or", "logical_xor"))  # no number as other
_FLOAT_ONLY = frozenset(("hypot", "igamma", "igammac"))  # PyTorch has no int kernel
_TWO_BOOLS = {"maximum": _T.logical_or, "minimum": _T.logical_and}
_MISSING = object()


def binary_rules(name, f):
    """The method ``f`` (``self.<name>(other, ...)``) with PyTorch's operand rules: ``other`` a
    tensor where PyTorch takes no number, a bool operand promoted as PyTorch promotes it (to
    the other operand's dtype, or a number's default dtype), ints to negative int powers as
    PyTorch computes them, and refusals where PyTorch has no kernel.

    >>> import ember.torch as torch
    >>> torch.tensor([2, 1, -1]).pow(torch.tensor([-1, -2, -3])).tolist()
    [0, 1, -1]
    """
    param = "exponent" if name == "pow" else "other"

    def method(self, *args, **kwargs):
        other = args[0] if args else kwargs.pop(param, _MISSING)
        if other is _MISSING:
            raise InvalidParameterError(f"{name}: missing the argument {param}", param, None)
        if name in _TENSOR_OTHER and not isinstance(other, _T):
            raise KindError(f"{name}: argument {param} must be a Tensor, got {_what(other)}")
        both = self._dtype is _BOOL and _is_bool(other) and not name.startswith("logical_")
        if both and name in _TWO_BOOLS and isinstance(other, _T):
            return _TWO_BOOLS[name](self, other)
        if both and name == "pow" and other.__class__ is _b.bool:
            return self.clone() if other else _e.ones_like(self)
        if both and name in ("atan2", "xlogy"):
            self = self.to(_e.float32)
            other = other.to(_e.float32) if isinstance(other, _T) else _b.float(other)
        elif both:
            raise KindError(f"{name}: not implemented for two bool operands (cast one first)")
        elif self._dtype is _BOOL:
            self = self.to(other.dtype if isinstance(other, _T) else _e.int64
                           if isinstance(other, _b.int) else _e.complex64
                           if isinstance(other, complex) else _e.float32)
        elif _is_bool(other):
            other = other.to(self.dtype) if isinstance(other, _T) else _b.int(other)
        if name in _FLOAT_ONLY and self.dtype.kind not in ("float", "complex") and (
                not isinstance(other, _T) or other.dtype.kind not in ("float", "complex")):
            raise KindError(f"{name}: not implemented for {self.dtype.name} operands; expected a "
                            "float tensor")
        if name == "pow" and isinstance(other, _T) and self.dtype.kind == other.dtype.kind \
                == "int" and _b.bool((other < 0).any()):
            return _int_pow(self, other, f)
        return f(self, other, *args[1:], **kwargs)
    method.__name__ = name
    method.__doc__ = f"PyTorch's ``{name}``, its operands as PyTorch takes them (binary_rules)."
    return method


def _int_pow(base, exponent, f):
    """``base ** exponent`` of ints with negative exponents: 0, except 1 for a base of 1 and
    +-1 for a base of -1 (PyTorch's integer pow)."""
    out = f(base, exponent.abs())
    odd = exponent.remainder(2) == 1
    small = _e.where(base == 1, 1, _e.where(base == -1, _e.where(odd, -1, 1), 0))
    return _e.where(exponent < 0, small, out).to(out.dtype)


for _name in ("floor_divide", "remainder", "fmod", "pow", "atan2", "hypot", "maximum",
              "minimum", "logical_and", "logical_or", "logical_xor"):
    torch_method(binary_rules(_name, getattr(_T, _name)), name=_name)


_RANK = {"bool": 0, "int": 1, "float": 2, "complex": 3}


def _number_kind(value):
    if value.__class__ is _b.bool:
        return "bool"
    if isinstance(value, _b.int):
        return "int"
    return "float" if isinstance(value, _b.float) else "complex"


def wrapped_number(value, other):
    """The Python number ``value`` as a 0-d tensor that meets the tensor ``other`` as PyTorch's
    wrapped numbers do: of ``other``'s dtype when its kind is at least the number's, else of the
    number's default dtype (int64, float32, complex64).

    >>> import ember.torch as torch
    >>> wrapped_number(2, torch.ones(1, dtype=torch.float16)).dtype.name
    'float16'
    >>> wrapped_number(2.5, torch.tensor([1])).dtype.name
    'float32'
    """
    kind = _number_kind(value)
    if _RANK[other.dtype.kind] >= _RANK[kind]:
        dtype = other.dtype
    else:
        dtype = {"bool": _e.bool_, "int": _e.int64, "float": _e.float32,
                 "complex": _e.complex64}[kind]
    return to_torch(_e.tensor(value, dtype=dtype, device=other.device))


# the operators of those methods: their operand rules too (a number on the left wrapped as PyTorch
# wraps it)
def _reflected(name, base):
    def method(self, other):
        if _is_numpy(other):
            other = numpy_operand(other, self, name)
        if not isinstance(other, (_b.bool, _b.int, _b.float, complex)):
            return NotImplemented
        return getattr(Tensor, base)(wrapped_number(other, self), self)
    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = f"PyTorch's ``{name}``: ``{base}`` of the number and this tensor."
    return method


for _name, _base in (("floordiv", "floor_divide"), ("mod", "remainder"), ("pow", "pow")):
    setattr(Tensor, f"__{_name}__", _numpy_operands(f"__{_name}__", Tensor.__dict__[_base]))
    setattr(Tensor, f"__r{_name}__", _reflected(f"__r{_name}__", _base))


# element-wise functions of floats: a bool tensor is computed as the default float dtype
for _name in ("exp", "expm1", "log", "log10", "log1p", "log2", "sqrt", "rsqrt", "sin", "cos",
              "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
              "sigmoid", "erf", "reciprocal", "deg2rad", "rad2deg", "angle"):
    def _float_method(self, *args, _f=getattr(_T, _name), **kwargs):
        return _f(self.to(_e.float32) if self._dtype is _BOOL else self, *args, **kwargs)
    _float_method.__doc__ = f"PyTorch's ``{_name}``: a bool tensor computed as float32."
    torch_method(_float_method, name=_name)


@torch_method
def sign(self):
    """PyTorch's ``sign``: -1, 0 or 1 of the input's dtype (a bool tensor's own values)."""
    return self.clone() if self._dtype is _BOOL else _T.sign(self)


@torch_method
def sgn(self):
    """PyTorch's ``sgn``: ``sign`` of a real tensor, ``x / |x|`` of a complex one."""
    return self.clone() if self._dtype is _BOOL else _T.sgn(self)


@torch_method
def square(self):
    """PyTorch's ``square``: ``self * self``; a bool tensor gives int64."""
    return _T.square(self.to(_e.int64) if self._dtype is _BOOL else self)


# -- PyTorch's argument names, and dims of 0-d tensors ------------------------------------------

def _sizes(args, given, op):
    """``*args`` or the keyword's value ``given`` as a tuple of ints."""
    if given is not None:
        if args:
            raise InvalidParameterError(f"{op}: the sizes were given both positionally {args} "
                                        f"and by keyword ({given!r})", "dims", given)
        args = (given,)
    return _dims(args[0], args[1:], op) if args else ()


def _scalar_dims(dims, op):
    """Check that ``dims`` name only dim 0 or -1 (all a 0-d tensor has, as PyTorch wraps it)."""
    for d in dims:
        if d not in (0, -1):
            raise DimensionError(f"{op}: dim {d} is out of range for a 0-d tensor (expected 0 "
                                 "or -1)")


@torch_method
def flip(self, *dims_args, dims=None):
    """PyTorch's ``flip``: reverse the order along each of ``dims`` (``flip(0, 1)``,
    ``flip((0, 1))`` or ``flip(dims=[0])``)."""
    dims = _sizes(dims_args, dims, "flip")
    if self.ndim == 0:
        _scalar_dims(dims, "flip")
        return self.clone()
    return _T.flip(self, dims)


@torch_method
def permute(self, *dims_args, dims=None):
    """PyTorch's ``permute``: the dims in the order ``dims`` (``permute(1, 0)``,
    ``permute((1, 0))`` or ``permute(dims=(1, 0))``)."""
    if not dims_args and dims is None:
        raise InvalidParameterError("permute: dims is required (one per dim of the tensor)",
                                    "dims", None)
    dims = _sizes(dims_args, dims, "permute")
    if self.ndim == 0:
        if dims:
            raise ShapeMismatchError(f"permute: {len(dims)} dims {list(dims)} for a 0-d tensor; "
                                     "expected ()", (), dims)
        return self
    return _permute(self, dims)


@torch_method
def transpose(self, dim0, dim1):
    """PyTorch's ``transpose``: swap dims ``dim0`` and ``dim1`` (both required; a 0-d tensor's
    dims are 0 and -1)."""
    if self.ndim == 0:
        _scalar_dims((dim0, dim1), "transpose")
        return self
    return _transpose(self, dim0, dim1)


@torch_method
def expand(self, *sizes, size=None):
    """PyTorch's ``expand``: broadcast to ``sizes`` (-1 keeps a dim; ``expand(2, 3)``,
    ``expand((2, 3))`` or ``expand(size=(2, 3))``)."""
    dims = _sizes(sizes, size, "expand")
    lead = len(dims) - self.ndim
    if any(d == -1 for d in dims[:max(lead, 0)]):
        raise InvalidParameterError(f"expand: -1 is not allowed in a new leading dim, got "
                                    f"{list(dims)} for shape {list(self.shape)}", "size", dims)
    return _expand(self, dims)


@torch_method
def unfold(self, dimension, size, step):
    """PyTorch's ``unfold``: the windows of ``size`` elements, ``step`` apart, along
    ``dimension``, as a new last dim."""
    return _T.unfold(self, dimension, size, step)


@torch_method
def dot(self, tensor):
    """PyTorch's ``dot``: the inner product of two 1-d tensors of one dtype (the argument is
    ``tensor``)."""
    if isinstance(tensor, _T) and tensor.dtype != self.dtype:
        raise KindError(f"dot: expected both vectors to have same dtype, but found "
                        f"{self.dtype.name} and {tensor.dtype.name}")
    return _T.dot(self, tensor)


@torch_method
def outer(self, vec2):
    """PyTorch's ``outer``: the outer product of two 1-d tensors (the argument is ``vec2``)."""
    return _T.outer(self, vec2)


# -- what PyTorch refuses (a program relying on ember's leniency would not run on PyTorch) ------

@torch_method
def lerp(self, end, weight):
    """PyTorch's ``lerp``: ``self + weight * (end - self)`` of float tensors of one dtype."""
    for name, value in (("end", end), ("weight", weight)):
        if isinstance(value, _T) and value.dtype != self.dtype:
            raise KindError(f"lerp: expected dtype {self.dtype.name} for {name} but got "
                            f"{value.dtype.name}")
    if self.dtype.kind not in ("float", "complex"):
        raise KindError(f"lerp: not defined for {self.dtype.name} tensors; expected a float "
                        "tensor")
    return _T.lerp(self, end, weight)


@torch_method
def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """PyTorch's ``allclose``: ``|self - other| <= atol + rtol * |other|`` everywhere (a bool);
    the two tensors must have one dtype."""
    if isinstance(other, _T) and other.dtype != self.dtype:
        raise KindError(f"allclose: {self.dtype.name} did not match {other.dtype.name} (cast "
                        "one of the tensors first)")
    return _T.allclose(self, other, rtol, atol, equal_nan)


@torch_method
def cross(self, other, dim=None):
    """PyTorch's ``cross``: the cross product along ``dim``; without ``dim`` along the first dim
    of size 3 (of the broadcast shape), as ``torch.cross`` (``torch.linalg.cross`` takes -1)."""
    if dim is None:
        shape = _e.shapes.broadcast_shapes(tuple(self.shape), tuple(other.shape)) \
            if isinstance(other, _T) else tuple(self.shape)
        dim = next((d for d, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise ShapeMismatchError(f"cross: no dim of size 3 in the broadcast shape {shape}",
                                     "a dim of size 3", shape)
    return _T.cross(self, other, dim)


@torch_method
def repeat_interleave(self, repeats, dim=None, *, output_size=None):
    """PyTorch's ``repeat_interleave``: each element ``repeats`` times along ``dim`` (the
    flattened tensor when None); ``output_size``, when given, must be the result's size."""
    out = _T.repeat_interleave(self, repeats, dim)
    if output_size is not None:
        got = out.shape[dim if dim is not None else 0]
        if got != output_size:
            raise InvalidParameterError(f"repeat_interleave: invalid output_size, expected "
                                        f"{got} but got {output_size}", "output_size",
                                        output_size)
    return out


_getitem = _unregistered("__getitem__")  # (this method's own wrapper records the view)


def _torch_getitem(self, key):
    if key.__class__ is slice or key.__class__ is tuple:
        for k in (key,) if key.__class__ is slice else key:
            if k.__class__ is slice and k.step is not None and k.step <= 0:
                raise InvalidParameterError(f"__getitem__: the step of a slice must be greater "
                                            f"than zero, got {k.step} (flip() reverses)",
                                            "step", k.step)
    return to_torch(_getitem(self, key))


Tensor.__getitem__ = _torch_getitem


# -- copies and pickles stay ember.torch tensors -----------------------------------------------

def _rebuild(*args):
    """An ember.torch tensor from ``Tensor.__reduce__``'s parts (see ember/ops/data.py)."""
    from ..ops.data import _rebuild_tensor
    return to_torch(_rebuild_tensor(*args))


def _reduce(self):
    _, args = _T.__reduce__(self)
    return _rebuild, args


Tensor.__reduce__ = _reduce  # copy.copy, copy.deepcopy and pickle go through it



@torch_method
def backward(self, gradient=None, retain_graph=None, create_graph=False):
    """PyTorch's ``backward``: accumulate the gradient of this tensor into the leaves' ``.grad``
    (returns None). Without ``gradient`` the tensor must hold one element (ember's seeds a
    larger one with ones; PyTorch refuses)."""
    if gradient is None and self.numel() != 1:
        raise GraphError(f"backward: grad can be implicitly created only for scalar outputs; "
                         f"this tensor has shape {tuple(self.shape)} (pass gradient=, or call "
                         ".sum().backward())")
    _T.backward(self, gradient, create_graph=create_graph, retain_graph=retain_graph)


@torch_method
def numpy(self, *, force=False):
    """PyTorch's ``numpy``: the values as a NumPy array (ember's: the tensor's own buffer,
    read-only); ``force=True`` gives a writable copy."""
    return _T.numpy(self, copy=force)
