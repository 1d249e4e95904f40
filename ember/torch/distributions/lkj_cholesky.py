"""``LKJCholesky(dim, concentration=1.0)``: the lower Cholesky factors ``L`` of ``dim x dim``
correlation matrices ``L L^T`` drawn from the LKJ distribution, whose density on correlation
matrices is proportional to ``det(R) ** (concentration - 1)``; sampled by the onion method.

>>> import ember.torch as torch
>>> from ember.torch.distributions import LKJCholesky
>>> d = LKJCholesky(3, torch.tensor(2.0))
>>> L = d.sample()
>>> tuple(L.shape), bool(((L @ L.mT).diagonal() - 1).abs().max() < 1e-5)
((3, 3), True)
"""

import math
import numbers

from ... import torch as _t
from ...errors import InvalidParameterError
from .._tensor import Size
from . import constraints
from .distribution import Distribution
from ._gamma_sampling import standard_gamma
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution on Cholesky factors of correlation matrices of side ``dim`` (>= 2);
    ``concentration`` (> 0, batched) of 1 makes the correlation matrices uniform, larger values
    favour the identity."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral) or dim < 2:
            raise InvalidParameterError("Expected dim to be an integer greater than or equal "
                                        f"to 2. Found dim={dim}.", "dim", dim)
        self.dim = int(dim)
        (self.concentration,) = broadcast_all(concentration)
        super().__init__(self.concentration.shape, (self.dim, self.dim),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _row_betas(self):
        """For rows ``i = 1 .. dim-1``: ``concentration + (dim - 1 - i) / 2`` (last dim), the
        second Beta parameter of the squared norm of the row's off-diagonal part."""
        c = self.concentration
        rows = _t.arange(1, self.dim, dtype=c.dtype, device=c.device)
        return c.unsqueeze(-1) + (self.dim - 1 - rows) / 2, rows

    def sample(self, sample_shape=()):
        """The onion method: row ``i`` (from 1) is ``(sqrt(y) u, sqrt(1 - y))`` with
        ``y ~ Beta(i / 2, concentration + (dim - 1 - i) / 2)`` and ``u`` uniform on the unit
        sphere of R^i."""
        shape = self._extended_shape(sample_shape)
        with _t.no_grad():
            beta, rows = self._row_betas()
            beta = beta.detach().expand(shape[:-2] + (self.dim - 1,))
            a = standard_gamma((rows / 2).expand(beta.shape))
            b = standard_gamma(beta)
            # y = a / (a + b) ~ Beta; 1 - y is taken as b / (a + b), so the diagonal stays > 0
            # even where y rounds to 1
            like = {"dtype": beta.dtype, "device": beta.device}
            zeros, ones = _t.zeros(shape[:-2] + (1,), **like), _t.ones(shape[:-2] + (1,), **like)
            y = _t.cat([zeros, a / (a + b)], -1)  # row 0 is (1, 0, ...)
            rest = _t.cat([ones, b / (a + b)], -1).clamp(min=_t.finfo(beta.dtype).tiny)
            directions = _t.randn(shape, **like).tril(-1)
            norms = directions.pow(2).sum(-1, keepdim=True).sqrt()
            norms = _t.where(norms > 0, norms, _t.ones_like(norms))
            off_diagonal = directions / norms * y.sqrt().unsqueeze(-1)
            return off_diagonal + _t.diag_embed(rest.sqrt())

    def log_prob(self, value):
        """The density of the strictly-lower entries: row ``i``'s are a point of the unit ball
        of R^i whose squared norm is the Beta draw of ``sample``, giving
        ``sum_i (2 b_i - 2) log L_ii + lgamma(i / 2 + b_i) - lgamma(b_i) - (i / 2) log pi``."""
        if self._validate_args:
            self._validate_sample(value)
        beta, rows = self._row_betas()
        log_diagonal = value.diagonal(dim1=-2, dim2=-1)[..., 1:].log()
        terms = (2 * beta - 2) * log_diagonal
        normalizer = (_t.lgamma(rows / 2 + beta) - _t.lgamma(beta)
                      - rows / 2 * math.log(math.pi))
        return (terms + normalizer).sum(-1)
