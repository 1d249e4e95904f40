"""``Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None)``: the
distribution of ``sum_i x_i x_i^T`` over ``df`` independent ``N(0, V)`` vectors, with the scale
``V`` given as a covariance, a precision or the lower Cholesky factor of ``V`` (exactly one);
``df`` may be any real number above ``p - 1`` for ``p x p`` matrices.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Wishart
>>> d = Wishart(torch.tensor(4.0), torch.eye(2))
>>> d.mean.tolist(), round(d.log_prob(torch.eye(2)).item(), 4)
([[4.0, 0.0], [0.0, 4.0]], -4.2242)
"""

import math
import numbers
import warnings

from ... import torch as _t
from ..._tensor import Tensor as _AnyTensor
from ...errors import InvalidParameterError, KindError, ShapeMismatchError
from .._tensor import as_torch
from . import constraints
from .distribution import Distribution
from .multivariate_normal import (_MATRICES, _as_param, _precision_of_tril,
                                  _scale_tril_of_precision)
from ._gamma_sampling import standard_gamma
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2.0)


def _df_tensor(df, like):
    if isinstance(df, _AnyTensor):
        return as_torch(df)
    if isinstance(df, numbers.Number):
        return _t.tensor(df, dtype=like.dtype, device=like.device)
    raise KindError(f"Wishart: df must be a tensor or a number, got {type(df).__name__}")


class Wishart(Distribution):
    """The Wishart distribution of ``df`` degrees of freedom and scale matrix ``V`` (given as
    ``covariance_matrix``, ``precision_matrix`` = ``V^-1`` or ``scale_tril`` = ``chol(V)``); the
    batch dims of ``df`` and the matrix broadcast."""

    support = constraints.positive_definite
    has_rsample = True

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = {name: m for name, m in zip(_MATRICES, (covariance_matrix, precision_matrix,
                                                         scale_tril)) if m is not None}
        if len(given) != 1:
            raise InvalidParameterError("Exactly one of covariance_matrix or precision_matrix "
                                        "or scale_tril may be specified.", "covariance_matrix",
                                        sorted(given))
        ((name, matrix),) = given.items()
        matrix = _as_param(matrix, name, 2)
        p = matrix.shape[-1]
        if matrix.shape[-2] != p:
            raise InvalidParameterError(f"{name} must be a batch of square matrices, got shape "
                                        f"{tuple(matrix.shape)}", name, tuple(matrix.shape))
        df = _df_tensor(df, matrix)
        if bool((df <= p - 1).any()):
            raise InvalidParameterError(
                f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.", "df", df)
        if bool((df < p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.", UserWarning, stacklevel=2)
        try:
            batch_shape = _t.broadcast_shapes(df.shape, matrix.shape[:-2])
        except ShapeMismatchError:
            raise InvalidParameterError(
                f"the batch shapes of df {tuple(df.shape)} and {name} "
                f"{tuple(matrix.shape[:-2])} do not broadcast", "df", tuple(df.shape)) from None
        setattr(self, name, matrix.expand(batch_shape + (p, p)))
        self.df = df.expand(batch_shape)
        super().__init__(batch_shape, (p, p), validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = _t.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _scale_tril_of_precision(matrix)

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self._p() - 1)}

    def expand(self, batch_shape, _instance=None):
        new = self._expand_parameters(Wishart, ("df",) + _MATRICES, batch_shape, _instance)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    def _p(self):
        return self._event_shape[-1]

    def _df(self):
        """``df`` with two trailing dims of size 1, to scale matrices."""
        return self.df.unsqueeze(-1).unsqueeze(-1)

    def _scale(self):
        tril = self._unbroadcasted_scale_tril
        return tril @ tril.mT

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        return self._scale().expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        inverse = _precision_of_tril(self._unbroadcasted_scale_tril)
        return inverse.expand(self._batch_shape + self._event_shape)

    @property
    def mean(self):
        return self._df() * self._scale()

    @property
    def mode(self):
        factor = self._df() - self._p() - 1
        factor = _t.where(factor > 0, factor, _t.full_like(factor, math.nan))
        return factor * self._scale()

    @property
    def variance(self):
        v = self._scale()
        diag = v.diagonal(dim1=-2, dim2=-1)
        return self._df() * (v.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Draws by the Bartlett decomposition ``X = (L A)(L A)^T``: ``A`` lower triangular with
        ``A_ii^2 ~ chi2(df - i)`` and standard normal entries below the diagonal. Gradients
        reach the scale matrix, and ``df`` as far as ``standard_gamma`` differentiates its draws
        in their concentration.
        ``max_try_correction`` is accepted for PyTorch's signature; these draws are positive
        definite (``A`` has a positive diagonal), so no redraws are made."""
        p = self._p()
        shape = self._extended_shape(sample_shape)
        like = {"dtype": self.df.dtype, "device": self.df.device}
        rows = _t.arange(p, **like)
        half_df = (self.df.unsqueeze(-1) - rows) / 2  # chi2(k) = 2 Gamma(k / 2)
        diag = (2 * standard_gamma(half_df.expand(shape[:-1]))).sqrt()
        below = _t.randn(shape, **like).tril(-1)
        factor = self._unbroadcasted_scale_tril @ (below + _t.diag_embed(diag))
        return factor @ factor.mT

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        p, df = self._p(), self.df
        tril = self._unbroadcasted_scale_tril
        half_log_det_v = tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        half_log_det_x = _t.linalg.cholesky(value).diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = (_precision_of_tril(tril) * value).sum((-2, -1))  # tr(V^-1 X), X symmetric
        return ((df - p - 1) * half_log_det_x - 0.5 * trace - 0.5 * df * p * _LOG_2
                - df * half_log_det_v - _t.mvlgamma(0.5 * df, p))

    def entropy(self):
        p, df = self._p(), self.df
        half_log_det_v = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        # psi_p(a) = sum_i digamma(a - i / 2), the derivative of log Gamma_p
        offsets = _t.arange(p, dtype=df.dtype, device=df.device) / 2
        psi_p = _t.digamma(0.5 * df.unsqueeze(-1) - offsets).sum(-1)
        return ((p + 1) * half_log_det_v + 0.5 * p * (p + 1) * _LOG_2
                + _t.mvlgamma(0.5 * df, p) - 0.5 * (df - p - 1) * psi_p + 0.5 * df * p)
