"""``FisherSnedecor(df1, df2)``: the F distribution, the law of ``(U / df1) / (V / df2)`` for
independent chi-squared ``U`` (``df1`` degrees) and ``V`` (``df2``).

>>> import ember.torch as torch
>>> from ember.torch.distributions import FisherSnedecor
>>> d = FisherSnedecor(torch.tensor([4.0]), torch.tensor([6.0]))
>>> d.mean.tolist(), [round(v, 4) for v in d.log_prob(torch.tensor([1.0])).tolist()]
([1.5], [-0.8802])
"""

import math

from ... import torch as _t
from . import constraints
from ._gamma_sampling import standard_gamma
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["FisherSnedecor"]


def _defined_where(df, defined):
    """``df`` where the moment exists, else a nan constant: the moment and its gradients are
    nan there (as PyTorch's)."""
    return _t.where(defined, df, _t.full_like(df, math.nan).detach())


class FisherSnedecor(Distribution):
    """The F distribution with ``df1`` and ``df2`` degrees of freedom (both > 0)."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        super().__init__(self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_parameters(FisherSnedecor, ("df1", "df2"), batch_shape, _instance)

    @property
    def mean(self):
        d2 = _defined_where(self.df2, self.df2 > 2)
        return d2 / (d2 - 2)

    @property
    def mode(self):
        d1, d2 = self.df1, self.df2
        return _t.where(d1 > 2, (d1 - 2) / d1 * d2 / (d2 + 2), _t.full_like(d1, math.nan))

    @property
    def variance(self):
        d1, d2 = self.df1, _defined_where(self.df2, self.df2 > 4)
        return 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        d1, d2 = self.df1.expand(shape), self.df2.expand(shape)
        # chi2(d) / d = Gamma(d/2, 1) / (d/2)
        u = standard_gamma(0.5 * d1) / d1
        v = standard_gamma(0.5 * d2) / d2
        x = u / v
        return x + (x.clamp(min=_t.finfo(x.dtype).tiny) - x).detach()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        h1, h2 = 0.5 * self.df1, 0.5 * self.df2
        ratio = self.df1 / self.df2
        return (h1 * _t.log(ratio) + (h1 - 1) * _t.log(value)
                - (h1 + h2) * _t.log1p(ratio * value)
                - (_t.lgamma(h1) + _t.lgamma(h2) - _t.lgamma(h1 + h2)))
