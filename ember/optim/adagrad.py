from ..ops.aliasing import written
"""Adagrad: per-element learning rates from the sum of squared gradients."""

from ._compose import check_flags
from .optimizer import Optimizer, _check_flag, _check_number

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad, as ``torch.optim.Adagrad``.

    Each step ``t``: ``g += weight_decay * p``, ``sum += g * g``,
    ``p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(sum) + eps)``. The sums start at
    ``initial_accumulator_value`` when the optimizer is made (so ``state_dict()`` lists every
    parameter from the start, as PyTorch's does). ``maximize`` ascends instead.

    >>> import ember
    >>> from ember.optim import Adagrad
    >>> w = ember.tensor([1.0, -2.0]).require_grad()
    >>> opt = Adagrad([w], lr=0.5)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()                        # the first step moves each weight by lr
    >>> [round(x, 4) for x in w.tolist()]
    [0.5, -1.5]
    """

    _name = "Adagrad"
    _state_spec = {"step": ("step", True), "sum": ("buffer", True)}

    _flags = ("foreach", "differentiable", "fused")

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0,
                 initial_accumulator_value=0.0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "fused": fused}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._state[id(p)] = self._initial_state(group, p)

    def _initial_state(self, group, p):
        return {"step": 0, "sum": p._device.backend.optim_full(
            p._data, group["initial_accumulator_value"])}

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["lr_decay"] = _check_number(op, "lr_decay", group["lr_decay"], low=0.0)
        group["eps"] = _check_number(op, "eps", group["eps"], low=0.0)
        group["weight_decay"] = _check_number(op, "weight_decay", group["weight_decay"], low=0.0)
        group["initial_accumulator_value"] = _check_number(
            op, "initial_accumulator_value", group["initial_accumulator_value"], low=0.0)
        _check_flag(op, "maximize", group["maximize"])
        check_flags(op, group, self._flags)

    def _update(self, group, params, grads):
        lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        state = self._state
        for p, g in zip(params, grads):
            if g is None:
                continue
            st = state.get(id(p))
            if st is None:  # a group added after the optimizer was made
                st = state[id(p)] = self._initial_state(group, p)
            step = st["step"] + 1
            st["step"] = step
            p._data, st["sum"] = p._device.backend.optim_adagrad(
                p._data, g, st["sum"], step, lr, lr_decay, eps, weight_decay, maximize)
            written(p)
