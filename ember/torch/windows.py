"""PyTorch's window functions: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window`` and ``kaiser_window``, periodic by default (the window of length ``N + 1``
without its last sample, as spectral analysis wants) or symmetric.

Each is computed in float64 from ember's ``arange`` and elementwise ops, then cast to ``dtype``
(the default float dtype unless given).

>>> import ember.torch as torch
>>> torch.hann_window(4).tolist()
[0.0, 0.5, 1.0, 0.5]
>>> torch.hann_window(3, periodic=False).tolist()
[0.0, 1.0, 0.0]
"""

import math

import ember as _e

from ..errors import InvalidParameterError, KindError
from ..shapes import as_int
from ._math_args import dtype_arg
from ._tensor import torch_function

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


def _window(op, window_length, periodic, dtype, device, requires_grad, shape):
    """``shape(n, positions)`` evaluated on ``arange(n)`` in float64 for the symmetric window
    of length ``n`` (``window_length + 1`` when ``periodic``, its last sample dropped)."""
    n = as_int(window_length, op, "window_length")
    if n < 0:
        raise InvalidParameterError(f"{op}: window_length must be non-negative, got {n}",
                                    "window_length", n)
    if not isinstance(periodic, bool):
        raise InvalidParameterError(f"{op}: periodic must be a bool, got {periodic!r}",
                                    "periodic", periodic)
    dtype = dtype_arg(dtype, op) or _e.dtypes.default_float
    if dtype.kind != "float":
        raise KindError(f"{op}: expected a floating point dtype, got {dtype.name}")
    if n <= 1:
        out = _e.ones((n,), dtype=dtype, device=device)
    else:
        m = n + 1 if periodic else n
        k = _e.arange(m, dtype=_e.float64, device=device)
        out = shape(m, k)[:n].to(dtype)
    if requires_grad:
        out = out.require_grad()
    return out


@torch_function
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, requires_grad=False, pin_memory=False):
    """The generalized Hamming window ``alpha - beta * cos(2 pi k / (N - 1))``.

    >>> import ember.torch as torch
    >>> [round(v, 2) for v in torch.hamming_window(3, periodic=False).tolist()]
    [0.08, 1.0, 0.08]
    """
    for name, v in (("alpha", alpha), ("beta", beta)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise InvalidParameterError(f"hamming_window: {name} must be a number, got {v!r}",
                                        name, v)
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda m, k: alpha - beta * (k * (2 * math.pi / (m - 1))).cos())


@torch_function
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False, pin_memory=False):
    """The Hann window ``0.5 - 0.5 * cos(2 pi k / (N - 1))``.

    >>> import ember.torch as torch
    >>> torch.hann_window(2).tolist()
    [0.0, 1.0]
    """
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda m, k: 0.5 - 0.5 * (k * (2 * math.pi / (m - 1))).cos())


@torch_function
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False, pin_memory=False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))``.

    >>> import ember.torch as torch
    >>> [round(v, 4) + 0.0 for v in torch.blackman_window(5, periodic=False).tolist()]
    [0.0, 0.34, 1.0, 0.34, 0.0]
    """
    def shape(m, k):
        w = k * (math.pi / (m - 1))
        return 0.08 * (4 * w).cos() - 0.5 * (2 * w).cos() + 0.42
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   shape)


@torch_function
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False, pin_memory=False):
    """The Bartlett (triangular) window ``1 - |2 k / (N - 1) - 1|``.

    >>> import ember.torch as torch
    >>> torch.bartlett_window(5, periodic=False).tolist()
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda m, k: 1 - (k * (2 / (m - 1)) - 1).abs())


def _i0(x, terms):
    """The modified Bessel function of the first kind of order 0 by its power series
    ``sum_k ((x / 2) ** k / k!) ** 2``, each term from the previous one."""
    q = (x / 2) ** 2
    term = _e.ones_like(x)
    total = term
    for k in range(1, terms):
        term = term * q / (k * k)
        total = total + term
    return total


@torch_function
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, requires_grad=False, pin_memory=False):
    """The Kaiser window ``I0(beta sqrt(1 - (2 k / (N - 1) - 1) ** 2)) / I0(beta)``.

    >>> import ember.torch as torch
    >>> [round(v, 4) for v in torch.kaiser_window(3, periodic=False, beta=2.0).tolist()]
    [0.4387, 1.0, 0.4387]
    """
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta < 0:
        raise InvalidParameterError(f"kaiser_window: beta must be a non-negative number, got "
                                    f"{beta!r}", "beta", beta)
    terms = int(beta) + 40  # the series' terms fall below float64's precision by then

    def shape(m, k):
        r = k * (2 / (m - 1)) - 1
        arg = ((1 - r * r).clamp_min(0)).sqrt() * beta
        return _i0(arg, terms) / _i0(_e.full((), float(beta), dtype=_e.float64,
                                             device=k.device), terms)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   shape)
