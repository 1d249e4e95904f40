"""``LowRankMultivariateNormal(loc, cov_factor, cov_diag)``: the Gaussian on vectors whose
covariance is ``W W^T + diag(D)`` for an ``n x m`` ``cov_factor`` ``W`` and a positive
``cov_diag`` ``D``; densities use the ``m x m`` capacitance matrix ``I + W^T D^-1 W`` (Woodbury's
identity and the matrix determinant lemma) instead of the ``n x n`` covariance.

>>> import ember.torch as torch
>>> from ember.torch.distributions import LowRankMultivariateNormal
>>> d = LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2))
>>> d.covariance_matrix.tolist(), round(d.log_prob(torch.zeros(2)).item(), 4)
([[2.0, 1.0], [1.0, 2.0]], -2.3872)
"""

import math

from ... import torch as _t
from ...errors import InvalidParameterError, ShapeMismatchError
from . import constraints
from .distribution import Distribution
from .kl import register_kl
from .multivariate_normal import MultivariateNormal, _as_param, _solve_lower, gaussian_kl
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]

_LOG_2PI = math.log(2 * math.pi)


class LowRankMultivariateNormal(Distribution):
    """The normal distribution with mean ``loc`` and covariance
    ``cov_factor @ cov_factor.mT + diag(cov_diag)``; batch dims broadcast."""

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        loc = _as_param(loc, "loc", 1)
        cov_factor = _as_param(cov_factor, "cov_factor", 2)
        cov_diag = _as_param(cov_diag, "cov_diag", 1)
        n = loc.shape[-1]
        if cov_factor.shape[-2] != n:
            raise InvalidParameterError(
                f"cov_factor must be a batch of matrices with shape {n} x m, got shape "
                f"{tuple(cov_factor.shape)}", "cov_factor", tuple(cov_factor.shape))
        if cov_diag.shape[-1] != n:
            raise InvalidParameterError(
                f"cov_diag must be a batch of vectors with shape {tuple(loc.shape[-1:])}, got "
                f"shape {tuple(cov_diag.shape)}", "cov_diag", tuple(cov_diag.shape))
        try:
            batch_shape = _t.broadcast_shapes(loc.shape[:-1], cov_factor.shape[:-2],
                                              cov_diag.shape[:-1])
        except ShapeMismatchError:
            raise InvalidParameterError(
                f"the batch shapes of loc {tuple(loc.shape[:-1])}, cov_factor "
                f"{tuple(cov_factor.shape[:-2])} and cov_diag {tuple(cov_diag.shape[:-1])} do "
                "not broadcast", "cov_factor", tuple(cov_factor.shape)) from None
        m = cov_factor.shape[-1]
        self.loc = loc.expand(batch_shape + (n,))
        self.cov_factor = cov_factor.expand(batch_shape + (n, m))
        self.cov_diag = cov_diag.expand(batch_shape + (n,))
        super().__init__(batch_shape, (n,), validate_args=validate_args)
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)

    def expand(self, batch_shape, _instance=None):
        names = ("loc", "cov_factor", "cov_diag", "variance", "covariance_matrix", "scale_tril",
                 "precision_matrix")  # the lazy properties too, when already computed
        new = self._expand_parameters(LowRankMultivariateNormal, names, batch_shape, _instance)
        for name in ("_unbroadcasted_cov_factor", "_unbroadcasted_cov_diag",
                     "_capacitance_tril"):
            setattr(new, name, getattr(self, name))
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (w.pow(2).sum(-1) + d).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (w @ w.mT + _t.diag_embed(d)).expand(self._matrix_shape())

    @lazy_property
    def scale_tril(self):
        return _t.linalg.cholesky(self.covariance_matrix)

    @lazy_property
    def precision_matrix(self):
        # Woodbury: S^-1 = D^-1 - A^T A with A = C^-1/2 W^T D^-1 (C the capacitance)
        a = self._woodbury_factor()
        inv_d = self._unbroadcasted_cov_diag.reciprocal()
        return (_t.diag_embed(inv_d) - a.mT @ a).expand(self._matrix_shape())

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        w = self._unbroadcasted_cov_factor
        like = {"dtype": self.loc.dtype, "device": self.loc.device}
        eps_w = _t.randn(shape[:-1] + (w.shape[-1],), **like)
        eps_d = _t.randn(shape, **like)
        return (self.loc + (w @ eps_w.unsqueeze(-1)).squeeze(-1)
                + self._unbroadcasted_cov_diag.sqrt() * eps_d)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        m = self._inv_quad((value - self.loc).unsqueeze(-1))
        return -0.5 * (self._event_shape[0] * _LOG_2PI + m) - self._half_log_det()

    def entropy(self):
        h = 0.5 * self._event_shape[0] * (1.0 + _LOG_2PI) + self._half_log_det()
        return h.expand(self._batch_shape)

    # -- the Gaussian algebra ``log_prob`` and the KL divergences share -----------------------
    def _woodbury_factor(self):
        """``A = L_C^-1 W^T D^-1`` (``m x n``): ``covariance^-1 = D^-1 - A^T A``."""
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return _solve_lower(self._capacitance_tril, w.mT / d.unsqueeze(-2))

    def _covariance_factors(self):
        return [self._unbroadcasted_cov_factor,
                _t.diag_embed(self._unbroadcasted_cov_diag.sqrt())]

    def _half_log_det(self):
        # the matrix determinant lemma: |W W^T + D| = |I + W^T D^-1 W| |D|
        capacitance = self._capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return capacitance + 0.5 * self._unbroadcasted_cov_diag.log().sum(-1)

    def _inv_quad(self, b):
        """``tr(B^T covariance^-1 B) = tr(B^T D^-1 B) - |L_C^-1 W^T D^-1 B|^2``."""
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        scaled = b / d.unsqueeze(-1)
        plain = (b * scaled).sum((-2, -1))
        return plain - _solve_lower(self._capacitance_tril, w.mT @ scaled).pow(2).sum((-2, -1))


def _capacitance_tril(cov_factor, cov_diag):
    """The Cholesky factor of ``I + W^T D^-1 W``."""
    m = cov_factor.shape[-1]
    inner = cov_factor.mT @ (cov_factor / cov_diag.unsqueeze(-1))
    eye = _t.eye(m, dtype=cov_factor.dtype, device=cov_factor.device)
    return _t.linalg.cholesky(inner + eye)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    return gaussian_kl(p, q)


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p, q):
    return gaussian_kl(p, q)


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_lowrank(p, q):
    return gaussian_kl(p, q)
