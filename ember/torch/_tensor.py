"""``ember.torch.Tensor``: an ember tensor whose methods speak PyTorch.

It is a subclass of ``ember.Tensor`` with the same layout, so a conversion between the two APIs
never copies a buffer: ``as_torch(t)`` gives an ember.torch tensor sharing ``t``'s buffer,
graph and gradient, ``as_ember(t)`` the reverse. Every method ember already has with PyTorch's
meaning is inherited and its results come back as ember.torch tensors; the methods whose meaning
differs between the two APIs (Burn's keepdim defaults, values-only ``topk``, ``detach`` ...) are
redefined in ``ember/torch/methods.py``; docs/pytorch.md lists them.

The rule for mixed operands: a method follows its receiver's API, a function its namespace's
(``ember.torch.add`` returns an ember.torch tensor, ``ember.add`` an ember one), and an operator
with one operand of each returns an ember.torch tensor (Python asks the subclass first).

>>> import ember, ember.torch as torch
>>> x = torch.tensor([[1.0, 5.0], [4.0, 2.0]])
>>> (x.argmax(1) == torch.tensor([1, 0])).tolist()
[True, True]
>>> torch.as_ember(x).argmax(1).tolist()
[[1], [0]]
"""

import math

from .._tensor import Tensor as _Tensor
from ..ops.aliasing import alias_view
from ..dtypes import DType as _DType
from ..ops.inplace import PLAIN_CLASSES
from ..return_types import ValuesTensor
from ._dtypes import TWINS

__all__ = ["Tensor", "Size", "as_torch", "as_ember", "to_torch", "torch_method", "torch_function",
           "functions", "returns_torch"]

_new = object.__new__


class Size(tuple):
    """PyTorch's ``torch.Size``: a tuple of dim sizes with ``numel()``.

    >>> Size((2, 3)).numel()
    6
    >>> Size((2, 3))
    torch.Size([2, 3])
    """

    __slots__ = ()

    def numel(self):
        """The number of elements of a tensor of this shape."""
        return math.prod(self)

    def __repr__(self):
        return f"torch.Size({list(self)!r})"

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))


class Tensor(_Tensor):
    """An ember tensor with PyTorch's methods (see the module docstring).

    >>> import ember.torch as torch
    >>> v, i = torch.tensor([3.0, 1.0, 2.0]).topk(2)
    >>> v.tolist(), i.tolist()
    ([3.0, 2.0], [0, 2])
    """

    __slots__ = ()

    @property
    def dtype(self):
        """The element type, as PyTorch prints it (``torch.float32``): ember.torch's twin of the
        ember dtype the tensor holds (equal to it)."""
        return TWINS[self._dtype]


PLAIN_CLASSES.append(Tensor)
_CONVERT = {_Tensor: Tensor}


def to_torch(value):
    """``value`` with every fresh ember tensor in it (a result nobody else holds) made an
    ember.torch tensor in place, and every ember dtype ember.torch's twin (``torch.float32``);
    tuples, lists, dicts and named tuples are walked."""
    cls = value.__class__
    if cls is Tensor:
        return value
    target = _CONVERT.get(cls)
    if target is not None:
        value.__class__ = target
        return value
    if cls is ValuesTensor:
        return alias_view(value, Tensor)
    if cls is tuple or cls is list:
        return cls(map(to_torch, value))
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return cls(*map(to_torch, value))
    if cls is dict:
        return {k: to_torch(v) for k, v in value.items()}
    if cls is _DType:
        return TWINS[value]  # a dtype as ember.torch prints it (torch.float32)
    return value


def as_torch(t):
    """``t`` (an ember tensor) as an ember.torch tensor: the same object if it already is one,
    else a new one sharing its buffer, graph and gradient (no copy).

    >>> import ember, ember.torch as torch
    >>> e = ember.tensor([[1.0, 3.0]])
    >>> torch.as_torch(e).argmax(1).tolist(), e.argmax(1).tolist()
    ([1], [[1]])
    """
    if isinstance(t, Tensor):
        return t
    if not isinstance(t, _Tensor):
        from ..errors import InvalidParameterError
        raise InvalidParameterError(f"as_torch: t must be an ember Tensor, got "
                                    f"{type(t).__name__}", "t", t)
    return alias_view(t, Tensor)


def as_ember(t):
    """``t`` (an ember.torch tensor) as a tensor of ember's own API, sharing its buffer, graph
    and gradient (no copy).

    >>> import ember.torch as torch
    >>> torch.as_ember(torch.ones(2, 2)).argmax(1).shape
    (2, 1)
    """
    if not isinstance(t, _Tensor):
        from ..errors import InvalidParameterError
        raise InvalidParameterError(f"as_ember: t must be a Tensor, got {type(t).__name__}",
                                    "t", t)
    if not isinstance(t, Tensor):
        return t
    return alias_view(t, _Tensor)


def _returns_torch(fn, name):
    aliased = getattr(fn, "dim_aliases_of", None)  # fn is shapes.dim_aliases(inner)
    if aliased is not None:
        inner, rename = aliased

        def method(*args, **kwargs):  # fn's own renaming, then inner: one call, not two
            if kwargs:
                rename(args, kwargs)
            return to_torch(inner(*args, **kwargs))
    else:
        def method(*args, **kwargs):
            return to_torch(fn(*args, **kwargs))
    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__doc__ = fn.__doc__
    method.__wrapped__ = fn
    method.returns_torch_of = fn  # (a caller that converts its results itself may call fn)
    return method


def returns_torch(fn):
    """``fn`` with its results made ember.torch tensors (``to_torch``), under its own name."""
    wrapped = _returns_torch(fn, fn.__name__)
    wrapped.__qualname__ = fn.__qualname__
    return wrapped


def _returns_torch_prop(prop, name):
    get = prop.fget
    return property(lambda self: to_torch(get(self)), prop.fset, prop.fdel, prop.__doc__)


# ember.Tensor attributes whose results are not tensors, or that must not be rewrapped
_PLAIN = frozenset((
    "__init__", "__new__", "__getattribute__", "__setattr__", "__delattr__", "__class__",
    "__init_subclass__", "__subclasshook__", "__dir__", "__sizeof__", "__reduce__",
    "__reduce_ex__", "__getstate__", "__format__", "__repr__", "__str__", "__hash__", "__len__",
    "__bool__", "__int__", "__float__", "__complex__", "__index__", "__array__",
    "__array_namespace__", "__dlpack__", "__dlpack_device__", "__slots__", "__doc__",
    "__module__", "__weakref__", "__array_priority__", "__contains__", "__setitem__",
    "__float__", "__copy__", "__deepcopy__", "__array_function__", "__array_ufunc__",
    "_data", "_dtype", "_device", "_node", "_ad", "_grad", "shape", "dtype", "device",
    "ndim", "kind", "size", "grad", "data", "item", "tolist", "numpy", "dim", "numel",
    "is_contiguous", "is_leaf", "requires_grad",
))


def adopt_inherited():
    """Give ember.torch's Tensor each method of ember.Tensor it does not redefine, with its
    results made ember.torch tensors."""
    for name in dir(_Tensor):
        if name in _PLAIN or name in Tensor.__dict__:
            continue
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            continue
        value = getattr(_Tensor, name)
        raw = _Tensor.__dict__.get(name, None)
        for klass in _Tensor.__mro__:
            if name in klass.__dict__:
                raw = klass.__dict__[name]
                break
        if isinstance(raw, property):
            setattr(Tensor, name, _returns_torch_prop(raw, name))
        elif isinstance(raw, staticmethod):
            continue
        elif callable(value):
            setattr(Tensor, name, _returns_torch(value, name))


def torch_method(fn=None, *, name=None, prop=False):
    """Attach ``fn`` to ember.torch's Tensor under ``name`` (default its own); its results come
    back as ember.torch tensors. Returns ``fn`` unchanged."""
    def attach(f):
        key = name or f.__name__
        wrapped = _returns_torch(f, key)
        setattr(Tensor, key, property(wrapped) if prop else wrapped)
        return f
    return attach(fn) if fn is not None else attach


functions = {}  # name -> function of the ember.torch namespace, filled by torch_function


def torch_function(fn=None, *, name=None):
    """Register ``fn`` as ``ember.torch.<name>`` (default its own name); its results come back as
    ember.torch tensors. Returns the registered function."""
    def register(f):
        key = name or f.__name__
        wrapped = _returns_torch(f, key)
        wrapped.__qualname__ = key
        wrapped.__module__ = f.__module__  # its examples run where it is defined
        del wrapped.__wrapped__  # (doctest would collect the examples twice)
        wrapped.implementation = f
        functions[key] = wrapped
        return wrapped
    return register(fn) if fn is not None else register


Size.__module__ = "ember.torch"
