"""``ember.torch.func``: PyTorch's ``torch.func`` transforms on ember's (``ember.autodiff``):
``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap`` and
``functional_call``. The function transformed gets ember.torch tensors and its results come
back as ember.torch tensors. ember differentiates in reverse mode only, so ``jacfwd`` computes
``jacrev``'s values and ``jvp`` is the transpose of a vjp; ``vmap`` runs the function once per
batch element.

>>> import ember.torch as torch
>>> from ember.torch.func import grad, vmap
>>> f = lambda x: (x ** 3).sum()
>>> grad(grad(lambda x: f(x)))(torch.tensor(2.0)).item()
12.0
>>> vmap(lambda row: row.argmax(0))(torch.tensor([[1.0, 3.0], [4.0, 2.0]])).tolist()
[1, 0]
"""

from .. import autodiff as _ad
from ..errors import InvalidParameterError, KindError
from .._tensor import Tensor as _EmberTensor
from ._tensor import as_torch, to_torch

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state"]


def _torch(value):
    """Tensors in ``value`` (a tensor, or tuples, lists and dicts of them) as ember.torch
    tensors, sharing buffers and graphs."""
    if isinstance(value, _EmberTensor):
        return as_torch(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_torch(v) for v in value)
    if isinstance(value, dict):
        return {k: _torch(v) for k, v in value.items()}
    return value


def _on_torch(func):
    """``func`` called with its tensor arguments as ember.torch tensors."""
    if not callable(func):
        raise InvalidParameterError(f"expected a callable, got {type(func).__name__}", "func",
                                    func)

    def call(*args, **kwargs):
        return func(*_torch(args), **kwargs)
    call.__name__ = getattr(func, "__name__", "func")
    return call


def _with_aux(func, box):
    """``func`` returning ``(output, aux)``, as a function returning ``output`` that puts
    ``aux`` in ``box``."""
    def call(*args, **kwargs):
        out = func(*args, **kwargs)
        if not isinstance(out, tuple) or len(out) != 2:
            raise KindError("has_aux=True: the function must return a tuple (output, aux), got "
                            f"{type(out).__name__}")
        box.append(out[1])
        return out[0]
    return call


def _flatten(value):
    """(tensors, spec) of a tensor or of nested tuples, lists and dicts of them."""
    if isinstance(value, _EmberTensor):
        return [value], None
    if isinstance(value, (tuple, list)):
        leaves, specs = [], []
        for v in value:
            sub, spec = _flatten(v)
            leaves += sub
            specs.append((len(sub), spec))
        return leaves, (type(value), None, specs)
    if isinstance(value, dict):
        leaves, specs = [], []
        for v in value.values():
            sub, spec = _flatten(v)
            leaves += sub
            specs.append((len(sub), spec))
        return leaves, (dict, list(value), specs)
    raise KindError(f"expected a Tensor, or tuples, lists and dicts of Tensors, got "
                    f"{type(value).__name__}")


def _unflatten(spec, leaves):
    if spec is None:
        return leaves[0]
    kind, keys, specs = spec
    parts, start = [], 0
    for n, sub in specs:
        parts.append(_unflatten(sub, leaves[start:start + n]))
        start += n
    return dict(zip(keys, parts)) if kind is dict else kind(parts)


class _Leaves:
    """The arguments at ``argnums`` of one call, flattened: ``leaves`` (the tensors, in order),
    ``call_with(flat)`` (the call with other tensors in their places) and ``per_arg(values)``
    (one value per leaf, nested back as the arguments were)."""

    def __init__(self, call, args, kwargs, argnums):
        self.one = isinstance(argnums, int) and not isinstance(argnums, bool)
        nums = _ad.functional._argnums(argnums, len(args), "torch.func")[0]
        self.call, self.args, self.kwargs = call, args, kwargs
        self.leaves, self.specs = [], []
        for k in nums:
            sub, spec = _flatten(args[k])
            self.specs.append((k, spec, len(sub)))
            self.leaves += sub
        if not self.leaves:
            raise InvalidParameterError("the arguments at argnums hold no Tensor", "argnums",
                                        argnums)

    def call_with(self, *flat):
        new, start = list(self.args), 0
        for k, spec, n in self.specs:
            new[k] = _unflatten(spec, flat[start:start + n])
            start += n
        return self.call(*new, **self.kwargs)

    def per_arg(self, values):
        out, start = [], 0
        for k, spec, n in self.specs:
            out.append(_unflatten(spec, list(values[start:start + n])))
            start += n
        return _torch(out[0] if self.one else tuple(out))


def _on_leaves(transform, func, argnums, has_aux):
    """``transform(f, argnums, has_aux)`` of ember (which takes tensor arguments) applied to
    ``func``, whose arguments at ``argnums`` may be nested tuples, lists and dicts of tensors
    (PyTorch's pytrees, e.g. a dict of parameters): the results for those arguments come back
    in the same nesting."""
    call = _on_torch(func)

    def transformed(*args, **kwargs):
        flat = _Leaves(call, args, kwargs, argnums)
        result = transform(flat.call_with, tuple(range(len(flat.leaves))), has_aux)(
            *flat.leaves)
        if has_aux:
            result, aux = result
            return flat.per_arg(result), _torch(aux)
        return flat.per_arg(result)
    return transformed


def grad(func, argnums=0, has_aux=False):
    """The gradient of ``func`` (a 0-d tensor out) with respect to argument ``argnums`` (an
    int or a tuple; an argument may be a dict, tuple or list of tensors); ``has_aux``:
    ``func`` returns ``(output, aux)`` and the result is ``(gradient, aux)``.

    >>> import ember.torch as torch
    >>> from ember.torch.func import grad
    >>> grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(torch.ones(2), torch.tensor([2.0, 3.0]))
    (tensor([2., 3.]), tensor([1., 1.]))
    >>> grad(lambda p: (p["w"] ** 2).sum())({"w": torch.tensor([1.0, 2.0])})
    {'w': tensor([2., 4.])}
    """
    return _on_leaves(_ad.grad, func, argnums, bool(has_aux))


def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of ``func`` (with ``has_aux``: ``(gradient, (value, aux))``).

    >>> import ember.torch as torch
    >>> from ember.torch.func import grad_and_value
    >>> g, v = grad_and_value(lambda x: (x * x).sum())(torch.tensor([3.0]))
    >>> g.tolist(), v.item()
    ([6.0], 9.0)
    """
    def both(*args, **kwargs):
        out = func(*args, **kwargs)
        if has_aux:
            if not isinstance(out, tuple) or len(out) != 2:
                raise KindError("grad_and_value(f)(*args): output of function f should be a "
                                "tuple: (output, aux) if has_aux is True")
            value, aux = out
        else:
            value, aux = out, None
        return value, (value, aux)

    inner = _on_leaves(_ad.grad, both, argnums, True)

    def grad_and_value_f(*args, **kwargs):
        g, (value, aux) = inner(*args, **kwargs)
        value = as_torch(value.detach()) if isinstance(value, _EmberTensor) else value
        return (g, (value, aux)) if has_aux else (g, value)
    return grad_and_value_f


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)`` (and ``aux`` with ``has_aux``); ``vjp_fn(cotangents)``
    gives a tuple, one vector-Jacobian product per primal. Primals, outputs and cotangents may
    be dicts, tuples or lists of tensors.

    >>> import ember.torch as torch
    >>> from ember.torch.func import vjp
    >>> out, fn = vjp(torch.sin, torch.tensor([0.0]))
    >>> fn(torch.tensor([2.0]))[0].tolist()
    [2.0]
    >>> out, fn = vjp(lambda p: {"y": p["w"] * 2}, {"w": torch.ones(2)})
    >>> fn({"y": torch.tensor([1.0, 3.0])})
    ({'w': tensor([2., 6.])},)
    """
    box, out_spec = [], []
    call = _on_torch(func)
    if has_aux:
        call = _with_aux(call, box)
    flat = _Leaves(call, primals, {}, tuple(range(len(primals))))

    def flat_out(*leaves):
        sub, spec = _flatten(flat.call_with(*leaves))
        out_spec[:] = [spec]
        return tuple(sub)

    out, fn = _ad.vjp(flat_out, *flat.leaves)

    def vjp_fn(cotangents, *more):
        if more:
            cotangents = (cotangents,) + more
        cts, _ = _flatten(cotangents)
        return flat.per_arg(fn(tuple(cts)))

    out = _torch(_unflatten(out_spec[0], list(out)))
    return (out, vjp_fn, _torch(box[0])) if has_aux else (out, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)`` (and ``aux`` with ``has_aux``).

    >>> import ember.torch as torch
    >>> from ember.torch.func import jvp
    >>> jvp(torch.sin, (torch.tensor([0.0]),), (torch.tensor([2.0]),))[1].tolist()
    [2.0]
    """
    box = []
    call = _on_torch(func)
    if has_aux:
        call = _with_aux(call, box)
    out, tangent = _ad.jvp(call, tuple(primals), tuple(tangents))
    if has_aux:
        return _torch(out), _torch(tangent), _torch(box[0])
    return _torch(out), _torch(tangent)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian of ``func`` with respect to argument ``argnums`` (an argument may be a
    dict, tuple or list of tensors), shape ``output.shape + input.shape`` (``(jacobian, aux)``
    with ``has_aux``).

    >>> import ember.torch as torch
    >>> from ember.torch.func import jacrev
    >>> jacrev(lambda x: x * x)(torch.tensor([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    >>> jacrev(lambda p: p["w"] * 3)({"w": torch.ones(1)})
    {'w': tensor([[3.]])}
    """
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise InvalidParameterError(f"jacrev: chunk_size should be a positive int or None, "
                                    f"got {chunk_size!r}", "chunk_size", chunk_size)

    def jac_f(*args, **kwargs):
        box = []
        call = _on_torch(func)
        if has_aux:
            call = _with_aux(call, box)
        flat = _Leaves(call, args, kwargs, argnums)
        res = _ad.jacobian(flat.call_with, tuple(range(len(flat.leaves))))(*flat.leaves)
        if isinstance(res[0], _EmberTensor):  # one output: a Jacobian per leaf
            jac = flat.per_arg(res)
        else:  # a tuple of outputs: per output, a Jacobian per leaf
            jac = tuple(flat.per_arg(per_output) for per_output in res)
        return (jac, _torch(box[0])) if has_aux else jac
    return jac_f


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func``, as ``jacrev`` computes it (ember differentiates in reverse
    mode; the values are the same).

    >>> import ember.torch as torch
    >>> from ember.torch.func import jacfwd
    >>> jacfwd(torch.sin)(torch.tensor([0.0, 0.0])).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    if randomness not in ("error", "different", "same"):
        raise InvalidParameterError(f"jacfwd: randomness must be 'error', 'different' or "
                                    f"'same', got {randomness!r}", "randomness", randomness)
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """The Hessian of ``func`` (a 0-d tensor out), shape ``input.shape + input.shape``.

    >>> import ember.torch as torch
    >>> from ember.torch.func import hessian
    >>> hessian(lambda x: (x ** 3).sum())(torch.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    inner = _ad.hessian(_on_torch(func), argnums)

    def hessian_f(*args, **kwargs):
        return _torch(inner(*args, **kwargs))
    return hessian_f


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a batch dim of its arguments (``in_dims``: an int, or a tuple with
    an int or None per argument; an argument may be a dict, tuple or list of tensors, each
    mapped over that dim), the results (tensors, or dicts, tuples and lists of them) stacked
    at ``out_dims`` (an int, or one per output of a tuple).

    >>> import ember.torch as torch
    >>> from ember.torch.func import vmap
    >>> vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2)).tolist()
    [2.0, 2.0, 2.0]
    >>> vmap(lambda p: {"s": p["w"].sum()})({"w": torch.ones(2, 3)})
    {'s': tensor([3., 3.])}
    """
    if randomness not in ("error", "different", "same"):
        raise InvalidParameterError(f"vmap: randomness must be 'error', 'different' or 'same', "
                                    f"got {randomness!r}", "randomness", randomness)
    call = _on_torch(func)

    def mapped(*args, **kwargs):
        if isinstance(in_dims, tuple):
            if len(in_dims) != len(args):
                raise InvalidParameterError(f"vmap: in_dims is a tuple of {len(in_dims)} entries "
                                            f"for {len(args)} arguments; expected one per "
                                            "argument", "in_dims", in_dims)
            dims = in_dims
        elif in_dims is None or isinstance(in_dims, int) and not isinstance(in_dims, bool):
            dims = (in_dims,) * len(args)
        else:
            raise InvalidParameterError(f"vmap: in_dims must be an int, None or a tuple of them, "
                                        f"got {in_dims!r}", "in_dims", in_dims)
        leaves, leaf_dims, specs = [], [], []
        for k, (a, d) in enumerate(zip(args, dims)):
            if d is None:
                continue
            sub, spec = _flatten(a)
            specs.append((k, spec, len(sub)))
            leaves += sub
            leaf_dims += [d] * len(sub)
        out_spec = []

        def on_leaves(*flat):
            new, start = list(args), 0
            for k, spec, n in specs:
                new[k] = _unflatten(spec, flat[start:start + n])
                start += n
            out = call(*new, **kwargs)
            sub, spec = _flatten(out)
            out_spec[:] = [spec]
            return tuple(sub)

        stacked = _ad.vmap(on_leaves, tuple(leaf_dims), 0)(*leaves)
        return _torch(_unflatten(out_spec[0], _moved(list(stacked), out_spec[0], out_dims)))

    return mapped


def _moved(stacked, spec, out_dims):
    """The stacked outputs (batch dim first) with the batch dim moved to ``out_dims``."""
    if isinstance(out_dims, int) and not isinstance(out_dims, bool):
        per_leaf = [out_dims] * len(stacked)
    elif isinstance(out_dims, tuple) and spec is not None and len(out_dims) == len(spec[2]):
        per_leaf = [d for d, (n, _) in zip(out_dims, spec[2]) for _ in range(n)]
    else:
        raise InvalidParameterError(f"vmap: out_dims {out_dims!r} does not match the outputs; "
                                    "expected an int or one int per output", "out_dims",
                                    out_dims)
    return [t if d == 0 else t.movedim(0, d) for t, d in zip(stacked, per_leaf)]


def stack_module_state(models):
    """``(params, buffers)``: for each name, the tensors of ``models`` (modules of one
    architecture) stacked along a new first dim, as ``torch.func.stack_module_state`` (the
    stacked parameters are new leaves that require grad), for ``vmap`` over
    ``functional_call``.

    >>> from ember.torch import nn
    >>> from ember.torch.func import stack_module_state
    >>> params, buffers = stack_module_state([nn.Linear(3, 2) for _ in range(4)])
    >>> {k: tuple(v.shape) for k, v in params.items()}
    {'weight': (4, 2, 3), 'bias': (4, 2)}
    """
    models = list(models)
    if not models:
        raise InvalidParameterError("stack_module_state: Expected at least one model, got 0.",
                                    "models", models)
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise InvalidParameterError("stack_module_state: Expected all models to have the same "
                                    "training/eval mode.", "models", models)
    first = models[0]
    names = [n for n, _ in first.named_parameters()]
    params = {}
    for name in names:
        tensors = [m.get_parameter(name) for m in models]
        flags = {t.requires_grad for t in tensors}
        if len(flags) > 1:
            raise InvalidParameterError(f"Expected {name} from each model to have the same "
                                        ".requires_grad", "models", name)
        stacked = as_torch(_EmberTensor.stack([t.detach() for t in tensors], 0))
        if flags.pop():
            stacked.requires_grad = True
        params[name] = stacked
    buffers = {name: as_torch(_EmberTensor.stack([m.get_buffer(name) for m in models], 0))
               for name, _ in first.named_buffers()}
    return params, buffers


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module`` with the tensors of ``parameter_and_buffer_dicts`` (name -> tensor, or a
    tuple of such dicts) standing in for its parameters and buffers of those names; the
    module's own are put back afterwards. ``tie_weights``: a tensor given for one of tied names
    stands in for all of them; ``strict``: every parameter and buffer must be given, and
    nothing else.

    >>> import ember.torch as torch
    >>> from ember.torch import nn
    >>> from ember.torch.func import functional_call
    >>> m = nn.Linear(2, 1)
    >>> w = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
    >>> functional_call(m, w, (torch.tensor([[1.0, 2.0]]),)).tolist()
    [[3.0]]
    """
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        dicts = (dicts,)
    if not isinstance(dicts, (tuple, list)) or not all(isinstance(d, dict) for d in dicts):
        raise KindError("functional_call: parameter_and_buffer_dicts must be a dict or a tuple "
                        f"of dicts, got {type(parameter_and_buffer_dicts).__name__}")
    given = {}
    for d in dicts:
        for key, value in d.items():
            if key in given:
                raise InvalidParameterError(f"{key!r} appeared in multiple dictionaries; "
                                            "behavior of functional call is ambiguous",
                                            "parameter_and_buffer_dicts", key)
            given[key] = value
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    kwargs = {} if kwargs is None else kwargs
    slots = _slots(module)
    if strict:
        _check_strict(module, slots, given)
    if tie_weights:
        given = _tied(slots, given)
    saved = []
    try:
        for name, value in given.items():
            saved.append(_swap(module, name, value))
        return to_torch(module(*args, **kwargs))
    finally:
        for restore in reversed(saved):
            restore()


def _slots(module):
    """name -> the tensor the module holds there (tied names each listed)."""
    out = {}
    for name, t in module.named_parameters(remove_duplicate=False):
        out[name] = t
    for name, t in module.named_buffers(remove_duplicate=False):
        out[name] = t
    return out


def _check_strict(module, slots, given):
    missing = [n for n in slots if n not in given]
    unexpected = [n for n in given if n not in slots]
    if missing or unexpected:
        msgs = []
        if unexpected:
            msgs.append("Unexpected key(s): " + ", ".join(map(repr, unexpected)) + ".")
        if missing:
            msgs.append("Missing key(s): " + ", ".join(map(repr, missing)) + ".")
        raise InvalidParameterError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t"
                                    + "\n\t".join(msgs), "parameter_and_buffer_dicts",
                                    {"missing": missing, "unexpected": unexpected})


def _tied(slots, given):
    """``given`` with each tensor also standing in for the names tied to its name."""
    groups = {}
    for name, t in slots.items():
        groups.setdefault(id(t), []).append(name)
    out = dict(given)
    for names in groups.values():
        present = [n for n in names if n in given]
        if not present:
            continue
        values = {id(given[n]) for n in present}
        if len(values) > 1:
            raise InvalidParameterError(f"functional_call got multiple values for keys "
                                        f"{present}, which are tied. Consider using "
                                        "tie_weights=False", "parameter_and_buffer_dicts",
                                        present)
        for n in names:
            out.setdefault(n, given[present[0]])
    return out


def _swap(module, name, value):
    """Put ``value`` at the dotted ``name`` of ``module``; returns the function that puts the
    old one back."""
    path, _, attr = name.rpartition(".")
    owner = module.get_submodule(path)
    for store_name in ("_parameters", "_buffers"):
        store = owner.__dict__.get(store_name)
        if store is not None and attr in store:
            old = store[attr]
            store[attr] = value

            def restore(store=store, attr=attr, old=old):
                store[attr] = old
            return restore
    had = attr in owner.__dict__
    old = owner.__dict__.get(attr)
    object.__setattr__(owner, attr, value)

    def restore_attr():
        if had:
            object.__setattr__(owner, attr, old)
        else:
            object.__delattr__(owner, attr)
    return restore_attr
