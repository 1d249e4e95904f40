"""The backward engine: walk the recorded steps once, in reverse topological order."""

from ..backends import adopt
from ..errors import DeviceError, GraphError, KindError, ShapeMismatchError
from ..tensor import Tensor

__all__ = ["Gradients", "run_backward"]

# Set by ember.distributed while a process group is initialized: called with a backward's
# loss and topological order, it returns None or a synchroniser with ready(node, tensor, grad), called
# as each leaf's gradient is set, and finish(grads), called before backward returns.
sync_hook = None


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

    def _key(self, tensor, op):
        if not isinstance(tensor, Tensor):
            raise KindError(f"{op}: tensor is of type {type(tensor).__name__} ({tensor!r:.40}); "
                            "expected an ember Tensor")
        node = tensor._node
        return None if node is None else id(node)

    def get(self, tensor):
        """The gradient of ``tensor``, or None when it has none here."""
        entry = self._grads.get(self._key(tensor, "Gradients.get"))
        return None if entry is None else entry[1]

    def remove(self, tensor):
        """Remove and return the gradient of ``tensor`` (None when absent)."""
        entry = self._grads.pop(self._key(tensor, "Gradients.remove"), None)
        return None if entry is None else entry[1]

    def replace(self, tensor, grad):
        """Set the gradient of ``tensor`` to ``grad`` (a tensor without autodiff association)."""
        key = self._key(tensor, "grad_replace")
        if key is None:
            raise GraphError("grad_replace: the tensor is not associated with autodiff; "
                             "expected a tensor that requires grad")
        if not isinstance(grad, Tensor):
            raise KindError(f"grad_replace: grad is of type {type(grad).__name__} ({grad!r:.40}); "
                            f"expected a Tensor of shape {tuple(tensor.shape)}")
        if grad._node is not None:
            raise GraphError("grad_replace: grad has an autodiff association; expected a tensor "
                             "from detach() or without_autodiff()")
        if tuple(grad.shape) != tuple(tensor.shape):
            raise ShapeMismatchError(f"grad_replace: grad has shape {grad.shape}, expected "
                                     f"{tensor.shape}", expected=tensor.shape, actual=grad.shape)
        self._grads[key] = (tensor._node, grad)

    def __contains__(self, tensor):
        return self._key(tensor, "Gradients.__contains__") in self._grads

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
    device = tensor._device
    be = device.backend
    if seed is None:
        g = be.ones_like(tensor._data)  # on the tensor's device, as every kernel's result
    else:
        if hasattr(seed, "_data"):
            if seed._device is not device:
                raise DeviceError(f"backward: seed is on {seed._device}, the tensor on {device}; "
                                  "expected the seed on the tensor's device (move it with "
                                  "to_device() first)", (device, seed._device))
            g = seed._data
        else:
            g = be.asarray(seed, tensor._dtype)
        if tuple(g.shape) != tuple(tensor.shape):
            raise ShapeMismatchError(f"backward: seed has shape {tuple(g.shape)}, expected "
                                     f"{tuple(tensor.shape)}", expected=tensor.shape,
                                     actual=tuple(g.shape))
        g = be.cast(g, tensor._dtype)
    Array = be.Array
    sync = None if sync_hook is None else sync_hook(tensor, order)
    pending = {id(root): g}
    grads = Gradients()
    recomputer = None
    for node in reversed(order):
        g = pending.pop(id(node), None)
        if not node.parents:
            if node.requires_grad and g is not None:
                t = node.tensor_ref()
                grad = wrap(g, t._dtype if t is not None else _backend(g).dtype_of(g))
                grads._grads[id(node)] = (node, grad)
                if t is not None:
                    prev = t._grad
                    t._grad = grad if prev is None else \
                        wrap(prev._device.backend.add(prev._data, g), t._dtype)
                if sync is not None:
                    sync.ready(node, t, grad)
            continue
        parents = node.parents
        if g is not None:
            backward = node.backward
            if node.recompute is not None:
                if recomputer is None:
                    recomputer = _Recomputer(order)
                backward = recomputer.backward_of(node)
            needs = tuple([p is not None for p in parents])
            results = backward(g, needs)
            for p, gp in zip(parents, results):
                if p is None or gp is None:
                    continue
                prev = pending.get(id(p))
                if prev is None:
                    pending[id(p)] = gp
                elif prev.__class__ is Array:
                    pending[id(p)] = be.add(prev, gp)
                else:  # a step on another backend (below a to_device)
                    pending[id(p)] = _backend(prev).add(prev, gp)
        node.consumed = True
        node.backward = None
        if node.recompute is not None:
            node.recompute = node.sources = None
            if recomputer is not None:
                recomputer.done(node)
    if sync is not None:
        sync.finish(grads)
    return grads


def _backend(array):
    """The kernel table of the device that holds ``array`` (a gradient below a to_device: on
    another device than the loss)."""
    return adopt(array)[1].backend


class _Recomputer:
    """Values of the steps recorded under the "balanced" strategy, rebuilt during one backward.

    A run of steps whose values are gone is recomputed from the nearest kept values; of a long
    run only every k-th value is kept (k about the square root of the number of recomputed
    steps), so that memory stays near O(sqrt(n)) for a chain of n steps while each value is
    computed at most twice. A kept value is dropped once its own step's backward has run.
    """

    def __init__(self, order):
        n = sum(1 for node in order if node.recompute is not None)
        self.keep_every = max(1, int(n ** 0.5))
        self.cache = {}

    def inputs_of(self, node):
        return [src if src is not None else self.value(p)
                for src, p in zip(node.sources, node.parents)]

    def value(self, target):
        cached = self.cache.get(id(target))
        if cached is not None:
            return cached
        run, seen, stack = [], set(), [(target, False)]
        while stack:  # the missing values target depends on, parents first
            node, expanded = stack.pop()
            if expanded:
                run.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            for src, p in zip(node.sources, node.parents):
                if src is None and id(p) not in self.cache and id(p) not in seen:
                    stack.append((p, False))
        uses = {}
        for node in run:
            for src, p in zip(node.sources, node.parents):
                if src is None:
                    uses[id(p)] = uses.get(id(p), 0) + 1
        keep_all = len(run) <= self.keep_every
        local = {}
        for i, node in enumerate(run):
            args = []
            for src, p in zip(node.sources, node.parents):
                if src is not None:
                    args.append(src)
                    continue
                key = id(p)
                args.append(local[key] if key in local else self.cache[key])
                uses[key] -= 1
                if uses[key] == 0:
                    local.pop(key, None)
            out = node.recompute[0](*args)
            if keep_all or node is target or i % self.keep_every == 0:
                self.cache[id(node)] = out
            if uses.get(id(node)):
                local[id(node)] = out
        return self.cache[id(target)]

    def backward_of(self, node):
        arrays = self.inputs_of(node)
        return node.recompute[1](arrays, self.value(node))

    def done(self, node):
        self.cache.pop(id(node), None)

