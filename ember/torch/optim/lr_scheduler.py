"""``ember.torch.optim.lr_scheduler``: PyTorch's learning-rate schedulers (ember.optim's).

>>> from ember.torch.optim.lr_scheduler import StepLR
>>> StepLR.__name__
'StepLR'
"""

from ...optim.lr_scheduler import *  # noqa: F401,F403
from ...optim.lr_scheduler import __all__  # noqa: F401
