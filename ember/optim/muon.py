"""Muon: momentum whose update is orthogonalised by a Newton-Schulz iteration, for the 2-D
weights of hidden layers."""

import math
import numbers
import operator

from .. import dtypes
from ..autodiff import no_grad
from ..errors import DimensionError, InvalidParameterError, KindError
from ..ops.masking import where
from .._tensor import Tensor
from ..ops.aliasing import written
from ._compose import as_tensor, float32
from .optimizer import Optimizer, _check_flag, _check_number

__all__ = ["Muon"]

_ADJUST = (None, "original", "match_rms_adamw")
# Veltkamp's splitting constants: 2**ceil(p/2) + 1 for a p-bit significand
_SPLIT = {"float64": 2.0 ** 27 + 1, "float32": 2.0 ** 12 + 1}


def _fma(a, b, c, split):
    """``a * b + c`` rounded once, as a fused multiply-add: the product's rounding error comes
    from Dekker's exact product and the sum's from Knuth's two-sum, and both are added back."""
    p = a * b
    ah = a * split
    ah = ah - (ah - a)
    bh = b * split
    bh = bh - (bh - b)
    err = ((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)
    s = c + p
    back = s - c
    return s + (((c - (s - back)) + (p - back)) + err)


def fused_lerp(start, end, weight):
    """``start.lerp(end, weight)`` (a Python-float weight) rounded as PyTorch's CPU kernel
    rounds it, with one fused multiply-add: ``fma(w, end - start, start)`` for ``|w| < 0.5``,
    else ``fma(w - 1, end - start, end)``; float16 and bfloat16 are computed in float32. Muon
    needs these last bits: its bfloat16 Newton-Schulz step would round a one-bit difference of
    the momentum to a visible one.

    >>> import ember
    >>> fused_lerp(ember.tensor([0.0, 1.0]), ember.tensor([4.0, 3.0]), 0.75).tolist()
    [3.0, 2.5]
    """
    dtype = start.dtype.name
    if dtype not in _SPLIT:
        return fused_lerp(start.cast("float32"), end.cast("float32"), weight).cast(dtype)
    w = float32(weight) if dtype == "float32" else float(weight)
    diff = end - start
    if abs(w) < 0.5:
        return _fma(diff, w, start, _SPLIT[dtype])
    return _fma(diff, w - 1.0, end, _SPLIT[dtype])


def _has_bfloat16(t):
    """Whether ``t``'s device has the bfloat16 dtype (array-api-strict has none)."""
    try:
        t.device.backend.native_dtype(dtypes.bfloat16)
    except KindError:
        return False
    return True


_BF16_MAX = (2 - 2.0 ** -7) * 2.0 ** 127


def _round_bf16(t, native):
    """``t`` rounded once to bfloat16 (to nearest, ties to even): a bfloat16 tensor where the
    device has the dtype (``native``), else float32 holding the same values (each exact in
    float32), rounded in float64 at the spacing of bfloat16 numbers near each value."""
    if native:
        return t.cast("bfloat16")
    x = t.cast("float64")
    a = x.abs()
    finite = a.isfinite() & (a > 0)
    a = where(finite, a, 1.0)
    e = a.log2().floor()  # corrected where log2 rounds across a power of two
    e = where(a < 2.0 ** e, e - 1, where(a >= 2.0 ** (e + 1), e + 1, e))
    ulp = 2.0 ** (e.clamp(-126, None) - 7)  # bfloat16: 8 significant bits, subnormals below 2**-126
    r = (x / ulp).round() * ulp
    r = where(r.abs() > _BF16_MAX, r.sign() * math.inf, r)
    return where(finite, r, x).cast("float32")


def newton_schulz(update, coefficients, steps, eps):
    """``steps`` iterations of the quintic Newton-Schulz map on ``update`` (a 2-D tensor),
    which drive its singular values towards 1: with ``X = update / max(|update|_F, eps)`` (taken
    on the wide side, ``X`` transposed when it has more rows than columns),
    ``A = X Xᵀ``, ``B = b A + c A A``, ``X = a X + B X``.

    As PyTorch's Muon, the iterate is kept in bfloat16 (the result is a bfloat16 tensor, or
    float32 holding bfloat16 values on a device without bfloat16): each of ``A``, ``B`` and
    ``X`` is computed in float64 and rounded to bfloat16 once. This gives PyTorch's bits
    except where a value falls within PyTorch's float32 rounding of a tie between two bfloat16
    numbers (about one call in 400 on random input, measured), where one entry differs by one
    bfloat16 step.

    >>> import ember
    >>> x = newton_schulz(ember.tensor([[3.0, 0.0], [0.0, 0.5]]), (3.4445, -4.775, 2.0315), 5,
    ...                   1e-7)
    >>> x.dtype.name, [[round(v, 1) for v in row] for row in x.tolist()]  # singular values near 1
    ('bfloat16', [[0.7, 0.0], [0.0, 1.0]])
    """
    a, b, c = coefficients
    native = _has_bfloat16(update)

    def bf16(t):
        return _round_bf16(t, native)
    x = bf16(update)
    wide = x.shape[0] <= x.shape[1]
    if not wide:
        x = x.mT
    wide64 = x.cast("float64")
    norm = bf16((wide64 * wide64).sum().sqrt()).cast("float64")
    x = bf16(wide64 / bf16(norm.clamp(eps, None)).cast("float64"))
    for _ in range(steps):
        x64 = x.cast("float64")
        gram = bf16(x64.matmul(x64.mT)).cast("float64")
        poly = bf16(gram * b + gram.matmul(gram) * c).cast("float64")
        x = bf16(x64 * a + poly.matmul(x64))
    return x if wide else x.mT


def _check_coefficients(op, value):
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        raise InvalidParameterError(f"{op}: ns_coefficients is {value!r}; expected a tuple of "
                                    "three numbers (a, b, c)", "ns_coefficients", value)
    return tuple(_check_number(op, "ns_coefficients", v, text=f"three finite numbers "
                               f"(ns_coefficients[{i}] is {v!r})") for i, v in enumerate(value))


def _check_ns_steps(op, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(f"{op}: ns_steps must be an int, got "
                                    f"{type(value).__name__} {value!r}", "ns_steps", value)
    n = operator.index(value)
    if not 0 <= n < 100:
        raise InvalidParameterError(f"{op}: ns_steps is {n}; expected an int in [0, 100)",
                                    "ns_steps", value)
    return n


class Muon(Optimizer):
    """Muon, as ``torch.optim.Muon``: for 2-D parameters only (the weights of hidden layers;
    optimize biases and embeddings with another optimizer such as AdamW).

    Each step: ``B = lerp(B, g, 1 - momentum)``; the update is ``U = lerp(g, B, momentum)``
    with ``nesterov``, else ``B``; ``O = newton_schulz(U, ns_coefficients, ns_steps, eps)``
    (computed in bfloat16, as PyTorch's; ``eps`` is a floor of the norm that scales ``U``,
    as in PyTorch's implementation); ``p *= 1 - lr * weight_decay``; then
    ``p -= lr' * O`` with ``lr'`` the adjusted rate for a parameter of ``A`` rows and ``B``
    columns: ``lr * sqrt(max(1, A / B))`` for ``adjust_lr_fn`` None or ``"original"``,
    ``0.2 * lr * sqrt(max(A, B))`` for ``"match_rms_adamw"``. The state is PyTorch's:
    ``momentum_buffer``. The lerps round as PyTorch's fused kernel (``fused_lerp``), so a step
    gives PyTorch's bits except at the rare bfloat16 ties ``newton_schulz`` describes, where an
    entry moves by about ``lr * 2**-8`` more or less.

    >>> import ember
    >>> from ember.optim import Muon
    >>> w = ember.tensor([[2.0, 0.0], [0.0, -1.0]]).require_grad()
    >>> opt = Muon([w], lr=0.1, weight_decay=0.0)
    >>> _ = (w * w).sum().backward()
    >>> _ = opt.step()                 # the orthogonalised gradient moves each entry by ~lr
    >>> [[round(v, 2) for v in row] for row in w.tolist()]
    [[1.93, 0.0], [0.0, -0.89]]
    """

    _name = "Muon"
    _state_spec = {"momentum_buffer": ("buffer", False)}  # made at the next step, as PyTorch's

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5,
                 adjust_lr_fn=None):
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum,
                    "nesterov": nesterov, "ns_coefficients": ns_coefficients, "eps": eps,
                    "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn}
        self._check_group(dict(defaults))
        super().__init__(params, defaults)

    def add_param_group(self, param_group):
        """Add a parameter group (as ``Optimizer.add_param_group``); every tensor in it must be
        2-D.

        >>> import ember
        >>> from ember.optim import Muon
        >>> opt = Muon([ember.ones(2, 3).require_grad()])
        >>> opt.add_param_group({"params": [ember.ones(4, 2).require_grad()], "lr": 0.02})
        >>> [g["lr"] for g in opt.param_groups]
        [0.001, 0.02]
        """
        params = param_group.get("params") if isinstance(param_group, dict) else None
        if isinstance(params, Tensor):
            params = [params]
        if isinstance(params, (list, tuple)):
            for i, p in enumerate(params):
                if isinstance(p, Tensor) and p.ndim != 2:
                    raise DimensionError(
                        f"{self._name}: parameter {i} of group {len(self.param_groups)} has "
                        f"shape {tuple(p.shape)}; Muon optimizes 2-D parameters only "
                        "(optimize the others with another optimizer, such as AdamW)")
        super().add_param_group(param_group)

    def _check_group(self, group):
        op = self._name
        group["lr"] = _check_number(op, "lr", group["lr"], low=0.0)
        group["weight_decay"] = _check_number(op, "weight_decay", group["weight_decay"], low=0.0)
        group["momentum"] = _check_number(op, "momentum", group["momentum"], low=0.0)
        _check_flag(op, "nesterov", group["nesterov"])
        group["ns_coefficients"] = _check_coefficients(op, group["ns_coefficients"])
        group["eps"] = _check_number(op, "eps", group["eps"], low=0.0)
        group["ns_steps"] = _check_ns_steps(op, group["ns_steps"])
        adjust = group["adjust_lr_fn"]
        if not (adjust is None or isinstance(adjust, str) and adjust in _ADJUST):
            raise InvalidParameterError(
                f"{op}: adjust_lr_fn is {group['adjust_lr_fn']!r}; expected None, 'original' or "
                "'match_rms_adamw'", "adjust_lr_fn", group["adjust_lr_fn"])

    def _update(self, group, params, grads):
        lr, weight_decay, momentum = group["lr"], group["weight_decay"], group["momentum"]
        with no_grad():
            for p, g in zip(params, grads):
                if g is None:
                    continue
                st = self._state.setdefault(id(p), {"momentum_buffer": None})
                param, grad = as_tensor(p._data, p), as_tensor(g, p)
                buf = st["momentum_buffer"]
                if buf is None:
                    buf = p._device.backend.optim_zeros(p._data)
                buf = as_tensor(buf, p)
                buf = fused_lerp(buf, grad, 1 - momentum)
                update = fused_lerp(grad, buf, momentum) if group["nesterov"] else buf
                ortho = newton_schulz(update, group["ns_coefficients"], group["ns_steps"],
                                      group["eps"])
                rows, cols = p.shape
                if group["adjust_lr_fn"] == "match_rms_adamw":
                    rate = 0.2 * lr * math.sqrt(max(rows, cols))
                else:
                    rate = lr * math.sqrt(max(1.0, rows / cols if cols else 1.0))
                param = param * (1 - lr * weight_decay)
                st["momentum_buffer"] = buf._data
                p._data = (param - ortho.cast(p.dtype) * rate)._data
                written(p)
