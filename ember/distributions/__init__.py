"""``ember.distributions``: PyTorch's probability distributions, the classes of
``ember.torch.distributions`` under ember's name.

The spec has no distributions, so there is one API for them, PyTorch's: the classes, their
arguments and meanings are ``torch.distributions``'s, and their results are ``ember.torch``
tensors (ember tensors whose methods have PyTorch's meanings; ``ember.torch.as_ember(x)`` gives
the spec's view of the same buffer, without a copy). They accept ember tensors of either API.

>>> import ember
>>> from ember.distributions import Normal
>>> d = Normal(ember.zeros(3), 1.0)
>>> d.sample((2,)).shape
torch.Size([2, 3])
>>> Normal is ember.torch.distributions.Normal
True
"""

from ..torch.distributions import *  # noqa: F401,F403
from ..torch.distributions import __all__  # noqa: F401
