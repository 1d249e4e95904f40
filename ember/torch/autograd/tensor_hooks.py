"""``Tensor.register_hook``, ``Tensor.register_post_accumulate_grad_hook``,
``Tensor.retain_grad`` and ``Tensor.retains_grad`` on ember's graph.

The hooks of a tensor live in the backward engine's hook point
(``ember.autodiff.engine.grad_hooks``, keyed by the tensor's recorded step): when the walk
reaches the step with the tensor's whole gradient (every use of the tensor counted, those
recorded before the hook too), the hooks run on it in registration order, a result other than
None replacing it, before the step's rule runs or a leaf's gradient is written; in ``backward``
and in ``torch.autograd.grad`` alike. ``retain_grad`` keeps a non-leaf's gradient in ``.grad``
after its hooks (a leaf keeps its gradient anyway: nothing to do), as PyTorch's.
Post-accumulate hooks run on a leaf once ``.grad`` holds the sum (``backward`` only).

>>> import ember.torch as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> y = x * 3
>>> y.retain_grad()
>>> h = y.register_hook(lambda g: g * 10)
>>> _ = (y * y).sum().backward()
>>> y.grad.tolist(), x.grad.tolist()
([60.0, 120.0], [180.0, 360.0])
"""

import weakref
from collections import OrderedDict

from ...autodiff import engine as _engine
from ...errors import GraphError, InvalidParameterError, KindError, ShapeMismatchError
from ..._tensor import Tensor as _EmberTensor
from .._tensor import as_torch, torch_method
from ..nn.hooks import RemovableHandle

__all__ = []


def _run_hooks(hooks, g):
    """``g`` through each hook of ``hooks`` in order (a result other than None replaces it)."""
    for hook in list(hooks.values()):
        new = hook(as_torch(g))
        if new is None:
            continue
        name = getattr(hook, "__name__", type(hook).__name__)
        if not isinstance(new, _EmberTensor):
            raise KindError(f"hook '{name}' returned {type(new).__name__}; expected a Tensor "
                            "or None")
        if tuple(new.shape) != tuple(g.shape):
            raise ShapeMismatchError(f"hook '{name}' has changed the size of value: expected "
                                     f"{list(g.shape)}, got {list(new.shape)}",
                                     expected=tuple(g.shape), actual=tuple(new.shape))
        g = new if new._dtype is g._dtype else new.cast(g._dtype)
    return g


class _TensorHooks:
    """The hooks of one tensor, as the engine's hook point calls them."""

    __slots__ = ("hooks", "post", "retain", "tensor", "__weakref__")

    def __init__(self, tensor):
        self.hooks = OrderedDict()
        self.post = OrderedDict()
        self.retain = False
        self.tensor = weakref.ref(tensor)

    def before(self, g):
        g = _run_hooks(self.hooks, g)
        if self.retain:
            owner = self.tensor()
            if owner is not None:
                owner._grad = g if owner._grad is None else owner._grad + g
        return g

    def after(self, tensor):
        for hook in list(self.post.values()):
            if hook(as_torch(tensor)) is not None:
                raise GraphError("post accumulate grad hooks must return None, got a value "
                                 f"from {getattr(hook, '__name__', hook)!r}")


def hooks_of(t, make=True):
    """The hook record of the tracked tensor ``t`` in the engine's hook point (made on first
    use unless ``make`` is False: then None when it has none)."""
    table = _engine.grad_hooks
    if table is None:
        if not make:
            return None
        table = _engine.grad_hooks = weakref.WeakKeyDictionary()
    state = table.get(t._node)
    if state is None and make:
        state = table[t._node] = _TensorHooks(t)
    return state


def _check_hook(hook, op):
    if not callable(hook):
        raise InvalidParameterError(f"{op}: hook must be callable, got {hook!r}", "hook", hook)


@torch_method
def register_hook(self, hook):
    """Call ``hook(grad)`` with this tensor's gradient during backward (its result, if not
    None, replaces it); hooks run in registration order. Returns a handle whose ``remove()``
    takes it out (see the module docstring).

    >>> import ember.torch as torch
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> h = w.register_hook(lambda g: g * 2)
    >>> (w * w).sum().backward()
    >>> w.grad.tolist()
    [4.0, 8.0]
    """
    _check_hook(hook, "register_hook")
    if self._node is None:
        raise GraphError("cannot register a hook on a tensor that doesn't require gradient")
    hooks = hooks_of(self).hooks
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


@torch_method
def register_post_accumulate_grad_hook(self, hook):
    """Call ``hook(tensor)`` on this leaf once backward has accumulated its ``.grad`` (the
    hook returns None; it may update the tensor, as an optimizer step in backward does).
    Returns a removable handle.

    >>> import ember.torch as torch
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> seen = []
    >>> h = w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
    >>> (3 * w).sum().backward()
    >>> seen
    [[3.0, 3.0]]
    """
    _check_hook(hook, "register_post_accumulate_grad_hook")
    if self._node is None:
        raise GraphError("cannot register a hook on a tensor that doesn't require gradient")
    if not self.is_leaf:
        raise GraphError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    post = hooks_of(self).post
    handle = RemovableHandle(post)
    post[handle.id] = hook
    return handle


@torch_method
def retain_grad(self):
    """Keep this non-leaf tensor's gradient in ``.grad`` during backward (a leaf: nothing to
    do)."""
    if self._node is None:
        raise GraphError("can't retain_grad on Tensor that has requires_grad=False")
    if self.is_leaf:
        return None
    hooks_of(self).retain = True
    return None


def _retains_grad(self):
    state = None if self._node is None or self.is_leaf else hooks_of(self, make=False)
    return bool(state is not None and state.retain)


torch_method(_retains_grad, name="retains_grad", prop=True)
