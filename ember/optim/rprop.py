"""Rprop: per-element step sizes that grow while a gradient keeps its sign and shrink when it
flips; only the sign of the gradient moves the parameter."""

from ..autodiff import no_grad
from ..errors import InvalidParameterError
from ..ops.masking import where
from ..ops.aliasing import written
from ._compose import as_tensor, check_flags
from .optimizer import Optimizer, _check_flag, _check_number

__all__ = ["Rprop"]


def _check_pair(op, name, value, text):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise InvalidParameterError(f"{op}: {name} is {value!r}; expected a pair {text}", name,
                                    value)
    return tuple(_check_number(op, name, v, low=0.0, text=f"a pair {text} ({name}[{i}] is "
                               f"{v!r})") for i, v in enumerate(value))


class Rprop(Optimizer):
    """Resilient backpropagation, as ``torch.optim.Rprop``.

    Each step, elementwise: where ``g * prev > 0`` the step size is multiplied by ``etas[1]``,
    where ``g * prev < 0`` by ``etas[0]`` (and ``g`` is taken as 0 for this step), then clamped
    to ``step_sizes``; ``p -= sign(g) * step_size`` and ``prev = g``. The step sizes start at
    ``lr``. ``maximize`` ascends instead. The state is PyTorch's: ``step``, ``prev`` and
    ``step_size``. ``foreach``, ``capturable`` and ``differentiable`` are accepted and change
    nothing.

    >>> import ember
    >>> from ember.optim import Rprop
    >>> w = ember.tensor([1.0, -1.0]).require_grad()
    >>> opt = Rprop([w], lr=0.1)
    >>> for _ in range(2):
    ...     opt.zero_grad()
    ...     _ = (w * w).sum().backward()
    ...     _ = opt.step()                    # steps of 0.1, then 0.1 * 1.2
    >>> [round(x, 4) for x in w.tolist()]
    [0.78, -0.78]
    """

    _name = "Rprop"
    _state_spec = {"step": ("step", True), "prev": ("buffer", True),
                   "step_size": ("buffer", True)}
    _flags = ("foreach", "differentiable", "capturable")

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        text = "(etaminus, etaplus) with 0 < etaminus < 1 < etaplus"
        etas = _check_pair(op, "etas", group["etas"], text)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise InvalidParameterError(f"{op}: etas is {group['etas']!r}; expected {text}",
                                        "etas", group["etas"])
        text = "(min, max) of numbers >= 0 with min <= max"
        sizes = _check_pair(op, "step_sizes", group["step_sizes"], text)
        if sizes[0] > sizes[1]:
            raise InvalidParameterError(f"{op}: step_sizes is {group['step_sizes']!r}; expected "
                                        f"{text}", "step_sizes", group["step_sizes"])
        group["etas"], group["step_sizes"] = etas, sizes
        _check_flag(op, "maximize", group["maximize"])
        check_flags(op, group, self._flags)

    def _update(self, group, params, grads):
        (etaminus, etaplus), (size_min, size_max) = group["etas"], group["step_sizes"]
        maximize = group["maximize"]
        with no_grad():
            for p, g in zip(params, grads):
                if g is None:
                    continue
                st = self._state.get(id(p))
                if st is None:
                    st = self._state_of(p, prev=True, step_size=p._device.backend.optim_full(
                        p._data, group["lr"]))
                st["step"] += 1
                param, grad = as_tensor(p._data, p), as_tensor(g, p)
                if maximize:
                    grad = -grad
                sign = (grad * as_tensor(st["prev"], p)).sign()
                # etaplus where the gradient kept its sign, etaminus where it flipped, 1 where
                # either is zero (NaN stays NaN), as PyTorch's masked writes
                factor = where(sign == 0, 1.0, sign)
                factor = where(sign > 0, etaplus, factor)
                factor = where(sign < 0, etaminus, factor)
                step_size = (as_tensor(st["step_size"], p) * factor).clamp(size_min, size_max)
                grad = where(sign < 0, 0.0, grad)
                st["prev"], st["step_size"] = grad._data, step_size._data
                p._data = (param - grad.sign() * step_size)._data
                written(p)
