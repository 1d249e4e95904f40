"""ASGD: stochastic gradient descent with a decaying step and a running average of the iterates."""

from ..autodiff import no_grad
from ..errors import InvalidParameterError
from ..ops.aliasing import written
from ._compose import as_tensor, check_flags, each_step, float32
from .optimizer import Optimizer, _check_flag, _check_number, saved_scalar

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged stochastic gradient descent, as ``torch.optim.ASGD``.

    Each step ``t``: ``g += weight_decay * p``, ``p *= 1 - lambd * eta``, ``p -= eta * g``; the
    average ``ax`` becomes ``p`` while ``mu`` is 1, else ``ax += mu * (p - ax)``; then
    ``eta = lr / (1 + lambd * lr * t)**alpha`` and ``mu = 1 / max(1, t - t0)``. ``maximize``
    ascends instead. The state is PyTorch's: ``step``, ``eta``, ``mu`` (floats, rounded to
    float32 as PyTorch keeps them) and ``ax``, the averaged parameter. ``foreach``,
    ``capturable`` and ``differentiable`` are accepted and change nothing.

    >>> import ember
    >>> from ember.optim import ASGD
    >>> w = ember.tensor([1.0, -1.0]).require_grad()
    >>> opt = ASGD([w], lr=0.25, lambd=0.0)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()
    >>> w.tolist(), opt.state[w]["ax"].tolist()
    ([0.5, -0.5], [0.5, -0.5])
    """

    _name = "ASGD"
    _state_spec = {"step": ("step", True), "eta": ("rate", False), "mu": ("fraction", True),
                   "ax": ("buffer", True)}
    _flags = ("foreach", "differentiable", "capturable")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["lambd"] = _check_number(op, "lambd", group["lambd"], low=0.0)
        group["alpha"] = _check_number(op, "alpha", group["alpha"], low=0.0)
        group["t0"] = _check_number(op, "t0", group["t0"])
        group["weight_decay"] = _check_number(op, "weight_decay", group["weight_decay"], low=0.0)
        _check_flag(op, "maximize", group["maximize"])
        check_flags(op, group, self._flags)

    def _import_state(self, op, index, p, entry, group):
        """The base class checks ``step``, ``mu`` and ``ax``; ``eta`` is a rate >= 0."""
        if not isinstance(entry, dict) or not entry:
            return super()._import_state(op, index, p, entry, group)
        where = f"state of parameter {index}"
        missing = [k for k in ("step", "eta", "mu", "ax") if entry.get(k) is None]
        if missing:
            raise InvalidParameterError(f"{op}: {where} lacks {missing}; a saved state of this "
                                        "group holds ['step', 'eta', 'mu', 'ax'] (an empty "
                                        "state starts afresh)", "state_dict", missing)
        eta = _check_number(op, f"{where}: 'eta'", saved_scalar(entry["eta"]), low=0.0)
        out = super()._import_state(op, index, p,
                                    {k: v for k, v in entry.items() if k != "eta"}, group)
        return {"step": out["step"], "eta": eta, "mu": out["mu"], "ax": out["ax"]}

    def _update(self, group, params, grads):
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        weight_decay, maximize = group["weight_decay"], group["maximize"]
        with no_grad():
            for p, st, param, grad in each_step(self, params, grads, maximize,
                                                 eta=float32(lr), mu=1.0, ax=True):
                step = st["step"]
                if weight_decay != 0:
                    grad = grad + param * weight_decay
                eta, mu = st["eta"], st["mu"]
                param = param * (1 - lambd * eta)
                param = param + grad * -eta
                if mu != 1:
                    ax = as_tensor(st["ax"], p)
                    st["ax"] = (ax + (param - ax) * mu)._data
                else:
                    st["ax"] = param._data
                st["eta"] = float32(lr / ((1 + lambd * lr * step) ** alpha))
                st["mu"] = float32(1 / max(1, step - t0))
                p._data = param._data
                written(p)
