"""``ember.torch.nn``: PyTorch's ``torch.nn`` on ember's layers (filled by the nn issue)."""

from ...nn import *  # noqa: F401,F403
from . import functional  # noqa: F401
