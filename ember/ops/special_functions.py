"""Special functions: the gamma family (``lgamma``, ``digamma``, ``polygamma``, ``zeta``,
``multigammaln``, ``gammainc``/``gammaincc``), the error-function family (``erfc``, ``erfcx``,
``erfinv``, ``ndtr``, ``ndtri``, ``log_ndtr``), Bessel and Airy functions (``i0``, ``i0e``,
``i1``, ``i1e``, ``bessel_j0/j1/y0/y1``, ``modified_bessel_i0/i1/k0/k1``,
``scaled_modified_bessel_k0/k1``, ``spherical_bessel_j0``, ``airy_ai``), the orthogonal
polynomials (Chebyshev, Hermite, Laguerre, Legendre) and the small compositions ``entr``,
``sinc``, ``xlogy``, ``xlog1py``, ``logit``, ``exp2``.

Each function is elementwise, takes int and float tensors (ints compute in the default float
dtype) and keeps PyTorch's meaning, domain and special values (``torch.special``). A value is
computed with ember ops in float64 and rounded to the result's dtype, from closed-form
expansions only (series, asymptotic expansions with Bernoulli-number coefficients, continued
fractions, exponentially convergent trapezoid rules of integral representations and Newton
steps), so both backends give the same values. The gradient rules are PyTorch's
(``d lgamma = digamma``, ``d erfinv = sqrt(pi)/2 exp(erfinv(x)**2)``, ``d i0 = i1`` ...),
written with these ops, so they differentiate again; where PyTorch has no derivative (the
Bessel functions of the second kind, the polynomials, ``airy_ai`` ...) the result is not
tracked, and the derivatives PyTorch does not implement (``zeta`` in ``x``, ``gammainc`` in
``input``) raise ``GraphError`` in backward.

>>> import ember
>>> from ember.ops.special_functions import lgamma, erfinv
>>> lgamma(ember.tensor([1.0, 2.0, 0.5], dtype="float64")).round(8).tolist()
[0.0, 0.0, 0.57236494]
>>> erfinv(ember.tensor([0.0, 0.5], dtype="float64")).round(8).tolist()
[0.0, 0.47693628]
"""

import math
from fractions import Fraction

from .. import dtypes as _dt
from ..autodiff.graph import no_grad
from ..autodiff.rules import fit
from ..errors import GraphError, InvalidParameterError, KindError
from .._tensor import Tensor, record, saved, wrap
from .elementwise import _check_tensor
from .creation import full_like
from .masking import where

__all__ = ["lgamma", "digamma", "polygamma", "zeta", "multigammaln", "gammainc", "gammaincc",
           "erfc", "erfcx", "erfinv", "ndtr", "ndtri", "log_ndtr", "i0", "i0e", "i1", "i1e",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "spherical_bessel_j0", "airy_ai",
           "entr", "sinc", "xlogy", "xlog1py", "logit", "exp2",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]

_F64 = _dt.float64
_PI = math.pi
_EULER = 0.57721566490153286061
_INF = math.inf
_EPS = 1.11022302462515654042e-16  # half of float64's machine epsilon


def _bernoulli(count):
    """The Bernoulli numbers B_2, B_4, ..., B_{2 count}, exact (the standard recurrence)."""
    b = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return [b[2 * k] for k in range(1, count + 1)]


_B2K = _bernoulli(12)


# -- the machinery: values in float64 with ember ops, PyTorch's gradient rules ------------------

def _result_dtype(*values):
    dt = _dt.result_type(*values)
    return dt if dt.kind == "float" else _dt.default_float


def _plain(t):
    """``t``'s value as an untracked float64 tensor of ember's own API."""
    return wrap(t._data, t._dtype).cast(_F64)


def _operand(value, op, param, like):
    """A tensor operand, or a Python number made a 0-d tensor on ``like``'s device."""
    if isinstance(value, Tensor):
        _check_tensor(value, op, param)
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise KindError(f"{op}: {param} must be a tensor or a real number, got "
                        f"{type(value).__name__} {value!r}")
    from .creation import tensor
    return tensor(value, dtype=_F64, device=like._device if like is not None else None)


def _elementwise(op, inputs, names, forward, grads=None, keep_out=False):
    """Apply ``forward`` (float64 ember tensors -> float64 tensor) to ``inputs`` (tensors or
    numbers; at least one tensor) and record ``grads``: one ``grad(g, values, out)`` per input
    (None: no gradient), with ``values`` the saved inputs in the result's dtype. Without
    ``grads`` the result is not tracked (PyTorch has no derivative)."""
    like = next((v for v in inputs if isinstance(v, Tensor)), None)
    if like is None:
        raise InvalidParameterError(f"{op}: at least one of {', '.join(names)} must be a "
                                    "tensor", names[0], inputs[0])
    ts = [_operand(v, op, p, like) for v, p in zip(inputs, names)]
    dt = _result_dtype(*inputs)
    with no_grad():
        y = forward(*[_plain(t) for t in ts]).cast(dt)
    if grads is None:
        return wrap(y._data, dt)
    tensors = tuple(t for t, v in zip(ts, inputs) if isinstance(v, Tensor))
    rules = [r for r, v in zip(grads, inputs) if isinstance(v, Tensor)]
    kept = [saved(t) for t in ts]

    def rule(g, needs, out):
        vals = [t if t._dtype is dt else t.cast(dt) for t in kept]
        res = []
        for t, r, need in zip(tensors, rules, needs):
            if not need:
                res.append(None)
            elif r is None:
                raise GraphError(f"{op}: the derivative with respect to this input is not "
                                 "implemented (as in PyTorch)")
            else:
                res.append(fit(r(g, vals, out), t))
        return tuple(res)
    return record(y._data, dt, tensors, rule, op, keep_out)


def _unary(op, x, forward, grad=None, keep_out=False):
    if not isinstance(x, Tensor):
        raise InvalidParameterError(f"{op}: input must be a Tensor, got {type(x).__name__} "
                                    f"{x!r}", "input", x)
    g = None if grad is None else [lambda g, v, out: grad(g, v[0], out)]
    return _elementwise(op, (x,), ("input",), forward, g, keep_out)


def _full(like, value):
    """A float64 tensor of ``like``'s shape and device filled with ``value``."""
    return full_like(like, float(value))


def _horner(r, coeffs):
    """``sum(c * r**k for k, c in enumerate(coeffs))`` (Horner's scheme)."""
    acc = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        acc = acc * r + c
    return acc


def _sinpi(x):
    """``sin(pi * x)`` up to its sign, exact at the integers (the argument reduced first)."""
    return ((x - x.round()) * _PI).sin()


# -- the gamma family -------------------------------------------------------------------------

_LGAMMA_SERIES = [float(b / (2 * k * (2 * k - 1))) for k, b in enumerate(_B2K[:9], 1)]
_HALF_LOG_2PI = 0.5 * math.log(2 * _PI)


def _shift(z, floor, steps):
    """``(w, p)``: ``w = z + k`` for the least ``k <= steps`` with ``w >= floor`` and ``p`` the
    product ``z (z + 1) ... (w - 1)``."""
    p = _full(z, 1)
    w = z
    for _ in range(steps):
        low = w < floor
        p = where(low, p * w, p)
        w = where(low, w + 1, w)
    return w, p


def _lgamma_f(x):
    small = x < 0.5
    z = where(small, 1 - x, x)  # >= 0.5
    w, p = _shift(z, 10.0, 10)
    r = 1 / w
    series = r * _horner(r * r, _LGAMMA_SERIES)
    lg = (w - 0.5) * w.log() - w + _HALF_LOG_2PI + series - p.log()
    lg = where(z == _INF, _INF, lg)
    refl = math.log(_PI) - _sinpi(x).abs().log() - lg
    out = where(x == -_INF, _INF, where(small, refl, lg))
    return where((x == 1) | (x == 2), 0.0, out)  # exact zeros


def lgamma(input):
    """``log |Gamma(input)|``: ``inf`` at the non-positive integers and at ``±inf``.

    >>> import ember
    >>> lgamma(ember.tensor([3.0, -0.5, 0.0], dtype="float64")).round(6).tolist()
    [0.693147, 1.265512, inf]
    """
    return _unary("lgamma", input, _lgamma_f, lambda g, x, out: g * digamma(x))


_DIGAMMA_SERIES = [float(b / (2 * k)) for k, b in enumerate(_B2K[:8], 1)]


def _digamma_pos(z):
    """digamma for ``z >= 0`` (``z == 0`` gives ``-inf``)."""
    w, acc = z, _full(z, 0.0)
    for _ in range(10):
        low = w < 10
        acc = where(low, acc - 1 / where(low, w, 1), acc)
        w = where(low, w + 1, w)
    r2 = 1 / (w * w)
    return acc + w.log() - 0.5 / w - r2 * _horner(r2, _DIGAMMA_SERIES)


def _digamma_f(x):
    neg = x < 0
    z = where(neg, 1 - x, x)
    psi = _digamma_pos(z)
    frac = x - x.trunc()
    refl = psi - _PI / (frac * _PI).tan()
    out = where(neg, where(frac == 0, math.nan, refl), psi)
    return where(x == 0, where(1 / x < 0, _INF, -_INF), out)


def digamma(input):
    """The logarithmic derivative of the gamma function, ``psi``: ``-inf`` at ``+0``, ``inf`` at
    ``-0``, NaN at the negative integers (PyTorch's special values).

    >>> import ember
    >>> digamma(ember.tensor([1.0, 0.5], dtype="float64")).round(6).tolist()
    [-0.577216, -1.96351]
    """
    return _unary("digamma", input, _digamma_f, lambda g, x, out: g * polygamma(1, x))


_TRIGAMMA_SERIES = [float(b) for b in _B2K[:8]]


def _trigamma_f(x):
    small = x < 0.5
    z = where(small, 1 - x, x)
    w, acc = z, _full(z, 0.0)
    for _ in range(10):
        low = w < 10
        acc = where(low, acc + 1 / (w * w), acc)
        w = where(low, w + 1, w)
    r = 1 / w
    r2 = r * r
    psi1 = acc + r + 0.5 * r2 + r * r2 * _horner(r2, _TRIGAMMA_SERIES)
    s = _sinpi(x)
    return where(small, (_PI * _PI) / (s * s) - psi1, psi1)


def _zeta_a():
    """Cephes' ``A[i] = (2i + 2)! / B_{2i + 2}``: the Euler-Maclaurin tail's divisors."""
    return [float(math.factorial(2 * k) / b) for k, b in enumerate(_B2K, 1)]


_ZETA_A = _zeta_a()


def _zeta_f(x, q):
    """The Hurwitz zeta function by the Euler-Maclaurin sum (Cephes' ``zeta``, vectorised)."""
    q0 = q
    pole = (q <= 0) & (q == q.floor())
    usable = (q.abs() < _INF) & ~pole
    head = _full(q, 0.0)
    neg = usable & (q < 0)
    if q.numel() and neg.any().item():
        # zeta(x, q) = sum((q + k) ** -x for k < m) + zeta(x, q + m), m = ceil(-q): the sum in
        # blocks of terms, so that a very negative q costs few steps
        m = where(neg, (-q).ceil(), 0.0)
        top = int(m.max().item())
        block = max(1, min(4096, (1 << 22) // q.numel()))
        from .creation import arange
        qe, xe, me = q.unsqueeze(-1), x.unsqueeze(-1), m.unsqueeze(-1)
        for start in range(0, top, block):
            k = arange(start, min(start + block, top), dtype=_F64, device=q._device)
            head = head + where(k < me, (qe + k) ** -xe, 0.0).sum(-1)
        q = where(neg, q + m, q)
    qmin = where(usable, q, 9.0).min().item() if q.numel() else 9.0
    steps = max(9, int(math.floor(9 - qmin)) + 1)
    s = q ** -x
    a, b = q, _full(q, 0.0)
    done = s != s  # NaN-free start: nothing done
    for i in range(1, steps + 1):
        part = ~done & ((a <= 9) | (i <= 9))
        a = where(part, a + 1, a)
        b = where(part, a ** -x, b)
        s = where(part, s + b, s)
        done = done | (part & (-_EPS * s < b) & (b < _EPS * s))
    w = a
    s = where(done, s, s + b * w / (x - 1) - 0.5 * b)
    fac, k = _full(x, 1), 0.0
    for div in _ZETA_A:
        fac = fac * (x + k)
        b = b / w
        t = fac * b / div
        s = where(done, s, s + t)
        done = done | ((t / s).abs() < _EPS)
        k += 1
        fac = fac * (x + k)
        b = b / w
        k += 1
    s = s + head
    out = where(pole, _INF, where((q0 <= 0) & (x != x.floor()), math.nan, s))
    return where(x == 1, _INF, where(x < 1, math.nan, out))


def zeta(input, other):
    """The Hurwitz zeta function ``sum((k + other) ** -input for k >= 0)`` (``torch.special.zeta``;
    ``input`` or ``other`` may be a number). Differentiable in ``other`` only, as PyTorch's.

    >>> import ember
    >>> zeta(ember.tensor([2.0, 4.0], dtype="float64"), 1.0).round(6).tolist()
    [1.644934, 1.082323]
    """
    return _elementwise("zeta", (input, other), ("input", "other"), _zeta_f,
                        [None, lambda g, v, out: g * -v[0] * zeta(v[0] + 1, v[1])])


def polygamma(n, input):
    """The ``n``-th derivative of ``digamma`` (``n >= 0``, an int), as ``torch.polygamma``.

    >>> import ember
    >>> polygamma(1, ember.tensor([1.0], dtype="float64")).round(6).tolist()
    [1.644934]
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise InvalidParameterError(f"polygamma: n must be an int, got {type(n).__name__} "
                                    f"{n!r}", "n", n)
    if n < 0:
        raise InvalidParameterError(f"polygamma: n must be >= 0, got {n}", "n", n)
    if n == 0:
        return digamma(input)

    def forward(x):
        if n == 1:
            return _trigamma_f(x)
        return (-1.0 if n % 2 == 0 else 1.0) * math.factorial(n) * _zeta_f(_full(x, n + 1.0), x)
    return _unary("polygamma", input, forward, lambda g, x, out: g * polygamma(n + 1, x))


def multigammaln(input, p):
    """The multivariate log-gamma function of dimension ``p`` (``torch.special.multigammaln``):
    ``p (p - 1) / 4 log(pi) + sum(lgamma(input - i / 2) for i < p)``; every element must be
    greater than ``(p - 1) / 2``.

    >>> import ember
    >>> multigammaln(ember.tensor([2.5], dtype="float64"), 2).round(6).tolist()
    [0.857048]
    """
    op = "multigammaln"
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise InvalidParameterError(f"{op}: p must be an int >= 1, got {p!r}", "p", p)
    _check_tensor(input, op)
    with no_grad():
        low = (_plain(input) <= (p - 1) / 2).any().item() if input.numel() else False
    if low:
        raise InvalidParameterError(f"{op}: every element of input must be greater than "
                                    f"(p - 1) / 2 = {(p - 1) / 2}", "input", input)
    x = input if input._dtype.kind == "float" else input.cast(_dt.default_float)
    total = lgamma(x)
    for i in range(1, p):
        total = total + lgamma(x - i / 2)
    return total + p * (p - 1) / 4 * math.log(_PI)


# -- regularized incomplete gamma functions ----------------------------------------------------

_MAXITER = 2000


def _igam_fac(a, x):
    """``x**a exp(-x) / Gamma(a)``, in logs."""
    return (a * x.log() - x - _lgamma_f(a)).exp()


def _igam_series(a, x):
    """The lower regularized incomplete gamma function by its power series (DLMF 8.11.4)."""
    r, c, ans = a, _full(a, 1), _full(a, 1)
    done = x != x
    for _ in range(_MAXITER):
        r = r + 1
        c = where(done, c, c * x / r)
        ans = where(done, ans, ans + c)
        done = done | (c <= _EPS * ans)
        if done.all().item():
            break
    return ans * _igam_fac(a, x) / a


def _igamc_fraction(a, x):
    """The upper regularized incomplete gamma function by its continued fraction (DLMF 8.9.2)."""
    y = 1 - a
    z = x + y + 1
    c = _full(x, 0.0)
    pkm2, qkm2 = _full(x, 1), x
    pkm1, qkm1 = x + 1, z * x
    ans = pkm1 / qkm1
    done = x != x
    for _ in range(_MAXITER):
        c = c + 1
        y = y + 1
        z = z + 2
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        nz = qk != 0
        r = pk / where(nz, qk, 1)
        t = where(nz, ((ans - r) / r).abs(), 1.0)
        ans = where(done | ~nz, ans, r)
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        big = pk.abs() > 4.503599627370496e15
        scale = where(big, 2.22044604925031308085e-16, 1.0)
        pkm2, pkm1, qkm2, qkm1 = pkm2 * scale, pkm1 * scale, qkm2 * scale, qkm1 * scale
        done = done | (t <= _EPS)
        if done.all().item():
            break
    return ans * _igam_fac(a, x)


def _gammainc_pair(a, x):
    """``(P, Q)``, the lower and upper regularized incomplete gamma functions."""
    upper = (x > 1) & (x > a)
    xs = where(upper, 1.0, x)
    xs = where(xs > 0, xs, 1.0)
    p_series = _igam_series(where(upper, 1.0, where(a > 0, a, 1.0)), xs)
    xf = where(upper, x, 2.0)
    xf = where(xf < _INF, xf, 2.0)
    q_frac = _igamc_fraction(where(upper, where(a < _INF, a, 1.0), 1.0), xf)
    p = where(upper, 1 - q_frac, p_series)
    q = where(upper, q_frac, 1 - p_series)
    nan = (x < 0) | (a < 0) | ((a == 0) & (x == 0)) | ((a == _INF) & (x == _INF))
    p = where(a == 0, 1.0, where(x == 0, 0.0, where(a == _INF, 0.0, where(x == _INF, 1.0, p))))
    q = where(a == 0, 0.0, where(x == 0, 1.0, where(a == _INF, 1.0, where(x == _INF, 0.0, q))))
    return where(nan, math.nan, p), where(nan, math.nan, q)


def _igam_grad(g, v, out):
    a, x = v
    return g * ((a - 1) * x.log() - x - lgamma(a)).exp()


def gammainc(input, other):
    """The regularized lower incomplete gamma function ``P(input, other)``
    (``torch.special.gammainc``); differentiable in ``other`` only, as PyTorch's.

    >>> import ember
    >>> gammainc(ember.tensor([1.0], dtype="float64"), 2.0).round(6).tolist()
    [0.864665]
    """
    return _elementwise("gammainc", (input, other), ("input", "other"),
                        lambda a, x: _gammainc_pair(a, x)[0], [None, _igam_grad])


def gammaincc(input, other):
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P``
    (``torch.special.gammaincc``); differentiable in ``other`` only, as PyTorch's.

    >>> import ember
    >>> gammaincc(ember.tensor([1.0], dtype="float64"), 2.0).round(6).tolist()
    [0.135335]
    """
    return _elementwise("gammaincc", (input, other), ("input", "other"),
                        lambda a, x: _gammainc_pair(a, x)[1],
                        [None, lambda g, v, out: -_igam_grad(g, v, out)])


# -- the error-function family ----------------------------------------------------------------

_ERFCX_H = 0.5  # the step of the exponentially convergent sum for erfcx (error ~ exp(-pi^2/h^2))
_ERFCX_W = [math.exp(-(k * _ERFCX_H) ** 2) for k in range(1, 40)]
_ERFCX_K2 = [(k * _ERFCX_H) ** 2 for k in range(1, 40)]
_RSQRT_PI = 1 / math.sqrt(_PI)


def _erfcx_pos(a):
    """``exp(a**2) erfc(a)`` for ``a >= 0``: ``exp(a**2) (1 - erf(a))`` below 0.5, a sum over the
    Gaussian's samples (Matta and Reichel's formula, with its pole correction) above, and
    ``1 / (a sqrt(pi))`` beyond 5e7."""
    small = a < 0.5
    huge = a > 5e7
    z = where(small | huge, 1.0, a)
    z2 = z * z
    s = 0.5 / z2
    for w, k2 in zip(_ERFCX_W, _ERFCX_K2):
        s = s + w / (z2 + k2)
    # the pole correction 2 exp(z**2) / (1 - exp(2 pi z / h)), negligible beyond z = 2 pi
    zc = where(z < 2 * _PI, z, 2 * _PI)
    w = 2 * _PI / _ERFCX_H
    corr = where(z < 2 * _PI, -2 * (zc * (zc - w)).exp() / -(zc * -w).expm1(), 0.0)
    big = 2 * _ERFCX_H / _PI * z * s + corr
    low = (a * a).exp() * (1 - a.erf())
    return where(huge, _RSQRT_PI / a, where(small, low, big))


def _erfc_f(x):
    a = x.abs()
    pos = where(a < 0.5, 1 - a.erf(), _erfcx_pos(a) * (-(a * a)).exp())
    return where(x >= 0, pos, 2 - pos)


def _erfcx_f(x):
    p = _erfcx_pos(x.abs())
    return where(x >= 0, p, 2 * (x * x).exp() - p)


def erfc(input):
    """The complementary error function ``1 - erf(input)``, accurate where it is tiny.

    >>> import ember
    >>> erfc(ember.tensor([0.0, 10.0], dtype="float64")).tolist()
    [1.0, 2.0884875837625446e-45]
    """
    return _unary("erfc", input, _erfc_f,
                  lambda g, x, out: g * (-2 * _RSQRT_PI) * (-(x * x)).exp())


def erfcx(input):
    """The scaled complementary error function ``exp(input**2) * erfc(input)``.

    >>> import ember
    >>> erfcx(ember.tensor([0.0, 100.0], dtype="float64")).round(8).tolist()
    [1.0, 0.00564161]
    """
    return _unary("erfcx", input, _erfcx_f,
                  lambda g, x, out: g * (2 * x * erfcx(x) - 2 * _RSQRT_PI))


def _winitzki(log_one_minus_y2):
    """Winitzki's closed-form guess of ``erfinv(y)`` (relative error ~2e-3) from
    ``log(1 - y**2)``."""
    a = 0.147
    t = 2 / (_PI * a) + log_one_minus_y2 / 2
    return ((t * t - log_one_minus_y2 / a).sqrt() - t).sqrt()


def _erfinv_core(a):
    """``erfinv(a)`` for ``0 <= a <= 0.5``: Halley's steps on ``erf(x) - a``."""
    x = _winitzki((-a).log1p() + a.log1p())
    for _ in range(3):
        u = (x.erf() - a) / (2 * _RSQRT_PI * (-(x * x)).exp())
        x = x - u / (1 + x * u)
    return x


def _erfcinv_tail(c):
    """``x > 0`` with ``erfc(x) == c`` for ``0 < c <= 0.5``: Newton's steps on
    ``log(erfc(x)) - log(c)``, well conditioned down to the smallest ``c``."""
    x = _winitzki(c.log() + (2 - c).log())
    logc = c.log()
    for _ in range(5):
        ex = _erfcx_pos(x)
        x = x + (ex.log() - x * x - logc) * ex * (math.sqrt(_PI) / 2)
    return x


def _erfinv_f(y):
    a = y.abs()
    core = _erfinv_core(where(a < 0.5, a, 0.25))
    tail = _erfcinv_tail(where((a >= 0.5) & (a < 1), 1 - a, 0.25))
    x = where(a < 0.5, core, tail)
    x = where(a == 1, _INF, where((a > 1) | (a != a), math.nan, x))
    return where(y < 0, -x, x)


def erfinv(input):
    """The inverse error function on ``[-1, 1]`` (``±inf`` at ``±1``, NaN outside).

    >>> import ember
    >>> erfinv(ember.tensor([0.5, -1.0], dtype="float64")).round(6).tolist()
    [0.476936, -inf]
    """
    return _unary("erfinv", input, _erfinv_f,
                  lambda g, x, out: g * (math.sqrt(_PI) / 2) * (out * out).exp(), keep_out=True)


def ndtr(input):
    """The standard normal CDF ``(1 + erf(input / sqrt(2))) / 2``, accurate in both tails.

    >>> import ember
    >>> ndtr(ember.tensor([0.0, -10.0], dtype="float64")).tolist()
    [0.5, 7.61985302416047e-24]
    """
    return _unary("ndtr", input, lambda x: 0.5 * _erfc_f(x * -math.sqrt(0.5)),
                  lambda g, x, out: g * (-(x * x) / 2).exp() / math.sqrt(2 * _PI))


def _ndtri_f(p):
    c = 2 * p
    lo = _erfcinv_tail(where((c > 0) & (c < 0.5), c, 0.25))
    mid = _erfinv_core(where((c >= 0.5) & (c <= 1.5), (1 - c).abs(), 0.25))
    mid = where(c > 1, -mid, mid)
    hi = -_erfcinv_tail(where((c > 1.5) & (c < 2), 2 - c, 0.25))
    x = where(c < 0.5, lo, where(c <= 1.5, mid, hi)) * -math.sqrt(2.0)
    x = where(p == 0, -_INF, where(p == 1, _INF, where(x == 0, 0.0, x)))
    return where((p < 0) | (p > 1), math.nan, x)


def ndtri(input):
    """The inverse of ``ndtr``: the quantile of the standard normal distribution.

    >>> import ember
    >>> ndtri(ember.tensor([0.5, 0.975], dtype="float64")).round(6).tolist()
    [0.0, 1.959964]
    """
    return _unary("ndtri", input, _ndtri_f,
                  lambda g, x, out: g * math.sqrt(2 * _PI) * (out * out / 2).exp(),
                  keep_out=True)


def _log_ndtr_f(x):
    t = x * math.sqrt(0.5)
    left = (_erfcx_f(-t) / 2).log() - t * t
    right = (-_erfc_f(t) / 2).log1p()
    return where(x < -1, left, right)


def log_ndtr(input):
    """``log(ndtr(input))``, accurate far in the left tail.

    >>> import ember
    >>> log_ndtr(ember.tensor([0.0, -40.0], dtype="float64")).round(4).tolist()
    [-0.6931, -804.6084]
    """
    return _unary("log_ndtr", input, _log_ndtr_f,
                  lambda g, x, out: g * (-(x * x) / 2 - _HALF_LOG_2PI - out).exp(),
                  keep_out=True)


# -- modified Bessel functions ----------------------------------------------------------------

_BESSEL_SWITCH = 25.0  # power series / trapezoid sums below, asymptotic expansions above


def _asym_coeffs(nu, count):
    """``a_k(nu) = prod_{j <= k} (4 nu**2 - (2j - 1)**2) / (k! 8**k)`` (DLMF 10.17.1)."""
    out, a = [1.0], 1.0
    for k in range(1, count):
        a = a * (4 * nu * nu - (2 * k - 1) ** 2) / (k * 8)
        out.append(a)
    return out


_ASYM = {nu: _asym_coeffs(nu, 40) for nu in (0, 1)}


def _i_series(x, nu):
    """``I_nu(x)`` (nu 0 or 1) by its power series; ``|x|`` at most the switch."""
    q = x * x / 4
    term = _full(x, 1) if nu == 0 else x / 2
    total = term
    for k in range(1, 60):
        term = term * q / (k * (k + nu))
        total = total + term
    return total


def _i_asym_scaled(x, nu):
    """``exp(-x) I_nu(x)`` for large ``x > 0`` (DLMF 10.40.1)."""
    r = 1 / x
    s = _horner(-r, _ASYM[nu])
    return s / (2 * _PI * x).sqrt()


def _i_scaled(x, nu):
    """``exp(-|x|) I_nu(|x|)``."""
    a = x.abs()
    big = a > _BESSEL_SWITCH
    small = _i_series(where(big, 1.0, a), nu) * (-a).exp()
    large = _i_asym_scaled(where(big, a, 1.0 + _BESSEL_SWITCH), nu)
    return where(big, large, small)


def _i_f(nu, scaled):
    def forward(x):
        v = _i_scaled(x, nu)
        if not scaled:
            v = v * x.abs().exp()
        v = where(x.abs() == _INF, (0.0 if scaled else _INF), v)
        return where(x < 0, -v, v) if nu == 1 else v
    return forward


def i0(input):
    """The modified Bessel function of the first kind of order 0.

    >>> import ember
    >>> i0(ember.tensor([0.0, 1.0], dtype="float64")).round(6).tolist()
    [1.0, 1.266066]
    """
    return _unary("i0", input, _i_f(0, False), lambda g, x, out: g * i1(x))


def i0e(input):
    """``exp(-|input|) * i0(input)``.

    >>> import ember
    >>> i0e(ember.tensor([0.0, 1.0], dtype="float64")).round(6).tolist()
    [1.0, 0.46576]
    """
    return _unary("i0e", input, _i_f(0, True),
                  lambda g, x, out: g * (i1e(x) - x.sign() * i0e(x)))


def _x_or_one(x):
    """``x`` with its zeros replaced by 1 (a divisor)."""
    return where(x == 0, 1.0, x)


def i1(input):
    """The modified Bessel function of the first kind of order 1.

    >>> import ember
    >>> i1(ember.tensor([0.0, 1.0], dtype="float64")).round(6).tolist()
    [0.0, 0.565159]
    """
    return _unary("i1", input, _i_f(1, False),
                  lambda g, x, out: g * where(x == 0, 0.5, i0(x) - i1(x) / _x_or_one(x)))


def i1e(input):
    """``exp(-|input|) * i1(input)``.

    >>> import ember
    >>> i1e(ember.tensor([0.0, 1.0], dtype="float64")).round(6).tolist()
    [0.0, 0.20791]
    """
    return _unary("i1e", input, _i_f(1, True),
                  lambda g, x, out: g * where(x == 0, 0.5,
                                              i0e(x) - i1e(x) * (x.sign() + 1 / _x_or_one(x))))


def modified_bessel_i0(input):
    """``torch.special.modified_bessel_i0``: ``i0`` without a gradient, as PyTorch's.

    >>> import ember
    >>> modified_bessel_i0(ember.tensor([1.0], dtype="float64")).round(6).tolist()
    [1.266066]
    """
    return _unary("modified_bessel_i0", input, _i_f(0, False))


def modified_bessel_i1(input):
    """``torch.special.modified_bessel_i1``: ``i1`` without a gradient, as PyTorch's.

    >>> import ember
    >>> modified_bessel_i1(ember.tensor([1.0], dtype="float64")).round(6).tolist()
    [0.565159]
    """
    return _unary("modified_bessel_i1", input, _i_f(1, False))


_TRAP_H = 0.1
_TRAP_T = [j * _TRAP_H for j in range(1, 60)]
_TRAP_COSH1 = [2 * math.sinh(t / 2) ** 2 for t in _TRAP_T]  # cosh(t) - 1, accurately


def _k_scaled_trapezoid(x, nu):
    """``exp(x) K_nu(x) = integral of exp(-x (cosh t - 1)) cosh(nu t) over t > 0``, by the
    trapezoid rule (exponentially convergent: the integrand is even and analytic); ``x >= 2``."""
    total = _full(x, 0.5)
    for t, c1 in zip(_TRAP_T, _TRAP_COSH1):
        total = total + (x * -c1).exp() * math.cosh(nu * t)
    return total * _TRAP_H


def _k_asym_scaled(x, nu, coeffs):
    """``exp(x) K_nu(x)`` for large ``x`` (DLMF 10.40.2)."""
    return _horner(1 / x, coeffs) * (_PI / (2 * x)).sqrt()


def _k_series(x, nu):
    """``K_nu(x)`` (nu 0 or 1) by its series (DLMF 10.31.1-2); ``0 < x <= 2``."""
    q = x * x / 4
    lg = (x / 2).log()
    if nu == 0:
        term, h, total = _full(x, 1), 0.0, _full(x, 0.0)
        for k in range(1, 30):
            term = term * q / (k * k)
            h += 1 / k
            total = total + term * h
        return total - (lg + _EULER) * _i_series(x, 0)
    term, h, total = _full(x, 1), 0.0, _full(x, 0.0)
    for k in range(0, 30):
        if k:
            term = term * q / (k * (k + 1))
            h += 1 / k
        total = total + term * (2 * h - 2 * _EULER + 1 / (k + 1))
    return 1 / x + lg * _i_series(x, 1) - x / 4 * total


def _k_f(nu, scaled):
    def forward(x):
        small = x <= 2
        big = x > _BESSEL_SWITCH
        xs = where(small & (x > 0), x, 1.0)
        xm = where(small | big, 2.0, x)
        xb = where(big, x, 2 * _BESSEL_SWITCH)
        s_small = _k_series(xs, nu)
        s_small = s_small * xs.exp() if scaled else s_small
        mid = _k_scaled_trapezoid(xm, nu)
        large = _k_asym_scaled(xb, nu, [c for c in _ASYM[nu]])
        if not scaled:
            mid = mid * (-xm).exp()
            large = large * (-xb).exp()
        v = where(small, s_small, where(big, large, mid))
        v = where(x == _INF, 0.0, v)
        return where(x < 0, math.nan, where(x == 0, _INF, v))
    return forward


def modified_bessel_k0(input):
    """The modified Bessel function of the second kind of order 0 (NaN below 0, ``inf`` at 0).

    >>> import ember
    >>> modified_bessel_k0(ember.tensor([1.0], dtype="float64")).round(6).tolist()
    [0.421024]
    """
    return _unary("modified_bessel_k0", input, _k_f(0, False))


def modified_bessel_k1(input):
    """The modified Bessel function of the second kind of order 1 (NaN below 0, ``inf`` at 0).

    >>> import ember
    >>> modified_bessel_k1(ember.tensor([1.0], dtype="float64")).round(6).tolist()
    [0.601907]
    """
    return _unary("modified_bessel_k1", input, _k_f(1, False))


def scaled_modified_bessel_k0(input):
    """``exp(input) * modified_bessel_k0(input)``.

    >>> import ember
    >>> scaled_modified_bessel_k0(ember.tensor([1.0], dtype="float64")).round(6).tolist()
    [1.144463]
    """
    return _unary("scaled_modified_bessel_k0", input, _k_f(0, True))


def scaled_modified_bessel_k1(input):
    """``exp(input) * modified_bessel_k1(input)``.

    >>> import ember
    >>> scaled_modified_bessel_k1(ember.tensor([1.0], dtype="float64")).round(6).tolist()
    [1.636153]
    """
    return _unary("scaled_modified_bessel_k1", input, _k_f(1, True))


# -- Bessel functions of the first and second kind --------------------------------------------

_FOURIER_N = 192  # nodes of the trapezoid rule over a period (exact to rounding for |x| <= 25)
_FOURIER_M = 64   # the highest order J_m kept in the Neumann series of Y_0 and Y_1


def _fourier_weights():
    """Per node ``j`` (``theta_j = 2 pi j / N``), the weights ``(cw, sw)`` with which
    ``(cos(x sin theta) @ cw + sin(x sin theta) @ sw) / N`` gives J_0, J_1 and the Neumann
    series parts of Y_0 and Y_1 (DLMF 10.9.2 and 10.23.11): four columns."""
    n, m = _FOURIER_N, _FOURIER_M
    theta = [2 * _PI * j / n for j in range(n)]
    coef = {0: [0.0] * (m + 1), 1: [0.0] * (m + 1), 2: [0.0] * (m + 1), 3: [0.0] * (m + 1)}
    coef[0][0] = 1.0
    coef[1][1] = 1.0
    for k in range(1, m // 2 + 1):
        if 2 * k <= m:
            coef[2][2 * k] = -4 / _PI * (-1) ** k / k
        if 2 * k + 1 <= m:
            coef[3][2 * k + 1] = -2 / _PI * (-1) ** k * (1 + 2 * k) / (k * (k + 1))
    cw = [[sum(coef[c][o] * math.cos(o * t) for o in range(m + 1)) / n for c in range(4)]
          for t in theta]
    sw = [[sum(coef[c][o] * math.sin(o * t) for o in range(m + 1)) / n for c in range(4)]
          for t in theta]
    return [math.sin(t) for t in theta], cw, sw


_FOURIER = None


def _fourier_parts(x):
    """``(J0, J1, S0, S1)`` at ``x`` (``|x| <= 25``): the Bessel functions and the Neumann
    series sums of Y_0 and Y_1."""
    global _FOURIER
    if _FOURIER is None:
        _FOURIER = _fourier_weights()
    from .creation import tensor
    sines, cw, sw = _FOURIER
    from .segments import cat
    shape = tuple(x.shape)
    flat = x.reshape(-1, 1)
    dev = x._device
    sines, cw, sw = (tensor(v, dtype=_F64, device=dev) for v in (sines, cw, sw))
    rows = 16384  # elements per block: a block's (rows, N) arrays stay small
    blocks = []
    for start in range(0, max(flat.shape[0], 1), rows):
        arg = flat[start:start + rows] * sines
        blocks.append(arg.cos() @ cw + arg.sin() @ sw)
    parts = blocks[0] if len(blocks) == 1 else cat(blocks, 0)
    return [parts[:, c].reshape(shape) + 0.0 for c in range(4)]  # no -0.0


def _hankel(x, nu):
    """``(P, Q, chi)`` of the Hankel expansion (DLMF 10.17.3): ``J = sqrt(2/(pi x)) (P cos chi
    - Q sin chi)``, ``Y = sqrt(2/(pi x)) (P sin chi + Q cos chi)``, for large ``x > 0``."""
    a = _ASYM[nu]
    r = 1 / x
    r2 = r * r
    p = _horner(-r2, a[0::2][:15])
    q = r * _horner(-r2, a[1::2][:15])
    return p, q, x - (nu / 2 + 0.25) * _PI


def _jy_f(nu, second):
    def forward(x):
        a = x.abs()
        big = a > _BESSEL_SWITCH
        xs = where(big, 0.0, a)
        j0, j1, s0, s1 = _fourier_parts(xs)
        xb = where(big, a, 2 * _BESSEL_SWITCH)
        p, q, chi = _hankel(xb, nu)
        amp = (2 / (_PI * xb)).sqrt()
        if not second:
            small = j0 if nu == 0 else j1
            v = where(big, amp * (p * chi.cos() - q * chi.sin()), small)
            v = where(a == _INF, 0.0, where((a == 0) & (nu == 1), 0.0, v))
            return where(x < 0, -v, v) if nu == 1 else v
        xl = where(xs > 0, xs, 1.0)
        lg = (xl / 2).log() + _EULER
        if nu == 0:
            small = 2 / _PI * lg * j0 + s0
        else:
            small = -2 / (_PI * xl) * j0 + 2 / _PI * (lg - 1) * j1 + s1
        v = where(big, amp * (p * chi.sin() + q * chi.cos()), small)
        v = where(x == 0, -_INF, where(x == _INF, 0.0, v))
        return where(x < 0, math.nan, v)
    return forward


def bessel_j0(input):
    """The Bessel function of the first kind of order 0.

    >>> import ember
    >>> bessel_j0(ember.tensor([0.0, 1.0], dtype="float64")).round(6).tolist()
    [1.0, 0.765198]
    """
    return _unary("bessel_j0", input, _jy_f(0, False))


def bessel_j1(input):
    """The Bessel function of the first kind of order 1.

    >>> import ember
    >>> bessel_j1(ember.tensor([0.0, 1.0], dtype="float64")).round(6).tolist()
    [0.0, 0.440051]
    """
    return _unary("bessel_j1", input, _jy_f(1, False))


def bessel_y0(input):
    """The Bessel function of the second kind of order 0 (``-inf`` at 0, NaN below).

    >>> import ember
    >>> bessel_y0(ember.tensor([1.0], dtype="float64")).round(6).tolist()
    [0.088257]
    """
    return _unary("bessel_y0", input, _jy_f(0, True))


def bessel_y1(input):
    """The Bessel function of the second kind of order 1 (``-inf`` at 0, NaN below).

    >>> import ember
    >>> bessel_y1(ember.tensor([1.0], dtype="float64")).round(6).tolist()
    [-0.781213]
    """
    return _unary("bessel_y1", input, _jy_f(1, True))


def spherical_bessel_j0(input):
    """The spherical Bessel function of the first kind of order 0, ``sin(x) / x`` (1 at 0).

    >>> import ember
    >>> spherical_bessel_j0(ember.tensor([0.0, 1.0], dtype="float64")).round(6).tolist()
    [1.0, 0.841471]
    """
    def forward(x):
        xs = where(x == 0, 1.0, x)
        v = where(x == 0, 1.0, xs.sin() / xs)
        return where(x.abs() == _INF, 0.0, v)
    return _unary("spherical_bessel_j0", input, forward)


# -- the Airy function ------------------------------------------------------------------------

_AI0 = 0.355028053887817239260   # Ai(0)
_AIP0 = 0.258819403792806798405  # -Ai'(0)


def _airy_u(count):
    """``u_k = (2k+1)(2k+3)...(6k-1) / (216**k k!)`` (DLMF 9.7.2)."""
    out, u = [1.0], 1.0
    for k in range(1, count):
        u = u * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / ((2 * k - 1) * 216 * k)
        out.append(u)
    return out


_AIRY_U = _airy_u(30)


def _airy_f(x):
    neg_switch, pos_switch = -7.0, 2.0
    mid = (x >= neg_switch) & (x <= pos_switch)
    xm = where(mid, x, 0.0)
    cube = xm * xm * xm
    f, g = _full(xm, 1), xm
    tf, tg = f, g
    for k in range(0, 80):
        tf = tf * cube / ((3 * k + 2) * (3 * k + 3))
        tg = tg * cube / ((3 * k + 3) * (3 * k + 4))
        f = f + tf
        g = g + tg
    series = _AI0 * f - _AIP0 * g
    # x > 2: Ai(x) = sqrt(x / 3) / pi * K_{1/3}(zeta), the trapezoid rule or its expansion
    xp = where(x > pos_switch, x, 3.0)
    zeta = 2 / 3 * xp * xp.sqrt()
    zt = where(zeta <= 30, zeta, 3.0)
    trap = _k_scaled_trapezoid(zt, 1 / 3) * (xp / 3).sqrt() / _PI
    asym = _horner(-1 / zeta, _AIRY_U[:20]) / (2 * math.sqrt(_PI) * xp.sqrt().sqrt())
    pos = where(zeta <= 30, trap, asym) * (-zeta).exp()
    # x < -7: the oscillating expansion (DLMF 9.7.9)
    z = where(x < neg_switch, -x, 8.0)
    zn = 2 / 3 * z * z.sqrt()
    r2 = 1 / (zn * zn)
    even = _horner(-r2, _AIRY_U[0::2][:12])
    odd = _horner(-r2, _AIRY_U[1::2][:12]) / zn
    ph = zn - _PI / 4
    neg = (ph.cos() * even + ph.sin() * odd) / (math.sqrt(_PI) * z.sqrt().sqrt())
    v = where(mid, series, where(x > pos_switch, pos, neg))
    return where(x == _INF, 0.0, where(x == -_INF, 0.0, v))


def airy_ai(input):
    """The Airy function ``Ai``.

    >>> import ember
    >>> airy_ai(ember.tensor([0.0, 1.0], dtype="float64")).round(6).tolist()
    [0.355028, 0.135292]
    """
    return _unary("airy_ai", input, _airy_f)


# -- compositions -----------------------------------------------------------------------------

def _float_of(x, op):
    _check_tensor(x, op)
    return x if x._dtype.kind == "float" else x.cast(_dt.default_float)


def entr(input):
    """The elementwise entropy ``-input * log(input)``: 0 at 0, ``-inf`` below 0.

    >>> import ember
    >>> entr(ember.tensor([0.0, 0.5, -1.0], dtype="float64")).round(6).tolist()
    [0.0, 0.346574, -inf]
    """
    x = _float_of(input, "entr")
    pos = x > 0
    xs = where(pos, x, 1.0)
    val = where(pos, -xs * xs.log(), 0.0)
    return where(x < 0, -_INF, where(x != x, math.nan, val))


def sinc(input):
    """The normalized sinc function ``sin(pi x) / (pi x)`` (1 at 0).

    >>> import ember
    >>> sinc(ember.tensor([0.0, 0.5], dtype="float64")).round(6).tolist()
    [1.0, 0.63662]
    """
    x = _float_of(input, "sinc")
    zero = x == 0
    px = where(zero, 1.0, x) * _PI
    return where(zero, 1.0, px.sin() / px)


def _xlog(op, input, other, log):
    from .creation import tensor
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise InvalidParameterError(f"{op}: input or other must be a tensor", "input", input)
    like = input if isinstance(input, Tensor) else other
    dt = _result_dtype(input, other)
    x = input.cast(dt) if isinstance(input, Tensor) else tensor(input, dtype=dt,
                                                                 device=like._device)
    y = other.cast(dt) if isinstance(other, Tensor) else tensor(other, dtype=dt,
                                                                 device=like._device)
    _check_tensor(x, op, "input")
    _check_tensor(y, op, "other")
    logs = log(y)
    # x * log(y) is already 0 at x == 0 unless log(y) is infinite or NaN (y < 0); the gradient
    # in x stays log(y)
    return x * where((x == 0) & ~(logs.abs() < _INF) & (y == y), 0.0, logs)  # log(y) inf or NaN


def xlogy(input, other):
    """``input * log(other)``, 0 where ``input == 0`` (unless ``other`` is NaN); either may be
    a number.

    >>> import ember
    >>> xlogy(ember.tensor([0.0, 2.0], dtype="float64"), 0.0).tolist()
    [0.0, -inf]
    """
    return _xlog("xlogy", input, other, lambda y: y.log())


def xlog1py(input, other):
    """``input * log1p(other)``, 0 where ``input == 0`` (unless ``other`` is NaN).

    >>> import ember
    >>> xlog1py(ember.tensor([0.0, 2.0], dtype="float64"), -1.0).tolist()
    [0.0, -inf]
    """
    return _xlog("xlog1py", input, other, lambda y: y.log1p())


def logit(input, eps=None):
    """``log(p / (1 - p))``, with ``p`` the input clamped to ``[eps, 1 - eps]`` when ``eps`` is
    given.

    >>> import ember
    >>> logit(ember.tensor([0.5, 0.0], dtype="float64"), eps=1e-6).round(4).tolist()
    [0.0, -13.8155]
    """
    x = _float_of(input, "logit")
    if eps is not None:
        if isinstance(eps, bool) or not isinstance(eps, (int, float)):
            raise InvalidParameterError(f"logit: eps must be a number or None, got {eps!r}",
                                        "eps", eps)
        x = x.clamp(eps, 1 - eps)
    return (x / (1 - x)).log()


def exp2(input):
    """``2 ** input``.

    >>> import ember
    >>> exp2(ember.tensor([3.0, -1.0])).tolist()
    [8.0, 0.5]
    """
    x = _float_of(input, "exp2")
    return (x * math.log(2.0)).exp()


# -- orthogonal polynomials -------------------------------------------------------------------

def _polynomial(op, first, step, shift=False):
    """``op(input, n)``: the degree-``n`` polynomial with ``p_0 = 1``, ``p_1 = first(x)`` and
    ``p_{k+1} = step(k, x, p_k, p_{k-1})``; ``n`` is truncated to an int, and negative ``n``
    gives 0 (PyTorch's rule). Not differentiable, as PyTorch's."""
    def forward(x, n):
        if shift:
            x = 2 * x - 1
        n = n.trunc()
        p0 = _full(x, 1)
        p1 = first(x)
        out = where(n == 0, p0, where(n == 1, p1, 0.0 * p0))
        finite = n.abs() < _INF
        top = int(where(finite, n, 0.0).max().item()) if n.numel() else 0
        prev, cur = p0, p1
        for k in range(1, top):
            prev, cur = cur, step(k, x, cur, prev)
            out = where(n == k + 1, cur, out)
        return where(n != n, math.nan, out)

    def fn(input, n):
        return _elementwise(op, (input, n), ("input", "n"), forward)
    fn.__name__ = fn.__qualname__ = op
    return fn


def _two_x_rec(k, x, cur, prev):
    return 2 * x * cur - prev


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", lambda x: x, _two_x_rec)
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", lambda x: 2 * x, _two_x_rec)
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", lambda x: 2 * x - 1, _two_x_rec)
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", lambda x: 2 * x + 1, _two_x_rec)
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t", lambda x: x,
                                             _two_x_rec, shift=True)
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u", lambda x: 2 * x,
                                             _two_x_rec, shift=True)
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v",
                                             lambda x: 2 * x - 1, _two_x_rec, shift=True)
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w",
                                             lambda x: 2 * x + 1, _two_x_rec, shift=True)
hermite_polynomial_h = _polynomial("hermite_polynomial_h", lambda x: 2 * x,
                                   lambda k, x, cur, prev: 2 * x * cur - 2 * k * prev)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", lambda x: x,
                                    lambda k, x, cur, prev: x * cur - k * prev)
laguerre_polynomial_l = _polynomial(
    "laguerre_polynomial_l", lambda x: 1 - x,
    lambda k, x, cur, prev: ((2 * k + 1 - x) * cur - k * prev) / (k + 1))
legendre_polynomial_p = _polynomial(
    "legendre_polynomial_p", lambda x: x,
    lambda k, x, cur, prev: ((2 * k + 1) * x * cur - k * prev) / (k + 1))

_POLY_DOCS = {
    "chebyshev_polynomial_t": "the Chebyshev polynomial of the first kind ``T_n``",
    "chebyshev_polynomial_u": "the Chebyshev polynomial of the second kind ``U_n``",
    "chebyshev_polynomial_v": "the Chebyshev polynomial of the third kind ``V_n``",
    "chebyshev_polynomial_w": "the Chebyshev polynomial of the fourth kind ``W_n``",
    "shifted_chebyshev_polynomial_t": "``T_n(2x - 1)``",
    "shifted_chebyshev_polynomial_u": "``U_n(2x - 1)``",
    "shifted_chebyshev_polynomial_v": "``V_n(2x - 1)``",
    "shifted_chebyshev_polynomial_w": "``W_n(2x - 1)``",
    "hermite_polynomial_h": "the physicists' Hermite polynomial ``H_n``",
    "hermite_polynomial_he": "the probabilists' Hermite polynomial ``He_n``",
    "laguerre_polynomial_l": "the Laguerre polynomial ``L_n``",
    "legendre_polynomial_p": "the Legendre polynomial ``P_n``",
}
for _name, _what in _POLY_DOCS.items():
    globals()[_name].__doc__ = (
        f"{_what[0].upper()}{_what[1:]} at ``input`` (``n`` truncated to an int; 0 for\n"
        "    negative ``n``; either may be a number).\n\n"
        "    >>> import ember\n"
        f"    >>> from ember.ops.special_functions import {_name}\n"
        f"    >>> {_name}(ember.tensor([0.5], dtype='float64'), 0).tolist()\n"
        "    [1.0]\n    ")
del _name, _what
