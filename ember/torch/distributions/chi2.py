"""``Chi2(df)``: the chi-squared distribution, ``Gamma(df / 2, 1 / 2)``.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Chi2
>>> d = Chi2(torch.tensor([3.0]))
>>> d.mean.tolist(), d.variance.tolist(), d.df.tolist()
([3.0], [6.0], [3.0])
"""

from . import constraints
from .gamma import Gamma
from .utils import broadcast_all

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The sum of squares of ``df`` (> 0, any real) standard normals."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return super().expand(batch_shape, self._get_checked_instance(Chi2, _instance))

    @property
    def df(self):
        """The degrees of freedom: twice the concentration."""
        return self.concentration * 2
