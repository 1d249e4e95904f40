"""``MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None)``:
the Gaussian on vectors, given its mean and exactly one of its covariance, its precision or the
lower Cholesky factor of its covariance.

>>> import ember.torch as torch
>>> from ember.torch.distributions import MultivariateNormal
>>> d = MultivariateNormal(torch.zeros(2), covariance_matrix=torch.eye(2) * 4)
>>> d.scale_tril.tolist(), round(d.log_prob(torch.zeros(2)).item(), 4)
([[2.0, 0.0], [0.0, 2.0]], -3.2242)
"""

import math

from ... import torch as _t
from ...errors import InvalidParameterError, ShapeMismatchError
from . import constraints
from .distribution import Distribution
from .kl import register_kl
from .utils import broadcast_all, lazy_property

__all__ = ["MultivariateNormal"]

_LOG_2PI = math.log(2 * math.pi)
_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


def _as_param(value, name, min_dim):
    (value,) = broadcast_all(value)
    if value.dim() < min_dim:
        what = "one-dimensional" if min_dim == 1 else (
            "two-dimensional, with optional leading batch dimensions")
        raise InvalidParameterError(f"{name} must be at least {what}", name, tuple(value.shape))
    return value


def _broadcast_batch(name_a, a, name_b, b):
    try:
        return _t.broadcast_shapes(a, b)
    except ShapeMismatchError:
        raise InvalidParameterError(
            f"the batch shapes of {name_a} {tuple(a)} and {name_b} {tuple(b)} do not broadcast",
            name_b, tuple(b)) from None


def _scale_tril_of_precision(precision):
    """The lower ``L`` with ``L L^T = P^-1``: with ``J`` the reversal permutation, the Cholesky
    factor ``C`` of ``J P J`` gives ``P = U U^T`` for the upper ``U = J C J``, so ``L = U^-T``."""
    flipped = _t.flip(precision, (-2, -1))
    upper = _t.flip(_t.linalg.cholesky(flipped), (-2, -1))
    eye = _t.eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return _t.linalg.solve_triangular(upper, eye.expand(precision.shape), upper=True).mT


def _precision_of_tril(tril):
    """``(L L^T)^-1``, differentiable in every entry of ``tril`` (as PyTorch's)."""
    return _t.linalg.inv(tril @ tril.mT)


def _solve_lower(tril, b):
    """``tril^-1 b`` for a lower-triangular ``tril``, the batch dims of both broadcast."""
    batch = _t.broadcast_shapes(tril.shape[:-2], b.shape[:-2])
    return _t.linalg.solve_triangular(tril.expand(batch + tuple(tril.shape[-2:])),
                                      b.expand(batch + tuple(b.shape[-2:])), upper=False)


class MultivariateNormal(Distribution):
    """The normal distribution on vectors of the last dim of ``loc``, with its covariance given
    as ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (exactly one); the batch
    dims of ``loc`` and the matrix broadcast."""

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = {name: m for name, m in zip(_MATRICES, (covariance_matrix, precision_matrix,
                                                         scale_tril)) if m is not None}
        if len(given) != 1:
            raise InvalidParameterError("Exactly one of covariance_matrix or precision_matrix "
                                        "or scale_tril may be specified.", "covariance_matrix",
                                        sorted(given))
        loc = _as_param(loc, "loc", 1)
        ((name, matrix),) = given.items()
        matrix = _as_param(matrix, name, 2)
        n = loc.shape[-1]
        if tuple(matrix.shape[-2:]) != (n, n):
            raise InvalidParameterError(
                f"{name} must be a batch of {n} x {n} matrices (the size of loc's last dim), "
                f"got shape {tuple(matrix.shape)}", name, tuple(matrix.shape))
        batch_shape = _broadcast_batch("loc", loc.shape[:-1], name, matrix.shape[:-2])
        self.loc = loc.expand(batch_shape + (n,))
        setattr(self, name, matrix.expand(batch_shape + (n, n)))
        super().__init__(batch_shape, (n,), validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = _t.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _scale_tril_of_precision(matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._expand_parameters(MultivariateNormal, ("loc",) + _MATRICES, batch_shape,
                                      _instance)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return _precision_of_tril(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _t.randn(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        m = self._inv_quad((value - self.loc).unsqueeze(-1))
        return -0.5 * (self._event_shape[0] * _LOG_2PI + m) - self._half_log_det()

    def entropy(self):
        h = 0.5 * self._event_shape[0] * (1.0 + _LOG_2PI) + self._half_log_det()
        return h.expand(self._batch_shape)

    # -- the Gaussian algebra ``log_prob`` and the KL divergences share -----------------------
    def _covariance_factors(self):
        """Matrices ``B_i`` (``n x r_i``) with ``covariance = sum B_i B_i^T``."""
        return [self._unbroadcasted_scale_tril]

    def _half_log_det(self):
        """``log|covariance| / 2``, over the (unbroadcast) batch."""
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def _inv_quad(self, b):
        """``tr(B^T covariance^-1 B)`` for ``n x r`` matrices ``b`` (batch dims broadcast)."""
        return _solve_lower(self._unbroadcasted_scale_tril, b).pow(2).sum((-2, -1))


def gaussian_kl(p, q):
    """``KL(p || q)`` of two Gaussians (MultivariateNormal or LowRankMultivariateNormal):
    ``(tr(S_q^-1 S_p) + d^T S_q^-1 d - k + log|S_q| - log|S_p|) / 2`` with ``d`` the mean
    difference, from each one's ``_covariance_factors``, ``_half_log_det`` and ``_inv_quad``."""
    if p.event_shape != q.event_shape:
        raise InvalidParameterError(
            "KL-divergence between two Multivariate Normals with different event shapes "
            f"cannot be computed: {tuple(p.event_shape)} vs {tuple(q.event_shape)}", "q",
            tuple(q.event_shape))
    batch = _broadcast_batch("p.batch_shape", p.batch_shape, "q.batch_shape", q.batch_shape)
    trace = sum(q._inv_quad(b) for b in p._covariance_factors())
    mahalanobis = q._inv_quad((q.loc - p.loc).unsqueeze(-1))
    out = 0.5 * (trace + mahalanobis - p.event_shape[0]) + q._half_log_det() - p._half_log_det()
    return out.expand(batch)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    return gaussian_kl(p, q)
