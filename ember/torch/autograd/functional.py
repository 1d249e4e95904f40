"""``torch.autograd.functional``: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp`` and
``hvp`` with PyTorch's arguments, built on ``autograd.grad`` as PyTorch builds them (``jvp`` and
``hvp`` by the double-backward trick). ``inputs`` is a tensor or a tuple of them and the
results follow its form; without ``create_graph`` the results are detached. ``strict=True``
raises GraphError where an output does not depend on an input; ``vectorize`` and the
strategies are accepted (ember computes one backward per output element either way).

>>> import ember.torch as torch
>>> from ember.torch.autograd.functional import jacobian, hessian
>>> jacobian(lambda x: x ** 2, torch.tensor([1.0, 3.0])).tolist()
[[2.0, 0.0], [0.0, 6.0]]
>>> hessian(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0])).tolist()
[[6.0, 0.0], [0.0, 12.0]]
"""

from ...autodiff.functional import _stand_in
from ...autodiff.graph import enable_grad, set_grad_enabled
from ...errors import GraphError, InvalidParameterError, KindError, ShapeMismatchError
from ..._tensor import Tensor as _EmberTensor
from .._tensor import as_torch
from .backward import grad as _grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]

_STRATEGIES = ("reverse-mode", "forward-mode")


def _as_tuple(value, what, fn):
    """(was it a tuple, the tensors as a tuple)."""
    if isinstance(value, _EmberTensor):
        return False, (value,)
    if isinstance(value, (tuple, list)) and all(isinstance(v, _EmberTensor) for v in value):
        return True, tuple(value)
    raise KindError(f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors "
                    f"but the value got is of type {type(value).__name__}.")


def _untuple(values, was_tuple):
    """``values`` back in the form of the inputs: a tuple, or its one element; nested for a
    pair of flags (outputs, inputs)."""
    if isinstance(was_tuple, tuple):
        outer, inner = was_tuple
        values = tuple(v if inner else v[0] for v in values)
        return values if outer else values[0]
    return values if was_tuple else values[0]


def _prepare(inputs, create_graph, need_graph=True):
    """Stand-ins of ``inputs`` to differentiate at: the graph of a tracked input is kept only
    with ``create_graph``."""
    out = []
    for k, x in enumerate(inputs):
        if create_graph and x._node is not None:
            out.append(as_torch(_stand_in(x, "autograd.functional", k)))
        elif need_graph:
            out.append(as_torch(_stand_in(x.detach(), "autograd.functional", k)))
        else:
            out.append(as_torch(x.detach()))
    return tuple(out)


def _post(values, create_graph):
    if create_graph:
        return values
    return tuple(None if v is None else as_torch(v.detach()) for v in values)


def _grads(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` of the outputs that are tracked (None for each input when none is)."""
    pairs = [(o, None if grad_outputs is None else grad_outputs[i])
             for i, o in enumerate(outputs) if o is not None and o._node is not None]
    if not pairs:
        return (None,) * len(inputs)
    seeds = None if all(g is None for _, g in pairs) else [g for _, g in pairs]
    return _grad([o for o, _ in pairs], inputs, seeds, retain_graph=retain_graph,
                 create_graph=create_graph, allow_unused=True)


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward mode "
                         "AD.",
}


def _fill(grads, refs, strict, stage):
    out = []
    for i, (g, r) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise GraphError(_INDEPENDENT[stage].format(i=i))
            g = as_torch(r.zeros_like())
        out.append(g)
    return tuple(out)


def _check_tracked(values, what, strict):
    if not strict:
        return
    for i, v in enumerate(values):
        if v is None or v._node is None:
            raise GraphError(f"{what} {i} of the user-provided function does not require "
                             "gradients. The outputs must be computed in a differentiable "
                             "manner from the input when running in strict mode.")


def _check_v(v, other, was_tuple, fn):
    if len(v) != len(other):
        raise InvalidParameterError(f"{fn}: v is a tuple of invalid length: should be "
                                    f"{len(other)} but got {len(v)}.", "v", v)
    for i, (a, b) in enumerate(zip(v, other)):
        if tuple(a.shape) != tuple(b.shape):
            where = f" for entry {i}" if was_tuple else ""
            raise ShapeMismatchError(f"{fn}: v has invalid size{where}: should be "
                                     f"torch.Size({list(b.shape)}) but got "
                                     f"torch.Size({list(a.shape)}).", expected=tuple(b.shape),
                                     actual=tuple(a.shape))


def _call(func, inputs, fn):
    with enable_grad():
        return _as_tuple(func(*inputs), "outputs of the user-provided function", fn)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``.

    >>> import ember.torch as torch
    >>> from ember.torch.autograd.functional import vjp
    >>> out, g = vjp(lambda x: x * x, torch.tensor([1.0, 3.0]), torch.tensor([1.0, 0.5]))
    >>> g.tolist()
    [2.0, 3.0]
    """
    in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    inputs = _prepare(inputs, create_graph)
    out_tuple, outputs = _call(func, inputs, "vjp")
    _check_tracked(outputs, "Output", strict)
    if v is not None:
        _, v = _as_tuple(v, "v", "vjp")
        v = _prepare(v, create_graph, need_graph=False)
        _check_v(v, outputs, out_tuple, "vjp")
    elif len(outputs) != 1 or outputs[0].numel() != 1:
        raise InvalidParameterError("The vector v can only be None if the user-provided "
                                    "function returns a single Tensor with a single element.",
                                    "v", v)
    with enable_grad():
        grads = _grads(outputs, inputs, v, create_graph)
        result = _fill(grads, inputs, strict, "back")
    return (_untuple(_post(outputs, create_graph), out_tuple),
            _untuple(_post(result, create_graph), in_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-backward trick.

    >>> import ember.torch as torch
    >>> from ember.torch.autograd.functional import jvp
    >>> jvp(lambda x: x.sin(), torch.tensor([0.0]), torch.tensor([2.0]))[1].tolist()
    [2.0]
    """
    in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    inputs = _prepare(inputs, create_graph)
    if v is not None:
        _, v = _as_tuple(v, "v", "jvp")
        v = _prepare(v, create_graph, need_graph=False)
        _check_v(v, inputs, in_tuple, "jvp")
    elif len(inputs) != 1 or inputs[0].numel() != 1:
        raise InvalidParameterError("The vector v can only be None if the input to the "
                                    "user-provided function is a single Tensor with a single "
                                    "element.", "v", v)
    out_tuple, outputs = _call(func, inputs, "jvp")
    _check_tracked(outputs, "Output", strict)
    with enable_grad():
        cotangents = tuple(as_torch(_stand_in(o.zeros_like().detach(), "jvp", k))
                           for k, o in enumerate(outputs))
        grad_inputs = _grads(outputs, inputs, cotangents, create_graph=True)
        grads = _grads(grad_inputs, cotangents, v, create_graph)
        result = _fill(grads, outputs, strict, "back_trick")
    return (_untuple(_post(outputs, create_graph), out_tuple),
            _untuple(_post(result, create_graph), out_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: for each output and input, a tensor of shape
    ``output.shape + input.shape`` (tuples where ``func`` returns or takes tuples)."""
    if strategy not in _STRATEGIES:
        raise InvalidParameterError(f"jacobian: strategy must be one of {_STRATEGIES}, got "
                                    f"{strategy!r}", "strategy", strategy)
    in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    inputs = _prepare(inputs, create_graph)
    out_tuple, outputs = _call(func, inputs, "jacobian")
    _check_tracked(outputs, "Output", strict)
    result = []
    for i, out in enumerate(outputs):
        rows = [[] for _ in inputs]
        n = out.numel()
        basis = _EmberTensor.eye(n, dtype=out.dtype, device=out.device) if n else None
        for k in range(n):
            with enable_grad():
                seed = basis[k].reshape(tuple(out.shape))
                grads = _grads((out,), inputs, (seed,), create_graph, retain_graph=True)
            for j, (g, x) in enumerate(zip(grads, inputs)):
                if g is None:
                    if strict:
                        raise GraphError(f"Output {i} of the user-provided function is "
                                         f"independent of input {j}. This is not allowed in "
                                         "strict mode.")
                    g = x.zeros_like()
                rows[j].append(g)
        per_input = []
        for j, x in enumerate(inputs):
            shape = tuple(out.shape) + tuple(x.shape)
            if n and x.numel():
                with set_grad_enabled(create_graph):
                    jac = _EmberTensor.stack(rows[j], 0).reshape(shape)
            else:
                jac = _EmberTensor.zeros(*shape, dtype=x.dtype, device=x.device)
            per_input.append(as_torch(jac))
        result.append(_post(tuple(per_input), create_graph))
    return _untuple(tuple(result), (out_tuple, in_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of ``func`` (one tensor with one element out) at ``inputs``: the Jacobian of
    its gradient, a tuple of tuples for tuple ``inputs``."""
    in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def single(*inp):
        out = func(*inp)
        was, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if was:
            raise KindError("The function given to hessian should return a single Tensor")
        if outs[0].numel() != 1:
            raise ShapeMismatchError("The Tensor returned by the function given to hessian "
                                     "should contain a single element", expected=1,
                                     actual=outs[0].numel())
        return outs[0].squeeze()

    def jac_func(*inp):
        return jacobian(single, inp, create_graph=True)

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _untuple(res, (in_tuple, in_tuple))


def _scalar_output(func, inputs, fn, strict):
    out_tuple, outputs = _call(func, inputs, fn)
    _check_tracked(outputs, "Output", strict)
    if out_tuple:
        raise KindError(f"The function given to {fn} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise ShapeMismatchError(f"The Tensor returned by the function given to {fn} should "
                                 "contain a single element", expected=1,
                                 actual=outputs[0].numel())
    return outputs


def _vector(v, inputs, in_tuple, create_graph, fn):
    if v is not None:
        _, v = _as_tuple(v, "v", fn)
        v = _prepare(v, create_graph, need_graph=False)
        _check_v(v, inputs, in_tuple, fn)
        return v
    if len(inputs) != 1 or inputs[0].numel() != 1:
        raise InvalidParameterError("The vector v can only be None if the input to the "
                                    "user-provided function is a single Tensor with a single "
                                    "element.", "v", v)
    return None


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)``: the vector-Hessian product.

    >>> import ember.torch as torch
    >>> from ember.torch.autograd.functional import vhp
    >>> vhp(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]), torch.ones(2))[1].tolist()
    [6.0, 12.0]
    """
    in_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
    inputs = _prepare(inputs, create_graph)
    v = _vector(v, inputs, in_tuple, create_graph, "vhp")
    outputs = _scalar_output(func, inputs, "vhp", strict)
    with enable_grad():
        jac = _grads(outputs, inputs, create_graph=True)
        _check_tracked(jac, "Jacobian", strict)
        grads = _grads(jac, inputs, v, create_graph)
        result = _fill(grads, inputs, strict, "double_back")
    return (_untuple(_post(outputs, create_graph), False),
            _untuple(_post(result, create_graph), in_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)``: the Hessian-vector product, by the double-backward trick.

    >>> import ember.torch as torch
    >>> from ember.torch.autograd.functional import hvp
    >>> hvp(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]), torch.ones(2))[1].tolist()
    [6.0, 12.0]
    """
    in_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
    inputs = _prepare(inputs, create_graph)
    v = _vector(v, inputs, in_tuple, create_graph, "hvp")
    outputs = _scalar_output(func, inputs, "hvp", strict)
    with enable_grad():
        jac = _grads(outputs, inputs, create_graph=True)
        _check_tracked(jac, "Jacobian", strict)
        grad_jac = tuple(as_torch(_stand_in(x.zeros_like().detach(), "hvp", k))
                         for k, x in enumerate(inputs))
        double_back = _grads(jac, inputs, grad_jac, create_graph=True)
        _check_tracked(double_back, "Hessian", strict)
        grads = _grads(double_back, grad_jac, v, create_graph)
        result = _fill(grads, inputs, strict, "double_back_trick")
    return (_untuple(_post(outputs, create_graph), False),
            _untuple(_post(result, create_graph), in_tuple))
