"""RAdam: Adam with the variance of its adaptive rate rectified in the first steps."""

from ..autodiff import no_grad
from ..ops.aliasing import written
from ._compose import addcmul_sq, as_tensor, check_flags, each_step, lerp
from .optimizer import Optimizer, _check_betas, _check_flag, _check_number

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam, as ``torch.optim.RAdam``.

    Each step: ``g += weight_decay * p`` (or, with ``decoupled_weight_decay``, ``p *= 1 - lr *
    weight_decay``), ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 * v + (1 - beta2) * g * g``;
    with ``rho_inf = 2 / (1 - beta2) - 1`` and ``rho_t = rho_inf - 2 t beta2**t / (1 -
    beta2**t)``, the step is ``lr * m / (1 - beta1**t) * r * sqrt(1 - beta2**t) / (sqrt(v) +
    eps)`` when ``rho_t > 5`` (``r`` the rectification term) and ``lr * m / (1 - beta1**t)``
    before. The state is PyTorch's: ``step``, ``exp_avg``, ``exp_avg_sq``. ``foreach``,
    ``capturable`` and ``differentiable`` are accepted and change nothing.

    >>> import ember
    >>> from ember.optim import RAdam
    >>> w = ember.tensor([1.0, -1.0]).require_grad()
    >>> opt = RAdam([w], lr=0.1)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()                        # rho_t = 1: an SGD-with-momentum step, lr * g
    >>> [round(x, 4) for x in w.tolist()]
    [0.8, -0.8]
    """

    _name = "RAdam"
    _state_spec = {"step": ("step", True), "exp_avg": ("buffer", True),
                   "exp_avg_sq": ("buffer", True)}
    _flags = ("foreach", "capturable", "differentiable")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["betas"] = _check_betas(op, group["betas"])
        group["eps"] = _check_number(op, "eps", group["eps"], low=0.0)
        group["weight_decay"] = _check_number(op, "weight_decay", group["weight_decay"], low=0.0)
        _check_flag(op, "decoupled_weight_decay", group["decoupled_weight_decay"])
        _check_flag(op, "maximize", group["maximize"])
        check_flags(op, group, self._flags)

    def _update(self, group, params, grads):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        decoupled = group["decoupled_weight_decay"]
        with no_grad():
            for p, st, param, grad in each_step(self, params, grads, maximize,
                                                 exp_avg=True, exp_avg_sq=True):
                step = st["step"]
                if weight_decay != 0:
                    if decoupled:
                        param = param * (1 - lr * weight_decay)
                    else:
                        grad = grad + param * weight_decay
                exp_avg = lerp(as_tensor(st["exp_avg"], p), grad, 1 - beta1)
                exp_avg_sq = addcmul_sq(as_tensor(st["exp_avg_sq"], p), grad, beta2, 1 - beta2)
                st["exp_avg"], st["exp_avg_sq"] = exp_avg._data, exp_avg_sq._data
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                corrected = exp_avg / bias_correction1
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                            / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    adaptive = bias_correction2 ** 0.5 / (exp_avg_sq.sqrt() + eps)
                    param = param - corrected * lr * adaptive * rect
                else:
                    param = param - corrected * lr
                p._data = param._data
                written(p)
