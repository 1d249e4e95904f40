"""Full backward hooks of ``ember.torch.nn.Module``, on ember's autodiff.

A call of a module with backward hooks passes its tensor inputs, and then its tensor outputs,
through one recorded identity step each side (several tensors are flattened and concatenated
into one step, so that its rule sees all their gradients at once, as PyTorch's
``BackwardHookFunction`` does). The outputs' step collects ``grad_output`` and runs the
backward pre-hooks; the inputs' step runs ``hook(module, grad_input, grad_output)``, whose
result may replace ``grad_input``. Inputs that are not tracked have ``None`` gradients; when no
input is tracked the hooks run from the outputs' step with ``grad_input`` all ``None``, as in
PyTorch. Several hooked tensors on one side must share a dtype and a device (KindError
otherwise).

>>> import ember.torch as torch
>>> from ember.torch import nn
>>> m = nn.Linear(2, 1)
>>> seen = []
>>> h = m.register_full_backward_hook(
...     lambda mod, gi, go: seen.append((gi[0].shape, go[0].tolist())))
>>> x = torch.ones(3, 2, requires_grad=True)
>>> _ = m(x).sum().backward()
>>> seen
[(torch.Size([3, 2]), [[1.0], [1.0], [1.0]])]
"""

from ...autodiff.graph import grad_enabled
from ...errors import KindError
from ..._tensor import Tensor as _EmberTensor, record
from .._tensor import as_torch

__all__ = ["BackwardHooks"]


def _tracked(values):
    """The positions of the tensors of ``values`` that the graph tracks."""
    if not grad_enabled():
        return []
    return [i for i, v in enumerate(values) if isinstance(v, _EmberTensor) and v._node is not None]


def _through_step(tensors, on_grads, side, name):
    """``tensors`` passed through one recorded identity step whose rule maps their gradients
    with ``on_grads(list of grads) -> list of grads``."""
    if len(tensors) == 1:
        x = tensors[0]

        def rule(g, needs, out):
            return (on_grads([g])[0],)
        return [record(x._data, x._dtype, (x,), rule, name)]
    first = tensors[0]
    for t in tensors[1:]:
        if t._dtype is not first._dtype or t._device is not first._device:
            raise KindError(f"register_full_backward_hook: the module's tensor {side} have "
                            f"dtypes {[t.dtype.name for t in tensors]} on devices "
                            f"{[str(t.device) for t in tensors]}; backward hooks need one dtype "
                            "and one device")
    shapes = [tuple(t.shape) for t in tensors]
    sizes = [t.numel() for t in tensors]
    flat = _EmberTensor.cat([t.reshape(-1) for t in tensors], 0)

    def rule(g, needs, out):
        parts, start = [], 0
        for shape, n in zip(shapes, sizes):
            parts.append(g[start:start + n].reshape(shape))
            start += n
        new = on_grads(parts)
        return (_EmberTensor.cat([p.reshape(-1) for p in new], 0),)
    packed = record(flat._data, flat._dtype, (flat,), rule, name)
    out, start = [], 0
    for shape, n in zip(shapes, sizes):
        out.append(packed[start:start + n].reshape(shape))
        start += n
    return out


def _replace_grads(result, grads, what):
    """The hook's ``result`` (None: keep ``grads``) checked against ``grads``."""
    if result is None:
        return grads
    if isinstance(result, _EmberTensor):
        result = (result,)
    if not isinstance(result, (tuple, list)) or len(result) != len(grads):
        raise KindError(f"backward hook returned an invalid number of {what}: got "
                        f"{len(result) if isinstance(result, (tuple, list)) else result!r}, "
                        f"expected {len(grads)}")
    return list(result)


class BackwardHooks:
    """The backward hooks of one call of ``module`` (see the module docstring)."""

    def __init__(self, module):
        self.module = module
        self.n_inputs = 0
        self.input_tracked = []
        self.grad_outputs = None

    def setup_inputs(self, args):
        positions = [i for i, a in enumerate(args) if isinstance(a, _EmberTensor)]
        self.n_inputs = len(positions)
        tensors = [args[i] for i in positions]
        tracked = _tracked(tensors)
        self.input_tracked = tracked
        if not tracked or not self.module._backward_hooks:
            return args
        new = _through_step([tensors[k] for k in tracked], self._on_input_grads, "inputs",
                            "BackwardHookFunction")
        args = list(args)
        for k, t in zip(tracked, new):
            args[positions[k]] = as_torch(t)
        return tuple(args)

    def setup_outputs(self, result):
        single = isinstance(result, _EmberTensor)
        values = [result] if single else list(result) if isinstance(result, (tuple, list)) \
            else []
        tracked = _tracked(values)
        self.n_outputs = len(values)
        if not tracked:
            return result
        self.output_tracked = tracked
        new = _through_step([values[k] for k in tracked], self._on_output_grads, "outputs",
                            "BackwardHookFunction")
        for k, t in zip(tracked, new):
            values[k] = as_torch(t)
        if single:
            return values[0]
        return type(result)(values)

    def _on_output_grads(self, grads):
        full = [None] * self.n_outputs
        for k, g in zip(self.output_tracked, grads):
            full[k] = as_torch(g)
        for hook in list(self.module._backward_pre_hooks.values()):
            full = _replace_grads(hook(self.module, tuple(full)), full, "grad_output")
        self.grad_outputs = tuple(full)
        if not self.input_tracked or not self.module._backward_hooks:
            self._call_hooks([None] * self.n_inputs)
        return [full[k] if full[k] is not None else g
                for k, g in zip(self.output_tracked, grads)]

    def _on_input_grads(self, grads):
        full = [None] * self.n_inputs
        for k, g in zip(self.input_tracked, grads):
            full[k] = as_torch(g)
        full = self._call_hooks(full)
        return [full[k] if full[k] is not None else g.zeros_like()
                for k, g in zip(self.input_tracked, grads)]

    def _call_hooks(self, grad_input):
        grad_output = self.grad_outputs or ()
        for hook in list(self.module._backward_hooks.values()):
            grad_input = _replace_grads(hook(self.module, tuple(grad_input), grad_output),
                                        grad_input, "grad_input")
        return grad_input
