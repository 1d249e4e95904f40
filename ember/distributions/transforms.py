"""``ember.distributions.transforms``: the module ``ember.torch.distributions.transforms``.

>>> from ember.distributions import transforms
>>> transforms.ExpTransform()
ExpTransform()
"""

from ..torch.distributions.transforms import *  # noqa: F401,F403
from ..torch.distributions.transforms import __all__  # noqa: F401
