"""NAdam: Adam with Nesterov momentum (Dozat, 2016), with L2 or decoupled weight decay."""

from ..ops.aliasing import written
from ._compose import check_flags
from .optimizer import Optimizer, _check_betas, _check_flag, _check_number

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam, as ``torch.optim.NAdam``.

    Each step ``t``: the momentum coefficient ``mu_t = beta1 * (1 - 0.5 * 0.96 **
    (t * momentum_decay))`` and ``mu_product`` (the product of ``mu_1 .. mu_t``); Adam's moments
    ``m`` and ``v``; then ``p -= lr * ((1 - mu_t) / (1 - mu_product) * g + mu_{t+1} /
    (1 - mu_product * mu_{t+1}) * m) / (sqrt(v / (1 - beta2**t)) + eps)``. ``weight_decay``
    adds ``weight_decay * p`` to the gradient, or with ``decoupled_weight_decay=True`` (as
    AdamW) multiplies ``p`` by ``1 - lr * weight_decay`` first. ``mu_product`` is rounded to
    float32 at each step, as PyTorch keeps it in a float32 tensor.

    >>> import ember
    >>> from ember.optim import NAdam
    >>> w = ember.tensor([1.0, -1.0]).require_grad()
    >>> opt = NAdam([w], lr=0.1)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()
    >>> [round(x, 4) for x in w.tolist()]
    [0.8944, -0.8944]
    """

    _name = "NAdam"
    _flags = ("foreach", "capturable", "differentiable")
    _state_spec = {"step": ("step", True), "mu_product": ("fraction", True),
                   "exp_avg": ("buffer", True), "exp_avg_sq": ("buffer", True)}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay,
                    "decoupled_weight_decay": decoupled_weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["betas"] = _check_betas(op, group["betas"])
        group["eps"] = _check_number(op, "eps", group["eps"], low=0.0)
        group["weight_decay"] = _check_number(op, "weight_decay", group["weight_decay"], low=0.0)
        group["momentum_decay"] = _check_number(op, "momentum_decay", group["momentum_decay"],
                                                low=0.0)
        _check_flag(op, "decoupled_weight_decay", group["decoupled_weight_decay"])
        _check_flag(op, "maximize", group["maximize"])
        check_flags(op, group, self._flags)

    def _update(self, group, params, grads):
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
        decoupled, maximize = group["decoupled_weight_decay"], group["maximize"]
        for p, g in zip(params, grads):
            if g is None:
                continue
            data = p._data
            be = p._device.backend
            st = self._state_of(p, mu_product=1.0, exp_avg=True, exp_avg_sq=True)
            step = st["step"] + 1
            st["step"] = step
            p._data, st["exp_avg"], st["exp_avg_sq"], st["mu_product"] = be.optim_nadam(
                data, g, st["exp_avg"], st["exp_avg_sq"], st["mu_product"], step, lr, beta1,
                beta2, eps, weight_decay, momentum_decay, decoupled, maximize)
            written(p)
