from ..ops.aliasing import written
"""RMSprop: gradients scaled by a running root mean square, with momentum and centering."""

from ._compose import check_flags
from .optimizer import Optimizer, _check_flag, _check_number

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, as ``torch.optim.RMSprop``.

    Each step: ``g += weight_decay * p``, ``v = alpha * v + (1 - alpha) * g * g``; with
    ``centered``, ``ga = lerp(ga, g, 1 - alpha)`` and ``avg = sqrt(v - ga * ga) + eps``, else
    ``avg = sqrt(v) + eps``; with momentum, ``buf = momentum * buf + g / avg`` and
    ``p -= lr * buf``, else ``p -= lr * g / avg``. ``maximize`` ascends instead.

    >>> import ember
    >>> from ember.optim import RMSprop
    >>> w = ember.tensor([1.0, -1.0]).require_grad()
    >>> opt = RMSprop([w], lr=0.01)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()                        # g / sqrt(0.01 * g * g) = 10 * sign(g)
    >>> [round(x, 4) for x in w.tolist()]
    [0.9, -0.9]
    """

    _name = "RMSprop"
    _state_spec = {"step": ("step", True), "square_avg": ("buffer", True),
                   "momentum_buffer": ("buffer", "momentum"), "grad_avg": ("buffer", "centered")}

    _flags = ("capturable", "foreach", "differentiable")

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                    "centered": centered, "weight_decay": weight_decay, "capturable": capturable,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["alpha"] = _check_number(op, "alpha", group["alpha"], low=0.0)
        group["eps"] = _check_number(op, "eps", group["eps"], low=0.0)
        group["weight_decay"] = _check_number(op, "weight_decay", group["weight_decay"], low=0.0)
        group["momentum"] = _check_number(op, "momentum", group["momentum"], low=0.0)
        _check_flag(op, "centered", group["centered"])
        _check_flag(op, "maximize", group["maximize"])
        check_flags(op, group, self._flags)

    def _update(self, group, params, grads):
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        weight_decay, momentum = group["weight_decay"], group["momentum"]
        centered, maximize = group["centered"], group["maximize"]
        for p, g in zip(params, grads):
            if g is None:
                continue
            data = p._data
            be = p._device.backend
            zeros = be.optim_zeros
            st = self._state_of(p, square_avg=True)
            if momentum > 0 and st.get("momentum_buffer") is None:
                st["momentum_buffer"] = zeros(data)
            if centered and st.get("grad_avg") is None:
                st["grad_avg"] = zeros(data)
            st["step"] += 1
            p._data, st["square_avg"], grad_avg, buf = be.optim_rmsprop(
                data, g, st["square_avg"], st.get("grad_avg"), st.get("momentum_buffer"), lr,
                alpha, eps, weight_decay, momentum, centered, maximize)
            if centered:
                st["grad_avg"] = grad_avg
            if momentum > 0:
                st["momentum_buffer"] = buf
            written(p)
