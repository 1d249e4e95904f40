"""Adadelta: steps scaled by the ratio of running root mean squares of updates and gradients."""

from ..autodiff import no_grad
from ..ops.aliasing import written
from ._compose import addcmul_sq, as_tensor, check_flags, each_step
from .optimizer import Optimizer, _check_flag, _check_number

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta, as ``torch.optim.Adadelta`` (default ``lr=1.0``).

    Each step: ``g += weight_decay * p``, ``v = rho * v + (1 - rho) * g * g``,
    ``delta = sqrt(u + eps) / sqrt(v + eps) * g``, ``u = rho * u + (1 - rho) * delta * delta``,
    ``p -= lr * delta``; ``maximize`` ascends instead. The state of each parameter is
    PyTorch's: ``step``, ``square_avg`` (v) and ``acc_delta`` (u). ``foreach``,
    ``capturable`` and ``differentiable`` are accepted, as PyTorch's, and change nothing.

    >>> import ember
    >>> from ember.optim import Adadelta
    >>> w = ember.tensor([1.0, -1.0]).require_grad()
    >>> opt = Adadelta([w], lr=1.0, rho=0.5, eps=0.01)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()                        # sqrt(0.01) / sqrt(2 + 0.01) * 2 = 0.1411
    >>> [round(x, 4) for x in w.tolist()]
    [0.8589, -0.8589]
    """

    _name = "Adadelta"
    _state_spec = {"step": ("step", True), "square_avg": ("buffer", True),
                   "acc_delta": ("buffer", True)}
    _flags = ("capturable", "foreach", "differentiable")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["rho"] = _check_number(op, "rho", group["rho"], low=0.0, high=1.0)
        group["eps"] = _check_number(op, "eps", group["eps"], low=0.0)
        group["weight_decay"] = _check_number(op, "weight_decay", group["weight_decay"], low=0.0)
        _check_flag(op, "maximize", group["maximize"])
        check_flags(op, group, self._flags)

    def _update(self, group, params, grads):
        lr, rho, eps = group["lr"], group["rho"], group["eps"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        with no_grad():
            for p, st, param, grad in each_step(self, params, grads, maximize,
                                                 square_avg=True, acc_delta=True):
                if weight_decay != 0:
                    grad = grad + param * weight_decay
                square_avg = addcmul_sq(as_tensor(st["square_avg"], p), grad, rho, 1 - rho)
                std = (square_avg + eps).sqrt()
                delta = (as_tensor(st["acc_delta"], p) + eps).sqrt() / std * grad
                acc_delta = addcmul_sq(as_tensor(st["acc_delta"], p), delta, rho, 1 - rho)
                st["square_avg"], st["acc_delta"] = square_avg._data, acc_delta._data
                p._data = (param + delta * -lr)._data
                written(p)
