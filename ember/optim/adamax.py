"""Adamax: Adam with the infinity norm of past gradients in place of their second moment."""

from ..autodiff import no_grad
from ..ops.aliasing import written
from ._compose import as_tensor, check_flags, each_step, lerp
from .optimizer import Optimizer, _check_betas, _check_flag, _check_number

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax, as ``torch.optim.Adamax`` (default ``lr=2e-3``).

    Each step: ``g += weight_decay * p``, ``m = lerp(m, g, 1 - beta1)``,
    ``u = max(beta2 * u, |g| + eps)``, ``p -= lr / (1 - beta1**t) * m / u``; ``maximize``
    ascends instead. The state is PyTorch's: ``step``, ``exp_avg`` (m) and ``exp_inf`` (u).
    ``foreach``, ``capturable`` and ``differentiable`` are accepted and change nothing.

    >>> import ember
    >>> from ember.optim import Adamax
    >>> w = ember.tensor([1.0, -1.0]).require_grad()
    >>> opt = Adamax([w], lr=0.1)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()                        # the first step moves each weight by about lr
    >>> [round(x, 4) for x in w.tolist()]
    [0.9, -0.9]
    """

    _name = "Adamax"
    _state_spec = {"step": ("step", True), "exp_avg": ("buffer", True),
                   "exp_inf": ("buffer", True)}
    _flags = ("foreach", "differentiable", "capturable")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["betas"] = _check_betas(op, group["betas"])
        group["eps"] = _check_number(op, "eps", group["eps"], low=0.0)
        group["weight_decay"] = _check_number(op, "weight_decay", group["weight_decay"], low=0.0)
        _check_flag(op, "maximize", group["maximize"])
        check_flags(op, group, self._flags)

    def _update(self, group, params, grads):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        with no_grad():
            for p, st, param, grad in each_step(self, params, grads, maximize,
                                                 exp_avg=True, exp_inf=True):
                if weight_decay != 0:
                    grad = grad + param * weight_decay
                exp_avg = lerp(as_tensor(st["exp_avg"], p), grad, 1 - beta1)
                exp_inf = (as_tensor(st["exp_inf"], p) * beta2).maximum(grad.abs() + eps)
                clr = lr / (1 - beta1 ** st["step"])
                st["exp_avg"], st["exp_inf"] = exp_avg._data, exp_inf._data
                p._data = (param + exp_avg * -clr / exp_inf)._data
                written(p)
