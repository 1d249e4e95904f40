"""``torch.autograd.Function``: custom differentiable ops, recorded as steps of ember's graph.

``Function.apply(*args)`` runs ``forward`` with recording off, then records one step whose
parents are the tensor arguments and whose rule calls ``backward(ctx, *grad_outputs)``; the
outputs are the tensors ``forward`` returned (their identity kept, so ``ctx`` may save them).
Several differentiable outputs share one step: their values are flattened into one recorded
tensor and each output is a slice of it, so ``backward`` runs once with every output's
gradient (zeros for an output the loss does not use). A ``backward`` written with ember.torch
ops is recorded under ``create_graph=True`` and so differentiable again, unless marked
``@once_differentiable``. Both styles are accepted: ``forward(ctx, *args)``, or
``forward(*args)`` with ``setup_context(ctx, inputs, output)``. ``NestedIOFunction``, the
legacy instance-called op with nested inputs and outputs, is at the end of the file.

>>> import ember.torch as torch
>>> class Cube(torch.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x ** 3
...     @staticmethod
...     def backward(ctx, g):
...         (x,) = ctx.saved_tensors
...         return g * 3 * x ** 2
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> (g,) = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
>>> g.tolist(), torch.autograd.grad(g.sum(), x)[0].tolist()
([3.0, 12.0], [6.0, 12.0])
"""

import functools

from ...autodiff.graph import enable_grad, grad_enabled, no_grad
from ...errors import GraphError, KindError, ShapeMismatchError
from ..._tensor import Tensor as _EmberTensor, record, saved, wrap
from .._tensor import as_torch, to_torch

__all__ = ["Function", "FunctionCtx", "once_differentiable", "NestedIOFunction"]


class FunctionCtx:
    """The ``ctx`` of a Function: ``save_for_backward``/``saved_tensors``,
    ``needs_input_grad``, ``mark_non_differentiable``, ``mark_dirty``, ``set_materialize_grads``;
    any other attribute may be set on it to pass values to ``backward``."""

    def __init__(self):
        self.to_save = ()
        self.needs_input_grad = ()
        self.materialize_grads = True
        self.non_differentiable = ()
        self.dirty = ()

    def mark_dirty(self, *args):
        """These inputs were changed in place by ``forward`` and are returned as outputs: each
        becomes the op's output itself (a leaf that requires grad cannot be)."""
        self.dirty = self.dirty + tuple(id(a) for a in args)

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` (or None) for ``backward``, as ``saved_tensors``."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, _EmberTensor):
                raise KindError(f"save_for_backward can only save variables, but argument {i} "
                                f"is of type {type(t).__name__}")
        self.to_save = tensors

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``."""
        return tuple(None if t is None else as_torch(t) for t in self.to_save)

    def mark_non_differentiable(self, *args):
        """These outputs get no gradient (their ``backward`` gradient is zeros)."""
        self.non_differentiable = self.non_differentiable + tuple(id(a) for a in args)

    def set_materialize_grads(self, value):
        """``False``: ``backward`` gets None, not zeros, for a non-differentiable output (a
        differentiable output the loss does not use still gets zeros: its gradient is a slice
        of the step's, see the module docstring)."""
        if not isinstance(value, bool):
            raise KindError(f"set_materialize_grads: value must be a bool, got {value!r}")
        self.materialize_grads = value


def _not_overridden(*args, **kwargs):
    raise NotImplementedError("You must implement either the forward function for custom "
                              "autograd.Function.")


class Function:
    """Base class of custom ops: define the static methods ``forward`` and ``backward`` and
    call ``MyOp.apply(*args)`` (see the module docstring)."""

    forward = staticmethod(_not_overridden)

    @staticmethod
    def backward(ctx, *grad_outputs):
        """The gradients of the forward's inputs from those of its outputs (define it)."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Save what ``backward`` needs when ``forward`` takes no ``ctx`` (define it)."""
        raise NotImplementedError("setup_context is not implemented.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the op on ``args`` and record its step (see the module docstring)."""
        ctx = FunctionCtx()
        on = grad_enabled()
        ctx.needs_input_grad = tuple(bool(on and isinstance(a, _EmberTensor)
                                          and a._node is not None) for a in args)
        args = tuple(as_torch(a) if isinstance(a, _EmberTensor) else a for a in args)
        # the inputs as they are now: forward may rebind one in place (mark_dirty)
        before = tuple(saved(a) for a in args if isinstance(a, _EmberTensor))
        with no_grad():
            if cls.setup_context is not Function.setup_context:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        output = to_torch(output)
        if not any(ctx.needs_input_grad):
            return output
        return _record(cls, ctx, args, before, output)


def _record(cls, ctx, args, inputs, output):
    single = isinstance(output, _EmberTensor)
    outs = [output] if single else list(output) if isinstance(output, (tuple, list)) else None
    if outs is None:
        raise KindError(f"{cls.__name__}.forward returned {type(output).__name__}; expected a "
                        "Tensor or a tuple of them")
    positions = [i for i, a in enumerate(args) if isinstance(a, _EmberTensor)]
    diff = [k for k, o in enumerate(outs) if isinstance(o, _EmberTensor)
            and o._dtype.kind == "float" and id(o) not in ctx.non_differentiable]
    before = {id(args[i]): b for i, b in zip(positions, inputs)}
    taken = {key for key in before if key not in ctx.dirty}
    for k in diff:  # an input (or an output twice) returned as it is: an alias gets the step
        o = outs[k]
        was = before.get(id(o))
        if id(o) in ctx.dirty and was is not None and was.is_leaf and was._node is not None:
            raise GraphError("a leaf Variable that requires grad is being used in an in-place "
                             "operation.")
        if id(o) in taken:
            outs[k] = as_torch(wrap(o._data, o._dtype, o._ad))
        taken.add(id(outs[k]))

    def run(grads):
        full = []
        for k, o in enumerate(outs):
            if k in diff:
                full.append(as_torch(grads[diff.index(k)]))
            elif isinstance(o, _EmberTensor) and ctx.materialize_grads:
                full.append(as_torch(o.zeros_like()))
            else:
                full.append(None)
        result = cls.backward(ctx, *full)
        result = result if isinstance(result, tuple) else (result,)
        if len(result) < len(args) or any(r is not None for r in result[len(args):]):
            raise GraphError(f"function {cls.__name__}Backward returned an incorrect number of "
                             f"gradients (expected {len(args)}, got {len(result)})")
        return [_checked(cls, result[i], args[i], i) for i in positions]

    if not diff:
        return output if single else type(output)(outs)
    if len(diff) == 1:
        o = outs[diff[0]]
        step = record(o._data, o._dtype, inputs, lambda g, needs, out: run([g]),
                      cls.__name__)
        _take_node(o, step)
    else:
        _record_packed(cls, [outs[k] for k in diff], inputs, run)
    return outs[0] if single else type(output)(outs)


def _take_node(o, step):
    """Make the output object ``o`` the tensor the step ``step`` recorded."""
    o._node = step._node
    o._ad = step._ad


def _record_packed(cls, outs, inputs, run):
    """One step for several outputs: their values flattened together, each output a slice."""
    dt = outs[0]._dtype
    for o in outs[1:]:
        if o._dtype.itemsize > dt.itemsize:
            dt = o._dtype
    shapes = [tuple(o.shape) for o in outs]
    sizes = [o.numel() for o in outs]
    with no_grad():
        flat = _EmberTensor.cat([o.reshape(-1).cast(dt) for o in outs], 0)

    def rule(g, needs, out):
        parts, start = [], 0
        for o, shape, n in zip(outs, shapes, sizes):
            parts.append(g[start:start + n].reshape(shape).cast(o._dtype))
            start += n
        return run(parts)

    packed = record(flat._data, flat._dtype, inputs, rule, cls.__name__)
    with enable_grad():
        start = 0
        for o, shape, n in zip(outs, shapes, sizes):
            _take_node(o, packed[start:start + n].reshape(shape).cast(o._dtype))
            start += n


def _checked(cls, g, x, i):
    """The gradient ``backward`` returned for argument ``i`` (``x``), in ``x``'s dtype."""
    if g is None:
        return None
    if not isinstance(g, _EmberTensor):
        raise KindError(f"function {cls.__name__}Backward returned a gradient of type "
                        f"{type(g).__name__} at index {i}; expected a Tensor or None")
    if tuple(g.shape) != tuple(x.shape):
        raise ShapeMismatchError(f"Function {cls.__name__}Backward returned an invalid gradient "
                                 f"at index {i} - got {list(g.shape)} but expected shape "
                                 f"compatible with {list(x.shape)}", expected=tuple(x.shape),
                                 actual=tuple(g.shape))
    return g if g._dtype is x._dtype else g.cast(x._dtype)


def once_differentiable(fn):
    """Decorate a Function's ``backward`` that is not differentiable itself: it runs with
    recording off, and differentiating its result again (``create_graph=True``) raises
    GraphError, as PyTorch's.

    >>> import ember.torch as torch
    >>> from ember.torch.autograd.function import once_differentiable
    >>> class Sq(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     @once_differentiable
    ...     def backward(ctx, g):
    ...         return 2 * ctx.saved_tensors[0] * g
    >>> x = torch.tensor([3.0], requires_grad=True)
    >>> torch.autograd.grad(Sq.apply(x).sum(), x)[0].tolist()
    [6.0]
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not grad_enabled():
            return outputs
        tracked = tuple(a for a in args if isinstance(a, _EmberTensor) and a._node is not None)
        if not tracked:
            return outputs
        single = not isinstance(outputs, tuple)
        results = (outputs,) if single else outputs

        def refuse(g, needs, out):
            raise GraphError("trying to differentiate twice a function that was marked with "
                             "@once_differentiable")
        results = tuple(r if not isinstance(r, _EmberTensor) or r._dtype.kind != "float"
                        else as_torch(record(r._data, r._dtype, tracked, refuse,
                                             "DelayedError"))
                        for r in results)
        return results[0] if single else results
    return wrapper


# -- NestedIOFunction ----------------------------------------------------------------------

def _iter_tensors(obj):
    """The tensors of the nested tuples and lists ``obj``, in order."""
    if isinstance(obj, _EmberTensor):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            yield from _iter_tensors(o)


def _iter_none_tensors(obj):
    """The tensors and Nones of the nested ``obj``, in order."""
    if obj is None or isinstance(obj, _EmberTensor):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            yield from _iter_none_tensors(o)
    else:
        raise KindError(f"NestedIOFunction: a gradient of type {type(obj).__name__}; "
                        "expected Tensors or None, in tuples and lists")


def _unflatten(flat, structure):
    """``flat`` (an iterator) put into the nesting of ``structure``, tensor for tensor."""
    if isinstance(structure, _EmberTensor) or structure is None:
        return next(flat)
    if isinstance(structure, (tuple, list)):
        return type(structure)(_unflatten(flat, s) for s in structure)
    return structure


class NestedIOFunction(Function):
    """PyTorch's legacy custom op whose inputs and outputs may be nested tuples and lists of
    tensors, called as an instance.

    Define ``forward_extended(self, *inputs)`` and ``backward_extended(self, *grad_outputs)``
    (one gradient, or None, per tensor of the inputs, nested as they are); call
    ``MyOp()(*inputs)``. ``self.save_for_backward(...)`` (nested too), ``self.saved_tensors``,
    ``self.needs_input_grad``, ``self.mark_dirty`` and ``self.mark_non_differentiable`` work as
    on a Function's ``ctx``. The op is recorded by ``Function.apply`` on the flattened tensors.
    (PyTorch 2.13 keeps the class for old code but its ``__call__`` fails; ember's runs.)

    >>> import ember.torch as torch
    >>> from ember.torch.autograd.function import NestedIOFunction
    >>> class MulAdd(NestedIOFunction):
    ...     def forward_extended(self, x, pair):
    ...         self.save_for_backward(x, pair)
    ...         return x * pair[0] + pair[1]
    ...     def backward_extended(self, g):
    ...         x, (a, b) = self.saved_tensors
    ...         return g * a, (g * x, g)
    >>> x = torch.tensor([2.0], requires_grad=True)
    >>> a, b = torch.tensor([3.0], requires_grad=True), torch.tensor([1.0])
    >>> y = MulAdd()(x, (a, b))
    >>> y.backward(torch.ones(1))
    >>> y.tolist(), x.grad.tolist(), a.grad.tolist()
    ([7.0], [3.0], [2.0])
    """

    def __call__(self, *inputs):
        return self._do_forward(*inputs)

    def _do_forward(self, *inputs):
        op = self
        structure = inputs
        flat = tuple(_iter_tensors(inputs))

        class _Flat(Function):
            @staticmethod
            def forward(ctx, *tensors):
                op.needs_input_grad = ctx.needs_input_grad
                op.to_save, op._to_save_nested = (), ()
                op.dirty_tensors = op.non_differentiable = ()
                result = op.forward_extended(*_unflatten(iter(tensors), structure))
                op._nested_output = result
                ctx.save_for_backward(*op.to_save)
                ctx.mark_dirty(*op.dirty_tensors)
                ctx.mark_non_differentiable(*op.non_differentiable)
                return tuple(_iter_tensors(result))

            @staticmethod
            def backward(ctx, *grads):
                return op.backward(*grads)

        _Flat.__name__ = type(self).__name__
        outputs = _Flat.apply(*flat)
        return _unflatten(iter(outputs), self._nested_output)

    def backward(self, *gradients):
        """The flat input gradients from the flat output ones, through
        ``backward_extended``."""
        nested = _unflatten(iter(gradients), self._nested_output)
        nested = tuple(nested) if isinstance(nested, (tuple, list)) else (nested,)
        return tuple(_iter_none_tensors(self.backward_extended(*nested)))

    def forward(self, *args):
        """Run ``forward_extended`` (``MyOp()(*inputs)`` calls it; see the module
        docstring)."""
        return self._do_forward(*args)

    def save_for_backward(self, *args):
        """Keep the tensors of ``args`` (nested) for ``backward_extended``."""
        self.to_save = tuple(_iter_tensors(args))
        self._to_save_nested = args

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, nested as they were."""
        return _unflatten(iter(self.to_save), self._to_save_nested)

    def mark_dirty(self, *args, **kwargs):
        """These inputs were changed in place by ``forward_extended``."""
        self.dirty_tensors = tuple(_iter_tensors((args, tuple(kwargs.values()))))

    def mark_non_differentiable(self, *args, **kwargs):
        """These outputs get no gradient."""
        self.non_differentiable = tuple(_iter_tensors((args, tuple(kwargs.values()))))

    def forward_extended(self, *inputs):
        """The op on nested inputs (define it)."""
        raise NotImplementedError("NestedIOFunction: define forward_extended")

    def backward_extended(self, *grad_outputs):
        """The nested input gradients from the nested output ones (define it)."""
        raise NotImplementedError("NestedIOFunction: define backward_extended")
