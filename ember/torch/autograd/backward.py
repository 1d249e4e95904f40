"""``torch.autograd.grad`` and ``torch.autograd.backward`` with PyTorch's arguments, on ember's
backward engine (``run_backward``: ``grad`` asks for the gradients of its inputs only and writes
no ``.grad``; ``backward`` accumulates into the leaves' ``.grad``).

Several outputs are differentiated together as the sum of each output times its gradient
(``grad_outputs``); an output with one element needs none. With ``create_graph=True`` the
gradients are themselves recorded (higher-order derivatives); the graph is kept when
``retain_graph`` (default: ``create_graph``) says so.

>>> import ember.torch as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> (g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
>>> g.tolist(), torch.autograd.grad(g.sum(), x)[0].tolist()
([3.0, 12.0], [6.0, 12.0])
"""

from ...autodiff.engine import run_backward
from ...autodiff.graph import enable_grad
from ...errors import GraphError, InvalidParameterError, KindError, ShapeMismatchError
from ..._tensor import Tensor as _EmberTensor, wrap
from .._tensor import as_torch

__all__ = ["grad", "backward", "tensors_of", "differentiate"]


def tensors_of(value, name, allow_none=False):
    """``value`` (a tensor or a sequence of them) as a tuple of tensors."""
    if isinstance(value, _EmberTensor):
        return (value,)
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            if not isinstance(v, _EmberTensor) and not (allow_none and v is None):
                raise KindError(f"{name}: entry {i} is of type {type(v).__name__}; expected a "
                                "Tensor")
        return tuple(value)
    raise KindError(f"{name} must be a Tensor or a sequence of Tensors, got "
                    f"{type(value).__name__}")


def _seeds(outputs, grad_outputs, create_graph):
    """One gradient (or None: ones) per output, checked against it."""
    if grad_outputs is None:
        seeds = (None,) * len(outputs)
    else:
        seeds = tensors_of(grad_outputs, "grad_outputs", allow_none=True)
        if len(seeds) != len(outputs):
            raise InvalidParameterError(f"grad requires one grad_output per output: got "
                                        f"{len(seeds)} grad_outputs and {len(outputs)} outputs",
                                        "grad_outputs", grad_outputs)
    out = []
    for i, (o, g) in enumerate(zip(outputs, seeds)):
        if g is None:
            if o.numel() != 1:
                raise GraphError("grad can be implicitly created only for scalar outputs")
        elif tuple(g.shape) != tuple(o.shape):
            raise ShapeMismatchError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                     f"torch.Size({list(g.shape)}) and output[{i}] has a shape "
                                     f"of torch.Size({list(o.shape)}).", expected=tuple(o.shape),
                                     actual=tuple(g.shape))
        elif not create_graph and g._node is not None:
            g = wrap(g._data, g._dtype)
        out.append(g)
    return out


def _root(outputs, seeds):
    """One tensor to start the backward from, and its seed."""
    if len(outputs) == 1:
        return outputs[0], seeds[0]
    with enable_grad():
        total = None
        for o, g in zip(outputs, seeds):
            term = (o if g is None else o * (g if g._dtype is o._dtype else g.cast(o._dtype)))
            term = term.sum()
            total = term if total is None else total + term
    return total, None


def _check_outputs(outputs):
    for i, o in enumerate(outputs):
        if o._node is None:
            raise GraphError(f"element {i} of tensors does not require grad and does not have a "
                             "grad_fn")
        if o._dtype.kind != "float":
            raise KindError(f"element {i} of tensors has dtype {o._dtype.name}; only float "
                            "tensors have gradients")


def differentiate(outputs, inputs, grad_outputs, retain_graph, create_graph):
    """The gradients of ``outputs`` (tuple) at ``inputs`` (tuple): a list, None where no
    gradient flows."""
    _check_outputs(outputs)
    seeds = _seeds(outputs, grad_outputs, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    root, seed = _root(outputs, seeds)
    return run_backward(root, seed, create_graph, targets=list(inputs), retain=bool(retain_graph))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, a tuple (PyTorch's
    ``torch.autograd.grad``). ``allow_unused``: an input no output depends on gets None (else
    GraphError); ``materialize_grads``: zeros instead. ``is_grads_batched``: the first dim of
    each grad_output is a batch of seeds, and the gradients get that dim too.

    >>> import ember.torch as torch
    >>> x, y = torch.tensor(2.0, requires_grad=True), torch.tensor(3.0, requires_grad=True)
    >>> [g.item() for g in torch.autograd.grad(x * y, (x, y))]
    [3.0, 2.0]
    """
    outputs = tensors_of(outputs, "outputs")
    inputs_t = tensors_of(inputs, "inputs")
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and not allow_unused:
        raise InvalidParameterError("Expected allow_unused to be True or not passed when "
                                    "materialize_grads=True, but got: allow_unused=False.",
                                    "allow_unused", allow_unused)
    for x in inputs_t:
        if x._node is None:
            raise GraphError("One of the differentiated Tensors does not require grad")
    if is_grads_batched:
        return _batched(outputs, inputs_t, grad_outputs, retain_graph, create_graph,
                        allow_unused, materialize_grads)
    grads = differentiate(outputs, inputs_t, grad_outputs, retain_graph, create_graph)
    out = []
    for g, x in zip(grads, inputs_t):
        if g is None:
            if materialize_grads:
                g = x.zeros_like()
            elif not allow_unused:
                raise GraphError("One of the differentiated Tensors appears to not have been "
                                 "used in the graph. Set allow_unused=True if this is the "
                                 "desired behavior.")
        out.append(None if g is None else as_torch(g))
    return tuple(out)


def _batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
             materialize):
    seeds = tensors_of(grad_outputs, "grad_outputs") if grad_outputs is not None else None
    if seeds is None or not seeds or seeds[0].ndim == 0:
        raise InvalidParameterError("is_grads_batched=True needs grad_outputs with a leading "
                                    "batch dim", "grad_outputs", grad_outputs)
    n = seeds[0].shape[0]
    rows = []
    for b in range(n):
        keep = True if b < n - 1 else retain_graph
        rows.append(grad(outputs, inputs, [s[b] for s in seeds], keep, create_graph,
                         allow_unused=True, materialize_grads=materialize))
    out = []
    for k, x in enumerate(inputs):
        column = [r[k] for r in rows]
        if all(c is None for c in column):
            if not allow_unused:
                raise GraphError("One of the differentiated Tensors appears to not have been "
                                 "used in the graph. Set allow_unused=True if this is the "
                                 "desired behavior.")
            out.append(None)
            continue
        column = [x.zeros_like() if c is None else c for c in column]
        out.append(as_torch(_EmberTensor.stack(column, 0)))
    return tuple(out)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (``inputs``:
    of those tensors only, leaves or not), as ``torch.autograd.backward``; returns None.

    >>> import ember.torch as torch
    >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> torch.autograd.backward([(x * x).sum(), x.sum()])
    >>> x.grad.tolist()
    [3.0, 5.0]
    """
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = tensors_of(tensors, "tensors")
    if not tensors:
        raise InvalidParameterError("backward: tensors is empty; expected at least one tensor",
                                    "tensors", tensors)
    if inputs is not None:
        inputs = tensors_of(inputs, "inputs")
        if not inputs:
            raise InvalidParameterError("'inputs' argument to backward() cannot be empty.",
                                        "inputs", inputs)
        grads = differentiate(tensors, inputs, grad_tensors, retain_graph, create_graph)
        for x, g in zip(inputs, grads):
            if g is None:
                continue
            x.grad = g if x._grad is None else (x._grad + g)
        return None
    _check_outputs(tensors)
    seeds = _seeds(tensors, grad_tensors, create_graph)
    if retain_graph is None:
        retain_graph = create_graph
    root, seed = _root(tensors, seeds)
    run_backward(root, seed, create_graph, retain=bool(retain_graph))
    return None
