"""Stochastic gradient descent with momentum, dampening, Nesterov momentum and weight decay."""

from ..errors import InvalidParameterError
from ..ops.aliasing import written
from ._compose import check_flags
from .optimizer import Optimizer, _check_flag, _check_number

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, as ``torch.optim.SGD``.

    Each step, for each parameter ``p`` with gradient ``g``: ``g += weight_decay * p``; with
    momentum, ``buf = momentum * buf + (1 - dampening) * g`` (``buf = g`` on the first step) and
    ``g = g + momentum * buf`` (Nesterov) or ``g = buf``; then ``p -= lr * g``. ``maximize``
    ascends instead. The parameter tensor is rebound to its new value, a new array (see
    ``Optimizer``).

    >>> import ember
    >>> from ember.optim import SGD
    >>> w = ember.tensor([1.0, -2.0]).require_grad()
    >>> opt = SGD([w], lr=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     opt.zero_grad()
    ...     _ = (w * w).sum().backward()       # gradient 2 * w
    ...     _ = opt.step()
    >>> [round(x, 4) for x in w.tolist()]
    [0.46, -0.92]
    """

    _name = "SGD"
    _state_spec = {"momentum_buffer": ("buffer", False)}  # made at the next step, as PyTorch's

    _flags = ("foreach", "differentiable", "fused")

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["momentum"] = _check_number(op, "momentum", group["momentum"], low=0.0)
        group["dampening"] = _check_number(op, "dampening", group["dampening"], low=0.0, high=1.0)
        group["weight_decay"] = _check_number(op, "weight_decay", group["weight_decay"], low=0.0)
        _check_flag(op, "nesterov", group["nesterov"])
        _check_flag(op, "maximize", group["maximize"])
        check_flags(op, group, self._flags)
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise InvalidParameterError(
                f"{op}: nesterov=True needs momentum > 0 and dampening == 0, got momentum="
                f"{group['momentum']!r}, dampening={group['dampening']!r}", "nesterov", True)

    def _update(self, group, params, grads):
        lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
        nesterov, maximize = group["nesterov"], group["maximize"]
        weight_decay = group["weight_decay"]
        state = self._state
        for p, g in zip(params, grads):
            if g is None:
                continue
            st = state.get(id(p))
            if st is None:
                st = state[id(p)] = {"momentum_buffer": None}
            new, buf = p._device.backend.optim_sgd(p._data, g, st["momentum_buffer"], lr, momentum, dampening,
                              nesterov, weight_decay, maximize)
            st["momentum_buffer"] = buf
            p._data = new
            written(p)
