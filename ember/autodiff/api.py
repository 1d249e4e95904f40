"""The autodiff methods of Tensor: the graph contract of the spec (require_grad, backward, ...)."""

from operator import attrgetter

from .. import dtypes as _dt
from ..errors import DeviceError, GraphError, InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor, tensor_method, wrap
from .engine import Gradients, run_backward
from .graph import Node

STRATEGIES = ("none", "balanced")


@tensor_method
def require_grad(self):
    """Mark this leaf so its gradient is kept by backward; returns the tensor itself.

    >>> import ember
    >>> ember.ones(2).require_grad().is_require_grad()
    True
    """
    return self.set_require_grad(True)


@tensor_method
def set_require_grad(self, require_grad):
    """Set whether backward keeps this tensor's gradient; returns the tensor itself.

    Setting False on a non-leaf starts a new lineage (as ``detach``) that keeps no gradient.
    """
    if not isinstance(require_grad, bool):
        raise InvalidParameterError(
            f"set_require_grad: require_grad must be a bool, got {require_grad!r}",
            "require_grad", require_grad)
    node = self._node
    if not require_grad:
        if node is not None:
            self._node = None
        return self
    if self._ad is None:
        raise GraphError("require_grad: autodiff is disabled for this tensor; call autodiff() first")
    if self._dtype.kind != "float":
        if self._dtype.kind == "complex":  # docs/complex.md: no gradients through complex
            raise _dt.complex_error("require_grad", "self", self._dtype)
        raise KindError(f"require_grad: only float tensors can require grad, this one is "
                        f"{self._dtype.name}")
    if node is not None and not (node.backward is None and not node.parents):
        raise GraphError("require_grad: the tensor is not a leaf (an op produced it); "
                         "call detach() first to start a new lineage")
    if node is None:
        self._node = Node.leaf(self)
    return self


@tensor_method
def is_require_grad(self):
    """Whether backward keeps this tensor's gradient."""
    node = self._node
    return node is not None and node.requires_grad


def _requires_grad_get(self):
    return self._node is not None


def _requires_grad_set(self, value):
    self.set_require_grad(value)


Tensor.requires_grad = property(_requires_grad_get, _requires_grad_set,
                                doc="PyTorch's flag: whether the tensor is tracked by autodiff.")


def check_grad(tensor, grad, op):
    """Refuse a gradient ``grad`` for ``tensor`` that is not a Tensor of its shape and dtype, as
    PyTorch refuses assigning one (TypeError for a non-tensor; ember: KindError)."""
    if not isinstance(grad, Tensor):
        raise KindError(f"{op}: the gradient is of type {type(grad).__name__} ({grad!r:.40}); expected "
                        f"a Tensor of shape {tuple(tensor.shape)} and dtype {tensor.dtype.name}, "
                        "or None")
    if grad.shape != tensor.shape:
        raise ShapeMismatchError(f"{op}: the gradient has shape {tuple(grad.shape)}, expected "
                                 f"{tuple(tensor.shape)} (the tensor's shape)",
                                 expected=tuple(tensor.shape), actual=tuple(grad.shape))
    if grad._dtype is not tensor._dtype:
        raise KindError(f"{op}: the gradient has dtype {grad.dtype.name}, expected "
                        f"{tensor.dtype.name} (the tensor's dtype)")
    if grad._device is not tensor._device:
        raise DeviceError(f"{op}: the gradient is on {grad._device}, expected {tensor._device} "
                          "(the tensor's device)", (tensor._device, grad._device))


def _grad_set(self, value):
    if value is not None:
        check_grad(self, value, "grad")
    self._grad = value


def _grad_del(self):
    self._grad = None


Tensor.grad = property(attrgetter("_grad"), _grad_set, _grad_del, doc="""\
The gradient that ``backward()`` left for this leaf (None before): a Tensor of this tensor's
shape and dtype. Assigning anything else raises (KindError for a non-tensor or another dtype,
ShapeMismatchError for another shape), as PyTorch refuses it.

>>> import ember
>>> w = ember.ones(2).require_grad()
>>> w.grad = ember.tensor([0.5, 1.0])
>>> w.grad.tolist()
[0.5, 1.0]
>>> w.grad = "oops"
Traceback (most recent call last):
ember.errors.KindError: grad: the gradient is of type str ('oops'); expected a Tensor of shape (2,) and dtype float32, or None
""")


@tensor_method
def is_tracked(self):
    """Whether this tensor participates in a recorded graph (requires grad, or derives from one)."""
    return self._node is not None


@tensor_method
def is_autodiff(self):
    """Whether autodiff is enabled for this tensor (the default for new tensors)."""
    return self._ad is not None


@tensor_method
def detach(self):
    """A tensor with the same values that starts a new lineage; a leaf keeps its require_grad."""
    out = wrap(self._data, self._dtype, self._ad)
    if self._node is not None and self._node.requires_grad and self._ad is not None:
        out._node = Node.leaf(out)
    return out


@tensor_method
def without_autodiff(self):
    """This tensor without autodiff association: no recording cost; a constant when mixed."""
    if self._ad is None:
        return self
    return wrap(self._data, self._dtype, None)


Tensor.inner = Tensor.without_autodiff


@tensor_method
def autodiff(self):
    """This tensor with autodiff enabled (idempotent; does not make it require grad)."""
    if self._ad is not None:
        return self
    return wrap(self._data, self._dtype, "none")


@tensor_method(static=True)
def from_inner(inner):
    """Burn's ``from_inner``: ``inner`` (a tensor without autodiff) with autodiff enabled.

    >>> import ember
    >>> ember.Tensor.from_inner(ember.tensor([1.0]).inner()).is_autodiff()
    True
    """
    if not isinstance(inner, Tensor):
        raise KindError(f"from_inner: inner must be a Tensor, got {type(inner).__name__}")
    return inner.autodiff()


@tensor_method
def gradient_checkpointing_strategy(self):
    """The checkpointing strategy carried by this tensor ("none" or "balanced"), or None."""
    return self._ad


@tensor_method
def with_gradient_checkpointing_strategy(self, strategy):
    """This tensor carrying ``strategy`` ("none" keeps saved inputs; "balanced" recomputes)."""
    name = getattr(strategy, "value", strategy)
    if name not in STRATEGIES:
        raise InvalidParameterError(
            f"with_gradient_checkpointing_strategy: strategy {strategy!r} is unknown; expected "
            f"one of {STRATEGIES}", "strategy", strategy)
    if self._ad is None:
        raise GraphError("with_gradient_checkpointing_strategy: autodiff is disabled for this "
                         "tensor; call autodiff() first")
    out = wrap(self._data, self._dtype, name)
    out._node = self._node
    return out


@tensor_method
def backward(self, seed=None, create_graph=False, retain_graph=None):
    """Backpropagate from this tensor; returns the ``Gradients`` and sets ``.grad`` on leaves.

    A non-scalar seeds with ones (the gradient of its sum) unless ``seed`` is given. With
    ``create_graph=True`` the gradient rules are recorded too, so the gradients are tracked
    tensors that can be differentiated again (higher-order derivatives; the graph is kept, as
    PyTorch's ``create_graph`` keeps it); ``retain_graph=True`` keeps the graph for another
    backward. By default gradients carry no autodiff association and the graph is consumed.

    >>> import ember
    >>> x = ember.tensor([1.0, 2.0, 3.0]).require_grad()
    >>> _ = (x * x).sum().backward()
    >>> x.grad.tolist()
    [2.0, 4.0, 6.0]
    """
    if self._dtype.kind != "float":
        if self._dtype.kind == "complex":  # docs/complex.md: no gradients through complex
            raise _dt.complex_error("backward", "self", self._dtype)
        raise KindError(f"backward: only float tensors have gradients, this one is "
                        f"{self._dtype.name}")
    if seed is not None and not isinstance(seed, Tensor):
        raise InvalidParameterError(f"backward: seed must be a Tensor, got {type(seed).__name__}",
                                    "seed", seed)
    for name, flag in (("create_graph", create_graph), ("retain_graph", retain_graph)):
        if flag is not None and not isinstance(flag, bool):
            raise InvalidParameterError(f"backward: {name} must be a bool, got {flag!r}",
                                        name, flag)
    return run_backward(self, seed, create_graph, retain=bool(retain_graph))


@tensor_method
def gradient(self, *targets, seed=None):
    """The gradients of this tensor with respect to ``targets`` (tinygrad's ``gradient``)."""
    for i, t in enumerate(targets):
        if not isinstance(t, Tensor) or not t.is_require_grad():
            raise GraphError(f"gradient: target {i} does not require grad; call require_grad() "
                             "on it before the forward pass")
    grads = self.backward(seed)
    return [grads.get(t) for t in targets]


def _gradients(grads, op):
    if not isinstance(grads, Gradients):
        raise KindError(f"{op}: grads must be the Gradients that backward() returned, got "
                        f"{type(grads).__name__}")
    return grads


@tensor_method
def grad_remove(self, grads):
    """Remove and return this tensor's gradient from ``grads`` (None when absent)."""
    return _gradients(grads, "grad_remove").remove(self)


@tensor_method
def grad_replace(self, grads, grad):
    """Replace this tensor's gradient in ``grads`` with ``grad``."""
    _gradients(grads, "grad_replace").replace(self, grad)

