"""``ember.torch.optim``."""

from ...optim import *  # noqa: F401,F403
from ...optim import lr_scheduler  # noqa: F401
