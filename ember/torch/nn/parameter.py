"""``ember.torch.nn.Parameter``: a tensor that a Module registers as a parameter.

A class, as PyTorch's (``isinstance(p, nn.Parameter)`` works), and a subclass of
``ember.torch.Tensor`` with its layout: making one shares the given tensor's buffer (no copy)
and gives a new leaf that requires grad unless ``requires_grad=False``. Assigning one as an
attribute of a ``ember.torch.nn.Module`` registers it; a plain tensor attribute is neither a
parameter nor saved, as in PyTorch.

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> p = nn.Parameter(torch.tensor([1.0, 2.0]))
>>> isinstance(p, torch.Tensor), p.requires_grad, p.is_leaf
(True, True, True)
>>> p
Parameter containing:
tensor([1., 2.], requires_grad=True)
"""

from ...autodiff.graph import Node
from ...errors import InvalidParameterError, KindError
from ..._tensor import Tensor as _EmberTensor
from .._tensor import Tensor

__all__ = ["Parameter", "Buffer"]

_new = object.__new__


class Parameter(Tensor):
    """PyTorch's ``nn.Parameter(data=None, requires_grad=True)`` (see the module docstring):
    ``data`` a tensor of either API (None: an empty float tensor)."""

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ... import empty
            data = empty(0)
        if not isinstance(data, _EmberTensor):
            raise KindError(f"Parameter: data must be a Tensor or None, got "
                            f"{type(data).__name__}")
        if not isinstance(requires_grad, bool):
            raise InvalidParameterError(f"Parameter: requires_grad must be a bool, got "
                                        f"{requires_grad!r}", "requires_grad", requires_grad)
        if requires_grad and data._dtype.kind != "float":
            raise KindError(f"Parameter: only Tensors of floating point dtype can require "
                            f"gradients, got dtype {data._dtype.name}")
        out = _new(cls)
        out._data = data._data
        out._dtype = data._dtype
        out._device = data._device
        out._ad = "none" if data._ad is None else data._ad
        out._grad = None
        out._node = Node.leaf(out) if requires_grad else None
        return out

    def __init__(self, data=None, requires_grad=True):
        pass  # __new__ did the work

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (_EmberTensor.__reduce__(self), self.requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = _rebuild_parameter(_EmberTensor.__reduce__(self), self.requires_grad)
        if self._grad is not None:
            out._grad = _rebuild_plain(_EmberTensor.__reduce__(self._grad))
        memo[id(self)] = out
        return out


def _rebuild_plain(reduced):
    fn, args = reduced
    return fn(*args)


def _rebuild_parameter(reduced, requires_grad):
    """A Parameter from the pickled form of its tensor (``Tensor.__reduce__``)."""
    return Parameter(_rebuild_plain(reduced), requires_grad)


class Buffer(Tensor):
    """PyTorch's ``nn.Buffer(data=None, *, persistent=True)``: a tensor that, assigned as a
    Module attribute, registers as a buffer (saved in ``state_dict`` unless
    ``persistent=False``). It shares ``data``'s buffer.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> m = nn.Module()
    >>> m.steps = nn.Buffer(torch.tensor(0))
    >>> m.mask = nn.Buffer(torch.ones(2), persistent=False)
    >>> list(m._buffers), list(m.state_dict())
    (['steps', 'mask'], ['steps'])
    """

    __slots__ = ("persistent",)

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from ... import empty
            data = empty(0)
        if not isinstance(data, _EmberTensor):
            raise KindError(f"Buffer: data must be a Tensor or None, got {type(data).__name__}")
        if not isinstance(persistent, bool):
            raise InvalidParameterError(f"Buffer: persistent must be a bool, got "
                                        f"{persistent!r}", "persistent", persistent)
        out = _new(cls)
        out._data = data._data
        out._dtype = data._dtype
        out._device = data._device
        out._ad = "none" if data._ad is None else data._ad
        out._grad = None
        out._node = Node.leaf(out) if data.requires_grad else None
        out.persistent = persistent
        return out

    def __init__(self, data=None, *, persistent=True):
        pass  # __new__ did the work

    def __reduce_ex__(self, protocol):
        return (_rebuild_buffer, (_EmberTensor.__reduce__(self), self.persistent))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = _rebuild_buffer(_EmberTensor.__reduce__(self), self.persistent)
        return memo[id(self)]


def _rebuild_buffer(reduced, persistent):
    return Buffer(_rebuild_plain(reduced), persistent=persistent)


Parameter.__module__ = Buffer.__module__ = "ember.torch.nn"
