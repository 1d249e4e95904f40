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
from .beta import Beta
from .categorical import Categorical
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fisher_snedecor import FisherSnedecor
from .gamma import Gamma
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .normal import Normal
from .student_t import StudentT
from .uniform import Uniform
from .von_mises import VonMises
from . import _kl_gamma_family  # noqa: F401  (registers the cross-family KL pairs)

__all__ = ["Bernoulli", "Categorical", "Distribution", "ExponentialFamily", "Normal", "Uniform",
           "constraints", "kl_divergence", "register_kl",
           "Beta", "Chi2", "Dirichlet", "Exponential", "FisherSnedecor", "Gamma", "InverseGamma",
           "StudentT", "VonMises"]
