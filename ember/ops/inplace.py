"""PyTorch's in-place spellings as rebinding ops: ``Tensor.data``, ``copy_``, ``fill_``, ``zero_``,
``normal_`` and ``uniform_``.

Values are immutable, so an "in-place" op computes a new value and rebinds the tensor object to
it, as ``__setitem__`` and Burn's ``inplace`` do: the object (and so every module, optimizer or
tied weight holding it) sees the new value; other tensors, views of it included, keep theirs.
Each returns the tensor itself, as PyTorch's do. On a leaf that requires grad they run only
inside ``ember.no_grad()``, as in PyTorch.

``t.data`` is a detached tensor with ``t``'s value; the in-place ops above, ``__setitem__`` and
``nn.init``'s functions on it rebind ``t`` too (``p.data.zero_()``, ``p.data[0] = 1``), so
PyTorch's ``.data`` idioms keep their meaning. ``t.data = v`` rebinds ``t`` without recording.

>>> import ember
>>> w = ember.zeros(2, 2).require_grad()
>>> with ember.no_grad():
...     _ = w.fill_(0.5)
>>> w.tolist(), w.is_leaf
([[0.5, 0.5], [0.5, 0.5]], True)
>>> w.data.zero_().tolist(), w.tolist()
([[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]])
"""

from ..autodiff.graph import _mode
from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import (Tensor, _data_from, check_tensor, device_error, tensor_method,
                      transfer, wrap)
from .creation import full
from .random import Distribution, _gen, _real, random
from .slicing import _broadcasts_into, _leaf_error, _leaf_requiring_grad, _rebind

__all__ = []

_new = object.__new__


class DataTensor(Tensor):
    """``t.data``: a detached tensor with ``t``'s value whose in-place updates also rebind ``t``."""

    __slots__ = ("_owner",)

    def __setitem__(self, key, value):
        Tensor.__setitem__(self, key, value)
        _rebind(self._owner, wrap(self._data, self._dtype), "data")


def rebind(t, value, op):
    """Make tensor ``t`` hold ``value`` (its graph too), and the tensor ``t`` is the ``.data``
    of, if any (without recording)."""
    _rebind(t, value, op)
    if isinstance(t, DataTensor):  # ember.torch's .data is a subclass
        _rebind(t._owner, wrap(t._data, t._dtype), op)


def _check_update(t, op):
    check_tensor(t, op, "self")
    if _mode.enabled and _leaf_requiring_grad(t):
        raise _leaf_error(op)


def _data_get(self):
    d = _new(DataTensor)
    d._data = self._data
    d._dtype = self._dtype
    d._device = self._device
    d._node = None
    d._ad = self._ad
    d.grad = None
    d._owner = self
    return d


def _data_set(self, value):
    check_tensor(value, "data", "value")
    _rebind(self, wrap(value._data, value._dtype), "data")


Tensor.data = property(_data_get, _data_set, doc="""The value, detached: PyTorch's ``.data``.

Updating it in place (``copy_``, ``fill_``, ``zero_``, ``normal_``, ``uniform_``, ``[...] =``)
also rebinds this tensor; assigning ``t.data = v`` rebinds this tensor to ``v``'s value without
recording a step (a leaf stays a leaf).

>>> import ember
>>> p = ember.ones(2).require_grad()
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
