"""``Tensor.register_hook``, ``Tensor.register_post_accumulate_grad_hook``,
``Tensor.retain_grad`` and ``Tensor.retains_grad`` on ember's graph.

On a leaf, hooks live in the backward engine's hook point (``ember.autodiff.engine.leaf_hooks``):
they run in registration order on the leaf's gradient before it is written (in ``backward``
and in ``torch.autograd.grad``), a result other than None replacing it; post-accumulate hooks
run with the tensor once ``.grad`` holds the sum (``backward`` only).

ember's recorded steps have no hook slot, so a hook on a non-leaf tensor ``t`` is a recorded
identity step that ``t`` becomes: ops that use ``t`` *after* the call record that step, whose
rule gives the gradient to each hook (a hook's result other than None replaces it) and, with
``retain_grad``, keeps the result in ``t.grad`` (after the hooks, as PyTorch's). Uses of ``t``
recorded before the call bypass the hook; PyTorch counts them too (call these right after
``t`` is made, as programs do). ``retain_grad`` on a leaf does nothing (a leaf keeps its
gradient anyway), as PyTorch's.

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
from ..._tensor import Tensor as _EmberTensor, record
from .._tensor import as_torch, torch_method
from ..nn.hooks import RemovableHandle

__all__ = []

_STATE = weakref.WeakKeyDictionary()  # node of a hooked tensor -> (hooks, retain flag holder)


class _Hooks:
    __slots__ = ("hooks", "retain", "tensor", "__weakref__")

    def __init__(self, tensor):
        self.hooks = OrderedDict()
        self.retain = False
        self.tensor = weakref.ref(tensor)


def _hooks_of(t):
    """The hook record of the non-leaf ``t``, making ``t`` the output of an identity step
    that runs it (once per tensor)."""
    state = _STATE.get(t._node)
    if state is not None:
        return state
    state = _Hooks(t)

    def rule(g, needs, out):
        g = _run_hooks(state.hooks, g)
        owner = state.tensor()
        if state.retain and owner is not None:
            owner._grad = g if owner._grad is None else owner._grad + g
        return (g,)

    step = record(t._data, t._dtype, (t,), rule, "hook")
    t._node = step._node
    _STATE[t._node] = state
    return state


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


class _LeafHooks:
    """The hooks of one leaf, as the engine's hook point calls them."""

    __slots__ = ("hooks", "post", "__weakref__")

    def __init__(self):
        self.hooks = OrderedDict()
        self.post = OrderedDict()

    def before(self, g):
        return _run_hooks(self.hooks, g)

    def after(self, tensor):
        for hook in list(self.post.values()):
            if hook(as_torch(tensor)) is not None:
                raise GraphError("post accumulate grad hooks must return None, got a value "
                                 f"from {getattr(hook, '__name__', hook)!r}")


def _leaf_hooks_of(t):
    """The hook record of the leaf ``t`` in the engine's hook point (made on first use)."""
    table = _engine.leaf_hooks
    if table is None:
        table = _engine.leaf_hooks = weakref.WeakKeyDictionary()
    state = table.get(t._node)
    if state is None:
        state = table[t._node] = _LeafHooks()
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
    if self.is_leaf:
        hooks = _leaf_hooks_of(self).hooks
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle
    state = _hooks_of(self)
    handle = RemovableHandle(state.hooks)
    state.hooks[handle.id] = hook
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
    post = _leaf_hooks_of(self).post
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
    _hooks_of(self).retain = True
    return None


def _retains_grad(self):
    state = _STATE.get(self._node) if self._node is not None else None
    return bool(state is not None and state.retain)


torch_method(_retains_grad, name="retains_grad", prop=True)
