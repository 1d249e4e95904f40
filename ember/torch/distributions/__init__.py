"""``ember.torch.distributions``: PyTorch's probability distributions on ember's engine.

Each distribution has PyTorch's constructor, shapes (``batch_shape``, ``event_shape``), methods
(``sample``, ``rsample``, ``log_prob``, ``cdf``, ``icdf``, ``entropy``, ``mean``, ``variance``
...), argument validation and ``kl_divergence``; results are ember.torch tensors.

>>> import ember.torch as torch
>>> from ember.torch.distributions import Categorical
>>> m = Categorical(torch.tensor([0.25, 0.25, 0.5]))
>>> m.sample().shape, round(m.entropy().item(), 4)
(torch.Size([]), 1.0397)
"""

from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .independent import Independent
from .kl import kl_divergence, register_kl
from .lkj_cholesky import LKJCholesky
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .uniform import Uniform
from .wishart import Wishart

__all__ = ["Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "Independent",
           "LKJCholesky", "LowRankMultivariateNormal", "MixtureSameFamily", "MultivariateNormal",
           "Normal", "Uniform", "Wishart", "constraints", "kl_divergence", "register_kl"]
