"""``ember.torch.special``: PyTorch's ``torch.special`` namespace on ember's ops.

Every public name of ``torch.special`` with PyTorch's signature, special values and gradients
(the functions live in ``ember/ops/special_functions.py``; ``erf``, ``expm1``, ``log1p``,
``expit``, ``round``, ``softmax`` and ``log_softmax`` are ember's own ops). Results are
ember.torch tensors. The top-level twins PyTorch has (``torch.lgamma``, ``torch.digamma``,
``torch.polygamma``, ``torch.erfinv``, ``torch.erfc``, ``torch.exp2``, ``torch.i0``,
``torch.sinc``, ``torch.xlogy``, ``torch.logit``, ``torch.mvlgamma``, ``torch.igamma``,
``torch.igammac``) and the Tensor methods of the same names are registered here too.

>>> import ember.torch as torch
>>> x = torch.tensor([0.5, 1.0, 4.0], dtype=torch.float64, requires_grad=True)
>>> _ = torch.special.gammaln(x).sum().backward()
>>> x.grad.round(decimals=6).tolist()   # digamma
[-1.96351, -0.577216, 1.256118]
>>> x.detach().lgamma().round(decimals=4).tolist()
[0.5724, 0.0, 1.7918]
"""


import ember as _e

from ..autodiff.graph import no_grad as _no_grad
from ..errors import InvalidParameterError as _InvalidParameterError
from ..ops import special_functions as _sf
from ..ops.elementwise import _check_tensor
from ..ops.masking import where as _where
from ._tensor import (Tensor, _returns_torch, torch_function as _torch_function,  # noqa: F401
                      torch_method as _torch_method)

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma",
    "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc",
    "gammaincc", "gammaln", "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1",
    "i1e", "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax",
    "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py",
    "xlogy", "zeta",
]


def _logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input), dim))``, computed stably (the maximum subtracted first); ``dim`` an
    int or a tuple of ints. ``-inf`` where every element is ``-inf``.

    >>> import ember
    >>> _logsumexp(ember.tensor([[0.0, 0.0]], dtype="float64"), 1).round(6).tolist()
    [0.693147]
    """
    _check_tensor(input, "logsumexp")
    if not isinstance(keepdim, bool):
        raise _InvalidParameterError(f"logsumexp: keepdim must be a bool, got {keepdim!r}",
                                     "keepdim", keepdim)
    x = input if input.dtype.kind == "float" else input.cast(_e.dtypes.default_float)
    with _no_grad():
        m = _e.Tensor.max(x.detach(), dim=dim, keepdim=True)
        m = _where(m.abs() == float("inf"), 0.0, m)
    out = _e.Tensor.sum((x - m).exp(), dim=dim, keepdim=True).log() + m
    if not keepdim:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        out = out.squeeze(tuple(d % max(x.ndim, 1) for d in dims)) if x.ndim else out
    return out


def _round(input, *, decimals=0):
    """PyTorch's ``round`` (half to even; ``decimals`` digits)."""
    return _e.round(input, decimals)


def _softmax(input, dim, *, dtype=None):
    """PyTorch's ``softmax`` along ``dim`` (``dtype``: cast the input first)."""
    return _e.nn.functional.softmax(input, dim, dtype)


def _log_softmax(input, dim, *, dtype=None):
    """PyTorch's ``log_softmax`` along ``dim`` (``dtype``: cast the input first)."""
    return _e.nn.functional.log_softmax(input, dim, dtype)


_SOURCES = {name: getattr(_sf, name) for name in _sf.__all__}
_SOURCES.update(
    erf=_e.erf, expm1=_e.expm1, log1p=_e.log1p, expit=_e.sigmoid, round=_round,
    softmax=_softmax, log_softmax=_log_softmax, logsumexp=_logsumexp, psi=_sf.digamma,
    gammaln=_sf.lgamma,
)

for _name in __all__:
    globals()[_name] = _returns_torch(_SOURCES[_name], _name)
    globals()[_name].__qualname__ = _name

# -- PyTorch's top-level twins and Tensor methods -----------------------------------------------

_TOP = {  # torch.<name>: the special function it is
    "lgamma": _sf.lgamma, "digamma": _sf.digamma, "polygamma": _sf.polygamma,
    "erfinv": _sf.erfinv, "erfc": _sf.erfc, "exp2": _sf.exp2, "i0": _sf.i0, "sinc": _sf.sinc,
    "xlogy": _sf.xlogy, "logit": _sf.logit, "mvlgamma": _sf.multigammaln,
    "igamma": _sf.gammainc, "igammac": _sf.gammaincc,
}
for _name, _fn in _TOP.items():
    _torch_function(_fn, name=_name)

for _name in ("lgamma", "digamma", "erfinv", "erfc", "exp2", "i0", "sinc"):
    def _method(self, _f=_TOP[_name]):
        return _f(self.to(_e.float32) if self._dtype is _e.bool_ else self)  # bools as PyTorch
    _method.__doc__ = f"PyTorch's ``Tensor.{_name}()``: ``torch.{_name}(self)``."
    _torch_method(_method, name=_name)


@_torch_method(name="polygamma")
def _polygamma_method(self, n):
    """PyTorch's ``Tensor.polygamma(n)``: ``torch.polygamma(n, self)``."""
    return _sf.polygamma(n, self)


@_torch_method(name="xlogy")
def _xlogy_method(self, other):
    """PyTorch's ``Tensor.xlogy(other)``."""
    return _sf.xlogy(self, other)


@_torch_method(name="logit")
def _logit_method(self, eps=None):
    """PyTorch's ``Tensor.logit(eps=None)``."""
    return _sf.logit(self.to(_e.float32) if self._dtype is _e.bool_ else self, eps)


@_torch_method(name="mvlgamma")
def _mvlgamma_method(self, p):
    """PyTorch's ``Tensor.mvlgamma(p)``."""
    return _sf.multigammaln(self, p)


@_torch_method(name="igamma")
def _igamma_method(self, other):
    """PyTorch's ``Tensor.igamma(other)``."""
    return _sf.gammainc(self, other)


@_torch_method(name="igammac")
def _igammac_method(self, other):
    """PyTorch's ``Tensor.igammac(other)``."""
    return _sf.gammaincc(self, other)


del _name, _fn, _method
