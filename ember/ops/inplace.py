"""PyTorch's in-place spellings: ``Tensor.data``, ``copy_``, ``fill_``, ``zero_``, ``normal_``
and ``uniform_``.

Each writes the tensor and every alias of it (its views, the tensor it views: see
ember/ops/aliasing.py) and returns the tensor itself, as PyTorch's do. On a leaf that requires
grad (or a view of one) they run only inside ``ember.no_grad()``, as in PyTorch.

``t.data`` is a view of ``t`` that does not require grad: writes through it change ``t``
without recording (``p.data.zero_()``, ``p.data[0] = 1``). ``t.data = v`` makes ``t`` share
``v``'s memory without recording.

>>> import ember
>>> w = ember.zeros(2, 2).require_grad()
>>> with ember.no_grad():
...     _ = w.fill_(0.5)
>>> w.tolist(), w.is_leaf
([[0.5, 0.5], [0.5, 0.5]], True)
>>> w.data.zero_().tolist(), w.tolist()
([[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]])
"""

import operator as _operator

from ..autodiff.graph import _mode
from ..errors import CastError, InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import (Tensor, _data_from, check_tensor, device_error, tensor_method,
                      transfer, wrap)
from .creation import full
from .random import Distribution, _gen, _real, random
from .._tensor import Family, _alias_of
from .aliasing import _replay, _take, join, register_view, saving_original, write, writing
from .slicing import _broadcasts_into, _leaf_error, _leaf_requiring_grad

__all__ = []

def rebind(t, value, op):
    """Make tensor ``t`` hold ``value`` (its graph too), written through to every alias of ``t``
    (ember/ops/aliasing.py)."""
    write(t, value, op)


def _check_update(t, op):
    check_tensor(t, op, "self")
    if _mode.enabled and _leaf_requiring_grad(t):
        raise _leaf_error(op)


_RANK = {"bool": 0, "int": 1, "float": 2, "complex": 3}


def _settle(self, value, op):
    """Write ``value`` (checked: ``self``'s shape, a dtype castable to self's) into ``self``;
    returns ``self``."""
    if not isinstance(value, Tensor):
        raise KindError(f"{op}: the result is a {type(value).__name__}, expected a tensor")
    if tuple(value._data.shape) != tuple(self._data.shape):
        raise ShapeMismatchError(f"{op}: output with shape {tuple(self._data.shape)} doesn't "
                                 f"match the broadcast shape {tuple(value._data.shape)}",
                                 expected=tuple(self._data.shape),
                                 actual=tuple(value._data.shape))
    if value._dtype is not self._dtype:
        if _RANK[value._dtype.kind] > _RANK[self._dtype.kind]:
            raise CastError(f"{op}: result type {value._dtype.name} can't be cast to the desired "
                            f"output type {self._dtype.name}")
        value = value.cast(self._dtype)
    write(self, value, op)
    return self


def _in_place(self, name, other):
    """The fast path of ``add_``/``sub_``/``mul_``/``div_`` and ``+=`` ...: the backend writes
    into the tensor's own buffer when nothing is recorded and nothing else holds that buffer
    (no view, export or saved step: ``ew_inplace``); whether it did."""
    if _mode.enabled and (self._node is not None or
                          (isinstance(other, Tensor) and other._node is not None)):
        return False
    a = _alias_of(self)
    if a is None:
        family = root = None
    elif a.__class__ is Family:
        family, root = a, self
    elif a.identity:  # ``p.data``, ``detach()``: a view holding the root's own array
        family, root = a.family, a.root
        if root._data is not self._data:
            return False
    else:
        return False  # a view of part of the root writes through the root
    if isinstance(other, Tensor):
        if other._device is not self._device or other._dtype is not self._dtype:
            return False
        other = other._data
    elif other.__class__ is not int and other.__class__ is not float:
        return False
    holders = 1
    if family is not None:  # the root and its identity views hold the array too
        members = family.live()
        holders += (root is not self) + sum(1 for m, _ in members
                                            if m is not self and m._data is self._data)
    if not self._device.backend.ew_inplace(name, self, other, holders):
        return False
    if family is not None:
        family.version += 1
        for m, link in members:  # the views computed by a copy (the others share the array)
            if m._data is not root._data:
                _take(m, _replay(link.steps, root), True)
    return True


def apply_inplace(self, fn, op, fast=None):
    """Write ``fn(self)`` (the out-of-place result) into ``self`` and its aliases, by PyTorch's
    rules: a leaf that requires grad only under ``no_grad``, the result of ``self``'s shape, its
    dtype castable to self's (an int tensor's ``add_(0.5)`` raises KindError); returns ``self``.

    >>> import ember
    >>> x = ember.ones(2)
    >>> apply_inplace(x, lambda t: t * 3, "triple_").tolist()
    [3.0, 3.0]

    ``fast = (name, operand)`` ("add", "sub", "mul" or "div") lets the backend write in place
    when it can show that nothing else sees the buffer.
    """
    _check_update(self, op)
    with writing:  # the value read and the write, one step for other threads
        if fast is not None and _in_place(self, *fast):
            return self
        with saving_original(self) as saving:
            value = fn(self)
        _settle(self, value, op)
        saving.written(value)
    return self


_FAST = {"__iadd__": "add", "__isub__": "sub", "__imul__": "mul", "__itruediv__": "div"}


def _augmented(name, fn):
    fast = _FAST.get(name)

    def method(self, other):
        return apply_inplace(self, lambda t: fn(t, other), name,
                             None if fast is None else (fast, other))
    method.__name__ = name
    method.__doc__ = (f"``{name}``: in place, as PyTorch's and the Array API's: the tensor and "
                      "every alias of it (its views) take the result (ember/ops/aliasing.py).")
    return method


for _name, _fn in (("__iadd__", _operator.add), ("__isub__", _operator.sub),
                   ("__imul__", _operator.mul), ("__itruediv__", _operator.truediv),
                   ("__ifloordiv__", _operator.floordiv), ("__imod__", _operator.mod),
                   ("__ipow__", _operator.pow), ("__iand__", _operator.and_),
                   ("__ior__", _operator.or_), ("__ixor__", _operator.xor),
                   ("__ilshift__", _operator.lshift), ("__irshift__", _operator.rshift)):
    setattr(Tensor, _name, _augmented(_name, _fn))


PLAIN_CLASSES = [Tensor]  # the tensor classes ``.data`` gives (ember.torch adds its Tensor)


def _data_of(t):
    out = wrap(t._data, t._dtype, t._ad)
    for cls in reversed(PLAIN_CLASSES):
        if isinstance(t, cls):
            out.__class__ = cls
            break
    return out


def _data_get(self):
    return register_view(self, _data_of(self), ("data", _data_of, (), {}, None))


def _data_set(self, value):
    check_tensor(value, "data", "value")
    _take(self, value, data_only=True)
    join(self, value)
    if not _leaf_requiring_grad(self):
        self._node = None


Tensor.data = property(_data_get, _data_set, doc="""The value, detached: PyTorch's ``.data``.

``t.data`` is a view of ``t`` that does not require grad: writing it in place (``copy_``,
``fill_``, ``zero_``, ``normal_``, ``[...] =``, ``add_``) writes ``t`` without recording a step.
``t.data = v`` makes ``t`` share ``v``'s memory (a leaf stays a leaf; its shape and dtype become
``v``'s).

>>> import ember
>>> p = ember.ones(2).require_grad()
>>> p.data.fill_(3.0).tolist(), p.tolist()
([3.0, 3.0], [3.0, 3.0])
>>> p.data = ember.tensor([3.0, 4.0])
>>> p.tolist(), p.is_require_grad()
([3.0, 4.0], True)
""")


def _broadcast_value(self, value, op, param):
    """``value`` (a tensor on self's device, or a number) cast to self's dtype and broadcast to
    its shape."""
    if isinstance(value, Tensor):
        v = value
        if v._device is not self._device:
            if op not in ("copy_", "fill_"):
                raise device_error(op, self, v)
            # PyTorch's copy_ (and fill_ with a 0-d tensor) read across devices: the values move
            # to this tensor's device
            # (a tracked source through to_device, so its gradient goes back to its device)
            v = (wrap(transfer(v._data, v._dtype, v._device, self._device), v._dtype, v._ad)
                 if v._node is None else v.to_device(self._device))
    else:
        v = wrap(*_data_from(value, None, op, self._device))
    shape = self._data.shape
    if not _broadcasts_into(v._data.shape, shape) or len(v._data.shape) > len(shape):
        raise ShapeMismatchError(f"{op}: {param} of shape {tuple(v._data.shape)} does not "
                                 f"broadcast to the tensor's shape {tuple(shape)}",
                                 expected=tuple(shape), actual=tuple(v._data.shape))
    if v._dtype is not self._dtype:
        if v._dtype.kind == "complex" and self._dtype.kind != "complex":
            # no op drops an imaginary part on its own (docs/complex.md)
            raise KindError(f"{op}: {param} has dtype {v._dtype.name} and the tensor has dtype "
                            f"{self._dtype.name}; a complex value does not fit a real tensor "
                            f"(take {param}.real() or {param}.abs() first)")
        v = v.cast(self._dtype)
    return v if v._data.shape == shape else v.expand(shape)


@tensor_method
def copy_(self, src, non_blocking=False):
    """PyTorch's ``copy_``: rebind this tensor to ``src``'s values, broadcast to this shape and
    cast to this dtype (and moved to this tensor's device); returns this tensor. Gradients flow
    to ``src``.

    >>> import ember
    >>> t = ember.zeros(2, 3)
    >>> t.copy_(ember.tensor([1, 2, 3])).tolist()
    [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    """
    op = "copy_"
    _check_update(self, op)
    check_tensor(src, op, "src")
    rebind(self, _broadcast_value(self, src, op, "src"), op)
    return self


@tensor_method
def fill_(self, value):
    """PyTorch's ``fill_``: rebind every element to ``value`` (a number or a 0-d tensor, cast to
    this dtype); returns this tensor.

    >>> import ember
    >>> ember.tensor([1, 2]).fill_(7).tolist()
    [7, 7]
    """
    op = "fill_"
    _check_update(self, op)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise ShapeMismatchError(f"{op}: value has shape {tuple(value.shape)}; expected a "
                                     "number or a 0-d tensor", expected=(),
                                     actual=tuple(value.shape))
    elif isinstance(value, bool) or not isinstance(value, (int, float, complex)):
        raise InvalidParameterError(f"{op}: value must be a number or a 0-d tensor, got "
                                    f"{value!r}", "value", value)
    elif isinstance(value, complex) and self._dtype.kind != "complex":
        raise KindError(f"{op}: value {value!r} is complex and the tensor has dtype "
                        f"{self._dtype.name}; expected a real number (a complex value does not "
                        "fit a real tensor)")
    rebind(self, _broadcast_value(self, value, op, "value"), op)
    return self


@tensor_method
def zero_(self):
    """PyTorch's ``zero_``: rebind every element to zero; returns this tensor.

    >>> import ember
    >>> ember.tensor([1.5, 2.5]).zero_().tolist()
    [0.0, 0.0]
    """
    return fill_(self, 0)


def _float_update(self, op):
    _check_update(self, op)
    if self._dtype.kind != "float":
        raise KindError(f"{op}: not defined for {self._dtype.kind} tensors (dtype "
                        f"{self._dtype.name}); expected a float tensor")


@tensor_method
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """PyTorch's ``normal_``: rebind to samples of N(mean, std**2) (float tensors); returns
    this tensor.

    >>> import ember
    >>> ember.zeros(3).normal_(std=0.0).tolist()
    [0.0, 0.0, 0.0]
    """
    op = "normal_"
    _float_update(self, op)
    mean, std = _real(mean, op, "mean"), _real(std, op, "std")
    if std < 0:
        raise InvalidParameterError(f"{op}: std is {std}; expected std >= 0", "std", std)
    _gen(generator, op)
    data = random(tuple(self._data.shape), Distribution.normal(mean, std), self._dtype,
                  self._device, generator=generator)
    rebind(self, data, op)
    return self


@tensor_method
def uniform_(self, from_=0.0, to=1.0, *, generator=None):
    """PyTorch's ``uniform_``: rebind to samples uniform in ``[from_, to)`` (float tensors);
    returns this tensor.

    >>> import ember
    >>> bool((ember.zeros(100).uniform_(-1.0, 1.0).abs() <= 1.0).all())
    True
    """
    op = "uniform_"
    _float_update(self, op)
    low, high = _real(from_, op, "from_"), _real(to, op, "to")
    if low > high:
        raise InvalidParameterError(f"{op}: from_={low} is above to={high}; expected "
                                    "from_ <= to", "from_", low)
    _gen(generator, op)
    shape, dtype, device = tuple(self._data.shape), self._dtype, self._device
    data = (full(shape, low, dtype, device) if low == high else
            random(shape, Distribution.uniform(low, high), dtype, device, generator=generator))
    rebind(self, data, op)
    return self
