"""Adafactor: Adam-like steps whose second moment of a matrix is kept as its row and column
means (sublinear memory), with relative step sizes and update clipping."""

from ..autodiff import no_grad
from ..errors import InvalidParameterError, ShapeMismatchError
from ..ops.aliasing import written
from ._compose import as_tensor, check_flags, lerp
from .optimizer import Optimizer, _check_flag, _check_number, _import_buffer

__all__ = ["Adafactor"]

# the machine epsilon of each float dtype: eps1's default, as PyTorch's finfo(dtype).eps
_EPS = {"float64": 2.0 ** -52, "float32": 2.0 ** -23, "float16": 2.0 ** -10,
        "bfloat16": 2.0 ** -7}


def _factored_shapes(shape):
    """The shapes of ``row_var`` and ``col_var`` of a parameter of ``shape`` (ndim >= 2)."""
    return shape[:-1] + (1,), shape[:-2] + (1,) + shape[-1:]


class Adafactor(Optimizer):
    """Adafactor, as ``torch.optim.Adafactor`` (default ``lr=1e-2``).

    Each step ``t``: ``beta2_t = 1 - t**beta2_decay``, ``rho = min(lr, 1 / sqrt(t))``,
    ``alpha = max(eps2, RMS(p)) * rho``, ``p *= 1 - lr * weight_decay``. A parameter of two or
    more dims keeps the running row and column means of ``g * g`` (``row_var``, ``col_var``)
    and estimates ``v = row_var @ col_var / max(mean(row_var), eps1)``; a vector (or 0-d)
    keeps ``variance``, the running ``g * g``. Then ``u = g / max(sqrt(v), eps1)``, clipped to
    RMS ``d``, and ``p -= alpha * u``. ``eps1`` None means the machine epsilon of the
    parameter's dtype. ``maximize`` ascends instead; ``foreach`` is accepted and changes
    nothing. A parameter with no elements keeps its state and step count (PyTorch divides by
    its zero size).

    >>> import ember
    >>> from ember.optim import Adafactor
    >>> w = ember.tensor([3.0, -4.0]).require_grad()
    >>> opt = Adafactor([w], lr=0.1)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()                # alpha = RMS(w) * 0.1; u = sign(g), of RMS 1
    >>> [round(x, 4) for x in w.tolist()]
    [2.6464, -3.6464]
    """

    _name = "Adafactor"
    _state_spec = {"step": ("step", True), "row_var": ("buffer", False),
                   "col_var": ("buffer", False), "variance": ("buffer", False)}

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["beta2_decay"] = _check_number(op, "beta2_decay", group["beta2_decay"], high=0.0)
        eps = group["eps"]
        text = "a pair (eps1, eps2): eps1 None or a number >= 0, eps2 a number >= 0"
        if not isinstance(eps, (tuple, list)) or len(eps) != 2:
            raise InvalidParameterError(f"{op}: eps is {eps!r}; expected {text}", "eps", eps)
        group["eps"] = (None if eps[0] is None else _check_number(op, "eps", eps[0], low=0.0,
                                                                   text=text),
                        _check_number(op, "eps", eps[1], low=0.0, text=text))
        group["d"] = _check_number(op, "d", group["d"], low=1.0)
        group["weight_decay"] = _check_number(op, "weight_decay", group["weight_decay"], low=0.0)
        _check_flag(op, "maximize", group["maximize"])
        check_flags(op, group, ("foreach",))

    def _import_state(self, op, index, p, entry, group):
        """The base class checks ``step`` and ``variance``; ``row_var`` and ``col_var`` have
        the factored shapes of ``p``, and a state holds the ones its parameter's rank needs."""
        if not isinstance(entry, dict) or not entry:
            return super()._import_state(op, index, p, entry, group)
        where = f"state of parameter {index}"
        factored = p.ndim > 1
        need = ["row_var", "col_var"] if factored else ["variance"]
        missing = [k for k in ["step"] + need if entry.get(k) is None]
        extra = [k for k in ("row_var", "col_var", "variance")
                 if k not in need and entry.get(k) is not None]
        if missing or extra:
            raise InvalidParameterError(
                f"{op}: {where} (a parameter of {p.ndim} dims) holds "
                f"{sorted(k for k in entry if entry[k] is not None)}; expected 'step' and "
                f"{need}", "state_dict", missing or extra)
        out = super()._import_state(op, index, p, {k: v for k, v in entry.items()
                                                    if k not in ("row_var", "col_var")}, group)
        if factored:
            for name, shape in zip(("row_var", "col_var"), _factored_shapes(tuple(p.shape))):
                value = entry[name]
                if getattr(value, "shape", None) is not None and tuple(value.shape) != shape:
                    raise ShapeMismatchError(
                        f"{op}: {where}: {name!r} has shape {tuple(value.shape)}, expected "
                        f"{shape}", expected=shape, actual=tuple(value.shape))
                out[name] = _import_buffer(op, f"{where}: {name!r}", _Shaped(p, shape), value)
        return {k: out[k] for k in ("step", "row_var", "col_var", "variance") if k in out}

    def _update(self, group, params, grads):
        lr, beta2_decay, (eps1, eps2) = group["lr"], group["beta2_decay"], group["eps"]
        d, weight_decay, maximize = group["d"], group["weight_decay"], group["maximize"]
        with no_grad():
            for p, g in zip(params, grads):
                if g is None:
                    continue
                self._step_one(p, g, lr, beta2_decay, eps1, eps2, d, weight_decay, maximize)

    def _step_one(self, p, g, lr, beta2_decay, eps1, eps2, d, weight_decay, maximize):
        zeros = p._device.backend.optim_zeros
        shape = tuple(p.shape)
        if p.ndim > 1:
            rows, cols = _factored_shapes(shape)
            st = self._state_of(p)
            if st.get("row_var") is None:
                like = as_tensor(zeros(p._data), p)
                st["row_var"] = like.sum(dim=-1, keepdim=True)._data
                st["col_var"] = like.sum(dim=-2, keepdim=True)._data
        else:
            st = self._state_of(p, variance=True)
        st["step"] += 1
        if p.numel() == 0:
            return
        if eps1 is None:
            eps1 = _EPS[p.dtype.name]
        step = float(st["step"])
        param, grad = as_tensor(p._data, p), as_tensor(g, p)
        if maximize:
            grad = -grad
        one_minus_beta2_t = step ** beta2_decay
        rho_t = min(lr, 1 / (step ** 0.5))
        alpha = max(eps2, param.norm().item() / (p.numel() ** 0.5)) * rho_t
        if weight_decay != 0:
            param = param * (1 - lr * weight_decay)
        if p.ndim > 1:
            row_norm = grad.norm(dim=-1, keepdim=True)
            row_var = lerp(as_tensor(st["row_var"], p), row_norm * row_norm / shape[-1],
                           one_minus_beta2_t)
            col_norm = grad.norm(dim=-2, keepdim=True)
            col_var = lerp(as_tensor(st["col_var"], p), col_norm * col_norm / shape[-2],
                           one_minus_beta2_t)
            st["row_var"], st["col_var"] = row_var._data, col_var._data
            var_estimate = row_var.matmul(col_var) / row_var.mean(dim=-2, keepdim=True).clamp(
                min=eps1)
        else:
            var_estimate = lerp(as_tensor(st["variance"], p), grad * grad, one_minus_beta2_t)
            st["variance"] = var_estimate._data
        update = var_estimate.clamp(min=eps1 * eps1).rsqrt() * grad
        denom = max(1.0, update.norm().item() / ((p.numel() ** 0.5) * d))
        p._data = (param + update * (-alpha / denom))._data
        written(p)


class _Shaped:
    """A stand-in for a parameter with another shape (its device and dtype), for loading a
    factored buffer with the base class's checks."""

    def __init__(self, p, shape):
        self.shape, self._device, self._data = shape, p._device, p._data

