"""The backward engine: walk the recorded steps once, in reverse topological order."""

from ..backends import default as be
from ..errors import GraphError, InvalidParameterError, ShapeMismatchError

__all__ = ["Gradients", "run_backward"]


class Gradients:
    """The gradients of one backward pass, keyed by the tensors that require grad.

    >>> import ember
    >>> w = ember.tensor([1.0, 2.0]).require_grad()
    >>> grads = (w * w).sum().backward()
    >>> grads.get(w).tolist()
    [2.0, 4.0]
    """

    __slots__ = ("_grads",)

    def __init__(self):
        self._grads = {}

    def _key(self, tensor):
        node = getattr(tensor, "_node", None)
        return None if node is None else id(node)

    def get(self, tensor):
        """The gradient of ``tensor``, or None when it has none here."""
        entry = self._grads.get(self._key(tensor))
        return None if entry is None else entry[1]

    def remove(self, tensor):
        """Remove and return the gradient of ``tensor`` (None when absent)."""
        entry = self._grads.pop(self._key(tensor), None)
        return None if entry is None else entry[1]

    def replace(self, tensor, grad):
        """Set the gradient of ``tensor`` to ``grad`` (a tensor without autodiff association)."""
        key = self._key(tensor)
        if key is None:
            raise GraphError("grad_replace: the tensor is not associated with autodiff; "
                             "expected a tensor that requires grad")
        if grad._node is not None:
            raise GraphError("grad_replace: grad has an autodiff association; expected a tensor "
                             "from detach() or without_autodiff()")
        if tuple(grad.shape) != tuple(tensor.shape):
            raise ShapeMismatchError(f"grad_replace: grad has shape {grad.shape}, expected "
                                     f"{tensor.shape}", expected=tensor.shape, actual=grad.shape)
        self._grads[key] = (tensor._node, grad)

    def __contains__(self, tensor):
        return self._key(tensor) in self._grads

    def __len__(self):
        return len(self._grads)

    def __repr__(self):
        return f"Gradients({len(self._grads)} tensors)"


def _topological(root):
    """Nodes reachable from ``root``, parents before children (iterative DFS)."""
    order, seen = [], set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for p in node.parents:
            if p is not None and id(p) not in seen:
                stack.append((p, False))
    return order


def run_backward(tensor, seed=None, wrap=None):
    """Backpropagate from ``tensor``; returns a Gradients and sets ``.grad`` on leaves."""
    root = tensor._node
    if tensor._ad is None:
        raise GraphError("backward: autodiff is disabled for this tensor; call autodiff() first "
                         "and require_grad() on the leaves")
    if root is None:
        raise GraphError("backward: the tensor does not participate in a recorded graph; "
                         "expected a result of ops on tensors that require grad")
    order = _topological(root)
    for node in order:
        if node.consumed:
            raise GraphError(f"backward: a step ({node.name}) was consumed by an earlier backward; "
                             "recompute the forward pass or combine the losses into one")
    if seed is None:
        g = be.ones_like(tensor._data)
    else:
        g = seed._data if hasattr(seed, "_data") else be.asarray(seed, tensor._data.dtype)
        if tuple(g.shape) != tuple(tensor.shape):
            raise ShapeMismatchError(f"backward: seed has shape {tuple(g.shape)}, expected "
                                     f"{tuple(tensor.shape)}", expected=tensor.shape,
                                     actual=tuple(g.shape))
        g = be.cast(g, tensor._data.dtype)
    pending = {id(root): g}
    grads = Gradients()
    for node in reversed(order):
        g = pending.pop(id(node), None)
        if node.backward is None:
            if node.requires_grad and g is not None:
                t = node.tensor_ref()
                grad = wrap(g, t._dtype if t is not None else None)
                grads._grads[id(node)] = (node, grad)
                if t is not None:
                    t.grad = grad if t.grad is None else wrap(be.add(t.grad._data, g), t._dtype)
            continue
        parents = node.parents
        if g is not None:
            needs = tuple([p is not None for p in parents])
            results = node.backward(g, needs)
            for p, gp in zip(parents, results):
                if p is None or gp is None:
                    continue
                prev = pending.get(id(p))
                pending[id(p)] = gp if prev is None else be.add(prev, gp)
        node.consumed = True
        node.backward = None
    return grads


def check_seed_param(seed):
    if seed is not None and not hasattr(seed, "shape"):
        raise InvalidParameterError("backward: seed must be a Tensor", "seed", seed)
