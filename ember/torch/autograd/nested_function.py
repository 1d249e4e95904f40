"""``torch.autograd.function.NestedIOFunction``: PyTorch's legacy custom op whose inputs and
outputs may be nested tuples and lists of tensors, called as an instance.

Define ``forward_extended(self, *inputs)`` and ``backward_extended(self, *grad_outputs)`` (one
gradient, or None, per tensor of the inputs, nested as they are); call ``MyOp()(*inputs)``.
``self.save_for_backward(...)`` (nested too), ``self.saved_tensors``,
``self.needs_input_grad``, ``self.mark_dirty`` and ``self.mark_non_differentiable`` work as on a
Function's ``ctx``. The op is recorded by ``Function.apply`` on the flattened tensors. (PyTorch
2.13 keeps the class for old code but its ``__call__`` fails; ember's runs.)

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

from ...errors import KindError
from ..._tensor import Tensor as _EmberTensor
from .function import Function

__all__ = ["NestedIOFunction"]


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
    """Base class of legacy custom ops with nested inputs and outputs (see the module
    docstring)."""

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
