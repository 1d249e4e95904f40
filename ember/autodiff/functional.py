"""Function transforms, as ``torch.func`` and JAX: ``grad``, ``vjp``, ``jvp``, ``jacobian``,
``hessian`` and ``vmap``.

Each transform calls ``f`` on stand-ins of its arguments that the recorded graph can tell apart,
then runs the backward engine for just those (``run_backward(targets=...)``), so nothing is
written to any ``.grad``. The gradient rules are ember ops, so the transforms nest:
``grad(grad(f))`` differentiates the first backward, which was recorded because its input was
tracked. ``jvp`` is the transpose of a vjp (a vjp is linear in its cotangent, so differentiating
it with respect to the cotangent gives the forward-mode product). ``vmap`` runs ``f`` once per
slice of the batch dim and stacks the results: every ember op works under it, at the cost of a
Python call per slice.
"""

from ..errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import Tensor, record, wrap
from .engine import _plain, _topological, run_backward
from .graph import Node, enable_grad

__all__ = ["grad", "vjp", "jvp", "jacobian", "hessian", "vmap"]


def _identity(g, needs, out):
    return (g,)


def _argnums(argnums, n, op):
    """``argnums`` as a tuple of positions of the ``n`` arguments, and whether it was one int."""
    one = isinstance(argnums, int) and not isinstance(argnums, bool)
    nums = (argnums,) if one else argnums
    if not isinstance(nums, tuple) or not nums or not all(
            isinstance(k, int) and not isinstance(k, bool) for k in nums):
        raise InvalidParameterError(f"{op}: argnums must be an int or a non-empty tuple of ints, "
                                    f"got {argnums!r}", "argnums", argnums)
    out = []
    for k in nums:
        if not -n <= k < n:
            raise InvalidParameterError(f"{op}: argnums {k} is out of range for {n} positional "
                                        f"arguments; expected a position in [{-n}, {n})",
                                        "argnums", argnums)
        out.append(k % n)
    if len(set(out)) != len(out):
        raise InvalidParameterError(f"{op}: argnums {argnums!r} names an argument twice",
                                    "argnums", argnums)
    return tuple(out), one


def _stand_in(x, op, k):
    """A tensor with ``x``'s value whose own graph node the engine can target: a fresh leaf for
    an untracked ``x``, a recorded identity step of a tracked one (so an outer transform still
    sees through it)."""
    if not isinstance(x, Tensor):
        raise KindError(f"{op}: argument {k} is of type {type(x).__name__}; expected an ember "
                        "Tensor (the arguments differentiated are tensors)")
    if x._dtype.kind != "float":
        raise KindError(f"{op}: argument {k} has dtype {x._dtype.name}; expected a float tensor "
                        "(only float tensors have gradients)")
    if x._node is None:
        t = wrap(x._data, x._dtype)
        t._node = Node.leaf(t)
        return t
    with enable_grad():
        return record(x._data, x._dtype, (x,), _identity, "stand_in")


def _call(f, args, kwargs, nums, op):
    """``f`` called with stand-ins for the arguments at ``nums``: (result, stand-ins)."""
    if not callable(f):
        raise InvalidParameterError(f"{op}: f must be callable, got {type(f).__name__}", "f", f)
    args = list(args)
    xs = []
    for k in nums:
        args[k] = _stand_in(args[k], op, k)
        xs.append(args[k])
    with enable_grad():
        out = f(*args, **kwargs)
    return out, xs


def _outputs(out, op, what="f"):
    """``out`` as a list of tensors and whether it was a single tensor."""
    if isinstance(out, Tensor):
        return [out], True
    if isinstance(out, (tuple, list)) and out and all(isinstance(o, Tensor) for o in out):
        return list(out), False
    raise KindError(f"{op}: {what} returned {type(out).__name__}; expected a Tensor or a "
                    "tuple of Tensors")


def _nested(roots, xs):
    """Whether the graph of ``roots`` reaches a tracked tensor other than the fresh stand-ins
    ``xs``: then an outer transform (or a later backward) differentiates through this one, and
    the gradients must be recorded."""
    fresh = {id(x._node) for x in xs if not x._node.parents}
    for root in roots:
        if root._node is None:
            continue
        for node in _topological(root._node):
            if not node.parents and id(node) not in fresh:
                return True
    return False


def _backward(roots, seeds, xs, create_graph, retain):
    """The vjp of the tensors ``roots`` with cotangents ``seeds`` at ``xs`` (zeros where none
    flows)."""
    tracked = [(r, s) for r, s in zip(roots, seeds) if r._node is not None]
    if not tracked:
        return [x.zeros_like() for x in xs]
    if len(tracked) == 1:
        root, seed = tracked[0]
    else:
        root, seed = sum((r * s).sum() for r, s in tracked), None
    grads = run_backward(root, seed, create_graph, targets=xs, retain=retain)
    return [x.zeros_like() if g is None else g for g, x in zip(grads, xs)]


def grad(f, argnums=0, has_aux=False):
    """The gradient of ``f``, a function that returns a 0-d float tensor, with respect to its
    argument ``argnums`` (an int, or a tuple of ints for a tuple of gradients), as
    ``torch.func.grad``. With ``has_aux`` ``f`` returns ``(value, aux)`` and the new function
    ``(gradient, aux)``. Transforms nest: ``grad(grad(f))`` is the second derivative.

    >>> import ember
    >>> from ember.autodiff import grad
    >>> f = lambda x: (x ** 3).sum()
    >>> grad(f)(ember.tensor([1.0, 2.0])).tolist()
    [3.0, 12.0]
    >>> grad(lambda x: grad(f)(x).sum())(ember.tensor([1.0, 2.0])).tolist()
    [6.0, 12.0]
    """
    def grad_f(*args, **kwargs):
        nums, one = _argnums(argnums, len(args), "grad")
        out, xs = _call(f, args, kwargs, nums, "grad")
        aux = None
        if has_aux:
            if not isinstance(out, tuple) or len(out) != 2:
                raise KindError("grad: with has_aux=True f must return a pair (value, aux), got "
                                f"{type(out).__name__}")
            out, aux = out
        if not isinstance(out, Tensor) or out.ndim != 0 or out._dtype.kind != "float":
            raise ShapeMismatchError(
                f"grad: f must return a 0-d float tensor, got "
                f"{getattr(out, 'shape', type(out).__name__)}; use vjp or jacobian for other "
                "outputs", expected=(), actual=getattr(out, "shape", None))
        nested = _nested([out], xs)
        grads = _backward([out], [None], xs, nested, False)
        result = grads[0] if one else tuple(grads)
        return (result, aux) if has_aux else result

    grad_f.__name__ = f"grad_{getattr(f, '__name__', 'f')}"
    return grad_f


def vjp(f, *primals, has_aux=False):
    """``(f(*primals), vjp_fn)``, as ``torch.func.vjp``: ``vjp_fn(cotangent)`` gives the
    vector-Jacobian product, one tensor per primal (``cotangent`` a tensor, or a tuple of them
    when ``f`` returns a tuple). ``vjp_fn`` can be called many times.

    >>> import ember
    >>> from ember.autodiff import vjp
    >>> out, vjp_fn = vjp(lambda x: x * x, ember.tensor([1.0, 3.0]))
    >>> vjp_fn(ember.tensor([1.0, 0.5]))[0].tolist()
    [2.0, 3.0]
    """
    nums = tuple(range(len(primals)))
    if not nums:
        raise InvalidParameterError("vjp: expected at least one primal", "primals", primals)
    out, xs = _call(f, primals, {}, nums, "vjp")
    aux = None
    if has_aux:
        if not isinstance(out, tuple) or len(out) != 2:
            raise KindError("vjp: with has_aux=True f must return a pair (output, aux)")
        out, aux = out
    outs, single = _outputs(out, "vjp")
    nested = _nested(outs, xs)

    def vjp_fn(cotangent):
        cts, _ = _outputs(cotangent, "vjp_fn", "the cotangent")
        if len(cts) != len(outs):
            raise InvalidParameterError(f"vjp_fn: got {len(cts)} cotangents for {len(outs)} "
                                        "outputs", "cotangent", cotangent)
        for k, (o, c) in enumerate(zip(outs, cts)):
            if tuple(c.shape) != tuple(o.shape):
                raise ShapeMismatchError(f"vjp_fn: cotangent {k} has shape {tuple(c.shape)}, "
                                         f"expected {tuple(o.shape)}", expected=o.shape,
                                         actual=c.shape)
        keep = nested or any(c._node is not None for c in cts)
        return tuple(_backward(outs, cts, xs, keep, True))

    shown = _plain(outs[0], nested) if single else tuple(_plain(o, nested) for o in outs)
    return (shown, vjp_fn, aux) if has_aux else (shown, vjp_fn)


def jvp(f, primals, tangents):
    """``(f(*primals), J t)``, the Jacobian-vector product, as ``torch.func.jvp`` (``primals``
    and ``tangents`` tuples of tensors of the same shapes).

    >>> import ember
    >>> from ember.autodiff import jvp
    >>> out, t = jvp(lambda x: x.sin(), (ember.tensor([0.0]),), (ember.tensor([2.0]),))
    >>> t.tolist()
    [2.0]
    """
    for name, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, tuple) or not all(isinstance(v, Tensor) for v in value):
            raise KindError(f"jvp: {name} must be a tuple of Tensors, got {type(value).__name__}")
    if len(primals) != len(tangents) or not primals:
        raise InvalidParameterError(f"jvp: got {len(primals)} primals and {len(tangents)} "
                                    "tangents; expected as many of each (at least one)",
                                    "tangents", tangents)
    for k, (p, t) in enumerate(zip(primals, tangents)):
        if tuple(p.shape) != tuple(t.shape):
            raise ShapeMismatchError(f"jvp: tangent {k} has shape {tuple(t.shape)}, expected "
                                     f"{tuple(p.shape)}", expected=p.shape, actual=t.shape)
    out, xs = _call(f, primals, {}, tuple(range(len(primals))), "jvp")
    outs, single = _outputs(out, "jvp")
    nested = _nested(outs, xs) or any(t._node is not None for t in tangents)
    # the vjp is linear in its cotangents us; its derivative with respect to them is J t
    us = [_stand_in(o.zeros_like(), "jvp", k) for k, o in enumerate(outs)]
    with enable_grad():
        grads = _backward(outs, us, xs, True, True)
        dot = [(g * t.cast(g.dtype)).sum() for g, t in zip(grads, tangents)
               if g._node is not None]
    if dot:
        tangent_outs = _backward([sum(dot)], [None], us, nested, False)
    else:
        tangent_outs = [u.zeros_like() for u in us]
    tangent_outs = [_plain(t, nested) for t in tangent_outs]
    if single:
        return _plain(outs[0], nested), tangent_outs[0]
    return tuple(_plain(o, nested) for o in outs), tuple(tangent_outs)


def jacobian(f, argnums=0):
    """The Jacobian of ``f`` (one tensor in, one tensor out, or ``argnums`` a tuple for a tuple of
    Jacobians), of shape ``out.shape + x.shape``, as ``torch.func.jacrev``. One backward per
    element of the output: meant for small functions.

    >>> import ember
    >>> from ember.autodiff import jacobian
    >>> jacobian(lambda x: x * x)(ember.tensor([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    def jac_f(*args, **kwargs):
        nums, one = _argnums(argnums, len(args), "jacobian")
        out, xs = _call(f, args, kwargs, nums, "jacobian")
        outs, single = _outputs(out, "jacobian")
        for o in outs:
            if o._dtype.kind != "float":
                raise KindError(f"jacobian: f must return float tensors, got {o._dtype.name}")
        nested = _nested(outs, xs)
        per_output = [_jacobians(o, xs, nested) for o in outs]
        per_output = [jacs[0] if one else tuple(jacs) for jacs in per_output]
        return per_output[0] if single else tuple(per_output)

    jac_f.__name__ = f"jacobian_{getattr(f, '__name__', 'f')}"
    return jac_f


def _jacobians(out, xs, nested):
    """The Jacobians of the tensor ``out`` with respect to each of ``xs``: one backward per
    element of ``out``, each row the gradient of that element."""
    n = out.numel()
    rows = [[] for _ in xs]
    basis = Tensor.eye(n, dtype=out.dtype, device=out.device) if n else None
    for i in range(n):
        seed = basis[i].reshape(tuple(out.shape))
        for k, g in enumerate(_backward([out], [seed], xs, nested, True)):
            rows[k].append(g)
    jacs = []
    for k, x in enumerate(xs):
        shape = tuple(out.shape) + tuple(x.shape)
        if n and x.numel():
            jac = Tensor.stack(rows[k]).reshape(shape)  # no size-0 dims here
        else:
            jac = Tensor.zeros(*shape, dtype=x.dtype, device=x.device)
        jacs.append(_plain(jac, nested))
    return jacs


def hessian(f, argnums=0):
    """The Hessian of ``f`` (a 0-d float output), the Jacobian of its Jacobian, as
    ``torch.func.hessian``: shape ``x.shape + x.shape`` (a tuple of tuples for a tuple
    ``argnums``).

    >>> import ember
    >>> from ember.autodiff import hessian
    >>> hessian(lambda x: (x ** 3).sum())(ember.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    return jacobian(jacobian(f, argnums), argnums)


def vmap(f, in_dims=0, out_dims=0):
    """``f`` mapped over a batch dim of its arguments, as ``torch.func.vmap``: ``in_dims`` says
    which dim of each argument is the batch (an int for all, or a tuple with an int or None per
    argument: None passes the argument whole), ``out_dims`` where the batch goes in each
    output. ``f`` runs once per batch index and the results are stacked, so any ember op works
    (and gradients flow through).

    >>> import ember
    >>> from ember.autodiff import vmap
    >>> vmap(lambda row: row.sum())(ember.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [3.0, 7.0]
    """
    if not callable(f):
        raise InvalidParameterError(f"vmap: f must be callable, got {type(f).__name__}", "f", f)

    def mapped(*args, **kwargs):
        dims = _in_dims(in_dims, args)
        size = None
        for k, (a, d) in enumerate(zip(args, dims)):
            if d is None:
                continue
            if a.ndim == 0 or not -a.ndim <= d < a.ndim:
                raise InvalidParameterError(f"vmap: in_dims {d} is out of range for argument "
                                            f"{k} of shape {tuple(a.shape)}", "in_dims", in_dims)
            n = a.shape[d % a.ndim]
            if size is None:
                size = n
            elif n != size:
                raise ShapeMismatchError(f"vmap: argument {k} has {n} elements in its batch dim, "
                                         f"expected {size} as the arguments before it",
                                         expected=size, actual=n)
        if size is None:
            raise InvalidParameterError("vmap: in_dims maps no argument; expected at least one "
                                        "Tensor argument with a batch dim", "in_dims", in_dims)
        if size == 0:
            raise InvalidParameterError("vmap: the batch dim has size 0; expected at least one "
                                        "element to map over", "in_dims", in_dims)
        parts = [None if d is None else a.unbind(d) for a, d in zip(args, dims)]
        results = []
        for i in range(size):
            sliced = [a if p is None else p[i] for a, p in zip(args, parts)]
            results.append(f(*sliced, **kwargs))
        first, single = _outputs(results[0], "vmap")
        per_output = list(zip(*[_outputs(r, "vmap")[0] for r in results]))
        odims = (out_dims,) * len(first) if isinstance(out_dims, int) else out_dims
        if not isinstance(odims, tuple) or len(odims) != len(first) or not all(
                isinstance(d, int) for d in odims):
            raise InvalidParameterError(f"vmap: out_dims {out_dims!r} does not match {len(first)} "
                                        "outputs; expected an int or a tuple of one int per "
                                        "output", "out_dims", out_dims)
        outs = [Tensor.stack(list(ts), d) for ts, d in zip(per_output, odims)]
        return outs[0] if single else tuple(outs)

    mapped.__name__ = f"vmap_{getattr(f, '__name__', 'f')}"
    return mapped


def _in_dims(in_dims, args):
    if isinstance(in_dims, int) and not isinstance(in_dims, bool):
        dims = (in_dims,) * len(args)
    elif isinstance(in_dims, tuple) and len(in_dims) == len(args):
        dims = in_dims
    else:
        raise InvalidParameterError(f"vmap: in_dims must be an int or a tuple of one int or None "
                                    f"per argument ({len(args)}), got {in_dims!r}",
                                    "in_dims", in_dims)
    for k, (a, d) in enumerate(zip(args, dims)):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise InvalidParameterError(f"vmap: in_dims entry {k} must be an int or None, got "
                                        f"{d!r}", "in_dims", in_dims)
        if not isinstance(a, Tensor):
            raise KindError(f"vmap: argument {k} is of type {type(a).__name__} but in_dims maps "
                            "it; expected a Tensor (or None in in_dims)")
    return dims
