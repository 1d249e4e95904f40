from ..ops.aliasing import written
"""Adam and AdamW: adaptive moment estimation, with L2 or decoupled weight decay and AMSGrad."""

from ._compose import check_flags
from .optimizer import Optimizer, _check_betas, _check_flag, _check_number

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam, as ``torch.optim.Adam``.

    Each step: ``g += weight_decay * p`` (L2 penalty), ``m = beta1 * m + (1 - beta1) * g``,
    ``v = beta2 * v + (1 - beta2) * g * g`` (with ``amsgrad``, the running maximum of ``v`` is
    used below), then ``p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``.
    The parameter tensor is rebound to its new value (see ``Optimizer``).

    >>> import ember
    >>> from ember.optim import Adam
    >>> w = ember.tensor([1.0, -1.0]).require_grad()
    >>> opt = Adam([w], lr=0.1)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()                        # the first step moves each weight by about lr
    >>> [round(x, 4) for x in w.tolist()]
    [0.9, -0.9]
    """

    _name = "Adam"
    _flags = ("foreach", "capturable", "differentiable", "fused")
    _state_spec = {"step": ("step", True), "exp_avg": ("buffer", True),
                   "exp_avg_sq": ("buffer", True), "max_exp_avg_sq": ("buffer", "amsgrad")}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["betas"] = _check_betas(op, group["betas"])
        group["eps"] = _check_number(op, "eps", group["eps"], low=0.0)
        group["weight_decay"] = _check_number(op, "weight_decay", group["weight_decay"], low=0.0)
        _check_flag(op, "amsgrad", group["amsgrad"])
        _check_flag(op, "maximize", group["maximize"])
        _check_flag(op, "decoupled_weight_decay", group["decoupled_weight_decay"])
        check_flags(op, group, self._flags)

    def _update(self, group, params, grads):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, amsgrad, maximize = group["weight_decay"], group["amsgrad"], group["maximize"]
        decoupled = group["decoupled_weight_decay"]
        for p, g in zip(params, grads):
            if g is None:
                continue
            data = p._data
            be = p._device.backend
            zeros = be.optim_zeros
            st = self._state_of(p, exp_avg=True, exp_avg_sq=True)
            if amsgrad and st.get("max_exp_avg_sq") is None:
                st["max_exp_avg_sq"] = zeros(data)
            step = st["step"] + 1
            st["step"] = step
            p._data, st["exp_avg"], st["exp_avg_sq"], vmax = be.optim_adam(
                data, g, st["exp_avg"], st["exp_avg_sq"],
                st.get("max_exp_avg_sq") if amsgrad else None, step, lr, beta1, beta2, eps,
                weight_decay, decoupled, amsgrad, maximize)
            if amsgrad:
                st["max_exp_avg_sq"] = vmax
            written(p)


class AdamW(Adam):
    """AdamW, as ``torch.optim.AdamW``: Adam with decoupled weight decay, ``p *= 1 - lr *
    weight_decay`` before the Adam update (default ``weight_decay=1e-2``).

    >>> import ember
    >>> from ember.optim import AdamW
    >>> w = ember.tensor([2.0]).require_grad()
    >>> opt = AdamW([w], lr=0.1, weight_decay=0.5)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()                        # 2 * (1 - 0.05) - 0.1
    >>> round(w.item(), 4)
    1.8
    """

    _name = "AdamW"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
