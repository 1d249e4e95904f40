"""``torch.autograd.graph``: the recorded graph as PyTorch shows it, and ``Tensor.grad_fn``.

``t.grad_fn`` is a ``Node`` for a tensor an op produced (None for a leaf or an untracked
tensor): ``name()`` (PyTorch's spelling of ember's step: ``mul`` -> ``MulBackward0``, a leaf
that requires grad -> ``torch::autograd::AccumulateGrad``), ``next_functions`` (one ``(Node or
None, 0)`` per input of the step, None for a constant tensor; a Python number operand is no
input, where PyTorch lists it as ``(None, 0)``), ``metadata`` (a dict kept with the step),
``register_prehook(fn(grad_outputs))`` and ``register_hook(fn(grad_inputs, grad_outputs))`` (a
result other than None replaces the gradients). Each ember tensor has a step of its own, so the
output index of an edge is always 0. ``AccumulateGrad.variable`` is the leaf.

>>> import ember.torch as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> y = (x * 2).sum()
>>> y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()
('SumBackward0', 'MulBackward0')
>>> leaf = y.grad_fn.next_functions[0][0].next_functions[0][0]
>>> leaf.name(), leaf.variable is x
('torch::autograd::AccumulateGrad', True)
"""

import weakref
from collections import OrderedDict, namedtuple

from ...errors import GraphError, InvalidParameterError, KindError
from ..._tensor import Tensor as _EmberTensor
from .._tensor import as_torch, torch_method
from ..nn.hooks import RemovableHandle

__all__ = ["Node", "GradientEdge", "get_gradient_edge", "node_name"]

_METADATA = weakref.WeakKeyDictionary()  # ember Node -> its metadata dict
_HOOKS = weakref.WeakKeyDictionary()  # ember Node -> _StepHooks


_TORCH_NAMES = {"true_divide": "Div"}  # ember's step names PyTorch spells otherwise


def _camel(name):
    if name in _TORCH_NAMES:
        return _TORCH_NAMES[name]
    return "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)


def node_name(node):
    """PyTorch's name of the ember step ``node`` (``mul`` -> ``MulBackward0``)."""
    if not node.parents:
        return "torch::autograd::AccumulateGrad"
    return f"{_camel(node.name) or 'Op'}Backward0"


class Node:
    """A recorded step of ember's graph, as PyTorch's ``torch.autograd.graph.Node`` (see the
    module docstring). Two Nodes of one step compare equal."""

    __slots__ = ("_node",)

    def __init__(self, node):
        if node is None or not hasattr(node, "parents"):
            raise KindError(f"Node: expected a recorded step, got {type(node).__name__}")
        self._node = node

    def name(self):
        """PyTorch's name of this step."""
        return node_name(self._node)

    @property
    def next_functions(self):
        """``((Node or None, 0), ...)``: the steps that made this step's inputs."""
        return tuple((None if p is None else Node(p), 0) for p in self._node.parents)

    @property
    def metadata(self):
        """A dict kept with this step, for the user's own data."""
        return _METADATA.setdefault(self._node, {})

    @property
    def variable(self):
        """The leaf tensor of an ``AccumulateGrad`` node."""
        if self._node.parents:
            raise GraphError(f"'{self.name()}' object has no attribute 'variable'")
        ref = self._node.tensor_ref
        t = None if ref is None else ref()
        return None if t is None else as_torch(t)

    def register_prehook(self, fn):
        """Call ``fn(grad_outputs)`` before this step's rule runs; a tuple returned replaces
        ``grad_outputs``. Returns a removable handle."""
        _callable(fn, "register_prehook")
        if not self._node.parents:
            from .tensor_hooks import hooks_of

            def hook(g):
                new = fn((g,))
                return None if new is None else new[0]
            t = self.variable
            if t is None:
                raise GraphError("register_prehook: the leaf of this AccumulateGrad is gone")
            hooks = hooks_of(t).hooks
        else:
            hooks = _hooks_of(self._node).pre
            hook = fn
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after this step's rule ran (``grad_inputs``:
        one gradient per input, None where none is needed); a tuple returned replaces
        ``grad_inputs``. Returns a removable handle."""
        _callable(fn, "register_hook")
        if not self._node.parents:
            raise GraphError("register_hook: an AccumulateGrad node computes no input "
                             "gradients; use register_prehook or Tensor.register_hook")
        hooks = _hooks_of(self._node).post
        handle = RemovableHandle(hooks)
        hooks[handle.id] = fn
        return handle

    def __eq__(self, other):
        return isinstance(other, Node) and other._node is self._node

    def __hash__(self):
        return id(self._node)

    def __call__(self, *grad_outputs):
        """Run this step's rule on ``grad_outputs`` (one gradient); the input gradients."""
        node = self._node
        if node.backward is None or not node.tensors or len(grad_outputs) != 1:
            raise GraphError(f"{self.name()}: expected one gradient and a step whose rule is "
                             "still held (not consumed) and written with ember ops")
        needs = tuple(p is not None for p in node.parents)
        return tuple(None if r is None else as_torch(r)
                     for r in node.backward(grad_outputs[0], needs, node.out))

    def __repr__(self):
        return f"<{self.name()} object at {hex(id(self._node))}>"


def _callable(fn, op):
    if not callable(fn):
        raise InvalidParameterError(f"{op}: fn must be callable, got {fn!r}", "fn", fn)


class _StepHooks:
    __slots__ = ("pre", "post", "__weakref__")

    def __init__(self):
        self.pre = OrderedDict()
        self.post = OrderedDict()


def _hooks_of(node):
    """The hooks of the step ``node``, its rule wrapped once to run them."""
    state = _HOOKS.get(node)
    if state is not None:
        return state
    if node.backward is None:
        raise GraphError("cannot register a hook on a step whose backward has already run "
                         "(its graph was freed); use retain_graph=True")
    if not node.tensors or node.recompute is not None:
        raise GraphError(f"{node_name(node)}: this step's rule works on backend arrays, "
                         "outside the tensors hooks see; hook its output tensor instead "
                         "(Tensor.register_hook)")
    state = _HOOKS[node] = _StepHooks()
    rule = node.backward

    def hooked(g, needs, out):
        for fn in list(state.pre.values()):
            new = fn((as_torch(g),))
            if new is not None:
                g = new[0]
        results = tuple(rule(g, needs, out))
        for fn in list(state.post.values()):
            new = fn(tuple(None if r is None else as_torch(r) for r in results),
                     (as_torch(g),))
            if new is not None:
                results = tuple(new)
        return results

    node.backward = hooked
    return state


GradientEdge = namedtuple("GradientEdge", ["node", "output_nr"])
GradientEdge.__doc__ = "An edge of the graph: the step (a Node) and the output's index."


def get_gradient_edge(tensor):
    """The ``GradientEdge`` that carries ``tensor``'s gradient: its step (``grad_fn``, or the
    ``AccumulateGrad`` node of a leaf) and 0.

    >>> import ember.torch as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> torch.autograd.graph.get_gradient_edge(x * 3).node.name()
    'MulBackward0'
    """
    if not isinstance(tensor, _EmberTensor):
        raise KindError(f"get_gradient_edge: tensor is of type {type(tensor).__name__}; "
                        "expected a Tensor")
    if tensor._node is None:
        raise GraphError("It is not possible to get the gradient edge for a Tensor that does "
                         "not require gradients")
    return GradientEdge(Node(tensor._node), 0)


def _grad_fn(self):
    node = self._node
    if node is None or not node.parents:
        return None
    return Node(node)


torch_method(_grad_fn, name="grad_fn", prop=True)
