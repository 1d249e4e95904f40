"""PyTorch's remaining Tensor attributes and small methods: ``as_subclass``, ``grad_dtype``,
``name``, ``output_nr``, ``volatile``, ``index``, ``module_load``, ``record_stream``,
``to_padded_tensor`` and the moves to devices ember has no backend for (``xpu``, ``ipu``,
``mtia``).

What differs from PyTorch, and why:

- ``output_nr`` is 0: each of ember's recorded steps has one output (``split``'s parts are
  separate steps), where PyTorch numbers the outputs of a multi-output op.
- ``grad_dtype`` is the dtype of a leaf's gradients, the tensor's own: setting it to that
  dtype or None is accepted, another dtype raises ``InvalidParameterError``.
- ``index(positions, dims)`` binds positions to int or int-tensor indices; ember has no
  first-class ``Dim`` objects (functorch.dim), so those raise ``KindError``.
- ember has no nested tensors, so ``to_padded_tensor`` raises as PyTorch's does on a regular
  tensor.

>>> import ember.torch as torch
>>> x = torch.ones(2, 3, requires_grad=True)
>>> x.output_nr, x.grad_dtype, x.name
(0, ember.float32, None)
"""

import numbers
import warnings

from .. import dtypes as _dt
from ..errors import DeviceError, GraphError, InvalidParameterError, KindError
from .._tensor import Tensor as _T
from ..ops.aliasing import alias_view
from ._tensor import Tensor, torch_method

__all__ = ["as_subclass", "index", "module_load", "record_stream", "to_padded_tensor"]


@torch_method
def as_subclass(self, cls):
    """A ``cls`` instance sharing this tensor's values and autograd graph (``cls`` a subclass of
    Tensor).

    >>> import ember.torch as torch
    >>> class Tagged(torch.Tensor):
    ...     pass
    >>> y = torch.ones(2).as_subclass(Tagged)
    >>> type(y).__name__, y.tolist()
    ('Tagged', [1.0, 1.0])
    """
    if not (isinstance(cls, type) and issubclass(cls, _T)):
        raise KindError(f"as_subclass: cls must be a subclass of Tensor, got {cls!r}")
    return alias_view(self, cls)


def _grad_dtype_get(self):
    if self._node is not None and self._node.parents:
        raise GraphError("grad_dtype can only be accessed on leaf tensors.")
    return self._dtype


def _grad_dtype_set(self, value):
    _grad_dtype_get(self)
    if value is not None and _dt.as_dtype(value, "grad_dtype", "grad_dtype") is not self._dtype:
        raise InvalidParameterError(f"grad_dtype: ember's gradients have the tensor's dtype "
                                    f"({self._dtype.name}), got {value!r}", "grad_dtype", value)


Tensor.grad_dtype = property(_grad_dtype_get, _grad_dtype_set, doc="""The dtype of this leaf's
gradients: its own (see the module docstring).""")
Tensor.name = property(lambda self: None, doc="""The tensor's name: None (read-only, as
PyTorch's).""")
Tensor.output_nr = property(lambda self: 0, doc="""The index of this tensor among its step's
outputs: 0 (see the module docstring).""")


def _volatile_set(self, value):
    warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` "
                  "instead.", UserWarning, stacklevel=2)


def _volatile_get(self):
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning,
                  stacklevel=2)
    return False


Tensor.volatile = property(_volatile_get, _volatile_set, doc="""Removed in PyTorch: always
False, and setting it has no effect (both warn).""")


@torch_method
def index(self, positions, dims):
    """This tensor indexed at dims ``positions`` (an int or a tuple) by ``dims`` (an int or int
    tensor, or a tuple of them, one per position); the other dims are kept.

    >>> import ember.torch as torch
    >>> torch.arange(6.0).reshape(2, 3).index(1, 2).tolist()
    [2.0, 5.0]
    """
    if not isinstance(positions, tuple):
        positions = (positions,)
    if not isinstance(dims, tuple):
        dims = (dims,)
    if len(positions) != len(dims):
        raise InvalidParameterError(f"index: dims ({len(positions)}) and indices ({len(dims)}) "
                                    "must have the same length", "dims", dims)
    key = [slice(None)] * self.ndim
    for pos, idx in zip(positions, dims):
        if not isinstance(pos, numbers.Integral) or isinstance(pos, bool):
            raise KindError(f"index: a position must be an int, got {type(pos).__name__}")
        if not -self.ndim <= pos < self.ndim:
            raise InvalidParameterError(f"index: position {pos} is out of range for a tensor "
                                        f"of {self.ndim} dims", "positions", positions)
        if not ((isinstance(idx, numbers.Integral) and not isinstance(idx, bool))
                or (isinstance(idx, _T) and idx._dtype.kind == "int")):
            raise KindError(f"index: an index must be an int or an int tensor (ember has no "
                            f"first-class dims), got {type(idx).__name__}")
        key[pos % self.ndim] = idx
    return self[tuple(key)]


@torch_method
def module_load(self, other, assign=False):
    """What ``load_state_dict`` stores for this parameter given the state dict's ``other``:
    ``other.detach()`` when ``assign``, else ``self.copy_(other).detach()``.

    >>> import ember.torch as torch
    >>> p = torch.zeros(2)
    >>> p.module_load(torch.ones(2)).tolist(), p.tolist()
    ([1.0, 1.0], [1.0, 1.0])
    """
    if not isinstance(other, _T):
        raise KindError(f"module_load: other must be a Tensor, got {type(other).__name__}")
    if assign:
        return other.detach()
    return self.copy_(other).detach()


@torch_method
def record_stream(self, stream):
    """Tell the allocator that ``stream`` uses this tensor. ember keeps a buffer while any
    tensor holds it, so on an accelerator there is nothing to do; a CPU tensor has no streams
    to record (``DeviceError``, as PyTorch's).

    >>> import ember.torch as torch
    >>> try:
    ...     torch.ones(1).record_stream(torch.Stream("cpu"))
    ... except torch.DeviceError:
    ...     print("no CPU streams")
    no CPU streams
    """
    from .streams import Stream
    if not isinstance(stream, Stream):
        raise KindError(f"record_stream: stream must be a Stream, got {type(stream).__name__}")
    if self._device.type == "cpu":
        raise DeviceError("record_stream: a CPU tensor has no streams to record",
                          (self._device,))


@torch_method
def to_padded_tensor(self, padding, output_size=None):
    """A nested tensor's components padded to one dense tensor. ember has no nested tensors,
    and a regular tensor has no components to pad: ``KindError``, as PyTorch's.

    >>> import ember.torch as torch
    >>> try:
    ...     torch.ones(2).to_padded_tensor(0.0)
    ... except torch.KindError:
    ...     print("not nested")
    not nested
    """
    raise KindError("to_padded_tensor: expects a nested tensor, got a regular (strided) tensor")


def _no_device(kind):
    def move(self, device=None, non_blocking=False, memory_format=None):
        raise DeviceError(f"{kind}: ember has no {kind.upper()} backend, so there is no "
                          f"{kind!r} device here; use 'cpu' or the torch backend's 'cuda'",
                          (kind,))
    move.__name__ = kind
    move.__doc__ = (f"PyTorch's ``{kind}()``: this tensor on a {kind.upper()} device; ember has "
                    "none, so it raises ``DeviceError``, as ``.cuda()`` does without CUDA.")
    torch_method(move, name=kind)


for _kind in ("xpu", "ipu", "mtia"):
    _no_device(_kind)
