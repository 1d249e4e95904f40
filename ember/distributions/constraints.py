"""``ember.distributions.constraints``: the module ``ember.torch.distributions.constraints``.

>>> from ember.distributions import constraints
>>> constraints.positive
GreaterThan(lower_bound=0.0)
"""

from ..torch.distributions.constraints import *  # noqa: F401,F403
from ..torch.distributions.constraints import __all__  # noqa: F401
