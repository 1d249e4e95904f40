"""The backward engine: walk the recorded steps once, in reverse topological order."""

from ..backends import adopt
from ..errors import DeviceError, GraphError, KindError, ShapeMismatchError
from .._tensor import Tensor, alias, check_saves, realized, wrap
from .graph import set_grad_enabled

__all__ = ["Gradients", "run_backward"]

# Set by ember.distributed while a process group is initialized: called with a backward's
# loss and topological order, it returns None or a synchroniser with ready(node, tensor, grad), called
# as each leaf's gradient is set, and finish(grads), called before backward returns.
sync_hook = None

# Set by ember.torch.autograd: ``grad_hooks`` maps a Node to an object with
# ``before(grad) -> grad`` (the tensor's hooks, run on its whole gradient before the step's
# rule runs or a leaf's gradient is written; they may replace it) and ``after(tensor)`` (a leaf:
# run once ``.grad`` holds the sum); ``anomaly_check(node, results)`` sees each step's
# gradients as they are computed and may raise. None (``import ember`` alone): one check per
# step.
grad_hooks = None
anomaly_check = None


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


def _reaching(order, targets):
    """The ids of the nodes of ``order`` (parents first) from which a node of ``targets`` (ids)
    is reached through parents, the targets included: the only steps a ``targets`` backward
    runs."""
    reach = set()
    for node in order:
        if id(node) in targets or any(p is not None and id(p) in reach for p in node.parents):
            reach.add(id(node))
    return reach


def _seed(tensor, seed, create_graph):
    """The gradient backward starts from: ones, or ``seed`` checked against ``tensor``."""
    device = tensor._device
    if seed is None:
        return wrap(device.backend.ones_like(tensor._data), tensor._dtype)
    if not isinstance(seed, Tensor):
        seed = wrap(device.backend.asarray(seed, tensor._dtype), tensor._dtype)
    if seed._device is not device:
        raise DeviceError(f"backward: seed is on {seed._device}, the tensor on {device}; "
                          "expected the seed on the tensor's device (move it with "
                          "to_device() first)", (device, seed._device))
    if tuple(seed.shape) != tuple(tensor.shape):
        raise ShapeMismatchError(f"backward: seed has shape {tuple(seed.shape)}, expected "
                                 f"{tuple(tensor.shape)}", expected=tensor.shape,
                                 actual=tuple(seed.shape))
    if not create_graph and seed._node is not None:
        seed = wrap(seed._data, seed._dtype)
    return seed if seed._dtype is tensor._dtype else seed.cast(tensor._dtype)


def run_backward(tensor, seed=None, create_graph=False, targets=None, retain=False):
    """Backpropagate from ``tensor``; returns a Gradients and sets ``.grad`` on leaves.

    ``create_graph``: the rules run with recording on, so the gradients are tracked tensors
    (higher-order derivatives), and the graph is kept. ``targets``: tensors whose gradients
    are wanted instead (``ember.autodiff.grad``): a list of gradients (None where none flows)
    is returned, no ``.grad`` is set and only the steps that lead to a target run.
    ``retain``: keep the graph for another backward.
    """
    root = tensor._node
    if tensor._ad is None:
        raise GraphError("backward: autodiff is disabled for this tensor; call autodiff() first "
                         "and require_grad() on the leaves")
    if root is None:
        raise GraphError("backward: the tensor does not participate in a recorded graph; "
                         "expected a result of ops on tensors that require grad")
    order = _topological(root)
    wanted = None
    if targets is not None:
        wanted = {id(t._node): k for k, t in enumerate(targets) if t._node is not None}
        reach = _reaching(order, wanted)
        order = [node for node in order if id(node) in reach]
    for node in order:
        if node.consumed:
            raise GraphError(f"backward: a step ({node.name}) was consumed by an earlier backward; "
                             "recompute the forward pass or combine the losses into one")
    g = _seed(tensor, seed, create_graph)
    keep = retain or create_graph
    with set_grad_enabled(create_graph):
        found = _walk(order, root, g, create_graph, wanted, keep, tensor)
    if targets is not None:
        return [found.get(k) for k in range(len(targets))]
    return found


def _walk(order, root, g, create_graph, wanted, keep, tensor):
    sync = None if sync_hook is None or wanted is not None else sync_hook(tensor, order)
    recomputer = None
    hooks_of = grad_hooks
    check = anomaly_check
    if any(node.recompute is not None for node in order):
        recomputer = _Recomputer(order)
    if wanted is not None:
        walked = set(map(id, order))
    pending = {id(root): g}
    grads = {} if wanted is not None else Gradients()
    for node in reversed(order):
        g = pending.pop(id(node), None)
        hooks = None
        if hooks_of is not None and g is not None:
            hooks = hooks_of.get(node)
            if hooks is not None:
                g = hooks.before(g)
        parents = node.parents
        if wanted is not None:
            if id(node) in wanted and g is not None:
                grads[wanted[id(node)]] = _plain(g, create_graph)
            needs = tuple([p is not None and id(p) in walked for p in parents])
        elif not parents:
            if node.requires_grad and g is not None:
                t = node.tensor_ref()
                grad = _plain(g, create_graph)
                grads._grads[id(node)] = (node, grad)
                if t is not None:
                    prev = t._grad
                    t._grad = grad if prev is None else _plain(prev + grad, create_graph)
                if hooks is not None and t is not None:
                    hooks.after(t)
                if sync is not None:
                    sync.ready(node, t, grad)
            continue
        else:
            n = len(parents)  # (one and two parents spelled out, as _record's)
            needs = ((parents[0] is not None,) if n == 1 else
                     (parents[0] is not None, parents[1] is not None) if n == 2 else
                     tuple([p is not None for p in parents]))
        if g is not None and any(needs):
            if node.checks is not None:
                check_saves(node)
            if node.tensors:
                out = node.out
                if out is not None and create_graph:
                    out = alias(out)
                    out._node = node
                results = node.backward(g, needs, out)
            else:
                results = _array_rule(node, g, needs, create_graph, recomputer)
            if check is not None:
                check(node, results)
            for p, gp, need in zip(parents, results, needs):
                if not need or gp is None:
                    continue
                prev = pending.get(id(p))
                pending[id(p)] = gp if prev is None else _accumulate(prev, gp, create_graph)
        if not keep and parents:  # a leaf stays usable (a grad() walk reaches it too)
            node.consumed = True
            node.backward = None
            node.out = None
            if node.recompute is not None:
                node.recompute = node.sources = None
                recomputer.done(node)
    if sync is not None:
        sync.finish(grads)
    return grads


def _accumulate(prev, g, create_graph):
    """The sum of two gradients of one tensor. Computed at once (not deferred as a fused
    expression would be: ``realize``), so that the two buffers go right away."""
    total = prev + g
    if not create_graph:
        total._data = realized(total._data, total._device)
    return total


def _plain(g, create_graph=False):
    """A gradient as a plain untracked Tensor (its buffer computed), unless ``create_graph``."""
    if create_graph:
        return g
    return wrap(realized(g._data, g._device), g._dtype)


def _array_rule(node, g, needs, create_graph, recomputer):
    """Run a rule on backend arrays (``record_arrays``): first-order only."""
    if create_graph:
        raise GraphError(f"backward: the step {node.name} has a rule on backend arrays, which "
                         "has no higher-order gradient; use create_graph=False")
    backward = node.backward
    if node.recompute is not None:
        backward = recomputer.backward_of(node)
    return [None if r is None else wrap(r, _backend(r).dtype_of(r))
            for r in backward(g._data, needs)]


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
            out = realized(*adopt(node.recompute[0](*args)))  # computed, as a recorded value
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

