"""``StudentT(df, loc=0.0, scale=1.0)``: Student's t distribution, the law of
``loc + scale * Z / sqrt(V / df)`` for a standard normal ``Z`` and chi-squared ``V``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import StudentT
>>> d = StudentT(torch.tensor([3.0]))
>>> d.variance.tolist(), [round(v, 4) for v in d.log_prob(torch.tensor([0.0])).tolist()]
([3.0], [-1.0009])
"""

import math

from ... import torch as _t
from . import constraints
from ._gamma_sampling import standard_gamma
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom (> 0), location ``loc`` and ``scale``
    (> 0)."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(StudentT, ("df", "loc", "scale"), batch_shape, _instance)

    @property
    def mean(self):
        return _t.where(self.df > 1, self.loc, _t.full_like(self.loc, math.nan))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        return _t.where(df > 2, finite,
                        _t.where(df > 1, _t.full_like(finite, math.inf),
                                 _t.full_like(finite, math.nan)))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        df = self.df.expand(shape)
        z = _t.randn(shape, dtype=df.dtype, device=df.device)
        # V / df = chi2(df) / df = Gamma(df/2, 1) / (df/2)
        v_over_df = standard_gamma(0.5 * df) / (0.5 * df)
        return self.loc + self.scale * z * _t.rsqrt(v_over_df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        df = self.df
        y = (value - self.loc) / self.scale
        return (_t.lgamma(0.5 * (df + 1)) - _t.lgamma(0.5 * df) - 0.5 * _t.log(df * math.pi)
                - _t.log(self.scale) - 0.5 * (df + 1) * _t.log1p(y * y / df))

    def entropy(self):
        df = self.df
        half, half1 = 0.5 * df, 0.5 * (df + 1)
        log_beta = _t.lgamma(half) + math.lgamma(0.5) - _t.lgamma(half1)
        return (half1 * (_t.digamma(half1) - _t.digamma(half)) + 0.5 * _t.log(df) + log_beta
                + _t.log(self.scale))
