"""``Tensor.register_hook``, ``Tensor.retain_grad`` and ``Tensor.retains_grad`` on ember's
graph, for tensors that an op produced (non-leaves).

ember's recorded steps have no hook slot, so a hook on a non-leaf tensor ``t`` is a recorded
identity step that ``t`` becomes: ops that use ``t`` *after* the call record that step, whose
rule gives the gradient to each hook (a hook's result other than None replaces it) and, with
``retain_grad``, keeps the result in ``t.grad`` (after the hooks, as PyTorch's). Uses of ``t``
recorded before the call bypass the hook; PyTorch counts them too (call these right after
``t`` is made, as programs do). ``retain_grad`` on a leaf does nothing (a leaf keeps its
gradient anyway), as PyTorch's; ``register_hook`` on a leaf raises GraphError: ember's
backward engine writes a leaf's gradient without a hook point.

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

from ...errors import GraphError, InvalidParameterError
from ..._tensor import record
from .._tensor import as_torch, torch_method
from ..nn.hooks import RemovableHandle

__all__ = []

_STATE = weakref.WeakKeyDictionary()  # node of a hooked tensor -> (hooks, retain flag holder)


class _Hooks:
    __slots__ = ("hooks", "retain", "tensor", "__weakref__")

    def __init__(self, tensor):
        from collections import OrderedDict
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
        for hook in list(state.hooks.values()):
            new = hook(as_torch(g))
            if new is not None:
                g = new
        owner = state.tensor()
        if state.retain and owner is not None:
            owner._grad = g if owner._grad is None else owner._grad + g
        return (g,)

    step = record(t._data, t._dtype, (t,), rule, "hook")
    t._node = step._node
    _STATE[t._node] = state
    return state


@torch_method
def register_hook(self, hook):
    """Call ``hook(grad)`` with this tensor's gradient during backward (its result, if not
    None, replaces it); returns a handle whose ``remove()`` takes it out. Non-leaf tensors only
    (see the module docstring)."""
    if not callable(hook):
        raise InvalidParameterError(f"register_hook: hook must be callable, got {hook!r}",
                                    "hook", hook)
    if self._node is None:
        raise GraphError("cannot register a hook on a tensor that doesn't require gradient")
    if self.is_leaf:
        raise GraphError("register_hook: ember's backward writes a leaf's gradient without a "
                         "hook point; hook a tensor an op produced (e.g. x * 1) instead")
    state = _hooks_of(self)
    handle = RemovableHandle(state.hooks)
    state.hooks[handle.id] = hook
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
